#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/seccomp.sh ABS_BUILDDIR - the tools under seccomp filters that
# refuse the system calls the library makes (build/tests/seccomp-run).
#
# Each refusal must give a working fallback - the tool's output equals
# its output without the filter, and lsmnt's equals findmnt's - or one
# stderr line naming the refused call ("lsmnt: statmount(2) is refused by
# the system (seccomp?): EPERM"). The cases without /proc run their
# command in a new mount namespace where /proc is unmounted.

# shellcheck disable=SC2317 # cli_main calls the cases
# shellcheck disable=SC2016 # sh -c scripts expand their own arguments
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cli_init "$1"

SECCOMP_RUN=$BUILDDIR/tests/seccomp-run
LSMNT=$BUILDDIR/tools/lsmnt
STATMNT=$BUILDDIR/tools/statmnt
MNTWATCH=$BUILDDIR/tools/mntwatch
CLI_PROG=lsmnt

# the refusals the library has a fallback for, as seccomp-run rules
# (a space in a rule separates two calls); the emulation serves the
# first ones, the native backend the others
EMUL_RULES="statmount=EPERM,listmount=EPERM statmount=ENOSYS,listmount=ENOSYS
	statmount=EINVAL,listmount=EINVAL statmount=EACCES,listmount=EACCES
	statmount=EINVAL listmount=EPERM
	statx=EPERM,statmount=EPERM,listmount=EPERM
	statx=ENOSYS,statmount=ENOSYS,listmount=ENOSYS"
NATIVE_RULES="statx=EPERM statx=ENOSYS statx=EPERM,name_to_handle_at=EPERM
	ioctl=EPERM fanotify_init=EPERM fanotify_mark=EACCES openat2=EPERM"

# filtered RULE CMD...: CMD under seccomp-run with RULE's calls refused
filtered() {
	local rule=$1
	shift
	# shellcheck disable=SC2086 # the rule's calls are separate words
	"$SECCOMP_RUN" ${rule//,/ } -- "$@"
}

# same_output NAME RULE CMD...: CMD with and without the filter: exit 0,
# no stderr, the same stdout
same_output() {
	local name=$1 rule=$2 want
	shift 2
	want=$("$@" 2>&1) || {
		fail "$name" "unfiltered: $want"
		return
	}
	run filtered "$rule" "$@"
	if [ "$RC" != 0 ] || [ -s "$ERR" ]; then
		fail "$name" "exit $RC under $rule: $(head -c 300 "$ERR")"
	elif [ "$(cat "$OUT")" != "$want" ]; then
		fail "$name" "output under $rule differs: $(diff <(printf '%s\n' "$want") "$OUT" | head -c 300)"
	else
		pass "$name"
	fi
}

LSMNT_COLS=TARGET,ID,PARENT,FSROOT,PROPAGATION,OPT-FIELDS,SOURCE
c_lsmnt_fallbacks() {
	local rule
	for rule in $EMUL_RULES $NATIVE_RULES; do
		same_output "lsmnt_tree[$rule]" "$rule" "$LSMNT"
	done
	for rule in $NATIVE_RULES; do
		same_output "lsmnt_list[$rule]" "$rule" "$LSMNT" -r \
			-o "$LSMNT_COLS"
	done
	# the emulation's -l/-r order is by its IDs, and a mount it cannot
	# prove has an old one (also without a filter: see findings.md):
	# the same lines, sorted
	for rule in $EMUL_RULES; do
		same_output "lsmnt_list_emul[$rule]" "$rule" sh -c \
			'"$1" -r -o "$2" | sort' sh "$LSMNT" "$LSMNT_COLS"
	done
}

# lsmnt equals findmnt (the same table, read by util-linux) under a filter
c_lsmnt_findmnt() {
	local rule
	if ! have_cmd findmnt; then
		skip lsmnt_findmnt "no findmnt"
		return
	fi
	for rule in $EMUL_RULES $NATIVE_RULES; do
		run filtered "$rule" "$LSMNT" -J
		if [ "$RC" != 0 ] || [ -s "$ERR" ]; then
			fail "lsmnt_findmnt[$rule]" "exit $RC: $(head -c 300 "$ERR")"
		elif ! cmp -s "$OUT" <(findmnt -J); then
			fail "lsmnt_findmnt[$rule]" "lsmnt -J differs from findmnt -J"
		else
			pass "lsmnt_findmnt[$rule]"
		fi
	done
}

STAT_MASK=mnt_basic,mnt_point,fs_type,mnt_root,sb_source,mnt_opts,sb_basic
c_statmnt_fallbacks() {
	local rule
	# the native backend: every field the same, IDs included
	for rule in $NATIVE_RULES; do
		same_output "statmnt_path[$rule]" "$rule" \
			"$STATMNT" --mask "$STAT_MASK" /proc
	done
	# the emulation: the same but for IDs, which are old ones where
	# statx is refused
	for rule in $EMUL_RULES; do
		same_output "statmnt_emul[$rule]" "$rule" sh -c \
			'"$1" --mask "$2" /proc | grep -v "^mnt_\(parent_\)\?id:"' \
			sh "$STATMNT" "$STAT_MASK"
	done
}

# --ns PATH with the nsfs ioctls refused: /proc/self/fd tells the type
c_ns_path_ioctl_refused() {
	local sleeper
	sleep 60 &
	sleeper=$!
	same_output "ns_path[ioctl=EPERM]" ioctl=EPERM \
		"$LSMNT" --ns "/proc/$sleeper/ns/mnt"
	same_output "ns_path_statmnt[ioctl=EACCES]" ioctl=EACCES \
		"$STATMNT" --ns "/proc/$sleeper/ns/mnt" -l
	expect_error "ns_path_not_mnt[ioctl=EPERM]" "not a mount namespace" - \
		filtered ioctl=EPERM "$LSMNT" --ns "/proc/$sleeper/ns/net"
	expect_error "ns_path_not_ns[ioctl=EPERM]" "not a namespace file" - \
		filtered ioctl=EPERM "$LSMNT" --ns /etc/passwd
	stop_bg "$sleeper"
}

# mntwatch's first table (--initial) with and without the filter, without
# each line's time= and mono= (the clocks of the run); the emulation names
# mounts it cannot prove by old IDs: compared without IDs and so without
# seq= (given in ID order)
c_mntwatch_fallbacks() {
	local rule
	for rule in $NATIVE_RULES; do
		same_output "mntwatch_initial[$rule]" "$rule" bash -c \
			'set -o pipefail; "$1" --initial --timeout 0.2 |
			sed -E "s/ time=[^ ]+ mono=[^ ]+\$//"' bash "$MNTWATCH"
	done
	for rule in $EMUL_RULES; do
		same_output "mntwatch_emul[$rule]" "$rule" bash -c \
			'set -o pipefail; "$1" --initial --timeout 0.2 |
			sed -E "s/ seq=[0-9]+ time=[^ ]+ mono=[^ ]+\$//" |
			cut -d" " -f1,3- | sort' bash "$MNTWATCH"
	done
}

# the refusals without a fallback: one line naming the call
c_refusal_errors() {
	local sleeper
	CLI_PROG=mntwatch expect_error epoll_mntwatch \
		"epoll_create1(2) is refused by the system (seccomp?): EPERM" - \
		filtered epoll_create1=EPERM "$MNTWATCH"
	CLI_PROG=lsmnt expect_error epoll_lsmnt_poll \
		"epoll_create1(2) is not available (seccomp, or an older kernel): ENOSYS" - \
		filtered epoll_create1=ENOSYS "$LSMNT" -p
	# (without CAP_SYS_ADMIN the kernel's own answer is EPERM too)
	if is_root; then
		CLI_PROG=mntwatch expect_error fanotify_forced \
			"--source fanotify: fanotify_init(2) is refused by the system (seccomp?): EPERM" - \
			filtered fanotify_init=EPERM "$MNTWATCH" --source fanotify
		# a limit (the user's fanotify groups) is no refusal: it is
		# named as what it is; the auto source takes poll (test-seccomp)
		CLI_PROG=mntwatch expect_error fanotify_group_limit \
			"--source fanotify: Too many open files: too many fanotify groups or marks for this user (fs.fanotify.max_user_groups, max_user_marks), or open files" - \
			filtered fanotify_init=EMFILE "$MNTWATCH" --source fanotify
	else
		skip fanotify_forced "needs root"
		skip fanotify_group_limit "needs root"
	fi
	CLI_PROG=lsmnt expect_error backend_native_refused \
		"MNTKIT_BACKEND: native: statmount(2) is refused by the system (seccomp?): EPERM" - \
		env MNTKIT_BACKEND=native "$SECCOMP_RUN" statmount=EPERM -- "$LSMNT"
	CLI_PROG=statmnt expect_error backend_native_refused_statmnt \
		"MNTKIT_BACKEND=native: listmount(2) is refused by the system (seccomp?): EINVAL" - \
		env MNTKIT_BACKEND=native "$SECCOMP_RUN" listmount=EINVAL -- "$STATMNT" /
	sleep 60 &
	sleeper=$!
	CLI_PROG=statmnt expect_error openat2_in_pid \
		"openat2(2) is refused by the system (seccomp?): EACCES" - \
		filtered openat2=EACCES "$STATMNT" --ns "pid:$sleeper" /
	stop_bg "$sleeper"
}

# noproc CMD...: CMD in a new mount namespace without /proc. The tools of
# the build tree find libmntkit.so.0 through an $ORIGIN rpath, which
# ld.so resolves through /proc/self/exe: without /proc, LD_LIBRARY_PATH
# names the build's library (an installed tool needs neither).
noproc() {
	LD_LIBRARY_PATH="$BUILDDIR/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		unshare_private sh -c \
		'umount -l /proc && exec "$@"' sh "$@"
}

c_without_proc() {
	local want
	if ! can_unshare_mount; then
		skip without_proc "needs root and unshare -m"
		return
	fi
	# ASan reads its options and LSan the threads through /proc: a
	# sanitizer build's tools cannot run without it (the plain build's do)
	if ldd "$LSMNT" 2>/dev/null | grep -q libasan; then
		skip without_proc "the sanitizers' runtime needs /proc"
		return
	fi
	# the native backend needs no /proc: the table but /proc's mounts
	# (a new namespace: new IDs, so compared by what they name)
	want=$(unshare_private "$LSMNT" -r \
		-o TARGET,FSTYPE,SOURCE,PROPAGATION | grep -v '^/proc[/ ]')
	run noproc "$LSMNT" -r -o TARGET,FSTYPE,SOURCE,PROPAGATION
	if [ "$RC" != 0 ] || [ -s "$ERR" ]; then
		fail lsmnt_without_proc "exit $RC: $(head -c 300 "$ERR")"
	elif [ "$(cat "$OUT")" != "$want" ]; then
		fail lsmnt_without_proc "differs: $(diff <(printf '%s\n' "$want") "$OUT" | head -c 300)"
	else
		pass lsmnt_without_proc
	fi
	CLI_PROG=lsmnt expect_error emulation_without_proc \
		"statmount(2) is refused by the system (seccomp?): EPERM, and /proc is not mounted" - \
		noproc "$SECCOMP_RUN" statmount=EPERM -- "$LSMNT"
	CLI_PROG=statmnt expect_error statx_without_proc \
		"statx(2) is refused by the system (seccomp?): EPERM, and /proc is not mounted" - \
		noproc "$SECCOMP_RUN" statx=EPERM name_to_handle_at=EPERM -- \
		"$STATMNT" /
	CLI_PROG=mntwatch expect_error poll_without_proc \
		"fanotify_init(2) is refused by the system (seccomp?): EPERM, and /proc is not mounted" - \
		noproc "$SECCOMP_RUN" fanotify_init=EPERM -- "$MNTWATCH"
	# the fanotify source alone: attaches and detaches. The watch may
	# start between a mount and its umount (a detach comes first), so
	# the mounts go on until it has printed three events
	mkdir -p "$CLI_TMP/w"
	# (the output file exists before the loop counts its lines)
	run noproc sh -c '
		: >"$3"
		"$1" --prefix "$2" -c 3 --timeout 10 >"$3" &
		w=$!
		for i in $(seq 100); do
			mount -t tmpfs mntkit-noproc "$2" && umount "$2"
			[ "$(grep -c "" "$3")" -ge 3 ] && break
			sleep 0.05
		done
		wait $w' sh "$MNTWATCH" "$CLI_TMP/w" "$CLI_TMP/w.out"
	if [ "$RC" != 0 ] || [ -s "$ERR" ]; then
		fail mntwatch_without_proc "exit $RC: $(head -c 300 "$ERR")"
	elif ! grep -q "^attach [0-9][0-9]* $CLI_TMP/w tmpfs mntkit-noproc " "$CLI_TMP/w.out" ||
		! grep -q "^detach " "$CLI_TMP/w.out"; then
		fail mntwatch_without_proc "events: $(head -c 300 "$CLI_TMP/w.out")"
	else
		pass mntwatch_without_proc
	fi
}

plain_cases="c_lsmnt_fallbacks c_lsmnt_findmnt c_statmnt_fallbacks
	c_ns_path_ioctl_refused c_mntwatch_fallbacks c_refusal_errors c_without_proc"
ns_cases=""

if [ ! -x "$SECCOMP_RUN" ]; then
	fail seccomp_run_built "no executable $SECCOMP_RUN"
	cli_done
fi
cli_main true "" "${2:-}"
