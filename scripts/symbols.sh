#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# scripts/symbols.sh [MAP] - debian/libmntkit0.symbols, derived from the
# symbol map (lib/libmntkit.map): every node's symbols at the release
# that added them (node MNTKIT_X.Y: release X.Y.0). The committed file must
# equal this script's output (tests/cli/package.sh checks it):
#	sh scripts/symbols.sh > debian/libmntkit0.symbols
set -eu
map=${1:-$(dirname "$0")/../lib/libmntkit.map}
echo "libmntkit.so.0 libmntkit0 #MINVER#"
echo "* Build-Depends-Package: libmntkit-dev"
# strip comments, then print "NODE SYMBOL" for every global symbol
sed -e 's@/\*.*\*/@@' -e '/\/\*/,/\*\//d' "$map" | awk '
	/^[A-Z0-9_.]+ *\{/ { node = $1; sub(/\{.*/, "", node); local = 0
		print node, node; next }
	/local:/ { local = 1; next }
	/global:/ { local = 0; next }
	/^[ \t]*[a-z_][a-z0-9_]*;/ { if (!local) { s = $1; sub(/;$/, "", s)
		print node, s } }' |
while read -r node sym; do
	rel=${node#MNTKIT_}
	echo " $sym@$node $rel.0"
done
