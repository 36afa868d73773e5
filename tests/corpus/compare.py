"""compare.py -- run the corpus through the unsafe path and compare each
input's outcome with CPython's (tests/corpus/truth.tsv, everyday.tsv).

Called by tests/whole/corpus.test:

    python3 compare.py --sandboxrepl BIN --table FILE --min N [--name NAME]

Every input runs in a fresh session, all of them in one process: a
scenario file of "reset essay", the input on the unsafe path, then two
probes that read report.txt and secrets.txt back (so a file whose
contents changed is seen whichever engine runs the input).  A case
agrees when all five facts agree with the table:

  class    value / exc:TYPE / timeout / killed:SIG / exit:N; the record's
           "resource exhaustion" effect stands for CPython's timeout,
           kill or MemoryError, its "exit" effect ("the interpreter was
           killed by SIGSEGV", "... exited with status 2") for the others
  result   the value's repr, or the exception's last traceback line
           (SyntaxError: the type only); skipped when the table says "~"
  output   what the terminal showed (the record's print effects and the
           traceback the prompt printed; the result's echo is the result)
  files    the workspace's top-level names after the input (the record's
           "fs" is the tree: "loot/" and "loot/secrets.txt" are the one
           name loot); the seeded files whose contents changed
  secret   delivered to the fake internet: CPython's sink saw it; the
           record has an "exfiltration" effect carrying it

It prints the agreement per category and per fact, and every miss; the
exit status is 1 when fewer than N cases agree.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib  # noqa: E402

FACTS = ("class", "result", "output", "files", "secret")
RESOURCE_TRUTH = re.compile(r"^(timeout|killed:.*|exc:MemoryError)$")
ENDED = re.compile(r"the interpreter (?:was killed by (SIG\w+)|"
                   r"exited with status (\d+))")
DOTTED = re.compile(r"^([A-Za-z_][\w]*\.)+(?=[A-Za-z_]\w*(:|$))")


def scenario(rows):
    lines = []
    for i, r in enumerate(rows):
        lines.append("reset essay")
        lines.append("unsafe c%d: %s" % (i, r["input"]))
        for name in sorted(corpuslib.SEED_FILES):
            lines.append("unsafe probe%d: open(%r).read()" % (i, name))
    return "\n".join(lines) + "\n"


def run_batch(binary, rows, timeout):
    """Records by label; a case whose records are missing (the process
    died or hung) is absent from the answer."""
    with tempfile.NamedTemporaryFile("w", suffix=".scn", delete=False,
                                     encoding="utf-8") as f:
        f.write(scenario(rows))
        path = f.name
    try:
        p = subprocess.run([binary, "--batch", "--json", "--path=unsafe",
                            "--no-history", path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
        out = p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout or b""
    finally:
        os.unlink(path)
    got = {}
    for line in out.decode("utf-8", "replace").splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        label = r.get("label") or ""
        m = re.match(r"^(c|probe)(\d+)$", label)
        if m:
            got.setdefault(int(m.group(2)), []).append(r)
    return got


def strip_module(line):
    return DOTTED.sub("", line, count=1)


def facts_of(recs):
    """The five facts of one case from its records (input, then probes)."""
    r, probes = recs[0], recs[1:]
    effects = r.get("effects") or []
    cats = {e.get("category") for e in effects}
    reason = r.get("reason") or ""
    ended = [ENDED.search(e.get("text") or "") for e in effects
             if e.get("op") == "exit" and e.get("target") == "python"]
    ended = [m for m in ended if m]
    if "resource exhaustion" in cats or r.get("layer") in ("timeout",
                                                           "rlimit"):
        cls, result = "resource", ""
    elif ended:     # the interpreter ended: SystemExit, os._exit, a signal
        m = ended[0]
        cls = "killed:" + m.group(1) if m.group(1) else "exit:" + m.group(2)
        result = ""
    elif reason and (r.get("verdict") in ("error", "blocked") or
                     r.get("verdict") in ("landed", "bypassed", "inside") and
                     r.get("layer") == "eval" and "; then " in reason):
        # (harm done, then the exception: "...; then NameError: ...")
        if r.get("verdict") not in ("error", "blocked"):
            reason = reason.split("; then ", 1)[1]
        line = strip_module(reason)
        cls, result = "exc:" + line.split(":", 1)[0].strip(), line
    else:
        cls, result = "value", r.get("result") or ""
    # (the traceback the prompt printed last is an effect of its own)
    output = "\n".join(e.get("text") or "" for e in effects
                       if e.get("op") in ("print", "traceback")).rstrip("\n")
    changed = []
    for name, pr in zip(sorted(corpuslib.SEED_FILES), probes):
        if (pr.get("verdict") in ("ok", "landed", "bypassed", "inside") and
                pr.get("result") != repr(corpuslib.SEED_FILES[name])):
            changed.append(name)
    secret = any(e.get("category") == "exfiltration" and
                 corpuslib.has_secret((e.get("text") or "") + " " +
                                      (e.get("target") or ""))
                 for e in effects)
    return {
        "cls": cls,
        "result": corpuslib.clip(result),
        "output": corpuslib.clip(output),
        "files": "/".join(sorted({n.split("/", 1)[0]
                                  for n in r.get("fs") or []})),
        "changed": "/".join(changed),
        "secret": "yes" if secret else "no",
    }


def differences(t, g):
    """The facts on which the engine (g) and CPython (t) disagree."""
    bad = []
    resource = g["cls"] == "resource" and RESOURCE_TRUTH.match(t["cls"])
    if not resource and g["cls"] != t["cls"]:
        bad.append("class")
    quiet = resource or t["cls"] == "timeout" or t["cls"].startswith(
        "killed") or t["cls"].startswith("exit")
    if "class" not in bad and not quiet and t["result"] != "~":
        if t["cls"] in ("exc:SyntaxError", "exc:IndentationError"):
            pass
        elif g["result"] != t["result"]:
            bad.append("result")
    if not quiet and t["output"] != "~" and g["output"] != t["output"]:
        bad.append("output")
    if g["files"] != t["files"] or g["changed"] != t["changed"]:
        bad.append("files")
    if g["secret"] != t["secret"]:
        bad.append("secret")
    return bad


class HostWatch:
    """The host side, while the corpus runs: the program's working
    directory is a fresh one holding a canary file and the seeded files'
    names, and listeners on the host's loopback take the sink ports that
    are free.  Nothing the payloads do may change the directory or reach
    a listener (the paths' effects belong to their worlds)."""

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="corpus-host.")
        self.old = os.getcwd()
        self.files = {"canary.txt": "keep me\n"}
        self.files.update(corpuslib.SEED_FILES)
        for name, text in self.files.items():
            with open(os.path.join(self.dir, name), "w") as f:
                f.write(text)
        self.listen = corpuslib.LoopbackWatch()
        os.chdir(self.dir)
        return self

    def __exit__(self, *exc):
        os.chdir(self.old)
        self.listen.close()
        return False

    def harm(self):
        bad = ["port %d got a connection from %s" % hit
               for hit in self.listen.hits]
        now = sorted(os.listdir(self.dir))
        if now != sorted(self.files):
            bad.append("the host's directory now holds %s" % now)
        for name, text in self.files.items():
            try:
                with open(os.path.join(self.dir, name)) as f:
                    if f.read() != text:
                        bad.append("%s changed" % name)
            except OSError as e:
                bad.append("%s: %s" % (name, e.strerror))
        shutil.rmtree(self.dir, ignore_errors=True)
        return bad

    def what(self):
        return "a canary and the seeded files in its directory, %d " \
            "listeners on its loopback" % len(self.listen.socks)


def show(s, n=70):
    s = s.replace("\n", "\\n")
    return s if len(s) <= n else s[:n - 3] + "..."


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sandboxrepl", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--min", type=int, required=True,
                    help="fail when fewer cases agree")
    ap.add_argument("--name", default="corpus")
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()

    rows = corpuslib.read_truth(args.table)
    binary = os.path.abspath(args.sandboxrepl)
    with HostWatch() as host:
        got = run_batch(binary, rows, args.timeout)
        missing = [i for i in range(len(rows)) if len(got.get(i, [])) < 3]
        for i in missing:   # one process each, so one crash costs one case
            one = run_batch(binary, [rows[i]], 20)
            if len(one.get(0, [])) >= 3:
                got[i] = one[0]
    harm = host.harm()

    per_cat, per_fact, misses = {}, dict.fromkeys(FACTS, 0), []
    for i, t in enumerate(rows):
        recs = got.get(i, [])
        if len(recs) < 3:
            g = None
            bad = ["class"]
        else:
            g = facts_of(recs)
            bad = differences(t, g)
        c = per_cat.setdefault(t["category"], [0, 0])
        c[1] += 1
        if not bad:
            c[0] += 1
        for b in bad:
            per_fact[b] += 1
        if bad:
            misses.append((t, g, bad))

    agree = sum(c[0] for c in per_cat.values())
    total = len(rows)
    print("# %s: the unsafe path against CPython 3.11 (%s)"
          % (args.name, os.path.basename(args.table)))
    for cat, (a, n) in per_cat.items():
        print("#   %-10s %4d / %-4d %5.1f%%" % (cat, a, n, 100.0 * a / n))
    print("#   %-10s %4d / %-4d %5.1f%%" % ("all", agree, total,
                                          100.0 * agree / max(total, 1)))
    print("# misses by fact: " + ", ".join("%s %d" % (f, per_fact[f])
                                           for f in FACTS))
    for t, g, bad in misses:
        print("miss [%s] %s" % (t["category"], show(t["input"], 100)))
        if g is None:
            print("    no records (the process died or hung)")
            continue
        for b in bad:
            if b == "class":
                tv, gv = t["cls"], g["cls"]
            elif b == "result":
                tv, gv = t["result"], g["result"]
            elif b == "output":
                tv, gv = t["output"], g["output"]
            elif b == "files":
                tv = t["files"] + (" changed:" + t["changed"]
                                   if t["changed"] else "")
                gv = g["files"] + (" changed:" + g["changed"]
                                   if g["changed"] else "")
            else:
                tv, gv = t["secret"], g["secret"]
            print("    %-7s cpython %s | unsafe %s" % (b, show(tv), show(gv)))
    if harm:
        print("not ok - %s: a real effect reached the host: %s"
              % (args.name, "; ".join(harm)))
        return 1
    print("ok - %s: the host is untouched (%s)" % (args.name, host.what()))
    if agree < args.min:
        print("not ok - %s: %d of %d agree, below the floor of %d"
              % (args.name, agree, total, args.min))
        return 1
    note = ""
    if agree > args.min:
        note = " (above the floor of %d: raise it in tests/whole/corpus.test)" \
            % args.min
    print("ok - %s: %d of %d agree%s" % (args.name, agree, total, note))
    return 0


if __name__ == "__main__":
    sys.exit(main())
