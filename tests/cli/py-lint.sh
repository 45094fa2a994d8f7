#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/py-lint.sh ABS_BUILDDIR - the project's Python (the cases of
# tests/cli/py/, tests/diff/, bench/*.py and the Python module's tests
# python/tests/) byte-compiles, and
# pyflakes (Debian's python3-pyflakes) finds nothing in it: no undefined
# or unused name, no import left over. The scripts keep no Python of
# their own (a heredoc or python3 -c), where neither would see it.
#
# Usage: bash tests/cli/py-lint.sh ABS_BUILDDIR

. "$(dirname "$0")/lib.sh"
cli_init "$1"

files=("$SRCDIR"/tests/cli/py/*.py "$SRCDIR"/tests/diff/*.py "$SRCDIR"/bench/*.py
	"$SRCDIR"/python/tests/*.py)

# (cli_init keeps the compiled files out of the tree: PYTHONPYCACHEPREFIX)
run "$MNTKIT_PYTHON" -m py_compile "${files[@]}"
if [ "$RC" = 0 ]; then
	pass py_compile
else
	fail py_compile "$(tail -n 3 "$ERR")"
fi

# pyflakes of Debian's Python (python3 on PATH may be another one)
pyflakes=()
if have_cmd pyflakes3; then
	pyflakes=(pyflakes3)
elif python3 -m pyflakes --version >/dev/null 2>&1; then
	pyflakes=(python3 -m pyflakes)
fi
if [ "${#pyflakes[@]}" = 0 ]; then
	skip pyflakes "pyflakes is not installed (Debian: python3-pyflakes)"
else
	run "${pyflakes[@]}" "${files[@]}"
	if [ "$RC" = 0 ] && [ ! -s "$OUT" ]; then
		pass pyflakes
	else
		fail pyflakes "$(cat "$OUT" "$ERR" | head -n 5)"
	fi
fi

# a Python heredoc or program text after python3 -c in a script
run grep -l -E "^[^#]*(python3? (-c|-) |<<'PY')" "$SRCDIR"/tests/cli/*.sh \
	"$SRCDIR"/bench/*.sh
if [ -s "$OUT" ]; then
	fail no_python_in_scripts "Python in:$(sed 's,.*/, ,' "$OUT" | tr -d '\n')"
else
	pass no_python_in_scripts
fi
cli_done
