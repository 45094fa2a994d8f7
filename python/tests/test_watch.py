# SPDX-License-Identifier: LGPL-2.1-or-later
"""Watch: events in a private mount namespace on both backends, initial
events, selectors, asyncio, close() from another thread, one thread at a
time, the GIL released while a watch waits, every namespace."""
import asyncio
import selectors
import threading
import time

import pytest

import mntkit
from helpers import OtherNamespace, child, sh



@pytest.mark.parametrize("backend", ["native", "mountinfo"])
def test_events(ws, backend):
    ws.path("a")
    ws.path("b")
    got = child("import json, scenarios; print(json.dumps("
                "scenarios.events(%r)))" % ws.dir, backend)
    assert got["source"] in ("fanotify", "poll")
    a, b = ws.path("a"), ws.path("b")
    evs = got["events"]
    assert [(e["kind"], e["point"]) for e in evs] == [
        ("attach", a), ("change", a), ("move", b), ("change", b),
        ("detach", b)], evs
    assert [e["seq"] for e in evs] == [1, 2, 3, 4, 5]
    assert all(e["source"] == "ev-a" and e["id"] and not e["gone"]
               for e in evs)
    attach, ro, move, share, detach = evs
    assert attach["old"] is None and attach["changed"] == []
    assert "attr" in ro["changed"] and ro["ro"] and not ro["old_ro"]
    assert ro["old"] == a
    assert "mnt_point" in move["changed"] and move["old"] == a
    assert "propagation" in share["changed"]
    assert share["propagation"] == "shared"
    assert detach["old"] is None


@pytest.mark.parametrize("backend", ["native", "mountinfo"])
def test_initial_events_are_every_mount(backend):
    got = child("import json, scenarios; print(json.dumps("
                "scenarios.initial()))", backend)
    assert got["ids"] == got["mounts"]
    assert got["seqs"] == list(range(1, len(got["ids"]) + 1))


def test_selectors(ws):
    with mntkit.watch() as w, selectors.DefaultSelector() as sel:
        sel.register(w, selectors.EVENT_READ)
        assert sel.select(0) == [] or w.read() is None
        sh("mount", "-t", "tmpfs", "sel", ws.path("s"))
        ready = sel.select(10)
        assert ready and ready[0][0].fileobj is w
        ev = w.read()
        assert ev.kind == "attach" and ev.mount.sb_source == "sel"
        assert w.read() is None


def test_asyncio(ws):
    async def main():
        w = mntkit.watch()
        loop = asyncio.get_running_loop()

        async def mount_later():
            await asyncio.sleep(0.1)
            p = await asyncio.create_subprocess_exec(
                "mount", "-t", "tmpfs", "aio", ws.path("x"))
            assert await p.wait() == 0

        task = asyncio.create_task(mount_later())
        async for ev in w:
            assert ev.kind == "attach" and ev.mount.sb_source == "aio"
            break
        await task

        async def consume():
            return [ev async for ev in w]

        # cancelled while it waits: nothing stays registered
        t = asyncio.create_task(consume())
        await asyncio.sleep(0.1)
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await t
        assert not loop.remove_reader(w.fileno())
        # closed while it waits: the iteration ends
        t = asyncio.create_task(consume())
        await asyncio.sleep(0.1)
        w.close()
        assert await asyncio.wait_for(t, 10) == []
        assert w.closed

    asyncio.run(main())


def test_close_from_another_thread_ends_iteration():
    w = mntkit.watch()
    got = []
    th = threading.Thread(target=lambda: got.extend(w))
    th.start()
    time.sleep(0.3)
    assert th.is_alive()
    w.close()
    th.join(10)
    assert not th.is_alive() and got == [] and w.closed
    with pytest.raises(StopIteration):
        next(w)
    for call in (w.read, w.fileno, w.rescan):
        with pytest.raises(ValueError):
            call()
    w.close()  # again: nothing
    assert repr(w) == "<mntkit.Watch closed>"


def test_one_thread_at_a_time():
    with mntkit.watch() as w:
        th = threading.Thread(target=lambda: w.read(timeout=None))
        th.start()
        time.sleep(0.3)
        with pytest.raises(RuntimeError):
            w.read()
        with pytest.raises(RuntimeError):
            next(w)
        w.close()
        th.join(10)
        assert not th.is_alive()


def test_read_timeout():
    with mntkit.watch() as w:
        t0 = time.monotonic()
        assert w.read(timeout=0.3) is None
        assert 0.25 < time.monotonic() - t0 < 5


GIL = """
import threading, time, json, mntkit
w = mntkit.watch()
threading.Thread(target=lambda: w.read(timeout=None), daemon=True).start()
time.sleep(0.2)
n, end = 0, time.monotonic() + 0.3
while time.monotonic() < end:
    n += 1
w.close()
print(json.dumps(n))
"""


def test_gil_released_while_waiting():
    # the Python loop runs while another thread waits in the watch
    assert child(GIL, timeout=30) > 1000


INTERRUPT = """
import json, os, signal, threading, mntkit
# Python's own handler: a child started in the background by a shell
# without job control (tests/cli/python.sh) inherits SIGINT ignored
signal.signal(signal.SIGINT, signal.default_int_handler)
threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
w = mntkit.watch()
try:
    next(w)
    print(json.dumps("no interrupt"))
except KeyboardInterrupt:
    print(json.dumps(w.closed))
"""


def test_ctrl_c_interrupts_a_waiting_next():
    assert child(INTERRUPT, timeout=30) is False


def test_context_manager_closes():
    with mntkit.watch() as w:
        assert not w.closed and w.fileno() >= 0
        assert repr(w).startswith("<mntkit.Watch fd=")
    assert w.closed


def test_all_namespaces(ws):
    with mntkit.watch(all_namespaces=True) as w:
        other = OtherNamespace("mntkit-py-allns", ws.path("o"))
        try:
            deadline = time.monotonic() + 20
            ns = None
            while ns is None:
                ev = w.read(timeout=max(0, deadline - time.monotonic()))
                assert ev is not None, "no ns-add of the new namespace"
                if ev.kind == "ns-add" and ev.ns_pid == other.pid:
                    ns = ev.ns_id
            # a namespace found brings the attach events of its mounts,
            # then those of what happens there
            other.run("mount", "-t", "tmpfs", "mntkit-py-allns-2", other.point)
            seen = []
            while "mntkit-py-allns-2" not in seen:
                ev = w.read(timeout=max(0, deadline - time.monotonic()))
                assert ev is not None, "no attach in the new namespace"
                if ev.ns_id == ns and ev.kind == "attach":
                    assert ev.ns_pid == other.pid
                    seen.append(ev.mount.sb_source)
            assert seen.index("mntkit-py-allns") < \
                seen.index("mntkit-py-allns-2")
        finally:
            other.close()
        while True:
            ev = w.read(timeout=max(0, deadline - time.monotonic()))
            assert ev is not None, "no ns-gone"
            if ev.kind == "ns-gone" and ev.ns_id == ns:
                break
