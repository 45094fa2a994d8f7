"""Filter expressions (-Q) against the real findmnt 2.42.

    lsmnt_filter.py CASE FINDMNT BUILDDIR

CASE is one of
  engine-fixed, engine-random  lsmnt's filter engine (tools/lsmnt/expr*.c,
                               through tests/expr-run) against findmnt's
                               libsmartcols filter: the same rows match, the
                               same messages, the same exit status
  lsmnt-fixed, lsmnt-random    lsmnt -Q against findmnt -Q (SKIP while lsmnt
                               has no -Q)
over a fixed list of expressions (every operator, type, conversion, error
message and limit) and over random ones (seeded: MNTKIT_FILTER_SEED,
MNTKIT_FILTER_N of them), each run with and without -b (which makes SIZE,
AVAIL and USED numbers). Run in a private mount namespace with varied
mounts (tests/cli/lsmnt-filter.sh). Exit 0 pass, 77 skip, 1 fail; the last
line says why.
"""
import json
import os
import random
import subprocess
import sys

FINDMNT = sys.argv[2] if len(sys.argv) > 2 else "findmnt"
BUILDDIR = sys.argv[3] if len(sys.argv) > 3 else "build"
EXPR_RUN = os.path.join(BUILDDIR, "tests", "expr-run")
LSMNT = os.path.join(BUILDDIR, "tools", "lsmnt")

# findmnt's JSON numbers: numbers in a filter (SIZE, AVAIL, USED with -b)
NUMBERS = ["ID", "UNIQ-ID", "PARENT", "FREQ", "PASSNO", "TID"]
SIZES = ["SIZE", "AVAIL", "USED"]


def skip(msg):
    print(msg)
    sys.exit(77)


def run(argv, stdin=None):
    p = subprocess.run([os.fsencode(a) for a in argv], input=stdin,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr


# the test mounts: (type, source, directory under the base, options,
# then a command: "bind FROM", "shared", "slave", "unbindable", or a file
# to fill, or None)
MOUNTS = [
    ("tmpfs", "filter-top", "", "size=4m,mode=755", None),
    ("tmpfs", " sp ace ", "a", "size=1m,nr_inodes=100", "fill a/f 300000"),
    ("tmpfs", "tmpb", "b", "size=2m", None),
    (None, None, "c", None, "bind a/sub"),
    ("tmpfs", "ro=ro", "r o", "ro,nosuid,nodev,noexec,noatime", None),
    ("tmpfs", 'q"uote', "q", None, None),
    ("tmpfs", "shared", "s", None, "shared"),
    (None, None, "sl", None, "bind s"),
    (None, None, "sl", None, "slave"),
    ("tmpfs", "unb", "u", None, "unbindable"),
    ("tmpfs", "st1", "st", None, None),
    ("tmpfs", "st2", "st", "size=8k", None),
    ("ramfs", "ramfs", "ram", None, None),
    ("proc", "proc", "p", None, None),
    ("sysfs", "sysfs", "sy", None, None),
    ("tmpfs", "big", "big", "size=3g,nr_inodes=1000000", None),
    ("tmpfs", "\u00e9t\u00e9", "\u00e9", "size=64k", None),
    ("tmpfs", "nest", "b/n1", None, None),
    ("tmpfs", "nest2", "b/n1/n2", "relatime,size=100k", None),
]


def make_mounts(base):
    """Mount MOUNTS under BASE (in the caller's private namespace)."""
    def sh(*argv):
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)

    for fstype, src, sub, opts, then in MOUNTS:
        d = os.path.join(base, sub)
        os.makedirs(d, exist_ok=True)
        if fstype:
            sh("mount", "-t", fstype, *(["-o", opts] if opts else []),
               src, d)
            if sub == "a":
                os.makedirs(os.path.join(d, "sub"), exist_ok=True)
        if not then:
            continue
        what = then.split(" ")
        if what[0] == "bind":
            sh("mount", "--bind", os.path.join(base, what[1]), d)
        elif what[0] == "fill":
            with open(os.path.join(base, what[1]), "wb") as f:
                f.write(b"\0" * int(what[2]))
        else:
            sh("mount", "--make-" + what[0], d)


def columns():
    rc, out, _ = run([FINDMNT, "-H", "-r"])
    if rc:
        skip("findmnt -H failed")
    return [line.split(b" ")[0].decode() for line in out.splitlines()]


COLS = None


def rows(bytes_):
    """Every mount as findmnt's filter sees it: {column: text or None}."""
    argv = [FINDMNT, "-J", "-l", "--output-all"] + (["-b"] if bytes_ else [])
    rc, out, err = run(argv)
    if rc:
        skip("findmnt -J --output-all: %s" % err.decode(errors="replace"))
    fs = json.loads(out.decode("utf-8", "surrogateescape"))["filesystems"]
    res = []
    for f in fs:
        r = {}
        for c in COLS:
            v = f.get(c.lower())
            if isinstance(v, list):  # SOURCES: the cell's first value
                v = v[0] if v else None
            if v is not None and not isinstance(v, str):
                v = str(v)
            r[c] = v
        res.append(r)
    return res


def rows_input(rs):
    out = []
    for r in rs:
        for c, v in r.items():
            if v is not None:
                out.append("%s=%s" % (c, v.encode("utf-8",
                                                  "surrogateescape").hex()))
        out.append("")
    return ("\n".join(out) + "\n").encode()


def engine(expr, bytes_, rs):
    nums = NUMBERS + (SIZES if bytes_ else [])
    return run([EXPR_RUN, ",".join(COLS), ",".join(nums), expr],
               rows_input(rs))


def findmnt(expr, bytes_):
    return run([FINDMNT, "-r", "-n", "-o", "ID", "-Q", expr] +
               (["-b"] if bytes_ else []))


def lsmnt(expr, bytes_):
    rc, out, err = run([LSMNT, "-r", "-n", "-o", "ID", "-Q", expr] +
                       (["-b"] if bytes_ else []))
    # the same messages under the other name
    err = b"\n".join(b"findmnt: " + l[len(b"lsmnt: "):]
                     if l.startswith(b"lsmnt: ") else l
                     for l in err.split(b"\n"))
    return rc, out, err


# ---- the expressions ----

def deep(n, left, mid, right):
    return left * n + mid + right * n


FIXED = [
    # empty, blank, bare values
    "", " ", "1", "0", "0.0", "0.5", '""', '" "', '"x"', "''", "true",
    "false", "TRUE", "FALSE", "True", "TARGET", "FREQ", "!FREQ", "TID",
    "LABEL", "!LABEL", "not FSTYPE", "NOT 0",
    # operators, words and symbols
    'FSTYPE == "tmpfs"', 'FSTYPE eq "tmpfs"', 'FSTYPE EQ "tmpfs"',
    'FSTYPE != "tmpfs"', 'FSTYPE ne "proc"', 'FSTYPE NE "proc"',
    'ID < 30', 'ID lt 30', 'ID LT 30', 'ID <= 30', 'ID le 30', 'ID >= 30',
    'ID ge 30', 'ID GE 30', 'ID > 30', 'ID gt 30', 'ID GT 30',
    'ID > 20 && ID < 40', 'ID > 20 and ID < 40', 'ID > 20 AND ID < 40',
    'ID < 20 || ID > 40', 'ID < 20 or ID > 40', 'ID < 20 OR ID > 40',
    '!(ID > 30)', 'not (ID > 30)', 'NOT(ID > 30)',
    # precedence and associativity
    'ID < 25 || ID > 40 && FSTYPE == "tmpfs"',
    'FSTYPE == "tmpfs" && ID < 25 || ID > 40',
    '(ID < 25 || ID > 40) && FSTYPE == "tmpfs"',
    'ID < 25 || (ID > 40 && FSTYPE == "tmpfs")',
    '! FSTYPE == "tmpfs"', '!FSTYPE == false', '! (FSTYPE == "tmpfs")',
    'ID == 26 == true', 'ID > 5 == ID > 6', 'FSTYPE == "tmpfs" == false',
    'ID == !0', '!!ID', '!!!ID', 'not not TARGET',
    # strings, quotes, blanks, escapes
    "FSTYPE == 'tmpfs'", 'FSTYPE == " tmpfs "', 'FSTYPE == "tmp fs"',
    'SOURCE == "sp ace"', 'SOURCE == " sp ace "', "SOURCE == 'q\"uote'",
    'TARGET == "/"', 'TARGET > "/tmp"', 'TARGET <= "/proc"',
    'FSTYPE < "sysfs"', '"abc" < "abd"', '"b" > "abc"', '"" == ""',
    '"a" == "a "', 'FSTYPE == "\\x"', 'SOURCE =~ "\\\\"',
    # regular expressions
    'TARGET =~ "^/tmp"', 'TARGET !~ "^/tmp"', 'OPTIONS =~ "\\<ro\\>"',
    'OPTIONS =~ "(^|,)ro(,|$)"', 'TARGET =~ "[[:digit:]]"',
    'TARGET =~ "a|b"', 'TARGET =~ "A"', 'TARGET =~ ""', 'TARGET =~ "."',
    'FSTYPE =~ "^(tmp|ram)fs$"', 'SOURCE =~ "^ sp"', 'SOURCE =~ "ace$"',
    'ID =~ "^2"', 'ID !~ "0$"', 'LABEL =~ "x"', 'LABEL !~ "x"',
    'TARGET =~ "("', 'TARGET =~ ")"', 'TARGET =~ "["', 'TARGET =~ "*"',
    'TARGET =~ "a{2"', 'TARGET =~ "a{2,1}"', 'TARGET =~ "\\"',
    'TARGET =~ "[[:nope:]]"', 'TARGET =~ "x" =~ "y"',
    'TARGET =~ ID', 'TARGET =~ (TARGET)', 'TARGET =~ false',
    'TARGET =~ ("x")', 'TARGET !~ "("',
    '(ID == 1) =~ "x"', '5 =~ "x"', '5 =~ "5"', '1.5 =~ "1"',
    'true =~ "x"', 'ID == 1 || true =~ "x"',
    # numbers: suffixes, floats, conversions
    "1K == 1024", "1KiB == 1024", "1M == 1048576", "1G == 1073741824",
    "1T > 1G", "1P > 1T", "15E > 1P", "16E", "1Z", "1Y", "0K == 0",
    "010K == 8K", "08K", "010 == 10", "99999999999999999999K",
    "20000000000000000000K", "18446744073709551615 == 18446744073709551616",
    "99999999999999999999 == 18446744073709551615", "5KB", "5Ki", "5k",
    "1.5K", "1.5 == 1.50", "5 > 4.5", "5 == 5.0", '"5" == 5', '"5.0" == 5',
    '"5.0" == 5.0', '" 5 " == 5', '1.5 == "1.5"', '2.50 == "2.5"',
    "true == 1", "true > false", '"yes" == true', '"1" == true',
    "ID > 25.5", "ID == 26.0", 'ID == "26"', 'ID == " 26 "', 'ID == "abc"',
    'ID > "x"', 'PARENT < ID', 'ID == PARENT', 'ID != PARENT',
    'FREQ == 0', 'FREQ != 0', 'FREQ == "0"', 'FREQ < 1.5', 'FREQ == false',
    'PASSNO >= 0', 'TID > 0', 'TID == true',
    'SIZE > 0', 'SIZE > 1M', 'SIZE == "1M"', 'SIZE =~ "M$"', 'USED >= 0',
    'AVAIL < 2G', 'SIZE > 1.5', 'USE% == "0%"', 'USE% > 5',
    'INO.TOTAL > 100', 'INO.USED > 0', 'INO.USE% =~ "%$"',
    'MAJ:MIN == "0:21"', 'MAJ:MIN =~ "^0:"', 'TARGET > 5', 'TARGET > 5.5',
    'TARGET == true', 'FSTYPE > 5', 'PROPAGATION == "shared"',
    'PROPAGATION =~ "slave"', 'OPT-FIELDS =~ "master"',
    'VFS-OPTIONS =~ "ro"', 'FS-OPTIONS =~ "size="', 'FSROOT != "/"',
    'SOURCES == SOURCE', 'TARGET == SOURCE', 'TARGET != SOURCE',
    'ACTION', 'OLD-TARGET == ""', 'OLD-OPTIONS != "x"', 'UNIQ-ID',
    'UUID', 'PARTUUID == ""', 'PARTLABEL', 'LABEL == ""', 'LABEL != ""',
    'LABEL < "a"', 'LABEL == 0', 'LABEL == false',
    # column names
    'target == "/"', 'Target', 'fstype == "proc"', 'maj:min', 'use%',
    'FOO', 'FOO == 1 && FOO || baz', 'TARGET/x', 'a-b', 'A.B', 'x%',
    'ID == 1 && NOPE', 'NOPE =~ "("', "NOPE =~ '('",
    " && ".join(["target"] * 70), " && ".join(["TARGET"] * 70),
    " && ".join(["Id"] * 62), " && ".join(["Id"] * 63),
    # syntax errors
    "ID = 5", "ID == 5 @", "ID ==", "(ID == 5", "ID == 5)", "and", "'",
    '"abc', "()", "( )", ")", "!", "ID == == 5", "ID 5 6 7", "1.5 1",
    '"x" "y"', "'x' 1", "ID true", "ID false", "ID !", "ID not", "ID (",
    "(ID", "(ID ID", "1.5.6", "1.", ".5", "ID =! 5", "ID === 5", "ID & 5",
    "ID | 5", "-5", "ID == 'x", 'ID =~ "(" ID', "ID 99999999999999999999K",
    "(ID 99999999999999999999K", "ID == 99999999999999999999K",
    "ID =~ =~", "ID == 1.5 1.5", "1 + 2", 'ID == "a"b"', "ID == 26 &&& 1",
    "ID\t==\t26", "ID ==\n26", 'ID == "x\ny"', "ID\r== 26", "ID\v",
    "EQ", "ne", "lt 5", "GE", "gt", "le", "not", "NOT", "Not",
    "ID == 26 ||| 1", "ID ~ 5", "ID =~~ \"x\"", "ID !=~ 5", "ID <> 5",
    "ID >== 5", "ID => 5", "ID =< 5", "# ID", "ID;", "ID, ID",
    "\u00e9", "ID == \"\u00e9\"", "\u00e9 == 1", "ID == 1 \u00e9",
    # depth: bison's stack of 10,000 entries
    deep(9996, "(", "ID", ")"), deep(9997, "(", "ID", ")"),
    deep(9997, "!", "ID", ""), deep(9998, "!", "ID", ""),
    deep(3332, "ID && (", "ID", ")"), deep(3333, "ID && (", "ID", ")"),
    deep(4999, "ID == (", "1", ")"), deep(5000, "ID == (", "1", ")"),
    deep(2000, "(!", "ID", ")"), "X" * 100000, '"' + "x" * 100000 + '"',
    " && ".join(["ID"] * 20000), "ID" + " == 1" * 20000,
    " || ".join(["!ID"] * 10000),
]


class Gen:
    """Random expressions over the columns and values of the table."""

    OPS = ["==", "!=", "<", "<=", ">", ">=", "eq", "ne", "lt", "le", "gt",
           "ge", "EQ", "NE", "LT", "LE", "GT", "GE"]
    JOIN = ["&&", "||", "and", "or", "AND", "OR"]
    JUNK = list("()\"'=&|!<>~@-.,;+ \t") + ["==", "=~", "&&", "||", "!~"]

    def __init__(self, seed, rs):
        self.r = random.Random(seed)
        self.rows = rs
        self.cols = [c for c in COLS if c != "TID"]

    def value_of(self, col):
        vals = [r[col] for r in self.rows if r.get(col) is not None]
        return self.r.choice(vals) if vals else None

    def literal(self, col=None):
        r = self.r
        k = r.random()
        if col and k < 0.5:
            v = self.value_of(col)
            if v is not None and '"' not in v and "\n" not in v:
                if r.random() < 0.1:
                    v = " " + v + " "
                return '"%s"' % v if r.random() < 0.7 or not v.isdigit() \
                    else v
        if k < 0.65:
            return str(r.choice([0, 1, 2, 5, 20, 26, 30, 64, 100, 1000,
                                 2 ** 32, 2 ** 64 - 1]))
        if k < 0.72:
            return "%d%s" % (r.randint(0, 9), r.choice(
                ["K", "M", "G", "KiB", "MiB", "T"]))
        if k < 0.8:
            return "%d.%d" % (r.randint(0, 99), r.randint(0, 99))
        if k < 0.88:
            return r.choice(["true", "false", "TRUE", "FALSE"])
        return r.choice(['"tmpfs"', '"proc"', '""', '"/"', "'x'",
                         '"yes"', '"0"', '"1"', '"rw"'])

    def regex(self):
        return self.r.choice(['"^/"', '"tmp"', '"^(tmp|proc)"', '"[0-9]"',
                              '"rw"', '"\\<ro\\>"', '"s$"', '"."', '""',
                              '"^$"', '"("', '"a{1,2}"', '"[[:alpha:]]+"'])

    def atom(self, depth):
        r = self.r
        k = r.random()
        if k < 0.55:
            c = r.choice(self.cols)
            if r.random() < 0.15:
                c = c.lower() if r.random() < 0.7 else "NOPE"
            if r.random() < 0.15:
                return "%s %s %s" % (c, r.choice(["=~", "!~"]),
                                     self.regex())
            if r.random() < 0.1:
                return c
            return "%s %s %s" % (c, r.choice(self.OPS), self.literal(c))
        if k < 0.62:
            return self.literal()
        if k < 0.72:
            return r.choice(["!", "not ", "NOT ", "! "]) + \
                self.atom(depth + 1)
        if k < 0.85 and depth < 4:
            return "(" + self.expr(depth + 1) + ")"
        c = r.choice(self.cols)
        return "%s %s %s" % (c, r.choice(self.OPS), r.choice(self.cols))

    def expr(self, depth=0):
        parts = [self.atom(depth)]
        while self.r.random() < 0.45 and len(parts) < 5:
            parts.append(self.r.choice(self.JOIN))
            parts.append(self.atom(depth))
        return " ".join(parts)

    def mutate(self, s):
        r = self.r
        i = r.randrange(len(s) + 1)
        k = r.random()
        if k < 0.4 and s:
            return s[:i] + s[i + 1:]
        if k < 0.8:
            return s[:i] + r.choice(self.JUNK) + s[i:]
        j = r.randrange(len(s) + 1)
        i, j = min(i, j), max(i, j)
        return s[:i] + s[j:]

    def one(self):
        s = self.expr()
        if self.r.random() < 0.25:
            s = self.mutate(s)
        return s


def exprs(case, rs):
    if case.endswith("fixed"):
        return FIXED
    seed = int(os.environ.get("MNTKIT_FILTER_SEED", "20261224"))
    n = int(os.environ.get("MNTKIT_FILTER_N", "300"))
    g = Gen(seed, rs)
    return [g.one() for _ in range(n)]


BLKID_COLS = ("LABEL", "UUID", "PARTUUID", "PARTLABEL", "SOURCES")
APPLY = b"findmnt: failed to apply filter: "


def accepted(expr, want, got):
    """The differences lsmnt(8) documents: where findmnt crashes (a number
    or true on the right of =~ or !~) ours refuses the expression; after
    an operator that does not apply (=~ on a boolean) findmnt prints the
    errno its last call left, which after libblkid's lookups of LABEL,
    UUID, ... is libblkid's, and ours that of findmnt's other paths."""
    if want[0] < 0:
        return got[0] == 1 and got[2].startswith(b"findmnt: failed to parse")
    if want[:2] != got[:2] or not any(c in expr for c in BLKID_COLS):
        return False
    return want[2].startswith(APPLY) and got[2] in (
        APPLY + b"Inappropriate ioctl for device\n", APPLY + b"Success\n")


def short(s, n=120):
    s = repr(s)
    return s if len(s) <= n else s[:n] + "...(%d)" % len(s)


def main():
    global COLS
    case = sys.argv[1]
    if case == "mounts":
        make_mounts(sys.argv[2])
        return
    rc, out, _ = run([FINDMNT, "--version"])
    if rc or b"2.42" not in out:
        skip("%s is not findmnt 2.42: %r" % (FINDMNT, out[:80]))
    COLS = columns()
    if case.startswith("lsmnt"):
        if not os.access(LSMNT, os.X_OK):
            skip("no %s" % LSMNT)
        rc, _, err = run([LSMNT, "-Q", "1"])
        if rc and (b"unknown option" in err or b"invalid option" in err or
                   b"unrecognized option" in err):
            skip("lsmnt has no -Q yet")
        other = lsmnt
    else:
        other = None
    rs = {False: rows(False), True: rows(True)}
    diffs, runs = [], 0
    for i, expr in enumerate(exprs(case, rs[False])):
        for b in (False, True):
            if case.endswith("random") and (i % 2) != b:
                continue  # random ones: with or without -b, alternately
            runs += 1
            for attempt in range(3):
                want = findmnt(expr, b)
                got = other(expr, b) if other else engine(expr, b, rs[b])
                if want == got:
                    break
                # a live filesystem's usage or the table may have changed
                rs[b] = rows(b)
            if want != got and not accepted(expr, want, got):
                diffs.append((expr, b, want, got))
    for expr, b, want, got in diffs[:10]:
        sys.stderr.write("differs%s: %s\n  findmnt: %s\n  ours:    %s\n" % (
            " (-b)" if b else "", short(expr), short(want, 300),
            short(got, 300)))
    if diffs:
        print("%d of %d runs differ, the first: %s" % (
            len(diffs), runs, short(diffs[0][0], 80)))
        sys.exit(1)
    print("%d runs, all the same" % runs)


if __name__ == "__main__":
    main()
