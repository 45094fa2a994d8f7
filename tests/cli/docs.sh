#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/docs.sh - the documentation matches the tree:
#
#   - "man 3 SYMBOL" works for every exported symbol (lib/libmntkit.map):
#     man/SYMBOL.3 is a page, or a one-line ".so man3/PAGE.3" link to a
#     page of man/, and that page's NAME or SYNOPSIS names the symbol
#     (every link of man/ too, the types' links included);
#   - every reference to a library page names a file of man/;
#   - every page renders without a warning (groff -man -ww, man --warnings),
#     the library's pages have the sections a reader looks for, all pages
#     carry one date, and man/meson.build installs every file of man/;
#   (lib/README's list of lib/'s files is tests/cli/layers.sh's to check,
#   with the layers it declares.)
#
# Usage: bash tests/cli/docs.sh ABS_BUILDDIR (the build is not used)

. "$(dirname "$0")/lib.sh"
cli_init "$1"

MAN="$SRCDIR/man"

# the target page of a link file ("man3/X.3" -> man/X.3), empty if FILE
# is a page
link_target() {
	local first
	first=$(sed -n '1{s/^\.so[[:space:]]\{1,\}//p;}' "$1")
	[ -n "$first" ] && printf '%s\n' "$MAN/${first##*/}"
}

# NAME and SYNOPSIS of a page, as text: the escapes of the names taken off
name_synopsis() {
	sed -n '/^\.SH NAME/,/^\.SH DESCRIPTION/p' "$1" |
		sed -e 's/\\%//g' -e 's/\\&//g' -e 's/\\f[BIRP]//g' \
			-e 's/\\-/-/g'
}

# names NAME WORD: does the page's NAME or SYNOPSIS hold WORD as a word?
names() {
	name_synopsis "$1" |
		grep -qE "(^|[^A-Za-z0-9_])$2([^A-Za-z0-9_]|$)"
}

# check_name FILE NAME: FILE (a page or a link) leads to a page of man/
# that names NAME; prints what is wrong, nothing when all is well
check_name() {
	local f=$1 name=$2 page
	if [ ! -f "$f" ]; then
		printf '%s: no man/%s\n' "$name" "${f##*/}"
		return
	fi
	page=$(link_target "$f")
	if [ -n "$page" ]; then
		if [ "$(grep -c '' "$f")" != 1 ]; then
			printf '%s: a link of more than one line\n' "${f##*/}"
			return
		fi
		if [ ! -f "$page" ]; then
			printf '%s: links to %s, which is not in man/\n' \
				"${f##*/}" "${page##*/}"
			return
		fi
		if [ -n "$(link_target "$page")" ]; then
			printf '%s: links to %s, itself a link\n' \
				"${f##*/}" "${page##*/}"
			return
		fi
	else
		page=$f
	fi
	names "$page" "$name" ||
		printf '%s: %s names it in neither NAME nor SYNOPSIS\n' \
			"$name" "${page##*/}"
}

# every exported symbol: the global: parts of the version nodes
exports=$(awk '/global:/ { g = 1; next } /local:/ { g = 0 }
	g && /;/ { gsub(/[ \t;]/, ""); if ($0 != "") print }' \
	"$SRCDIR/lib/libmntkit.map")
if [ -z "$exports" ]; then
	fail man_page_per_export "no symbol found in lib/libmntkit.map"
else
	bad=""
	for sym in $exports; do
		bad="$bad$(check_name "$MAN/$sym.3" "$sym")
"
	done
	bad=$(printf '%s' "$bad" | grep -v '^$')
	if [ -z "$bad" ]; then
		pass man_page_per_export
	else
		fail man_page_per_export "$(printf '%s\n' "$bad" | head -n 5 |
			tr '\n' ';') ($(printf '%s\n' "$bad" | grep -c '') in all)"
	fi
fi

# every link file of man/ (the types' links too)
links=""
pages=""
for f in "$MAN"/*.[1-8]; do
	if [ -n "$(link_target "$f")" ]; then
		links="$links $f"
	else
		pages="$pages $f"
	fi
done
bad=""
for f in $links; do
	n=${f##*/}
	bad="$bad$(check_name "$f" "${n%.*}")
"
done
bad=$(printf '%s' "$bad" | grep -v '^$')
if [ -z "$bad" ]; then
	pass man_links_resolve
else
	fail man_links_resolve "$(printf '%s\n' "$bad" | head -n 5 | tr '\n' ';')"
fi

# every page renders cleanly
if ! have_cmd groff; then
	skip man_pages_render "groff is not installed"
else
	bad=""
	for f in $pages; do
		if ! groff -man -ww -z "$f" >"$CLI_TMP/groff.err" 2>&1 ||
			[ -s "$CLI_TMP/groff.err" ]; then
			bad="$bad ${f##*/}: groff: $(head -n 1 "$CLI_TMP/groff.err");"
		fi
		have_cmd man || continue
		if ! MANWIDTH=80 man --warnings -l "$f" >/dev/null \
			2>"$CLI_TMP/man.err" || [ -s "$CLI_TMP/man.err" ]; then
			bad="$bad ${f##*/}: man: $(head -n 1 "$CLI_TMP/man.err");"
		fi
	done
	if [ -z "$bad" ]; then
		pass man_pages_render
	else
		fail man_pages_render "$bad"
	fi
fi

# the library's pages have what a reader looks for
bad=""
for f in $pages; do
	case $f in *.3) ;; *) continue ;; esac
	for sec in NAME SYNOPSIS DESCRIPTION "RETURN VALUE" ERRORS "SEE ALSO"; do
		grep -q "^\.SH $sec\$" "$f" || bad="$bad ${f##*/}: no $sec;"
	done
	name_synopsis "$f" | grep -q '#include <mntkit.h>' ||
		bad="$bad ${f##*/}: no #include <mntkit.h> in SYNOPSIS;"
done
if [ -z "$bad" ]; then
	pass man_pages_sections
else
	fail man_pages_sections "$bad"
fi

# one date on every page
dates=$(for f in $pages; do
	awk '/^\.TH / { print $4; exit }' "$f"
done | sort -u)
if [ "$(printf '%s\n' "$dates" | grep -c .)" = 1 ]; then
	pass man_pages_one_date
else
	fail man_pages_one_date "the pages carry $(printf '%s' "$dates" | tr '\n' ' ')"
fi

# man/meson.build installs every file of man/
bad=""
for f in $pages $links; do
	grep -q "'${f##*/}'" "$MAN/meson.build" || bad="$bad ${f##*/}"
done
if [ -z "$bad" ]; then
	pass man_pages_installed
else
	fail man_pages_installed "not in man/meson.build:$bad"
fi

# every reference to a library page, in the pages (".BR name (3)") and in
# the prose and the header ("name(3)"), is to a file of man/
bad=""
for n in $( { grep -ohE '^\.BR \\?%?mntkit[a-z_]* \(3\)' "$MAN"/*.[1-8] |
		sed -E 's/^\.BR \\?%?//; s/ \(3\)$//'
	grep -ohE '\bmntkit[a-z_]*\(3\)' "$SRCDIR"/README.md "$SRCDIR"/NEWS \
		"$SRCDIR"/include/*.h "$SRCDIR"/doc/*.md 2>/dev/null |
		sed 's/(3)$//'; } | sort -u); do
	[ -f "$MAN/$n.3" ] || bad="$bad $n(3)"
done
if [ -z "$bad" ]; then
	pass man_references_resolve
else
	fail man_references_resolve "no page for:$bad"
fi

cli_done
