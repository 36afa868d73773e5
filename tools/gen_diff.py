#!/usr/bin/env python3
"""Differential table: expressions of the essay's safe subset and what
CPython 3.11 answers for each.

Run once with CPython 3.11 from the top of the source tree; the outputs are
committed and the C tests never need Python:

    python3 tools/gen_diff.py

Writes two files, line i of each describing the same case:

tests/diff/cases.tsv
    EXPR <TAB> EXPECTED
    EXPR is Python source.  EXPECTED is repr(eval(EXPR, {"orders": [250.0,
    180.0, 90.0]})) or, when evaluating or repr raises, "ClassName: message"
    (str() of the exception).  In both fields a backslash is written "\\",
    a tab "\t", a newline "\n" and a carriage return "\r"; nothing else is
    escaped.  Lines starting with "#" are comments.

tests/diff/cases.rpn
    RPN <TAB> EXPECTED
    The same expression as a postfix program (from Python's own ast), so
    the value functions can be checked without the parser.  Tokens are
    separated by single spaces:
      i:DIGITS          int constant          f:HEX    float (float.hex())
      s:HEX  b:HEX      str (UTF-8) / bytes constant, bytes in hex
      T F N             True False None       n:NAME   a name
      bin:OP  un:OP     BinOp / UnaryOp, OP as the ast class name (Add, USub)
      list:N  tuple:N   display of the N values below
      call:NAME:NPOS:KW1,KW2   call of builtin NAME with NPOS positional
                               values then one value per keyword name

The cases are hand-picked edge cases followed by seeded random expressions
(fixed seed, bounded depth).  A case is skipped when CPython takes longer
than 0.1 s on it or when its answer is longer than 2000 characters.
"""
import ast
import os
import random
import signal
import sys

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                    "tests", "diff")
NAMESPACE = {"orders": [250.0, 180.0, 90.0]}
SEED = 20261129
N_RANDOM = 1000

HAND = r"""
round(sum(orders) / len(orders), 2)
sum(orders)
len(orders)
min(orders)
max(orders)
sum(orders) / len(orders)
round(sum(orders) / len(orders))
abs(-sum(orders))
orders
orders + [1]
orders * 2
0.1 + 0.2
1 / 3
2 / 3
10 / 4
1e16
1e15
1e-4
1e-5
1e-7
123456789012345678.0
1234567890123456.0
12345678901234567.0
0.0001
0.00001
1e22
1e308
1e308 * 10
-1e308 * 10
1e308 * 10 - 1e308 * 10
-0.0
0.0
-0.0 + 0.0
-0.0 - 0.0
5e-324
2.2250738585072014e-308
1.7976931348623157e308
0.1 * 3
100.0
1.5
-2.5
3.14159
1e100
1e-100
9007199254740993
9007199254740993.0
2 ** 53 + 1
2 ** 63
-2 ** 63
2 ** 64
-(2 ** 63)
2 ** 63 - 1 + 1
-(2 ** 63) - 1
9223372036854775807 + 1
-9223372036854775807 - 1
-9223372036854775807 - 2
9223372036854775807 * 9223372036854775807
3037000500 * 3037000500
-9223372036854775807 - 1 // -1
(-9223372036854775807 - 1) // -1
(-9223372036854775807 - 1) % -1
10 ** 30 / 7
2 ** 1100 / 2 ** 1000
10 ** 400 / 10 ** 399
1 / 10 ** 400
10 ** 309 / 1
10 ** 309 / 10
2 ** 1024 / 2
2 ** 1024 / 3
(2 ** 53 + 1) / 1
(2 ** 54 + 3) / 2
(2 ** 55 + 3) / 2
10 ** 20 / 3
-10 ** 20 / 3
10 ** 20 / -3
0 / -5
0 / 5
-0 / 5
2 ** -1074 / 2
2 ** 1074
1 / 2 ** 1074
1 / 2 ** 1075
3 / 2 ** 1076
10 ** 30 // 7
-10 ** 30 // 7
10 ** 30 % 7
-10 ** 30 % 7
10 ** 30 % -7
-7 // 2
7 // -2
-7 % 2
7 % -3
-7 % -3
7 // 0
7 % 0
7 / 0
7.0 / 0
7.0 // 0
7.0 % 0
7 / 0.0
0 / 0
0.0 / 0.0
-7.5 // 2
7.5 // -2
-7.5 % 2
7.5 % -2
-0.0 % 1
0.0 % -1
-0.0 // 1
0.0 // -1
5 % 0.5
-5 // 0.3
1e308 // 1e-308
1e308 % 1e-308
-1e-300 % 1e300
1e300 % -1e-300
1 % 1e300
-1 % 1e300
2 ** 10
2 ** -1
2 ** -2
(-2) ** -1
0 ** -1
0 ** 0
0.0 ** 0
0 ** 0.0
0.0 ** -1
0.0 ** -1.5
(-8) ** (1 / 3)
(-2) ** 0.5
(-1) ** 0.5
(-8.0) ** 2
(-8.0) ** 3
(-8.0) ** 3.0
(-2.5) ** 1001
2.5 ** -1000
10.0 ** 400
1e308 ** 2
(-1e308) ** 3
2 ** 0.5
2 ** 0.5 ** 2
10 ** 22
10 ** 22 * 1.0
2 ** 10000 * 1.0
10 ** 400 / 1e-5
1.0 + 10 ** 309
10 ** 309 * 1.0
10 ** 309 // 1.0
10 ** 5000
-10 ** 5000
10 ** 4300
10 ** 4299
-10 ** 4299
10 ** 4299 * 9
(-1) ** 10 ** 20
1 ** 10 ** 20
0 ** 10 ** 20
(-1) ** (10 ** 20 + 1)
2 ** 100
(-2) ** 101
3 ** 40
7 ** 23
(-3) ** 41
2 ** 62
2 ** 63 - 1
1.5 ** 2
0.5 ** -2
(-0.5) ** -3
1e-200 ** 2
(-1e-200) ** 3
1.0 ** 1e308
(-1.0) ** 1e308
(-1.0) ** 3.0
True + True
True * 3
True / False
True // True
True - False
-True
+True
-False
True ** 2
False ** -1
2 ** True
True + 0.5
None + 1
1 + None
[] + None
[1] + [2]
[1] + (2,)
(1,) + [2]
(1,) + (2,)
(1,) * 2
(1,) * True
True * 'ab'
'a' * 3
3 * 'a'
'a' * 0
'a' * -1
[0] * -1
[0] * 3
[1, 2] * 2
2 * [1, 2]
'a' * 1.5
1.5 * 'a'
'a' * 'b'
[1] * [2]
'a' * 10 ** 20
'ab' * 2 ** 62
b'ab' * (2 ** 63 - 1)
'a' * (2 ** 63 - 1) * 2
[0] * 10 ** 20
'a' + 1
1 + 'a'
'a' + 'b'
'a' + b'a'
b'a' + 'a'
b'a' + b'b'
b'ab' * 2
b'a' + 1
'a' - 'b'
[1] - [1]
'a' / 2
'a' // 2
'a' ** 2
[1] ** 2
None * 2
None * 'a'
-'a'
-[1]
+'a'
-None
'abc'
'it\'s'
"it's"
'it\'s "x"'
'say "hi"'
''
'\n\t\r\\'
'\x00\x07\x1f\x7f'
'\x80\x85\x9f\xa0\xad'
'é中🎉'
'\u200b\u2028\u2029\ufeff'
'\U000e0001'
'\ud800'
'\udfff'
'\U0010ffff'
'\uffff'
'\u0378'
'\xa0'
b''
b'\x00\xff'
b"it's"
b'it\'s "x"'
b'\n\t\r\\'
b'abc\x7f\x80'
True
False
None
[]
()
[[]]
[()]
((),)
(1,)
(1, 2)
[1, 'a', 2.5, None, True, b'x']
[[1, [2, [3]]]]
((1,), (2, (3,)))
[1.0, -0.0, 1e16, 1e-05]
len('abc')
len('é中🎉')
len(b'abc')
len([])
len(())
len([1, 2, 3])
len((1,))
len(1)
len(1.5)
len(None)
len(True)
len()
len(1, 2)
len([1], x=1)
len(obj=[1])
sum([])
sum([1, 2, 3])
sum([1, 2, 3], 10)
sum([1, 2, 3], start=10)
sum([0.1] * 10)
sum([0.1, 0.2, 0.3])
sum([1, 2.5, 10 ** 20])
sum([10 ** 20, 2.5, 1])
sum([True, True])
sum([[1], [2]], [])
sum([(1,), (2,)], ())
sum([1], [])
sum(['a', 'b'])
sum(['a'], '')
sum([1], start='a')
sum([b'a'], b'')
sum([], start=1)
sum([], 1.5)
sum([], [])
sum(1)
sum(None)
sum('abc')
sum()
sum(1, 2, 3)
sum([1], 2, start=3)
sum([1], x=1)
sum(start=1)
sum(iterable=[1])
sum([1e308, 1e308])
sum([1e308, 1e308, -1e308])
sum([2 ** 63, 2 ** 63])
sum([-2 ** 63, -1])
sum([1, 2], 0.5)
sum([0.5, 1, 2])
sum([[1]], [0])
sum(((1, 2), (3,)), ())
min([1, 2, 3])
max([1, 2, 3])
min(3, 1, 2)
max(3, 1, 2)
min('abc')
max('abc')
min('')
max([])
min(())
min([], default=1)
max([], default=None)
min([1], default=5)
min(1, 2, default=3)
min([1, 2], [1, 3])
max([1, 2], [1, 3])
max((1, 2), [1, 3])
min(1, 'a')
min('a', 1)
max(1, 'a')
max('a', 1)
min([1, 'a'])
max([1, 'a'])
min(1)
max(1.5)
min(None)
min()
max()
min(x=1)
min(default=3)
min(1, 2, x=1)
min([1, 2], key=None)
max([1, 2], key=None)
min([1], key=None, default=None)
min(1, 1.0)
min(1.0, 1)
max(1, 1.0)
max(1.0, 1)
max(True, 1)
max(1, True)
min(0, False)
min([0.0, -0.0])
min([-0.0, 0.0])
max([2, 2.0])
max(orders)
min(orders, default=0)
max([[1, 2], [1]])
min([(1, 'a'), (1, 'b')])
min([(1, 'a'), (1, 2)])
max([b'a', b'b'])
max(['a', 'B', 'b'])
max(10 ** 20, 1e20)
max(1e20, 10 ** 20)
max(2 ** 53 + 1, 2.0 ** 53)
max(2.0 ** 53, 2 ** 53 + 1)
min(10 ** 400, 1e308)
max(10 ** 400, 1e308)
max(-10 ** 400, -1e308)
min(1e308 * 10, 10 ** 400)
round(2.675, 2)
round(0.5)
round(1.5)
round(2.5)
round(-0.5)
round(-1.5)
round(-2.5)
round(0.5, 0)
round(2.5, 0)
round(-0.0)
round(-0.4)
round(0.0, 2)
round(-0.0, 2)
round(1.23456, 2)
round(1.23456, 4)
round(1.005, 2)
round(0.125, 2)
round(0.375, 2)
round(123.456, -1)
round(123.456, -2)
round(123.456, -3)
round(150.0, -2)
round(250.0, -2)
round(350.0, -2)
round(5.0, -1)
round(15.0, -1)
round(25.0, -1)
round(1e300, -300)
round(1e300, -299)
round(1e300, -301)
round(1.7976931348623157e308, -308)
round(1.7976931348623157e308, -307)
round(1.7976931348623157e308, -309)
round(1e-320, 400)
round(5e-324, 323)
round(5e-324, 324)
round(1.23456, 400)
round(1.23456, -400)
round(-1.23456, -400)
round(1.5, 10 ** 100)
round(1.5, -10 ** 100)
round(1e20, 2)
round(1e22, -22)
round(1e22)
round(1.5e300)
round(-1.5e300)
round(2.0 ** 63)
round(-2.0 ** 63)
round(2.0 ** 64)
round(4503599627370495.5)
round(4503599627370496.5)
round(0.49999999999999994)
round(1e308 * 10)
round(-1e308 * 10)
round(1e308 * 10 - 1e308 * 10)
round(1e308 * 10, 2)
round(1e308 * 10 - 1e308 * 10, -2)
round(5)
round(5, 2)
round(5, -1)
round(15, -1)
round(25, -1)
round(-25, -1)
round(-35, -1)
round(123456, -2)
round(123456, -6)
round(500000, -6)
round(500001, -6)
round(1500000, -6)
round(2 ** 63, -1)
round(-2 ** 63, -1)
round(10 ** 30, -29)
round(10 ** 30 + 5 * 10 ** 28, -29)
round(15 * 10 ** 28, -29)
round(25 * 10 ** 28, -29)
round(123, -10 ** 3)
round(True)
round(True, 2)
round(False, -1)
round(1.5, True)
round(1.25, True)
round(1.5, 2.0)
round(1, 2.0)
round(1.5, 'a')
round(1, 'a')
round(1.5, None)
round(2.5, None)
round(1, None)
round('a')
round('a', 2)
round(None)
round([])
round([1.5])
round()
round(1, 2, 3)
round(1, x=2)
round(x=1)
round(number=2.5)
round(number=2.5, ndigits=1)
round(2.5, ndigits=None)
round(1.5, number=2)
round(1, 2, x=3)
round(ndigits=1)
abs(-5)
abs(5)
abs(0)
abs(-0.0)
abs(-1.5)
abs(1e308 * 10)
abs(-1e308 * 10)
abs(True)
abs(False)
abs(-True)
abs(-2 ** 63)
abs(-10 ** 30)
abs((-8) ** (1 / 3))
abs((-2) ** 0.5)
abs('a')
abs(None)
abs([1])
abs()
abs(1, 2)
abs(x=1)
abs(-9223372036854775807 - 1)
(-8) ** (1 / 3) * 2
(-8) ** (1 / 3) + 1
(-8) ** (1 / 3) - (-8) ** (1 / 3)
(-8) ** (1 / 3) / 0
(-8) ** (1 / 3) / (-8) ** (1 / 3)
(-8) ** (1 / 3) // 2
(-8) ** (1 / 3) % 2
(-8) ** (1 / 3) ** 2
((-8) ** (1 / 3)) ** 2
((-8) ** (1 / 3)) ** 0.5
((-2) ** 0.5) ** 2
((-2) ** 0.5) ** -1
((-2) ** 0.5) ** 200
((-1) ** 0.5) * ((-1) ** 0.5)
-(-1) ** 0.5
-((-1) ** 0.5)
+((-1) ** 0.5)
((-1) ** 0.5) * 0
0 * ((-1) ** 0.5)
((-1) ** 0.5) * 1e308 * 1e308
[(-8) ** (1 / 3)]
sum([(-1) ** 0.5, 1])
max([(-1) ** 0.5, 1])
min([(-1) ** 0.5])
round((-1) ** 0.5)
len((-1) ** 0.5)
'%s' % 1
'%s' % 'a'
'%r' % 'a'
'%a' % 'é'
'%d' % 42
'%d' % -42
'%d' % 1.5
'%d' % True
'%i' % 7
'%u' % 7
'%5d' % 42
'%-5d|' % 42
'%05d' % -42
'%+d' % 42
'% d' % 42
'%x' % 255
'%X' % 255
'%#x' % 255
'%#X' % 255
'%o' % 8
'%#o' % 8
'%x' % -255
'%x' % 1.5
'%f' % 1.5
'%.2f' % 2.675
'%.0f' % 0.5
'%.0f' % 1.5
'%10.3f|' % 3.14159
'%-10.3f|' % 3.14159
'%+.1f' % 1
'%F' % 1e300
'%f' % (1e308 * 10)
'%F' % (1e308 * 10)
'%f' % (1e308 * 10 - 1e308 * 10)
'%e' % 12345.678
'%E' % 0.000123
'%.3e' % 1
'%g' % 0.0001
'%g' % 0.00001
'%g' % 1234567
'%G' % 1e-10
'%#g' % 1.0
'%.3g' % 3.14159
'%g' % 100000
'%g' % 1e16
'%c' % 65
'%c' % 'x'
'%c' % 1114112
'%c' % 'xy'
'%%' % ()
'%s%%' % 5
'%s %s' % (1, 2)
'%s %s' % 1
'%s' % (1, 2)
'%s' % (1,)
'%s' % ((1, 2),)
'%s' % [1, 2]
'%r' % [1, 'a']
'%*d' % (5, 42)
'%-*d|' % (5, 42)
'%.*f' % (2, 3.14159)
'%(a)s' % 1
'%z' % 1
'%' % 1
'%d' % 'a'
'%.2f' % 'a'
'%c' % 1.5
'%s' % None
'%s' % True
'%d' % 10 ** 30
'%x' % 10 ** 30
'%.3s' % 'abcdef'
'%5s|' % 'ab'
'%-5s|' % 'ab'
'%5.1s|' % 'ab'
'%s' % b'a'
'%d%%' % 50
'a' % 1
'a' % ()
'a' % []
'%s' % []
'%s' % ()
'%s %s' % [1, 2]
'%d' % None
'%i' % 1e300
'%d' % (1e308 * 10)
'%d' % (1e308 * 10 - 1e308 * 10)
'%.100f' % 1
'%e' % 0
'%g' % 0
'%g' % -0.0
'%r' % 1.5
'%a' % 'a\n'
'%s' % 'é中'
'%5s|' % 'é'
'%c' % 233
'%x' % True
'%o' % -8
'%#o' % 0
'%#x' % 0
'%+s' % 'a'
'%03s' % 'a'
'%-05d' % 3
'%+05d' % 3
'% 05d' % 3
'%.3d' % 5
'%.3x' % 5
'%#.3x' % 5
'%10.4d|' % -5
b'%s' % b'a'
b'%s' % 'a'
b'%d' % 5
b'%x' % 255
b'%c' % 65
b'%c' % b'a'
b'%r' % b'a'
b'%a' % 'é'
b'%5s|' % b'ab'
b'%s %s' % (b'a', b'b')
b'%f' % 1.5
b'a' % 1
b'%s' % 5
b'%e' % 'a'
b'%f' % [1]
b'%i' % 'a'
b'%u' % 'a'
'%i' % 'a'
'x%é' % 1
'%-lé' % 1.5
'%.*d' % (2 ** 31, 1)
'%.*d' % (-3, 1)
'%*d' % (-3, 1)
'%*d' % (1.5, 1)
'%(a)s' % b'x'
b'a' % 'x'
b'%(a)s' % 'x'
'%#.3o|%#5X|%+.2e' % (8, 255, -0.5)
'% 08.2f|%-+6d|%#g' % (3.14159, 7, 2.0)
'%5.1s|%-3c|%r' % ('abc', 'é', 'é')
'%s %s %s' % (1, 2)
'%ld %hi %Lf' % (1, 2, 3.5)
1 % 'a'
1.5 % 'a'
[1] % 2
None % 1
"""


class Timeout(Exception):
    pass


def on_alarm(signum, frame):
    raise Timeout()


def outcome(expr):
    """CPython's answer, or None when the case is to be skipped."""
    signal.setitimer(signal.ITIMER_REAL, 0.1)
    try:
        try:
            r = repr(eval(expr, {"orders": list(NAMESPACE["orders"])}))
        except Timeout:
            return None
        except MemoryError:
            return None
        except Exception as e:  # noqa: BLE001 -- every Python error is data
            r = "%s: %s" % (type(e).__name__, e)
    except Timeout:
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    if len(r) > 2000:
        return None
    return r


def esc(s):
    return (s.replace("\\", "\\\\").replace("\t", "\\t")
            .replace("\n", "\\n").replace("\r", "\\r"))


def rpn(node, out):
    """Postfix tokens for an expression of the safe subset."""
    if isinstance(node, ast.Expression):
        rpn(node.body, out)
    elif isinstance(node, ast.Constant):
        v = node.value
        if v is True:
            out.append("T")
        elif v is False:
            out.append("F")
        elif v is None:
            out.append("N")
        elif isinstance(v, int):
            out.append("i:%d" % v)
        elif isinstance(v, float):
            out.append("f:" + v.hex())
        elif isinstance(v, str):
            out.append("s:" + v.encode("utf-8", "surrogatepass").hex())
        elif isinstance(v, bytes):
            out.append("b:" + v.hex())
        else:
            raise ValueError("constant %r" % (v,))
    elif isinstance(node, ast.Name):
        out.append("n:" + node.id)
    elif isinstance(node, ast.BinOp):
        rpn(node.left, out)
        rpn(node.right, out)
        out.append("bin:" + type(node.op).__name__)
    elif isinstance(node, ast.UnaryOp):
        rpn(node.operand, out)
        out.append("un:" + type(node.op).__name__)
    elif isinstance(node, (ast.List, ast.Tuple)):
        for e in node.elts:
            rpn(e, out)
        out.append("%s:%d" % ("list" if isinstance(node, ast.List)
                              else "tuple", len(node.elts)))
    elif isinstance(node, ast.Call):
        for a in node.args:
            rpn(a, out)
        for k in node.keywords:
            rpn(k.value, out)
        out.append("call:%s:%d:%s" % (node.func.id, len(node.args),
                                      ",".join(k.arg for k in node.keywords)))
    else:
        raise ValueError("node %s" % type(node).__name__)
    return out


# ---- seeded random expressions over the safe subset ----

INTS = ["0", "1", "2", "3", "7", "10", "255", "-1", "-7", "100",
        "9223372036854775807", "9223372036854775808", "18446744073709551616",
        "10 ** 20", "2 ** 64", "-2 ** 63", "12345678901234567890123"]
FLOATS = ["0.0", "-0.0", "0.1", "0.5", "1.5", "2.5", "-2.5", "3.14159",
          "1e308", "1e-308", "5e-324", "1e16", "1e-07", "250.0", "173.33",
          "2.675", "1e22", "0.3"]
STRS = ["'a'", "'ab'", "''", "\"it's\"", "'é'", "'%s'", "'%d'", "'%.2f'",
        "'x%sy'", "'%r'"]
OTHER = ["True", "False", "None", "b'x'", "b''", "orders"]
BINOPS = ["+", "-", "*", "/", "//", "%", "**"]


def atom(rnd):
    pick = rnd.random()
    if pick < 0.35:
        return rnd.choice(INTS)
    if pick < 0.7:
        return rnd.choice(FLOATS)
    if pick < 0.85:
        return rnd.choice(STRS)
    return rnd.choice(OTHER)


def expr(rnd, depth):
    if depth <= 0:
        return atom(rnd)
    pick = rnd.random()
    if pick < 0.45:
        op = rnd.choice(BINOPS)
        return "(%s %s %s)" % (expr(rnd, depth - 1), op, expr(rnd, depth - 1))
    if pick < 0.55:
        return "%s%s" % (rnd.choice("-+"), expr(rnd, depth - 1))
    if pick < 0.65:
        n = rnd.randint(0, 3)
        items = ", ".join(expr(rnd, depth - 1) for _ in range(n))
        if rnd.random() < 0.5:
            return "[%s]" % items
        return "(%s%s)" % (items, "," if n == 1 else "")
    if pick < 0.9:
        return call(rnd, depth)
    return atom(rnd)


def seq(rnd, depth):
    n = rnd.randint(0, 4)
    items = ", ".join(expr(rnd, depth - 1) for _ in range(n))
    if rnd.random() < 0.3:
        return "orders"
    return "[%s]" % items


def call(rnd, depth):
    fn = rnd.choice(["sum", "len", "min", "max", "round", "abs"])
    if fn == "sum":
        s = seq(rnd, depth)
        r = rnd.random()
        if r < 0.3:
            return "sum(%s, %s)" % (s, expr(rnd, depth - 1))
        if r < 0.5:
            return "sum(%s, start=%s)" % (s, expr(rnd, depth - 1))
        return "sum(%s)" % s
    if fn == "len":
        return "len(%s)" % (seq(rnd, depth) if rnd.random() < 0.6
                            else expr(rnd, depth - 1))
    if fn in ("min", "max"):
        r = rnd.random()
        if r < 0.4:
            return "%s(%s)" % (fn, seq(rnd, depth))
        if r < 0.55:
            return "%s(%s, default=%s)" % (fn, seq(rnd, depth),
                                           expr(rnd, depth - 1))
        n = rnd.randint(2, 4)
        return "%s(%s)" % (fn, ", ".join(expr(rnd, depth - 1)
                                         for _ in range(n)))
    if fn == "round":
        r = rnd.random()
        x = expr(rnd, depth - 1)
        if r < 0.3:
            return "round(%s)" % x
        nd = rnd.choice(["0", "1", "2", "3", "-1", "-2", "-3", "5", "10",
                         "None", "True", "-20", "400", "-400"])
        if r < 0.8:
            return "round(%s, %s)" % (x, nd)
        return "round(%s, ndigits=%s)" % (x, nd)
    return "abs(%s)" % expr(rnd, depth - 1)


def main():
    if sys.version_info[:2] != (3, 11):
        sys.exit("gen_diff.py: run me with CPython 3.11")
    signal.signal(signal.SIGALRM, on_alarm)
    cases = [line for line in HAND.strip().split("\n")
             if line and not line.startswith("#")]
    rnd = random.Random(SEED)
    seen = set(cases)
    randoms = []
    while len(randoms) < N_RANDOM:
        e = expr(rnd, rnd.randint(1, 3))
        if e not in seen:
            seen.add(e)
            randoms.append(e)
    kept = 0
    with open(os.path.join(HERE, "cases.tsv"), "w", encoding="utf-8") as tsv, \
            open(os.path.join(HERE, "cases.rpn"), "w",
                 encoding="utf-8") as prog:
        tsv.write("# generated by tools/gen_diff.py with CPython %s; "
                  "do not edit\n" % sys.version.split()[0])
        prog.write("# generated by tools/gen_diff.py with CPython %s; "
                   "do not edit\n" % sys.version.split()[0])
        for e in cases + randoms:
            r = outcome(e)
            if r is None:
                continue
            tokens = " ".join(rpn(ast.parse(e, mode="eval"), []))
            tsv.write("%s\t%s\n" % (esc(e), esc(r)))
            prog.write("%s\t%s\n" % (tokens, esc(r)))
            kept += 1
    print("gen_diff.py: %d cases (%d hand-picked, %d random tried)"
          % (kept, len(cases), len(randoms)))


if __name__ == "__main__":
    main()
