"""mcp_hostile.py -- sandboxrepl --mcp against a client that breaks the rules.

Run by tests/app/mcp.test: python3 mcp_hostile.py SANDBOXREPL.  Malformed
lines, wrong types, unknown methods and tools, a message past the size
cap, an old revision negotiated, the stateless revision's _meta rules;
then a client that never reads (the server blocks, its memory stays
bounded) and hangs up (the server exits 1, not by a signal).  Prints one
"ok - " or "not ok - " line per check; exits 1 when one failed.
"""
import json
import subprocess
import sys
import threading
import time

BIN = sys.argv[1]
failed = 0


def check(name, cond, detail=None):
    global failed
    if cond:
        print("ok - " + name)
    else:
        failed += 1
        print("not ok - " + name)
        if detail is not None:
            print("# " + repr(detail)[:2000])


def msg(mid, method, params=None, **extra):
    m = {"jsonrpc": "2.0", "id": mid, "method": method}
    if params is not None:
        m["params"] = params
    m.update(extra)
    return json.dumps(m).encode()


MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}}
BIG = 5 << 20   # past the 4 MiB cap

lines = [
    b"not json",
    b"\xff\xfe{}",
    b"[]",
    b"42",
    b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
    b'{"jsonrpc":"1.0","id":"v1","method":"ping"}',
    b'{"jsonrpc":"2.0","id":"m5","method":5}',
    b'{"jsonrpc":"2.0","id":"dup","id":"dup","method":"ping"}',
    b"[" * 100000 + b"]" * 100000,
    msg("pre", "tools/list"),
    msg("init", "initialize", {"protocolVersion": "2024-11-05",
                               "capabilities": {},
                               "clientInfo": {"name": "h", "version": "0"}}),
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
    b'{"jsonrpc":"2.0","method":"notifications/no_such_thing"}',
    msg("init2", "initialize", {"protocolVersion": "2025-11-25",
                                "capabilities": {}}),
    msg("list", "tools/list"),
    msg("res", "resources/list"),
    msg("cursor", "tools/list", {"cursor": "next"}),
    msg("pstr", "tools/call", "x"),
    msg("name5", "tools/call", {"name": 5}),
    msg("argarr", "tools/call", {"name": "read_file", "arguments": []}),
    msg("nul", "tools/call", {"name": "run_code\u0000x", "arguments": {}}),
    msg("oldtype", "tools/call", {"name": "read_file",
                                  "arguments": {"path": 5}}),
    b'{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":'
    b'"write_file","arguments":{"path":"x","text":"' + b"A" * BIG + b'"}}}',
    b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":"write_file",'
    b'"arguments":{"path":"x","text":"' + b"A" * BIG + b'"}},"id":"late"}',
    msg("modern", "tools/call", {"name": "run_code", "arguments": {
        "code": "round(sum(orders) / len(orders), 2)"}, "_meta": MODERN}),
    msg("mlist", "tools/list", {"_meta": MODERN}),
    msg("badver", "tools/list", {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "1900-01-01",
        "io.modelcontextprotocol/clientCapabilities": {}}}),
    msg("nocaps", "tools/list", {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
    msg("disc", "server/discover", {"_meta": MODERN}),
    msg("mping", "ping", {"_meta": MODERN}),
    b"",
    b"   ",
    msg("last", "ping"),
]
p = subprocess.run([BIN, "--mcp"], input=b"\n".join(lines) + b"\n",
                   capture_output=True, timeout=120)
check("the server ends at EOF with status 0", p.returncode == 0,
      (p.returncode, p.stderr[-500:]))
replies = []
for raw in p.stdout.split(b"\n")[:-1]:
    try:
        replies.append(json.loads(raw))
    except ValueError:
        replies.append({"unparsable": raw[:200]})
check("every reply line is JSON-RPC 2.0",
      all(r.get("jsonrpc") == "2.0" for r in replies), replies)
byid = {}
nulls = []
for r in replies:
    if r.get("id") is None:
        nulls.append(r)
    else:
        byid.setdefault(r["id"], []).append(r)
check("no request is answered twice",
      all(len(v) == 1 for v in byid.values()), byid.keys())
byid = {k: v[0] for k, v in byid.items()}


def code(r):
    return r.get("error", {}).get("code") if r else None


null_codes = [code(r) for r in nulls]
check("garbage, bad UTF-8, duplicate keys, deep nesting: -32700 with a null id",
      null_codes.count(-32700) == 4, null_codes)
check("a batch, a number, a boolean id, a cut message without a leading id: "
      "-32600 with a null id", null_codes.count(-32600) == 4, null_codes)
check("the duplicate-key message is not answered as a request",
      "dup" not in byid)
check("\"jsonrpc\": \"1.0\" is an invalid request on its id",
      code(byid.get("v1")) == -32600, byid.get("v1"))
check("a method that is not a string is an invalid request",
      code(byid.get("m5")) == -32600, byid.get("m5"))
check("a request before initialize, without _meta, is invalid params",
      code(byid.get("pre")) == -32602, byid.get("pre"))
init = byid.get("init", {}).get("result", {})
check("initialize negotiates the client's revision 2024-11-05",
      init.get("protocolVersion") == "2024-11-05", init)
check("a second initialize is refused",
      code(byid.get("init2")) == -32600, byid.get("init2"))
tools = byid.get("list", {}).get("result", {}).get("tools", [])
check("2024-11-05: the four tools of the sandbox path, without the later outputSchema and title",
      len(tools) == 4 and all("outputSchema" not in t and "title" not in t
                              for t in tools), tools)
check("an unknown method is -32601", code(byid.get("res")) == -32601,
      byid.get("res"))
check("tools/list with a cursor it never gave is -32602",
      code(byid.get("cursor")) == -32602, byid.get("cursor"))
for mid, what in (("pstr", "params that are a string"),
                  ("name5", "a tool name that is a number"),
                  ("argarr", "arguments that are a list"),
                  ("oldtype", "a wrong argument type, before 2025-11-25")):
    check(what + ": -32602", code(byid.get(mid)) == -32602, byid.get(mid))
nul = byid.get("nul", {}).get("error", {})
check("a tool name with a NUL is an unknown tool, quoted escaped",
      nul.get("code") == -32602 and "run_code\\x00x" in nul.get("message", ""),
      nul)
check("a message past the cap is -32600 on the id its prefix shows",
      code(byid.get("big")) == -32600 and
      "longer than" in byid["big"]["error"]["message"], byid.get("big"))
check("nothing of the long messages ran (no file x)",
      "late" not in byid)
modern = byid.get("modern", {}).get("result", {})
check("2026-07-28: a tools/call with _meta, no handshake: 173.33, complete",
      modern.get("resultType") == "complete" and
      modern.get("structuredContent", {}).get("result") == "173.33" and
      modern.get("_meta", {}).get("io.modelcontextprotocol/serverInfo",
                                  {}).get("name") == "sandboxrepl", modern)
mlist = byid.get("mlist", {}).get("result", {})
check("2026-07-28: tools/list is cacheable (ttlMs, cacheScope)",
      len(mlist.get("tools", [])) == 4 and "ttlMs" in mlist and
      mlist.get("cacheScope") in ("public", "private"), mlist)
bad = byid.get("badver", {}).get("error", {})
check("an unsupported revision is -32022 with the supported ones",
      bad.get("code") == -32022 and
      bad.get("data", {}).get("requested") == "1900-01-01" and
      "2026-07-28" in bad.get("data", {}).get("supported", []), bad)
check("2026-07-28 without clientCapabilities is -32602",
      code(byid.get("nocaps")) == -32602, byid.get("nocaps"))
disc = byid.get("disc", {}).get("result", {})
check("server/discover lists the revisions and the tools capability",
      disc.get("supportedVersions", [None])[0] == "2026-07-28" and
      "2025-11-25" in disc.get("supportedVersions", []) and
      "tools" in disc.get("capabilities", {}), disc)
check("ping is not a 2026-07-28 method", code(byid.get("mping")) == -32601,
      byid.get("mping"))
check("the server still answers after all that",
      byid.get("last", {}).get("result") == {}, byid.get("last"))
requests = {"v1", "m5", "pre", "init", "init2", "list", "res", "cursor",
            "pstr",
            "name5", "argarr", "nul", "oldtype", "big", "modern", "mlist",
            "badver", "nocaps", "disc", "mping", "last"}
check("every request with an id was answered, notifications were not",
      set(byid) == requests and len(nulls) == 8,
      (sorted(set(byid) ^ requests), len(nulls)))

# ---- a client that never reads, then hangs up ----
srv = subprocess.Popen([BIN, "--mcp", "--engine=model"],
                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)
flood = msg(1, "initialize", {"protocolVersion": "2025-11-25",
                              "capabilities": {}}) + b"\n" + \
    (msg(2, "tools/list") + b"\n") * 20000   # about 200 MB of replies


def feed():
    try:
        srv.stdin.write(flood)
        srv.stdin.close()
    except (BrokenPipeError, ValueError, OSError):
        pass


t = threading.Thread(target=feed, daemon=True)
t.start()
time.sleep(2)
rss = None
state = None
try:
    with open("/proc/%d/status" % srv.pid) as f:
        for ln in f:
            if ln.startswith("VmRSS:"):
                rss = int(ln.split()[1])
            if ln.startswith("State:"):
                state = ln.split()[1]
except OSError:
    pass
check("a client that never reads: the server waits, alive",
      srv.poll() is None and state == "S", (srv.poll(), state))
check("a client that never reads: the server's memory stays bounded "
      "(%s KiB)" % rss, rss is not None and rss < 64 * 1024, rss)
srv.stdout.close()      # the client hangs up
try:
    rc = srv.wait(timeout=30)
except subprocess.TimeoutExpired:
    srv.kill()
    rc = "timeout"
check("a client that hangs up: the server exits with status 1, "
      "not by SIGPIPE", rc == 1, rc)
sys.exit(1 if failed else 0)
