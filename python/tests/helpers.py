# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the tests of the mntkit module share.

The sources of truth are independent of the module: lsmnt (its JSON, a
program of the build), /proc/PID/mountinfo and mount(8). The tests that
mount run only in a mount namespace of their own (tests/cli/python.sh
runs pytest under `unshare -m --propagation private`): never_host()
skips them in the host's namespace.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
BUILDDIR = os.environ.get("MNTKIT_BUILDDIR", "")
LSMNT = os.path.join(BUILDDIR, "tools", "lsmnt")

# lsmnt's columns, and the Mount attribute (or function of a Mount) each
# one is
COLUMNS = {
    # lsmnt shows only unique IDs there (its UNIQ-ID, as findmnt 2.42's,
    # only with --kernel=listmount, whose other columns are findmnt's
    # listmount ones: each mount's unique ID is checked as its children's
    # UNIQ-PARENT)
    "uniq-parent": lambda m: m.parent_id if m.parent_id > 2 ** 31 else None,
    "id": lambda m: m.old_id,
    "parent": lambda m: m.old_parent_id,
    "target": lambda m: m.mount_point,
    "source": lambda m: m.source,
    "sb-source": lambda m: m.sb_source,
    "fstype": lambda m: m.fs_type + ("." + m.fs_subtype
                                     if m.fs_subtype else ""),
    "subtype": lambda m: m.fs_subtype,
    "options": lambda m: m.options,
    "vfs-options": lambda m: m.vfs_options,
    "fs-options": lambda m: m.fs_options,
    "propagation": lambda m: m.propagation,
    "maj:min": lambda m: "%d:%d" % m.dev if m.dev != (0, 0) else None,
    "fsroot": lambda m: m.root,
    "peer": lambda m: m.peer_group or None,
    "master": lambda m: m.master or None,
    "propagate-from": lambda m: m.propagate_from or None,
    "ns": lambda m: m.ns_id,
    "uidmap": lambda m: ",".join(m.uidmap) if m.uidmap else None,
    "gidmap": lambda m: ",".join(m.gidmap) if m.gidmap else None,
}


def need_lsmnt():
    if not os.access(LSMNT, os.X_OK):
        pytest.skip("no lsmnt: set MNTKIT_BUILDDIR to the build directory")


def lsmnt(*args, env=None):
    """lsmnt ARGS: its JSON, parsed."""
    need_lsmnt()
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([LSMNT] + list(args), capture_output=True, env=e,
                       timeout=60)
    assert p.returncode == 0, "lsmnt %s: exit %d: %s" % (
        " ".join(args), p.returncode, p.stderr.decode(errors="replace"))
    return json.loads(p.stdout.decode("utf-8", "surrogateescape"))


def lsmnt_list(*args, env=None):
    """The rows of `lsmnt -J -l -o COLUMNS ARGS`, in lsmnt's order."""
    cols = ",".join(c.upper() for c in COLUMNS)
    return lsmnt("-J", "-l", "-o", cols, *args, env=env)["filesystems"]


def row_of(m):
    """A Mount as lsmnt's row."""
    return {col: get(m) for col, get in COLUMNS.items()}


def child(code, backend=None, timeout=120, env=None):
    """Run CODE in a new Python (this one) with the module of the build,
    the helpers importable and MNTKIT_BACKEND=BACKEND; its last stdout
    line is JSON: the result. Fails the test with the child's stderr when
    it exits non-zero or runs out of time."""
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(
        [HERE] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    if backend:
        e["MNTKIT_BACKEND"] = backend
    e.update(env or {})
    p = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       env=e, timeout=timeout)
    err = p.stderr.decode(errors="replace").strip()
    assert p.returncode == 0, "child (%s) exit %d: %s" % (
        backend or "auto", p.returncode, err[-1500:])
    out = p.stdout.decode().strip().splitlines()
    return json.loads(out[-1]) if out else None


def in_own_namespace():
    """Is this process in a mount namespace of its own: the one
    tests/cli/python.sh made (MNTKIT_TEST_PRIVATE_NS names it), or one
    other than PID 1's?"""
    mine = os.stat("/proc/self/ns/mnt").st_ino
    if os.environ.get("MNTKIT_TEST_PRIVATE_NS") == str(mine):
        return True
    try:
        return mine != os.stat("/proc/1/ns/mnt").st_ino
    except OSError:
        return False


def never_host():
    """Skip unless root in a mount namespace of our own."""
    if os.geteuid() != 0:
        pytest.skip("needs root (mounts in a private namespace)")
    if not in_own_namespace():
        pytest.skip("mounts only in a private mount namespace: run "
                    "tests/cli/python.sh, or pytest under unshare -m "
                    "--propagation private")


def sh(*argv):
    p = subprocess.run(list(argv), capture_output=True, timeout=60)
    assert p.returncode == 0, "%s: exit %d: %s" % (
        " ".join(argv), p.returncode, p.stderr.decode(errors="replace"))
    return p.stdout.decode()


def mountinfo_parents(pid="self"):
    """(old ID, parent's old ID, mount point) of each line of
    /proc/PID/mountinfo."""
    out = []
    with open("/proc/%s/mountinfo" % pid, "rb") as f:
        for line in f.read().decode("utf-8", "surrogateescape").splitlines():
            fields = line.split(" ")
            point = re.sub(r"\\([0-7]{3})",
                           lambda x: chr(int(x.group(1), 8)), fields[4])
            out.append((int(fields[0]), int(fields[1]), point))
    return out


def mountinfo(pid="self"):
    """(old ID, mount point) of each line of /proc/PID/mountinfo."""
    return [(i, point) for i, _, point in mountinfo_parents(pid)]


def seen_root():
    """The mount point of a mount the caller sees in its mountinfo and
    reaches, for a test's example mount: "/", but in a chroot whose root
    directory is no mount point. There the mount that holds / has its
    mount point outside the root: mountinfo shows it not, the mountinfo
    backend does not know it and natively it has no mount point. Then the
    mount point of the first mount mountinfo shows whose parent it does
    not show (a root of the tree the caller sees)."""
    mi = mountinfo_parents()
    if any(point == "/" for _, _, point in mi):
        return "/"
    ids = {i for i, _, _ in mi}
    roots = [point for i, parent, point in mi
             if parent not in ids or parent == i]
    assert roots, "mountinfo shows no mount"
    return roots[0]


class Workspace:
    """A tmpfs of a test's own on a fresh directory, and what it mounts
    there: everything is unmounted (lazily) at the end."""

    def __init__(self, name):
        self.dir = tempfile.mkdtemp(prefix="mntkit-py-")
        self.name = name
        sh("mount", "-t", "tmpfs", "-o", "size=4m", name, self.dir)
        sh("mount", "--make-private", self.dir)

    def path(self, *parts):
        p = os.path.join(self.dir, *parts)
        os.makedirs(p, exist_ok=True)
        return p

    def close(self):
        # lazily: the whole tree below goes with it, and no path below
        # is looked at (one may be on a dead FUSE server's mount)
        subprocess.run(["umount", "-l", self.dir], capture_output=True)
        try:
            os.rmdir(self.dir)
        except OSError:
            pass


def ns_root_prefix():
    """The caller's root directory as a process at its mount namespace's
    root names it: "" where the two are the same (a host, a container),
    "/srv/jail" in a chroot at /srv/jail (nsenter into the namespace moves
    a process's root there; its --wd, opened before, is the old root)."""
    r = sh("nsenter", "--mount=/proc/self/ns/mnt", "--wd=/", "pwd", "-P").strip()
    return "" if r == "/" else r


class OtherNamespace:
    """A process in a mount namespace of its own that mounts a tmpfs named
    SOURCE on a directory and sleeps, at the namespace's root as a
    container's process: the kernel names a foreign namespace's mounts
    from its root, and so does the process's mountinfo. point is the
    directory as named from there (the caller's path but in a chroot,
    where the chroot's path comes first). Made from the root of the
    caller's namespace, where / is a mount point."""

    def __init__(self, source, point):
        self.source = source
        self.point = point = ns_root_prefix() + point
        self.proc = subprocess.Popen(
            ["nsenter", "--mount=/proc/self/ns/mnt",
             "unshare", "-m", "--propagation", "private", "sh", "-c",
             'mount -t tmpfs "$1" "$2" && echo ready && exec sleep 300',
             "sh", source, point], stdout=subprocess.PIPE)
        line = self.proc.stdout.readline()
        assert line == b"ready\n", "the other namespace did not start"
        self.pid = self.proc.pid
        deadline = time.monotonic() + 10
        while not any(p == point for _, p in mountinfo(self.pid)):
            assert time.monotonic() < deadline, "no mount in %d" % self.pid
            time.sleep(0.02)

    def run(self, *argv):
        """Run ARGV in the namespace (nsenter)."""
        return sh("nsenter", "-t", str(self.pid), "-m", *argv)

    def close(self):
        self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()
