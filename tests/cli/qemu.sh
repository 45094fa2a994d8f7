#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/qemu.sh ABS_BUILDDIR - the library on Debian's Linux 6.1 (no
# statmount/listmount, no unique mount IDs), booted in qemu with the test
# programs in its initramfs: see tests/qemu/run.sh, which does the work and
# prints the PASS/FAIL/SKIP lines (one SKIP line when it cannot run here:
# no root to install qemu, no package archive, a sanitizer build, ...).

if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: bash $0 ABS_BUILDDIR" >&2
	exit 2
fi
exec bash "$(dirname "${BASH_SOURCE[0]}")/../qemu/run.sh" "$1"
