# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python cases of tests/cli/examples.sh.

Run an example, parse its output, and hold it against findmnt and the
kernel (mountinfo, statx, raw statmount/listmount, the nsfs ioctls).
A case runs on the backend of the environment (MNTKIT_BACKEND, which the
examples inherit): examples.sh runs each on both.
"""

import errno
import fcntl
import glob
import json
import os
import shutil
import struct
import subprocess
import time

from mntkit_test import (case, expect, Failure, Lines, main, mount_id,
    mi_roots, mountinfo, NATIVE, ns_id, ns_root_prefix, sh, skip, statmount_basic, statx_mnt_id,
    UNIQUE_OFFSET, UNSHARE_PRIVATE)

EX = os.environ["EX"]


def ex(name, *args, timeout=30):
    """run an example: (rc, stdout, stderr)"""
    p = subprocess.run([os.path.join(EX, name)] + list(args),
                       capture_output=True, timeout=timeout)
    return (p.returncode, p.stdout.decode("utf-8", "surrogateescape"),
            p.stderr.decode("utf-8", "surrogateescape"))


def ex_ok(name, *args):
    rc, out, err = ex(name, *args)
    expect(rc == 0 and err == "", "%s %s: exit %d: %s" %
           (name, " ".join(args), rc, err.strip()))
    return out


def namespaces_ok():
    """the output of namespaces; SKIP on a kernel without namespace IDs"""
    rc, out, err = ex("namespaces")
    if rc == 1 and "need Linux 6.10" in err:
        skip(err.strip())
    expect(rc == 0 and err == "", "namespaces: exit %d: %s" % (rc, err))
    return out


def stable(pid, check):
    """check(mountinfo entries) on a table that did not change meanwhile
    (the caller's namespace may be the host's, where others mount): up
    to 5 tries; the last one's failure is the case's"""
    path = "/proc/%s/mountinfo" % pid
    for i in range(5):
        before = mountinfo(path)
        try:
            return check(before)
        except Failure as f:
            if mountinfo(path) == before or i == 4:
                expect(False, str(f))


def must(cond, msg):
    if not cond:
        raise Failure(msg)


def findmnt(*args):
    """findmnt -J ARGS: its list of filesystems (a tree's children kept)"""
    if not shutil.which("findmnt"):
        skip("findmnt is not installed")
    r = subprocess.run(["findmnt", "-J"] + list(args), capture_output=True,
                       text=True)
    must(r.returncode == 0, "findmnt %s: exit %d: %s" %
         (" ".join(args), r.returncode, r.stderr.strip()))
    return json.loads(r.stdout)["filesystems"]


def fm_str(v):
    """a findmnt JSON value as the examples print it"""
    return "none" if v is None else str(v)


def cols(line, n):
    """TARGET, the middle (SOURCE, which may hold spaces) and the n - 2
    last words of a line"""
    f = line.split(" ")
    must(len(f) >= n, "fewer than %d words: %r" % (n, line))
    return [f[0], " ".join(f[1:len(f) - n + 2])] + f[len(f) - n + 2:]


def flatten(tree, depth=0):
    """a findmnt -J tree as [(depth, filesystem)], in its order"""
    out = []
    for fs in tree:
        out.append((depth, fs))
        out += flatten(fs.get("children", []), depth + 1)
    return out


def parse_indented(out, n):
    """(depth, cols(line, n)) of each line of an indented tree"""
    res = []
    for l in out.splitlines():
        body = l.lstrip(" ")
        ind = len(l) - len(body)
        must(ind % 2 == 0, "odd indentation: %r" % l)
        res.append((ind // 2, cols(body, n)))
    return res


def first_diff(got, want):
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return "line %d: %r, findmnt %r" % (i + 1, g, w)
    return "%d lines, findmnt %d" % (len(got), len(want))


# ---- list-mounts, mount-of-path: as findmnt -l, findmnt -T ----

@case
def list_mounts():
    def check(mi):
        got = [cols(l, 4) for l in ex_ok("list-mounts").splitlines()]
        want = [[fm_str(fs[k]) for k in ("target", "source", "fstype",
                                         "options")]
                for fs in findmnt("-l", "--nofsroot", "-o",
                                  "TARGET,SOURCE,FSTYPE,OPTIONS")]
        must(got == want, "not findmnt -l: " + first_diff(got, want))
        must(len(got) == len(mi), "%d mounts, mountinfo %d" %
             (len(got), len(mi)))
        return len(got)

    n = stable("self", check)
    expect(n > 1, "only %d mounts" % n)


FM_COLS = ("ID", "TARGET", "SOURCE", "FSTYPE", "FSROOT", "OPTIONS",
           "VFS-OPTIONS", "FS-OPTIONS", "PROPAGATION")


@case
def mount_of_path():
    paths = os.environ["PATHS"].split(":")

    def check(mi):
        for path in paths:
            got = []
            for l in ex_ok("mount-of-path", path).splitlines():
                k, _, v = l.partition(" ")
                got.append((k, v))
            # findmnt -T lists a stack of mounts; the last is on top
            fs = findmnt("-T", path, "--nofsroot", "-o", ",".join(FM_COLS))
            want = [(k, fm_str(fs[-1][k.lower()])) for k in FM_COLS]
            must(got == want, "%s: %s, findmnt %s" % (path, got, want))
            # the kernel: the mount statx names
            must(got[0][1] == str(statx_mnt_id(path, unique=False)),
                 "%s: ID %s, statx %s" % (path, got[0][1],
                                         statx_mnt_id(path, unique=False)))

    stable("self", check)


# ---- ns-mounts, emulated: another namespace ----

def check_ns_mounts(pid):
    got = parse_indented(ex_ok("ns-mounts", str(pid)), 3)
    want = [(d, [fm_str(fs[k]) for k in ("target", "source", "fstype")])
            for d, fs in flatten(findmnt("-N", str(pid), "--nofsroot", "-o",
                                         "TARGET,SOURCE,FSTYPE"))]
    must(got == want, "not findmnt -N %d: %s" % (pid, first_diff(got, want)))


def check_emulated(pid, nsid):
    """ID TARGET as findmnt -l -N; MNT_ID the old ID or the unique ID
    the kernel gives that mount; (ID, MNT_ID) of each line"""
    lines = [l.split(" ", 2) for l in ex_ok("emulated", str(pid)).splitlines()]
    got = [[l[0], l[2]] for l in lines]
    want = [[str(fs["id"]), fs["target"]]
            for fs in findmnt("-l", "-N", str(pid), "-o", "ID,TARGET")]
    must(got == want, "not findmnt -l -N %d: %s" % (pid,
                                                    first_diff(got, want)))
    ids = [(int(l[0]), int(l[1])) for l in lines]
    for old, mid in ids:
        if mid >= UNIQUE_OFFSET and NATIVE:
            must(statmount_basic(mid, nsid)[2] == old,
                 "MNT_ID %d is not the mount of ID %d" % (mid, old))
        must(mid >= UNIQUE_OFFSET or mid == old,
             "MNT_ID %d for ID %d: neither unique nor the old ID" % (mid, old))
    return ids


@case
def ns_mounts_self():
    stable("self", lambda mi: check_ns_mounts(os.getpid()))


@case
def emulated_self():
    stable("self", lambda mi: check_emulated(os.getpid(), 0))


def start_ns(*sources):
    """a sleeping process in a new mount namespace with a tmpfs of each
    of sources stacked on $T/o, at the namespace's root as a container's
    process (nsenter into its own namespace; in a chroot its paths are
    then other_t()'s): (Popen, its mountinfo)"""
    script = "".join('mount -t tmpfs %s "$T/o" && ' % s for s in sources)
    p = subprocess.Popen(UNSHARE_PRIVATE + ["sh", "-c", script + "exec nsenter --mount=/proc/self/ns/mnt "
                          "sh -c 'echo ok && exec sleep 120'"],
                         stdout=subprocess.PIPE)
    ok = p.stdout.readline()
    if ok != b"ok\n":
        p.kill()
        p.wait()
        expect(False, "could not start a namespace with %s" % (sources,))
    return p, mountinfo("/proc/%d/mountinfo" % p.pid)


def other_t():
    """$T as start_ns's process names it: from its namespace's root"""
    pre = ns_root_prefix()
    if pre is None:
        skip("cannot tell where / is in its mount namespace")
    return pre + os.environ["T"]


def stop(p):
    p.stdout.close()
    p.kill()
    p.wait()


@case
def ns_mounts_other():
    T, OT = os.environ["T"], other_t()
    p, mi = start_ns("ex-1", "ex-2")
    try:
        sh("mount", "-t", "tmpfs", "ex-mine", T + "/mine")  # not theirs
        out = ex_ok("ns-mounts", str(p.pid))
        expect(OT + "/mine " not in out, "lists our $T/mine")
        expect(out.count(OT + "/o ") == 2, "not both mounts of $T/o")
        try:
            check_ns_mounts(p.pid)
        except Failure as e:
            expect(False, str(e))
    finally:
        stop(p)
        sh("umount", T + "/mine")


@case
def emulated_other():
    p, mi = start_ns("ex-1", "ex-2", "ex-3")
    try:
        nsid = ns_id("/proc/%d/ns/mnt" % p.pid) if NATIVE else 0
        try:
            ids = dict(check_emulated(p.pid, nsid))
        except Failure as e:
            expect(False, str(e))
        # the two hidden under ex-3 have their old IDs (mntkit.h), the
        # top one its unique ID where the kernel has them
        o = [e["id"] for e in mi if e["point"] == other_t() + "/o"]
        uniq = statx_mnt_id("/", True) is not None
        expect(len(o) == 3 and [ids.get(i) == i for i in o] ==
               [True, True, not uniq],
               "$T/o: IDs %s" % [(i, ids.get(i)) for i in o])
    finally:
        stop(p)


# ---- teardown: every mount below a path, unmounted in that order ----

def make_pod(T):
    """mounts at and below $T/pod: two stacked on it, a stack, one
    hidden under a later mount, an rbind of $T/a (with its submounts), a
    bind of a file: the mountinfo entries at or below $T/pod"""
    pod = T + "/pod"
    os.makedirs(pod, exist_ok=True)
    sh("mount", "-t", "tmpfs", "pod-1", pod)
    sh("mount", "-t", "tmpfs", "pod-2", pod)
    for d in ("s", "h/x", "rb", "d"):
        os.makedirs(pod + "/" + d)
    open(pod + "/f", "w").close()
    sh("mount", "-t", "tmpfs", "pod-s1", pod + "/s")
    sh("mount", "-t", "tmpfs", "pod-s2", pod + "/s")
    sh("mount", "-t", "tmpfs", "pod-x", pod + "/h/x")
    sh("mount", "-t", "tmpfs", "pod-h", pod + "/h")     # hides h/x
    sh("mount", "--rbind", T + "/a", pod + "/rb")
    sh("mount", "--bind", T + "/a/file", pod + "/f")
    sh("mount", "--bind", pod + "/s", pod + "/d")
    return under(T + "/pod")


def under(path):
    return [e for e in mountinfo()
            if e["point"] == path or e["point"].startswith(path + "/")]


@case
def teardown():
    T = os.environ["T"]
    mi = make_pod(T)
    try:
        out = ex_ok("teardown", T + "/pod")
        got = [l.split(" ", 1) for l in out.splitlines()]
        ids = [int(g[0]) for g in got]
        expect(sorted(ids) == sorted(e["id"] for e in mi) and
               [g[1] for g in got] == [next(e["point"] for e in mi
                                            if e["id"] == i) for i in ids],
               "not the %d mounts of mountinfo: %r" % (len(mi), got))
        pos = {i: k for k, i in enumerate(ids)}
        for e in mi:
            expect(e["parent"] not in pos or pos[e["id"]] < pos[e["parent"]],
                   "%s (%d) after its parent" % (e["point"], e["id"]))
        # each unmounted in that order: none fails, none is left
        out = ex_ok("teardown", "-u", T + "/pod")
        expect(out.splitlines() == [" ".join(g) for g in got],
               "another order with -u: %r" % out)
        expect(under(T + "/pod") == [], "left: %r" % under(T + "/pod"))
    finally:
        for e in reversed(under(T + "/pod")):
            subprocess.run(["umount", "-l", e["point"]])


# ---- snapshot-diff: what a command changed ----

@case
def snapshot_diff():
    T = os.environ["T"]
    d = T + "/sd"
    for s in ("n", "ro", "gone"):
        os.makedirs(d + "/" + s, exist_ok=True)
    sh("mount", "-t", "tmpfs", "sd-ro", d + "/ro")
    sh("mount", "-t", "tmpfs", "sd-gone", d + "/gone")
    try:
        before = {e["point"]: e["id"] for e in under(d)}
        out = ex_ok("snapshot-diff", "mount -t tmpfs sd-n %s/n && "
                    "mount -o remount,bind,ro %s/ro && umount %s/gone" %
                    (d, d, d))
        after = {e["point"]: e for e in under(d)}
        got = sorted(l.split(" ") for l in out.splitlines())
        want = sorted([["attach", str(after[d + "/n"]["id"]), d + "/n"],
                       ["change", str(before[d + "/ro"]), d + "/ro", "attr"],
                       ["detach", str(before[d + "/gone"]), d + "/gone"]])
        expect(got == want, "%r, want %r" % (got, want))
        expect(after[d + "/ro"]["mnt_opts"].startswith("ro,"),
               "$T/sd/ro not read-only: %r" % after[d + "/ro"])
        rc, out, err = ex("snapshot-diff", "exit 3")
        expect(rc == 0 and out == "" and "exit 3: failed" in err,
               "a failed command: exit %d, %r, %r" % (rc, out, err))
    finally:
        subprocess.run(["umount", d + "/ro", d + "/n"])


# ---- watch ----

@case
def watch_time():
    for args, secs in (((), 3), (("1",), 1)):
        t0 = time.monotonic()
        out = ex_ok("watch", *args)
        t = time.monotonic() - t0
        expect(secs <= t < secs + 7, "watch %s took %.2f s" % (args, t))
        expect(out and all(l.startswith("attach ") for l in out.splitlines()),
               "watch %s: %r" % (args, out[:200]))
        # the root mount, or in a chroot whose root is no mount point
        # (not in the table), the first root of mountinfo's
        top = mi_roots()[0]
        expect(("attach %d %s" % (statx_mnt_id(top), top)) in out.splitlines() or
               not NATIVE, "%s is not in the table: %r" % (top, out[:200]))


@case
def watch():
    T = os.environ["T"]
    mi = mountinfo()
    w = Lines([os.path.join(EX, "watch"), "60"])
    try:
        table = [w.line() for _ in mi]
        expect(None not in table, "table cut short: %r: %s" %
               (table, w.err() if None in table else ""))
        pts = sorted(l.split(" ", 2)[2] for l in table)
        expect(all(l.startswith("attach ") for l in table) and
               pts == sorted(e["point"] for e in mi), "table %r" % table)
        sh("mount", "-t", "tmpfs", "ex-watch", T + "/w")
        mid = statx_mnt_id(T + "/w") if NATIVE else None
        l = w.line().split(" ")
        expect(l[0] == "attach" and l[2] == T + "/w" and
               (mid is None or l[1] == str(mid)), "after mount: %r" % l)
        sh("umount", T + "/w")
        l2 = w.line().split(" ")
        expect(l2 == ["detach"] + l[1:], "after umount: %r" % l2)
        expect(w.p.poll() is None, "watch 60 exited early")
    finally:
        err = w.kill()
    expect(err == "", "stderr: %s" % err)


# ---- namespaces ----

# nsfs ioctls: struct mnt_ns_info { u32 size, nr_mounts; u64 mnt_ns_id }
def _ior(nr, size):
    return (2 << 30) | (size << 16) | (0xb7 << 8) | nr


NS_MNT_GET_NEXT = _ior(11, 16)
NS_MNT_GET_PREV = _ior(12, 16)


def ns_ids_kernel():
    """every mount namespace ID root can find without libmntkit: those
    of the processes in /proc, and those NS_MNT_GET_NEXT/PREV step to"""
    ids = {ns_id()}
    for p in glob.glob("/proc/[0-9]*/ns/mnt"):
        try:
            ids.add(ns_id(p))
        except OSError:
            pass        # gone, or a kernel thread
    for req in (NS_MNT_GET_NEXT, NS_MNT_GET_PREV):
        fd = os.open("/proc/self/ns/mnt", os.O_RDONLY)
        while True:
            info = bytearray(struct.pack("IIQ", 16, 0, 0))
            try:
                nfd = fcntl.ioctl(fd, req, info, True)
            except OSError as e:
                if e.errno in (errno.ENOENT, errno.ENOTTY, errno.EINVAL):
                    break
                raise
            finally:
                os.close(fd)
            fd = nfd
            ids.add(struct.unpack("IIQ", info)[2])
    return ids


def first_root(mi):
    """The first mount of the tree order of mountinfo entries mi: the
    root mount, or in a chroot whose root is no mount point (where the
    mount that holds / is not shown and each mount below it is a root) the
    first of those, by ID."""
    ids = {e["id"] for e in mi}
    return min((e for e in mi if e["parent"] not in ids), key=lambda e: e["id"])


@case
def namespaces_self():
    def check(mi):
        got = {}
        for l in namespaces_ok().splitlines():
            f = l.split(None, 3)
            must(len(f) == 4, "not ID MOUNTS TYPE SOURCE: %r" % l)
            got[int(f[0])] = (int(f[1]), f[2], f[3])
        root = first_root(mi)
        want = (len(mi), root["fstype"], root["source"])
        must(got.get(ns_id()) == want, "ours (%d): %r, want %r" %
             (ns_id(), got.get(ns_id()), want))

    stable("self", check)


@case
def live_prefix():
    T = os.environ["T"]
    w = T + "/w"
    sh("mount", "-t", "tmpfs", "ex-live", w)
    os.mkdir(w + "/x")
    wid = mount_id(w)
    lp = Lines([os.path.join(EX, "live-prefix"), w, "60"])
    try:
        # the mounts there are: $T/w alone (not $T, not $T/whatever)
        l = lp.line()
        expect(l == "= %d %s" % (wid, w), "first line %r" % l)
        sh("mount", "-t", "tmpfs", "ex-mine", T + "/mine")  # elsewhere
        sh("mount", "-t", "tmpfs", "ex-live-x", w + "/x")
        xid = mount_id(w + "/x")
        l = lp.line()
        expect(l == "+ %d %s/x" % (xid, w), "after mount: %r" % l)
        sh("umount", w + "/x")
        l = lp.line()
        expect(l == "- %d %s/x" % (xid, w), "after umount: %r" % l)
        sh("umount", T + "/mine")
        sh("umount", w)
        l = lp.line()
        expect(l == "- %d %s" % (wid, w), "after umount of the prefix: %r"
               % l)
        expect(lp.p.poll() is None, "live-prefix 60 exited early")
    finally:
        err = lp.kill()
    expect(err == "", "stderr: %s" % err)


@case
def namespaces():
    mine = mountinfo()
    p1, mi1 = start_ns("ex-one")
    p3, mi3 = start_ns("ex-1", "ex-2", "ex-3")
    try:
        # (from their namespace's root: in a chroot, more than ours)
        expect(len(mi3) == len(mi1) + 2 and len(mi1) >= len(mine) + 1,
               "test namespaces: %d, %d mounts" % (len(mi1), len(mi3)))
        before = ns_ids_kernel()
        out = namespaces_ok()
        after = ns_ids_kernel()
        # namespace IDs only grow: one made now bounds those made meanwhile
        p_end, _ = start_ns("ex-end")
        end = ns_id("/proc/%d/ns/mnt" % p_end.pid)
        stop(p_end)
        got = {}
        for l in out.splitlines():
            f = l.split(None, 3)
            expect(len(f) == 4, "not ID MOUNTS TYPE SOURCE: %r" % l)
            expect(int(f[0]) not in got, "%s listed twice" % f[0])
            got[int(f[0])] = (int(f[1]), f[2], f[3])
        ids = [int(l.split()[0]) for l in out.splitlines()]
        expect(ids == sorted(ids), "not by ascending ID")
        # others may make and end namespaces meanwhile: those of both
        # kernel listings, and any other only if made during the run
        expect(before & after <= set(got),
               "missing: %s" % sorted(before & after - set(got)))
        extra = set(got) - before - after
        expect(all(max(before) < i < end for i in extra),
               "unknown: %s" % sorted(extra))
        for path, mi in (("/proc/self", mine),
                         ("/proc/%d" % p1.pid, mi1), ("/proc/%d" % p3.pid, mi3)):
            nsid = ns_id(path + "/ns/mnt")
            root = first_root(mi)
            want = (len(mi), root["fstype"], root["source"])
            expect(got.get(nsid) == want, "namespace %d (%s): %r, want %r" %
                   (nsid, path, got.get(nsid), want))
    finally:
        stop(p1)
        stop(p3)


if __name__ == "__main__":
    main()
