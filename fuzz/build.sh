#!/bin/sh
# fuzz/build.sh -- build the libFuzzer targets (called by `make fuzz`).
#
#   fuzz/build.sh SRCDIR BUILDDIR
#
# The core library is compiled again, from the sources, with clang and the
# same sanitizers as the targets (libFuzzer needs its coverage hooks in the
# code it explores), into BUILDDIR/fuzz/obj; the targets land in
# BUILDDIR/fuzz.  BUILDDIR must hold the configured config.h.  CLANG and
# FUZZ_CFLAGS may be overridden from the environment.
set -eu
srcdir=${1:?usage: build.sh SRCDIR BUILDDIR}
builddir=${2:?usage: build.sh SRCDIR BUILDDIR}
CLANG=${CLANG:-clang}
FUZZ_CFLAGS=${FUZZ_CFLAGS:--O1 -g -fno-omit-frame-pointer}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
PKGS="gmp jansson libseccomp libssl libcrypto"
# The CPython worlds, when configure found libpython (config.h says so).
with_python=
if grep -q "define HAVE_PYTHON 1" "$builddir/config.h"; then
	PKGS="$PKGS python3-embed"
	with_python=yes
fi

if ! command -v "$CLANG" >/dev/null 2>&1; then
	echo "build.sh: $CLANG not found; the fuzz targets need clang" >&2
	exit 1
fi
cflags="-std=gnu11 $FUZZ_CFLAGS $SAN -I$builddir -I$srcdir/src $(pkg-config --cflags $PKGS)"
libs="$(pkg-config --libs $PKGS) -lm"
out=$builddir/fuzz
mkdir -p "$out/obj"

objs=
for c in "$srcdir"/src/*/*.c; do
	# (the files Makefile.am builds only with libpython)
	case $c in
	# (the program's stand-in for pyrun.c and fakenet.c, which are
	# linked here)
	*/world/pymod.c) continue ;;
	# (the microVM guest's init: a program of its own, built static)
	*/world/microvm_init.c) continue ;;
	*/world/cpython.c | */world/gvisor.c | */world/pyrun.c | */world/replica.c | \
	*/world/zygote.c | */world/microvm.c | */world/bundle.c)
		[ -n "$with_python" ] || continue ;;
	esac
	# (named with their folder: src/sandbox/budget.c and
	# src/world/budget.c are two files)
	d=$(basename "$(dirname "$c")")
	o=$out/obj/${d}_$(basename "$c" .c).o
	if [ ! -f "$o" ] || [ "$c" -nt "$o" ] || [ "$builddir/config.h" -nt "$o" ]; then
		echo "  CC (fuzz) $(basename "$c")"
		$CLANG $cflags -fsanitize=fuzzer-no-link -c "$c" -o "$o"
	fi
	objs="$objs $o"
done
for t in "$srcdir"/fuzz/fuzz_*.c; do
	name=$(basename "$t" .c)
	echo "  CCLD (fuzz) $name"
	$CLANG $cflags -fsanitize=fuzzer "$t" $objs $libs -o "$out/$name"
done
