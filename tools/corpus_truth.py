#!/usr/bin/env python3
"""corpus_truth.py -- the ground truth for tests/whole/corpus.test: every corpus
input run in Debian's CPython 3.11 (/usr/bin/python3) inside bwrap, in a
throwaway replica of the essay's world with a fake internet around it.

Run by developers from the top of the source tree, as root or as a user
allowed to create user namespaces (never by make check):

    python3 tools/corpus_truth.py            # both tables
    python3 tools/corpus_truth.py --only network --print   # look, write nothing

It reads tests/corpus/payloads.txt and tests/corpus/everyday.txt and
writes tests/corpus/truth.tsv and tests/corpus/everyday.tsv (format in
tests/corpus/corpuslib.py).  The tables are committed: they are CPython's
answers, as tests/diff/cases.tsv is.

The world each input runs in (what a replica world should look like):
- a fresh bwrap sandbox per run: new user (uid/gid 1000, "agent"), pid,
  ipc and uts namespaces; the host's /usr read-only, /bin /lib /lib64
  /sbin as links into it; a replica /etc (passwd and group with the agent
  user, hosts, resolv.conf naming 127.0.0.1, nsswitch.conf, the CA bundle
  with this run's fake-internet CA added, the host's alternatives links,
  ld.so.cache, services, protocols, Debian's sitecustomize); /proc, a
  minimal /dev, tmpfs /tmp and /home/agent; /usr/local empty, as on a
  fresh Debian, and the .pth start-up hooks in /usr/lib/python3/
  dist-packages hidden (third-party packages' hooks, such as setuptools'
  distutils hack, are not CPython and differ from machine to machine);
- the working directory /workspace, a fresh directory seeded with
  report.txt ("Q2 refunds summary") and secrets.txt
  ("API_KEY=sk-live-9f3a2b"), the files the essay's session starts with;
- the environment HOME=/home/agent, PATH=/usr/local/bin:/usr/bin:/bin,
  LANG=C.UTF-8, API_KEY=sk-live-9f3a2b and nothing else;
- /usr/bin/python3 -i -c RUNNER, the input on its stdin: python3 at its
  prompt (site and its interactive hook: readline, rlcompleter), with
  `orders` in __main__ and the five commands as builtins (read_file,
  write_file, delete_file, list_files, http_get, each taking the essay's
  one dict argument; http_get POSTs its 'body' with urllib), sys.argv
  [''], the input compiled in 'single' mode by the prompt itself: every
  expression statement's value echoed, an exception's traceback printed;
  the last value echoed is the result, an exception the outcome, and
  what the terminal showed (stdout and stderr as written) the output,
  without the result's echo when it came last;
- limits: 1 GiB of address space (RLIMIT_AS), 10 s of CPU, a wall-clock
  kill after 4 s (the class "timeout").

The fake internet: the whole run sits in a new user, mount and network
namespace (unshare -rnm), whose loopback is up with a local route for
every IPv4 address; dnsmasq answers every name with 203.0.113.9; sinks
listen on TCP 80, 443, 8080, 8000, 4444, 1337 and 25 (SMTP greeting),
answer an HTTP request with "200 OK" and an empty body, terminate TLS
with a certificate for the server name asked for, signed by this run's
CA (so HTTPS bodies are seen), and read anything else until the peer
closes.  A packet socket on the loopback records every packet, so a
connection attempt or a datagram to any other port, and every DNS
question, are seen too.  The secret counts as delivered when any of
these saw it (corpuslib.has_secret).

Nothing touches the host: the inputs run only inside bwrap inside the
namespaces, the workspaces live on a tmpfs mounted in the private mount
namespace.  The host side checks it: a canary file it created and
listeners it opened on the host's loopback (the sink ports that are
free) must be untouched at the end, or the run fails and writes nothing.

Each input runs twice, each time in a fresh world, with the string hash
seeds 1 and 2 (PYTHONHASHSEED, removed from os.environ before the input
runs), and a third time with seed 3 when a result or output holds a "{"
(a set or dict whose order may follow the hash); where the runs' results
(or outputs) differ after normalisation, the table says "~" and the test
compares the class only.  The fixed seeds make the table the same from
run to run.
"""
import argparse
import json
import os
import select
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
CORPUS = os.path.join(TOP, "tests", "corpus")
sys.dont_write_bytecode = True
sys.path.insert(0, CORPUS)
import corpuslib  # noqa: E402

PYTHON = "/usr/bin/python3"
SINK_PORTS = corpuslib.SINK_PORTS
FAKE_ADDR = "203.0.113.9"
MARK_PORT = 9
WALL = 4.0
AS_LIMIT = 1 << 30
TABLES = (("payloads.txt", "truth.tsv"), ("everyday.txt", "everyday.tsv"))

PRELUDE = r'''
orders = [250.0, 180.0, 90.0]

def read_file(args):
    with open(args['path']) as f:
        return f.read()

def write_file(args):
    with open(args['path'], 'w') as f:
        f.write(args['text'])

def delete_file(args):
    import os
    os.remove(args['path'])

def list_files(args):
    import os
    return sorted(os.listdir(args.get('path', '.')))

def http_get(args):
    import urllib.request
    body = args.get('body')
    data = None if body is None else str(body).encode()
    with urllib.request.urlopen(args['url'], data=data, timeout=3) as r:
        return r.read().decode('utf-8', 'replace')
'''

# The input is typed at CPython's own interactive loop (python3 -i, its
# stdin a pipe holding the one line): compiled in 'single' mode by the
# parser itself, as at a student's prompt, with no ast module and no
# compile() call that would add classes to object.__subclasses__().  The
# -c part only defines the commands (as builtins: reachable by name, not
# in dir()), sets sys.argv as the prompt has it, and wraps the display
# and exception hooks: each still prints what the prompt prints (the
# value's repr and '_' bound, as sys.displayhook does; the traceback,
# through sys.__excepthook__), and each displayed value and uncaught
# exception is also sent on the inherited pipe RESULT_FD as a
# length-prefixed CLASS NUL RESULT record; the last one is the outcome.
# The site's interactive hook runs, as at the prompt (readline and
# rlcompleter imported).  The prompts are PROMPT, so that what the
# terminal showed (stdout and stderr on one pipe) can be told from them.
PROMPT = "\x01prompt\x01"
RUNNER = r'''
def _corpus_setup(prelude, fd, prompt):
    import sys
    ns = sys.modules['__main__'].__dict__
    del ns['_corpus_setup']
    builtins = sys.modules['builtins']
    exec(prelude, ns)
    for name in ('read_file', 'write_file', 'delete_file', 'list_files',
                 'http_get'):
        setattr(builtins, name, ns.pop(name))
    sys.argv[:] = ['']
    def put(cls, res):
        data = (cls + '\0' + res).encode('utf-8', 'backslashreplace')
        data = b'%d:' % len(data) + data
        while data:
            data = data[sys.modules['os'].write(fd, data):]
    def displayhook(v):
        if v is None:
            put('value', 'None')
            return
        builtins._ = None
        r = repr(v)
        put('value', r)
        try:
            sys.stdout.write(r)
        except UnicodeEncodeError:
            sys.stdout.buffer.write(r.encode(sys.stdout.encoding,
                                             'backslashreplace'))
        sys.stdout.write('\n')
        builtins._ = v
    def excepthook(t, e, tb):
        name = t.__name__
        try:
            msg = e.msg if isinstance(e, SyntaxError) and e.msg else str(e)
        except BaseException:
            msg = '<exception str() failed>'
        put('exc:' + name, name + ': ' + msg if msg else name)
        sys.__excepthook__(t, e, tb)
    sys.displayhook = displayhook
    sys.excepthook = excepthook
    sys.ps1 = sys.ps2 = prompt
    sys.modules['os'].environ.pop('PYTHONHASHSEED', None)
_corpus_setup(PRELUDE, RESULT_FD, PROMPT)
'''.replace("PRELUDE", repr(PRELUDE)).replace("PROMPT", repr(PROMPT))


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- inside

class Epochs:
    """What the fake internet saw, filed under the input running then."""

    def __init__(self):
        self.lock = threading.Lock()
        self.epoch = 0
        self.data = {}
        self.active = {}
        self.marks = {}

    def cur(self):
        with self.lock:
            return self.epoch

    def add(self, epoch, blob=b"", contact=None):
        with self.lock:
            d = self.data.setdefault(epoch, {"blob": [], "contacts": set()})
            if blob:
                d["blob"].append(bytes(blob))
            if contact:
                d["contacts"].add(contact)

    def enter(self, epoch):
        with self.lock:
            self.active[epoch] = self.active.get(epoch, 0) + 1

    def leave(self, epoch):
        with self.lock:
            self.active[epoch] -= 1

    def busy(self, epoch):
        with self.lock:
            return self.active.get(epoch, 0) > 0


class CertShop:
    """A CA made for this run and a certificate per server name."""

    def __init__(self, d):
        self.d = d
        self.lock = threading.Lock()
        self.ctxs = {}
        self.ca = os.path.join(d, "ca.pem")
        self.cakey = os.path.join(d, "ca.key")
        self.key = os.path.join(d, "leaf.key")
        run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
             "-keyout", self.cakey, "-out", self.ca, "-days", "2",
             "-subj", "/CN=corpus fake internet CA",
             "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        run(["openssl", "genrsa", "-out", self.key, "2048"])

    def context(self, name):
        name = (name or "localhost").lower()
        with self.lock:
            if name in self.ctxs:
                return self.ctxs[name]
            safe = "".join(c if c.isalnum() or c in ".-" else "_"
                           for c in name)[:100]
            crt = os.path.join(self.d, "leaf-%s.pem" % safe)
            try:
                import ipaddress
                ipaddress.ip_address(name)
                san = "IP:" + name
            except ValueError:
                san = "DNS:" + name
            run(["openssl", "req", "-x509", "-new", "-key", self.key,
                 "-CA", self.ca, "-CAkey", self.cakey, "-days", "2",
                 "-subj", "/CN=" + name[:60], "-addext",
                 "subjectAltName=" + san, "-out", crt])
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(crt, self.key)
            self.ctxs[name] = ctx
            return ctx

    def server_context(self, seen):
        base = self.context("localhost")

        def pick(sslobj, name, _ctx):
            seen.append(name)
            try:
                sslobj.context = self.context(name)
            except Exception as e:  # a name openssl refuses
                log("certificate for %r: %s" % (name, e))
        base.sni_callback = pick
        return base


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, **kw)


def recv_some(conn, limit=1 << 20, idle=1.5):
    """Whatever arrives until the peer closes or is quiet for idle s."""
    chunks, total = [], 0
    conn.settimeout(idle)
    while total < limit:
        try:
            b = conn.recv(65536)
        except (socket.timeout, OSError, ssl.SSLError):
            break
        if not b:
            break
        chunks.append(b)
        total += len(b)
        if is_complete_http(b"".join(chunks)):
            break
    return b"".join(chunks)


def is_complete_http(buf):
    head, sep, body = buf.partition(b"\r\n\r\n")
    if not sep or not head[:8].split(b" ")[0].isalpha():
        return False
    hl = head.lower()
    for line in hl.split(b"\r\n"):
        if line.startswith(b"content-length:"):
            try:
                return len(body) >= int(line.split(b":", 1)[1])
            except ValueError:
                return True
    if b"transfer-encoding: chunked" in hl:
        return body.endswith(b"0\r\n\r\n")
    return True


HTTP_OK = (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"
           b"Content-Length: 0\r\nConnection: close\r\n\r\n")


def smtp_session(conn, ep, epochs):
    f = conn.makefile("rb")
    conn.sendall(b"220 sink ESMTP\r\n")
    in_data = False
    for line in f:
        epochs.add(ep, line)
        if in_data:
            if line.rstrip(b"\r\n") == b".":
                in_data = False
                conn.sendall(b"250 ok\r\n")
            continue
        cmd = line[:4].upper()
        if cmd == b"DATA":
            in_data = True
            conn.sendall(b"354 go on\r\n")
        elif cmd == b"QUIT":
            conn.sendall(b"221 bye\r\n")
            break
        elif cmd == b"EHLO":
            conn.sendall(b"250-sink\r\n250 8BITMIME\r\n")
        else:
            conn.sendall(b"250 ok\r\n")


def handle(conn, port, epochs, shop):
    ep = epochs.cur()
    epochs.enter(ep)
    try:
        epochs.add(ep, contact="tcp:%d" % port)
        conn.settimeout(2)
        if port == 25:
            smtp_session(conn, ep, epochs)
            return
        try:
            first = conn.recv(1, socket.MSG_PEEK)
        except OSError:
            return
        if first == b"\x16":
            names = []
            try:
                conn = shop.server_context(names).wrap_socket(
                    conn, server_side=True)
            except (ssl.SSLError, OSError) as e:
                for n in names:
                    epochs.add(ep, contact="tls:%s" % n)
                log("  tls handshake failed on %d: %s" % (port, e))
                return
            for n in names:
                epochs.add(ep, contact="tls:%s" % n)
        data = recv_some(conn)
        epochs.add(ep, data)
        if data[:8].split(b" ")[0].isalpha() and b"HTTP/" in data[:200]:
            try:
                conn.sendall(HTTP_OK)
            except OSError:
                pass
    except Exception as e:
        log("  sink %d: %s" % (port, e))
    finally:
        try:
            conn.close()
        except OSError:
            pass
        epochs.leave(ep)


def sink(port, epochs, shop):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(64)
    while True:
        conn, _ = ls.accept()
        threading.Thread(target=handle, args=(conn, port, epochs, shop),
                         daemon=True).start()


def dns_name(payload):
    """The question name of a DNS query, or None."""
    try:
        i, labels = 12, []
        while payload[i]:
            n = payload[i]
            labels.append(payload[i + 1:i + 1 + n].decode("ascii",
                                                         "replace"))
            i += 1 + n
        return ".".join(labels)
    except IndexError:
        return None


def capture(epochs):
    """Every packet on the loopback, as sent (outgoing copies only)."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.bind(("lo", 0))
    while True:
        frame, addr = s.recvfrom(262144)
        if addr[2] != socket.PACKET_OUTGOING or len(frame) < 34:
            continue
        if struct.unpack("!H", frame[12:14])[0] != 0x0800:
            continue
        ip = frame[14:]
        ihl = (ip[0] & 15) * 4
        proto = ip[9]
        l4 = ip[ihl:]
        ep = epochs.cur()
        if len(l4) < 8:
            continue
        sport, dport = struct.unpack("!HH", l4[0:4])
        if proto == 6 and len(l4) >= 20:
            flags = l4[13]
            off = (l4[12] >> 4) * 4
            if flags & 0x02 and not flags & 0x10:
                epochs.add(ep, contact="tcp:%d" % dport)
            if dport not in SINK_PORTS and sport not in SINK_PORTS:
                epochs.add(ep, l4[off:])
        elif proto == 17:
            payload = l4[8:]
            if dport == MARK_PORT and payload.startswith(b"corpus-mark-"):
                n = int(payload[12:])
                with epochs.lock:
                    ev = epochs.marks.get(n)
                if ev:
                    ev.set()
                continue
            if sport == 53:
                continue       # the fake DNS server's answers
            if dport == 53:
                epochs.add(ep, contact="dns:%s" % dns_name(payload))
            else:
                epochs.add(ep, contact="udp:%d" % dport)
            epochs.add(ep, payload)


def dns_ready():
    q = (b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00"
         b"\x05probe\x03com\x00\x00\x01\x00\x01")
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(0.2)
    try:
        for _ in range(50):
            try:
                s.sendto(q, ("127.0.0.1", 53))
                r = s.recv(512)
                if r[:2] == b"\x12\x34":
                    return True
            except OSError:
                time.sleep(0.05)
        return False
    finally:
        s.close()


def build_etc(root, shop):
    etc = os.path.join(root, "etc")
    os.makedirs(os.path.join(etc, "ssl", "certs"))
    os.makedirs(os.path.join(etc, "python3.11"))
    files = {
        "passwd": "root:x:0:0:root:/root:/bin/sh\n"
                  "agent:x:1000:1000:agent:/home/agent:/bin/sh\n"
                  "nobody:x:65534:65534:nobody:/nonexistent:"
                  "/usr/sbin/nologin\n",
        "group": "root:x:0:\nagent:x:1000:\nnogroup:x:65534:\n",
        "hosts": "127.0.0.1\tlocalhost\n::1\tlocalhost\n",
        "resolv.conf": "nameserver 127.0.0.1\n",
        "nsswitch.conf": "passwd: files\ngroup: files\nhosts: files dns\n"
                         "services: files\nprotocols: files\n",
        "hostname": "world\n",
    }
    for name, text in files.items():
        with open(os.path.join(etc, name), "w") as f:
            f.write(text)
    for name in ("services", "protocols", "ld.so.cache", "ssl/openssl.cnf",
                 "python3.11/sitecustomize.py"):
        if os.path.exists("/etc/" + name):
            shutil.copy2("/etc/" + name, os.path.join(etc, name))
    shutil.copytree("/etc/alternatives", os.path.join(etc, "alternatives"),
                    symlinks=True)
    bundle = os.path.join(etc, "ssl", "certs", "ca-certificates.crt")
    with open(bundle, "wb") as out:
        host = "/etc/ssl/certs/ca-certificates.crt"
        if os.path.exists(host):
            with open(host, "rb") as f:
                out.write(f.read())
        with open(shop.ca, "rb") as f:
            out.write(f.read())
    return etc


def site_hooks():
    """The .pth start-up hooks of third-party packages (setuptools'
    distutils hack, this machine's additions): what a machine happens to
    have installed, not CPython, and they change what the input sees
    (object.__subclasses__(), sys.modules).  The replica hides them all,
    so the table is the same from any Debian 12 machine."""
    found = []
    d = "/usr/lib/python3/dist-packages"
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if name.endswith(".pth"):
            found.append(os.path.join(d, name))
    return found


SITE_HOOKS = []


def bwrap_cmd(etc, ws, fd, seed):
    cmd = ["bwrap", "--unshare-user", "--uid", "1000", "--gid", "1000",
           "--unshare-pid", "--unshare-ipc", "--unshare-uts",
           "--unshare-cgroup-try", "--hostname", "world",
           "--die-with-parent", "--new-session",
           "--ro-bind", "/usr", "/usr",
           # a fresh Debian's /usr/local: empty directories
           "--perms", "0755", "--tmpfs", "/usr/local"]
    for sub in ("bin", "etc", "games", "include", "lib", "man", "sbin",
                "share", "src"):
        cmd += ["--perms", "0755", "--dir", "/usr/local/" + sub]
    for path in SITE_HOOKS:
        cmd += ["--ro-bind", "/dev/null", path]
    cmd += ["--remount-ro", "/usr/local"]
    for link in ("bin", "sbin", "lib", "lib64"):
        if os.path.islink("/" + link):
            cmd += ["--symlink", os.readlink("/" + link), "/" + link]
    cmd += ["--ro-bind", etc, "/etc", "--proc", "/proc", "--dev", "/dev",
            "--tmpfs", "/tmp", "--tmpfs", "/home/agent",
            "--bind", ws, "/workspace", "--chdir", "/workspace",
            "--clearenv", "--setenv", "HOME", "/home/agent",
            "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin",
            "--setenv", "LANG", "C.UTF-8",
            "--setenv", "API_KEY", corpuslib.SECRET,
            "--setenv", "PYTHONHASHSEED", str(seed),
            PYTHON, "-u", "-q", "-i", "-c",
            RUNNER.replace("RESULT_FD", str(fd))]
    return cmd


def limits():
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))
    resource.setrlimit(resource.RLIMIT_CPU, (10, 10))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def terminal_output(out, cls, result):
    """What the terminal showed, without the prompts and the newline
    written at the end of input; the echo of the outcome's value left out
    when it came last, as the record says it once, as the result."""
    p = PROMPT.encode()
    if out.endswith(p + b"\n"):
        out = out[:-len(p) - 1]
    text = out.replace(p, b"").decode("utf-8", "backslashreplace")
    if cls == "value" and result != "None" and text.endswith(result + "\n"):
        text = text[:-len(result) - 1]
    return text.rstrip("\n")


def run_once(src, etc, scratch, n, epochs, seed):
    ws = os.path.join(scratch, "ws-%d" % n)
    os.mkdir(ws)
    for name, text in corpuslib.SEED_FILES.items():
        with open(os.path.join(ws, name), "w") as f:
            f.write(text)
    rfd, wfd = os.pipe()
    os.set_inheritable(wfd, True)
    ev = threading.Event()
    with epochs.lock:
        epochs.epoch = n
        epochs.marks[n] = ev
    p = subprocess.Popen(bwrap_cmd(etc, ws, wfd, seed), stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         pass_fds=(wfd,), preexec_fn=limits,
                         start_new_session=True)
    os.close(wfd)
    timed_out = False
    try:
        out, err = p.communicate(src.encode("utf-8", "surrogateescape")
                                 + b"\n", timeout=WALL)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
    back = b""
    while True:
        r, _, _ = select.select([rfd], [], [], 0)
        if not r:
            break
        b = os.read(rfd, 65536)
        if not b:
            break
        back += b
    os.close(rfd)
    # the marker: every packet sent before it has been filed
    m = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    m.sendto(b"corpus-mark-%d" % n, ("127.0.0.1", MARK_PORT))
    m.close()
    ev.wait(5)
    deadline = time.time() + 5
    while epochs.busy(n) and time.time() < deadline:
        time.sleep(0.02)

    rc = p.returncode
    records = []
    while back:
        size, _, rest = back.partition(b":")
        records.append(rest[:int(size)])
        back = rest[int(size):]
    if timed_out:
        cls, result = "timeout", ""
    elif rc is not None and rc > 128:
        try:
            cls = "killed:" + signal.Signals(rc - 128).name
        except ValueError:
            cls = "killed:%d" % (rc - 128)
        result = ""
    elif rc != 0 or not out.endswith(PROMPT.encode() + b"\n"):
        # SystemExit or os._exit() ended the loop before its last prompt
        cls, result = "exit:%s" % rc, ""
    elif records:
        c, r = records[-1].split(b"\0", 1)
        cls, result = c.decode(), r.decode("utf-8", "backslashreplace")
    else:
        cls, result = "value", ""
    files = sorted(os.listdir(ws))
    changed = []
    for name, text in sorted(corpuslib.SEED_FILES.items()):
        path = os.path.join(ws, name)
        if os.path.isfile(path):
            try:
                with open(path, "rb") as f:
                    if f.read() != text.encode():
                        changed.append(name)
            except OSError:
                changed.append(name)
    with epochs.lock:
        d = epochs.data.pop(n, {"blob": [], "contacts": set()})
        epochs.marks.pop(n, None)
    blob = b"".join(d["blob"])
    shutil.rmtree(ws, ignore_errors=True)
    output = terminal_output(out, cls, result)
    return {
        "cls": cls,
        "result": corpuslib.clip(result),
        "output": corpuslib.clip(output),
        "files": "/".join(files),
        "changed": "/".join(changed),
        "secret": "yes" if corpuslib.has_secret(blob) else "no",
        "contacts": " ".join(sorted(d["contacts"])),
        "stderr": out.decode("utf-8", "backslashreplace")[-300:],
    }


def inside(args):
    scratch = args.scratch
    run(["mount", "-t", "tmpfs", "-o", "size=512m,mode=0755", "corpus",
         scratch])
    run(["ip", "link", "set", "lo", "up"])
    run(["ip", "route", "add", "local", "0.0.0.0/0", "dev", "lo",
         "table", "local"])
    dnsmasq = subprocess.Popen(
        ["/usr/sbin/dnsmasq", "-d", "--no-resolv", "--no-hosts",
         "-C", "/dev/null", "--address=/#/" + FAKE_ADDR,
         "--listen-address=127.0.0.1", "--bind-interfaces",
         "--user=root", "--group=root", "--pid-file="],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if not dns_ready():
            raise SystemExit("dnsmasq did not answer")
        epochs = Epochs()
        shop = CertShop(scratch)
        for name in ("evil.com", "localhost"):
            shop.context(name)
        threading.Thread(target=capture, args=(epochs,), daemon=True).start()
        for port in SINK_PORTS:
            threading.Thread(target=sink, args=(port, epochs, shop),
                             daemon=True).start()
        time.sleep(0.2)
        etc = build_etc(scratch, shop)
        SITE_HOOKS[:] = site_hooks()
        log("hidden .pth start-up hooks: %s" % (SITE_HOOKS or "none"))
        n = 0
        for src_name, _ in TABLES:
            if args.table and args.table != src_name:
                continue
            cases = corpuslib.read_inputs(os.path.join(CORPUS, src_name))
            if args.input is not None:
                if src_name != TABLES[0][0]:
                    continue
                cases = [("input", args.input)]
            for i, (cat, src) in enumerate(cases):
                if args.only and args.only not in (cat, str(i + 1)):
                    continue
                runs = []
                for seed in (1, 2, 3):
                    if seed == 3 and not any("{" in r["result"] + r["output"]
                                             for r in runs):
                        break
                    n += 1
                    runs.append(run_once(src, etc, scratch, n, epochs, seed))
                a = runs[0]
                row = dict(a)
                for b in runs[1:]:
                    for key in ("result", "output"):
                        if a[key] != b[key]:
                            row[key] = "~"
                    for key in ("cls", "files", "changed", "secret"):
                        if a[key] != b[key]:
                            log("UNSTABLE %s %r: %r vs %r"
                                % (key, src, a[key], b[key]))
                row.update(category=cat, input=src, table=src_name)
                if args.input is not None:
                    log("stderr: %r" % row["stderr"])
                log("%-9s %-24s %s" % (cat, row["cls"][:24], src[:70]))
                print(json.dumps(row), flush=True)
    finally:
        dnsmasq.kill()
        dnsmasq.wait()


# ------------------------------------------------------------------ host

def host_guard():
    """A canary file and loopback listeners on the host: the run fails
    when an input reached either."""
    d = tempfile.mkdtemp(prefix="corpus-canary-")
    canary = os.path.join(d, "canary.txt")
    token = os.urandom(16).hex()
    with open(canary, "w") as f:
        f.write(token)
    st = os.stat(canary)
    watch = corpuslib.LoopbackWatch(SINK_PORTS)

    def check():
        problems = []
        try:
            with open(canary) as f:
                if f.read() != token:
                    problems.append("the host canary changed")
            if os.stat(canary).st_mtime_ns != st.st_mtime_ns:
                problems.append("the host canary was written")
        except OSError as e:
            problems.append("the host canary: %s" % e)
        if watch.hits:
            problems.append("the host loopback listeners saw %r"
                            % watch.hits)
        watch.close()
        shutil.rmtree(d, ignore_errors=True)
        return problems
    return check, watch.ports()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--scratch", help=argparse.SUPPRESS)
    ap.add_argument("--only", help="one category, or one case number")
    ap.add_argument("--input", help="run this one input, print its row")
    ap.add_argument("--table", choices=[t[0] for t in TABLES],
                    help="one corpus file only")
    ap.add_argument("--print", action="store_true",
                    help="print the rows, write no table")
    args = ap.parse_args()
    if args.inside:
        inside(args)
        return 0
    for tool in ("unshare", "bwrap", "ip", "openssl", "/usr/sbin/dnsmasq",
                 PYTHON):
        if shutil.which(tool) is None:
            raise SystemExit("corpus_truth: %s is missing" % tool)
    check, watched = host_guard()
    log("host guard: canary file, loopback listeners on %s" % watched)
    scratch = tempfile.mkdtemp(prefix="corpus-scratch-")
    cmd = ["unshare", "-rnm", "--propagation", "private", PYTHON,
           os.path.abspath(__file__), "--inside", "--scratch", scratch]
    if args.only:
        cmd += ["--only", args.only]
    if args.input is not None:
        cmd += ["--input", args.input]
    if args.table:
        cmd += ["--table", args.table]
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE)
    os.rmdir(scratch)
    problems = check()
    if problems:
        raise SystemExit("corpus_truth: NOT WRITTEN: " + "; ".join(problems))
    if p.returncode != 0:
        raise SystemExit("corpus_truth: the run failed (%d)" % p.returncode)
    rows = [json.loads(l) for l in p.stdout.decode().splitlines() if l]
    log("%d cases in %.0f s; the host canary and loopback were untouched"
        % (len(rows), time.time() - t0))
    if args.print or args.only or args.input is not None:
        for r in rows:
            print("\t".join(corpuslib.escape(r[c])
                            for c in corpuslib.COLUMNS))
        return 0
    ver = subprocess.run([PYTHON, "-c", "import sys; print(sys.version.split()[0])"],
                         stdout=subprocess.PIPE, text=True).stdout.strip()
    for src_name, out_name in TABLES:
        if args.table and args.table != src_name:
            continue
        mine = [r for r in rows if r["table"] == src_name]
        corpuslib.write_truth(os.path.join(CORPUS, out_name), [
            "generated by tools/corpus_truth.py from tests/corpus/%s with "
            "CPython %s in bwrap; do not edit" % (src_name, ver),
            "format: tests/corpus/corpuslib.py"], mine)
        log("wrote tests/corpus/%s (%d rows)" % (out_name, len(mine)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
