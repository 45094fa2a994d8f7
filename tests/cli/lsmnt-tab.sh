#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/lsmnt-tab.sh ABS_BUILDDIR - lsmnt over table files: -F/--tab-file
# (fstab, mtab and mountinfo format, guessed as findmnt guesses), -s/--fstab
# (LIBMOUNT_FSTAB, else /etc/fstab), -m/--mtab (the kernel's table with the
# userspace options of utab: LIBMOUNT_UTAB, the test's own file),
# -x/--verify [--verbose] (findmnt's checks, messages and exit status).
#
# Every case writes its own files (escapes \040, comments, blank lines,
# tags, missing fields, freq/passno, swap and none targets, bad lines; a
# mountinfo with binds, stacked mounts, propagation, a missing parent) and
# compares lsmnt with findmnt(8) byte for byte: stdout and exit status, in
# every output mode, for the columns findmnt has for tab files and its
# filters. Needs no root and touches no mount; the host's /etc/fstab is
# never read (LIBMOUNT_FSTAB points at the test's file). -m reads the
# host's table (read only) with utab entries for /proc and /sys, which
# every Linux system has; in a private mount namespace (root) also with
# mounts of its own.

# cli_main (lib.sh) calls the cases through $plain_cases:
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cli_init "$1"
use_findmnt

LSMNT=$BUILDDIR/tools/lsmnt
CLI_PROG=lsmnt
TABS=$CLI_TMP/tabs
export LSMNT TABS
mkdir -p "$TABS"

# The files. Targets are under /nonexistent-mntkit (nothing of the host's
# is looked at) but for / and /proc, whose statvfs no column here asks.
printf '%s\n' \
	'# a comment' \
	'UUID=1234-abcd  /               ext4    errors=remount-ro 0       1' \
	'' \
	'LABEL=boot /nonexistent-mntkit/boot ext2 defaults,noatime 0 2' \
	'/dev/sda3 none swap sw 0 0' \
	'/dev/disk/by-id/x\040y /nonexistent-mntkit/with\040space xfs ro,noexec,user,noauto,x-foo=1 1 2' \
	'	tmpfs	/nonexistent-mntkit/tmp	tmpfs	mode=1777,nosuid,nodev' \
	'server:/export /nonexistent-mntkit/net nfs4 rw,_netdev' \
	'   # indented comment' \
	'sshfs#me@h: /nonexistent-mntkit/ssh fuse.sshfs defaults 0 0' \
	'/dev/sdb1 /nonexistent-mntkit/bad' \
	'PARTUUID=0a-01 /nonexistent-mntkit/a\134b ext4 a,,b,sync,dirsync,lazytime 99999999999 -1 trailing' \
	'/dev/c /nonexistent-mntkit/c ext4 rw x 2' \
	'/dev/d /nonexistent-mntkit/d ext4 rw 1 x' \
	'/dev/b /nonexistent-mntkit/b xfs' \
	'\043x /nonexistent-mntkit/x ext4' \
	>"$TABS/fstab"
printf '%s\n' \
	'/dev/sda1 / ext4 rw,relatime 0 0' \
	'proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0' \
	'tmpfs /nonexistent-mntkit/t\040x tmpfs rw,size=10k,mode=755 0 0' \
	>"$TABS/mtab"
printf '%s\n' \
	'21 1 0:20 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro' \
	'22 21 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:5 - proc proc rw' \
	'30 21 0:30 / /nonexistent-mntkit/a\040b rw,nosuid master:1 - tmpfs tmp\040fs rw,size=1024k' \
	'31 30 0:30 /sub /nonexistent-mntkit/a\040b/bind ro,relatime - tmpfs tmp\040fs rw,size=1024k' \
	'33 21 0:33 / /nonexistent-mntkit/st rw unbindable - tmpfs one rw' \
	'34 33 0:34 / /nonexistent-mntkit/st rw - tmpfs two ro,sync,dirsync,lazytime,mode=700' \
	'32 30 0:32 / /nonexistent-mntkit/a\040b/z rw shared:7 master:1 propagate_from:2 - fuse.sshfs me@h:/x rw,user_id=0' \
	'40 99 0:40 / /nonexistent-mntkit/orphan rw - tmpfs orphan rw' \
	>"$TABS/mountinfo"
# the root in the middle, children before their parents, IDs out of file
# order, an autofs point with a mount over it, a parent that is missing
printf '%s\n' \
	'15 20 0:3 / /proc rw,relatime - proc proc rw' \
	'17 20 0:5 / /dev rw,relatime - devtmpfs udev rw,mode=755' \
	'38 33 0:33 / /dev/hp rw,relatime - hugetlbfs hugetlbfs rw' \
	'20 1 8:4 / / rw,noatime - ext4 /dev/sda4 rw,errors=continue' \
	'33 17 0:29 / /dev/hp rw,relatime - autofs systemd-1 rw,fd=23,direct' \
	'19 17 0:16 / /dev/shm rw,relatime - tmpfs tmpfs rw' \
	'44 41 0:36 / /home/u/.gvfs rw,nosuid,nodev - fuse.gvfs gvfs rw,user_id=500' \
	'40 20 8:6 / /boot rw,noatime - ext4 /dev/sda6 rw' \
	'18 17 0:10 / /dev/pts rw,relatime - devpts devpts rw,mode=620' \
	>"$TABS/mountinfo2"
# no root at all: -T / finds nothing
printf '%s\n' \
	'15 20 0:3 / /proc rw,relatime - proc proc rw' \
	'16 20 0:15 / /sys rw,relatime - sysfs sysfs rw' \
	'17 16 0:5 / /sys/x rw - tmpfs t rw' \
	>"$TABS/mountinfo-nonroot"
# for -U (libmount's mnt_table_uniq_fs() with KEEPTREE), as a chroot's
# table with reused IDs is: several roots whose parents are not listed,
# the lowest parent ID a child's; stacked pairs to drop, one with a child
# moved to the surviving top, one whose dropped mount is a root (its
# child then becomes one, its parent ID the dropped mount's)
printf '%s\n' \
	'30 900 0:3 / /proc rw,relatime - proc proc rw' \
	'20 700 0:40 / /x rw - tmpfs x1 rw' \
	'21 20 0:41 / /x/a rw - tmpfs xa rw' \
	'40 800 0:50 / /t rw - tmpfs df-top rw' \
	'50 40 0:51 / /t/c rw - tmpfs y rw' \
	'51 50 0:52 / /t/c/k rw - tmpfs k rw' \
	'52 50 0:53 / /t/c rw - tmpfs z rw' \
	'12 900 0:15 / /sys rw - sysfs sysfs rw' \
	'22 800 0:42 / /x rw - tmpfs x2 rw' \
	'60 52 0:54 / /t/c/q rw - tmpfs q rw' \
	>"$TABS/mountinfo-uniq"
# roots only at the top (each child's ID above every root's parent), the
# lowest parent ID not the first root's, nor the lowest ID's
printf '%s\n' \
	'1001 900 0:3 / /proc rw,relatime - proc proc rw' \
	'1002 900 0:15 / /sys rw - sysfs sysfs rw' \
	'1003 1002 0:16 / /sys/k rw - tmpfs k rw' \
	'7 500 0:50 / /t rw - tmpfs t1 rw' \
	'1004 7 0:51 / /t/c rw - tmpfs c rw' \
	'8 600 0:52 / /t rw - tmpfs t2 rw' \
	'1005 8 0:53 / /t/d rw - tmpfs d rw' \
	'1006 1001 0:54 / /proc/x rw - tmpfs px rw' \
	>"$TABS/mountinfo-roots"
# mounts outside the first tree: a child listed before its parent (a
# further tree of its own, its parent's then without it), a further root
# that does not match a filter whose matching descendants start trees
# where the list has them
printf '%s\n' \
	'20 1 8:4 / / rw - ext4 /dev/sda4 rw' \
	'51 50 0:51 / /o/b rw - tmpfs b rw' \
	'60 98 0:60 / /r rw - ext4 r rw' \
	'61 60 0:61 / /r/x rw - ext4 x rw' \
	'50 99 0:50 / /o rw - tmpfs o rw' \
	'62 61 0:62 / /r/x/y rw - tmpfs y rw' \
	'63 62 0:63 / /r/x/y/z rw - tmpfs z rw' \
	'64 60 0:64 / /r/w rw - tmpfs w rw' \
	'21 20 0:3 / /proc rw - proc proc rw' \
	>"$TABS/mountinfo-orphans"
: >"$TABS/empty"
printf '# nothing\n\n   \n' >"$TABS/comments"

c_fstab() {
	py_case tab_fstab
}

c_mtab() {
	py_case tab_mtab
}

c_mountinfo() {
	py_case tab_mountinfo
}

c_random_trees() {
	py_case tab_random_trees
}

c_mountinfo_unordered() {
	py_case tab_mountinfo_unordered
}

c_empty() {
	py_case tab_empty
}

# -s: LIBMOUNT_FSTAB names the file (findmnt's libmount reads it too);
# -F with -s reads the -F file; two -F files make one list
c_fstab_option() {
	py_case tab_fstab_option
}

# -m: utab entries merge into the mount of the same root, mount point and
# source (the last one in the table), each mount once; others are left
c_mtab_merge() {
	py_case mtab_merge
}

c_mtab_ns() {
	py_case ns_mtab_merge
}

# -T of a path that is no mount point walks up to the longest mount point
# (mntkit_table_find_containing()), a target written with a trailing slash
# too, as findmnt (libmount compares paths but for trailing slashes)
c_target_walk() {
	py_case tab_target_walk
}

# -x: every check's message, with and without --verbose, the order of
# the targets, filters, -f; stdout and exit status as findmnt's, and the
# summary line on stderr
# --pseudo, --real: libmount's list of pseudo filesystem types
c_pseudo_types() {
	py_case pseudo_types
}

c_verify() {
	py_case tab_verify
	expect_error verify_not_json "cannot be combined" - "$LSMNT" -x -J
	expect_error verify_not_list "cannot be combined" - "$LSMNT" -x -l
	expect_error verify_not_poll "cannot be combined" - "$LSMNT" -x -p
}

# -x with a real device (root): a loop device with an ext4 labelled by
# the test, found by its tag and its path, a type that does not match
c_verify_dev() {
	local img=$CLI_TMP/vfy.img loop
	if ! have_cmd mkfs.ext4 || ! have_cmd losetup; then
		skip ns_verify_dev "needs mkfs.ext4 and losetup"
		return
	fi
	truncate -s 8M "$img" && mkfs.ext4 -q -F -L mntkit-vfy-$$ "$img" ||
		{ fail ns_verify_dev "mkfs.ext4"; return; }
	if ! loop=$(losetup -f --show "$img" 2>/dev/null); then
		skip ns_verify_dev "no loop device"
		return
	fi
	printf '%s\n' "LABEL=mntkit-vfy-$$ /tmp ext4 rw 0 2" \
		"$loop /tmp ext4 rw 0 2" "$loop /tmp xfs rw 0 2" \
		"LABEL=mntkit-vfy-$$ /tmp auto rw" >"$TABS/dev"
	LOOP=$loop py_case ns_verify_dev
	losetup -d "$loop"
}

# stderr says which line was bad, and where
c_bad_lines() {
	run "$LSMNT" -F "$TABS/fstab" -o TARGET
	if [ "$RC" = 0 ] && grep -q 'fstab: parse error at line 11, column 34' "$ERR"; then
		pass tab_bad_lines
	else
		fail tab_bad_lines "exit $RC, stderr: $(head -c 200 "$ERR")"
	fi
}

# -p with a table file: findmnt 2.42 waits for the file to change as the
# kernel's table does, which a file never does: nothing until --timeout
c_poll_file() {
	run timeout 10 "$LSMNT" -F "$TABS/fstab" -p --timeout 300
	if [ "$RC" = 0 ] && [ ! -s "$OUT" ]; then
		pass tab_poll_waits
	else
		fail tab_poll_waits "exit $RC, stdout: $(head -c 200 "$OUT")"
	fi
}

c_refused() {
	expect_error tab_not_with_ns "--ns" - "$LSMNT" -F "$TABS/fstab" --ns 1
	expect_error fstab_not_with_kernel "cannot be combined" - "$LSMNT" -s -k
	expect_error mtab_not_with_fstab "cannot be combined" - "$LSMNT" -m -s
}

plain_cases="c_fstab c_mtab c_mountinfo c_mountinfo_unordered c_random_trees c_empty c_fstab_option c_mtab_merge
c_target_walk c_pseudo_types c_verify c_bad_lines c_poll_file c_refused"
ns_cases="c_mtab_ns c_verify_dev"
cli_main true "" "${2:-}"
