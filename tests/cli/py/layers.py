# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python cases of tests/cli/layers.sh."""

import os
import re
import sys

from mntkit_test import case, main

LAYER = re.compile(r"^ ?(\d+)\. (\S.*)$")
MODULE = re.compile(r"^ {4}module ([A-Za-z0-9_-]+)(\s|$)")
FILE = re.compile(r"^( {4}| {6})([A-Za-z0-9_+.-]+\.[ch])(\s|$)")


def parse_readme(text):
    """(layer of each module, module of each file, files in order, errors)"""
    layer_of, module_of, files, errors = {}, {}, [], []
    layer, module, started = 0, None, False
    for no, line in enumerate(text.split("\n"), 1):
        m = LAYER.match(line)
        if m:
            started = True
            if int(m.group(1)) != layer + 1:
                errors.append("line %d: layer %s after layer %d"
                              % (no, m.group(1), layer))
            layer, module = int(m.group(1)), None
            continue
        if not started or not line.strip():
            continue
        if not line[0].isspace():
            break  # the end of the layers
        indent = len(line) - len(line.lstrip(" "))
        if indent not in (4, 6):
            continue  # a description, continued
        m = MODULE.match(line)
        f = FILE.match(line)
        if m:
            module = m.group(1)
            if module in layer_of:
                errors.append("line %d: module %s twice" % (no, module))
            layer_of[module] = layer
            continue
        if not f:
            errors.append("line %d: neither a file nor a module: %r"
                          % (no, line.strip()))
            continue
        name = f.group(2)
        if indent == 6 and module is None:
            errors.append("line %d: %s in no module" % (no, name))
            continue
        if indent == 4:
            module = None
            layer_of[name] = layer
        if name in module_of:
            errors.append("line %d: %s twice" % (no, name))
        module_of[name] = module or name
        files.append(name)
    if not started:
        errors.append("no layers (lines \" N. Title\")")
    empty = set(layer_of) - set(module_of.values())
    for mod in sorted(empty):
        errors.append("module %s has no files" % mod)
    return layer_of, module_of, files, errors


def check_files(text, module_of, files, lib_files):
    """lib/README and lib/ hold the same files"""
    errs = []
    words = set(re.findall(r"[A-Za-z0-9_+.-]+\.h\b", text))
    for f in sorted(lib_files):
        if f.endswith(".c") and f not in module_of:
            errs.append("lib/%s is not in lib/README's layers" % f)
        if f.endswith(".h") and f not in words:
            errs.append("lib/%s is named nowhere in lib/README" % f)
    for f in files:
        if f not in lib_files:
            errs.append("lib/README names %s, which is not in lib/" % f)
    return errs


def file_edges(syms):
    """{a: {b: [symbols]}}: file a calls file b"""
    defs, undefs = {}, {}
    for f, kind, sym in syms:
        if kind == "D":
            defs[sym] = f
        else:
            undefs.setdefault(f, set()).add(sym)
    edges = {}
    for a, ss in undefs.items():
        for s in sorted(ss):
            b = defs.get(s)
            if b and b != a:
                edges.setdefault(a, {}).setdefault(b, []).append(s)
    return edges


def module_edges(edges, module_of):
    """{A: {B: [(a, b, symbol)]}} between modules, first symbols first"""
    medges = {}
    for a in sorted(edges):
        for b in sorted(edges[a]):
            ma, mb = module_of.get(a), module_of.get(b)
            if ma is None or mb is None or ma == mb:
                continue
            for s in edges[a][b]:
                medges.setdefault(ma, {}).setdefault(mb, []).append((a, b, s))
    return medges


def check_up(edges, layer_of, module_of):
    errs = []
    for a in sorted(edges):
        if a not in module_of:
            continue
        la = layer_of[module_of[a]]
        for b in sorted(edges[a]):
            mb = module_of.get(b)
            if mb is not None and layer_of[mb] > la:
                errs.append("%s (layer %d) calls %s (layer %d): %s -> %s (%s)"
                            % (a, la, mb, layer_of[mb], a, b, edges[a][b][0]))
    return errs


def sccs_of(nodes, medges):
    """Tarjan's strongly connected components of more than one module"""
    index, low, onstack, stack, out = {}, {}, set(), [], []
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        onstack.add(v)
        for w in sorted(medges.get(v, {})):
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
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def cycle_in(comp, medges):
    """the shortest cycle through the component's first module (BFS)"""
    start, members = comp[0], set(comp)
    prev, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(medges.get(v, {})):
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


def step(ma, mb, via):
    """" -> B (a.c -> b.c: symbol)", the files left out where they are the
    modules"""
    a, b, s = via
    if a == ma and b == mb:
        return " -> %s (%s)" % (mb, s)
    return " -> %s (%s -> %s: %s)" % (mb, a, b, s)


def check_cycles(edges, module_of):
    medges = module_edges(edges, module_of)
    errs = []
    for comp in sccs_of(set(module_of.values()), medges):
        cyc = cycle_in(comp, medges)
        s = cyc[0]
        for ma, mb in zip(cyc, cyc[1:]):
            s += step(ma, mb, medges[ma][mb][0])
        rest = sorted(set(comp) - set(cyc))
        if rest:
            s += " (and through %s)" % " ".join(rest)
        errs.append(s)
    if errs:
        return ["%d cycle(s) between lib/ modules: %s"
                % (len(errs), "; ".join(errs))]
    return []


def run(check, text, syms, lib_files):
    layer_of, module_of, files, errors = parse_readme(text)
    if check == "files":
        return errors + check_files(text, module_of, files, lib_files)
    if errors:
        return ["lib/README: " + errors[0]]
    edges = file_edges(syms)
    if check == "up":
        return check_up(edges, layer_of, module_of)
    return check_cycles(edges, module_of)


def self_test():
    """the faults of a made-up lib/README, found"""
    text = "\n".join([
        "intro", "", " 1. Low", "    a.c   low", "    x.h   a header",
        " 2. High", "    module m   two files", "      m1.c  one",
        "      m2.c  two", "    b.c   high", "", "After: m.h"])
    syms = [("a.c", "U", "sb"), ("b.c", "D", "sb"), ("b.c", "D", "sb2"),
            ("m1.c", "D", "sm1"), ("m1.c", "U", "sm2"), ("m2.c", "D", "sm2"),
            ("m2.c", "U", "sm1"), ("b.c", "U", "sm1"), ("m1.c", "U", "sb2")]
    lib = {"a.c", "b.c", "m1.c", "c.c", "m.h", "y.h", "x.h"}
    want = {
        "files": ["lib/c.c is not in lib/README's layers",
                  "lib/y.h is named nowhere in lib/README",
                  "lib/README names m2.c, which is not in lib/"],
        "up": ["a.c (layer 1) calls b.c (layer 2): a.c -> b.c (sb)"],
        "cycles": ["1 cycle(s) between lib/ modules: b.c -> m (b.c -> m1.c:"
                   " sm1) -> b.c (m1.c -> b.c: sb2)"],
    }
    for check, w in sorted(want.items()):
        got = run(check, text, syms, lib)
        if got != w:
            print("%s: %r, not %r" % (check, got, w))
            sys.exit(1)
    bad = text.replace("    module m", "    modul m")
    if not run("up", bad, syms, lib)[0].startswith("lib/README: line 7:"):
        print("a line that is neither a file nor a module passes")
        sys.exit(1)


def _check(check):
    text = open(os.environ["README"]).read()
    syms = [tuple(l.split()) for l in open(os.environ["SYMS"])]
    lib_files = set(os.listdir(os.environ["LIBDIR"]))
    errs = run(check, text, syms, lib_files)
    if check == "cycles" and os.environ.get("GRAPH"):
        _, module_of, _, _ = parse_readme(text)
        medges = module_edges(file_edges(syms), module_of)
        with open(os.environ["GRAPH"], "w") as g:
            for ma in sorted(medges):
                for mb in sorted(medges[ma]):
                    pairs = {}
                    for a, b, s in medges[ma][mb]:
                        pairs.setdefault((a, b), []).append(s)
                    for (a, b), ss in sorted(pairs.items()):
                        g.write("%s -> %s: %s -> %s: %s\n"
                                % (ma, mb, a, b, " ".join(ss)))
    if errs:
        print("; ".join(errs))
        sys.exit(1)


@case
def lib_layers_check():
    self_test()


@case
def lib_readme_files():
    _check("files")


@case
def lib_layers_one_way():
    _check("up")


@case
def lib_modules_acyclic():
    _check("cycles")


main()
