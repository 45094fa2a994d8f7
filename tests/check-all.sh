#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/check-all.sh - make check-all: every part of the project's checks,
# one after another, their lines as they come:
#
#   host         the host's suite and the programs of make check-all only
#                (tests/run-tests.sh --all BUILD: the qemu kernel matrix,
#                i386, the Debian packages, the ABI guard)
#   sanitizers   the suite under AddressSanitizer + UBSan (SANBUILD)
#   builds       the compile-only builds (make check-builds: gcc -O3,
#                clang, the library alone): one case each
#   fuzz         make fuzz: one case
#
# A part's own closing line is shown as "check-all: PART: N passed, ...";
# the last line is the total of all parts, "N passed, N failed, N
# skipped", and the exit status is 1 if anything failed, 0 otherwise.
#
# Run by the Makefile (MAKE, BUILD, SANBUILD in the environment), from
# the project root.

set -u

MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
SANBUILD=${SANBUILD:-build-san}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mntkit-check-all.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

npass=0
nfail=0
nskip=0
t0=$(date +%s)

# suite PART CMD...: a run of tests/run-tests.sh, shown as it comes; its
# closing line counted and named
suite() {
	local part=$1 line p f s rc
	shift
	echo "check-all: $part started"
	: >"$tmp/counts"
	"$@" 2>&1 | while IFS= read -r line || [ -n "$line" ]; do
		if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
			echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]}" \
				>"$tmp/counts"
			echo "check-all: $part: $line"
		else
			printf '%s\n' "$line"
		fi
	done
	rc=${PIPESTATUS[0]}
	read -r p f s <"$tmp/counts" || { p=0; f=0; s=0; }
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "$part: FAIL $part: exit status $rc without a failed case"
		f=1
	fi
	npass=$((npass + p))
	nfail=$((nfail + f))
	nskip=$((nskip + s))
}

# step PART NAME CMD...: one case NAME of PART, passed when CMD succeeds;
# its output shown when it fails
step() {
	local part=$1 name=$2 t rc
	shift 2
	echo "check-all: $part/$name started"
	t=$(date +%s)
	"$@" >"$tmp/log" 2>&1 </dev/null
	rc=$?
	if [ "$rc" = 0 ]; then
		echo "$part: PASS $name ($(($(date +%s) - t)) s)"
		npass=$((npass + 1))
	else
		echo "$part: FAIL $name: exit status $rc"
		tail -n 60 "$tmp/log" | sed 's/^/    | /'
		nfail=$((nfail + 1))
	fi
}

# the host's suite with make check-all's own programs
suite host bash tests/run-tests.sh --all "$BUILD"

# the sanitizers: the suite again, under ASan + UBSan
step sanitizers build "$MAKE" --no-print-directory sanitize-build \
	SANBUILD="$SANBUILD"
if [ -f "$SANBUILD/build.ninja" ]; then
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		suite sanitizers bash tests/run-tests.sh "$SANBUILD"
fi

# the builds that are compiled only (make check-builds, one at a time)
build_in() {
	"$MAKE" --no-print-directory "$1/build.ninja" && "${NINJA:-ninja}" -C "$1"
}
step builds release build_in "${RELBUILD:-build-release}"
step builds libonly build_in "${LIBBUILD:-build-libonly}"
step builds clang build_in "${CLANGBUILD:-build-clang}"

# fuzzing (libFuzzer for FUZZ_TIME seconds, or a replay of the corpus)
step fuzz fuzz "$MAKE" --no-print-directory fuzz

echo "check-all: all parts ran in $(($(date +%s) - t0)) s"
echo "$npass passed, $nfail failed, $nskip skipped"
[ "$nfail" = 0 ]
