#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/lsmnt.sh BUILDDIR [SIZES] - lsmnt against findmnt and against the
# bare system-call loop, side by side in one run, in a private mount
# namespace that holds a tmpfs and N bind mounts of a second one (N grows
# through SIZES). For each N it runs, interleaved, each variant ROUNDS times
# as a process of its own and reports the median wall time, the peak RSS
# (wait4(2)) and the ratios, mode by mode (MODES):
#
#   tree   lsmnt / findmnt              (the tree, default mode)
#   list   lsmnt -l / findmnt -l
#   json   lsmnt -J / findmnt -J        (JSON of the tree)
#   ljson  lsmnt -l -J / findmnt -l -J  (JSON of the list)
#   raw    lsmnt -r / findmnt -r
#   pairs  lsmnt -P / findmnt -P
#   fplain lsmnt -l -o COLS / findmnt -l -o COLS
#   filter lsmnt -l -o COLS -Q EXPR / findmnt the same (FILTER_COLS,
#          default TARGET,SOURCE,FSTYPE,OPTIONS; FILTER_EXPR, default one
#          every mount passes); with fplain, the report's line of ratios
#          of the filtered listing to the plain one (the bound: 1.2x)
#
# and the floors:
#
#   bare       bench-lsmnt bare MASK: raw listmount(2) + statmount(2) of
#              the groups lsmnt asks for its default columns (MASK, see
#              LSMNT_MASK), as a process of its own
#   bare-all   the same loop with every group
#
# Each mode's line: lsmnt's time / bare's (the issue's bound: 1.15x at
# most), findmnt's / lsmnt's (above 1: lsmnt is faster) and lsmnt's RSS /
# findmnt's (the bound: 0.5x at most). Also lsmnt with MNTKIT_BACKEND=
# mountinfo (emul-MODE) and, with LSMNT_BASE=PATH, another build of lsmnt
# (e.g. of an older commit: base-MODE), to measure a change side by side.
#
# Output goes to /dev/null. Each run is timed by "bench-lsmnt run" (fork,
# exec, wait4), whose peak RSS is the command's own. findmnt's tree modes
# are quadratic: their runs are cut at FINDMNT_TIMEOUT seconds (default
# 60) and reported as ">T".
#
#   SIZES   comma list of N (argument or environment; default 10000,50000;
#           BIG=1: 1000,10000,50000 and as many as fs.mount-max allows)
#   ROUNDS  timed rounds per variant (default 5; one for a variant whose
#           first run took more than 5 s)
#   MODES   the modes, of those above (default "tree list json ljson raw")
#   LSMNT_MASK  the groups of lsmnt's default columns (TARGET, SOURCE,
#           FSTYPE, OPTIONS: MNT_BASIC SB_BASIC MNT_ROOT MNT_POINT FS_TYPE
#           MNT_OPTS FS_SUBTYPE SB_SOURCE = 0x3bb), for the bare loop
#   EMUL=0  leave the emulation's variants out
#   FINDMNT the findmnt to run (default: findmnt on PATH; -Q needs 2.42's,
#           e.g. FINDMNT=$(sh scripts/findmnt-suite.sh sid))
#
# Prints results only; asserts nothing. Needs root (unshare -m, mount).
set -eu

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
max=$(cat /proc/sys/fs/mount-max 2>/dev/null || echo 100000)
have=$(wc -l </proc/self/mountinfo)
room=$((max - have - 2))
if [ "${BIG:-0}" = 1 ]; then
	default="1000,10000,50000,$room"
else
	default="10000,50000"
fi
SIZES=${2:-${SIZES:-$default}}
ROUNDS=${ROUNDS:-5}
MODES=${MODES:-tree list json ljson raw}
LSMNT_MASK=${LSMNT_MASK:-0x3bb}
EMUL=${EMUL:-1}
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
FINDMNT=${FINDMNT:-$(command -v findmnt || true)}
[ -n "$FINDMNT" ] || echo "bench: no findmnt: its rows stay empty" >&2

dir=$(mktemp -d "${TMPDIR:-/tmp}/mntkit-lsmnt-bench.XXXXXX")
trap 'rmdir "$dir" 2>/dev/null || true' EXIT INT TERM

LSMNT_BASE=${LSMNT_BASE:-}
[ -z "$LSMNT_BASE" ] || [ -x "$LSMNT_BASE" ] || die "LSMNT_BASE=$LSMNT_BASE is not executable"
export LSMNT=$lsmnt HELPER=$helper ROUNDS FINDMNT_TIMEOUT LSMNT_BASE MODES \
	LSMNT_MASK EMUL FINDMNT
unshare -m --propagation private "$helper" grow "$dir" "$SIZES" -- \
	python3 "$here/lsmnt-report.py"
