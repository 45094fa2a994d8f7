# SPDX-License-Identifier: LGPL-2.1-or-later
"""The shared side of the CLI tests' Python (tests/cli/py/*.py).

Independent sources of truth (the kernel through raw system calls and
/proc, never through libmntkit), the run of a tool, lsmnt against the
real findmnt, and the dispatch of a case: each tests/cli/py/SCRIPT.py
holds the cases of tests/cli/SCRIPT.sh as functions marked @case and
ends with main(); `python3 tests/cli/py/SCRIPT.py CASE [ARG...]` runs
one (lib.sh's py_case). A case passes when it returns, fails with
expect() (exit 1, the reason as its last line) and skips with skip()
(exit 77).

The kernel, directly:
  statx_mnt_id(path, unique=True)   statx STATX_MNT_ID(_UNIQUE)
  ns_id(path)                       ioctl NS_GET_MNTNS_ID
  listmount(mnt_id, ns_id=0)        raw listmount(2), all pages
  statmount_basic(mnt_id)           raw statmount(2): the four IDs
  true_root_id()                    the namespace root (parents of /)
  NATIVE, need_native()             the native backend is in use (else
                                    IDs are the old ones of mountinfo)
  mount_id(path)                    the ID statmnt should show for path
  ns_root_prefix()                  where / is from its namespace's root
  need_userns()                     skip without user namespaces
  UNSHARE_PRIVATE + argv            argv in a new namespace of private
                                    mounts (unshare -m --propagation
                                    private, also in a chroot whose root
                                    is no mount point); UNSHARE_PIDNS in a
                                    PID namespace too, with its /proc
  mountinfo(path), mi_by_point()    /proc/.../mountinfo, unescaped
  mi_roots()                        mount points of its tree's roots
  sys_mount(src, target, fstype)    mount(2) as given (no mount(8))
The tools:
  parse_text(s), text_unescape(s)   statmnt's text format, unescaped
  tool(name, *args), tool_ok()      run a tool: (rc, stdout str, stderr str)
  expect(cond, msg), skip(msg)
lsmnt against findmnt ($LSMNT):
  need_findmnt(), run(argv), same(args), first_diff(a, b)
"""
import ctypes
import fcntl
import json
import os
import platform
import re
import select
import struct
import subprocess
import sys
import tempfile
import time

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long

AT_FDCWD = -100
STATX_MNT_ID = 0x1000
STATX_MNT_ID_UNIQUE = 0x4000
LSMT_ROOT = 0xffffffffffffffff
NS_GET_MNTNS_ID = 0x8008b705          # _IOR(0xb7, 5, __u64)
UNIQUE_OFFSET = 1 << 31


def _nr(which):
    """statmount (0) / listmount (1) system call numbers."""
    m = platform.machine()
    if m.startswith("alpha"):
        return 567 + which
    if m.startswith("mips"):
        return (5457 if "64" in m else 4457) + which
    return 457 + which


class Failure(Exception):
    pass


def expect(cond, msg):
    if not cond:
        print(msg)
        sys.exit(1)


def skip(msg):
    print(msg)
    sys.exit(77)


def statx_mnt_id(path, unique=True):
    """The mount ID statx(2) gives for path; None if not supported."""
    buf = ctypes.create_string_buffer(256)
    mask = STATX_MNT_ID_UNIQUE if unique else STATX_MNT_ID
    r = _libc.statx(AT_FDCWD, os.fsencode(path), 0, mask, buf)
    if r != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e), path)
    if not struct.unpack_from("I", buf, 0)[0] & mask:
        return None
    return struct.unpack_from("Q", buf, 144)[0]


def ns_id(path="/proc/self/ns/mnt"):
    fd = os.open(path, os.O_RDONLY)
    try:
        b = fcntl.ioctl(fd, NS_GET_MNTNS_ID, b"\0" * 8)
    finally:
        os.close(fd)
    return struct.unpack("Q", b)[0]


def listmount(mnt_id=LSMT_ROOT, mnt_ns_id=0):
    """Every ID listmount(2) returns below mnt_id (all pages)."""
    nr = 256
    buf = (ctypes.c_uint64 * nr)()
    ids, last = [], 0
    while True:
        req = ctypes.create_string_buffer(
            struct.pack("IIQQQ", 32, 0, mnt_id, last, mnt_ns_id), 32)
        n = _libc.syscall(ctypes.c_long(_nr(1)), req, buf,
                          ctypes.c_size_t(nr), ctypes.c_uint(0))
        if n < 0:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
        ids.extend(buf[:n])
        if n < nr:
            return ids
        last = buf[n - 1]


def statmount_basic(mnt_id, mnt_ns_id=0):
    """Raw statmount(2) of STATMOUNT_MNT_BASIC: (mnt_id, mnt_parent_id,
    mnt_id_old, mnt_parent_id_old)."""
    req = ctypes.create_string_buffer(
        struct.pack("IIQQQ", 32, 0, mnt_id, 0x2, mnt_ns_id), 32)
    buf = ctypes.create_string_buffer(512)
    r = _libc.syscall(ctypes.c_long(_nr(0)), req, buf, ctypes.c_size_t(512),
                      ctypes.c_uint(0))
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return struct.unpack_from("QQII", buf, 40)


def true_root_id():
    """The namespace's root mount: walk the parents up from /."""
    mid = statx_mnt_id("/")
    while True:
        me, parent = statmount_basic(mid)[:2]
        if parent == me:
            return me
        mid = parent


def _kernel_has_listmount():
    try:
        listmount()
        return True
    except OSError:
        return False


# Does statmnt use the kernel's unique IDs (native backend), or the old
# IDs of mountinfo (the emulation: old kernel or MNTKIT_BACKEND=mountinfo)?
NATIVE = (_kernel_has_listmount() and
          os.environ.get("MNTKIT_BACKEND", "auto") in ("", "auto", "native"))


def need_native():
    if not NATIVE:
        skip("needs the native backend (statmount/listmount in the kernel)")


def ns_root_prefix():
    """The caller's root directory as a process at its mount namespace's
    root names it: "" where the two are the same (a host, a container),
    "/srv/jail" in a chroot at /srv/jail. setns(2) into the namespace
    (nsenter --mount) moves a process's root there; from there, the old
    root (nsenter's --wd, opened before) is a path. None when that is
    refused (not root)."""
    p = subprocess.run(["nsenter", "--mount=/proc/self/ns/mnt", "--wd=/",
                        "pwd", "-P"], capture_output=True, text=True)
    if p.returncode != 0:
        return None
    r = p.stdout.strip()
    return "" if r == "/" else r


# unshare -m --propagation private, but unshare sets "/" private, EINVAL
# in a chroot whose root is no mount point: tests/cli/in-private-ns sets
# the namespace's root instead (lib.sh's unshare_private)
_IN_PRIVATE_NS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                              os.pardir, "in-private-ns")
UNSHARE_PRIVATE = ["unshare", "-m", "--propagation", "unchanged", "bash",
                   _IN_PRIVATE_NS]
UNSHARE_PIDNS = ["unshare", "-m", "--propagation", "unchanged", "--pid",
                 "--fork", "bash", _IN_PRIVATE_NS, "--proc"]


def need_userns():
    """Skip unless a user namespace can be made (unshare -U): the kernel
    refuses one in a chroot, and a sysctl or a seccomp filter may."""
    p = subprocess.run(["unshare", "-U", "true"], capture_output=True, text=True)
    if p.returncode == 0:
        return
    why = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "exit %d" % p.returncode
    pre = ns_root_prefix()
    if pre:
        skip("no user namespace in a chroot (at %s): %s" % (pre, why))
    skip("no user namespace: %s" % why)


def mount_id(path):
    """The ID statmnt should give for the mount of path (a mount point
    that resolves to its mount): its unique ID where statx(2) has them,
    with either backend; the old ID of mountinfo on older kernels."""
    uniq = statx_mnt_id(path, True)
    return uniq if uniq is not None else statx_mnt_id(path, False)


def _mi_unescape(b):
    b = re.sub(rb"\\([0-7]{3})", lambda m: bytes([int(m.group(1), 8)]), b)
    return b.decode("utf-8", "surrogateescape")


def mountinfo(path="/proc/self/mountinfo"):
    """The entries of a mountinfo file, fields octal-unescaped."""
    with open(path, "rb") as f:
        data = f.read()
    out = []
    for line in data.split(b"\n"):
        if not line:
            continue
        f = line.split(b" ")
        sep = f.index(b"-", 6)
        major, minor = f[2].split(b":")
        out.append({
            "id": int(f[0]), "parent": int(f[1]),
            "major": int(major), "minor": int(minor),
            "root": _mi_unescape(f[3]), "point": _mi_unescape(f[4]),
            "mnt_opts": _mi_unescape(f[5]),
            "optional": [_mi_unescape(x) for x in f[6:sep]],
            "fstype": _mi_unescape(f[sep + 1]),
            "source": _mi_unescape(f[sep + 2]),
            "super_opts": _mi_unescape(f[sep + 3]),
        })
    return out


def mi_roots():
    """The mount points of the roots of the caller's mount tree as its
    mountinfo shows it: the entries whose parent it does not show. One,
    "/", but in a chroot whose root directory is no mount point: there
    the mount that holds / is outside the root, and each mount below it
    is a root."""
    mi = mountinfo()
    ids = {e["id"] for e in mi}
    return sorted(e["point"] for e in mi
                  if e["parent"] not in ids or e["parent"] == e["id"])


def mi_by_point(entries, point):
    """The visible (last) mountinfo entry mounted on point."""
    hits = [e for e in entries if e["point"] == point]
    return hits[-1] if hits else None


def text_unescape(s):
    """Undo statmnt's text escaping (\\\\ \\t \\n \\r \\ooo)."""
    b = s.encode("utf-8", "surrogateescape")
    out, i = bytearray(), 0
    short = {ord("\\"): b"\\", ord("t"): b"\t", ord("n"): b"\n",
             ord("r"): b"\r"}
    while i < len(b):
        if b[i] == 0x5c and i + 1 < len(b) and b[i + 1] in short:
            out += short[b[i + 1]]
            i += 2
        elif b[i] == 0x5c and re.match(rb"[0-7]{3}", b[i + 1:i + 4]):
            out.append(int(b[i + 1:i + 4], 8))
            i += 4
        elif b[i] == 0x5c:
            raise Failure("bad escape in %r" % s)
        else:
            out.append(b[i])
            i += 1
    return out.decode("utf-8", "surrogateescape")


def parse_text(text):
    """statmnt's text output -> dict. Strings (<...>) are unescaped,
    arrays (key: N, key[i]: <...>) become lists under key + "[]"."""
    d = {}
    for line in text.split("\n"):
        if not line:
            continue
        key, sep, val = line.partition(": ")
        if not sep:
            raise Failure("not a key: value line: %r" % line)
        if val.startswith("<") and val.endswith(">"):
            val = text_unescape(val[1:-1])
        m = re.fullmatch(r"(\w+)\[(\d+)\]", key)
        if m:
            lst = d.setdefault(m.group(1) + "[]", [])
            if int(m.group(2)) != len(lst):
                raise Failure("array index out of order: %r" % line)
            lst.append(val)
            continue
        if key in d:
            raise Failure("duplicate key %r" % key)
        d[key] = val
    return d


def tool(name, *args, env=None):
    exe = os.path.join(os.environ["BUILDDIR"], "tools", name)
    e = dict(os.environ)
    if env:
        e.update(env)
    p = subprocess.run([exe] + [os.fsencode(a) for a in args],
                       capture_output=True, env=e)
    return (p.returncode, p.stdout.decode("utf-8", "surrogateescape"),
            p.stderr.decode("utf-8", "surrogateescape"))


def tool_ok(name, *args, env=None):
    rc, out, err = tool(name, *args, env=env)
    expect(rc == 0, "%s %s: exit %d: %s" % (name, " ".join(args), rc,
                                            err.strip()))
    expect(err == "", "%s %s: stderr not empty: %s" % (name, " ".join(args),
                                                       err.strip()))
    return out


# ---- lsmnt against the real findmnt ----

# the reference: findmnt 2.42, which lsmnt follows ($MNTKIT_FINDMNT, set
# by lib.sh's use_findmnt from scripts/findmnt-suite.sh)
FINDMNT = os.environ.get("MNTKIT_FINDMNT", "")
HAVE_FINDMNT = bool(FINDMNT) and os.access(FINDMNT, os.X_OK)


def need_findmnt():
    if not HAVE_FINDMNT:
        skip("no findmnt 2.42 ($MNTKIT_FINDMNT, scripts/findmnt-suite.sh)")


def _start(argv, env=None, cwd=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    return subprocess.Popen([os.fsencode(a) for a in argv], env=e, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _result(p):
    out, err = p.communicate()
    return p.returncode, out, err, p.pid


def run(argv, env=None, cwd=None):
    """(exit status, stdout, stderr, pid) of ARGV, ENV added to ours."""
    return _result(_start(argv, env, cwd))


def first_diff(a, b):
    """Where findmnt's output A and lsmnt's B first differ, for a message."""
    al, bl = a.split(b"\n"), b.split(b"\n")
    for i in range(max(len(al), len(bl))):
        x = al[i] if i < len(al) else b"<end>"
        y = bl[i] if i < len(bl) else b"<end>"
        if x != y:
            return "line %d: findmnt %r / lsmnt %r" % (i + 1, x, y)
    return "same"


DF_WORDS = ("-D", "--df", "SIZE", "AVAIL", "USED", "USE%", "ALL", "-I",
            "--dfi", "INO.", "--output-all")


def shows_usage(args):
    """Does ARGS show a df column (SIZE, AVAIL, USED, USE%, the INO.
    columns)?"""
    return any(w in a for a in args for w in DF_WORDS)


def tables(args):
    """What ARGS reads that others may change: our mount table and that of
    -N PID (the filesystems' usage both read from one snapshot)."""
    paths = ["/proc/self/mountinfo"]
    if "-N" in args[:-1]:
        paths.append("/proc/%s/mountinfo" % args[args.index("-N") + 1])
    state = []
    for p in paths:
        try:
            with open(p, "rb") as f:
                state.append(f.read())
        except OSError:
            state.append(None)
    return state


def usage_snapshot(env):
    """ENV (None or a dict) with statvfs-snapshot.so (tests/statvfs-
    snapshot.c) preloaded and a new snapshot file of its own: the programs
    run with it show the usage the first of them read, however busy the
    disk (a sanitized lsmnt takes the preloaded module too)"""
    so = os.path.join(os.environ["BUILDDIR"], "tests", "statvfs-snapshot.so")
    expect(os.path.exists(so), "no %s: build the tests" % so)
    fd, snap = tempfile.mkstemp(prefix="statvfs-",
                                dir=os.environ.get("CLI_TMP"))
    os.close(fd)
    os.unlink(snap)
    e = dict(env or {})
    asan = e.get("ASAN_OPTIONS", os.environ.get("ASAN_OPTIONS"))
    e.update({"LD_PRELOAD": so, "MNTKIT_STATVFS_SNAPSHOT": snap,
              "ASAN_OPTIONS": (asan + ":" if asan else "") +
              "verify_asan_link_order=0"})
    return e, snap


def same(args, env=None, cwd=None, tries=4):
    """lsmnt ARGS and findmnt ARGS: the same stdout and exit status, and
    no stderr from lsmnt when they succeed. A difference fails at once,
    unless what the pair reads changed while they ran: a mount table
    (another process mounted meanwhile); each rerun is said on stderr, at
    most TRIES runs in all. With a df column both show the usage findmnt
    read (usage_snapshot()): a live filesystem's usage changes between
    two runs."""
    lsmnt = os.environ["LSMNT"]
    for n in range(tries):
        before = tables(args)
        e, snap = usage_snapshot(env) if shows_usage(args) else (env, None)
        try:
            fr, fo, fe, _ = run([FINDMNT] + args, e, cwd)
            lr, lo, le, _ = run([lsmnt] + args, e, cwd)
        finally:
            if snap and os.path.exists(snap):
                os.unlink(snap)
        if (fr, fo) == (lr, lo):
            expect(fr != 0 or le == b"", "%s: stderr %r" % (args, le[:200]))
            return lo
        if tables(args) == before:
            break
        sys.stderr.write("findmntcmp: %s: a mount table changed during the "
                         "run (%s); running both again\n"
                         % (" ".join(args), first_diff(fo, lo)))
        time.sleep(0.05)
    expect(False, "%s: exit %d/%d, %s %s" % (
        " ".join(args), fr, lr, first_diff(fo, lo),
        le.decode(errors="replace")[:200]))


class Lines:
    """the stdout of a running program (argv list), a line at a time"""

    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.buf = b""

    def line(self, timeout=10):
        """the next line, or None: none within timeout s, or the end"""
        end = time.time() + timeout
        while b"\n" not in self.buf:
            left = end - time.time()
            if left <= 0:
                return None
            if not select.select([self.p.stdout], [], [], left)[0]:
                return None
            chunk = os.read(self.p.stdout.fileno(), 65536)
            if not chunk:
                return None
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return line.decode("utf-8", "surrogateescape")

    def err(self):
        """its stderr, killed first if it still runs"""
        if self.p.poll() is None:
            self.p.kill()
        return self.p.stderr.read().decode(errors="replace").strip()

    def kill(self):
        """end it (killed if it still runs): its stderr"""
        err = self.err()
        self.p.wait()
        return err


def sh(*cmd):
    """run cmd; an exception when it fails"""
    subprocess.run(cmd, check=True)


def sys_mount(src, target, fstype="tmpfs"):
    """mount(2) of src (bytes or str, kept as given: mount(8) would
    evaluate a LABEL= or UUID= tag) on target"""
    if isinstance(src, str):
        src = os.fsencode(src)
    if _libc.mount(src, os.fsencode(target), fstype.encode(), 0, None):
        e = ctypes.get_errno()
        raise OSError(e, "mount %s: %s" % (target, os.strerror(e)))


def sys_umount(target):
    """umount2(2) of target"""
    if _libc.umount2(os.fsencode(target), 0):
        e = ctypes.get_errno()
        raise OSError(e, "umount %s: %s" % (target, os.strerror(e)))


CASES = {}


def case(fn):
    """mark fn as a case main() can run"""
    CASES[fn.__name__] = fn
    return fn


def main():
    """run the case sys.argv[1] with the arguments that follow"""
    if len(sys.argv) < 2 or sys.argv[1] not in CASES:
        sys.stderr.write("usage: %s CASE [ARG...]; cases: %s\n"
                         % (sys.argv[0], " ".join(sorted(CASES))))
        sys.exit(2)
    CASES[sys.argv[1]](*sys.argv[2:])
    sys.exit(0)


@case
def mount_source(src, target, fstype="tmpfs"):
    """a command for the scripts: mount src (a tag source as the kernel
    keeps it) on target; exit 1 when it cannot"""
    try:
        sys_mount(src, target, fstype)
    except OSError as e:
        sys.stderr.write("%s\n" % e)
        sys.exit(1)


@case
def executable():
    """a command for the scripts: the program of this Python"""
    print(sys.executable)


@case
def seen_root():
    """a command for the scripts: the mount point of a mount the caller
    sees and reaches: "/", but in a chroot whose root directory is no
    mount point, where the mount that holds / is outside the root
    (mi_roots())"""
    print(mi_roots()[0])


@case
def native():
    """a command for the scripts: exit 0 when the native backend serves
    (NATIVE), else 1"""
    sys.exit(0 if NATIVE else 1)


@case
def json_is(path, want):
    """a command for the scripts: exit 0 when the JSON of the file path
    equals the JSON text want, else 1"""
    with open(path) as f:
        sys.exit(json.load(f) != json.loads(want))


@case
def build_options(*names):
    """a command for the scripts: the values of the build options names
    of `meson introspect --buildoptions` on stdin, on one line"""
    o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
    print(*[o[n] for n in names])


if __name__ == "__main__":
    main()
