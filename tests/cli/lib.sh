# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# tests/cli/lib.sh - helpers for the CLI tests (tests/cli/*.sh).
#
# A CLI test script is run as `bash tests/cli/X.sh ABS_BUILDDIR` from the
# project root. It sources this file, calls cli_init "$1", runs its cases
# and ends with cli_done. Every case prints exactly one line:
#
#	PASS <name>
#	FAIL <name>: <reason>
#	SKIP <name>: <reason>
#
# and the script exits 1 if any case failed, 0 otherwise.
#
# What this file gives:
#   pass NAME / fail NAME REASON / skip NAME REASON
#   cli_init BUILDDIR      sets BUILDDIR, SRCDIR, CLI_TMP (removed at exit;
#                          kept from the caller with CLI_TMP_INHERIT=1)
#   cli_done               exit status from the cases (1: one failed; 77:
#                          every case skipped; else 0)
#   run CMD...             runs CMD; sets RC, and OUT / ERR (file names)
#   expect_error NAME WORD [USAGE] CMD...
#                          asserts exit status 1, empty stdout, one stderr
#                          line "PROG: ...WORD...", plus the usage line when
#                          USAGE is "usage" (use "-" otherwise); PROG is
#                          $CLI_PROG, else the name of CMD
#   py_case NAME [CASE [ARG...]]
#                          runs the Python case CASE (default NAME) of the
#                          script's own tests/cli/py/SCRIPT.py (SCRIPT the
#                          name of the .sh, '-' made '_'; $CLI_PY) as one
#                          case: exit 0 PASS, 77 SKIP, else FAIL; the
#                          reason is the case's last output line
#   py_run NAME CMD...     the same for any command CMD
#   expect_help NAME CMD USAGE OPTION...
#                          asserts CMD --help exits 0, stderr empty, first
#                          line matching the grep pattern USAGE, and every
#                          OPTION named
#   expect_version NAME CMD
#                          asserts CMD -V prints "$CLI_PROG (mntkit) V",
#                          V the version in meson.build
#   expect_write_error NAME CMD...
#                          asserts CMD with stdout on /dev/full exits 1
#                          with one stderr line "$CLI_PROG: write error: ..."
#                          (SKIP without /dev/full)
#   mount_tree PREFIX DIR...
#                          the test mount tree of statmnt's and lsmnt's
#                          namespace cases, in $T (exported)
#   start_other_ns SOURCE  a second mount namespace with a tmpfs SOURCE on
#                          $T/o; sets and exports OTHER_PID and OTHER_T
#   ns_root_prefix         the caller's root as a process at its mount
#                          namespace's root names it ("" unless a chroot)
#   stop_bg PID            kills and reaps a background process
#   cli_main SETUP WHY "${2:-}"
#                          the main part of a tool's script: runs the cases
#                          of $plain_cases, then those of $ns_cases in a
#                          private mount namespace
#   mntkit_py CMD [ARG...] a command of the shared Python module (below)
#   mount_source SRC DIR   a tmpfs with the source SRC as given on DIR
#   unshare_private [--pid] CMD...
#                          CMD in a new mount namespace of private mounts
#                          (also in a chroot whose root is no mount point)
#   is_root, have_cmd CMD, can_unshare_mount
#
# The Python of the tests is in tests/cli/py/: a file per script, one
# function per case, and the module they share, mntkit_test.py (the
# kernel's answers through raw system calls and /proc, never through
# libmntkit; the run of a tool; lsmnt against findmnt). tests/cli/python.sh
# byte-compiles and lints them.

cli_failed=0
cli_cases=0
cli_skips=0
cli_inner= # the cases run in a private namespace: "", "ran" or "skipped"

pass() {
	cli_cases=$((cli_cases + 1))
	printf 'PASS %s\n' "$1"
}

fail() {
	cli_cases=$((cli_cases + 1))
	cli_failed=1
	# one line, whatever the reason holds
	printf 'FAIL %s: %s\n' "$1" "$(printf '%s' "$2" | tr '\n' ' ')"
}

skip() {
	cli_cases=$((cli_cases + 1))
	cli_skips=$((cli_skips + 1))
	printf 'SKIP %s: %s\n' "$1" "$(printf '%s' "$2" | tr '\n' ' ')"
}

is_root() {
	[ "$(id -u)" = 0 ]
}

have_cmd() {
	command -v "$1" >/dev/null 2>&1
}

can_unshare_mount() {
	is_root && have_cmd unshare && unshare_private true 2>/dev/null
}

# unshare_private [--pid] CMD [ARG...]: CMD in a new mount namespace whose
# mounts are all private, as `unshare -m --propagation private CMD` (with
# --pid, in a PID namespace of its own with its own /proc, as `unshare
# --pid --fork --mount-proc`), also in a chroot whose root is no mount
# point, where unshare's own setting of "/" is EINVAL
# (tests/cli/in-private-ns). Exit 125 when the namespace cannot be set up.
# A process started in the background whose PID ($!) must be the
# namespace's runs "${UNSHARE_PRIVATE[@]}" CMD... (no shell function
# between).
unshare_private() {
	if [ "$1" = --pid ]; then
		shift
		unshare -m --propagation unchanged --pid --fork \
			bash "$SRCDIR/tests/cli/in-private-ns" --proc "$@"
		return
	fi
	"${UNSHARE_PRIVATE[@]}" "$@"
}

cli_cleanup() {
	[ -n "${CLI_TMP:-}" ] && [ -d "$CLI_TMP" ] && rm -rf "$CLI_TMP"
}

cli_init() {
	if [ $# -lt 1 ] || [ -z "$1" ]; then
		echo "usage: bash $0 ABS_BUILDDIR" >&2
		exit 2
	fi
	BUILDDIR=$1
	SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	# (bash: it keeps the functions a caller exports, as python.sh's)
	UNSHARE_PRIVATE=(unshare -m --propagation unchanged
		bash "$SRCDIR/tests/cli/in-private-ns")
	# a script re-run by itself (e.g. in a new mount namespace) passes
	# CLI_TMP_INHERIT=1 and keeps its parent's directory
	if [ "${CLI_TMP_INHERIT:-}" != 1 ] || [ ! -d "${CLI_TMP:-}" ]; then
		CLI_TMP=$(mktemp -d "${TMPDIR:-/tmp}/mntkit-cli.XXXXXX") ||
			exit 2
		trap cli_cleanup EXIT
	fi
	unset CLI_TMP_INHERIT
	export BUILDDIR SRCDIR CLI_TMP
	# findmnt and lsmnt (libblkid) write libblkid's cache when run as
	# root: a private one, so that no test writes /run/blkid/blkid.tab
	BLKID_FILE=$CLI_TMP/blkid.tab
	export BLKID_FILE
	CLI_PY=$SRCDIR/tests/cli/py/$(basename "$0" .sh | tr - _).py
	# the Python of the cases: Debian's /usr/bin/python3, for which the
	# Makefile installs the modules the cases use (jsonschema, pyflakes,
	# pytest) and meson builds the extension; else python3, its program
	# found once (a version manager's shim in front of it can take a
	# second a start)
	if [ -z "${MNTKIT_PYTHON:-}" ] && [ -x /usr/bin/python3 ]; then
		MNTKIT_PYTHON=/usr/bin/python3
	elif [ -z "${MNTKIT_PYTHON:-}" ]; then
		MNTKIT_PYTHON=$(python3 "$SRCDIR/tests/cli/py/mntkit_test.py" \
			executable 2>/dev/null) || MNTKIT_PYTHON=python3
	fi
	export MNTKIT_PYTHON
	# the shared module for any Python; its compiled form in CLI_TMP,
	# never in the source tree
	export PYTHONPATH="$SRCDIR/tests/cli/py${PYTHONPATH:+:$PYTHONPATH}"
	export PYTHONPYCACHEPREFIX=$CLI_TMP/pycache
	OUT=$CLI_TMP/out
	ERR=$CLI_TMP/err
}

# use_findmnt: the reference of the cases that compare lsmnt with findmnt,
# findmnt 2.42 (lsmnt follows it), in $MNTKIT_FINDMNT: from
# scripts/findmnt-suite.sh (BUILDDIR/findmnt-cache; its line on stderr
# when it fetches), empty when it cannot be had here (those cases SKIP)
use_findmnt() {
	if [ -z "${MNTKIT_FINDMNT:-}" ]; then
		MNTKIT_FINDMNT=$(sh "$SRCDIR/scripts/findmnt-suite.sh" sid \
			"$BUILDDIR/findmnt-cache") || MNTKIT_FINDMNT=
	fi
	export MNTKIT_FINDMNT
}

# exit 1 if a case failed; 77 if every case skipped (those run in the
# private namespace too), so that a fully skipped script is never taken
# for a pass; 0 otherwise
cli_done() {
	[ "$cli_failed" = 0 ] || exit 1
	if [ "$cli_skips" = "$cli_cases" ] && [ "$cli_inner" != ran ] &&
		{ [ "$cli_cases" -gt 0 ] || [ "$cli_inner" = skipped ]; }; then
		exit 77
	fi
	exit 0
}

run() {
	"$@" >"$OUT" 2>"$ERR"
	RC=$?
}

# expect_error NAME WORD USAGE CMD... (see above)
expect_error() {
	local name=$1 word=$2 usage=$3 prog lines first
	shift 3
	prog=${CLI_PROG:-${1##*/}}
	run "$@"
	lines=$(wc -l <"$ERR")
	first=$(head -n 1 "$ERR")
	if [ "$RC" != 1 ]; then
		fail "$name" "exit status $RC, expected 1"
	elif [ -s "$OUT" ]; then
		fail "$name" "stdout not empty: $(head -c 200 "$OUT")"
	elif [ "${first#"$prog: "}" = "$first" ]; then
		fail "$name" "stderr does not start with '$prog: ': $first"
	elif [[ $first != *"$word"* ]]; then
		fail "$name" "stderr does not name '$word': $first"
	elif [ "$usage" = usage ] && { [ "$lines" != 2 ] ||
		! sed -n 2p "$ERR" | grep -q "^usage: $prog "; }; then
		fail "$name" "expected the error and the usage line: $(cat "$ERR")"
	elif [ "$usage" != usage ] && [ "$lines" != 1 ]; then
		fail "$name" "expected one stderr line, got $lines: $(cat "$ERR")"
	else
		pass "$name"
	fi
}

# mntkit_py COMMAND [ARG...]: a command of the shared module (tests/cli/
# py/mntkit_test.py): native (exit 0 when the native backend serves),
# executable (its Python's program), json_is FILE JSON, build_options
# NAME... (meson introspect's JSON on stdin), mount_source SRC DIR
mntkit_py() {
	"$MNTKIT_PYTHON" "$SRCDIR/tests/cli/py/mntkit_test.py" "$@"
}

# mount_source SRC DIR: a tmpfs whose source is SRC as given (mount(8)
# would evaluate a LABEL= or UUID= tag) on DIR
mount_source() {
	mntkit_py mount_source "$1" "$2"
}

py_case() {
	py_run "$1" "$MNTKIT_PYTHON" "$CLI_PY" "${2:-$1}" "${@:3}"
}

py_run() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1 </dev/null)
	rc=$?
	case $rc in
	0) pass "$name" ;;
	77) skip "$name" "$(printf '%s\n' "$out" | tail -n 1)" ;;
	*) fail "$name" "$(printf '%s\n' "$out" | tail -n 1)" ;;
	esac
}

# expect_help NAME CMD USAGE OPTION... (see above)
expect_help() {
	local name=$1 cmd=$2 usage=$3 opt
	shift 3
	run "$cmd" --help
	if [ "$RC" != 0 ] || [ -s "$ERR" ]; then
		fail "$name" "exit $RC, stderr: $(cat "$ERR")"
		return
	elif ! head -n 1 "$OUT" | grep -q "$usage"; then
		fail "$name" "no usage line: $(head -n 1 "$OUT")"
		return
	fi
	for opt; do
		if ! grep -q -- "$opt" "$OUT"; then
			fail "$name" "options not described"
			return
		fi
	done
	pass "$name"
}

# expect_version NAME CMD (see above)
expect_version() {
	local name=$1 want
	want=$(sed -n "s/^ *version *: *'\([0-9.]*\)'.*/\1/p" \
		"$SRCDIR/meson.build" | head -n 1)
	run "$2" -V
	if [ "$RC" != 0 ] || [ "$(cat "$OUT")" != "$CLI_PROG (mntkit) $want" ]; then
		fail "$name" "exit $RC, got '$(cat "$OUT")', want version $want"
	else
		pass "$name"
	fi
}

# expect_write_error NAME CMD... (see above)
expect_write_error() {
	local name=$1 rc
	shift
	if [ ! -w /dev/full ]; then
		skip "$name" "no /dev/full"
		return
	fi
	"$@" >/dev/full 2>"$ERR"
	rc=$?
	if [ "$rc" != 1 ] || ! grep -q "^$CLI_PROG: write error: " "$ERR" ||
		[ "$(wc -l <"$ERR")" != 1 ]; then
		fail "$name" "exit $rc, stderr: $(cat "$ERR")"
	else
		pass "$name"
	fi
}

# mount_tree PREFIX DIR...: the mounts statmnt's and lsmnt's namespace
# cases share. T=$CLI_TMP/t (exported) gets a tmpfs PREFIX-top
# (size=1m,mode=750) with the directories a b c n p q u and DIR...
# (names below $T), and in it: a tmpfs PREFIX-a (size=512k,nr_inodes=64)
# on a with a tmpfs PREFIX-deep on a/sub/x; a bind of a/sub on b; a
# read-only bind of a on c; a tmpfs PREFIX-n (nosuid,nodev,noexec,
# noatime) on n; a shared tmpfs PREFIX-p on p with a slave bind of it on
# q; an unbindable tmpfs PREFIX-u on u. Returns 1 if a step fails.
# chroot_fill ROOT: what a tool of the build needs to run in a chroot at
# ROOT: the system's program and library directories (bound, or their
# symlinks), /proc and the build directory
chroot_fill() {
	local d
	for d in /usr /bin /lib /lib64 /sbin /proc; do
		if [ -L "$d" ]; then
			ln -s "$(readlink "$d")" "$1$d" || return 1
		elif [ -d "$d" ]; then
			mkdir -p "$1$d" && mount --rbind "$d" "$1$d" || return 1
		fi
	done
	mkdir -p "$1$BUILDDIR" && mount --bind "$BUILDDIR" "$1$BUILDDIR"
}

mount_tree() {
	local prefix=$1 d dirs=()
	shift
	T=$CLI_TMP/t
	export T
	for d in a b c n p q u "$@"; do
		dirs+=("$T/$d")
	done
	mkdir -p "$T" || return 1
	mount -t tmpfs -o size=1m,mode=750 "$prefix-top" "$T" || return 1
	mkdir "${dirs[@]}" || return 1
	mount -t tmpfs -o size=512k,nr_inodes=64 "$prefix-a" "$T/a" &&
		mkdir -p "$T/a/sub/x" &&
		mount -t tmpfs "$prefix-deep" "$T/a/sub/x" &&
		mount --bind "$T/a/sub" "$T/b" &&
		mount --bind "$T/a" "$T/c" &&
		mount -o remount,bind,ro "$T/c" &&
		mount -t tmpfs -o nosuid,nodev,noexec,noatime "$prefix-n" "$T/n" &&
		mount -t tmpfs "$prefix-p" "$T/p" &&
		mount --make-shared "$T/p" &&
		mount --bind "$T/p" "$T/q" &&
		mount --make-slave "$T/q" &&
		mount -t tmpfs "$prefix-u" "$T/u" &&
		mount --make-unbindable "$T/u"
}

# ns_root_prefix: the caller's root directory as a process at its mount
# namespace's root names it: empty where the two are the same (a host, a
# container), /srv/jail in a chroot at /srv/jail. setns(2) into a mount
# namespace (nsenter --mount) moves a process's root to the namespace's
# root: from there, the old root (nsenter's --wd, opened before) is a
# path. Needs root; returns 1 when it cannot tell.
ns_root_prefix() {
	local r
	r=$(nsenter --mount=/proc/self/ns/mnt --wd=/ pwd -P) || return 1
	[ "$r" = / ] || printf '%s' "$r"
}

# start_other_ns SOURCE: in the background, a process in a new private
# mount namespace that mounts a tmpfs named SOURCE on $T/o (which must
# exist) and sleeps at the namespace's root, as a container's process
# (in a chroot, the kernel names a foreign namespace's mounts from its
# root, and the process's mountinfo shows them so too). Sets and exports
# OTHER_PID, its PID (end it with stop_bg), and OTHER_T, $T as that
# process names it ($T but in a chroot); waits up to 5 s for the mount
# to show in its mountinfo; returns non-zero if it does not.
start_other_ns() {
	OTHER_T=$(ns_root_prefix)$T || return 1
	export OTHER_T
	# shellcheck disable=SC2016 # $T and $1 are expanded by the inner shell
	"${UNSHARE_PRIVATE[@]}" sh -c \
		'mount -t tmpfs "$1" "$T/o" &&
		exec nsenter --mount=/proc/self/ns/mnt sleep 120' sh "$1" &
	OTHER_PID=$!
	export OTHER_PID
	for _ in $(seq 100); do
		other_ns_ready "$1" && break
		sleep 0.05
	done
	other_ns_ready "$1"
}

# other_ns_ready SOURCE: start_other_ns's process sleeps, its mount shown
other_ns_ready() {
	[ "$(cat "/proc/$OTHER_PID/comm" 2>/dev/null)" = sleep ] &&
		grep -q -- "$1" "/proc/$OTHER_PID/mountinfo" 2>/dev/null
}

# stop_bg PID: end a background process the test started, and reap it
stop_bg() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# cli_main SETUP WHY [--in-ns]: the main part of the script of the tool
# $CLI_PROG, after its cases; call it as cli_main SETUP WHY "${2:-}". The
# cases are the functions named in $plain_cases and $ns_cases, c_NAME
# for the case NAME. If $BUILDDIR/tools/$CLI_PROG is missing that is one
# failure. Otherwise the plain cases run, then the script runs itself
# again in a private mount namespace (unshare -m) with --in-ns: there
# the function SETUP makes the test mounts and the namespace cases run,
# or each of them fails with the reason WHY if SETUP fails. Without
# root and unshare the namespace cases SKIP. Ends the script.
# shellcheck disable=SC2154 # the script sets plain_cases and ns_cases
cli_main() {
	local cli_setup=$1 cli_why=$2 cli_c
	if [ ! -x "$BUILDDIR/tools/$CLI_PROG" ]; then
		fail "${CLI_PROG}_built" "no executable $BUILDDIR/tools/$CLI_PROG"
		cli_done
	fi
	if [ "${3:-}" = --in-ns ]; then
		if ! "$cli_setup"; then
			for cli_c in $ns_cases; do
				fail "${cli_c#c_}" "$cli_why"
			done
			cli_done
		fi
		for cli_c in $ns_cases; do
			"$cli_c"
		done
		cli_done
	fi
	for cli_c in $plain_cases; do
		"$cli_c"
	done
	if can_unshare_mount; then
		CLI_TMP_INHERIT=1 unshare_private \
			bash "$0" "$BUILDDIR" --in-ns
		case $? in
		0) cli_inner=ran ;;
		77) cli_inner=skipped ;;
		*) cli_inner=ran cli_failed=1 ;;
		esac
	else
		local why="needs root and a private mount namespace (unshare -m)"
		# root, but refused: unshare's own words
		is_root && have_cmd unshare &&
			why="$why: $(unshare_private true 2>&1 | tail -n 1)"
		for cli_c in $ns_cases; do
			skip "${cli_c#c_}" "$why"
		done
	fi
	cli_done
}

# ---- run directly (the test runner runs every tests/cli/*.sh): check the
# helpers themselves, so that the other scripts can trust their oracles ----

lib_selftest() {
	local out
	out=$(CLI_PROG=fake expect_error inner "bad x" - \
		sh -c 'echo "fake: bad x: reason" >&2; exit 1')
	if [ "$out" != "PASS inner" ]; then
		fail lib_expect_error_pass "got: $out"
	else
		pass lib_expect_error_pass
	fi
	out=$(CLI_PROG=fake expect_error inner "bad x" - \
		sh -c 'echo out; echo "fake: bad x" >&2; exit 1')
	case $out in
	"FAIL inner: stdout not empty"*) pass lib_expect_error_stdout ;;
	*) fail lib_expect_error_stdout "got: $out" ;;
	esac
	py_case lib_text_unescape
	py_case lib_mountinfo
	py_case lib_raw_syscalls
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	cli_init "${1:-}"
	lib_selftest
	cli_done
fi
