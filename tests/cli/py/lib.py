# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python cases of tests/cli/lib.sh."""

import shutil
import subprocess

from mntkit_test import (case, expect, listmount, main, mountinfo, need_native,
    parse_text, statmount_basic, statx_mnt_id, text_unescape, UNIQUE_OFFSET)

@case
def lib_text_unescape():
    expect(text_unescape(r"a\tb\\c\nd\r\101\377") == "a\tb\\c\nd\rA\udcff", "unescape")
    d = parse_text("k: <x y>\narr: 2\narr[0]: <a\\tb>\narr[1]: <>\nn: 0x1f\n")
    expect(d == {"k": "x y", "arr": "2", "arr[]": ["a\tb", ""], "n": "0x1f"}, repr(d))


@case
def lib_mountinfo():
    mi = mountinfo()
    with open("/proc/self/mountinfo", "rb") as f:
        expect(len(mi) == f.read().count(b"\n"), "entry count")
    # the mount of /proc, which mountinfo is on (that of / is not there in
    # a chroot whose root is no mount point)
    me = statx_mnt_id("/proc", False)
    expect(any(e["id"] == me for e in mi), "the mount of /proc is not listed")
    if shutil.which("findmnt"):
        out = subprocess.run(["findmnt", "-n", "-r", "-o", "ID,TARGET"], capture_output=True).stdout
        ids = sorted(int(l.split(b" ")[0]) for l in out.splitlines())
        expect(ids == sorted(e["id"] for e in mi), "findmnt sees other IDs")


@case
def lib_raw_syscalls():
    need_native()
    ids = listmount()
    # /proc's mount: the caller's root reaches it (that of / is not
    # listed in a chroot whose root is no mount point)
    u = statx_mnt_id("/proc", True)
    expect(u is not None and u > UNIQUE_OFFSET and u in ids, "statx unique ID of /proc not listed")
    me, parent, old, old_parent = statmount_basic(u)
    expect(me == u and old == statx_mnt_id("/proc", False), "raw statmount")


if __name__ == "__main__":
    main()
