# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python cases of tests/cli/lsmnt-emul.sh.

lsmnt on both backends against findmnt, with hidden mounts.
"""

import os

from mntkit_test import case, expect, main, need_findmnt, same, skip

T = os.environ.get("T", "")
BACKENDS = [{"MNTKIT_BACKEND": "mountinfo"}, {}]
COLS = "TARGET,SOURCE,FSTYPE,OPTIONS,FS-OPTIONS,VFS-OPTIONS,MAJ:MIN"


@case
def ns_hidden_list_modes():
    need_findmnt()
    for env in BACKENDS:
        for m in (["-l"], ["-f"], ["-D"], ["-R"], [], ["-J"], ["-r"], ["-P"],
                  ["-l", "-d", "backward"], ["-D", "-d", "backward"],
                  ["-l", "-t", "tmpfs"], ["-l", "-n", "-o", COLS]):
            same(m, env=env)


@case
def ns_hidden_subtree():
    need_findmnt()
    for env in BACKENDS:
        for m in ([], ["-l"], ["-J"], ["-r"], ["-P"], ["-D"], ["-f"],
                  ["-d", "backward"], ["-l", "-d", "backward"]):
            same(m + ["-R", "-T", T, "-o", COLS], env=env)
            same(m + ["-R", "-M", T, "-o", COLS], env=env)


@case
def ns_hidden_devtmpfs():
    need_findmnt()
    if os.environ.get("DEVTMPFS") != "1":
        skip("devtmpfs cannot be mounted here")
    for env in BACKENDS:
        for m in ([], ["-l"], ["-J"], ["-P"]):
            out = same(m + ["-t", "devtmpfs", "-o", COLS + ",FSROOT"], env=env)
            # the hidden one is there, with its options and device
            expect(b"emul-dev" in out, "no hidden devtmpfs: %r" % out[:300])


if __name__ == "__main__":
    main()
