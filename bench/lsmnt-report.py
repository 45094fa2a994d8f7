# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/lsmnt-report.py - the timed runs of bench/lsmnt.sh and its report,
for the N of BENCH_N (bench-lsmnt grow runs it in the namespace that holds
the N mounts); the other settings come from bench/lsmnt.sh's environment."""
import os, resource, subprocess, sys, statistics, shutil

N = int(os.environ["BENCH_N"])
rounds = int(os.environ["ROUNDS"])
tmo = float(os.environ["FINDMNT_TIMEOUT"])
L, H = os.environ["LSMNT"], os.environ["HELPER"]
emul = dict(os.environ, MNTKIT_BACKEND="mountinfo")
COLS = os.environ.get("FILTER_COLS", "TARGET,SOURCE,FSTYPE,OPTIONS")
EXPR = os.environ.get("FILTER_EXPR", 'FSTYPE == "tmpfs" && TARGET =~ "^/"')
ARGS = {"tree": [], "list": ["-l"], "json": ["-J"], "ljson": ["-l", "-J"],
        "raw": ["-r"], "pairs": ["-P"],
        "fplain": ["-l", "-o", COLS], "filter": ["-l", "-o", COLS, "-Q", EXPR]}
FINDMNT = os.environ.get("FINDMNT") or shutil.which("findmnt")
modes = [m for m in os.environ["MODES"].split() if m in ARGS]
variants = [("bare", [H, "bare", os.environ["LSMNT_MASK"]], None),
            ("bare-all", [H, "bare"], None)]
for m in modes:
    variants.append(("lsmnt-" + m, [L] + ARGS[m], None))
if FINDMNT:
    for m in modes:
        variants.append(("findmnt-" + m, [FINDMNT] + ARGS[m], None))
ok = subprocess.run([L, "-l", "-n", "-o", "ID"], env=emul,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if os.environ["EMUL"] != "0" and ok.returncode == 0:
    for m in modes:
        variants.append(("emul-" + m, [L] + ARGS[m], emul))
B = os.environ["LSMNT_BASE"]
if B:
    for m in modes:
        variants.append(("base-" + m, [B] + ARGS[m], None))

def cpu_used():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def once(argv, env):
    """wall time, peak RSS, cut at the timeout, CPU time (user + system,
    of the command and the helper that runs it: on a loaded machine the
    steadier measure)"""
    before = cpu_used()
    out = subprocess.run([H, "run", str(tmo)] + argv, env=env,
                         capture_output=True, text=True, check=True).stdout
    t, m, c = out.split()[:3]
    return float(t), int(m), c == "1", cpu_used() - before

res = {name: [] for name, _, _ in variants}
cpu = {name: [] for name, _, _ in variants}
rss = {name: 0 for name, _, _ in variants}
cut = {name: False for name, _, _ in variants}
slow = set()
for r in range(rounds):
    order = variants[r % len(variants):] + variants[:r % len(variants)]
    for name, argv, env in order:
        if name in slow and res[name]:
            continue
        t, m, c, u = once(argv, env)
        res[name].append(t)
        cpu[name].append(u)
        rss[name] = max(rss[name], m)
        cut[name] = cut[name] or c
        if t > 5:
            slow.add(name)

def med(name):
    return statistics.median(res[name]) if res.get(name) else None

mounts = sum(1 for _ in open("/proc/self/mountinfo"))
print("N = %d bind mounts (%d mounts in the namespace), median of %d rounds"
      % (N, mounts, rounds))
print("  %-14s %12s %10s %9s %12s" % ("variant", "median ms", "min ms", "RSS MB",
                                      "CPU ms"))
for name, _, _ in variants:
    m = med(name)
    ms = (">%.0f" % (m * 1000)) if cut[name] else "%.1f" % (m * 1000)
    print("  %-14s %12s %10.1f %9.1f %12.1f%s" % (name, ms, min(res[name]) * 1000,
          rss[name] / 1024, statistics.median(cpu[name]) * 1000,
          "  (cut at timeout)" if cut[name] else ""))


def cpu_ratio(a, b):
    if not (cpu.get(a) and cpu.get(b)):
        return "-"
    return "%.2fx" % (statistics.median(cpu[a]) / statistics.median(cpu[b]))

def ratio(a, b):
    if not (med(a) and med(b)):
        return "-"
    pre = ">" if cut[a] else "<" if cut[b] else ""
    return "%s%.2fx" % (pre, med(a) / med(b))

def rss_ratio(a, b):
    return "%.2fx" % (rss[a] / rss[b]) if rss.get(a) and rss.get(b) else "-"

print("  %-8s %12s %14s %14s %14s %14s" % ("mode", "lsmnt/bare",
      "lsmnt/bare-all", "findmnt/lsmnt", "RSS ls/find", "emul/lsmnt"))
for m in modes:
    a = "lsmnt-" + m
    print("  %-8s %12s %14s %14s %14s %14s" % (m, ratio(a, "bare"),
          ratio(a, "bare-all"), ratio("findmnt-" + m, a),
          rss_ratio(a, "findmnt-" + m), ratio("emul-" + m, a)))
if "filter" in modes and "fplain" in modes:
    print("  -Q %r over -o %s, -l (wall time; CPU time):" % (EXPR, COLS))
    for a, b in (("lsmnt-filter", "lsmnt-fplain"), ("findmnt-filter", "findmnt-fplain"),
                 ("findmnt-filter", "lsmnt-filter")):
        print("    %-32s %8s %8s" % ("%s / %s" % (a, b), ratio(a, b), cpu_ratio(a, b)))
    print("    (the bound: lsmnt-filter / lsmnt-fplain 1.2x at most)")
if B:
    for m in modes:
        print("  %-38s %s" % ("lsmnt-%s / base-%s" % (m, m),
              ratio("lsmnt-" + m, "base-" + m)))
print()
sys.stdout.flush()
