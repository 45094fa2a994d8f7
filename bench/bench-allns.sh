#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/bench-allns.sh BUILDDIR [NS] [MOUNTS] [BURST] [IDLE] - the cost of
# watching every mount namespace: one `mntwatch --all-namespaces` against
# one `mntwatch --ns pid:PID` per namespace and one `findmnt --poll` per
# namespace (run in it with nsenter), side by side in one run.
#
# In a PID namespace of its own (with its own /proc, so that only the
# bench's namespaces are seen) and a private mount namespace, NS (200)
# holder processes each make a private mount namespace of their own with
# MOUNTS (100) bind mounts. Then, for each watcher set in turn: start it,
# wait until it has started; count its
# CPU time over IDLE (5) seconds of nothing (timed rescans and scans);
# run a burst: in every namespace at once, BURST (10) bind mounts and
# their unmounts (NS * 2 * BURST events in all); wait until its CPU rate
# is back to its idle rate. Printed per set: the CPU time to start (until
# it takes under 20% of a CPU), idle, and for the burst (net of the idle
# rate over the same time),
# the burst's wall time, and the memory of the set (the sum of RSS, and
# of PSS, which counts shared pages once). Output goes to /dev/null.
# MNTKIT_BACKEND applies to the mntkit tools as everywhere. Needs root.
set -u
B=${1:?usage: $0 BUILDDIR [NS] [MOUNTS] [BURST] [IDLE]}
B=$(cd "$B" && pwd)
NS=${2:-200}
MOUNTS=${3:-100}
BURST=${4:-10}
IDLE=${5:-5}
H=$B/bench/bench-watch
TCK=$(getconf CLK_TCK)

if [ "${IN_NS:-}" = 1 ]; then
	D=$(mktemp -d /tmp/bench-allns.XXXXXX)
	trap 'umount -l "$D" 2>/dev/null; rmdir "$D"' EXIT
	mount -t tmpfs bench "$D" || exit 1
	holders=()
	for i in $(seq "$NS"); do
		mkdir "$D/n$i"
		mkfifo "$D/n$i.ready"
		unshare -m --propagation private sh -c \
			'"$1" populate "$2" "$3" && echo >"$2.ready" &&
			 exec sleep 100000' sh "$H" "$D/n$i" "$MOUNTS" &
		holders+=($!)
		read -r _ <"$D/n$i.ready" || exit 1
	done

	# the CPU time (ms) of PIDS, summed
	cpu() {
		local p
		for p in "$@"; do echo "/proc/$p/stat"; done |
			xargs cat 2>/dev/null |
			awk -v tck="$TCK" '{ s += $14 + $15 }
				END { print int(s * 1000 / tck) }'
	}
	# kB: the sum of Rss and of Pss of PIDS
	mem() {
		local p
		for p in "$@"; do echo "/proc/$p/smaps_rollup"; done |
			xargs cat 2>/dev/null |
			awk '$1 == "Rss:" { r += $2 } $1 == "Pss:" { p += $2 }
			     END { print r + 0, p + 0 }'
	}
	now_ms() { date +%s%3N; }
	# wait until PIDS take at most MAX ms of CPU per second (at most
	# 120 s)
	settle() { # max pids...
		local max=$1 last now
		shift
		last=$(cpu "$@")
		for _ in $(seq 120); do
			sleep 1
			now=$(cpu "$@")
			[ $((now - last)) -le "$max" ] && return
			last=$now
		done
	}
	# in a subshell ($(...)): wait waits for the bursts only
	burst() {
		local i=1 p t0 t1
		t0=$(date +%s.%N)
		for p in "${holders[@]}"; do
			nsenter -t "$p" -m "$H" burst "$D/n$i" "$BURST" \
				>/dev/null &
			i=$((i + 1))
		done
		wait
		t1=$(date +%s.%N)
		echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }'
	}

	# one line: NAME START_MS IDLE_MS GROSS_MS NET_MS BURST_S WINDOW_S
	# RSS_KB PSS_KB (IDLE_MS: per IDLE s; GROSS_MS: the CPU from the
	# burst's start until settled, WINDOW_S long; NET_MS: that less the
	# idle rate over the window)
	measure() { # name
		local name=$1 c0 c1 c2 t1 t2 idle net secs m p
		pids=()
		case $name in
		allns)
			"$B/tools/mntwatch" --all-namespaces >/dev/null 2>&1 &
			pids+=($!) ;;
		mntwatch)
			for p in "${holders[@]}"; do
				"$B/tools/mntwatch" --ns "pid:$p" \
					>/dev/null 2>&1 &
				pids+=($!)
			done ;;
		findmnt)
			for p in "${holders[@]}"; do
				nsenter -t "$p" -m findmnt --poll \
					>/dev/null 2>&1 &
				pids+=($!)
			done ;;
		esac
		sleep 2
		settle 200 "${pids[@]}" # started: what follows is idle
		c0=$(cpu "${pids[@]}")
		sleep "$IDLE"
		c1=$(cpu "${pids[@]}")
		t1=$(now_ms)
		idle=$((c1 - c0))
		secs=$(burst)
		sleep 1
		settle $((idle / IDLE + 20)) "${pids[@]}"
		c2=$(cpu "${pids[@]}")
		t2=$(now_ms)
		net=$((c2 - c1 - idle * (t2 - t1) / (IDLE * 1000)))
		m=$(mem "${pids[@]}")
		kill "${pids[@]}" 2>/dev/null
		wait "${pids[@]}" 2>/dev/null
		echo "$name $c0 $idle $((c2 - c1)) $net $secs" \
			"$(((t2 - t1) / 1000)) $m"
	}

	measure allns
	measure mntwatch
	if command -v findmnt >/dev/null; then
		measure findmnt
	fi
	kill "${holders[@]}" 2>/dev/null
	wait 2>/dev/null
	exit 0
fi

BENCH_HOST_MNTNS=$(readlink /proc/self/ns/mnt)
export BENCH_HOST_MNTNS
out=$(mktemp /tmp/bench-allns-out.XXXXXX)
trap 'rm -f "$out"' EXIT
env IN_NS=1 unshare -m -p -f --mount-proc --propagation private \
	bash "$0" "$B" "$NS" "$MOUNTS" "$BURST" "$IDLE" >"$out" || exit 1

events=$((NS * 2 * BURST))
echo "$NS namespaces x $MOUNTS mounts; burst: $BURST binds + $BURST" \
	"unmounts in each ($events events); idle: $IDLE s"
awk -v ev="$events" -v idle="$IDLE" '
	BEGIN { name["allns"] = "mntwatch --all-namespaces (1 process)"
		name["mntwatch"] = "mntwatch --ns, 1 per namespace"
		name["findmnt"] = "findmnt --poll, 1 per namespace" }
	{ printf "%s\n  start %d ms CPU; idle %.1f ms CPU/s; burst %d ms CPU" \
		 " in %d s (%d net of idle: %.1f us/event), %.2f s wall;" \
		 " RSS %d kB, PSS %d kB\n",
		 name[$1], $2, $3 / idle, $4, $7, $5, $5 * 1000 / ev, $6,
		 $8, $9 }' "$out"
awk -v idle="$IDLE" '
	{ g[$1] = $4; n[$1] = $5; p[$1] = $9; s[$1] = $2; i[$1] = $3 }
	END {
		for (w in g) {
			if (w == "allns")
				continue
			printf "%s / all-namespaces: start CPU %.1fx, idle CPU" \
			       " %.1fx, burst CPU %.1fx (net %.1fx), PSS %.1fx\n",
			       w, s[w] / (s["allns"] > 0 ? s["allns"] : 1),
			       i[w] / (i["allns"] > 0 ? i["allns"] : 1),
			       g[w] / (g["allns"] > 0 ? g["allns"] : 1),
			       n[w] / (n["allns"] > 0 ? n["allns"] : 1),
			       p[w] / (p["allns"] > 0 ? p["allns"] : 1)
		}
	}' "$out"
