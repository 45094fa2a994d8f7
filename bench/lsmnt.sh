#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/lsmnt.sh BUILDDIR [SIZES] - lsmnt against findmnt and against the
# bare system-call loop, side by side in one run, in a private mount
# namespace that holds a tmpfs and N bind mounts of a second one (N grows
# through SIZES). For each N it runs, interleaved, each variant ROUNDS times
# as a process of its own and reports the median wall time, the peak RSS
# (wait4(2)) and the ratios:
#
#   lsmnt-tree / -list / -json     lsmnt, lsmnt -l, lsmnt -J
#   findmnt-tree / -list / -json   the same modes of findmnt(8)
#   bare                           bench-lsmnt bare: raw listmount(2) +
#                                  statmount(2) of every group per mount
#   emul-tree / -list / -json      lsmnt with MNTKIT_BACKEND=mountinfo
#   base-tree / -list / -json      with LSMNT_BASE=PATH: another build of
#                                  lsmnt (e.g. of an older commit), to
#                                  measure a change side by side
#
# Output goes to /dev/null. Each run is timed by "bench-lsmnt run" (fork,
# exec, wait4), whose peak RSS is the command's own. findmnt's tree mode is quadratic: its runs are
# cut at FINDMNT_TIMEOUT seconds (default 60) and reported as ">T".
#
#   SIZES   comma list of N (argument or environment; default 1000,10000;
#           BIG=1: 1000,10000,50000 and as many as fs.mount-max allows)
#   ROUNDS  timed rounds per variant (default 5; one for a variant whose
#           first run took more than 5 s)
#
# Prints results only; asserts nothing. Needs root (unshare -m, mount).
set -eu

build=${1:-build}
max=$(cat /proc/sys/fs/mount-max 2>/dev/null || echo 100000)
have=$(wc -l </proc/self/mountinfo)
room=$((max - have - 2))
if [ "${BIG:-0}" = 1 ]; then
	default="1000,10000,50000,$room"
else
	default="1000,10000"
fi
SIZES=${2:-${SIZES:-$default}}
ROUNDS=${ROUNDS:-5}
FINDMNT_TIMEOUT=${FINDMNT_TIMEOUT:-60}
helper=$build/bench/bench-lsmnt
lsmnt=$build/tools/lsmnt

die() {
	echo "bench/lsmnt.sh: $*" >&2
	exit 1
}

[ -x "$helper" ] && [ -x "$lsmnt" ] ||
	die "$helper or $lsmnt missing: build first (make build)"
command -v unshare >/dev/null 2>&1 || die "unshare(1) not found"
command -v python3 >/dev/null 2>&1 || die "python3 not found"
[ "$(id -u)" = 0 ] || die "needs root (mounts in a private namespace)"
command -v findmnt >/dev/null 2>&1 || echo "bench: no findmnt: its rows stay empty" >&2

dir=$(mktemp -d "${TMPDIR:-/tmp}/mntkit-lsmnt-bench.XXXXXX")
trap 'rmdir "$dir" 2>/dev/null || true' EXIT INT TERM

LSMNT_BASE=${LSMNT_BASE:-}
[ -z "$LSMNT_BASE" ] || [ -x "$LSMNT_BASE" ] || die "LSMNT_BASE=$LSMNT_BASE is not executable"
export LSMNT=$lsmnt HELPER=$helper ROUNDS FINDMNT_TIMEOUT LSMNT_BASE
unshare -m --propagation private "$helper" grow "$dir" "$SIZES" -- \
	python3 -c '
import os, subprocess, sys, statistics, shutil

N = int(os.environ["BENCH_N"])
rounds = int(os.environ["ROUNDS"])
tmo = float(os.environ["FINDMNT_TIMEOUT"])
L, H = os.environ["LSMNT"], os.environ["HELPER"]
emul = dict(os.environ, MNTKIT_BACKEND="mountinfo")
variants = [
    ("lsmnt-tree", [L], None), ("lsmnt-list", [L, "-l"], None),
    ("lsmnt-json", [L, "-J"], None), ("bare", [H, "bare"], None),
]
if shutil.which("findmnt"):
    variants += [("findmnt-tree", ["findmnt"], None),
                 ("findmnt-list", ["findmnt", "-l"], None),
                 ("findmnt-json", ["findmnt", "-J"], None)]
ok = subprocess.run([L, "-l", "-n", "-o", "ID"], env=emul,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if ok.returncode == 0:
    variants += [("emul-tree", [L], emul), ("emul-list", [L, "-l"], emul),
                 ("emul-json", [L, "-J"], emul)]
B = os.environ["LSMNT_BASE"]
if B:
    variants += [("base-tree", [B], None), ("base-list", [B, "-l"], None),
                 ("base-json", [B, "-J"], None)]

def once(argv, env):
    out = subprocess.run([H, "run", str(tmo)] + argv, env=env,
                         capture_output=True, text=True, check=True).stdout
    t, m, c = out.split()
    return float(t), int(m), c == "1"

res = {name: [] for name, _, _ in variants}
rss = {name: 0 for name, _, _ in variants}
cut = {name: False for name, _, _ in variants}
slow = set()
for r in range(rounds):
    order = variants[r % len(variants):] + variants[:r % len(variants)]
    for name, argv, env in order:
        if name in slow and res[name]:
            continue
        t, m, c = once(argv, env)
        res[name].append(t)
        rss[name] = max(rss[name], m)
        cut[name] = cut[name] or c
        if t > 5:
            slow.add(name)

def med(name):
    return statistics.median(res[name]) if res.get(name) else None

mounts = sum(1 for _ in open("/proc/self/mountinfo"))
print("N = %d bind mounts (%d mounts in the namespace), median of %d rounds" %
      (N, mounts, rounds))
print("  %-14s %12s %10s %9s" % ("variant", "median ms", "min ms", "RSS MB"))
for name, _, _ in variants:
    m = med(name)
    ms = (">%.0f" % (m * 1000)) if cut[name] else "%.1f" % (m * 1000)
    print("  %-14s %12s %10.1f %9.1f%s" % (name, ms, min(res[name]) * 1000,
          rss[name] / 1024, "  (cut at timeout)" if cut[name] else ""))
def ratio(a, b, what):
    if med(a) and med(b):
        pre = ">" if cut[a] else ""
        print("  %-38s %s%.1fx" % (what, pre, med(a) / med(b)))
for mode in ("tree", "list", "json"):
    ratio("findmnt-" + mode, "lsmnt-" + mode,
          "findmnt-%s / lsmnt-%s" % (mode, mode))
for mode in ("tree", "list", "json"):
    ratio("lsmnt-" + mode, "bare", "lsmnt-%s / bare" % mode)
for mode in ("tree", "list", "json"):
    ratio("emul-" + mode, "lsmnt-" + mode, "emul-%s / lsmnt-%s" % (mode, mode))
for mode in ("tree", "list", "json"):
    ratio("lsmnt-" + mode, "base-" + mode, "lsmnt-%s / base-%s" % (mode, mode))
for mode in ("tree", "list", "json"):
    a, b = "lsmnt-" + mode, "findmnt-" + mode
    if rss.get(a) and rss.get(b):
        print("  %-38s %.2fx" % ("RSS lsmnt-%s / findmnt-%s" % (mode, mode),
              rss[a] / rss[b]))
print()
sys.stdout.flush()
'
