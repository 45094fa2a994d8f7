#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/bench-watch.sh BUILDDIR [SIZES] [BURST] - the CPU time of following
# a burst of mount events: mntwatch (fanotify, poll) and lsmnt -p against
# `findmnt --poll`, in one run, as ratios; and the CPU time per event at
# each table size (flat is the target: an event costs the same whatever
# the table holds).
#
# For each size N of SIZES (comma separated, default 1000,10000,50000), in
# a private mount namespace of its own with N bind mounts, each watcher in
# turn follows the same burst of BURST (5000) bind mounts and BURST
# unmounts; its CPU time (utime + stime) is counted from when it is ready
# until it has been idle after the burst. The burst is also run with no
# watcher at all: the burst's own wall time, with each watcher, shows what
# the watcher costs mount(2) (listmount and statmount take the namespace
# lock mount(2) needs). findmnt runs at FINDMNT_MAX (10000) mounts or
# fewer only (its cost per event grows with the table). Output goes to
# /dev/null. MNTKIT_BACKEND applies to the mntkit tools as everywhere.
set -u
B=${1:?usage: $0 BUILDDIR [SIZES] [BURST]}
B=$(cd "$B" && pwd)
SIZES=${2:-1000,10000,50000}
BURST=${3:-5000}
FINDMNT_MAX=${FINDMNT_MAX:-10000}
H=$B/bench/bench-watch

if [ "${IN_NS:-}" = 1 ]; then
	N=$SIZES
	D=$(mktemp -d /tmp/bench-watch.XXXXXX)
	# the directory is the host's: leave none behind
	trap 'umount -l "$D" 2>/dev/null; rmdir "$D"' EXIT
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

	# one line: N NAME CPU_MS BURST_S (NAME "none": no watcher)
	measure() { # name cmd...
		local name=$1 pid c0 c1 secs
		shift
		if [ "$name" = none ]; then
			secs=$("$H" burst "$D" "$BURST")
			echo "$N none 0 $secs"
			return
		fi
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
		echo "$N $name $((c1 - c0)) $secs"
	}

	measure none
	measure fanotify "$B/tools/mntwatch" --source fanotify
	measure poll "$B/tools/mntwatch" --source poll
	measure lsmnt-p "$B/tools/lsmnt" -p
	if [ "$N" -le "$FINDMNT_MAX" ]; then
		measure findmnt findmnt --poll
	fi
	exit 0
fi

BENCH_HOST_MNTNS=$(readlink /proc/self/ns/mnt)
export BENCH_HOST_MNTNS
out=$(mktemp /tmp/bench-watch-out.XXXXXX)
trap 'rm -f "$out"' EXIT
for n in ${SIZES//,/ }; do
	env IN_NS=1 unshare -m --propagation private bash "$0" "$B" "$n" \
		"$BURST" >>"$out" || exit 1
done

events=$((2 * BURST))
echo "burst: $BURST binds + $BURST unmounts ($events events);" \
	"CPU of the watcher, per event, and the burst's wall time"
awk -v ev="$events" '
	{ printf "%7d mounts  %-9s %7d ms CPU %8.1f us/event  burst %6.2f s\n",
		$1, $2, $3, $3 * 1000 / ev, $4 }' "$out"
awk -v target=20 '
	{ cpu[$1 " " $2] = $3; sizes[$1] = 1 }
	END {
		for (n in sizes) {
			f = cpu[n " findmnt"]
			if (f == "")
				continue
			split("fanotify poll lsmnt-p", w, " ")
			for (i = 1; i <= 3; i++) {
				c = cpu[n " " w[i]]
				if (c == "")
					continue
				printf "%d mounts: findmnt --poll / %-9s %6.1fx less CPU%s\n",
					n, w[i], f / (c > 0 ? c : 1),
					n == 10000 ? " (target >= " target "x)" : ""
			}
		}
	}' "$out"
# flat is the target: each watcher's CPU per event at the largest size
# against the smallest
awk -v ev="$events" '
	{ cpu[$1 " " $2] = $3; if (!lo || $1 < lo) lo = $1; if ($1 > hi) hi = $1 }
	END {
		if (lo == hi)
			exit
		split("fanotify poll lsmnt-p", w, " ")
		for (i = 1; i <= 3; i++) {
			a = cpu[lo " " w[i]]; b = cpu[hi " " w[i]]
			if (a == "" || b == "")
				continue
			printf "%-9s CPU per event at %d mounts / at %d: %.2fx (flat: 1x)\n",
				w[i], hi, lo, b / (a > 0 ? a : 1)
		}
	}' "$out"
