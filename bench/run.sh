#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/run.sh BUILDDIR [N] - list + statmount N+ mounts several ways, side by
# side in one run (bench/bench-list.c), in a private mount namespace that
# holds a tmpfs and N bind mounts of a second one (bench/common.h says why
# not of the first). Then the mountinfo emulation's full listing against
# cat and findmnt at EMUL_N mounts (bench/bench-emul.c), in a second
# namespace. Prints tables and ratios; asserts nothing.
#
#   N       bind mounts to build (argument or environment; default 10000;
#           0 measures the namespace as copied, without building anything)
#   ROUNDS  timed rounds per variant (default 15)
#   EMUL_N  the table sizes of the emulation's part, ascending, comma
#           separated (default 10000,50000; 0 leaves the part out)
#   EMUL_ROUNDS  its timed rounds per variant (default 5)
#   MNTKIT_BACKEND=native|mountinfo  the library's backend, as everywhere
#
# The mounts exist only inside "unshare -m --propagation private" and vanish
# with it; the host's mount table is never touched. Needs root (or a user
# namespace, which is tried when not root).
set -eu

build=${1:-build}
N=${2:-${N:-10000}}
ROUNDS=${ROUNDS:-15}
EMUL_N=${EMUL_N:-10000,50000}
EMUL_ROUNDS=${EMUL_ROUNDS:-5}
bin=$build/bench/bench-list
emul_bin=$build/bench/bench-emul

die() {
	echo "bench: $*" >&2
	exit 1
}

case $N in
'' | *[!0-9]*) die "N must be a number, not '$N'" ;;
esac
[ -x "$bin" ] || die "$bin not found: build first (make build, or ninja -C $build)"
command -v unshare >/dev/null 2>&1 || die "unshare(1) not found (util-linux)"

# mount-max bounds the mounts of one namespace: ours is a copy of this one
max=$(cat /proc/sys/fs/mount-max 2>/dev/null || echo 100000)
have=$(wc -l </proc/self/mountinfo)
if [ $((have + N + 2)) -gt "$max" ]; then
	die "$have mounts + 2 tmpfs + $N binds exceed fs.mount-max ($max): lower N or raise /proc/sys/fs/mount-max"
fi

if [ "$(id -u)" = 0 ]; then
	ns="unshare -m --propagation private"
else
	echo "bench: not root, trying a user namespace (unshare -r -m)" >&2
	ns="unshare -r -m --propagation private"
fi

rc=0
dir=$(mktemp -d "${TMPDIR:-/tmp}/mntkit-bench.XXXXXX")
# the directory is only a mount point; inside the namespace it gets the
# tmpfs, outside it stays empty. Remove it whatever happens.
trap 'rmdir "$dir" 2>/dev/null || true' EXIT INT TERM
if [ "$N" = 0 ]; then
	$ns "$bin" -r "$ROUNDS" || rc=$?
else
	$ns "$bin" -r "$ROUNDS" -d "$dir" -n "$N" || rc=$?
fi

# ---- the mountinfo emulation against cat and findmnt ----
case $EMUL_N in
0 | '') exit $rc ;;
*[!0-9,]*) die "EMUL_N must be numbers separated by commas, not '$EMUL_N'" ;;
esac
case $EMUL_ROUNDS in
'' | *[!0-9]*) die "EMUL_ROUNDS must be a number, not '$EMUL_ROUNDS'" ;;
esac
[ -x "$emul_bin" ] || die "$emul_bin not found: build first"
emax=${EMUL_N##*,}
if [ $((have + emax + 3)) -gt "$max" ]; then
	echo "bench: $have mounts + $emax binds exceed fs.mount-max ($max):" \
		"the emulation's part is left out" >&2
	exit $rc
fi
echo
echo "==== the mountinfo emulation (bench/bench-emul.c) ===="
$ns "$emul_bin" -r "$EMUL_ROUNDS" -d "$dir" -n "$EMUL_N" || rc=$?
exit $rc
