#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""findmnt-diff.py - lsmnt against findmnt 2.42 over random option sets.

    tests/diff/findmnt-diff.py [-n N] [--seed S] [--findmnt PATH]
                               [--lsmnt PATH] [--no-minimize]
                               [--sampling over|real] [--json FILE]

Runs N random findmnt command lines (data sources, filters, -Q filter
expressions, columns, output modes, arguments) with findmnt 2.42 and with
lsmnt, in a private mount namespace with the varied mounts of
tests/cli/py/lsmnt_filter.py (plus an fstab file and a copy of mountinfo), and
reports the runs whose stdout bytes or exit status differ, and apart from
those the runs whose stderr differs (the program's name aside). Each
differing run is reduced to the fewest options that still differ; the
reduced command lines, their values abstracted, are the categories of the
report, with counts and an example each.

--sampling over (the default) over-samples every option, 2.42's new ones
most, and garbles a quarter of the -Q expressions: it looks for
differences. --sampling real draws command lines as people and scripts
write them (the common modes and filters, a few options at a time, the
rare ones rarely, well-formed expressions): the rate a user would meet.

A process's own PID in its stdout (the TID column) is masked, and a run
that differs is repeated twice more before it counts (the usage of a
live filesystem, SIZE or INO.USED, can change between the two programs'
runs on a machine other processes write to).

Needs root (unshare -m, mount); it re-runs itself in the new namespace.
findmnt 2.42 comes from scripts/findmnt-suite.sh (BUILDDIR/findmnt-cache)
unless --findmnt says which; lsmnt is BUILDDIR/tools/lsmnt (--build,
default ./build). Both run with LC_ALL=C.UTF-8 and no terminal. Not part
of the test suite: a measurement ("at most 0.5% of runs differ").
"""
import argparse
import collections
import importlib.util
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

SRC = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
ENV = dict(os.environ, LC_ALL="C.UTF-8")
ENV.pop("LIBMOUNT_FSTAB", None)
ENV.pop("LIBMOUNT_MTAB", None)


def load_filter_module():
    path = os.path.join(SRC, "tests", "cli", "py", "lsmnt_filter.py")
    spec = importlib.util.spec_from_file_location("lsmnt_filter", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


LF = load_filter_module()

FSTAB = """\
# a test fstab
UUID=0a1b2c3d-0000-4000-8000-000000000001 / ext4 errors=remount-ro 0 1
LABEL=boot /boot ext4 defaults,noatime 0 2
/dev/sda3 none swap sw 0 0
tmpfs /tmp tmpfs size=1m,mode=1777 0 0
proc /proc proc defaults 0 0
server:/export /mnt/nfs nfs ro,soft 0 0
this line is bad
"""


def run(argv):
    """Exit status, stdout, stderr of ARGV; the process's own PID in its
    stdout (TID: its /proc/PID/mountinfo) as "#" digits."""
    p = subprocess.Popen([os.fsencode(a) for a in argv], env=ENV,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return "timeout", b"", b""
    pid = str(p.pid).encode()
    out = re.sub(rb"(?<![0-9])" + pid + rb"(?![0-9])", b"#" * len(pid), out)
    return p.returncode, out, err


class Gen:
    """Random findmnt command lines: a list of units, each one option
    with its value (or one argument)."""

    FORMATS = [[], [], [], ["-l"], ["-l"], ["-r"], ["-J"], ["-J"], ["-P"],
               ["-D"], ["-I"], ["-J", "-l"], ["-r", "-n"], ["-l", "-n"]]
    FLAGS = ["-a", "-b", "-n", "-u", "-v", "-A", "-f", "-i", "-U", "-c",
             "-C", "-e", "-R", "--real", "--pseudo", "--shadowed",
             "--tree", "-y", "--vfs-all", "-k", "--kernel", "-m",
             "--output-all", "-d backward", "-d forward",
             "--kernel=mountinfo", "--kernel=listmount", "-s"]

    def __init__(self, seed, base, files, columns, rows):
        self.r = random.Random(seed)
        self.base = base
        self.files = files
        self.cols = [c for c in columns if c != "TID"]
        self.rows = rows
        self.filters = LF.Gen(seed + 1, rows)

    def pick_value(self, col):
        vals = [x[col] for x in self.rows if x.get(col)]
        return self.r.choice(vals) if vals else "none"

    def path(self):
        r = self.r
        return r.choice([
            self.pick_value("TARGET"), self.pick_value("TARGET"),
            os.path.join(self.base, "a", "f"), os.path.join(self.base, "c"),
            "/", "/proc", os.path.join(self.base, "nonexistent"), "",
            os.path.join(self.base, "b", "n1", "n2"), "/etc/hostname"])

    def source(self):
        r = self.r
        return r.choice([
            self.pick_value("SOURCE"), self.pick_value("SOURCE"),
            self.pick_value("MAJ:MIN"), "tmpb", "proc", "LABEL=boot",
            "UUID=0a1b2c3d-0000-4000-8000-000000000001", "nonexistent", "",
            "/dev/vda", "ramfs"])

    def columns(self):
        n = self.r.choice([1, 1, 2, 3, 4, 6])
        return ",".join(self.r.choice(self.cols) for _ in range(n))

    def one(self):
        r = self.r
        units = [[a] for a in r.choice(self.FORMATS)]
        for f in self.FLAGS:
            if r.random() < 0.05:
                units.append(f.split(" "))
        p = r.random
        if p() < 0.4:
            units.append(["-o", self.columns()])
        if p() < 0.12:
            units.append(["-t", r.choice(["tmpfs", "proc,sysfs", "notmpfs",
                                          "ext4", "ramfs,tmpfs", "nosuch"])])
        if p() < 0.08:
            units.append(["-O", r.choice(["ro", "noro", "rw,nosuid",
                                          "size=1m", "relatime", "nodev"])])
        if p() < 0.08:
            units.append(["-S", self.source()])
        if p() < 0.08:
            units.append(["-T", self.path()])
        if p() < 0.05:
            units.append(["-M", self.path()])
        if p() < 0.04:
            units.append(["--id", r.choice([self.pick_value("ID"),
                                            "99999", "0", "x"])])
        if p() < 0.02:
            units.append(["--uniq-id", r.choice(["1", "99999"])])
        if p() < 0.25:
            units.append(["-Q", self.filters.one()])
        if p() < 0.03:
            units.append(["-N", str(os.getpid())])
        if p() < 0.06:
            units.append(["-F", r.choice([self.files["fstab"],
                                          self.files["mountinfo"]])])
        if p() < 0.03:
            units.append(["-x"])
        if p() < 0.02:
            units.append(["--verbose"])
        if p() < 0.03:
            units.append(["-H"])
        if p() < 0.04:
            units.append([r.choice(["--hyperlink", "--hyperlink=always",
                                    "--hyperlink=never", "--hyperlink=auto",
                                    "--hyperlink=bad"])])
        if p() < 0.02:
            units.append(["-p", "-w", "1"])
        if p() < 0.1:
            units.append([r.choice([self.source(), self.path()])])
            if p() < 0.3:
                units.append([self.path()])
        # the options in any order; the arguments at the end
        opts = [u for u in units if u[0].startswith("-")]
        args = [u for u in units if not u[0].startswith("-")]
        r.shuffle(opts)
        return opts + args


class RealGen(Gen):
    """Random findmnt command lines as people and scripts write them: the
    common output modes and a few options at a time, existing mount
    points and sources, well-formed -Q expressions; the rare options
    rarely."""

    COMMON_COLS = ["TARGET", "SOURCE", "FSTYPE", "OPTIONS", "SIZE", "USED",
                   "AVAIL", "USE%", "UUID", "LABEL", "FSROOT", "ID",
                   "PARENT", "MAJ:MIN", "PROPAGATION", "VFS-OPTIONS",
                   "FS-OPTIONS", "INO.USED", "INO.AVAIL"]
    COMMON_SETS = ["TARGET", "SOURCE", "FSTYPE", "TARGET,SOURCE",
                   "SOURCE,TARGET,FSTYPE", "TARGET,FSTYPE,OPTIONS",
                   "SIZE,USED,AVAIL", "TARGET,SIZE,USE%", "UUID",
                   "+PROPAGATION", "+UUID,LABEL", "TARGET,PROPAGATION",
                   "ID,PARENT,TARGET", "MAJ:MIN,TARGET"]
    FORMATS = [([], 35), (["-l"], 15), (["-J"], 10), (["-r"], 5),
               (["-n"], 4), (["-l", "-n"], 5), (["-D"], 5), (["-P"], 3),
               (["-J", "-l"], 3), (["-r", "-n"], 3), (["-I"], 1)]
    FLAGS = [("-a", 1), ("-b", 3), ("-u", 2), ("-v", 1), ("-A", 1),
             ("-f", 5), ("-i", 1), ("-U", 1), ("-c", 1), ("-e", 1),
             ("-R", 3), ("--real", 3), ("--pseudo", 2), ("--shadowed", 0.5),
             ("--tree", 1), ("-y", 1), ("--vfs-all", 0.5), ("-k", 1),
             ("--kernel=listmount", 0.5), ("-m", 1), ("--output-all", 1),
             ("-d backward", 1), ("--hyperlink", 0.5), ("-x", 0.3),
             ("-H", 0.3)]

    def weighted(self, pairs):
        total = sum(w for _, w in pairs)
        x = self.r.random() * total
        for v, w in pairs:
            x -= w
            if x < 0:
                return v
        return pairs[-1][0]

    def path(self):
        r = self.r
        return r.choice([self.pick_value("TARGET"), self.pick_value("TARGET"),
                         "/", "/proc", "/sys", "/dev", "/etc/hostname",
                         os.path.join(self.base, "a", "f"), "/tmp"])

    def source(self):
        r = self.r
        return r.choice([self.pick_value("SOURCE"), self.pick_value("SOURCE"),
                         self.pick_value("MAJ:MIN"), "tmpfs", "proc",
                         "/dev/vda", "sysfs"])

    def one(self):
        r = self.r
        p = r.random
        units = [[a] for a in self.weighted(self.FORMATS)]
        for f, w in self.FLAGS:
            if p() * 100 < w:
                units.append(f.split(" "))
        if p() < 0.35:
            if p() < 0.6:
                cols = r.choice(self.COMMON_SETS)
            else:
                cols = ",".join(r.choice(self.COMMON_COLS)
                                for _ in range(r.choice([1, 2, 3])))
            units.append(["-o", cols])
        if p() < 0.10:
            units.append(["-t", r.choice(["tmpfs", "ext4", "nfs,nfs4",
                                          "notmpfs", "cgroup2,tmpfs",
                                          "proc", "ramfs"])])
        if p() < 0.03:
            units.append(["-O", r.choice(["ro", "rw", "nosuid,nodev",
                                          "relatime", "noexec"])])
        k = p()
        if k < 0.05:
            units.append(["-S", self.source()])
        elif k < 0.15:
            units.append(["-T", self.path()])
        elif k < 0.20:
            units.append(["-M", self.path()])
        elif k < 0.35:
            units.append([r.choice([self.source(), self.path()])])
        if p() < 0.08:
            units.append(["-Q", self.filters.expr()])
        if p() < 0.02:
            units.append(["-F", r.choice([self.files["fstab"],
                                          self.files["mountinfo"]])])
        if p() < 0.01:
            units.append(["-s"])
        if p() < 0.005:
            units.append(["-N", str(os.getpid())])
        if p() < 0.005:
            units.append(["-p", "-w", "1"])
        opts = [u for u in units if u[0].startswith("-")]
        args = [u for u in units if not u[0].startswith("-")]
        r.shuffle(opts)
        return opts + args


def flat(units):
    return [a for u in units for a in u]


def compare_once(findmnt, lsmnt, argv):
    f = run([findmnt] + argv)
    l = run([lsmnt] + argv)
    lerr = b"\n".join(b"findmnt: " + x[len(b"lsmnt: "):]
                      if x.startswith(b"lsmnt: ") else x
                      for x in l[2].split(b"\n"))
    return f, (l[0], l[1], lerr)


def compare(findmnt, lsmnt, units):
    """The two runs of UNITS; when they differ, up to two more of each:
    the usage of a live filesystem (SIZE, INO.USED, ...) can change
    between them on a machine that other processes write to."""
    argv = flat(units)
    for attempt in range(3):
        f, l = compare_once(findmnt, lsmnt, argv)
        if (f[:2] == l[:2] and f[2] == l[2]) or "timeout" in (f[0], l[0]):
            break
    return f, l


def differs(f, l):
    return (f[0], f[1]) != (l[0], l[1])


def shrink(units):
    """Smaller variants of UNITS: one unit less, or one column less."""
    for i in range(len(units)):
        yield units[:i] + units[i + 1:]
    for i, u in enumerate(units):
        if u[0] == "-o" and len(u) > 1 and "," in u[1]:
            cols = u[1].split(",")
            for j in range(len(cols)):
                rest = ",".join(cols[:j] + cols[j + 1:])
                yield units[:i] + [["-o", rest]] + units[i + 1:]


def minimize(findmnt, lsmnt, units, stderr_only=False):
    """The fewest units (and columns) that still differ (stdout and exit
    status, or stderr alone)."""
    def bad(us):
        f, l = compare(findmnt, lsmnt, us)
        if stderr_only:
            return not differs(f, l) and f[2] != l[2]
        return differs(f, l)

    changed = True
    while changed:
        changed = False
        for trial in shrink(units):
            if trial and bad(trial):
                units = trial
                changed = True
                break
    return units


def abstract(units):
    """A category: the options, values abstracted where they vary."""
    out = []
    for u in units:
        o = u[0]
        if not o.startswith("-"):
            out.append("<arg>")
        elif o in ("-Q",):
            out.append("-Q <expr>")
        elif o in ("-S", "-T", "-M", "-N", "-F", "--id", "--uniq-id"):
            out.append(o + " <%s>" % ("file" if o == "-F" else "value"))
        elif len(u) > 1:
            out.append(" ".join(u))
        else:
            out.append(o)
    return " ".join(sorted(out))


POLL_COL = b"column is requested, but --poll is not enabled"


def cause(f, l):
    """What a difference comes from, where the messages say it."""
    fe, le = f[2], l[2]
    m = re.search(rb"findmnt: (-[^=:\s]+)(=?)\S*: unknown option", le)
    if m and b"unknown option" not in fe:
        return "lsmnt refuses %s%s" % (m.group(1).decode(errors="replace"),
                                       "[=...]" if m.group(2) else "")
    m = re.search(rb"unknown column: (\S+)", le)
    if m and b"unknown column" not in fe:
        return "lsmnt has no column %s" % m.group(1).decode(
            errors="replace")
    if POLL_COL in fe and l[0] != f[0]:
        return "a --poll column without --poll: findmnt warns, goes on"
    for msg in (b"cannot be combined", b"mutually exclusive"):
        if (msg in fe) != (msg in le):
            return "options one of them refuses together (%s)" % (
                "findmnt" if msg in fe else "lsmnt")
    return None


def squeeze(b):
    return re.sub(rb"[ \t]+", b" ", b).replace(b" \n", b"\n").strip()


def first_line_diff(a, b):
    al, bl = a.split(b"\n"), b.split(b"\n")
    for i in range(max(len(al), len(bl))):
        x = al[i] if i < len(al) else b"<end>"
        y = bl[i] if i < len(bl) else b"<end>"
        if x != y:
            return "line %d: findmnt %r / lsmnt %r" % (i + 1, x[:100],
                                                        y[:100])
    return "same bytes"


def in_namespace(opts):
    base = tempfile.mkdtemp(prefix="findmnt-diff.")
    LF.make_mounts(base)
    files = {"fstab": os.path.join(base, "fstab"),
             "mountinfo": os.path.join(base, "mountinfo")}
    with open(files["fstab"], "w") as f:
        f.write(FSTAB)
    shutil.copy("/proc/self/mountinfo", files["mountinfo"])
    LF.FINDMNT = opts.findmnt
    LF.COLS = LF.columns()
    rows = LF.rows(False)
    gen = (RealGen if opts.sampling == "real" else Gen)(
        opts.seed, base, files, LF.COLS, rows)
    results = []
    for i in range(opts.n):
        units = gen.one()
        f, l = compare(opts.findmnt, opts.lsmnt, units)
        kind = "differ" if differs(f, l) else \
            "stderr" if f[2] != l[2] else None
        results.append((units, kind, f, l))
        if opts.progress and (i + 1) % 100 == 0:
            sys.stderr.write("%d runs\n" % (i + 1))
    report(opts, base, results)


def report(opts, base, results):
    n = len(results)
    cats = {"differ": collections.OrderedDict(),
            "stderr": collections.OrderedDict()}
    for units, kind, f, l in results:
        if not kind:
            continue
        small = units
        key = cause(f, l)
        if not key and opts.minimize:
            small = minimize(opts.findmnt, opts.lsmnt, units,
                             kind == "stderr")
            f, l = compare(opts.findmnt, opts.lsmnt, small)
            key = cause(f, l)
        if not key:
            key = abstract(small)
            if kind == "differ" and f[0] == l[0] and \
                    squeeze(f[1]) == squeeze(l[1]):
                key = "spacing only: " + key
        c = cats[kind].setdefault(key, {"count": 0, "example": None})
        c["count"] += 1
        if not c["example"]:
            c["example"] = {
                "argv": flat(small), "full_argv": flat(units),
                "exit": [f[0], l[0]],
                "stdout": first_line_diff(f[1], l[1]),
                "stderr": [f[2].decode(errors="replace")[:300],
                           l[2].decode(errors="replace")[:300]]}
    nd = sum(c["count"] for c in cats["differ"].values())
    ns = sum(c["count"] for c in cats["stderr"].values())
    print("%d runs (seed %d, %s sampling): %d differ in stdout or exit "
          "status (%.2f%%), %d more in stderr only" % (
              n, opts.seed, opts.sampling, nd, 100.0 * nd / n, ns))
    for kind, title in (("differ", "stdout or exit status"),
                        ("stderr", "stderr only")):
        print("\n== %s: %d categories" % (title, len(cats[kind])))
        for key, c in sorted(cats[kind].items(),
                             key=lambda kv: -kv[1]["count"]):
            ex = c["example"]
            print("%4d  %s" % (c["count"], key))
            print("      e.g. %s" % " ".join(repr(a) if (" " in a or not a)
                                            else a for a in ex["argv"]))
            print("      exit %s/%s; %s" % (ex["exit"][0], ex["exit"][1],
                                            ex["stdout"]))
            if ex["stderr"][0] != ex["stderr"][1]:
                print("      stderr %r / %r" % (ex["stderr"][0][:150],
                                                ex["stderr"][1][:150]))
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"runs": n, "seed": opts.seed, "differ": nd,
                       "stderr_only": ns, "categories": cats}, f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--build", default="build")
    ap.add_argument("--findmnt")
    ap.add_argument("--lsmnt")
    ap.add_argument("--no-minimize", dest="minimize", action="store_false")
    ap.add_argument("--json")
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--sampling", choices=["over", "real"], default="over")
    opts = ap.parse_args()
    build = os.path.abspath(opts.build)
    if not opts.lsmnt:
        opts.lsmnt = os.path.join(build, "tools", "lsmnt")
    if not opts.findmnt:
        p = subprocess.run(["sh", os.path.join(SRC, "scripts",
                                               "findmnt-suite.sh"), "sid",
                            os.path.join(build, "findmnt-cache")],
                           stdout=subprocess.PIPE, text=True)
        if p.returncode:
            sys.exit("findmnt-diff: no findmnt 2.42: %s" % p.stdout.strip())
        opts.findmnt = p.stdout.strip()
    if os.environ.get("FINDMNT_DIFF_IN_NS") == "1":
        in_namespace(opts)
        return
    if os.geteuid() != 0:
        sys.exit("findmnt-diff: needs root (a private mount namespace)")
    argv = [sys.executable, os.path.abspath(__file__), "-n", str(opts.n),
            "--seed", str(opts.seed), "--findmnt", opts.findmnt,
            "--lsmnt", opts.lsmnt]
    if not opts.minimize:
        argv.append("--no-minimize")
    if opts.json:
        argv += ["--json", os.path.abspath(opts.json)]
    if opts.progress:
        argv.append("--progress")
    argv += ["--sampling", opts.sampling]
    env = dict(os.environ, FINDMNT_DIFF_IN_NS="1")
    sys.exit(subprocess.run(["unshare", "-m", "--propagation", "private"] +
                            argv, env=env).returncode)


if __name__ == "__main__":
    main()
