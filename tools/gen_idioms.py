#!/usr/bin/env python3
"""Write tests/data/idiom_cases.tsv: everyday builtins, methods and
idioms with what CPython 3.11 answers (repr of the result, or
"Class: message"), for the unsafe path's full model.  Same format as
tests/diff/cases.tsv.  Run once with python3.11 and commit the output."""
import os
import sys

assert sys.version_info[:2] == (3, 11)
orders = [250.0, 180.0, 90.0]
CASES = r'''
list({"a": 1}.items())
dict(zip("ab", [1, 2]))
sorted({"b": 2, "a": 1})
" ".join(map(str, range(5)))
"-".join(x for x in "ab")
",".join(filter(None, ["a", "", "b"]))
"".join(reversed("abc"))
"".join(object())
"".join(5)
list(enumerate("ab", 1))
any(x > 2 for x in [1, 2, 3])
{x: x**2 for x in range(3)}
[*range(3), *"ab"]
{**{"a": 1}, "b": 2}
(lambda x, *a, k=2, **kw: (x, a, k, kw))(1, 2, 3, z=4)
"%s-%d" % ("a", 3)
"%.2f" % 3.14159
f"{3.14159:.2f} {'x'!r:>5}"
b"abc".hex()
bytes([65, 66]).decode()
divmod(-7, 2)
pow(3, -1, 7)
(1).bit_length()
hex(255), oct(8), bin(5)
chr(0x1F600)
ord("é")
"straße".upper()
"Hello World".swapcase().title()
[1, 2, 3][::-1]
"abc"[5:]
set([3, 1, 2])
{1, 2} | {3}
{1, 2} ^ {2, 3}
3 < 4 < 5
True + True
0.1 + 0.2
1e16 + 1
float("inf") - float("inf")
abs(-3 + 4j)
round(2.5), round(3.5)
7 // -2, 7 % -2
-7 >> 1
2 ** 0.5
isinstance(1, (int, str))
isinstance("a", (int, (float, str)))
isinstance(True, int)
isinstance(1, (1,))
isinstance(1, ())
isinstance(1.0, (int,))
type(1) is int
list(reversed(range(3)))
min("abc", key=ord)
max([], default=0)
sum([[1], [2]], [])
str(b"x")
repr("a'b\"c")
"a\tb".expandtabs(4)
"x".center(7, "*")
"1,2,,3".split(",")
"  a b  ".split()
"abc".partition("b")
list(filter(None, [0, 1, 2]))
callable(len)
getattr([], "append").__name__
next(iter([]), "done")
int("9" * 5000)
complex(1, 2)
complex()
complex("1+2j")
complex(" (3-j) ")
complex("j")
complex("-1.5e3")
complex("2J")
complex("1+")
complex("")
complex("1_0")
complex("1__0")
complex("_1")
complex("1_0.5_1+2_0j")
complex(1j, 1j)
complex(real=2)
complex(imag=2)
complex(1, real=2)
complex(True)
complex([])
complex(1, "a")
complex("1", 2)
complex(1, 2, 3)
complex("1e500j")
complex("nan+infj")
complex(1, 2) * 1j
frozenset([3, 1, 1])
frozenset()
frozenset("abca") == frozenset("cab")
frozenset([1], [2])
slice(1, 2)
slice(3)
slice(1, 10, 2)
[1, 2, 3, 4][slice(1, None, 2)]
"abcdef"[slice(-2)]
slice()
slice(1, 2, 3, 4)
{"a": 1, "b": 2}.keys()
{"a": 1}.values()
{"a": 1, "b": [2]}.items()
list({"a": 1}.items())
len({"a": 1, "b": 2}.keys())
"a" in {"a": 1}.keys()
("a", 1) in {"a": 1}.items()
sorted({"b": 1, "a": 2}.items())
sum({"a": 1, "b": 2}.values())
[k for k, v in {"a": 1, "b": 2}.items() if v > 1]
dict({"a": 1}.items())
type({}.keys()).__name__
{}.keys()
max({"a": 3, "b": 5}.values())
list(reversed({"a": 1, "b": 2}.keys()))
{"a": 1}.keys()[0]
set({"a": 1}.keys())
tuple({"x": 1}.values())
str({"a": 1}.keys())
f"{ {'a': 1}.keys() }"
{"a":1}.__getitem__("a")
"".__class__.__mro__.__getitem__(1)
"abc".__len__()
[1,2,3].__getitem__(1)
[1,2].__contains__(2)
{1}.__contains__(3)
(1).__repr__()
None.__str__()
"a".__repr__()
[1].__getitem__()
{"a":1}.__getitem__("b")
(1).__len__()
{1}.__getitem__(0)
"abc".__getitem__(slice(1, None))
'''
def esc(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
out = []
for expr in CASES.strip().split("\n"):
    try:
        got = repr(eval(expr))
    except Exception as e:
        got = "%s: %s" % (type(e).__name__, e)
    out.append("%s\t%s" % (esc(expr), esc(got)))
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
               "tests", "data", "idiom_cases.tsv"), "w") as f:
    f.write("\n".join(out) + "\n")
print(len(out))
