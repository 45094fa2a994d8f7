#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/header.sh - <mntkit.h> is usable as callers compile: ISO C99
# and C11 with -pedantic, and C++ (11 and 20) with -pedantic, all with
# -Wall -Wextra -Werror, under gcc/g++ and clang/clang++ where installed;
# a C++ program links against the library (extern "C") and runs.
#
# Usage: bash tests/cli/header.sh ABS_BUILDDIR

. "$(dirname "$0")/lib.sh"
cli_init "$1"

INC="$SRCDIR/include"

# Every macro form and a few calls: the one-argument MNTKIT_OPTS() is the
# form that ISO C99 once refused.
cat >"$CLI_TMP/h.c" <<'EOF'
#include <mntkit.h>
#include <stdio.h>

int main(void)
{
	MNTKIT_OPTS(own);
	MNTKIT_OPTS(other, .pid = 1);
	MNTKIT_WATCH_OPTS(wo);
	MNTKIT_WATCH_OPTS(wo2, .mask = MNTKIT_STATMOUNT_MNT_BASIC,
			  .flags = MNTKIT_WATCH_F_INITIAL);
	MNTKIT_TAB_OPTS(to);
	MNTKIT_TAB_OPTS(to2, .format = MNTKIT_TAB_FSTAB);
	MNTKIT_TAB_ENTRY(te);
	MNTKIT_EVENT(ev);
	MNTKIT_FEATURES(feat);
	struct mntkit_statmount sm = { 0 };

	printf("%zu %d %zu %u %zu %u\n", own.size, (int)other.pid, wo.size,
	       wo2.flags, sizeof(sm), (unsigned)MNTKIT_STATMOUNT_FIXED_SIZE);
	printf("%zu %d %zu %zu %zu\n", to.size, (int)to2.format, te.size,
	       ev.size, feat.size);
	if (mntkit_get_features(&feat) < 0)
		return 1;
	return mntkit_backend_name(mntkit_get_backend()) ? 0 : 1;
}
EOF

# C++ before C++20 has no designated initializers: the way mntkit.h
# documents for it.
cat >"$CLI_TMP/h.cc" <<'EOF'
#include <mntkit.h>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>

/* argv[1]: a mount point the caller sees and reaches */
int main(int argc, char **argv)
{
	struct mntkit_opts o{};
	struct mntkit_statmount *sm = nullptr;
	const char *s = nullptr;
	uint64_t id = 0;

	o.size = sizeof(o);
	if (argc != 2 || mntkit_path_id(AT_FDCWD, argv[1], 0, &id) < 0 ||
	    mntkit_stat(id, MNTKIT_STATMOUNT_MNT_POINT, &o, &sm) < 0 ||
	    mntkit_sm_str(sm, sm->size, MNTKIT_FIELD_MNT_POINT, &s) < 0 ||
	    std::strcmp(s, argv[1]) != 0) {
		std::fprintf(stderr, "mount point of %s: %s\n",
			     argc == 2 ? argv[1] : "(none)",
			     s ? s : std::strerror(errno));
		return 1;
	}
	std::printf("%s %zu\n", mntkit_backend_name(mntkit_get_backend()),
		    sizeof(struct mntkit_statmount));
	std::free(sm);
	return 0;
}
EOF

# <mntkit/abi.h> stands alone: the kernel's structs and constants only
cat >"$CLI_TMP/abi.c" <<'EOF'
#include <mntkit/abi.h>

struct mntkit_mnt_id_req req = { MNTKIT_MNT_ID_REQ_SIZE_VER1, 0,
				 MNTKIT_LSMT_ROOT, MNTKIT_STATMOUNT_ALL, 0 };
int fixed[sizeof(struct mntkit_statmount) == MNTKIT_STATMOUNT_FIXED_SIZE ?
	  1 : -1];
EOF

# $1 case, $2 compiler, $3.. flags: compile only
compile_case() {
	local name=$1 cc=$2 src
	shift 2
	case $name in
	abi_*) src=$CLI_TMP/abi.c ;;
	*cxx*) src=$CLI_TMP/h.cc ;;
	*) src=$CLI_TMP/h.c ;;
	esac
	if ! have_cmd "$cc"; then
		skip "$name" "$cc is not installed"
		return
	fi
	if "$cc" "$@" -Wall -Wextra -Werror -I"$INC" -c -o "$CLI_TMP/h.o" \
		"$src" 2>"$ERR"; then
		pass "$name"
	else
		fail "$name" "$cc $*: $(head -n 3 "$ERR")"
	fi
}

compile_case c99_pedantic_gcc gcc -std=c99 -pedantic
compile_case c11_pedantic_gcc gcc -std=c11 -pedantic
compile_case c99_pedantic_clang clang -std=c99 -pedantic
compile_case c11_pedantic_clang clang -std=c11 -pedantic
compile_case cxx11_pedantic_gxx g++ -std=c++11 -pedantic
compile_case cxx20_pedantic_gxx g++ -std=c++20 -pedantic
compile_case cxx11_pedantic_clangxx clang++ -std=c++11 -pedantic
compile_case cxx20_pedantic_clangxx clang++ -std=c++20 -pedantic
compile_case abi_alone_c99_gcc gcc -std=c99 -pedantic
compile_case abi_alone_cxx11_gxx g++ -x c++ -std=c++11 -pedantic

# link and run: the library's symbols are C symbols to a C++ caller
LIB="$BUILDDIR/lib/libmntkit.so"
if ! have_cmd g++; then
	skip cxx_links_and_runs "g++ is not installed"
elif [ ! -e "$LIB" ]; then
	fail cxx_links_and_runs "$LIB missing"
else
	san=()
	# a sanitizer build's library needs the runtimes in the program
	if nm -D "$LIB" 2>/dev/null | grep -q '__asan_init'; then
		san=(-fsanitize=address,undefined)
	fi
	if ! g++ -std=c++11 "${san[@]}" -I"$INC" -o "$CLI_TMP/hxx" \
		"$CLI_TMP/h.cc" -L"$BUILDDIR/lib" -lmntkit 2>"$ERR"; then
		fail cxx_links_and_runs "g++ link: $(head -n 3 "$ERR")"
	else
		# "/", but in a chroot whose root is no mount point (the
		# mount that holds / is outside the root: no mount point)
		run env LD_LIBRARY_PATH="$BUILDDIR/lib" ASAN_OPTIONS=detect_leaks=0 \
			"$CLI_TMP/hxx" "$(mntkit_py seen_root)"
		if [ "$RC" = 0 ] && grep -Eq '^(native|mountinfo) 512$' "$OUT"; then
			pass cxx_links_and_runs
		else
			fail cxx_links_and_runs "exit $RC: $(cat "$OUT" "$ERR")"
		fi
	fi
fi

cli_done
