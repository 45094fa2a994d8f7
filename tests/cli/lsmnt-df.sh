#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/lsmnt-df.sh ABS_BUILDDIR - lsmnt's statvfs columns (SIZE, AVAIL,
# USED, USE%), -D/--df, -b/--bytes, and the findmnt options -f, -i, -U, -d,
# -k, -c, -e, -A; and the findmnt options lsmnt refuses.
#
# The reference is the real findmnt(8): both run with the same arguments
# and must print the same bytes with the same exit status. The namespace
# cases mount tmpfs filesystems of many sizes (and files that fill some of
# them), stacked, hidden and bound mounts, in a private mount namespace.
# The cases that need root say SKIP without it.
#
# statvfs numbers of the host's filesystems can change between the two
# runs (a busy disk), and change back: a comparison with a df column that
# differs is run again, a few times, each rerun said on stderr
# (findmntcmp.same, lib.sh); without one, only a changed mount table does.

# cli_main (lib.sh) calls the cases through $plain_cases and $ns_cases:
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cli_init "$1"

LSMNT=$BUILDDIR/tools/lsmnt
CLI_PROG=lsmnt
export LSMNT

cat >"$CLI_TMP/py/lsmntdf.py" <<'PY'
"""Compare lsmnt with findmnt (statvfs columns, -D and friends)."""
import json, os, shutil, subprocess, time
from mntcli import *
from findmntcmp import *

L = os.environ["LSMNT"]
USAGE = "TARGET,SIZE,AVAIL,USED,USE%"


MODES = [[], ["-l"], ["-J"], ["-J", "-l"], ["-r"], ["-P"], ["-a"],
         ["-l", "-n"]]
PY

# ---- cases that need no mounts (the host's table, read only) ----

c_help() {
	expect_help help_df "$LSMNT" '^usage: lsmnt ' --df --bytes \
		--first-only --invert --uniq --direction --kernel \
		--canonicalize --evaluate
}

c_refused() {
	# -s, -F, -m and -x are provided (tests/cli/lsmnt-tab.sh)
	# -p and -w are provided (tests/cli/lsmnt-poll.sh): only bad values fail
	expect_error poll_bad_action "bogus" - "$LSMNT" --poll=bogus
	expect_error timeout_bad "--timeout" - "$LSMNT" -p -w 1.5
	expect_error bad_direction "sideways" - "$LSMNT" -d sideways
	expect_error direction_needs_arg "-d" - "$LSMNT" -d
	expect_error kernel_and_task "-N" - "$LSMNT" -k -N $$
	# findmnt refuses -k -N too (its exit status is ours)
	if have_cmd findmnt; then
		findmnt -k -N $$ >/dev/null 2>&1
		if [ $? = 1 ]; then
			pass kernel_and_task_findmnt
		else
			fail kernel_and_task_findmnt "findmnt -k -N accepted"
		fi
	fi
	# nothing is printed, nothing is half done: the refusal comes first
	run "$LSMNT" -J -D --verify
	if [ "$RC" != 1 ] || [ -s "$OUT" ]; then
		fail refuse_before_output "exit $RC, out $(head -c 100 "$OUT")"
	else
		pass refuse_before_output
	fi
}

c_host_df() {
	py_case host_df <<'PY'
from lsmntdf import *
need_findmnt()
for m in MODES:
    for a in (["-D"], ["-D", "-b"], ["-D", "-A"], ["-D", "--real"],
              ["-D", "--pseudo"], ["-D", "-o", "+ID"], ["-D", "-o", "TARGET,USE%"],
              ["-o", USAGE + ",FSTYPE"], ["-b", "-o", USAGE],
              ["-t", "proc,sysfs", "-o", USAGE]):
        same(m + a)
PY
}

c_host_options() {
	py_case host_options <<'PY'
from lsmntdf import *
need_findmnt()
for m in ([], ["-l"], ["-J"], ["-r"], ["-P"]):
    for a in (["-f"], ["-f", "-t", "tmpfs"], ["-f", "/proc"], ["-f", "proc"],
              ["-i", "-t", "tmpfs,ext4"], ["-i", "--real"], ["-i"],
              ["-U"], ["-U", "-o", "TARGET,ID,PARENT"],
              ["-d", "backward"], ["-d", "backward", "-t", "tmpfs"],
              ["-d", "forward", "-t", "tmpfs"], ["-k"], ["-k", "-t", "proc"],
              ["--real", "-A"], ["-c", "-o", "SOURCE,TARGET"],
              ["-e", "-o", "SOURCE,TARGET"]):
        same(m + a)
PY
}

# statvfs(2) is only called when a column needs it (speed on big tables)
c_statvfs_only_when_asked() {
	if ! have_cmd strace; then
		skip statvfs_only_when_asked "no strace"
		return
	fi
	local n0 n1 rows rc0 rc1
	# LeakSanitizer cannot run under ptrace: no leak check here
	local asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	ASAN_OPTIONS=$asan strace -f -qq -e trace=statfs -o "$CLI_TMP/st0" \
		"$LSMNT" -l >/dev/null 2>&1
	rc0=$?
	ASAN_OPTIONS=$asan strace -f -qq -e trace=statfs -o "$CLI_TMP/st1" \
		"$LSMNT" -l -o TARGET,SIZE,USE% >/dev/null 2>&1
	rc1=$?
	if [ "$rc0" != 0 ] || [ "$rc1" != 0 ]; then
		if ! strace -qq -o /dev/null true 2>/dev/null; then
			skip statvfs_only_when_asked "strace cannot trace here"
		else
			fail statvfs_only_when_asked "lsmnt under strace: exit $rc0/$rc1"
		fi
		return
	fi
	n0=$(grep -c 'statfs(' "$CLI_TMP/st0")
	n1=$(grep -c 'statfs(' "$CLI_TMP/st1")
	rows=$("$LSMNT" -l -n -o ID | wc -l)
	if [ "$n0" != 0 ]; then
		fail statvfs_only_when_asked "$n0 statfs calls without a statvfs column"
	elif [ "$n1" -lt "$rows" ] || [ "$n1" -gt $((rows + 5)) ]; then
		fail statvfs_only_when_asked "$n1 statfs calls for $rows rows"
	else
		pass statvfs_only_when_asked
	fi
}

c_list_columns_df() {
	py_case list_columns_df <<'PY'
from lsmntdf import *
rc, out, err, _ = run([L, "-H"])
expect(rc == 0 and not err, err)
cols = {l.split()[0]: l.split()[1] for l in out.decode().splitlines()}
for c in ("SIZE", "AVAIL", "USED", "USE%"):
    expect(cols.get(c) == "<string>", "-H: %s %r" % (c, cols.get(c)))
rc, out, err, _ = run([L, "-H", "-b", "-J"])
j = {c["holder"]: c["type"] for c in json.loads(out)["lsmnt-columns"]}
expect(j["SIZE"] == "<integer>" and j["USE%"] == "<string>", "-H -b -J %r" % j)
PY
}

plain_cases="c_help c_refused c_host_df c_host_options
	c_statvfs_only_when_asked c_list_columns_df"

# ---- cases in a private mount namespace ----

SIZES="1k 4k 8k 12k 100k 1000k 1020k 1023k 1m 1025k 1100k 1500k 1530k 1535k
	1536k 1537k 1540k 2047k 10m 99m 100m 1000m 1023m 1024m 1500m 3g 10g
	100g 1023g 1t 5t 1000t 2000t 1p 3000p 9000p"

setup_df() {
	local i=0 s
	T=$CLI_TMP/t
	export T
	mkdir -p "$T" && mount -t tmpfs -o size=1500k df-top "$T" || return 1
	mkdir "$T/sz" "$T/rnd" "$T/a" "$T/b" "$T/c" "$T/e" "$T/link-to" \
		"$T/ro" || return 1
	mount -t tmpfs -o size=8m df-sz "$T/sz" || return 1
	for s in $SIZES; do
		i=$((i + 1))
		mkdir "$T/sz/$s" && mount -t tmpfs -o "size=$s" "df-$s" "$T/sz/$s" ||
			return 1
	done
	# a stacked pair on c, the lower one with a submount that is hidden
	# now (statvfs cannot reach it), a bind of a on b, filled files
	mount -t tmpfs -o size=3m df-x "$T/a" && mkdir "$T/a/s" &&
		mount -t tmpfs df-s "$T/a/s" && mount --bind "$T/a" "$T/b" &&
		mount -t tmpfs -o size=2m df-y "$T/c" && mkdir "$T/c/k" &&
		mount -t tmpfs df-k "$T/c/k" &&
		mount -t tmpfs -o size=5m df-z "$T/c" && mkdir "$T/c/q" &&
		mount -t tmpfs -o size=700k df-q "$T/c/q" &&
		mount -t tmpfs -o size=1m,ro df-ro "$T/ro" || return 1
	dd if=/dev/zero of="$T/a/f" bs=1k count=700 2>/dev/null &&
		dd if=/dev/zero of="$T/sz/1100k/f" bs=1k count=333 2>/dev/null &&
		dd if=/dev/zero of="$T/sz/1000k/f" bs=1k count=1000 2>/dev/null &&
		dd if=/dev/zero of="$T/c/q/f" bs=1k count=350 2>/dev/null ||
		return 1
	# -c: a source that is a symbolic link; -e: a tag source
	ln -s "$T/link-to" "$T/link" &&
		mount -t tmpfs "$T/link" "$T/e" || return 1
	mkdir "$T/tag" && python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.mount(b"LABEL=lsmnt-df-none", os.fsencode(sys.argv[1]), b"tmpfs", 0, None):
    sys.exit(1)' "$T/tag" || return 1
}

c_ns_df() {
	py_case ns_df <<'PY'
from lsmntdf import *
need_findmnt()
T = os.environ["T"]
for m in MODES:
    for a in (["-D"], ["-D", "-b"], ["-D", "-A"], ["-D", "--real"],
              ["-D", "--pseudo"], ["-D", "-t", "tmpfs"], ["-D", "-i"],
              ["-D", "-o", "+ID"], ["-D", "-R", "-T", T],
              ["-D", "-b", "-R", "-T", T]):
        same(m + a)
# --tree with -l, -r or -P is a tree in findmnt, a list in lsmnt (an older
# difference, see lsmnt(8)): only the modes that agree
for m in ([], ["-J"], ["-a"]):
    same(m + ["-D", "--tree"])
    same(m + ["-f", "--tree", "-t", "tmpfs"])
PY
}

c_ns_columns() {
	py_case ns_usage_columns <<'PY'
from lsmntdf import *
need_findmnt()
T = os.environ["T"]
for m in MODES + [["-P", "-y"]]:
    for b in ([], ["-b"]):
        same(m + b + ["-o", USAGE, "-R", "-T", T])
        same(m + b + ["-o", "SIZE,USE%,TARGET,USED", "-t", "tmpfs"])
        same(m + b + ["-o", "TARGET,USE%", "-R", "-T", T + "/c"])
# an independent look at the numbers: size_to_human_string's known bytes
rows = json.loads(same(["-J", "-l", "-o", USAGE, "-R", "-T", T + "/sz"]))
got = {r["target"][len(T) + 4:]: r for r in rows["filesystems"]}
for size, want in (("1k", "4K"), ("1000k", "1000K"), ("1020k", "1020K"),
                   ("1023k", "1M"), ("1100k", "1.1M"), ("1500k", "1.5M"),
                   ("2047k", "2M"), ("1023m", "1023M"), ("1500m", "1.5G"),
                   ("3g", "3G"), ("2000t", "2P"), ("3000p", "2.9E")):
    expect(got[size]["size"] == want, "%s: SIZE %r, want %r" % (size, got[size]["size"], want))
expect(got["1100k"]["used"] == "336K" and got["1100k"]["use%"] == "31%",
       "1100k with 333k: %r" % got["1100k"])
expect(got["1000k"]["avail"] == "0" and got["1000k"]["use%"] == "100%",
       "1000k full: %r" % got["1000k"])
# a hidden mount has no usage: empty cells (null), as in findmnt
j = json.loads(same(["-J", "-l", "-o", USAGE, "-M", T + "/c/k"]))
expect(j["filesystems"][0]["size"] is None, "hidden c/k: %r" % j)
PY
}

# every page-multiple size, in every unit: a sweep of random sizes
c_ns_size_sweep() {
	local i e n s
	RANDOM=4242
	for i in $(seq 240); do
		e=$((RANDOM % 5))
		n=$(((RANDOM * 32768 + RANDOM) % (1 << 30)))
		case $e in
		0) s=$((n % 4096 + 1))k ;;
		1) s=$((n % 2000000 + 1))k ;;
		2) s=$((n % 3000000 + 1))m ;;
		3) s=$((n % 9000000 + 1))g ;;
		*) s=$((1023 * 1024 + n % 2048))k ;;
		esac
		mkdir -p "$T/rnd/$i" &&
			mount -t tmpfs -o "size=$s" "rnd-$s" "$T/rnd/$i" || {
			fail ns_size_sweep "cannot mount a tmpfs of size $s"
			return
		}
		# some used blocks too, for USED and USE%
		[ $((i % 7)) = 0 ] && head -c $((n % 300000)) /dev/zero \
			>"$T/rnd/$i/f" 2>/dev/null
	done
	py_case ns_size_sweep <<'PY'
from lsmntdf import *
need_findmnt()
T = os.environ["T"]
for m in ([], ["-J"], ["-r"], ["-P"]):
    same(m + ["-D", "-R", "-T", T + "/rnd"])
    same(m + ["-b", "-o", USAGE, "-R", "-T", T + "/rnd"])
PY
}

c_ns_first() {
	py_case ns_first_only <<'PY'
from lsmntdf import *
need_findmnt()
T = os.environ["T"]
for m in ([], ["-l"], ["-J"], ["-r"], ["-P"]):
    for a in (["-f"], ["-f", "-t", "tmpfs"], ["-f", "df-x"], ["-f", T + "/c"],
              ["-f", "-d", "backward", "-t", "tmpfs"], ["-f", "-R", "-t", "tmpfs"],
              ["-f", "-R", "-T", T + "/a"],
              ["-f", "-i", "df-x"], ["-f", "-S", "df-x", "-T", T + "/b"],
              ["-f", "-D"], ["-f", "df-x", T + "/b"], ["-f", "-M", T + "/c"]):
        same(m + a)
PY
}

c_ns_invert() {
	py_case ns_invert <<'PY'
from lsmntdf import *
need_findmnt()
T = os.environ["T"]
for m in ([], ["-l"], ["-J"], ["-r"], ["-P"]):
    for a in (["-i", "-t", "tmpfs"], ["-i", "-t", "notmpfs"],
              ["-i", "-t", "tmpfs,proc,sysfs"], ["-i", "-O", "ro"],
              ["-i", "-t", "tmpfs", "-R", "-T", T], ["-i", "-S", "df-x"],
              ["-i", "--pseudo"], ["-i", "-D"], ["-i"], ["-i", "-A"]):
        same(m + a)
PY
}

c_ns_uniq() {
	py_case ns_uniq <<'PY'
from lsmntdf import *
need_findmnt()
T = os.environ["T"]
for m in ([], ["-l"], ["-J"], ["-r"], ["-P"]):
    for a in (["-U"], ["-U", "-R", "-T", T], ["-U", "-t", "tmpfs"],
              ["-U", "-o", "TARGET,SOURCE,ID,PARENT"],
              ["-U", "-R", "-T", T, "-o", "TARGET,ID,PARENT"],
              ["-U", "-D"], ["-U", "-d", "backward", "-t", "tmpfs"]):
        same(m + a)
# the stacked pair on c is one mount, the top one (df-z)
rc, out, err, _ = run([L, "-U", "-J", "-l", "-M", T + "/c", "-o", "SOURCE"])
expect(json.loads(out)["filesystems"] == [{"source": "df-z"}], out)
PY
}

c_ns_direction() {
	py_case ns_direction <<'PY'
from lsmntdf import *
need_findmnt()
T = os.environ["T"]
for m in ([], ["-l"], ["-J"], ["-r"], ["-P"]):
    for d in ("backward", "forward"):
        for a in ([], ["-t", "tmpfs"], ["-R", "-T", T + "/a"],
                  ["-R", "-t", "tmpfs"], ["-D"], [T + "/c"]):
            same(m + ["-d", d] + a)
PY
}

c_ns_kernel() {
	py_case ns_kernel <<'PY'
from lsmntdf import *
need_findmnt()
T = os.environ["T"]
for m in ([], ["-l"], ["-J"], ["-r"], ["-P"]):
    for a in (["-k"], ["-k", "-R", "-T", T], ["--kernel", "-D"]):
        same(m + a)
PY
}

c_ns_canonicalize() {
	py_case ns_canonicalize <<'PY'
from lsmntdf import *
need_findmnt()
T = os.environ["T"]
for m in ([], ["-l"], ["-J"], ["-r"], ["-P"]):
    for a in (["-c"], ["-e"], ["-c", "-e"], ["--canonicalize", "-v"]):
        same(m + a + ["-R", "-T", T, "-o", "SOURCE,TARGET"])
        # findmnt canonicalizes relative to the working directory
        same(m + a + ["-R", "-T", T, "-o", "SOURCE,TARGET"], cwd=T)
j = json.loads(same(["-J", "-c", "-M", T + "/e", "-o", "SOURCE"]))
expect(j["filesystems"][0]["source"] == T + "/link-to", "-c %r" % j)
j = json.loads(same(["-J", "-e", "-M", T + "/tag", "-o", "SOURCE"]))
expect(j["filesystems"][0]["source"] is None, "-e of a missing label %r" % j)
PY
}

ns_cases="c_ns_df c_ns_columns c_ns_size_sweep c_ns_first c_ns_invert
	c_ns_uniq c_ns_direction c_ns_kernel c_ns_canonicalize"

# ---- main ----

cli_main setup_df "could not build the test mounts" "${2:-}"
