#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/cli/layers.sh - the library's files depend on each other one way
# (lib/README): the file-level graph, derived from the built objects of
# libmntkit.so.0 (lib/libmntkit.so.0*.p/*.o; by nm, a file depends on the
# file that defines a symbol it leaves undefined), has no cycle. A cycle fails, named file by file with
# a symbol of each step (e.g. "query.c -> table.c (mntkit__table_build)
# -> query.c (mntkit__stat_into)").
#
# MNTKIT_LAYERS_GRAPH=1 prints the graph on stderr (one "A -> B: symbols"
# line per edge), for whoever moves code between the files.
#
# Usage: bash tests/cli/layers.sh ABS_BUILDDIR

. "$(dirname "$0")/lib.sh"
cli_init "$1"

objdir=$(ls -d "$BUILDDIR"/lib/libmntkit.so.0*.p 2>/dev/null | head -n 1)
if [ -z "$objdir" ] || ! ls "$objdir"/*.o >/dev/null 2>&1; then
	fail lib_files_acyclic "no objects in $BUILDDIR/lib/libmntkit.so.0*.p (build the library first)"
	cli_done
fi
if ! have_cmd nm || ! have_cmd python3; then
	skip lib_files_acyclic "nm (binutils) or python3 is not installed"
	cli_done
fi

# "FILE KIND SYMBOL" lines: KIND D (defined, global) or U (undefined)
for o in "$objdir"/*.o; do
	f=${o##*/}
	f=${f%.o}
	# an object left from a file since renamed or removed is no file
	[ -f "$SRCDIR/lib/$f" ] || continue
	nm -g "$o" | awk -v f="$f" '
		$1 == "U" { print f, "U", $2; next }
		NF == 3 && $2 ~ /^[A-Z]$/ { print f, "D", $3 }'
done >"$CLI_TMP/syms" 2>"$CLI_TMP/nm.err"
if [ -s "$CLI_TMP/nm.err" ]; then
	fail lib_files_acyclic "nm: $(head -n 1 "$CLI_TMP/nm.err")"
	cli_done
fi

SYMS=$CLI_TMP/syms GRAPH=$CLI_TMP/graph py_case lib_files_acyclic <<'EOF'
import os, sys

defs, undefs = {}, {}
files = set()
for line in open(os.environ["SYMS"]):
    f, kind, sym = line.split()
    files.add(f)
    if kind == "D":
        defs[sym] = f
    else:
        undefs.setdefault(f, set()).add(sym)

edges = {f: {} for f in files}     # a -> {b: [symbols]}
for a, syms in undefs.items():
    for s in sorted(syms):
        b = defs.get(s)
        if b and b != a:
            edges[a].setdefault(b, []).append(s)

with open(os.environ["GRAPH"], "w") as g:
    for a in sorted(edges):
        for b in sorted(edges[a]):
            g.write("%s -> %s: %s\n" % (a, b, " ".join(edges[a][b])))

# Tarjan's strongly connected components
index, low, onstack, stack, sccs = {}, {}, set(), [], []
sys.setrecursionlimit(10000)

def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    onstack.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in onstack:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            onstack.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(sorted(comp))

for v in sorted(files):
    if v not in index:
        visit(v)

def cycle_in(comp):
    # the shortest cycle through the component's first file (BFS)
    start, members = comp[0], set(comp)
    prev, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges[v]):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                path.reverse()
                return path + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return comp

def name(f):
    return f.split(".c")[0] + ".c" if ".c" in f else f

if not sccs:
    sys.exit(0)
msgs = []
for comp in sccs:
    cyc = cycle_in(comp)
    s = name(cyc[0])
    for a, b in zip(cyc, cyc[1:]):
        s += " -> %s (%s)" % (name(b), edges[a][b][0])
    rest = sorted(set(comp) - set(cyc))
    if rest:
        s += " (and through %s)" % " ".join(name(f) for f in rest)
    msgs.append(s)
print("%d cycle(s) between lib/ files: %s" % (len(sccs), "; ".join(msgs)))
sys.exit(1)
EOF
[ "${MNTKIT_LAYERS_GRAPH:-}" = 1 ] && [ -f "$CLI_TMP/graph" ] &&
	sed 's/^/layers: /' "$CLI_TMP/graph" >&2
cli_done
