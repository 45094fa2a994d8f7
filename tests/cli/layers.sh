#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/layers.sh - the library's files depend on each other one way
# (lib/README): the file-level graph, derived from the built objects of
# libmntkit.so.0 (lib/libmntkit.so.0*.p/*.o; by nm, a file depends on the
# file that defines a symbol it leaves undefined), has no cycle. A cycle fails, named file by file with
# a symbol of each step (e.g. "query.c -> table.c (mntkit__table_build)
# -> query.c (mntkit__stat_into)").
#
# MNTKIT_LAYERS_GRAPH=1 prints the graph on stderr (one "A -> B: symbols"
# line per edge), for whoever moves code between the files.
#
# Usage: bash tests/cli/layers.sh ABS_BUILDDIR

. "$(dirname "$0")/lib.sh"
cli_init "$1"

objdir=$(ls -d "$BUILDDIR"/lib/libmntkit.so.0*.p 2>/dev/null | head -n 1)
if [ -z "$objdir" ] || ! ls "$objdir"/*.o >/dev/null 2>&1; then
	fail lib_files_acyclic "no objects in $BUILDDIR/lib/libmntkit.so.0*.p (build the library first)"
	cli_done
fi
if ! have_cmd nm || ! have_cmd python3; then
	skip lib_files_acyclic "nm (binutils) or python3 is not installed"
	cli_done
fi

# "FILE KIND SYMBOL" lines: KIND D (defined, global) or U (undefined)
for o in "$objdir"/*.o; do
	f=${o##*/}
	f=${f%.o}
	# an object left from a file since renamed or removed is no file
	[ -f "$SRCDIR/lib/$f" ] || continue
	nm -g "$o" | awk -v f="$f" '
		$1 == "U" { print f, "U", $2; next }
		NF == 3 && $2 ~ /^[A-Z]$/ { print f, "D", $3 }'
done >"$CLI_TMP/syms" 2>"$CLI_TMP/nm.err"
if [ -s "$CLI_TMP/nm.err" ]; then
	fail lib_files_acyclic "nm: $(head -n 1 "$CLI_TMP/nm.err")"
	cli_done
fi

SYMS=$CLI_TMP/syms GRAPH=$CLI_TMP/graph py_case lib_files_acyclic
[ "${MNTKIT_LAYERS_GRAPH:-}" = 1 ] && [ -f "$CLI_TMP/graph" ] &&
	sed 's/^/layers: /' "$CLI_TMP/graph" >&2
cli_done
