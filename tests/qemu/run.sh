#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/qemu/run.sh BUILDDIR - mntkit's tests on a matrix of Debian's
# kernels in qemu.
#
# MNTKIT_QEMU_ARCH=arm64 runs the same on Debian's arm64 cloud kernels
# (linux-image-cloud-arm64) in qemu-system-aarch64 (TCG, -M virt -cpu
# max): the programs are cross-built with gcc-aarch64-linux-gnu through
# meson and tests/cross/arm64.ini (static, -Dwerror=true) in
# BUILDDIR/qemu-arm64/build; the kernels are cached in
# BUILDDIR/qemu-cache/arm64/; the lines are named qemu-arm64-6.1/...
# Steps 1-5 below are those of x86-64; where arm64 differs, the code says
# so (cross_gcc, fetch_userlibs, build_initramfs_arm64, boot).
#
# The kernels (Debian's cloud flavour, linux-image-cloud-amd64 of each
# suite): bullseye's 5.10 and bookworm's 6.1 (no statmount/listmount, no
# unique mount IDs: everything through the mountinfo emulation),
# bookworm-backports' 6.12 (statmount with the groups up to MNT_OPTS:
# the hybrid) and sid's newest (every group: native). The host's own
# kernel runs the suite outside qemu. This script:
#
#  1. installs qemu-system-x86 and cpio when they are missing
#     (apt-get install --no-install-recommends; root only); for arm64
#     qemu-system-arm, and the cross compiler unpacked (cross_gcc);
#  2. fetches each kernel with `apt-get download` through a private
#     sources list and lists folder (BUILDDIR/qemu-cache/apt/SUITE; the
#     archive's URI is the one of /etc/apt/sources.list.d/debian.sources;
#     the machine's apt configuration is never changed), resolving the
#     versioned package from the suite's meta package, and keeps only its
#     vmlinuz in BUILDDIR/qemu-cache/SUITE (later runs reuse it; nothing is
#     installed);
#  3. builds, statically, the guest's /init (tests/qemu/init.c), the
#     library, every test program of tests/ and tests/emul/, the guest's
#     own tests (tests/qemu/test-*.c) and the tools statmnt and mntwatch;
#     each kernel's modules fuse, overlay, loop and squashfs (where it has
#     them as modules; decompressed), which the guest's /init loads;
#     lsmnt is linked to the static library too, but Debian ships no
#     libsmartcols.a, so it goes in with its shared libraries; all into
#     one newc initramfs (BUILDDIR/qemu/, rebuilt only when a source
#     changed);
#     and, where this host cannot run i386 programs (tests/cli/i386.sh
#     says SKIP: no IA32 emulation), the library and every test program
#     of tests/ and tests/emul/ again as static i386 programs (gcc -m32),
#     which the newest guest runs after the others, on its compat system
#     calls: lines `PASS qemu-7.2/i386/PROG/CASE`; and, where the
#     build has the Python module, a second cpio archive appended to the
#     first (tests/qemu/python-layer.sh: Debian's python3, the part of
#     its standard library python/tests/smoke.py imports, the module),
#     whose smoke test every guest runs last (PROG python-smoke);
#  4. boots every kernel under qemu's software emulation (TCG; /dev/kvm
#     is not used), MNTKIT_QEMU_JOBS guests at a time, with the console on
#     the first serial port and the results on the second;
#  5. relays each guest's result lines prefixed with the kernel's version
#     and the program's name:
#
#	PASS qemu-6.12/PROG/CASE
#	FAIL qemu-6.12/PROG/CASE: reason
#	SKIP qemu-6.12/PROG/CASE: reason
#
# Progress notes, "# qemu: ..." lines (each download with its size,
# each guest as it boots and ends), come as they happen.
# A program that dies, exits non-zero without a FAIL line or prints no
# result is one FAIL; a guest that panics or never finishes is one FAIL
# with the console's tail on stderr. A kernel that cannot be fetched (no
# archive, no such package) is one line `SKIP qemu-LABEL: <reason>`. When
# the run is impossible here altogether (no root to install the packages,
# not x86-64, a sanitizer build whose runtime cannot be linked
# statically) it prints one line `SKIP qemu: <reason>` and exits 0.
# The exit status is 1 if anything failed, 0 otherwise.
#
# Environment:
#   MNTKIT_QEMU=skip          skip (prints the SKIP line)
#   MNTKIT_QEMU_ARCH=A        the guests' architecture: x86_64 (default)
#                             or arm64
#   MNTKIT_QEMU_KERNELS="L.." only these kernels of the matrix (labels:
#                             5.10 6.1 6.12 sid; the same on arm64)
#   MNTKIT_QEMU_JOBS=N        guests at a time (default 2)
#   MNTKIT_QEMU_TIMEOUT=S     seconds for one guest's run (default 360;
#                             arm64 600)
#   MNTKIT_QEMU_PROG_TIMEOUT=S  seconds per program in the guest (default 120;
#                             arm64 240)
#   MNTKIT_QEMU_CASE_TIMEOUT=S  seconds per case (T_TIMEOUT; default 60;
#                             arm64 120)
#   MNTKIT_QEMU_PROGS="A B"   run only these programs (names as the test
#                             programs: test-kernel, test-emul-diff, ...,
#                             python-smoke)
#   MNTKIT_QEMU_CACHE=DIR     the kernel cache (default BUILDDIR/qemu-cache;
#                             arm64's in its arm64/)
#   MNTKIT_QEMU_KERNEL=FILE   boot only this bzImage (arm64: Image; no
#                             download); its
#                             lines are named after the guest's release
#   MNTKIT_QEMU_APPEND=ARGS   more kernel command line arguments
#   MNTKIT_QEMU_CPU=MODEL     qemu's -cpu (default qemu64,-cx16: see boot;
#                             arm64 max,pauth-impdef=on)
#   MNTKIT_QEMU_LOGS=DIR      keep each guest's console as DIR/NAME.console
#   MNTKIT_QEMU_I386=LABEL|none  the guest that runs the i386 programs
#                             (default: sid where the host cannot run
#                             them itself, else none)

set -u

# LABEL SUITE: the matrix (the same suites on both architectures)
MATRIX=(
	"5.10 bullseye"
	"6.1 bookworm"
	"6.12 bookworm-backports"
	"sid sid"
)
# the guests' architecture: Debian's name, qemu's package and program,
# the compiler of the guest's programs, the lines' prefix
ARCH=${MNTKIT_QEMU_ARCH:-x86_64}
case $ARCH in
x86_64 | amd64)
	ARCH=x86_64
	DEB_ARCH=amd64
	QEMU_PKGS="qemu-system-x86"
	QEMU_PROG=qemu-system-x86_64
	CC=gcc
	QNAME=qemu
	;;
arm64 | aarch64)
	ARCH=arm64
	DEB_ARCH=arm64
	QEMU_PKGS="qemu-system-arm"
	QEMU_PROG=qemu-system-aarch64
	CC=aarch64-linux-gnu-gcc
	QNAME=qemu-arm64
	;;
*)
	echo "$0: MNTKIT_QEMU_ARCH=$ARCH: x86_64 or arm64" >&2
	exit 2
	;;
esac
META_PKG=linux-image-cloud-$DEB_ARCH

skip_all() {
	echo "SKIP $QNAME: $*"
	exit 0
}

log() {
	echo "qemu: $*" >&2
}

# a progress note (tests/run-tests.sh shows "# " lines as they come)
note() {
	echo "# qemu: $*"
}

# the size of the download of packages in MB (nothing when apt knows none
# of them): deb_mb "OPTIONS" "PACKAGE..." (apt-cache OPTIONS show PACKAGE)
deb_mb() {
	local p
	for p in $2; do
		# shellcheck disable=SC2086 # a list of options
		apt-cache $1 show --no-all-versions "$p" 2>/dev/null |
			awk '/^Size:/ { print $2; exit }'
	done | awk '{ s += $1 } END { if (NR) printf "%d MB", (s + 524288) / 1048576 }'
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

for c in gcc ar timeout flock ldd; do
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
	note "installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086 # a list of package names
	if ! apt-get install -y -q --no-install-recommends \
		-o DPkg::Lock::Timeout=60 $missing >>"$apt_log" 2>&1; then
		apt-get update -q >>"$apt_log" 2>&1
		# shellcheck disable=SC2086
		apt-get install -y -q --no-install-recommends \
			-o DPkg::Lock::Timeout=60 $missing >>"$apt_log" 2>&1 ||
			skip_all "cannot install$missing: $(apt_reason)"
	fi
}

# shellcheck disable=SC2086 # a list of package names
ensure_pkgs $QEMU_PKGS cpio
QEMU=$(command -v $QEMU_PROG) || skip_all "no $QEMU_PROG after installing $QEMU_PKGS"
if [ "$ARCH" = arm64 ]; then
	for c in meson ninja; do
		command -v "$c" >/dev/null 2>&1 || skip_all "no $c"
	done
fi

# ---- 2. the kernels ----

CACHE=${MNTKIT_QEMU_CACHE:-$BUILDDIR/qemu-cache}
mkdir -p "$CACHE" || exit 2
# one run at a time per cache (the downloads, the initramfs)
if exec 9>>"$CACHE/.lock"; then
	flock 9 || exit 2
fi
# this architecture's kernels and apt lists
KCACHE=$CACHE
[ "$ARCH" = x86_64 ] || KCACHE=$CACHE/$ARCH

# The arm64 cross compiler: aarch64-linux-gnu-gcc where it is installed,
# else Debian's own (gcc-N-aarch64-linux-gnu, its cpp, binutils, libgcc
# and libc6-dev-arm64-cross), unpacked into $KCACHE/gcc/ and put first in
# PATH, never installed: the package conflicts with gcc-multilib, which
# the i386 build needs (installing either removes the other). The
# packages are the machine's own suite's (its apt lists, read only): the
# compiler runs with the machine's libraries.
cross_gcc() {
	local dir=$KCACHE/gcc tmp d gcc_pkg n pkgs
	command -v "$CC" >/dev/null 2>&1 && return 0
	if [ ! -f "$dir/done" ]; then
		[ "$(id -u)" = 0 ] || skip_all "no $CC, and apt-get download of gcc-aarch64-linux-gnu needs root here"
		gcc_pkg=$(apt-cache depends gcc-aarch64-linux-gnu 2>>"$apt_log" |
			awk '/Depends: gcc-[0-9]+-aarch64-linux-gnu$/ { print $2; exit }')
		[ -n "$gcc_pkg" ] || skip_all "no $CC, and apt knows no gcc-aarch64-linux-gnu"
		n=${gcc_pkg#gcc-}
		n=${n%%-*}
		pkgs="$gcc_pkg cpp-$n-aarch64-linux-gnu binutils-aarch64-linux-gnu
			libgcc-$n-dev-arm64-cross libgcc-s1-arm64-cross
			libc6-dev-arm64-cross libc6-arm64-cross
			linux-libc-dev-arm64-cross"
		tmp=$(mktemp -d "$CACHE/fetch.XXXXXX") || exit 2
		note "downloading the arm64 cross compiler ($gcc_pkg and what it needs, $(deb_mb "" "$pkgs")) into $dir (unpacked, not installed)"
		# shellcheck disable=SC2086 # the packages
		if ! (cd "$tmp" && apt-get download -q $pkgs) >>"$apt_log" 2>&1; then
			rm -rf "$tmp"
			skip_all "no $CC, and its packages cannot be downloaded: $(apt_reason)"
		fi
		rm -rf "$dir" && mkdir -p "$dir" || exit 2
		for d in "$tmp"/*.deb; do
			dpkg-deb --fsys-tarfile "$d" |
				tar -x -C "$dir" --exclude=./usr/share || exit 2
		done
		rm -rf "$tmp"
		# libc.so, a linker script, names its files by absolute path
		for d in "$dir"/usr/aarch64-linux-gnu/lib/*.so; do
			grep -q 'GNU ld script' "$d" 2>/dev/null &&
				sed -i "s, /usr/aarch64-linux-gnu/, $dir/usr/aarch64-linux-gnu/,g" "$d"
		done
		ln -s "aarch64-linux-gnu-gcc-$n" "$dir/usr/bin/$CC" &&
			touch "$dir/done" || exit 2
	fi
	PATH=$dir/usr/bin:$PATH
	# the cross binutils' own libraries (libbfd-V-arm64.so, ...: no name
	# of the machine's)
	for d in "$dir"/usr/lib/*-linux-gnu; do
		[ -d "$d" ] && export LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	done
}
if [ "$ARCH" = arm64 ]; then
	cross_gcc
	if ! echo 'int main(void){return 0;}' |
		$CC -static -x c -o /dev/null - >/dev/null 2>&1; then
		skip_all "$CC cannot link statically (libc6-dev-arm64-cross's libc.a missing)"
	fi
fi

# The Debian archive's URI (archive_uri) and keyring, as the machine's
# apt has them; never changed.
# shellcheck source-path=SCRIPTDIR source=../../scripts/debian-archive.sh
. "$SRCDIR/scripts/debian-archive.sh"

KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# apt's options for a private view of one suite
apt_opts() {
	local d=$KCACHE/apt/$1
	echo "-o Dir::Etc::sourcelist=$d/sources.list -o Dir::Etc::sourceparts=-" \
		"-o Dir::State::Lists=$d/lists -o Dir::Cache=$d/cache" \
		"-o Debug::NoLocking=1 -o APT::Get::List-Cleanup=0" \
		"-o APT::Architectures=$DEB_ARCH -o APT::Architecture=$DEB_ARCH"
}

# apt_update SUITE: a sources list of SUITE's $DEB_ARCH packages and its
# lists, in $KCACHE/apt/SUITE; says why when it fails
apt_update() {
	local d=$KCACHE/apt/$1 uri opts
	uri=$(archive_uri) || { echo "no Debian archive URI in /etc/apt/sources.list.d/debian.sources"; return 1; }
	[ -f "$KEYRING" ] || { echo "no $KEYRING"; return 1; }
	mkdir -p "$d/lists/partial" "$d/cache" || return 1
	echo "deb [arch=$DEB_ARCH signed-by=$KEYRING] $uri $1 main" \
		>"$d/sources.list"
	opts=$(apt_opts "$1")
	# shellcheck disable=SC2086 # a list of options
	if ! apt-get $opts update -q >"$d/update.log" 2>&1; then
		cat "$d/update.log" >>"$apt_log"
		echo "apt-get update of $1 ($uri) failed: $(apt_reason)"
		return 1
	fi
	cat "$d/update.log" >>"$apt_log"
}

# a progress note of what the last apt_update SUITE fetched, if anything
note_update() {
	local f
	f=$(sed -n 's/^Fetched \([0-9.,]* [kMG]*B\) in .*/\1/p' \
		"$KCACHE/apt/$1/update.log" 2>/dev/null)
	[ -n "$f" ] && note "apt lists of $1 ($DEB_ARCH): $f fetched"
	return 0
}

# fetch_kernel LABEL SUITE: $KCACHE/SUITE/vmlinuz and kernel-package;
# prints the SKIP line and fails when it cannot
fetch_kernel() {
	local label=$1 suite=$2 dir=$KCACHE/$2 why opts pkg ver bin tmp deb
	local debs img
	if [ -s "$dir/vmlinuz" ] && [ -s "$dir/kernel-package" ]; then
		return 0
	fi
	skip_k() {
		echo "SKIP $QNAME-$label: $*"
		rm -rf "${tmp:-}"
		return 1
	}
	[ "$(id -u)" = 0 ] || { skip_k "no cached kernel, and apt-get download of $suite's $META_PKG needs root here"; return 1; }
	command -v apt-get >/dev/null 2>&1 || { skip_k "no apt-get to fetch $suite's kernel"; return 1; }
	why=$(apt_update "$suite") || { skip_k "$why"; return 1; }
	note_update "$suite"
	mkdir -p "$dir" || return 1
	opts=$(apt_opts "$suite")
	# shellcheck disable=SC2086
	pkg=$(apt-cache $opts depends "$META_PKG" 2>>"$apt_log" |
		awk '/Depends: linux-image-/{print $2; exit}')
	[ -n "$pkg" ] || { skip_k "cannot resolve $suite's $META_PKG to a kernel package: $(apt_reason)"; return 1; }
	ver=${pkg#linux-image-}
	# sid splits the image: the kernel itself is in linux-binary-VERSION
	bin=$pkg
	# shellcheck disable=SC2086
	if apt-cache $opts depends "$pkg" 2>/dev/null |
		grep -q "Depends: linux-binary-$ver\$"; then
		bin=linux-binary-$ver
	fi
	tmp=$(mktemp -d "$CACHE/fetch.XXXXXX") || return 1
	note "downloading $bin ($suite, $(deb_mb "$opts" "$bin")) into $CACHE"
	# shellcheck disable=SC2086
	if ! (cd "$tmp" && apt-get $opts download -q "$bin") >>"$apt_log" 2>&1; then
		skip_k "cannot download $bin: $(apt_reason)"
		return 1
	fi
	debs=("$tmp"/*.deb)
	deb=${debs[0]}
	mkdir -p "$tmp/x"
	[ -f "$deb" ] || { skip_k "apt-get download $bin left no .deb"; return 1; }
	# only the image (boot/vmlinuz-V, or usr/lib/modules/V/vmlinuz)
	dpkg-deb --fsys-tarfile "$deb" 2>>"$apt_log" |
		tar -x -C "$tmp/x" --wildcards --no-wildcards-match-slash \
			'./boot/vmlinuz-*' "./usr/lib/modules/*/vmlinuz" \
			>>"$apt_log" 2>&1
	img=
	for f in "$tmp"/x/boot/vmlinuz-* "$tmp"/x/usr/lib/modules/*/vmlinuz; do
		[ -f "$f" ] && img=$f && break
	done
	[ -n "$img" ] || { skip_k "$bin has neither boot/vmlinuz-* nor usr/lib/modules/*/vmlinuz"; return 1; }
	if ! mv "$img" "$dir/vmlinuz.new" ||
		! mv "$dir/vmlinuz.new" "$dir/vmlinuz"; then
		skip_k "cannot store the kernel in $dir"
		return 1
	fi
	echo "${deb##*/}" >"$dir/kernel-package"
	# the modules are in the same package, but sid's (linux-modules-V)
	[ "$bin" = "$pkg" ] && extract_modules "$deb" "$dir"
	rm -rf "$tmp"
	return 0
}

# the modules the tests mount with, where a kernel has them as modules
MODULES="fuse overlay loop squashfs"

# extract_modules DEB DIR: DIR/modules/RELEASE/NAME.ko of $MODULES that DEB
# has (decompressed: the guest's finit_module gets plain files); DIR/
# modules.done says it was done, whatever DEB had
extract_modules() {
	local deb=$1 dir=$2 x m f rel
	x=$(mktemp -d "$CACHE/mods.XXXXXX") || return 1
	dpkg-deb --fsys-tarfile "$deb" 2>>"$apt_log" |
		tar -x -C "$x" --wildcards './lib/modules/*' './usr/lib/modules/*' \
			>>"$apt_log" 2>&1
	rm -rf "$dir/modules"
	for m in $MODULES; do
		for f in "$x"/lib/modules/*/kernel/*/"$m".ko* \
			"$x"/lib/modules/*/kernel/*/*/"$m".ko* \
			"$x"/usr/lib/modules/*/kernel/*/"$m".ko* \
			"$x"/usr/lib/modules/*/kernel/*/*/"$m".ko*; do
			[ -f "$f" ] || continue
			rel=${f#"$x"/}
			rel=${rel#usr/}
			rel=${rel#lib/modules/}
			rel=${rel%%/*}
			mkdir -p "$dir/modules/$rel" || break
			case $f in
			*.ko.xz) xz -dc "$f" >"$dir/modules/$rel/$m.ko" ;;
			*.ko.zst) zstd -qdc "$f" >"$dir/modules/$rel/$m.ko" ;;
			*.ko.gz) gzip -dc "$f" >"$dir/modules/$rel/$m.ko" ;;
			*.ko) cp "$f" "$dir/modules/$rel/$m.ko" ;;
			esac || rm -f "$dir/modules/$rel/$m.ko"
			break
		done
	done
	rm -rf "$x"
	touch "$dir/modules.done"
}

# fetch_modules SUITE: the modules of a cached kernel (a cache made before
# the guests loaded modules, or sid's separate linux-modules-V package);
# without them the tests that need them say SKIP in the guest
fetch_modules() {
	local suite=$1 dir=$KCACHE/$1 file pkg ver tmp opts debs
	[ -f "$dir/modules.done" ] && return 0
	[ "$(id -u)" = 0 ] || return 0
	file=$(cat "$dir/kernel-package")
	pkg=${file%%_*}
	ver=${file#*_}
	ver=${ver%_*}
	ver=${ver//%3a/:}
	case $pkg in
	linux-binary-*) pkg=linux-modules-${pkg#linux-binary-} ;;
	esac
	opts=$(apt_opts "$suite")
	tmp=$(mktemp -d "$CACHE/fetch.XXXXXX") || return 0
	note "downloading $pkg ($suite, $(deb_mb "$opts" "$pkg=$ver")) for its modules"
	# shellcheck disable=SC2086 # a list of options
	if (cd "$tmp" && apt-get $opts download -q "$pkg=$ver") >>"$apt_log" 2>&1; then
		debs=("$tmp"/*.deb)
		[ -f "${debs[0]}" ] && extract_modules "${debs[0]}" "$dir"
	else
		log "cannot download $pkg=$ver: $(apt_reason); the tests that need its modules SKIP"
	fi
	rm -rf "$tmp"
	return 0
}

# fetch_userlibs: lsmnt's libraries for the arm64 guest, bookworm's
# libblkid1 and libsmartcols1 (lsmnt dlopen()s them; the glibc they need
# is libc6-arm64-cross's, bookworm's 2.36), in $KCACHE/userlibs/; without
# them lsmnt's cases of those libraries fail, naming the missing library
fetch_userlibs() {
	local dir=$KCACHE/userlibs tmp why debs d opts
	[ -f "$dir/done" ] && return 0
	[ "$(id -u)" = 0 ] || return 0
	why=$(apt_update bookworm) || { log "lsmnt's libraries: $why"; return 0; }
	tmp=$(mktemp -d "$CACHE/fetch.XXXXXX") || return 0
	log "downloading libblkid1 and libsmartcols1 (bookworm, $DEB_ARCH)"
	opts=$(apt_opts bookworm)
	# shellcheck disable=SC2086 # a list of options
	if (cd "$tmp" && apt-get $opts download -q \
		libblkid1 libsmartcols1) >>"$apt_log" 2>&1; then
		debs=("$tmp"/*.deb)
		rm -rf "$dir" && mkdir -p "$dir" || return 0
		for d in "${debs[@]}"; do
			dpkg-deb -x "$d" "$tmp/x" 2>>"$apt_log"
		done
		cp -L "$tmp"/x/usr/lib/*/libblkid.so.1 \
			"$tmp"/x/usr/lib/*/libsmartcols.so.1 "$dir/" &&
			touch "$dir/done"
	else
		log "cannot download libblkid1 libsmartcols1: $(apt_reason)"
	fi
	rm -rf "$tmp"
	return 0
}

# the lines' name of a cached kernel: qemu-MAJOR.MINOR of its package
# (qemu-arm64-MAJOR.MINOR)
kernel_name() {
	local p
	p=$(cat "$1/kernel-package")
	p=${p#linux-image-}
	p=${p#linux-binary-}
	echo "$QNAME-$(echo "$p" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')"
}

# GUESTS: "NAME KERNEL" of each guest to boot
GUESTS=()
GUEST_LABELS=()	# the matrix's label of each guest ("-" for MNTKIT_QEMU_KERNEL)
if [ -n "${MNTKIT_QEMU_KERNEL:-}" ]; then
	[ -s "$MNTKIT_QEMU_KERNEL" ] || { echo "$0: no kernel $MNTKIT_QEMU_KERNEL" >&2; exit 2; }
	GUESTS+=("- $MNTKIT_QEMU_KERNEL")
	GUEST_LABELS+=("-")
else
	for k in "${MATRIX[@]}"; do
		read -r label suite <<<"$k"
		if [ -n "${MNTKIT_QEMU_KERNELS:-}" ]; then
			case " $MNTKIT_QEMU_KERNELS " in
			*" $label "*) ;;
			*) continue ;;
			esac
		fi
		fetch_kernel "$label" "$suite" || continue
		fetch_modules "$suite"
		name=$(kernel_name "$KCACHE/$suite")
		log "$name: $(cat "$KCACHE/$suite/kernel-package")"
		GUESTS+=("$name $KCACHE/$suite/vmlinuz")
		GUEST_LABELS+=("$label")
	done
fi
[ "${#GUESTS[@]}" -gt 0 ] || exit 0
[ "$ARCH" = arm64 ] && fetch_userlibs

# The i386 programs: on this host when it can run them (tests/cli/i386.sh),
# else in one guest (the newest kernel's), when gcc -m32 links statically.
I386_LABEL=${MNTKIT_QEMU_I386:-}
I386_WHY=
[ "$ARCH" = x86_64 ] || I386_LABEL=none
if [ -z "$I386_LABEL" ]; then
	I386_LABEL=none
	t32=$(mktemp "${TMPDIR:-/tmp}/mntkit-qemu-i386.XXXXXX") || exit 2
	if echo 'int main(void){return 0;}' |
		gcc -m32 -static -x c -o "$t32" - >/dev/null 2>&1; then
		"$t32" 2>/dev/null || I386_LABEL=sid
	else
		I386_WHY="gcc -m32 cannot link statically (gcc-multilib missing?)"
	fi
	rm -f "$t32"
fi
I386_GUEST=
if [ "$I386_LABEL" != none ]; then
	for k in "${!GUEST_LABELS[@]}"; do
		[ "${GUEST_LABELS[$k]}" = "$I386_LABEL" ] && I386_GUEST=$k
	done
	[ -z "$I386_GUEST" ] && I386_WHY="no guest $I386_LABEL in this run"
fi
# where they should run in a guest and cannot, one SKIP says why
[ -n "$I386_WHY" ] && echo "SKIP qemu-i386: $I386_WHY"

# ---- 3. the guest's programs and initramfs ----

OUTDIR=$BUILDDIR/qemu
[ "$ARCH" = x86_64 ] || OUTDIR=$BUILDDIR/qemu-$ARCH
mkdir -p "$OUTDIR" || exit 2

# every test program: NAME and its sources (relative to the project root;
# the library is linked to each). test-abi has two more sources, test-expr
# lsmnt's filter engine.
PROGS=()
for f in "$SRCDIR"/tests/qemu/test-*.c "$SRCDIR"/tests/test-*.c \
	"$SRCDIR"/tests/emul/test-*.c; do
	name=${f##*/}
	name=${name%.c}
	case $name in
	test-abi-compat-*) continue ;;
	test-abi) PROGS+=("$name tests/test-abi.c tests/test-abi-compat-before.c tests/test-abi-compat-after.c") ;;
	test-expr) PROGS+=("$name tests/test-expr.c $(cd "$SRCDIR" && echo tools/lsmnt/expr*.c)") ;;
	# its out_of_memory case wraps the allocations (tests/meson.build)
	test-live) PROGS+=("$name tests/test-live.c -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc") ;;
	*) PROGS+=("$name ${f#"$SRCDIR"/}") ;;
	esac
done

selected() {
	[ -z "${MNTKIT_QEMU_PROGS:-}" ] && return 0
	case " $MNTKIT_QEMU_PROGS " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

for want in ${MNTKIT_QEMU_PROGS:-}; do
	[ "$want" = python-smoke ] && continue # the Python layer's
	known=0
	for p in "${PROGS[@]}"; do
		[ "${p%% *}" = "$want" ] && known=1
	done
	if [ "$known" = 0 ]; then
		echo "$0: MNTKIT_QEMU_PROGS: no test program $want" >&2
		exit 2
	fi
done

CFLAGS=(-std=gnu11 -O2 -g0 -pthread -D_GNU_SOURCE
	-Wall -Wextra -Wno-unused-parameter
	-I"$SRCDIR/include" -I"$SRCDIR/lib" -I"$SRCDIR/tests"
	-I"$SRCDIR/tests/emul" -I"$SRCDIR/tools")
PKGCONF_LIBS=$(pkg-config --libs smartcols blkid 2>/dev/null || echo "-lsmartcols -lblkid")
PKGCONF_CFLAGS=$(pkg-config --cflags smartcols blkid 2>/dev/null)

# a stamp of everything the initramfs is made of
inputs_stamp() {
	{
		command -v "$CC"
		$CC --version | head -n 1
		echo "${CFLAGS[*]}" "${MNTKIT_QEMU_PROGS:-}" "$PKGCONF_LIBS"
		echo "i386: $I386_GUEST"
		for g in "${GUESTS[@]}"; do
			g=${g#* }
			g=${g%/*}
			[ -d "$g/modules" ] && (cd "$g" && ls -lR modules)
		done
		for p in "${PROGS[@]}"; do echo "$p"; done
		cd "$SRCDIR" && cat lib/*.c lib/*.h include/*.h tests/*.h \
			tests/emul/*.h tools/*.c tools/*.h tools/lsmnt/*.c \
			tools/lsmnt/*.h tests/qemu/*.c \
			tests/qemu/run.sh tests/*.c tests/emul/*.c 2>/dev/null
		# arm64's programs are built by meson
		[ "$ARCH" = x86_64 ] || cat meson.build meson_options.txt \
			./*/meson.build tests/*/meson.build tests/cross/*.ini \
			"$KCACHE"/userlibs/*
	} | sha256sum | cut -d' ' -f1
}

# run "$@" in the background, at most two at a time (pids in JOBPIDS)
JOBPIDS=()
JOBS_OK=1
bg2() {
	"$@" >>"$OUTDIR/build.log" 2>&1 &
	JOBPIDS+=($!)
	if [ "${#JOBPIDS[@]}" -ge 2 ]; then
		wait "${JOBPIDS[0]}" || JOBS_OK=0
		JOBPIDS=("${JOBPIDS[@]:1}")
	fi
}
bgwait() {
	local p
	for p in "${JOBPIDS[@]}"; do wait "$p" || JOBS_OK=0; done
	JOBPIDS=()
	[ "$JOBS_OK" = 1 ]
}

# copy a dynamic program's shared libraries into the stage, same paths
copy_libs() {
	local stage=$1 prog=$2 lib
	for lib in $(ldd "$prog" | awk '{ for (i = 1; i <= NF; i++)
			if ($i ~ /^\//) print $i }'); do
		[ -f "$stage$lib" ] && continue
		mkdir -p "$stage${lib%/*}" && cp -L "$lib" "$stage$lib" ||
			return 1
	done
}

# build_i386 STAGE: the library and the test programs of tests/ and
# tests/emul/ as static i386 programs in STAGE/i386/tests, listed in
# STAGE/tests-i386.list (the guest's programs of tests/qemu/ are not: they
# drive the 64-bit tools; there is no STAGE/i386/tools, so the tests'
# cases of the tools SKIP, as in the host's i386 build: a 64-bit tool
# under an i386 test's seccomp filter, which refuses every call of
# another architecture, could not even load)
build_i386() {
	local stage=$1 obj32=$OUTDIR/obj32 cfile f p name srcs out
	mkdir -p "$obj32" "$stage/i386/tests/emul" || return 1
	for cfile in "$SRCDIR"/lib/*.c; do
		f=${cfile##*/}
		bg2 gcc -m32 "${CFLAGS[@]}" -c -o "$obj32/${f%.c}.o" "$cfile"
	done
	bgwait || return 1
	rm -f "$obj32/libmntkit.a"
	ar rcs "$obj32/libmntkit.a" "$obj32"/*.o || return 1
	: >"$stage/tests-i386.list"
	for p in "${PROGS[@]}"; do
		read -r name srcs <<<"$p"
		selected "$name" || continue
		# where the build tree has them: BUILD/tests/NAME and
		# BUILD/tests/emul/NAME (the tests look for BUILD/tools/)
		case $srcs in
		tests/qemu/*) continue ;;
		tests/emul/*) out=i386/tests/emul/$name ;;
		*) out=i386/tests/$name ;;
		esac
		# shellcheck disable=SC2086 # srcs is a list
		# shellcheck disable=SC2016 # the inner shell's arguments
		bg2 sh -c 'cd "$1" && shift && exec "$@"' sh "$SRCDIR" \
			gcc -m32 "${CFLAGS[@]}" -static \
			-o "$stage/$out" $srcs "$obj32/libmntkit.a"
		echo "i386/$name /$out" >>"$stage/tests-i386.list"
	done
	bgwait
}

# new_stage STAGE: the initramfs's tree, with the guests' modules
new_stage() {
	local stage=$1 g
	rm -rf "$stage"
	mkdir -p "$stage/bin" "$stage/tests" "$stage/proc" \
		"$stage/sys" "$stage/dev" "$stage/tmp" "$stage/run" || return 1
	# the tests find the tools next to their own directory (/tests ->
	# /tools), as in the build tree
	ln -s bin "$stage/tools" || return 1
	for g in "${GUESTS[@]}"; do
		g=${g#* }
		g=${g%/*}
		if [ -d "$g/modules" ]; then
			mkdir -p "$stage/modules" &&
				cp -R "$g/modules/." "$stage/modules/" || return 1
		fi
	done
}

# pack_stage STAGE STRIP: its programs stripped, then OUTDIR/initramfs.cpio
pack_stage() {
	local stage=$1
	"$2" "$stage/init" "$stage"/bin/* "$stage"/tests/* \
		"$stage"/i386/tests/test-* "$stage"/i386/tests/emul/* 2>/dev/null
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc --quiet -R 0:0) >"$OUTDIR/initramfs.cpio.new" ||
		return 1
	mv "$OUTDIR/initramfs.cpio.new" "$OUTDIR/initramfs.cpio"
}

build_initramfs() {
	local obj tobj stage srcs p name f cfile T
	obj=$OUTDIR/obj
	tobj=$OUTDIR/obj/tools
	stage=$OUTDIR/stage
	rm -rf "$obj" "$OUTDIR/obj32" "$OUTDIR/build.log"
	mkdir -p "$tobj/lsmnt" || return 1
	new_stage "$stage" || return 1
	JOBS_OK=1
	for cfile in "$SRCDIR"/lib/*.c; do
		f=${cfile##*/}
		bg2 gcc "${CFLAGS[@]}" -c -o "$obj/${f%.c}.o" "$cfile"
	done
	for f in output cli record journal mntwatch-journal; do
		# shellcheck disable=SC2086 # pkg-config's flags
		bg2 gcc "${CFLAGS[@]}" $PKGCONF_CFLAGS -c -o "$tobj/$f.o" \
			"$SRCDIR/tools/$f.c"
	done
	for cfile in "$SRCDIR"/tools/lsmnt/*.c; do
		f=${cfile##*/}
		# shellcheck disable=SC2086 # pkg-config's flags
		bg2 gcc "${CFLAGS[@]}" $PKGCONF_CFLAGS -c \
			-o "$tobj/lsmnt/${f%.c}.o" "$cfile"
	done
	bgwait || return 1
	rm -f "$obj/libmntkit.a"
	ar rcs "$obj/libmntkit.a" "$obj"/*.o || return 1
	T="$tobj/output.o $tobj/cli.o $tobj/record.o"

	bg2 gcc "${CFLAGS[@]}" -static -o "$stage/init" \
		"$SRCDIR/tests/qemu/init.c"
	# shellcheck disable=SC2086 # lists
	bg2 gcc "${CFLAGS[@]}" -static -o "$stage/bin/statmnt" \
		"$SRCDIR/tools/statmnt.c" $T "$obj/libmntkit.a"
	# shellcheck disable=SC2086
	bg2 gcc "${CFLAGS[@]}" -static -o "$stage/bin/mntwatch" \
		"$SRCDIR/tools/mntwatch.c" "$tobj/mntwatch-journal.o" \
		"$tobj/journal.o" $T "$obj/libmntkit.a"
	# shellcheck disable=SC2086
	bg2 gcc "${CFLAGS[@]}" $PKGCONF_CFLAGS -o "$stage/bin/lsmnt" \
		"$tobj"/lsmnt/*.o $T "$obj/libmntkit.a" -ldl
	: >"$stage/tests.list"
	for p in "${PROGS[@]}"; do
		read -r name srcs <<<"$p"
		selected "$name" || continue
		# shellcheck disable=SC2086 # srcs is a list
		# shellcheck disable=SC2016 # the inner shell's arguments
		bg2 sh -c 'cd "$1" && shift && exec "$@"' sh "$SRCDIR" \
			gcc "${CFLAGS[@]}" -static -o "$stage/tests/$name" \
			$srcs "$obj/libmntkit.a"
		echo "$name /tests/$name" >>"$stage/tests.list"
	done
	bgwait || return 1
	if [ -n "$I386_GUEST" ]; then
		build_i386 "$stage" || return 1
	fi
	copy_libs "$stage" "$stage/bin/lsmnt" >>"$OUTDIR/build.log" 2>&1 ||
		return 1
	# lsmnt dlopen()s libsmartcols and libblkid (tools/lsmnt/dl.c): ldd
	# does not name them
	for lib in $(ldconfig -p | awk '/^\t(libsmartcols|libblkid)\.so\.1 .*x86-64/ { print $NF }'); do
		copy_libs "$stage" "$lib" >>"$OUTDIR/build.log" 2>&1 &&
			mkdir -p "$stage${lib%/*}" && cp -L "$lib" "$stage$lib" ||
			return 1
	done
	pack_stage "$stage" strip
}

# cross_libs STAGE FILE: the shared libraries FILE needs (readelf's
# NEEDED), from libc6-arm64-cross, into STAGE/lib/aarch64-linux-gnu
cross_libs() {
	local l
	for l in $(aarch64-linux-gnu-readelf -d "$2" |
		sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ -f "$1/lib/aarch64-linux-gnu/$l" ] && continue
		cp -L "$CROSS_LIBDIR/$l" "$1/lib/aarch64-linux-gnu/" || return 1
	done
}

# build_initramfs_arm64: the library, the test programs and the tools
# cross-built by meson (tests/cross/arm64.ini: static, -Werror) in
# OUTDIR/build, ninja keeping it up to date; the guest's own programs
# (init.c, tests/qemu/test-*.c) linked to its static library. lsmnt
# dlopen()s libsmartcols and libblkid: a static program can load them
# only with a second libc of its own (whose malloc, stdio and locale are
# not the program's), so the guest's lsmnt is linked again from meson's
# objects, dynamically, and goes in with libc6-arm64-cross's loader and
# libc and bookworm's two libraries (fetch_userlibs).
build_initramfs_arm64() {
	local b=$OUTDIR/build stage=$OUTDIR/stage p name srcs t l cc_path
	CROSS_LIBDIR=$(dirname "$($CC -print-file-name=libc.so.6)")
	rm -f "$OUTDIR/build.log"
	# a new setup when the compiler is another one (installed, unpacked)
	cc_path=$(readlink -f "$(command -v "$CC")")
	if [ ! -f "$b/build.ninja" ] || [ "$(cat "$b/cc" 2>/dev/null)" != "$cc_path" ]; then
		rm -rf "$b"
		meson setup "$b" "$SRCDIR" \
			--cross-file "$SRCDIR/tests/cross/arm64.ini" \
			-Dwerror=true -Ddocs=false -Dbench=false -Dfuzz=false \
			-Dexamples=false -Dpython=disabled \
			>>"$OUTDIR/build.log" 2>&1 || return 1
		echo "$cc_path" >"$b/cc"
	else
		# (the build's Python module is the host's: never cross-built)
		meson configure "$b" -Dpython=disabled >>"$OUTDIR/build.log" 2>&1 ||
			return 1
	fi
	ninja -C "$b" -j 2 >>"$OUTDIR/build.log" 2>&1 || return 1
	new_stage "$stage" || return 1
	for t in statmnt mntwatch; do
		cp "$b/tools/$t" "$stage/bin/" || return 1
	done
	JOBS_OK=1
	bg2 "$CC" -o "$stage/bin/lsmnt" "$b"/tools/lsmnt.p/*.o \
		"$b/tools/libmntkit-tools-output.a" "$b/lib/libmntkit.a" -ldl
	bg2 "$CC" "${CFLAGS[@]}" -static -o "$stage/init" \
		"$SRCDIR/tests/qemu/init.c"
	: >"$stage/tests.list"
	for p in "${PROGS[@]}"; do
		read -r name srcs <<<"$p"
		selected "$name" || continue
		case $srcs in
		tests/qemu/*)
			bg2 "$CC" "${CFLAGS[@]}" -static -o "$stage/tests/$name" \
				"$SRCDIR/$srcs" "$b/lib/libmntkit.a" ;;
		tests/emul/*) cp "$b/tests/emul/$name" "$stage/tests/" ;;
		*) cp "$b/tests/$name" "$stage/tests/" ;;
		esac || return 1
		echo "$name /tests/$name" >>"$stage/tests.list"
	done
	bgwait || return 1
	mkdir -p "$stage/lib/aarch64-linux-gnu" || return 1
	cp -L "$CROSS_LIBDIR/ld-linux-aarch64.so.1" "$stage/lib/" &&
		cross_libs "$stage" "$stage/bin/lsmnt" || return 1
	for l in "$KCACHE"/userlibs/*.so.*; do
		[ -f "$l" ] || continue
		cp "$l" "$stage/lib/aarch64-linux-gnu/" &&
			cross_libs "$stage" "$l" || return 1
	done
	pack_stage "$stage" aarch64-linux-gnu-strip
}

stamp=$(inputs_stamp)
if [ -s "$OUTDIR/initramfs.cpio" ] && [ -f "$OUTDIR/stamp" ] &&
	[ "$(cat "$OUTDIR/stamp")" = "$stamp" ]; then
	note "the guests' initramfs is up to date"
else
	rm -f "$OUTDIR/stamp"
	note "building the guests' programs and initramfs"
	t0=$(date +%s)
	builder=build_initramfs
	[ "$ARCH" = x86_64 ] || builder=build_initramfs_$ARCH
	if ! "$builder"; then
		echo "FAIL $QNAME/build: the guest's programs do not build"
		sed 's/^/    | /' "$OUTDIR/build.log" | tail -n 60 >&2
		exit 1
	fi
	echo "$stamp" >"$OUTDIR/stamp"
	note "built the initramfs in $(($(date +%s) - t0)) s"
fi

# the Python layer (tests/qemu/python-layer.sh): Debian's python3, the
# module and python/tests/smoke.py, appended to the initramfs (the
# machine's own python3: x86-64 guests only)
INITRD=$OUTDIR/initramfs.cpio
pylayer_failed=0
if [ "$ARCH" = x86_64 ] && selected python-smoke; then
	bash "$SRCDIR/tests/qemu/python-layer.sh" "$BUILDDIR" \
		"$OUTDIR/python.cpio" 2>"$OUTDIR/python.log"
	case $? in
	0) cat "$OUTDIR/initramfs.cpio" "$OUTDIR/python.cpio" \
		>"$OUTDIR/initramfs-python.cpio" &&
		INITRD=$OUTDIR/initramfs-python.cpio ;;
	77) echo "SKIP qemu/python-smoke: $(tail -n 1 "$OUTDIR/python.log")" ;;
	*) echo "FAIL qemu/python-smoke: the Python layer does not build: $(tail -n 1 "$OUTDIR/python.log")"
		pylayer_failed=1 ;;
	esac
fi

# ---- 4. the guests ----

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mntkit-qemu.XXXXXX") || exit 2
# the limits: a guest's run, a program's, a case's (T_TIMEOUT, which the
# kernel hands its unknown NAME=VALUE arguments to /init as environment);
# qemu runs an arm64 guest's programs about twice as slowly. A guest's
# run is for a hang: 6.12's takes 190 s, the newest's (twice the limit,
# with the i386 programs) 430 s on a quiet 2-core machine, and a third
# more beside a busy host
if [ "$ARCH" = x86_64 ]; then
	timeout_s=${MNTKIT_QEMU_TIMEOUT:-360}
	prog_timeout=${MNTKIT_QEMU_PROG_TIMEOUT:-120}
	case_timeout=${MNTKIT_QEMU_CASE_TIMEOUT:-60}
else
	timeout_s=${MNTKIT_QEMU_TIMEOUT:-600}
	prog_timeout=${MNTKIT_QEMU_PROG_TIMEOUT:-240}
	case_timeout=${MNTKIT_QEMU_CASE_TIMEOUT:-120}
fi
jobs=${MNTKIT_QEMU_JOBS:-2}
# Without cx16: under this qemu's TCG, 6.12's SLUB fast path (a
# gs-relative cmpxchg16b) corrupted the guest's memory in about one boot
# of three (oopses in kmem_cache_alloc, list_debug, the maple tree, even
# before /init ran); without the instruction the kernel takes its other
# path, and 6.12 booted cleanly 6 times of 6.
cpu=${MNTKIT_QEMU_CPU:-qemu64,-cx16}
# arm64: qemu's virt machine, whose one PL011 (ttyAMA0) is the console;
# the results go to a PCI 16550 (the guest's ttyS0). pauth-impdef: the
# pointer authentication of -cpu max with qemu's own hash instead of
# QARMA, which TCG computes far more slowly (the guest cannot tell).
[ "$ARCH" = arm64 ] && cpu=${MNTKIT_QEMU_CPU:-max,pauth-impdef=on}

# boot I KERNEL: the guest's console, results and status in $WORK/I/
boot() {
	local d=$WORK/$1 t0 qrc extra=
	# the guest of the i386 programs runs twice the programs
	local limit=$timeout_s
	if [ "$1" = "$I386_GUEST" ]; then
		extra=qemu_i386=1
		limit=$((timeout_s * 2))
	fi
	mkdir -p "$d"
	local machine=() results=(-serial "file:$d/results.log") con=ttyS0
	if [ "$ARCH" = arm64 ]; then
		machine=(-M virt)
		# shellcheck disable=SC2054 # qemu's option, commas and all
		results=(-chardev "file,id=res,path=$d/results.log"
			-device pci-serial,chardev=res)
		con=ttyAMA0
	fi
	t0=$(date +%s)
	note "guest ${GUESTS[$1]%% *} ($2) boots"
	timeout -k 5 "$limit" "$QEMU" "${machine[@]}" -accel tcg -cpu "$cpu" \
		-m 512 -nodefaults -no-user-config -display none -no-reboot \
		-serial "file:$d/console.log" "${results[@]}" \
		-kernel "$2" -initrd "$INITRD" \
		-append "console=$con panic=-1 quiet qemu_prog_timeout=$prog_timeout T_TIMEOUT=$case_timeout $extra ${MNTKIT_QEMU_APPEND:-}" \
		</dev/null >"$d/qemu.out" 2>&1
	qrc=$?
	# and the CPU time qemu took (this subshell's children: `times`, not
	# in a pipe), which a busy host does not stretch as it does the wall
	# time
	times >"$d/times"
	echo "$qrc $(($(date +%s) - t0)) $(awk 'NR == 2 {
		t = 0
		for (i = 1; i <= 2; i++) {
			split($i, a, "m"); t += a[1] * 60 + a[2]
		}
		printf "%d", t }' "$d/times")" >"$d/status"
	note "guest ${GUESTS[$1]%% *} ended after $(($(date +%s) - t0)) s (qemu exit status $qrc)"
}

t0=$(date +%s)
# the longest guest (the one of the i386 programs) first; a new guest as
# soon as any one ends
order=()
[ -n "$I386_GUEST" ] && order+=("$I386_GUEST")
for i in "${!GUESTS[@]}"; do
	[ "$i" = "$I386_GUEST" ] || order+=("$i")
done
running=0
for i in "${order[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	g=${GUESTS[$i]}
	boot "$i" "${g#* }" &
	running=$((running + 1))
done
wait
note "${#GUESTS[@]} guests ran in $(($(date +%s) - t0)) s"

# ---- 5. the results ----

failed=0

# report I NAME: one guest's lines
report() {
	local d=$WORK/$1 NAME=$2 qrc elapsed cpu_s cur="" npass=0 nfail=0 nskip=0
	local other=$d/other done_seen=0 line rest name release
	read -r qrc elapsed cpu_s <"$d/status"
	tr -d '\r' <"$d/results.log" >"$d/results.txt" 2>/dev/null
	: >"$other"

	# the console's tail, or a kernel oops from its first line
	console_tail() {
		local at
		at=$(tr -d '\r' <"$d/console.log" 2>/dev/null |
			grep -n -m 1 -E '(BUG|Oops|WARNING|general protection)' |
			cut -d: -f1)
		if [ -n "$at" ]; then
			echo "  $NAME: console (from the kernel's first report):" >&2
			tr -d '\r' <"$d/console.log" | tail -n "+$((at > 5 ? at - 5 : 1))" |
				head -n 80 | sed 's/^/    | /' >&2
		else
			echo "  $NAME: console (last 40 lines):" >&2
			tr -d '\r' <"$d/console.log" 2>/dev/null | tail -n 40 |
				sed 's/^/    | /' >&2
		fi
		if [ -s "$d/qemu.out" ]; then
			echo "  $NAME: qemu:" >&2
			tail -n 20 "$d/qemu.out" | sed 's/^/    | /' >&2
		fi
	}
	# the console lines of one program (its stderr), between its markers
	console_of() {
		tr -d '\r' <"$d/console.log" 2>/dev/null |
			awk -v n="$1" '$0 == "@@BEGIN " n {on = 1; next}
				on && index($0, "@@END " n " ") == 1 {on = 0}
				on' | tail -n 60 | sed 's/^/    | /'
	}
	# end of a program: account for its exit status
	prog_end() {
		local name=$1 status=$2
		if [ "$nfail" = 0 ]; then
			if [ "$status" = timeout ]; then
				echo "FAIL $NAME/$name: killed after ${prog_timeout}s in the guest"
				nfail=1
			elif [ "$status" = 77 ] && [ "$npass" = 0 ] && [ "$nskip" -gt 0 ]; then
				:   # every case skipped: the SKIP lines say why
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

	release=$(sed -n 's/^@@START //p' "$d/results.txt" | head -n 1)
	if [ "$NAME" = - ]; then
		NAME=$QNAME-$(echo "$release" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
		[ "$NAME" = "$QNAME-" ] && NAME=$QNAME-kernel
	fi
	if [ -n "${MNTKIT_QEMU_LOGS:-}" ] && mkdir -p "$MNTKIT_QEMU_LOGS"; then
		tr -d '\r' <"$d/console.log" >"$MNTKIT_QEMU_LOGS/$NAME.console"
	fi
	if [ -z "$release" ]; then
		echo "FAIL $NAME: the guest never started its tests (qemu exit status $qrc after ${elapsed}s)"
		failed=1
		console_tail
		return
	fi
	log "$NAME: guest kernel $release ran ${elapsed} s, ${cpu_s} s of CPU (qemu exit status $qrc)"

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
			log "$NAME: guest: $line"
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
	done <"$d/results.txt"

	if [ -n "$cur" ]; then
		echo "FAIL $NAME/$cur: the guest stopped while it ran (qemu exit status $qrc after ${elapsed}s)"
		failed=1
		console_tail
	elif [ "$done_seen" != 1 ]; then
		echo "FAIL $NAME: the guest did not finish (qemu exit status $qrc after ${elapsed}s)"
		failed=1
		console_tail
	fi
}

i=0
for g in "${GUESTS[@]}"; do
	report "$i" "${g%% *}"
	i=$((i + 1))
done
[ "$pylayer_failed" = 0 ] || failed=1
exit "$failed"
