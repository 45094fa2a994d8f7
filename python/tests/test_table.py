# SPDX-License-Identifier: LGPL-2.1-or-later
"""Table: the snapshot's tree against lsmnt's tree, the lookups, under()
(unmounting in its order), diff()."""
import os

import pytest

import mntkit
from helpers import lsmnt, mountinfo, seen_root, sh


def lsmnt_tree(env=None):
    """{old ID: [children's old IDs]} and the roots' old IDs, of lsmnt's
    tree (lsmnt -J)."""
    kids, roots = {}, []

    def walk(row):
        kids[row["id"]] = sorted(c["id"] for c in row.get("children", []))
        for c in row.get("children", []):
            walk(c)
    for row in lsmnt("-J", "-o", "ID,TARGET", env=env)["filesystems"]:
        roots.append(row["id"])
        walk(row)
    return kids, sorted(roots)



def test_tree_equals_lsmnt(ws):
    for sub in ["a", "a/x", "a/x/y", "b", "b/z"]:
        sh("mount", "-t", "tmpfs", "t-" + sub.replace("/", "-"),
           ws.path(*sub.split("/")))
    t = mntkit.Table()
    kids, roots = lsmnt_tree()
    assert sorted(m.old_id for m in t.roots()) == roots
    assert {m.old_id: sorted(c.old_id for c in t.children(m))
            for m in t} == kids
    for m in t:
        p = t.parent(m)
        assert (p is None) == (m.old_id in roots)
        assert p is None or p.id == m.parent_id


def test_iteration_is_tree_order():
    t = mntkit.Table()
    seen, order = set(), list(t)
    assert len(order) == len(t) == len(set(order))
    for m in order:
        p = t.parent(m)
        assert p is None or p.id in seen, "%r before its parent" % m
        seen.add(m.id)
        ids = [c.id for c in t.children(m)]
        assert ids == sorted(ids)
        # the children follow their parent, each with its subtree
        if ids:
            assert order[order.index(m) + 1].id == ids[0]
    assert {m.id for m in t} == {m.id for m in mntkit.mounts()}
    assert sorted((m.old_id, m.mount_point) for m in t) == \
        sorted(mountinfo())


def test_getitem_contains_len():
    t = mntkit.Table()
    ms = mntkit.mounts()
    assert len(t) == len(ms)
    for m in ms:
        assert t[m.id] == m and t[m] == m and m.id in t and m in t
        assert t[m.id].mount_point == m.mount_point
    missing = max(m.id for m in ms) + 1000
    assert missing not in t
    with pytest.raises(KeyError):
        t[missing]
    with pytest.raises(KeyError):
        t.parent(missing)
    with pytest.raises(TypeError):
        t["/"]
    with pytest.raises(TypeError):
        "/" in t
    assert repr(t) == "<mntkit.Table of %d mounts>" % len(t)


def test_find_target_and_source(ws):
    sh("mount", "-t", "tmpfs", "mntkit-py-under", ws.path("s"))
    sh("mount", "-t", "tmpfs", "mntkit-py-over", ws.path("s"))
    os.symlink(ws.path("s"), os.path.join(ws.dir, "link"))
    t = mntkit.Table()
    top = t.find_target(ws.path("s"))
    assert top.sb_source == "mntkit-py-over"  # the visible one
    assert t.find_target(ws.path("s") + "/") == top
    assert t.find_target(os.path.join(ws.dir, "link")) == top  # canonical
    assert t.find_target(ws.dir.encode()) == t.find_source("mntkit-py-table")
    assert t.find_target("/no/such/mount/point") is None
    assert t.find_source("mntkit-py-under").mount_point == ws.path("s")
    assert t.find_source("no-such-source") is None
    r = seen_root()
    assert t.find_target(r) == mntkit.stat(r)


def test_under_lists_and_unmounts_in_order(ws):
    # a stack of two, a child of the lower one hidden under the upper,
    # a bind of the stack, a file bind, and a neighbour outside
    d = ws.path("pod")
    sh("mount", "-t", "tmpfs", "pod-1", d)
    os.makedirs(os.path.join(d, "vol"))
    sh("mount", "-t", "tmpfs", "pod-vol", os.path.join(d, "vol"))
    sh("mount", "-t", "tmpfs", "pod-2", d)
    os.makedirs(os.path.join(d, "r"))
    sh("mount", "--rbind", ws.path("other"), os.path.join(d, "r"))
    open(os.path.join(d, "f"), "w").close()
    open(os.path.join(ws.dir, "src"), "w").close()
    sh("mount", "--bind", os.path.join(ws.dir, "src"), os.path.join(d, "f"))
    sh("mount", "-t", "tmpfs", "neighbour", ws.path("podx"))
    t = mntkit.Table()
    got = t.under(d)
    want = [(i, p) for i, p in mountinfo()
            if p == d or p.startswith(d + "/")]
    assert sorted(m.old_id for m in got) == sorted(i for i, _ in want)
    pos = {m.id: k for k, m in enumerate(got)}
    for m in got:
        assert m.parent_id not in pos or pos[m.parent_id] < pos[m.id]
    back = t.under(d + "//.", children_first=True)
    assert back == got[::-1]
    assert t.under(os.path.join(ws.dir, "pod", "..", "pod")) == got
    for m in back:  # each can be unmounted, in this order
        sh("umount", m.mount_point)
    assert not [p for _, p in mountinfo() if p == d or
                p.startswith(d + "/")]
    assert mntkit.Table().find_target(ws.path("podx")).sb_source == \
        "neighbour"


def test_diff(ws):
    sh("mount", "-t", "tmpfs", "d-stay", ws.path("stay"))
    sh("mount", "-t", "tmpfs", "d-ro", ws.path("ro"))
    sh("mount", "-t", "tmpfs", "d-gone", ws.path("gone"))
    sh("mount", "-t", "tmpfs", "d-from", ws.path("from"))
    before = mntkit.Table()
    sh("mount", "-t", "tmpfs", "d-new", ws.path("new"))
    sh("mount", "-o", "remount,ro", ws.path("ro"))
    sh("umount", ws.path("gone"))
    sh("mount", "--move", ws.path("from"), ws.path("to"))
    after = mntkit.Table()
    evs = before.diff(after)
    got = {(e.kind, e.mount.mount_point) for e in evs}
    assert got == {("attach", ws.path("new")), ("change", ws.path("ro")),
                   ("detach", ws.path("gone")), ("move", ws.path("to"))}
    ids = [e.id for e in evs]
    assert ids == sorted(ids)
    for e in evs:
        assert e.seq is None and e.time is None and e.ns_id is None
        if e.kind == "change":
            assert "attr" in e.changed and e.old.vfs_options[:2] == "rw"
            assert e.mount.vfs_options[:2] == "ro"
        elif e.kind == "move":
            assert "mnt_point" in e.changed
            assert e.old.mount_point == ws.path("from")
        else:
            assert e.old is None and e.changed == frozenset()
    assert before.diff(before) == []
    del before, after  # the events' Mounts keep the tables
    assert {e.mount.sb_source for e in evs} == {"d-new", "d-ro", "d-gone",
                                                 "d-from"}
    with pytest.raises(TypeError):
        mntkit.Table().diff([])
