#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/golden/regen.sh - write tests/golden/expected/NAME for every case
# of tests/golden/cases, from the reference findmnt: util-linux 2.42
# (Debian sid's, run through its own loader by scripts/findmnt-suite.sh,
# cached in $MNTKIT_FINDMNT_CACHE or build/findmnt-cache; or $FINDMNT).
# Never from lsmnt: the committed files are findmnt's output (its stdout,
# then "rc=N"), what lsmnt must print.
#
# Run by a maintainer when a case is added or changed (then commit the
# new expected files with the case); the test itself
# (tests/cli/golden.sh) needs neither findmnt nor root. It refuses to run
# with another findmnt version. The cases of "x" lines (lsmnt differs)
# get findmnt's output too; those of "h" lines (findmnt cannot write
# them) are kept as they are. Expected files of cases no longer listed are
# removed.
#
# Usage: bash tests/golden/regen.sh   (from any working directory)

set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

if [ -z "${FINDMNT:-}" ]; then
	src=$(cd "$GOLDEN_DIR/../.." && pwd)
	if ! FINDMNT=$(sh "$src/scripts/findmnt-suite.sh" sid \
		"${MNTKIT_FINDMNT_CACHE:-$src/build/findmnt-cache}"); then
		echo "regen.sh: $FINDMNT" >&2
		exit 2
	fi
fi
ver=$("$FINDMNT" --version 2>/dev/null)
case $ver in
*" 2.42"|*" 2.42."*) ;;
*)
	echo "regen.sh: needs findmnt 2.42, $FINDMNT is: ${ver:-missing}" >&2
	exit 2
	;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mntkit-golden.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
GOLDEN_BLKID_FILE=$tmp/blkid.tab
mkdir -p "$GOLDEN_EXPECTED"
n=0
names=" "

c() {
	local name=$1
	shift
	golden_run "$FINDMNT" "$GOLDEN_EXPECTED/$name" "$tmp/err" "$@"
	n=$((n + 1))
	names="$names$name "
}

x() {
	local name=$1
	shift 2
	c "$name" "$@"
}

# written by hand: kept as they are
h() {
	names="$names$1 "
}

# shellcheck source-path=SCRIPTDIR source=cases
. "$GOLDEN_DIR/cases"

for f in "$GOLDEN_EXPECTED"/*; do
	[ -e "$f" ] || continue
	case $names in
	*" ${f##*/} "*) ;;
	*) echo "regen.sh: removing ${f##*/} (no such case)"; rm -f "$f" ;;
	esac
done
echo "regen.sh: $n expected files written with $ver"
