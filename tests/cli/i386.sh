#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/i386.sh ABS_BUILDDIR - the library and its C tests as i386
# programs (gcc -m32: tests/cross/i386.ini), run on this 64-bit kernel
# through its compat system calls (IA32 emulation). The build directory is
# ABS_BUILDDIR-i386 (made here, kept; no tools: they need libsmartcols and
# libblkid, which the i386 build does without). Every line of the i386
# test programs is relayed prefixed: `PASS i386/test-abi/CASE`.
#
# It prints one `SKIP i386: <reason>` line when it cannot run here: not an
# x86-64 kernel, no IA32 emulation, no gcc -m32 (gcc-multilib), or a
# sanitizer build (the i386 programs are the plain build's code).

set -u

if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: bash $0 ABS_BUILDDIR" >&2
	exit 2
fi
SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd) || exit 2
BUILDDIR=$1
OUT=${BUILDDIR%/}-i386

skip() {
	echo "SKIP i386: $*"
	exit 0
}

sanitize=$(grep -o '"name": "b_sanitize", "value": "[^"]*"' \
	"$BUILDDIR/meson-info/intro-buildoptions.json" 2>/dev/null |
	sed 's/.*"value": "\([^"]*\)"/\1/')
if [ -n "$sanitize" ] && [ "$sanitize" != none ]; then
	skip "sanitizer build (b_sanitize=$sanitize): run it on the plain build"
fi
case $(uname -m) in
x86_64) ;;
*) skip "needs an x86-64 kernel (this is $(uname -m))" ;;
esac
for c in gcc meson ninja; do
	command -v "$c" >/dev/null 2>&1 || skip "no $c"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mntkit-i386.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

printf '#include <stdio.h>\nint main(void){return puts("i386") < 0;}\n' \
	>"$tmp/t.c"
if ! gcc -m32 -pthread -o "$tmp/t" "$tmp/t.c" >"$tmp/cc.log" 2>&1; then
	skip "gcc -m32 cannot link (gcc-multilib missing?): $(tail -n 1 "$tmp/cc.log")"
fi
if ! "$tmp/t" >/dev/null 2>&1; then
	skip "this kernel does not run i386 programs (no IA32 emulation): tests/cli/qemu.sh runs them in the newest guest (qemu-VERSION/i386/PROG)"
fi

if [ ! -f "$OUT/build.ninja" ]; then
	if ! meson setup "$OUT" "$SRCDIR" \
		--cross-file "$SRCDIR/tests/cross/i386.ini" \
		-Dtools=false -Dwerror=true >"$tmp/setup.log" 2>&1; then
		echo "FAIL i386/build: meson setup $OUT failed"
		tail -n 40 "$tmp/setup.log" | sed 's/^/    | /' >&2
		rm -rf "$OUT"
		exit 1
	fi
fi
if ! ninja -C "$OUT" >"$tmp/build.log" 2>&1; then
	echo "FAIL i386/build: the i386 build failed"
	tail -n 60 "$tmp/build.log" | sed 's/^/    | /' >&2
	exit 1
fi

# the i386 programs' own run: "NAME: PASS CASE" lines, the details of a
# failure indented, and a count line
sh "$SRCDIR/tests/run-tests.sh" "$OUT" test- >"$tmp/run.log" 2>&1
rc=$?
sed -n 's/^\([^ :]*\): \(PASS\|FAIL\|SKIP\) \(.*\)$/\2 i386\/\1\/\3/p' \
	"$tmp/run.log" | sed 's,^\(PASS\|FAIL\|SKIP\) i386/\([^/]*\)/\2: ,\1 i386/\2: ,'
grep -v -E '^[^ :]+: (PASS|FAIL|SKIP) |^[0-9]+ passed, ' "$tmp/run.log" >&2
exit "$rc"
