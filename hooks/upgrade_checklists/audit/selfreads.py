"""What an upstream class's constructor sets on ``self``, and what its methods read there, from the
class statements of its MRO (plain AST, nothing imported): the facts behind ``INIT_SKIPPED``.

A project subclass whose ``__init__`` never runs the upstream constructor lacks every attribute that
constructor sets, unless the project sets it itself. An upstream method that reads such an attribute
on every call then fails on an instance of the subclass (``AttributeError``).

:func:`init_facts` answers, as plain data (``model_cache`` keeps it as JSON):

- ``sets``: ``[attr, "Class.__init__", "file:line"]`` for each attribute the constructor chain sets on
  ``self`` (``self.x = ...``, ``self.x: T = ...``, ``setattr(self, "x", ...)``; the first class of the MRO
  defining ``__init__``, then the next ones while each calls a base ``__init__``; a method of the class
  ``__init__`` calls on ``self``, one level; a dataclass's fields without a default, and its
  ``__post_init__``);
- ``class_names``: what a class of the MRO defines at class level (methods, properties, class attributes,
  dataclass fields with a default): a read of one of these never fails;
- ``getattr``: a class of the MRO defines ``__getattr__`` / ``__getattribute__`` (a read of a missing
  attribute may be served: nothing is provable);
- ``methods``: per method name (the first class of the MRO defining it): its ``caller``
  (``Class.method``), ``file``, ``line``, its reads of instance attributes (not ``class_names``) on ``self``
  (``[attr, line, always]``), its ``self.m(...)`` calls of other methods of the MRO (``[name, line,
  always]``) and the attributes it stores on ``self`` itself. ``always``: the expression is evaluated on
  every call that returns normally (not under an ``if`` / loop / ``try`` body / ``except`` / short-circuit
  / conditional expression / comprehension element / nested function, nor after a statement that may
  ``return`` or ``raise``; nothing in a generator is, its body runs only when iterated).
"""

from __future__ import annotations

import ast

from upgrade_checklists.core.astwalk import own_nodes as _own_nodes
from upgrade_checklists.core.astwalk import stored_on

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _name(d: ast.AST) -> str:
    d = d.func if isinstance(d, ast.Call) else d
    if isinstance(d, ast.Attribute):
        return d.attr
    return d.id if isinstance(d, ast.Name) else ""


def is_dataclass(node: ast.ClassDef) -> bool:
    return any(_name(d) == "dataclass" for d in node.decorator_list)


def self_name(fn) -> str | None:
    """The name of a method's instance parameter (None for a static or class method)."""
    if any(_name(d) in ("staticmethod", "classmethod") for d in fn.decorator_list):
        return None
    first = (fn.args.posonlyargs + fn.args.args)[:1]
    return first[0].arg if first else None


def _leaves(stmt: ast.stmt) -> bool:
    """The statement may end the function early (a ``return`` or ``raise`` in it)."""
    return isinstance(stmt, (ast.Return, ast.Raise)) or any(
        isinstance(n, (ast.Return, ast.Raise)) for n in _own_nodes(stmt) if n is not stmt)


def _stmts(body: list[ast.stmt], always: bool):
    may_leave = False
    for s in body:
        yield from _stmt(s, always and not may_leave)
        if _leaves(s):
            may_leave = True


def _stmt(s: ast.stmt, a: bool):
    if isinstance(s, ast.If):
        yield from _expr(s.test, a)
        yield from _stmts(s.body, False)
        yield from _stmts(s.orelse, False)
    elif isinstance(s, (ast.For, ast.AsyncFor)):
        yield from _expr(s.iter, a)
        yield from _expr(s.target, False)
        yield from _stmts(s.body, False)
        yield from _stmts(s.orelse, False)
    elif isinstance(s, ast.While):
        yield from _expr(s.test, a)
        yield from _stmts(s.body, False)
        yield from _stmts(s.orelse, False)
    elif isinstance(s, (ast.With, ast.AsyncWith)):
        for item in s.items:
            yield from _expr(item.context_expr, a)
            if item.optional_vars is not None:
                yield from _expr(item.optional_vars, a)
        yield from _stmts(s.body, a)
    elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
        yield from _stmts(s.body, False)
        for h in s.handlers:
            yield from _stmts(h.body, False)
        yield from _stmts(s.orelse, False)
        yield from _stmts(s.finalbody, a)
    elif type(s).__name__ == "Match":
        yield from _expr(s.subject, a)
        for case in s.cases:
            yield from _stmts(case.body, False)
    elif isinstance(s, (*_FUNCS, ast.ClassDef)):
        for d in s.decorator_list:
            yield from _expr(d, a)
    else:
        for child in ast.iter_child_nodes(s):
            yield from _expr(child, a)


def _expr(node: ast.AST, a: bool):
    """(node, always) for ``node`` and its sub-expressions."""
    if isinstance(node, _NESTED):
        return
    yield node, a
    if isinstance(node, ast.BoolOp):
        yield from _expr(node.values[0], a)
        for v in node.values[1:]:
            yield from _expr(v, False)
    elif isinstance(node, ast.IfExp):
        yield from _expr(node.test, a)
        yield from _expr(node.body, False)
        yield from _expr(node.orelse, False)
    elif isinstance(node, _COMPREHENSIONS):
        for i, g in enumerate(node.generators):
            yield from _expr(g.iter, a and i == 0)
            yield from _expr(g.target, False)
            for cond in g.ifs:
                yield from _expr(cond, False)
        for part in ("elt", "key", "value"):
            if getattr(node, part, None) is not None:
                yield from _expr(getattr(node, part), False)
    else:
        for child in ast.iter_child_nodes(node):
            yield from _expr(child, a)


def evaluated(fn) -> list[tuple[ast.AST, bool]]:
    """Every expression node of a function's body with whether each call that returns evaluates it."""
    generator = any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own_nodes(fn) if n is not fn)
    return [(n, a and not generator) for n, a in _stmts(fn.body, True)]


def stores(fn, me: str) -> dict[str, int]:
    """Attributes a function sets on ``me`` (``me.x = ...``, ``me.x: T = ...``, ``setattr(me, "x", ...)``,
    ``object.__setattr__(me, "x", ...)``), not in nested functions: attr -> first line."""
    return stored_on(fn, me)


def dynamic_stores(fn, me: str) -> bool:
    """The function may set attributes on ``me`` whose names the source does not spell (``setattr`` with a
    computed name, ``me.__dict__``, ``vars(me)``)."""
    for n in _own_nodes(fn):
        if isinstance(n, ast.Attribute) and n.attr == "__dict__" and isinstance(n.value, ast.Name) and n.value.id == me:
            return True
        if isinstance(n, ast.Call):
            args = n.args
            name = _name(n.func)
            if name == "vars" and args and isinstance(args[0], ast.Name) and args[0].id == me:
                return True
            if (name in ("setattr", "__setattr__") and len(args) >= 2 and isinstance(args[0], ast.Name)
                    and args[0].id == me and not (isinstance(args[1], ast.Constant) and isinstance(args[1].value, str))):
                return True
    return False


def calls_a_constructor(fn) -> bool:
    """The function reaches some ``__init__`` (``super().__init__``, ``Base.__init__(self)``, ...)."""
    return any(isinstance(n, ast.Attribute) and n.attr == "__init__" for n in ast.walk(fn))


def _methods(node: ast.ClassDef) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    return {fn.name: fn for fn in node.body if isinstance(fn, _FUNCS)}


def class_level(node: ast.ClassDef) -> set[str]:
    """Names a class statement defines at class level (what an instance reads without ``__init__``)."""
    out: set[str] = set()
    for s in node.body:
        if isinstance(s, (*_FUNCS, ast.ClassDef)):
            out.add(s.name)
        elif isinstance(s, ast.Assign):
            for t in s.targets:
                out |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value is not None:
            out.add(s.target.id)  # an annotation alone defines nothing (a dataclass field without default: ``_fields``)
    return out


def _fields(node: ast.ClassDef) -> list[tuple[str, int]]:
    """A dataclass's fields without a default (``ClassVar`` left out): its ``__init__`` sets them."""
    out = []
    for s in node.body:
        if (isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value is None
                and "ClassVar" not in ast.unparse(s.annotation) and "InitVar" not in ast.unparse(s.annotation)):
            out.append((s.target.id, s.lineno))
    return out


def init_facts(mro: list[tuple[ast.ClassDef, str]]) -> dict:
    """The facts of the module docstring for the class whose MRO (the class first) is ``mro``: each class
    statement with its file (relative to the source's root)."""
    defined: dict[str, tuple[ast.ClassDef, str, ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    class_names: set[str] = set()
    getattr_ = False
    for node, rel in mro:
        class_names |= class_level(node)
        for name, fn in _methods(node).items():
            defined.setdefault(name, (node, rel, fn))
        getattr_ = getattr_ or bool({"__getattr__", "__getattribute__"} & class_level(node))
    sets: dict[str, list] = {}

    def take(node: ast.ClassDef, rel: str, fn, who: str) -> None:
        me = self_name(fn)
        if me is None:
            return
        for attr, line in stores(fn, me).items():
            sets.setdefault(attr, [attr, who, f"{rel}:{line}"])

    for node, rel in mro:
        init = _methods(node).get("__init__")
        if init is None:
            if is_dataclass(node):
                for attr, line in _fields(node):
                    sets.setdefault(attr, [attr, f"{node.name}.__init__", f"{rel}:{line}"])
                post = _methods(node).get("__post_init__")
                if post is not None:
                    take(node, rel, post, f"{node.name}.__post_init__")
                break  # a dataclass's generated ``__init__`` calls no base's
            continue
        who = f"{node.name}.__init__"
        take(node, rel, init, who)
        me = self_name(init)
        for n in _own_nodes(init):  # a method the constructor calls on ``self``: what it sets, one level
            f = n.func if isinstance(n, ast.Call) else None
            if (me and isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == me
                    and f.attr in defined and f.attr != "__init__"):
                hnode, hrel, hfn = defined[f.attr]
                take(hnode, hrel, hfn, f"{who} (through `self.{f.attr}()`)")
        if not calls_a_constructor(init):
            break
    methods: dict[str, dict] = {}
    for name, (node, rel, fn) in defined.items():
        me = self_name(fn)
        if me is None or name == "__init__" or any(_name(d) in ("property", "cached_property") for d in fn.decorator_list):
            continue
        reads, calls = [], []
        for n, a in evaluated(fn):
            if not (isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == me):
                if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
                        and n.func.value.id == me and n.func.attr in defined):
                    calls.append([n.func.attr, n.lineno, a])
                continue
            if isinstance(n.ctx, ast.Load) and n.attr not in class_names:
                reads.append([n.attr, n.lineno, a])
        mine = sorted(stores(fn, me))
        if reads or calls or mine:
            methods[name] = {"caller": f"{node.name}.{name}", "file": rel, "line": fn.lineno, "reads": reads,
                             "calls": calls, "stores": mine}
    return {"sets": sorted(sets.values()), "class_names": sorted(class_names), "getattr": getattr_, "methods": methods}
