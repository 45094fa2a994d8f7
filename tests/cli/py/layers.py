# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python cases of tests/cli/layers.sh."""

import os
import sys

from mntkit_test import case, main

@case
def lib_files_acyclic():
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


if __name__ == "__main__":
    main()
