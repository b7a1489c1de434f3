"""Parameters typed by the project's own call sites: an unannotated parameter of a project function
(or method) takes the upstream type, or the set of string constants, that its callers give it, when
every call site found agrees.

The callees are the functions defined at module level of a file and the methods of its module-level
classes (a method only through ``self.m(...)`` in a method of the same class). Every occurrence of the
callee's name in its file must be such a call: one used otherwise (passed as a value, named in a string
such as ``__all__`` or ``getattr(mod, "f")``), defined twice, decorated, a method of a class with a base
outside the project's classes (what upstream or another library calls), named in another project file,
or called with ``*args`` / ``**kwargs`` or with arguments that do not bind, *escapes*: its parameters are
not typed, and a member used on one that some caller gave an upstream object is counted unknown
(``receivers.CALLERS``). A parameter a call leaves to its default, or given a value of no known type,
or given two different types: unknown too.

Callers' own parameters are typed the same way, to a fixed point (``ROUNDS`` at most, deterministic): a
value that depends on a parameter not known yet (a recursive call, ``copy_of(x)`` where the copy's
function is itself typed by its callers) waits for it, and a cycle that brings nothing in brings
nothing (the least fixed point: a function only called from its own cycle gives its parameters no
type). An unannotated project function whose every ``return`` gives the same upstream type has that
type (``_Returns.inferred``). Nothing here knows the upstream source.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from upgrade_checklists.core.astwalk import statements, walk
from upgrade_checklists.project.receivers import CALLERS, REBOUND, Scope, Up, describe, is_rebound

#: rounds of the fixed point (each follows one more level of callers)
ROUNDS = 8

DISAGREE = "disagree"
ESCAPES = "escapes"


class _Pending:
    """No value known yet (the bottom of the lattice)."""

    def __repr__(self) -> str:
        return "PENDING"


PENDING = _Pending()


@dataclass(frozen=True)
class Unknown:
    """No type: ``why`` is ``DISAGREE`` (callers give different or unknown values) or ``ESCAPES``."""

    why: str
    #: an upstream type one caller gave (counted under its package), if any
    seen: Up | None = None


@dataclass(frozen=True)
class Consts:
    values: frozenset[str]


class Callee:
    """A project function or method whose parameters its call sites may type."""

    def __init__(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, cls: ast.ClassDef | None) -> None:
        self.fn, self.cls, self.name = fn, cls, fn.name
        a = fn.args
        pos = a.posonlyargs + a.args
        skip = 1 if cls is not None else 0
        self.positional = [p.arg for p in pos[skip:]]
        self.keywords = {p.arg for p in a.args[max(0, skip - len(a.posonlyargs)):]} | {p.arg for p in a.kwonlyargs}
        self.self_name = pos[0].arg if cls is not None and pos else None
        self.open = [p.arg for p in (*pos[skip:], *a.kwonlyargs) if p.annotation is None and p.type_comment is None]
        self.var_args, self.var_kwargs = a.vararg is not None, a.kwarg is not None
        self.sites: list[ast.Call] = []
        self.escape = ""
        self.pass_through: set[str] = set()  # parameters handed to getattr/hasattr or to another callee

    def bind(self, call: ast.Call) -> dict[str, ast.expr] | None:
        """Parameter -> argument of ``call``; None when it does not bind."""
        out: dict[str, ast.expr] = {}
        if len(call.args) > len(self.positional) and not self.var_args:
            return None
        for p, a in zip(self.positional, call.args):
            out[p] = a
        for k in call.keywords:
            if k.arg in self.keywords and k.arg not in out:
                out[k.arg] = k.value
            elif not self.var_kwargs:
                return None
        return out


def callees(tree: ast.Module, outside_bases: Callable[[ast.ClassDef], bool],
            elsewhere: Callable[[str], bool], skip: set[int]) -> list[Callee]:
    """The callees of ``tree`` with at least one call site and one unannotated parameter, each with its call
    sites, or why it escapes. ``outside_bases(cls)``: the class has a base that is not a project class;
    ``elsewhere(name)``: another project file names it; ``skip``: ids of functions left out (hook
    implementations: pluggy calls them)."""
    found: dict[str, Callee] = {}
    methods: dict[tuple[str, str], Callee] = {}
    defs: dict[str, int] = {}
    for node in statements(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[node.name] = defs.get(node.name, 0) + 1
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and id(node) not in skip:
            found[node.name] = Callee(node, None)
        elif isinstance(node, ast.ClassDef):
            for f in node.body:
                if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and id(f) not in skip and not f.name.startswith("__"):
                    c = Callee(f, node)
                    if outside_bases(node):
                        c.escape = "a method of a class with a base outside the project"
                    methods[(node.name, f.name)] = c
    every = list(found.values()) + list(methods.values())
    if not every:
        return []
    for c in every:
        if c.fn.decorator_list:
            c.escape = c.escape or "decorated"
        if defs.get(c.name, 0) > 1:
            c.escape = c.escape or "defined more than once"
        if c.cls is not None and c.self_name is None:
            c.escape = c.escape or "a method without `self`"
    # where each ``self.m(...)`` may be: the methods of each class, with their ``self``
    self_calls: dict[int, str] = {}  # id(call) -> the class whose method's ``self`` calls it
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for f in node.body:
                if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and (f.args.posonlyargs + f.args.args):
                    me = (f.args.posonlyargs + f.args.args)[0].arg
                    for n in walk(f):
                        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
                                and n.func.value.id == me):
                            self_calls[id(n)] = node.name
    funcs = {id(n.func): n for n in walk(tree) if isinstance(n, ast.Call)}
    by_method = {}
    for (cls, name), c in methods.items():
        by_method.setdefault(name, []).append((cls, c))
    for n in walk(tree):
        if isinstance(n, ast.Name) and n.id in found:
            c = found[n.id]
            call = funcs.get(id(n))
            if call is None or not isinstance(n.ctx, ast.Load):
                c.escape = c.escape or "used as a value"
            else:
                c.sites.append(call)
        elif isinstance(n, ast.Attribute) and n.attr in by_method:
            call = funcs.get(id(n))
            owner = self_calls.get(id(call)) if call is not None else None
            for cls, c in by_method[n.attr]:
                if owner == cls:
                    c.sites.append(call)
                else:
                    c.escape = c.escape or "used other than through `self`"
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and (n.value in found or n.value in by_method):
            for c in ([found[n.value]] if n.value in found else []) + [c for _cls, c in by_method.get(n.value, [])]:
                c.escape = c.escape or "named in a string"
    out = []
    names = {c.name for c in every}
    for c in every:
        if not c.sites or not c.open:
            continue
        for call in c.sites:
            if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                c.escape = c.escape or "called with `*args` / `**kwargs`"
            elif c.bind(call) is None:
                c.escape = c.escape or "a call that does not bind"
        if not c.escape and elsewhere(c.name):
            c.escape = "named in another project file"
        for n in walk(c.fn):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("getattr", "hasattr") and len(n.args) >= 2:
                if isinstance(n.args[1], ast.Name):
                    c.pass_through.add(n.args[1].id)
            elif isinstance(n, ast.Call) and (isinstance(n.func, ast.Name) and n.func.id in names
                                              or isinstance(n.func, ast.Attribute) and n.func.attr in names):
                c.pass_through |= {a.id for a in [*n.args, *(k.value for k in n.keywords)] if isinstance(a, ast.Name)}
        out.append(c)
    return out


def _join(values: list) -> object:
    known = [v for v in values if v is not PENDING]
    if not known:
        return PENDING
    seen = next((v for v in known if isinstance(v, Up)), None)
    seen = seen or next((v.seen for v in known if isinstance(v, Unknown) and v.seen is not None), None)
    if any(isinstance(v, Unknown) for v in known):
        return Unknown(next(v.why for v in known if isinstance(v, Unknown)), seen)
    if all(isinstance(v, Consts) for v in known):
        return Consts(frozenset().union(*(v.values for v in known)))
    if all(isinstance(v, Up) for v in known) and all(v == known[0] for v in known):
        return known[0]
    return Unknown(DISAGREE, seen)


class CallerTypes:
    """The fixed point over one file's callees (see the module's docstring)."""

    def __init__(self, items: list[Callee], returns_inferred: dict[str, object], qualify: Callable[[str], str]) -> None:
        self.callees = items
        self.by_line = {c.fn.lineno: c for c in items}
        self.values: dict[tuple[int, str], object] = {}
        self.returns: dict[int, object] = {}  # callee line -> its inferred return (module functions only)
        self.inferred = returns_inferred  # the ``_Returns`` overlay: qualified name -> Up
        self.qualify = qualify
        self.module_funcs = {c.name: c for c in items if c.cls is None}
        self.mine: set[tuple[int, str]] = set()  # the parameters this pass seeded (others' seeds are left alone)

    def lines(self) -> set[int]:
        """The lines of the functions whose scopes are needed: the callees and the functions holding a call site."""
        return {c.fn.lineno for c in self.callees}

    def run(self, scopes: list[Scope], owner: dict[int, Scope]) -> None:
        by_line = {sc.fn.lineno: sc for sc in scopes}
        for c in self.callees:  # a possible hook implementation the project calls itself: typed by its callers
            sc = by_line.get(c.fn.lineno)
            if sc is not None and not c.escape:
                for p in c.open:
                    sc.hooked.pop(p, None)
                sc.memo.clear()
        for _round in range(ROUNDS):
            values = {}
            for c in self.callees:
                for p in c.open:
                    values[(c.fn.lineno, p)] = self._param(c, p, owner) if not c.escape else self._escaped(c, p, owner)
            returns = {c.fn.lineno: self._return(c, by_line.get(c.fn.lineno)) for c in self.callees if c.cls is None}
            changed = values != self.values or returns != self.returns
            self.values, self.returns = values, returns
            self._apply(by_line, scopes)
            if not changed:
                break

    def _escaped(self, c: Callee, p: str, owner) -> object:
        """An escaping callee's parameter: counted (``Unknown(ESCAPES)``) where a caller gives an upstream type."""
        for call in c.sites:
            arg = (c.bind(call) or {}).get(p)
            sc = owner.get(id(call))
            if arg is not None and sc is not None:
                v = self._arg(arg, sc)
                if isinstance(v, Up):
                    return Unknown(ESCAPES, v)
        return Unknown(ESCAPES)

    def _param(self, c: Callee, p: str, owner) -> object:
        got = []
        for call in c.sites:
            arg = c.bind(call).get(p)
            if arg is None:
                got.append(Unknown(DISAGREE))  # left to its default
                continue
            sc = owner.get(id(call))
            if sc is None:
                got.append(Consts(frozenset({arg.value})) if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                           else Unknown(DISAGREE))
                continue
            got.append(self._arg(arg, sc))
        v = _join(got)
        if isinstance(v, Consts) and p not in c.pass_through:
            return Unknown(DISAGREE)  # constants matter only where they name an attribute
        return v

    def _arg(self, arg: ast.expr, sc: Scope) -> object:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return Consts(frozenset({arg.value}))
        if isinstance(arg, ast.Name) and [h for h, _w in sc.defs.get(arg.id, [])] == ["param"]:
            mine = self.values.get((sc.fn.lineno, arg.id)) if sc.fn.lineno in self.by_line else None
            if mine is PENDING or isinstance(mine, Consts):
                return mine
        t = sc.expr(arg)
        if isinstance(t, Up) and not is_rebound(t):
            return t
        if t is None and self._waits(arg, sc, 3, set()):
            return PENDING
        return Unknown(DISAGREE)

    def _waits(self, e: ast.expr, sc: Scope, depth: int, seen: set) -> bool:
        """``e`` depends on a parameter or a return not known yet."""
        for n in walk(e):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in self.module_funcs:
                if self.returns.get(self.module_funcs[n.func.id].fn.lineno, PENDING) is PENDING:
                    return True
            if not isinstance(n, ast.Name) or n.id in seen:
                continue
            seen.add(n.id)
            defs = sc.defs.get(n.id, [])
            if [h for h, _w in defs] == ["param"] and sc.fn.lineno in self.by_line:
                if self.values.get((sc.fn.lineno, n.id), PENDING) is PENDING:
                    return True
            if depth > 0:
                for how, what in defs:
                    if how.partition("+")[0] in ("value", "iter", "enter") and isinstance(what, ast.expr):
                        if self._waits(what, sc, depth - 1, seen):
                            return True
        return False

    def _return(self, c: Callee, sc: Scope | None) -> object:
        fn = c.fn
        if sc is None or fn.returns is not None or not fn.body or not isinstance(fn.body[-1], (ast.Return, ast.Raise)):
            return Unknown(DISAGREE)
        got = []
        for n in sc.nodes:
            if isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)):
                return Unknown(DISAGREE)
            if isinstance(n, ast.Return):
                if n.value is None:
                    return Unknown(DISAGREE)
                t = sc.expr(n.value)
                got.append(t if isinstance(t, Up) and not is_rebound(t) else
                           PENDING if t is None and self._waits(n.value, sc, 3, set()) else Unknown(DISAGREE))
        return _join(got) if got else Unknown(DISAGREE)

    def _apply(self, by_line: dict[int, Scope], scopes: list[Scope]) -> None:
        for c in self.callees:
            q = self.qualify(c.name)
            r = self.returns.get(c.fn.lineno)
            if c.cls is None:
                if isinstance(r, Up):
                    self.inferred[q] = r
                else:
                    self.inferred.pop(q, None)
            sc = by_line.get(c.fn.lineno)
            if sc is None:
                continue
            n = len(c.sites)
            at = ", ".join(str(s.lineno) for s in c.sites[:4]) + (", …" if n > 4 else "")
            shown = f"{c.cls.name}.{c.name}" if c.cls is not None else c.name
            for p in c.open:
                v = self.values.get((c.fn.lineno, p))
                if p in sc.seeds and (c.fn.lineno, p) not in self.mine:
                    continue  # typed otherwise (the instance a patch receives)
                self.mine.add((c.fn.lineno, p))
                sc.unseed(p)  # ``Scope.seed`` keeps a type it had over one from a hook: this pass's own is replaced
                if isinstance(v, Up):
                    sc.seed(p, v, f"`{p}` is {describe(v)}, typed by the "
                            f"{n} caller(s) of `{shown}` (line(s) {at})")
                    sc.consts.pop(p, None)
                elif isinstance(v, Consts):
                    listed = ", ".join(repr(x) for x in sorted(v.values))
                    sc.consts[p] = (v.values, f"`{p}` is {listed}, given by the {n} caller(s) of `{shown}` (line(s) {at})")
                elif isinstance(v, Unknown) and v.seen is not None:
                    sc.consts.pop(p, None)
                    sc.seed(p, Up(v.seen.start, (REBOUND, CALLERS + v.why)),
                            f"`{p}`: its callers do not agree on its type" if v.why == DISAGREE else f"`{p}`: `{shown}` {c.escape}")
                else:
                    sc.consts.pop(p, None)
        for sc in scopes:
            sc.memo.clear()
