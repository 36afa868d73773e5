#!/usr/bin/env python3
"""Write tests/data/format_cases.tsv: format() and f-string cases with what
CPython 3.11 answers (repr of the result, or "Class: message").  Same
format as tests/diff/cases.tsv: EXPR<TAB>EXPECTED, with \\t \\n \\\\ escaped.
Run once with python3.11 and commit the output."""
import os
import random
import sys

assert sys.version_info[:2] == (3, 11)
random.seed(3)
values = ["0", "1", "-1", "42", "-255", "123456789", "10**20", "-10**20",
          "True", "False", "0.0", "-0.0", "1.5", "-2.25", "3.14159",
          "1e16", "1e-7", "123456.789", 'float("inf")', 'float("nan")',
          "0.05", "9.5", "0.95", "0.00005", "123.0", "2.5e-5",
          "'abc'", "''", "'é'", "'日本'", "None", "[1]"]
specs = [".1", ".0", "#.3", ".3", "", "5", "<5", ">5", "^5", "=5", "*^7", "05", "+", " ", "-", "+5",
         ",", "_", "010,", "x", "X", "#x", "#o", "#b", "b", "o", "c", "d",
         "n", "e", "E", "f", "F", "g", "G", "%", ".2f", ".0f", ".3e", ".10g",
         "10.3f", "<10.2%", ".2", ".0", ".15", "s", ".2s", "10s", "z.1f",
         "#.0f", "#g", ",.2f", "_x", "a", "é", ".", "5.2.1", "<<5", ",_",
         "=^5", "x<4", "0=8", "+08.3f", ">+10,.2f"]
out = []
def esc(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
for v in values:
    for sp in specs:
        if random.random() < 0.45:
            continue
        for expr in ("format(%s, %r)" % (v, sp), "f'{%s:%s}'" % (v, sp)):
            try:
                got = repr(eval(expr))
            except SyntaxError:
                continue    # (the parser's messages are tested elsewhere)
            except Exception as e:
                got = "%s: %s" % (type(e).__name__, e)
            out.append("%s\t%s" % (esc(expr), esc(got)))
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
               "tests", "data", "format_cases.tsv"), "w") as f:
    f.write("\n".join(out) + "\n")
print(len(out))
