#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bash tests/fresh/run.sh WORKDIR [MODE...] - the README's two commands on a
# fresh Debian 12, as a new user runs them.
#
# Builds a minimal Debian 12 root with debootstrap (--variant=minbase, plus
# git, make and ca-certificates) in WORKDIR/base, once (kept: a later run
# starts from it), and for each MODE (default: pivot chroot chroot-dir) copies it to
# WORKDIR/MODE, puts this tree's last commit (git archive HEAD) in /src
# there and runs, in /src, `make run` and then `make check`:
#
#   pivot   in a new mount namespace whose root is the copy (unshare -m,
#           pivot_root), as a container starts
#   chroot  chroot(8) into the copy, a bind mount of itself (as sbuild's
#           and schroot's build chroots are), in a private mount namespace
#           that holds its /proc, /sys and /dev (the host's mounts are
#           not touched)
#   chroot-dir  chroot(8) into the copy as an ordinary directory, not a
#           mount point (as `chroot DIR` on a plain directory is): the
#           mount that holds its / has its mount point outside the root,
#           so the chroot's /proc/self/mountinfo does not show it; in a
#           private mount namespace with the copy's /proc, /sys and /dev
#           mounted under it
#
# and, with CHECK_ALL=1 in the environment, `make check-all` after them;
# and checks what each prints: `make run` exits 0 with lsmnt's table
# (its TARGET header), `make check` (and `make check-all`) ends with "N
# passed, 0 failed, N skipped". The reasons of the skipped cases are
# listed with their counts, so that a skip for want of a package shows.
# Each mode's output is in WORKDIR/MODE.log, the summary (time and disk
# of each step) on stdout. Exit status 0 when every check held.
#
# Needs root, debootstrap and the network to Debian's archive (the mirror
# of /etc/apt/sources.list.d/debian.sources, else deb.debian.org). The
# root gets this machine's /etc/resolv.conf and the apt settings of its
# access to the archive (the files of /etc/apt/apt.conf.d that set
# Acquire:: options, e.g. a proxy, or a mirror whose Release files are
# kept past their Valid-Until): the network's, not the project's. Takes
# about as long as two `make check` runs plus the downloads (with
# CHECK_ALL=1, add a `make check-all` run and its 250 MB of kernels,
# cross compiler and apt lists). Not
# part of `make check-all` (its cost); README says what it measured.
set -u

if [ $# -lt 1 ] || [ "$(id -u)" != 0 ]; then
	echo "usage: sudo bash tests/fresh/run.sh WORKDIR [pivot] [chroot] [chroot-dir]" >&2
	exit 2
fi
W=$(mkdir -p "$1" && cd "$1" && pwd) || exit 2
shift
MODES=${*:-pivot chroot chroot-dir}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
failed=0

say() {
	printf 'fresh: %s\n' "$*"
}

# seconds since the epoch
now() {
	date +%s
}

# MB used below a directory (one file system)
disk() {
	du -sxm "$1" | cut -f1
}

mirror() {
	local m
	m=$(sed -n 's/^URIs: *\(http[^ ]*debian\)\/* *$/\1/p' \
		/etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
	echo "${m:-http://deb.debian.org/debian}"
}

make_base() {
	local t0
	if [ -x "$W/base/usr/bin/make" ] && [ -x "$W/base/usr/bin/git" ]; then
		say "base: $W/base (kept from an earlier run, $(disk "$W/base") MB)"
		return 0
	fi
	command -v debootstrap >/dev/null 2>&1 || {
		say "no debootstrap (apt-get install debootstrap)"
		return 1
	}
	rm -rf "$W/base"
	t0=$(now)
	say "base: debootstrap --variant=minbase bookworm from $(mirror)"
	if ! debootstrap --variant=minbase --include=git,make,ca-certificates \
		bookworm "$W/base" "$(mirror)" >"$W/debootstrap.log" 2>&1; then
		say "debootstrap failed: see $W/debootstrap.log"
		tail -n 5 "$W/debootstrap.log"
		return 1
	fi
	say "base: $(($(now) - t0)) s, $(disk "$W/base") MB"
}

# the copy of the base for MODE, with the tree in /src
make_root() {
	local r="$W/$1"
	rm -rf "$r"
	cp -a "$W/base" "$r" || return 1
	cp /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null
	for f in /etc/apt/apt.conf.d/*; do
		[ -f "$f" ] && [ ! -e "$r$f" ] &&
			grep -Eq '^[[:space:]]*Acquire::' "$f" &&
			cp "$f" "$r$f"
	done
	mkdir -p "$r/src" &&
		git -C "$SRC" archive HEAD | tar -x -C "$r/src"
}

# the two commands, in /src of the root the caller entered; their ends
# are marked for check_log
# shellcheck disable=SC2016 # expanded by the shell in the root
INNER='cd /src || exit 1
t0=$(date +%s)
make run; echo "fresh-mark: make run exit $? in $(($(date +%s) - t0)) s"
t0=$(date +%s)
make check; echo "fresh-mark: make check exit $? in $(($(date +%s) - t0)) s"
[ "${CHECK_ALL:-0}" = 1 ] || exit 0
t0=$(date +%s)
make check-all; echo "fresh-mark: make check-all exit $? in $(($(date +%s) - t0)) s"'

# shellcheck disable=SC2016,SC2317 # called as run_$mode; inner shell's $1
run_pivot() {
	unshare -m --propagation private sh -c '
		r=$1
		mount --bind "$r" "$r" && cd "$r" &&
		mount -t proc proc proc && mount --rbind /sys sys &&
		mount --rbind /dev dev && mkdir -p .old &&
		pivot_root . .old && umount -l /.old && rmdir /.old || exit 125
		export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
		exec sh -c "$2"' sh "$W/pivot" "$INNER"
}

# shellcheck disable=SC2016,SC2317 # called as run_$mode; inner shell's $1
run_chroot_dir() {
	unshare -m --propagation private sh -c '
		r=$1
		mount -t proc proc "$r/proc" &&
		mount --rbind /sys "$r/sys" && mount --rbind /dev "$r/dev" ||
			exit 125
		exec env PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			chroot "$r" sh -c "$2"' sh "$W/chroot-dir" "$INNER"
}

# shellcheck disable=SC2016,SC2317 # called as run_$mode; inner shell's $1
run_chroot() {
	unshare -m --propagation private sh -c '
		r=$1
		mount --bind "$r" "$r" && mount -t proc proc "$r/proc" &&
		mount --rbind /sys "$r/sys" && mount --rbind /dev "$r/dev" ||
			exit 125
		exec env PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			chroot "$r" sh -c "$2"' sh "$W/chroot" "$INNER"
}

# the line before the mark "fresh-mark: make TARGET exit" in a log
last_before() {
	sed -n "/^fresh-mark: make $2 exit/{x;p;q};h" "$1"
}

# check a mode's log: make run's table and exit, the last line of make
# check (and of make check-all), and list the reasons of the skips
check_log() {
	local mode=$1 log=$W/$1.log last target ok=0
	if ! grep -q '^fresh-mark: make run exit 0 ' "$log" ||
		! grep -q '^TARGET  *SOURCE  *FSTYPE  *OPTIONS' "$log"; then
		say "$mode: FAIL make run: $(grep '^fresh-mark: make run' "$log")"
		return 1
	fi
	for target in check ${CHECK_ALL_TARGET:-}; do
		last=$(last_before "$log" "$target")
		if ! printf '%s\n' "$last" |
			grep -Eq '^[0-9]+ passed, 0 failed, [0-9]+ skipped$'; then
			say "$mode: FAIL make $target: its last line: $last"
			ok=1
			continue
		fi
		say "$mode: PASS make $target: $last"
	done
	say "$mode: the skips' reasons (count, program: reason):"
	sed -n 's/^\([^ :|]*\): SKIP [^:]*: /\1: /p' "$log" | sort | uniq -c |
		sort -rn | sed 's/^/fresh:   /'
	return "$ok"
}

CHECK_ALL_TARGET=
[ "${CHECK_ALL:-0}" = 1 ] && CHECK_ALL_TARGET=check-all
make_base || exit 1
for mode in $MODES; do
	case $mode in
	pivot | chroot | chroot-dir) ;;
	*)
		say "no mode $mode (pivot, chroot, chroot-dir)"
		exit 2
		;;
	esac
	make_root "$mode" || {
		say "$mode: could not make the root"
		failed=1
		continue
	}
	say "$mode: make run, make check in $W/$mode (output: $W/$mode.log)"
	t0=$(now)
	"run_${mode//-/_}" >"$W/$mode.log" 2>&1
	grep '^fresh-mark:' "$W/$mode.log" | sed "s/^fresh-mark:/fresh: $mode:/"
	say "$mode: $(($(now) - t0)) s in all; the root is $(disk "$W/$mode") MB, its build tree $(disk "$W/$mode/src/build") MB"
	check_log "$mode" || failed=1
done
exit "$failed"
