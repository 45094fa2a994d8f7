# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=sh
#
# scripts/debian-archive.sh - sourced by the scripts that fetch Debian
# packages through a private sources list (tests/qemu/run.sh,
# scripts/findmnt-suite.sh): archive_uri prints the URI of the Debian
# archive as the machine's apt has it (deb822 *.sources, else a one-line
# sources.list; the security archive skipped), and fails when there is
# none. The machine's apt configuration is only read.

archive_uri() {
	for _archive_f in /etc/apt/sources.list.d/debian.sources \
		/etc/apt/sources.list.d/*.sources; do
		[ -f "$_archive_f" ] || continue
		awk '/^URIs:/ { for (i = 2; i <= NF; i++)
				if ($i !~ /security/) { print $i; exit } }' "$_archive_f" |
			head -n 1 | grep . && return 0
	done
	awk '$1 == "deb" && $0 !~ /security/ {
		for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; exit } }' \
		/etc/apt/sources.list 2>/dev/null | head -n 1 | grep .
}
