# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python cases of tests/cli/lsmnt-tab.sh.

Compare lsmnt with findmnt over table files.
"""

import os
import random
import subprocess

from mntkit_test import case, expect, FINDMNT, main, need_findmnt

L = os.environ["LSMNT"]
T = os.environ["TABS"]


def run(argv, env):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run(argv, capture_output=True, env=e)
    return p.returncode, p.stdout


def same(args, env=None):
    f = run([FINDMNT] + args, env)
    l = run([L] + args, env)
    if f != l:
        fl, ll = f[1].split(b"\n"), l[1].split(b"\n")
        i = next((k for k, (a, b) in enumerate(zip(fl, ll)) if a != b),
                 min(len(fl), len(ll)))
        expect(False, "%s: exit %d/%d, line %d: findmnt %r / lsmnt %r" % (
            " ".join(args), f[0], l[0], i + 1,
            fl[i] if i < len(fl) else b"<end>",
            ll[i] if i < len(ll) else b"<end>"))


MODES = [[], ["-l"], ["-r"], ["-J"], ["-P"], ["-n"], ["-a"], ["-J", "-l"]]
COLS = ["SOURCE,TARGET,FSTYPE,OPTIONS,VFS-OPTIONS,FS-OPTIONS,FREQ,PASSNO",
        "+ID,PARENT,FSROOT,MAJ:MIN,PROPAGATION,OPT-FIELDS",
        "TARGET,FSTYPE,FREQ,PASSNO,FS-OPTIONS", "source,target,passno"]
FILTERS = [["-t", "ext4"], ["-t", "noext4,xfs"], ["-O", "noauto"],
           ["-O", "ro"], ["-O", "nosuid,mode=1777"], ["-S", "LABEL=boot"],
           ["-S", "/dev/sda3"], ["-T", "/"], ["-M", "/"], ["/"],
           ["/dev/sda3"], ["-i", "-t", "ext4"], ["-f"], ["-f", "-t", "tmpfs"],
           ["-n", "-o", "SOURCE", "/"], ["-d", "backward"], ["-U"], ["-v"],
           ["-R", "-T", "/"], ["--tree", "-t", "tmpfs"], ["-t", "nosuch"],
           ["-A", "-D", "-o", "SOURCE,TARGET"], ["--real"], ["--pseudo"],
           ["/dev/sda1", "/"], ["-S", "0:30"], ["-t", "xfs,ext4"], ["-e"],
           ["-c"], ["-e", "-c", "-o", "+SOURCES"], ["-C", "/"],
           ["-C", "-T", "/proc"]]


def compare_file(path, extra=()):
    for m in MODES:
        same(["-F", path] + m + list(extra))
        for c in COLS:
            same(["-F", path] + m + ["-o", c] + list(extra))
    for f in FILTERS:
        for m in ([], ["-J"], ["-r"]):
            same(["-F", path] + m + f + list(extra))


@case
def tab_fstab():
    need_findmnt()
    compare_file(T + "/fstab")


@case
def tab_mtab():
    need_findmnt()
    compare_file(T + "/mtab")


@case
def tab_mountinfo():
    need_findmnt()
    compare_file(T + "/mountinfo")


@case
def tab_mountinfo_unordered():
    need_findmnt()
    compare_file(T + "/mountinfo2")
    for a in (["--shadowed"], ["-R", "-T", "/dev"], ["-U", "-J"]):
        same(["-F", T + "/mountinfo2"] + a)
    for a in ([], ["-J"], ["--target", "/"], ["-T", "/sys/x/y"], ["-U"],
              ["--kernel", "--tree"]):
        same(["-F", T + "/mountinfo-nonroot"] + a)
    # the trees after the first (and -U's: libmount's root of the table
    # left, then the others)
    for f in ("mountinfo-uniq", "mountinfo-roots", "mountinfo-orphans"):
        for m in ([], ["-J"], ["-r"], ["-o", "TARGET,ID,PARENT"]):
            for a in ([], ["-t", "tmpfs"], ["-t", "ext4"], ["-i", "-t", "tmpfs"],
                      ["-d", "backward", "-t", "tmpfs"], ["-Q", "ID!=51"],
                      ["-U"], ["-U", "-d", "backward"], ["-U", "-t", "tmpfs"],
                      ["-U", "-R", "-T", "/x"], ["-U", "-R", "-T", "/t"],
                      ["-U", "-i", "-t", "sysfs"], ["-U", "-f"], ["-U", "-l"]):
                same(["-F", T + "/" + f] + m + a)


def random_table(rng):
    """A random mountinfo of a few mounts: IDs out of order (as reused ones
    are), several roots, mounts stacked on their parent's target or beside
    a sibling's, children listed before their parents. Its lines."""
    n = rng.randint(1, 14)
    ids = rng.sample(range(1, 80), n)
    mounts = []  # (id, parent, target, fstype)
    for k, i in enumerate(ids):
        kind = rng.random()
        if k == 0 or kind < 0.2:
            parent = rng.choice((100, 101, 102, 103))
            target = rng.choice(("/", "/nonexistent-mntkit/r%d" % (k % 3)))
        else:
            p = mounts[rng.randrange(k)]
            parent = p[0]
            if kind < 0.35:
                target = p[2]  # on top of its parent
            elif kind < 0.5:
                sibs = [m[2] for m in mounts if m[1] == parent]
                target = rng.choice(sibs) if sibs else p[2]
            else:
                target = p[2].rstrip("/") + "/d%d" % rng.randrange(3)
        mounts.append((i, parent, target, rng.choice(("tmpfs", "ext4", "proc"))))
    order = list(range(n))
    if rng.random() < 0.5:
        rng.shuffle(order)
    else:  # mount order, a few moved
        for _ in range(rng.randrange(3)):
            a, b = rng.randrange(n), rng.randrange(n)
            order[a], order[b] = order[b], order[a]
    return ["%d %d 0:%d / %s rw - %s src%d rw" % (m[0], m[1], m[0], m[2], m[3], m[0])
            for m in (mounts[k] for k in order)]


@case
def tab_random_trees():
    # the tree's further roots, filters over them, -U's drops and moves:
    # findmnt's trees of random tables
    need_findmnt()
    rng = random.Random(int(os.environ.get("MNTKIT_TAB_SEED", "4242")))
    path = T + "/random"
    for _ in range(150):
        lines = random_table(rng)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        for a in ([], ["-t", "tmpfs"], ["-i", "-t", "tmpfs"], ["-U"],
                  ["-U", "-t", "tmpfs"], ["-d", "backward"],
                  ["-U", "-d", "backward", "-t", "ext4,proc"],
                  ["-Q", "FSTYPE != 'proc'"]):
            f0 = run([FINDMNT, "-F", path, "-o", "TARGET,ID,PARENT"] + a, None)
            l0 = run([L, "-F", path, "-o", "TARGET,ID,PARENT"] + a, None)
            # one line: its last is the reason lib.sh prints
            expect(f0 == l0, "%s of %s: findmnt (exit %d) %r, lsmnt (exit %d) %r" % (
                " ".join(a), " | ".join(lines), f0[0], f0[1], l0[0], l0[1]))


@case
def tab_empty():
    need_findmnt()
    for f in ("empty", "comments", "no-such-file"):
        for m in ([], ["-J"], ["-l", "-o", "FREQ"]):
            same(["-F", T + "/" + f] + m)


@case
def tab_fstab_option():
    need_findmnt()
    env = {"LIBMOUNT_FSTAB": T + "/fstab"}
    for a in ([], ["-J"], ["--fstab", "-r"], ["-s", "-t", "swap"],
              ["-s", "-o", "+FREQ,PASSNO"], ["-s", "-S", "UUID=1234-abcd"]):
        same(["-s"] + a if a[:1] not in (["-s"], ["--fstab"]) else a, env)
    same(["-s", "-F", T + "/mtab"], env)
    same(["-F", T + "/fstab", "-F", T + "/mtab"])
    same(["-F", T + "/fstab", "-F", T + "/mtab", "-J"])


@case
def mtab_merge():
    need_findmnt()
    u = T + "/utab"
    with open(u, "w") as f:
        f.write("SRC=proc TARGET=/proc ROOT=/ OPTS=x-foo,user=me\n"
                "SRC=nomatch TARGET=/sys ROOT=/ OPTS=x-bar\n"
                "TARGET=/sys ROOT=/ OPTS=x-nosrc\n"
                "SRC=sysfs TARGET=/sys ROOT=/ OPTS=noauto,x-sys\n"
                "SRC=sysfs TARGET=/sys ROOT=/ OPTS=x-second\n"
                "bad line\n")
    env = {"LIBMOUNT_UTAB": u}
    for a in ([], ["-J"], ["-r", "-o", "TARGET,OPTIONS"], ["-O", "x-foo"],
              ["-O", "noauto"], ["/proc"], ["-T", "/sys"], ["--tree"],
              ["-P", "-t", "sysfs,proc"], ["-o", "+VFS-OPTIONS,FS-OPTIONS"]):
        same(["-m"] + a, env)
    same(["-m"], {"LIBMOUNT_UTAB": T + "/no-such-utab"})


@case
def ns_mtab_merge():
    need_findmnt()
    d = T + "/m"
    os.makedirs(d + "/a b", exist_ok=True)
    os.makedirs(d + "/c", exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "tmp src", d + "/a b"], check=True)
    os.makedirs(d + "/a b/sub", exist_ok=True)
    subprocess.run(["mount", "--bind", d + "/a b/sub", d + "/c"], check=True)
    subprocess.run(["mount", "-t", "tmpfs", "top", d + "/c"], check=True)
    u = T + "/utab-ns"
    m = d.replace(" ", "\\040")
    with open(u, "w") as f:
        f.write("SRC=tmp\\040src TARGET=%s/a\\040b ROOT=/ OPTS=x-space\n" % m)
        f.write("SRC=tmp\\040src TARGET=%s/c ROOT=/sub OPTS=x-bind\n" % m)
        f.write("SRC=top TARGET=%s/c ROOT=/ OPTS=x-top\n" % m)
    env = {"LIBMOUNT_UTAB": u}
    for a in ([], ["-J"], ["-R", "-T", d], ["-O", "x-bind"], ["--tree", "-R", "-T", d]):
        same(["-m"] + a, env)


@case
def tab_target_walk():
    need_findmnt()
    d = os.path.realpath(T) + "/walk"
    os.makedirs(d + "/x/y/z", exist_ok=True)
    os.makedirs(d + "/xy", exist_ok=True)
    os.makedirs(d + "/x/q", exist_ok=True)
    f = T + "/fstab-walk"
    with open(f, "w") as o:
        o.write("/dev/sda1 / ext4 defaults 0 1\n"
                "/dev/sdb1 %s/x/ ext4 defaults 0 2\n"
                "/dev/sdc1 %s/x/y ext4 defaults 0 2\n" % (d, d))
    for a in (["-T", d + "/x/q"], ["-T", d + "/x/y/z"], ["-T", d + "/x/y"], ["-T", d + "/x/"],
              ["-T", d + "/xy"], ["-T", d + "/x/y/../z"], ["-C", "-T", d + "/x/y/z"],
              ["-M", d + "/x"], [d + "/x/"], ["-J", "-T", d + "/x/y/z"]):
        same(["-F", f] + a)
        # with -m, findmnt finds the mount point itself only
        same(["-F", f, "-m"] + a)


@case
def pseudo_types():
    # --pseudo and --real by findmnt's (libmount's) list of pseudo types:
    # a fstab of every type that list has, and of some it has not
    need_findmnt()
    types = ("anon_inodefs apparmorfs autofs bdev binder binfmt_misc bpf cgroup "
             "cgroup2 configfs cpuset debugfs devfs devpts devtmpfs dlmfs dmabuf "
             "drm efivarfs fuse fuse.archivemount fuse.avfsd fuse.dumpfs "
             "fuse.encfs fuse.gvfs-fuse-daemon fuse.gvfsd-fuse fuse.kio-fuse "
             "fuse.lxcfs fuse.portal fuse.rofiles-fuse fuse.vmware-vmblock "
             "fuse.xwmfs fusectl hugetlbfs ipathfs mqueue nfsd none nsfs overlay "
             "pidfs pipefs proc pstore ramfs resctrl rootfs rpc_pipefs securityfs "
             "selinuxfs smackfs sockfs spufs sysfs tmpfs tracefs vboxsf virtiofs "
             "ext4 xfs btrfs nfs nfs4 cifs fuse.sshfs fuseblk squashfs erofs "
             "overlayfs fuse.portal2 tmpfs2 9p ceph zfs vfat iso9660").split()
    path = T + "/pseudo-types"
    with open(path, "w") as f:
        for t in types:
            f.write("src-%s /m/%s %s defaults 0 0\n" % (t, t, t))
    for a in (["--pseudo"], ["--real"], ["--pseudo", "-t", "notmpfs"]):
        same(["-F", path, "-l", "-o", "FSTYPE"] + a)


@case
def tab_verify():
    need_findmnt()
    vx = T + "/verify"
    with open(vx, "w") as f:
        f.write("LABEL=mntkit-no-such-label /tmp ext4 rw 0 0\n"
                "LABEL=mntkit-no-such-label2 /tmp ext4 noauto 0 0\n"
                "foo=bar /tmp none rw\n"
                "/dev/null /tmp ext4 bind\n"
                "/tmp /tmp auto rw\n"
                "/dev/sda3 none swap discard=bad,pri=1x\n"
                "/dev/sda4 none swap discard=once,pri=-5\n"
                "/etc/passwd / xfs rw 0 0\n"
                "proc /proc proc defaults 0 0\n"
                "/dev/null /nonexistent-mntkit/d mntkitbogusfs noauto\n"
                "/dev/null /tmp/ ext4 rw\n"
                "/dev/null /etc/passwd ext4 rw\n"
                "/dev/a /nonexistent-mntkit/x ext4 rw 0 1\n"
                "/dev/b /nonexistent-mntkit/x/y ext4 rw 0 2\n"
                "/dev/c /nonexistent-mntkit/x ext4 rw\n"
                "server:/e /nonexistent-mntkit/n nfs rw,_netdev\n"
                "tmpfs /tmp tmpfs mode=1777\n"
                "/dev/d / ext4 rw 0 2\n"
                "bad line\n")
    good = T + "/verify-good"
    with open(good, "w") as f:
        f.write("proc /proc proc defaults 0 0\ntmpfs /tmp tmpfs rw\n")


    def both(args, env=None):
        same(args, env)
        e = dict(os.environ)
        e.update(env or {})
        f = subprocess.run([FINDMNT] + args, capture_output=True, env=e)
        l = subprocess.run([L] + args, capture_output=True, env=e)
        fs = [x for x in f.stderr.split(b"\n") if b"parse error" not in x]
        ls = [x for x in l.stderr.split(b"\n") if b"parse error" not in x]
        expect(fs == ls, "%s: stderr %r / %r" % (" ".join(args), fs, ls))


    for f in (vx, good, T + "/fstab", T + "/mtab", T + "/mountinfo",
              T + "/empty"):
        for a in ([], ["--verbose"], ["-t", "ext4"], ["-f"], ["-O", "bind"],
                  ["--verbose", "-S", "/dev/null"]):
            both(["-x", "-F", f] + a)
    both(["--verify"], {"LIBMOUNT_FSTAB": vx})
    both(["-x", "-s", "--verbose"], {"LIBMOUNT_FSTAB": good})


@case
def ns_verify_dev():
    need_findmnt()
    for a in ([], ["--verbose"], ["-S", os.environ["LOOP"]]):
        same(["-x", "-F", T + "/dev"] + a)
    same(["-F", T + "/dev", "-e", "-o", "+SOURCES"])


if __name__ == "__main__":
    main()
