# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python cases of tests/cli/examples.sh.

Run an example, parse its output, the references.
"""

import errno
import fcntl
import glob
import os
import re
import shutil
import struct
import subprocess
import time

from mntkit_test import (case, expect, Failure, Lines, listmount, main,
    mount_id, mountinfo, NATIVE, need_native, ns_id, sh, skip, statmount_basic,
    statx_mnt_id, true_root_id, UNIQUE_OFFSET)

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


def old_id(mnt_id, mnt_ns_id=0):
    """the mountinfo ID of a mount ID an example printed: the kernel's
    own answer (raw statmount) for a unique ID"""
    if mnt_id < UNIQUE_OFFSET:
        return mnt_id
    if not NATIVE:
        skip("unique IDs without statmount(2) in the kernel")
    return statmount_basic(mnt_id, mnt_ns_id)[2]


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


def check_tree(lines, mi, mnt_ns_id=0):
    """lines [(depth, mnt_id, point, fstype[, source])] of an indented
    tree against the mountinfo entries mi: the same mounts, each under
    its parent, a parent before its children, siblings by ascending ID"""
    by_id = {e["id"]: e for e in mi}
    seen, stack, last_child = set(), [], {}
    for depth, mid, point, fstype, *source in lines:
        o = old_id(mid, mnt_ns_id)
        e = by_id.get(o)
        must(e is not None, "%s [%d]: not in mountinfo" % (point, mid))
        must(o not in seen, "%s listed twice" % point)
        seen.add(o)
        must((e["point"], e["fstype"]) == (point, fstype),
             "ID %d: %s %s, mountinfo has %s %s" %
             (mid, point, fstype, e["point"], e["fstype"]))
        must(source in ([], [e["source"]]), "%s: source %r, mountinfo %r" %
             (point, source, e["source"]))
        must(depth <= len(stack), "%s: depth %d below depth %d" %
             (point, depth, len(stack) - 1))
        del stack[depth:]
        if depth == 0:
            must(e["parent"] not in by_id,
                 "%s at depth 0 but its parent is listed" % point)
        else:
            pid, pmid = stack[-1]
            must(e["parent"] == pid, "%s under %s, not its parent" %
                 (point, by_id[pid]["point"]))
            must(last_child.get(pid, -1) < mid,
                 "%s: siblings not by ascending ID" % point)
            last_child[pid] = mid
        stack.append((o, mid))
    must(seen == set(by_id), "missing: %s" %
         sorted(by_id[i]["point"] for i in set(by_id) - seen))


def parse_indented(out, sep, skip_first=False):
    """(depth, rest split at sep) of each line of an indented tree"""
    res = []
    for l in out.splitlines()[1 if skip_first else 0:]:
        body = l.lstrip(" ")
        ind = len(l) - len(body)
        must(ind % 2 == 0, "odd indentation: %r" % l)
        res.append((ind // 2, body.split(sep)))
    return res


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


def start_ns(*sources):
    """a sleeping process in a new mount namespace with a tmpfs of each
    of sources stacked on $T/o: (Popen, its mountinfo)"""
    script = "".join('mount -t tmpfs %s "$T/o" && ' % s for s in sources)
    p = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sh",
                          "-c", script + "echo ok && exec sleep 120"],
                         stdout=subprocess.PIPE)
    ok = p.stdout.readline()
    if ok != b"ok\n":
        p.kill()
        p.wait()
        expect(False, "could not start a namespace with %s" % (sources,))
    return p, mountinfo("/proc/%d/mountinfo" % p.pid)


def stop(p):
    p.stdout.close()
    p.kill()
    p.wait()


@case
def list_mounts():
    def check(mi):
        out = ex_ok("list-mounts")
        got = []
        for l in out.splitlines():
            f = l.split(None, 3)
            must(len(f) == 4, "not ID POINT TYPE SOURCE: %r" % l)
            got.append((old_id(int(f[0])), f[1], f[2], f[3]))
        ids = [g[0] for g in got]
        must(len(set(ids)) == len(ids), "an ID listed twice")
        # ascending IDs (as printed: the mountinfo ones need not be)
        printed = [int(l.split()[0]) for l in out.splitlines()]
        must(printed == sorted(printed), "not by ascending ID")
        # statmount has no source where mountinfo says "none"
        want = sorted((e["id"], e["point"], e["fstype"],
                       e["source"]) for e in mi)
        got = sorted((i, p, t, "none" if s == "-" else s) for i, p, t, s in got)
        must(got == want, "differs from mountinfo: %s" %
             sorted(set(got) ^ set(want)))
        return len(got)

    n = stable("self", check)
    expect(n > 1, "only %d mounts" % n)


@case
def mount_of_path():
    paths = os.environ["PATHS"].split(":")

    def check(mi):
        by_id = {e["id"]: e for e in mi}
        for path in paths:
            out = ex_ok("mount-of-path", path)
            d, key = {}, None
            for l in out.splitlines():
                k, v = l[:12].strip(), l[13:]
                key = k or key
                d.setdefault(key, []).append(v)
            e = by_id.get(statx_mnt_id(path, unique=False))
            must(e is not None, "%s: its mount is not in mountinfo" % path)
            m = re.fullmatch(r"(\d+) \(parent (\d+)\)", d["mnt_id"][0])
            must(m, "%s: mnt_id line %r" % (path, d["mnt_id"]))
            mid, parent = int(m.group(1)), int(m.group(2))
            must(old_id(mid) == e["id"], "%s: ID %d is not mount %d" %
                 (path, mid, e["id"]))
            if NATIVE:
                must(mid == statx_mnt_id(path), "%s: not statx's ID" % path)
                must(parent == statmount_basic(mid)[1], "%s: parent" % path)
            want = {"mnt_point": e["point"], "mnt_root": e["root"],
                    "fs_type": e["fstype"], "sb_source": e["source"]}
            for k, v in want.items():
                must(d[k] == [v], "%s: %s %r, mountinfo %r" % (path, k, d[k], v))
            must(set(d["mount"][0].split(",")) == set(e["mnt_opts"].split(",")),
                 "%s: mount %r, mountinfo %r" % (path, d["mount"], e["mnt_opts"]))
            sb = e["super_opts"].split(",")
            must(d["superblock"][0].split(",")[0] == sb[0],
                 "%s: superblock %r, mountinfo %r" % (path, d["superblock"], sb))
            must(d.get("fs options", []) == sb[1:],
                 "%s: fs options %r, mountinfo %r" % (path, d.get("fs options"),
                                                      sb[1:]))
            prop, opt = d["propagation"][0], " ".join(e["optional"])
            for word, tag in (("shared", "shared:"), ("slave", "master:"),
                              ("unbindable", "unbindable")):
                must((word in prop) == (tag in opt),
                     "%s: propagation %r, mountinfo %r" % (path, prop, opt))
            must((prop == "private") == (opt == ""), "%s: %r" % (path, prop))
            if shutil.which("findmnt"):
                r = subprocess.run(["findmnt", "-n", "-o", "TARGET,FSTYPE,FSROOT",
                                    "-T", path], capture_output=True, text=True)
                # the last of a stack of mounts is the one on top
                top = (r.stdout.splitlines() or [""])[-1].split()
                must(top == [d["mnt_point"][0], d["fs_type"][0],
                             d["mnt_root"][0]],
                     "%s: findmnt says %r" % (path, r.stdout))

    stable("self", check)


@case
def tree():
    def check(mi):
        lines = []
        for depth, f in parse_indented(ex_ok("tree"), "  "):
            must(len(f) == 4, "not POINT  SOURCE  TYPE  [ID]: %r" % f)
            lines.append((depth, int(f[3].strip("[]")), f[0], f[2], f[1]))
        check_tree(lines, mi)

    stable("self", check)


@case
def watch_time():
    t0 = time.monotonic()
    out = ex_ok("watch", "1")
    t = time.monotonic() - t0
    expect(1.0 <= t < 10, "watch 1 took %.2f s" % t)
    lines = out.splitlines()
    expect(lines and re.fullmatch(r"source: (fanotify|poll)", lines[0]),
           "first line %r" % lines[:1])
    expect(all(l.startswith("attach ") for l in lines[1:]) and
           ("attach %#x /" % mount_id("/")) in lines, "table: %r" % lines[1:4])


@case
def ns_mounts_self():
    def check(mi):
        out = ex_ok("ns-mounts", str(os.getpid()))
        head = out.splitlines()[0]
        must(head == "mount namespace %d of PID %d" % (ns_id(), os.getpid()),
             "first line %r" % head)
        lines = []
        for depth, f in parse_indented(out, " ", skip_first=True):
            must(len(f) == 3, "not POINT [TYPE] ID: %r" % f)
            lines.append((depth, int(f[2]), f[0], f[1].strip("[]")))
        check_tree(lines, mi)

    stable("self", check)


@case
def namespaces_self():
    def check(mi):
        got = {}
        for l in namespaces_ok().splitlines():
            f = l.split(None, 3)
            must(len(f) == 4, "not ID MOUNTS TYPE SOURCE: %r" % l)
            got[int(f[0])] = (int(f[1]), f[2], f[3])
        ids = {e["id"] for e in mi}
        root = [e for e in mi if e["parent"] not in ids]
        must(len(root) == 1, "roots %r" % root)
        want = (len(mi), root[0]["fstype"], root[0]["source"])
        must(got.get(ns_id()) == want, "ours (%d): %r, want %r" %
             (ns_id(), got.get(ns_id()), want))

    stable("self", check)


@case
def tree_all():
    need_native()
    root = true_root_id()
    ids = [root] + listmount(root)
    lines = parse_indented(ex_ok("tree", "-a"), "  ")
    got = [int(f[-1].strip("[]")) for d, f in lines]
    expect(sorted(got) == sorted(ids), "not the mounts below the true root %d"
           % root)
    expect(lines[0][0] == 0 and got[0] == root, "first %r" % (lines[0],))
    for (d, f), mid in zip(lines, got):
        if mid != root:
            expect(d > 0, "%r at depth 0" % f)


@case
def watch():
    T = os.environ["T"]
    mi = mountinfo()
    w = Lines([os.path.join(EX, "watch"), "60"])
    try:
        first = w.line()
        expect(first is not None and first.startswith("source: "),
               "first line %r: %s" % (first, w.kill() if first is None else ""))
        table = [w.line() for _ in mi]
        expect(None not in table, "table cut short: %r" % table)
        pts = sorted(l.split(" ", 2)[2] for l in table)
        expect(all(l.startswith("attach ") for l in table) and
               pts == sorted(e["point"] for e in mi), "table %r" % table)
        sh("mount", "-t", "tmpfs", "ex-watch", T + "/w")
        mid = mount_id(T + "/w")
        l = w.line()
        expect(l == "attach %#x %s/w" % (mid, T), "after mount: %r" % l)
        sh("umount", T + "/w")
        l = w.line()
        expect(l == "detach %#x %s/w" % (mid, T), "after umount: %r" % l)
        expect(w.p.poll() is None, "watch 60 exited early")
    finally:
        err = w.kill()
    expect(err == "", "stderr: %s" % err)


@case
def ns_mounts_other():
    T = os.environ["T"]
    p, mi = start_ns("ex-other")
    try:
        sh("mount", "-t", "tmpfs", "ex-mine", T + "/mine")  # not theirs
        nsid = ns_id("/proc/%d/ns/mnt" % p.pid)
        out = ex_ok("ns-mounts", str(p.pid))
        head = out.splitlines()[0]
        expect(head == "mount namespace %d of PID %d" % (nsid, p.pid),
               "first line %r" % head)
        lines = []
        for depth, f in parse_indented(out, " ", skip_first=True):
            expect(len(f) == 3, "not POINT [TYPE] ID: %r" % f)
            lines.append((depth, int(f[2]), f[0], f[1].strip("[]")))
        try:
            check_tree(lines, mi, nsid)
        except Failure as e:
            expect(False, str(e))
        expect((T + "/o", "tmpfs") in [(l[2], l[3]) for l in lines], "no $T/o")
        expect(T + "/mine" not in [l[2] for l in lines], "lists our $T/mine")
    finally:
        stop(p)
        sh("umount", T + "/mine")


@case
def tree_other():
    p, mi = start_ns("ex-other")
    try:
        nsid = ns_id("/proc/%d/ns/mnt" % p.pid)
        lines = [(d, int(f[3].strip("[]")), f[0], f[2])
                 for d, f in parse_indented(ex_ok("tree", str(p.pid)), "  ")]
        try:
            check_tree(lines, mi, nsid)
        except Failure as e:
            expect(False, str(e))
        o = [l for l in lines if l[2] == os.environ["T"] + "/o"]
        expect(len(o) == 1, "$T/o: %r" % o)
    finally:
        stop(p)


@case
def namespaces():
    mine = mountinfo()
    p1, mi1 = start_ns("ex-one")
    p3, mi3 = start_ns("ex-1", "ex-2", "ex-3")
    try:
        expect(len(mi1) == len(mine) + 1 and len(mi3) == len(mine) + 3,
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
            ids = {e["id"] for e in mi}
            root = [e for e in mi if e["parent"] not in ids]
            expect(len(root) == 1, "%s: roots %r" % (path, root))
            want = (len(mi), root[0]["fstype"], root[0]["source"])
            expect(got.get(nsid) == want, "namespace %d (%s): %r, want %r" %
                   (nsid, path, got.get(nsid), want))
    finally:
        stop(p1)
        stop(p3)


if __name__ == "__main__":
    main()
