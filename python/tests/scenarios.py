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
