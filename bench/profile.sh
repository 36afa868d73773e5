#!/bin/sh
# profile.sh -- the profiles behind the findings of `make bench`.
#
# Run from a build directory after `make bench/bench sandboxrepl` (a build
# with CFLAGS="-O2 -g" gives per-line annotations).  Needs valgrind; perf
# is used when present.  Writes callgrind.* files here and prints the top
# of each profile:
#   essay       one parse + check + evaluate of the essay expression
#   step        one whole session step of it (record, repr, trace line)
#   batch       2,000 essay lines through sandboxrepl --batch
#               --path=sandbox: the whole process, per input what `make
#               bench` counts (bench/batch.c), start-up included once
#   chain1mb    `1+1+...+1` of 1 MiB through sandboxrepl --batch
#   list1mb     `[1,1,...,1]` of 1 MiB through sandboxrepl --batch
set -eu

top=${TOP:-25}
command -v valgrind >/dev/null || { echo "profile.sh: valgrind not installed" >&2; exit 1; }
[ -x bench/bench ] && [ -x sandboxrepl ] || {
	echo "profile.sh: run from a build directory after make bench/bench" >&2
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

show() {
	echo "## $1: $(grep -o 'Collected : [0-9]*' "$tmp/$1.log")"
	echo "self:"
	callgrind_annotate "callgrind.$1" 2>/dev/null |
	    grep -E '^ *[0-9,]+ \(' | sed -n "2,${top}p"
	echo "inclusive, below main:"
	callgrind_annotate --inclusive=yes "callgrind.$1" 2>/dev/null |
	    grep -E '^ *[0-9,]+ \(' | grep -v -e 'below main' -e 'libc-start' \
	    -e 'ld-linux' -e ':main ' | sed -n "1,${top}p"
	echo
}

valgrind --tool=callgrind --callgrind-out-file=callgrind.essay \
    --toggle-collect=bench_essay_once bench/bench --once-essay \
    2>"$tmp/essay.log"
show essay
valgrind --tool=callgrind --callgrind-out-file=callgrind.step \
    --toggle-collect=bench_step_once bench/bench --once-step \
    2>"$tmp/step.log"
show step

i=0
while [ $i -lt 2000 ]; do
	echo 'round(sum(orders) / len(orders), 2)'
	i=$((i + 1))
done >"$tmp/batch.txt"
valgrind --tool=callgrind --callgrind-out-file=callgrind.batch \
    ./sandboxrepl --batch --path=sandbox --budget=1000000 \
    <"$tmp/batch.txt" >/dev/null 2>"$tmp/batch.log"
show batch

command -v python3 >/dev/null || { echo "profile.sh: python3 not installed" >&2; exit 1; }
python3 -c 'n = (1 << 20) // 2; print("+".join(["1"] * n))' >"$tmp/chain1mb.txt"
python3 -c 'n = (1 << 20) // 2 - 1; print("[" + ",".join(["1"] * n) + "]")' >"$tmp/list1mb.txt"
for f in chain1mb list1mb; do
	valgrind --tool=callgrind --callgrind-out-file=callgrind.$f \
	    ./sandboxrepl --batch --path=sandbox <"$tmp/$f.txt" \
	    >/dev/null 2>"$tmp/$f.log"
	show $f
	if command -v perf >/dev/null; then
		echo "## $f: perf, by shared object"
		perf stat -e page-faults ./sandboxrepl --batch --path=sandbox \
		    <"$tmp/$f.txt" 2>&1 >/dev/null | grep -E 'page-faults|elapsed' || true
		perf record -q -o "$tmp/perf.data" ./sandboxrepl --batch \
		    --path=sandbox <"$tmp/$f.txt" >/dev/null 2>&1 &&
		    perf report -i "$tmp/perf.data" --no-children --stdio \
		    --sort dso,sym 2>/dev/null | grep '%' | head -8 || true
		echo
	fi
done
