#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/statmnt.sh ABS_BUILDDIR - tests of the statmnt tool.
#
# Every value statmnt prints is checked against a source that does not go
# through libmntkit: statx(2), listmount(2) and ioctl(NS_GET_MNTNS_ID)
# called directly (Python ctypes), /proc/PID/mountinfo, findmnt(8), and the
# mounts the test made itself. The cases that mount run in a private mount
# namespace (unshare -m --propagation private; this script runs itself
# there with --in-ns) and need root; without it they say SKIP.

# cli_main (lib.sh) calls the cases through $plain_cases and $ns_cases:
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cli_init "$1"

STATMNT=$BUILDDIR/tools/statmnt
CLI_PROG=statmnt
export STATMNT

# ---- cases that need no mounts ----

c_help() {
	expect_help help "$STATMNT" '^usage: statmnt \[-l|-r\] \[-u\]' \
		--mask --ns --verbose
}

c_version() {
	expect_version version "$STATMNT"
}

c_root_ids() {
	py_case root_ids
}

c_ns_id() {
	py_case mnt_ns_id
}

c_id_forms() {
	py_case id_forms
}

# an old ID (mountinfo's) as mnt_id, on both backends; -v names the kind
c_old_ids() {
	py_case old_ids
	MNTKIT_BACKEND=mountinfo py_case old_ids_emul old_ids
}

c_text_format() {
	py_case text_format
}

c_json_matches_text() {
	py_case json_matches_text
}

c_json_keys() {
	py_case json_keys
}

c_mask() {
	py_case mask_restricts
}

c_errors() {
	local nopid
	expect_error err_bad_option "-x" usage "$STATMNT" -x /
	expect_error err_bad_long_option "--bogus" usage "$STATMNT" --bogus /
	expect_error err_mask_needs_arg "--mask" usage "$STATMNT" / --mask
	expect_error err_missing_target "missing" usage "$STATMNT"
	expect_error err_list_and_tree "-r" usage "$STATMNT" -l -r /
	expect_error err_extra_argument "extra-arg" usage "$STATMNT" / extra-arg
	expect_error err_unknown_mask "bogus" - "$STATMNT" --mask sb_basic,bogus /
	expect_error err_no_such_path "/nonexistent/mntkit-x" - \
		"$STATMNT" /nonexistent/mntkit-x
	expect_error err_no_such_mount "0xfffffffffffffff0" - \
		"$STATMNT" 0xfffffffffffffff0
	if ! grep -q "no such mount" "$ERR"; then
		fail err_no_such_mount_text "want 'no such mount': $(cat "$ERR")"
	else
		pass err_no_such_mount_text
	fi
	expect_error err_id_out_of_range "99999999999999999999999" - \
		"$STATMNT" 99999999999999999999999
	expect_error err_ns_not_ns_file "/etc/passwd" - \
		"$STATMNT" --ns /etc/passwd /
	expect_error err_ns_not_mount_ns "not a mount namespace" - \
		"$STATMNT" --ns /proc/self/ns/net 0x1
	expect_error err_ns_missing_file "/nonexistent/ns" - \
		"$STATMNT" --ns /nonexistent/ns 0x1
	expect_error err_ns_bad_pid "pid:abc" - "$STATMNT" --ns pid:abc 0x1
	nopid=$(cat /proc/sys/kernel/pid_max)
	expect_error err_ns_no_such_pid "pid:$nopid" - \
		"$STATMNT" --ns "pid:$nopid" 0x1
	expect_error err_ns_zero_id "--ns" - "$STATMNT" --ns 0 0x1
	expect_error err_ns_no_such_id "no such mount namespace" - \
		"$STATMNT" --ns 0xffffffffffff -r
	expect_error err_ns_twice "--ns" usage \
		"$STATMNT" --ns pid:$$ --ns pid:$$ 0x1
	expect_error err_mask_empty "--mask" - "$STATMNT" --mask= /
	expect_error err_ns_with_path "/" - \
		"$STATMNT" --ns /proc/self/ns/mnt /
	expect_error err_backend_env "bogus" - \
		env MNTKIT_BACKEND=bogus "$STATMNT" /
	if [ "$(head -c 15 "$ERR")" != "statmnt: MNTKIT" ]; then
		fail err_backend_env_prog "stderr: $(cat "$ERR")"
	else
		pass err_backend_env_prog
	fi
	expect_error err_escaped_subject 'a\nb' - "$STATMNT" $'/nonexistent/a\nb'
}

c_write_error() {
	expect_write_error write_error "$STATMNT" /
}

c_u_without_cap() {
	if is_root; then
		if ! have_cmd setpriv; then
			skip u_without_cap "no setpriv to drop capabilities"
			return
		fi
		expect_error u_without_cap "CAP_SYS_ADMIN" - \
			setpriv --inh-caps=-all --ambient-caps=-all \
			--bounding-set=-all -- "$STATMNT" -u -r
		# the subject of the message is the option
		grep -q '^statmnt: -u: ' "$ERR" ||
			fail u_without_cap_subject "$(cat "$ERR")"
	else
		expect_error u_without_cap "CAP_SYS_ADMIN" - "$STATMNT" -u -r
	fi
}

c_u_with_cap() {
	if ! is_root; then
		skip u_with_cap "needs root (CAP_SYS_ADMIN)"
		return
	fi
	py_case u_with_cap
}

c_list_root_children() {
	py_case list_root_children
}

c_list_tree_root() {
	py_case list_tree_root
}

c_list_text_format() {
	py_case list_text_format
}

plain_cases="c_help c_version c_root_ids c_ns_id c_id_forms c_old_ids c_text_format
	c_json_matches_text c_json_keys c_mask c_errors c_write_error
	c_u_without_cap c_u_with_cap c_list_root_children c_list_tree_root
	c_list_text_format"

# ---- cases in a private mount namespace ----

# a name with every character the escapers must handle, and a non-UTF-8 byte
WEIRD=$'we ird\ttab\nnl\\bs-\xc3\xa9-\xff'
export WEIRD

setup_tree() {
	mount_tree mntkit o "$WEIRD" &&
		mount -t tmpfs "mntkit src" "$T/$WEIRD"
}

c_tree_ids() {
	py_case tree_ids
}

c_tree_vs_mountinfo() {
	py_case tree_vs_mountinfo
}

c_tree_vs_findmnt() {
	if ! have_cmd findmnt; then
		skip tree_vs_findmnt "no findmnt"
		return
	fi
	py_case tree_vs_findmnt
}

c_tmpfs_options() {
	py_case tmpfs_options
}

c_bind_ro_attrs() {
	py_case bind_ro_attrs
}

c_propagation() {
	py_case propagation
}

c_weird_names() {
	py_case weird_names
}

# JSON escapes every control character, the C1 range (U+0080..U+009F)
# too: a raw CSI in a mount point must not reach the terminal that shows
# statmnt's or mntwatch's JSON
c_json_c1_controls() {
	py_case json_c1_controls
}

c_list_children() {
	py_case list_children
}

c_list_tree() {
	py_case list_tree
}

c_list_mask() {
	py_case list_mask
}

c_ns_other() {
	if ! start_other_ns mntkit-other; then
		stop_bg "$OTHER_PID"
		fail ns_other "could not make a second namespace"
		return
	fi
	py_case ns_other
	stop_bg "$OTHER_PID"
}

c_u_in_chroot() {
	local C=$CLI_TMP/chroot
	if ! have_cmd chroot; then
		skip u_in_chroot "no chroot"
		return
	fi
	if ! mkdir -p "$C" || ! mount -t tmpfs mntkit-chroot "$C"; then
		fail u_in_chroot "cannot mount the chroot"
		return
	fi
	if ! chroot_fill "$C"; then
		fail u_in_chroot "cannot fill the chroot"
		return
	fi
	if ! chroot "$C" "$STATMNT" / >/dev/null 2>&1; then
		skip u_in_chroot "statmnt does not run in a chroot here"
		return
	fi
	CHROOT=$C py_case u_in_chroot
}

c_backend_mountinfo() {
	py_case backend_mountinfo
}

ns_cases="c_tree_ids c_tree_vs_mountinfo c_tree_vs_findmnt c_tmpfs_options
	c_bind_ro_attrs c_propagation c_weird_names c_json_c1_controls
	c_list_children c_list_tree
	c_list_mask c_ns_other c_u_in_chroot c_backend_mountinfo"

# ---- main ----

cli_main setup_tree "could not build the test mount tree" "${2:-}"
