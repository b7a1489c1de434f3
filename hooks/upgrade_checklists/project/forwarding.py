"""Keywords (and positions) a project caller passes to a project function, method or subclass ``__init__``
that hands its ``**kwargs`` (``*args``) on, followed down to the upstream call they reach, up to
``FORWARD_DEPTH`` project callables deep: a keyword upstream removed breaks at the caller's line, two
frames above the upstream call. Read from the project's source (``uses._Project`` gives its files,
classes and names); nothing is run.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from upgrade_checklists.core.astwalk import walk
from upgrade_checklists.project.calls import NOT_METHODS, _inside, decorator_name, resolve, statement_calls
from upgrade_checklists.project.use import mentions, module_name


@dataclass
class Forward:
    """One call in a project callable's body that passes on its ``**kwargs`` (``kw``) and/or its
    ``*args`` (``args``: only when ``*args`` is the call's first and only positional argument, so that
    positions map one to one; otherwise None)."""

    shown: str  # ``make_client``, ``Factory.build``, ``Layer.__init__``
    target: str  # an upstream path, or another project callable (function, ``Cls.method``, class)
    mine: frozenset[str]  # keywords the callable takes itself (named parameters, ``kw.pop("x")``, ``del kw["x"]``)
    positional: int  # positional parameters it takes itself (``self`` left out)
    kw: str | None
    args: str | None


#: how many project callables a keyword is followed through before the upstream call
FORWARD_DEPTH = 3


def _popped(fn, kw: str) -> set[str]:
    """Keys ``fn`` takes out of its ``**kw`` dict: ``kw.pop("x"…)``, ``del kw["x"]``."""
    out = set()
    for n in walk(fn):
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "pop"
                and isinstance(n.func.value, ast.Name) and n.func.value.id == kw and n.args
                and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)):
            out.add(n.args[0].value)
        elif isinstance(n, ast.Delete):
            for t in n.targets:
                if (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == kw
                        and isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str)):
                    out.add(t.slice.value)
    return out


def _passes(node: ast.Call, kw: str | None, args: str | None) -> tuple[bool, bool]:
    """Whether ``node`` passes ``**kw``, and ``*args`` as its only positional argument."""
    fkw = kw is not None and any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kw for k in node.keywords)
    fargs = (args is not None and len(node.args) == 1 and isinstance(node.args[0], ast.Starred)
             and isinstance(node.args[0].value, ast.Name) and node.args[0].value.id == args)
    return fkw, fargs


class Forwarding:
    """Project callables that pass their ``**kwargs`` / ``*args`` on, followed from a caller's
    keywords down to the upstream call they reach (``uses._Project.forwarded_uses``)."""

    def __init__(self, project) -> None:
        self.p = project
        self.table: dict[str, list[Forward]] = {}  # callable -> its forwarding calls
        self.methods: dict[str, set[str]] = {}  # project class -> its methods' names

    def local_names(self, rel: str, tree: ast.Module) -> dict[str, str]:
        names = dict(self.p.names(rel))
        mod = module_name(rel)
        for n in tree.body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.setdefault(n.name, f"{mod}.{n.name}")
        return names

    def collect(self) -> None:
        """Every project function, method and ``__init__`` with ``**kwargs`` or ``*args`` it passes on:
        first in the files that name the package or hold a subclass of its classes, then in the files
        that name a callable found so far (one round a level), so most files are not parsed."""
        p = self.p
        tops = {m.split(".")[0] for m in p.modules}
        held = {c.file for n, c in p.classes.items() if p.upstream_base(n) is not None}
        todo = [r for r in p.sources.paths if r in held or mentions(p.sources.text(r), tops)]
        done: set[str] = set()
        for _level in range(FORWARD_DEPTH):
            for rel in todo:
                self._collect(rel)
            done |= set(todo)
            shorts = {k.rsplit(".", 1)[-1] for k in self.table}
            todo = [r for r in p.sources.paths if r not in done and mentions(p.sources.text(r), shorts)]
            if not todo:
                break

    def _collect(self, rel: str) -> None:
        p = self.p
        text = p.sources.text(rel)
        if "*" not in text:
            return
        tree = p.sources.tree(rel)
        if tree is None:
            return
        mod = module_name(rel)
        names = None
        for n in tree.body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names = names if names is not None else self.local_names(rel, tree)
                self._record(f"{mod}.{n.name}", n.name, n, names, None)
            elif isinstance(n, ast.ClassDef) and f"{mod}.{n.name}" in p.classes:
                cname = f"{mod}.{n.name}"
                defs = [f for f in n.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
                self.methods[cname] = {f.name for f in defs}
                for f in defs:
                    decorators = {decorator_name(d) for d in f.decorator_list}
                    if decorators & (NOT_METHODS | {"staticmethod", "classmethod"}):
                        continue
                    names = names if names is not None else self.local_names(rel, tree)
                    key = cname if f.name == "__init__" else f"{cname}.{f.name}"
                    self._record(key, f"{n.name}.{f.name}", f, names, cname)

    def _record(self, key: str, shown: str, fn, names: dict[str, str], cls: str | None) -> None:
        a = fn.args
        kw, args = (a.kwarg.arg if a.kwarg else None), (a.vararg.arg if a.vararg else None)
        params = a.posonlyargs + a.args
        if cls is not None:
            if not params:
                return
            me, params = params[0].arg, params[1:]
        if kw is None and args is None:
            return
        stored = {n.id for n in walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        kw = None if kw in stored else kw  # ``kw = {...}``: what it passes on is not the caller's
        args = None if args in stored else args
        mine = frozenset({x.arg for x in params + a.kwonlyargs} | (_popped(fn, kw) if kw else set()))
        for _stmt, node, _where in statement_calls(fn):
            fkw, fargs = _passes(node, kw, args)
            if not (fkw or fargs):
                continue
            target = self._target(node.func, names, cls, me if cls is not None else None, fn.name)
            if target is not None:
                self.table.setdefault(key, []).append(
                    Forward(shown, target, mine, len(params), kw if fkw else None, args if fargs else None))

    def _target(self, func: ast.AST, names: dict[str, str], cls: str | None, me: str | None, method: str) -> str | None:
        """What a call in a forwarding body calls: an upstream path or a project callable; None when not known."""
        p = self.p
        if cls is not None and isinstance(func, ast.Attribute):
            owner = func.value
            is_super = isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super"
            if func.attr == "__init__" and method == "__init__" and (is_super or resolve(owner, names) in p.classes[cls].bases):
                base = p.classes[cls].bases[0] if p.classes[cls].bases else None
                return base if base is not None and (_inside(base, p.modules) or base in p.classes) else None
            if is_super:
                base = p.classes[cls].bases[0] if p.classes[cls].bases else None
                return f"{base}.{func.attr}" if base is not None and _inside(base, p.modules) else None
            if isinstance(owner, ast.Name) and owner.id == me:
                return f"{cls}.{func.attr}" if func.attr in self.methods.get(cls, ()) else None
        q = resolve(func, names) if isinstance(func, (ast.Name, ast.Attribute)) else None
        if q is None:
            return None
        if _inside(q, p.modules) or q in p.classes or q.rpartition(".")[0] in p.files:
            return q  # upstream, a project class, or a project module's function
        return None

    def runs(self, q: str) -> str | None:
        """The forwarding callable a call of ``q`` runs (a class: the ``__init__`` it inherits), or an
        upstream path (a class whose ``__init__`` is upstream's), or None."""
        if _inside(q, self.p.modules):
            return q
        seen = set()
        while q in self.p.classes and q not in seen:
            seen.add(q)
            if any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"
                   for s in self.p.node(self.p.classes[q]).body):
                return q if q in self.table else None
            bases = self.p.classes[q].bases
            if not bases:
                return None
            if _inside(bases[0], self.p.modules):
                return bases[0]
            q = bases[0]
        return q if q in self.table else None

    def follow(self, q: str, keywords: list[str], positional: int, chain: tuple[str, ...] = ()):
        """``(upstream path, keywords, positional, chain)`` for what a call of project callable ``q``
        passing ``keywords`` and ``positional`` arguments hands on to upstream."""
        q = self.runs(q)
        if q is not None and _inside(q, self.p.modules):
            if chain and (keywords or positional):
                yield q, keywords, positional, chain
            return
        if q is None or len(chain) >= FORWARD_DEPTH:
            return
        for f in self.table.get(q, ()):
            kws = [k for k in keywords if k not in f.mine] if f.kw else []
            pos = max(positional - f.positional, 0) if f.args else 0
            if kws or pos:
                how = ", ".join(x for x in (f"`*{f.args}`" if pos else "", f"`**{f.kw}`" if kws else "") if x)
                yield from self.follow(f.target, kws, pos, (*chain, f"`{f.shown}` ({how})"))
