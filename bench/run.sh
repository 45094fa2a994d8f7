#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/run.sh BUILDDIR [N] - list + statmount N+ mounts several ways, side by
# side in one run (bench/bench-list.c), in a private mount namespace that
# holds a tmpfs and N bind mounts of it. Prints a table and ratios; asserts
# nothing.
#
#   N       bind mounts to build (argument or environment; default 10000;
#           0 measures the namespace as copied, without building anything)
#   ROUNDS  timed rounds per variant (default 15)
#   MNTKIT_BACKEND=native|mountinfo  the library's backend, as everywhere
#
# The mounts exist only inside "unshare -m --propagation private" and vanish
# with it; the host's mount table is never touched. Needs root (or a user
# namespace, which is tried when not root).
set -eu

build=${1:-build}
N=${2:-${N:-10000}}
ROUNDS=${ROUNDS:-15}
bin=$build/bench/bench-list

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
if [ $((have + N + 1)) -gt "$max" ]; then
	die "$have mounts + tmpfs + $N binds exceed fs.mount-max ($max): lower N or raise /proc/sys/fs/mount-max"
fi

if [ "$(id -u)" = 0 ]; then
	ns="unshare -m --propagation private"
else
	echo "bench: not root, trying a user namespace (unshare -r -m)" >&2
	ns="unshare -r -m --propagation private"
fi

if [ "$N" = 0 ]; then
	exec $ns "$bin" -r "$ROUNDS"
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/mntkit-bench.XXXXXX")
# the directory is only a mount point; inside the namespace it gets the
# tmpfs, outside it stays empty. Remove it whatever happens.
trap 'rmdir "$dir" 2>/dev/null || true' EXIT INT TERM
rc=0
$ns "$bin" -r "$ROUNDS" -d "$dir" -n "$N" || rc=$?
exit $rc
