#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/mntwatch.sh ABS_BUILDDIR - tests of the mntwatch tool.
#
# The events mntwatch prints are checked against what the test did itself
# (mounts made here, their IDs read with statx(2) directly) and, for the
# JSON keys and values, against statmnt --json of the same mount. The
# cases that mount run in a private mount namespace (this script runs
# itself there with --in-ns) and need root; without it they say SKIP.

# cli_main (lib.sh) calls the cases through $plain_cases and $ns_cases:
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cli_init "$1"

MNTWATCH=$BUILDDIR/tools/mntwatch
CLI_PROG=mntwatch
export MNTWATCH

# ---- cases that need no mounts ----

c_help() {
	expect_help help "$MNTWATCH" '^usage: mntwatch ' --source --initial \
		--journal mntwatch-event.schema.json
}

c_version() {
	expect_version version "$MNTWATCH"
}

c_bad_args() {
	expect_error bad_option "--bogus" usage "$MNTWATCH" --bogus
	expect_error bad_short "-x" usage "$MNTWATCH" -x
	expect_error missing_arg "-c" usage "$MNTWATCH" -c
	expect_error bad_event "-e nope" usage "$MNTWATCH" -e attach,nope
	expect_error bad_count "-c" usage "$MNTWATCH" -c 0
	expect_error bad_count_word "-c" usage "$MNTWATCH" -c many
	expect_error bad_timeout "--timeout" usage "$MNTWATCH" --timeout 1s
	expect_error negative_timeout "--timeout" usage "$MNTWATCH" --timeout -1
	expect_error bad_source "--source" usage "$MNTWATCH" --source inotify
	expect_error relative_prefix "--prefix" usage "$MNTWATCH" --prefix mnt
	expect_error empty_type "-t" usage "$MNTWATCH" -t tmpfs,,ext4
	expect_error extra_arg "extra" usage "$MNTWATCH" extra
	expect_error ns_not_pid "pid:0" - "$MNTWATCH" --ns pid:0
	expect_error ns_no_file "/nonexistent" - "$MNTWATCH" --ns /nonexistent
	expect_error ns_not_ns "/proc/self/ns/uts" - "$MNTWATCH" \
		--ns /proc/self/ns/uts
	expect_error all_ns_and_ns "--all-namespaces" usage "$MNTWATCH" \
		--all-namespaces --ns pid:1
	expect_error bad_event_ns "-e ns-new" usage "$MNTWATCH" -e ns-new
}

c_timeout() {
	local t0 t1
	t0=$(date +%s%N)
	run "$MNTWATCH" --timeout 0.3 --prefix /nonexistent/prefix
	t1=$(date +%s%N)
	if [ "$RC" != 0 ] || [ -s "$OUT" ] || [ -s "$ERR" ]; then
		fail timeout "exit $RC, out '$(cat "$OUT")', err '$(cat "$ERR")'"
	elif [ $(((t1 - t0) / 1000000)) -lt 250 ] ||
		[ $(((t1 - t0) / 1000000)) -gt 3000 ]; then
		fail timeout "took $(((t1 - t0) / 1000000)) ms for 0.3 s"
	else
		pass timeout
	fi
}

# -p, findmnt's --poll, is mntwatch's --prefix for one more release:
# it works and says it is deprecated
c_short_prefix() {
	run "$MNTWATCH" --timeout 0.1 -p /nonexistent/prefix
	if [ "$RC" != 0 ] || [ -s "$OUT" ] ||
		! grep -q "^mntwatch: -p is deprecated.*--prefix" "$ERR"; then
		fail short_prefix "exit $RC, out '$(cat "$OUT")', err '$(cat "$ERR")'"
	else
		pass short_prefix
	fi
}

c_initial_count_json() {
	py_case initial_count_json
}

c_initial_text() {
	py_case initial_text
}

c_closed_stdout() {
	py_case closed_stdout
}

c_signals() {
	py_case signals
}

plain_cases="c_help c_version c_bad_args c_timeout c_short_prefix c_initial_count_json
	c_initial_text c_closed_stdout c_signals"

# ---- cases in a private mount namespace ----

setup_ns() {
	T=$CLI_TMP/ns
	mkdir -p "$T" && mount -t tmpfs mntwatch-test "$T" || return 1
	export T
}

# attach, change, move (subtree too), detach: the same lines on each source
events_case() {
	SRC=$1 py_case "events_$1" events
}

c_events_poll() {
	events_case poll
}

c_events_fanotify() {
	if ! "$MNTWATCH" --source fanotify --timeout 0 --prefix /x 2>"$ERR"; then
		skip events_fanotify "$(cat "$ERR")"
		return
	fi
	events_case fanotify
}

# Each step waits for its line, so that the order is the kernel's: events
# a diff discovers together come in ID order, not in the order they
# happened. The remount (a change -e leaves out) has no line to wait for.
c_filters_json() {
	py_case filters_json
}

# a detach carries the last record the watch saw: here the change (a
# read-only remount) is waited for before the umount
c_detach_last_record() {
	py_case detach_last_record
}

c_change_json() {
	py_case change_json
}

c_ns_other() {
	mkdir -p "$T/o"
	start_other_ns mntwatch-other
	py_case ns_other
	stop_bg "$OTHER_PID"
}

# --all-namespaces: a mount in another namespace and one in ours, each
# named by its namespace (JSON mnt_ns, ns_pid; text: the first two
# fields); a namespace made later is added, and gone when its process is
c_all_namespaces() {
	mkdir -p "$T/o" "$T/an"
	start_other_ns mntwatch-allns
	py_case all_namespaces
	stop_bg "$OTHER_PID"
}

ns_cases="c_events_poll c_events_fanotify c_filters_json c_detach_last_record
	c_change_json
	c_ns_other c_all_namespaces"

# ---- main ----

cli_main setup_ns "could not mount the test tmpfs" "${2:-}"
