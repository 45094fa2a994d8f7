#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/bench-watch.sh BUILDDIR [SIZES] [BURST] - the CPU time of following
# bursts of mount events: mntwatch (fanotify, poll) and lsmnt -p against
# `findmnt --poll`, in one run, as ratios; and what an event costs at each
# table size (flat is the target: an event costs the same whatever the
# table holds).
#
# For each size N of SIZES (comma separated, default 1000,10000,50000), in
# a private mount namespace of its own with N bind mounts, each watcher in
# turn follows the same burst of BURST (5000) bind mounts and, once it has
# been idle, their BURST unmounts (mounts that live on, as a container's
# do: every watcher can see them all), then (the mntkit watchers) a burst
# three times as long; its CPU time (the run time of its threads) is
# counted from when it is ready until it has been idle after each burst,
# less what it spends idle (its rescans of a quiet table, measured for 3 s
# before, and printed).
# From the two bursts: the
# marginal CPU per event (what one more event costs: the slope) and the
# fixed CPU per burst (what a burst costs whatever its length: the diff
# that checks the table once the burst is over), next to the CPU time of
# one read of /proc/self/mountinfo at that size (what any look at the
# whole table costs at least). The burst is also run with no watcher at
# all: the burst's own wall time, with each watcher, shows what the
# watcher costs mount(2) (listmount and statmount take the namespace lock
# mount(2) needs). Each watcher's output goes to a file in the namespace's
# tmpfs; its lines are the events it reported. findmnt runs
# the first burst only, at FINDMNT_MAX (10000) mounts or fewer (its cost
# per event grows with the table). MNTKIT_BACKEND applies to the mntkit
# tools as everywhere.
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
	MI_US=$("$H" mountinfo 20) || exit 1

	# a watcher's idle CPU (its rescans of a quiet table), us per s
	IDLE=0
	now_us() { date +%s%6N; }

	# settle PID: wait until its CPU time has moved no more than its
	# idle rate (+2 ms) in a second
	settle() {
		local last now
		last=$("$H" cpu "$1")
		for _ in $(seq 60); do
			sleep 1
			now=$("$H" cpu "$1")
			[ $((now - last)) -le $((IDLE + 2000)) ] && return
			last=$now
		done
	}

	# idle_rate PID: measure IDLE over 3 s
	idle_rate() {
		local c0 c1 w0 w1
		w0=$(now_us)
		c0=$("$H" cpu "$1")
		sleep 3
		c1=$("$H" cpu "$1")
		w1=$(now_us)
		IDLE=$(((c1 - c0) * 1000000 / (w1 - w0)))
	}

	# cpu_since PID C0 W0: PID's CPU (us) since C0 at W0, less IDLE
	cpu_since() {
		local c w d
		c=$("$H" cpu "$1")
		w=$(now_us)
		d=$((c - $2 - IDLE * (w - $3) / 1000000))
		echo $((d < 0 ? 0 : d))
	}

	# one line: N NAME CPU1_US EVENTS1 SECS1 CPU2_US EVENTS2 SECS2 MI_US
	# IDLE (NAME "none": no watcher; CPU2... "-" where there is no 2nd
	# burst); the CPU times are above the watcher's idle rate
	# burst N [PID]: N binds, then (PID idle) their unmounts; seconds
	burst() {
		local a b
		a=$("$H" burst "$D" "$1" mount) || exit 1
		[ -n "${2:-}" ] && settle "$2"
		b=$("$H" burst "$D" "$1" umount) || exit 1
		[ -n "${2:-}" ] && settle "$2"
		awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f\n", a + b }'
	}

	measure() { # name cmd...
		local name=$1 pid c0 w0 d1 e1 e2=- s1 s2=- d2=- out
		shift
		if [ "$name" = none ]; then
			s1=$(burst "$BURST")
			echo "$N none 0 0 $s1 - - - $MI_US 0"
			return
		fi
		out=$D/$name.out
		"$@" >"$out" 2>/dev/null &
		pid=$!
		sleep 1
		IDLE=0
		settle "$pid"
		idle_rate "$pid"
		c0=$("$H" cpu "$pid")
		w0=$(now_us)
		s1=$(burst "$BURST" "$pid")
		d1=$(cpu_since "$pid" "$c0" "$w0")
		e1=$(wc -l <"$out")
		if [ "$name" != findmnt ]; then
			c0=$("$H" cpu "$pid")
			w0=$(now_us)
			s2=$(burst $((3 * BURST)) "$pid")
			d2=$(cpu_since "$pid" "$c0" "$w0")
			e2=$(($(wc -l <"$out") - e1))
		fi
		kill "$pid"
		wait "$pid" 2>/dev/null
		rm -f "$out"
		echo "$N $name $d1 $e1 $s1 $d2 $e2 $s2 $MI_US $IDLE"
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
echo "burst: $BURST binds, then their $BURST unmounts ($events events)," \
	"then one three times as long;"
echo "CPU of the watcher in the first burst, per event, the events it" \
	"reported, the burst's wall time;"
echo "from both bursts: marginal CPU per event and fixed CPU per burst" \
	"(against one read of mountinfo)"
awk -v ev="$events" '
	{
		printf "%7d mounts  %-9s %7.0f ms CPU %7.1f us/event %6d reported  burst %5.2f s",
			$1, $2, $3 / 1000, $3 / ev, $4, $5
		if ($6 != "-") {
			slope = ($6 - $3) / (2 * ev)
			printf "  | %5.1f us/event + %6.1f ms/burst (mountinfo read %5.1f ms)",
				slope, ($3 - slope * ev) / 1000, $9 / 1000
		}
		if ($2 != "none")
			printf "  idle %.1f ms/s", $10 / 1000
		printf "\n"
	}' "$out"
awk -v ev="$events" -v target=20 '
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
# against the smallest, on average over the first burst and at the margin
awk -v ev="$events" '
	$2 != "none" {
		cpu[$1 " " $2] = $3
		if ($6 != "-")
			slope[$1 " " $2] = ($6 - $3) / (2 * ev)
		if (!lo || $1 < lo) lo = $1
		if ($1 > hi) hi = $1
	}
	END {
		if (lo == hi)
			exit
		split("fanotify poll lsmnt-p", w, " ")
		for (i = 1; i <= 3; i++) {
			a = cpu[lo " " w[i]]; b = cpu[hi " " w[i]]
			if (a == "" || b == "")
				continue
			printf "%-9s CPU per event at %d mounts / at %d: %.2fx average, ",
				w[i], hi, lo, b / (a > 0 ? a : 1)
			a = slope[lo " " w[i]]; b = slope[hi " " w[i]]
			printf "%.2fx marginal (flat: 1x)\n", b / (a > 0 ? a : 1)
		}
	}' "$out"
