#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/layers.sh - the library's modules call each other one way, in
# the order lib/README declares (its top tells the format: numbered
# layers, and in them modules of one file or of several). Who calls whom
# comes from the built objects of libmntkit.so.0 (lib/libmntkit.so.0*.p/
# *.o; by nm, a file calls the file that defines a symbol it leaves
# undefined). The cases:
#
#   lib_readme_files     every lib/*.c is in lib/README's layers, every
#                        lib/*.h is named in lib/README, and every file
#                        the layers name exists
#   lib_layers_one_way   no file calls a module of a higher layer than its
#                        own (e.g. "query.c (layer 8) calls watch (layer
#                        9): query.c -> watch.c (mntkit__watch_x)")
#   lib_modules_acyclic  no modules call each other round a cycle, named
#                        with a symbol per step (e.g. "query.c -> table
#                        (query.c -> table-walk.c: mntkit__table_list_shaped)
#                        -> query.c (table-build.c -> query.c: mntkit__x)");
#                        the files of one module may call each other
#   lib_layers_check     the check itself, on a made-up lib/README and
#                        objects: it finds each of the faults above
#
# MNTKIT_LAYERS_GRAPH=1 prints the module graph on stderr (one
# "A -> B: file -> file: symbols" line per pair of files), for whoever
# moves code between the files.
#
# Usage: bash tests/cli/layers.sh ABS_BUILDDIR

. "$(dirname "$0")/lib.sh"
cli_init "$1"


if ! have_cmd python3; then
	skip lib_layers "python3 is not installed"
	cli_done
fi

py_case lib_layers_check

objdir=$(ls -d "$BUILDDIR"/lib/libmntkit.so.0*.p 2>/dev/null | head -n 1)
if [ -z "$objdir" ] || ! ls "$objdir"/*.o >/dev/null 2>&1; then
	fail lib_layers "no objects in $BUILDDIR/lib/libmntkit.so.0*.p (build the library first)"
	cli_done
fi
if ! have_cmd nm; then
	skip lib_layers "nm (binutils) is not installed"
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
	fail lib_layers "nm: $(head -n 1 "$CLI_TMP/nm.err")"
	cli_done
fi

export README=$SRCDIR/lib/README SYMS=$CLI_TMP/syms LIBDIR=$SRCDIR/lib
py_case lib_readme_files
py_case lib_layers_one_way
GRAPH=$CLI_TMP/graph py_case lib_modules_acyclic
[ "${MNTKIT_LAYERS_GRAPH:-}" = 1 ] && [ -f "$CLI_TMP/graph" ] &&
	sed 's/^/layers: /' "$CLI_TMP/graph" >&2
cli_done
