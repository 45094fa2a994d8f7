#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/abi.sh - the ABI guard: the built libmntkit.so.0 has exactly
# the ABI of the committed baseline abi/libmntkit.abi (libabigail's abidw
# output over the public header's types). Any difference - a function
# added, removed or changed, a public struct grown or reordered - fails,
# with abidiff's report, until it is meant: then make the baseline anew
# with `make abi-baseline`, and say why in the commit (and in NEWS).
#
# Usage: bash tests/cli/abi.sh ABS_BUILDDIR

. "$(dirname "$0")/lib.sh"
cli_init "$1"

lib=$(ls "$BUILDDIR"/lib/libmntkit.so.0.* 2>/dev/null | head -n 1)
if [ -z "$lib" ]; then
	fail abi_matches_baseline "no $BUILDDIR/lib/libmntkit.so.0.*"
	cli_done
fi
if ! have_cmd abidiff; then
	if is_root && sh "$SRCDIR/scripts/deps.sh" abigail-tools >/dev/null 2>&1; then
		:
	else
		skip abi_matches_baseline "abidiff (Debian's abigail-tools) is not installed"
		cli_done
	fi
fi
if ! readelf -S "$lib" | grep -q '\.debug_info'; then
	skip abi_matches_baseline "$lib has no debug info (buildtype without -g); make check's build has it"
	cli_done
fi
abidiff --headers-dir2 "$SRCDIR/include" "$SRCDIR/abi/libmntkit.abi" "$lib" \
	>"$CLI_TMP/abidiff.txt" 2>&1
rc=$?
if [ "$rc" = 0 ]; then
	pass abi_matches_baseline
else
	# the report, for whoever reads the run's stderr
	sed 's/^/abidiff: /' "$CLI_TMP/abidiff.txt" >&2
	fail abi_matches_baseline "abidiff exited $rc (4: an ABI change, 8: an incompatible one): $(grep -E 'Removed|Changed|Added' "$CLI_TMP/abidiff.txt" | head -n 2 | tr '\n' ' ')- if it is meant: make abi-baseline"
fi
cli_done
