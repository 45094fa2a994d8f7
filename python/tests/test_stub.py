# SPDX-License-Identifier: LGPL-2.1-or-later
"""mntkit.pyi says what the module has: the same names, the same
attributes of every type, the same parameters."""
import ast
import inspect
import os

import mntkit

STUB = os.path.join(os.path.dirname(__file__), "..", "mntkit.pyi")


def stub():
    with open(STUB) as f:
        return ast.parse(f.read())


def public(names):
    return {n for n in names if not n.startswith("_")}


def test_module_names():
    tree = stub()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
    assert public(names) | {"__version__"} == public(dir(mntkit)) | \
        {"__version__"}


def test_class_members():
    for node in stub().body:
        if not isinstance(node, ast.ClassDef) or node.name.startswith("_"):
            continue
        cls = getattr(mntkit, node.name)
        members = {n.name for n in node.body if isinstance(
            n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        members |= {n.target.id for n in node.body
                    if isinstance(n, ast.AnnAssign)}
        want = public(dir(cls)) - public(dir(OSError) if node.name ==
                                         "Error" else dir(object))
        assert public(members) >= want, (node.name,
                                         want - public(members))
        if node.name != "Error":  # its reason is an instance's
            assert public(members) <= public(dir(cls)), node.name


def test_signatures():
    funcs = {n.name: n for n in stub().body if isinstance(n, ast.FunctionDef)}
    for name, node in funcs.items():
        sig = inspect.signature(getattr(mntkit, name))
        want = [a.arg for a in node.args.args + node.args.kwonlyargs]
        assert list(sig.parameters) == want, name


def test_docstrings():
    for name in public(dir(mntkit)):
        obj = getattr(mntkit, name)
        if callable(obj):
            assert obj.__doc__ and len(obj.__doc__) > 20, name
    for attr in public(dir(mntkit.Mount)):
        assert getattr(mntkit.Mount, attr).__doc__, attr
