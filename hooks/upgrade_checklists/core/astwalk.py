"""``ast.walk`` without its nested generators: the same nodes in the same order
(breadth first), about three times faster. The scanners walk every node of every
file they parse, so this is on the check's cold path.

:func:`statements` walks only the blocks (statements, ``except`` handlers, ``case``
clauses): a statement never sits inside an expression, so it yields exactly the
statements ``ast.walk`` would, in the same relative order (breadth first keeps the
order of a parent-closed subset of nodes), without visiting the expressions.
:func:`imports` is that walk's import statements, computed once per tree. :func:`stored_on` is
what a method stores on its ``self``, for upstream's classes and the project's alike; :func:`import_map`,
what a module's own imports bind (upstream's modules, read by the audit's readers of source)."""

from __future__ import annotations

import ast
from collections import deque
from typing import Iterator

_AST = ast.AST


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node below ``node`` (itself first), in ``ast.walk``'s order."""
    todo = deque([node])
    pop, push = todo.popleft, todo.append
    while todo:
        node = pop()
        for name in node._fields:
            v = getattr(node, name, None)
            if type(v) is list:
                for x in v:
                    if isinstance(x, _AST):
                        push(x)
            elif isinstance(v, _AST):
                push(v)
        yield node


BLOCKS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


def statements(node: ast.AST) -> Iterator[ast.AST]:
    """``node`` first, then every statement, ``except`` handler and ``case`` clause below it,
    in ``ast.walk``'s order (the other nodes ``ast.walk`` yields are left out)."""
    todo = deque([node])
    pop, push = todo.popleft, todo.append
    while todo:
        node = pop()
        for name in node._fields:
            if name in BLOCKS:
                v = getattr(node, name, None)
                if type(v) is list:
                    for x in v:
                        if isinstance(x, _AST):
                            push(x)
        yield node


_IMPORTS = "_upgrade_checklists_imports"


def imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """The ``import`` and ``from ... import`` statements below ``tree``, in ``ast.walk``'s
    order; computed once and kept on the tree (the trees are never modified)."""
    found = tree.__dict__.get(_IMPORTS)
    if found is None:
        found = [n for n in statements(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
        tree.__dict__[_IMPORTS] = found
    return found


def module_level(body: list[ast.stmt]):
    """Statements that run at module level (inside top-level ``if``/``try``, not in functions)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from module_level(stmt.body)
            yield from module_level(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            for part in (stmt.body, *(h.body for h in stmt.handlers), stmt.orelse, stmt.finalbody):
                yield from module_level(part)


_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def own_nodes(node: ast.AST):
    """``node`` and what is below it, not entering nested functions, classes or lambdas (depth first)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, _NESTED):
                stack.append(child)


def _callee(func: ast.AST) -> str:
    func = func.func if isinstance(func, ast.Call) else func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def stored_on(fn: ast.AST, me: str, nested: bool = False, setattrs: bool = True) -> dict[str, int]:
    """The attributes function ``fn`` sets on the name ``me`` (its ``self``): ``me.x`` stored (``me.x = ...``,
    ``me.x: T = ...``, ``me.x += ...``, a ``for`` or ``with`` target) and, with ``setattrs``, ``setattr(me, "x",
    ...)`` / ``object.__setattr__(me, "x", ...)``: attr -> the line of the first one met (:func:`own_nodes`'
    order). ``nested``: in the functions, classes and lambdas ``fn`` holds too (a closure's ``me``). One walk
    for both sides: upstream's constructors (``audit/selfreads.py``) and the project's classes (``uses.py``)."""
    out: dict[str, int] = {}
    for n in walk(fn) if nested else own_nodes(fn):
        if (isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name)
                and n.value.id == me):
            out.setdefault(n.attr, n.lineno)
        elif setattrs and isinstance(n, ast.Call):
            args = n.args
            if _callee(n.func) in ("setattr", "__setattr__") and len(args) >= 2:
                if (isinstance(args[0], ast.Name) and args[0].id == me and isinstance(args[1], ast.Constant)
                        and isinstance(args[1].value, str)):
                    out.setdefault(args[1].value, n.lineno)
    return out


def star_base(node: ast.ImportFrom, package: str) -> str:
    """The module an ``ImportFrom`` (maybe relative to ``package``: the module's own name when it is a
    package's ``__init__``, else its parent's) names."""
    if not node.level:
        return node.module or ""
    parts = package.split(".") if package else []
    keep = len(parts) - node.level + 1
    return ".".join(parts[:max(keep, 0)] + ([node.module] if node.module else []))


def import_map(tree: ast.Module, package: str) -> dict[str, str]:
    """Local name (or dotted local path) -> the module path a module-level import binds it to
    (``package`` as for :func:`star_base`)."""
    out: dict[str, str] = {}
    for node in module_level(tree.body):
        if isinstance(node, ast.ImportFrom):
            base = star_base(node, package)
            for a in node.names:
                if a.name != "*":
                    out[a.asname or a.name] = f"{base}.{a.name}" if base else a.name
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    out[a.asname] = a.name
                else:
                    parts = a.name.split(".")
                    for i in range(1, len(parts) + 1):
                        out[".".join(parts[:i])] = ".".join(parts[:i])
    return out
