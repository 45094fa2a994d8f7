#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/python.sh BUILDDIR [SIZES] - the Python module's mntkit.mounts()
# against lsmnt -J and against parsing /proc/self/mountinfo in pure
# Python, side by side in one run (bench/python.py), in a private mount
# namespace that holds a tmpfs and N bind mounts of a second one
# (bench-lsmnt grow: bench/lsmnt.sh's table). Variants taken in turn,
# ROUNDS rounds each, medians; prints results only, asserts nothing.
#
#   SIZES   comma list of N (argument or environment; default 10000)
#   ROUNDS  timed rounds per variant (default 15)
#   PYTHON  the Python the module was built for (default /usr/bin/python3,
#           Debian's: the one meson runs on)
#
# Needs root (unshare -m, mount) and a build with the module
# (-Dpython=enabled or auto with python3-dev).
set -eu

build=${1:-build}
SIZES=${2:-${SIZES:-10000}}
ROUNDS=${ROUNDS:-15}
PYTHON=${PYTHON:-/usr/bin/python3}
helper=$build/bench/bench-lsmnt
lsmnt=$build/tools/lsmnt

die() {
	echo "bench/python.sh: $*" >&2
	exit 1
}

if [ ! -x "$helper" ] || [ ! -x "$lsmnt" ]; then
	die "$helper or $lsmnt missing: build first (make build)"
fi
ls "$build"/python/mntkit*.so >/dev/null 2>&1 ||
	die "no Python module in $build/python (needs python3-dev)"
[ "$(id -u)" = 0 ] || die "needs root (mounts in a private namespace)"
command -v unshare >/dev/null 2>&1 || die "unshare(1) not found"

dir=$(mktemp -d "${TMPDIR:-/tmp}/mntkit-python-bench.XXXXXX")
trap 'rmdir "$dir" 2>/dev/null || true' EXIT INT TERM
build=$(cd "$build" && pwd)
LSMNT="$build/tools/lsmnt" HELPER="$build/bench/bench-lsmnt"
PYTHONPATH="$build/python" PYTHONDONTWRITEBYTECODE=1
export LSMNT HELPER ROUNDS PYTHON PYTHONPATH PYTHONDONTWRITEBYTECODE
unshare -m --propagation private "$helper" grow "$dir" "$SIZES" -- \
	"$PYTHON" "$(dirname "$0")/python.py"
