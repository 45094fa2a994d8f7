# SPDX-License-Identifier: LGPL-2.1-or-later
"""LiveTable: the state and its snapshots follow mount, remount, move and
umount in a private mount namespace and equal a fresh Table, the events
process() returns, the lookups, initial=True, every namespace, bad
input, close()."""
import asyncio
import os
import select
import threading
import time

import pytest

import mntkit
from helpers import OtherNamespace, sh


def rows(table):
    """What a table says of each mount, in its order."""
    return [(m.id, m.mount_point, m.fs_type, m.options, m.parent_id)
            for m in table]


def catch_up(live, fresh=mntkit.Table, timeout=20, ns_id=None):
    """process() LIVE until its snapshot is FRESH()'s table (the events
    of what was done came); the events it applied meanwhile."""
    deadline = time.monotonic() + timeout
    events = []
    while True:
        events += live.process()
        snap = live.snapshot() if ns_id is None else live.snapshot(ns_id)
        if rows(snap) == rows(fresh()):
            return events
        left = deadline - time.monotonic()
        assert left > 0, ("the live table did not catch up", events)
        select.select([live], [], [], min(left, 0.5))


def kinds(events, point):
    return [e.kind for e in events
            if e.mount is not None and e.mount.mount_point == point]


def test_follows_the_mounts(ws):
    a, b = ws.path("a"), ws.path("b")
    top = mntkit.stat(ws.dir)
    with mntkit.LiveTable() as live:
        assert rows(live.snapshot()) == rows(mntkit.Table())
        assert len(live) == len(mntkit.Table())
        assert rows(live) == rows(mntkit.Table())
        before = live.snapshot()

        sh("mount", "-t", "tmpfs", "lv-a", a)
        evs = catch_up(live)
        assert kinds(evs, a) == ["attach"]
        m = live.find_target(a)
        assert m.sb_source == "lv-a" and m.mount_point == a
        assert m.id in live and live[m.id] == m and live.get(m) == m
        assert live.parent(m) == top
        assert m in live.children(top)
        assert live.find_source("lv-a") == m
        assert [e.mount for e in evs if e.kind == "attach"] == [m]
        # a snapshot stays as it was
        assert m.id not in before and len(before) == len(live) - 1

        sh("mount", "-o", "remount,ro", a)
        evs = catch_up(live)
        assert kinds(evs, a) == ["change"]
        assert "attr" in evs[-1].changed
        assert "rw" in evs[-1].old.options.split(",")
        assert "ro" in live[m].options.split(",")

        sh("mount", "--move", a, b)
        evs = catch_up(live)
        assert kinds(evs, b) == ["move"] and evs[-1].old.mount_point == a
        assert live[m].mount_point == b
        assert live.find_target(a) is None and live.find_target(b) == m

        sh("umount", b)
        evs = catch_up(live)
        assert [(e.kind, e.id) for e in evs] == [("detach", m.id)]
        assert m.id not in live and live.get(m.id) is None
        assert live.find_source("lv-a") is None
        with pytest.raises(KeyError):
            live[m.id]
        with pytest.raises(KeyError):
            live.parent(m)
        with pytest.raises(KeyError):
            live.children(m.id)
        assert live.process() == []


def test_snapshots_read_in_other_threads(ws):
    with mntkit.LiveTable() as live:
        snaps = [live.snapshot()]
        seen = {}
        stop = threading.Event()

        def reader():
            # what each snapshot said when first read here (the last
            # pass comes after the last snapshot)
            while True:
                done = stop.is_set()
                for s in list(snaps):
                    seen.setdefault(id(s), rows(s))
                if done:
                    return

        t = threading.Thread(target=reader)
        t.start()
        try:
            for i in range(5):
                sh("mount", "-t", "tmpfs", "lv-t%d" % i, ws.path("t%d" % i))
                catch_up(live)
                snaps.append(live.snapshot())
        finally:
            stop.set()
            t.join()
        # each snapshot stays as it was taken: one more mount each
        assert [len(s) for s in snaps] == \
            [len(snaps[0]) + i for i in range(6)]
        assert all(seen[id(s)] == rows(s) for s in snaps)
        assert rows(snaps[-1]) == rows(mntkit.Table())


def test_initial_brings_every_mount():
    with mntkit.LiveTable(initial=True) as live:
        assert len(live) == 0
        evs = catch_up(live)
        ids = [m.id for m in mntkit.Table()]
        assert sorted(e.id for e in evs) == sorted(ids)
        assert {e.kind for e in evs} == {"attach"}
        assert [e.seq for e in evs] == list(range(1, len(ids) + 1))


def test_rescan(ws):
    a = ws.path("r")
    sh("mount", "-t", "tmpfs", "lv-r", a)
    with mntkit.LiveTable() as live:
        sh("mount", "--make-shared", a)
        live.rescan()
        catch_up(live)
        assert live.find_target(a).propagation == "shared"


def test_all_namespaces(ws):
    own = mntkit.stat("/").ns_id
    with mntkit.LiveTable(all_namespaces=True) as live:
        with pytest.raises(ValueError):
            live.snapshot()
        with pytest.raises(ValueError):
            live[1]
        with pytest.raises(ValueError):
            len(live)
        catch_up(live, ns_id=own)
        other = OtherNamespace("lv-allns", ws.path("o"))
        try:
            def theirs():
                return mntkit.Table(ns=other.pid)
            deadline = time.monotonic() + 20
            got = []
            while not any(e.kind == "ns-add" and e.ns_pid == other.pid
                          for e in got):
                assert time.monotonic() < deadline, got
                select.select([live], [], [], 0.5)
                got += live.process()
            ns = [e.ns_id for e in got if e.kind == "ns-add"
                  and e.ns_pid == other.pid][0]
            catch_up(live, theirs, ns_id=ns)
            assert "lv-allns" in [m.sb_source for m in live.snapshot(ns)]
        finally:
            other.close()


def test_asyncio_add_reader(ws):
    async def main():
        loop = asyncio.get_running_loop()
        ready = asyncio.Event()
        with mntkit.LiveTable() as live:
            loop.add_reader(live.fileno(), ready.set)
            try:
                p = await asyncio.create_subprocess_exec(
                    "mount", "-t", "tmpfs", "lv-aio", ws.path("x"))
                assert await p.wait() == 0
                while live.find_source("lv-aio") is None:
                    await asyncio.wait_for(ready.wait(), 20)
                    ready.clear()
                    live.process()
            finally:
                loop.remove_reader(live.fileno())
            return live.find_source("lv-aio").mount_point
    assert asyncio.run(main()) == ws.path("x")


def test_bad_input():
    with pytest.raises(TypeError):
        mntkit.LiveTable(ns=1.5)
    with pytest.raises(TypeError):
        mntkit.LiveTable(1, 2)
    with pytest.raises(ValueError):
        mntkit.LiveTable(os.getpid(), all_namespaces=True)
    with mntkit.LiveTable() as live:
        for key, err in (("x", TypeError), (1.5, TypeError),
                         (True, TypeError), (-1, ValueError),
                         (2 ** 64, ValueError)):
            with pytest.raises(err):
                live[key]
            with pytest.raises(err):
                live.parent(key)
        with pytest.raises(KeyError):
            live[1]
        with pytest.raises(TypeError):
            live.find_target(3)
        with pytest.raises(ValueError):
            live.snapshot(5)
        with pytest.raises(TypeError):
            live.snapshot("x")
        assert live.find_target("/no/such/mount/point") is None


def test_close():
    live = mntkit.LiveTable()
    snap = live.snapshot()
    assert not live.closed and live.fileno() >= 0
    assert repr(live).startswith("<mntkit.LiveTable fd=")
    live.close()
    live.close()
    assert live.closed and repr(live) == "<mntkit.LiveTable closed>"
    for call in (live.process, live.snapshot, live.fileno, live.rescan,
                 lambda: live[1], lambda: len(live), lambda: iter(live),
                 lambda: live.find_target("/"), lambda: 1 in live):
        with pytest.raises(ValueError):
            call()
    # its snapshots outlive it
    assert rows(snap) == rows(mntkit.Table())
    with mntkit.LiveTable() as live:
        pass
    assert live.closed
