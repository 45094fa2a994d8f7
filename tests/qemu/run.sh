#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/qemu/run.sh BUILDDIR - mntkit's tests on Debian's Linux 6.1 in qemu.
#
# Linux 6.1 has neither statmount(2)/listmount(2) nor unique mount IDs, so
# there the library must serve everything through its mountinfo
# emulation. This script:
#
#  1. installs qemu-system-x86 and cpio when they are missing
#     (apt-get install --no-install-recommends; root only);
#  2. fetches Debian's cloud kernel (linux-image-cloud-amd64, resolved to
#     its versioned package) with `apt-get download` and unpacks its
#     vmlinuz with `dpkg-deb -x` into BUILDDIR/qemu-cache (kept: later runs
#     reuse it; the linux-image package is never installed);
#  3. builds, statically, the guest's /init (tests/qemu/init.c), the
#     library and the test programs listed below, and statmnt, into a
#     newc initramfs (BUILDDIR/qemu/, rebuilt only when a source changed);
#  4. boots the kernel under qemu's software emulation (TCG; /dev/kvm is
#     not used), with the console on the first serial port and the
#     results on the second;
#  5. relays the guest's result lines prefixed with the program's name:
#
#	PASS qemu-6.1/PROG/CASE
#	FAIL qemu-6.1/PROG/CASE: reason
#	SKIP qemu-6.1/PROG/CASE: reason
#
# A program that dies, exits non-zero without a FAIL line or prints no
# result is one FAIL; a guest that panics or never finishes is one FAIL
# with the console's tail on stderr. When the run is impossible here (no
# root to install the packages, no archive, not x86-64, a sanitizer build
# whose runtime cannot be linked statically, a guest too slow to boot
# in time) it prints one line `SKIP qemu-6.1: <reason>` and exits 0.
# The exit status is 1 if anything failed, 0 otherwise.
#
# Environment:
#   MNTKIT_QEMU=skip          skip (prints the SKIP line)
#   MNTKIT_QEMU_TIMEOUT=S     seconds for the whole guest run (default 150)
#   MNTKIT_QEMU_PROG_TIMEOUT=S  seconds per program in the guest (default 90)
#   MNTKIT_QEMU_PROGS="A B"   run only these programs: names as below, or
#                             any other test program of tests/ or tests/emul/
#                             (test-kernel, test-emul-diff, ...: they SKIP)
#   MNTKIT_QEMU_CACHE=DIR     the kernel cache (default BUILDDIR/qemu-cache)
#   MNTKIT_QEMU_KERNEL=FILE   boot this bzImage instead (no download)
#   MNTKIT_QEMU_APPEND=ARGS   more kernel command line arguments

set -u

NAME=qemu-6.1
META_PKG=linux-image-cloud-amd64

# The guest's programs: NAME and its sources (relative to the project
# root; the library is linked to each). test-oldkernel is the dedicated
# test of the emulation on an old kernel; the others are the project's own
# tests whose cases pass or SKIP on a kernel without the system calls.
PROGS=(
	"test-oldkernel tests/qemu/test-oldkernel.c"
	"test-abi tests/test-abi.c tests/test-abi-compat-before.c tests/test-abi-compat-after.c"
	"test-backend tests/test-backend.c"
	"test-reply tests/test-reply.c"
	"test-decode tests/test-decode.c"
	"test-emul-parse tests/emul/test-emul-parse.c"
	"test-emul-api tests/emul/test-emul-api.c"
	"test-emul-oldids tests/emul/test-emul-oldids.c"
	"test-diff tests/test-diff.c"
	"test-list tests/test-list.c"
	"test-table tests/test-table.c"
)

skip_all() {
	echo "SKIP $NAME: $*"
	exit 0
}

log() {
	echo "qemu: $*" >&2
}

if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "usage: $0 BUILDDIR" >&2
	exit 2
fi
SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd) || exit 2
case $1 in
/*) BUILDDIR=$1 ;;
*) BUILDDIR=$(pwd)/$1 ;;
esac
[ -d "$BUILDDIR" ] || { echo "$0: no build directory $BUILDDIR" >&2; exit 2; }
BUILDDIR=$(cd "$BUILDDIR" && pwd) || exit 2

[ "${MNTKIT_QEMU:-}" = skip ] && skip_all "MNTKIT_QEMU=skip"

# A sanitizer build: the guest's programs are static, and the ASan/UBSan
# runtimes cannot be linked statically; what the guest would test is the
# same code as the plain build's run.
sanitize=$(grep -o '"name": "b_sanitize", "value": "[^"]*"' \
	"$BUILDDIR/meson-info/intro-buildoptions.json" 2>/dev/null |
	sed 's/.*"value": "\([^"]*\)"/\1/')
if [ -n "$sanitize" ] && [ "$sanitize" != none ]; then
	skip_all "sanitizer build (b_sanitize=$sanitize): the guest's static programs cannot carry the sanitizer runtimes; run it on the plain build"
fi

case $(uname -m) in
x86_64) ;;
*) skip_all "needs an x86-64 host (this is $(uname -m))" ;;
esac

for c in gcc ar timeout flock; do
	command -v "$c" >/dev/null 2>&1 || skip_all "no $c"
done
if ! echo 'int main(void){return 0;}' |
	gcc -static -x c -o /dev/null - >/dev/null 2>&1; then
	skip_all "gcc cannot link statically (libc6-dev's libc.a missing)"
fi

# ---- 1. packages ----

apt_log=$(mktemp "${TMPDIR:-/tmp}/mntkit-qemu-apt.XXXXXX") || exit 2
WORK=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	rm -f "$apt_log"
	[ -n "$WORK" ] && rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

apt_updated=0
apt_update() {
	[ "$apt_updated" = 1 ] && return 0
	apt_updated=1
	apt-get update -q >>"$apt_log" 2>&1
}

# the last meaningful line of apt's log, for a SKIP reason
apt_reason() {
	grep -E '^(E|W):' "$apt_log" | tail -n 1 | cut -c1-200
}

installed() {
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

ensure_pkgs() {
	local missing="" p
	for p in "$@"; do
		installed "$p" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		skip_all "needs$missing (apt-get install needs root)"
	fi
	command -v apt-get >/dev/null 2>&1 || skip_all "needs$missing; no apt-get"
	log "installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086 # a list of package names
	if ! apt-get install -y -q --no-install-recommends \
		-o DPkg::Lock::Timeout=60 $missing >>"$apt_log" 2>&1; then
		apt_update
		# shellcheck disable=SC2086
		apt-get install -y -q --no-install-recommends \
			-o DPkg::Lock::Timeout=60 $missing >>"$apt_log" 2>&1 ||
			skip_all "cannot install$missing: $(apt_reason)"
	fi
}

ensure_pkgs qemu-system-x86 cpio
QEMU=$(command -v qemu-system-x86_64) || skip_all "no qemu-system-x86_64 after installing qemu-system-x86"

# ---- 2. the kernel ----

CACHE=${MNTKIT_QEMU_CACHE:-$BUILDDIR/qemu-cache}
mkdir -p "$CACHE" || exit 2
# one run at a time per cache (the download, the initramfs)
if exec 9>>"$CACHE/.lock"; then
	flock 9 || exit 2
fi

fetch_kernel() {
	local pkg deb debs tmp img imgs
	if [ -s "$CACHE/vmlinuz" ] && [ -s "$CACHE/kernel-package" ]; then
		return 0
	fi
	[ "$(id -u)" = 0 ] || skip_all "no cached kernel and not root to fetch $META_PKG"
	pkg=$(apt-cache depends "$META_PKG" 2>/dev/null |
		awk '/Depends: linux-image/{print $2; exit}')
	if [ -z "$pkg" ]; then
		apt_update
		pkg=$(apt-cache depends "$META_PKG" 2>/dev/null |
			awk '/Depends: linux-image/{print $2; exit}')
	fi
	[ -n "$pkg" ] || skip_all "cannot resolve $META_PKG to a kernel package: $(apt_reason)"
	tmp=$(mktemp -d "$CACHE/fetch.XXXXXX") || exit 2
	log "downloading $pkg"
	if ! (cd "$tmp" && apt-get download -q "$pkg") >>"$apt_log" 2>&1; then
		apt_update
		(cd "$tmp" && apt-get download -q "$pkg") >>"$apt_log" 2>&1 || {
			rm -rf "$tmp"
			skip_all "cannot download $pkg: $(apt_reason)"
		}
	fi
	debs=("$tmp"/*.deb)
	deb=${debs[0]}
	if [ ! -f "$deb" ] || ! dpkg-deb -x "$deb" "$tmp/x" >>"$apt_log" 2>&1; then
		rm -rf "$tmp"
		skip_all "cannot unpack $pkg"
	fi
	imgs=("$tmp"/x/boot/vmlinuz-*)
	img=${imgs[0]}
	if [ ! -f "$img" ]; then
		rm -rf "$tmp"
		skip_all "$pkg has no /boot/vmlinuz-*"
	fi
	mv "$img" "$CACHE/vmlinuz.new" && mv "$CACHE/vmlinuz.new" "$CACHE/vmlinuz"
	echo "${deb##*/}" >"$CACHE/kernel-package"
	rm -rf "$tmp"
}

if [ -n "${MNTKIT_QEMU_KERNEL:-}" ]; then
	KERNEL=$MNTKIT_QEMU_KERNEL
	[ -s "$KERNEL" ] || { echo "$0: no kernel $KERNEL" >&2; exit 2; }
else
	fetch_kernel
	KERNEL=$CACHE/vmlinuz
	log "kernel: $(cat "$CACHE/kernel-package")"
fi

# ---- 3. the guest's programs and initramfs ----

OUTDIR=$BUILDDIR/qemu
mkdir -p "$OUTDIR" || exit 2

selected() {
	[ -z "${MNTKIT_QEMU_PROGS:-}" ] && return 0
	case " $MNTKIT_QEMU_PROGS " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# MNTKIT_QEMU_PROGS may also name other test programs of the project
# (tests/NAME.c or tests/emul/NAME.c), e.g. to see how they fare on 6.1
for want in ${MNTKIT_QEMU_PROGS:-}; do
	known=0
	for p in "${PROGS[@]}"; do
		[ "${p%% *}" = "$want" ] && known=1
	done
	[ "$known" = 1 ] && continue
	if [ -f "$SRCDIR/tests/$want.c" ]; then
		PROGS+=("$want tests/$want.c")
	elif [ -f "$SRCDIR/tests/emul/$want.c" ]; then
		PROGS+=("$want tests/emul/$want.c")
	else
		echo "$0: MNTKIT_QEMU_PROGS: no test program $want" >&2
		exit 2
	fi
done

CFLAGS=(-std=gnu11 -O2 -g0 -static -pthread -D_GNU_SOURCE
	-Wall -Wextra -Wno-unused-parameter
	-I"$SRCDIR/include" -I"$SRCDIR/lib" -I"$SRCDIR/tests"
	-I"$SRCDIR/tests/emul" -I"$SRCDIR/tools")

# a stamp of everything the initramfs is made of
inputs_stamp() {
	{
		gcc --version | head -n 1
		echo "${CFLAGS[*]}" "${MNTKIT_QEMU_PROGS:-}"
		for p in "${PROGS[@]}"; do echo "$p"; done
		cd "$SRCDIR" && cat lib/*.c lib/*.h include/*.h tests/*.h \
			tests/emul/*.h tools/*.c tools/*.h tests/qemu/*.c \
			tests/qemu/run.sh tests/*.c tests/emul/*.c 2>/dev/null
	} | sha256sum | cut -d' ' -f1
}

build_initramfs() {
	local obj stage pids=() srcs p name f cfile ok=1
	obj=$OUTDIR/obj
	stage=$OUTDIR/stage
	rm -rf "$obj" "$stage" "$OUTDIR/build.log"
	mkdir -p "$obj" "$stage/bin" "$stage/tests" "$stage/proc" \
		"$stage/sys" "$stage/dev" "$stage/tmp" "$stage/run" || return 1
	# the library, two files at a time
	for cfile in "$SRCDIR"/lib/*.c; do
		f=${cfile##*/}
		gcc "${CFLAGS[@]}" -c -o "$obj/${f%.c}.o" "$cfile" \
			>>"$OUTDIR/build.log" 2>&1 &
		pids+=($!)
		if [ "${#pids[@]}" -ge 2 ]; then
			wait "${pids[0]}" || ok=0
			pids=("${pids[@]:1}")
		fi
	done
	for p in "${pids[@]}"; do wait "$p" || ok=0; done
	[ "$ok" = 1 ] || return 1
	rm -f "$obj/libmntkit.a"
	ar rcs "$obj/libmntkit.a" "$obj"/*.o || return 1

	gcc "${CFLAGS[@]}" -o "$stage/init" "$SRCDIR/tests/qemu/init.c" \
		>>"$OUTDIR/build.log" 2>&1 || return 1
	gcc "${CFLAGS[@]}" -o "$stage/bin/statmnt" "$SRCDIR/tools/statmnt.c" \
		"$SRCDIR/tools/output.c" "$SRCDIR/tools/cli.c" \
		"$SRCDIR/tools/record.c" "$obj/libmntkit.a" \
		>>"$OUTDIR/build.log" 2>&1 || return 1
	: >"$stage/tests.list"
	pids=()
	for p in "${PROGS[@]}"; do
		read -r name srcs <<<"$p"
		selected "$name" || continue
		# shellcheck disable=SC2086 # srcs is a list
		(cd "$SRCDIR" && gcc "${CFLAGS[@]}" -o "$stage/tests/$name" \
			$srcs "$obj/libmntkit.a") >>"$OUTDIR/build.log" 2>&1 &
		pids+=($!)
		if [ "${#pids[@]}" -ge 2 ]; then
			wait "${pids[0]}" || ok=0
			pids=("${pids[@]:1}")
		fi
		echo "$name /tests/$name" >>"$stage/tests.list"
	done
	for p in "${pids[@]}"; do wait "$p" || ok=0; done
	[ "$ok" = 1 ] || return 1
	strip "$stage/init" "$stage/bin/statmnt" "$stage"/tests/* 2>/dev/null
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc --quiet -R 0:0) >"$OUTDIR/initramfs.cpio.new" ||
		return 1
	mv "$OUTDIR/initramfs.cpio.new" "$OUTDIR/initramfs.cpio"
}

stamp=$(inputs_stamp)
if [ -s "$OUTDIR/initramfs.cpio" ] && [ -f "$OUTDIR/stamp" ] &&
	[ "$(cat "$OUTDIR/stamp")" = "$stamp" ]; then
	log "initramfs up to date"
else
	rm -f "$OUTDIR/stamp"
	t0=$(date +%s)
	if ! build_initramfs; then
		echo "FAIL $NAME/build: the guest's static programs do not build"
		sed 's/^/    | /' "$OUTDIR/build.log" | tail -n 60 >&2
		exit 1
	fi
	echo "$stamp" >"$OUTDIR/stamp"
	log "built the initramfs in $(($(date +%s) - t0)) s"
fi

# ---- 4. the guest ----

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mntkit-qemu.XXXXXX") || exit 2
CONSOLE=$WORK/console.log
RESULTS=$WORK/results.log
timeout_s=${MNTKIT_QEMU_TIMEOUT:-150}
prog_timeout=${MNTKIT_QEMU_PROG_TIMEOUT:-90}

t0=$(date +%s)
timeout -k 5 "$timeout_s" "$QEMU" -accel tcg -m 512 -nodefaults \
	-no-user-config -display none -no-reboot \
	-serial "file:$CONSOLE" -serial "file:$RESULTS" \
	-kernel "$KERNEL" -initrd "$OUTDIR/initramfs.cpio" \
	-append "console=ttyS0 panic=-1 quiet qemu_prog_timeout=$prog_timeout ${MNTKIT_QEMU_APPEND:-}" \
	</dev/null >"$WORK/qemu.out" 2>&1
qrc=$?
elapsed=$(($(date +%s) - t0))
log "guest ran ${elapsed} s (qemu exit status $qrc)"

# ---- 5. the results ----

console_tail() {
	echo "  $NAME: console (last 40 lines):" >&2
	tr -d '\r' <"$CONSOLE" 2>/dev/null | tail -n 40 | sed 's/^/    | /' >&2
	if [ -s "$WORK/qemu.out" ]; then
		echo "  $NAME: qemu:" >&2
		tail -n 20 "$WORK/qemu.out" | sed 's/^/    | /' >&2
	fi
}

# the console lines of one program (its stderr), between its markers
console_of() {
	tr -d '\r' <"$CONSOLE" 2>/dev/null |
		awk -v n="$1" '$0 == "@@BEGIN " n {on = 1; next}
			on && index($0, "@@END " n " ") == 1 {on = 0}
			on' | tail -n 60 | sed 's/^/    | /'
}

tr -d '\r' <"$RESULTS" >"$WORK/results.txt" 2>/dev/null

if ! grep -q '^@@START ' "$WORK/results.txt"; then
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ] &&
		! grep -q 'Kernel panic' "$CONSOLE" 2>/dev/null; then
		console_tail
		skip_all "the guest did not reach its init within ${timeout_s}s under TCG (too slow here?)"
	fi
	echo "FAIL $NAME: the guest never started its tests (qemu exit status $qrc)"
	console_tail
	exit 1
fi
log "guest kernel $(sed -n 's/^@@START //p' "$WORK/results.txt" | head -n 1)"

failed=0
cur=
npass=0
nfail=0
nskip=0
other=$WORK/other
: >"$other"

# end of a program: account for its exit status
prog_end() {
	local name=$1 status=$2
	if [ "$nfail" = 0 ]; then
		if [ "$status" = timeout ]; then
			echo "FAIL $NAME/$name: killed after ${prog_timeout}s in the guest"
			nfail=1
		elif [ "$status" = 77 ] && [ "$npass" = 0 ] && [ "$nskip" -gt 0 ]; then
			: # every case skipped: the SKIP lines say why
		elif [ "$status" != 0 ]; then
			echo "FAIL $NAME/$name: exit status $status"
			nfail=1
		elif [ $((npass + nskip)) = 0 ]; then
			echo "FAIL $NAME/$name: printed no test result"
			nfail=1
		fi
	fi
	if [ "$nfail" != 0 ]; then
		failed=1
		if [ -s "$other" ]; then
			echo "  $NAME/$name: other output:" >&2
			tail -n 60 "$other" | sed 's/^/    | /' >&2
		fi
		echo "  $NAME/$name: stderr (guest console):" >&2
		console_of "$name" >&2
	fi
}

done_seen=0
while IFS= read -r line || [ -n "$line" ]; do
	case $line in
	"@@BEGIN "*)
		cur=${line#@@BEGIN }
		npass=0
		nfail=0
		nskip=0
		: >"$other"
		;;
	"@@END "*)
		rest=${line#@@END }
		name=${rest%% *}
		prog_end "$name" "${rest#* }"
		cur=
		;;
	"@@DONE")
		done_seen=1
		;;
	"@@"*)
		log "guest: $line"
		;;
	"PASS "*)
		npass=$((npass + 1))
		echo "PASS $NAME/$cur/${line#PASS }"
		;;
	"FAIL "*)
		nfail=$((nfail + 1))
		echo "FAIL $NAME/$cur/${line#FAIL }"
		;;
	"SKIP "*)
		nskip=$((nskip + 1))
		echo "SKIP $NAME/$cur/${line#SKIP }"
		;;
	*)
		printf '%s\n' "$line" >>"$other"
		;;
	esac
done <"$WORK/results.txt"

if [ -n "$cur" ]; then
	echo "FAIL $NAME/$cur: the guest stopped while it ran (qemu exit status $qrc after ${elapsed}s)"
	failed=1
	console_tail
elif [ "$done_seen" != 1 ]; then
	echo "FAIL $NAME: the guest did not finish (qemu exit status $qrc after ${elapsed}s)"
	failed=1
	console_tail
fi
exit "$failed"
