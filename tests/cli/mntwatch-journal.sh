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

mkdir -p "$CLI_TMP/py"
cat >"$CLI_TMP/py/jcli.py" <<'PY'
import ctypes, json, os, signal, subprocess, time
from mntcli import *

EXE = os.environ["MNTWATCH"]
MESSAGE_ID = "7d5e998938e3438caaf2b433cb16734d"


def sh(*cmd):
    subprocess.run(cmd, check=True)


libc = ctypes.CDLL(None, use_errno=True)


def churn(target, pairs):
    """pairs mounts and unmounts of a tmpfs at target, quickly"""
    for _ in range(pairs):
        if libc.mount(b"churn", target.encode(), b"tmpfs", 0, None) or \
           libc.umount2(target.encode(), 0):
            e = ctypes.get_errno()
            raise OSError(e, "churn at %s: %s" % (target, os.strerror(e)))


def entries(pid):
    """the journal's entries of the process pid, oldest first"""
    p = subprocess.run(["journalctl", "-D", "/run/log/journal", "-o", "json",
                        "--no-pager", "_PID=%d" % pid],
                       capture_output=True, text=True)
    expect(p.returncode in (0, 1), "journalctl: %s" % p.stderr.strip())
    return [json.loads(l) for l in p.stdout.splitlines() if l.strip()]


def wait_entries(pid, pred, timeout=10):
    """entries of pid once pred(entries) holds (fails after timeout)"""
    end = time.time() + timeout
    while True:
        got = entries(pid)
        if pred(got):
            return got
        if time.time() > end:
            expect(False, "journal entries waited for never came: %r" %
                   [e.get("MESSAGE") for e in got])
        time.sleep(0.1)


def start(*args, env=None):
    return subprocess.Popen([EXE, "--journal"] + list(args),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env)


def stop(p):
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(5)
    except subprocess.TimeoutExpired:
        p.kill()
        expect(False, "mntwatch --journal did not exit on SIGTERM")
    out, err = p.communicate()
    expect(rc == 0 and out == b"" and err == b"",
           "exit %d, stdout %r, stderr %r" % (rc, out[:200], err[:200]))


def common(e, pid, seq_after):
    """the fields every mntwatch entry has"""
    expect(e["_TRANSPORT"] == "journal", "_TRANSPORT %r" % e["_TRANSPORT"])
    expect(e["SYSLOG_IDENTIFIER"] == "mntwatch" and
           e["MESSAGE_ID"] == MESSAGE_ID and e["_PID"] == str(pid),
           "identity of %r" % e)
    expect(int(e["SEQ"]) > seq_after, "SEQ %s after %d" % (e["SEQ"], seq_after))
    expect(e["MOUNT_NS"] == str(ns_id()), "MOUNT_NS %r, ns %d" %
           (e.get("MOUNT_NS"), ns_id()))
    rt = int(e["EVENT_REALTIME_NS"])
    # journald's reception time (us) is after the event, and near it
    rcv = int(e["__REALTIME_TIMESTAMP"]) * 1000
    expect(rt - 10**6 <= rcv <= rt + 10 * 10**9,
           "EVENT_REALTIME_NS %d, received %d" % (rt, rcv))
    expect(int(e["EVENT_MONOTONIC_NS"]) <= time.monotonic_ns(), "monotonic")
    return int(e["SEQ"])
PY

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
	py_case journal_events <<'PY'
from jcli import *
T = os.environ["T"]
d = T + "/e"
os.makedirs(d)
sh("mount", "-t", "tmpfs", "ready", d)
os.makedirs(d + "/a")
os.makedirs(d + "/b")
p = start("--initial", "-p", d)
wait_entries(p.pid, lambda g: len(g) >= 1)
sh("mount", "-t", "tmpfs", "two\nlines", d + "/a")
a = mount_id(d + "/a")
wait_entries(p.pid, lambda g: len(g) >= 2)
sh("mount", "-o", "remount,bind,ro", d + "/a")
wait_entries(p.pid, lambda g: len(g) >= 3)
sh("mount", "--move", d + "/a", d + "/b")
wait_entries(p.pid, lambda g: len(g) >= 4)
sh("umount", d + "/b")
got = wait_entries(p.pid, lambda g: len(g) >= 5)
stop(p)
expect([e["EVENT"] for e in got] == ["attach", "attach", "change", "move",
                                      "detach"],
       "events %r" % [e.get("MESSAGE") for e in got])
seq = 0
for e in got:
    seq = common(e, p.pid, seq)
    expect(e["PRIORITY"] == "6", "PRIORITY %r" % e["PRIORITY"])
first, at, ch, mv, dt = got
expect(first["MOUNT_POINT"] == d and first["MOUNT_SOURCE"] == "ready" and
       first["MOUNT_ID"] == str(mount_id(d)), "initial %r" % first)
expect(at["MOUNT_ID"] == str(a) and at["MOUNT_POINT"] == d + "/a" and
       at["MOUNT_SOURCE"] == "two\nlines" and at["FSTYPE"] == "tmpfs" and
       at["MOUNT_ATTR"] == "rw,relatime" and
       at["MOUNT_PROPAGATION"] == "private" and
       at["MOUNT_PARENT_ID"] == str(mount_id(d)), "attach %r" % at)
expect(at["MESSAGE"] == "attach %#x %s/a tmpfs two\\nlines rw,relatime private"
       % (a, d), "MESSAGE %r" % at["MESSAGE"])
expect(ch["CHANGED"] == "attr" and ch["MOUNT_ATTR"] == "ro,relatime" and
       ch["OLD_MOUNT_ATTR"] == "rw,relatime" and "OLD_MOUNT_POINT" not in ch,
       "change %r" % ch)
expect(mv["CHANGED"] == "mnt_point" and mv["MOUNT_POINT"] == d + "/b" and
       mv["OLD_MOUNT_POINT"] == d + "/a" and mv["MOUNT_ID"] == str(a),
       "move %r" % mv)
expect(dt["MOUNT_ID"] == str(a) and dt["MOUNT_POINT"] == d + "/b" and
       "CHANGED" not in dt, "detach %r" % dt)
PY
}

# an entry too big for a datagram goes as a sealed memfd: with the test's
# SO_SNDBUF of a few KiB, an attach at a 3000-byte path cannot be sent
# otherwise (checked here with a plain datagram of its size)
c_journal_memfd() {
	need_journald journal_memfd || return
	py_case journal_memfd <<'PY'
from jcli import *
import errno, socket
T = os.environ["T"]
d = T + "/m"
os.makedirs(d)
sh("mount", "-t", "tmpfs", "ready", d)
deep = d + ("/" + "x" * 250) * 12
os.makedirs(deep)
env = dict(os.environ, MNTWATCH_TEST_JOURNAL_SNDBUF="1")
p = start("-p", d, env=env)
time.sleep(0.3)
sh("mount", "-t", "tmpfs", "deep", deep)
got = wait_entries(p.pid, lambda g: len(g) >= 1)
stop(p)
e = got[0]
common(e, p.pid, 0)
expect(e["EVENT"] == "attach" and e["MOUNT_POINT"] == deep and
       e["MOUNT_SOURCE"] == "deep", "entry %r" % {k: v[:80] for k, v in e.items()})
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1)
try:
    s.sendto(b"MESSAGE=" + b"x" * (2 * len(deep)) + b"\n",
             "/run/systemd/journal/socket")
    expect(False, "a datagram of the entry's size went through: the memfd "
           "path was not needed")
except OSError as ex:
    expect(ex.errno == errno.EMSGSIZE, "sendto: %s" % ex)
PY
}

# a resync (a stopped mntwatch's fanotify queue overflowed, as in
# mntwatch-schema.sh): PRIORITY 4, RESYNC_END, and the attach only its
# diff could report inside its range
c_journal_resync() {
	local max
	need_journald journal_resync || return
	max=$(cat /proc/sys/fs/fanotify/max_queued_events 2>/dev/null)
	if ! "$MNTWATCH" --source fanotify --timeout 0 -p /x 2>"$ERR"; then
		skip journal_resync "$(cat "$ERR")"
		return
	elif [ -z "$max" ] || [ "$max" -gt 100000 ]; then
		skip journal_resync "fanotify queue too long to overflow (${max:-unknown})"
		return
	fi
	MAX_EVENTS=$max py_case journal_resync <<'PY'
from jcli import *
T = os.environ["T"]
d, c = T + "/r", T + "/churn"
os.makedirs(c)
os.makedirs(d)
sh("mount", "-t", "tmpfs", "ready", d)
os.makedirs(d + "/keep")
p = start("--initial", "--source", "fanotify", "-p", d)
wait_entries(p.pid, lambda g: len(g) >= 1)
p.send_signal(signal.SIGSTOP)
try:
    churn(c, int(os.environ["MAX_EVENTS"]) // 2 + 100)
    sh("mount", "-t", "tmpfs", "kept", d + "/keep")
finally:
    p.send_signal(signal.SIGCONT)
got = wait_entries(p.pid, lambda g: len(g) >= 3)
stop(p)
expect([e["EVENT"] for e in got] == ["attach", "resync", "attach"],
       "events %r" % [e.get("MESSAGE") for e in got])
seq = 0
for e in got:
    seq = common(e, p.pid, seq)
rs, at = got[1], got[2]
first, end = int(rs["SEQ"]) + 1, int(rs["RESYNC_END"])
expect(rs["PRIORITY"] == "4" and "MOUNT_ID" not in rs and
       rs["MESSAGE"] == "resync: mount events may have been lost; "
                        "events %d..%d replace them" % (first, end),
       "resync %r" % rs)
expect(at["MOUNT_POINT"] == d + "/keep" and first <= int(at["SEQ"]) <= end,
       "keep's attach %s outside %d..%d" % (at["SEQ"], first, end))
PY
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
	"$MNTWATCH" --journal --initial -p "$d" >"$OUT" 2>"$ERR" &
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
