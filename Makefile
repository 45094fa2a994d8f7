# mntkit - a thin wrapper over meson/ninja.
#
#   make run      install what building and running lsmnt needs, build,
#                 run the main job (lsmnt)
#   make check    install what the tests need, build, run the host's test
#                 suite (tests/run-tests.sh: the C test programs, the CLI
#                 scripts, golden; several programs at a time; minutes)
#   make check-all  make check's suite, and the sanitizers, the qemu kernel
#                 matrix, i386, the Debian packages, the ABI guard, fuzzing
#                 and the compile-only builds (tests/check-all.sh); one
#                 closing line for all of it (what CI runs: .ci/run)
#   make check-sanitize   the suite under AddressSanitizer + UBSan
#   make check-tsan       the cases of threads under ThreadSanitizer
#                         (build-tsan/: snapshots of a live table read and
#                         freed in threads while its writer applies events)
#   make install  PREFIX=/usr/local DESTDIR=
#   make abi-baseline  abi/libmntkit.abi anew (an intended ABI change)
#   make bench    the benchmarks (bench/: listing, emulation, lsmnt, mntwatch;
#                 BIG=1 for lsmnt's big sizes)
#   make check-builds  compile (no tests) optimized with gcc -O3 and with
#                 clang, where -Wall -Wextra -Werror finds other things,
#                 and the library alone (-Dtools=false ...)
#   make fuzz     the libFuzzer target for FUZZ_TIME seconds (fuzz/run.sh;
#                 replays the corpus when libFuzzer is not available);
#                 FUZZ_TARGET=fuzz-tab for the table-file reader,
#                 FUZZ_TARGET=fuzz-expr for lsmnt's filter expressions
#
# MNTKIT_TEST_JOBS=N: the test programs run N at a time (default: the
# number of CPUs plus one).

PREFIX  ?= /usr/local
BUILD   ?= build
SANBUILD ?= build-san
TSANBUILD ?= build-tsan
FUZZBUILD ?= build-fuzz
RELBUILD ?= build-release
CLANGBUILD ?= build-clang
LIBBUILD ?= build-libonly
FUZZ_TIME ?= 45
BIG     ?= 0
MESON   ?= meson
NINJA   ?= ninja
# The project's own builds turn warnings into errors; a distribution's
# build (debian/rules, or a plain "meson setup") does not, so that a newer
# compiler's new warning never makes the package unbuildable.
WERROR  ?= -Dwerror=true

# The Debian packages each command needs; scripts/deps.sh installs those
# that are missing (apt-get; root) and says which, why and how big.
#
# make run: the build (the tools dlopen libsmartcols and libblkid; their
# -dev packages give the headers and pkg-config files)
RUN_PKGS = meson ninja-build gcc pkg-config libc6-dev libsmartcols-dev \
	   libblkid-dev
# make check: what the suite's programs run, so that no case skips for
# want of a package: g++ and clang (tests/cli/header.sh compiles the
# header as C and C++ with both), strace (lsmnt-cols.sh, lsmnt-df.sh:
# which calls lsmnt makes), e2fsprogs, fdisk and btrfs-progs (the file
# systems of lsmnt's LABEL/UUID/SOURCES cases), python3 with jsonschema
# (mntwatch-schema.sh), pyflakes (py-lint.sh), python3-dev and pytest
# (the Python module and its tests: python.sh), systemd
# (systemd-journald and journalctl: mntwatch-journal.sh), bash-completion
# (completion.sh), binutils (nm, objdump: layers.sh, install.sh),
# groff-base (docs.sh renders the man pages);
# findmnt, unshare, nsenter, setpriv, script, losetup and the rest come
# with util-linux, mount and bsdutils, which every Debian has
CHECK_PKGS = g++ clang strace e2fsprogs fdisk btrfs-progs python3 \
	     python3-jsonschema python3-pyflakes python3-dev python3-pytest \
	     systemd bash-completion binutils groff-base
# make check-all: build-essential, debhelper, dpkg-dev, dh-python and
# lintian (the Debian packages, debian/control's Build-Depends:
# tests/cli/package.sh checks that these lists hold them), qemu-system-x86, qemu-system-arm,
# cpio, xz-utils and zstd (the kernel matrix, x86 and arm64 guests:
# tests/qemu/run.sh, which unpacks arm64's cross compiler itself), gcc-multilib (i386:
# tests/cli/i386.sh), abigail-tools (tests/cli/abi.sh), clang's runtime
# (make fuzz's libFuzzer)
CHECK_ALL_PKGS = build-essential debhelper dpkg-dev dh-python lintian qemu-system-x86 \
		 qemu-system-arm cpio xz-utils zstd gcc-multilib abigail-tools libclang-rt-dev
# ... and what "make fuzz" needs for libFuzzer (clang and its runtime);
# without them it replays the corpus instead
FUZZ_DEB_PKGS = clang libclang-rt-dev

.PHONY: all deps deps-check deps-check-all print-pkgs build run check check-all \
	sanitize-build check-sanitize check-tsan check-builds install bench fuzz abi-baseline \
	clean

all: build

deps:
	@sh scripts/deps.sh --why "to build and run lsmnt" $(RUN_PKGS)

# a build configured before (make run) is configured again once these are
# installed (the stamp), so that it finds them: python3-dev, the module
deps-check: deps
	@sh scripts/deps.sh --stamp $(BUILD)/.deps-installed --why "for make check: the suite's compilers, tracers, file systems, Python modules, journald" $(CHECK_PKGS)

deps-check-all: deps-check
	@sh scripts/deps.sh --stamp $(BUILD)/.deps-installed --why "for make check-all: the Debian packages, the qemu kernels, i386, the ABI guard, fuzzing" $(CHECK_ALL_PKGS)

$(BUILD)/build.ninja:
	$(MESON) setup $(BUILD) --prefix=$(PREFIX) $(WERROR)

build: deps $(BUILD)/build.ninja
	@if [ -e $(BUILD)/.deps-installed ]; then \
		rm -f $(BUILD)/.deps-installed; \
		echo "mntkit: packages installed: $(BUILD) configured again, to find them" >&2; \
		$(MESON) configure --clearcache $(BUILD) && \
		$(MESON) setup --reconfigure $(BUILD) >/dev/null; \
	fi
	$(NINJA) -C $(BUILD)

run: build
	@$(BUILD)/tools/lsmnt

check: deps-check build
	@bash tests/run-tests.sh $(BUILD)

check-all: deps-check-all build
	@MAKE="$(MAKE)" NINJA="$(NINJA)" BUILD=$(BUILD) SANBUILD=$(SANBUILD) \
		RELBUILD=$(RELBUILD) LIBBUILD=$(LIBBUILD) CLANGBUILD=$(CLANGBUILD) \
		bash tests/check-all.sh

$(SANBUILD)/build.ninja:
	$(MESON) setup $(SANBUILD) $(WERROR) -Db_sanitize=address,undefined \
		-Db_lundef=false -Dbuildtype=debug

sanitize-build: deps-check $(SANBUILD)/build.ninja
	$(NINJA) -C $(SANBUILD)

check-sanitize: sanitize-build
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	 bash tests/run-tests.sh $(SANBUILD)

$(TSANBUILD)/build.ninja:
	$(MESON) setup $(TSANBUILD) $(WERROR) -Db_sanitize=thread \
		-Db_lundef=false -Dbuildtype=debug

check-tsan: deps-check $(TSANBUILD)/build.ninja
	$(NINJA) -C $(TSANBUILD) tests/test-live
	TSAN_OPTIONS=halt_on_error=1 $(TSANBUILD)/tests/test-live snapshot_threads

# gcc warns at -O3 about what it cannot see at -O2 (maybe-uninitialized
# through inlining); clang warns about other things. Both must stay clean.
$(RELBUILD)/build.ninja:
	$(MESON) setup $(RELBUILD) $(WERROR) -Dbuildtype=release

$(CLANGBUILD)/build.ninja:
	CC=clang $(MESON) setup $(CLANGBUILD) $(WERROR)

# the library alone, as a distribution's minimal build or a subproject:
# no tools, so no libsmartcols or libblkid
$(LIBBUILD)/build.ninja:
	$(MESON) setup $(LIBBUILD) $(WERROR) -Dtools=false -Dtests=false \
		-Dbench=false -Dfuzz=false -Dexamples=false -Ddocs=false

check-builds: deps $(RELBUILD)/build.ninja $(LIBBUILD)/build.ninja
	$(NINJA) -C $(RELBUILD)
	$(NINJA) -C $(LIBBUILD)
	@if command -v clang >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory $(CLANGBUILD)/build.ninja && \
		$(NINJA) -C $(CLANGBUILD); \
	else \
		echo "mntkit: clang not installed: the clang build is skipped"; \
	fi

# the ABI baseline tests/cli/abi.sh compares the library with: make it
# anew only for an intended change of the ABI (and say so in NEWS)
abi-baseline: build
	@sh scripts/deps.sh --why "abidw writes the baseline" abigail-tools
	abidw --headers-dir include --drop-private-types --no-corpus-path \
		--out-file abi/libmntkit.abi $(BUILD)/lib/libmntkit.so.0.*[0-9]

install: build
	$(MESON) configure $(BUILD) --prefix=$(PREFIX)
	$(NINJA) -C $(BUILD)
	DESTDIR=$(DESTDIR) $(MESON) install -C $(BUILD) --no-rebuild

bench: build
	@sh bench/run.sh $(BUILD)
	@BIG=$(BIG) sh bench/lsmnt.sh $(BUILD)
	@bash bench/bench-watch.sh $(BUILD)

fuzz: deps
	@sh scripts/deps.sh --why "libFuzzer" $(FUZZ_DEB_PKGS) || \
		echo "mntkit: could not install $(FUZZ_DEB_PKGS)" >&2
	@MESON=$(MESON) NINJA=$(NINJA) sh fuzz/run.sh $(FUZZBUILD) $(FUZZ_TIME)

# the package lists, one line each (tests/cli/package.sh reads them)
print-pkgs:
	@echo "RUN_PKGS $(RUN_PKGS)"
	@echo "CHECK_PKGS $(CHECK_PKGS)"
	@echo "CHECK_ALL_PKGS $(CHECK_ALL_PKGS)"

clean:
	rm -rf $(BUILD) $(BUILD)-i386 $(SANBUILD) $(FUZZBUILD) $(RELBUILD) \
		$(CLANGBUILD) $(LIBBUILD)
