# SPDX-License-Identifier: LGPL-2.1-or-later
"""Scenarios the tests run in a child process (helpers.child()), on the
backend of its environment: each returns what the test compares."""
import subprocess
import time

import mntkit


def sh(*argv):
    subprocess.run(list(argv), check=True, capture_output=True)


def next_event(w, what):
    ev = w.read(timeout=10)
    assert ev is not None, "no event after %s" % what
    return ev


def events(d):
    """A watch's events of an attach, a remount, a move, a propagation
    change (rescan()) and an unmount below directory D (private)."""
    out = []
    with mntkit.watch() as w:
        assert w.read() is None, "an event before any change"
        steps = [
            ("mount", ["mount", "-t", "tmpfs", "ev-a", d + "/a"]),
            ("remount", ["mount", "-o", "remount,ro", d + "/a"]),
            ("move", ["mount", "--move", d + "/a", d + "/b"]),
            ("share", ["mount", "--make-shared", d + "/b"]),
            ("umount", ["umount", d + "/b"]),
        ]
        for what, argv in steps:
            sh(*argv)
            if what == "share":
                w.rescan()  # the kernel signals no propagation change
            ev = next_event(w, what)
            m = ev.mount
            assert abs(ev.time - time.time()) < 30, ev.time
            assert abs(ev.monotonic - time.monotonic()) < 30
            out.append({"kind": ev.kind, "point": m.mount_point,
                        "source": m.sb_source, "seq": ev.seq,
                        "changed": sorted(ev.changed),
                        "old": ev.old.mount_point if ev.old else None,
                        "old_ro": ev.old.vfs_options.startswith("ro")
                        if ev.old else None,
                        "ro": m.vfs_options.startswith("ro"),
                        "propagation": m.propagation,
                        "id": ev.id == m.id, "gone": ev.gone})
        extra = w.read(timeout=0.5)
        assert extra is None, "an event too many: %r" % extra
        source = w.source
    return {"events": out, "source": source, "backend": mntkit.backend()}


def initial():
    """The attach events of watch(initial=True) against mounts()."""
    with mntkit.watch(initial=True) as w:
        ids, seqs = [], []
        while True:
            ev = w.read()
            if ev is None:
                break
            assert ev.kind == "attach" and ev.mount.id == ev.id, ev
            ids.append(ev.id)
            seqs.append(ev.seq)
    return {"ids": sorted(ids), "mounts": sorted(m.id for m in
                                                 mntkit.mounts()),
            "seqs": seqs}


def _lva_state(live):
    """(source, mount point, ro) of the live table's lva-* mounts."""
    return sorted([m.sb_source, m.mount_point,
                   m.vfs_options.split(",")[0] == "ro"] for m in live
                  if (m.sb_source or "").startswith("lva-"))


def live_events(d):
    """LiveTable.events() on an asyncio loop: two mounts below directory
    D made before the iteration (pending together), then a remount, a
    move and an unmount each made by another task while the iteration
    waits; each event with what the state said while the body ran."""
    import asyncio

    async def run(argv):
        p = await asyncio.create_subprocess_exec(*argv)
        assert await p.wait() == 0, argv

    async def main():
        out = []
        with mntkit.LiveTable() as live:
            sh("mount", "-t", "tmpfs", "lva-1", d + "/x")
            sh("mount", "-t", "tmpfs", "lva-2", d + "/y")
            steps = [["mount", "-o", "remount,ro", d + "/x"],
                     ["mount", "--move", d + "/x", d + "/z"],
                     ["umount", d + "/z"]]
            tasks = []
            async for ev in live.events():
                m = ev.mount
                if m is None or not (m.sb_source or "").startswith("lva-"):
                    continue
                out.append({"kind": ev.kind, "source": m.sb_source,
                            "point": m.mount_point, "seq": ev.seq,
                            "state": _lva_state(live)})
                if len(out) >= 2 and steps:
                    # made while the next step waits on the loop
                    tasks.append(asyncio.create_task(run(steps.pop(0))))
                elif len(out) >= 2:
                    break
            for t in tasks:
                await t
            # the synchronous API is as it was
            assert live.process() == []
            assert _lva_state(live) == out[-1]["state"]
        return out

    return {"events": asyncio.run(main()), "backend": mntkit.backend()}


def live_idle():
    """LiveTable.events() waiting while nothing happens: whether the fd
    polled readable at any registration with the loop (a step that found
    no event then registers again at once: a busy loop), how many times
    it registered, and whether cancelling its task left a reader."""
    import asyncio
    import select

    async def main():
        loop = asyncio.get_running_loop()
        ready, add_reader = [], loop.add_reader

        def counted(fd, callback, *args):
            ready.append(bool(select.select([fd], [], [], 0)[0]))
            return add_reader(fd, callback, *args)

        loop.add_reader = counted
        with mntkit.LiveTable() as live:
            async def consume():
                return [ev async for ev in live.events()]
            task = asyncio.create_task(consume())
            # long enough for the watch's timer (rescans) to wake it
            await asyncio.sleep(2.5)
            task.cancel()
            try:
                await task
                cancelled = False
            except asyncio.CancelledError:
                cancelled = True
            left = loop.remove_reader(live.fileno())
        return {"ready": ready, "cancelled": cancelled, "left": left}

    return asyncio.run(main())
