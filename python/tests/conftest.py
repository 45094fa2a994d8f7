# SPDX-License-Identifier: LGPL-2.1-or-later
"""pytest's configuration for the mntkit module's tests.

With MNTKIT_PYTEST_LINES=FILE (tests/cli/python.sh sets it) every test
writes one line to FILE, as the suite's other tests print them:

    PASS python/FILE/TEST
    FAIL python/FILE/TEST: reason
    SKIP python/FILE/TEST: reason
"""
import os

import pytest

from helpers import Workspace, never_host

_outcome = {}


@pytest.fixture
def ws(request):
    """A tmpfs of the test's own (helpers.Workspace), named
    mntkit-py-MODULE; the test SKIPs where it may not mount."""
    never_host()
    w = Workspace("mntkit-py-" + request.module.__name__[len("test_"):])
    yield w
    w.close()


def _name(nodeid):
    path, _, test = nodeid.partition("::")
    path = os.path.basename(path)
    if path.endswith(".py"):
        path = path[:-3]
    return "python/%s/%s" % (path, test.replace("::", "/"))


def _reason(report):
    if report.skipped and isinstance(report.longrepr, tuple):
        return report.longrepr[2].replace("Skipped: ", "", 1)
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return crash.message
    return str(report.longrepr).strip().splitlines()[-1]


def pytest_runtest_logreport(report):
    name = _name(report.nodeid)
    if report.when == "call" or report.failed or (
            report.skipped and report.when == "setup"):
        prev = _outcome.get(name)
        if prev and prev[0] == "FAIL":
            return  # a failure stays one
        if report.passed:
            _outcome[name] = ("PASS", "")
        elif report.skipped:
            _outcome[name] = ("SKIP", _reason(report))
        else:
            _outcome[name] = ("FAIL", "%s: %s" % (report.when, _reason(report))
                              if report.when != "call" else _reason(report))


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("MNTKIT_PYTEST_LINES")
    if not path:
        return
    with open(path, "w") as f:
        for name, (word, why) in _outcome.items():
            why = " ".join(why.split())
            f.write("%s %s%s\n" % (word, name, ": " + why if why else ""))
