#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# scripts/findmnt-suite.sh SUITE [CACHEDIR] - a newer findmnt on this
# machine, without installing anything: prints the path of a wrapper
# script that runs SUITE's findmnt.
#
# SUITE is a Debian suite (sid: util-linux 2.42.x; trixie: 2.41.x) or its
# util-linux version (2.42 or 2.41). The script fetches that suite's
# util-linux, libmount1, libsmartcols1, libblkid1, libc6, libselinux1,
# libpcre2-8-0 and libudev1 with `apt-get download` through a private
# sources list and lists folder (CACHEDIR/apt/SUITE; the archive's URI is
# the one of the machine's own apt sources, which are never changed),
# unpacks them with `dpkg-deb -x` into CACHEDIR/SUITE/root and writes the
# wrapper CACHEDIR/SUITE/findmnt:
#
#	exec ROOT/usr/lib64/ld-linux-x86-64.so.2 \
#		--library-path ROOT/usr/lib/x86_64-linux-gnu \
#		ROOT/usr/bin/findmnt "$@"
#
# (the suite's own loader and libc: Debian 12's glibc is too old for
# them). A later run finds the wrapper in the cache and fetches nothing.
#
# CACHEDIR defaults to $MNTKIT_FINDMNT_CACHE, else ./findmnt-cache (the
# tests pass BUILDDIR/findmnt-cache). Fetching needs root (apt-get's
# private lists are written as root here) and Debian's archive.
#
# Exit status: 0 and the wrapper's path on stdout; 1 and one line with the
# reason on stdout when the findmnt cannot be had here (tests print it as
# their SKIP reason); 2 on a usage error.
set -u

usage() {
	echo "usage: $0 sid|trixie|2.42|2.41 [CACHEDIR]" >&2
	exit 2
}

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	usage
fi
case $1 in
sid | 2.42) suite=sid ;;
trixie | 2.41) suite=trixie ;;
*) usage ;;
esac
cache=${2:-${MNTKIT_FINDMNT_CACHE:-./findmnt-cache}}
case $cache in
/*) ;;
*) cache=$(pwd)/$cache ;;
esac

PKGS="util-linux libmount1 libsmartcols1 libblkid1 libc6 libselinux1
libpcre2-8-0 libudev1"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
dir=$cache/$suite
wrapper=$dir/findmnt
apt_log=

fail() {
	echo "findmnt $suite: $*"
	[ -n "$apt_log" ] && rm -f "$apt_log"
	exit 1
}

# the wrapper runs: done
ready() {
	[ -x "$wrapper" ] && "$wrapper" --version >/dev/null 2>&1
}

mkdir -p "$dir" || fail "cannot create $dir"
# one fetch at a time per cache
if exec 9>>"$dir/.lock"; then
	flock 9 2>/dev/null || true
fi
if ready; then
	echo "$wrapper"
	exit 0
fi

[ "$(uname -m)" = x86_64 ] || fail "needs an x86-64 host (this is $(uname -m))"
[ "$(id -u)" = 0 ] || fail "not cached in $dir, and fetching needs root"
for c in apt-get dpkg-deb; do
	command -v "$c" >/dev/null 2>&1 || fail "no $c"
done
[ -f "$KEYRING" ] || fail "no $KEYRING"

# archive_uri: the Debian archive's URI, as the machine's apt has it
# shellcheck source-path=SCRIPTDIR source=debian-archive.sh
. "$(dirname "$0")/debian-archive.sh"

uri=$(archive_uri) || fail "no Debian archive URI in the machine's apt sources"
apt_log=$(mktemp "${TMPDIR:-/tmp}/mntkit-findmnt-apt.XXXXXX") ||
	fail "mktemp failed"
trap 'rm -f "$apt_log"; [ -n "${tmp:-}" ] && rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

reason() {
	grep -E '^(E|W):' "$apt_log" | tail -n 1 | cut -c1-200
}

a=$cache/apt/$suite
mkdir -p "$a/lists/partial" "$a/cache/archives/partial" ||
	fail "cannot create $a"
echo "deb [signed-by=$KEYRING] $uri $suite main" >"$a/sources.list"
opts="-o Dir::Etc::sourcelist=$a/sources.list -o Dir::Etc::sourceparts=-
-o Dir::State::Lists=$a/lists -o Dir::Cache=$a/cache
-o Debug::NoLocking=1 -o APT::Get::List-Cleanup=0"
# what a person waiting sees, on stderr (stdout is the wrapper's path)
echo "findmnt-suite: no findmnt of $suite in $dir: fetching $suite's" \
	"package index, then its util-linux (once)" >&2
# shellcheck disable=SC2086 # a list of options
apt-get $opts update -q >>"$apt_log" 2>&1 ||
	fail "apt-get update of $suite ($uri) failed: $(reason)"

# shellcheck disable=SC2086
mb=$(apt-get $opts download --print-uris -q $PKGS 2>/dev/null |
	awk '{ s += $3 } END { printf "%.1f", s / 1048576 }')
echo "findmnt-suite: $suite's index: $(sed -n 's/^Fetched \([^ ]* [kMG]*B\).*/\1/p' \
	"$apt_log" | tail -n 1)${mb:+; util-linux and 7 libraries: $mb MB}" >&2
tmp=$(mktemp -d "$dir/fetch.XXXXXX") || fail "mktemp in $dir failed"
# shellcheck disable=SC2086
(cd "$tmp" && apt-get $opts download -q $PKGS) >>"$apt_log" 2>&1 ||
	fail "apt-get download from $suite failed: $(reason)"
mkdir "$tmp/root" || fail "mkdir failed"
for deb in "$tmp"/*.deb; do
	dpkg-deb -x "$deb" "$tmp/root" >>"$apt_log" 2>&1 ||
		fail "dpkg-deb -x ${deb##*/} failed"
done
root=$dir/root
for f in usr/lib64/ld-linux-x86-64.so.2 usr/bin/findmnt; do
	[ -e "$tmp/root/$f" ] || fail "the packages have no $f"
done
rm -rf "$root"
mv "$tmp/root" "$root" || fail "cannot store $root"
for deb in "$tmp"/*.deb; do
	echo "${deb##*/}"
done >"$dir/packages"
cat >"$wrapper.new" <<EOF
#!/bin/sh
# findmnt of Debian $suite ($(sed -n 's/^util-linux_\([^_]*\)_.*/\1/p' "$dir/packages")), by scripts/findmnt-suite.sh
exec '$root/usr/lib64/ld-linux-x86-64.so.2' --library-path '$root/usr/lib/x86_64-linux-gnu' '$root/usr/bin/findmnt' "\$@"
EOF
chmod +x "$wrapper.new" || fail "cannot write $wrapper"
mv "$wrapper.new" "$wrapper" || fail "cannot write $wrapper"
ready || fail "$wrapper does not run: $("$wrapper" --version 2>&1 | tail -n 1)"
echo "$wrapper"
