"""The status file's tables, read by their headers (not by position).

- **Focused Packages** (``| Package | Import path |``): package -> import paths, a
  source of import names;
- **Upgrade Families** (``| Family | Members | ... |``): family -> members, the
  ``families`` source when the configuration has none (``A or B + C`` is two families,
  one with ``A`` and one with ``B``: alternatives never have to move together);
- **Package Impact Matrix** (``| Package | Scope | <manifest> locations ... | Docker
  impact |``): where each package is declared in each manifest, checked by
  ``matrix.py``, and the Docker impact the audit's summary reports.

Plain data, cached by the file's stat like the rest of the check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from upgrade_checklists.project.cache import ScanCache
from upgrade_checklists.core.checklist import cell_codes, markdown_tokens
from upgrade_checklists.core.plain import PlainError, from_plain, to_plain

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_MODULE = re.compile(r"^[A-Za-z_][\w.]*$")


@dataclass
class MatrixRow:
    package: str
    scope: str
    locations: dict[str, str]  # manifest path -> the cell's text ("—": not declared there)
    docker: str
    line: int


@dataclass
class StatusTables:
    focused: dict[str, list[str]] = field(default_factory=dict)  # package -> import paths
    families: dict[str, list[str]] = field(default_factory=dict)
    matrix: list[MatrixRow] = field(default_factory=list)
    has_matrix: bool = False


@dataclass
class _Table:
    header: list[str]
    rows: list[tuple[int, list]]  # (line, inline tokens)


def _tables(text: str) -> list[_Table]:
    out: list[_Table] = []
    current: list | None = None
    table: _Table | None = None
    in_head = False
    line = 0
    for tok in markdown_tokens(text):
        if tok.type == "table_open":
            table = _Table([], [])
            out.append(table)
        elif tok.type in ("thead_open", "thead_close"):
            in_head = tok.type == "thead_open"
        elif tok.type == "tr_open":
            current, line = [], (tok.map[0] + 1 if tok.map else 0)
        elif tok.type == "inline" and current is not None:
            current.append(tok)
        elif tok.type == "tr_close" and current is not None and table is not None:
            if in_head:
                table.header = [" ".join(c.content.lower().replace("`", "").split()) for c in current]
            else:
                table.rows.append((line, current))
            current = None
    return out


def _col(header: list[str], *words: str) -> int | None:
    for i, h in enumerate(header):
        if all(w in h for w in words):
            return i
    return None


def _name(cell) -> str:
    codes = cell_codes(cell)
    text = codes[0] if codes else cell.content.strip()
    return text if _NAME.match(text) else ""


def read_tables(text: str) -> StatusTables:
    out = StatusTables()
    for t in _tables(text):
        h = t.header
        pkg, imp = _col(h, "package"), _col(h, "import")
        fam, members = _col(h, "family"), _col(h, "member")
        scope, docker = _col(h, "scope"), _col(h, "docker")
        where = [(i, c[: -len("locations")].strip()) for i, c in enumerate(h) if c.endswith("locations")]
        if pkg is not None and scope is not None and where:
            out.has_matrix = True
            for line, cells in t.rows:
                name = _name(cells[pkg]) if pkg < len(cells) else ""
                if not name:
                    continue
                out.matrix.append(MatrixRow(
                    name, cells[scope].content.strip().strip("`").lower() if scope < len(cells) else "",
                    {m: cells[i].content.strip() for i, m in where if i < len(cells)},
                    cells[docker].content.strip() if docker is not None and docker < len(cells) else "", line))
        elif pkg is not None and imp is not None:
            for _line, cells in t.rows:
                if max(pkg, imp) >= len(cells):
                    continue
                name, mods = _name(cells[pkg]), [m for m in cell_codes(cells[imp]) if _MODULE.match(m)]
                if name and mods:
                    out.focused[name] = mods
        elif fam is not None and members is not None:
            for _line, cells in t.rows:
                if max(fam, members) >= len(cells):
                    continue
                family = cells[fam].content.strip().strip("`")
                if family:
                    out.families.update(_families(family, cells[members]))
    return out


def _families(name: str, cell) -> dict[str, list[str]]:
    """``A or B + C`` -> {"name (A)": [A, C], "name (B)": [B, C]}; ``A, B`` -> {name: [A, B]}."""
    groups = [cell_codes_of(part) for part in re.split(r"\s\+\s|,", cell.content)]
    groups = [g for g in groups if g]
    alternatives = [g for g in groups if len(g) > 1 and " or " in _plain_join(cell.content)]
    if not alternatives:
        return {name: [m for g in groups for m in g]} if groups else {}
    alt = alternatives[0]
    rest = [m for g in groups if g is not alt for m in g]
    return {f"{name} ({a})": [a, *rest] for a in alt}


def cell_codes_of(text: str) -> list[str]:
    return [c for c in re.findall(r"`([^`]+)`", text) if _NAME.match(c)]


def _plain_join(text: str) -> str:
    return " ".join(text.split())


def load(root: Path, rel: str, cache: ScanCache | None = None) -> StatusTables | None:
    """The status file's tables (None when it cannot be read), cached by stat."""
    path = root / rel
    try:
        st = path.stat()
    except OSError:
        return None
    if cache is not None:
        hit, data = cache.get("tables:" + rel, st)
        if hit and type(data) is dict:
            try:
                return from_plain(StatusTables, data)
            except PlainError:
                pass
    try:
        tables = read_tables(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None
    if cache is not None:
        cache.put("tables:" + rel, st, to_plain(tables))
    return tables
