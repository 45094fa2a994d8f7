#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/lsmnt-df.sh ABS_BUILDDIR - lsmnt's statvfs columns (SIZE, AVAIL,
# USED, USE%), -D/--df, -b/--bytes, and the findmnt options -f, -i, -U, -d,
# -k, -c, -e, -A; and the findmnt options lsmnt refuses.
#
# The reference is the real findmnt(8): both run with the same arguments
# and must print the same bytes with the same exit status. The namespace
# cases mount tmpfs filesystems of many sizes (and files that fill some of
# them), stacked, hidden and bound mounts, in a private mount namespace.
# The cases that need root say SKIP without it.
#
# statvfs numbers of the host's filesystems can change between the two
# runs (a busy disk), and change back: a comparison with a df column that
# differs is run again, a few times, each rerun said on stderr
# (findmntcmp.same, lib.sh); without one, only a changed mount table does.

# cli_main (lib.sh) calls the cases through $plain_cases and $ns_cases:
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cli_init "$1"
use_findmnt

LSMNT=$BUILDDIR/tools/lsmnt
CLI_PROG=lsmnt
export LSMNT

# ---- cases that need no mounts (the host's table, read only) ----

c_help() {
	expect_help help_df "$LSMNT" '^usage: lsmnt ' --df --bytes \
		--first-only --invert --uniq --direction --kernel \
		--canonicalize --evaluate
}

c_refused() {
	# -s, -F, -m and -x are provided (tests/cli/lsmnt-tab.sh)
	# -p and -w are provided (tests/cli/lsmnt-poll.sh): only bad values fail
	expect_error poll_bad_action "bogus" - "$LSMNT" --poll=bogus
	expect_error timeout_bad "invalid timeout" - "$LSMNT" -p -w 1.5
	expect_error bad_direction "sideways" - "$LSMNT" -d sideways
	expect_error direction_needs_arg "-d" - "$LSMNT" -d
	expect_error kernel_and_task "--task" - "$LSMNT" -k -N $$
	# findmnt refuses -k -N too (its exit status is ours)
	if have_cmd findmnt; then
		findmnt -k -N $$ >/dev/null 2>&1
		if [ $? = 1 ]; then
			pass kernel_and_task_findmnt
		else
			fail kernel_and_task_findmnt "findmnt -k -N accepted"
		fi
	fi
	# nothing is printed, nothing is half done: the refusal comes first
	run "$LSMNT" -J -D --verify
	if [ "$RC" != 1 ] || [ -s "$OUT" ]; then
		fail refuse_before_output "exit $RC, out $(head -c 100 "$OUT")"
	else
		pass refuse_before_output
	fi
}

c_host_df() {
	py_case host_df
}

c_host_options() {
	py_case host_options
}

# statvfs(2) is only called when a column needs it (speed on big tables)
c_statvfs_only_when_asked() {
	if ! have_cmd strace; then
		skip statvfs_only_when_asked "no strace"
		return
	fi
	local n0 n1 rows rc0 rc1
	# LeakSanitizer cannot run under ptrace: no leak check here
	local asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	ASAN_OPTIONS=$asan strace -f -qq -e trace=statfs -o "$CLI_TMP/st0" \
		"$LSMNT" -l >/dev/null 2>&1
	rc0=$?
	ASAN_OPTIONS=$asan strace -f -qq -e trace=statfs -o "$CLI_TMP/st1" \
		"$LSMNT" -l -o TARGET,SIZE,USE% >/dev/null 2>&1
	rc1=$?
	if [ "$rc0" != 0 ] || [ "$rc1" != 0 ]; then
		if ! strace -qq -o /dev/null true 2>/dev/null; then
			skip statvfs_only_when_asked "strace cannot trace here"
		else
			fail statvfs_only_when_asked "lsmnt under strace: exit $rc0/$rc1"
		fi
		return
	fi
	n0=$(grep -c 'statfs(' "$CLI_TMP/st0")
	n1=$(grep -c 'statfs(' "$CLI_TMP/st1")
	rows=$("$LSMNT" -l -n -o ID | wc -l)
	if [ "$n0" != 0 ]; then
		fail statvfs_only_when_asked "$n0 statfs calls without a statvfs column"
	elif [ "$n1" -lt "$rows" ] || [ "$n1" -gt $((rows + 5)) ]; then
		fail statvfs_only_when_asked "$n1 statfs calls for $rows rows"
	else
		pass statvfs_only_when_asked
	fi
}

c_list_columns_df() {
	py_case list_columns_df
}

plain_cases="c_help c_refused c_host_df c_host_options
	c_statvfs_only_when_asked c_list_columns_df"

# ---- cases in a private mount namespace ----

SIZES="1k 4k 8k 12k 100k 1000k 1020k 1023k 1m 1025k 1100k 1500k 1530k 1535k
	1536k 1537k 1540k 2047k 10m 99m 100m 1000m 1023m 1024m 1500m 3g 10g
	100g 1023g 1t 5t 1000t 2000t 1p 3000p 9000p"

setup_df() {
	local i=0 s
	T=$CLI_TMP/t
	export T
	mkdir -p "$T" && mount -t tmpfs -o size=1500k df-top "$T" || return 1
	mkdir "$T/sz" "$T/rnd" "$T/a" "$T/b" "$T/c" "$T/e" "$T/link-to" \
		"$T/ro" || return 1
	mount -t tmpfs -o size=8m df-sz "$T/sz" || return 1
	for s in $SIZES; do
		i=$((i + 1))
		mkdir "$T/sz/$s" && mount -t tmpfs -o "size=$s" "df-$s" "$T/sz/$s" ||
			return 1
	done
	# a stacked pair on c, the lower one with a submount that is hidden
	# now (statvfs cannot reach it), a bind of a on b, filled files
	mount -t tmpfs -o size=3m df-x "$T/a" && mkdir "$T/a/s" &&
		mount -t tmpfs df-s "$T/a/s" && mount --bind "$T/a" "$T/b" &&
		mount -t tmpfs -o size=2m df-y "$T/c" && mkdir "$T/c/k" &&
		mount -t tmpfs df-k "$T/c/k" &&
		mount -t tmpfs -o size=5m df-z "$T/c" && mkdir "$T/c/q" &&
		mount -t tmpfs -o size=700k df-q "$T/c/q" &&
		mount -t tmpfs -o size=1m,ro df-ro "$T/ro" || return 1
	dd if=/dev/zero of="$T/a/f" bs=1k count=700 2>/dev/null &&
		dd if=/dev/zero of="$T/sz/1100k/f" bs=1k count=333 2>/dev/null &&
		dd if=/dev/zero of="$T/sz/1000k/f" bs=1k count=1000 2>/dev/null &&
		dd if=/dev/zero of="$T/c/q/f" bs=1k count=350 2>/dev/null ||
		return 1
	# -c: a source that is a symbolic link; -e: a tag source
	ln -s "$T/link-to" "$T/link" &&
		mount -t tmpfs "$T/link" "$T/e" || return 1
	mkdir "$T/tag" && mount_source LABEL=lsmnt-df-none "$T/tag" || return 1
}

c_ns_df() {
	py_case ns_df
}

c_ns_columns() {
	py_case ns_usage_columns
}

# every page-multiple size, in every unit: a sweep of random sizes
c_ns_size_sweep() {
	local i e n s
	RANDOM=4242
	for i in $(seq 240); do
		e=$((RANDOM % 5))
		n=$(((RANDOM * 32768 + RANDOM) % (1 << 30)))
		case $e in
		0) s=$((n % 4096 + 1))k ;;
		1) s=$((n % 2000000 + 1))k ;;
		2) s=$((n % 3000000 + 1))m ;;
		3) s=$((n % 9000000 + 1))g ;;
		*) s=$((1023 * 1024 + n % 2048))k ;;
		esac
		mkdir -p "$T/rnd/$i" &&
			mount -t tmpfs -o "size=$s" "rnd-$s" "$T/rnd/$i" || {
			fail ns_size_sweep "cannot mount a tmpfs of size $s"
			return
		}
		# some used blocks too, for USED and USE%
		[ $((i % 7)) = 0 ] && head -c $((n % 300000)) /dev/zero \
			>"$T/rnd/$i/f" 2>/dev/null
	done
	py_case ns_size_sweep
}

c_ns_first() {
	py_case ns_first_only
}

c_ns_invert() {
	py_case ns_invert
}

c_ns_uniq() {
	py_case ns_uniq
}

c_ns_direction() {
	py_case ns_direction
}

c_ns_kernel() {
	py_case ns_kernel
}

c_ns_canonicalize() {
	py_case ns_canonicalize
}

ns_cases="c_ns_df c_ns_columns c_ns_size_sweep c_ns_first c_ns_invert
	c_ns_uniq c_ns_direction c_ns_kernel c_ns_canonicalize"

# ---- main ----

cli_main setup_df "could not build the test mounts" "${2:-}"
