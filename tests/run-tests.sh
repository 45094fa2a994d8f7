#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# run-tests.sh [--all] [-j N] BUILDDIR [FILTER] - run mntkit's test suite.
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
# The programs run N at a time (-j N, else MNTKIT_TEST_JOBS, else the
# number of CPUs plus one: many wait on timers, events and child
# processes), the longest first (the durations of the last run, kept in
# BUILDDIR/tests/run-tests.durations). A program's start is one line
# ("run-tests: NAME started"), its lines starting with "# " (progress
# notes) are shown as they come, and when it ends its case lines are
# shown together, prefixed with its name, then one line with its counts
# and time. A program that exits non-zero (or dies, times out, or prints
# no case at all) without a FAIL line counts as one more failure, but for
# exit status 77 after SKIP lines only (every case skipped). A failed
# program's other output and stderr are shown. With FILTER only the
# programs whose name contains it run.
#
# The programs of $FULL_ONLY (below: the qemu kernels, i386, the Debian
# packages, the ABI guard) run only with --all (make check-all); each can
# also run alone (bash tests/cli/X.sh BUILDDIR). Those of $ALONE run with
# nothing else at the same time.
#
# The last line is "N passed, N failed, N skipped"; the exit status is 1 if
# anything failed, 0 otherwise.
#
# Environment: MNTKIT_TEST_TIMEOUT seconds per program (default 300; a
# long program gets three times its usual time where that is more; in a
# sanitizer build, each limit three times as long), MNTKIT_TEST_JOBS
# programs at a time.

# bash (wait -n, arrays), also when started as `sh tests/run-tests.sh`
if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

set -u

# make check-all's programs: they install big packages (qemu, debhelper,
# lintian, abigail-tools), download kernels or build the tree again, and
# take minutes without testing the host's code paths beyond the rest
FULL_ONLY="cli/qemu.sh cli/i386.sh cli/package.sh cli/abi.sh"

# programs that cannot share the machine, run with nothing else at the
# same time: the qemu guests run under software emulation with a time
# limit per guest sized for the machine (MNTKIT_QEMU_JOBS of them already
# keep the CPUs busy); test-watch, test-emul-churn and test-churn-tree
# make and remove mounts by the thousand and read tables of 100,000
# mounts, each case under a time limit (tests/harness.h's T_TIMEOUT, 60
# s): the kernel serializes every change and read of a mount table, of
# any namespace (namespace_sem), so that the mounts of the programs
# beside them took them past it (2 and 3 times their time alone); and
# cli/i386.sh, which runs the i386 build of those (and of the others)
ALONE="cli/qemu.sh cli/i386.sh test-watch emul/test-emul-churn test-churn-tree"

# the seconds a long program takes in a parallel run on a busy 2-CPU
# machine (any other: at most 30): the order of a first run, and the time
# limit of each (three times this, at least MNTKIT_TEST_TIMEOUT)
DEFAULT_SECONDS="cli/lsmnt.sh 760 cli/lsmnt-df.sh 450 cli/lsmnt-cols.sh 400
	cli/golden.sh 280 test-watch 260 cli/lsmnt-tab.sh 250
	cli/mntwatch-schema.sh 220 cli/statmnt.sh 190 cli/examples.sh 150
	cli/lsmnt-poll.sh 140 cli/mntwatch.sh 120 emul/test-emul-churn 100
	cli/seccomp.sh 100 cli/layers.sh 65 cli/lsmnt-emul.sh 60
	cli/install.sh 55 cli/mntwatch-journal.sh 55 cli/completion.sh 50
	test-churn-tree 40 cli/python.sh 120 cli/lsmnt-filter.sh 120 cli/qemu.sh 900 cli/package.sh 300
	cli/i386.sh 300"

usage() {
	echo "usage: $0 [--all] [-j N] BUILDDIR [FILTER]" >&2
	exit 2
}

all=0
jobs=${MNTKIT_TEST_JOBS:-}
while [ $# -gt 0 ]; do
	case $1 in
	--all) all=1 ;;
	-j) [ $# -ge 2 ] || usage; jobs=$2; shift ;;
	-j*) jobs=${1#-j} ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
	shift
done
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	usage
fi
if [ -z "$jobs" ]; then
	jobs=$(($(nproc 2>/dev/null || echo 1) + 1))
fi
case $jobs in
'' | *[!0-9]* | 0) echo "$0: -j: not a positive number: $jobs" >&2; exit 2 ;;
esac

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
# a sanitizer build (meson's b_sanitize) runs the programs 2 to 4 times
# slower than the times below (cli/lsmnt-filter.sh: 66 s, 281-313 s
# under ASan + UBSan, against a limit of 360 s): its limits are 3 times
# as long
slowdown=1
sanitize=$(grep -o '"name": "b_sanitize", "value": "[^"]*"' \
	"$builddir/meson-info/intro-buildoptions.json" 2>/dev/null |
	sed 's/.*"value": "\([^"]*\)"/\1/')
[ -n "$sanitize" ] && [ "$sanitize" != none ] && slowdown=3
durations=$builddir/tests/run-tests.durations

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mntkit-run.XXXXXX") || exit 2
# shellcheck disable=SC2317 # called by the traps
cleanup() {
	local p
	for p in $(jobs -p); do
		kill -- "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

npass=0
nfail=0
nskip=0
ncpu=0		# CPU seconds of the programs
run_t0=$(date +%s)

if command -v timeout >/dev/null 2>&1; then
	have_timeout=1
else
	have_timeout=0
fi

in_list() {
	case " $2 " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# ---- the programs ----

NAMES=()	# NAME of each program
CMDS=()		# its command, one word per line
declare -A SECS=()

for prog in "$builddir"/tests/test-* "$builddir"/tests/*/test-*; do
	case $prog in
	*.p/*) continue ;;	# meson's object directories hold no programs
	esac
	if [ ! -f "$prog" ] || [ ! -x "$prog" ]; then
		continue
	fi
	NAMES+=("${prog#"$builddir"/tests/}")
	CMDS+=("$prog")
done
if [ -d "$srcdir/tests/cli" ]; then
	for script in "$srcdir"/tests/cli/*.sh; do
		[ -f "$script" ] || continue
		NAMES+=("cli/${script##*/}")
		CMDS+=("bash
tests/cli/${script##*/}
$builddir")
	done
fi

# the durations: the defaults, then those of earlier runs
# shellcheck disable=SC2086 # the words of the list
set -- $DEFAULT_SECONDS
declare -A USUAL=()
while [ $# -ge 2 ]; do
	SECS[$1]=$2
	USUAL[$1]=$2
	shift 2
done
if [ -f "$durations" ]; then
	while read -r n s; do
		[ -n "$s" ] && SECS[$n]=$s
	done <"$durations"
fi

# the selected programs' indexes, the longest first (those of $ALONE
# before all others)
order=()
while read -r _ _ i; do
	order+=("$i")
done < <(for i in "${!NAMES[@]}"; do
	n=${NAMES[$i]}
	case $n in *"$filter"*) ;; *) continue ;; esac
	[ "$all" = 1 ] || ! in_list "$n" "$FULL_ONLY" || continue
	a=1
	in_list "$n" "$ALONE" && a=0
	echo "$a ${SECS[$n]:-30} $i"
done | sort -k1,1n -k2,2nr -k3,3n)

# ---- running one ----

# start I: program I in the background; its stdout in $tmp/I.out (the
# "# " notes also shown now), stderr in $tmp/I.err, exit status, seconds,
# time limit and CPU seconds in $tmp/I.rc
start() {
	local i=$1 name=${NAMES[$1]} limit=$timeout_s usual cmd=()
	mapfile -t cmd <<<"${CMDS[$1]}"
	# a hang, not a slow run: a long program gets three times its time
	# in $DEFAULT_SECONDS; the qemu matrix bounds its own guests
	# (tests/qemu/run.sh): boots under software emulation, two at a
	# time, take longer than a program
	usual=${USUAL[$name]:-0}
	[ "$limit" -lt $((3 * usual)) ] && limit=$((3 * usual))
	[ "$name" = cli/qemu.sh ] && [ "$limit" -lt 1800 ] && limit=1800
	limit=$((limit * slowdown))
	echo "run-tests: $name started"
	(
		t0=$(date +%s)
		# a subshell that waits (no exec), so that the shell's own
		# report of a death by signal goes to the program's stderr
		if [ "$have_timeout" = 1 ]; then
			(cd "$srcdir" && timeout -k 10 "$limit" "${cmd[@]}"
			 rc=$?; exit $rc) >"$tmp/$i.out" 2>"$tmp/$i.err" </dev/null &
		else
			(cd "$srcdir" && "${cmd[@]}"
			 rc=$?; exit $rc) >"$tmp/$i.out" 2>"$tmp/$i.err" </dev/null &
		fi
		p=$!
		# its notes as they come (a file, not a pipe: a process the
		# program leaves behind holds no one up)
		tail -s 0.1 -n +1 -f --pid="$p" "$tmp/$i.out" 2>/dev/null |
			while IFS= read -r line; do
				case $line in
				"# "*) printf '%s: %s\n' "$name" "${line#\# }" ;;
				esac
			done &
		wait "$p"
		rc=$?
		wait
		# the CPU time of the program and its children (the second line
		# of times, not in a pipe's subshell: "0m1.500s 0m0.250s")
		times >"$tmp/$i.times"
		cpu=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
			printf "%.0f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' \
			"$tmp/$i.times")
		echo "$rc $(($(date +%s) - t0)) $limit $cpu" >"$tmp/$i.rc"
	) &
	PIDS[$!]=$i
}

# show a file indented (the last 200 lines of it)
show() {
	if [ -s "$1" ]; then
		tail -n 200 "$1" | sed 's/^/    | /'
	fi
}

# finish I: show program I's lines and account for them
finish() {
	local i=$1 name=${NAMES[$1]} status secs limit cpu p=0 f=0 s=0 line
	read -r status secs limit cpu <"$tmp/$i.rc" || { status=1; secs=0; }
	: >"$tmp/other"
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		"PASS "*) p=$((p + 1)); echo "$name: $line" ;;
		"FAIL "*) f=$((f + 1)); echo "$name: $line" ;;
		"SKIP "*) s=$((s + 1)); echo "$name: $line" ;;
		"# "*) ;;
		*) printf '%s\n' "$line" >>"$tmp/other" ;;
		esac
	done <"$tmp/$i.out"

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
		if [ -s "$tmp/$i.err" ]; then
			echo "  $name: stderr:"
			show "$tmp/$i.err"
		fi
	fi
	echo "run-tests: $name: $p passed, $f failed, $s skipped in $secs s" \
		"(CPU ${cpu:-?} s)"
	# (a program killed at its limit tells nothing of its usual time)
	[ "$status" -eq 124 ] || echo "$name $secs" >>"$tmp/durations"

	npass=$((npass + p))
	nfail=$((nfail + f))
	nskip=$((nskip + s))
	ncpu=$((ncpu + ${cpu:-0}))
}

# wait_one: wait for any running program to end, and finish it
declare -A PIDS=()
wait_one() {
	local pid
	wait -n -p pid
	[ -n "${pid:-}" ] || return 1
	finish "${PIDS[$pid]}"
	unset "PIDS[$pid]"
	return 0
}

# ---- the run ----

if [ "${#order[@]}" -eq 0 ]; then
	if [ -n "$filter" ]; then
		echo "run-tests: FAIL run-tests: no test program matches '$filter'" \
			"(those of make check-all only run with --all)"
	else
		echo "run-tests: FAIL run-tests: no test programs in $builddir/tests"
	fi
	echo "$npass passed, $((nfail + 1)) failed, $nskip skipped"
	exit 1
fi

echo "run-tests: ${#order[@]} programs, $jobs at a time (-j, MNTKIT_TEST_JOBS), the longest first"
pending=("${order[@]}")
while [ "${#pending[@]}" -gt 0 ]; do
	# the first pending program that can start now
	pick=
	if [ "${#PIDS[@]}" -lt "$jobs" ]; then
		for k in "${!pending[@]}"; do
			n=${NAMES[${pending[$k]}]}
			if in_list "$n" "$ALONE"; then
				[ "${#PIDS[@]}" -eq 0 ] && pick=$k
				break
			fi
			pick=$k
			break
		done
	fi
	if [ -z "$pick" ]; then
		wait_one || break
		continue
	fi
	i=${pending[$pick]}
	unset "pending[$pick]"
	start "$i"
	# nothing else while one of $ALONE runs
	in_list "${NAMES[$i]}" "$ALONE" && wait_one
done
while [ "${#PIDS[@]}" -gt 0 ]; do wait_one || break; done

# the durations of this run replace those of earlier ones
if [ -f "$tmp/durations" ] && [ -w "$builddir/tests" ]; then
	{
		[ -f "$durations" ] && cat "$durations"
		cat "$tmp/durations"
	} | awk '{ s[$1] = $2 } END { for (n in s) print n, s[n] }' |
		sort >"$durations.new" && mv "$durations.new" "$durations"
fi

echo "run-tests: ${#order[@]} programs ran in $(($(date +%s) - run_t0)) s (CPU $ncpu s)"
echo "$npass passed, $nfail failed, $nskip skipped"
if [ "$nfail" -ne 0 ]; then
	exit 1
fi
exit 0
