#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/golden.sh ABS_BUILDDIR - golden tests of lsmnt over canned
# table files (tests/golden/in: mountinfo with binds, stacked mounts,
# propagation, a missing parent, octal escapes; fstab with comments,
# tags, swap, binds, bad lines; mtab; empty files), in the manner of
# util-linux's tests/ts/findmnt. Each case of tests/golden/cases runs
# lsmnt in a fixed environment (tests/golden/lib.sh) and compares its
# stdout and exit status byte for byte with tests/golden/expected/NAME,
# which findmnt 2.42 wrote (tests/golden/regen.sh). Needs no root, no
# findmnt and no mount: it checks lsmnt where util-linux is missing, and
# a change of the installed findmnt cannot be followed silently (the live
# comparisons of lsmnt-tab.sh would follow it).
#
# Every case runs on both backends (MNTKIT_BACKEND=native and
# =mountinfo): a table file is read the same way on both, and this proves
# it. A case is PASS/FAIL golden_NAME_BACKEND, a diff on stderr on FAIL.
# An x case (a known difference, findmnt's output recorded) is SKIP with
# its reason while lsmnt differs; an h case (expected written by hand,
# where findmnt cannot write it) is compared as any other. The cases of
# LC_ALL=C.UTF-8 skip without that locale.

# the cases file calls c, x and h:
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cli_init "$1"
# shellcheck source=../golden/lib.sh
. "$SRCDIR/tests/golden/lib.sh"

LSMNT=$BUILDDIR/tools/lsmnt
GOLDEN_BLKID_FILE=$CLI_TMP/blkid.tab
if [ ! -x "$LSMNT" ]; then
	fail lsmnt_built "no executable $LSMNT"
	cli_done
fi

# one case on one backend: lsmnt's stdout + "rc=N" against the file
golden_case() {
	local name=$1 backend=$2 want=$GOLDEN_EXPECTED/$1
	shift 2
	if [ ! -f "$want" ]; then
		fail "golden_${name}_$backend" "no $want (run tests/golden/regen.sh)"
		return
	fi
	golden_run "$LSMNT" "$OUT" "$ERR" MNTKIT_BACKEND="$backend" "$@"
	if cmp -s "$want" "$OUT"; then
		pass "golden_${name}_$backend"
	else
		{
			echo "golden_${name}_$backend: lsmnt $* (- findmnt, + lsmnt):"
			diff -u "$want" "$OUT" | tail -n +3
			sed 's/^/stderr: /' "$ERR"
		} >&2
		fail "golden_${name}_$backend" "lsmnt $* differs from expected/$name (diff on stderr): $(diff "$want" "$OUT" | grep -m 2 '^[<>]' | tr '\n' ' ')"
	fi
}

# C.UTF-8 (glibc 2.35 has it built in): the cases that ask for it skip
# without it, since both tools would fall back to C
have_utf8=0
[ "$(LC_ALL=C.UTF-8 locale charmap 2>/dev/null)" = UTF-8 ] && have_utf8=1

c() {
	local b
	for b in native mountinfo; do
		if [ "$have_utf8" = 0 ] && [[ " ${*:2} " == *" LC_ALL=C.UTF-8 "* ]]; then
			skip "golden_${1}_$b" "no C.UTF-8 locale"
		else
			golden_case "$1" "$b" "${@:2}"
		fi
	done
}

# expected/NAME written by hand (REASON says why): compared alike
h() {
	c "$1" "${@:3}"
}

# a known difference: SKIP while lsmnt differs, FAIL once it matches
x() {
	local name=$1 why=$2 b
	shift 2
	for b in native mountinfo; do
		golden_run "$LSMNT" "$OUT" "$ERR" MNTKIT_BACKEND="$b" "$@"
		if cmp -s "$GOLDEN_EXPECTED/$name" "$OUT"; then
			fail "golden_${name}_$b" "lsmnt now matches findmnt: make it a c case in tests/golden/cases (was: $why)"
		else
			skip "golden_${name}_$b" "$why"
		fi
	done
}

# shellcheck source=../golden/cases
. "$SRCDIR/tests/golden/cases"

# every expected file has its case (a case renamed or dropped without
# regen.sh leaves one that nothing checks)
for f in "$GOLDEN_EXPECTED"/*; do
	n=${f##*/}
	if ! grep -Eq "^[cxh][[:space:]]+$n([[:space:]]|$)" "$SRCDIR/tests/golden/cases"; then
		fail golden_files "expected/$n has no case in tests/golden/cases"
	fi
done
cli_done
