"""Names a module keeps importable without defining them: compatibility aliases.

griffe sees what a module defines and imports. Packages keep old paths working in
ways it does not follow, all of which we read statically from the module's source:

- a **legacy alias table**: a dict literal mapping the old name to a module
  (``{"tokenization_utils_fast": "tokenization_utils_tokenizers"}``), or a call
  given the old dotted path and the new one
  (``_create_alias(f"{__name__}.old", ".new")``);
- **``sys.modules`` aliasing**: ``sys.modules[f"{__name__}.old"] = new``;
- a module-level **``__getattr__``** that serves the name (``if name == "old":``,
  ``name in (...)``, a dict it looks the name up in); when the branch that serves
  it calls ``warnings.warn``, the name is deprecated and the warning text is kept.

A name kept by plain assignment (``Old = New``) is followed by ``api.py``.

:class:`GetattrReader` goes further for a module with a ``__getattr__`` or a lazy table: it
runs them for one name, statically, and says whether the name is served (where from, with
which warning), refused (with upstream's message; ``removed`` when a test singled the name
out) or cannot be decided.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from upgrade_checklists.core.astwalk import import_map, module_level, star_base
from upgrade_checklists.audit.deprecation import CATEGORIES, _message, warning_in


_DOTTED = re.compile(r"^\.*[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")


@dataclass(frozen=True)
class Served:
    """How a module serves a name it does not define."""

    targets: tuple[str, ...]  # dotted candidates for what it is (first that resolves wins); () when unknown
    via: str  # "legacy alias table", "sys.modules alias", "module __getattr__"
    line: int
    warning: str | None = None  # the deprecation warning's text, when serving it warns


class SourceCache:
    """Parsed module sources, by file (a module is read at most once per audit)."""

    def __init__(self) -> None:
        self._trees: dict[Path, ast.Module | None] = {}

    def tree(self, path: Path | None, keep: bool = True) -> ast.Module | None:
        """The parsed source at ``path`` (None: unreadable); ``keep=False``: not kept when not kept already
        (a reader that keeps what it needs of it: the tree of a module is some 20 times its text)."""
        if path is None:
            return None
        if path in self._trees:
            return self._trees[path]
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        if keep:
            self._trees[path] = tree
        return tree


def _text(node: ast.AST, modname: str) -> str | None:
    """A string constant, or an f-string made only of text and ``__name__`` / ``__package__``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = ""
        for v in node.values:
            if isinstance(v, ast.Constant) and isinstance(v.value, str):
                out += v.value
            elif isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name) and v.value.id in ("__name__", "__package__"):
                out += modname
            else:
                return None
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left, modname), _text(node.right, modname)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.Name) and node.id in ("__name__", "__package__"):
        return modname
    return None


def _targets(value: str, package: str) -> tuple[str, ...]:
    """Where a target string may point: relative to the package, or absolute."""
    if value.startswith("."):
        return (package + value,)
    return (f"{package}.{value}", value)


def served(tree: ast.Module, modname: str, is_package: bool, name: str) -> Served | None:
    """How module ``modname`` (its source ``tree``) serves ``name`` without defining it, if it does."""
    full = f"{modname}.{name}"
    package = modname if is_package else modname.rpartition(".")[0]
    keys = {name, full}
    best: Served | None = None
    getattr_fn = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "__getattr__"), None)
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if k is not None and _text(k, modname) in keys:
                    value = _text(v, modname)
                    if value and _DOTTED.match(value):  # a module path (not a message about the name)
                        found = Served(_targets(value, package), "legacy alias table", node.lineno)
                        best = best or found
        elif isinstance(node, ast.Call):
            args = [_text(a, modname) for a in node.args]
            if full in args and len(args) >= 2:
                others = [a for a in args if a and a != full]
                if others:
                    best = best or Served(_targets(others[0], package), "legacy alias table", node.lineno)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if (isinstance(t, ast.Subscript) and ast.unparse(t.value) == "sys.modules"
                        and _text(t.slice, modname) == full):
                    value = node.value
                    target = ast.unparse(value) if isinstance(value, (ast.Name, ast.Attribute)) else None
                    best = best or Served((f"{modname}.{target}", target) if target else (), "sys.modules alias", node.lineno)
    if getattr_fn is not None:
        via = _getattr_branch(getattr_fn, name, full, modname)
        if via is not None:
            branch, line = via
            warning = warning_in(branch, getattr_fn)
            if best is not None:
                return Served(best.targets, best.via, best.line, warning)
            return Served(_getattr_target(branch, modname, package), "module __getattr__", line, warning)
    return best


def _getattr_branch(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str, full: str, modname: str):
    """The statements of ``__getattr__`` that serve ``name`` (an ``if`` branch, or the whole
    function when it looks the name up in a table), with the line that names it."""
    for node in ast.walk(fn):
        if isinstance(node, ast.If):
            for sub in ast.walk(node.test):
                if isinstance(sub, ast.Constant) and sub.value in (name, full):
                    return node.body, node.lineno
    for node in ast.walk(fn):
        if isinstance(node, ast.Constant) and node.value in (name, full):
            return fn.body, node.lineno
    return None


def _getattr_target(body: list[ast.stmt], modname: str, package: str) -> tuple[str, ...]:
    """What the branch returns, when it says statically: ``import_module("x")`` or a name
    (imported in the branch, or the module's own)."""
    imported: dict[str, str] = {}
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.ImportFrom) and node.module is not None:
                base = node.module if not node.level else ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], node.module])
                for a in node.names:
                    imported[a.asname or a.name] = f"{base}.{a.name}"
            elif isinstance(node, ast.Import):
                for a in node.names:
                    imported[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("import_module") and node.args:
                value = _text(node.args[0], modname)
                if value:
                    return _targets(value, package)
            if isinstance(node, ast.Return) and isinstance(node.value, (ast.Name, ast.Attribute)):
                text = ast.unparse(node.value)
                head, _, rest = text.partition(".")
                if head in imported:
                    return (imported[head] + (f".{rest}" if rest else ""),)
                return (f"{modname}.{text}",)
    return ()


# -- a module's __getattr__ (and lazy tables), run statically for one name -----------------------------


@dataclass(frozen=True)
class Gone:
    """A name a module's ``__getattr__`` refuses: ``removed`` when it names this very name (a table of
    removed names, ``name == "x"``), else the fallthrough for any name it does not serve."""

    removed: bool
    message: str
    line: int


class Undecided(Exception):
    """What a module's ``__getattr__`` does for a name cannot be told statically."""


_MISSING = object()


class GetattrReader:
    """Runs module ``modname``'s ``__getattr__`` (or the lazy table it hands to a lazy module) for
    one name, statically: each ``if`` is decided when its test compares the name with constants
    or looks it up in a table the module spells (a dict, set, list or tuple of strings, also one
    imported from a sibling module, ``__all__``), or tests what such a dict's ``.get(name)`` gave; ``warnings.warn(..., DeprecationWarning)`` is a
    deprecation; ``raise`` is a refusal (:class:`Gone`); ``return`` serves a target (an import,
    ``getattr(mod, name)``, ``globals()[...]``, ``import_module(...)``, a table's value). What it
    cannot decide raises :class:`Undecided`. ``load(dotted)`` gives another module's tree."""

    def __init__(self, tree: ast.Module, modname: str, is_package: bool, load=None, stub: ast.Module | None = None) -> None:
        self.tree = tree
        self.modname = modname
        self.package = modname if is_package else modname.rpartition(".")[0]
        self.load = load or (lambda dotted: None)
        self.top = list(module_level(tree.body))
        self.fn = next((n for n in self.top if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "__getattr__"), None)
        self.lazy = self._lazy_table()
        self._tables: dict[str, object] = {}
        #: ``lazy_loader.attach(...)`` / ``attach_stub(...)`` (``stub``: the ``.pyi`` beside the module):
        #: (submodules, attribute -> submodule), or an Undecided message; None when the module has none
        self.attach = self._attach(stub)

    @property
    def active(self) -> bool:
        return self.fn is not None or self.lazy is not None or self.attach is not None

    def _attach(self, stub: ast.Module | None):
        """``__getattr__, __dir__, __all__ = lazy.attach(__name__, submodules=[...], submod_attrs={...})`` or
        ``lazy.attach_stub(__name__, __file__)`` (scientific-python's lazy_loader): what it serves, read statically."""
        for node in self.top:
            if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
                continue
            func = node.value.func
            how = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if how not in ("attach", "attach_stub") or not any(
                    isinstance(n, ast.Name) and n.id == "__getattr__" for t in node.targets for n in ast.walk(t)):
                continue
            if how == "attach_stub":
                return _stub_table(stub) if stub is not None else f"`{self.modname}` attaches its stub, which is not in the source"
            args = {k.arg: k.value for k in node.value.keywords if k.arg}
            pos = node.value.args[1:]
            subs_node = args.get("submodules", pos[0] if pos else None)
            attrs_node = args.get("submod_attrs", pos[1] if len(pos) > 1 else None)
            subs = self._value(subs_node) if subs_node is not None else []
            attrs = self._value(attrs_node) if attrs_node is not None else {}
            if not isinstance(subs, (list, tuple, set)) or not isinstance(attrs, dict) or not all(
                    isinstance(v, (list, tuple, set)) for v in attrs.values()):
                return f"`{self.modname}`: the tables given to `{how}` are not spelt out (line {node.lineno})"
            return set(subs), {a: mod for mod, names in attrs.items() for a in names}
        return None

    def _value(self, node: ast.AST):
        if isinstance(node, ast.Name):
            value = self.table(node.id)
            return None if value is _MISSING else value
        value = _literal(node)
        return None if value is _MISSING else value

    # -- what the module spells at its top level --------------------------------------------------

    def _imported(self, local: str) -> str | None:
        """The dotted path a module-level import binds to ``local``."""
        for node in self.top:
            if isinstance(node, ast.ImportFrom):
                base = self._base(node)
                for a in node.names:
                    if (a.asname or a.name) == local and a.name != "*":
                        return f"{base}.{a.name}" if base else a.name
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname == local:
                        return a.name
                    if a.asname is None and a.name.split(".")[0] == local:
                        return local
        return None

    def _base(self, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        parts = self.package.split(".")
        keep = len(parts) - node.level + 1
        return ".".join(parts[:max(keep, 0)] + ([node.module] if node.module else []))

    def table(self, name: str, depth: int = 0):
        """A module-level dict / set / list / tuple of constants called ``name`` (with what the module adds
        to it: ``T[k] = v``, ``T.update({...})``, ``T[k].extend([...])``, ``+=``), else _MISSING."""
        if name in self._tables:
            return self._tables[name]
        value: object = _MISSING
        for node in self.top:
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == name for t in targets) and node.value is not None:
                    value = _literal(node.value)
                    if value is _MISSING and isinstance(node.value, (ast.DictComp, ast.SetComp)):
                        value = self._comprehension(node.value)
            elif isinstance(node, (ast.ImportFrom,)) and depth < 3:
                for a in node.names:
                    if (a.asname or a.name) == name and a.name != "*":
                        other = self.load(self._base(node))
                        if other is not None:
                            sub = GetattrReader(other, self._base(node), True, self.load)
                            value = sub.table(a.name, depth + 1)
        if value is not _MISSING:
            value = _grown(value, name, self.tree)
        self._tables[name] = value
        return value

    def _comprehension(self, node: ast.DictComp | ast.SetComp):
        """``{n: ... for n, x in ITEMS}`` (or ``{n for ...}``) over a module-level list of tuples or
        constants: its keys (the values are not needed to decide ``name in table``), else _MISSING."""
        key = node.key if isinstance(node, ast.DictComp) else node.elt
        if len(node.generators) != 1 or node.generators[0].ifs or not isinstance(node.generators[0].iter, ast.Name):
            return _MISSING
        gen = node.generators[0]
        target = gen.target.elts[0] if isinstance(gen.target, ast.Tuple) and gen.target.elts else gen.target
        if not (isinstance(key, ast.Name) and isinstance(target, ast.Name) and key.id == target.id):
            return _MISSING
        source = next((n.value for n in self.top if isinstance(n, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == gen.iter.id for t in n.targets)), None)
        if not isinstance(source, (ast.List, ast.Tuple, ast.Set)):
            return _MISSING
        keys = []
        for elt in source.elts:
            first = elt.elts[0] if isinstance(elt, ast.Tuple) and isinstance(gen.target, ast.Tuple) and elt.elts else elt
            value = _literal(first)
            if value is _MISSING or isinstance(value, (dict, list, set)):
                return _MISSING
            keys.append(value)
        return {k: None for k in keys} if isinstance(node, ast.DictComp) else set(keys)

    def _lazy_table(self):
        """``sys.modules[__name__] = _LazyModule(__name__, ..., TABLE, ...)``: TABLE maps a submodule to the
        names it defines (the module serves ``name`` from the submodule listing it)."""
        for node in self.top:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript)
                    and ast.unparse(node.targets[0].value) == "sys.modules" and isinstance(node.value, ast.Call)):
                for arg in [*node.value.args, *(k.value for k in node.value.keywords)]:
                    if isinstance(arg, ast.Name) and arg.id not in ("__name__", "__file__", "__spec__"):
                        return arg.id
        return None

    # -- running it ----------------------------------------------------------------------------------

    def run(self, name: str):
        """What the module does when ``name`` is read and not otherwise found: a Served, a Gone, or
        raises Undecided."""
        if isinstance(self.attach, str):
            raise Undecided(self.attach)
        if self.attach is not None and self.fn is None:
            submodules, attrs = self.attach
            if name in submodules:
                return Served((f"{self.package}.{name}",), "lazy table", 1)
            if name in attrs:
                return Served((f"{self.package}.{attrs[name]}.{name}",), "lazy table", 1)
            return Gone(False, f"No {self.modname} attribute {name}", 1)
        if self.lazy is not None:
            table = self.table(self.lazy)
            if not isinstance(table, dict):
                raise Undecided(f"the lazy table `{self.lazy}` of `{self.modname}` is not spelt out")
            for key, names in table.items():
                if key == name:
                    return Served((f"{self.package}.{key}",), "lazy table", 1)
                if isinstance(names, (list, tuple, set, frozenset)) and name in names:
                    return Served((f"{self.package}.{key}.{name}",), "lazy table", 1)
            if self.fn is None:
                return Gone(False, f"module '{self.modname}' has no attribute '{name}'", 1)
        fn = self.fn
        args = fn.args.posonlyargs + fn.args.args
        if not args:
            raise Undecided(f"`{self.modname}.__getattr__` takes no name")
        state = _State(args[0].arg, name)
        result = self._block(fn.body, state)
        if result is None:
            raise Undecided(f"`{self.modname}.__getattr__` ends without returning for `{name}`")
        return result

    def _block(self, body: list[ast.stmt], st: _State):
        for stmt in body:
            out = self._stmt(stmt, st)
            if out is not None:
                return out
        return None

    def _stmt(self, stmt: ast.stmt, st: _State):
        if isinstance(stmt, ast.If):
            test = self._test(stmt.test, st)
            if test is None:
                raise Undecided(f"`{self.modname}.__getattr__`: cannot decide `if {ast.unparse(stmt.test)}` (line {stmt.lineno})")
            if test:
                st.specific |= _names_it(stmt.test, st.param)
                return self._block(stmt.body, st)
            return self._block(stmt.orelse, st)
        if isinstance(stmt, ast.Raise):
            exc = stmt.exc
            msg_node = exc.args[0] if isinstance(exc, ast.Call) and exc.args else None
            message = self._string(msg_node, st) if msg_node is not None else f"module '{self.modname}' has no attribute '{st.name}'"
            return Gone(st.specific, message or "", stmt.lineno)
        if isinstance(stmt, ast.Expr):
            msg = warn_message(stmt.value)
            if msg is not None and st.warning is None:
                filled = self._string(stmt.value.args[0], st) if stmt.value.args else None
                st.warning = filled or msg
            elif msg is None and st.warning is None:
                st.warning = self._helper_warning(stmt.value, st)
            return None
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for a in stmt.names:
                if isinstance(stmt, ast.ImportFrom) and a.name != "*":
                    base = self._base(stmt)
                    st.locals[a.asname or a.name] = ("path", f"{base}.{a.name}" if base else a.name)
                elif isinstance(stmt, ast.Import):
                    st.locals[a.asname or a.name.split(".")[0]] = ("path", a.name if a.asname else a.name.split(".")[0])
            return None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            st.locals[stmt.targets[0].id] = ("value", stmt.value)
            return None
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], (ast.Tuple, ast.List))
                and all(isinstance(e, ast.Name) for e in stmt.targets[0].elts)):
            row = self._row(stmt.value, st)
            if row is not None and len(row) == len(stmt.targets[0].elts):  # ``obj, new, when = TABLE[name]``
                for e, v in zip(stmt.targets[0].elts, row):
                    st.locals[e.id] = ("value", v)
                return None
        if isinstance(stmt, ast.Return):
            target = self._target(stmt.value, st) if stmt.value is not None else ()
            return Served(target, "module __getattr__", stmt.lineno, st.warning)
        if isinstance(stmt, (ast.Try, ast.With)):
            return self._block(stmt.body, st)
        if isinstance(stmt, (ast.Pass, ast.Global, ast.Nonlocal, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return None
        raise Undecided(f"`{self.modname}.__getattr__`: cannot follow line {stmt.lineno}")

    def _helper_warning(self, node: ast.AST, st: _State) -> str | None:
        """``helper(...)``, a function upstream defines at module level whose body gives, as one of its own
        statements (not under an ``if``), ``warn(message, category)`` with a deprecation category: a
        DeprecationWarning / FutureWarning / PendingDeprecationWarning, a class of the helper's module
        deriving from one, or a local the helper sets only to such classes. What the warning says
        (Sphinx's ``_deprecation_warning``), else None."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            return None
        local = node.func.id
        if local in st.locals:
            kind, value = st.locals[local]
            if kind != "path":
                return None
            dotted = value
        else:
            dotted = self._imported(local) or f"{self.modname}.{local}"
        modname, _, fname = dotted.rpartition(".")
        tree = self.tree if modname == self.modname else self.load(modname)
        if tree is None:
            return None
        top = list(module_level(tree.body))
        fn = next((n for n in top if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == fname), None)
        if fn is None:
            return None
        allowed = set(CATEGORIES) | {n.name for n in top if isinstance(n, ast.ClassDef) and any(
            ast.unparse(b).rpartition(".")[2] in CATEGORIES for b in n.bases)}
        assigned: dict[str, set[str]] = {}
        messages: dict[str, ast.AST] = {}
        for n in ast.walk(fn):
            if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None:
                for t in n.targets if isinstance(n, ast.Assign) else [n.target]:
                    if isinstance(t, ast.Name):
                        assigned.setdefault(t.id, set()).add(ast.unparse(n.value))
                        messages[t.id] = n.value
        for stmt in fn.body:
            call = stmt.value if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) else None
            if call is None or (call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)) != "warn":
                continue
            category = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "category"), None)
            if category is None:
                continue
            names = assigned.get(category.id, set()) if isinstance(category, ast.Name) and category.id in assigned else {ast.unparse(category)}
            if names and all(n.rpartition(".")[2] in allowed for n in names):
                text = _message(call.args[0]) if call.args else ""
                return text if text and not (isinstance(call.args[0], ast.Name) and call.args[0].id in messages) else (
                    f"`{dotted}` gives a {' or '.join(sorted(names))}")
        return None

    def _row(self, node: ast.AST, st: _State) -> list[ast.expr] | None:
        """``TABLE[name]`` where TABLE is a module-level dict literal whose entry for the name is a tuple
        or list: that entry's elements (as spelt, to resolve each like a returned expression), else None."""
        if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id not in st.locals):
            return None
        key = node.slice
        if not ((isinstance(key, ast.Name) and key.id == st.param) or self._string(key, st) == st.name):
            return None
        for top in self.top:
            targets = top.targets if isinstance(top, ast.Assign) else [top.target] if isinstance(top, ast.AnnAssign) else []
            if any(isinstance(t, ast.Name) and t.id == node.value.id for t in targets) and isinstance(top.value, ast.Dict):
                for k, v in zip(top.value.keys, top.value.values):
                    if k is not None and _literal(k) == st.name and isinstance(v, (ast.Tuple, ast.List)):
                        return list(v.elts)
        return None

    def _container(self, node: ast.AST, st: _State):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            values = [_literal(e) for e in node.elts]
            return None if any(v is _MISSING for v in values) else values
        if isinstance(node, ast.Dict):
            value = _literal(node)
            return None if value is _MISSING else value
        if isinstance(node, ast.Name):
            if node.id in st.locals:
                kind, v = st.locals[node.id]
                return self._container(v, st) if kind == "value" else None
            value = self.table(node.id)
            return None if value is _MISSING else value
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "keys" and not node.args:
            return self._container(node.func.value, st)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("set", "frozenset", "list", "tuple") and len(node.args) == 1:
            return self._container(node.args[0], st)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "globals" and not node.args:
            return None
        return None

    def _looked_up(self, node: ast.AST, st: _State) -> ast.AST | None:
        """What a local bound to ``TABLE.get(name)`` (``TABLE.get(name, default)``) holds, as a node: the
        table's value for the name (its entry in the module's dict display), else the default (``None``);
        None when that cannot be told (not such a local, a table not spelt out, an entry added elsewhere)."""
        if not (isinstance(node, ast.Name) and node.id != st.param and node.id in st.locals):
            return None
        kind, call = st.locals[node.id]
        if not (kind == "value" and isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "get" and 1 <= len(call.args) <= 2 and not call.keywords
                and isinstance(call.func.value, ast.Name) and self._scalar(call.args[0], st) is not None):
            return None
        box = self._container(call.func.value, st)
        if not isinstance(box, dict):
            return None
        key = self._scalar(call.args[0], st)
        if key not in box:
            return call.args[1] if len(call.args) == 2 else ast.Constant(None)
        for n in self.top:  # the entry as the module spells it
            if (isinstance(n, ast.Assign) and isinstance(n.value, ast.Dict)
                    and any(isinstance(t, ast.Name) and t.id == call.func.value.id for t in n.targets)):
                for k, v in zip(n.value.keys, n.value.values):
                    if k is not None and _literal(k) == key:
                        return v
        return None

    def _test(self, node: ast.AST, st: _State):
        """True / False / None (cannot tell)."""
        if isinstance(node, ast.Name) and node.id != st.param:  # ``found = TABLE.get(name)`` … ``if found:``
            return _truth(self._looked_up(node, st))
        if (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot))
                and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None):
            got = self._looked_up(node.left, st)  # ``if found is None:``
            if isinstance(got, ast.Constant):
                none = got.value is None
            elif isinstance(got, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
                none = False
            else:
                return None
            return none if isinstance(node.ops[0], ast.Is) else not none
        if isinstance(node, ast.BoolOp):
            values = [self._test(v, st) for v in node.values]
            if isinstance(node.op, ast.And):
                return False if False in values else None if None in values else True
            return True if True in values else None if None in values else False
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            v = self._test(node.operand, st)
            return None if v is None else not v
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, op, right = node.left, node.ops[0], node.comparators[0]
            if isinstance(op, (ast.Eq, ast.NotEq)):
                a, b = self._scalar(left, st), self._scalar(right, st)
                if a is None or b is None:
                    return None
                return (a == b) if isinstance(op, ast.Eq) else (a != b)
            if isinstance(op, (ast.In, ast.NotIn)):
                a = self._scalar(left, st)
                box = self._container(right, st)
                if a is None or box is None:
                    return None
                return (a in box) if isinstance(op, ast.In) else (a not in box)
            return None
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("startswith", "endswith")
                and len(node.args) == 1):
            a = self._scalar(node.func.value, st)
            b = _literal(node.args[0])
            if a is None or b is _MISSING:
                return None
            b = tuple(b) if isinstance(b, list) else b
            try:
                return a.startswith(b) if node.func.attr == "startswith" else a.endswith(b)
            except TypeError:
                return None
        return None

    def _scalar(self, node: ast.AST, st: _State) -> str | None:
        if isinstance(node, ast.Name) and node.id == st.param:
            return st.name
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        return None

    def _string(self, node: ast.AST | None, st: _State) -> str | None:
        """A message's text, the name and table look-ups filled in, other placeholders kept as ``{expr}``."""
        if node is None:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            if node.id == st.param:
                return st.name
            if node.id in ("__name__", "__package__"):
                return self.modname
            if node.id in st.locals and st.locals[node.id][0] == "value":
                return self._string(st.locals[node.id][1], st)
        if isinstance(node, ast.JoinedStr):
            out = ""
            for v in node.values:
                if isinstance(v, ast.Constant):
                    out += str(v.value)
                elif isinstance(v, ast.FormattedValue):
                    inner = self._string(v.value, st)
                    if inner is not None and v.conversion == ord("r"):
                        inner = repr(inner)
                    out += inner if inner is not None else "{" + ast.unparse(v.value) + "}"
            return out
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self._string(node.left, st), self._string(node.right, st)
            return None if left is None or right is None else left + right
        if isinstance(node, ast.Subscript) and self._scalar(node.slice, st) is not None:
            box = self._container(node.value, st)
            if isinstance(box, dict):
                value = box.get(self._scalar(node.slice, st))
                return value if isinstance(value, str) else None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
            template = self._string(node.func.value, st)
            args = [self._string(a, st) for a in node.args]
            if template is None or node.keywords or None in args:
                return template
            try:  # ``"module {!r} has no attribute {!r}".format(__name__, attr)``: filled as Python fills it
                return template.format(*args)
            except (IndexError, KeyError, ValueError, TypeError):
                return template
        return None

    def _target(self, node: ast.AST, st: _State) -> tuple[str, ...]:
        """Where the returned object is defined (dotted candidates; () when it does not say: served all the same)."""
        if isinstance(node, ast.Name):
            if node.id in st.locals:
                kind, v = st.locals[node.id]
                return (v,) if kind == "path" else self._target(v, st)
            imported = self._imported(node.id)
            return (imported,) if imported else (f"{self.modname}.{node.id}",)
        if isinstance(node, ast.Attribute):
            head = self._target(node.value, st)
            return tuple(f"{h}.{node.attr}" for h in head)
        if isinstance(node, ast.Subscript):
            if isinstance(node.value, ast.Call) and ast.unparse(node.value.func) == "globals":
                key = self._string(node.slice, st)
                if key is None:
                    return ()
                return (f"{self.modname}.{key}",)
            value = self._string(node, st)
            if value is not None:
                return _targets(value, self.package)
        if isinstance(node, ast.Call):
            func = ast.unparse(node.func)
            if func == "getattr" and len(node.args) >= 2:
                attr = self._string(node.args[1], st)
                if attr is None:
                    return ()
                return tuple(f"{h}.{attr}" for h in self._target(node.args[0], st))
            if func.endswith("import_module") and node.args:
                mod = self._string(node.args[0], st)
                if mod is None:
                    return ()
                if mod.startswith("."):
                    anchor = self._string(node.args[1], st) if len(node.args) > 1 else self.package
                    return ((anchor or self.package) + mod,)
                return (mod,)
        return ()


@dataclass
class _State:
    param: str
    name: str
    locals: dict = field(default_factory=dict)
    warning: str | None = None
    specific: bool = False  # a test that named this name (==, in) was true on the way


def _stub_table(stub: ast.Module):
    """What ``lazy_loader.attach_stub`` reads from a stub: ``from . import m`` (a submodule) and
    ``from .m import a, b`` (attributes of submodule ``m``); anything else it refuses, and so do we."""
    submodules: set[str] = set()
    attrs: dict[str, str] = {}
    for node in stub.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            for a in node.names:
                if node.module is None:
                    submodules.add(a.name)
                elif a.name != "*":
                    attrs[a.name] = node.module
                else:
                    return "the stub imports `*`: lazy_loader refuses it"
    return submodules, attrs


def _names_it(test: ast.AST, param: str) -> bool:
    """``test`` holds ``name == ...`` or ``name in ...`` (a test that singles the name out)."""
    for n in ast.walk(test):
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Eq, ast.In)):
            if any(isinstance(x, ast.Name) and x.id == param for x in (n.left, n.comparators[0])):
                return True
    return False


def _truth(node: ast.AST | None) -> bool | None:
    """Whether a value spelt as ``node`` is true: a constant, a display (a tuple, list, set or dict, by
    whether it has elements); None when that cannot be told."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts)
    if isinstance(node, ast.Dict):
        return bool(node.keys)
    return None


def _literal(node: ast.AST):
    """A constant, or a dict / list / tuple / set of them (keys and values), else _MISSING."""
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("set", "frozenset") and len(node.args) <= 1:
            inner = _literal(node.args[0]) if node.args else []
            if inner is _MISSING:
                return _MISSING
            try:
                return set(inner)
            except TypeError:  # an unhashable member (`set([[1]])`): not a value we can read
                return _MISSING
        if isinstance(node, ast.Dict):  # keys constants, values what they are
            out = {}
            for k, v in zip(node.keys, node.values):
                if k is None:
                    return _MISSING
                key = _literal(k)
                if key is _MISSING or isinstance(key, (dict, list, set)):
                    return _MISSING
                out[key] = _literal(v)
            return out
        return _MISSING
    return value


def _grown(value, name: str, tree: ast.Module):
    """What the module adds to table ``name`` at module level."""
    if isinstance(value, (tuple, frozenset)):
        value = list(value) if isinstance(value, tuple) else set(value)
    for stmt in module_level(tree.body):
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
            more = _literal(stmt.value)
            if more is _MISSING:
                return _MISSING
            if isinstance(value, list) and isinstance(more, (list, tuple)):
                value = value + list(more)
            elif isinstance(value, set):
                value = value | set(more)
            else:
                return _MISSING
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript):
            t = stmt.targets[0]
            if isinstance(t.value, ast.Name) and t.value.id == name and isinstance(value, dict):
                key = _literal(t.slice)
                if key is _MISSING:
                    return _MISSING
                value[key] = _literal(stmt.value)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute):
            f = stmt.value.func
            args = [_literal(a) for a in stmt.value.args]
            if isinstance(f.value, ast.Name) and f.value.id == name:
                if any(a is _MISSING for a in args):
                    return _MISSING
                if f.attr == "update" and isinstance(value, dict) and args and isinstance(args[0], dict):
                    value.update(args[0])
                elif f.attr in ("append", "add") and args:
                    value = value + [args[0]] if isinstance(value, list) else (value | {args[0]}) if isinstance(value, set) else _MISSING
                elif f.attr == "extend" and args and isinstance(value, list):
                    value = value + list(args[0])
                if value is _MISSING:
                    return _MISSING
            elif (isinstance(f.value, ast.Subscript) and isinstance(f.value.value, ast.Name) and f.value.value.id == name
                  and isinstance(value, dict) and f.attr in ("append", "extend")):
                key = _literal(f.value.slice)
                if key is _MISSING or any(a is _MISSING for a in args) or not args:
                    return _MISSING
                cur = list(value.get(key) or [])
                value[key] = cur + ([args[0]] if f.attr == "append" else list(args[0]))
    return value


def warn_message(node: ast.AST) -> str | None:
    """The message of a deprecation ``warnings.warn`` call (see deprecation.py), else None."""
    from upgrade_checklists.audit.deprecation import _warn_call

    return _warn_call(node)


# -- ``from M import *`` as Python runs it ---------------------------------------------------------------


class StarExports:
    """What ``from M import *`` binds, read statically from M's source as Python runs it: M's
    ``__all__`` when it has one (lists, tuples and sets of strings, ``+``, ``+=``, ``.extend``,
    ``.append``, ``.insert``, ``.remove``, ``list(...)``/``sorted(...)``, ``X.__all__`` of a module
    it imports, and a helper of the module's own called at module level that appends each name of
    its argument's ``__all__``), else its public names. griffe reads the same from its own model,
    where two things fall short of Python: a stub beside a module replaces the module's ``__all__``
    with the stub's (``__all__: list[str]``, an empty list), and ``__all__`` grown by calls is not
    read; names then missing from the modules that import M with ``*`` are what :meth:`exposed`
    gives back.

    Where ``__all__`` also grows in a way not read (a loop appending names computed at run time),
    the names read are certainly there and more may be: M is then in ``partial``.

    ``load(dotted)`` gives ``(tree, is_package)`` of a module's ``.py`` source (else its stub), or None.
    What is read of a module is kept (its ``__all__``, the modules it imports with ``*``), its tree is not:
    ``load`` is asked once a module (but in cycles), and may parse it anew each time."""

    def __init__(self, load) -> None:
        self.load = load
        self._memo: dict[str, list[str] | None] = {}
        self._all: dict[str, object] = {}
        self._bases: dict[str, list[str] | None] = {}  # module -> the modules it imports with ``*`` (None: no source)
        #: modules whose names given are a lower bound (more may be bound at run time)
        self.partial: set[str] = set()

    def exposed(self, dotted: str, _seen: frozenset = frozenset()) -> list[str] | None:
        """The names ``from dotted import *`` binds that griffe's expansion may have missed: every name of
        ``__all__``, or (a module without one) the public names its own ``*`` imports bring (griffe sees
        what it binds itself). None when that cannot be told statically."""
        if dotted in self._memo:
            return self._memo[dotted]
        if dotted in _seen:
            return None  # a cycle of * imports: not decided here
        result = self._exposed(dotted, _seen | {dotted})
        if not _seen:
            self._memo[dotted] = result
        return result

    def _exposed(self, dotted: str, seen: frozenset) -> list[str] | None:
        declared = self.all_of(dotted, seen)  # (None when there is no source)
        if declared is not _MISSING:
            return declared  # type: ignore[return-value]
        bases = self._star_bases(dotted)
        if bases is None:
            return None
        out: list[str] = []
        for base in bases:
            more = self.exposed(base, seen)
            if more is None:
                return None
            if base in self.partial:
                self.partial.add(dotted)
            out += [n for n in more if not n.startswith("_") and n not in out]
        return out

    def _star_bases(self, dotted: str) -> list[str] | None:
        """The modules ``dotted`` imports with ``*`` at module level, in its order (None: no source)."""
        if dotted not in self._bases:
            self._read_bases(dotted, self.load(dotted))
        return self._bases[dotted]

    def _read_bases(self, dotted: str, src) -> None:
        if src is None:
            self._bases[dotted] = None
            return
        tree, is_package = src
        package = dotted if is_package else dotted.rpartition(".")[0]
        self._bases[dotted] = [star_base(node, package) for node in module_level(tree.body)
                               if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)]

    def all_of(self, dotted: str, seen: frozenset = frozenset()):
        """Module ``dotted``'s ``__all__`` as a list (None: it has one that cannot be read; _MISSING: none)."""
        if dotted in self._all:
            return self._all[dotted]
        src = self.load(dotted)
        if dotted not in self._bases:  # read now: the tree is not asked for again
            self._read_bases(dotted, src)
        if src is None:
            return None
        tree, is_package = src
        st = _AllState(dotted, dotted if is_package else dotted.rpartition(".")[0], seen | {dotted})
        value = self._all_of(tree, st)
        if st.partial and isinstance(value, list):
            self.partial.add(dotted)
        if len(st.seen) == 1 or value is not None:  # a cycle's None is not this module's answer
            self._all[dotted] = value
        return value

    def _all_of(self, tree: ast.Module, st: _AllState):
        value: list[str] | None | object = _MISSING
        st.imports = import_map(tree, st.package)
        helpers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)
                   and any(isinstance(x, ast.Name) and x.id == "__all__" for x in ast.walk(n))}
        read: set[int] = set()
        for stmt in module_level(tree.body):
            read.add(id(stmt))
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                    if stmt.value is None:
                        continue  # ``__all__: list[str]``: a declaration, no value
                    value = self._names(stmt.value, value, st)
            elif (isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == "__all__"):
                more = self._names(stmt.value, value, st) if isinstance(stmt.op, ast.Add) else None
                value = None if not isinstance(value, list) or more is None else value + more
            elif (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                  and isinstance(stmt.value.func, ast.Attribute) and isinstance(stmt.value.func.value, ast.Name)
                  and stmt.value.func.value.id == "__all__"):
                value = self._grow(stmt.value, value, st)
            elif (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name)
                  and stmt.value.func.id in helpers and value is not _MISSING):
                value = self._helper(helpers[stmt.value.func.id], stmt.value, value, st)
            if value is None:
                return None
        if value is not _MISSING and _grows_elsewhere(tree.body, read):
            st.partial = True  # a loop (or other statement) also appends: the names read are a lower bound
        return value

    def _helper(self, fn: ast.FunctionDef, call: ast.Call, value, st: _AllState):
        """A module-level call of the module's own function that grows ``__all__``: ``extend_all(mod)``
        whose body appends each name of ``getattr(module, '__all__')`` (or ``module.__all__``), skipping
        those already there when it tests ``not in``. Any other function touching ``__all__``: None."""
        if not isinstance(value, list) or call.keywords:
            return None
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        source: dict[str, str] = {}  # local -> the parameter whose __all__ it holds
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                param = _all_of_param(node.value, params)
                if param is not None:
                    source[node.targets[0].id] = param
        for node in ast.walk(fn):
            if not (isinstance(node, ast.For) and isinstance(node.target, ast.Name)):
                continue
            it = node.iter
            param = source.get(it.id) if isinstance(it, ast.Name) else _all_of_param(it, params)
            appends = [c for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                       and isinstance(c.func.value, ast.Name) and c.func.value.id == "__all__"]
            if (param is None or len(appends) != 1 or appends[0].func.attr != "append" or len(appends[0].args) != 1
                    or not (isinstance(appends[0].args[0], ast.Name) and appends[0].args[0].id == node.target.id)):
                continue
            index = params.index(param)
            if index >= len(call.args):
                return None
            more = self._names(ast.Attribute(value=call.args[index], attr="__all__", ctx=ast.Load()), value, st)
            if more is None:
                return None
            dedup = any(isinstance(c, ast.Compare) and any(isinstance(o, ast.NotIn) for o in c.ops) for c in ast.walk(node))
            return value + [n for n in more if not (dedup and n in value)]
        return None

    def _grow(self, call: ast.Call, value, st: _AllState):
        if not isinstance(value, list) or call.keywords:
            return None
        how, args = call.func.attr, call.args  # type: ignore[attr-defined]
        if how == "extend" and len(args) == 1:
            more = self._names(args[0], value, st)
            return None if more is None else value + more
        texts = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in args]
        if how == "append" and len(args) == 1 and texts[0] is not None:
            return value + [texts[0]]
        if how == "insert" and len(args) == 2 and texts[1] is not None:
            return value + [texts[1]]
        if how == "remove" and len(args) == 1 and texts[0] is not None:
            if texts[0] in value:
                i = value.index(texts[0])
                return value[:i] + value[i + 1:]
            return value if st.partial else None  # not there: it came from what was not read (else Python fails)
        return None

    def _names(self, node: ast.AST, current, st: _AllState) -> list[str] | None:
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            out: list[str] = []
            for e in node.elts:
                if isinstance(e, ast.Constant) and isinstance(e.value, str):
                    out.append(e.value)
                elif isinstance(e, ast.Starred):
                    more = self._names(e.value, current, st)
                    if more is None:
                        return None
                    out += more
                else:
                    return None
            return out
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left = self._names(node.left, current, st)
            right = self._names(node.right, current, st) if left is not None else None
            return None if right is None else left + right  # type: ignore[operator]
        if isinstance(node, ast.Name) and node.id == "__all__":
            return list(current) if isinstance(current, list) else None
        if isinstance(node, ast.Attribute) and node.attr == "__all__":
            module = st.imports.get(ast.unparse(node.value))
            if module is None or module in st.seen:
                return None
            other = self.all_of(module, st.seen)
            if module in self.partial:
                st.partial = True
            return list(other) if isinstance(other, list) else None
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "tuple", "sorted")
                and len(node.args) == 1 and not node.keywords):
            return self._names(node.args[0], current, st)
        return None


@dataclass
class _AllState:
    dotted: str
    package: str
    seen: frozenset
    imports: dict = field(default_factory=dict)
    partial: bool = False


def _grows_elsewhere(body: list[ast.stmt], read: set[int]) -> bool:
    """A statement not read as a module-level statement (in a loop, a ``with``) changes ``__all__``."""
    for stmt in body:
        if id(stmt) in read and isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr)):
            continue  # read as it runs
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, (ast.If, ast.Try)):
            parts = [stmt.body, stmt.orelse] if isinstance(stmt, ast.If) else [
                stmt.body, *(h.body for h in stmt.handlers), stmt.orelse, stmt.finalbody]
            if any(_grows_elsewhere(p, read) for p in parts):
                return True
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                    and node.func.value.id == "__all__" and node.func.attr in ("append", "extend", "insert", "__iadd__"):
                return True
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == "__all__":
                return True
    return False


def _all_of_param(node: ast.AST, params: list[str]) -> str | None:
    """``getattr(p, "__all__")`` or ``p.__all__`` of a parameter ``p``: ``p``."""
    if isinstance(node, ast.Attribute) and node.attr == "__all__" and isinstance(node.value, ast.Name) and node.value.id in params:
        return node.value.id
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) == 2
            and isinstance(node.args[0], ast.Name) and node.args[0].id in params
            and isinstance(node.args[1], ast.Constant) and node.args[1].value == "__all__"):
        return node.args[0].id
    return None
