# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python cases of tests/cli/mntwatch-journal.sh.

Start mntwatch --journal, read its entries back with journalctl.
"""

import errno
import json
import os
import signal
import socket
import subprocess
import time

from mntkit_test import (case, expect, main, mount_id, ns_id, sh, sys_mount,
    sys_umount)

EXE = os.environ["MNTWATCH"]
MESSAGE_ID = "7d5e998938e3438caaf2b433cb16734d"


def churn(target, pairs):
    """pairs mounts and unmounts of a tmpfs at target, quickly"""
    for _ in range(pairs):
        sys_mount("churn", target)
        sys_umount(target)


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


@case
def journal_events():
    T = os.environ["T"]
    d = T + "/e"
    os.makedirs(d)
    sh("mount", "-t", "tmpfs", "ready", d)
    os.makedirs(d + "/a")
    os.makedirs(d + "/b")
    p = start("--initial", "--prefix", d)
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
    expect(at["MESSAGE"] == "attach %d %s/a tmpfs two\\nlines rw,relatime private"
           % (a, d), "MESSAGE %r" % at["MESSAGE"])
    expect(ch["CHANGED"] == "attr" and ch["MOUNT_ATTR"] == "ro,relatime" and
           ch["OLD_MOUNT_ATTR"] == "rw,relatime" and "OLD_MOUNT_POINT" not in ch,
           "change %r" % ch)
    expect(mv["CHANGED"] == "mnt_point" and mv["MOUNT_POINT"] == d + "/b" and
           mv["OLD_MOUNT_POINT"] == d + "/a" and mv["MOUNT_ID"] == str(a),
           "move %r" % mv)
    expect(dt["MOUNT_ID"] == str(a) and dt["MOUNT_POINT"] == d + "/b" and
           "CHANGED" not in dt, "detach %r" % dt)


@case
def journal_memfd():
    T = os.environ["T"]
    d = T + "/m"
    os.makedirs(d)
    sh("mount", "-t", "tmpfs", "ready", d)
    deep = d + ("/" + "x" * 250) * 12
    os.makedirs(deep)
    env = dict(os.environ, MNTWATCH_TEST_JOURNAL_SNDBUF="1")
    p = start("--prefix", d, env=env)
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


@case
def journal_resync():
    T = os.environ["T"]
    d, c = T + "/r", T + "/churn"
    os.makedirs(c)
    os.makedirs(d)
    sh("mount", "-t", "tmpfs", "ready", d)
    os.makedirs(d + "/keep")
    p = start("--initial", "--source", "fanotify", "--prefix", d)
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


if __name__ == "__main__":
    main()
