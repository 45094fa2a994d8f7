#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/lsmnt-cols.sh ABS_BUILDDIR - the findmnt columns lsmnt reads
# from elsewhere than statmount(2): LABEL, UUID, PARTUUID, PARTLABEL and
# SOURCES (libblkid, udev's database), TID (the process), FREQ and PASSNO
# (fstab only: empty), and their place in -H and --output-all.
#
# The reference is the real findmnt(8): both run with the same arguments
# and must print the same bytes with the same exit status. TID is the
# process that reads the table, so the comparisons pass -N with one PID
# to both; TID without -N is checked against each one's own PID. The
# namespace cases loop-mount labeled ext4 images (one twice, for a UUID
# two devices share), a GPT-partitioned image (with sfdisk), a two-device
# btrfs (with mkfs.btrfs), tmpfs mounts with tag sources, in a private
# mount namespace; the loop devices are detached at the end. libblkid's
# cache is a private file (BLKID_FILE): the host's is never written.

# cli_main (lib.sh) calls the cases through $plain_cases and $ns_cases:
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cli_init "$1"
use_findmnt

LSMNT=$BUILDDIR/tools/lsmnt
CLI_PROG=lsmnt
BLKID_FILE=$CLI_TMP/blkid.tab
export LSMNT BLKID_FILE

# ---- cases that need no mounts (the host's table, read only) ----

c_host_cols() {
	py_case host_cols
}

c_host_tid() {
	py_case host_tid
}

c_all_ns_tid() {
	py_case all_ns_tid
}

c_columns_listed() {
	py_case columns_listed
}

# libblkid is only asked when one of its columns is shown
c_blkid_only_when_asked() {
	if ! have_cmd strace; then
		skip blkid_only_when_asked "no strace"
		return
	fi
	local asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" n0 n1
	ASAN_OPTIONS=$asan strace -f -qq -e trace=open,openat,readlink \
		-o "$CLI_TMP/st0" "$LSMNT" -l -o TARGET,SOURCE,FSTYPE,OPTIONS,ID \
		>/dev/null 2>&1
	ASAN_OPTIONS=$asan strace -f -qq -e trace=open,openat,readlink \
		-o "$CLI_TMP/st1" "$LSMNT" -l -o TARGET,LABEL,SOURCES,TID \
		>/dev/null 2>&1
	if ! [ -s "$CLI_TMP/st0" ]; then
		skip blkid_only_when_asked "strace cannot trace here"
		return
	fi
	n0=$(grep -c -E 'blkid\.tab|/sys/class/block|/run/udev|"/proc/self"' "$CLI_TMP/st0")
	n1=$(grep -c -E 'blkid\.tab|/sys/class/block|/run/udev|"/proc/self"' "$CLI_TMP/st1")
	if [ "$n0" != 0 ]; then
		fail blkid_only_when_asked "$n0 lookups without such a column"
	elif [ "$n1" = 0 ]; then
		fail blkid_only_when_asked "no lookup with LABEL,SOURCES,TID"
	else
		pass blkid_only_when_asked
	fi
}

plain_cases="c_host_cols c_host_tid c_all_ns_tid c_columns_listed
	c_blkid_only_when_asked"

# ---- cases in a private mount namespace ----

LOOPS=()

detach_loops() {
	local l
	[ -n "${T:-}" ] && umount -R -l "$T" 2>/dev/null
	for l in "${LOOPS[@]}"; do
		partx -d "$l" 2>/dev/null
		losetup -d "$l" 2>/dev/null
	done
}

# new_loop VAR ARGS...: losetup -f ARGS, the device in $VAR (and LOOPS)
new_loop() {
	local l
	l=$(losetup -f --show "${@:2}") || return 1
	LOOPS+=("$l")
	printf -v "$1" '%s' "$l"
}

# the tags looked up are this run's own, so that another run of this
# script on the machine (its loop devices) cannot make them ambiguous
UUID_A=$(cat /proc/sys/kernel/random/uuid)
UUID_C=$(cat /proc/sys/kernel/random/uuid)
RUN_TAG=$(cut -c1-4 /proc/sys/kernel/random/uuid)
LABEL_A="cols label $RUN_TAG"	# 15 bytes (ext4: 16 at most)
LABEL_C=cols-c-$RUN_TAG
export UUID_A UUID_C LABEL_A LABEL_C

setup_cols() {
	# ld and lc only hold their devices (new_loop sets them, LOOPS detaches)
	# shellcheck disable=SC2034
	local la ld lc lp lb1 lb2 img=$CLI_TMP/img
	T=$CLI_TMP/t
	export T
	trap detach_loops EXIT
	have_cmd losetup && have_cmd mkfs.ext4 && have_cmd tune2fs || return 1
	mkdir -p "$T" "$img" && mount -t tmpfs cols-top "$T" &&
		mkdir "$T/a" "$T/dup" "$T/sub" "$T/p" "$T/b" "$T/bs" "$T/tl" \
			"$T/tu" "$T/tn" "$T/empty" || return 1
	truncate -s 16M "$img/a" &&
		mkfs.ext4 -q -L "$LABEL_A" -U "$UUID_A" "$img/a" &&
		cp --sparse=always "$img/a" "$img/dup" &&
		tune2fs -L 'cols dup' "$img/dup" >/dev/null &&
		truncate -s 8M "$img/c" &&
		mkfs.ext4 -q -L "$LABEL_C" -U "$UUID_C" "$img/c" || return 1
	# a tag two devices carry is ambiguous (libblkid's pick depends on
	# its cache's history): the tags of the tag sources are unique
	new_loop la "$img/a" && new_loop ld "$img/dup" &&
		new_loop lc "$img/c" || return 1
	mount "$la" "$T/a" && mkdir "$T/a/d" && mount --bind "$T/a/d" "$T/sub" ||
		return 1
	# a GPT partition with a name and a UUID, if sfdisk is here
	if have_cmd sfdisk && have_cmd partx; then
		truncate -s 24M "$img/p" &&
			printf 'label: gpt\nsize=10M, name="cols part", uuid=%s\nname=two\n' \
				1a2b3c4d-0000-4000-8000-00000000abcd |
			sfdisk -q "$img/p" && new_loop lp -P "$img/p" &&
			{ [ -b "${lp}p1" ] || partx -a "$lp"; } &&
			[ -b "${lp}p1" ] && mkfs.ext4 -q -L plabel "${lp}p1" &&
			mount "${lp}p1" "$T/p" && touch "$T/have-part"
	fi
	# a btrfs on two devices (SOURCES lists both), with a subvolume
	if have_cmd mkfs.btrfs && grep -qw btrfs /proc/filesystems; then
		truncate -s 140M "$img/b1" "$img/b2" &&
			new_loop lb1 "$img/b1" && new_loop lb2 "$img/b2" &&
			mkfs.btrfs -q -f -L colsbt -d raid1 -m raid1 "$lb1" "$lb2" \
				>/dev/null 2>&1 &&
			{ btrfs device scan "$lb1" "$lb2" >/dev/null 2>&1 || true; } &&
			mount "$lb1" "$T/b" && btrfs subvolume create "$T/b/sv" \
			>/dev/null && mount -o subvol=sv "$lb2" "$T/bs" &&
			touch "$T/have-btrfs"
	fi
	# tag sources as the kernel keeps them (mount(8) would evaluate them)
	mount_source "LABEL=$LABEL_A" "$T/tl" &&
		mount_source "UUID=$UUID_C" "$T/tu" &&
		mount_source 'LABEL="cols-none"' "$T/tn" &&
		mount_source "" "$T/empty"
}

c_ns_cols() {
	py_case ns_cols
}

c_ns_partition() {
	if [ ! -e "$T/have-part" ]; then
		skip ns_partition "no GPT partition (needs sfdisk and partx)"
		return
	fi
	py_case ns_partition
}

c_ns_btrfs() {
	if [ ! -e "$T/have-btrfs" ]; then
		skip ns_btrfs "no two-device btrfs (needs mkfs.btrfs)"
		return
	fi
	py_case ns_btrfs
}

# findmnt asks udev's database first: a made-up one, on a private /run
c_ns_udev() {
	py_case ns_udev
}

# sources with newlines: findmnt 2.42's SOURCES cell of a source that is
# no tag is that source, one value: its '\n's escaped in text, an array of
# one string in JSON ("trail\n": ["trail\n"]); any user can make such a
# mount in a user namespace
c_ns_sources_newlines() {
	py_case ns_sources_newlines
}

ns_cases="c_ns_cols c_ns_partition c_ns_btrfs c_ns_udev c_ns_sources_newlines"

# ---- main ----

cli_main setup_cols "could not build the test mounts" "${2:-}"
