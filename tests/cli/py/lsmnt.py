# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python cases of tests/cli/lsmnt.sh.

Compare lsmnt with findmnt.
"""

import ctypes
import json
import os
import subprocess
import time

from mntkit_test import (case, expect, FINDMNT, first_diff, listmount, main, mi_roots,
    mountinfo,
    NATIVE, need_findmnt, need_native, need_userns, ns_id, sh, skip,
    statmount_basic,
    tool_ok)

L = os.environ["LSMNT"]
def run(argv, env=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    p = subprocess.run([os.fsencode(a) for a in argv], capture_output=True,
                       env=e)
    return p.returncode, p.stdout, p.stderr


def same(args, env=None):
    """lsmnt ARGS and findmnt ARGS: same stdout and exit status."""
    fr, fo, fe = run([FINDMNT] + args, env)
    lr, lo, le = run([L] + args, env)
    if (fr, fo) != (lr, lo):
        fl, ll = fo.split(b"\n"), lo.split(b"\n")
        for i, (a, b) in enumerate(zip(fl, ll)):
            if a != b:
                break
        else:
            i = min(len(fl), len(ll))
        what = "line %d: findmnt %r / lsmnt %r" % (
            i + 1, fl[i] if i < len(fl) else b"<end>",
            ll[i] if i < len(ll) else b"<end>")
        expect(False, "%s: exit %d/%d, %s %s" % (
            " ".join(args), fr, lr, what, le.decode(errors="replace")[:200]))
    return lo


SHARED = ["SOURCE", "TARGET", "FSTYPE", "OPTIONS", "VFS-OPTIONS",
          "FS-OPTIONS", "FSROOT", "ID", "PARENT", "MAJ:MIN", "PROPAGATION",
          "OPT-FIELDS"]
COLSETS = ["TARGET,SOURCE,FSTYPE,OPTIONS",
           "ID,PARENT,MAJ:MIN,PROPAGATION,OPT-FIELDS",
           "FS-OPTIONS,VFS-OPTIONS,FSROOT,TARGET",
           "SOURCE,ID", "target,parent,id",
           ",".join(SHARED), "+ID,FSROOT", "OPT-FIELDS,TARGET"]


def jload(b):
    """JSON of findmnt/lsmnt: invalid UTF-8 passes through as raw bytes."""
    return json.loads(b.decode("utf-8", "surrogateescape"))


def compare_modes(modes, extra=(), colsets=COLSETS, env=None):
    n = 0
    for cols in colsets:
        for m in modes:
            same(list(m) + ["-o", cols] + list(extra), env)
            n += 1
    return n


@case
def ids_either_kind():
    """--id and --uniq-id each take an old ID (mountinfo's) or a unique
    one (the kernel's, raw statmount) and find the same mount; --verbose
    names the kind"""
    for e in mountinfo()[:4]:
        old = e["id"]
        forms = [("--id", old), ("--uniq-id", old)]
        uniq = statmount_basic_of_old(old)
        if uniq:
            forms += [("--id", uniq), ("--uniq-id", uniq)]
        for opt, v in forms:
            rc, out, err = run([L, "-n", "-o", "ID,TARGET", "--verbose", opt,
                                str(v)])
            kind = "an old mount ID (mountinfo's)" if v == old else \
                "a unique mount ID"
            expect(rc == 0 and out.decode().split() == [str(old), e["point"]]
                   and err.decode() == "lsmnt: %s %d: %s\n" % (opt, v, kind),
                   "%s %d: exit %d, %r, %r" % (opt, v, rc, out, err))
    rc, out, err = run([L, "--id", "21", "--uniq-id", "22"])
    expect(rc == 1 and b"names another old ID" in err, "two old IDs: %r" % err)


def statmount_basic_of_old(old):
    """the unique ID of the mount of old ID old (raw listmount and
    statmount), or None without them"""
    if not NATIVE:
        return None
    for mid in listmount():
        if statmount_basic(mid)[2] == old:
            return mid
    return None


@case
def host_json():
    need_findmnt()
    compare_modes([["-J"], ["-J", "-l"], ["-J", "-v"]])
    for f in (["-t", "tmpfs"], ["-t", "nosysfs,cgroup"], ["-O", "ro"],
              ["--real"], ["--pseudo"], ["-R", "-T", "/sys"], ["-T", "/proc"]):
        same(["-J"] + f)
        same(["-J", "-l"] + f)
    # it is JSON, and nests like findmnt's
    j = jload(same(["-J"]))
    expect(list(j) == ["filesystems"], "top-level keys %r" % list(j))


@case
def host_list():
    need_findmnt()
    compare_modes([["-l"], ["-l", "-n"], []])
    compare_modes([["-l", "-v"], ["-a"]], colsets=COLSETS[:2])


@case
def host_raw_pairs():
    need_findmnt()
    compare_modes([["-r"], ["-r", "-n"], ["-P"], ["-P", "-y"]])


@case
def host_filters():
    need_findmnt()
    root = mountinfo()[0]
    filters = [["-t", "tmpfs"], ["-t", "notmpfs"], ["-t", "proc,sysfs"],
               ["-t", "nosysfs,cgroup"], ["-t", "TMPFS"], ["-O", "ro"],
               ["-O", "noatime"], ["-O", "+noatime"], ["-O", "nosuid,nodev"],
               ["-O", "rw,relatime"], ["--real"], ["--pseudo"], ["-S", "tmpfs"],
               ["-S", "%d:%d" % (root["major"], root["minor"])],
               ["-T", "/proc"], ["-T", "/proc/self/"], ["-T", "/sys/fs"],
               ["-M", "/sys/fs"], ["-M", "/proc"], ["-R", "-T", "/sys"],
               ["-R", "-t", "tmpfs"], ["/proc"], ["proc"], ["proc", "/proc"],
               ["--tree", "-T", "/sys"], ["-T", "/nonexistent/x"],
               ["-t", "nosuchfs"], ["-t", "xyzfs"], ["-O", "nosuchopt=1"]]
    for f in filters:
        for m in ([], ["-l"], ["-J"], ["-r"], ["-P"]):
            same(m + f)


@case
def host_terminal():
    def tty(cmd, cols):
        return subprocess.run(["script", "-qec", cmd, "/dev/null"],
                              capture_output=True, env=dict(os.environ, COLUMNS=str(cols)),
                              stdin=subprocess.DEVNULL).stdout
    for cols in (50, 90, 250):
        for args in ("", "-l", "-u", "-o +ID,PARENT,FS-OPTIONS", "-l -n -o TARGET,FSROOT,SOURCE",
                     "-a", "-t tmpfs"):
            a = tty("findmnt %s" % args, cols)
            b = tty("%s %s" % (L, args), cols)
            expect(a == b, "COLUMNS=%d %s: %r... / %r..." % (cols, args, a[:200], b[:200]))


@case
def new_columns():
    need_native()
    cols = "UNIQ-ID,UNIQ-PARENT,ID,PARENT,NS,PEER,MASTER,PROPAGATE-FROM,SUBTYPE,MAGIC,SB-SOURCE,FSROOT,TARGET,UIDMAP,GIDMAP"
    # UNIQ-ID in findmnt 2.42's listmount(2) table (its mountinfo one has
    # none)
    rc, out, err = run([L, "--kernel=listmount", "-J", "-l", "-o", cols])
    expect(rc == 0, err)
    rows = jload(out)["filesystems"]
    sm = json.loads(tool_ok("statmnt", "-r", "--json", "--mask", "all"))
    # lsmnt lists the mounts the caller's root reaches: in a chroot whose
    # root is no mount point, statmnt -r's first, the mount that holds /,
    # has no mount point
    by = {o["mnt_id"]: o for o in sm if "mnt_point" in o}
    expect(sorted(r["uniq-id"] for r in rows) == sorted(by), "not the mounts of statmnt -r")
    for r in rows:
        s = by[r["uniq-id"]]
        expect(r["uniq-parent"] == s["mnt_parent_id"], "uniq-parent")
        expect(r["id"] == s["mnt_id_old"] and r["parent"] == s["mnt_parent_id_old"], "ids")
        expect(r["ns"] == s["mnt_ns_id"] == ns_id(), "ns")
        expect(r["peer"] == (s["mnt_peer_group"] or None), "peer")
        expect(r["master"] == (s["mnt_master"] or None), "master")
        expect(r["propagate-from"] == (s.get("propagate_from") or None), "propagate-from")
        expect(r["subtype"] == s.get("fs_subtype"), "subtype")
        expect(r["magic"] == "0x%08x" % s["sb_magic"], "magic %r" % r["magic"])
        expect(r["sb-source"] == s["sb_source"] and r["fsroot"] == s["mnt_root"], "strings")
        expect(r["target"] == s.get("mnt_point"), "target")
        expect(r["uidmap"] == (",".join(s["mnt_uidmap"]) if "mnt_uidmap" in s else None), "uidmap")
    # and against mountinfo
    mi = {e["id"]: e for e in mountinfo()}
    for r in rows:
        e = mi[r["id"]]
        expect(e["point"] == r["target"] and e["parent"] == r["parent"], "mountinfo %r" % r)
    # the numbers are JSON numbers, the others strings or null
    for r in rows:
        for k in ("uniq-id", "uniq-parent", "id", "parent", "ns"):
            expect(isinstance(r[k], int), "%s not a number" % k)
        for k in ("peer", "master", "propagate-from"):
            expect(r[k] is None or isinstance(r[k], int), "%s type" % k)


@case
def list_columns():
    # -H is findmnt 2.42's list (lsmnt's own columns are in --help);
    # --output-all has findmnt's columns in its order, none of lsmnt's own
    need_findmnt()
    for m in ([], ["-J"], ["-r"], ["-p"], ["-p", "-J"]):
        f = run([FINDMNT, "-H"] + m)
        l = run([L, "-H"] + m)
        expect(f == l, "-H %s: findmnt %d %r, lsmnt %d %r" % (m, f[0], f[1][:80], l[0], l[1][:80]))
    own = ["UNIQ-PARENT", "NS", "PEER", "MASTER", "PROPAGATE-FROM",
           "SUBTYPE", "MAGIC", "SB-SOURCE", "UIDMAP", "GIDMAP"]
    rc, out, err = run([L, "-r", "--output-all"])
    expect(rc == 0, err)
    hdr = out.split(b"\n")[0].decode().split()
    expect(not set(hdr) & set(own), "--output-all header %r" % hdr)
    fhdr = run([FINDMNT, "-r", "--output-all"])[1].split(b"\n")[0].decode().split()
    expect(hdr == fhdr, "--output-all header %r / findmnt %r" % (hdr, fhdr))
    rc, out, err = run([L, "--help"])
    for c in own:
        expect(c.encode() in out, "--help lacks %s" % c)


@case
def backend_mountinfo():
    emul = {"MNTKIT_BACKEND": "mountinfo"}
    rc, out, err = run([L, "-l", "-n", "-o", "ID"], emul)
    if rc != 0:
        skip("the mountinfo backend does not serve lsmnt: %s" % err.decode().strip())
    cols = "TARGET,SOURCE,FSTYPE,OPTIONS,VFS-OPTIONS,FS-OPTIONS,FSROOT,ID,PARENT,MAJ:MIN,PROPAGATION,OPT-FIELDS"
    for mode in (["-J", "-l"], ["-r"], ["-P"]):
        a = run([L] + mode + ["-o", cols], emul)
        b = run([L] + mode + ["-o", cols])
        expect(a[0] == b[0] == 0, "exit %d/%d" % (a[0], b[0]))
        if mode[0] == "-J":
            ja = sorted(json.dumps(x, sort_keys=True) for x in jload(a[1])["filesystems"])
            jb = sorted(json.dumps(x, sort_keys=True) for x in jload(b[1])["filesystems"])
            expect(ja == jb, "JSON rows differ between the backends")
        else:
            expect(sorted(a[1].split(b"\n")) == sorted(b[1].split(b"\n")),
                   "%s rows differ between the backends" % mode)
    jload(run([L, "-J"], emul)[1])


@case
def ns_json():
    need_findmnt()
    T = os.environ["T"]
    compare_modes([["-J"], ["-J", "-l"], ["-J", "-v"]])
    for f in (["-R", "-T", T], ["-T", T + "/b"], ["-t", "tmpfs"], ["-O", "ro"],
              ["-O", "+noatime"], ["-S", "lsmnt-a"], ["-R", "-S", "lsmnt-a"]):
        same(["-J"] + f)
        same(["-J", "-l"] + f)
    d = jload(same(["-J", "-R", "-T", T]))
    top = d["filesystems"][0]
    expect(top["target"] == T and len(top["children"]) >= 12, "children of the top")
    W = T + "/" + os.environ["WEIRD"]
    expect(any(c["target"].encode("utf-8", "surrogateescape") == os.fsencode(W)
               for c in top["children"]), "weird target lost")


@case
def ns_text():
    need_findmnt()
    T = os.environ["T"]
    for loc in ("C.UTF-8", "C"):
        env = {"LC_ALL": loc}
        compare_modes([[], ["-l"], ["-l", "-n"], ["-r"], ["-P"], ["-a"]],
                      extra=["-R", "-T", T], env=env)
        compare_modes([["-l"], ["-r"], []], env=env, colsets=COLSETS[:3])


@case
def ns_filters():
    need_findmnt()
    T = os.environ["T"]
    W = T + "/" + os.environ["WEIRD"]
    filters = [["-T", T + "/a/sub"], ["-T", T + "/b/x/"], ["-T", T + "/d"],
               ["-M", T + "/d"], ["-M", T + "/a/sub"], ["-T", W],
               ["-R", "-T", T + "/a"], ["-S", "lsmnt-a"], ["-S", "none"],
               ["-S", "lsmnt src\\x"], ["-O", "ro"], ["-O", "nosuid,noexec"],
               ["-O", "noatime"], ["-O", "+noatime"], ["-O", "size=512k"],
               ["-O", "sync,lazytime"], ["-t", "tmpfs", "-O", "ro"],
               ["-R", "-O", "ro"], [T + "/c"], ["lsmnt-p"], ["lsmnt-p", T + "/q"],
               ["--tree", "-S", "lsmnt-a"], ["-l", "-R", "-S", "lsmnt-a"]]
    for f in filters:
        for m in ([], ["-l"], ["-J"], ["-r"], ["-P"]):
            if "-l" in f and m and m[0] in ("-l", "-r", "-P"):
                continue
            same(m + f + ["-o", "TARGET,SOURCE,ID,PARENT,OPTIONS"])


@case
def ns_filters_hidden_columns():
    need_findmnt()
    T = os.environ["T"]
    filters = [[T + "/c"], [T + "/d"], [T + "/a/sub"], ["lsmnt-p"],
               ["lsmnt-p", T + "/q"], ["lsmnt-a", T + "/a/sub"], ["-T", T + "/a/sub"],
               ["-M", T + "/d"], ["-R", "-T", T], ["-S", "lsmnt-a"], ["-O", "ro"],
               ["-t", "tmpfs"], ["-U", "-R", "-T", T], ["-U", "-l"], ["-U"],
               ["-f", T + "/d"], ["-f", "-R", "-T", T], ["-i", "-t", "tmpfs"]]
    for f in filters:
        for cols in ("SOURCE", "FSTYPE", "ID", "SOURCE,FSTYPE", "OPTIONS,ID"):
            for m in ([], ["-n"], ["-l"], ["-J"], ["-r"], ["-P"]):
                same(m + f + ["-o", cols])


@case
def ns_tree_any_mode():
    need_findmnt()
    T = os.environ["T"] + "/reuse"
    os.makedirs(T)
    sh("mount", "-t", "tmpfs", "reuse-top", T)
    try:
        os.mkdir(T + "/x"); os.mkdir(T + "/y"); os.mkdir(T + "/z")
        sh("mount", "-t", "tmpfs", "reuse-x", T + "/x")
        sh("mount", "-t", "tmpfs", "reuse-y", T + "/y")
        sh("umount", T + "/x")
        # z takes x's old ID, below y's: the tree puts z first, the list y
        sh("mount", "-t", "tmpfs", "reuse-z", T + "/z")
        os.mkdir(T + "/z/q"); os.mkdir(T + "/y/w")
        sh("mount", "-t", "tmpfs", "reuse-q", T + "/z/q")
        sh("mount", "-t", "tmpfs", "reuse-w", T + "/y/w")
        for loc in ("C.UTF-8", "C"):
            for m in ([], ["-l"], ["-r"], ["-P"], ["-J"], ["-J", "-l"], ["-l", "-n"],
                      ["-r", "-a"], ["-P", "-y"]):
                for f in (["-R", "-T", T], ["-t", "tmpfs"], ["-S", "reuse-q"]):
                    same(m + ["--tree"] + f + ["-o", "TARGET,SOURCE,ID"],
                         env={"LC_ALL": loc})
    finally:
        subprocess.run(["umount", "-R", T])


@case
def ns_more_options():
    need_findmnt()
    T = os.environ["T"]
    st = os.stat(T + "/d")
    dev = "%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
    st = os.stat(T + "/a")
    deva = "%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
    subprocess.run(["mount", "-o", "remount,noatime,nosymfollow", T + "/n"], check=True)
    for m in ([], ["-l"], ["-J"], ["-r"], ["-P"]):
        for f in (["--shadowed"], ["--shadowed", "-R", "-T", T], ["--shadowed", "-i"],
                  ["--shadowed", "-t", "tmpfs"], ["--shadowed", T + "/d"],
                  ["--vfs-all", "-R", "-T", T], ["--vfs-all", "-o", "TARGET,VFS-OPTIONS,OPTIONS"],
                  ["--verbose", T + "/d"], ["-C", "-T", T + "/a/../d"],
                  ["-C", "-M", T + "/a/../d"], ["-C", T + "/d/"], ["-T", T + "/a/../d"],
                  ["-S", dev], ["-S", dev, T + "/d"], ["-S", dev, "lsmnt-d2"],
                  ["-S", dev, "lsmnt-d1", T + "/d"], ["-S", deva, "-T", T + "/a"],
                  ["-S", deva, T + "/c"], [dev], [deva, T + "/b"], ["-f", "-S", dev],
                  ["-i", "-S", dev, "-t", "tmpfs"]):
            same(m + f)


@case
def ns_listmount_target():
    # findmnt 2.42's --kernel=listmount table: -T finds a mount point only
    need_findmnt()
    T = os.environ["T"]
    os.makedirs(T + "/d/in", exist_ok=True)
    for k in ([], ["--kernel=listmount"]):
        for p in (T + "/d", T + "/d/", T + "/d/in", T + "/d/in/nosuch", T,
                  T + "/a/../d", T + "/d/in/.."):
            same(k + ["-T", p])
            same(k + ["-T", p, "-J", "-o", "TARGET,SOURCE"])


@case
def ns_verify_kernel():
    # -x checks the kernel's table with --kernel, -m and -N (findmnt's
    # TABTYPE_KERNEL), fstab otherwise: stdout, the summary on stderr and
    # the exit status are findmnt's
    need_findmnt()
    T = os.environ["T"]
    pid = str(os.getpid())
    for k in (["--kernel"], ["-k"], ["--kernel=listmount"], ["-m"], ["-N", pid]):
        for a in ([], ["--verbose"], ["-t", "tmpfs"], ["-f"], ["-O", "ro"],
                  ["--verbose", "-M", T + "/d"], [T + "/d"], ["-S", "lsmnt-d1"],
                  ["-i", "-t", "tmpfs,proc"], ["/"], ["-o", "LABEL"], ["-o", "ID"]):
            args = ["-x"] + k + a
            fr, fo, fe = run([FINDMNT] + args)
            lr, lo, le = run([L] + args)
            expect((fr, fo, fe) == (lr, lo, le.replace(b"lsmnt:", b"findmnt:")),
                   "%s: exit %d/%d, stdout %s, stderr %r / %r" % (
                       " ".join(args), fr, lr, first_diff(fo, lo), fe[-200:], le[-200:]))
    # what it checks is the table's: a mount of the namespace is there
    rc, out, _ = run([L, "-x", "--kernel", "--verbose", "-M", T + "/d"])
    expect(out.startswith((T + "/d\n").encode()) and b"target exists" in out,
           "-x --kernel -M %s/d: %r" % (T, out[:200]))


@case
def ns_columns():
    need_native()
    T = os.environ["T"]
    rows = jload(run([L, "-J", "-l", "-R", "-T", T, "-o",
                           "TARGET,PEER,MASTER,PROPAGATE-FROM,PROPAGATION,OPT-FIELDS,SUBTYPE,SB-SOURCE,FS-OPTIONS,VFS-OPTIONS,UNIQ-ID"])[1])["filesystems"]
    by = {r["target"]: r for r in rows}
    p, q, u = by[T + "/p"], by[T + "/q"], by[T + "/u"]
    expect(p["peer"] and p["master"] is None and p["opt-fields"] == "shared:%d" % p["peer"], "p %r" % p)
    expect(q["master"] == p["peer"] and q["peer"] is None, "q %r" % q)
    expect(q["propagate-from"] == p["peer"] and q["opt-fields"] == "master:%d" % p["peer"], "q %r" % q)
    expect(u["opt-fields"] == "unbindable" and u["propagation"] == "private,unbindable", "u %r" % u)
    expect(by[T + "/s"]["fs-options"] == "rw,sync,dirsync,lazytime", "sync %r" % by[T + "/s"])
    expect(by[T + "/ro"]["fs-options"].split(",")[0] == "ro", "ro sb %r" % by[T + "/ro"])
    expect(by[T + "/ro"]["vfs-options"].split(",")[0] == "ro", "ro sb: the mount is ro too")
    c = by[T + "/c"]
    expect(c["fs-options"].split(",")[0] == "rw", "ro bind: the superblock stays rw")
    mi = [e for e in mountinfo() if e["point"].startswith(T)]
    expect(len(mi) == len(rows), "%d rows, mountinfo %d" % (len(rows), len(mi)))
    for e in mi:
        same_point = [x for x in mi if x["point"] == e["point"]]
        r = [x for x in rows if x["target"] == e["point"]]
        expect(len(r) == len(same_point), "%r listed %d times" % (e["point"], len(r)))
        r = r[same_point.index(e)]   # stacked mounts: in the same order
        expect(r["sb-source"] == e["source"], "sb-source %r / %r" % (r["sb-source"], e["source"]))
        expect(set(r["opt-fields"].split() if r["opt-fields"] else []) == set(e["optional"]),
               "opt-fields %r / %r" % (r["opt-fields"], e["optional"]))
        expect(r["fs-options"] == e["super_opts"], "fs-options %r / %r" % (r["fs-options"], e["super_opts"]))
        expect(r["vfs-options"] == e["mnt_opts"], "vfs-options %r / %r" % (r["vfs-options"], e["mnt_opts"]))


@case
def ns_idmap():
    need_native()
    need_userns()
    T = os.environ["T"]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    # a user namespace to map through: 0 -> 1000, 10 ids
    p = subprocess.Popen(["unshare", "-U", "sleep", "30"])
    try:
        time.sleep(0.2)
        with open("/proc/%d/uid_map" % p.pid, "w") as f:
            f.write("0 1000 10\n")
        with open("/proc/%d/gid_map" % p.pid, "w") as f:
            f.write("0 2000 5\n")
        ufd = os.open("/proc/%d/ns/user" % p.pid, os.O_RDONLY)
        os.makedirs(T + "/idm", exist_ok=True)
        tfd = libc.syscall(428, -100, os.fsencode(T + "/a"), 1 | 0x80000)  # open_tree(OPEN_TREE_CLONE|CLOEXEC)
        if tfd < 0:
            skip("open_tree: %s" % os.strerror(ctypes.get_errno()))
        attr = ctypes.create_string_buffer(32)
        import struct
        struct.pack_into("QQQQ", attr, 0, 0x100000, 0, 0, ufd)  # MOUNT_ATTR_IDMAP
        if libc.syscall(442, tfd, b"", 0x1000, attr, 32) < 0:  # mount_setattr AT_EMPTY_PATH
            skip("no idmapped tmpfs mounts here: %s" % os.strerror(ctypes.get_errno()))
        if libc.syscall(429, tfd, b"", -100, os.fsencode(T + "/idm"), 4) < 0:  # move_mount F_EMPTY_PATH
            expect(False, "move_mount: %s" % os.strerror(ctypes.get_errno()))
    finally:
        p.kill()
        p.wait()
    r = jload(run([L, "-J", "-M", T + "/idm", "-o", "TARGET,UIDMAP,GIDMAP,VFS-OPTIONS"])[1])
    m = r["filesystems"][0]
    s = json.loads(tool_ok("statmnt", "--json", T + "/idm"))
    expect(m["uidmap"] == ",".join(s["mnt_uidmap"]) and m["gidmap"] == ",".join(s["mnt_gidmap"]),
           "%r / %r" % (m, s.get("mnt_uidmap")))
    expect(m["uidmap"] == "0 1000 10" and m["gidmap"] == "0 2000 5", "maps %r" % m)
    expect("idmapped" in m["vfs-options"], "vfs-options %r" % m["vfs-options"])


@case
def ns_other():
    need_findmnt()
    pid, T = os.environ["OTHER_PID"], os.environ["T"]
    # -N is findmnt's own option: same bytes
    for m in ([], ["-l"], ["-J"], ["-r"]):
        same(m + ["-N", pid])
        same(m + ["-N", pid, "-R", "-T", T])
    nsid = ns_id("/proc/%s/ns/mnt" % pid)
    want = run([FINDMNT, "-N", pid, "-J", "-l"])[1]
    for ns in ("pid:" + pid, "/proc/%s/ns/mnt" % pid, str(nsid), hex(nsid)):
        rc, out, err = run([L, "--ns", ns, "-J", "-l"])
        expect(rc == 0 and out == want, "--ns %s: %r" % (ns, err))
    # --all-namespaces holds both namespaces, each mount once, NS first
    rc, out, err = run([L, "--all-namespaces", "-J", "-l"])
    expect(rc == 0, err)
    rows = jload(out)["filesystems"]
    expect(list(rows[0])[0] == "ns", "NS is not the first column")
    seen = {r["ns"] for r in rows}
    expect(nsid in seen and ns_id() in seen, "namespaces %r" % seen)
    other = [r for r in rows if r["ns"] == nsid]
    expect(any(r["source"] == "lsmnt-other" for r in other), "the other namespace's mount")
    expect(not any(r["source"] == "lsmnt-other" for r in rows if r["ns"] != nsid), "leak")
    ids = [r["ns"] for r in rows]
    expect(ids == sorted(ids), "--order id: namespaces not by ID")
    rc, out, err = run([L, "--all-namespaces", "--order", "tree", "-r", "-n", "-o", "NS"])
    got = list(map(int, out.split()))
    runs = [x for i, x in enumerate(got) if i == 0 or got[i - 1] != x]
    expect(rc == 0 and {nsid, ns_id()} <= set(got), "--order tree: %r" % err)
    expect(len(runs) == len(set(runs)), "--order tree: a namespace split up")


@case
def ns_churn():
    T = os.environ["T"]
    # at least 4 s and 20 runs (a slow build, ASan, takes longer for 20)
    start = time.monotonic()
    n = 0
    envs = [None]
    roots = mi_roots()
    if run([L, "-l"], {"MNTKIT_BACKEND": "mountinfo"})[0] == 0:
        envs.append({"MNTKIT_BACKEND": "mountinfo"})
    while (time.monotonic() < start + 4 or n < 20) and time.monotonic() < start + 120:
        # (UNIQ-ID from listmount(2): findmnt 2.42 fills it there only)
        for args in (["-J"], ["-J", "-l"],
                     ["-r", "--kernel=listmount", "-o", "ID,UNIQ-ID,TARGET,FSTYPE"], [],
                     ["-J", "-o", "TARGET,ID,PARENT"]):
            env = envs[n % len(envs)]
            rc, out, err = run([L] + args, env)
            n += 1
            expect(rc == 0 and err == b"", "run %d %s %s: exit %d %r" % (n, env, args, rc, err))
            if args and args[0] == "-J":
                d = jload(out)
                expect(d["filesystems"], "empty JSON")
            if args[-1:] == ["TARGET,ID,PARENT"]:
                # the roots of mountinfo (one tree, "/", but in a chroot
                # whose root is no mount point), every mount under its
                # parent, the test's own there
                fs = d["filesystems"]
                got = sorted(r["target"] for r in fs)
                expect(got == roots, "%s: roots %r, mountinfo's %r" % (env, got[:4], roots[:4]))
                todo, seen = list(fs), set()
                while todo:
                    m = todo.pop()
                    seen.add(m["target"])
                    for c in m.get("children", []):
                        expect(c["parent"] == m["id"], "%s under %s" % (c["target"], m["target"]))
                        todo.append(c)
                expect(T in seen and T + "/a" in seen, "the test's mounts are gone")
            elif args and args[0] == "-r":
                lines = out.split(b"\n")
                expect(lines[-1] == b"", "unterminated output")
                for l in lines[1:-1]:
                    f = l.split(b" ")
                    expect(len(f) == 4 and f[0].isdigit() and f[3] and
                           (f[1].isdigit() or (env and not f[1])),
                           "half a record: %r" % l)
    expect(n >= 20, "only %d runs" % n)


@case
def ns_child_order():
    need_findmnt()
    T = os.environ["T"]
    for m in ([], ["-J"], ["-l"], ["-r"]):
        same(m + ["-R", "-T", T + "/ord", "-o", "TARGET,SOURCE,ID"])
        same(m + ["-t", "tmpfs", "-o", "TARGET,ID"])


@case
def ns_stream():
    need_findmnt()
    compare_modes([["-l"], ["-l", "-n"], ["-r"], ["-P"], ["-J", "-l"], [], ["-J"]],
                  colsets=COLSETS[:3])
    # rows longer than the kept tree's block expects: its text moves out
    compare_modes([[], ["-J"]], colsets=COLSETS[5:6])


@case
def ns_stream_big():
    need_findmnt()
    compare_modes([["-l"], ["-r"], ["-J", "-l"], [], ["-J"]],
                  colsets=COLSETS[:1])


@case
def ns_escape_words():
    need_findmnt()
    T = os.environ["T"]
    for loc in ("C.UTF-8", "C"):
        env = {"LC_ALL": loc}
        modes = [["-l"], ["-r"], ["-P"], ["-J", "-l"]]
        compare_modes(modes + [[], ["-J"]], env=env,
                      colsets=COLSETS[:1] + COLSETS[3:4])
        compare_modes(modes + [[], ["-J"]], extra=["-R", "-T", T + "/esc"],
                      env=env, colsets=COLSETS[:1])


@case
def ns_chroot_tree():
    C = os.environ["CHROOT"]
    for root in (C, C + "/plain"):
        for m in ([], ["-J"], ["-o", "TARGET,ID,PARENT"], ["-J", "-o", "ID,TARGET"],
                  ["--ascii", "-n"]):
            fr, fo, fe = run(["chroot", root, FINDMNT] + m)
            lr, lo, le = run(["chroot", root, L] + m)
            expect((fr, fo) == (lr, lo) and le == b"",
                   "chroot %s %s: exit %d/%d, %r / %r %r" % (root, m, fr, lr, fo[:300], lo[:300], le))
        if NATIVE:
            roots = jload(run(["chroot", root, L, "-J"])[1])["filesystems"]
            expect((len(roots) == 1) == (root == C), "%s: %d roots" % (root, len(roots)))


if __name__ == "__main__":
    main()
