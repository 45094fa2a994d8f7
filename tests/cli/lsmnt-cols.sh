#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/lsmnt-cols.sh ABS_BUILDDIR - the findmnt columns lsmnt reads
# from elsewhere than statmount(2): LABEL, UUID, PARTUUID, PARTLABEL and
# SOURCES (libblkid, udev's database), TID (the process), FREQ and PASSNO
# (fstab only: empty), and their place in -H and --output-all.
#
# The reference is the real findmnt(8): both run with the same arguments
# and must print the same bytes with the same exit status. TID is the
# process that reads the table, so the comparisons pass -N with one PID
# to both; TID without -N is checked against each one's own PID. The
# namespace cases loop-mount labeled ext4 images (one twice, for a UUID
# two devices share), a GPT-partitioned image (with sfdisk), a two-device
# btrfs (with mkfs.btrfs), tmpfs mounts with tag sources, in a private
# mount namespace; the loop devices are detached at the end. libblkid's
# cache is a private file (BLKID_FILE): the host's is never written.

# cli_main (lib.sh) calls the cases through $plain_cases and $ns_cases:
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cli_init "$1"

LSMNT=$BUILDDIR/tools/lsmnt
CLI_PROG=lsmnt
BLKID_FILE=$CLI_TMP/blkid.tab
export LSMNT BLKID_FILE

cat >"$CLI_TMP/py/lsmntcols.py" <<'PY'
"""Compare lsmnt with findmnt (the columns from libblkid, TID, FREQ...)."""
import json, os, shutil, subprocess, time
from mntcli import *
from findmntcmp import *

L = os.environ["LSMNT"]
TAGS = "TARGET,SOURCE,SOURCES,UUID,LABEL,PARTUUID,PARTLABEL"
ALL = TAGS + ",TID,FREQ,PASSNO"
PID = str(os.getpid())


def tids(prog, args):
    """The TIDs of prog -J -l ARGS -o TID, and prog's own PID."""
    rc, out, err, pid = run([prog, "-J", "-l", "-o", "TID,TARGET"] + args)
    expect(rc == 0, "%s %s: exit %d %r" % (prog, args, rc, err[:200]))
    return [f["tid"] for f in json.loads(out)["filesystems"]], pid


MODES = [[], ["-l"], ["-J"], ["-J", "-l"], ["-r"], ["-P"], ["-a"],
         ["-l", "-n"], ["-P", "-y"]]
PY

# ---- cases that need no mounts (the host's table, read only) ----

c_host_cols() {
	py_case host_cols <<'PY'
from lsmntcols import *
need_findmnt()
for m in MODES:
    for a in (["-o", ALL], ["-o", "SOURCES"], ["-o", "TID,FREQ,PASSNO,TARGET"],
              ["-o", "FREQ"], ["-o", "PASSNO,TID"], ["-e", "-o", TAGS],
              ["-c", "-o", "SOURCES,TARGET"], ["-v", "-o", "SOURCES,TARGET"],
              ["-t", "proc,sysfs", "-o", "TARGET,FREQ,PASSNO,LABEL"],
              ["-o", "+UUID,TID"], ["-D", "-o", "+SOURCES"], ["--output-all"],
              ["-y", "--output-all"], ["-y", "-D"], ["-y", "-o", "MAJ:MIN,USE%,TARGET"]):
        same(m + ["-N", PID] + a)
PY
}

c_host_tid() {
	py_case host_tid <<'PY'
from lsmntcols import *
need_findmnt()
# without -N: each one's own PID, as /proc/self names it
for prog in ("findmnt", L):
    v, pid = tids(prog, [])
    expect(v and all(t == pid for t in v), "%s: TID %r, PID %d" % (prog, v[:3], pid))
# -N PID and --ns pid:PID: that PID; --ns PATH: no process, null
v, _ = tids(L, ["-N", PID])
expect(all(t == int(PID) for t in v), "-N: %r" % v[:3])
v, _ = tids(L, ["--ns", "pid:" + PID])
expect(all(t == int(PID) for t in v), "--ns pid: %r" % v[:3])
v, _ = tids(L, ["--ns", "/proc/%s/ns/mnt" % PID])
expect(all(t is None for t in v), "--ns PATH: %r" % v[:3])
# FREQ and PASSNO: JSON null (numbers when there are some: fstab only)
j = json.loads(same(["-J", "-N", PID, "-o", "TARGET,FREQ,PASSNO"]))
expect(all(f["freq"] is None and f["passno"] is None
           for f in j["filesystems"][0:1]), "freq/passno %r" % j)
PY
}

c_all_ns_tid() {
	py_case all_ns_tid <<'PY'
from lsmntcols import *
rc, out, err, pid = run([L, "--all-namespaces", "-J", "-l", "-o", "NS,TID,TARGET"])
if rc != 0 and b"Linux 6.10" in err:
    skip("no mount namespace IDs")
expect(rc == 0, "exit %d %r" % (rc, err[:200]))
me = ns_id()
# another namespace may hold a path that is not UTF-8, which lsmnt (as
# libsmartcols does) prints raw
rows = json.loads(out.decode("utf-8", "surrogateescape"))["filesystems"]
mine = [r["tid"] for r in rows if r["ns"] == me]
expect(mine and all(t == pid for t in mine), "own namespace: TID %r, PID %d" % (mine[:3], pid))
PY
}

c_columns_listed() {
	py_case columns_listed <<'PY'
from lsmntcols import *
need_findmnt()
# every column findmnt 2.38 lists but --poll's, in -H and --output-all,
# in findmnt's order
h = subprocess.run(["findmnt", "--help"], capture_output=True).stdout.decode()
fcols = [l.split()[0] for l in h.split("Available output columns:")[1].splitlines()
         if l.strip() and l.startswith(" ")]
fcols = [c for c in fcols if c not in ("ACTION", "OLD-OPTIONS", "OLD-TARGET")]
rc, out, err, _ = run([L, "-H"])
lcols = [l.split()[0] for l in out.decode().splitlines()]
expect(all(c in lcols for c in fcols), "-H lacks %r" % [c for c in fcols if c not in lcols])
hdr = run([L, "-r", "--output-all"])[1].split(b"\n")[0].decode().split()
expect(hdr == fcols, "--output-all is not findmnt's columns: %r" % hdr)
rc, out, err, _ = run([L, "-H", "-J"])
j = {c["holder"]: c["type"] for c in json.loads(out)["lsmnt-columns"]}
for c in ("TID", "FREQ", "PASSNO"):
    expect(j[c] == "<integer>", "-H -J %s %r" % (c, j[c]))
for c in ("UUID", "LABEL", "PARTUUID", "PARTLABEL", "SOURCES"):
    expect(j[c] == "<string>", "-H -J %s %r" % (c, j[c]))
PY
}

# libblkid is only asked when one of its columns is shown
c_blkid_only_when_asked() {
	if ! have_cmd strace; then
		skip blkid_only_when_asked "no strace"
		return
	fi
	local asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" n0 n1
	ASAN_OPTIONS=$asan strace -f -qq -e trace=open,openat,readlink \
		-o "$CLI_TMP/st0" "$LSMNT" -l -o TARGET,SOURCE,FSTYPE,OPTIONS,ID \
		>/dev/null 2>&1
	ASAN_OPTIONS=$asan strace -f -qq -e trace=open,openat,readlink \
		-o "$CLI_TMP/st1" "$LSMNT" -l -o TARGET,LABEL,SOURCES,TID \
		>/dev/null 2>&1
	if ! [ -s "$CLI_TMP/st0" ]; then
		skip blkid_only_when_asked "strace cannot trace here"
		return
	fi
	n0=$(grep -c -E 'blkid\.tab|/sys/class/block|/run/udev|"/proc/self"' "$CLI_TMP/st0")
	n1=$(grep -c -E 'blkid\.tab|/sys/class/block|/run/udev|"/proc/self"' "$CLI_TMP/st1")
	if [ "$n0" != 0 ]; then
		fail blkid_only_when_asked "$n0 lookups without such a column"
	elif [ "$n1" = 0 ]; then
		fail blkid_only_when_asked "no lookup with LABEL,SOURCES,TID"
	else
		pass blkid_only_when_asked
	fi
}

plain_cases="c_host_cols c_host_tid c_all_ns_tid c_columns_listed
	c_blkid_only_when_asked"

# ---- cases in a private mount namespace ----

LOOPS=()

detach_loops() {
	local l
	[ -n "${T:-}" ] && umount -R -l "$T" 2>/dev/null
	for l in "${LOOPS[@]}"; do
		partx -d "$l" 2>/dev/null
		losetup -d "$l" 2>/dev/null
	done
}

# new_loop VAR ARGS...: losetup -f ARGS, the device in $VAR (and LOOPS)
new_loop() {
	local l
	l=$(losetup -f --show "${@:2}") || return 1
	LOOPS+=("$l")
	printf -v "$1" '%s' "$l"
}

UUID_A=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0
UUID_C=5e6f7a8b-1111-4222-8333-944455556666

setup_cols() {
	# ld and lc only hold their devices (new_loop sets them, LOOPS detaches)
	# shellcheck disable=SC2034
	local la ld lc lp lb1 lb2 img=$CLI_TMP/img
	T=$CLI_TMP/t
	export T
	trap detach_loops EXIT
	have_cmd losetup && have_cmd mkfs.ext4 && have_cmd tune2fs || return 1
	mkdir -p "$T" "$img" && mount -t tmpfs cols-top "$T" &&
		mkdir "$T/a" "$T/dup" "$T/sub" "$T/p" "$T/b" "$T/bs" "$T/tl" \
			"$T/tu" "$T/tn" "$T/empty" || return 1
	truncate -s 16M "$img/a" &&
		mkfs.ext4 -q -L 'cols label' -U "$UUID_A" "$img/a" &&
		cp --sparse=always "$img/a" "$img/dup" &&
		tune2fs -L 'cols dup' "$img/dup" >/dev/null &&
		truncate -s 8M "$img/c" &&
		mkfs.ext4 -q -L cols-c -U "$UUID_C" "$img/c" || return 1
	# a tag two devices carry is ambiguous (libblkid's pick depends on
	# its cache's history): the tags of the tag sources are unique
	new_loop la "$img/a" && new_loop ld "$img/dup" &&
		new_loop lc "$img/c" || return 1
	mount "$la" "$T/a" && mkdir "$T/a/d" && mount --bind "$T/a/d" "$T/sub" ||
		return 1
	# a GPT partition with a name and a UUID, if sfdisk is here
	if have_cmd sfdisk && have_cmd partx; then
		truncate -s 24M "$img/p" &&
			printf 'label: gpt\nsize=10M, name="cols part", uuid=%s\nname=two\n' \
				1a2b3c4d-0000-4000-8000-00000000abcd |
			sfdisk -q "$img/p" && new_loop lp -P "$img/p" &&
			{ [ -b "${lp}p1" ] || partx -a "$lp"; } &&
			[ -b "${lp}p1" ] && mkfs.ext4 -q -L plabel "${lp}p1" &&
			mount "${lp}p1" "$T/p" && touch "$T/have-part"
	fi
	# a btrfs on two devices (SOURCES lists both), with a subvolume
	if have_cmd mkfs.btrfs && grep -qw btrfs /proc/filesystems; then
		truncate -s 140M "$img/b1" "$img/b2" &&
			new_loop lb1 "$img/b1" && new_loop lb2 "$img/b2" &&
			mkfs.btrfs -q -f -L colsbt -d raid1 -m raid1 "$lb1" "$lb2" \
				>/dev/null 2>&1 &&
			{ btrfs device scan "$lb1" "$lb2" >/dev/null 2>&1 || true; } &&
			mount "$lb1" "$T/b" && btrfs subvolume create "$T/b/sv" \
			>/dev/null && mount -o subvol=sv "$lb2" "$T/bs" &&
			touch "$T/have-btrfs"
	fi
	# tag sources as the kernel keeps them (mount(8) would evaluate them)
	python3 - "$T" <<'PY' || return 1
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
T = sys.argv[1]
for src, d in ((b"LABEL=cols label", "tl"),
               (b"UUID=5e6f7a8b-1111-4222-8333-944455556666", "tu"),
               (b"LABEL=\"cols-none\"", "tn"), (b"", "empty")):
    if libc.mount(src, os.fsencode(os.path.join(T, d)), b"tmpfs", 0, None):
        sys.exit(1)
PY
}

c_ns_cols() {
	py_case ns_cols <<'PY'
from lsmntcols import *
need_findmnt()
T = os.environ["T"]
for m in MODES:
    for a in (["-o", ALL], ["-o", "SOURCES"], ["-o", "SOURCES,TARGET,ID"],
              ["-o", "TARGET,SOURCES"], ["-e", "-o", ALL],
              ["-c", "-o", "SOURCES,UUID,TARGET"], ["-v", "-o", TAGS],
              ["-o", "LABEL,UUID"], ["-o", "PARTUUID,PARTLABEL,TARGET"]):
        same(m + ["-N", PID, "-R", "-T", T] + a)
        same(m + ["-N", PID, "-t", "ext4,btrfs,tmpfs"] + a)
# the values themselves, independently
j = json.loads(same(["-J", "-l", "-N", PID, "-M", T + "/a", "-o", ALL]))
f = j["filesystems"][0]
expect(f["label"] == "cols label" and f["uuid"] == "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
       and f["partuuid"] is None and f["tid"] == int(PID) and f["freq"] is None,
       "a: %r" % f)
expect(len(f["sources"]) == 2, "a and its copy share the UUID: %r" % f["sources"])
j = json.loads(same(["-J", "-l", "-N", PID, "-M", T + "/tl", "-o", TAGS]))
expect(j["filesystems"][0]["label"] == "cols label", "LABEL= source %r" % j)
j = json.loads(same(["-J", "-l", "-N", PID, "-M", T + "/tu", "-o", TAGS]))
expect(j["filesystems"][0]["label"] == "cols-c", "UUID= source %r" % j)
j = json.loads(same(["-J", "-l", "-N", PID, "-M", T + "/empty", "-o", TAGS]))
expect(j["filesystems"][0]["sources"] == [None], "empty source %r" % j)
PY
}

c_ns_partition() {
	if [ ! -e "$T/have-part" ]; then
		skip ns_partition "no GPT partition (needs sfdisk and partx)"
		return
	fi
	py_case ns_partition <<'PY'
from lsmntcols import *
need_findmnt()
T = os.environ["T"]
for m in MODES:
    same(m + ["-N", PID, "-M", T + "/p", "-o", ALL])
j = json.loads(same(["-J", "-N", PID, "-M", T + "/p", "-o", "PARTUUID,PARTLABEL,LABEL"]))
expect(j["filesystems"][0] == {"partuuid": "1a2b3c4d-0000-4000-8000-00000000abcd",
                               "partlabel": "cols part", "label": "plabel"}, "%r" % j)
PY
}

c_ns_btrfs() {
	if [ ! -e "$T/have-btrfs" ]; then
		skip ns_btrfs "no two-device btrfs (needs mkfs.btrfs)"
		return
	fi
	py_case ns_btrfs <<'PY'
from lsmntcols import *
need_findmnt()
T = os.environ["T"]
for m in MODES:
    for a in (["-o", ALL], ["-o", "SOURCES"], ["-o", "TARGET,SOURCES,ID"],
              ["-e", "-o", "SOURCES,SOURCE,TARGET"]):
        same(m + ["-N", PID, "-t", "btrfs"] + a)
j = json.loads(same(["-J", "-N", PID, "-M", T + "/bs", "-o", "SOURCES,LABEL"]))
expect(len(j["filesystems"][0]["sources"]) == 2 and
       j["filesystems"][0]["label"] == "colsbt", "%r" % j)
PY
}

# findmnt asks udev's database first: a made-up one, on a private /run
c_ns_udev() {
	py_case ns_udev <<'PY'
from lsmntcols import *
need_findmnt()
T = os.environ["T"]
src = run(["findmnt", "-n", "-o", "SOURCE", "-M", T + "/a"])[1].decode().strip()
devno = open("/sys/class/block/%s/dev" % os.path.basename(src)).read().strip()
D = os.environ["CLI_TMP"]
script = r'''
mount -t tmpfs cols-run /run && mkdir -p /run/udev/data &&
printf 'E:ID_FS_LABEL_ENC=from\\x20udev\nE:ID_PART_ENTRY_NAME=pn\nS:x\n' >/run/udev/data/b%s &&
i=0
for m in "" -J -r -P; do
  i=$((i + 1))
  findmnt $m -N %s -R -T "$T" -o TARGET,LABEL,UUID,PARTLABEL,PARTUUID >"%s/uf$i"
  "$LSMNT" $m -N %s -R -T "$T" -o TARGET,LABEL,UUID,PARTLABEL,PARTUUID >"%s/ul$i"
done
''' % (devno, PID, D, PID, D)
p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                   capture_output=True)
expect(p.returncode == 0, "exit %d %r" % (p.returncode, p.stderr[:200]))
for i in range(1, 5):
    fo = open("%s/uf%d" % (D, i), "rb").read()
    lo = open("%s/ul%d" % (D, i), "rb").read()
    expect(fo == lo, "udev: %s" % first_diff(fo, lo))
p.stdout = fo
expect(b"from udev" in p.stdout, "udev's label not used: %r" % p.stdout[:300])
PY
}

# sources with newlines: findmnt's SOURCES cell is one line per chunk
# between the '\n's in text (a '\n' at the end adds no line, a value of
# '\n's only is one empty line) and an array with null for each empty
# chunk in JSON ("trail\n": "trail", null - never a dangling comma); any
# user can make such a mount in a user namespace
c_ns_sources_newlines() {
	py_case ns_sources_newlines <<'PY'
from lsmntcols import *
import subprocess
need_findmnt()
T = os.environ["T"]
D = T + "/nl"
os.makedirs(D, exist_ok=True)
for src in ("trail\n", "a\n\nb\n", "\n", "\n\n", "\nb", "a\n\n\n", "a\nb"):
    subprocess.run(["mount", "-t", "tmpfs", src, D], check=True)
    try:
        for m in MODES + [["--output-all"], ["-J", "--output-all"]]:
            out = same(m + ["-N", PID, "-R", "-T", D, "-o", "TARGET,SOURCES,FSTYPE"])
            if "-J" in m:
                json.loads(out)
        j = json.loads(same(["-J", "-N", PID, "-M", D, "-o", "SOURCES"]))
        want = [c if c else None for c in src.split("\n")]
        expect(j["filesystems"][0]["sources"] == want,
               "%r: %r, want %r" % (src, j, want))
    finally:
        subprocess.run(["umount", D], check=True)
PY
}

ns_cases="c_ns_cols c_ns_partition c_ns_btrfs c_ns_udev c_ns_sources_newlines"

# ---- main ----

cli_main setup_cols "could not build the test mounts" "${2:-}"
