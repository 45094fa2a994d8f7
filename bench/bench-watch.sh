#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/bench-watch.sh BUILDDIR [MOUNTS] [BURST] - the CPU time of following
# a burst of mount events: mntwatch (fanotify, poll) against
# `findmnt --poll`, in one run, as ratios.
#
# In a private mount namespace with MOUNTS (10000) bind mounts, each
# watcher in turn follows the same burst of BURST (5000) bind mounts and
# BURST unmounts; its CPU time (utime + stime) is counted from when it is
# ready until it has been idle after the burst. Output goes to /dev/null.
set -u
B=${1:?usage: $0 BUILDDIR [MOUNTS] [BURST]}
B=$(cd "$B" && pwd)
N=${2:-10000}
BURST=${3:-5000}
H=$B/bench/bench-watch

if [ "${IN_NS:-}" != 1 ]; then
	BENCH_HOST_MNTNS=$(readlink /proc/self/ns/mnt)
	export BENCH_HOST_MNTNS
	exec env IN_NS=1 unshare -m --propagation private bash "$0" "$B" "$N" "$BURST"
fi

D=$(mktemp -d /tmp/bench-watch.XXXXXX)
mount -t tmpfs bench "$D" || exit 1
"$H" populate "$D" "$N" || exit 1

# settle PID: wait until its CPU time has not moved for 1 s
settle() {
	local last=-1 now
	for _ in $(seq 60); do
		now=$("$H" cpu "$1")
		[ "$now" = "$last" ] && return
		last=$now
		sleep 1
	done
}

measure() { # name cmd...
	local name=$1 pid c0 c1 secs
	shift
	"$@" >/dev/null 2>&1 &
	pid=$!
	sleep 1
	settle "$pid"
	c0=$("$H" cpu "$pid")
	secs=$("$H" burst "$D" "$BURST")
	settle "$pid"
	c1=$("$H" cpu "$pid")
	kill "$pid"
	wait "$pid" 2>/dev/null
	printf '%-22s %6d ms CPU  (burst took %s s)\n' "$name" $((c1 - c0)) "$secs" >&2
	echo $((c1 - c0))
}

echo "mounts: $(wc -l </proc/self/mountinfo), burst: $BURST binds + $BURST unmounts" >&2
fan=$(measure "mntwatch fanotify" "$B/tools/mntwatch" --source fanotify)
poll=$(measure "mntwatch poll" "$B/tools/mntwatch" --source poll)
fm=$(measure "findmnt --poll" findmnt --poll)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) b = 1; printf "%.1fx", a / b }'; }
echo "findmnt --poll / mntwatch fanotify: $(ratio "$fm" "$fan") less CPU (target >= 20x)"
echo "findmnt --poll / mntwatch poll:     $(ratio "$fm" "$poll") less CPU"
