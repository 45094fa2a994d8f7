# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# tests/cli/lib.sh - helpers for the CLI tests (tests/cli/*.sh).
#
# A CLI test script is run as `bash tests/cli/X.sh ABS_BUILDDIR` from the
# project root. It sources this file, calls cli_init "$1", runs its cases
# and ends with cli_done. Every case prints exactly one line:
#
#	PASS <name>
#	FAIL <name>: <reason>
#	SKIP <name>: <reason>
#
# and the script exits 1 if any case failed, 0 otherwise.
#
# What this file gives:
#   pass NAME / fail NAME REASON / skip NAME REASON
#   cli_init BUILDDIR      sets BUILDDIR, SRCDIR, CLI_TMP (removed at exit;
#                          kept from the caller with CLI_TMP_INHERIT=1)
#   cli_done               exit status from the cases (1: one failed; 77:
#                          every case skipped; else 0)
#   run CMD...             runs CMD; sets RC, and OUT / ERR (file names)
#   expect_error NAME WORD [USAGE] CMD...
#                          asserts exit status 1, empty stdout, one stderr
#                          line "PROG: ...WORD...", plus the usage line when
#                          USAGE is "usage" (use "-" otherwise); PROG is
#                          $CLI_PROG, else the name of CMD
#   py_case NAME < SCRIPT  runs a Python 3 script (stdin) as one case:
#                          exit 0 PASS, 77 SKIP, else FAIL; the reason is
#                          the script's last output line. The script can
#                          `from mntcli import *` (below).
#   expect_help NAME CMD USAGE OPTION...
#                          asserts CMD --help exits 0, stderr empty, first
#                          line matching the grep pattern USAGE, and every
#                          OPTION named
#   expect_version NAME CMD
#                          asserts CMD -V prints "$CLI_PROG (mntkit) V",
#                          V the version in meson.build
#   expect_write_error NAME CMD...
#                          asserts CMD with stdout on /dev/full exits 1
#                          with one stderr line "$CLI_PROG: write error: ..."
#                          (SKIP without /dev/full)
#   mount_tree PREFIX DIR...
#                          the test mount tree of statmnt's and lsmnt's
#                          namespace cases, in $T (exported)
#   start_other_ns SOURCE  a second mount namespace with a tmpfs SOURCE on
#                          $T/o; sets and exports OTHER_PID
#   stop_bg PID            kills and reaps a background process
#   cli_main SETUP WHY "${2:-}"
#                          the main part of a tool's script: runs the cases
#                          of $plain_cases, then those of $ns_cases in a
#                          private mount namespace
#   is_root, have_cmd CMD, can_unshare_mount
#
# The Python module mntcli gives independent sources of truth (the kernel
# through raw system calls and /proc, never through libmntkit):
#   statx_mnt_id(path, unique=True)   statx STATX_MNT_ID(_UNIQUE)
#   ns_id(path)                       ioctl NS_GET_MNTNS_ID
#   listmount(mnt_id, ns_id=0)        raw listmount(2), all pages
#   statmount_basic(mnt_id)           raw statmount(2): the four IDs
#   true_root_id()                    the namespace root (parents of /)
#   NATIVE, need_native()             the native backend is in use (else
#                                     IDs are the old ones of mountinfo)
#   mount_id(path)                    the ID statmnt should show for path
#   mountinfo(path)                   /proc/.../mountinfo, unescaped
#   parse_text(s)                     statmnt's text format, unescaped
#   tool(name, *args)                 run a tool: (rc, stdout str, stderr str)
#   expect(cond, msg), skip(msg)

cli_failed=0
cli_cases=0
cli_skips=0
cli_inner= # the cases run in a private namespace: "", "ran" or "skipped"

pass() {
	cli_cases=$((cli_cases + 1))
	printf 'PASS %s\n' "$1"
}

fail() {
	cli_cases=$((cli_cases + 1))
	cli_failed=1
	# one line, whatever the reason holds
	printf 'FAIL %s: %s\n' "$1" "$(printf '%s' "$2" | tr '\n' ' ')"
}

skip() {
	cli_cases=$((cli_cases + 1))
	cli_skips=$((cli_skips + 1))
	printf 'SKIP %s: %s\n' "$1" "$(printf '%s' "$2" | tr '\n' ' ')"
}

is_root() {
	[ "$(id -u)" = 0 ]
}

have_cmd() {
	command -v "$1" >/dev/null 2>&1
}

can_unshare_mount() {
	is_root && have_cmd unshare &&
		unshare -m --propagation private true 2>/dev/null
}

cli_cleanup() {
	[ -n "${CLI_TMP:-}" ] && [ -d "$CLI_TMP" ] && rm -rf "$CLI_TMP"
}

cli_init() {
	if [ $# -lt 1 ] || [ -z "$1" ]; then
		echo "usage: bash $0 ABS_BUILDDIR" >&2
		exit 2
	fi
	BUILDDIR=$1
	SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	# a script re-run by itself (e.g. in a new mount namespace) passes
	# CLI_TMP_INHERIT=1 and keeps its parent's directory
	if [ "${CLI_TMP_INHERIT:-}" != 1 ] || [ ! -d "${CLI_TMP:-}" ]; then
		CLI_TMP=$(mktemp -d "${TMPDIR:-/tmp}/mntkit-cli.XXXXXX") ||
			exit 2
		trap cli_cleanup EXIT
	fi
	unset CLI_TMP_INHERIT
	export BUILDDIR SRCDIR CLI_TMP
	# findmnt and lsmnt (libblkid) write libblkid's cache when run as
	# root: a private one, so that no test writes /run/blkid/blkid.tab
	BLKID_FILE=$CLI_TMP/blkid.tab
	export BLKID_FILE
	cli_write_py
	export PYTHONPATH="$CLI_TMP/py${PYTHONPATH:+:$PYTHONPATH}"
	OUT=$CLI_TMP/out
	ERR=$CLI_TMP/err
}

# exit 1 if a case failed; 77 if every case skipped (those run in the
# private namespace too), so that a fully skipped script is never taken
# for a pass; 0 otherwise
cli_done() {
	[ "$cli_failed" = 0 ] || exit 1
	if [ "$cli_skips" = "$cli_cases" ] && [ "$cli_inner" != ran ] &&
		{ [ "$cli_cases" -gt 0 ] || [ "$cli_inner" = skipped ]; }; then
		exit 77
	fi
	exit 0
}

run() {
	"$@" >"$OUT" 2>"$ERR"
	RC=$?
}

# expect_error NAME WORD USAGE CMD... (see above)
expect_error() {
	local name=$1 word=$2 usage=$3 prog lines first
	shift 3
	prog=${CLI_PROG:-${1##*/}}
	run "$@"
	lines=$(wc -l <"$ERR")
	first=$(head -n 1 "$ERR")
	if [ "$RC" != 1 ]; then
		fail "$name" "exit status $RC, expected 1"
	elif [ -s "$OUT" ]; then
		fail "$name" "stdout not empty: $(head -c 200 "$OUT")"
	elif [ "${first#"$prog: "}" = "$first" ]; then
		fail "$name" "stderr does not start with '$prog: ': $first"
	elif [[ $first != *"$word"* ]]; then
		fail "$name" "stderr does not name '$word': $first"
	elif [ "$usage" = usage ] && { [ "$lines" != 2 ] ||
		! sed -n 2p "$ERR" | grep -q "^usage: $prog "; }; then
		fail "$name" "expected the error and the usage line: $(cat "$ERR")"
	elif [ "$usage" != usage ] && [ "$lines" != 1 ]; then
		fail "$name" "expected one stderr line, got $lines: $(cat "$ERR")"
	else
		pass "$name"
	fi
}

py_case() {
	local name=$1 out rc
	out=$(python3 - 2>&1)
	rc=$?
	case $rc in
	0) pass "$name" ;;
	77) skip "$name" "$(printf '%s\n' "$out" | tail -n 1)" ;;
	*) fail "$name" "$(printf '%s\n' "$out" | tail -n 1)" ;;
	esac
}

# expect_help NAME CMD USAGE OPTION... (see above)
expect_help() {
	local name=$1 cmd=$2 usage=$3 opt
	shift 3
	run "$cmd" --help
	if [ "$RC" != 0 ] || [ -s "$ERR" ]; then
		fail "$name" "exit $RC, stderr: $(cat "$ERR")"
		return
	elif ! head -n 1 "$OUT" | grep -q "$usage"; then
		fail "$name" "no usage line: $(head -n 1 "$OUT")"
		return
	fi
	for opt; do
		if ! grep -q -- "$opt" "$OUT"; then
			fail "$name" "options not described"
			return
		fi
	done
	pass "$name"
}

# expect_version NAME CMD (see above)
expect_version() {
	local name=$1 want
	want=$(sed -n "s/^ *version *: *'\([0-9.]*\)'.*/\1/p" \
		"$SRCDIR/meson.build" | head -n 1)
	run "$2" -V
	if [ "$RC" != 0 ] || [ "$(cat "$OUT")" != "$CLI_PROG (mntkit) $want" ]; then
		fail "$name" "exit $RC, got '$(cat "$OUT")', want version $want"
	else
		pass "$name"
	fi
}

# expect_write_error NAME CMD... (see above)
expect_write_error() {
	local name=$1 rc
	shift
	if [ ! -w /dev/full ]; then
		skip "$name" "no /dev/full"
		return
	fi
	"$@" >/dev/full 2>"$ERR"
	rc=$?
	if [ "$rc" != 1 ] || ! grep -q "^$CLI_PROG: write error: " "$ERR" ||
		[ "$(wc -l <"$ERR")" != 1 ]; then
		fail "$name" "exit $rc, stderr: $(cat "$ERR")"
	else
		pass "$name"
	fi
}

# mount_tree PREFIX DIR...: the mounts statmnt's and lsmnt's namespace
# cases share. T=$CLI_TMP/t (exported) gets a tmpfs PREFIX-top
# (size=1m,mode=750) with the directories a b c n p q u and DIR...
# (names below $T), and in it: a tmpfs PREFIX-a (size=512k,nr_inodes=64)
# on a with a tmpfs PREFIX-deep on a/sub/x; a bind of a/sub on b; a
# read-only bind of a on c; a tmpfs PREFIX-n (nosuid,nodev,noexec,
# noatime) on n; a shared tmpfs PREFIX-p on p with a slave bind of it on
# q; an unbindable tmpfs PREFIX-u on u. Returns 1 if a step fails.
# chroot_fill ROOT: what a tool of the build needs to run in a chroot at
# ROOT: the system's program and library directories (bound, or their
# symlinks), /proc and the build directory
chroot_fill() {
	local d
	for d in /usr /bin /lib /lib64 /sbin /proc; do
		if [ -L "$d" ]; then
			ln -s "$(readlink "$d")" "$1$d" || return 1
		elif [ -d "$d" ]; then
			mkdir -p "$1$d" && mount --rbind "$d" "$1$d" || return 1
		fi
	done
	mkdir -p "$1$BUILDDIR" && mount --bind "$BUILDDIR" "$1$BUILDDIR"
}

mount_tree() {
	local prefix=$1 d dirs=()
	shift
	T=$CLI_TMP/t
	export T
	for d in a b c n p q u "$@"; do
		dirs+=("$T/$d")
	done
	mkdir -p "$T" || return 1
	mount -t tmpfs -o size=1m,mode=750 "$prefix-top" "$T" || return 1
	mkdir "${dirs[@]}" || return 1
	mount -t tmpfs -o size=512k,nr_inodes=64 "$prefix-a" "$T/a" &&
		mkdir -p "$T/a/sub/x" &&
		mount -t tmpfs "$prefix-deep" "$T/a/sub/x" &&
		mount --bind "$T/a/sub" "$T/b" &&
		mount --bind "$T/a" "$T/c" &&
		mount -o remount,bind,ro "$T/c" &&
		mount -t tmpfs -o nosuid,nodev,noexec,noatime "$prefix-n" "$T/n" &&
		mount -t tmpfs "$prefix-p" "$T/p" &&
		mount --make-shared "$T/p" &&
		mount --bind "$T/p" "$T/q" &&
		mount --make-slave "$T/q" &&
		mount -t tmpfs "$prefix-u" "$T/u" &&
		mount --make-unbindable "$T/u"
}

# start_other_ns SOURCE: in the background, a process in a new private
# mount namespace that mounts a tmpfs named SOURCE on $T/o (which must
# exist) and sleeps. Sets and exports OTHER_PID, its PID (end it with
# stop_bg), and waits up to 5 s for the mount to show in its mountinfo;
# returns non-zero if it does not.
start_other_ns() {
	# shellcheck disable=SC2016 # $T and $1 are expanded by the inner shell
	unshare -m --propagation private sh -c \
		'mount -t tmpfs "$1" "$T/o" && exec sleep 120' sh "$1" &
	OTHER_PID=$!
	export OTHER_PID
	for _ in $(seq 100); do
		grep -q -- "$1" "/proc/$OTHER_PID/mountinfo" 2>/dev/null && break
		sleep 0.05
	done
	grep -q -- "$1" "/proc/$OTHER_PID/mountinfo" 2>/dev/null
}

# stop_bg PID: end a background process the test started, and reap it
stop_bg() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# cli_main SETUP WHY [--in-ns]: the main part of the script of the tool
# $CLI_PROG, after its cases; call it as cli_main SETUP WHY "${2:-}". The
# cases are the functions named in $plain_cases and $ns_cases, c_NAME
# for the case NAME. If $BUILDDIR/tools/$CLI_PROG is missing that is one
# failure. Otherwise the plain cases run, then the script runs itself
# again in a private mount namespace (unshare -m) with --in-ns: there
# the function SETUP makes the test mounts and the namespace cases run,
# or each of them fails with the reason WHY if SETUP fails. Without
# root and unshare the namespace cases SKIP. Ends the script.
# shellcheck disable=SC2154 # the script sets plain_cases and ns_cases
cli_main() {
	local cli_setup=$1 cli_why=$2 cli_c
	if [ ! -x "$BUILDDIR/tools/$CLI_PROG" ]; then
		fail "${CLI_PROG}_built" "no executable $BUILDDIR/tools/$CLI_PROG"
		cli_done
	fi
	if [ "${3:-}" = --in-ns ]; then
		if ! "$cli_setup"; then
			for cli_c in $ns_cases; do
				fail "${cli_c#c_}" "$cli_why"
			done
			cli_done
		fi
		for cli_c in $ns_cases; do
			"$cli_c"
		done
		cli_done
	fi
	for cli_c in $plain_cases; do
		"$cli_c"
	done
	if can_unshare_mount; then
		CLI_TMP_INHERIT=1 unshare -m --propagation private \
			bash "$0" "$BUILDDIR" --in-ns
		case $? in
		0) cli_inner=ran ;;
		77) cli_inner=skipped ;;
		*) cli_inner=ran cli_failed=1 ;;
		esac
	else
		for cli_c in $ns_cases; do
			skip "${cli_c#c_}" "needs root and a private mount namespace (unshare -m)"
		done
	fi
	cli_done
}

cli_write_py() {
	mkdir -p "$CLI_TMP/py"
	cat >"$CLI_TMP/py/mntcli.py" <<'PY'
"""Independent sources of truth for the mntkit CLI tests."""
import ctypes
import fcntl
import os
import platform
import re
import struct
import subprocess
import sys

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
PY
	cat >"$CLI_TMP/py/findmntcmp.py" <<'PY'
"""lsmnt ($LSMNT) against the real findmnt: run both, compare the bytes."""
import os
import shutil
import subprocess
import sys
import time

from mntcli import expect, skip

HAVE_FINDMNT = shutil.which("findmnt") is not None


def need_findmnt():
    if not HAVE_FINDMNT:
        skip("no findmnt")


def run(argv, env=None, cwd=None):
    """(exit status, stdout, stderr, pid) of ARGV, ENV added to ours."""
    e = dict(os.environ)
    if env:
        e.update(env)
    p = subprocess.Popen([os.fsencode(a) for a in argv], env=e, cwd=cwd,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate()
    return p.returncode, out, err, p.pid


def first_diff(a, b):
    """Where findmnt's output A and lsmnt's B first differ, for a message."""
    al, bl = a.split(b"\n"), b.split(b"\n")
    for i in range(max(len(al), len(bl))):
        x = al[i] if i < len(al) else b"<end>"
        y = bl[i] if i < len(bl) else b"<end>"
        if x != y:
            return "line %d: findmnt %r / lsmnt %r" % (i + 1, x, y)
    return "same"


DF_WORDS = ("-D", "--df", "SIZE", "AVAIL", "USED", "USE%", "ALL")


def usage_of(table):
    """statvfs of the mount points of mountinfo TABLE (bytes): what the df
    columns show. Served filesystems (FUSE, network) are never asked."""
    out = []
    for line in table.decode(errors="surrogateescape").splitlines():
        f = line.split(" ")
        fstype = f[f.index("-") + 1]
        if fstype.startswith(("fuse", "nfs", "cifs", "smb", "ceph", "9p")):
            continue
        point = f[4].replace("\\040", " ").replace("\\011", "\t") \
            .replace("\\012", "\n").replace("\\134", "\\")
        try:
            v = os.statvfs(point)
            out.append((point, v.f_blocks, v.f_bfree, v.f_bavail))
        except OSError:
            out.append((point, None))
    return out


def shows_usage(args):
    """Does ARGS show a df column (SIZE, AVAIL, USED, USE%)?"""
    return any(w in a for a in args for w in DF_WORDS)


def tables(args):
    """What ARGS reads that others may change: our mount table and that of
    -N PID, and the filesystems' usage when a df column is shown."""
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
    if shows_usage(args) and state[0]:
        state.append(usage_of(state[0]))
    return state


def same(args, env=None, cwd=None, tries=4):
    """lsmnt ARGS and findmnt ARGS: the same stdout and exit status, and
    no stderr from lsmnt when they succeed. A difference fails at once,
    unless what the pair reads changed while they ran: a mount table
    (another process mounted meanwhile), or, with a df column, a live
    filesystem's usage (which can change and change back between the two
    runs, so a df difference is always run again). Each rerun is said on
    stderr; at most TRIES runs in all."""
    lsmnt = os.environ["LSMNT"]
    if shows_usage(args):
        tries = max(tries, 10)  # a busy disk: every run can see other usage
    for n in range(tries):
        before = tables(args)
        fr, fo, fe, _ = run(["findmnt"] + args, env, cwd)
        lr, lo, le, _ = run([lsmnt] + args, env, cwd)
        if (fr, fo) == (lr, lo):
            expect(fr != 0 or le == b"", "%s: stderr %r" % (args, le[:200]))
            return lo
        if tables(args) == before and not shows_usage(args):
            break
        sys.stderr.write("findmntcmp: %s: a mount table or a filesystem's "
                         "usage changed during the run (%s); running both "
                         "again\n"
                         % (" ".join(args), first_diff(fo, lo)))
        time.sleep(0.05)
    expect(False, "%s: exit %d/%d, %s %s" % (
        " ".join(args), fr, lr, first_diff(fo, lo),
        le.decode(errors="replace")[:200]))
PY
}

# ---- run directly (the test runner runs every tests/cli/*.sh): check the
# helpers themselves, so that the other scripts can trust their oracles ----

lib_selftest() {
	local out
	out=$(CLI_PROG=fake expect_error inner "bad x" - \
		sh -c 'echo "fake: bad x: reason" >&2; exit 1')
	if [ "$out" != "PASS inner" ]; then
		fail lib_expect_error_pass "got: $out"
	else
		pass lib_expect_error_pass
	fi
	out=$(CLI_PROG=fake expect_error inner "bad x" - \
		sh -c 'echo out; echo "fake: bad x" >&2; exit 1')
	case $out in
	"FAIL inner: stdout not empty"*) pass lib_expect_error_stdout ;;
	*) fail lib_expect_error_stdout "got: $out" ;;
	esac
	py_case lib_text_unescape <<'PY'
from mntcli import *
expect(text_unescape(r"a\tb\\c\nd\r\101\377") == "a\tb\\c\nd\rA\udcff", "unescape")
d = parse_text("k: <x y>\narr: 2\narr[0]: <a\\tb>\narr[1]: <>\nn: 0x1f\n")
expect(d == {"k": "x y", "arr": "2", "arr[]": ["a\tb", ""], "n": "0x1f"}, repr(d))
PY
	py_case lib_mountinfo <<'PY'
from mntcli import *
import subprocess, shutil
mi = mountinfo()
with open("/proc/self/mountinfo", "rb") as f:
    expect(len(mi) == f.read().count(b"\n"), "entry count")
me = statx_mnt_id("/", False)
expect(any(e["id"] == me for e in mi), "the mount of / is listed")
if shutil.which("findmnt"):
    out = subprocess.run(["findmnt", "-n", "-r", "-o", "ID,TARGET"], capture_output=True).stdout
    ids = sorted(int(l.split(b" ")[0]) for l in out.splitlines())
    expect(ids == sorted(e["id"] for e in mi), "findmnt sees other IDs")
PY
	py_case lib_raw_syscalls <<'PY'
from mntcli import *
need_native()
ids = listmount()
u = statx_mnt_id("/", True)
expect(u is not None and u > UNIQUE_OFFSET and u in ids, "statx unique ID of / not listed")
me, parent, old, old_parent = statmount_basic(u)
expect(me == u and old == statx_mnt_id("/", False), "raw statmount")
PY
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	cli_init "${1:-}"
	lib_selftest
	cli_done
fi
