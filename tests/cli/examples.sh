#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/examples.sh ABS_BUILDDIR - the programs of examples/ run, and
# do what their header comments say.
#
# Each example's output is checked against the kernel, never against the
# library or an earlier run: /proc/PID/mountinfo, statx(2) mount IDs,
# raw statmount(2)/listmount(2), the nsfs ioctls (NS_GET_MNTNS_ID,
# NS_MNT_GET_NEXT/PREV) and findmnt, through the Python module mntcli of
# lib.sh and excli below. Every example must also refuse bad arguments
# (exit status 2 for a usage error, 1 for a failure, nothing on stdout,
# a message on stderr). The cases that mount run in a private mount
# namespace (this script runs itself there with --in-ns) and need root;
# without it they say SKIP.

# cli_main (lib.sh) calls the cases through $plain_cases and $ns_cases:
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cli_init "$1"

EX=$BUILDDIR/examples
EXAMPLES="list-mounts mount-of-path teardown snapshot-diff watch ns-mounts emulated
	namespaces live-prefix"
export EX
if [ ! -x "$EX/list-mounts" ]; then
	skip examples "the examples are not built (meson -Dexamples=false)"
	cli_done
fi

# the Python side (tests/cli/py/examples.py): run an example, parse its
# output, the references

# expect_fail NAME STATUS WORD CMD...: CMD exits STATUS with nothing on
# stdout and a message naming WORD on stderr (within 10 s: an example
# that takes a bad argument for a good one may run for long)
expect_fail() {
	local name=$1 status=$2 word=$3
	shift 3
	if have_cmd timeout; then
		run timeout -k 5 10 "$@"
	else
		run "$@"
	fi
	if [ "$RC" = 124 ]; then
		fail "$name" "still running after 10 s"
	elif [ "$RC" != "$status" ]; then
		fail "$name" "exit status $RC, expected $status: $(cat "$ERR")"
	elif [ -s "$OUT" ]; then
		fail "$name" "stdout not empty: $(head -c 200 "$OUT")"
	elif ! grep -q -- "$word" "$ERR"; then
		fail "$name" "stderr does not say '$word': $(cat "$ERR")"
	else
		pass "$name"
	fi
}

# ---- cases that need no mounts ----

c_bad_args() {
	local nopid
	# PIDs are below pid_max
	nopid=$(cat /proc/sys/kernel/pid_max)

	expect_fail list_mounts_extra_arg 2 "usage: " "$EX/list-mounts" x
	expect_fail mount_of_path_no_arg 2 "usage: .* PATH" "$EX/mount-of-path"
	expect_fail mount_of_path_two_args 2 "usage: " \
		"$EX/mount-of-path" / /
	expect_fail mount_of_path_missing 1 "/nonexistent: No such file" \
		"$EX/mount-of-path" /nonexistent
	expect_fail mount_of_path_empty 1 ": No such file" \
		"$EX/mount-of-path" ""
	expect_fail teardown_no_arg 2 "usage: .* PATH" "$EX/teardown"
	expect_fail teardown_bad_option 2 "usage: " "$EX/teardown" -x /
	expect_fail teardown_empty 1 ": Invalid argument" "$EX/teardown" ""
	expect_fail snapshot_diff_no_arg 2 "usage: .* COMMAND" \
		"$EX/snapshot-diff"
	expect_fail namespaces_extra_arg 2 "usage: " "$EX/namespaces" -a
	for ex in ns-mounts emulated; do
		expect_fail "${ex}_no_arg" 2 "usage: .* PID" "$EX/$ex"
		expect_fail "${ex}_word" 2 "usage: " "$EX/$ex" abc
		expect_fail "${ex}_zero" 2 "usage: " "$EX/$ex" 0
		expect_fail "${ex}_negative" 2 "usage: " "$EX/$ex" -1
		expect_fail "${ex}_empty" 2 "usage: " "$EX/$ex" ""
		# 2^32 + 1 is not PID 1
		expect_fail "${ex}_wide" 2 "usage: " "$EX/$ex" 4294967297
		expect_fail "${ex}_no_process" 1 "PID $nopid: No such" \
			"$EX/$ex" "$nopid"
	done
	expect_fail watch_word 2 "usage: .* \[SECONDS\]" "$EX/watch" x
	expect_fail watch_zero 2 "usage: " "$EX/watch" 0
	expect_fail watch_negative 2 "usage: " "$EX/watch" -1
	expect_fail watch_suffix 2 "usage: " "$EX/watch" 1s
	expect_fail watch_empty 2 "usage: " "$EX/watch" ""
	expect_fail watch_huge 2 "usage: " "$EX/watch" 99999999999
	expect_fail watch_two_args 2 "usage: " "$EX/watch" 1 2
	expect_fail live_prefix_no_arg 2 "usage: .* PREFIX" "$EX/live-prefix"
	expect_fail live_prefix_word 2 "usage: " "$EX/live-prefix" / x
	expect_fail live_prefix_negative 2 "usage: " "$EX/live-prefix" / -1
	expect_fail live_prefix_three_args 2 "usage: " "$EX/live-prefix" / 1 2
}

# both CASE [PYCASE]: the Python case on the native backend (where the
# kernel has it) and on the emulation over mountinfo, as CASE and
# CASE_emul
both() {
	py_case "$1" "${2:-$1}"
	MNTKIT_BACKEND=mountinfo py_case "${1}_emul" "${2:-$1}"
}

# list-mounts: findmnt -l's TARGET SOURCE FSTYPE OPTIONS, in its order
c_list_mounts() {
	both "list_mounts${1:-}" list_mounts
}

# mount-of-path: findmnt -T's columns, and statx's ID
check_paths() {
	both "mount_of_path${1:-}" mount_of_path
}

c_mount_of_path() {
	local top=/
	# / and $CLI_TMP where mountinfo shows the mount of / (not in a
	# chroot into a plain directory: findmnt -T and the emulation find
	# none for a path on it)
	awk '$5 == "/" { f = 1 } END { exit !f }' /proc/self/mountinfo || top=
	PATHS="${top:+$top:}/proc:/proc/self/status${top:+:$CLI_TMP}" check_paths
}

# watch [SECONDS]: ends after 3 s (or SECONDS), with the table printed
c_watch_time() {
	both watch_time
}

# ns-mounts and emulated on our own PID: findmnt -N's tree and list
c_ns_mounts_self() {
	both ns_mounts_self
}

c_emulated_self() {
	py_case emulated_self
}

# namespaces: ours, with its number of mounts and its root's type and source
c_namespaces_self() {
	py_case namespaces_self
}

plain_cases="c_bad_args c_list_mounts c_mount_of_path c_ns_mounts_self
	c_emulated_self c_namespaces_self c_watch_time"

# ---- cases in a private mount namespace ----

# lib.sh's test tree in $T, and: two tmpfs stacked on ov, a source with
# spaces on sp, a file and a symbolic link
setup_ns() {
	mount_tree ex o ov sp w mine &&
		mount -t tmpfs ex-under "$T/ov" &&
		mount -t tmpfs ex-over "$T/ov" &&
		mount -t tmpfs "ex two words" "$T/sp" &&
		touch "$T/a/file" &&
		ln -s a/sub/x "$T/lnk"
}

c_list_mounts_ns() {
	c_list_mounts _ns
}

c_mount_of_path_ns() {
	PATHS="$T:$T/a:$T/a/sub:$T/a/file:$T/a/sub/x:$T/b:$T/c:$T/n:$T/p:$T/q"
	PATHS+=":$T/u:$T/ov:$T/sp:$T/lnk" check_paths _ns
}

# teardown: the mounts at and below a path (stacked, hidden, rbind,
# binds), each after those on it; with -u all unmounted in that order
c_teardown() {
	both teardown
}

# snapshot-diff: a mount, a remount and an unmount by a command
c_snapshot_diff() {
	both snapshot_diff
}

# watch: the table (every mount, attach), then the events of a mount
# made and removed while it runs
c_watch() {
	both watch
}

# live-prefix: the mounts under a prefix, then those that come and go
# there, and nothing of those elsewhere
c_live_prefix() {
	py_case live_prefix
}

# ns-mounts PID, emulated PID and namespaces on namespaces of other
# processes
c_ns_mounts_other() {
	both ns_mounts_other
}

c_emulated_other() {
	py_case emulated_other
}

c_namespaces() {
	py_case namespaces
}

ns_cases="c_list_mounts_ns c_mount_of_path_ns c_teardown c_snapshot_diff
	c_watch c_live_prefix c_ns_mounts_other c_emulated_other c_namespaces"

# ---- main ----

# cli_main wants an executable $BUILDDIR/tools/$CLI_PROG: name one of the
# examples relative to tools/, once all of them are known to be built
for ex in $EXAMPLES; do
	if [ ! -x "$EX/$ex" ]; then
		fail "${ex}_built" "no executable $EX/$ex"
		cli_done
	fi
done
CLI_PROG=../examples/list-mounts
cli_main setup_ns "could not make the test mounts" "${2:-}"
