#!/usr/bin/python3
"""anchors.py -- the Python anchors `make bench` compares sandboxrepl with.

Three ways people evaluate an untrusted expression in Python, each doing a
whole parse + check + evaluate per call:

  essay       the essay's approach: ast.parse(src, mode='eval'), walk every
              node against an allowlist of node types and the six call
              names, then eval(compile(tree)) with empty __builtins__ and a
              namespace of the six builtins and `orders`
  simpleeval  Debian's python3-simpleeval: SimpleEval(...).eval(src)
  asteval     Debian's python3-asteval: Interpreter(minimal=True)(src)

Set-up that a tool would do once (building the evaluator, its symbol table)
is done once, outside the timed loop.

Usage:
  anchors.py --bench [--reps R] [--sample-ms MS] [--only A,B]
      reads "NAME<TAB>EXPRESSION" lines on stdin and prints, per anchor and
      expression, "ANCHOR<TAB>NAME<TAB>STATUS<TAB>MEDIAN_US" where STATUS is
      "ok" or the class of the exception the call raised (RecursionError,
      FunctionNotDefined, ...); MEDIAN_US is the median time of one call.
      An anchor whose module is missing prints
      "ANCHOR<TAB>-<TAB>missing<TAB>REASON" once.
  anchors.py --once ANCHOR EXPRESSION
      the one-shot CLI: start Python, evaluate once, print the result.
"""

import ast
import sys
import time

ORDERS = [250.0, 180.0, 90.0]
SAFE_CALLS = {"sum": sum, "len": len, "min": min, "max": max,
              "round": round, "abs": abs}

# The essay's allowlist: arithmetic, constants, names, lists, the six calls.
SAFE_NODES = (
    ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name,
    ast.Load, ast.List, ast.Tuple, ast.Call,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
    ast.UAdd, ast.USub,
)


class Blocked(Exception):
    """The essay's allowlist refused the input."""


def make_essay():
    names = dict(SAFE_CALLS)
    names["orders"] = ORDERS
    env = {"__builtins__": {}}

    def run(src):
        tree = ast.parse(src, mode="eval")
        for node in ast.walk(tree):
            if not isinstance(node, SAFE_NODES):
                raise Blocked("disallowed node " + type(node).__name__)
            if isinstance(node, ast.Call) and not (
                    isinstance(node.func, ast.Name)
                    and node.func.id in SAFE_CALLS):
                raise Blocked("disallowed function call")
        return eval(compile(tree, "<agent>", "eval"), env, dict(names))
    return run


def make_simpleeval():
    import simpleeval
    ev = simpleeval.SimpleEval(names={"orders": ORDERS},
                               functions=dict(SAFE_CALLS))
    return ev.eval


def make_asteval():
    import asteval
    interp = asteval.Interpreter(minimal=True, use_numpy=False)
    interp.symtable["orders"] = ORDERS

    def run(src):
        return interp.eval(src, show_errors=False, raise_errors=True)
    return run


ANCHORS = (("essay", make_essay), ("simpleeval", make_simpleeval),
           ("asteval", make_asteval))


def status_of(fn, src):
    try:
        fn(src)
        return "ok"
    except BaseException as e:  # noqa: B902 -- any failure is a status
        return type(e).__name__


def time_one(fn, src, reps, sample_s):
    """Median seconds per call: R samples of K calls, K chosen so that a
    sample lasts at least sample_s."""
    status = status_of(fn, src)
    k = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(k):
            try:
                fn(src)
            except BaseException:  # noqa: B902
                pass
        dt = time.perf_counter() - t0
        if dt >= sample_s or k >= 1 << 20:
            break
        k *= 2
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(k):
            try:
                fn(src)
            except BaseException:  # noqa: B902
                pass
        samples.append((time.perf_counter() - t0) / k)
    samples.sort()
    return status, samples[len(samples) // 2]


def bench(argv):
    reps, sample_ms, only = 21, 2.0, None
    i = 0
    while i < len(argv):
        if argv[i] == "--reps":
            reps = int(argv[i + 1])
            i += 2
        elif argv[i] == "--sample-ms":
            sample_ms = float(argv[i + 1])
            i += 2
        elif argv[i] == "--only":
            only = set(argv[i + 1].split(","))
            i += 2
        else:
            sys.exit("anchors.py: unknown option " + argv[i])
    corpus = []
    for line in sys.stdin:
        line = line.rstrip("\n")
        if line:
            name, _, src = line.partition("\t")
            corpus.append((name, src))
    sys.setrecursionlimit(1000)  # Python's default, stated
    for anchor, make in ANCHORS:
        if only is not None and anchor not in only:
            continue
        try:
            fn = make()
        except ImportError as e:
            print("%s\t-\tmissing\t%s" % (anchor, e), flush=True)
            continue
        for name, src in corpus:
            status, sec = time_one(fn, src, reps, sample_ms / 1000.0)
            print("%s\t%s\t%s\t%.3f" % (anchor, name, status, sec * 1e6),
                  flush=True)


def once(argv):
    if len(argv) != 2:
        sys.exit("usage: anchors.py --once ANCHOR EXPRESSION")
    for anchor, make in ANCHORS:
        if anchor == argv[0]:
            print(repr(make()(argv[1])))
            return
    sys.exit("anchors.py: no anchor " + argv[0])


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--bench":
        bench(sys.argv[2:])
    elif len(sys.argv) >= 2 and sys.argv[1] == "--once":
        once(sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
