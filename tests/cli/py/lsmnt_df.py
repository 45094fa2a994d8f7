# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python cases of tests/cli/lsmnt-df.sh.

Compare lsmnt with findmnt (statvfs columns, -D and friends).
"""

import json
import os

from mntkit_test import case, expect, main, need_findmnt, run, same

L = os.environ["LSMNT"]
USAGE = "TARGET,SIZE,AVAIL,USED,USE%"


MODES = [[], ["-l"], ["-J"], ["-J", "-l"], ["-r"], ["-P"], ["-a"],
         ["-l", "-n"]]


@case
def host_df():
    need_findmnt()
    for m in MODES:
        for a in (["-D"], ["-D", "-b"], ["-D", "-A"], ["-D", "--real"],
                  ["-D", "--pseudo"], ["-D", "-o", "+ID"], ["-D", "-o", "TARGET,USE%"],
                  ["-o", USAGE + ",FSTYPE"], ["-b", "-o", USAGE],
                  ["-t", "proc,sysfs", "-o", USAGE]):
            same(m + a)


@case
def host_options():
    need_findmnt()
    for m in ([], ["-l"], ["-J"], ["-r"], ["-P"]):
        for a in (["-f"], ["-f", "-t", "tmpfs"], ["-f", "/proc"], ["-f", "proc"],
                  ["-i", "-t", "tmpfs,ext4"], ["-i", "--real"], ["-i"],
                  ["-U"], ["-U", "-o", "TARGET,ID,PARENT"],
                  ["-d", "backward"], ["-d", "backward", "-t", "tmpfs"],
                  ["-d", "forward", "-t", "tmpfs"], ["-k"], ["-k", "-t", "proc"],
                  ["--real", "-A"], ["-c", "-o", "SOURCE,TARGET"],
                  ["-e", "-o", "SOURCE,TARGET"]):
            same(m + a)


@case
def list_columns_df():
    rc, out, err, _ = run([L, "-H"])
    expect(rc == 0 and not err, err)
    cols = {l.split()[0]: l.split()[1] for l in out.decode().splitlines()}
    # findmnt 2.42: the size columns are "<string|number>" (numbers with
    # -b), whatever -b says; USE% a string
    for c in ("SIZE", "AVAIL", "USED"):
        expect(cols.get(c) == "<string|number>", "-H: %s %r" % (c, cols.get(c)))
    expect(cols.get("USE%") == "<string>", "-H: USE%% %r" % cols.get("USE%"))
    rc, out, err, _ = run([L, "-H", "-b", "-J"])
    j = {c["holder"]: c["type"] for c in json.loads(out)["findmnt-columns"]}
    expect(j["SIZE"] == "<string|number>" and j["USE%"] == "<string>", "-H -b -J %r" % j)


@case
def ns_df():
    need_findmnt()
    T = os.environ["T"]
    for m in MODES:
        for a in (["-D"], ["-D", "-b"], ["-D", "-A"], ["-D", "--real"],
                  ["-D", "--pseudo"], ["-D", "-t", "tmpfs"], ["-D", "-i"],
                  ["-D", "-o", "+ID"], ["-D", "-R", "-T", T],
                  ["-D", "-b", "-R", "-T", T]):
            same(m + a)
    # --tree with -l, -r or -P is a tree in findmnt, a list in lsmnt (an older
    # difference, see lsmnt(8)): only the modes that agree
    for m in ([], ["-J"], ["-a"]):
        same(m + ["-D", "--tree"])
        same(m + ["-f", "--tree", "-t", "tmpfs"])


@case
def ns_usage_columns():
    need_findmnt()
    T = os.environ["T"]
    for m in MODES + [["-P", "-y"]]:
        for b in ([], ["-b"]):
            same(m + b + ["-o", USAGE, "-R", "-T", T])
            same(m + b + ["-o", "SIZE,USE%,TARGET,USED", "-t", "tmpfs"])
            same(m + b + ["-o", "TARGET,USE%", "-R", "-T", T + "/c"])
    # an independent look at the numbers: size_to_human_string's known bytes
    rows = json.loads(same(["-J", "-l", "-o", USAGE, "-R", "-T", T + "/sz"]))
    got = {r["target"][len(T) + 4:]: r for r in rows["filesystems"]}
    for size, want in (("1k", "4K"), ("1000k", "1000K"), ("1020k", "1020K"),
                       ("1023k", "1M"), ("1100k", "1.1M"), ("1500k", "1.5M"),
                       ("2047k", "2M"), ("1023m", "1023M"), ("1500m", "1.5G"),
                       ("3g", "3G"), ("2000t", "2P"), ("3000p", "2.9E")):
        expect(got[size]["size"] == want, "%s: SIZE %r, want %r" % (size, got[size]["size"], want))
    expect(got["1100k"]["used"] == "336K" and got["1100k"]["use%"] == "31%",
           "1100k with 333k: %r" % got["1100k"])
    expect(got["1000k"]["avail"] == "0" and got["1000k"]["use%"] == "100%",
           "1000k full: %r" % got["1000k"])
    # a hidden mount has no usage: empty cells (null), as in findmnt
    j = json.loads(same(["-J", "-l", "-o", USAGE, "-M", T + "/c/k"]))
    expect(j["filesystems"][0]["size"] is None, "hidden c/k: %r" % j)


@case
def ns_size_sweep():
    need_findmnt()
    T = os.environ["T"]
    for m in ([], ["-J"], ["-r"], ["-P"]):
        same(m + ["-D", "-R", "-T", T + "/rnd"])
        same(m + ["-b", "-o", USAGE, "-R", "-T", T + "/rnd"])


@case
def ns_first_only():
    need_findmnt()
    T = os.environ["T"]
    for m in ([], ["-l"], ["-J"], ["-r"], ["-P"]):
        for a in (["-f"], ["-f", "-t", "tmpfs"], ["-f", "df-x"], ["-f", T + "/c"],
                  ["-f", "-d", "backward", "-t", "tmpfs"], ["-f", "-R", "-t", "tmpfs"],
                  ["-f", "-R", "-T", T + "/a"],
                  ["-f", "-i", "df-x"], ["-f", "-S", "df-x", "-T", T + "/b"],
                  ["-f", "-D"], ["-f", "df-x", T + "/b"], ["-f", "-M", T + "/c"]):
            same(m + a)


@case
def ns_invert():
    need_findmnt()
    T = os.environ["T"]
    for m in ([], ["-l"], ["-J"], ["-r"], ["-P"]):
        for a in (["-i", "-t", "tmpfs"], ["-i", "-t", "notmpfs"],
                  ["-i", "-t", "tmpfs,proc,sysfs"], ["-i", "-O", "ro"],
                  ["-i", "-t", "tmpfs", "-R", "-T", T], ["-i", "-S", "df-x"],
                  ["-i", "--pseudo"], ["-i", "-D"], ["-i"], ["-i", "-A"]):
            same(m + a)


@case
def ns_uniq():
    need_findmnt()
    T = os.environ["T"]
    for m in ([], ["-l"], ["-J"], ["-r"], ["-P"]):
        for a in (["-U"], ["-U", "-R", "-T", T], ["-U", "-t", "tmpfs"],
                  ["-U", "-o", "TARGET,SOURCE,ID,PARENT"],
                  ["-U", "-R", "-T", T, "-o", "TARGET,ID,PARENT"],
                  ["-U", "-D"], ["-U", "-d", "backward", "-t", "tmpfs"]):
            same(m + a)
    # the stacked pair on c is one mount, the top one (df-z)
    rc, out, err, _ = run([L, "-U", "-J", "-l", "-M", T + "/c", "-o", "SOURCE"])
    expect(json.loads(out)["filesystems"] == [{"source": "df-z"}], out)


@case
def ns_direction():
    need_findmnt()
    T = os.environ["T"]
    for m in ([], ["-l"], ["-J"], ["-r"], ["-P"]):
        for d in ("backward", "forward"):
            for a in ([], ["-t", "tmpfs"], ["-R", "-T", T + "/a"],
                      ["-R", "-t", "tmpfs"], ["-D"], [T + "/c"]):
                same(m + ["-d", d] + a)


@case
def ns_kernel():
    need_findmnt()
    T = os.environ["T"]
    for m in ([], ["-l"], ["-J"], ["-r"], ["-P"]):
        for a in (["-k"], ["-k", "-R", "-T", T], ["--kernel", "-D"]):
            same(m + a)


@case
def ns_canonicalize():
    need_findmnt()
    T = os.environ["T"]
    for m in ([], ["-l"], ["-J"], ["-r"], ["-P"]):
        for a in (["-c"], ["-e"], ["-c", "-e"], ["--canonicalize", "-v"]):
            same(m + a + ["-R", "-T", T, "-o", "SOURCE,TARGET"])
            # findmnt canonicalizes relative to the working directory
            same(m + a + ["-R", "-T", T, "-o", "SOURCE,TARGET"], cwd=T)
    j = json.loads(same(["-J", "-c", "-M", T + "/e", "-o", "SOURCE"]))
    expect(j["filesystems"][0]["source"] == T + "/link-to", "-c %r" % j)
    j = json.loads(same(["-J", "-e", "-M", T + "/tag", "-o", "SOURCE"]))
    expect(j["filesystems"][0]["source"] is None, "-e of a missing label %r" % j)


if __name__ == "__main__":
    main()
