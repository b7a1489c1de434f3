"""Packages the upstream distribution ships that the checklist's import names leave out.

A distribution may ship more than one top-level package: pytest ships ``pytest`` and ``_pytest``,
setuptools ships ``setuptools``, ``pkg_resources`` and ``_distutils_hack``. A checklist drafted for
``pytest`` names ``pytest``; a project's ``from _pytest.python import CallSpec2`` is then no use of
the package, and the audit says nothing of it, though the upgrade may break it. :func:`left_out`
finds such packages the project imports, read from the unpacked source (its folders with an
``__init__``), so the audit reads them as the package's own (and says that the checklist leaves them
out). Nothing is imported or run.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from upgrade_checklists.audit.api import search_paths
from upgrade_checklists.core.astwalk import imports
from upgrade_checklists.project.reexports import own_names

_NAME = re.compile(r"[A-Za-z_]\w*\Z")


@dataclass(frozen=True)
class LeftOut:
    name: str  # the top-level package, ``_pytest``
    file: str  # the first project file that imports it (sorted paths) ...
    line: int  # ... and the line
    files: int  # how many project files import it


def shipped(roots: list[Path]) -> list[str]:
    """The top-level packages found in the source ``roots`` (a folder with ``__init__.py`` or ``__init__.pyi``
    at a root, or in its ``src/`` or ``python/``), sorted; test folders left out."""
    out: set[str] = set()
    for d in search_paths(roots):
        try:
            children = list(d.iterdir())
        except OSError:
            continue
        for c in children:
            if (_NAME.match(c.name) and not c.name.startswith("test") and not c.is_symlink()
                    and ((c / "__init__.py").is_file() or (c / "__init__.pyi").is_file())):
                out.add(c.name)
    return sorted(out)


def left_out(roots: list[Path], names: list[str], sources) -> list[LeftOut]:
    """What of :func:`shipped` the project imports though no import name covers it (``sources``:
    ``project.uses.Sources``). A package the project has itself (a folder or module of that name
    anywhere in it) is the project's own, not upstream's."""
    tops = {n.split(".")[0] for n in names}
    candidates = [n for n in shipped(roots) if n not in tops]
    if not candidates:
        return []
    own = own_names(sources.paths)
    candidates = [n for n in candidates if n not in own]
    found: dict[str, list[tuple[str, int]]] = {}
    for rel in sorted(sources.paths):
        text = sources.text(rel)
        words = [n for n in candidates if n in text]
        if not words:
            continue
        tree = sources.tree(rel)
        if tree is None:
            continue
        for name in words:
            line = _first_import(tree, name)
            if line is not None:
                found.setdefault(name, []).append((rel, line))
    return [LeftOut(name, at[0][0], at[0][1], len(at)) for name, at in sorted(found.items())]


def _first_import(tree: ast.Module, name: str) -> int | None:
    lines = []
    for node in imports(tree):
        if isinstance(node, ast.Import):
            if any(a.name.split(".")[0] == name for a in node.names):
                lines.append(node.lineno)
        elif node.level == 0 and node.module and node.module.split(".")[0] == name:
            lines.append(node.lineno)
    return min(lines) if lines else None
