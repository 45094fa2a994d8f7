#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/mntwatch-journal.sh ABS_BUILDDIR - mntwatch --journal against
# a real systemd-journald (Debian's systemd package), started by the test
# and read back with journalctl -o json.
#
# Never the host's journal: everything runs in a private mount namespace
# (this script runs itself there with --in-ns) with a tmpfs on /run and on
# /var/log, so that journald's sockets (/run/systemd/journal/socket, the
# path mntwatch uses) and its files (Storage=volatile: /run/log/journal)
# live and die with the namespace. Without systemd-journald the journald
# cases SKIP.

# cli_main (lib.sh) calls the cases through $plain_cases and $ns_cases:
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cli_init "$1"

MNTWATCH=$BUILDDIR/tools/mntwatch
CLI_PROG=mntwatch
export MNTWATCH

JOURNALD=
for j in /lib/systemd/systemd-journald /usr/lib/systemd/systemd-journald; do
	[ -x "$j" ] && JOURNALD=$j && break
done

# ---- cases that need no journal ----

c_journal_json() {
	expect_error journal_json "--journal" usage "$MNTWATCH" --journal --json
}

plain_cases="c_journal_json"

# ---- cases in a private mount namespace ----

setup_ns() {
	T=$CLI_TMP/ns
	mkdir -p "$T" && mount -t tmpfs mntwatch-journal "$T" &&
		mount -t tmpfs run /run && mount -t tmpfs log /var/log || return 1
	export T
}

JPID=
# a journald of our own: volatile, forwarding nowhere, reading no kmsg
start_journald() {
	[ -n "$JPID" ] && return 0
	mkdir -p /run/systemd/journald.conf.d || return 1
	cat >/run/systemd/journald.conf.d/mntkit-test.conf <<-'EOF'
		[Journal]
		Storage=volatile
		ForwardToSyslog=no
		ForwardToKMsg=no
		ForwardToConsole=no
		ForwardToWall=no
		ReadKMsg=no
		Audit=no
	EOF
	# a journald that ran before leaves its socket: wait for the new one
	rm -f /run/systemd/journal/socket
	"$JOURNALD" >"$CLI_TMP/journald.log" 2>&1 &
	JPID=$!
	for _ in $(seq 100); do
		[ -S /run/systemd/journal/socket ] && return 0
		sleep 0.05
	done
	return 1
}

# no journald: one clear error, status 1, nothing on stdout
c_no_journal() {
	expect_error no_journal "--journal" - "$MNTWATCH" --journal
	if ! grep -q "/run/systemd/journal/socket" "$ERR"; then
		fail no_journal_names_socket "$(cat "$ERR")"
	else
		pass no_journal_names_socket
	fi
}

need_journald() {
	if [ -z "$JOURNALD" ]; then
		skip "$1" "systemd-journald is not installed (Debian: systemd)"
		return 1
	elif ! have_cmd journalctl; then
		skip "$1" "journalctl is not installed"
		return 1
	elif ! start_journald; then
		fail "$1" "systemd-journald did not start: $(tail -n 3 "$CLI_TMP/journald.log")"
		return 1
	fi
}

# attach (a source with a newline: the binary form), change, move, detach
c_journal_events() {
	need_journald journal_events || return
	py_case journal_events
}

# an entry too big for a datagram goes as a sealed memfd: with the test's
# SO_SNDBUF of a few KiB, an attach at a 3000-byte path cannot be sent
# otherwise (checked here with a plain datagram of its size)
c_journal_memfd() {
	need_journald journal_memfd || return
	py_case journal_memfd
}

# a resync (a stopped mntwatch's fanotify queue overflowed, as in
# mntwatch-schema.sh): PRIORITY 4, RESYNC_END, and the attach only its
# diff could report inside its range
c_journal_resync() {
	local max
	need_journald journal_resync || return
	max=$(cat /proc/sys/fs/fanotify/max_queued_events 2>/dev/null)
	if ! "$MNTWATCH" --source fanotify --timeout 0 --prefix /x 2>"$ERR"; then
		skip journal_resync "$(cat "$ERR")"
		return
	elif [ -z "$max" ] || [ "$max" -gt 100000 ]; then
		skip journal_resync "fanotify queue too long to overflow (${max:-unknown})"
		return
	fi
	MAX_EVENTS=$max py_case journal_resync
}

# the number of entries of process $1 whose MOUNT_SOURCE is $2
jcount() {
	journalctl -D /run/log/journal -o json --no-pager "_PID=$1" \
		"MOUNT_SOURCE=$2" 2>/dev/null | grep -c .
}

# $1 entries of process $2 with MOUNT_SOURCE $3 within 10 s
jwait() {
	for _ in $(seq 100); do
		[ "$(jcount "$2" "$3")" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# journald restarted under a running mntwatch (a new socket at the same
# path): the next event reaches the new journald
c_journal_restart() {
	local d=$T/restart mw rc
	need_journald journal_restart || return
	mkdir -p "$d" && mount -t tmpfs ready "$d" && mkdir "$d/a" "$d/b" ||
		{ fail journal_restart "setup"; return; }
	"$MNTWATCH" --journal --initial --prefix "$d" >"$OUT" 2>"$ERR" &
	mw=$!
	if ! jwait 1 "$mw" ready; then
		stop_bg "$mw"
		fail journal_restart "no entry of the initial attach: $(cat "$ERR")"
		return
	fi
	stop_bg "$JPID"
	JPID=
	if ! start_journald; then
		stop_bg "$mw"
		fail journal_restart "systemd-journald did not start again"
		return
	fi
	mount -t tmpfs after-restart "$d/b"
	if ! jwait 1 "$mw" after-restart; then
		stop_bg "$mw"
		fail journal_restart "no entry after the restart: $(cat "$ERR")"
		return
	fi
	kill -TERM "$mw"
	wait "$mw"
	rc=$?
	if [ "$rc" != 0 ] || [ -s "$OUT" ] || [ -s "$ERR" ]; then
		fail journal_restart "exit $rc, out $(head -c 200 "$OUT"), err $(cat "$ERR")"
	else
		pass journal_restart
	fi
}

stop_journald() {
	[ -n "$JPID" ] && stop_bg "$JPID"
	JPID=
}

ns_cases="c_no_journal c_journal_events c_journal_memfd c_journal_resync
	c_journal_restart stop_journald"

# ---- main ----

cli_main setup_ns "could not mount the test tmpfs" "${2:-}"
