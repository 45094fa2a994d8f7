#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/python.sh ABS_BUILDDIR - the tests of the Python module
# (python/tests/, pytest) on the module of the build, one line each:
#
#	PASS python/FILE/TEST
#	FAIL python/FILE/TEST: reason
#	SKIP python/FILE/TEST: reason
#
# The Python is Debian's /usr/bin/python3, the one meson runs on and so
# builds the module for (whatever python3 comes first in PATH), or
# MNTKIT_PYTHON; its extension suffix must be the module's. pytest runs in a private mount namespace (unshare -m
# --propagation private; MNTKIT_TEST_PRIVATE_NS names it), where the tests
# that mount may mount; without root they SKIP. On a sanitizer build the
# module carries ASan: the Python runs with libasan preloaded
# (detect_leaks=0: the interpreter's own allocations at exit are not
# ours; tests/test_leaks.py counts the module's).

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cli_init "$1"

mod=$(find "$BUILDDIR/python" -maxdepth 1 -name 'mntkit*.so' 2>/dev/null |
	head -n 1)
if [ -z "$mod" ]; then
	skip python "the module is not built (-Dpython=disabled, or no python3-dev)"
	cli_done
fi
PY=${MNTKIT_PYTHON:-/usr/bin/python3}
tag=$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
if [ "${mod##*/}" != "mntkit$tag" ]; then
	fail python_interpreter "$PY takes modules named mntkit$tag, the build has ${mod##*/}"
	cli_done
fi
if ! "$PY" -c 'import pytest' 2>/dev/null; then
	skip python "no pytest for $PY (Debian's python3-pytest)"
	cli_done
fi

preload=
sanitize=$(grep -o '"name": "b_sanitize", "value": "[^"]*"' \
	"$BUILDDIR/meson-info/intro-buildoptions.json" 2>/dev/null |
	sed 's/.*"value": "\([^"]*\)"/\1/')
case ${sanitize:-none} in
*address*)
	# (instrumented, a quarter of the leak test's rounds: the same
	# check, in the time of a plain build's)
	export ROUNDS=${ROUNDS:-500}
	preload=$(${CC:-cc} -print-file-name=libasan.so)
	[ -f "$preload" ] || {
		skip python "an ASan build, and no libasan.so to preload into $PY"
		cli_done
	}
	;;
esac

lines=$CLI_TMP/pytest.lines
export MNTKIT_BUILDDIR=$BUILDDIR MNTKIT_PYTEST_LINES=$lines \
	PYTHONPATH=$BUILDDIR/python PYTHONDONTWRITEBYTECODE=1
pytest_run() {
	env ${preload:+LD_PRELOAD=$preload} \
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		"$PY" -m pytest -q -p no:cacheprovider -o addopts= \
		-o faulthandler_timeout=120 \
		--rootdir "$SRCDIR/python/tests" "$SRCDIR/python/tests"
}
if can_unshare_mount; then
	export -f pytest_run
	export PY preload
	# shellcheck disable=SC2016 # the inner shell expands them
	unshare_private bash -c '
		MNTKIT_TEST_PRIVATE_NS=$(stat -L -c %i /proc/self/ns/mnt)
		export MNTKIT_TEST_PRIVATE_NS
		pytest_run' >"$CLI_TMP/pytest.log" 2>&1
else
	pytest_run >"$CLI_TMP/pytest.log" 2>&1
fi
rc=$?

while IFS= read -r line; do
	word=${line%% *}
	rest=${line#* }
	case $word in
	PASS) pass "$rest" ;;
	FAIL) fail "${rest%%: *}" "${rest#*: }" ;;
	SKIP) skip "${rest%%: *}" "${rest#*: }" ;;
	esac
done <"$lines"
# 0: every test passed; 1: some failed (their lines say which)
case $rc in
0 | 1) [ -s "$lines" ] || fail python_pytest "pytest ran no test: $(tail -n 3 "$CLI_TMP/pytest.log" | tr '\n' ' ')" ;;
*) fail python_pytest "pytest exited $rc: $(grep -v '^ *$' "$CLI_TMP/pytest.log" | tail -n 5 | tr '\n' ' ')" ;;
esac
[ "$cli_failed" = 0 ] || sed 's/^/    | /' "$CLI_TMP/pytest.log" | tail -n 80 >&2
cli_done
