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
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from upgrade_checklists.audit.deprecation import warning_in


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

    def tree(self, path: Path | None) -> ast.Module | None:
        if path is None:
            return None
        if path not in self._trees:
            try:
                self._trees[path] = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
            except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
                self._trees[path] = None
        return self._trees[path]


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
                    if value:
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
