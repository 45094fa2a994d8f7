# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/lsmnt-report.py - the timed runs of bench/lsmnt.sh and its report,
for the N of BENCH_N (bench-lsmnt grow runs it in the namespace that holds
the N mounts); the other settings come from bench/lsmnt.sh's environment."""
import os, subprocess, sys, statistics, shutil

N = int(os.environ["BENCH_N"])
rounds = int(os.environ["ROUNDS"])
tmo = float(os.environ["FINDMNT_TIMEOUT"])
L, H = os.environ["LSMNT"], os.environ["HELPER"]
emul = dict(os.environ, MNTKIT_BACKEND="mountinfo")
ARGS = {"tree": [], "list": ["-l"], "json": ["-J"], "ljson": ["-l", "-J"],
        "raw": ["-r"], "pairs": ["-P"]}
modes = [m for m in os.environ["MODES"].split() if m in ARGS]
variants = [("bare", [H, "bare", os.environ["LSMNT_MASK"]], None),
            ("bare-all", [H, "bare"], None)]
for m in modes:
    variants.append(("lsmnt-" + m, [L] + ARGS[m], None))
if shutil.which("findmnt"):
    for m in modes:
        variants.append(("findmnt-" + m, ["findmnt"] + ARGS[m], None))
ok = subprocess.run([L, "-l", "-n", "-o", "ID"], env=emul,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if os.environ["EMUL"] != "0" and ok.returncode == 0:
    for m in modes:
        variants.append(("emul-" + m, [L] + ARGS[m], emul))
B = os.environ["LSMNT_BASE"]
if B:
    for m in modes:
        variants.append(("base-" + m, [B] + ARGS[m], None))

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
print("N = %d bind mounts (%d mounts in the namespace), median of %d rounds"
      % (N, mounts, rounds))
print("  %-14s %12s %10s %9s" % ("variant", "median ms", "min ms", "RSS MB"))
for name, _, _ in variants:
    m = med(name)
    ms = (">%.0f" % (m * 1000)) if cut[name] else "%.1f" % (m * 1000)
    print("  %-14s %12s %10.1f %9.1f%s" % (name, ms, min(res[name]) * 1000,
          rss[name] / 1024, "  (cut at timeout)" if cut[name] else ""))

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
if B:
    for m in modes:
        print("  %-38s %s" % ("lsmnt-%s / base-%s" % (m, m),
              ratio("lsmnt-" + m, "base-" + m)))
print()
sys.stdout.flush()
