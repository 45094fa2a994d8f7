# SPDX-License-Identifier: LGPL-2.1-or-later
"""Objects shared between threads, as the C objects may be: a Table and
its Mounts read by many threads at once, module functions called from
many threads; the answers are those of one thread."""
import threading

import mntkit

from helpers import seen_root


def run_threads(fn, n=6):
    errors, results = [], [None] * n

    def one(i):
        try:
            results[i] = fn()
        except BaseException as e:  # reported below
            errors.append(e)
    ths = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for th in ths:
        th.start()
    for th in ths:
        th.join(120)
    assert not errors, errors
    return results


def test_a_table_shared_by_threads():
    t = mntkit.Table()
    r = seen_root()  # a mount point the table holds
    want = [(m.id, m.mount_point, m.options, t.parent(m) and
             t.parent(m).id) for m in t]

    def walk():
        out = None
        for _ in range(50):
            out = [(m.id, m.mount_point, m.options, t.parent(m) and
                    t.parent(m).id) for m in t]
            assert t.find_target(r) == t.find_target(r) is not None
        return out
    assert run_threads(walk) == [want] * 6


def test_module_functions_from_threads():
    want = [(m.id, m.source) for m in mntkit.mounts()]

    def calls():
        for _ in range(50):
            got = [(m.id, m.source) for m in mntkit.mounts()]
            assert mntkit.stat("/") == mntkit.stat("/")
            try:
                mntkit.stat(2 ** 64 - 2)
            except mntkit.Error as e:
                assert e.reason is None or "mntkit_" in e.reason
        return got
    assert run_threads(calls) == [want] * 6
