#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/bench-emul.sh BUILDDIR [SIZES] - the emulation where statmount(2)
# and listmount(2) are refused (a seccomp profile older than the calls),
# against its peers, as ratios side by side in one run, in a private mount
# namespace that holds a tmpfs and N bind mounts of a second one (N grows
# through SIZES, default 10000,50000):
#
#   list   at each N up to LIST_MAX (10000): interleaved, ROUNDS (9) runs
#          each as a process of its own (output to /dev/null), medians of
#          the wall time and of the CPU time (user + system), each under
#          tests/seccomp-run with statmount and listmount refused (EPERM;
#          statx allowed: unique IDs on 6.8+), as every process of such a
#          container runs: cat /proc/self/mountinfo, findmnt -l, lsmnt -l,
#          lsmnt -l -o +UNIQ-ID (the mounts named by unique ID: a look at
#          each mount point), and lsmnt -l with MNTKIT_TEST_OLD_IDS=1 (the
#          emulation of a kernel before 6.8); and cat without the filter
#          (seccomp-run's own exec costs each of the others about 3 ms of
#          CPU on bench/'s machine). Ratios: lsmnt -l / findmnt -l (target:
#          1 at most) and lsmnt -l / cat (target: 2.5 at most).
#   watch  at each N: a poll watch on the mountinfo backend, the CPU time
#          of one diff after a mount or an unmount (build/bench/bench-diff,
#          median of DIFF_ROUNDS (10) mounts and as many unmounts) against
#          the CPU time of one read of mountinfo taken between them, in
#          unique-ID mode and in old-ID mode (MNTKIT_TEST_OLD_IDS=1).
#          Ratio diff / read (target: 2 at most at 50,000 mounts; the same
#          ratio at every N is linear).
#
# LIB_BASE=DIR (the lib/ of another build, e.g. of an older commit) adds
# its lsmnt -l and its diffs, the same programs run with that library
# (LD_LIBRARY_PATH), to measure a change side by side.
#
# Prints results only; asserts nothing. Needs root (unshare -m, mount).
set -eu

build=${1:-build}
SIZES=${2:-${SIZES:-10000,50000}}
ROUNDS=${ROUNDS:-9}
DIFF_ROUNDS=${DIFF_ROUNDS:-10}
LIST_MAX=${LIST_MAX:-10000}
LIB_BASE=${LIB_BASE:-}

if [ "${BENCH_EMUL_IN_NS:-}" = 1 ]; then
	N=$BENCH_N
	dir=$BENCH_DIR
	run="$build/bench/bench-lsmnt run 120"
	secc="$build/tests/seccomp-run statmount=EPERM listmount=EPERM --"
	lsmnt=$build/tools/lsmnt
	med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
	if [ "$N" -le "$LIST_MAX" ]; then
		for v in catbare cat findmnt lsmnt uniq oldids base; do : >"$dir/$v"; done
		for r in $(seq "$ROUNDS"); do
			$run cat /proc/self/mountinfo >>"$dir/catbare"
			$run $secc cat /proc/self/mountinfo >>"$dir/cat"
			$run $secc findmnt -l >>"$dir/findmnt"
			$run $secc "$lsmnt" -l >>"$dir/lsmnt"
			$run $secc "$lsmnt" -l -o +UNIQ-ID >>"$dir/uniq"
			MNTKIT_TEST_OLD_IDS=1 $run $secc "$lsmnt" -l >>"$dir/oldids"
			[ -z "$LIB_BASE" ] ||
				LD_LIBRARY_PATH=$LIB_BASE $run $secc "$lsmnt" -l >>"$dir/base"
		done
		# the medians of wall (field 1) and CPU (field 4) seconds
		meds() { echo "$(cut -d' ' -f1 <"$1" | med) $(cut -d' ' -f4 <"$1" | med)"; }
		echo "$(meds "$dir/cat") $(meds "$dir/findmnt") $(meds "$dir/lsmnt") $(meds "$dir/oldids") $(meds "$dir/uniq") $(meds "$dir/catbare")" |
			awk -v n="$N" -v r="$ROUNDS" '{
			printf "list  %6d mounts, median of %d, wall (CPU), all under the filter: cat %.1f ms (%.1f), findmnt -l %.1f ms (%.1f); cat without it %.1f ms (%.1f)\n", n, r, $1 * 1e3, $2 * 1e3, $3 * 1e3, $4 * 1e3, $11 * 1e3, $12 * 1e3
			printf "      lsmnt -l, statmount refused  %6.1f ms (%5.1f)  %.2fx findmnt -l (CPU %.2fx; target <= 1)  %.2fx cat (CPU %.2fx; target <= 2.5)\n", $5 * 1e3, $6 * 1e3, $5 / $3, $6 / $4, $5 / $1, $6 / $2
			printf "      lsmnt -l -o +UNIQ-ID         %6.1f ms (%5.1f)  %.2fx findmnt -l (CPU %.2fx)                %.2fx cat (CPU %.2fx)\n", $9 * 1e3, $10 * 1e3, $9 / $3, $10 / $4, $9 / $1, $10 / $2
			printf "      lsmnt -l, old IDs (< 6.8)    %6.1f ms (%5.1f)  %.2fx findmnt -l (CPU %.2fx)                %.2fx cat (CPU %.2fx)\n", $7 * 1e3, $8 * 1e3, $7 / $3, $8 / $4, $7 / $1, $8 / $2
		}'
		[ -z "$LIB_BASE" ] || echo "$(meds "$dir/cat") $(meds "$dir/findmnt") $(meds "$dir/base")" |
			awk '{ printf "      LIB_BASE, statmount refused  %6.1f ms (%5.1f)  %.2fx findmnt -l (CPU %.2fx)                %.2fx cat (CPU %.2fx)\n", $5 * 1e3, $6 * 1e3, $5 / $3, $6 / $4, $5 / $1, $6 / $2 }'
	fi
	mkdir -p "$dir/diff"
	u=$(MNTKIT_BACKEND=mountinfo "$build/bench/bench-diff" "$dir/diff" "$DIFF_ROUNDS")
	o=$(MNTKIT_BACKEND=mountinfo MNTKIT_TEST_OLD_IDS=1 \
		"$build/bench/bench-diff" "$dir/diff" "$DIFF_ROUNDS")
	if [ -n "$LIB_BASE" ]; then
		bu=$(LD_LIBRARY_PATH=$LIB_BASE MNTKIT_BACKEND=mountinfo \
			"$build/bench/bench-diff" "$dir/diff" "$DIFF_ROUNDS")
		bo=$(LD_LIBRARY_PATH=$LIB_BASE MNTKIT_BACKEND=mountinfo \
			MNTKIT_TEST_OLD_IDS=1 "$build/bench/bench-diff" "$dir/diff" \
			"$DIFF_ROUNDS")
		o="$o $bu $bo"
	fi
	echo "$u $o" | awk -v n="$N" '{
		printf "watch %6d mounts, CPU per diff against one read of mountinfo (target <= 2 at 50000)\n", n
		printf "      unique IDs  %7.1f ms / %6.1f ms = %.2fx  (events %d of 2)\n", $1 / 1e3, $2 / 1e3, $1 / $2, $3
		printf "      old IDs     %7.1f ms / %6.1f ms = %.2fx  (events %d of 2)\n", $4 / 1e3, $5 / 1e3, $4 / $5, $6
		if (NF >= 12) {
			printf "      LIB_BASE unique IDs  %7.1f ms / %6.1f ms = %.2fx\n", $7 / 1e3, $8 / 1e3, $7 / $8
			printf "      LIB_BASE old IDs     %7.1f ms / %6.1f ms = %.2fx\n", $10 / 1e3, $11 / 1e3, $10 / $11
		}
	}'
	exit 0
fi

die() {
	echo "bench/bench-emul.sh: $*" >&2
	exit 1
}

for f in bench/bench-lsmnt bench/bench-diff tests/seccomp-run tools/lsmnt; do
	[ -x "$build/$f" ] || die "$build/$f missing: build first (make build)"
done
command -v unshare >/dev/null 2>&1 || die "unshare(1) not found"
command -v findmnt >/dev/null 2>&1 || die "findmnt(8) not found"
[ "$(id -u)" = 0 ] || die "needs root (mounts in a private namespace)"
build=$(cd "$build" && pwd)
here=$(cd "$(dirname "$0")" && pwd)

dir=$(mktemp -d "${TMPDIR:-/tmp}/mntkit-emul-bench.XXXXXX")
trap 'rmdir "$dir" 2>/dev/null || true' EXIT INT TERM
BENCH_HOST_MNTNS=$(readlink /proc/self/ns/mnt)
echo "bench-emul: $(uname -r), $(nproc) CPUs, commit" \
	"$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"
[ -z "$LIB_BASE" ] || [ -d "$LIB_BASE" ] || die "LIB_BASE=$LIB_BASE is no directory"
[ -z "$LIB_BASE" ] || LIB_BASE=$(cd "$LIB_BASE" && pwd)
export BENCH_HOST_MNTNS ROUNDS DIFF_ROUNDS LIST_MAX LIB_BASE
BENCH_EMUL_IN_NS=1 BENCH_DIR=$dir unshare -m --propagation private \
	"$build/bench/bench-lsmnt" grow "$dir" "$SIZES" -- \
	sh "$here/bench-emul.sh" "$build"
