# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python cases of tests/cli/mntwatch-schema.sh.

mntwatch --json's lines through schema_validate.py, their identity.
"""

import json
import os
import re
import signal
import subprocess
import time

from mntkit_test import (case, expect, Lines, main, ns_root_prefix, sh, skip,
    sys_mount, sys_umount, tool, UNSHARE_PIDNS, UNSHARE_PRIVATE)

EXE = os.environ["MNTWATCH"]
SCHEMA = os.environ["SCHEMA"]
SCHEMA_PY = os.environ.get("SCHEMA_PY", "")
VALIDATE = os.path.join(os.path.dirname(__file__), "schema_validate.py")


def need_validator():
    if not SCHEMA_PY:
        skip("python3-jsonschema (draft 2020-12) is not installed: "
             "apt-get install python3-jsonschema")


def run_validator(lines):
    return subprocess.run([SCHEMA_PY, VALIDATE, SCHEMA],
                          input="".join(l + "\n" for l in lines),
                          capture_output=True, text=True)


def validate(lines):
    """every line valid against the schema (in the validator's Python)"""
    p = run_validator(lines)
    expect(p.returncode == 0 and p.stdout.strip() == "ok %d" % len(lines),
           "schema: %s %s" % (p.stdout.strip(), p.stderr.strip()[-300:]))


def rfc3339(ns):
    t = time.gmtime(ns // 10**9)
    return time.strftime("%Y-%m-%dT%H:%M:%S", t) + ".%09dZ" % (ns % 10**9)


def check_identity(objs, rt0, rt1, mono0, mono1):
    """version 1, seq strictly increasing, clocks between the test's
    readings around the run and not going back, time = realtime_ns, and
    a resync's range after its own seq"""
    last_seq, last_mono = 0, 0
    for o in objs:
        expect(o["version"] == 1, "version %r" % o["version"])
        expect(o["seq"] > last_seq, "seq %d after %d" % (o["seq"], last_seq))
        expect(rt0 <= o["realtime_ns"] <= rt1,
               "realtime_ns %d not within the run (%d .. %d)" %
               (o["realtime_ns"], rt0, rt1))
        expect(mono0 <= o["monotonic_ns"] <= mono1,
               "monotonic_ns %d not within the run (%d .. %d)" %
               (o["monotonic_ns"], mono0, mono1))
        expect(o["monotonic_ns"] >= last_mono, "monotonic_ns went back: %r" % o)
        expect(o["time"] == rfc3339(o["realtime_ns"]),
               "time %r is not realtime_ns %d" % (o["time"], o["realtime_ns"]))
        if o["event"] == "resync":
            expect(o["resync_end"] >= o["seq"], "resync range %r" % o)
        last_seq, last_mono = o["seq"], o["monotonic_ns"]


class Watch(Lines):
    """mntwatch --initial ARGS, ready once its first line (the attach of
    the mount its --prefix names) is read"""

    def __init__(self, *args):
        Lines.__init__(self, [EXE, "--initial"] + list(args))
        first = self.line(5)
        if first is None:
            expect(False, "mntwatch printed nothing: %s" % self.err())
        self.got = [first]

    def more(self, n, timeout=5):
        for _ in range(n):
            l = self.line(timeout)
            expect(l is not None, "waited for a line; so far %r" % self.got[-3:])
            self.got.append(l)
        return self.got[-n:]

    def until(self, pred, timeout=20):
        end = time.time() + timeout
        while time.time() < end:
            l = self.line(end - time.time())
            if l is None:
                break
            self.got.append(l)
            if pred(l):
                return
        expect(False, "the line waited for never came; last %r" % self.got[-3:])

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        rc = self.p.wait(5)
        expect(rc == 0, "mntwatch exit %d after SIGTERM: %s" % (rc, self.err()))


@case
def schema_rejects():
    need_validator()
    good = {"version": 1, "event": "resync", "seq": 3, "resync_end": 5,
            "time": "2026-12-04T20:25:01.123456789Z",
            "realtime_ns": 1796415901123456789, "monotonic_ns": 5}
    validate([json.dumps(good)])
    bad = [dict(good, version=2), dict(good, seq=0), dict(good, time="now"),
           {k: v for k, v in good.items() if k != "resync_end"},
           dict(good, event="attach"),            # no record
           dict(good, mnt_id=5),                  # a resync has none
           dict(good, ns_pid="1"),
           dict(good, event="ns-add"),            # no mnt_ns
           {k: v for k, v in dict(good, event="ns-gone", mnt_ns=7, mnt_id=5).items()
            if k != "resync_end"}]                # a namespace event has no mount
    for b in bad:
        p = run_validator([json.dumps(b)])
        expect(p.returncode == 1 and p.stdout.startswith("line 1: "),
               "accepted: %r: %d %s %s" % (b, p.returncode, p.stdout, p.stderr[-200:]))


@case
def initial_lines():
    need_validator()
    rt0, mono0 = time.time_ns(), time.monotonic_ns()
    rc, out, err = tool("mntwatch", "--initial", "--json", "--timeout", "0.2")
    rt1, mono1 = time.time_ns(), time.monotonic_ns()
    expect(rc == 0 and err == "", "exit %d: %s" % (rc, err))
    lines = out.splitlines()
    expect(len(lines) > 0, "no line")
    validate(lines)
    objs = [json.loads(l) for l in lines]
    check_identity(objs, rt0, rt1, mono0, mono1)
    expect(objs[0]["seq"] == 1, "the first seq is %d" % objs[0]["seq"])
    expect({o["event"] for o in objs} == {"attach"}, "initial events are attach")


@case
def kinds():
    need_validator()
    T, src = os.environ["T"], os.environ["SRC"]
    d = T + "/" + src
    os.makedirs(d, exist_ok=True)
    sh("mount", "-t", "tmpfs", "ready", d)
    os.makedirs(d + "/a")
    os.makedirs(d + "/b")
    rt0, mono0 = time.time_ns(), time.monotonic_ns()
    w = Watch("--json", "--source", src, "--prefix", d)
    sh("mount", "-t", "tmpfs", "srcA", d + "/a")
    w.more(1)
    os.makedirs(d + "/a/c")
    sh("mount", "-t", "ramfs", "srcC", d + "/a/c")
    w.more(1)
    sh("mount", "-o", "remount,bind,ro", d + "/a")
    w.more(1)
    sh("mount", "--move", d + "/a", d + "/b")
    w.more(2)
    sh("umount", "-l", d + "/b")
    w.more(2)
    w.stop()
    rt1, mono1 = time.time_ns(), time.monotonic_ns()
    validate(w.got)
    objs = [json.loads(l) for l in w.got]
    check_identity(objs, rt0, rt1, mono0, mono1)
    kinds = [o["event"] for o in objs]
    expect(kinds == ["attach", "attach", "attach", "change", "move", "move",
                     "detach", "detach"], "events %r" % kinds)
    ch = objs[3]
    expect(ch["changed"] == ["attr"] and ch["before"]["mnt_attr_str"].startswith("rw")
           and ch["mnt_attr_str"].startswith("ro"), "change %r" % ch)
    mv = objs[4]
    expect("mnt_point" in mv["changed"] and mv["mnt_point"] == d + "/b" and
           mv["before"]["mnt_point"] == d + "/a", "move %r" % mv)


@case
def resync():
    need_validator()
    T = os.environ["T"]
    d, churn = T + "/r", T + "/churn"
    os.makedirs(churn, exist_ok=True)
    os.makedirs(d, exist_ok=True)
    sh("mount", "-t", "tmpfs", "ready", d)
    os.makedirs(d + "/keep")
    rt0, mono0 = time.time_ns(), time.monotonic_ns()
    wj = Watch("--json", "--source", "fanotify", "--prefix", d)
    wt = Watch("--source", "fanotify", "--prefix", d)
    for w in (wj, wt):
        w.p.send_signal(signal.SIGSTOP)
    try:
        for _ in range(int(os.environ["MAX_EVENTS"]) // 2 + 100):
            sys_mount("churn", churn, "tmpfs")
            sys_umount(churn)
        sh("mount", "-t", "tmpfs", "kept", d + "/keep")
    finally:
        for w in (wj, wt):
            w.p.send_signal(signal.SIGCONT)
    keep = d + "/keep"
    wj.until(lambda l: json.loads(l).get("mnt_point") == keep)
    wt.until(lambda l: l.split(" ")[:1] == ["attach"] and l.split(" ")[2] == keep)
    wj.stop()
    wt.stop()
    rt1, mono1 = time.time_ns(), time.monotonic_ns()
    validate(wj.got)
    objs = [json.loads(l) for l in wj.got]
    check_identity(objs, rt0, rt1, mono0, mono1)
    kinds = [o["event"] for o in objs]
    expect(kinds == ["attach", "resync", "attach"], "events %r" % kinds)
    rs, at = objs[1], objs[2]
    # the churn's events (left out by -p) still took their numbers
    expect(rs["seq"] > int(os.environ["MAX_EVENTS"]) // 2,
           "resync seq %d: the events before it were not counted" % rs["seq"])
    expect(rs["seq"] < at["seq"] <= rs["resync_end"],
           "keep's attach %d outside the resync's range %d..%d" %
           (at["seq"], rs["seq"] + 1, rs["resync_end"]))
    # the text lines: the same shape of stream, resync_end at the end
    m = [re.search(r" seq=([0-9]+) time=\S+ mono=[0-9]+\.[0-9]{9}"
                   r"( resync_end=([0-9]+))?$", l) for l in wt.got]
    expect(all(m), "text lines without their identity: %r" % wt.got)
    expect([l.split(" ")[0] for l in wt.got] == ["attach", "resync", "attach"],
           "text events %r" % wt.got)
    rseq, rend, aseq = int(m[1].group(1)), int(m[1].group(3)), int(m[2].group(1))
    expect(m[1].group(2) and rseq < aseq <= rend,
           "text resync %r and attach %r" % (wt.got[1], wt.got[2]))


@case
def all_namespaces():
    need_validator()
    T = os.environ["T"]
    os.makedirs(T + "/allns", exist_ok=True)
    # the child mounts from its namespace's root (as a container's
    # process), where $T/allns is pre + $T/allns
    pre = ns_root_prefix()
    if pre is None:
        skip("cannot tell where / is in its mount namespace")
    # sh -c SCRIPT EXE DIR UNSHARE_PRIVATE...
    script = ('d=$1; shift; '
              '"$0" --all-namespaces --json --timeout 6 & '
              'sleep 0.5; '
              '"$@" nsenter --mount=/proc/self/ns/mnt sh -c '
              '\'mount -t tmpfs allns-probe "$1" && sleep 2.5\' sh "$d"; '
              'wait')
    rt0, mono0 = time.time_ns(), time.monotonic_ns()
    p = subprocess.run(UNSHARE_PIDNS + ["sh", "-c", script, EXE,
                                        pre + T + "/allns"] + UNSHARE_PRIVATE,
                       capture_output=True, text=True,
                       errors="surrogateescape")
    rt1, mono1 = time.time_ns(), time.monotonic_ns()
    expect(p.returncode == 0 and p.stderr == "",
           "exit %d: %s" % (p.returncode, p.stderr.strip()[-300:]))
    lines = p.stdout.splitlines()
    validate(lines)
    objs = [json.loads(l) for l in lines]
    check_identity(objs, rt0, rt1, mono0, mono1)
    expect(all("mnt_ns" in o for o in objs), "a line without mnt_ns")
    for o in objs:
        if "mnt_ns_id" in o:
            expect(o["mnt_ns_id"] == o["mnt_ns"], "record of another namespace: %r" % o)
    probe = [o for o in objs if o.get("mnt_point") == pre + T + "/allns"]
    expect(len(probe) == 1 and probe[0]["event"] == "attach",
           "the child's mount: %r" % probe)
    ns = probe[0]["mnt_ns"]
    kinds = [o["event"] for o in objs if o["mnt_ns"] == ns]
    expect(kinds[0] == "ns-add" and kinds[-1] == "ns-gone" and
           "ns-add" not in kinds[1:] and "ns-gone" not in kinds[:-1],
           "the child's namespace: %r" % kinds)
    others = {o["mnt_ns"] for o in objs if o["event"] == "ns-add"} - {ns}
    expect(len(others) == 1, "the init's namespace: %r" % others)


if __name__ == "__main__":
    main()
