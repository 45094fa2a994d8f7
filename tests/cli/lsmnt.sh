#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/lsmnt.sh ABS_BUILDDIR - tests of the lsmnt tool.
#
# lsmnt must print what findmnt(8) prints for the columns both have, byte
# for byte: every output mode and many column sets and filters are run
# through both and compared, on the host (read only) and in a private mount
# namespace with tricky mounts (binds of subdirectories, names with spaces,
# newlines, backslashes, control characters, UTF-8 and invalid UTF-8,
# stacked mounts, ro binds and ro superblocks, sync/dirsync/lazytime,
# shared/slave/unbindable, nosuid/nodev/noexec/noatime). The columns
# findmnt lacks are checked against statmnt --json and mountinfo. A churn
# case mounts and unmounts in a loop while lsmnt lists again and again.
# The namespace cases need root; without it they say SKIP.

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
	expect_help help "$LSMNT" '^usage: lsmnt ' --all-namespaces --submounts
}

c_version() {
	expect_version version "$LSMNT"
}

c_host_json() {
	py_case host_json
}

c_host_list() {
	py_case host_list
}

c_host_raw_pairs() {
	py_case host_raw_pairs
}

c_host_filters() {
	py_case host_filters
}

c_host_terminal() {
	if ! have_cmd script || ! have_cmd findmnt; then
		skip host_terminal "needs script(1) and findmnt"
		return
	fi
	py_case host_terminal
}

c_new_columns() {
	py_case new_columns
}

c_list_columns() {
	py_case list_columns
}

c_errors() {
	expect_error err_bad_option "-j" - "$LSMNT" -j
	expect_error err_bad_long_option "--bogus" - "$LSMNT" --bogus
	expect_error err_output_needs_arg "-o" - "$LSMNT" -o
	expect_error err_unknown_column "BOGUS" - "$LSMNT" -o TARGET,BOGUS
	expect_error err_empty_column "-o" - "$LSMNT" -o TARGET,,SOURCE
	expect_error err_empty_column_list "-o" - "$LSMNT" -o +
	expect_error err_json_raw "-r" - "$LSMNT" -J -r
	expect_error err_list_pairs "--pairs" - "$LSMNT" -l -P
	expect_error err_raw_pairs "--pairs" - "$LSMNT" -r -P
	expect_error err_real_pseudo "--real" - "$LSMNT" --real --pseudo
	expect_error err_target_mountpoint "--mountpoint" - "$LSMNT" -T / -M /
	expect_error err_bad_id "invalid id" - "$LSMNT" --id abc
	expect_error err_bad_uniq_id "invalid uniq-id" - "$LSMNT" --uniq-id 99999999999999999999999
	expect_error err_bad_task "invalid TID" - "$LSMNT" -N abc
	expect_error err_no_such_task "/mountinfo" - "$LSMNT" -N "$(cat /proc/sys/kernel/pid_max)"
	expect_error err_ns_not_ns_file "/etc/passwd" - "$LSMNT" --ns /etc/passwd
	expect_error err_ns_not_mount_ns "not a mount namespace" - \
		"$LSMNT" --ns /proc/self/ns/net
	expect_error err_ns_missing "/nonexistent/ns" - "$LSMNT" --ns /nonexistent/ns
	expect_error err_ns_zero "--ns" - "$LSMNT" --ns 0
	expect_error err_ns_no_such_id "no such mount namespace" - \
		"$LSMNT" --ns 0xffffffffffff
	expect_error err_ns_and_task "--ns" - "$LSMNT" --ns pid:$$ -N $$
	expect_error err_order_bogus "--order" - "$LSMNT" --all-namespaces --order x
	expect_error err_order_alone "--order" - "$LSMNT" --order id
	# findmnt 2.42 reads no third argument: "one two" matches nothing,
	# exit 1 without a word
	run "$LSMNT" one two three
	if [ "$RC" = 1 ] && [ ! -s "$OUT" ] && [ ! -s "$ERR" ]; then
		pass err_extra_argument
	else
		fail err_extra_argument "exit $RC, stderr: $(head -c 200 "$ERR")"
	fi
	expect_error err_args_and_target "--target" - "$LSMNT" -T / /proc
	expect_error err_backend_env "bogus" - env MNTKIT_BACKEND=bogus "$LSMNT"
	expect_error err_escaped_subject 'a\nb' - "$LSMNT" --ns $'/nonexistent/a\nb'
	# nothing found: exit 1 and no output at all, as findmnt
	run "$LSMNT" -l -t xyzfs
	if [ "$RC" != 1 ] || [ -s "$OUT" ] || [ -s "$ERR" ]; then
		fail nothing_found "exit $RC, out $(head -c 100 "$OUT"), err $(cat "$ERR")"
	else
		pass nothing_found
	fi
	# ...but the whole tree, filtered to nothing, is an empty tree (exit 0)
	run "$LSMNT" -J -t xyzfs
	if [ "$RC" != 0 ] || ! mntkit_py json_is "$OUT" '{"filesystems": []}'; then
		fail empty_tree "exit $RC, out $(cat "$OUT")"
	else
		pass empty_tree
	fi
}

c_write_error() {
	expect_write_error write_error "$LSMNT" -J
}

c_ns_privilege() {
	if ! is_root; then
		expect_error ns_privilege "CAP_SYS_ADMIN" - "$LSMNT" --ns pid:1
		return
	fi
	if ! have_cmd setpriv; then
		skip ns_privilege "no setpriv to drop capabilities"
		return
	fi
	local pid drop=(setpriv --inh-caps=-all --ambient-caps=-all
		--bounding-set=-all --)
	"${UNSHARE_PRIVATE[@]}" sleep 30 &
	pid=$!
	sleep 0.2
	# without capabilities the namespace file is refused: a namespace
	# named by the file fails, one named by its process is read from the
	# process's mountinfo, as findmnt -N reads it
	expect_error ns_privilege "Permission denied" - "${drop[@]}" \
		"$LSMNT" --ns "/proc/$pid/ns/mnt"
	run "${drop[@]}" findmnt -N "$pid" -l -o TARGET,SOURCE,FSTYPE,OPTIONS
	cp "$OUT" "$CLI_TMP/ns_privilege.findmnt"
	run "${drop[@]}" "$LSMNT" --ns "pid:$pid" -l \
		-o TARGET,SOURCE,FSTYPE,OPTIONS
	if [ "$RC" != 0 ]; then
		fail ns_privilege_pid "exit status $RC: $(head -n 1 "$ERR")"
	elif ! cmp -s "$OUT" "$CLI_TMP/ns_privilege.findmnt"; then
		fail ns_privilege_pid "not findmnt -N's: $(diff "$CLI_TMP/ns_privilege.findmnt" "$OUT" | head -n 3 | tr '\n' ' ')"
	else
		pass ns_privilege_pid
	fi
	stop_bg "$pid"
}

c_backend_mountinfo() {
	py_case backend_mountinfo
}

# --id and --uniq-id with either kind of mount ID, on both backends
c_ids_either_kind() {
	py_case ids_either_kind
	MNTKIT_BACKEND=mountinfo py_case ids_either_kind_emul ids_either_kind
}

plain_cases="c_help c_version c_host_json c_host_list c_host_raw_pairs
	c_host_filters c_host_terminal c_new_columns c_list_columns c_errors
	c_write_error c_ns_privilege c_backend_mountinfo c_ids_either_kind"

# ---- cases in a private mount namespace ----

WEIRD=$'we ird\ttab\nnl\\bs\\x-\xc3\xa9-\xff"q$`'
CTRL=$'c\x01\x7f\r\b\f\xc2\x85\xe2\x80\x8bz'
export WEIRD CTRL

setup_tree() {
	mount_tree lsmnt s d o ro "$WEIRD" "$CTRL" ütf &&
		mount -t tmpfs -o sync,dirsync,lazytime lsmnt-sync "$T/s" &&
		mount -t tmpfs lsmnt-d1 "$T/d" &&
		mount -t tmpfs lsmnt-d2 "$T/d" &&
		mount -t tmpfs -o ro lsmnt-rosb "$T/ro" &&
		mount -t tmpfs "lsmnt src\\x" "$T/$WEIRD" &&
		mount -t tmpfs none "$T/$CTRL" &&
		mount -t tmpfs lsmnt-utf "$T/ütf"
}

c_ns_json() {
	py_case ns_json
}

c_ns_text() {
	py_case ns_text
}

c_ns_filters() {
	py_case ns_filters
}

# every filter, -U and a lone argument (a source, else a mount point) work
# whether or not a shown column holds what they compare: "lsmnt -n -o
# SOURCE /" is the commonest scripting idiom
c_ns_filters_hidden_columns() {
	py_case ns_filters_hidden_columns
}

# --tree wins over -l, -r, -P and -J as in findmnt: the rows in the tree's
# order (children by old ID, which is not the list's order once an old ID
# was reused) and its art as part of TARGET in raw and pairs output
c_ns_tree_any_mode() {
	py_case ns_tree_any_mode
}

# findmnt 2.38's --shadowed, --vfs-all, --verbose and -C/--nocanonicalize,
# and -S MAJ:MIN (findmnt's device number filter) next to arguments
c_ns_more_options() {
	py_case ns_more_options
}

c_ns_verify_kernel() {
	py_case ns_verify_kernel
}

c_ns_listmount_target() {
	py_case ns_listmount_target
}

c_ns_columns() {
	py_case ns_columns
}

c_ns_idmap() {
	py_case ns_idmap
}

c_ns_other() {
	start_other_ns lsmnt-other
	py_case ns_other
	stop_bg "$OTHER_PID"
}

c_ns_churn() {
	local churn_pid
	mkdir -p "$T/churn"
	(
		i=0
		while :; do
			i=$(((i + 1) % 20))
			mkdir -p "$T/churn/$i"
			mount -t tmpfs "churn$i" "$T/churn/$i" 2>/dev/null
			mount --bind "$T/a" "$T/churn/$i" 2>/dev/null
			umount "$T/churn/$i" 2>/dev/null
			[ $((i % 3)) = 0 ] && umount -l "$T/churn/$i" 2>/dev/null
		done
	) &
	churn_pid=$!
	py_case ns_churn
	stop_bg "$churn_pid"
}

# findmnt orders a mount's children by the old (reused) mount ID; make
# them disagree with the unique IDs: free an old ID, then take it again
c_ns_child_order() {
	local i
	mkdir -p "$T/ord" && mount -t tmpfs lsmnt-ord "$T/ord" || {
		fail ns_child_order "cannot mount"
		return
	}
	for i in 1 2 3 4 5 6; do mkdir -p "$T/ord/$i"; done
	mount -t tmpfs o1 "$T/ord/1" && mount -t tmpfs o2 "$T/ord/2" &&
		mount -t tmpfs o3 "$T/ord/3" && umount "$T/ord/1" &&
		mount -t tmpfs o4 "$T/ord/4" && umount "$T/ord/2" &&
		mount -t tmpfs o5 "$T/ord/5" && mount -t tmpfs o6 "$T/ord/6"
	py_case ns_child_order
}

# a FUSE mount whose daemon never answers (its fd held, never read): a
# lookup there waits for ever (findmnt -T hangs in realpath); lsmnt's
# arguments are made canonical without looking into it
c_ns_dead_fuse() {
	local want
	mkdir -p "$T/dead" || return
	if ! exec 7<>/dev/fuse; then
		skip ns_dead_fuse "no /dev/fuse"
		return
	fi
	if ! mount -t fuse.lsmntdead -o fd=7,rootmode=40000,user_id=0,group_id=0 \
		dead "$T/dead" 2>/dev/null; then
		exec 7>&-
		skip ns_dead_fuse "cannot mount fuse"
		return
	fi
	want="$T/dead dead"
	for a in "-T $T/dead/x/../y/z" "-M $T/dead" "$T/dead/" "-S dead" \
		"-f $T/dead/" "-T $T/dead/x -R"; do
		# shellcheck disable=SC2086 # the words of $a
		run timeout -s KILL 20 "$LSMNT" -n -r -o TARGET,SOURCE $a
		if [ "$RC" != 0 ] || [ "$(cat "$OUT")" != "$want" ]; then
			fail ns_dead_fuse "lsmnt $a: exit $RC, out $(head -c 200 "$OUT")"
			umount -l "$T/dead"
			exec 7>&-
			return
		fi
	done
	# -x with the kernel's table: the dead mount's point is not looked
	# up (findmnt -x --kernel hangs in realpath)
	run timeout -s KILL 20 "$LSMNT" -x --kernel --verbose -M "$T/dead"
	if [ "$RC" = 137 ] || ! grep -q "served filesystem: not looked up" "$OUT"; then
		fail ns_dead_fuse "lsmnt -x --kernel: exit $RC, out $(head -c 200 "$OUT")"
		umount -l "$T/dead"
		exec 7>&-
		return
	fi
	umount -l "$T/dead"
	exec 7>&-
	pass ns_dead_fuse
}

# the stream (stream.c's run_stream(): a flat listing of every mount, 128
# replies at a time, the last of a part waiting for the next; the whole
# tree kept part by part): the whole table with as many mounts as fill
# two and three parts, and one more
c_ns_stream() {
	local want have i=0
	mkdir -p "$T/st" && mount -t tmpfs lsmnt-st "$T/st" || {
		fail ns_stream "cannot mount"
		return
	}
	for want in 256 257 384 385; do
		have=$(wc -l </proc/self/mountinfo)
		if [ "$have" -gt "$want" ]; then
			skip "ns_stream_$want" "$have mounts already"
			continue
		fi
		while [ "$have" -lt "$want" ]; do
			mkdir -p "$T/st/$i" && mount -t tmpfs "lsmnt-st$i" "$T/st/$i" || {
				fail "ns_stream_$want" "cannot mount"
				return
			}
			i=$((i + 1))
			have=$((have + 1))
		done
		py_case "ns_stream_$want" ns_stream
	done
}

# replies larger than the stream's arena holds a part of (about 1 KiB a
# row) and than the room it makes for one (4 KiB): mount points of 3.5
# KiB and sources of 1 KiB, so that mntkit_stat_many() stops where the
# next reply does not fit and the arena grows, part after part (whether
# the first reply of a call meets too little room, run_stream()'s
# -EOVERFLOW, depends on where the replies end)
c_ns_stream_big() {
	local p="$T/big" i src
	mkdir -p "$p" && mount -t tmpfs lsmnt-big "$p" || {
		fail ns_stream_big "cannot mount"
		return
	}
	for i in $(seq 1 14); do
		p=$p/$(printf '%0250d' "$i")
	done
	src=lsmnt-big-$(printf '%01000d' 0)
	for i in $(seq 1 200); do
		mkdir -p "$p/$i" && mount -t tmpfs "$src$i" "$p/$i" || {
			fail ns_stream_big "cannot mount"
			umount -R "$T/big"
			return
		}
	done
	py_case ns_stream_big
	umount -R "$T/big"
}

# the printers find the bytes they escape a word (8 bytes) at a time
# (escape.c's plain_run()): each such byte at each offset of a word
# and beyond, in mount points and sources, in every flat mode and the
# tree, streamed (the whole table) and from the snapshot (-R -T), in a
# UTF-8 and the C locale, as findmnt prints them
c_ns_escape_words() {
	local c pos name
	mkdir -p "$T/esc" && mount -t tmpfs lsmnt-esc "$T/esc" || {
		fail ns_escape_words "cannot mount"
		return
	}
	for c in '\' '\x' ' ' '"' '`' '$' $'\x01' $'\t' $'\x7f' $'\xc3\xbc' \
		$'\xc3' $'\xc2\x85'; do
		for pos in 0 1 2 3 4 5 6 7 8 9 15 16; do
			name=$(printf "%${pos}s" "" | tr ' ' a)$c
			mkdir -p "$T/esc/$name" &&
				mount -t tmpfs "s$name" "$T/esc/$name" || {
				fail ns_escape_words "cannot mount $name"
				umount -R "$T/esc"
				return
			}
		done
	done
	py_case ns_escape_words
	umount -R "$T/esc"
}

# the whole tree streams (run_stream(), tree_shape()) when its mounts
# make one tree, and is printed from the snapshot when not: in a chroot
# whose root is a mount, its tree; in one whose root is a directory, the
# mounts below it are several roots. Both as findmnt prints them there.
c_ns_chroot_tree() {
	local C=$T/chroot
	# findmnt 2.42 runs there: its files are in BUILDDIR/findmnt-cache
	if ! have_cmd chroot || [ -z "$MNTKIT_FINDMNT" ]; then
		skip ns_chroot_tree "no chroot or findmnt 2.42"
		return
	fi
	mkdir -p "$C" && mount -t tmpfs lsmnt-chroot "$C" &&
		mkdir -p "$C/x" "$C/plain/p" && mount -t tmpfs lsmnt-cx "$C/x" &&
		mkdir -p "$C/x/y" && mount -t tmpfs lsmnt-cy "$C/x/y" &&
		mount -t tmpfs lsmnt-cp "$C/plain/p" || {
		fail ns_chroot_tree "cannot mount"
		return
	}
	if ! chroot_fill "$C" || ! chroot_fill "$C/plain"; then
		fail ns_chroot_tree "cannot fill the chroots"
		umount -R "$C"
		return
	fi
	if ! chroot "$C" "$LSMNT" >/dev/null 2>&1 ||
		! chroot "$C" "$MNTKIT_FINDMNT" >/dev/null 2>&1; then
		skip ns_chroot_tree "lsmnt or findmnt does not run in a chroot here"
		umount -R "$C"
		return
	fi
	CHROOT=$C py_case ns_chroot_tree
	umount -R "$C"
}

ns_cases="c_ns_json c_ns_text c_ns_filters c_ns_filters_hidden_columns c_ns_tree_any_mode c_ns_more_options
	c_ns_verify_kernel c_ns_listmount_target
	c_ns_columns c_ns_idmap c_ns_other
	c_ns_churn c_ns_child_order c_ns_dead_fuse c_ns_stream c_ns_stream_big
	c_ns_escape_words
	c_ns_chroot_tree"

# ---- main ----

cli_main setup_tree "could not build the test mount tree" "${2:-}"
