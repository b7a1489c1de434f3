"""Names another distribution may re-export a package under, read from the project's imports.

requests puts urllib3's modules into ``sys.modules`` as ``requests.packages.urllib3``, and code
written for old requests imports urllib3 that way. A checklist that lists the name beside the
package's own (``import_names: [urllib3, requests.packages.urllib3]``) has those uses audited
(``audit/vendored.py``); :func:`reexports` finds the names a checklist may need. A candidate is
the start of an absolute import's dotted path up to a part, after the first, that is one of the
package's one-part import names (``requests.packages.urllib3`` in ``from
requests.packages.urllib3.util import timeout``), whose first part is neither the project's own (a
folder or module of that name anywhere in its sources: ``compat/urllib3.py``) nor the package's.

Its name alone says nothing: ``opentelemetry.instrumentation.urllib3`` is that distribution's own
module. Two things say it is the package: ``paired``, the project imports it as the alternative of
the package's own name (one arm of a ``try`` / ``except ImportError`` imports through it, another
imports the package under its own name, and both bind one same name), which :func:`reexports`
reads here; and ``below``, the package's paths imported through it, for a reader who has the
package's source to look them up (the audit). Nothing is imported or run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from upgrade_checklists.core.astwalk import imports, statements
from upgrade_checklists.project.uses import catches_import_error


@dataclass(frozen=True)
class ReExport:
    name: str  # ``requests.packages.urllib3``
    package: str  # the import name it stands for, ``urllib3``
    file: str  # the first project file that imports it (sorted paths) ...
    line: int  # ... and the line
    files: int  # how many project files import it
    paired: str | None  # ``file:line`` of an import of it that has the package's own name as its alternative
    below: tuple[str, ...]  # what the project imports through it, as the package's paths (``urllib3.util.timeout``)


def own_names(paths: Iterable[str]) -> set[str]:
    """The names the project has itself: every folder and module in its source paths."""
    return {part.removesuffix(".py") for rel in paths for part in rel.split("/")}


def candidates_in(path: str, names: list[str], own: set[str]) -> tuple[str, str] | None:
    """``(re-exported name, import name)`` when the dotted ``path`` reaches one of ``names`` (one-part
    import names) through another package's name; None for the package's own path, the project's,
    or a path under a dotted import name already listed."""
    parts = path.split(".")
    if parts[0] in own or any(path == n or path.startswith(n + ".") for n in names):
        return None
    single = {n for n in names if "." not in n}
    if parts[0] in _tops(names):
        return None
    for i, part in enumerate(parts[1:], 1):
        if part in single:
            return ".".join(parts[:i + 1]), part
    return None


def _tops(names: list[str]) -> set[str]:
    """The first parts of the package's own import names (a re-exported name listed is another's)."""
    single = {n for n in names if "." not in n}
    return {n.split(".")[0] for n in names if n.rpartition(".")[2] not in single or "." not in n}


def _paths(node: ast.Import | ast.ImportFrom) -> list[tuple[str, str]]:
    """``(dotted path imported, local name bound)`` of each name of an absolute import."""
    if isinstance(node, ast.Import):
        return [(a.name, a.asname or a.name.split(".")[0]) for a in node.names]
    if node.level or not node.module:
        return []  # a relative import is the project's own
    return [(f"{node.module}.{a.name}", a.asname or a.name) for a in node.names if a.name != "*"] or [(node.module, "")]


def reexports(files: Iterable[tuple[str, ast.Module]], names: list[str], own: set[str]) -> list[ReExport]:
    """The candidates the project's ``files`` (path, tree; sorted by path) import, by name."""
    seen: dict[str, list[tuple[str, int]]] = {}
    package: dict[str, str] = {}
    below: dict[str, dict[str, None]] = {}
    paired: dict[str, str] = {}
    tops = _tops(names)
    for rel, tree in files:
        for node in imports(tree):
            for path, _bound in _paths(node):
                hit = candidates_in(path, names, own)
                if hit is None:
                    continue
                alias, pkg = hit
                seen.setdefault(alias, []).append((rel, node.lineno))
                package[alias] = pkg
                if path != alias:
                    below.setdefault(alias, {})[pkg + path[len(alias):]] = None
        for alias, at in _alternatives(tree, names, own, tops):
            paired.setdefault(alias, f"{rel}:{at}")
    out = []
    for alias, at in sorted(seen.items()):
        files_ = sorted({r for r, _ in at})
        first = min(line for r, line in at if r == files_[0])
        out.append(ReExport(alias, package[alias], files_[0], first, len(files_), paired.get(alias),
                            tuple(below.get(alias, {}))))
    return out


def _alternatives(tree: ast.Module, names: list[str], own: set[str], tops: set[str]):
    """``(re-exported name, line)`` of each import through one that a ``try`` / ``except ImportError``
    has as the alternative of an import of the package's own name binding one same name."""
    for node in statements(tree):
        if not isinstance(node, ast.Try) or not catches_import_error(node):
            continue
        arms = [node.body] + [h.body for h in node.handlers]
        found = []  # per arm: (re-exported name or None for the package's own, line, bound name)
        for arm in arms:
            here = []
            for imp in (n for stmt in arm for n in statements(stmt) if isinstance(n, (ast.Import, ast.ImportFrom))):
                for path, bound in _paths(imp):
                    if not bound:
                        continue
                    hit = candidates_in(path, names, own)
                    if hit is not None:
                        here.append((hit[0], imp.lineno, bound))
                    elif path.split(".")[0] in tops:
                        here.append((None, imp.lineno, bound))
            found.append(here)
        for i, arm in enumerate(found):
            others = {bound for j, o in enumerate(found) if j != i for alias, _l, bound in o if alias is None}
            for alias, line, bound in arm:
                if alias is not None and bound in others:
                    yield alias, line
