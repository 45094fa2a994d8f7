# SPDX-License-Identifier: LGPL-2.1-or-later
"""The timing part of bench/python.sh (run there, in the namespace it
makes, with BENCH_N bind mounts).

Variants, taken in turn round after round:

  py-mounts       mntkit.mounts() in this process: every mount, every
                  statmount group, a list of Mount
  py-mounts-read  the same, and each Mount's mount_point, source,
                  fs_type and options read (the columns lsmnt -J prints)
  py-table        mntkit.Table(): the snapshot with its tree
  py-mountinfo    /proc/self/mountinfo read and parsed in pure Python: a
                  dict a line, its fields split, octal escapes undone
  lsmnt-J         lsmnt -J, a process of its own (bench-lsmnt run)
  py-process      $PYTHON -c 'import mntkit; mntkit.mounts()', a process
                  of its own: interpreter start and import included
  python-start    $PYTHON -c 'import mntkit': the start alone

and on the emulation (MNTKIT_BACKEND=mountinfo), each a process of its
own, as its first call is (nothing cached):

  emul-lsmnt-J    lsmnt -J
  emul-py-process $PYTHON -c 'import mntkit; mntkit.mounts()'

The in-process variants time the call and the freeing of its result.
"""
import gc
import os
import re
import statistics
import subprocess
import sys
import time

import mntkit

N = int(os.environ["BENCH_N"])
ROUNDS = int(os.environ["ROUNDS"])
LSMNT, HELPER = os.environ["LSMNT"], os.environ["HELPER"]
PYTHON = os.environ["PYTHON"]
EMUL = dict(os.environ, MNTKIT_BACKEND="mountinfo")

_OCTAL = re.compile(r"\\([0-7]{3})")


def _unescape(s):
    if "\\" not in s:
        return s
    return _OCTAL.sub(lambda m: chr(int(m.group(1), 8)), s)


def parse_mountinfo():
    out = []
    with open("/proc/self/mountinfo", "rb") as f:
        text = f.read().decode("utf-8", "surrogateescape")
    for line in text.splitlines():
        f = line.split(" ")
        sep = f.index("-", 6)
        major, minor = f[2].split(":")
        out.append({"id": int(f[0]), "parent": int(f[1]),
                    "dev": (int(major), int(minor)),
                    "root": _unescape(f[3]), "mount_point": _unescape(f[4]),
                    "vfs_options": f[5], "optional": f[6:sep],
                    "fs_type": f[sep + 1], "source": _unescape(f[sep + 2]),
                    "fs_options": _unescape(f[sep + 3])})
    return out


def read_all():
    ms = mntkit.mounts()
    for m in ms:
        m.mount_point, m.source, m.fs_type, m.options
    return ms


def in_process(fn):
    def run():
        gc.collect()
        t0 = time.perf_counter()
        r = fn()
        del r
        return time.perf_counter() - t0
    return run


def process(argv, env=None):
    def run():
        out = subprocess.run([HELPER, "run", "600"] + argv, env=env,
                             capture_output=True, text=True,
                             check=True).stdout
        return float(out.split()[0])
    return run


VARIANTS = [
    ("py-mounts", in_process(mntkit.mounts)),
    ("py-mounts-read", in_process(read_all)),
    ("py-table", in_process(mntkit.Table)),
    ("py-mountinfo", in_process(parse_mountinfo)),
    ("lsmnt-J", process([LSMNT, "-J"])),
    ("py-process", process([PYTHON, "-c",
                            "import mntkit; mntkit.mounts()"])),
    ("python-start", process([PYTHON, "-c", "import mntkit"])),
    ("emul-lsmnt-J", process([LSMNT, "-J"], EMUL)),
    ("emul-py-process", process([PYTHON, "-c",
                                 "import mntkit; mntkit.mounts()"], EMUL)),
]


def main():
    mounts = len(mntkit.mounts())
    assert len(parse_mountinfo()) == mounts
    res = {name: [] for name, _ in VARIANTS}
    for r in range(ROUNDS):
        k = r % len(VARIANTS)
        for name, fn in VARIANTS[k:] + VARIANTS[:k]:
            res[name].append(fn())
    med = {name: statistics.median(v) for name, v in res.items()}
    print("N = %d bind mounts (%d mounts), backend %s, median of %d "
          "rounds, interleaved" % (N, mounts, mntkit.backend(), ROUNDS))
    print("  %-16s %10s %10s" % ("variant", "median ms", "min ms"))
    for name, _ in VARIANTS:
        print("  %-16s %10.1f %10.1f" % (name, med[name] * 1e3,
                                         min(res[name]) * 1e3))

    def ratio(a, b, what):
        print("  %-34s %6.2fx  %s" % ("%s / %s" % (a, b), med[a] / med[b],
                                      what))
    ratio("py-mounts", "lsmnt-J", "(target: at most 2)")
    ratio("py-mounts-read", "lsmnt-J", "")
    ratio("py-mountinfo", "py-mounts", "(target: above 1)")
    ratio("py-mountinfo", "py-mounts-read", "")
    ratio("py-table", "py-mounts", "")
    ratio("py-process", "lsmnt-J", "(interpreter start included)")
    ratio("emul-py-process", "emul-lsmnt-J", "(the emulation, cold)")
    print()
    sys.stdout.flush()


main()
