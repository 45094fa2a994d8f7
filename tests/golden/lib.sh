# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/golden/lib.sh - what tests/golden/regen.sh (findmnt) and
# tests/cli/golden.sh (lsmnt) share, so that both run a case alike:
#
#   golden_run PROG OUT ERR [VAR=VALUE]... ARGS...
#	runs PROG ARGS in tests/golden/in with a fixed environment (env -i:
#	nothing of the caller's leaks, no LIBMOUNT_*, LC_ALL=C, TZ=UTC,
#	COLUMNS=80, the private libblkid cache $GOLDEN_BLKID_FILE) plus the
#	VAR=VALUE words, stdin /dev/null, stdout to a file (never a
#	terminal: no truncation, widths from the cells, in both); writes
#	its stdout and a last line "rc=N" to OUT, its stderr to ERR
#   GOLDEN_DIR, GOLDEN_IN, GOLDEN_EXPECTED

GOLDEN_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GOLDEN_IN=$GOLDEN_DIR/in
# shellcheck disable=SC2034 # used by the scripts that source this
GOLDEN_EXPECTED=$GOLDEN_DIR/expected

golden_run() {
	local prog=$1 out=$2 err=$3 envs=() rc
	shift 3
	while [ $# -gt 0 ] && [[ $1 =~ ^[A-Z_][A-Z0-9_]*= ]]; do
		envs+=("$1")
		shift
	done
	(cd "$GOLDEN_IN" && exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		LC_ALL=C TZ=UTC COLUMNS=80 LINES=24 HOME=/nonexistent \
		BLKID_FILE="$GOLDEN_BLKID_FILE" ${envs[@]+"${envs[@]}"} \
		"$prog" "$@") </dev/null >"$out" 2>"$err"
	rc=$?
	printf 'rc=%d\n' "$rc" >>"$out"
}
