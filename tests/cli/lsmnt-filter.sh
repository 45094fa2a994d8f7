#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/lsmnt-filter.sh ABS_BUILDDIR - filter expressions (-Q) against
# the real findmnt 2.42 (Debian sid's util-linux, fetched and run through
# its own loader by scripts/findmnt-suite.sh; cached in
# BUILDDIR/findmnt-cache).
#
# In a private mount namespace with varied mounts (tmpfs of several sizes
# and options, sources with blanks, quotes and accents, bind, read-only,
# shared, slave and unbindable mounts, a stacked mount, nested mounts,
# ramfs, proc, sysfs), the
# expressions of tests/cli/py/lsmnt_filter.py, a fixed list and random ones,
# run through
#
#   engine-*   lsmnt's filter engine (tools/lsmnt/expr*.c, as
#              tests/expr-run drives it) over the rows of the table, and
#   lsmnt-*    lsmnt -Q (SKIP while lsmnt has no -Q),
#
# and findmnt 2.42 -Q: the same stdout, stderr (the program's name aside)
# and exit status. Without findmnt 2.42 (no cache and no Debian archive)
# or without root the cases say SKIP. MNTKIT_FILTER_CASES="engine-fixed ..."
# runs only those; MNTKIT_FILTER_SEED and MNTKIT_FILTER_N choose the
# random expressions (py/lsmnt_filter.py).

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cli_init "$1"

CASES=${MNTKIT_FILTER_CASES:-engine-fixed engine-random lsmnt-fixed lsmnt-random}

skip_all() {
	for c in $CASES; do
		skip "filter_${c//-/_}" "$1"
	done
	cli_done
}

# the test mounts (py/lsmnt_filter.py's), in the private namespace
filter_mounts() {
	python3 "$SRCDIR/tests/cli/py/lsmnt_filter.py" mounts "$CLI_TMP/t"
}

if [ "${2:-}" != --in-ns ]; then
	FINDMNT=$(sh "$SRCDIR/scripts/findmnt-suite.sh" sid \
		"$BUILDDIR/findmnt-cache") || skip_all "$FINDMNT"
	[ -x "$BUILDDIR/tests/expr-run" ] ||
		skip_all "no $BUILDDIR/tests/expr-run"
	can_unshare_mount ||
		skip_all "needs root and a private mount namespace (unshare -m)"
	have_cmd python3 || skip_all "no python3"
	export FINDMNT
	CLI_TMP_INHERIT=1 unshare_private \
		bash "$0" "$BUILDDIR" --in-ns
	exit $?
fi

if ! filter_mounts; then
	for c in $CASES; do
		fail "filter_${c//-/_}" "the test mounts failed"
	done
	cli_done
fi
for c in $CASES; do
	out=$(python3 "$SRCDIR/tests/cli/py/lsmnt_filter.py" "$c" "$FINDMNT" \
		"$BUILDDIR" 2>"$CLI_TMP/err.$c")
	rc=$?
	reason=$(printf '%s\n' "$out" | tail -n 1)
	case $rc in
	0) pass "filter_${c//-/_}" ;;
	77) skip "filter_${c//-/_}" "$reason" ;;
	*)
		cat "$CLI_TMP/err.$c" >&2
		fail "filter_${c//-/_}" "$reason"
		;;
	esac
done
cli_done
