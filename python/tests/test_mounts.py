# SPDX-License-Identifier: LGPL-2.1-or-later
"""mounts(), stat() and Mount: the answers lsmnt gives (its JSON, every
column a Mount has), and mountinfo's, on the native backend and on the
emulation (MNTKIT_BACKEND=mountinfo, in a child process: the backend is
chosen once per process)."""
import os
import pathlib

import pytest

import mntkit
from helpers import (COLUMNS, Workspace, child, in_own_namespace,
                     lsmnt_list, mountinfo, need_lsmnt, row_of, seen_root,
                     sh)

BACKENDS = ["native", "mountinfo"]


@pytest.fixture(scope="module")
def variety():
    """Mounts of many kinds, where the tests may mount (else the table as
    it is): a tmpfs with options, a bind of a subdirectory, a read-only
    bind, a shared mount and a slave of it, an unbindable one, two
    stacked on one point, a point with a space, a nosuid,nodev,noexec
    one."""
    if os.geteuid() != 0 or not in_own_namespace():
        yield None
        return
    ws = Workspace("mntkit-py-variety")
    d = ws.path
    sh("mount", "-t", "tmpfs", "-o", "size=512k,nr_inodes=64",
       "mntkit-py-a", d("a"))
    d("a", "sub")
    sh("mount", "--bind", d("a", "sub"), d("b"))
    sh("mount", "--bind", d("a"), d("c"))
    sh("mount", "-o", "remount,bind,ro", d("c"))
    sh("mount", "-t", "tmpfs", "mntkit-py-p", d("p"))
    sh("mount", "--make-shared", d("p"))
    sh("mount", "--bind", d("p"), d("q"))
    sh("mount", "--make-slave", d("q"))
    sh("mount", "-t", "tmpfs", "mntkit-py-u", d("u"))
    sh("mount", "--make-unbindable", d("u"))
    sh("mount", "-t", "tmpfs", "mntkit-py-s1", d("s"))
    sh("mount", "-t", "tmpfs", "mntkit-py-s2", d("s"))
    sh("mount", "-t", "tmpfs", "mntkit-py-space", d("with space"))
    sh("mount", "-t", "tmpfs", "-o", "nosuid,nodev,noexec,noatime",
       "mntkit-py-n", d("n"))
    yield ws
    ws.close()


ROWS = """
import json, mntkit, helpers
print(json.dumps({"backend": mntkit.backend(),
                  "rows": [helpers.row_of(m) for m in mntkit.mounts()]}))
"""


def first_difference(got, want):
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            diff = {k: (g.get(k), w.get(k)) for k in w if g.get(k) != w[k]}
            return "row %d (%s): mntkit/lsmnt %r" % (i, w.get("target"),
                                                      diff)
    return "%d rows, lsmnt %d" % (len(got), len(want))


@pytest.mark.parametrize("backend", BACKENDS)
def test_mounts_equal_lsmnt(variety, backend):
    need_lsmnt()
    got = child(ROWS, backend)
    want = lsmnt_list(env={"MNTKIT_BACKEND": backend})
    if backend == "native" and got["backend"] != "native":
        pytest.skip("no native backend here (no statmount/listmount)")
    assert got["backend"] == backend
    assert got["rows"] == want, first_difference(got["rows"], want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_mounts_in_mountinfo_order(variety, backend):
    rows = child(ROWS, backend)["rows"]
    assert [(r["id"], r["target"]) for r in rows] == mountinfo()


def test_mount_fields_of_variety(variety):
    if variety is None:
        pytest.skip("needs root in a private mount namespace")
    by_point = {}
    for m in mntkit.mounts():
        by_point[m.mount_point] = m  # the last: the top of a stack
    d = variety.dir
    a, b, c = (by_point[os.path.join(d, x)] for x in "abc")
    assert (a.fs_type, a.sb_source, a.source, a.root) == \
        ("tmpfs", "mntkit-py-a", "mntkit-py-a", "/")
    assert "size=512k" in a.options and a.opt_array is not None and \
        "nr_inodes=64" in a.opt_array
    assert a.fs_subtype is None
    assert (b.root, b.source) == ("/sub", "mntkit-py-a[/sub]")
    assert b.dev == a.dev and b.sb_magic == a.sb_magic == 0x01021994
    assert c.vfs_options.startswith("ro") and a.vfs_options.startswith("rw")
    assert c.attr & 1 and not a.attr & 1  # MOUNT_ATTR_RDONLY
    p, q = by_point[os.path.join(d, "p")], by_point[os.path.join(d, "q")]
    assert p.propagation == "shared" and p.peer_group > 0
    assert q.propagation == "private,slave" and q.master == p.peer_group
    u = by_point[os.path.join(d, "u")]
    assert u.propagation == "private,unbindable"
    s = by_point[os.path.join(d, "s")]
    assert s.sb_source == "mntkit-py-s2"
    assert by_point[os.path.join(d, "with space")].sb_source == \
        "mntkit-py-space"
    n = by_point[os.path.join(d, "n")]
    assert n.vfs_options == "rw,nosuid,nodev,noexec,noatime"
    root = mntkit.stat(d)
    assert root.parent_id == mntkit.stat(os.path.dirname(d)).id
    assert root.old_parent_id == mntkit.stat(os.path.dirname(d)).old_id


STAT_ALL = """
import json, mntkit, helpers
rows = []
for m in mntkit.mounts():
    s = mntkit.stat(m.id)
    assert s == m and s.id == m.id, (s, m)
    rows.append(helpers.row_of(s))
print(json.dumps(rows))
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_stat_of_every_id_equals_lsmnt(variety, backend):
    need_lsmnt()
    got = child(STAT_ALL, backend)
    want = lsmnt_list(env={"MNTKIT_BACKEND": backend})
    assert got == want, first_difference(got, want)


class Opened:
    """An O_PATH fd of a path, with fileno()."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_PATH)

    def fileno(self):
        return self.fd

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        os.close(self.fd)


def test_stat_of_a_path_file_and_pathlike(variety):
    need_lsmnt()
    want = {r["id"]: r for r in lsmnt_list()}
    # "/" but in a chroot whose root is no mount point (lsmnt lists
    # only the mounts mountinfo shows)
    paths = [seen_root(), "/proc", "/proc/self", "/sys"]
    if variety:
        paths += [variety.path("a", "sub"), variety.path("with space"),
                  variety.path("b")]
    for path in paths:
        m = mntkit.stat(path)
        assert row_of(m) == want[m.old_id], path
        assert mntkit.stat(path.encode()) == m
        assert mntkit.stat(pathlib.Path(path)) == m
        with Opened(path) as f:
            assert mntkit.stat(f) == m
    top = [r for r in lsmnt_list() if r["target"] == "/proc"][-1]
    assert mntkit.stat("/proc").old_id == top["id"]
    if variety:
        assert mntkit.stat(variety.path("b")).root == "/sub"
        assert mntkit.stat(variety.path("s")).sb_source == "mntkit-py-s2"


def test_id_from_old():
    for m in mntkit.mounts():
        assert mntkit.id_from_old(m.old_id) == m.id
    with pytest.raises(FileNotFoundError) as e:
        mntkit.id_from_old(2 ** 31 - 1)
    assert isinstance(e.value, mntkit.Error)


def test_mount_is_equal_and_hashable_by_id():
    a = mntkit.stat(seen_root())
    b = [m for m in mntkit.mounts() if m.id == a.id][0]
    assert a == b and not a != b and hash(a) == hash(b) and a is not b
    assert len({a, b}) == 1
    others = [m for m in mntkit.mounts() if m.id != a.id]
    assert others and all(m != a for m in others)
    assert a != a.id and a != str(a)


def test_mount_repr_and_read_only():
    m = mntkit.stat("/proc")
    r = repr(m)
    assert r.startswith("<mntkit.Mount id=%d " % m.id)
    assert "mount_point='/proc'" in r and "fs_type='proc'" in r
    for attr in ["id", "mount_point"] + [a for a in dir(m)
                                         if not a.startswith("_")]:
        with pytest.raises(AttributeError):
            setattr(m, attr, 1)
    with pytest.raises(TypeError):
        mntkit.Mount()


def test_fields_a_reply_lacks_are_none():
    # the kernel leaves out the groups it has nothing for: a subtype, the
    # filesystem's options, an idmap
    proc = mntkit.stat("/proc")
    assert proc.fs_subtype is None and proc.uidmap is None
    assert not proc.mask & 0x100  # FS_SUBTYPE
    for m in mntkit.mounts():
        for attr in ["parent_id", "mount_point", "root", "fs_type",
                     "source", "options", "vfs_options", "fs_options",
                     "propagation", "dev", "ns_id", "sb_magic"]:
            assert getattr(m, attr) is not None, (m, attr)


def test_every_column_of_lsmnt_is_an_attribute():
    m = mntkit.stat("/")
    for col, get in COLUMNS.items():
        get(m)  # no AttributeError
    assert set(a for a in dir(m) if not a.startswith("_")) >= {
        "id", "parent_id", "old_id", "old_parent_id", "mount_point", "root",
        "fs_type", "fs_subtype", "source", "sb_source", "options",
        "vfs_options", "fs_options", "propagation", "peer_group", "master",
        "propagate_from", "dev", "sb_magic", "ns_id"}


def test_backend_and_features():
    f = mntkit.features()
    assert f["backend"] == mntkit.backend() in ("native", "mountinfo")
    assert set(f) == {"backend", "flags", "supported_groups",
                      "kernel_groups", "emul_groups", "refused"}
    assert "mnt_basic" in f["supported_groups"]
    assert ("statmount" in f["flags"]) == bool(f["kernel_groups"])
    assert mntkit.__version__ == \
        sh("sed", "-n", "s/^ *version : '\\([^']*\\)'.*/\\1/p",
           os.path.join(os.path.dirname(__file__), "..", "..",
                        "meson.build")).split()[0]
    got = child("import json, mntkit; print(json.dumps(mntkit.backend()))",
                "mountinfo")
    assert got == "mountinfo"


CHEAP_IDS = """
import json, mntkit
def ids(ms):
    return [[m.id, m.old_id, m.parent_id, m.old_parent_id] for m in ms]
out = {"backend": mntkit.backend()}
for cheap in (False, True):
    ms = mntkit.mounts(cheap_ids=cheap)
    mine = [m for m in ms if m.sb_source == "mntkit-py-cheap"]
    assert len(mine) == 1, mine
    out[str(cheap)] = {
        "mounts": ids(ms), "table": ids(mntkit.Table(cheap_ids=cheap)),
        "mine": ids(mine)[0],
        # by the ID this call names it with
        "stat": ids([mntkit.stat(mine[0].id, cheap_ids=cheap)])[0]}
print(json.dumps(out))
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_cheap_ids(ws, backend):
    sh("mount", "-t", "tmpfs", "mntkit-py-cheap", ws.path("c"))
    me = mntkit.stat(ws.path("c"))
    unique = "unique_ids" in mntkit.features()["flags"]
    got = child(CHEAP_IDS, backend)
    if backend == "native" and got["backend"] != "native":
        pytest.skip("no native backend here (no statmount/listmount)")
    assert got["backend"] == backend
    plain, cheap = got["False"], got["True"]
    assert len(plain["mounts"]) == len(cheap["mounts"])
    # without the flag: the mount's unique ID where the kernel has them,
    # on either backend
    assert plain["mine"] == plain["stat"]
    assert plain["mine"][:2] == [me.id, me.old_id]
    if unique:
        assert me.id != me.old_id and me.id > 2 ** 31
    if backend == "native":
        # the flag changes nothing
        assert cheap == plain
        return
    # the emulation with the flag: every mount and parent by its old ID,
    # in mounts(), a Table and stat() (which takes the old ID)
    for rows in (cheap["mounts"], cheap["table"]):
        assert all(i == old and p == old_p for i, old, p, old_p in rows), rows
    assert cheap["mine"] == cheap["stat"]
    assert cheap["mine"][:2] == [me.old_id, me.old_id]
    assert sorted(r[1] for r in cheap["mounts"]) == \
        sorted(r[1] for r in plain["mounts"])


def test_cheap_ids_refused():
    # a watch compares the IDs of many loads; a path is not a mount ID
    for call in (lambda: mntkit.watch(cheap_ids=True),
                 lambda: mntkit.Watch(cheap_ids=True),
                 lambda: mntkit.LiveTable(cheap_ids=True),
                 lambda: mntkit.stat("/", cheap_ids=True)):
        with pytest.raises(ValueError, match="cheap_ids"):
            call()
    with mntkit.watch(cheap_ids=False), mntkit.LiveTable(cheap_ids=False):
        pass
    with pytest.raises(TypeError):
        mntkit.mounts(None, True)  # a keyword only
    assert [m.id for m in mntkit.mounts(cheap_ids=False)] == \
        [m.id for m in mntkit.mounts()]
