#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/package.sh - the Debian packages a distribution would ship:
# debian/ builds with `dpkg-buildpackage -us -uc -b` from a copy of the
# tree, lintian finds nothing (errors, warnings, info or pedantic), the
# symbols file is the one the map gives, and the packages install for real
# with dpkg into a fresh root - an overlay of this machine's / in a private
# mount namespace, so the host stays as it was - where the installed tools
# run, a program builds against the installed -dev package, Debian's
# python3 imports the Python module of python3-mntkit and lists the mounts
# with it, and the packages remove cleanly.
#
# Usage: bash tests/cli/package.sh ABS_BUILDDIR
#
# The packages are built once per run (about 30 s); a sanitizer build
# directory skips it (the plain build's run checks the packages).

. "$(dirname "$0")/lib.sh"
cli_init "$1"

# debian/libmntkit0.symbols is derived from the map (scripts/symbols.sh)
if diff -u "$SRCDIR/debian/libmntkit0.symbols" \
	<(sh "$SRCDIR/scripts/symbols.sh" "$SRCDIR/lib/libmntkit.map") \
	>"$CLI_TMP/sym.diff"; then
	pass symbols_file_from_map
else
	fail symbols_file_from_map "differs from scripts/symbols.sh: $(grep '^[-+] ' "$CLI_TMP/sym.diff" | head -n 5 | tr '\n' ' ')"
fi

# every Build-Depends of debian/control is one the Makefile installs
# (make check-all builds the packages on a machine that has only what
# the Makefile's lists install): by name, or by a listed package that
# provides it (dh-sequence-python3: dh-python), per apt's package lists
build_deps_unlisted() {
	local listed dep alt name ok
	listed=" $(make -s -C "$SRCDIR" print-pkgs | cut -d' ' -f2- | tr '\n' ' ') "
	sed -n '/^Build-Depends:/,/^[A-Za-z-]*:/{/^Build-Depends:/s/^[^:]*://p;/^[[:space:]]/p}' \
		"$SRCDIR/debian/control" | tr ',' '\n' |
		sed 's/([^)]*)//g; s/\[[^]]*\]//g; s/<[^>]*>//g' | grep -v '^[[:space:]]*$' |
		while IFS= read -r dep; do
			ok=0
			for alt in $(printf '%s' "$dep" | tr '|' ' '); do
				name=${alt%%:*}
				case $listed in *" $name "*) ok=1 ;; esac
				[ "$ok" = 1 ] && break
				for p in $(apt-cache showpkg "$name" 2>/dev/null |
					sed -n '/^Reverse Provides:/,$p' | sed 1d | cut -d' ' -f1 | sort -u); do
					case $listed in *" $p "*) ok=1 ;; esac
				done
				[ "$ok" = 1 ] && break
			done
			# the entry without its line's indent
			[ "$ok" = 1 ] || printf '%s ' "${dep#"${dep%%[![:space:]]*}"}"
		done
}
if ! command -v apt-cache >/dev/null 2>&1; then
	skip build_depends_listed "no apt-cache (the Build-Depends are checked against apt's package lists)"
else
	unlisted=$(build_deps_unlisted)
	if [ -z "$unlisted" ]; then
		pass build_depends_listed
	else
		fail build_depends_listed "debian/control's Build-Depends that no list of the Makefile installs (nor a package of them provides): $unlisted"
	fi
fi

sanitize=$(meson introspect --buildoptions "$BUILDDIR" 2>/dev/null |
	mntkit_py build_options b_sanitize 2>/dev/null)
if [ "${sanitize:-none}" != none ]; then
	skip build_packages "a sanitizer build ($sanitize): the plain build's run builds the packages"
	cli_done
fi
if ! is_root; then
	skip build_packages "needs root (to install the build tools and to install the packages in an overlay root)"
	cli_done
fi
if ! sh "$SRCDIR/scripts/deps.sh" debhelper dpkg-dev lintian >"$CLI_TMP/deps.log" 2>&1; then
	skip build_packages "cannot install debhelper, dpkg-dev and lintian: $(tail -n 1 "$CLI_TMP/deps.log")"
	cli_done
fi

version=$(sed -n "s/^ *version : '\([^']*\)'.*/\1/p" "$SRCDIR/meson.build" | head -n 1)
deb_version=$(dpkg-parsechangelog -l "$SRCDIR/debian/changelog" -S Version)
if [ "$version" = "$deb_version" ]; then
	pass changelog_version
else
	fail changelog_version "meson.build says $version, debian/changelog $deb_version"
fi

# a copy of the tree as a release would have it: what git tracks (or, in
# an export without git, everything but build directories)
SRC="$CLI_TMP/src/mntkit-$version"
mkdir -p "$SRC"
if git -C "$SRCDIR" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$SRCDIR" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 tar -cf - --no-recursion) | tar -xf - -C "$SRC"
else
	(cd "$SRCDIR" && tar -cf - --exclude='./build*' .) | tar -xf - -C "$SRC"
fi
rm -rf "$SRC"/build*
(cd "$SRC" && dpkg-buildpackage -us -uc -b) >"$CLI_TMP/build.log" 2>&1
rc=$?
DEBS="$CLI_TMP/src"
if [ "$rc" != 0 ]; then
	fail build_packages "dpkg-buildpackage exited $rc: $(grep -v '^ *$' "$CLI_TMP/build.log" | tail -n 3 | tr '\n' ' ')"
	cli_done
fi
missing=""
for p in libmntkit0 libmntkit-dev mntkit-tools python3-mntkit; do
	[ -f "$DEBS/${p}_${version}_$(dpkg --print-architecture).deb" ] ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	fail build_packages "not built:$missing"
	cli_done
fi
pass build_packages

# lintian: nothing at all, pedantic and informational tags included
lintian --allow-root -I --pedantic "$DEBS/mntkit_${version}_"*.changes \
	>"$CLI_TMP/lintian.log" 2>&1
rc=$?
tags=$(grep -E '^[EWIPX]: ' "$CLI_TMP/lintian.log")
if [ "$rc" = 0 ] && [ -z "$tags" ]; then
	pass lintian_clean
else
	fail lintian_clean "exit $rc: $(printf '%s\n' "$tags" | head -n 5 | tr '\n' ' ')"
fi

# who ships what: the library alone in libmntkit0, no file in two packages
arch=$(dpkg --print-architecture)
for p in libmntkit0 libmntkit-dev mntkit-tools python3-mntkit; do
	dpkg-deb -c "$DEBS/${p}_${version}_$arch.deb" |
		awk '$1 !~ /^d/ {print $6}' | sed "s|^|$p |"
done >"$CLI_TMP/files"
dup=$(awk '{print $2}' "$CLI_TMP/files" | sort | uniq -d)
want="libmntkit0 ./usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/libmntkit.so.0"
if [ -z "$dup" ] && grep -q "^$want" "$CLI_TMP/files" &&
	grep -q '^libmntkit-dev ./usr/include/mntkit.h$' "$CLI_TMP/files" &&
	grep -q '^libmntkit-dev ./usr/share/man/man3/mntkit_stat.3.gz$' "$CLI_TMP/files" &&
	grep -q '^libmntkit-dev ./usr/share/doc/libmntkit-dev/examples/teardown.c$' "$CLI_TMP/files" &&
	grep -q '^libmntkit-dev ./usr/share/doc/libmntkit-dev/README.md\(.gz\)\?$' "$CLI_TMP/files" &&
	grep -q '^mntkit-tools ./usr/bin/lsmnt$' "$CLI_TMP/files" &&
	grep -q '^mntkit-tools ./usr/share/man/man8/lsmnt.8.gz$' "$CLI_TMP/files" &&
	grep -q '^mntkit-tools ./usr/share/mntkit/mntwatch-event.schema.json$' "$CLI_TMP/files" &&
	grep -q "^python3-mntkit ./usr/lib/python3/dist-packages/mntkit$(/usr/bin/python3-config --extension-suffix)\$" "$CLI_TMP/files" &&
	grep -q '^python3-mntkit ./usr/lib/python3/dist-packages/mntkit.pyi$' "$CLI_TMP/files" &&
	! grep -q '^python3-mntkit ./usr/lib/.*/libmntkit' "$CLI_TMP/files" &&
	! grep -q '^libmntkit0 ./usr/bin/' "$CLI_TMP/files"; then
	pass package_contents
else
	fail package_contents "files in two packages: $dup; or a file in the wrong package"
fi

if ! can_unshare_mount; then
	skip install_in_fresh_root "no private mount namespace"
	cli_done
fi

# the install, in a private mount namespace: / overlaid (writes go to a
# tmpfs), the packages installed there with dpkg, then used and removed
cat >"$CLI_TMP/inroot.sh" <<'INROOT'
set -u
check() { if "$@"; then echo "ok"; else echo "FAILED: $*"; fi; }
dpkg -i /debs/libmntkit0_*.deb /debs/libmntkit-dev_*.deb \
	/debs/mntkit-tools_*.deb /debs/python3-mntkit_*.deb >/tmp/dpkg.log 2>&1 || {
	echo "FAILED: dpkg -i: $(tail -n 2 /tmp/dpkg.log | tr '\n' ' ')"; exit 0; }
echo "installed"
# the tools run from /usr/bin on the library of /usr/lib
ldd /usr/bin/lsmnt | grep -q "libmntkit.so.0 => /.*lib/$MA/libmntkit.so.0" ||
	echo "FAILED: lsmnt is not linked to the installed library"
[ "$(lsmnt -n -o TARGET /)" = / ] || echo "FAILED: lsmnt -n -o TARGET /"
[ "$(lsmnt -n -l -o TARGET | grep -c '')" = "$(grep -c '' /proc/self/mountinfo)" ] ||
	echo "FAILED: lsmnt lists another count of mounts than mountinfo has"
statmnt / >/tmp/statmnt.out 2>&1 || echo "FAILED: statmnt /: $(head -n 1 /tmp/statmnt.out)"
[ "$(timeout 20 mntwatch --initial --count 1 | grep -c '')" = 1 ] ||
	echo "FAILED: mntwatch --initial --count 1 printed no event"
man -w mntkit_stat >/dev/null 2>&1 || echo "FAILED: man -w mntkit_stat"
# a program built against the installed -dev package
printf '%s\n' '#include <stdio.h>' '#include <mntkit.h>' \
	'int main(void) { puts(mntkit_version()); return 0; }' >/tmp/p.c
cc -o /tmp/p /tmp/p.c $(pkg-config --cflags --libs mntkit) 2>/tmp/cc.err ||
	echo "FAILED: cc against the -dev package: $(head -n 1 /tmp/cc.err)"
[ "$(/tmp/p)" = "$VERSION" ] || echo "FAILED: the program says $(/tmp/p)"
# the examples mntkit(3) points to, built from the installed header alone
n=0
for ex in /usr/share/doc/libmntkit-dev/examples/*.c; do
	cc -Wall -Werror -o /tmp/ex "$ex" $(pkg-config --cflags --libs mntkit) \
		2>/tmp/cc.err && n=$((n + 1)) ||
		echo "FAILED: cc $ex: $(head -n 1 /tmp/cc.err)"
done
[ "$n" -ge 7 ] || echo "FAILED: $n examples in /usr/share/doc/libmntkit-dev/examples"
# the Python module, imported by Debian's python3 from dist-packages
python3 /package_import.py >/tmp/py.out 2>&1 || echo "FAILED: python3 package_import.py: $(tail -n 1 /tmp/py.out)"
dpkg -r python3-mntkit mntkit-tools libmntkit-dev libmntkit0 >/tmp/dpkg.log 2>&1 ||
	echo "FAILED: dpkg -r: $(tail -n 1 /tmp/dpkg.log)"
ls /usr/lib/python3/dist-packages/mntkit* >/dev/null 2>&1 &&
	echo "FAILED: python3-mntkit's files left after dpkg -r"
ls /usr/lib/$MA/libmntkit* /usr/bin/lsmnt >/dev/null 2>&1 &&
	echo "FAILED: files left after dpkg -r"
echo "done"
INROOT
R="$CLI_TMP/root"
mkdir -p "$R"
# shellcheck disable=SC2016 # the inner shell expands them
unshare_private bash -c '
	set -e
	R=$1 DEBS=$2 SCRIPT=$3
	mount -t tmpfs mntkit-pkg "$R"
	mkdir -p "$R/u" "$R/w" "$R/m"
	mount -t overlay overlay -o "lowerdir=/,upperdir=$R/u,workdir=$R/w" "$R/m"
	mkdir -p "$R/m/debs"
	cp "$DEBS"/*.deb "$R/m/debs/"
	cp "$SCRIPT" "$R/m/inroot.sh"
	cp "$6" "$R/m/package_import.py"
	mount -t proc proc "$R/m/proc"
	mount --rbind /dev "$R/m/dev"
	mount -t tmpfs tmp "$R/m/tmp"
	chroot "$R/m" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		MA="$4" VERSION="$5" bash /inroot.sh
' _ "$R" "$DEBS" "$CLI_TMP/inroot.sh" "$(dpkg-architecture -qDEB_HOST_MULTIARCH)" \
	"$version" "$SRCDIR/tests/cli/py/package_import.py" >"$CLI_TMP/inroot.log" 2>&1
if grep -q '^installed$' "$CLI_TMP/inroot.log" && grep -q '^done$' "$CLI_TMP/inroot.log" &&
	! grep -q FAILED "$CLI_TMP/inroot.log"; then
	pass install_in_fresh_root
else
	fail install_in_fresh_root "$(grep -v '^ok$' "$CLI_TMP/inroot.log" | head -n 4 | tr '\n' ' ')"
fi
cli_done
