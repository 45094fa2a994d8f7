#!/bin/sh
# scripts/deps.sh [--stamp FILE] [--why WHY] PACKAGE... - install the Debian
# packages given that are not installed yet (and then create FILE, for the
# Makefile: a build configured before is configured again).
#
# Runs apt-get only when something is missing (needs root for that), and
# then says so in one line on stderr: the packages, WHY (what they are
# for) and the size of the download, e.g.
#
#	mntkit: installing clang strace (for make check: ...): 41 MB to download
#
# apt-get's own output goes to a log shown only when it fails.
set -e
why=
stamp=
if [ "${1:-}" = --stamp ]; then
	stamp=$2
	shift 2
fi
if [ "${1:-}" = --why ]; then
	why=$2
	shift 2
fi
missing=""
for p in "$@"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "mntkit: need root to install:$missing${why:+ ($why)} (apt-get install$missing)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp "${TMPDIR:-/tmp}/mntkit-deps.XXXXXX")
trap 'rm -f "$log"' EXIT
# other installs may hold apt's locks a while: wait for them
opts="-q -o DPkg::Lock::Timeout=300 -o Acquire::Retries=3"
# shellcheck disable=SC2086 # lists of options and packages
apt-get $opts update >"$log" 2>&1 || true
# the download: the sizes of the files apt would fetch
# shellcheck disable=SC2086
bytes=$(apt-get $opts -qq --print-uris install --no-install-recommends \
	$missing 2>/dev/null | awk '{ s += $3 } END { print s + 0 }')
if [ "$bytes" -ge 1048576 ]; then
	size="$(((bytes + 524288) / 1048576)) MB"
else
	size="$(((bytes + 1023) / 1024)) kB"
fi
echo "mntkit: installing$missing${why:+ ($why)}: $size to download" >&2
# shellcheck disable=SC2086
if ! apt-get $opts install -y --no-install-recommends $missing >>"$log" 2>&1; then
	echo "mntkit: apt-get install$missing failed:" >&2
	tail -n 20 "$log" >&2
	exit 1
fi
if [ -n "$stamp" ]; then
	mkdir -p "$(dirname "$stamp")" && : >"$stamp"
fi
