# mntkit - a thin wrapper over meson/ninja.
#
#   make run      install what is missing, build, run the main job (lsmnt)
#   make check    install what is missing, build, run the whole test suite
#                 (with the i386 build, $(BUILD)-i386, and the qemu kernel
#                 matrix: tests/cli/i386.sh, tests/cli/qemu.sh)
#   make check-sanitize   the suite under AddressSanitizer + UBSan
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

PREFIX  ?= /usr/local
BUILD   ?= build
SANBUILD ?= build-san
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

# Debian packages the build and the tests need (apt-get, when missing);
# e2fsprogs, fdisk and btrfs-progs make the test file systems of lsmnt's
# LABEL/UUID/SOURCES cases (which SKIP without them); gcc-multilib the
# i386 build of tests/cli/i386.sh (tests/qemu/run.sh installs qemu itself);
# python3-jsonschema validates mntwatch --json against its schema
# (tests/cli/mntwatch-schema.sh); systemd brings the systemd-journald and
# journalctl that tests/cli/mntwatch-journal.sh runs privately.
DEB_PKGS = meson ninja-build gcc g++ pkg-config libc6-dev libsmartcols-dev \
	   libblkid-dev util-linux mount python3 e2fsprogs fdisk btrfs-progs \
	   gcc-multilib python3-jsonschema systemd python3-dev python3-pytest
# ... and what "make fuzz" needs for libFuzzer (clang and its runtime);
# without them it replays the corpus instead
FUZZ_DEB_PKGS = clang libclang-rt-dev

.PHONY: all deps build run check check-sanitize check-builds install bench fuzz \
	abi-baseline clean

all: build

deps:
	@sh scripts/deps.sh $(DEB_PKGS)

$(BUILD)/build.ninja:
	$(MESON) setup $(BUILD) --prefix=$(PREFIX) $(WERROR)

build: deps $(BUILD)/build.ninja
	$(NINJA) -C $(BUILD)

run: build
	@$(BUILD)/tools/lsmnt

check: build
	@sh tests/run-tests.sh $(BUILD)

$(SANBUILD)/build.ninja:
	$(MESON) setup $(SANBUILD) $(WERROR) -Db_sanitize=address,undefined \
		-Db_lundef=false -Dbuildtype=debug

check-sanitize: deps $(SANBUILD)/build.ninja
	$(NINJA) -C $(SANBUILD)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	 sh tests/run-tests.sh $(SANBUILD)

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
	@sh scripts/deps.sh abigail-tools
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
	@sh scripts/deps.sh $(FUZZ_DEB_PKGS) || \
		echo "mntkit: could not install $(FUZZ_DEB_PKGS)" >&2
	@MESON=$(MESON) NINJA=$(NINJA) sh fuzz/run.sh $(FUZZBUILD) $(FUZZ_TIME)

clean:
	rm -rf $(BUILD) $(BUILD)-i386 $(SANBUILD) $(FUZZBUILD) $(RELBUILD) \
		$(CLANGBUILD) $(LIBBUILD)
