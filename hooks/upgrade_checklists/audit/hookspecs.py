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

from upgrade_checklists.audit.aliases import _import_map
from upgrade_checklists.core.astwalk import module_level

_MARKER = "HookspecMarker"


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _markers_bound(tree: ast.Module) -> set[str]:
    """The module-level names ``tree`` binds to a ``...HookspecMarker(...)`` call."""
    out = set()
    for stmt in module_level(tree.body):
        value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
        if not (isinstance(value, ast.Call) and (_dotted(value.func) or "").rsplit(".", 1)[-1].endswith(_MARKER)):
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
        imported = _import_map(t, _package(dotted, path))

        def is_marker(d: ast.AST) -> bool:
            d = d.func if isinstance(d, ast.Call) else d
            name = _dotted(d)
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
