# SPDX-License-Identifier: LGPL-2.1-or-later
"""A dead FUSE server: no call of the module blocks on it.

A FUSE filesystem (fusedaemon.py) is mounted with a tmpfs inside it (on
d, reached through FUSE) and one under it (on x, then covered), then the
daemon stops answering; a lookup through it blocks (the control). Then
mounts(), Table(), stat() of every mount and of a path (/, or in a
chroot the mount point of a root of the tree it sees: seen_root()),
id_from_old(), a
watch with its initial events and namespaces() must return, in a child
process with a deadline, on both backends. When the child misses it the
daemon is killed, which aborts the connection (every waiter returns), and
the test fails."""
import ctypes
import os
import signal
import subprocess
import sys
import time

import pytest

from helpers import HERE, Workspace, never_host, seen_root

DEADLINE = 30  # a call takes milliseconds; this is for a loaded machine

CALLS = """
import json, mntkit
ms = mntkit.mounts()
t = mntkit.Table()
assert len(t) == len(ms)
for m in ms:
    assert mntkit.stat(m.id) == m
    assert m.options is not None
mntkit.stat(%r)
fuse = [m for m in ms if m.mount_point == %r]
assert len(fuse) == 1 and fuse[0].fs_type == "fuse", fuse
assert fuse[0].fs_subtype == "mntkit", fuse
inside = [m for m in ms if m.mount_point == %r][0]
assert mntkit.id_from_old(inside.old_id) == inside.id
with mntkit.watch(initial=True) as w:
    n = 0
    while w.read() is not None:
        n += 1
assert n == len(ms), (n, len(ms))
try:
    mntkit.namespaces()
except mntkit.Error:
    pass
print(json.dumps(sorted(m.sb_source for m in ms)))
"""


def libc_mount(source, target, fstype, flags, data):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(source.encode(), target.encode(), fstype.encode(),
                  ctypes.c_ulong(flags), data.encode()) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e), target)


@pytest.fixture
def dead_fuse():
    never_host()
    ws = Workspace("mntkit-py-fuse")
    f, x = ws.path("f"), ws.path("f", "x")
    subprocess.run(["mount", "-t", "tmpfs", "mntkit-py-under", x],
                   check=True)
    try:
        fd = os.open("/dev/fuse", os.O_RDWR)
    except OSError as e:
        ws.close()
        pytest.skip("/dev/fuse: %s" % e.strerror)
    try:
        libc_mount("mntkit-py-fuse", f, "fuse.mntkit", 6,  # nosuid,nodev
                   "fd=%d,rootmode=40000,user_id=0,group_id=0" % fd)
    except OSError as e:
        os.close(fd)
        ws.close()
        pytest.skip("mount fuse: %s" % e.strerror)
    daemon = subprocess.Popen([sys.executable, os.path.join(
        HERE, "fusedaemon.py"), str(fd)], pass_fds=(fd,),
        stdout=subprocess.PIPE)
    os.close(fd)  # the daemon's is the last: its death aborts
    try:
        assert daemon.stdout.readline() == b"serving\n"
        subprocess.run(["mount", "-t", "tmpfs", "mntkit-py-inside",
                        os.path.join(f, "d")], check=True, timeout=20)
        daemon.send_signal(signal.SIGUSR1)
        time.sleep(0.2)
        control = subprocess.Popen(["stat", os.path.join(f, "d", ".")],
                                   stdout=subprocess.DEVNULL)
        time.sleep(0.5)
        assert control.poll() is None, \
            "a lookup through the stopped daemon did not block"
        daemon.point = f
        yield daemon
    finally:
        daemon.kill()
        daemon.wait()
        daemon.stdout.close()
        if "control" in locals():
            control.wait()
        ws.close()


@pytest.mark.parametrize("backend", ["native", "mountinfo"])
def test_no_call_blocks_on_a_dead_fuse_server(dead_fuse, backend):
    env = dict(os.environ, MNTKIT_BACKEND=backend,
               PYTHONPATH=os.pathsep.join(
                   [HERE, os.environ.get("PYTHONPATH", "")]))
    f = dead_fuse.point
    p = subprocess.Popen([sys.executable, "-c", CALLS % (
        seen_root(), f, os.path.join(f, "d"))], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        p.kill()
        dead_fuse.kill()  # aborts the connection: the child can end
        p.communicate()
        pytest.fail("still running after %d s: blocked on the FUSE "
                    "daemon (%s backend)" % (DEADLINE, backend))
    assert p.returncode == 0, err.decode(errors="replace")[-1500:]
    assert dead_fuse.poll() is None, "the daemon died meanwhile"
    sources = out.decode().split("\n")[-2]
    assert "mntkit-py-inside" in sources and "mntkit-py-under" in sources
