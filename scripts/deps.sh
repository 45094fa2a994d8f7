#!/bin/sh
# Install the Debian packages given as arguments that are not installed yet.
# Runs apt-get only when something is missing; needs root for that.
set -e
missing=""
for p in "$@"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "mntkit: installing:$missing" >&2
if [ "$(id -u)" != 0 ]; then
	echo "mntkit: need root to install:$missing (apt-get install$missing)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2 || true
apt-get install -y -q --no-install-recommends $missing >&2
