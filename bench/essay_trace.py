#!/usr/bin/python3
"""essay_trace.py -- the essay's own Python approach as a batch tool.

Reads one expression per stdin line and, for each, does what the essay
does -- anchors.py's "essay" anchor: ast.parse(src, mode='eval'), a walk
of every node against its allowlist of node types and six call names,
eval(compile(tree)) with empty __builtins__ and a namespace of the six
builtins and `orders` -- then prints the line `sandboxrepl --batch
--path=sandbox` prints for it:

    sandboxed code: 'round(sum(orders) / len(orders), 2)' -> 173.33

`make bench` runs it and sandboxrepl on the same file of essay lines, in
turn, and compares their time per input (and their output, byte for
byte: the same lines must come out).  anchors.py times the same
evaluation alone.
"""

import os
import sys

sys.dont_write_bytecode = True  # (nothing written beside the sources)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import anchors  # noqa: E402 -- beside this file


def main():
    run = anchors.make_essay()
    out = sys.stdout
    for line in sys.stdin:
        src = line.rstrip("\n")
        if not src.strip():
            continue
        out.write("sandboxed code: %r -> %r\n" % (src, run(src)))


if __name__ == "__main__":
    main()
