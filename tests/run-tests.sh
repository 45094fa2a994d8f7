#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# run-tests.sh BUILDDIR [FILTER] - run mntkit's whole test suite.
#
# Runs every test program BUILDDIR/tests/test-* (and BUILDDIR/tests/*/test-*,
# the programs of subdirectories such as tests/emul/) and every tests/cli/*.sh
# (as `bash tests/cli/X.sh ABS_BUILDDIR`, from the project root). Each
# prints one line per case:
#
#	PASS <name>
#	FAIL <name>: <reason>
#	SKIP <name>: <reason>
#
# The lines are echoed prefixed with the program's name and counted. A
# program that exits non-zero (or dies, times out, or prints no case at all)
# without a FAIL line counts as one more failure, but for exit status 77
# after SKIP lines only (every case skipped). A failed program's stderr
# is shown. With FILTER only the programs whose name contains it run.
#
# The last line is "N passed, N failed, N skipped"; the exit status is 1 if
# anything failed, 0 otherwise.
#
# Environment: MNTKIT_TEST_TIMEOUT seconds per program (default 300).

set -u

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 BUILDDIR [FILTER]" >&2
	exit 2
fi

srcdir=$(cd "$(dirname "$0")/.." && pwd) || exit 2
case $1 in
/*) builddir=$1 ;;
*) builddir=$(pwd)/$1 ;;
esac
if [ ! -d "$builddir" ]; then
	echo "$0: no build directory $builddir" >&2
	exit 2
fi
builddir=$(cd "$builddir" && pwd) || exit 2
filter=${2:-}
timeout_s=${MNTKIT_TEST_TIMEOUT:-300}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mntkit-run.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

npass=0
nfail=0
nskip=0
nprog=0

if command -v timeout >/dev/null 2>&1; then
	have_timeout=1
else
	have_timeout=0
fi

# show a file indented (the last 200 lines of it)
show() {
	if [ -s "$1" ]; then
		tail -n 200 "$1" | sed 's/^/    | /'
	fi
}

# run_prog NAME CMD... : run one program and account for its lines
run_prog() {
	name=$1
	shift
	# the qemu matrix bounds its own guests (tests/qemu/run.sh): boots
	# under software emulation, two at a time, take longer than a program
	limit=$timeout_s
	[ "$name" = cli/qemu.sh ] && [ "$limit" -lt 1800 ] && limit=1800
	nprog=$((nprog + 1))
	out=$tmp/out
	err=$tmp/err
	# a subshell that waits (no exec), so that the shell's own report of
	# a death by signal goes to the program's stderr file
	if [ "$have_timeout" = 1 ]; then
		(cd "$srcdir" && timeout -k 10 "$limit" "$@"
		 rc=$?; exit $rc) >"$out" 2>"$err" </dev/null
	else
		(cd "$srcdir" && "$@"
		 rc=$?; exit $rc) >"$out" 2>"$err" </dev/null
	fi
	status=$?

	p=0
	f=0
	s=0
	: >"$tmp/other"
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		"PASS "*)
			p=$((p + 1))
			echo "$name: $line"
			;;
		"FAIL "*)
			f=$((f + 1))
			echo "$name: $line"
			;;
		"SKIP "*)
			s=$((s + 1))
			echo "$name: $line"
			;;
		*)
			printf '%s\n' "$line" >>"$tmp/other"
			;;
		esac
	done <"$out"

	if [ "$f" -eq 0 ]; then
		if [ "$status" -eq 124 ] && [ "$have_timeout" = 1 ]; then
			echo "$name: FAIL $name: timed out after ${limit}s"
			f=1
		elif [ "$status" -eq 77 ] && [ "$p" -eq 0 ] && [ "$s" -gt 0 ]; then
			: # every case skipped (the harness's exit 77); each said why
		elif [ "$status" -ne 0 ]; then
			if [ "$status" -gt 128 ]; then
				echo "$name: FAIL $name: exit status $status" \
					"(signal $((status - 128)))"
			else
				echo "$name: FAIL $name: exit status $status"
			fi
			f=1
		elif [ $((p + s)) -eq 0 ]; then
			echo "$name: FAIL $name: printed no test result"
			f=1
		fi
	fi

	if [ "$f" -ne 0 ]; then
		if [ -s "$tmp/other" ]; then
			echo "  $name: other output:"
			show "$tmp/other"
		fi
		if [ -s "$err" ]; then
			echo "  $name: stderr:"
			show "$err"
		fi
	fi

	npass=$((npass + p))
	nfail=$((nfail + f))
	nskip=$((nskip + s))
}

matches() {
	case $1 in
	*"$filter"*) return 0 ;;
	esac
	return 1
}

# test programs of tests/ and of its subdirectories (tests/emul/, ...);
# meson's object directories (*.p) hold no programs
for prog in "$builddir"/tests/test-* "$builddir"/tests/*/test-*; do
	case $prog in
	*.p/*) continue ;;
	esac
	[ -f "$prog" ] && [ -x "$prog" ] || continue
	name=${prog#"$builddir"/tests/}
	matches "$name" || continue
	run_prog "$name" "$prog"
done

if [ -d "$srcdir/tests/cli" ]; then
	for script in "$srcdir"/tests/cli/*.sh; do
		[ -f "$script" ] || continue
		name=cli/${script##*/}
		matches "$name" || continue
		run_prog "$name" bash "tests/cli/${script##*/}" "$builddir"
	done
fi

if [ "$nprog" -eq 0 ]; then
	if [ -n "$filter" ]; then
		echo "run-tests: FAIL run-tests: no test program matches '$filter'"
	else
		echo "run-tests: FAIL run-tests: no test programs in $builddir/tests"
	fi
	nfail=$((nfail + 1))
fi

echo "$npass passed, $nfail failed, $nskip skipped"
if [ "$nfail" -ne 0 ]; then
	exit 1
fi
exit 0
