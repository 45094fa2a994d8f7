# SPDX-License-Identifier: LGPL-2.1-or-later
"""Another mount namespace: mounts(), stat(), Table and watch() with ns=
as a PID, an open namespace file and a Namespace; namespaces()."""
import os

import pytest

import mntkit
from helpers import (OtherNamespace, Workspace, lsmnt_list, never_host,
                     row_of)


@pytest.fixture(scope="module")
def other():
    never_host()
    ws = Workspace("mntkit-py-ns")
    o = OtherNamespace("mntkit-py-other", ws.path("o"))
    yield o
    o.close()
    ws.close()


def has_ns_ids():
    return "ns_id" in mntkit.features()["flags"]


def ns_forms(other):
    """The ways to name the other namespace."""
    forms = [("pid", other.pid),
             ("file", open("/proc/%d/ns/mnt" % other.pid, "rb"))]
    if has_ns_ids():
        ns = [n for n in mntkit.namespaces() if n.pid == other.pid]
        assert len(ns) == 1
        forms.append(("namespace", ns[0]))
        forms.append(("namespace-by-id", mntkit.Namespace(ns[0].id)))
    return forms


def test_mounts_of_another_namespace(other):
    want = lsmnt_list("-N", str(other.pid))
    assert any(r["sb-source"] == "mntkit-py-other" for r in want)
    assert not any(m.sb_source == "mntkit-py-other"
                   for m in mntkit.mounts())
    for name, ns in ns_forms(other):
        got = [row_of(m) for m in mntkit.mounts(ns=ns)]
        assert got == want, name


def test_table_and_stat_of_another_namespace(other):
    for name, ns in ns_forms(other):
        t = mntkit.Table(ns=ns)
        m = t.find_target(other.point)
        assert m is not None and m.sb_source == "mntkit-py-other", name
        assert t.find_source("mntkit-py-other") == m
        # a path of another namespace is taken lexically
        assert t.under(other.point + "/./") == [m]
        assert mntkit.stat(m.id, ns=ns) == m
        assert mntkit.stat(m.id, ns=ns).mount_point == other.point
        assert mntkit.id_from_old(m.old_id, ns=ns) == m.id
        if has_ns_ids():
            assert m.ns_id != mntkit.stat("/").ns_id


def test_namespaces_lists_it(other):
    if not has_ns_ids():
        with pytest.raises(mntkit.Error):
            mntkit.namespaces()
        return
    ns = mntkit.namespaces()
    ids = [n.id for n in ns]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    mine = mntkit.stat("/").ns_id
    assert mine in ids
    theirs = [n for n in ns if n.pid == other.pid]
    assert len(theirs) == 1
    n = theirs[0]
    assert n == mntkit.Namespace(n.id) and hash(n) == hash(
        mntkit.Namespace(n.id))
    assert repr(n) == "mntkit.Namespace(id=%d, pid=%d)" % (n.id, other.pid)
    assert mntkit.Namespace(n.id).pid is None
    assert [m.ns_id for m in mntkit.mounts(ns=n)] == \
        [n.id] * len(mntkit.mounts(ns=n))


def test_watch_of_another_namespace(other):
    point = os.path.join(other.point, "w")
    other.run("mkdir", "-p", point)
    for name, ns in ns_forms(other):
        with mntkit.watch(ns=ns) as w:
            assert w.read() is None
            other.run("mount", "-t", "tmpfs", "mntkit-py-w", point)
            ev = w.read(timeout=10)
            other.run("umount", point)
            assert ev is not None and ev.kind == "attach", name
            assert ev.mount.mount_point == point
            ev = w.read(timeout=10)
            assert ev is not None and ev.kind == "detach", name
