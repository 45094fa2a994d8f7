# SPDX-License-Identifier: LGPL-2.1-or-later
"""tests/cli/install.sh: the staged module imports (PYTHONPATH and
LD_LIBRARY_PATH point into the staged tree); prints where it came from
and how many mounts it lists."""
import mntkit

print(mntkit.__file__, len(mntkit.mounts()))
