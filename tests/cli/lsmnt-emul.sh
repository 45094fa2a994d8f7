#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/lsmnt-emul.sh ABS_BUILDDIR - lsmnt on the mountinfo backend
# (MNTKIT_BACKEND=mountinfo) against the real findmnt(8), with hidden
# mounts: overmounted and stacked ones (whose mount points do not lead to
# them, so that the emulation names them by their old IDs), one with a
# hidden submount, a bind of a mount on itself, and a hidden devtmpfs (a
# type without a fixed magic). Both must print the same bytes in every list
# mode (-l, -f, -D, -R, -r, -P, -J, backward) and the tree, with the
# options and MAJ:MIN of the hidden mounts. The same runs on the backend
# the machine picks, as a control. The cases need root (SKIP without).

# cli_main (lib.sh) calls the cases through $plain_cases and $ns_cases:
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cli_init "$1"
use_findmnt

LSMNT=$BUILDDIR/tools/lsmnt
CLI_PROG=lsmnt
export LSMNT

plain_cases=""

# ---- cases in a private mount namespace ----

setup_hidden() {
	T=$CLI_TMP/t
	export T
	mkdir -p "$T" && mount -t tmpfs emul-top "$T" || return 1
	mkdir "$T/a" "$T/c" "$T/o" "$T/s" || return 1
	# overmounted (hidden below), stacked with a submount that is hidden
	# now, a bind of a mount on itself
	mount -t tmpfs emul-o1 "$T/o" && mount -t tmpfs emul-o2 "$T/o" &&
		mount -t tmpfs emul-c1 "$T/c" && mkdir "$T/c/k" &&
		mount -t tmpfs emul-k "$T/c/k" &&
		mount -t tmpfs emul-c2 "$T/c" &&
		mount -t tmpfs -o size=1m emul-a "$T/a" &&
		mount --bind "$T/a" "$T/a" &&
		mount -t tmpfs -o ro emul-s "$T/s" || return 1
	# a hidden devtmpfs: no fixed magic; where devtmpfs cannot be mounted
	# the rest still runs (the case says so)
	DEVTMPFS=0
	if mkdir "$T/d" && mount -t devtmpfs emul-dev "$T/d" 2>/dev/null; then
		mount -t tmpfs emul-over "$T/d" || return 1
		DEVTMPFS=1
	fi
	export DEVTMPFS
}

c_ns_list_modes() {
	py_case ns_hidden_list_modes
}

c_ns_subtree() {
	py_case ns_hidden_subtree
}

c_ns_hidden_devtmpfs() {
	py_case ns_hidden_devtmpfs
}

ns_cases="c_ns_list_modes c_ns_subtree c_ns_hidden_devtmpfs"

# ---- main ----

cli_main setup_hidden "could not build the test mounts" "${2:-}"
