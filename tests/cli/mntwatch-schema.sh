#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/mntwatch-schema.sh ABS_BUILDDIR - mntwatch --json's lines
# against share/mntwatch-event.schema.json (JSON Schema 2020-12), and the
# meaning of their identity: version 1, seq strictly increasing, clocks
# near the test's own and not going back, a resync's range holding the
# events that replace what was lost.
#
# Every event kind is made in a private mount namespace (this script runs
# itself there with --in-ns): attach, change, move, detach on each source,
# and a resync forced by overflowing the fanotify queue of a stopped
# mntwatch (as tests/test-watch.c's overflow_resync does).
#
# The validator is Debian's python3-jsonschema (4.10 or later has draft
# 2020-12; the Makefile's DEB_PKGS installs it): without it the cases
# SKIP. Every key a line has must also be declared in the schema.

# cli_main (lib.sh) calls the cases through $plain_cases and $ns_cases:
# shellcheck disable=SC2317
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
cli_init "$1"

MNTWATCH=$BUILDDIR/tools/mntwatch
CLI_PROG=mntwatch
SCHEMA=$SRCDIR/share/mntwatch-event.schema.json
export MNTWATCH SCHEMA

# the Python that has jsonschema with draft 2020-12: Debian's first
SCHEMA_PY=
for py in /usr/bin/python3 python3; do
	if "$py" -c 'import jsonschema; jsonschema.Draft202012Validator' \
		2>/dev/null; then
		SCHEMA_PY=$(command -v "$py")
		break
	fi
done
export SCHEMA_PY

# validate.py: JSON lines on stdin, each checked against the schema (and
# every key declared in it); prints "ok N" or the first problem, exit 1
mkdir -p "$CLI_TMP/py"
cat >"$CLI_TMP/py/validate.py" <<'PY'
import json, sys
import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
top = set(schema["properties"])
rec = set(schema["$defs"]["record"]["properties"])
n = 0
for i, line in enumerate(sys.stdin):
    o = json.loads(line)
    errs = sorted(v.iter_errors(o), key=lambda e: list(e.path))
    if errs:
        print("line %d: %s: %s" % (i + 1, errs[0].message, line.strip()[:300]))
        sys.exit(1)
    undeclared = set(o) - top - rec
    undeclared |= set(o.get("before", {})) - rec
    if undeclared:
        print("line %d: keys not in the schema: %s" % (i + 1, sorted(undeclared)))
        sys.exit(1)
    n += 1
print("ok %d" % n)
PY

cat >"$CLI_TMP/py/schemacli.py" <<'PY'
import calendar, ctypes, json, os, re, select, signal, subprocess, time
from mntcli import *

EXE = os.environ["MNTWATCH"]
SCHEMA = os.environ["SCHEMA"]
SCHEMA_PY = os.environ.get("SCHEMA_PY", "")
VALIDATE = os.path.join(os.path.dirname(__file__), "validate.py")
libc = ctypes.CDLL(None, use_errno=True)


def need_validator():
    if not SCHEMA_PY:
        skip("python3-jsonschema (draft 2020-12) is not installed: "
             "apt-get install python3-jsonschema")


def run_validator(lines):
    return subprocess.run([SCHEMA_PY, VALIDATE, SCHEMA],
                          input="".join(l + "\n" for l in lines),
                          capture_output=True, text=True)


def validate(lines):
    """every line valid against the schema (in the validator's Python)"""
    p = run_validator(lines)
    expect(p.returncode == 0 and p.stdout.strip() == "ok %d" % len(lines),
           "schema: %s %s" % (p.stdout.strip(), p.stderr.strip()[-300:]))


def rfc3339(ns):
    t = time.gmtime(ns // 10**9)
    return time.strftime("%Y-%m-%dT%H:%M:%S", t) + ".%09dZ" % (ns % 10**9)


def check_identity(objs, rt0, rt1, mono0, mono1):
    """version 1, seq strictly increasing, clocks between the test's
    readings around the run and not going back, time = realtime_ns, and
    a resync's range after its own seq"""
    last_seq, last_mono = 0, 0
    for o in objs:
        expect(o["version"] == 1, "version %r" % o["version"])
        expect(o["seq"] > last_seq, "seq %d after %d" % (o["seq"], last_seq))
        expect(rt0 <= o["realtime_ns"] <= rt1,
               "realtime_ns %d not within the run (%d .. %d)" %
               (o["realtime_ns"], rt0, rt1))
        expect(mono0 <= o["monotonic_ns"] <= mono1,
               "monotonic_ns %d not within the run (%d .. %d)" %
               (o["monotonic_ns"], mono0, mono1))
        expect(o["monotonic_ns"] >= last_mono, "monotonic_ns went back: %r" % o)
        expect(o["time"] == rfc3339(o["realtime_ns"]),
               "time %r is not realtime_ns %d" % (o["time"], o["realtime_ns"]))
        if o["event"] == "resync":
            expect(o["resync_end"] >= o["seq"], "resync range %r" % o)
        last_seq, last_mono = o["seq"], o["monotonic_ns"]


class Watch:
    """mntwatch --initial ARGS, ready once its first line (the attach of
    the mount its -p names) is read"""

    def __init__(self, *args):
        self.p = subprocess.Popen([EXE, "--initial"] + list(args),
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.buf = b""
        first = self.line(5)
        if first is None:
            expect(False, "mntwatch printed nothing: %s" % self.err())
        self.got = [first]

    def line(self, timeout):
        end = time.time() + timeout
        while b"\n" not in self.buf:
            left = end - time.time()
            if left <= 0:
                return None
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if not r:
                return None
            chunk = os.read(self.p.stdout.fileno(), 1 << 20)
            if not chunk:
                return None
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return line.decode("utf-8", "surrogateescape")

    def more(self, n, timeout=5):
        for _ in range(n):
            l = self.line(timeout)
            expect(l is not None, "waited for a line; so far %r" % self.got[-3:])
            self.got.append(l)
        return self.got[-n:]

    def until(self, pred, timeout=20):
        end = time.time() + timeout
        while time.time() < end:
            l = self.line(end - time.time())
            if l is None:
                break
            self.got.append(l)
            if pred(l):
                return
        expect(False, "the line waited for never came; last %r" % self.got[-3:])

    def err(self):
        if self.p.poll() is None:
            self.p.kill()
        return self.p.stderr.read().decode(errors="replace").strip()

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        rc = self.p.wait(5)
        expect(rc == 0, "mntwatch exit %d after SIGTERM: %s" % (rc, self.err()))


def sh(*cmd):
    subprocess.run(cmd, check=True)


def sys_mount(src, target, fstype):
    if libc.mount(src.encode(), target.encode(), fstype.encode(), 0, None):
        e = ctypes.get_errno()
        raise OSError(e, "mount %s: %s" % (target, os.strerror(e)))


def sys_umount(target):
    if libc.umount2(target.encode(), 0):
        e = ctypes.get_errno()
        raise OSError(e, "umount %s: %s" % (target, os.strerror(e)))
PY

# ---- cases that need no mounts ----

# the schema is a valid 2020-12 schema, and the validator does reject:
# without that a pass proves nothing
c_schema_rejects() {
	py_case schema_rejects <<'PY'
from schemacli import *
need_validator()
good = {"version": 1, "event": "resync", "seq": 3, "resync_end": 5,
        "time": "2026-12-04T20:25:01.123456789Z",
        "realtime_ns": 1796415901123456789, "monotonic_ns": 5}
validate([json.dumps(good)])
bad = [dict(good, version=2), dict(good, seq=0), dict(good, time="now"),
       {k: v for k, v in good.items() if k != "resync_end"},
       dict(good, event="attach"),            # no record
       dict(good, mnt_id=5),                  # a resync has none
       dict(good, ns_pid="1"),
       dict(good, event="ns-add"),            # no mnt_ns
       {k: v for k, v in dict(good, event="ns-gone", mnt_ns=7, mnt_id=5).items()
        if k != "resync_end"}]                # a namespace event has no mount
for b in bad:
    p = run_validator([json.dumps(b)])
    expect(p.returncode == 1 and p.stdout.startswith("line 1: "),
           "accepted: %r: %d %s %s" % (b, p.returncode, p.stdout, p.stderr[-200:]))
PY
}

# the host's table as --initial shows it (nothing mounted)
c_initial_lines() {
	py_case initial_lines <<'PY'
from schemacli import *
need_validator()
rt0, mono0 = time.time_ns(), time.monotonic_ns()
rc, out, err = tool("mntwatch", "--initial", "--json", "--timeout", "0.2")
rt1, mono1 = time.time_ns(), time.monotonic_ns()
expect(rc == 0 and err == "", "exit %d: %s" % (rc, err))
lines = out.splitlines()
expect(len(lines) > 0, "no line")
validate(lines)
objs = [json.loads(l) for l in lines]
check_identity(objs, rt0, rt1, mono0, mono1)
expect(objs[0]["seq"] == 1, "the first seq is %d" % objs[0]["seq"])
expect({o["event"] for o in objs} == {"attach"}, "initial events are attach")
PY
}

plain_cases="c_schema_rejects c_initial_lines"

# ---- cases in a private mount namespace ----

setup_ns() {
	T=$CLI_TMP/ns
	mkdir -p "$T" && mount -t tmpfs mntwatch-schema "$T" || return 1
	export T
}

have_fanotify() {
	"$MNTWATCH" --source fanotify --timeout 0 -p /x 2>"$ERR"
}

# attach, change, move (a subtree), detach, each waited for
kinds_case() {
	SRC=$1 py_case "kinds_$1" <<'PY'
from schemacli import *
need_validator()
T, src = os.environ["T"], os.environ["SRC"]
d = T + "/" + src
os.makedirs(d, exist_ok=True)
sh("mount", "-t", "tmpfs", "ready", d)
os.makedirs(d + "/a")
os.makedirs(d + "/b")
rt0, mono0 = time.time_ns(), time.monotonic_ns()
w = Watch("--json", "--source", src, "-p", d)
sh("mount", "-t", "tmpfs", "srcA", d + "/a")
w.more(1)
os.makedirs(d + "/a/c")
sh("mount", "-t", "ramfs", "srcC", d + "/a/c")
w.more(1)
sh("mount", "-o", "remount,bind,ro", d + "/a")
w.more(1)
sh("mount", "--move", d + "/a", d + "/b")
w.more(2)
sh("umount", "-l", d + "/b")
w.more(2)
w.stop()
rt1, mono1 = time.time_ns(), time.monotonic_ns()
validate(w.got)
objs = [json.loads(l) for l in w.got]
check_identity(objs, rt0, rt1, mono0, mono1)
kinds = [o["event"] for o in objs]
expect(kinds == ["attach", "attach", "attach", "change", "move", "move",
                 "detach", "detach"], "events %r" % kinds)
ch = objs[3]
expect(ch["changed"] == ["attr"] and ch["before"]["mnt_attr_str"].startswith("rw")
       and ch["mnt_attr_str"].startswith("ro"), "change %r" % ch)
mv = objs[4]
expect("mnt_point" in mv["changed"] and mv["mnt_point"] == d + "/b" and
       mv["before"]["mnt_point"] == d + "/a", "move %r" % mv)
PY
}

c_kinds_poll() {
	kinds_case poll
}

c_kinds_fanotify() {
	if ! have_fanotify; then
		skip kinds_fanotify "$(cat "$ERR")"
		return
	fi
	kinds_case fanotify
}

# A stopped mntwatch's fanotify queue overflows (mounts and unmounts
# outside its -p); then a mount at "keep" is made, which only the
# resync's diff can report. Its attach must come after the resync and
# inside the resync's range; text and JSON alike.
c_resync() {
	local max
	max=$(cat /proc/sys/fs/fanotify/max_queued_events 2>/dev/null)
	if ! have_fanotify; then
		skip resync "$(cat "$ERR")"
		return
	elif [ -z "$max" ] || [ "$max" -gt 100000 ]; then
		skip resync "fanotify queue too long to overflow (${max:-unknown})"
		return
	fi
	MAX_EVENTS=$max py_case resync <<'PY'
from schemacli import *
need_validator()
T = os.environ["T"]
d, churn = T + "/r", T + "/churn"
os.makedirs(churn, exist_ok=True)
os.makedirs(d, exist_ok=True)
sh("mount", "-t", "tmpfs", "ready", d)
os.makedirs(d + "/keep")
rt0, mono0 = time.time_ns(), time.monotonic_ns()
wj = Watch("--json", "--source", "fanotify", "-p", d)
wt = Watch("--source", "fanotify", "-p", d)
for w in (wj, wt):
    w.p.send_signal(signal.SIGSTOP)
try:
    for _ in range(int(os.environ["MAX_EVENTS"]) // 2 + 100):
        sys_mount("churn", churn, "tmpfs")
        sys_umount(churn)
    sh("mount", "-t", "tmpfs", "kept", d + "/keep")
finally:
    for w in (wj, wt):
        w.p.send_signal(signal.SIGCONT)
keep = d + "/keep"
wj.until(lambda l: json.loads(l).get("mnt_point") == keep)
wt.until(lambda l: l.split(" ")[:1] == ["attach"] and l.split(" ")[2] == keep)
wj.stop()
wt.stop()
rt1, mono1 = time.time_ns(), time.monotonic_ns()
validate(wj.got)
objs = [json.loads(l) for l in wj.got]
check_identity(objs, rt0, rt1, mono0, mono1)
kinds = [o["event"] for o in objs]
expect(kinds == ["attach", "resync", "attach"], "events %r" % kinds)
rs, at = objs[1], objs[2]
# the churn's events (left out by -p) still took their numbers
expect(rs["seq"] > int(os.environ["MAX_EVENTS"]) // 2,
       "resync seq %d: the events before it were not counted" % rs["seq"])
expect(rs["seq"] < at["seq"] <= rs["resync_end"],
       "keep's attach %d outside the resync's range %d..%d" %
       (at["seq"], rs["seq"] + 1, rs["resync_end"]))
# the text lines: the same shape of stream, resync_end at the end
m = [re.search(r" seq=([0-9]+) time=\S+ mono=[0-9]+\.[0-9]{9}"
               r"( resync_end=([0-9]+))?$", l) for l in wt.got]
expect(all(m), "text lines without their identity: %r" % wt.got)
expect([l.split(" ")[0] for l in wt.got] == ["attach", "resync", "attach"],
       "text events %r" % wt.got)
rseq, rend, aseq = int(m[1].group(1)), int(m[1].group(3)), int(m[2].group(1))
expect(m[1].group(2) and rseq < aseq <= rend,
       "text resync %r and attach %r" % (wt.got[1], wt.got[2]))
PY
}

# --all-namespaces, in a PID namespace of its own (its /proc shows only
# the test's processes): the namespace of the PID namespace's init and a
# child's namespace made during the run, with its ns-add, the attach of
# its mounts (one made in it), its ns-gone when the child exits; every
# line names its namespace
c_all_namespaces() {
	py_case all_namespaces <<'PY'
from schemacli import *
need_validator()
T = os.environ["T"]
os.makedirs(T + "/allns", exist_ok=True)
script = ('"$0" --all-namespaces --json --timeout 6 & '
          'sleep 0.5; '
          'unshare -m --propagation private sh -c '
          '\'mount -t tmpfs allns-probe "$1" && sleep 2.5\' sh "$1"; '
          'wait')
rt0, mono0 = time.time_ns(), time.monotonic_ns()
p = subprocess.run(["unshare", "-p", "-f", "--mount-proc", "sh", "-c", script,
                    EXE, T + "/allns"], capture_output=True, text=True,
                   errors="surrogateescape")
rt1, mono1 = time.time_ns(), time.monotonic_ns()
expect(p.returncode == 0 and p.stderr == "",
       "exit %d: %s" % (p.returncode, p.stderr.strip()[-300:]))
lines = p.stdout.splitlines()
validate(lines)
objs = [json.loads(l) for l in lines]
check_identity(objs, rt0, rt1, mono0, mono1)
expect(all("mnt_ns" in o for o in objs), "a line without mnt_ns")
for o in objs:
    if "mnt_ns_id" in o:
        expect(o["mnt_ns_id"] == o["mnt_ns"], "record of another namespace: %r" % o)
probe = [o for o in objs if o.get("mnt_point") == T + "/allns"]
expect(len(probe) == 1 and probe[0]["event"] == "attach",
       "the child's mount: %r" % probe)
ns = probe[0]["mnt_ns"]
kinds = [o["event"] for o in objs if o["mnt_ns"] == ns]
expect(kinds[0] == "ns-add" and kinds[-1] == "ns-gone" and
       "ns-add" not in kinds[1:] and "ns-gone" not in kinds[:-1],
       "the child's namespace: %r" % kinds)
others = {o["mnt_ns"] for o in objs if o["event"] == "ns-add"} - {ns}
expect(len(others) == 1, "the init's namespace: %r" % others)
PY
}

ns_cases="c_kinds_poll c_kinds_fanotify c_resync c_all_namespaces"

# ---- main ----

cli_main setup_ns "could not mount the test tmpfs" "${2:-}"
