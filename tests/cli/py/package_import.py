# SPDX-License-Identifier: LGPL-2.1-or-later
"""tests/cli/package.sh, in the root where python3-mntkit is installed:
Debian's python3 imports the module from dist-packages, of the package's
version, and its answers agree with /proc/self/mountinfo. Prints
"python ok"; an assertion's message otherwise."""
import os

import mntkit

assert mntkit.__file__.startswith("/usr/lib/python3/dist-packages/mntkit."), \
    mntkit.__file__
assert mntkit.__version__ == os.environ["VERSION"], mntkit.__version__
ms = mntkit.mounts()
with open("/proc/self/mountinfo") as f:
    assert [m.old_id for m in ms] == [int(line.split()[0]) for line in f], \
        "mounts"
assert mntkit.stat("/").mount_point == "/"
assert len(mntkit.Table()) == len(ms)
with mntkit.watch(initial=True) as w:
    assert w.read().kind == "attach"
print("python ok")
