# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python cases of tests/cli/statmnt.sh."""

import errno
import json
import os
import re
import shutil
import subprocess

from mntkit_test import (case, expect, listmount, main, mi_by_point, mi_roots, mount_id,
    mountinfo, NATIVE, need_native, ns_id, parse_text, skip, statx_mnt_id,
    text_unescape, tool, tool_ok, true_root_id)

@case
def root_ids():
    d = parse_text(tool_ok("statmnt", "/"))
    uniq = mount_id("/")
    expect(int(d["mnt_id"]) == uniq and d["mnt_id"].isdigit(),
           "mnt_id %s != statx's ID %#x" % (d["mnt_id"], uniq))
    old = statx_mnt_id("/", False)
    expect(int(d["mnt_id_old"]) == old,
           "mnt_id_old %s != statx %d" % (d["mnt_id_old"], old))
    e = [x for x in mountinfo() if x["id"] == old]
    if not e:
        # a chroot whose root is no mount point: the mount that holds /
        # has its mount point outside the root (not in mountinfo), which
        # statmount leaves out
        expect("mnt_point" not in d, "mnt_point %r of a mount mountinfo lacks" % d.get("mnt_point"))
        return
    expect(len(e) == 1, "mount %d twice in mountinfo" % old)
    e = e[0]
    expect(int(d["mnt_parent_id_old"]) == e["parent"], "parent differs")
    expect(d["mnt_point"] == e["point"], "mnt_point %r != %r" % (d["mnt_point"], e["point"]))
    expect(d["mnt_root"] == e["root"], "mnt_root %r != %r" % (d["mnt_root"], e["root"]))
    fstype = d["fs_type"] + ("." + d["fs_subtype"] if "fs_subtype" in d else "")
    expect(fstype == e["fstype"], "fs_type %r != %r" % (fstype, e["fstype"]))
    expect(d["sb_source"] == e["source"], "sb_source %r != %r" % (d["sb_source"], e["source"]))
    expect((int(d["sb_dev_major"]), int(d["sb_dev_minor"])) == (e["major"], e["minor"]),
           "device differs from mountinfo")


@case
def mnt_ns_id():
    try:
        want = ns_id()
    except OSError as e:
        skip("no NS_GET_MNTNS_ID: %s" % e)
    d = parse_text(tool_ok("statmnt", "/"))
    expect(d.get("mnt_ns_id") == str(want),
           "mnt_ns_id %s != ioctl %#x" % (d.get("mnt_ns_id"), want))


@case
def old_ids():
    """an old ID (mountinfo's first field) names the same mount as the
    unique ID, also for -l; -v says which kind was given"""
    for e in mountinfo()[:5]:
        old = e["id"]
        rc, by_old, err = tool("statmnt", "-v", str(old))
        expect(rc == 0, "statmnt -v %d: %s" % (old, err))
        d = parse_text(by_old)
        expect(int(d["mnt_id_old"]) == old and d["mnt_point"] == e["point"],
               "statmnt %d: mount %s at %r" % (old, d["mnt_id_old"],
                                                d["mnt_point"]))
        uid = int(d["mnt_id"])
        expect(err == "statmnt: %d: an old mount ID (mountinfo's); its mount "
               "is %d\n" % (old, uid), "statmnt -v %d said %r" % (old, err))
        rc, by_uid, err = tool("statmnt", "-v", str(uid))
        if uid > 1 << 31:
            expect(rc == 0 and by_uid == by_old and
                   err == "statmnt: %d: a unique mount ID\n" % uid,
                   "statmnt -v %d: %r" % (uid, err))
        expect(tool("statmnt", "-l", str(old))[1:] ==
               tool("statmnt", "-l", str(uid))[1:], "-l %d differs" % old)
    rc, out, err = tool("statmnt", str(max(e["id"] for e in mountinfo()) + 100000))
    expect(rc == 1 and out == "" and "no mount has the old ID" in err,
           "an unused old ID: %d %r" % (rc, err))


@case
def id_forms():
    base = parse_text(tool_ok("statmnt", "/"))
    uid = int(base["mnt_id"])
    for form in (str(uid), "%#x" % uid, "0X%X" % uid):
        d = parse_text(tool_ok("statmnt", form))
        expect(d == base, "statmnt %s differs from statmnt /" % form)
    os.chdir("/proc")
    d = parse_text(tool_ok("statmnt", "."))
    expect(int(d["mnt_id"]) == mount_id("/proc"), "relative path '.'")


@case
def text_format():
    out = tool_ok("statmnt", "/")
    lines = out.split("\n")
    expect(lines[-1] == "" and all(lines[:-1]), "blank or unterminated line")
    keys = [l.split(": ", 1)[0] for l in lines[:-1]]
    expect(keys[:2] == ["size", "mask"], "size and mask come first: %r" % keys[:2])
    order = ["sb_dev_major", "sb_dev_minor", "sb_magic", "sb_flags", "mnt_id",
             "mnt_parent_id", "mnt_id_old", "mnt_parent_id_old", "mnt_attr",
             "mnt_propagation", "mnt_peer_group", "mnt_master", "propagate_from",
             "mnt_root", "mnt_point", "fs_type", "mnt_ns_id", "mnt_opts",
             "fs_subtype", "sb_source", "opt_array", "opt_sec_array",
             "supported_mask", "mnt_uidmap", "mnt_gidmap"]
    plain = [k for k in keys[2:] if "[" not in k]
    expect(plain == [k for k in order if k in plain], "field order: %r" % plain)
    d = parse_text(out)
    for k in ("mask", "sb_magic", "supported_mask"):
        if k in d:
            expect(re.fullmatch(r"0x[0-9a-f]+", d[k]), "%s: %r not 0x hex" % (k, d[k]))
    # IDs in decimal, as in JSON and lsmnt
    for k in ("mnt_id", "mnt_parent_id", "mnt_ns_id"):
        if k in d:
            expect(re.fullmatch(r"[1-9][0-9]*", d[k]), "%s: %r not decimal" % (k, d[k]))
    for k in ("sb_flags", "mnt_attr"):
        expect(re.fullmatch(r"0x[0-9a-f]{8} \([a-z,]+\)", d[k]), "%s: %r" % (k, d[k]))
    expect(re.fullmatch(r"[a-z,]+", d["mnt_propagation"]), "mnt_propagation %r" % d["mnt_propagation"])
    expect(int(d["size"]) >= 512, "size %s < 512" % d["size"])
    m = int(d["mask"], 16)
    for bit, key in ((0x400, "opt_array"), (0x800, "opt_sec_array"),
                     (0x2000, "mnt_uidmap"), (0x4000, "mnt_gidmap")):
        if m & bit:
            expect(int(d[key]) == len(d.get(key + "[]", [])), "%s count" % key)
        else:
            expect(key not in d, "%s printed but not in mask" % key)


@case
def json_matches_text():
    t = parse_text(tool_ok("statmnt", "/"))
    j = json.loads(tool_ok("statmnt", "--json", "/"))
    expect(isinstance(j, dict), "not one JSON object")
    for k, v in t.items():
        if k.endswith("[]"):
            expect(j[k[:-2]] == v, "%s differs" % k[:-2])
        elif k in ("opt_array", "opt_sec_array", "mnt_uidmap", "mnt_gidmap"):
            expect(len(j[k]) == int(v), "%s count" % k)
        elif k == "mnt_propagation":
            expect(j["mnt_propagation_str"] == v, "mnt_propagation_str")
            expect(isinstance(j[k], int), "mnt_propagation not a number")
        elif k in ("sb_flags", "mnt_attr"):
            num, words = v.split(" ", 1)
            expect(j[k] == int(num, 16) and j[k + "_str"] == words[1:-1],
                   "%s: %r vs %r %r" % (k, v, j[k], j.get(k + "_str")))
        elif isinstance(j.get(k), int):
            expect(j[k] == int(v, 0), "%s: text %s json %s" % (k, v, j[k]))
        else:
            expect(j.get(k) == v, "%s: text %r json %r" % (k, v, j.get(k)))


@case
def json_keys():
    groups = {0x1: ["sb_dev_major", "sb_dev_minor", "sb_magic", "sb_flags", "sb_flags_str"],
              0x2: ["mnt_id", "mnt_parent_id", "mnt_id_old", "mnt_parent_id_old",
                    "mnt_attr", "mnt_attr_str", "mnt_propagation",
                    "mnt_propagation_str", "mnt_peer_group", "mnt_master"],
              0x4: ["propagate_from"], 0x8: ["mnt_root"], 0x10: ["mnt_point"],
              0x20: ["fs_type"], 0x40: ["mnt_ns_id"], 0x80: ["mnt_opts"],
              0x100: ["fs_subtype"], 0x200: ["sb_source"], 0x400: ["opt_array"],
              0x800: ["opt_sec_array"], 0x1000: ["supported_mask"],
              0x2000: ["mnt_uidmap"], 0x4000: ["mnt_gidmap"]}
    for args in ([], ["--mask", "all"], ["--mask", "fs_type,sb_basic"]):
        j = json.loads(tool_ok("statmnt", "--json", *args, "/"))
        want = {"size", "mask"}
        for bit, keys in groups.items():
            if j["mask"] & bit:
                want.update(keys)
        expect(set(j) == want, "%s: keys %s, want %s" % (args, sorted(set(j) ^ want), ""))
        for k, v in j.items():
            if k.endswith("_str") or k in ("mnt_root", "mnt_point", "fs_type",
                    "mnt_opts", "fs_subtype", "sb_source"):
                expect(isinstance(v, str), "%s not a string" % k)
            elif k in ("opt_array", "opt_sec_array", "mnt_uidmap", "mnt_gidmap"):
                expect(isinstance(v, list) and all(isinstance(s, str) for s in v),
                       "%s not a list of strings" % k)
            else:
                expect(isinstance(v, int) and v >= 0, "%s not a number" % k)


@case
def mask_restricts():
    # a mount whose mount point the caller reaches: /, but in a chroot
    # whose root is no mount point
    top = mi_roots()[0]
    d = parse_text(tool_ok("statmnt", "--mask", "fs_type,mnt_point", top))
    expect(set(d) == {"size", "mask", "fs_type", "mnt_point"}, "keys %r" % sorted(d))
    expect(int(d["mask"], 16) == 0x30, "mask %s" % d["mask"])
    d = parse_text(tool_ok("statmnt", "--mask", "0x1", top))
    expect(set(d) == {"size", "mask", "sb_dev_major", "sb_dev_minor", "sb_magic",
                      "sb_flags"}, "--mask 0x1: %r" % sorted(d))
    j = json.loads(tool_ok("statmnt", "--json", "--mask", "mnt_ns_id", top))
    expect(set(j) == {"size", "mask", "mnt_ns_id"} and j["mask"] == 0x40,
           "--json --mask mnt_ns_id: %r" % j)
    full = parse_text(tool_ok("statmnt", "/"))
    if "supported_mask" in full:
        expect(int(full["mask"], 16) & ~int(full["supported_mask"], 16) == 0,
               "mask outside supported_mask")
    expect(int(full["mask"], 16) & 0x3 == 0x3, "default mask lacks sb/mnt basic")


@case
def u_with_cap():
    need_native()
    try:
        top = true_root_id()
        raw = listmount(top)
    except OSError as e:
        skip("no statmount/listmount(2): %s" % e)
    u = json.loads(tool_ok("statmnt", "-u", "-r", "--json", "--mask", "mnt_basic"))
    r = json.loads(tool_ok("statmnt", "-r", "--json", "--mask", "mnt_basic"))
    ids = [o["mnt_id"] for o in u]
    expect(ids[0] == top, "-u -r starts at %#x, not the true root %#x" % (ids[0], top))
    expect(sorted(ids[1:]) == sorted(raw), "-u -r differs from raw listmount(true root)")
    expect({o["mnt_id"] for o in r} <= set(ids), "-r is not inside -u -r")
    c = json.loads(tool_ok("statmnt", "-u", "--json"))
    expect(c["mnt_id"] == top and c["mnt_parent_id"] == top, "statmnt -u: %#x" % c["mnt_id"])
    expect(("mnt_point" in c) == (top == mount_id("/")), "mnt_point of the true root")
    l = json.loads(tool_ok("statmnt", "-u", "-l", "--json", "--mask", "mnt_basic"))
    expect([o["mnt_id"] for o in l] == sorted(o["mnt_id"] for o in u if o["mnt_parent_id"] == top and o["mnt_id"] != top),
           "-u -l: not the children of the true root")


@case
def list_root_children():
    root_old = statx_mnt_id("/", False)
    mi = mountinfo()
    want = sorted(e["id"] for e in mi if e["parent"] == root_old and e["id"] != root_old)
    got = json.loads(tool_ok("statmnt", "-l", "--json", "--mask", "mnt_basic,mnt_point"))
    if not any(e["id"] == root_old for e in mi):
        # a chroot whose root is no mount point: the mount that holds /
        # is outside the root, and so may be some of its children (they
        # have no mount point here); mountinfo shows the others
        got = [o for o in got if "mnt_point" in o]
    expect(sorted(o["mnt_id_old"] for o in got) == want,
           "children %r, mountinfo says %r" % ([o["mnt_id_old"] for o in got], want))
    ids = [o["mnt_id"] for o in got]
    expect(ids == sorted(ids), "children not by ascending ID")
    expect(all(o["mnt_parent_id"] == mount_id("/") for o in got), "parent not /")


@case
def list_tree_root():
    need_native()
    try:
        raw = listmount()
    except OSError as e:
        skip("no listmount(2): %s" % e)
    got = json.loads(tool_ok("statmnt", "-r", "--json", "--mask", "mnt_basic,mnt_point"))
    ids = [o["mnt_id"] for o in got]
    expect(ids[0] == mount_id("/"), "first is not the root")
    # the root mount, then what listmount lists (which has the root but in
    # a chroot whose root is no mount point: it does not reach that mount)
    want = set(raw) | {ids[0]}
    if "mnt_point" in got[0]:
        expect(sorted(ids) == sorted(want), "set differs from raw listmount(2)")
    else:
        # the mount that holds / is outside the root: below it also what
        # the root does not reach
        expect(want <= set(ids) and len(ids) == len(set(ids)),
               "not a superset of raw listmount(2)")
    # a depth-first preorder: each mount's parent is on the current path,
    # siblings by ascending ID
    path, last_child = [], {}
    for o in got[1:]:
        while path and path[-1] != o["mnt_parent_id"]:
            path.pop()
        if not path:
            expect(o["mnt_parent_id"] == ids[0] or o["mnt_parent_id"] in ids[:ids.index(o["mnt_id"])],
                   "%#x before its parent" % o["mnt_id"])
            path = [o["mnt_parent_id"]]
        prev = last_child.get(o["mnt_parent_id"], 0)
        expect(o["mnt_id"] > prev, "siblings out of order at %#x" % o["mnt_id"])
        last_child[o["mnt_parent_id"]] = o["mnt_id"]
        path.append(o["mnt_id"])
    # every parent appears before its children
    pos = {i: n for n, i in enumerate(ids)}
    for o in got[1:]:
        expect(pos.get(o["mnt_parent_id"], 1 << 60) < pos[o["mnt_id"]],
               "%#x listed before its parent" % o["mnt_id"])


@case
def list_text_format():
    out = tool_ok("statmnt", "-r")
    j = json.loads(tool_ok("statmnt", "-r", "--json"))
    lines = out.split("\n")[:-1]
    expect(len(lines) == len(j), "text %d lines, json %d" % (len(lines), len(j)))
    for line, o in zip(lines, j):
        m = re.fullmatch(r"([0-9]+)\t(/.*|\[.*\])", line)
        expect(m, "bad line %r" % line)
        expect(int(m.group(1)) == o["mnt_id"], "ids differ: %r" % line)
        if "mnt_point" in o:
            expect(text_unescape(m.group(2)) == o["mnt_point"], "point %r" % line)
    # each listed mount point is a mount point: statx there gives a listed ID
    ids = {o["mnt_id"] for o in j}
    for o in j:
        if "mnt_point" not in o:
            continue  # not reached from the root (a chroot's)
        try:
            got = mount_id(o["mnt_point"])
        except OSError:
            continue
        expect(got in ids, "%s: statx %#x not listed" % (o["mnt_point"], got))


@case
def tree_ids():
    T = os.environ["T"]
    mi = {e["id"]: e for e in mountinfo()}
    for sub in ("", "/a", "/a/sub/x", "/b", "/c", "/n", "/p", "/q", "/u",
                "/" + os.environ["WEIRD"]):
        p = T + sub
        d = parse_text(tool_ok("statmnt", p))
        expect(int(d["mnt_id"]) == mount_id(p), "%r: mnt_id" % p)
        old = statx_mnt_id(p, False)
        expect(int(d["mnt_id_old"]) == old, "%r: mnt_id_old" % p)
        expect(int(d["mnt_parent_id_old"]) == mi[old]["parent"], "%r: parent old" % p)
        if mi[old]["parent"] not in mi:
            # the parent's mount point is outside the root (a chroot whose
            # root is no mount point): the mount that holds the directory
            parent_point = os.path.dirname(p)
        else:
            parent_point = mi[mi[old]["parent"]]["point"]
        expect(int(d["mnt_parent_id"]) == mount_id(parent_point),
               "%r: mnt_parent_id is not the mount of %r" % (p, parent_point))


@case
def tree_vs_mountinfo():
    T = os.environ["T"]
    mine = [e for e in mountinfo() if e["point"] == T or e["point"].startswith(T + "/")]
    expect(len(mine) == 10, "expected 10 test mounts, mountinfo has %d" % len(mine))
    for e in mine:
        for fmt in ("text", "json"):
            if fmt == "json":
                d = json.loads(tool_ok("statmnt", "--json", e["point"]))
            else:
                d = parse_text(tool_ok("statmnt", e["point"]))
            n = (lambda k: int(d[k], 0)) if fmt == "text" else (lambda k: d[k])
            expect(n("mnt_id_old") == e["id"], "%s %r: id" % (fmt, e["point"]))
            expect(d["mnt_point"] == e["point"], "%s mnt_point %r != %r" % (fmt, d["mnt_point"], e["point"]))
            expect(d["mnt_root"] == e["root"], "%s %r: mnt_root %r != %r" % (fmt, e["point"], d["mnt_root"], e["root"]))
            expect(d["fs_type"] == e["fstype"], "%s %r: fs_type" % (fmt, e["point"]))
            expect(d["sb_source"] == e["source"], "%s %r: sb_source %r != %r" % (fmt, e["point"], d["sb_source"], e["source"]))
            expect((n("sb_dev_major"), n("sb_dev_minor")) == (e["major"], e["minor"]),
                   "%s %r: device" % (fmt, e["point"]))
            expect("fs_subtype" not in d, "tmpfs has no subtype")


@case
def tree_vs_findmnt():
    T = os.environ["T"]
    fm = json.loads(subprocess.run(["findmnt", "-J", "-R", "-v", "-o",
        "ID,PARENT,TARGET,FSTYPE,SOURCE,FSROOT,MAJ:MIN,VFS-OPTIONS", T],
        capture_output=True, check=True).stdout.decode("utf-8", "surrogateescape"))
    def walk(fs):
        for f in fs:
            yield f
            yield from walk(f.get("children", []))
    n = 0
    for f in walk(fm["filesystems"]):
        n += 1
        d = json.loads(tool_ok("statmnt", "--json", str(mount_id(f["target"]))))
        expect(d["mnt_id_old"] == f["id"] and d["mnt_parent_id_old"] == f["parent"],
               "%s: ids" % f["target"])
        expect(d["mnt_point"] == f["target"] and d["fs_type"] == f["fstype"] and
               d["sb_source"] == f["source"] and d["mnt_root"] == f["fsroot"],
               "%s: strings differ from findmnt" % f["target"])
        expect("%d:%d" % (d["sb_dev_major"], d["sb_dev_minor"]) == f["maj:min"],
               "%s: maj:min" % f["target"])
        expect(set(d["mnt_attr_str"].split(",")) == set(f["vfs-options"].split(",")),
               "%s: mnt_attr_str %r, findmnt %r" % (f["target"], d["mnt_attr_str"], f["vfs-options"]))
    expect(n >= 9, "findmnt saw %d mounts" % n)


@case
def tmpfs_options():
    T = os.environ["T"]
    generic = {"ro", "rw", "sync", "dirsync", "lazytime", "mand"}
    for sub, must in (("/a", {"size=512k", "nr_inodes=64"}), ("", {"size=1024k", "mode=750"})):
        e = mi_by_point(mountinfo(), T + sub)
        sopts = [o for o in e["super_opts"].split(",") if o not in generic]
        d = json.loads(tool_ok("statmnt", "--json", T + sub))
        expect(set(d["opt_array"]) == set(sopts), "opt_array %r, mountinfo %r" % (d["opt_array"], sopts))
        expect(must <= set(d["opt_array"]), "opt_array %r lacks %r" % (d["opt_array"], must))
        expect(set(d["mnt_opts"].split(",")) == set(sopts), "mnt_opts %r" % d["mnt_opts"])
        t = parse_text(tool_ok("statmnt", T + sub))
        expect(t["opt_array[]"] == d["opt_array"] and t["mnt_opts"] == d["mnt_opts"], "text differs")


@case
def bind_ro_attrs():
    T = os.environ["T"]
    a = json.loads(tool_ok("statmnt", "--json", T + "/a"))
    b = json.loads(tool_ok("statmnt", "--json", T + "/b"))
    c = json.loads(tool_ok("statmnt", "--json", T + "/c"))
    n = json.loads(tool_ok("statmnt", "--json", T + "/n"))
    expect(b["mnt_root"] == "/sub" and a["mnt_root"] == "/", "bind of a subdir: mnt_root %r" % b["mnt_root"])
    expect((b["sb_dev_major"], b["sb_dev_minor"]) == (a["sb_dev_major"], a["sb_dev_minor"]), "bind: same superblock")
    expect(c["mnt_attr"] & 1 and c["mnt_attr_str"].split(",")[0] == "ro", "ro bind: %r" % c["mnt_attr_str"])
    expect(not c["sb_flags"] & 1 and c["sb_flags_str"] == "rw", "ro bind: superblock stays rw")
    expect(not a["mnt_attr"] & 1 and a["mnt_attr_str"].startswith("rw"), "a is rw")
    expect(n["mnt_attr"] & 0x1f == 0x1e, "nosuid,nodev,noexec,noatime: %#x" % n["mnt_attr"])
    expect(n["mnt_attr_str"] == "rw,nosuid,nodev,noexec,noatime", "words %r" % n["mnt_attr_str"])
    for p in (T, T + "/a", T + "/b", T + "/c", T + "/n"):
        e = mi_by_point(mountinfo(), p)
        d = json.loads(tool_ok("statmnt", "--json", p))
        expect(set(d["mnt_attr_str"].split(",")) == set(e["mnt_opts"].split(",")),
               "%s: %r vs mountinfo %r" % (p, d["mnt_attr_str"], e["mnt_opts"]))
    t = parse_text(tool_ok("statmnt", T + "/c"))
    expect(t["mnt_attr"] == "0x%08x (%s)" % (c["mnt_attr"], c["mnt_attr_str"]), "text mnt_attr %r" % t["mnt_attr"])


@case
def propagation():
    T = os.environ["T"]
    mi = mountinfo()
    def opt(e, name):
        for o in e["optional"]:
            if o.startswith(name + ":"):
                return int(o.split(":")[1])
        return 0
    bits = {"shared": 1 << 20, "master": 1 << 19, "unbindable": 1 << 17}
    for sub in ("/p", "/q", "/u", "/a"):
        e = mi_by_point(mi, T + sub)
        d = json.loads(tool_ok("statmnt", "--json", T + sub))
        t = parse_text(tool_ok("statmnt", T + sub))
        # the kernel bits, from mountinfo's optional fields
        want = sum(v for k, v in bits.items() if any(o.split(":")[0] == k for o in e["optional"]))
        expect(d["mnt_propagation"] == (want or 1 << 18), "%s: raw %#x vs %r" % (sub, d["mnt_propagation"], e["optional"]))
        # the words, from findmnt
        if shutil.which("findmnt"):
            fm = subprocess.run(["findmnt", "-n", "-o", "PROPAGATION", "--mountpoint", T + sub],
                                capture_output=True, text=True).stdout.strip()
            expect(d["mnt_propagation_str"] == fm, "%s: %r, findmnt %r" % (sub, d["mnt_propagation_str"], fm))
        expect(t["mnt_propagation"] == d["mnt_propagation_str"], "%s: text %r" % (sub, t["mnt_propagation"]))
        expect(d["mnt_peer_group"] == opt(e, "shared"), "%s: peer group %d vs %r" % (sub, d["mnt_peer_group"], e["optional"]))
        expect(d["mnt_master"] == opt(e, "master"), "%s: master %d vs %r" % (sub, d["mnt_master"], e["optional"]))
    p = json.loads(tool_ok("statmnt", "--json", T + "/p"))
    q = json.loads(tool_ok("statmnt", "--json", T + "/q"))
    expect(p["mnt_peer_group"] != 0 and q["mnt_master"] == p["mnt_peer_group"], "q is p's slave")
    expect(q["propagate_from"] == p["mnt_peer_group"], "propagate_from %d" % q["propagate_from"])


@case
def weird_names():
    T = os.environ["T"]
    W = T + "/" + os.environ["WEIRD"]
    out = tool_ok("statmnt", W)
    for line in out.split("\n")[:-1]:
        expect(re.fullmatch(r"\w+(\[\d+\])?: .*", line), "line split by a raw newline: %r" % line)
    expect("\t" not in out, "raw tab in text output")
    d = parse_text(out)
    expect(d["mnt_point"] == W, "text mnt_point %r" % d["mnt_point"])
    expect(d["sb_source"] == "mntkit src", "text sb_source %r" % d["sb_source"])
    raw = tool("statmnt", "--json", W)[1]
    expect(all(ord(c) < 0x80 or c == "\u00e9" for c in raw.replace("\udcff", "")),
           "unexpected raw bytes in JSON")
    j = json.loads(raw)
    expect(j["mnt_point"] == W, "json mnt_point %r != %r" % (j["mnt_point"], W))
    expect(j["mnt_point"].encode("utf-8", "surrogateescape") == os.fsencode(W), "not byte-exact")
    expect(j["sb_source"] == "mntkit src", "json sb_source")
    # mountinfo octal-escapes the same name: compare after unescaping
    e = mi_by_point(mountinfo(), W)
    expect(e and e["id"] == j["mnt_id_old"], "mountinfo entry of the weird mount")
    # the listing keeps one mount per line too
    lines = tool_ok("statmnt", "-l", T).split("\n")[:-1]
    hits = [l for l in lines if text_unescape(l.split("\t", 1)[1]) == W]
    expect(len(hits) == 1, "weird mount in -l: %r" % lines)


@case
def json_c1_controls():
    T = os.environ["T"]
    name = "c1-\u009b31m-\u0085-\u0080-\u009f-\u00a0"
    P = T + "/" + name
    os.mkdir(P)
    subprocess.run(["mount", "-t", "tmpfs", "c1\u009bsrc", P], check=True)
    try:
        def check(what, raw):
            for c in "\u0080\u0085\u009b\u009f":
                expect(c not in raw, "%s: raw U+%04X in %r" % (what, ord(c), raw[:200]))
            expect("\\u009b31m-\\u0085-\\u0080-\\u009f-\u00a0" in raw,
                   "%s: escapes missing: %r" % (what, raw[:300]))
        raw = tool_ok("statmnt", "--json", P)
        check("statmnt --json", raw)
        j = json.loads(raw)
        expect(j["mnt_point"] == P and j["sb_source"] == "c1\u009bsrc", "round trip %r" % j)
        p = subprocess.run([os.path.join(os.environ["BUILDDIR"], "tools", "mntwatch"),
                            "--json", "--initial", "--count", "1", "--prefix", P],
                           capture_output=True, timeout=30)
        raw = p.stdout.decode("utf-8", "surrogateescape")
        expect(p.returncode == 0, "mntwatch exit %d: %r" % (p.returncode, p.stderr[:200]))
        check("mntwatch --json", raw)
        expect(json.loads(raw)["mnt_point"] == P, "mntwatch round trip")
    finally:
        subprocess.run(["umount", P], check=True)
        os.rmdir(P)


@case
def list_children():
    T = os.environ["T"]
    mi = mountinfo()
    top = mi_by_point(mi, T)
    kids = [e for e in mi if e["parent"] == top["id"]]
    want = sorted((mount_id(e["point"]), e["point"]) for e in kids)
    lines = tool_ok("statmnt", "-l", T).split("\n")[:-1]
    got = [(int(l.split("\t")[0]), text_unescape(l.split("\t", 1)[1])) for l in lines]
    expect(got == want, "-l %r, want %r" % (got, want))
    j = json.loads(tool_ok("statmnt", "-l", "--json", T))
    expect([(o["mnt_id"], o["mnt_point"]) for o in j] == want, "-l --json differs")
    byid = tool_ok("statmnt", "-l", str(mount_id(T)))
    expect(byid == "\n".join(lines) + "\n", "-l by ID differs from -l by path")


@case
def list_tree():
    T = os.environ["T"]
    mi = mountinfo()
    top = mi_by_point(mi, T)
    uniq = {e["id"]: mount_id(e["point"]) for e in mi
            if e["point"].startswith(T + "/")}
    def dfs(old):
        kids = sorted((uniq[e["id"]], e) for e in mi if e["parent"] == old)
        for u, e in kids:
            yield (u, e["point"])
            yield from dfs(e["id"])
    want = list(dfs(top["id"]))
    expect(len(want) == 9, "expected 9 mounts below the top, got %d" % len(want))
    lines = tool_ok("statmnt", "-r", T).split("\n")[:-1]
    got = [(int(l.split("\t")[0]), text_unescape(l.split("\t", 1)[1])) for l in lines]
    expect(got == want, "-r %r, want %r" % (got, want))
    j = json.loads(tool_ok("statmnt", "-r", "--json", T))
    expect([(o["mnt_id"], o["mnt_point"]) for o in j] == want, "-r --json differs")


@case
def list_mask():
    T = os.environ["T"]
    j = json.loads(tool_ok("statmnt", "-r", "--json", "--mask", "mnt_basic,fs_type,sb_source", T))
    expect(len(j) == 9, "%d objects" % len(j))
    for o in j:
        one = json.loads(tool_ok("statmnt", "--json", "--mask", "mnt_basic,fs_type,sb_source", str(o["mnt_id"])))
        expect(o == one, "listed object differs from statmnt of %#x" % o["mnt_id"])
        expect(o["mask"] == 0x222, "mask %#x" % o["mask"])
    # without mnt_basic the listed ID is still there
    j = json.loads(tool_ok("statmnt", "-l", "--json", "--mask", "fs_type", T))
    expect(all(set(o) == {"mnt_id", "size", "mask", "fs_type"} for o in j), "keys %r" % j[0])
    # text: one block per mount, blank line between, each names its mount
    out = tool_ok("statmnt", "-l", "--mask", "fs_type,mnt_point", T)
    blocks = out.rstrip("\n").split("\n\n")
    kids = tool_ok("statmnt", "-l", T).split("\n")[:-1]
    expect(len(blocks) == len(kids), "%d blocks for %d children" % (len(blocks), len(kids)))
    for blk, line in zip(blocks, kids):
        d = parse_text(blk + "\n")
        expect(int(d["mnt_id"]) == int(line.split("\t")[0]), "block order")
        expect(d["fs_type"] == "tmpfs" and set(d) == {"mnt_id", "size", "mask", "fs_type", "mnt_point"},
               "block %r" % d)


@case
def ns_other():
    # OT: T as the other namespace's process, at its root, names it
    T, OT, pid = os.environ["T"], os.environ["OTHER_T"], os.environ["OTHER_PID"]
    mi = mountinfo("/proc/%s/mountinfo" % pid)
    want_old = sorted(e["id"] for e in mi)
    o = mi_by_point(mi, OT + "/o")
    ouniq = mount_id("/proc/%s/root%s/o" % (pid, OT))
    try:
        nsid = ns_id("/proc/%s/ns/mnt" % pid)
    except OSError as e:
        skip("no NS_GET_MNTNS_ID: %s" % e)
    # the whole other namespace
    j = json.loads(tool_ok("statmnt", "--ns", "pid:" + pid, "-r", "--json", "--mask", "mnt_basic,mnt_ns_id"))
    expect(sorted(x["mnt_id_old"] for x in j) == want_old, "--ns pid: -r differs from its mountinfo")
    expect(all(x["mnt_ns_id"] == nsid for x in j), "mnt_ns_id")
    # one mount, by the three forms of --ns
    for ns in ("pid:" + pid, "/proc/%s/ns/mnt" % pid, str(nsid), hex(nsid)):
        d = json.loads(tool_ok("statmnt", "--ns", ns, "--json", str(ouniq)))
        expect(d["mnt_id_old"] == o["id"] and d["sb_source"] == "mntkit-other" and
               d["mnt_ns_id"] == nsid and d["mnt_point"] == OT + "/o", "--ns %s: %r" % (ns, d))
    # a path with --ns pid: is resolved in that process's root and namespace
    d = json.loads(tool_ok("statmnt", "--ns", "pid:" + pid, "--json", OT + "/o"))
    expect(d["mnt_id"] == ouniq, "--ns pid: path resolved in the wrong namespace")
    # here, T/o is no mount point and the other mount is not ours
    d = json.loads(tool_ok("statmnt", "--json", T + "/o"))
    expect(d["mnt_id"] == mount_id(T), "T/o here")
    rc, out, err = tool("statmnt", str(ouniq))
    expect(rc == 1 and out == "" and "no such mount" in err and str(ouniq) in err,
           "other namespace's mount without --ns: %d %r" % (rc, err))
    rc, out, err = tool("statmnt", "--ns", str(nsid), T + "/o")
    expect(rc == 1 and out == "" and err.count("\n") == 1 and "--ns" in err, "path with --ns ID: %r" % err)


@case
def u_in_chroot():
    C = os.environ["CHROOT"]
    def inside(*args):
        p = subprocess.run(["chroot", C, os.environ["STATMNT"]] + list(args), capture_output=True, text=True)
        expect(p.returncode == 0 and p.stderr == "", "chroot statmnt %s: %s" % (args, p.stderr))
        return p.stdout
    mine = json.loads(inside("-r", "--json", "--mask", "mnt_basic,mnt_point"))
    expect(mine[0]["mnt_id"] == mount_id(C), "-r in a chroot starts at its root")
    expect(mine[0]["mnt_point"] == "/", "chroot root is /")
    if not NATIVE:
        skip("-u needs the native backend (mountinfo shows no mount above a chroot)")
    true = json.loads(inside("-u", "-r", "--json", "--mask", "mnt_basic,mnt_point"))
    outside = json.loads(tool_ok("statmnt", "-u", "-r", "--json", "--mask", "mnt_basic"))
    expect([o["mnt_id"] for o in true] == [o["mnt_id"] for o in outside],
           "-u -r in the chroot differs from -u -r outside it")
    expect({o["mnt_id"] for o in mine} < {o["mnt_id"] for o in true}, "-r not inside -u -r")
    unreach = [o for o in true if "mnt_point" not in o]
    expect(unreach and true[0] in unreach, "no unreachable mounts with -u")
    text = inside("-u", "-r").split("\n")
    expect("[unreachable]" in text[0], "text: %r" % text[0])
    d = parse_text(inside("-u"))
    expect(int(d["mnt_id"]) == outside[0]["mnt_id"] and "mnt_point" not in d, "statmnt -u: %r" % d)


@case
def backend_mountinfo():
    T = os.environ["T"]
    env = {"MNTKIT_BACKEND": "mountinfo"}
    keys = ("mnt_id_old", "mnt_parent_id_old", "mnt_point", "mnt_root", "fs_type",
            "sb_source", "sb_dev_major", "sb_dev_minor", "mnt_attr_str", "mnt_propagation_str",
            "mnt_peer_group", "mnt_master")
    rc, out, err = tool("statmnt", "/", env=env)
    if rc != 0 and os.strerror(errno.ENOSYS) in err:
        skip("the mountinfo backend answers ENOSYS: %s" % err.strip())
    for sub in ("", "/a", "/b", "/c", "/n", "/p", "/q", "/u", "/" + os.environ["WEIRD"]):
        rc, out, err = tool("statmnt", "--json", T + sub, env=env)
        expect(rc == 0, "MNTKIT_BACKEND=mountinfo %s: %s" % (sub, err.strip()))
        e = json.loads(out)
        n = json.loads(tool_ok("statmnt", "--json", T + sub))
        for k in keys:
            if k in e:
                expect(e[k] == n[k], "%s %s: mountinfo %r native %r" % (sub, k, e[k], n[k]))
        expect("mnt_point" in e and "fs_type" in e, "%s: emulation lacks strings" % sub)


if __name__ == "__main__":
    main()
