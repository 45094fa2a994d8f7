#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/qemu/python-layer.sh BUILDDIR OUT - the Python layer of the
# guests' initramfs (tests/qemu/run.sh appends it to the one of the C
# programs): a newc cpio archive OUT holding
#
#   /usr/bin/python3.11 (Debian's python3, the interpreter the module was
#       built for) and the shared libraries ldd names for it and for the
#       extension modules of the standard library it loads;
#   the part of the standard library python/tests/smoke.py imports (it
#       lists it: smoke.py --files), ssl left out (asyncio does without);
#   /python/: the module of the build and smoke.py; libmntkit.so.0 of the
#       build in the library directory;
#   /tests-extra.list: "python-smoke /usr/bin/python3.11 -S -E
#       /python/smoke.py", which the guest's /init runs after /tests.list.
#
# Exit status 0; 77 (reason on stderr) when the build has no module or
# this machine no Debian python3 to put in; 1 on a failure.
set -u

if [ $# -ne 2 ]; then
	echo "usage: $0 BUILDDIR OUT" >&2
	exit 2
fi
BUILDDIR=$1
OUT=$2
SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd) || exit 1
PY=${MNTKIT_PYTHON:-/usr/bin/python3}

mod=$(find "$BUILDDIR/python" -maxdepth 1 -name 'mntkit*.so' 2>/dev/null |
	head -n 1)
[ -n "$mod" ] || { echo "no Python module in $BUILDDIR/python" >&2; exit 77; }
real=$(readlink -f "$PY")
[ -x "$real" ] || { echo "no $PY" >&2; exit 77; }
lib=$(ldd "$mod" | awk '$1 == "libmntkit.so.0" { print $3 }')
[ -f "$lib" ] || { echo "ldd names no libmntkit.so.0 for $mod" >&2; exit 1; }
libdir=/usr/lib/$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("MULTIARCH"))')

stage=$(mktemp -d "${TMPDIR:-/tmp}/mntkit-qemu-python.XXXXXX") || exit 1
trap 'rm -rf "$stage"' EXIT

# copy_libs FILE: the shared libraries ldd names for FILE, same paths
copy_libs() {
	local l
	for l in $(ldd "$1" | awk '{ for (i = 1; i <= NF; i++)
			if ($i ~ /^\//) print $i }'); do
		case ${l##*/} in
		libmntkit.so.*) continue ;;
		esac
		[ -f "$stage$l" ] && continue
		mkdir -p "$stage${l%/*}" && cp -L "$l" "$stage$l" || return 1
	done
}

files=$("$PY" -S -E "$SRCDIR/python/tests/smoke.py" --files) || {
	echo "smoke.py --files failed" >&2
	exit 1
}
mkdir -p "$stage/usr/bin" "$stage/python" "$stage$libdir" || exit 1
cp "$real" "$stage/usr/bin/${real##*/}" && copy_libs "$real" || exit 1
for f in $files; do
	mkdir -p "$stage${f%/*}" && cp "$f" "$stage$f" || exit 1
	case $f in
	*.so) copy_libs "$f" || exit 1 ;;
	esac
done
cp "$mod" "$SRCDIR/python/tests/smoke.py" "$stage/python/" &&
	cp -L "$lib" "$stage$libdir/libmntkit.so.0" &&
	copy_libs "$mod" || exit 1
echo "python-smoke /usr/bin/${real##*/} -S -E /python/smoke.py" \
	>"$stage/tests-extra.list"
strip --strip-unneeded "$stage/python/${mod##*/}" \
	"$stage$libdir/libmntkit.so.0" 2>/dev/null
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
	cpio -o -H newc --quiet -R 0:0) >"$OUT.new" && mv "$OUT.new" "$OUT"
