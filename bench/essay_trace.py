#!/usr/bin/python3
"""essay_trace.py -- the essay's own Python approach as a batch tool.

Reads one expression per stdin line and, for each, does what the essay
does (ast.parse(src, mode='eval'), a walk of every node against its
allowlist of node types and six call names, eval(compile(tree)) with
empty __builtins__ and a namespace of the six builtins and `orders`),
then prints the line `sandboxrepl --batch --path=sandbox` prints for it:

    sandboxed code: 'round(sum(orders) / len(orders), 2)' -> 173.33

`make bench` runs it and sandboxrepl on the same file of essay lines, in
turn, and compares their time per input (and their output, byte for
byte: the same lines must come out).  anchors.py's "essay" anchor is the
same evaluation, timed alone.
"""

import ast
import sys

ORDERS = [250.0, 180.0, 90.0]
SAFE_CALLS = {"sum": sum, "len": len, "min": min, "max": max,
              "round": round, "abs": abs}
SAFE_NODES = (
    ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name,
    ast.Load, ast.List, ast.Tuple, ast.Call,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
    ast.UAdd, ast.USub,
)


class Blocked(Exception):
    """The essay's allowlist refused the input."""


def main():
    names = dict(SAFE_CALLS)
    names["orders"] = ORDERS
    env = {"__builtins__": {}}
    out = sys.stdout
    for line in sys.stdin:
        src = line.rstrip("\n")
        if not src.strip():
            continue
        tree = ast.parse(src, mode="eval")
        for node in ast.walk(tree):
            if not isinstance(node, SAFE_NODES):
                raise Blocked("disallowed node " + type(node).__name__)
            if isinstance(node, ast.Call) and not (
                    isinstance(node.func, ast.Name)
                    and node.func.id in SAFE_CALLS):
                raise Blocked("disallowed function call")
        result = eval(compile(tree, "<agent>", "eval"), env, dict(names))
        out.write("sandboxed code: %r -> %r\n" % (src, result))


if __name__ == "__main__":
    main()
