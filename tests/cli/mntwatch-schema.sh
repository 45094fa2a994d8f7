#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/mntwatch-schema.sh ABS_BUILDDIR - mntwatch --json's lines
# against share/mntwatch-event.schema.json (JSON Schema 2020-12), and the
# meaning of their identity: version 1, seq strictly increasing, clocks
# near the test's own and not going back, a resync's range holding the
# events that replace what was lost.
#
# Every event kind is made in a private mount namespace (this script runs
# itself there with --in-ns): attach, change, move, detach on each source,
# and a resync forced by overflowing the fanotify queue of a stopped
# mntwatch (as tests/test-watch.c's overflow_resync does).
#
# The validator is Debian's python3-jsonschema (4.10 or later has draft
# 2020-12; the Makefile's DEB_PKGS installs it): without it the cases
# SKIP. Every key a line has must also be declared in the schema.

# cli_main (lib.sh) calls the cases through $plain_cases and $ns_cases:
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cli_init "$1"

MNTWATCH=$BUILDDIR/tools/mntwatch
CLI_PROG=mntwatch
SCHEMA=$SRCDIR/share/mntwatch-event.schema.json
export MNTWATCH SCHEMA

# the Python that has jsonschema with draft 2020-12: Debian's first
SCHEMA_PY=
for py in /usr/bin/python3 python3; do
	if "$py" -c 'import jsonschema; jsonschema.Draft202012Validator' \
		2>/dev/null; then
		SCHEMA_PY=$(command -v "$py")
		break
	fi
done
export SCHEMA_PY

# ---- cases that need no mounts ----

# the schema is a valid 2020-12 schema, and the validator does reject:
# without that a pass proves nothing
c_schema_rejects() {
	py_case schema_rejects
}

# the host's table as --initial shows it (nothing mounted)
c_initial_lines() {
	py_case initial_lines
}

plain_cases="c_schema_rejects c_initial_lines"

# ---- cases in a private mount namespace ----

setup_ns() {
	T=$CLI_TMP/ns
	mkdir -p "$T" && mount -t tmpfs mntwatch-schema "$T" || return 1
	export T
}

have_fanotify() {
	"$MNTWATCH" --source fanotify --timeout 0 --prefix /x 2>"$ERR"
}

# attach, change, move (a subtree), detach, each waited for
kinds_case() {
	SRC=$1 py_case "kinds_$1" kinds
}

c_kinds_poll() {
	kinds_case poll
}

c_kinds_fanotify() {
	if ! have_fanotify; then
		skip kinds_fanotify "$(cat "$ERR")"
		return
	fi
	kinds_case fanotify
}

# A stopped mntwatch's fanotify queue overflows (mounts and unmounts
# outside its -p); then a mount at "keep" is made, which only the
# resync's diff can report. Its attach must come after the resync and
# inside the resync's range; text and JSON alike.
c_resync() {
	local max
	max=$(cat /proc/sys/fs/fanotify/max_queued_events 2>/dev/null)
	if ! have_fanotify; then
		skip resync "$(cat "$ERR")"
		return
	elif [ -z "$max" ] || [ "$max" -gt 100000 ]; then
		skip resync "fanotify queue too long to overflow (${max:-unknown})"
		return
	fi
	MAX_EVENTS=$max py_case resync
}

# --all-namespaces, in a PID namespace of its own (its /proc shows only
# the test's processes): the namespace of the PID namespace's init and a
# child's namespace made during the run, with its ns-add, the attach of
# its mounts (one made in it), its ns-gone when the child exits; every
# line names its namespace
c_all_namespaces() {
	py_case all_namespaces
}

ns_cases="c_kinds_poll c_kinds_fanotify c_resync c_all_namespaces"

# ---- main ----

cli_main setup_ns "could not mount the test tmpfs" "${2:-}"
