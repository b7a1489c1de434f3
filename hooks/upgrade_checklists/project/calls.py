"""Call sites of a package's APIs in one source file, found through its imports.

``from megatron.core import parallel_state as mpu`` then ``mpu.initialize(tp=2)``
is a call of ``megatron.core.parallel_state.initialize``. Used by ``new`` (one
catalog entry per API) and by the upgrade audit (binding calls to signatures).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from upgrade_checklists.core.astwalk import BLOCKS, imports, statements, walk

_SIMPLE = (
    ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Raise,
    ast.Assert, ast.Delete,
)


@dataclass
class Call:
    """One call of a resolved API."""

    api: str  # fully qualified: megatron.core.parallel_state.initialize
    line: int  # first line of the statement (what a checklist records)
    end_line: int
    snippet: str  # the statement's source, dedented
    positional: int = 0
    keywords: list[str] = field(default_factory=list)
    star_args: bool = False
    star_kwargs: bool = False
    used: bool = True  # the result is consumed (not a bare expression statement)
    assigned_to: str | None = None  # `x = api(...)`, `self.x = api(...)`: the dotted target
    node: object = field(default=None, repr=False, compare=False)  # the ast.Call; None once read back from a cache
    callee: str | None = field(default=None, repr=False, compare=False)  # the callee as written, kept where the node is not
    #: the result is only unpacked (``a, b = api(...)``) or iterated (``for x in api(...)``): any sequence serves
    unpacked: bool = False
    #: the result is assigned to a name whose every use reads an attribute of it (``r = api(...); r.x``)
    members_only: bool = False
    #: ``a, b, c = api(...)``: how many names the result is unpacked into (0: not unpacked so, or a ``*rest``)
    targets: int = 0

    def callee_text(self) -> str | None:
        """The callee as written (``self.engine.step``), from the node or as kept."""
        return ast.unparse(self.node.func) if self.node is not None else self.callee


#: on a tree: {tuple(modules): names a ``*`` import of a project module binds into it} (``uses.find_uses`` sets it)
STAR_BOUND = "_upgrade_checklists_star_bound"


def bindings(tree: ast.Module, modules: list[str]) -> dict[str, str]:
    """Bound name -> qualified target, for imports inside ``modules`` (any scope; ``x = pytest.importorskip("pkg")``
    too: :func:`dynamic_imports`), and the names a ``*`` import of a project module brings (``from app.imports import *`` where ``app/imports.py``
    does ``import numpy as np``), which an import in the file itself overrides."""
    out: dict[str, str] = dict(tree.__dict__.get(STAR_BOUND, {}).get(tuple(modules), {}))
    for name, module in dynamic_imports(tree):
        if _inside(module, modules):
            out[name] = module
    for node in imports(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                target = a.name if a.asname else a.name.split(".")[0]
                bound = a.asname or target
                if _inside(a.name, modules) or any(m.startswith(target + ".") for m in modules):
                    out[bound] = target
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                q = f"{node.module}.{a.name}"
                if a.name != "*" and _inside(q, modules):
                    out[a.asname or a.name] = q
    return out


_DYNAMIC = "_uc_dynamic_imports"
_IMPORTERS = frozenset({"importorskip", "import_module"})


def dynamic_imports(tree: ast.Module) -> list[tuple[str, str]]:
    """``(name, module)`` for each ``name = pytest.importorskip("pkg.mod")`` / ``importlib.import_module("pkg.mod")``
    (any scope; a string literal, spelled as a module path; ``minversion=`` changes nothing): the name is bound to
    that module, as an import binds it. Found once per tree (a statement walk: the value of an assignment is all that is read)."""
    found = tree.__dict__.get(_DYNAMIC)
    if found is None:
        found = []
        for node in statements(tree):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and isinstance(node.value, ast.Call) and node.value.args):
                continue
            f, arg = node.value.func, node.value.args[0]
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if (name in _IMPORTERS and isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                    and all(p.isidentifier() for p in arg.value.split("."))):
                found.append((node.targets[0].id, arg.value))
        tree.__dict__[_DYNAMIC] = found
    return found


def _inside(name: str, modules: list[str]) -> bool:
    return any(name == m or name.startswith(m + ".") for m in modules)


def dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def resolve(expr: ast.AST, bound: dict[str, str]) -> str | None:
    name = dotted(expr)
    if name is None:
        return None
    head, _, rest = name.partition(".")
    if head not in bound:
        return None
    return bound[head] + ("." + rest if rest else "")


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_SCOPES = _FUNCTIONS + (ast.ClassDef, ast.Module) + _COMPREHENSIONS


class Scopes:
    """Which uses of a name are the import of ``modules``, the way Python binds names: a
    name assigned, passed as a parameter or imported from elsewhere in a function is that
    function's own (``def f(np): np.sum(x)`` is not numpy's ``sum``); an import inside a
    function binds in that function only; a class body's names are not seen by its
    methods. Not flow-sensitive: a scope that both imports the name and assigns it
    counts as importing it (``try: import x`` / ``except ImportError: x = None``)."""

    def __init__(self, tree: ast.Module, modules: list[str]) -> None:
        self.modules = modules
        self.parent: dict[ast.AST, ast.AST] = {}
        for node in walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parent[child] = node
        self._names: dict[ast.AST, tuple[set[str], set[str]]] = {}

    def _of_package(self, node: ast.Import | ast.ImportFrom, alias: ast.alias) -> bool:
        if isinstance(node, ast.Import):
            target = alias.name if alias.asname else alias.name.split(".")[0]
            return _inside(alias.name, self.modules) or any(m.startswith(target + ".") for m in self.modules)
        return bool(node.module) and not node.level and alias.name != "*" and _inside(f"{node.module}.{alias.name}", self.modules)

    def names(self, scope: ast.AST) -> tuple[set[str], set[str]]:
        """(names the scope binds by importing the package, names it binds otherwise)."""
        if scope in self._names:
            return self._names[scope]
        imported: set[str] = set()
        other: set[str] = set()
        declared: set[str] = set()
        if isinstance(scope, _FUNCTIONS):
            a = scope.args
            other.update(x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if x is not None)
            todo = list(scope.body) if isinstance(scope.body, list) else [scope.body]
        elif isinstance(scope, _COMPREHENSIONS):
            todo = [g.target for g in scope.generators]
        else:
            todo = list(scope.body)
        while todo:
            node = todo.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                other.add(node.name)
                continue  # its body is its own scope
            if isinstance(node, (ast.Lambda, *_COMPREHENSIONS)):
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    (imported if self._of_package(node, alias) else other).add(bound)
                continue
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                declared.update(node.names)
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                other.add(node.id)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                other.add(node.name)
            elif type(node).__name__ in ("MatchAs", "MatchStar") and getattr(node, "name", None):
                other.add(node.name)
            todo.extend(ast.iter_child_nodes(node))
        self._names[scope] = (imported - declared, other - declared)
        return self._names[scope]

    def binds_import(self, node: ast.AST, name: str) -> bool:
        """Whether ``name``, used at ``node``, is bound by an import of the package."""
        chain = []
        p = self.parent.get(node)
        while p is not None:
            if isinstance(p, _SCOPES):
                chain.append(p)
            p = self.parent.get(p)
        for i, scope in enumerate(chain):
            if isinstance(scope, ast.ClassDef) and i > 0:
                continue  # a method does not see its class body's names
            imported, other = self.names(scope)
            if name in imported:
                return True
            if name in other:
                return False
        return False

    def shadowed(self, node: ast.AST, name: str) -> bool:
        """Whether a function, class body or comprehension around ``node`` binds ``name``
        otherwise than by importing the package (a parameter, an assignment, an import of
        another module: ``def f(np): np.sum(x)``), so that ``name`` there is not the import
        the file's flat ``bindings`` give. What a scope evaluates outside its body (a default,
        an annotation, a decorator, a base, a comprehension's first iterable) is seen from
        the enclosing scope. The module's own names never shadow (a ``*`` import's names are
        bound there without an import statement)."""
        path = {id(node)}
        inner = False  # a scope nearer ``node`` was passed: a class body's names are not seen from it
        p = self.parent.get(node)
        while p is not None and not isinstance(p, ast.Module):
            if isinstance(p, _SCOPES) and _in_body(p, path):
                if not (isinstance(p, ast.ClassDef) and inner):
                    imported, other = self.names(p)
                    if name in imported:
                        return False
                    if name in other:
                        return True
                inner = True
            path.add(id(p))
            p = self.parent.get(p)
        return False


def _in_body(scope: ast.AST, path: set[int]) -> bool:
    """Whether the node whose ancestors' ids are ``path`` is evaluated in ``scope``'s own namespace."""
    if isinstance(scope, _COMPREHENSIONS):
        return id(scope.generators[0].iter) not in path
    body = scope.body if isinstance(scope.body, list) else [scope.body]
    return any(id(s) in path for s in body)


def _head(expr: ast.AST) -> str | None:
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def find_calls(source: str, tree: ast.Module, modules: list[str], scopes: Scopes | None = None) -> list[Call]:
    """Every call in ``tree`` whose callee resolves into ``modules``, in source order.
    ``scopes``: resolve names as Python binds them (else any import in any scope counts)."""
    bound = bindings(tree, modules)
    if not bound:
        return []
    lines = source.splitlines()
    out: list[Call] = []
    for stmt, node, where in statement_calls(tree):
        api = resolve(node.func, bound)
        if api is None or not _inside(api, modules):
            continue
        if scopes is not None and not scopes.binds_import(node, _head(node.func)):
            continue
        out.append(make_call(api, where, node, stmt, lines))
    out.sort(key=lambda c: (c.line, c.node.col_offset if c.node else 0))
    return out


#: attributes Python itself gives every module, function or class (``mod.__file__``,
#: ``f.__module__``): metadata, not an API of the package worth a catalog entry
PYTHON_METADATA = frozenset({
    "__annotations__", "__bases__", "__builtins__", "__cached__", "__class__", "__closure__", "__code__", "__defaults__",
    "__dict__", "__doc__", "__file__", "__globals__", "__kwdefaults__", "__loader__", "__module__", "__mro__", "__name__",
    "__package__", "__path__", "__qualname__", "__spec__",
})


def through_metadata(api: str) -> bool:
    """``api`` reaches through an attribute of ``PYTHON_METADATA`` (``pkg.f.__name__.upper``)."""
    return any(part in PYTHON_METADATA for part in api.split("."))


def find_attribute_uses(source: str, tree: ast.Module, names: list[str], scopes: Scopes | None = None) -> list[tuple[str, Call]]:
    """Attributes of the package read without a call (``pkg.__version__``, ``mpu.GROUP``):
    the outermost dotted name only, never an assignment target, nor a read of what Python gives
    every module, function or class (``PYTHON_METADATA``: ``pkg.mod.__file__``)."""
    bound = bindings(tree, names)
    if not bound:
        return []
    lines = source.splitlines()
    inner: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
            inner.add(id(node.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            inner.add(id(node.func))
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in inner or not isinstance(node.ctx, ast.Load):
            continue
        api = resolve(node, bound)
        if api is None or not any(api.startswith(n + ".") for n in names):
            continue
        if through_metadata(api):
            continue
        if scopes is not None and not scopes.binds_import(node, _head(node)):
            continue
        text = lines[node.lineno - 1].strip()
        out.append((api, Call(api, node.lineno, node.lineno, text, used=True)))
    out.sort(key=lambda u: u[1].line)
    return out


def find_method_calls(source: str, tree: ast.Module, receiver: str | None, method: str | None) -> list[Call]:
    """Calls ``<receiver>.<method>(...)``; any receiver when ``receiver`` is None (the
    ``self.bridge.save_hf_pretrained(...)`` of ``AutoBridge.save_hf_pretrained``), any
    method when ``method`` is None. ``Call.api`` is the method name."""
    lines = source.splitlines()
    out = []
    for stmt, node, where in statement_calls(tree):
        f = node.func
        if isinstance(f, ast.Attribute) and method in (None, f.attr) and (receiver is None or dotted(f.value) == receiver):
            out.append(make_call(f.attr, where, node, stmt, lines))
    out.sort(key=lambda c: c.line)
    return out


_CALLS = "_upgrade_checklists_calls"


def statement_calls(tree: ast.AST) -> list[tuple[ast.stmt, ast.Call, ast.AST]]:
    """``(stmt, call, where)`` for every call each statement below ``tree`` owns (see
    :func:`_calls_in`); ``where`` is what a call site shows: the whole simple statement,
    or the call itself in a compound statement's header. Statements in ``ast.walk``'s
    order; computed once per node and kept on it (the trees are never modified)."""
    found = tree.__dict__.get(_CALLS)
    if found is None:
        found = []
        for stmt in statements(tree):
            if stmt is tree or not isinstance(stmt, ast.stmt):
                continue
            simple = isinstance(stmt, _SIMPLE)
            for node in _calls_in(stmt, simple):
                found.append((stmt, node, (stmt if simple else node)))
        tree.__dict__[_CALLS] = found
        _mark_scopes(tree)
    return found


_SCOPE = "_upgrade_checklists_scope"
_NAMES = "_upgrade_checklists_names"
_NESTED = "_upgrade_checklists_nested"
_BODY_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _mark_scopes(tree: ast.AST) -> None:
    """Each statement below ``tree`` keeps the function (class, module) whose body holds it."""
    stack = [(tree, tree)]
    while stack:
        node, scope = stack.pop()
        for name in node._fields:
            if name not in BLOCKS:
                continue
            for x in getattr(node, name, None) or ():
                if isinstance(x, ast.AST):
                    x.__dict__[_SCOPE] = scope
                    stack.append((x, x if isinstance(x, _BODY_SCOPES) else scope))


#: calls that take any iterable (or sequence): a result only passed to them is only iterated
_ITERATING = frozenset({"len", "list", "tuple", "iter", "enumerate", "zip", "sorted", "reversed", "set", "frozenset",
                        "sum", "min", "max", "any", "all", "map", "filter"})


def _only_unpacked(stmt: ast.stmt, name: str) -> bool:
    """``name = api(...)`` and every other use of ``name`` in the same function (class, module) unpacks it
    (``a, b = name``), iterates it (``for x in name``, a comprehension, ``*name``, ``len(name)``, ``sorted(name)``)
    or reads an item of it (``name[0]``); it is never bound again. Any other use (a method, an operator,
    passing it on) says no: the call's result is then used as what it is."""
    return _only_used(stmt, name, _unpacks)


def _only_members(stmt: ast.stmt, name: str) -> bool:
    """``name = api(...)`` and every read of ``name`` in the same function reads an attribute of it
    (``name.x``, ``name.m(...)``): what the result is used for is each member read. Other values
    the name is bound to do not matter (they are read the same way)."""
    scope = stmt.__dict__.get(_SCOPE)
    if scope is None:
        return False
    own = _own_locals(scope, name)
    for node, parent in _name_index(scope).get(name, ()):
        if id(node) in own:
            continue  # a nested function's own variable of that name
        if isinstance(parent, ast.AugAssign) and parent.target is node:
            return False  # ``name += ...`` reads it whole
        if isinstance(node.ctx, ast.Load) and not (isinstance(parent, ast.Attribute) and parent.value is node):
            return False
    return True


def _own_locals(scope: ast.AST, name: str) -> set[int]:
    """The ``Name`` nodes of ``name`` inside functions nested in ``scope`` that bind ``name`` themselves
    (a parameter, or an assignment in their body): another variable than ``scope``'s."""
    out: set[int] = set()
    nested = scope.__dict__.get(_NESTED)
    if nested is None:  # once per scope: its nested functions (a call's result is asked about per call)
        nested = scope.__dict__[_NESTED] = [fn for fn in ast.walk(scope) if fn is not scope
                                            and isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    for fn in nested:
        nodes = [n for n, _parent in _name_index(fn).get(name, ())]
        params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs, fn.args.vararg, fn.args.kwarg) if a]
        if name in params or any(isinstance(n.ctx, ast.Store) for n in nodes):
            out.update(id(n) for n in nodes)
    return out


def _name_index(scope: ast.AST) -> dict[str, list[tuple[ast.Name, ast.AST]]]:
    """Once per scope: each name's nodes with their parents."""
    index = scope.__dict__.get(_NAMES)
    if index is None:
        index = {}
        for parent in ast.walk(scope):
            for child in ast.iter_child_nodes(parent):
                if isinstance(child, ast.Name):
                    index.setdefault(child.id, []).append((child, parent))
        scope.__dict__[_NAMES] = index
    return index


def _unpacks(node: ast.Name, parent: ast.AST) -> bool:
    if isinstance(parent, ast.Assign) and parent.value is node and all(isinstance(t, (ast.Tuple, ast.List)) for t in parent.targets):
        return True
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is node:
        return True
    if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.ctx, ast.Load):
        return True
    if isinstance(parent, ast.Starred):
        return True
    return (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in _ITERATING
            and node in parent.args)


def _only_used(stmt: ast.stmt, name: str, ok) -> bool:
    """Every use of ``name`` in ``stmt``'s function (class, module), but its binding by ``stmt``,
    passes ``ok(node, parent)``, and ``name`` is never bound again."""
    scope = stmt.__dict__.get(_SCOPE)
    if scope is None:
        return False
    for node, parent in _name_index(scope).get(name, ()):
        if isinstance(node.ctx, ast.Store):
            if node in stmt.targets:  # type: ignore[attr-defined]
                continue
            return False  # bound again: what a later use reads is not known to be this result
        if isinstance(node.ctx, ast.Del) or ok(node, parent):
            continue
        return False
    return True


def make_call(api: str, where: ast.AST, node: ast.Call, stmt: ast.stmt, lines: list[str]) -> Call:
    target = None
    if isinstance(stmt, ast.Assign) and stmt.value is node and len(stmt.targets) == 1:
        target = dotted(stmt.targets[0])
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is node:
        target = dotted(stmt.target)
    return Call(
        api, where.lineno, where.end_lineno or where.lineno, _segment(lines, where),
        positional=sum(1 for a in node.args if not isinstance(a, ast.Starred)),
        keywords=[k.arg for k in node.keywords if k.arg],
        star_args=any(isinstance(a, ast.Starred) for a in node.args),
        star_kwargs=any(k.arg is None for k in node.keywords),
        used=not (isinstance(stmt, ast.Expr) and stmt.value is node),
        assigned_to=target,
        node=node,
        unpacked=(isinstance(stmt, ast.Assign) and stmt.value is node and len(stmt.targets) == 1
                  and isinstance(stmt.targets[0], (ast.Tuple, ast.List)))
        or (isinstance(stmt, (ast.For, ast.AsyncFor)) and stmt.iter is node)
        # ``r = api(...)`` then only ``a, b = r`` / ``for x in r`` / ``r[0]`` in the same function
        or (isinstance(stmt, ast.Assign) and stmt.value is node and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name) and _only_unpacked(stmt, stmt.targets[0].id)),
        # ``r = api(...)`` then only ``r.x`` / ``r.m()`` in the same function: each member is checked where read
        members_only=(isinstance(stmt, ast.Assign) and stmt.value is node and len(stmt.targets) == 1
                      and isinstance(stmt.targets[0], ast.Name) and _only_members(stmt, stmt.targets[0].id))
        or any(isinstance(p, ast.Attribute) and p.value is node
               for r in _roots(stmt, isinstance(stmt, _SIMPLE)) for p in ast.walk(r)),  # ``api(...).x``
        targets=unpacked_into(stmt, node),
    )


def unpacked_into(stmt: ast.stmt, node: ast.AST) -> int:
    """How many names ``stmt`` unpacks the value ``node`` into (``a, b, c = node``: 3); 0 when it
    does not assign it to one tuple or list of targets, or one of them is starred."""
    if not (isinstance(stmt, ast.Assign) and stmt.value is node and len(stmt.targets) == 1):
        return 0
    t = stmt.targets[0]
    if not isinstance(t, (ast.Tuple, ast.List)) or any(isinstance(e, ast.Starred) for e in t.elts):
        return 0
    return len(t.elts)


def _calls_in(stmt: ast.stmt, simple: bool):
    """Calls belonging to this statement: all of a simple one, the header of a compound one."""
    for root in _roots(stmt, simple):
        for node in walk(root):
            if isinstance(node, ast.Call):
                yield node


def _roots(stmt: ast.stmt, simple: bool) -> list[ast.AST]:
    """What a statement's own calls are under: a simple statement whole, a compound one's header (not its body)."""
    if simple:
        return [stmt]
    roots = [getattr(stmt, f) for f in ("test", "iter", "items", "subject", "value", "decorator_list") if getattr(stmt, f, None)]
    return [x for r in roots for x in (r if isinstance(r, list) else [r])]


def _segment(lines: list[str], node: ast.AST) -> str:
    first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    if first == last:
        return lines[first][node.col_offset : node.end_col_offset].strip()
    chunk = [lines[first][node.col_offset :]] + lines[first + 1 : last] + [lines[last][: node.end_col_offset]]
    indent = min((len(l) - len(l.lstrip()) for l in chunk[1:] if l.strip()), default=0)
    base = min(indent, node.col_offset)
    return "\n".join([chunk[0].rstrip()] + [l[base:].rstrip() for l in chunk[1:]])


#: decorators that make a ``def`` something other than a plain method
NOT_METHODS = frozenset({"property", "cached_property", "setter", "getter", "deleter", "overload", "abstractproperty"})


def decorator_name(d: ast.AST) -> str | None:
    """The last name of a decorator as written (``functools.cache`` -> ``cache``, ``x.setter`` -> ``setter``)."""
    name = dotted(d.func if isinstance(d, ast.Call) else d)
    return name.rsplit(".", 1)[-1] if name else None
