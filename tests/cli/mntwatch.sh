#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/mntwatch.sh ABS_BUILDDIR - tests of the mntwatch tool.
#
# The events mntwatch prints are checked against what the test did itself
# (mounts made here, their IDs read with statx(2) directly) and, for the
# JSON keys and values, against statmnt --json of the same mount. The
# cases that mount run in a private mount namespace (this script runs
# itself there with --in-ns) and need root; without it they say SKIP.

# cli_main (lib.sh) calls the cases through $plain_cases and $ns_cases:
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cli_init "$1"

MNTWATCH=$BUILDDIR/tools/mntwatch
CLI_PROG=mntwatch
export MNTWATCH

# the Python side: start mntwatch, wait until it watches, collect lines
mkdir -p "$CLI_TMP/py"
cat >"$CLI_TMP/py/mwcli.py" <<'PY'
import json, os, re, select, signal, subprocess, time
from mntcli import *

EXE = os.environ["MNTWATCH"]


class Watch:
    """mntwatch ARGS --initial -p READY...: started, and ready once the
    attach of the mount at READY (made before) has been printed."""

    def __init__(self, ready, *args):
        self.p = subprocess.Popen([EXE, "--initial"] + list(args),
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.buf = b""
        self.ready = ready
        first = self.line(5)
        if first is None:
            expect(False, "mntwatch printed nothing: %s" % self.err())
        self.initial = [first]

    def line(self, timeout):
        end = time.time() + timeout
        while b"\n" not in self.buf:
            left = end - time.time()
            if left <= 0:
                return None
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if not r:
                return None
            chunk = os.read(self.p.stdout.fileno(), 65536)
            if not chunk:
                return None
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return line.decode("utf-8", "surrogateescape")

    def lines(self, n, timeout=5):
        out = []
        while len(out) < n:
            l = self.line(timeout)
            if l is None:
                break
            out.append(l)
        return out

    def quiet(self, t=0.5):
        l = self.line(t)
        expect(l is None, "unexpected line: %r" % l)

    def err(self):
        if self.p.poll() is None:
            self.p.kill()
        return self.p.stderr.read().decode(errors="replace").strip()

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        rc = self.p.wait(5)
        if rc != 0:
            expect(False, "mntwatch exit %d after SIGTERM: %s" % (rc, self.err()))


def sh(*cmd):
    subprocess.run(cmd, check=True)


IDENTITY = re.compile(r" seq=([0-9]+) time=([0-9T:.Z-]+) mono=([0-9]+\.[0-9]{9})$")


def bare(lines):
    """text lines without their identity (seq=, time=, mono= at the end),
    which each must have, with seq increasing"""
    out, last = [], 0
    for l in lines:
        m = IDENTITY.search(l)
        expect(m is not None, "no seq/time/mono at the end of %r" % l)
        expect(int(m.group(1)) > last, "seq not increasing: %r" % l)
        last = int(m.group(1))
        out.append(l[:m.start()])
    return out


def wait_exit(p, what):
    """p's exit status; if it has not exited within 5 s, kill it and fail
    with the message what."""
    try:
        return p.wait(5)
    except subprocess.TimeoutExpired:
        p.kill()
        expect(False, what)
PY

# ---- cases that need no mounts ----

c_help() {
	expect_help help "$MNTWATCH" '^usage: mntwatch ' --source --initial \
		--journal mntwatch-event.schema.json
}

c_version() {
	expect_version version "$MNTWATCH"
}

c_bad_args() {
	expect_error bad_option "--bogus" usage "$MNTWATCH" --bogus
	expect_error bad_short "-x" usage "$MNTWATCH" -x
	expect_error missing_arg "-c" usage "$MNTWATCH" -c
	expect_error bad_event "-e nope" usage "$MNTWATCH" -e attach,nope
	expect_error bad_count "-c" usage "$MNTWATCH" -c 0
	expect_error bad_count_word "-c" usage "$MNTWATCH" -c many
	expect_error bad_timeout "--timeout" usage "$MNTWATCH" --timeout 1s
	expect_error negative_timeout "--timeout" usage "$MNTWATCH" --timeout -1
	expect_error bad_source "--source" usage "$MNTWATCH" --source inotify
	expect_error relative_prefix "-p" usage "$MNTWATCH" -p mnt
	expect_error empty_type "-t" usage "$MNTWATCH" -t tmpfs,,ext4
	expect_error extra_arg "extra" usage "$MNTWATCH" extra
	expect_error ns_not_pid "pid:0" - "$MNTWATCH" --ns pid:0
	expect_error ns_no_file "/nonexistent" - "$MNTWATCH" --ns /nonexistent
	expect_error ns_not_ns "/proc/self/ns/uts" - "$MNTWATCH" \
		--ns /proc/self/ns/uts
	expect_error all_ns_and_ns "--all-namespaces" usage "$MNTWATCH" \
		--all-namespaces --ns pid:1
	expect_error bad_event_ns "-e ns-new" usage "$MNTWATCH" -e ns-new
}

c_timeout() {
	local t0 t1
	t0=$(date +%s%N)
	run "$MNTWATCH" --timeout 0.3 -p /nonexistent/prefix
	t1=$(date +%s%N)
	if [ "$RC" != 0 ] || [ -s "$OUT" ] || [ -s "$ERR" ]; then
		fail timeout "exit $RC, out '$(cat "$OUT")', err '$(cat "$ERR")'"
	elif [ $(((t1 - t0) / 1000000)) -lt 250 ] ||
		[ $(((t1 - t0) / 1000000)) -gt 3000 ]; then
		fail timeout "took $(((t1 - t0) / 1000000)) ms for 0.3 s"
	else
		pass timeout
	fi
}

c_initial_count_json() {
	py_case initial_count_json <<'PY'
from mwcli import *
rc, out, err = tool("mntwatch", "--initial", "--json", "-c", "3")
expect(rc == 0 and err == "", "exit %d: %s" % (rc, err))
lines = out.splitlines()
expect(len(lines) == 3, "%d lines for -c 3" % len(lines))
for l in lines:
    o = json.loads(l)
    expect(o["event"] == "attach", "event %r" % o["event"])
    # the same keys and values as statmnt --json of that mount
    rc, sout, serr = tool("statmnt", "--json", str(o["mnt_id"]))
    expect(rc == 0, "statmnt %d: %s" % (o["mnt_id"], serr))
    s = json.loads(sout)
    for k in ("supported_mask", "size"):
        s.pop(k, None)
        o.pop(k, None)
    s.pop("mask"); o.pop("mask")
    expect(o["version"] == 1 and o["seq"] >= 1 and
           o["realtime_ns"] > 0 and o["monotonic_ns"] > 0 and
           o["time"].endswith("Z"), "identity %r" % o)
    for k in ("event", "version", "seq", "time", "realtime_ns",
              "monotonic_ns"):
        del o[k]
    expect(set(o) == set(s) - {"supported_mask"},
           "keys differ: %r" % (set(o) ^ set(s)))
    for k in o:
        expect(o[k] == s[k], "%s: %r != statmnt's %r" % (k, o[k], s[k]))
PY
}

c_initial_text() {
	py_case initial_text <<'PY'
from mwcli import *
rc, out, err = tool("mntwatch", "--initial", "-c", "1", "-p", "/")
expect(rc == 0 and err == "", "exit %d: %s" % (rc, err))
f = bare([out.rstrip("\n")])[0].split(" ")
expect(f[0] == "attach" and f[1].startswith("0x"), "line %r" % out)
t = IDENTITY.search(out.rstrip("\n"))
expect(t.group(1) == "1", "the first event's seq %r" % t.group(1))
# the first mount by ID; with the native backend a listed unique ID
if NATIVE:
    expect(int(f[1], 16) in listmount(), "ID %s not listed" % f[1])
PY
}

c_closed_stdout() {
	py_case closed_stdout <<'PY'
from mwcli import *
import time
# reader gone while mntwatch has nothing to write: it must notice anyway
for args in (["-p", "/nonexistent/prefix"], ["--initial"]):
    p = subprocess.Popen([EXE] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    if "--initial" in args:
        p.stdout.read(1)
    p.stdout.close()
    rc = wait_exit(p, "mntwatch %s did not exit when stdout closed" % args)
    err = p.stderr.read().decode()
    expect(rc == 0 and err == "", "%s: exit %d: %s" % (args, rc, err))
PY
}

c_signals() {
	py_case signals <<'PY'
from mwcli import *
import time
for sig in (signal.SIGINT, signal.SIGTERM):
    p = subprocess.Popen([EXE, "-p", "/nonexistent/prefix"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(0.3)
    p.send_signal(sig)
    rc = wait_exit(p, "no exit on signal %d" % sig)
    err = p.stderr.read().decode()
    expect(rc == 0 and err == "", "signal %d: exit %d: %s" % (sig, rc, err))
PY
}

plain_cases="c_help c_version c_bad_args c_timeout c_initial_count_json
	c_initial_text c_closed_stdout c_signals"

# ---- cases in a private mount namespace ----

setup_ns() {
	T=$CLI_TMP/ns
	mkdir -p "$T" && mount -t tmpfs mntwatch-test "$T" || return 1
	export T
}

# attach, change, move (subtree too), detach: the same lines on each source
events_case() {
	SRC=$1 py_case "events_$1" <<'PY'
from mwcli import *
T, src = os.environ["T"], os.environ["SRC"]
d = T + "/" + src
os.makedirs(d + "/a", exist_ok=True)
os.makedirs(d + "/b", exist_ok=True)
sh("mount", "-t", "tmpfs", "ready", d)
os.makedirs(d + "/a", exist_ok=True)
os.makedirs(d + "/b", exist_ok=True)
w = Watch(d, "--source", src, "-p", d)
expect(w.initial[0].split(" ")[:3] == ["attach", "%#x" % mount_id(d), d],
       "first line %r" % w.initial[0])
# each step waits for its lines: steps made faster than a diff runs may
# merge (a remount then a move is one move with changed=attr,mnt_point)
sh("mount", "-t", "tmpfs", "-o", "size=1m", "srcA", d + "/a")
a = mount_id(d + "/a")
got = w.lines(1)
os.makedirs(d + "/a/c")
sh("mount", "-t", "ramfs", "srcC", d + "/a/c")
c = mount_id(d + "/a/c")
got += w.lines(1)
sh("mount", "-o", "remount,bind,ro", d + "/a")
got += w.lines(1)
sh("mount", "--move", d + "/a", d + "/b")
got += w.lines(2)
sh("umount", "-l", d + "/b")
got += w.lines(1)
got = bare(w.initial + got)[1:]
want = [
    "attach %#x %s/a tmpfs srcA rw,relatime private" % (a, d),
    "attach %#x %s/a/c ramfs srcC rw,relatime private" % (c, d),
    "change %#x %s/a tmpfs srcA ro,relatime private changed=attr" % (a, d),
    "move %#x %s/b tmpfs srcA ro,relatime private changed=mnt_point"
    " from=%s/a" % (a, d, d),
    "move %#x %s/b/c ramfs srcC rw,relatime private changed=mnt_point"
    " from=%s/a/c" % (c, d, d),
]
expect(got[:5] == want, "got %r, want %r" % (got[:5], want))
det = sorted(got[5:] + bare(w.lines(1)))
expect(det == sorted(["detach %#x %s/b tmpfs srcA ro,relatime private" % (a, d),
                      "detach %#x %s/b/c ramfs srcC rw,relatime private" % (c, d)]),
       "detach lines %r" % det)
w.quiet()
w.stop()
PY
}

c_events_poll() {
	events_case poll
}

c_events_fanotify() {
	if ! "$MNTWATCH" --source fanotify --timeout 0 -p /x 2>"$ERR"; then
		skip events_fanotify "$(cat "$ERR")"
		return
	fi
	events_case fanotify
}

# Each step waits for its line, so that the order is the kernel's: events
# a diff discovers together come in ID order, not in the order they
# happened. The remount (a change -e leaves out) has no line to wait for.
c_filters_json() {
	py_case filters_json <<'PY'
from mwcli import *
T = os.environ["T"]
d = T + "/f"
os.makedirs(d, exist_ok=True)
sh("mount", "-t", "tmpfs", "ready", d)
for s in ("t1", "r1", "t2", "out"):
    os.makedirs(d + "/" + s)
w = Watch(d, "--json", "-t", "tmpfs", "-e", "attach,detach", "-p", d)
first = json.loads(w.initial[0])
expect(first["event"] == "attach" and first["mnt_point"] == d, "first %r" % first)
got = []
sh("mount", "-t", "tmpfs", "x", d + "/t1")
got += [json.loads(l) for l in w.lines(1)]
sh("mount", "-t", "ramfs", "x", d + "/r1")          # -t filters it out
sh("mount", "-o", "remount,bind,ro", d + "/t1")     # -e filters it out
sh("mount", "-t", "tmpfs", "x", d + "/t2")
got += [json.loads(l) for l in w.lines(1)]
sh("umount", d + "/t1")
got += [json.loads(l) for l in w.lines(1)]
w.quiet()
w.stop()
expect([(o["event"], o["mnt_point"], o["fs_type"]) for o in got] ==
       [("attach", d + "/t1", "tmpfs"), ("attach", d + "/t2", "tmpfs"),
        ("detach", d + "/t1", "tmpfs")], "got %r" % got)
expect("changed" not in got[0], "attach has no changed")
PY
}

# a detach carries the last record the watch saw: here the change (a
# read-only remount) is waited for before the umount
c_detach_last_record() {
	py_case detach_last_record <<'PY'
from mwcli import *
T = os.environ["T"]
d = T + "/dl"
os.makedirs(d, exist_ok=True)
sh("mount", "-t", "tmpfs", "ready", d)
os.makedirs(d + "/t")
w = Watch(d, "--json", "-p", d)
sh("mount", "-t", "tmpfs", "x", d + "/t")
a = json.loads(w.lines(1)[0])
sh("mount", "-o", "remount,bind,ro", d + "/t")
c = json.loads(w.lines(1)[0])
sh("umount", d + "/t")
g = json.loads(w.lines(1)[0])
w.stop()
expect(a["event"] == "attach" and a["mnt_attr_str"].startswith("rw"), "attach %r" % a)
expect(c["event"] == "change" and c["mnt_attr_str"].startswith("ro"), "change %r" % c)
expect(g["event"] == "detach" and g["mnt_attr_str"].startswith("ro") and
       g["mnt_id"] == a["mnt_id"], "detach carries the last record: %r" % g)
PY
}

c_change_json() {
	py_case change_json <<'PY'
from mwcli import *
T = os.environ["T"]
d = T + "/c"
os.makedirs(d, exist_ok=True)
sh("mount", "-t", "tmpfs", "-o", "size=1m", "ready", d)
w = Watch(d, "--json", "-p", d, "-e", "attach,change")
sh("mount", "-o", "remount,size=2m", d)
o = json.loads(w.lines(1)[0])
w.stop()
expect(o["event"] == "change" and o["changed"] == ["options"], "got %r" % o)
expect("size=2048k" in o["mnt_opts"] and "size=1024k" in o["before"]["mnt_opts"],
       "options %r / %r" % (o["mnt_opts"], o["before"]["mnt_opts"]))
expect(o["mnt_id"] == mount_id(d) and o["before"]["mnt_id"] == o["mnt_id"], "ids")
PY
}

c_ns_other() {
	mkdir -p "$T/o"
	start_other_ns mntwatch-other
	py_case ns_other <<'PY'
from mwcli import *
T, pid = os.environ["T"], os.environ["OTHER_PID"]
w = Watch(T + "/o", "--ns", "pid:" + pid, "-p", T + "/o")
expect(w.initial[0].split(" ")[2] == T + "/o", "first %r" % w.initial[0])
os.makedirs(T + "/o2", exist_ok=True)
sh("mount", "-t", "tmpfs", "mine", T + "/o2")       # ours: not reported
sh("nsenter", "-t", pid, "-m", "mkdir", "-p", T + "/o/in")
sh("nsenter", "-t", pid, "-m", "mount", "-t", "tmpfs", "theirs", T + "/o/in")
l = w.lines(1)
w.stop()
expect(len(l) == 1 and l[0].split(" ")[0] == "attach" and
       l[0].split(" ")[2] == T + "/o/in" and l[0].split(" ")[4] == "theirs",
       "got %r" % l)
PY
	stop_bg "$OTHER_PID"
}

# --all-namespaces: a mount in another namespace and one in ours, each
# named by its namespace (JSON mnt_ns, ns_pid; text: the first two
# fields); a namespace made later is added, and gone when its process is
c_all_namespaces() {
	mkdir -p "$T/o" "$T/an"
	start_other_ns mntwatch-allns
	py_case all_namespaces <<'PY'
from mwcli import *
import fcntl, struct
T, pid = os.environ["T"], int(os.environ["OTHER_PID"])

def ns_id(p):
    with open("/proc/%d/ns/mnt" % p) as f:
        return struct.unpack("Q", fcntl.ioctl(f.fileno(), 0x8008b705,
                                              b"\0" * 8))[0]

other, own = ns_id(pid), ns_id(os.getpid())
p = subprocess.run([EXE, "--all-namespaces", "-c", "1"], capture_output=True,
                   text=True, timeout=20)
f = p.stdout.split()
expect(p.returncode == 0 and len(f) >= 3 and f[2] == "ns-add" and
       int(f[0]) > 0 and int(f[1]) > 0, "text: %r %r" % (p.stdout, p.stderr))
w = subprocess.Popen([EXE, "--all-namespaces", "--json", "-e",
                      "attach,ns-add,ns-gone", "-p", T + "/an"],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
got, buf = [], [b""]
def read_until(cond, what, t=10):
    end = time.time() + t
    while time.time() < end:
        while b"\n" in buf[0]:
            l, _, buf[0] = buf[0].partition(b"\n")
            got.append(json.loads(l))
            if cond(got[-1]):
                return got[-1]
        r, _, _ = select.select([w.stdout], [], [], 0.2)
        if r:
            chunk = os.read(w.stdout.fileno(), 65536)
            if not chunk:
                break
            buf[0] += chunk
    expect(False, "no %s: %r" % (what, got[-5:]))
read_until(lambda o: o["event"] == "ns-add" and o["mnt_ns"] == other and
           o["ns_pid"] == pid, "ns-add of the other namespace")
sh("nsenter", "-t", str(pid), "-m", "mkdir", "-p", T + "/an/x")
sh("nsenter", "-t", str(pid), "-m", "mount", "-t", "tmpfs", "theirs",
   T + "/an/x")
o = read_until(lambda o: o["event"] == "attach", "attach of theirs")
expect(o["mnt_point"] == T + "/an/x" and o["mnt_ns"] == other and
       o["ns_pid"] == pid and o["sb_source"] == "theirs", "theirs: %r" % o)
os.makedirs(T + "/an/y", exist_ok=True)
sh("mount", "-t", "tmpfs", "mine", T + "/an/y")
o = read_until(lambda o: o["event"] == "attach", "attach of mine")
expect(o["mnt_point"] == T + "/an/y" and o["mnt_ns"] == own and
       o["sb_source"] == "mine", "mine: %r" % o)
sh("umount", T + "/an/y")
n = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sleep",
                      "60"])
o = read_until(lambda o: o["event"] == "ns-add" and o["ns_pid"] == n.pid,
               "ns-add of a new namespace")
new = o["mnt_ns"]
expect(new not in (own, other), "new namespace %r" % o)
n.kill()
n.wait()
read_until(lambda o: o["event"] == "ns-gone" and o["mnt_ns"] == new,
           "ns-gone of the new namespace")
w.send_signal(signal.SIGTERM)
expect(w.wait(5) == 0, "exit status")
PY
	stop_bg "$OTHER_PID"
}

ns_cases="c_events_poll c_events_fanotify c_filters_json c_detach_last_record
	c_change_json
	c_ns_other c_all_namespaces"

# ---- main ----

cli_main setup_ns "could not mount the test tmpfs" "${2:-}"
