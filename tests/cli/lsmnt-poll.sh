#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/lsmnt-poll.sh ABS_BUILDDIR - lsmnt -p/--poll and -w/--timeout.
#
# The reference is the real findmnt(8) 2.38: lsmnt -p ARGS and findmnt -p
# ARGS watch the same private mount namespace through the same sequence of
# single operations and must print the same bytes. Each step waits until
# both have printed the lines it makes (so both see the same batches: the
# widths of a list are those of a batch), never on a fixed sleep alone.
# The printed actions are also checked against what the step did, so that
# a bug shared by both cannot pass. findmnt -p -J aborts (2.38): lsmnt's
# JSON batches are checked on their own. Cases that mount need root and a
# private mount namespace, else they SKIP; without findmnt they SKIP.

# cli_main (lib.sh) calls the cases through $plain_cases and $ns_cases:
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cli_init "$1"
use_findmnt

LSMNT=$BUILDDIR/tools/lsmnt
CLI_PROG=lsmnt
export LSMNT

# ---- cases that need no mounts ----

# without_poll NAME COLUMN ARGS...: exit 0, a warning that names COLUMN
without_poll() {
	local name=$1 col=$2
	shift 2
	run "$LSMNT" "$@"
	if [ "$RC" = 0 ] && [ -s "$OUT" ] && grep -q -- "$col" "$ERR"; then
		pass "$name"
	else
		fail "$name" "exit $RC, stderr: $(head -c 200 "$ERR")"
	fi
}

c_help() {
	expect_help help "$LSMNT" '^usage: lsmnt ' --poll --timeout
}

c_errors() {
	expect_error poll_unknown_action "bogus" - "$LSMNT" --poll=mount,bogus
	expect_error poll_short_equals "=umount" - "$LSMNT" -p=umount
	expect_error poll_empty_action "--poll" - "$LSMNT" --poll=mount,,umount
	expect_error poll_empty_list "--poll" - "$LSMNT" --poll=
	expect_error poll_too_many "--poll" - "$LSMNT" --poll=mount,move,move,move,mount
	expect_error timeout_not_number "1.5" - "$LSMNT" -p -w 1.5
	expect_error timeout_empty "invalid timeout" - "$LSMNT" -p --timeout=
	expect_error timeout_range "invalid timeout" - "$LSMNT" -p -w 99999999999
	# findmnt 2.42: --poll's columns without --poll are a warning, and
	# the listing goes on
	without_poll action_without_poll ACTION -o TARGET,ACTION
	without_poll old_target_without_poll OLD-TARGET -o +OLD-TARGET
	expect_error poll_unreachable "--unreachable" - "$LSMNT" -p --unreachable
	# --all-namespaces: a batch is by namespace ID, no --order; one namespace
	expect_error poll_all_ns_order "--order" - "$LSMNT" -p --all-namespaces \
		--order tree
	expect_error poll_all_ns_and_ns "--all-namespaces" - "$LSMNT" -p \
		--all-namespaces --ns pid:1
	# the exit status of each is findmnt's
	py_case errors_like_findmnt
}

c_columns() {
	py_case poll_columns
}

# -w: an idle timeout in ms; without -p findmnt ignores it, and so does lsmnt
c_timeout_plain() {
	py_case timeout_plain
}

plain_cases="c_help c_errors c_columns c_timeout_plain"

# ---- cases in a private mount namespace ----

setup_ns() {
	T=$CLI_TMP/t
	mkdir -p "$T" && mount -t tmpfs poll-top "$T" || return 1
	export T
}

# the main sequence: every output mode, filters, -p LIST, --first-only
sequence_case() {
	NAME=$1 BACKEND=${2:-} py_case "$1" sequence
}

c_sequence() {
	sequence_case sequence
}

# the same through the mountinfo emulation: the watch's poll source
c_sequence_mountinfo() {
	sequence_case seqmi mountinfo
}

# -w restarts at every change (idle time), and ends with status 0
c_timeout_idle() {
	py_case timeout_idle
}

# --tree: no tree of changes; exit 1 at the first change printed, as
# findmnt 2.42
c_tree_fails() {
	NAME=tree py_case tree_fails_at_first_change
}

# SIGINT, SIGTERM: findmnt dies of them, and so does lsmnt (after freeing
# everything); a closed stdout: SIGPIPE, for findmnt at its next write
c_signals() {
	py_case signals
}

# a write error (a full disk) ends lsmnt with one line and status 1
c_write_error() {
	py_case write_error
}

# -N: the namespace of another process, not lsmnt's own
c_other_ns() {
	mkdir -p "$T/o"
	start_other_ns poll-other || {
		fail other_ns "could not start the other namespace"
		return
	}
	py_case other_ns
	stop_bg "$OTHER_PID"
}

# py_pidns_case NAME [CASE]: py_case, run in a PID namespace of its own
# with its own /proc (and a mount namespace under the case's): lsmnt
# --all-namespaces then sees the namespaces of the case's processes only,
# never those of other programs running on the machine
py_pidns_case() {
	py_run "$1" unshare_private --pid "$MNTKIT_PYTHON" "$CLI_PY" \
		"${2:-$1}"
}

# --all-namespaces: a namespace there at the start (A), lsmnt's own and
# one made during the run (B), each change under its namespace's NS (the
# kernel's NS_GET_MNTNS_ID of /proc/PID/ns/mnt) and TID; B's first view
# (the mounts it copied, the probes made before lsmnt found it) and its
# end print nothing; a batch of several namespaces is sorted by NS, each
# namespace's mounts before its umounts; -J, -P with --poll=umount, -f
# with a filter, the default columns
all_ns_case() {
	NAME=$1 BACKEND=${2:-} py_pidns_case "$1" all_namespaces
}

c_all_namespaces() {
	all_ns_case all_namespaces
}

# the same through the mountinfo emulation: the poll source in each
c_all_namespaces_mountinfo() {
	all_ns_case all_namespaces_mi mountinfo
}

# namespaces that cannot be watched (here: too few open files for any) are
# one line on stderr, again only when their number grows; not an error
c_all_namespaces_skipped() {
	py_pidns_case all_namespaces_skipped
}

ns_cases="c_sequence c_sequence_mountinfo c_timeout_idle c_tree_fails c_signals
	c_write_error c_other_ns c_all_namespaces c_all_namespaces_mountinfo
	c_all_namespaces_skipped"

# ---- main ----

cli_main setup_ns "could not mount the test tmpfs" "${2:-}"
