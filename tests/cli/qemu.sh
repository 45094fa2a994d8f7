#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/qemu.sh ABS_BUILDDIR - the library on a matrix of Debian's
# kernels (5.10, 6.1, 6.12 and sid's newest), each booted in qemu with
# every test program of tests/ and tests/emul/ and the tools in its
# initramfs: see tests/qemu/run.sh, which does the work and prints the
# PASS/FAIL/SKIP lines, named after each kernel (qemu-6.12/PROG/CASE).
# A kernel that cannot be fetched is one SKIP line with the reason; a run
# impossible here (no root to install qemu, a sanitizer build, ...) is
# one `SKIP qemu: <reason>` line.

if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: bash $0 ABS_BUILDDIR" >&2
	exit 2
fi
exec bash "$(dirname "${BASH_SOURCE[0]}")/../qemu/run.sh" "$1"
