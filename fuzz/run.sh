#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# fuzz/run.sh FUZZBUILD [SECONDS] - "make fuzz": run the libFuzzer target
# (fuzz/fuzz-mountinfo.c: the mountinfo parser, unescaping and ID index)
# for SECONDS (default 45) under AddressSanitizer + UBSan, starting from the
# committed corpus, and fail on any crash, leak, sanitizer report or
# timeout.
#
# The target is built with clang -fsanitize=fuzzer in its own build
# directory FUZZBUILD (meson, CC=clang). The corpus is copied to a temporary
# directory first, so the inputs libFuzzer adds never dirty the tree; a
# crashing input is kept in FUZZBUILD/fuzz-artifacts/ and named in the
# output (add it to fuzz/corpus/ once fixed).
#
# Without libFuzzer (no clang, or no clang runtime: Debian's
# libclang-rt-dev), it says so and replays the committed corpus through the
# same target instead (the driver fuzz/replay.c, built by gcc or clang, also
# under the sanitizers), which fails on a crash just the same.
#
# Environment: MESON, NINJA (as the Makefile's), FUZZ_JOBS (libFuzzer
# -jobs, default 1), FUZZ_TARGET (fuzz-mountinfo, the default;
# fuzz-tab: the table-file reader, lib/tab.c, from fuzz/corpus-tab/;
# fuzz-expr: lsmnt's filter expressions, tools/lsmnt/expr*.c, from
# fuzz/corpus-expr/).
set -eu

fbuild=${1:-build-fuzz}
secs=${2:-45}
MESON=${MESON:-meson}
NINJA=${NINJA:-ninja}
jobs=${FUZZ_JOBS:-1}
target=${FUZZ_TARGET:-fuzz-mountinfo}
case $target in
fuzz-mountinfo) corpus=corpus ;;
fuzz-tab) corpus=corpus-tab ;;
fuzz-expr) corpus=corpus-expr ;;
*)
	echo "fuzz: FUZZ_TARGET must be fuzz-mountinfo, fuzz-tab or fuzz-expr" >&2
	exit 2
	;;
esac
src=$(cd "$(dirname "$0")/.." && pwd)

case $fbuild in
/*) ;;
*) fbuild=$(pwd)/$fbuild ;;
esac

case $secs in
'' | *[!0-9]*)
	echo "fuzz: SECONDS must be a number, not '$secs'" >&2
	exit 2
	;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mntkit-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# can clang build and link a libFuzzer program here?
have_libfuzzer() {
	command -v clang >/dev/null 2>&1 || return 1
	cat >"$tmp/probe.c" <<'EOF'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{ (void)d; (void)n; return 0; }
EOF
	clang -fsanitize=fuzzer,address,undefined "$tmp/probe.c" \
		-o "$tmp/probe" >"$tmp/probe.log" 2>&1
}

# the compiler a meson build directory was set up with
build_compiler() {
	python3 - "$1" <<'EOF' 2>/dev/null || true
import json, sys
try:
    for c in json.load(open(sys.argv[1] + "/meson-info/intro-compilers.json"))["host"].values():
        print(c["id"]); break
except Exception:
    pass
EOF
}

# set up (or re-set up) FUZZBUILD with the compiler $1 and the sanitizers
setup_build() {
	cc=$1
	if [ -f "$fbuild/build.ninja" ] &&
		[ "$(build_compiler "$fbuild")" = "$cc" ]; then
		return 0
	fi
	rm -rf "$fbuild"
	CC=$cc $MESON setup "$fbuild" -Dwerror=true -Db_sanitize=address,undefined \
		-Db_lundef=false -Dbuildtype=debugoptimized >"$tmp/setup.log" 2>&1 || {
		cat "$tmp/setup.log" >&2
		echo "fuzz: meson setup $fbuild failed" >&2
		exit 1
	}
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

mkdir "$tmp/corpus"
cp "$src"/fuzz/"$corpus"/* "$tmp/corpus/"

if ! have_libfuzzer; then
	echo "fuzz: libFuzzer is not available (clang -fsanitize=fuzzer:" \
		"$(tail -n 1 "$tmp/probe.log" 2>/dev/null | grep . || echo fails))"
	echo "fuzz: install clang and libclang-rt-dev for it; replaying the" \
		"committed corpus instead"
	cc=gcc
	if command -v clang >/dev/null 2>&1 &&
		clang -c "$tmp/probe.c" -o "$tmp/probe.o" >/dev/null 2>&1; then
		cc=clang
	fi
	setup_build "$cc"
	$NINJA -C "$fbuild" fuzz/"$target" >"$tmp/build.log" 2>&1 || {
		cat "$tmp/build.log" >&2
		exit 1
	}
	"$fbuild/fuzz/$target" "$src/fuzz/$corpus"
	echo "fuzz: corpus replay passed ($(ls "$src/fuzz/$corpus" | wc -l) inputs)"
	exit 0
fi

build_target() {
	$NINJA -C "$fbuild" fuzz/"$target" >"$tmp/build.log" 2>&1 || {
		cat "$tmp/build.log" >&2
		echo "fuzz: building the fuzz target failed" >&2
		exit 1
	}
}

bin=$fbuild/fuzz/$target
setup_build clang
build_target
# a build directory set up before the clang runtime was there holds the
# replay driver (fuzz/meson.build decided once): set it up again
if ! "$bin" -help=1 2>&1 | grep -q libFuzzer; then
	rm -rf "$fbuild"
	setup_build clang
	build_target
fi
art=$fbuild/fuzz-artifacts
mkdir -p "$art"

echo "fuzz: $bin for ${secs}s from $(ls "$tmp/corpus" | wc -l) committed inputs"
rc=0
par=
# libFuzzer's workers write fuzz-N.log into the current directory
[ "$jobs" -gt 1 ] && par="-jobs=$jobs -workers=$jobs"
(cd "$tmp" && "$bin" -max_total_time="$secs" -timeout=10 \
	-rss_limit_mb=2048 -max_len=65536 $par -print_final_stats=1 \
	-artifact_prefix="$art/" corpus) >"$tmp/fuzz.log" 2>&1 || rc=$?
cat "$tmp"/fuzz-*.log >>"$tmp/fuzz.log" 2>/dev/null || true
if [ $rc -ne 0 ]; then
	tail -n 60 "$tmp/fuzz.log"
	echo "fuzz: FAILED (exit $rc); the input is in $art/:" >&2
	ls -t "$art" | head -n 5 | sed "s|^|  $art/|" >&2
	exit 1
fi
grep -E '^(stat::|Done )' "$tmp/fuzz.log" || tail -n 3 "$tmp/fuzz.log"
echo "fuzz: passed ($(ls "$tmp/corpus" | wc -l) inputs in the working corpus," \
	"none added to the tree)"
