"""Rewrite checklists to repair the fixable findings (``check --fix`` / ``--diff``).

A fix is planned from the findings and the model's positions, then applied to the
file's lines: bytes outside the edited rows, lines and tables do not change. Tables
are re-rendered in the style the file already uses: aligned the way mdformat
(mdformat-tables) writes them, or unaligned, where untouched rows keep their bytes.
Files are written atomically (temporary file in the same directory, then rename).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path

from wcwidth import wcswidth, wcwidth

from upgrade_checklists.core.atomic import write_atomic, write_atomic_any  # noqa: F401 (the writers --fix uses)
from upgrade_checklists.core.checklist import REMOVAL_MARK, Checklist, split_row, top_level_none, top_level_table
from upgrade_checklists.core.refs import bounded_int
from upgrade_checklists.core.config import Config
from upgrade_checklists.core.findings import FIXABLE, NOT_FIXABLE, Finding  # noqa: F401 (re-exported)
from upgrade_checklists.project.result import Result
from upgrade_checklists.check.rows import usage_parts
from upgrade_checklists.project.tiers import TierRules
from upgrade_checklists.core.tokens import covers, parse_cell


_HEADING_RE = re.compile(r"^(\s*###\s*)(\d+)(\.)")
_ENTRY_REF_RE = re.compile(r"\b([Ee]ntry\s+#?)(\d+)\b")
_STATUS_RE = re.compile(r"(\d+)(\s+API\s+entr)(y|ies)\b", re.I)
_FENCE_RE = re.compile(r"^\s*(```|~~~)")
_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split where markdown-it splits them (``\\r\\n``, ``\\r``,
    ``\\n``): not ``str.splitlines``, which also breaks at U+0085, U+2028, form feeds..."""
    return _LINE_RE.findall(text)


def _eol(line: str) -> str:
    return "\r\n" if line.endswith("\r\n") else "\r" if line.endswith("\r") else "\n"


# --- tables ------------------------------------------------------------------------


def width(text: str) -> int:
    """Display width, measured as mdformat-tables measures it: ``wcwidth.wcswidth`` (emoji
    with variation selectors, skin tones and ZWJ sequences, soft hyphens, wide characters).
    A control character (``wcswidth`` -1) counts 0, where mdformat's own padding goes astray."""
    w = wcswidth(text)
    return w if w >= 0 else sum(max(0, wcwidth(ch)) for ch in text)


def cell_path(cell: str) -> str:
    m = re.search(r"`([^`]+)`", cell)
    return (m.group(1) if m else cell).strip()


@dataclass
class Table:
    """A pipe table: cells plus the style to write it back in."""

    header: list[str]
    delim: list[str]
    rows: list[list[str]]
    raw: list[str | None]  # each row's original line (None once changed or new)
    head_raw: list[str]  # header and delimiter lines as they were
    aligned: bool
    eol: str = "\n"

    @classmethod
    def parse(cls, lines: list[str]) -> Table:
        eol = _eol(lines[0])
        bare = [line.rstrip("\r\n") for line in lines]
        header = split_row(bare[0])
        cells = [header] + [_cells(line, len(header)) for line in bare[1:]]
        aligned = len({width(line) for line in bare}) == 1 and len(bare) > 1
        return cls(header, cells[1], cells[2:], list(lines[2:]), list(lines[:2]), aligned, eol)

    @classmethod
    def new(cls, header: list[str], aligned: bool, eol: str = "\n") -> Table:
        return cls(header, ["---"] * len(header), [], [], [], aligned, eol)

    def set_row(self, i: int, row: list[str]) -> None:
        if row != self.rows[i]:
            self.rows[i] = row
            self.raw[i] = None

    def add_row(self, row: list[str]) -> None:
        row = (row + [""] * len(self.header))[: max(len(self.header), len(row))]
        paths = [cell_path(r[0]) for r in self.rows]
        at = len(self.rows)
        if paths == sorted(paths):  # keep a sorted table sorted
            at = next((i for i, p in enumerate(paths) if p > cell_path(row[0])), len(self.rows))
        self.rows.insert(at, row)
        self.raw.insert(at, None)

    def remove_row(self, i: int) -> list[str]:
        self.raw.pop(i)
        return self.rows.pop(i)

    def render(self) -> list[str]:
        eol = self.eol
        if not self.aligned:
            head = self.head_raw or [_join(self.header) + eol, _join(["---"] * len(self.header)) + eol]
            return head + [raw if raw is not None else _join(row) + eol for row, raw in zip(self.rows, self.raw)]
        n = len(self.header)
        aligns = ([_align(d) for d in self.delim] + [""] * n)[:n]
        rows = [self.header] + [(r + [""] * n)[:n] for r in self.rows]
        widths = [max(3, *(width(r[i]) for r in rows)) for i in range(n)]
        out = [_join(_pad(c, widths[i], aligns[i]) for i, c in enumerate(self.header))]
        out.append(_join(_delim(widths[i], aligns[i]) for i in range(n)))
        out += [_join(_pad(c, widths[i], aligns[i]) for i, c in enumerate(r)) for r in rows[1:]]
        return [line + eol for line in out]


def _cells(line: str, n: int) -> list[str]:
    """The cells of a row, at most ``n``: a row a pipe in a code span split into more
    (`` `a|b` ``) keeps the rest in its last cell as written, so that re-aligning the
    table (another row was edited) rewrites none of it."""
    cells = split_row(line)
    if len(cells) <= n or n < 1:
        return cells
    s = line.strip()
    s = s[1:] if s.startswith("|") else s
    s = s[:-1] if s.endswith("|") and not s.endswith("\\|") else s
    parts = re.split(r"(?<!\\)\|", s)
    return [p.strip() for p in parts[: n - 1]] + ["|".join(parts[n - 1 :]).strip()]


def _join(cells) -> str:
    return "| " + " | ".join(cells) + " |"


def _align(delim: str) -> str:
    d = delim.strip()
    if d.startswith(":") and d.endswith(":"):
        return "^"
    if d.endswith(":"):
        return ">"
    if d.startswith(":"):
        return "<"
    return ""


def _pad(text: str, w: int, align: str) -> str:
    gap = max(0, w - width(text))
    if align == ">":
        return " " * gap + text
    if align == "^":
        left = gap // 2
        return " " * left + text + " " * (gap - left)
    return text + " " * gap


def _delim(w: int, align: str) -> str:
    d = (":" if align in ("<", "^") else "-") + "-" * max(0, w - 2) + (":" if align in (">", "^") else "-")
    return ":-:" if d == "::" else d


def table_block(lines: list[str], index: int) -> tuple[int, int]:
    """The [start, end) line range of the pipe table around line ``index``."""
    start = end = index
    while start > 0 and lines[start - 1].lstrip().startswith("|"):
        start -= 1
    while end < len(lines) and lines[end].lstrip().startswith("|"):
        end += 1
    return start, end


# --- planning ------------------------------------------------------------------------


@dataclass
class _Edit:
    """The edits to one checklist file."""

    lines: list[str]
    tables: dict[str, Table] = field(default_factory=dict)
    ranges: dict[str, tuple[int, int]] = field(default_factory=dict)  # tier -> lines the table replaces
    dirty: set[str] = field(default_factory=set)


def plan(res: Result, cfg: Config, findings: list[Finding]) -> dict[Path, tuple[str, str]]:
    """``{path: (old text, new text)}`` for every file the fixable findings change."""
    fixable = [f for f in findings if f.fixable]
    out: dict[Path, tuple[str, str]] = {}
    by_rel = {cl.rel: cl for cl in res.checklists}
    for cl in res.checklists:
        mine = [f for f in fixable if f.checklist == cl.rel]
        if mine:
            new = _fix_checklist(cl, mine, res)
            if new is not None and new != cl.text:
                out[cl.path] = (cl.text, new)
    status = [f for f in fixable if f.code == "STATUS"]
    if status and cfg.status_file:
        path = cfg.root / cfg.status_file
        old = path.read_bytes().decode("utf-8")
        new = _fix_status(old, status, by_rel)
        if new != old:
            out[path] = (old, new)
    return out


def _fix_checklist(cl: Checklist, findings: list[Finding], res: Result) -> str | None:
    try:
        if cl.path.read_bytes().decode("utf-8") != cl.text:  # bytes: CRLF stays CRLF
            return None  # changed under us since it was read: leave it
    except (OSError, UnicodeDecodeError):
        return None
    lines = split_lines(cl.text)
    ed = _Edit(lines)
    for tier, (a, b) in cl.tables.items():
        if top_level_table(lines, a, b):  # one inside a blockquote or list is left alone (not fixable)
            ed.tables[tier] = Table.parse(lines[a:b])
            ed.ranges[tier] = (a, b)
    style = next((t.aligned for t in ed.tables.values()), True)
    eol = _eol(lines[0]) if lines else "\n"
    rows = {row.line: row for row in cl.rows}

    def locate(line: int) -> tuple[str, int] | None:
        row = rows.get(line)
        if row is None or not row.editable or row.tier not in ed.tables:
            return None  # not editable: a table in a blockquote or list, or a cell split by a pipe in a code span
        a = ed.ranges[row.tier][0]
        t = ed.tables[row.tier]
        # rows are addressed by their original line; find the current index by identity
        idx = line - 1 - a - 2
        return (row.tier, idx) if 0 <= idx < len(t.rows) else None

    def table_for(tier: str) -> Table | None:
        if tier not in ed.tables and tier not in cl.tables and tier in cl.empty_tiers and top_level_none(lines, *cl.empty_tiers[tier]):
            ed.tables[tier] = Table.new(["File", "Imports / Usage"], style, eol)
            ed.ranges[tier] = cl.empty_tiers[tier]
        return ed.tables.get(tier)

    line_ops: list[Finding] = []
    moves: list[tuple[str, int, str]] = []  # (tier, row index, target tier)
    additions: list[Finding] = []
    # 1. edits inside existing rows (row indexes are still those of the file)
    for f in sorted(findings, key=lambda f: (f.checklist_line or 0, f.code)):
        fx = f.fix or {}
        if f.code == "MISSING":
            additions.append(f)
            continue
        if f.code in ("LINE", "GUARD", "NUMBERING"):
            line_ops.append(f)
            continue
        where = locate(f.checklist_line or 0)
        if where is None:
            continue
        tier, idx = where
        t = ed.tables[tier]
        row = list(t.rows[idx])
        if len(row) < 2:
            row += [""] * (2 - len(row))
        if f.code == "STALE" and "new" not in fx:
            if not fx.get("mark") or REMOVAL_MARK in " ".join(row):
                continue  # only a row whose file is gone is marked; never a live one
            row[-1] = f"{row[-1]} {REMOVAL_MARK}".strip()
        elif f.code == "CHANGED" and "add" in fx:
            row[1] = ", ".join(p for p in [row[1], *fx["add"]] if p)
        elif f.code == "CHANGED" and "strike" in fx:
            for tok in fx["strike"]:
                row[1] = _strike(row[1], tok)
        elif f.code == "TIER":
            if "tier" not in fx:
                continue  # the files of a glob row map to several tiers: a person decides
            moves.append((tier, idx, fx["tier"]))
        elif f.code == "MOVED" or f.code == "STALE":  # a move, or a path that never existed and its likely meaning
            old, new = f"`{fx['old']}`", f"`{fx['new']}`"
            row[0] = row[0].replace(old, new) if old in row[0] else new
            row[1] = _cover_moved(row[1], fx["new"], res.import_names.get(cl.rel, []), res)
            want, _ = (res.tiers or TierRules([], True)).for_checklist(cl).tier_of(fx["new"])
            if want and want != tier:
                moves.append((tier, idx, want))
            line_ops.append(f)
        t.set_row(idx, row)
        ed.dirty.add(tier)
    # 2. rows that change tier (from the bottom, so that indexes stay valid)
    for tier, idx, target in sorted(set(moves), key=lambda m: -m[1]):
        dest = table_for(target)
        if dest is not None:
            dest.add_row(ed.tables[tier].remove_row(idx))
            ed.dirty.update((tier, target))
    # 3. new rows
    for f in additions:
        t = table_for(f.fix["tier"])
        if t is not None:
            t.add_row([f"`{f.file}`", f.fix["cell"]])
            ed.dirty.add(f.fix["tier"])

    out = list(lines)
    _apply_line_ops(cl, out, line_ops)
    return _assemble(out, ed, eol)


def _strike(cell: str, token: str) -> str:
    """``tok`` -> ~~``tok``~~ (once, and not twice)."""
    plain = f"`{token}`"
    at = 0
    while (i := cell.find(plain, at)) != -1:
        if not cell[max(0, i - 2) : i] == "~~":
            return cell[:i] + f"~~{plain}~~" + cell[i + len(plain) :]
        at = i + len(plain)
    return cell


def _cover_moved(cell: str, new: str, names: list[str], res: Result) -> str:
    """After a move, add the new file's imports that the row does not cover yet."""
    facts = res.facts.get(new)
    if facts is None:
        return cell
    tokens = parse_cell(re.findall(r"(?<!~~)`([^`]+)`(?!~~)", cell))
    missing = [i for i in facts.imports_of(names) if not any(covers(t, i, facts) for t in tokens)]
    return ", ".join(p for p in [cell, *usage_parts(missing)] if p)


def _apply_line_ops(cl: Checklist, out: list[str], ops: list[Finding]) -> None:
    edits = [e for f in ops if f.code in ("LINE", "GUARD") for e in (f.fix or {}).get("edits", [])]
    _apply_edits(out, edits)
    for f in ops:
        fx = f.fix or {}
        if f.code == "MOVED" or f.code == "STALE":  # a move, or a path that never existed and its likely meaning
            old, new = fx["old"], fx["new"]
            refs = {cs.ref_line for e in cl.entries for cs in e.call_sites if cs.file == old}
            refs |= {g.ref_line for g in cl.guards if g.file == old}
            for line in refs:
                out[line - 1] = out[line - 1].replace(f"`{old}`", f"`{new}`").replace(f"`{old}:", f"`{new}:")
    if any(f.code == "NUMBERING" for f in ops):
        _renumber(cl, out)


def _apply_edits(out: list[str], edits: list[list]) -> None:
    """Exact edits ``[line, col, old, new]`` (numbers of references, wherever a
    formatter wrapped them); from the right, so that columns stay valid; an edit whose
    old text is not there (the line changed) is skipped."""
    seen = set()
    for line, col, old, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        if (line, col) in seen or not (0 < line <= len(out)):
            continue
        seen.add((line, col))
        text = out[line - 1]
        if text[col : col + len(old)] == old:
            out[line - 1] = text[:col] + new + text[col + len(old) :]


def _renumber(cl: Checklist, out: list[str]) -> None:
    olds = [e.number for e in cl.entries]
    mapping = {old: new for new, old in enumerate(olds, 1) if olds.count(old) == 1 and old != new}
    headings = {e.line - 1 for e in cl.entries}
    for new, e in enumerate(cl.entries, 1):
        i = e.line - 1
        out[i] = _HEADING_RE.sub(lambda m: f"{m.group(1)}{new}{m.group(3)}", out[i], count=1)
    if not mapping:
        return
    fenced = False
    for i, line in enumerate(out):
        if _FENCE_RE.match(line):
            fenced = not fenced
            continue
        if fenced or i in headings or line.lstrip().startswith("|"):
            continue
        out[i] = _ENTRY_REF_RE.sub(lambda m: m.group(1) + _renumbered(m.group(2), mapping), line)


def _renumbered(digits: str, mapping: dict[int, int]) -> str:
    """``Entry #N`` after renumbering; a number no entry has (5,000 digits...) stays as written."""
    n = bounded_int(digits)
    return str(mapping[n]) if len(digits) <= 9 and n in mapping else digits


def _assemble(out: list[str], ed: _Edit, eol: str) -> str:
    replace: dict[int, tuple[int, list[str]]] = {}
    for tier in ed.dirty:
        a, b = ed.ranges[tier]
        t = ed.tables[tier]
        replace[a] = (b, t.render() if t.rows else [f"_None._{eol}"])
    text: list[str] = []
    i = 0
    while i < len(out):
        if i in replace:
            end, new = replace[i]
            text += new
            i = end
        else:
            text.append(out[i])
            i += 1
    return "".join(text)


def _fix_status(text: str, findings: list[Finding], checklists: dict[str, Checklist]) -> str:
    counts = {f.checklist_line: f.fix["count"] for f in findings if "name" not in f.fix and f.checklist_line}
    new_rows = [(f.fix["name"], f.fix["count"]) for f in findings if "name" in f.fix]
    return status_text(text, counts, new_rows)


def status_text(text: str, counts: dict[int, int], new_rows: list[tuple[str, int]]) -> str:
    """The status file with the counts at ``{line: count}`` rewritten and rows added."""
    lines = split_lines(text)
    edits: dict[tuple[int, int], Table] = {}
    for line, count in counts.items():
        if not (0 < line <= len(lines)):
            continue
        a, b = table_block(lines, line - 1)
        if not top_level_table(lines, a, b):
            continue
        t = edits.setdefault((a, b), Table.parse(lines[a:b]))
        idx = line - 1 - a - 2
        if 0 <= idx < len(t.rows):
            row = [_STATUS_RE.sub(lambda m: f"{count}{m.group(2)}{'y' if count == 1 else 'ies'}", c) for c in t.rows[idx]]
            t.set_row(idx, row)
    if new_rows:
        anchor = next((i for i, line in enumerate(lines) if _STATUS_RE.search(line) and line.lstrip().startswith("|")), None)
        if anchor is not None and top_level_table(lines, *table_block(lines, anchor)):
            a, b = table_block(lines, anchor)
            t = edits.setdefault((a, b), Table.parse(lines[a:b]))
            for name, count in new_rows:
                t.add_row([f"`{name}.md`", f"{count} API {'entry' if count == 1 else 'entries'}"])
    out: list[str] = []
    i = 0
    starts = {a: (b, t) for (a, b), t in edits.items()}
    while i < len(lines):
        if i in starts:
            b, t = starts[i]
            out += t.render()
            i = b
        else:
            out.append(lines[i])
            i += 1
    return "".join(out)


# --- writing -------------------------------------------------------------------------


def unified_diff(path: str, old: str, new: str) -> str:
    return "".join(difflib.unified_diff(split_lines(old), split_lines(new), f"a/{path}", f"b/{path}"))
