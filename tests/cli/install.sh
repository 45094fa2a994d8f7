#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/install.sh - what `make install` puts in place works: the
# staged tree has the library (soname, versioned symbols), the header, the
# pkg-config file, the tools, the man pages, the README and the sources of
# examples/, and a program built from the staged tree alone with
# pkg-config links and runs, and so do the installed examples; the Python
# module imports from the staged tree.
#
# Usage: bash tests/cli/install.sh ABS_BUILDDIR

. "$(dirname "$0")/lib.sh"
cli_init "$1"

STAGE="$CLI_TMP/stage"

if ! have_cmd meson; then
	skip install_staged "meson is not installed"
	cli_done
fi
run meson install -C "$BUILDDIR" --no-rebuild --destdir "$STAGE" --quiet
if [ "$RC" != 0 ]; then
	fail install_staged "meson install exited $RC: $(tail -n 3 "$ERR")"
	cli_done
fi
pass install_staged

prefix=$(meson introspect --buildoptions "$BUILDDIR" |
	mntkit_py build_options prefix libdir bindir includedir mandir b_sanitize)
read -r PREFIX LIBDIR BINDIR INCDIR MANDIR SANITIZE <<<"$prefix"
case $LIBDIR in /*) ;; *) LIBDIR="$PREFIX/$LIBDIR" ;; esac
case $BINDIR in /*) ;; *) BINDIR="$PREFIX/$BINDIR" ;; esac
case $INCDIR in /*) ;; *) INCDIR="$PREFIX/$INCDIR" ;; esac
case $MANDIR in /*) ;; *) MANDIR="$PREFIX/$MANDIR" ;; esac
S_LIB="$STAGE$LIBDIR"

missing=""
for f in "$S_LIB/libmntkit.so.0" "$S_LIB/libmntkit.so" "$S_LIB/libmntkit.a" \
	"$S_LIB/pkgconfig/mntkit.pc" "$STAGE$INCDIR/mntkit.h" \
	"$STAGE$INCDIR/mntkit/abi.h" \
	"$STAGE$BINDIR/statmnt" "$STAGE$MANDIR/man1/statmnt.1" \
	"$STAGE$MANDIR/man3/mntkit.3" "$STAGE$MANDIR/man3/mntkit_stat.3" \
	"$STAGE$PREFIX/share/bash-completion/completions/mntkit" \
	"$STAGE$PREFIX/share/bash-completion/completions/lsmnt" \
	"$STAGE$PREFIX/share/bash-completion/completions/statmnt" \
	"$STAGE$PREFIX/share/bash-completion/completions/mntwatch" \
	"$STAGE$PREFIX/share/mntkit/mntwatch-event.schema.json" \
	"$STAGE$PREFIX/share/doc/libmntkit-dev/README.md"; do
	[ -e "$f" ] || missing="$missing ${f#"$STAGE"}"
done
# every example of the tree, and nothing else, as mntkit(3) says
EXDIR="$STAGE$PREFIX/share/doc/libmntkit-dev/examples"
got=$(cd "$EXDIR" 2>/dev/null && echo *)
if [ "$(cd "$SRCDIR/examples" && echo *.c)" != "$got" ]; then
	missing="$missing examples: ${got:-none}"
fi
if [ -z "$missing" ]; then
	pass installed_files
else
	fail installed_files "missing:$missing"
fi

soname=$(objdump -p "$S_LIB/libmntkit.so.0" 2>/dev/null |
	awk '/SONAME/ {print $2}')
if [ "$soname" = libmntkit.so.0 ]; then
	pass soname
else
	fail soname "SONAME is '$soname', want libmntkit.so.0"
fi

# every exported function is versioned, and none of the library's
# internals (mntkit__*) leak out
exports=$(objdump -T "$S_LIB/libmntkit.so.0" | awk '$4 == ".text" {print $6, $7}')
unversioned=$(printf '%s\n' "$exports" | awk '$1 !~ /^MNTKIT_/ {print $0}')
internal=$(printf '%s\n' "$exports" | awk '$2 ~ /^mntkit__/ {print $2}')
# the functions the header declares (preprocessed: no comments, no
# macros), but for its static inline ones (mntkit_stat_span()), which are
# compiled into the caller and exported by nothing
header=$(cc -E -P -D_GNU_SOURCE -I"$SRCDIR/include" -x c - <<<'#include <mntkit.h>' |
	tr '\n' ' ')
inline=$(grep -o 'static inline[^;{(]*[ *]mntkit_[a-z_]* *(' <<<"$header" |
	grep -o 'mntkit_[a-z_]*' | sort -u)
declared=$(grep -o 'mntkit_[a-z_]* *(' <<<"$header" | grep -o 'mntkit_[a-z_]*' |
	sort -u | comm -23 - <(printf '%s\n' "$inline"))
exported=$(printf '%s\n' "$exports" | awk '{print $2}' | sort -u)
if [ -n "$unversioned$internal" ]; then
	fail symbols "unversioned: $unversioned; internal: $internal"
elif [ "$declared" != "$exported" ]; then
	fail symbols "header and exports differ: $(diff <(echo "$declared") \
		<(echo "$exported") | grep '^[<>]' | tr '\n' ' ')"
else
	pass symbols
fi

# the tools use the installed shared library (a fix in libmntkit reaches
# them), and run from the staged tree
bad=""
for t in statmnt lsmnt mntwatch; do
	if ! LD_LIBRARY_PATH="$S_LIB" ldd "$STAGE$BINDIR/$t" 2>/dev/null |
		grep -q "libmntkit.so.0 => $S_LIB/"; then
		bad="$bad $t(not linked to the staged libmntkit.so.0)"
	elif ! LD_LIBRARY_PATH="$S_LIB" "$STAGE$BINDIR/$t" --version \
		>/dev/null 2>&1; then
		bad="$bad $t(--version failed)"
	fi
done
if [ -z "$bad" ]; then
	pass tools_use_shared_library
else
	fail tools_use_shared_library "$bad"
fi

# the Python module (where the build has it), with its stub, imports from
# the staged tree on the staged library
pymod=$(find "$STAGE" -path '*/dist-packages/mntkit*.so' 2>/dev/null | head -n 1)
if ! ls "$BUILDDIR"/python/mntkit*.so >/dev/null 2>&1; then
	skip python_module_staged "the build has no Python module (-Dpython)"
elif [ "$SANITIZE" != none ]; then
	skip python_module_staged "a sanitizer build (tests/cli/python.sh runs its module)"
elif [ -z "$pymod" ] || [ ! -f "${pymod%/*}/mntkit.pyi" ]; then
	fail python_module_staged "no mntkit*.so and mntkit.pyi in a dist-packages of the staged tree"
elif ! LD_LIBRARY_PATH="$S_LIB" ldd "$pymod" | grep -q "libmntkit.so.0 => $S_LIB/"; then
	fail python_module_staged "the staged module is not linked to the staged libmntkit.so.0"
elif ! got=$(LD_LIBRARY_PATH="$S_LIB" PYTHONPATH="${pymod%/*}" \
	/usr/bin/python3 "$SRCDIR/tests/cli/py/install_import.py" 2>&1) ||
	[ "$got" != "$pymod $(grep -c '' /proc/self/mountinfo)" ]; then
	fail python_module_staged "the staged module's import printed: $got"
else
	pass python_module_staged
fi

if ! have_cmd pkg-config || ! have_cmd cc; then
	skip pkgconfig_build "pkg-config or cc missing"
	cli_done
fi
cat >"$CLI_TMP/prog.c" <<'PROG'
#include <stdio.h>
#include <stdlib.h>
#include <mntkit.h>

int main(void)
{
	uint64_t *ids;
	ssize_t n = mntkit_list(MNTKIT_LSMT_ROOT, 0, NULL, &ids);

	if (n < 0)
		return 1;
	printf("%zd %s %s %d.%d.%d\n", n, mntkit_backend_name(mntkit_get_backend()),
	       mntkit_version(), MNTKIT_VERSION_MAJOR, MNTKIT_VERSION_MINOR,
	       MNTKIT_VERSION_PATCH);
	free(ids);
	return 0;
}
PROG
flags=$(PKG_CONFIG_SYSROOT_DIR="$STAGE" PKG_CONFIG_PATH="$S_LIB/pkgconfig" \
	pkg-config --cflags --libs mntkit)
# a sanitized library needs a program linked with the same runtime
[ "$SANITIZE" = none ] || flags="$flags -fsanitize=$SANITIZE"
# shellcheck disable=SC2086
if ! cc -o "$CLI_TMP/prog" "$CLI_TMP/prog.c" $flags 2>"$CLI_TMP/cc.err"; then
	fail pkgconfig_build "cc: $(head -n 3 "$CLI_TMP/cc.err")"
	cli_done
fi
got=$(LD_LIBRARY_PATH="$S_LIB" "$CLI_TMP/prog")
want=$(grep -c '' /proc/self/mountinfo)
if [ "${got%% *}" = "$want" ] &&
	LD_LIBRARY_PATH="$S_LIB" ldd "$CLI_TMP/prog" |
	grep -q "libmntkit.so.0 => $S_LIB/"; then
	pass pkgconfig_build
else
	fail pkgconfig_build "staged program printed '$got'; mountinfo has $want lines"
fi

# the installed examples build from the staged tree alone (-Werror: as
# clean for a user's compiler as in the tree) and run
bad=""
for ex in "$EXDIR"/*.c; do
	name=$(basename "$ex" .c)
	# shellcheck disable=SC2086
	if ! cc -Wall -Wextra -Werror -o "$CLI_TMP/$name" "$ex" $flags \
		2>"$CLI_TMP/cc.err"; then
		bad="$bad $name($(head -n 1 "$CLI_TMP/cc.err"))"
	fi
done
exlines=$(LD_LIBRARY_PATH="$S_LIB" "$CLI_TMP/list-mounts" 2>&1 | grep -c '')
if [ -z "$bad" ] && [ "$exlines" = "$want" ]; then
	pass examples_build
else
	fail examples_build "cc:${bad:- ok}; the staged list-mounts printed $exlines lines, mountinfo has $want"
fi

# one release number everywhere: meson.build (the .pc file), the header's
# macros and mntkit_version() at run time
pcver=$(PKG_CONFIG_SYSROOT_DIR="$STAGE" PKG_CONFIG_PATH="$S_LIB/pkgconfig" \
	pkg-config --modversion mntkit)
read -r _ _ runver hdrver <<<"$got"
if [ -n "$pcver" ] && [ "$runver" = "$pcver" ] && [ "$hdrver" = "$pcver" ]; then
	pass version
else
	fail version "mntkit.pc says '$pcver', mntkit_version() '$runver', the header '$hdrver'"
fi
cli_done
