# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python cases of tests/cli/mntwatch.sh.

Start mntwatch, wait until it watches, collect its lines.
"""

import json
import os
import re
import select
import signal
import subprocess
import time

from mntkit_test import (case, expect, Lines, listmount, main, mount_id,
    NATIVE, ns_id, sh, skip, tool, UNSHARE_PRIVATE)

EXE = os.environ["MNTWATCH"]


class Watch(Lines):
    """mntwatch ARGS --initial --prefix READY...: started, and ready once the
    attach of the mount at READY (made before) has been printed."""

    def __init__(self, ready, *args):
        Lines.__init__(self, [EXE, "--initial"] + list(args))
        self.ready = ready
        first = self.line(5)
        if first is None:
            expect(False, "mntwatch printed nothing: %s" % self.err())
        self.initial = [first]

    def lines(self, n, timeout=5):
        out = []
        while len(out) < n:
            l = self.line(timeout)
            if l is None:
                break
            out.append(l)
        return out

    def quiet(self, t=0.5):
        l = self.line(t)
        expect(l is None, "unexpected line: %r" % l)

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        rc = self.p.wait(5)
        if rc != 0:
            expect(False, "mntwatch exit %d after SIGTERM: %s" % (rc, self.err()))


IDENTITY = re.compile(r" seq=([0-9]+) time=([0-9T:.Z-]+) mono=([0-9]+\.[0-9]{9})$")


def bare(lines):
    """text lines without their identity (seq=, time=, mono= at the end),
    which each must have, with seq increasing"""
    out, last = [], 0
    for l in lines:
        m = IDENTITY.search(l)
        expect(m is not None, "no seq/time/mono at the end of %r" % l)
        expect(int(m.group(1)) > last, "seq not increasing: %r" % l)
        last = int(m.group(1))
        out.append(l[:m.start()])
    return out


def wait_exit(p, what):
    """p's exit status; if it has not exited within 5 s, kill it and fail
    with the message what."""
    try:
        return p.wait(5)
    except subprocess.TimeoutExpired:
        p.kill()
        expect(False, what)


@case
def initial_count_json():
    rc, out, err = tool("mntwatch", "--initial", "--json", "-c", "3")
    expect(rc == 0 and err == "", "exit %d: %s" % (rc, err))
    lines = out.splitlines()
    expect(len(lines) == 3, "%d lines for -c 3" % len(lines))
    for l in lines:
        o = json.loads(l)
        expect(o["event"] == "attach", "event %r" % o["event"])
        # the same keys and values as statmnt --json of that mount
        rc, sout, serr = tool("statmnt", "--json", str(o["mnt_id"]))
        expect(rc == 0, "statmnt %d: %s" % (o["mnt_id"], serr))
        s = json.loads(sout)
        for k in ("supported_mask", "size"):
            s.pop(k, None)
            o.pop(k, None)
        s.pop("mask"); o.pop("mask")
        expect(o["version"] == 1 and o["seq"] >= 1 and
               o["realtime_ns"] > 0 and o["monotonic_ns"] > 0 and
               o["time"].endswith("Z"), "identity %r" % o)
        for k in ("event", "version", "seq", "time", "realtime_ns",
                  "monotonic_ns"):
            del o[k]
        expect(set(o) == set(s) - {"supported_mask"},
               "keys differ: %r" % (set(o) ^ set(s)))
        for k in o:
            expect(o[k] == s[k], "%s: %r != statmnt's %r" % (k, o[k], s[k]))


@case
def initial_text():
    rc, out, err = tool("mntwatch", "--initial", "-c", "1", "--prefix", "/")
    expect(rc == 0 and err == "", "exit %d: %s" % (rc, err))
    f = bare([out.rstrip("\n")])[0].split(" ")
    expect(f[0] == "attach" and f[1].isdigit(), "line %r" % out)
    t = IDENTITY.search(out.rstrip("\n"))
    expect(t.group(1) == "1", "the first event's seq %r" % t.group(1))
    # the first mount by ID; with the native backend a listed unique ID
    if NATIVE:
        expect(int(f[1]) in listmount(), "ID %s not listed" % f[1])


@case
def closed_stdout():
    # reader gone while mntwatch has nothing to write: it must notice anyway
    for args in (["--prefix", "/nonexistent/prefix"], ["--initial"]):
        p = subprocess.Popen([EXE] + args, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        if "--initial" in args:
            p.stdout.read(1)
        p.stdout.close()
        rc = wait_exit(p, "mntwatch %s did not exit when stdout closed" % args)
        err = p.stderr.read().decode()
        expect(rc == 0 and err == "", "%s: exit %d: %s" % (args, rc, err))


@case
def signals():
    for sig in (signal.SIGINT, signal.SIGTERM):
        p = subprocess.Popen([EXE, "--prefix", "/nonexistent/prefix"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(0.3)
        p.send_signal(sig)
        rc = wait_exit(p, "no exit on signal %d" % sig)
        err = p.stderr.read().decode()
        expect(rc == 0 and err == "", "signal %d: exit %d: %s" % (sig, rc, err))


@case
def events():
    T, src = os.environ["T"], os.environ["SRC"]
    d = T + "/" + src
    os.makedirs(d + "/a", exist_ok=True)
    os.makedirs(d + "/b", exist_ok=True)
    sh("mount", "-t", "tmpfs", "ready", d)
    os.makedirs(d + "/a", exist_ok=True)
    os.makedirs(d + "/b", exist_ok=True)
    w = Watch(d, "--source", src, "--prefix", d)
    expect(w.initial[0].split(" ")[:3] == ["attach", str(mount_id(d)), d],
           "first line %r" % w.initial[0])
    # each step waits for its lines: steps made faster than a diff runs may
    # merge (a remount then a move is one move with changed=attr,mnt_point)
    sh("mount", "-t", "tmpfs", "-o", "size=1m", "srcA", d + "/a")
    a = mount_id(d + "/a")
    got = w.lines(1)
    os.makedirs(d + "/a/c")
    sh("mount", "-t", "ramfs", "srcC", d + "/a/c")
    c = mount_id(d + "/a/c")
    got += w.lines(1)
    sh("mount", "-o", "remount,bind,ro", d + "/a")
    got += w.lines(1)
    sh("mount", "--move", d + "/a", d + "/b")
    got += w.lines(2)
    sh("umount", "-l", d + "/b")
    got += w.lines(1)
    got = bare(w.initial + got)[1:]
    want = [
        "attach %d %s/a tmpfs srcA rw,relatime private" % (a, d),
        "attach %d %s/a/c ramfs srcC rw,relatime private" % (c, d),
        "change %d %s/a tmpfs srcA ro,relatime private changed=attr" % (a, d),
        "move %d %s/b tmpfs srcA ro,relatime private changed=mnt_point"
        " from=%s/a" % (a, d, d),
        "move %d %s/b/c ramfs srcC rw,relatime private changed=mnt_point"
        " from=%s/a/c" % (c, d, d),
    ]
    expect(got[:5] == want, "got %r, want %r" % (got[:5], want))
    det = sorted(got[5:] + bare(w.lines(1)))
    expect(det == sorted(["detach %d %s/b tmpfs srcA ro,relatime private" % (a, d),
                          "detach %d %s/b/c ramfs srcC rw,relatime private" % (c, d)]),
           "detach lines %r" % det)
    w.quiet()
    w.stop()


@case
def filters_json():
    T = os.environ["T"]
    d = T + "/f"
    os.makedirs(d, exist_ok=True)
    sh("mount", "-t", "tmpfs", "ready", d)
    for s in ("t1", "r1", "t2", "out"):
        os.makedirs(d + "/" + s)
    w = Watch(d, "--json", "-t", "tmpfs", "-e", "attach,detach", "--prefix", d)
    first = json.loads(w.initial[0])
    expect(first["event"] == "attach" and first["mnt_point"] == d, "first %r" % first)
    got = []
    sh("mount", "-t", "tmpfs", "x", d + "/t1")
    got += [json.loads(l) for l in w.lines(1)]
    sh("mount", "-t", "ramfs", "x", d + "/r1")          # -t filters it out
    sh("mount", "-o", "remount,bind,ro", d + "/t1")     # -e filters it out
    sh("mount", "-t", "tmpfs", "x", d + "/t2")
    got += [json.loads(l) for l in w.lines(1)]
    sh("umount", d + "/t1")
    got += [json.loads(l) for l in w.lines(1)]
    w.quiet()
    w.stop()
    expect([(o["event"], o["mnt_point"], o["fs_type"]) for o in got] ==
           [("attach", d + "/t1", "tmpfs"), ("attach", d + "/t2", "tmpfs"),
            ("detach", d + "/t1", "tmpfs")], "got %r" % got)
    expect("changed" not in got[0], "attach has no changed")


@case
def detach_last_record():
    T = os.environ["T"]
    d = T + "/dl"
    os.makedirs(d, exist_ok=True)
    sh("mount", "-t", "tmpfs", "ready", d)
    os.makedirs(d + "/t")
    w = Watch(d, "--json", "--prefix", d)
    sh("mount", "-t", "tmpfs", "x", d + "/t")
    a = json.loads(w.lines(1)[0])
    sh("mount", "-o", "remount,bind,ro", d + "/t")
    c = json.loads(w.lines(1)[0])
    sh("umount", d + "/t")
    g = json.loads(w.lines(1)[0])
    w.stop()
    expect(a["event"] == "attach" and a["mnt_attr_str"].startswith("rw"), "attach %r" % a)
    expect(c["event"] == "change" and c["mnt_attr_str"].startswith("ro"), "change %r" % c)
    expect(g["event"] == "detach" and g["mnt_attr_str"].startswith("ro") and
           g["mnt_id"] == a["mnt_id"], "detach carries the last record: %r" % g)


@case
def change_json():
    T = os.environ["T"]
    d = T + "/c"
    os.makedirs(d, exist_ok=True)
    sh("mount", "-t", "tmpfs", "-o", "size=1m", "ready", d)
    w = Watch(d, "--json", "--prefix", d, "-e", "attach,change")
    sh("mount", "-o", "remount,size=2m", d)
    o = json.loads(w.lines(1)[0])
    w.stop()
    expect(o["event"] == "change" and o["changed"] == ["options"], "got %r" % o)
    expect("size=2048k" in o["mnt_opts"] and "size=1024k" in o["before"]["mnt_opts"],
           "options %r / %r" % (o["mnt_opts"], o["before"]["mnt_opts"]))
    expect(o["mnt_id"] == mount_id(d) and o["before"]["mnt_id"] == o["mnt_id"], "ids")


@case
def ns_other():
    # OT: T as the other namespace names it (from its root: nsenter -m
    # goes there)
    T, OT, pid = os.environ["T"], os.environ["OTHER_T"], os.environ["OTHER_PID"]
    w = Watch(OT + "/o", "--ns", "pid:" + pid, "--prefix", OT + "/o")
    expect(w.initial[0].split(" ")[2] == OT + "/o", "first %r" % w.initial[0])
    os.makedirs(T + "/o2", exist_ok=True)
    sh("mount", "-t", "tmpfs", "mine", T + "/o2")       # ours: not reported
    sh("nsenter", "-t", pid, "-m", "mkdir", "-p", OT + "/o/in")
    sh("nsenter", "-t", pid, "-m", "mount", "-t", "tmpfs", "theirs", OT + "/o/in")
    l = w.lines(1)
    w.stop()
    expect(len(l) == 1 and l[0].split(" ")[0] == "attach" and
           l[0].split(" ")[2] == OT + "/o/in" and l[0].split(" ")[4] == "theirs",
           "got %r" % l)


@case
def all_namespaces():
    T, OT, pid = os.environ["T"], os.environ["OTHER_T"], int(os.environ["OTHER_PID"])
    if OT != T:
        skip("in a chroot, one -p cannot hold both namespaces' mounts: the "
             "other's are named from its root (%s), ours from ours (%s)" % (OT, T))
    other, own = ns_id("/proc/%d/ns/mnt" % pid), ns_id()
    p = subprocess.run([EXE, "--all-namespaces", "-c", "1"], capture_output=True,
                       text=True, timeout=20)
    f = p.stdout.split()
    expect(p.returncode == 0 and len(f) >= 3 and f[2] == "ns-add" and
           int(f[0]) > 0 and int(f[1]) > 0, "text: %r %r" % (p.stdout, p.stderr))
    w = subprocess.Popen([EXE, "--all-namespaces", "--json", "-e",
                          "attach,ns-add,ns-gone", "--prefix", T + "/an"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    got, buf = [], [b""]
    def read_until(cond, what, t=10):
        end = time.time() + t
        while time.time() < end:
            while b"\n" in buf[0]:
                l, _, buf[0] = buf[0].partition(b"\n")
                got.append(json.loads(l))
                if cond(got[-1]):
                    return got[-1]
            r, _, _ = select.select([w.stdout], [], [], 0.2)
            if r:
                chunk = os.read(w.stdout.fileno(), 65536)
                if not chunk:
                    break
                buf[0] += chunk
        expect(False, "no %s: %r" % (what, got[-5:]))
    read_until(lambda o: o["event"] == "ns-add" and o["mnt_ns"] == other and
               o["ns_pid"] == pid, "ns-add of the other namespace")
    sh("nsenter", "-t", str(pid), "-m", "mkdir", "-p", T + "/an/x")
    sh("nsenter", "-t", str(pid), "-m", "mount", "-t", "tmpfs", "theirs",
       T + "/an/x")
    o = read_until(lambda o: o["event"] == "attach", "attach of theirs")
    expect(o["mnt_point"] == T + "/an/x" and o["mnt_ns"] == other and
           o["ns_pid"] == pid and o["sb_source"] == "theirs", "theirs: %r" % o)
    os.makedirs(T + "/an/y", exist_ok=True)
    sh("mount", "-t", "tmpfs", "mine", T + "/an/y")
    o = read_until(lambda o: o["event"] == "attach", "attach of mine")
    expect(o["mnt_point"] == T + "/an/y" and o["mnt_ns"] == own and
           o["sb_source"] == "mine", "mine: %r" % o)
    sh("umount", T + "/an/y")
    n = subprocess.Popen(UNSHARE_PRIVATE + ["sleep", "60"])
    o = read_until(lambda o: o["event"] == "ns-add" and o["ns_pid"] == n.pid,
                   "ns-add of a new namespace")
    new = o["mnt_ns"]
    expect(new not in (own, other), "new namespace %r" % o)
    n.kill()
    n.wait()
    read_until(lambda o: o["event"] == "ns-gone" and o["mnt_ns"] == new,
               "ns-gone of the new namespace")
    w.send_signal(signal.SIGTERM)
    expect(w.wait(5) == 0, "exit status")


if __name__ == "__main__":
    main()
