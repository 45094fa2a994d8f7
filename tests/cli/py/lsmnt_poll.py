# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python cases of tests/cli/lsmnt-poll.sh.

Run lsmnt -p and findmnt -p side by side over a sequence of steps.
"""

import atexit
import json
import os
import re
import select
import signal
import subprocess
import time

from mntkit_test import (case, sh, expect, FINDMNT, first_diff, main,
    need_findmnt, ns_id, ns_root_prefix, skip, tool, UNSHARE_PRIVATE)

L = os.environ["LSMNT"]
POLL_WCHAN = ("poll", "select")


def in_poll(pid):
    """Is the process asleep in poll(2)? wchan, else the system call."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        if state != "S":
            return False
        with open("/proc/%d/wchan" % pid) as f:
            wchan = f.read()
        if wchan not in ("", "0"):
            return any(w in wchan for w in POLL_WCHAN)
        with open("/proc/%d/syscall" % pid) as f:
            nr = f.read().split()[0]
        return nr in ("7", "271", "73")   # x86_64 poll/ppoll, arm64 ppoll
    except (OSError, IndexError):
        return False


STARTED = []


@atexit.register
def _kill_all():
    """A failed expect() exits at once: end the monitors left running."""
    for p in STARTED:
        if p.poll() is None:
            p.kill()
            p.wait()


class Mon:
    """A monitor (lsmnt or findmnt -p ARGS) and what it printed."""

    def __init__(self, prog, args, env=None):
        e = dict(os.environ)
        e.update(env or {})
        argv = ([L] if prog == "lsmnt" else [FINDMNT]) + ["-p"] + args
        self.name = prog + " " + " ".join(["-p"] + args)
        self.p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=e)
        STARTED.append(self.p)
        self.out = b""
        self.rc = None

    def ready(self, timeout=10):
        end = time.time() + timeout
        while time.time() < end:
            if self.p.poll() is not None:
                expect(False, "%s exited %d: %s" % (self.name, self.p.returncode,
                                                    self.p.stderr.read()[:300]))
            if in_poll(self.p.pid):
                return
            time.sleep(0.01)
        expect(False, "%s: not waiting in poll after %ds" % (self.name, timeout))

    def pump(self, t):
        r, _, _ = select.select([self.p.stdout], [], [], t)
        if r:
            chunk = os.read(self.p.stdout.fileno(), 65536)
            if chunk:
                self.out += chunk
                return True
            return None   # EOF
        return False

    def wait_lines(self, n, timeout=10):
        """Wait until at least n lines are out (fail after timeout)."""
        end = time.time() + timeout
        while self.out.count(b"\n") < n:
            left = end - time.time()
            if left <= 0 or self.pump(left) is None:
                expect(False, "%s: %d lines, expected %d: %r" % (
                    self.name, self.out.count(b"\n"), n, self.out[-300:]))

    def finish(self, sig=signal.SIGTERM, timeout=10):
        if self.p.poll() is None and sig:
            self.p.send_signal(sig)
        try:
            rest, err = self.p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            expect(False, "%s: did not exit" % self.name)
        self.out += rest
        self.err = err
        self.rc = self.p.returncode
        return self.rc


class Case:
    """One set of arguments: how many lines each step makes for it."""

    def __init__(self, args, want=lambda e: True, header=True,
                 first=False, json=False, lsmnt_only=False, env=None):
        self.args, self.want, self.header = args, want, header
        self.first, self.json = first, json
        self.mons = [Mon("lsmnt", args, env)]
        if not lsmnt_only:
            self.mons.insert(0, Mon("findmnt", args))
        self.lines = 0       # expected so far
        self.actions = []    # expected, in order
        self.batches = 0
        self.done = False

    def step(self, events):
        ev = [e for e in events if self.want(e)]
        if not ev or self.done:
            return
        if self.first:
            ev = ev[:1]
            self.done = True
        self.batches += 1
        self.actions += [e[0] for e in ev]
        if self.json:
            # {, "filesystems": [, {, the 5 columns of a row, },{
            # between rows, }, ], }
            self.lines += 5 + len(ev) * 6
        else:
            self.lines += len(ev) + (1 if self.header and self.batches == 1 else 0)


def run_sequence(cases, steps):
    """steps: (argv, [(action, fstype, ro)...]) - each done once every case's
    monitors wait in poll, then waited for until they printed its lines."""
    for c in cases:
        for m in c.mons:
            m.ready()
    for argv, events in steps:
        sh(*argv)
        for c in cases:
            c.step(events)
            for m in c.mons:
                if m.p.poll() is None or m.out.count(b"\n") < c.lines:
                    m.wait_lines(c.lines)


def check_same(c, sig=signal.SIGTERM, rc_want=None):
    """Both monitors of c: same bytes, same exit; the actions expected."""
    f, l = c.mons
    rcf, rcl = f.finish(sig), l.finish(sig)
    expect(f.out == l.out, "%s: %s" % (" ".join(c.args), first_diff(f.out, l.out)))
    expect(rcf == rcl, "%s: exit findmnt %d, lsmnt %d: %r" % (
        " ".join(c.args), rcf, rcl, l.err[:200]))
    if rc_want is not None:
        expect(rcl == rc_want, "%s: exit %d, expected %d" % (" ".join(c.args), rcl, rc_want))
    expect(l.err == b"", "%s: stderr %r" % (" ".join(c.args), l.err[:200]))
    return l.out


@case
def errors_like_findmnt():
    need_findmnt()
    for a in (["--poll=mount,bogus"], ["-p=umount"], ["--poll=mount,,umount"],
              ["--poll="], ["--poll=mount,move,move,move,mount"], ["-p", "-w", "1.5"],
              ["-p", "-w", "99999999999"], ["-o", "TARGET,ACTION"], ["-o", "+OLD-TARGET"],
              ["-o", "OLD-OPTIONS"], ["--poll=MOUNT,Umount", "-w", "0"],
              ["--poll=move,move,move,move", "-w", "0"], ["-p", "-w", " 5"],
              ["-p", "-w", "-0"], ["-p", "--tree", "-w", "1"]):
        f = subprocess.run([FINDMNT] + a, capture_output=True)
        l = subprocess.run([L] + a, capture_output=True)
        expect(f.returncode == l.returncode and f.stdout == l.stdout,
               "%s: findmnt %d %r, lsmnt %d %r" % (a, f.returncode, f.stdout[:80],
                                                  l.returncode, l.stderr[:200]))


@case
def tree_fails_at_first_change():
    # findmnt 2.42 -p --tree prints no change: it fails (exit 1) at the
    # first batch it would print; changes its filters drop, and a timeout
    # before any, leave it at status 0
    need_findmnt()
    T, name = os.environ["T"], os.environ["NAME"]
    D = T + "/" + name + "-tree"
    os.makedirs(D)
    kept = [Mon(p, ["--tree", "-t", "ramfs", "-w", "1500"]) for p in ("findmnt", "lsmnt")]
    failing = [Mon(p, ["--tree"]) for p in ("findmnt", "lsmnt")]
    for m in kept + failing:
        m.ready()
    sh("mount", "-t", "tmpfs", "tree-" + name, D)
    rcs = [m.finish(sig=None, timeout=20) for m in kept + failing]
    sh("umount", D)
    expect(rcs == [0, 0, 1, 1], "exit (findmnt, lsmnt) filtered %r, unfiltered %r" % (
        rcs[:2], rcs[2:]))
    expect(all(m.out == b"" for m in kept + failing),
           "stdout %r" % [m.out[:80] for m in kept + failing])
    expect(kept[1].err == b"" and b"--tree" in failing[1].err,
           "lsmnt's stderr %r, %r" % (kept[1].err, failing[1].err))


@case
def poll_columns():
    # findmnt 2.42 lists --poll's columns with -H, -p or not
    rc, out, err = tool("lsmnt", "-H")
    names = [l.split()[0] for l in out.splitlines()]
    for c in ("ACTION", "OLD-OPTIONS", "OLD-TARGET"):
        expect(c in names, "-H lacks --poll's %s" % c)
    rc, out, err = tool("lsmnt", "-p", "-H", "-J")
    holders = [c["holder"] for c in json.loads(out)["findmnt-columns"]]
    expect(rc == 0 and holders == names, "-p -H -J %r" % holders)


@case
def timeout_plain():
    need_findmnt()
    for a, least in ((["-p", "-w", "0"], 0), (["-p", "-w", "200"], 0.2),
                     (["-p", "-w", "-0"], 0), (["--poll=umount", "--timeout=150", "-r"], 0.15)):
        t0 = time.time()
        l = subprocess.run([L] + a, capture_output=True, timeout=20)
        dt = time.time() - t0
        f = subprocess.run([FINDMNT] + a, capture_output=True, timeout=20)
        expect((l.returncode, l.stdout, l.stderr) == (0, b"", b"") and
               (f.returncode, f.stdout) == (0, b""),
               "%s: lsmnt %d %r %r, findmnt %d" % (a, l.returncode, l.stdout[:80],
                                                  l.stderr[:200], f.returncode))
        expect(dt >= least, "%s: exited after %.3fs" % (a, dt))
    rc1, out1, _ = tool("lsmnt", "-l", "-o", "TARGET,FSTYPE")
    rc2, out2, _ = tool("lsmnt", "-l", "-o", "TARGET,FSTYPE", "-w", "5")
    expect(rc1 == rc2 == 0 and out1 == out2, "-w without -p changed the list")


@case
def sequence():
    need_findmnt()
    T, name = os.environ["T"], os.environ["NAME"]
    env = {"MNTKIT_BACKEND": os.environ["BACKEND"]} if os.environ["BACKEND"] else None
    D = T + "/" + name
    os.makedirs(D)
    sh("mount", "-t", "tmpfs", "seq-" + name, D)
    for s in ("a", "b", "c", "m"):
        os.makedirs(D + "/" + s)
    cases = [
        Case([], env=env),
        Case(["-o", "ACTION,TARGET,OLD-TARGET,OLD-OPTIONS,OPTIONS"], env=env),
        Case(["-r"], env=env),
        Case(["-P", "-o", "+OLD-TARGET,OLD-OPTIONS"], header=False, env=env),
        Case(["-n", "--poll=umount,move"], lambda e: e[0] in ("umount", "move"),
             header=False, env=env),
        Case(["-t", "ramfs", "-l"], lambda e: e[1] == "ramfs", env=env),
        Case(["-O", "ro", "-r", "-o", "ACTION,TARGET,OPTIONS,OLD-OPTIONS"],
             lambda e: e[2], env=env),
        Case(["--first-only", "-t", "ramfs"], lambda e: e[1] == "ramfs", first=True,
             env=env),
        Case(["-J"], json=True, lsmnt_only=True, env=env),
    ]
    ro = cases[6]
    # (action, fstype, read-only): what each step makes findmnt print
    steps = [
        (["mount", "-t", "tmpfs", "-o", "size=1m", "srcA", D + "/a"],
         [("mount", "tmpfs", False)]),
        (["mount", "-o", "remount,size=2m", D + "/a"], [("remount", "tmpfs", False)]),
        (["mkdir", D + "/a/sub"], []),
        (["mount", "-t", "ramfs", "srcS", D + "/a/sub"], [("mount", "ramfs", False)]),
        (["mount", "--bind", D + "/a", D + "/c"], [("mount", "tmpfs", False)]),
        (["mount", "-o", "remount,bind,ro", D + "/c"], [("remount", "tmpfs", True)]),
        (["mount", "--move", D + "/a", D + "/b"],
         [("move", "tmpfs", False), ("move", "ramfs", False)]),
        (["mount", "--make-shared", D + "/b"], []),
        (["mount", "-t", "ramfs", "-o", "mode=700", "srcR", D + "/m"],
         [("mount", "ramfs", False)]),
        (["umount", D + "/c"], [("umount", "tmpfs", True)]),
        (["umount", "-l", D + "/b"], [("umount", "tmpfs", False), ("umount", "ramfs", False)]),
        (["umount", D + "/m"], [("umount", "ramfs", False)]),
    ]
    run_sequence(cases, steps)
    outs = {}
    for c in cases:
        if c.json:
            continue
        outs[" ".join(c.args)] = check_same(c, rc_want=0 if c.first else -signal.SIGTERM)
    # the actions printed are the steps' (a bug both share cannot pass)
    raw = outs["-r"].decode().splitlines()
    expect([l.split(" ")[0] for l in raw[1:]] == cases[2].actions,
           "-r actions %r, expected %r" % ([l.split(" ")[0] for l in raw[1:]], cases[2].actions))
    old = outs["-o ACTION,TARGET,OLD-TARGET,OLD-OPTIONS,OPTIONS"].decode().splitlines()
    mv = [l.split() for l in old if l.startswith("move")]
    expect(mv and mv[0][1] == D + "/b" and mv[0][2] == D + "/a", "move line %r" % mv)
    rm = [l.split() for l in old if l.startswith("remount")]
    expect(rm and "size=1024k" in rm[0][2] and "size=2048k" in rm[0][3], "remount line %r" % rm)
    ros = outs[" ".join(ro.args)].decode().splitlines()
    expect([l.split(" ")[:2] for l in ros[1:]] == [["remount", D + "/c"], ["umount", D + "/c"]],
           "-O ro: %r" % ros)
    pairs = outs["-P -o +OLD-TARGET,OLD-OPTIONS"].decode().splitlines()
    expect(pairs[0].startswith('ACTION="mount" TARGET="%s/a"' % D) and
           pairs[0].endswith('OLD-TARGET="" OLD-OPTIONS=""'), "-P %r" % pairs[0])
    # JSON: a document per batch, lsmnt's -J keys
    j = cases[-1].mons[0]
    j.finish()
    docs, cur = [], []
    for line in j.out.decode().splitlines(True):
        cur.append(line)
        if line == "}\n":
            docs.append(json.loads("".join(cur)))
            cur = []
    expect(not cur, "JSON: trailing text %r" % cur[:3])
    acts = [fs["action"] for d in docs for fs in d["filesystems"]]
    expect(acts == cases[-1].actions, "JSON actions %r" % acts)
    expect(len(docs) == cases[-1].batches, "JSON: %d documents" % len(docs))
    f0 = docs[0]["filesystems"][0]
    expect(set(f0) == {"action", "target", "source", "fstype", "options"} and
           f0["target"] == D + "/a" and f0["source"] == "srcA", "JSON row %r" % f0)
    sh("umount", D)


@case
def timeout_idle():
    need_findmnt()
    D = os.environ["T"] + "/idle"
    os.makedirs(D + "/x")
    c = Case(["-w", "1500", "-r"])
    for m in c.mons:
        m.ready()
    t0 = time.time()
    for k in range(2):
        # at 1.0 s and 2.0 s: the second after the first timeout would be
        time.sleep(max(0, t0 + 1.0 * (k + 1) - time.time()))
        sh("mount", "-t", "tmpfs", "idle%d" % k, D + "/x")
        c.step([("mount", "tmpfs", False)])
        for m in c.mons:
            m.wait_lines(c.lines)
    for m in c.mons:
        rc = m.finish(sig=None, timeout=10)
        expect(rc == 0, "%s: exit %d" % (m.name, rc))
    f, l = c.mons
    expect(f.out == l.out, first_diff(f.out, l.out))
    expect(l.out.decode().count("\nmount ") == 2, "lines %r" % l.out)
    sh("umount", D + "/x")
    sh("umount", D + "/x")


@case
def signals():
    need_findmnt()
    D = os.environ["T"] + "/sig"
    os.makedirs(D + "/x")
    for sig in (signal.SIGINT, signal.SIGTERM):
        c = Case([])
        for m in c.mons:
            m.ready()
        rcs = [m.finish(sig) for m in c.mons]
        expect(rcs == [-sig, -sig], "signal %d: exit %r" % (sig, rcs))
        expect(c.mons[1].out == b"" and c.mons[1].err == b"", "output %r" % c.mons[1].err)
    c = Case([])
    for m in c.mons:
        m.ready()
        m.p.stdout.close()
    sh("mount", "-t", "tmpfs", "pipe", D + "/x")
    rcs = [m.finish(None) for m in c.mons]
    expect(rcs == [-signal.SIGPIPE] * 2, "closed stdout: exit %r" % rcs)
    sh("umount", D + "/x")


@case
def write_error():
    D = os.environ["T"] + "/full"
    os.makedirs(D + "/x")
    if not os.path.exists("/dev/full"):
        skip("no /dev/full")
    with open("/dev/full", "w") as full:
        p = subprocess.Popen([L, "-p"], stdout=full, stderr=subprocess.PIPE)
    STARTED.append(p)
    m = Mon.__new__(Mon)
    m.p, m.name = p, "lsmnt -p >/dev/full"
    m.ready()
    sh("mount", "-t", "tmpfs", "full", D + "/x")
    try:
        rc = p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        expect(False, "lsmnt -p >/dev/full: no exit after a failed write")
    err = p.stderr.read().decode()
    expect(rc == 1 and err.startswith("lsmnt: write error: ") and err.count("\n") == 1,
           "exit %d: %r" % (rc, err))
    sh("umount", D + "/x")


@case
def other_ns():
    need_findmnt()
    # OT: T as the other namespace names it (from its root: nsenter -m
    # goes there)
    T, OT, pid = os.environ["T"], os.environ["OTHER_T"], os.environ["OTHER_PID"]
    os.makedirs(T + "/mine", exist_ok=True)
    c = Case(["-N", pid, "-r", "-o", "ACTION,TARGET,SOURCE"])
    for m in c.mons:
        m.ready()
    sh("mount", "-t", "tmpfs", "mine", T + "/mine")          # ours: not theirs
    sh("nsenter", "-t", pid, "-m", "mkdir", "-p", OT + "/o/in")
    sh("nsenter", "-t", pid, "-m", "mount", "-t", "tmpfs", "theirs", OT + "/o/in")
    c.step([("mount", "tmpfs", False)])
    for m in c.mons:
        m.wait_lines(c.lines)
    out = check_same(c)
    expect(out.decode() == "ACTION TARGET SOURCE\nmount %s/o/in theirs\n" % OT, "got %r" % out)
    sh("umount", T + "/mine")


@case
def all_namespaces():
    T, name, backend = os.environ["T"], os.environ["NAME"], os.environ["BACKEND"]
    env = {"MNTKIT_BACKEND": backend} if backend else None
    try:
        OWN = ns_id()
    except OSError:
        skip("no mount namespace IDs (NS_GET_MNTNS_ID, Linux 6.10+)")
    D = T + "/" + name
    for d in ("o", "m", "m2", "b", "b/r", "e"):
        os.makedirs(D + "/" + d)
    # D as the kids name it: from their namespace's root
    pre = ns_root_prefix()
    if pre is None:
        skip("cannot tell where / is in its mount namespace")


    def kid(script):
        """a process in a new private mount namespace (sh -c SCRIPT D, D
    as named from there) that then sleeps, at its namespace's root from its
    start, as a container's process: made from the root of ours (nsenter),
    where / is a mount point, so that a watch never sees its root move"""
        p = subprocess.Popen(["nsenter", "--mount=/proc/self/ns/mnt", "unshare", "-m",
                              "--propagation", "private", "sh", "-c",
                              script + "exec sleep 120", "sh", pre + D])
        STARTED.append(p)
        for _ in range(100):
            with open("/proc/%d/comm" % p.pid) as f:
                if f.read() == "sleep\n":
                    break
            time.sleep(0.05)
        return p


    def in_ns(p, *cmd):
        """cmd in p's namespace, where p names D pre + D"""
        sh("nsenter", "-t", str(p.pid), "-m",
           *[pre + a if a.startswith(D) else a for a in cmd])


    A = kid('mount -t tmpfs allns-a "$1/o" && ')
    for _ in range(100):
        with open("/proc/%d/mountinfo" % A.pid) as f:
            if " allns-a " in f.read():
                break
        time.sleep(0.05)
    NS_A = ns_id("/proc/%d/ns/mnt" % A.pid)
    raw = Mon("lsmnt", ["--all-namespaces", "-r", "-o", "NS,ACTION,TARGET,SOURCE,TID"], env)
    js = Mon("lsmnt", ["--all-namespaces", "-J", "-o", "NS,ACTION,SOURCE"], env)
    um = Mon("lsmnt", ["--all-namespaces", "--poll=umount", "-P", "-o", "NS,ACTION,SOURCE"], env)
    first = Mon("lsmnt", ["--all-namespaces", "-f", "-S", "allns-own2", "-r", "-n", "-o", "NS,SOURCE"],
                env)
    dflt = Mon("lsmnt", ["--all-namespaces"], env)
    mons = (raw, js, um, first, dflt)
    for m in mons:
        m.ready()


    def wait_source(m, src, t=int(os.environ.get("WT", "10")), action="mount"):
        """wait until m (-r -o NS,ACTION,TARGET,SOURCE,TID) printed the row of
    ACTION of SOURCE src; True if it did"""
        end = time.time() + t
        while not any(l.split()[1:4:2] == [action, src]
                      for l in m.out.decode().splitlines()[1:]):
            left = end - time.time()
            if left <= 0 or m.pump(left) is None:
                return False
        return True


    def wait_text(m, *texts, t=int(os.environ.get("WT", "10"))):
        """wait until m printed each of texts (bytes)"""
        end = time.time() + t
        while not all(x in m.out for x in texts):
            left = end - time.time()
            if left <= 0 or m.pump(left) is None:
                expect(False, "%s: no %r in %r (exit %r) %r" % (
                    m.name, texts, m.out[-300:], m.p.poll(),
                    m.p.stderr.read()[-300:] if m.p.poll() is not None else b""))


    in_ns(A, "mkdir", D + "/o/x")
    in_ns(A, "mount", "-t", "tmpfs", "allns-a1", D + "/o/x")
    expect(wait_source(raw, "allns-a1"), "no row of A's mount: %r" % raw.out[-300:])
    sh("mount", "-t", "tmpfs", "allns-own", D + "/m")
    expect(wait_source(raw, "allns-own"), "no row of our mount: %r" % raw.out[-300:])
    # B: made now; each monitor finds it at a scan of /proc of its own (about
    # a second apart): a probe mounted before that is part of its first view,
    # so mount the next one until -r and -J both printed one
    B = kid("")
    time.sleep(0.2)
    NS_B = ns_id("/proc/%d/ns/mnt" % B.pid)


    def js_has(text, t):
        end = time.time() + t
        while text not in js.out:
            left = end - time.time()
            if left <= 0 or js.pump(left) is None:
                return False
        return True


    for i in range(30):
        os.makedirs(D + "/b/p%d" % i)
        in_ns(B, "mount", "-t", "tmpfs", "allns-b%d" % i, D + "/b/p%d" % i)
        if (wait_source(raw, "allns-b%d" % i, 1.5) and
                js_has(b'"source": "allns-b%d"' % i, 1.5)):
            break
    else:
        expect(False, "no row of B's mounts: %r" % raw.out[-300:])
    probe = i
    in_ns(B, "umount", D + "/b/p%d" % probe)
    expect(wait_source(raw, "allns-b%d" % probe, action="umount"), "no umount row of B's probe")
    expect(js_has(b'"action": "umount",\n         "source": "allns-b%d"' % probe, 10),
           "-J: no umount row of B's probe: %r" % js.out[-300:])
    # one batch of three namespaces: the monitors stopped while they change
    for m in mons:
        if m.p.poll() is None:
            m.p.send_signal(signal.SIGSTOP)
    sh("mount", "-t", "tmpfs", "allns-own2", D + "/m2")
    sh("umount", D + "/m")
    in_ns(A, "mkdir", D + "/o/y")
    in_ns(A, "mount", "-t", "tmpfs", "allns-a2", D + "/o/y")
    in_ns(A, "umount", D + "/o/x")
    in_ns(B, "mount", "-t", "ramfs", "allns-bram", D + "/b/r")
    for m in mons:
        if m.p.poll() is None:
            m.p.send_signal(signal.SIGCONT)
    for src in ("allns-own2", "allns-a2", "allns-bram"):
        expect(wait_source(raw, src), "no row of %s: %r" % (src, raw.out[-300:]))
    # (the mountinfo backend cannot read a namespace without a process: what
    # it had not yet diffed when B ends is lost, with a RESYNC)
    expect(js_has(b'"source": "allns-bram"', 10), "-J: no row of allns-bram")
    # B ends: nothing printed for it; then a last mount of ours
    B.kill()
    B.wait()
    time.sleep(1.5)
    sh("mount", "-t", "tmpfs", "allns-end", D + "/e")
    expect(wait_source(raw, "allns-end"),
           "no row of the last mount (exit %r): %r" % (raw.p.poll(), raw.out[-200:] + (
               raw.p.stderr.read()[:300] if raw.p.poll() is not None else b"")))
    wait_text(js, b'"allns-end"')
    wait_text(um, b'"allns-a1"', b'"allns-own"')
    for m in (raw, js, um, dflt):
        m.finish()
        expect(m.err == b"", "%s: stderr %r" % (m.name, m.err[:300]))
    rc = first.finish(sig=None)
    expect(rc == 0 and first.err == b"", "-f: exit %d %r" % (rc, first.err[:300]))

    # what the kernel says: NS from NS_GET_MNTNS_ID, TID a process in it
    tid = {OWN: raw.p.pid, NS_A: A.pid, NS_B: B.pid}
    want = [(NS_A, "mount", "allns-a1"), (OWN, "mount", "allns-own")]
    batch = [(NS_A, "mount", "allns-a2"), (NS_A, "umount", "allns-a1"),
             (OWN, "mount", "allns-own2"), (OWN, "umount", "allns-own"),
             (NS_B, "mount", "allns-bram")]
    end = [(OWN, "mount", "allns-end")]


    def by_ns(rows):
        return sorted(rows, key=lambda r: (r[0], r[1] == "umount", r[2]))


    def check_rows(what, rows, keep=None):
        """the steps' rows: those of the stopped monitors' batch in any order
    (it may come as several batches), the others in order. B's probes,
    printed by a monitor that found B before them, are checked apart: all
    in B, mounts, and an umount for the last only (-r and -J, which the
    steps waited for: the mount and umount of the last)."""
        probes = [r for r in rows if re.fullmatch(r"allns-b\d+", r[2])]
        rows = [r for r in rows if not re.fullmatch(r"allns-b\d+", r[2])]
        last = "allns-b%d" % probe
        expect(all(r[0] == NS_B for r in probes) and
               all(r[1] == "mount" or r[2] == last for r in probes) and
               (keep or {(NS_B, "mount", last), (NS_B, "umount", last)} <= set(probes)),
               "%s: B's probes %r (the last %s)" % (what, probes, last))
        keep = keep or (lambda r: True)
        w, b = [r for r in want if keep(r)], [r for r in batch if keep(r)]
        e = [r for r in end if keep(r)]
        n = len(w)
        expect(rows[:n] == w and by_ns(rows[n:len(rows) - len(e)]) == by_ns(b) and
               rows[len(rows) - len(e):] == e,
               "%s: rows %r, expected %r, then %r in any batches, then %r" % (what, rows, w, b, e))


    lines = raw.out.decode().splitlines()
    expect(lines[0].split() == ["NS", "ACTION", "TARGET", "SOURCE", "TID"], "header %r" % lines[0])
    got = [l.split() for l in lines[1:]]
    for r in got:
        expect(int(r[4]) == tid.get(int(r[0])), "TID of %r, expected %r" % (r, tid))
    rows = [(int(r[0]), r[1], r[3]) for r in got]
    check_rows("-r", rows)
    # JSON: a document per batch, each sorted by NS, its mounts before umounts
    docs, cur = [], []
    for line in js.out.decode().splitlines(True):
        cur.append(line)
        if line == "}\n":
            docs.append([(r["ns"], r["action"], r["source"])
                         for r in json.loads("".join(cur))["filesystems"]])
            cur = []
    expect(not cur, "JSON: trailing text %r" % cur[:3])
    check_rows("-J", [r for d in docs for r in d])
    for d in docs:
        expect(d == sorted(d, key=lambda r: (r[0], r[1] == "umount")), "JSON batch %r" % d)
    expect(any(len({r[0] for r in d}) > 1 for d in docs) or backend == "mountinfo",
           "no batch of several namespaces: %r" % docs)
    pairs = [dict(kv.split("=", 1) for kv in l.split()) for l in um.out.decode().splitlines()]
    check_rows("-P --poll=umount", [(int(p["NS"].strip('"')), p["ACTION"].strip('"'),
                                     p["SOURCE"].strip('"')) for p in pairs],
               lambda r: r[1] == "umount")
    expect(first.out.decode().split() == [str(OWN), "allns-own2"], "-f -S %r" % first.out)
    expect(dflt.out.decode().splitlines()[0].split() ==
           ["NS", "ACTION", "TARGET", "SOURCE", "FSTYPE", "OPTIONS"], "default columns %r" % dflt.out[:200])


@case
def all_namespaces_skipped():
    try:
        ns_id()
    except OSError:
        skip("no mount namespace IDs (NS_GET_MNTNS_ID, Linux 6.10+)")
    kids = [subprocess.Popen(UNSHARE_PRIVATE + ["sleep", "60"])]
    STARTED.extend(kids)
    time.sleep(0.2)
    p = subprocess.Popen(["prlimit", "--nofile=10:10", L, "-p", "--all-namespaces", "-w", "3000"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    STARTED.append(p)
    time.sleep(0.5)
    kids.append(subprocess.Popen(UNSHARE_PRIVATE + ["sleep", "60"]))
    STARTED.append(kids[-1])
    out, err = p.communicate(timeout=30)
    lines = err.decode().splitlines()
    counts = [re.fullmatch(r"lsmnt: --all-namespaces: (\d+) mount namespaces? cannot be "
                           r"watched, skipped \(MNTKIT_DEBUG=info says why\)", l) for l in lines]
    expect(p.returncode == 0 and out == b"" and lines and all(counts),
           "exit %d, stdout %r, stderr %r" % (p.returncode, out[:200], err[:300]))
    n = [int(c.group(1)) for c in counts]
    expect(n == sorted(set(n)) and n[-1] == 3, "counts %r (3 namespaces)" % n)


if __name__ == "__main__":
    main()
