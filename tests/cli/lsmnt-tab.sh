#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/lsmnt-tab.sh ABS_BUILDDIR - lsmnt over table files: -F/--tab-file
# (fstab, mtab and mountinfo format, guessed as findmnt guesses), -s/--fstab
# (LIBMOUNT_FSTAB, else /etc/fstab), -m/--mtab (the kernel's table with the
# userspace options of utab: LIBMOUNT_UTAB, the test's own file),
# -x/--verify [--verbose] (findmnt's checks, messages and exit status).
#
# Every case writes its own files (escapes \040, comments, blank lines,
# tags, missing fields, freq/passno, swap and none targets, bad lines; a
# mountinfo with binds, stacked mounts, propagation, a missing parent) and
# compares lsmnt with findmnt(8) byte for byte: stdout and exit status, in
# every output mode, for the columns findmnt has for tab files and its
# filters. Needs no root and touches no mount; the host's /etc/fstab is
# never read (LIBMOUNT_FSTAB points at the test's file). -m reads the
# host's table (read only) with utab entries for /proc and /sys, which
# every Linux system has; in a private mount namespace (root) also with
# mounts of its own.

# cli_main (lib.sh) calls the cases through $plain_cases:
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cli_init "$1"

LSMNT=$BUILDDIR/tools/lsmnt
CLI_PROG=lsmnt
TABS=$CLI_TMP/tabs
export LSMNT TABS
mkdir -p "$TABS"

# The files. Targets are under /nonexistent-mntkit (nothing of the host's
# is looked at) but for / and /proc, whose statvfs no column here asks.
printf '%s\n' \
	'# a comment' \
	'UUID=1234-abcd  /               ext4    errors=remount-ro 0       1' \
	'' \
	'LABEL=boot /nonexistent-mntkit/boot ext2 defaults,noatime 0 2' \
	'/dev/sda3 none swap sw 0 0' \
	'/dev/disk/by-id/x\040y /nonexistent-mntkit/with\040space xfs ro,noexec,user,noauto,x-foo=1 1 2' \
	'	tmpfs	/nonexistent-mntkit/tmp	tmpfs	mode=1777,nosuid,nodev' \
	'server:/export /nonexistent-mntkit/net nfs4 rw,_netdev' \
	'   # indented comment' \
	'sshfs#me@h: /nonexistent-mntkit/ssh fuse.sshfs defaults 0 0' \
	'/dev/sdb1 /nonexistent-mntkit/bad' \
	'PARTUUID=0a-01 /nonexistent-mntkit/a\134b ext4 a,,b,sync,dirsync,lazytime 99999999999 -1 trailing' \
	'/dev/c /nonexistent-mntkit/c ext4 rw x 2' \
	'/dev/d /nonexistent-mntkit/d ext4 rw 1 x' \
	'/dev/b /nonexistent-mntkit/b xfs' \
	'\043x /nonexistent-mntkit/x ext4' \
	>"$TABS/fstab"
printf '%s\n' \
	'/dev/sda1 / ext4 rw,relatime 0 0' \
	'proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0' \
	'tmpfs /nonexistent-mntkit/t\040x tmpfs rw,size=10k,mode=755 0 0' \
	>"$TABS/mtab"
printf '%s\n' \
	'21 1 0:20 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro' \
	'22 21 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:5 - proc proc rw' \
	'30 21 0:30 / /nonexistent-mntkit/a\040b rw,nosuid master:1 - tmpfs tmp\040fs rw,size=1024k' \
	'31 30 0:30 /sub /nonexistent-mntkit/a\040b/bind ro,relatime - tmpfs tmp\040fs rw,size=1024k' \
	'33 21 0:33 / /nonexistent-mntkit/st rw unbindable - tmpfs one rw' \
	'34 33 0:34 / /nonexistent-mntkit/st rw - tmpfs two ro,sync,dirsync,lazytime,mode=700' \
	'32 30 0:32 / /nonexistent-mntkit/a\040b/z rw shared:7 master:1 propagate_from:2 - fuse.sshfs me@h:/x rw,user_id=0' \
	'40 99 0:40 / /nonexistent-mntkit/orphan rw - tmpfs orphan rw' \
	>"$TABS/mountinfo"
# the root in the middle, children before their parents, IDs out of file
# order, an autofs point with a mount over it, a parent that is missing
printf '%s\n' \
	'15 20 0:3 / /proc rw,relatime - proc proc rw' \
	'17 20 0:5 / /dev rw,relatime - devtmpfs udev rw,mode=755' \
	'38 33 0:33 / /dev/hp rw,relatime - hugetlbfs hugetlbfs rw' \
	'20 1 8:4 / / rw,noatime - ext4 /dev/sda4 rw,errors=continue' \
	'33 17 0:29 / /dev/hp rw,relatime - autofs systemd-1 rw,fd=23,direct' \
	'19 17 0:16 / /dev/shm rw,relatime - tmpfs tmpfs rw' \
	'44 41 0:36 / /home/u/.gvfs rw,nosuid,nodev - fuse.gvfs gvfs rw,user_id=500' \
	'40 20 8:6 / /boot rw,noatime - ext4 /dev/sda6 rw' \
	'18 17 0:10 / /dev/pts rw,relatime - devpts devpts rw,mode=620' \
	>"$TABS/mountinfo2"
# no root at all: -T / finds nothing
printf '%s\n' \
	'15 20 0:3 / /proc rw,relatime - proc proc rw' \
	'16 20 0:15 / /sys rw,relatime - sysfs sysfs rw' \
	'17 16 0:5 / /sys/x rw - tmpfs t rw' \
	>"$TABS/mountinfo-nonroot"
: >"$TABS/empty"
printf '# nothing\n\n   \n' >"$TABS/comments"

cat >"$CLI_TMP/py/tabcmp.py" <<'PY'
"""Compare lsmnt with findmnt over table files."""
import os, shutil, subprocess
from mntcli import *

L = os.environ["LSMNT"]
T = os.environ["TABS"]


def need_findmnt():
    if shutil.which("findmnt") is None:
        skip("no findmnt")


def run(argv, env):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run(argv, capture_output=True, env=e)
    return p.returncode, p.stdout


def same(args, env=None):
    f = run(["findmnt"] + args, env)
    l = run([L] + args, env)
    if f != l:
        fl, ll = f[1].split(b"\n"), l[1].split(b"\n")
        i = next((k for k, (a, b) in enumerate(zip(fl, ll)) if a != b),
                 min(len(fl), len(ll)))
        expect(False, "%s: exit %d/%d, line %d: findmnt %r / lsmnt %r" % (
            " ".join(args), f[0], l[0], i + 1,
            fl[i] if i < len(fl) else b"<end>",
            ll[i] if i < len(ll) else b"<end>"))


MODES = [[], ["-l"], ["-r"], ["-J"], ["-P"], ["-n"], ["-a"], ["-J", "-l"]]
COLS = ["SOURCE,TARGET,FSTYPE,OPTIONS,VFS-OPTIONS,FS-OPTIONS,FREQ,PASSNO",
        "+ID,PARENT,FSROOT,MAJ:MIN,PROPAGATION,OPT-FIELDS",
        "TARGET,FSTYPE,FREQ,PASSNO,FS-OPTIONS", "source,target,passno"]
FILTERS = [["-t", "ext4"], ["-t", "noext4,xfs"], ["-O", "noauto"],
           ["-O", "ro"], ["-O", "nosuid,mode=1777"], ["-S", "LABEL=boot"],
           ["-S", "/dev/sda3"], ["-T", "/"], ["-M", "/"], ["/"],
           ["/dev/sda3"], ["-i", "-t", "ext4"], ["-f"], ["-f", "-t", "tmpfs"],
           ["-n", "-o", "SOURCE", "/"], ["-d", "backward"], ["-U"], ["-v"],
           ["-R", "-T", "/"], ["--tree", "-t", "tmpfs"], ["-t", "nosuch"],
           ["-A", "-D", "-o", "SOURCE,TARGET"], ["--real"], ["--pseudo"],
           ["/dev/sda1", "/"], ["-S", "0:30"], ["-t", "xfs,ext4"], ["-e"],
           ["-c"], ["-e", "-c", "-o", "+SOURCES"], ["-C", "/"],
           ["-C", "-T", "/proc"]]


def compare_file(path, extra=()):
    for m in MODES:
        same(["-F", path] + m + list(extra))
        for c in COLS:
            same(["-F", path] + m + ["-o", c] + list(extra))
    for f in FILTERS:
        for m in ([], ["-J"], ["-r"]):
            same(["-F", path] + m + f + list(extra))
PY

c_fstab() {
	py_case tab_fstab <<'PY'
from tabcmp import *
need_findmnt()
compare_file(T + "/fstab")
PY
}

c_mtab() {
	py_case tab_mtab <<'PY'
from tabcmp import *
need_findmnt()
compare_file(T + "/mtab")
PY
}

c_mountinfo() {
	py_case tab_mountinfo <<'PY'
from tabcmp import *
need_findmnt()
compare_file(T + "/mountinfo")
PY
}

c_mountinfo_unordered() {
	py_case tab_mountinfo_unordered <<'PY'
from tabcmp import *
need_findmnt()
compare_file(T + "/mountinfo2")
for a in (["--shadowed"], ["-R", "-T", "/dev"], ["-U", "-J"]):
    same(["-F", T + "/mountinfo2"] + a)
for a in ([], ["-J"], ["--target", "/"], ["-T", "/sys/x/y"], ["-U"],
          ["--kernel", "--tree"]):
    same(["-F", T + "/mountinfo-nonroot"] + a)
PY
}

c_empty() {
	py_case tab_empty <<'PY'
from tabcmp import *
need_findmnt()
for f in ("empty", "comments", "no-such-file"):
    for m in ([], ["-J"], ["-l", "-o", "FREQ"]):
        same(["-F", T + "/" + f] + m)
PY
}

# -s: LIBMOUNT_FSTAB names the file (findmnt's libmount reads it too);
# -F with -s reads the -F file; two -F files make one list
c_fstab_option() {
	py_case tab_fstab_option <<'PY'
from tabcmp import *
need_findmnt()
env = {"LIBMOUNT_FSTAB": T + "/fstab"}
for a in ([], ["-J"], ["--fstab", "-r"], ["-s", "-t", "swap"],
          ["-s", "-o", "+FREQ,PASSNO"], ["-s", "-S", "UUID=1234-abcd"]):
    same(["-s"] + a if a[:1] not in (["-s"], ["--fstab"]) else a, env)
same(["-s", "-F", T + "/mtab"], env)
same(["-F", T + "/fstab", "-F", T + "/mtab"])
same(["-F", T + "/fstab", "-F", T + "/mtab", "-J"])
PY
}

# -m: utab entries merge into the mount of the same root, mount point and
# source (the last one in the table), each mount once; others are left
c_mtab_merge() {
	py_case mtab_merge <<'PY'
from tabcmp import *
need_findmnt()
u = T + "/utab"
with open(u, "w") as f:
    f.write("SRC=proc TARGET=/proc ROOT=/ OPTS=x-foo,user=me\n"
            "SRC=nomatch TARGET=/sys ROOT=/ OPTS=x-bar\n"
            "TARGET=/sys ROOT=/ OPTS=x-nosrc\n"
            "SRC=sysfs TARGET=/sys ROOT=/ OPTS=noauto,x-sys\n"
            "SRC=sysfs TARGET=/sys ROOT=/ OPTS=x-second\n"
            "bad line\n")
env = {"LIBMOUNT_UTAB": u}
for a in ([], ["-J"], ["-r", "-o", "TARGET,OPTIONS"], ["-O", "x-foo"],
          ["-O", "noauto"], ["/proc"], ["-T", "/sys"], ["--tree"],
          ["-P", "-t", "sysfs,proc"], ["-o", "+VFS-OPTIONS,FS-OPTIONS"]):
    same(["-m"] + a, env)
same(["-m"], {"LIBMOUNT_UTAB": T + "/no-such-utab"})
PY
}

c_mtab_ns() {
	py_case ns_mtab_merge <<'PY'
import os, subprocess
from tabcmp import *
need_findmnt()
d = T + "/m"
os.makedirs(d + "/a b", exist_ok=True)
os.makedirs(d + "/c", exist_ok=True)
subprocess.run(["mount", "-t", "tmpfs", "tmp src", d + "/a b"], check=True)
os.makedirs(d + "/a b/sub", exist_ok=True)
subprocess.run(["mount", "--bind", d + "/a b/sub", d + "/c"], check=True)
subprocess.run(["mount", "-t", "tmpfs", "top", d + "/c"], check=True)
u = T + "/utab-ns"
m = d.replace(" ", "\\040")
with open(u, "w") as f:
    f.write("SRC=tmp\\040src TARGET=%s/a\\040b ROOT=/ OPTS=x-space\n" % m)
    f.write("SRC=tmp\\040src TARGET=%s/c ROOT=/sub OPTS=x-bind\n" % m)
    f.write("SRC=top TARGET=%s/c ROOT=/ OPTS=x-top\n" % m)
env = {"LIBMOUNT_UTAB": u}
for a in ([], ["-J"], ["-R", "-T", d], ["-O", "x-bind"], ["--tree", "-R", "-T", d]):
    same(["-m"] + a, env)
PY
}

# -T of a path that is no mount point walks up to the longest mount point
# (mntkit_table_find_containing()), a target written with a trailing slash
# too, as findmnt (libmount compares paths but for trailing slashes)
c_target_walk() {
	py_case tab_target_walk <<'PY'
import os
from tabcmp import *
need_findmnt()
d = os.path.realpath(T) + "/walk"
os.makedirs(d + "/x/y/z", exist_ok=True)
os.makedirs(d + "/xy", exist_ok=True)
os.makedirs(d + "/x/q", exist_ok=True)
f = T + "/fstab-walk"
with open(f, "w") as o:
    o.write("/dev/sda1 / ext4 defaults 0 1\n"
            "/dev/sdb1 %s/x/ ext4 defaults 0 2\n"
            "/dev/sdc1 %s/x/y ext4 defaults 0 2\n" % (d, d))
for a in (["-T", d + "/x/q"], ["-T", d + "/x/y/z"], ["-T", d + "/x/y"], ["-T", d + "/x/"],
          ["-T", d + "/xy"], ["-T", d + "/x/y/../z"], ["-C", "-T", d + "/x/y/z"],
          ["-M", d + "/x"], [d + "/x/"], ["-J", "-T", d + "/x/y/z"]):
    same(["-F", f] + a)
PY
}

# -x: every check's message, with and without --verbose, the order of
# the targets, filters, -f; stdout and exit status as findmnt's, and the
# summary line on stderr
c_verify() {
	py_case tab_verify <<'PY'
import subprocess
from tabcmp import *
need_findmnt()
vx = T + "/verify"
with open(vx, "w") as f:
    f.write("LABEL=mntkit-no-such-label /tmp ext4 rw 0 0\n"
            "LABEL=mntkit-no-such-label2 /tmp ext4 noauto 0 0\n"
            "foo=bar /tmp none rw\n"
            "/dev/null /tmp ext4 bind\n"
            "/tmp /tmp auto rw\n"
            "/dev/sda3 none swap discard=bad,pri=1x\n"
            "/dev/sda4 none swap discard=once,pri=-5\n"
            "/etc/passwd / xfs rw 0 0\n"
            "proc /proc proc defaults 0 0\n"
            "/dev/null /nonexistent-mntkit/d mntkitbogusfs noauto\n"
            "/dev/null /tmp/ ext4 rw\n"
            "/dev/null /etc/passwd ext4 rw\n"
            "/dev/a /nonexistent-mntkit/x ext4 rw 0 1\n"
            "/dev/b /nonexistent-mntkit/x/y ext4 rw 0 2\n"
            "/dev/c /nonexistent-mntkit/x ext4 rw\n"
            "server:/e /nonexistent-mntkit/n nfs rw,_netdev\n"
            "tmpfs /tmp tmpfs mode=1777\n"
            "/dev/d / ext4 rw 0 2\n"
            "bad line\n")
good = T + "/verify-good"
with open(good, "w") as f:
    f.write("proc /proc proc defaults 0 0\ntmpfs /tmp tmpfs rw\n")


def both(args, env=None):
    same(args, env)
    e = dict(os.environ)
    e.update(env or {})
    f = subprocess.run(["findmnt"] + args, capture_output=True, env=e)
    l = subprocess.run([L] + args, capture_output=True, env=e)
    fs = [x for x in f.stderr.split(b"\n") if b"parse error" not in x]
    ls = [x for x in l.stderr.split(b"\n") if b"parse error" not in x]
    expect(fs == ls, "%s: stderr %r / %r" % (" ".join(args), fs, ls))


for f in (vx, good, T + "/fstab", T + "/mtab", T + "/mountinfo",
          T + "/empty"):
    for a in ([], ["--verbose"], ["-t", "ext4"], ["-f"], ["-O", "bind"],
              ["--verbose", "-S", "/dev/null"]):
        both(["-x", "-F", f] + a)
both(["--verify"], {"LIBMOUNT_FSTAB": vx})
both(["-x", "-s", "--verbose"], {"LIBMOUNT_FSTAB": good})
PY
	expect_error verify_not_json "mutually exclusive" - "$LSMNT" -x -J
	expect_error verify_not_list "mutually exclusive" - "$LSMNT" -x -l
	expect_error verify_not_poll "mutually exclusive" - "$LSMNT" -x -p
}

# -x with a real device (root): a loop device with an ext4 labelled by
# the test, found by its tag and its path, a type that does not match
c_verify_dev() {
	local img=$CLI_TMP/vfy.img loop
	if ! have_cmd mkfs.ext4 || ! have_cmd losetup; then
		skip ns_verify_dev "needs mkfs.ext4 and losetup"
		return
	fi
	truncate -s 8M "$img" && mkfs.ext4 -q -F -L mntkit-vfy-$$ "$img" ||
		{ fail ns_verify_dev "mkfs.ext4"; return; }
	if ! loop=$(losetup -f --show "$img" 2>/dev/null); then
		skip ns_verify_dev "no loop device"
		return
	fi
	printf '%s\n' "LABEL=mntkit-vfy-$$ /tmp ext4 rw 0 2" \
		"$loop /tmp ext4 rw 0 2" "$loop /tmp xfs rw 0 2" \
		"LABEL=mntkit-vfy-$$ /tmp auto rw" >"$TABS/dev"
	LOOP=$loop py_case ns_verify_dev <<'PY'
from tabcmp import *
need_findmnt()
for a in ([], ["--verbose"], ["-S", os.environ["LOOP"]]):
    same(["-x", "-F", T + "/dev"] + a)
same(["-F", T + "/dev", "-e", "-o", "+SOURCES"])
PY
	losetup -d "$loop"
}

# stderr says which line was bad, and where
c_bad_lines() {
	run "$LSMNT" -F "$TABS/fstab" -o TARGET
	if [ "$RC" = 0 ] && grep -q 'fstab: parse error at line 11, column 34' "$ERR"; then
		pass tab_bad_lines
	else
		fail tab_bad_lines "exit $RC, stderr: $(head -c 200 "$ERR")"
	fi
}

c_refused() {
	expect_error tab_not_with_poll "--poll" - "$LSMNT" -F "$TABS/fstab" -p
	expect_error tab_not_with_ns "--ns" - "$LSMNT" -F "$TABS/fstab" --ns 1
	expect_error fstab_not_with_kernel "mutually exclusive" - "$LSMNT" -s -k
	expect_error mtab_not_with_fstab "mutually exclusive" - "$LSMNT" -m -s
}

plain_cases="c_fstab c_mtab c_mountinfo c_mountinfo_unordered c_empty c_fstab_option c_mtab_merge
c_target_walk c_verify c_bad_lines c_refused"
ns_cases="c_mtab_ns c_verify_dev"
cli_main true "" "${2:-}"
