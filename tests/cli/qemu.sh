#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/qemu.sh ABS_BUILDDIR - the library on a matrix of Debian's
# kernels (5.10, 6.1, 6.12 and sid's newest), each booted in qemu with
# every test program of tests/ and tests/emul/ and the tools in its
# initramfs: see tests/qemu/run.sh, which does the work and prints the
# PASS/FAIL/SKIP lines, named after each kernel (qemu-6.12/PROG/CASE).
# Then the same programs built for arm64 on Debian's arm64 kernels
# (MNTKIT_QEMU_ARCH=arm64: qemu-arm64-7.2/PROG/CASE): bookworm's 6.1 (the
# emulation) and sid's (native), MNTKIT_QEMU_ARM64_KERNELS="6.1 sid" (the
# matrix's labels; "none": no arm64 guest), which keeps the run within
# make check's time. With MNTKIT_QEMU_ARCH or MNTKIT_QEMU_KERNEL set, only
# that architecture runs.
# A kernel that cannot be fetched is one SKIP line with the reason; a run
# impossible here (no root to install qemu, a sanitizer build, ...) is
# one `SKIP qemu: <reason>` line (`SKIP qemu-arm64: <reason>`).

if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: bash $0 ABS_BUILDDIR" >&2
	exit 2
fi
run=$(dirname "${BASH_SOURCE[0]}")/../qemu/run.sh
if [ -n "${MNTKIT_QEMU_ARCH:-}" ] || [ -n "${MNTKIT_QEMU_KERNEL:-}" ]; then
	exec bash "$run" "$1"
fi
bash "$run" "$1"
rc=$?
arm64=${MNTKIT_QEMU_ARM64_KERNELS-6.1 sid}
if [ "$arm64" != none ] && [ -n "$arm64" ]; then
	MNTKIT_QEMU_ARCH=arm64 MNTKIT_QEMU_KERNELS=$arm64 bash "$run" "$1" ||
		rc=1
fi
exit "$rc"
