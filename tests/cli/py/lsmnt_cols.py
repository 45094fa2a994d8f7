# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python cases of tests/cli/lsmnt-cols.sh.

Compare lsmnt with findmnt (the columns from libblkid, TID, FREQ...).
"""

import json
import os
import subprocess
import time

from mntkit_test import (case, expect, FINDMNT, first_diff, main, need_findmnt, ns_id, ns_root_prefix,
    run, same, skip, UNSHARE_PRIVATE)

L = os.environ["LSMNT"]
TAGS = "TARGET,SOURCE,SOURCES,UUID,LABEL,PARTUUID,PARTLABEL"
ALL = TAGS + ",TID,FREQ,PASSNO"
PID = str(os.getpid())
# the tags of the test's file systems (lsmnt-cols.sh: this run's own)
LABEL_A, LABEL_C = os.environ["LABEL_A"], os.environ["LABEL_C"]
UUID_A, UUID_C = os.environ["UUID_A"], os.environ["UUID_C"]


def tids(prog, args):
    """The TIDs of prog -J -l ARGS -o TID, and prog's own PID."""
    rc, out, err, pid = run([prog, "-J", "-l", "-o", "TID,TARGET"] + args)
    expect(rc == 0, "%s %s: exit %d %r" % (prog, args, rc, err[:200]))
    return [f["tid"] for f in json.loads(out)["filesystems"]], pid


MODES = [[], ["-l"], ["-J"], ["-J", "-l"], ["-r"], ["-P"], ["-a"],
         ["-l", "-n"], ["-P", "-y"]]


@case
def host_cols():
    need_findmnt()
    for m in MODES:
        for a in (["-o", ALL], ["-o", "SOURCES"], ["-o", "TID,FREQ,PASSNO,TARGET"],
                  ["-o", "FREQ"], ["-o", "PASSNO,TID"], ["-e", "-o", TAGS],
                  ["-c", "-o", "SOURCES,TARGET"], ["-v", "-o", "SOURCES,TARGET"],
                  ["-t", "proc,sysfs", "-o", "TARGET,FREQ,PASSNO,LABEL"],
                  ["-o", "+UUID,TID"], ["-D", "-o", "+SOURCES"], ["--output-all"],
                  ["-y", "--output-all"], ["-y", "-D"], ["-y", "-o", "MAJ:MIN,USE%,TARGET"]):
            same(m + ["-N", PID] + a)


@case
def host_tid():
    need_findmnt()
    # without -N: each one's own PID, as /proc/self names it
    for prog in (FINDMNT, L):
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


@case
def all_ns_tid():
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


@case
def columns_listed():
    need_findmnt()
    # every column findmnt 2.42 lists (-H) in lsmnt's -H; --output-all
    # findmnt's columns in its order
    h = subprocess.run([FINDMNT, "-H", "-r"], capture_output=True).stdout.decode()
    fcols = [l.split()[0] for l in h.splitlines() if l.strip()]
    rc, out, err, _ = run([L, "-H"])
    lcols = [l.split()[0] for l in out.decode().splitlines()]
    expect(all(c in lcols for c in fcols), "-H lacks %r" % [c for c in fcols if c not in lcols])
    fall = run([FINDMNT, "-r", "--output-all"])[1].split(b"\n")[0].decode().split()
    hdr = run([L, "-r", "--output-all"])[1].split(b"\n")[0].decode().split()
    expect(hdr == fall, "--output-all is not findmnt's columns: %r / %r" % (hdr, fall))
    rc, out, err, _ = run([L, "-H", "-J"])
    j = {c["holder"]: c["type"] for c in json.loads(out)["findmnt-columns"]}
    for c in ("TID", "FREQ", "PASSNO"):
        expect(j[c] == "<integer>", "-H -J %s %r" % (c, j[c]))
    for c in ("UUID", "LABEL", "PARTUUID", "PARTLABEL", "SOURCES"):
        expect(j[c] == "<string>", "-H -J %s %r" % (c, j[c]))


@case
def ns_cols():
    need_findmnt()
    T = os.environ["T"]
    for m in MODES:
        for a in (["-o", ALL], ["-o", "SOURCES"], ["-o", "SOURCES,TARGET,ID"],
                  ["-o", "TARGET,SOURCES"], ["-e", "-o", ALL],
                  ["-c", "-o", "SOURCES,UUID,TARGET"], ["-v", "-o", TAGS],
                  ["-o", "LABEL,UUID"], ["-o", "PARTUUID,PARTLABEL,TARGET"]):
            same(m + ["-N", PID, "-R", "-T", T] + a)
            same(m + ["-N", PID, "-t", "ext4,btrfs,tmpfs"] + a)
    # tags as -S and as the argument resolve through libblkid, as in findmnt
    # (this machine may have no /dev/disk/by-* links: no udev)
    for m in MODES:
        for a in (["-S", "LABEL=" + LABEL_A], ["-S", "UUID=" + UUID_C],
                  ["LABEL=" + LABEL_C], ["-S", "LABEL=no such label"], ["-f", "LABEL=" + LABEL_A],
                  ["-S", "LABEL=" + LABEL_A, "-R"]):
            same(m + ["-N", PID] + a + ["-o", "TARGET,SOURCE,LABEL"])
    # the values themselves, independently
    j = json.loads(same(["-J", "-l", "-N", PID, "-M", T + "/a", "-o", ALL]))
    f = j["filesystems"][0]
    expect(f["label"] == LABEL_A and f["uuid"] == UUID_A
           and f["partuuid"] is None and f["tid"] == int(PID) and f["freq"] is None,
           "a: %r" % f)
    expect(len(f["sources"]) == 2, "a and its copy share the UUID: %r" % f["sources"])
    j = json.loads(same(["-J", "-l", "-N", PID, "-M", T + "/tl", "-o", TAGS]))
    expect(j["filesystems"][0]["label"] == LABEL_A, "LABEL= source %r" % j)
    j = json.loads(same(["-J", "-l", "-N", PID, "-M", T + "/tu", "-o", TAGS]))
    expect(j["filesystems"][0]["label"] == LABEL_C, "UUID= source %r" % j)
    j = json.loads(same(["-J", "-l", "-N", PID, "-M", T + "/empty", "-o", TAGS]))
    # findmnt 2.42: an empty SOURCES cell is an empty array
    expect(j["filesystems"][0]["sources"] == [], "empty source %r" % j)


@case
def ns_partition():
    need_findmnt()
    T = os.environ["T"]
    for m in MODES:
        same(m + ["-N", PID, "-M", T + "/p", "-o", ALL])
    j = json.loads(same(["-J", "-N", PID, "-M", T + "/p", "-o", "PARTUUID,PARTLABEL,LABEL"]))
    expect(j["filesystems"][0] == {"partuuid": "1a2b3c4d-0000-4000-8000-00000000abcd",
                                   "partlabel": "cols part", "label": "plabel"}, "%r" % j)


@case
def ns_btrfs():
    need_findmnt()
    T = os.environ["T"]
    for m in MODES:
        for a in (["-o", ALL], ["-o", "SOURCES"], ["-o", "TARGET,SOURCES,ID"],
                  ["-e", "-o", "SOURCES,SOURCE,TARGET"]):
            same(m + ["-N", PID, "-t", "btrfs"] + a)
    j = json.loads(same(["-J", "-N", PID, "-M", T + "/bs", "-o", "SOURCES,LABEL"]))
    expect(len(j["filesystems"][0]["sources"]) == 2 and
           j["filesystems"][0]["label"] == "colsbt", "%r" % j)


@case
def ns_udev():
    need_findmnt()
    T = os.environ["T"]
    src = run([FINDMNT, "-n", "-o", "SOURCE", "-M", T + "/a"])[1].decode().strip()
    devno = open("/sys/class/block/%s/dev" % os.path.basename(src)).read().strip()
    D = os.environ["CLI_TMP"]
    # the case's namespace, read from the new one (-N): named by a process
    # at the namespace's root, as a container's, whose mountinfo (findmnt)
    # names the mounts as the kernel does for a foreign namespace (lsmnt)
    # also in a chroot, where T is pre + T there
    pre = ns_root_prefix()
    if pre is None:
        skip("cannot tell where / is in its mount namespace")
    holder = subprocess.Popen(["nsenter", "--mount=/proc/self/ns/mnt", "sleep", "120"])
    for _ in range(100):
        if open("/proc/%d/comm" % holder.pid).read().strip() == "sleep":
            break
        time.sleep(0.05)
    script = r'''
mount -t tmpfs cols-run /run && mkdir -p /run/udev/data &&
printf 'E:ID_FS_LABEL_ENC=from\\x20udev\nE:ID_PART_ENTRY_NAME=pn\nS:x\n' >/run/udev/data/b%s &&
i=0
for m in "" -J -r -P; do
  i=$((i + 1))
  "$MNTKIT_FINDMNT" $m -N %d -R -T "$1" -o TARGET,LABEL,UUID,PARTLABEL,PARTUUID >"%s/uf$i"
  "$LSMNT" $m -N %d -R -T "$1" -o TARGET,LABEL,UUID,PARTLABEL,PARTUUID >"%s/ul$i"
done
''' % (devno, holder.pid, D, holder.pid, D)
    try:
        p = subprocess.run(UNSHARE_PRIVATE + ["sh", "-c", script, "sh", pre + T],
                           capture_output=True)
    finally:
        holder.kill()
        holder.wait()
    expect(p.returncode == 0, "exit %d %r" % (p.returncode, p.stderr[:200]))
    for i in range(1, 5):
        fo = open("%s/uf%d" % (D, i), "rb").read()
        lo = open("%s/ul%d" % (D, i), "rb").read()
        expect(fo == lo, "udev: %s" % first_diff(fo, lo))
    p.stdout = fo
    expect(b"from udev" in p.stdout, "udev's label not used: %r" % p.stdout[:300])


@case
def ns_sources_newlines():
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
            # findmnt 2.42: a source that is no tag is one string
            want = [src]
            expect(j["filesystems"][0]["sources"] == want,
                   "%r: %r, want %r" % (src, j, want))
        finally:
            subprocess.run(["umount", D], check=True)


if __name__ == "__main__":
    main()
