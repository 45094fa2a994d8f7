# SPDX-License-Identifier: LGPL-2.1-or-later
"""LiveTable.events() on an asyncio loop: the events in order with the
state current while the body runs, on both backends; no busy loop while
idle; cancelling removes the reader; close() while it waits (from the
loop's thread and from another); one iteration at a time; the
synchronous API alongside."""
import asyncio
import threading

import pytest

import mntkit
from helpers import child


@pytest.mark.parametrize("backend", ["native", "mountinfo"])
def test_events_in_order_with_the_state_current(ws, backend):
    for p in ("x", "y", "z"):
        ws.path(p)
    got = child("import json, scenarios; print(json.dumps("
                "scenarios.live_events(%r)))" % ws.dir, backend)
    x, y, z = ws.path("x"), ws.path("y"), ws.path("z")
    evs = got["events"]
    # the two mounts made before the iteration came in one burst: each
    # step applied one event, and the body saw the state after it and
    # before the next
    assert [(e["kind"], e["source"], e["point"]) for e in evs] == [
        ("attach", "lva-1", x), ("attach", "lva-2", y),
        ("change", "lva-1", x), ("move", "lva-1", z),
        ("detach", "lva-1", z)], evs
    assert [e["state"] for e in evs] == [
        [["lva-1", x, False]],
        [["lva-1", x, False], ["lva-2", y, False]],
        [["lva-1", x, True], ["lva-2", y, False]],
        [["lva-1", z, True], ["lva-2", y, False]],
        [["lva-2", y, False]]]
    seqs = [e["seq"] for e in evs]
    assert seqs == list(range(seqs[0], seqs[0] + 5))


@pytest.mark.parametrize("backend", ["native", "mountinfo"])
def test_idle_is_no_busy_loop(backend):
    got = child("import json, scenarios; print(json.dumps("
                "scenarios.live_idle()))", backend)
    # it registered the fd and waited: each time the fd was quiet, so
    # that only the fd turning readable woke it (a wakeup that brings no
    # event, the watch's rescan, registers it again, quiet again)
    assert got["ready"] and not any(got["ready"]), got
    # cancelled while it waited: no reader left
    assert got["cancelled"] and got["left"] is False, got


def test_close_while_waiting_ends_the_iteration():
    async def main():
        loop = asyncio.get_running_loop()
        live = mntkit.LiveTable()
        fd = live.fileno()

        async def consume():
            return [ev async for ev in live.events()]
        t = asyncio.create_task(consume())
        await asyncio.sleep(0.1)
        assert not t.done()
        live.close()
        assert live.closed
        assert await asyncio.wait_for(t, 10) == []
        assert not loop.remove_reader(fd)
        with pytest.raises(ValueError):
            live.events()
        with pytest.raises(ValueError):
            live.process()
        # an iterator taken before: ends at once
        assert [ev async for ev in it] == []

    live0 = mntkit.LiveTable()
    it = live0.events()
    live0.close()
    asyncio.run(main())


def test_close_from_another_thread_while_waiting():
    async def main():
        live = mntkit.LiveTable()

        async def consume():
            return [ev async for ev in live.events()]
        t = asyncio.create_task(consume())
        await asyncio.sleep(0.1)
        closer = threading.Thread(target=live.close)
        closer.start()
        got = await asyncio.wait_for(t, 10)
        closer.join(10)
        return got, live.closed
    assert asyncio.run(main()) == ([], True)


def test_one_iteration_at_a_time():
    async def main():
        with mntkit.LiveTable() as live:
            async def consume():
                return [ev async for ev in live.events()]
            t = asyncio.create_task(consume())
            await asyncio.sleep(0.1)
            with pytest.raises(RuntimeError, match="awaited by another"):
                await live.events().__anext__()
            # the first one still waits, and the synchronous calls work
            # meanwhile
            assert not t.done()
            assert live.process() == []
            assert len(live) == len(mntkit.Table())
            assert live.snapshot() is not None
            t.cancel()
            with pytest.raises(asyncio.CancelledError):
                await t
            # the reader gone, another iteration may wait
            t = asyncio.create_task(consume())
            await asyncio.sleep(0.1)
            assert not t.done()
        # the with block closed it: the iteration ended
        assert await asyncio.wait_for(t, 10) == []
    asyncio.run(main())


def test_process_takes_the_events_first(ws):
    """process() and events() share one stream: each event once."""
    async def main():
        with mntkit.LiveTable() as live:
            p = await asyncio.create_subprocess_exec(
                "mount", "-t", "tmpfs", "lva-p", ws.path("p"))
            assert await p.wait() == 0
            p = await asyncio.create_subprocess_exec(
                "mount", "-t", "tmpfs", "lva-q", ws.path("q"))
            assert await p.wait() == 0
            got = []
            async for ev in live.events():
                got.append((ev.kind, ev.mount.sb_source, ev.seq))
                if ev.mount.sb_source == "lva-p":
                    # the rest applied here, returned here alone
                    rest = []
                    while not any(e.mount.sb_source == "lva-q"
                                  for e in rest):
                        await asyncio.sleep(0.05)
                        rest += live.process()
                    got += [(e.kind, e.mount.sb_source, e.seq)
                            for e in rest]
                    break
            assert live.find_source("lva-q").mount_point == ws.path("q")
            return got
    got = asyncio.run(main())
    assert [(k, s) for k, s, _ in got] == [("attach", "lva-p"),
                                          ("attach", "lva-q")]
    assert got[1][2] == got[0][2] + 1


def test_events_outside_a_loop():
    with mntkit.LiveTable() as live:
        it = live.events()
        assert it.__aiter__() is it
        # no running loop: asyncio's error, nothing registered
        with pytest.raises(RuntimeError):
            it.__anext__().send(None)
        assert live.process() == []
