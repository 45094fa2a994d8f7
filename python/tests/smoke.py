# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python module's smoke test in the qemu guests (tests/qemu/): the
module answers on the guest's kernel, against /proc/self/mountinfo.

    python3 -S -E smoke.py              the cases, one line each:
                                        PASS/FAIL/SKIP NAME[: reason]
    python3 -S -E smoke.py --files      the files of the standard library
                                        it imports (what the guest needs)

The module (and libmntkit.so.0) must be importable from this file's
directory. The cases that mount run in a mount namespace of their own
(unshare(2) through ctypes), in the guest: nothing else mounts there.
"""
import asyncio
import ctypes
import errno
import os
import re
import sys
import time

CLONE_NEWNS = 0x00020000
MS_REC, MS_PRIVATE = 0x4000, 0x40000

failed = 0


def case(name, fn):
    global failed
    try:
        fn()
        print("PASS", name, flush=True)
    except Skip as e:
        print("SKIP %s: %s" % (name, e), flush=True)
    except Exception as e:  # one line, whatever it was
        failed = 1
        print("FAIL %s: %s: %s" % (name, type(e).__name__,
                                   " ".join(str(e).split())), flush=True)


class Skip(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def mountinfo():
    """(old ID, parent's old ID, mount point, type, source) a line."""
    def un(s):
        return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), s)
    out = []
    with open("/proc/self/mountinfo", "rb") as f:
        for line in f.read().decode("utf-8", "surrogateescape").splitlines():
            f = line.split(" ")
            sep = f.index("-", 6)
            out.append((int(f[0]), int(f[1]), un(f[4]), un(f[sep + 1]),
                        un(f[sep + 2])))
    return out


libc = ctypes.CDLL(None, use_errno=True)


def sys_call(r, what):
    if r != 0:
        e = ctypes.get_errno()
        raise OSError(e, "%s: %s" % (what, os.strerror(e)))


def mount(src, target, fstype, flags=0):
    sys_call(libc.mount(src and src.encode(), target.encode(),
                        fstype and fstype.encode(), ctypes.c_ulong(flags),
                        None), "mount " + target)


def umount(target):
    sys_call(libc.umount2(target.encode(), 0), "umount " + target)


def main():
    import mntkit

    def kind(m):
        return m.fs_type + ("." + m.fs_subtype if m.fs_subtype else "")

    def mounts_are_mountinfo():
        ms = mntkit.mounts()
        got = [(m.old_id, m.old_parent_id, m.mount_point, kind(m),
                m.sb_source) for m in ms]
        expect(got == mountinfo(), "mounts() %r, mountinfo %r" % (
            got[:3], mountinfo()[:3]))

    def backend():
        f = mntkit.features()
        want = "native" if "statmount" in f["flags"] else "mountinfo"
        expect(mntkit.backend() == want == f["backend"],
               "backend %s, features %r" % (mntkit.backend(), f))
        print("@@ python-smoke: backend %s, flags %s" % (
            mntkit.backend(), ",".join(sorted(f["flags"]))), file=sys.stderr)

    def stat_and_table():
        ms = mntkit.mounts()
        for m in ms:
            expect(mntkit.stat(m.id) == m, "stat(%d)" % m.id)
        expect(mntkit.stat("/").mount_point == "/", "stat('/')")
        t = mntkit.Table()
        expect(len(t) == len(ms) and set(t) == set(ms), "Table's mounts")
        for m in t:
            p = t.parent(m)
            expect(p is None or p.old_id == m.old_parent_id, "parent")
        proc = t.find_target("/proc")
        expect(proc is not None and proc.fs_type == "proc", "/proc")
        expect(t.find_source("proc") is not None, "find_source")

    def errors():
        for bad, exc in ((lambda: mntkit.stat(-1), ValueError),
                         (lambda: mntkit.stat(None), TypeError),
                         (lambda: mntkit.stat("/no/such"),
                          FileNotFoundError)):
            try:
                bad()
            except exc:
                continue
            raise AssertionError("no %s" % exc.__name__)
        try:
            mntkit.stat(2 ** 31 - 3)
        except mntkit.Error as e:
            expect(e.errno in (errno.ENOENT, errno.EINVAL), e)
        else:
            raise AssertionError("stat of no mount")

    def private_namespace():
        sys_call(libc.unshare(CLONE_NEWNS), "unshare")
        mount(None, "/", None, MS_REC | MS_PRIVATE)
        os.makedirs("/tmp/smoke", exist_ok=True)

    def watch():
        with mntkit.watch() as w:
            expect(w.read() is None, "an event before any change")
            mount("smoke", "/tmp/smoke", "tmpfs")
            ev = w.read(timeout=60)
            expect(ev is not None and ev.kind == "attach" and
                   ev.mount.sb_source == "smoke", "attach: %r" % ev)
            umount("/tmp/smoke")
            ev = w.read(timeout=60)
            expect(ev is not None and ev.kind == "detach", "detach %r" % ev)
            print("@@ python-smoke: watch source %s" % w.source,
                  file=sys.stderr)

    def watch_asyncio():
        async def run():
            w = mntkit.watch()
            loop = asyncio.get_running_loop()
            loop.call_later(0.5, mount, "smoke-aio", "/tmp/smoke", "tmpfs")
            async for ev in w:
                expect(ev.kind == "attach" and
                       ev.mount.sb_source == "smoke-aio", repr(ev))
                break
            w.close()
            umount("/tmp/smoke")
        asyncio.run(asyncio.wait_for(run(), 60))

    case("mounts_are_mountinfo", mounts_are_mountinfo)
    case("backend", backend)
    case("stat_and_table", stat_and_table)
    case("errors", errors)
    case("private_namespace", private_namespace)
    case("watch", watch)
    case("watch_asyncio", watch_asyncio)
    case("mounts_in_private_namespace", mounts_are_mountinfo)


def files():
    """The standard library's files this script imported (and the
    encodings package, which the interpreter's start takes its codecs
    from), but ssl, which asyncio does without."""
    lib = os.path.dirname(os.__file__)
    out = {os.path.join(lib, "os.py")}
    for m in list(sys.modules.values()):
        f = getattr(m, "__file__", None)
        if f and f.startswith(lib + "/") and \
                not re.search(r"(^|/)_?ssl[.]", f):
            out.add(f)
    enc = os.path.dirname(sys.modules["encodings"].__file__)
    out.update(os.path.join(enc, f) for f in os.listdir(enc)
               if f.endswith(".py"))
    print("\n".join(sorted(out)))


if __name__ == "__main__":
    if sys.argv[1:] == ["--files"]:
        files()
    else:
        t0 = time.monotonic()
        try:
            main()
        except Exception as e:
            print("FAIL import: %s: %s" % (type(e).__name__, e), flush=True)
            failed = 1
        print("@@ python-smoke: %.1f s" % (time.monotonic() - t0),
              file=sys.stderr)
        sys.exit(failed)
