"""corpuslib.py -- what tools/corpus_truth.py and tests/whole/corpus.test share:
the corpus files' format, the truth table's columns, and the rules that
turn a run into comparable facts (address normalisation, long results
reduced to a prefix and a digest, the secret's detection in whatever
encoding it was sent).

Plain Python 3 standard library only; both the developer's ground-truth
run and the test on a CI machine import it.

truth.tsv / everyday.tsv: one line a case, columns separated by tabs, in
each field a backslash written "\\\\", a tab "\\t", a newline "\\n", a
carriage return "\\r" (as tests/diff/cases.tsv):

    CATEGORY  INPUT  CLASS  RESULT  OUTPUT  FILES  CHANGED  SECRET  CONTACTS

CLASS    value | exc:TYPE | exit:CODE | timeout | killed:SIGNAME
RESULT   for value, repr of the last expression statement's value ("" when
         the input ends in a statement); for exc, "TYPE: message" (the last
         line of a traceback, the type without its module); for exit, the
         code; reduced by clip().  "~" when two runs disagreed (time,
         addresses that survive normalisation): compare the class only.
OUTPUT   what the input wrote to stdout (its own print()s and its child
         processes), newlines kept, trailing newlines dropped, clipped;
         "~" when unstable.
FILES    the workspace's top-level names after the input, sorted, joined
         with "/" (a name cannot hold one).
CHANGED  the seeded files still present whose contents differ from the
         seed, joined with "/".
SECRET   "yes" when the secret reached the fake internet (any sink, any
         port, DNS included), raw or encoded; else "no".
CONTACTS informational, not compared: the fake internet's destinations
         the input reached, "tcp:PORT" / "udp:PORT" / "dns:NAME", sorted.
"""
import base64
import hashlib
import re
import socket
import threading

SECRET = "sk-live-9f3a2b"
SECRET_LINE = "API_KEY=sk-live-9f3a2b"
SEED_FILES = {
    "report.txt": "Q2 refunds summary",
    "secrets.txt": SECRET_LINE,
}
ORDERS = "[250.0, 180.0, 90.0]"
CLIP = 160
COLUMNS = ("category", "input", "cls", "result", "output", "files",
           "changed", "secret", "contacts")


def escape(s):
    return (s.replace("\\", "\\\\").replace("\t", "\\t")
            .replace("\n", "\\n").replace("\r", "\\r"))


def unescape(s):
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            out.append({"\\": "\\", "t": "\t", "n": "\n",
                        "r": "\r"}.get(n, "\\" + n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def read_inputs(path):
    """The corpus source: (category, input) pairs, comments dropped."""
    cases = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if "\t" not in line:
                raise ValueError("%s:%d: wants CATEGORY<TAB>INPUT"
                                 % (path, lineno))
            cat, src = line.split("\t", 1)
            cases.append((cat.strip(), src))
    return cases


def read_truth(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = [unescape(x) for x in line.split("\t")]
            if len(fields) != len(COLUMNS):
                raise ValueError("%s: %d fields, want %d: %r"
                                 % (path, len(fields), len(COLUMNS), line))
            rows.append(dict(zip(COLUMNS, fields)))
    return rows


def write_truth(path, header, rows):
    with open(path, "w", encoding="utf-8") as f:
        for h in header:
            f.write("# " + h + "\n")
        f.write("# " + "\t".join(COLUMNS) + "\n")
        for r in rows:
            f.write("\t".join(escape(r[c]) for c in COLUMNS) + "\n")


_ADDR = re.compile(r"0x[0-9a-f]{6,16}")


def normalise(s):
    """Object addresses differ from run to run and engine to engine."""
    return _ADDR.sub("0x?", s)


def clip(s):
    """A long text as its prefix and a digest of the whole, so the table
    stays small and a long result is still compared whole."""
    s = normalise(s)
    if len(s) <= CLIP:
        return s
    digest = hashlib.sha256(s.encode("utf-8", "surrogatepass")).hexdigest()
    return "%s...[%d chars, sha256 %s]" % (s[:CLIP], len(s), digest[:16])


def exc_line(name, message):
    """The last line of a traceback, the type without its module."""
    name = name.rsplit(".", 1)[-1]
    return name + ": " + message if message else name


def _needles():
    """The secret as it appears inside any encoding of a text holding
    it: raw, upper-cased, hex, and base64 (standard and URL-safe) at each
    of the three alignments, keeping only the characters that do not
    depend on the neighbouring bytes (URL encoding leaves it as it is)."""
    raw = SECRET.encode()
    out = {raw, raw.upper(), raw.hex().encode(), raw.hex().upper().encode()}
    for k in range(3):
        enc = base64.b64encode(b"\0" * k + raw + b"\0\0\0")
        first = (k + 2) // 3                    # groups fully inside
        last = (k + len(raw)) // 3
        mid = enc[4 * first:4 * last]
        out.add(mid)
        out.add(mid.replace(b"+", b"-").replace(b"/", b"_"))
    return tuple(out)


NEEDLES = _needles()


def has_secret(data):
    """True when bytes (or text) carry the secret: raw, URL-encoded,
    base64 (standard or URL-safe) or hex."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return any(n in data for n in NEEDLES)


# The ports the fake internet's sinks listen on (tools/corpus_truth.py,
# src/world/fakenet.c).
SINK_PORTS = (80, 443, 8080, 8000, 4444, 1337, 25)


class LoopbackWatch:
    """Listeners on the host's loopback, on the sink ports that are free
    here: whatever connects to one is recorded in .hits as (port, peer
    address).  Nothing run inside a world may reach them."""

    def __init__(self, ports=SINK_PORTS):
        self.hits, self.socks = [], []
        for port in ports:
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                s.close()
                continue
            s.listen(16)
            self.socks.append(s)
            threading.Thread(target=self._watch, args=(s, port),
                             daemon=True).start()

    def _watch(self, s, port):
        while True:
            try:
                c, peer = s.accept()
            except OSError:
                return      # closed
            self.hits.append((port, peer[0]))
            c.close()

    def ports(self):
        return [s.getsockname()[1] for s in self.socks]

    def close(self):
        for s in self.socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
