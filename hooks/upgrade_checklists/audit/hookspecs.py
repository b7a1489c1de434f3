"""Upstream's hook specifications, read from its source as text and AST (nothing imported).

A plugin framework built on pluggy (``HookspecMarker("name")``) declares each hook as a
function decorated with its spec marker; its plugins implement a hook by defining a function
of the same name, whose parameters pluggy passes by keyword with the spec's names. The audit
types a project hook implementation's parameters from the spec's annotations and checks its
parameters against the new spec (``bind.py``). Found here, structurally:

- a *marker*: a module-level name bound to a call of a name ending in ``HookspecMarker``
  (``hookspec = HookspecMarker("pytest")``, ``hook_spec = pluggy.HookspecMarker(NAME)``);
- a *spec*: a function decorated ``@m`` or ``@m(...)`` where ``m`` is a marker, bound in its
  module or imported from the module that binds it (``from pkg.markers import hook_spec``,
  ``@markers.hook_spec``); at module level (a module handed to ``add_hookspecs``) or a method
  of a module-level class (a class handed to it: ``self`` is not a hook parameter);
- an undecorated public function in a module holding decorated specs is one too when its name
  starts with the prefix (up to the first ``_``) that every decorated spec of that module
  shares: a framework may take such functions as specs by name (pytest takes every
  ``pytest_*`` function of its spec module); a module whose decorated specs share no prefix
  has only its decorated ones.

A hook name specified in more than one place is ambiguous: it maps to None (not typed, not
checked): which spec a plugin manager holds depends on what it was given at run time.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from pathlib import Path

from upgrade_checklists.core.astwalk import import_map, module_level
from upgrade_checklists.project.calls import dotted as dotted_name

_MARKER = "HookspecMarker"


def _markers_bound(tree: ast.Module) -> set[str]:
    """The module-level names ``tree`` binds to a ``...HookspecMarker(...)`` call."""
    out = set()
    for stmt in module_level(tree.body):
        value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
        if not (isinstance(value, ast.Call) and (dotted_name(value.func) or "").rsplit(".", 1)[-1].endswith(_MARKER)):
            continue
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        out |= {t.id for t in targets if isinstance(t, ast.Name)}
    return out


def _package(dotted: str, path: Path) -> str:
    return dotted if path.name == "__init__.py" else dotted.rpartition(".")[0]


def hook_specs(files: Iterable[tuple[str, Path]], read: Callable[[Path], bytes]) -> dict[str, str | None]:
    """Hook name -> the dotted path of its spec (``pkg.hookspec.pytest_collection``,
    ``pkg.specs.CatalogSpecs.after_created``), None where several places specify it. ``files``:
    (module's dotted name, its ``.py`` file) of the loaded source; ``read``: a file's bytes."""
    files = [(d, p) for d, p in files if d and p.suffix == ".py"]
    trees: dict[str, tuple[Path, ast.Module]] = {}

    def tree(dotted: str, path: Path) -> ast.Module | None:
        if dotted not in trees:
            try:
                trees[dotted] = (path, ast.parse(read(path)))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                trees[dotted] = (path, None)
        return trees[dotted][1]

    markers: set[str] = set()  # dotted paths of the markers
    for dotted, path in files:
        if _MARKER.encode() in read(path):
            t = tree(dotted, path)
            if t is not None:
                markers |= {f"{dotted}.{n}" for n in _markers_bound(t)}
    if not markers:
        return {}
    names = {m.rsplit(".", 1)[-1].encode() for m in markers}
    found: dict[str, list[str]] = {}
    for dotted, path in files:
        text = read(path)
        if not any(n in text for n in names):
            continue
        t = tree(dotted, path)
        if t is None:
            continue
        imported = import_map(t, _package(dotted, path))

        def is_marker(d: ast.AST) -> bool:
            d = d.func if isinstance(d, ast.Call) else d
            name = dotted_name(d)
            if name is None:
                return False
            head, _, rest = name.partition(".")
            if head in imported:
                return ".".join(x for x in (imported[head], rest) if x) in markers
            return f"{dotted}.{name}" in markers

        for spec, where in _specs(t, is_marker):
            found.setdefault(spec, []).append(f"{dotted}.{where}")
    return {name: (paths[0] if len(set(paths)) == 1 else None) for name, paths in sorted(found.items())}


def _specs(tree: ast.Module, is_marker: Callable[[ast.AST], bool]) -> list[tuple[str, str]]:
    """(hook name, its path in the module) of each spec ``tree`` defines."""
    out: list[tuple[str, str]] = []
    plain: list[str] = []
    decorated: list[str] = []
    for stmt in module_level(tree.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(is_marker(d) for d in stmt.decorator_list):
                out.append((stmt.name, stmt.name))
                decorated.append(stmt.name)
            elif not stmt.decorator_list and not stmt.name.startswith("_"):
                plain.append(stmt.name)
        elif isinstance(stmt, ast.ClassDef):
            for fn in stmt.body:
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(is_marker(d) for d in fn.decorator_list):
                    out.append((fn.name, f"{stmt.name}.{fn.name}"))
    prefixes = {n.partition("_")[0] for n in decorated if "_" in n.strip("_")}
    if len(prefixes) == 1 and all("_" in n.strip("_") for n in decorated):
        prefix = f"{prefixes.pop()}_"
        out += [(n, n) for n in plain if n.startswith(prefix) and n != prefix]
    return out


def registered_plugins(files: Iterable[tuple[str, Path]], read: Callable[[Path], bytes]) -> dict[str, str | None]:
    """Plugin name -> the dotted path of the class of the object upstream registers under it with
    pluggy (``pm.register(obj, "name")`` / ``register(obj, name="name")``: the name a string literal),
    None where two places register that name with different classes (which one a plugin manager
    holds depends on the run). ``obj`` is known when it is ``self`` in a method of a module-level
    class (``self.config.pluginmanager.register(self, "funcmanage")`` in ``FixtureManager.__init__``),
    a call of a module-level class of the loaded source (``register(LoggingPlugin(config), "logging-plugin")``),
    or a local name the function assigns once, such a call; any other object registers no class.
    Read as text and AST, nothing imported."""
    files = [(d, p) for d, p in files if d and p.suffix == ".py"]
    found: dict[str, set[str]] = {}
    texts = []
    classes: set[str] = set()
    for dotted, path in files:
        data = read(path)
        if b"class " in data or b".register(" in data:
            try:
                tree = ast.parse(data)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            classes |= {f"{dotted}.{s.name}" for s in tree.body if isinstance(s, ast.ClassDef)}
            if b".register(" in data:
                texts.append((dotted, path, tree))
    for dotted, path, tree in texts:
        imported = import_map(tree, _package(dotted, path))

        def class_of(call: ast.AST) -> str | None:
            if not isinstance(call, ast.Call):
                return None
            name = dotted_name(call.func)
            if name is None:
                return None
            head, _, rest = name.partition(".")
            q = ".".join(x for x in (imported[head], rest) if x) if head in imported else f"{dotted}.{name}"
            return q if q in classes else None

        def scan(fn: ast.AST, me: str | None, cls: str | None) -> None:
            assigned: dict[str, list[ast.AST]] = {}
            for n in ast.walk(fn):
                if isinstance(n, ast.Assign):
                    for t in n.targets:
                        # only the names a target binds: ``self.x = …`` / ``d[k] = …`` store into ``self``
                        # / ``d`` (a Load) and leave the name as it was
                        for x in ast.walk(t):
                            if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store):
                                assigned.setdefault(x.id, []).append(n.value if t is x else None)
                elif isinstance(n, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and isinstance(n.target, ast.Name):
                    assigned.setdefault(n.target.id, []).append(n.value if isinstance(n, ast.AnnAssign) else None)
            for n in ast.walk(fn):
                if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "register"
                        and n.args and not any(isinstance(a, ast.Starred) for a in n.args)):
                    continue
                names = [n.args[1]] if len(n.args) == 2 else []
                names += [k.value for k in n.keywords if k.arg == "name"]
                if len(names) != 1 or not (isinstance(names[0], ast.Constant) and isinstance(names[0].value, str)):
                    continue
                obj = n.args[0]
                path = None
                if isinstance(obj, ast.Name) and obj.id == me and me not in assigned:
                    path = cls
                elif isinstance(obj, ast.Name) and len(assigned.get(obj.id, [])) == 1:
                    path = class_of(assigned[obj.id][0])
                else:
                    path = class_of(obj)
                found.setdefault(names[0].value, set()).add(path or "")

        for stmt in module_level(tree.body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                scan(stmt, None, None)
            elif isinstance(stmt, ast.ClassDef):
                for fn in stmt.body:
                    if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        args = fn.args.posonlyargs + fn.args.args
                        static = any(dotted_name(d) in ("staticmethod", "classmethod") for d in fn.decorator_list)
                        scan(fn, args[0].arg if args and not static else None, f"{dotted}.{stmt.name}")
    return {name: (next(iter(paths)) if len(paths) == 1 and "" not in paths else None) for name, paths in sorted(found.items())}
