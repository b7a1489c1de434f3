"""The project's version flags, read (never run): which branch of an ``if`` a flag picks.

    PYTEST_VERSION = Version(pytest.__version__)            # common.py
    PYTEST37_OR_GREATER = PYTEST_VERSION >= Version("3.7.0")
    from .common import PYTEST37_OR_GREATER                  # plugin.py
    if PYTEST37_OR_GREATER: return a, b, c
    else: return a, b

A *flag* is an ``if`` test built from comparisons of the audited package's version with a
version literal, ``not`` / ``and`` / ``or`` of such, and module-level names bound to one
(in the same file, or imported from another project module: followed a few hops). The
package's version is ``pkg.__version__`` (``pkg`` one of the audited import names),
``Version(...)`` / ``parse(...)`` / ``parse_version(...)`` / ``LooseVersion(...)`` of it,
``importlib.metadata.version("pkg")`` (a distribution spelled as an import name), or a
module-level name bound to one of those. Anything else is unknown.

A flag is kept as text, a Python expression over ``V`` (the package's version, parsed),
``S`` (its text, compared with a string as Python compares strings), string literals and
``U`` (a part not known): ``V >= '3.7.0' and not (U)``. The audit evaluates
it at a version (``audit/guards.flag_value``): this layer reads the project, the audit
judges.
"""

from __future__ import annotations

import ast

from upgrade_checklists.core.astwalk import module_level
from upgrade_checklists.project.calls import _inside, resolve

UNKNOWN = "U"
_PARSERS = {"Version", "parse", "parse_version", "LooseVersion", "StrictVersion"}
_OPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_HOPS = 3  # names followed from one module-level binding to the next


def version_text(node: ast.AST) -> str | None:
    """A version literal: ``"0.5"``, ``Version("0.5")``, ``parse("0.5")`` -> ``"0.5"`` (a string with a digit)."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and any(c.isdigit() for c in node.value):
        return node.value
    return None


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


class Flags:
    """Reads flags in the files of ``project`` (``sources``, ``names(rel)``, ``files``, ``modules``)."""

    def __init__(self, project) -> None:
        self.p = project
        self._assigned: dict[str, dict[str, ast.expr | None]] = {}

    def condition(self, rel: str, test: ast.expr, local: frozenset[str] = frozenset()) -> str | None:
        """``test`` (an ``if`` test in ``rel``) as a flag expression, or None when no part of it is known
        (or it reads a name of ``local``: the enclosing function's own, not the module's)."""
        if any(isinstance(n, ast.Name) and n.id in local for n in ast.walk(test)):
            return None
        text = self._cond(rel, test, 0)
        return None if text == UNKNOWN else text

    # -- conditions ---------------------------------------------------------------------------

    def _cond(self, rel: str, node: ast.expr, hops: int) -> str:
        if isinstance(node, ast.BoolOp):
            parts = [self._cond(rel, v, hops) for v in node.values]
            op = " and " if isinstance(node.op, ast.And) else " or "
            return op.join(f"({p})" for p in parts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = self._cond(rel, node.operand, hops)
            return UNKNOWN if inner == UNKNOWN else f"not ({inner})"
        if isinstance(node, ast.Compare):
            return self._compare(rel, node, hops)
        if isinstance(node, (ast.Name, ast.Attribute)) and hops < _HOPS:
            bound = self._binding(rel, node)
            if bound is not None:
                return self._cond(bound[0], bound[1], hops + 1)
        return UNKNOWN

    def _compare(self, rel: str, node: ast.Compare, hops: int) -> str:
        sides = [node.left, *node.comparators]
        out = []
        for (a, b), op in zip(zip(sides, sides[1:]), node.ops):
            sym = _OPS.get(type(op))
            text = None
            if sym is not None:
                left, right = self._version(rel, a, hops), self._version(rel, b, hops)
                if left and version_text(b) is not None and (left == "V" or _is_str(b)):
                    text = f"{left} {sym} {version_text(b)!r}"
                elif right and version_text(a) is not None and (right == "V" or _is_str(a)):
                    text = f"{right} {_FLIP[sym]} {version_text(a)!r}"
            out.append(text or UNKNOWN)
        if all(t == UNKNOWN for t in out):
            return UNKNOWN
        return out[0] if len(out) == 1 else " and ".join(f"({t})" for t in out)

    # -- the package's version ----------------------------------------------------------------

    def _version(self, rel: str, node: ast.expr, hops: int) -> str:
        """``"V"``: ``node`` is the package's version parsed; ``"S"``: its text (compared as a string, as
        Python does); ``""``: neither."""
        modules = self.p.modules
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
            fname = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            arg = node.args[0]
            if fname in _PARSERS:
                return "V" if self._version(rel, arg, hops) else ""
            if fname == "version" and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                dist = arg.value.lower().replace("-", "_").replace(".", "_")
                return "S" if any(dist == m.split(".")[0].lower() for m in modules) else ""  # importlib.metadata.version("pkg")
            return ""
        if isinstance(node, (ast.Name, ast.Attribute)):
            q = resolve(node, self.p.names(rel))
            if q is not None and q.endswith(".__version__") and _inside(q.rpartition(".")[0], modules):
                return "S"
            if hops < _HOPS:
                bound = self._binding(rel, node)
                if bound is not None:
                    return self._version(bound[0], bound[1], hops + 1)
        return ""

    # -- module-level names -------------------------------------------------------------------

    def _binding(self, rel: str, node: ast.expr) -> tuple[str, ast.expr] | None:
        """The value a module-level name (or an imported project module's name) is bound to once: (file, value)."""
        if isinstance(node, ast.Name):
            value = self._module_names(rel).get(node.id)
            if value is not None:
                return rel, value
            if node.id in self._module_names(rel):
                return None  # assigned more than once, or not by a plain ``=``
        q = resolve(node, self.p.names(rel))
        if q is None or _inside(q, self.p.modules):
            return None
        mod, _, name = q.rpartition(".")
        files = self.p.files.get(mod)
        if not files:
            return None
        target = files[-1]
        value = self._module_names(target).get(name)
        return (target, value) if value is not None else None

    def _module_names(self, rel: str) -> dict[str, ast.expr | None]:
        """Names assigned at module level: the value of a single ``NAME = value``, None for any other binding."""
        if rel in self._assigned:
            return self._assigned[rel]
        out: dict[str, ast.expr | None] = {}
        tree = self.p.sources.tree(rel)
        for stmt in module_level(tree.body) if tree is not None else ():
            targets: list[ast.expr] = []
            value = None
            if isinstance(stmt, ast.Assign):
                targets, value = stmt.targets, stmt.value
            elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
                targets, value = [stmt.target], (stmt.value if isinstance(stmt, ast.AnnAssign) else None)
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        single = isinstance(t, ast.Name) and len(targets) == 1 and n.id not in out
                        out[n.id] = value if single else None
            if isinstance(stmt, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
                for n in ast.walk(stmt.target) if isinstance(stmt, (ast.For, ast.AsyncFor)) else [
                        x for i in stmt.items if i.optional_vars is not None for x in ast.walk(i.optional_vars)]:
                    if isinstance(n, ast.Name):
                        out[n.id] = None
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out[stmt.name] = None
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for a in stmt.names:
                    name = a.asname or a.name.split(".")[0]
                    if name in out:
                        out[name] = None  # rebound by an import after an assignment
        for n in ast.walk(tree) if tree is not None else ():
            if isinstance(n, ast.Global):  # assigned in a function too: not one value
                out.update({g: None for g in n.names})
        self._assigned[rel] = out
        return out


def return_conditions(fn: ast.AST, flags, rel: str) -> tuple[tuple[int, str], ...]:
    """``(line, flag expression)`` of each ``return`` in ``fn``'s own body under ``if`` tests of which
    one at least is a flag: the conjunction of the branches taken to reach it (``not`` for ``else``;
    after ``if FLAG: … return``, the statements that follow it in the block are under ``not FLAG``)."""
    if flags is None or isinstance(fn, ast.Lambda):
        return ()
    out = []
    local = _locals(fn)

    def walk(stmts, conds):
        for s in stmts:
            if isinstance(s, ast.Return) and conds:
                out.append((s.lineno, " and ".join(f"({c})" for c in conds)))
            elif isinstance(s, ast.If):
                c = flags.condition(rel, s.test, local)
                walk(s.body, conds + [c] if c is not None else conds)
                walk(s.orelse, conds + [f"not ({c})"] if c is not None else conds)
                if c is not None and _leaves(s.body) and not _leaves(s.orelse):  # ``if FLAG: return …`` then the rest
                    conds = conds + [f"not ({c})"]
                elif c is not None and _leaves(s.orelse) and not _leaves(s.body):
                    conds = conds + [c]
            elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            else:
                for block in ("body", "orelse", "finalbody"):
                    walk(getattr(s, block, None) or [], conds)
                for h in getattr(s, "handlers", None) or []:
                    walk(h.body, conds)
                for case in getattr(s, "cases", None) or []:
                    walk(case.body, conds)

    walk(fn.body, [])
    return tuple(out)


def branch_conditions(rel: str, flags) -> list[tuple[int, int, str]]:
    """``(first line, last line, flag)`` of each branch of an ``if`` on a flag in ``rel`` (``not`` for
    the ``else``; an ``elif`` is an ``if`` inside it), nested ones listed on their own."""
    tree = flags.p.sources.tree(rel)
    if tree is None or "if" not in flags.p.sources.text(rel):
        return []
    out = []
    todo: list[tuple[ast.AST, tuple]] = [(tree, ())]
    locals_: dict[int, frozenset[str]] = {}
    while todo:
        node, fns = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            fns = (*fns, node)
        todo.extend((c, fns) for c in ast.iter_child_nodes(node))
        if not isinstance(node, ast.If):
            continue
        if flags.condition(rel, node.test) is None:
            continue  # no flag in it (the enclosing functions' own names, read only for a flag, cannot make one)
        for fn in fns:
            if id(fn) not in locals_:
                locals_[id(fn)] = _locals(fn)
        c = flags.condition(rel, node.test, frozenset().union(*(locals_[id(fn)] for fn in fns)))
        if c is None:
            continue
        for block, cond in ((node.body, c), (node.orelse, f"not ({c})")):
            if block:
                out.append((block[0].lineno, max(s.end_lineno or s.lineno for s in block), cond))
    return out


def _leaves(block: list[ast.stmt]) -> bool:
    """The block always ends in a ``return`` or ``raise`` of its own."""
    return bool(block) and isinstance(block[-1], (ast.Return, ast.Raise))


def _locals(fn) -> frozenset[str]:
    """The names a function binds itself (parameters, assignments, imports, ``global`` aside: a name
    declared ``global`` is the module's)."""
    a = fn.args
    names = {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if x is not None}
    glob: set[str] = set()
    for n in ast.walk(fn) if not isinstance(fn, ast.Lambda) else ():
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            names.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            names.update((x.asname or x.name.split(".")[0]) for x in n.names)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            glob.update(n.names)
    return frozenset(names - glob)
