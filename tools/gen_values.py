#!/usr/bin/env python3
"""Operand/operator/result tables for tests/value/test_num.c and tests/value/test_value.c,
computed once by CPython 3.11 and committed (the C tests never need Python):

    python3 tools/gen_values.py

tests/data/num_cases.tsv -- one case a line, fields separated by tabs:
    OP <TAB> A [<TAB> B] <TAB> EXPECTED
  OP is a binary operator (its ast class name: Add, Sub, Mult, MatMult, Div,
  Mod, Pow, LShift, RShift, BitOr, BitXor, BitAnd, FloorDiv), a comparison
  (Eq, NotEq, Lt, LtE, Gt, GtE, and In, NotIn for A in B), a unary operator
  (UAdd, USub, Invert, Not: one operand), "hash" (hash() of one number)
  or "repr" (one operand).
  Operands are encoded as in tests/diff/cases.rpn: i:DIGITS, f:HEX (float.hex
  of the double), c:HEX,HEX (complex), s:HEX / b:HEX (UTF-8 / bytes in hex),
  T, F, N, and l:ITEMS, t:ITEMS, S:ITEMS for a list, tuple or set of
  encoded operands joined by "|" (flat: items are never containers), and
  d:K|V|K|V for a dict, x:START|STOP|STEP for a slice.  "Subscript" is
  A[B].  EXPECTED is repr(result) or "Class: message", with the TSV
  escapes of tools/gen_diff.py (\\\\ \\t \\n \\r).

tests/data/builtin_cases.rpn -- calls of the builtins beyond the essay's
  six, in the format of tests/diff/cases.rpn (made with its rpn()).

tests/data/value_cases.tsv -- NAME <TAB> EXPECTED: the repr (or error) of
  structures test_value.c builds by hand (self-containing lists, dicts ...);
  each NAME is one snippet in SNIPPETS below.

A case is skipped when CPython needs more than 0.1 s for it, raises
MemoryError, or answers with more than 400 characters.
"""
import math
import operator
import os
import signal
import sys

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                    "tests")

INTS = [0, 1, -1, 2, -3, 7, 64, 2**53 + 1, 2**63 - 1, -2**63, 2**64,
        -(2**70)]
FLOATS = [0.0, -0.0, 0.1, 1.5, -2.5, 1e16, 1e308, 5e-324, 2.0**63,
          math.inf, -math.inf, math.nan]
COMPLEXES = [0j, 1j, 1 + 2j, complex(-0.0, -1.0), 1e300 + 1e300j,
             complex(-2, 0)]
BOOLS = [True, False]
OTHERS = [None, "ab", "é", "a", b"xy", b"", b"y", [1], [], (1,), (1, "a"),
          {1: 2}, {1, 2}, [1.0, "ab", None], 120, 300]
# Operands paired with every other operand: numbers with numbers, other
# types with a few numbers and with each other.
FEW = [0, 3, -2**63, 1.5, 1j, True]

BINOPS = {"Add": operator.add, "Sub": operator.sub, "Mult": operator.mul,
          "MatMult": operator.matmul, "Div": operator.truediv,
          "Mod": operator.mod, "Pow": operator.pow,
          "LShift": operator.lshift, "RShift": operator.rshift,
          "BitOr": operator.or_, "BitXor": operator.xor,
          "BitAnd": operator.and_, "FloorDiv": operator.floordiv}
CMPOPS = {"Eq": operator.eq, "NotEq": operator.ne, "Lt": operator.lt,
          "LtE": operator.le, "Gt": operator.gt, "GtE": operator.ge,
          "In": lambda a, b: a in b, "NotIn": lambda a, b: a not in b}
# A[B] over containers, indexes and slices
SUBSCRIPTED = [[1, 2, 3, 4, 5], (1, 2, 3), "abcdé", "héllo wörld", b"abcde",
               {1: 2, "a": 3}, [], "", 1, None, {1, 2}]
_BOUNDS = [None, 0, 1, 2, -1, -2, 4, 7, -7, 2**100, -2**100]
_STEPS = [None, 1, 2, -1, -2, 3, 0, 2**100, -2**100]
SUBSCRIPTS = ([-7, -6, -5, -2, -1, 0, 1, 2, 4, 5, 6, 2**100, -2**100, True,
               1.5, "a", None, [1]] +
              [slice(a, b, c) for a in _BOUNDS for b in _BOUNDS[:6]
               for c in _STEPS] +
              [slice("a", None, None), slice(None, 1.5, None),
               slice(None, None, "x")])

UNARY = {"UAdd": operator.pos, "USub": operator.neg,
         "Invert": operator.invert, "Not": operator.not_}

STRINGS = ["abc", "it's", "say \"hi\"", "it's \"x\"", "", "\n\t\r\\",
           "\x00\x07\x1f\x7f", "\x80\x85\x9f\xa0\xad\xff", "é中🎉",
           "\u200b\u2028\u2029\ufeff\u0378", "\U000e0001\U000e007f",
           "\ud800\udfff", "\U0010ffff\U0001f600", "\u00a0\u1680\u3000",
           "\u0300\u0600\u070f\u180e", "a'b'c", "'\"", "\\'"]
BYTES = [b"", b"\x00\xff", b"it's", b"it's \"x\"", b"\n\t\r\\", b"\x7f\x80",
         b"'\""]

SNIPPETS = {
    "self_list": "l = []; l.append(l); r = l",
    "self_list2": "l = [1]; l.append([l, 2]); r = l",
    "self_dict": "d = {}; d['a'] = d; r = d",
    "list_in_tuple": "l = [1]; t = (l, l); l.append(t); r = t",
    "dict_order": "r = {'b': 1, 'a': 2, 1: 3, 1.0: 4, True: 5, (1, 2): 6}",
    "set_small": "r = {1, 2, 3}",
    "set_empty": "r = set()",
    "set_mixed": "r = {1, 1.0, True}",
    "dict_empty": "r = {}",
    "nested": "r = [(1,), [()], {'k': [None, ...]}, b'x', 1.0]",
    "dict_unhashable": "d = {}; d[[1]] = 2; r = d",
    "set_unhashable": "s = set(); s.add({}); r = s",
    "tuple_unhashable": "d = {}; d[(1, [2])] = 3; r = d",
    # sets are filled one item at a time, as a display of non-constants or
    # set(iterable) does (a display of constants is a compile-time frozenset
    # in CPython, whose order is another matter)
    "set_order": "r = set([3, 1, 2])",
    "set_collide": "r = set([8, 16, 0, 24, -1, -2, 0.5, 2**61, 2**61 - 1])",
    "set_grow": "r = set(range(40, 0, -3))",
    "set_tuples": "r = set([(1, 2), (3, 4), (0,), ()])",
    "set_iter": "r = list(set([5, 3, 9, 1, 1e100, 7.5]))",
}


EXTRA = r"""
repr(1)
repr('it\'s')
repr([1, 'a', (2,)])
repr(1e16)
repr()
repr(1, 2)
repr(obj=1)
bool()
bool(0)
bool([0])
bool('')
bool(1, 2)
bool(x=1)
divmod(7, 2)
divmod(-7, 2)
divmod(7, -2)
divmod(-7.5, 2)
divmod(7.5, -2)
divmod(1, 0)
divmod(1, 0.0)
divmod(1.0, 0)
divmod(10 ** 30, 7)
divmod(-10 ** 30, -7)
divmod(2 ** 63, -1)
divmod(True, 2)
divmod('a', 1)
divmod(1, 'a')
divmod((-1) ** 0.5, 1)
divmod(1)
divmod(1, 2, 3)
divmod(a=1, b=2)
divmod()
pow(2, 10)
pow(2, -1)
pow(0, -1)
pow(2.0, 0.5)
pow(-8, 1 / 3)
pow(2, 3, 5)
pow(2, 3, -5)
pow(-2, 3, 7)
pow(-2, 3, -7)
pow(2, -1, 7)
pow(2, -1, 4)
pow(3, -2, 1)
pow(2, 3, 1)
pow(2, 3, 0)
pow(2, 10 ** 20, 10 ** 9 + 7)
pow(10 ** 30, 10 ** 30, 2 ** 61 - 1)
pow(2.0, 3, 4)
pow(2, 3.0, 4)
pow('a', 2, 3)
pow('a', 2)
pow(2, 3, None)
pow(True, True, 2)
pow(base=2, exp=3)
pow(2, exp=3, mod=5)
pow(2, 3, x=1)
pow(2)
pow()
pow(2, 3, 4, 5)
pow(2, 3, mod=None)
chr(65)
chr(233)
chr(0x4e2d)
chr(0x1f389)
chr(0)
chr(127)
chr(0x85)
chr(0xd800)
chr(0x10ffff)
chr(0x110000)
chr(-1)
chr(2 ** 31)
chr(-2 ** 31 - 1)
chr(2 ** 31 - 1)
chr(2 ** 63)
chr(1.5)
chr('a')
chr(True)
chr()
chr(1, 2)
chr(c=1)
ord('a')
ord('é')
ord('中')
ord('🎉')
ord('\ud800')
ord(b'a')
ord(b'\xff')
ord('ab')
ord('')
ord(b'')
ord(b'ab')
ord(1)
ord(None)
ord()
ord(c='a')
hex(255)
hex(-255)
hex(0)
hex(2 ** 100)
hex(-2 ** 63)
hex(True)
hex(1.5)
hex('a')
hex()
hex(1, 2)
hex(x=1)
oct(8)
oct(-8)
oct(0)
oct(2 ** 70)
oct(1.5)
bin(5)
bin(-5)
bin(0)
bin(2 ** 64)
bin(False)
bin(None)
any([])
any([0, 0.0, '', None])
any([0, 1])
any('')
any('0')
any((0, []))
all([])
all([1, 'a', [0]])
all([1, 0])
all(b'\x00')
any(1)
all(None)
any()
all(1, 2)
any(x=1)
list()
list('ab')
list('é中')
list(b'ab')
list((1, 2))
list([1, [2]])
list(orders)
list(1)
list(None)
list(1, 2)
list(x=1)
tuple()
tuple('ab')
tuple([1, 2])
tuple(b'ab')
tuple(1)
tuple(1, 2)
tuple(x=1)
set()
set([3, 1, 2])
set([1, 1.0, True])
set((5, 3, 9, 1))
set([[1]])
set(1)
set(1, 2)
set(x=1)
len(set([1, 2, 2]))
sum(set([0.1, 0.2, 0.3]))
max(set([3, 1, 2]))
list(set([8, 16, 0, 24, -1, -2]))
"""


class Timeout(Exception):
    pass


def on_alarm(signum, frame):
    raise Timeout()


def enc(v):
    if v is True:
        return "T"
    if v is False:
        return "F"
    if v is None:
        return "N"
    if isinstance(v, int):
        return "i:%d" % v
    if isinstance(v, float):
        return "f:" + v.hex()
    if isinstance(v, complex):
        return "c:%s,%s" % (v.real.hex(), v.imag.hex())
    if isinstance(v, str):
        return "s:" + v.encode("utf-8", "surrogatepass").hex()
    if isinstance(v, bytes):
        return "b:" + v.hex()
    if isinstance(v, list):
        return "l:" + "|".join(enc(x) for x in v)
    if isinstance(v, tuple):
        return "t:" + "|".join(enc(x) for x in v)
    if isinstance(v, dict):
        return "d:" + "|".join(enc(x) for kv in v.items() for x in kv)
    if isinstance(v, set):
        return "S:" + "|".join(enc(x) for x in v)
    if isinstance(v, slice):
        return "x:" + "|".join(enc(x) for x in (v.start, v.stop, v.step))
    raise ValueError(v)


def esc(s):
    return (s.replace("\\", "\\\\").replace("\t", "\\t")
            .replace("\n", "\\n").replace("\r", "\\r"))


def too_big(op, a, b):
    """Skip results that CPython would take long (or all memory) to build."""
    seqs = (str, bytes, list, tuple)
    if op == "Mult" and (isinstance(a, seqs) and isinstance(b, int) and
                         b > 10000 or isinstance(b, seqs) and
                         isinstance(a, int) and a > 10000):
        return True
    if not (isinstance(a, int) and isinstance(b, int)):
        return False
    if op == "Pow" and abs(a) > 1 and b > 0:
        return b * abs(a).bit_length() > 20000
    if op == "LShift" and b > 0:
        return b > 20000
    return False


def outcome(thunk):
    signal.setitimer(signal.ITIMER_REAL, 0.1)
    try:
        try:
            r = repr(thunk())
        except (Timeout, MemoryError):
            return None
        except Exception as e:  # noqa: BLE001 -- errors are data
            r = "%s: %s" % (type(e).__name__, e)
    except Timeout:
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return None if len(r) > 400 else r


def main():
    if sys.version_info[:2] != (3, 11):
        sys.exit("gen_values.py: run me with CPython 3.11")
    signal.signal(signal.SIGALRM, on_alarm)
    os.makedirs(os.path.join(HERE, "data"), exist_ok=True)
    numbers = INTS + FLOATS + COMPLEXES + BOOLS
    values = numbers + OTHERS
    pairs = [(a, b) for a in numbers for b in numbers]
    pairs += [(a, b) for a in OTHERS for b in FEW + OTHERS]
    pairs += [(a, b) for a in FEW for b in OTHERS]
    n = 0
    with open(os.path.join(HERE, "data", "num_cases.tsv"), "w",
              encoding="utf-8") as f:
        f.write("# generated by tools/gen_values.py with CPython %s; "
                "do not edit\n" % sys.version.split()[0])
        for name, fn in list(BINOPS.items()) + list(CMPOPS.items()):
            for a, b in pairs:
                if True:
                    if too_big(name, a, b):
                        continue
                    r = outcome(lambda: fn(a, b))
                    if r is None:
                        continue
                    f.write("%s\t%s\t%s\t%s\n" % (name, enc(a), enc(b),
                                                  esc(r)))
                    n += 1
        for a in SUBSCRIPTED:
            for b in SUBSCRIPTS:
                r = outcome(lambda: a[b])
                if r is not None:
                    f.write("Subscript\t%s\t%s\t%s\n" % (enc(a), enc(b),
                                                          esc(r)))
                    n += 1
        for name, fn in UNARY.items():
            for a in values:
                r = outcome(lambda: fn(a))
                if r is not None:
                    f.write("%s\t%s\t%s\n" % (name, enc(a), esc(r)))
                    n += 1
        for a in numbers:
            if isinstance(a, float) and math.isnan(a):
                continue    # hash(nan) depends on the object's address
            if isinstance(a, complex) and (math.isnan(a.real) or
                                           math.isnan(a.imag)):
                continue
            f.write("hash\t%s\t%s\n" % (enc(a), repr(hash(a))))
            n += 1
        for a in values + STRINGS + BYTES:
            r = outcome(lambda: a)
            f.write("repr\t%s\t%s\n" % (enc(a), esc(r)))
            n += 1
    with open(os.path.join(HERE, "data", "value_cases.tsv"), "w",
              encoding="utf-8") as f:
        f.write("# generated by tools/gen_values.py with CPython %s; "
                "do not edit\n" % sys.version.split()[0])
        for name, code in SNIPPETS.items():
            def run(code=code):
                ns = {}
                exec(code, ns)
                return ns["r"]
            f.write("%s\t%s\n" % (name, esc(outcome(run))))
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gen_diff  # noqa: E402 -- its rpn() encodes the calls
    import ast
    m = 0
    with open(os.path.join(HERE, "data", "builtin_cases.rpn"), "w",
              encoding="utf-8") as f:
        f.write("# generated by tools/gen_values.py with CPython %s; "
                "do not edit\n" % sys.version.split()[0])
        for e in EXTRA.strip().split("\n"):
            r = outcome(lambda: eval(e, {"orders": [250.0, 180.0, 90.0]}))
            if r is None:
                continue
            tokens = " ".join(gen_diff.rpn(ast.parse(e, mode="eval"), []))
            f.write("%s\t%s\n" % (tokens, esc(r)))
            m += 1
    print("gen_values.py: %d operator cases, %d structure cases, "
          "%d builtin calls" % (n, len(SNIPPETS), m))


if __name__ == "__main__":
    main()
