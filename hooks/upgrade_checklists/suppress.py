"""Which findings are reported: ``--select`` / ``--ignore``, the ``select`` / ``ignore`` /
``per-checklist-ignores`` keys, and inline ``<!-- upgrade-checklists: ignore[CODE,...] -->``
comments in a checklist.

An inline comment applies to the checklist element on whose line it stands, found through
the checklist model's positions:

- on an Affected Files row: findings on that row;
- on a catalog entry heading (``### N. ...``): findings anywhere in that entry;
- on a Version-Guarded Code item (any of its lines): findings on that guard.

A comment elsewhere suppresses nothing and is reported as a warning, as is an unknown code.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from upgrade_checklists.config import Config, ConfigError, check_codes
from upgrade_checklists.findings import OFF_BY_DEFAULT, Finding

if TYPE_CHECKING:
    from upgrade_checklists.checklist import Checklist

COMMENT_RE = re.compile(r"<!--\s*upgrade-checklists:\s*ignore\[([^\]]*)\]\s*-->")
_LOOSE_RE = re.compile(r"<!--\s*upgrade-checklists\s*:")


@dataclass
class Outcome:
    findings: list[Finding]
    suppressed: int = 0
    warnings: list[str] = field(default_factory=list)


def parse_codes(values: list[str] | None, where: str) -> list[str] | None:
    """``--select A,B --select C`` -> ``["A", "B", "C"]`` (``None`` when not given)."""
    if values is None:
        return None
    codes = [c for v in values for c in v.split(",") if c.strip()]
    if not codes:
        raise ConfigError(f"{where}: no code given")
    return check_codes(codes, where)


def apply(findings: list[Finding], cfg: Config, checklists: list[Checklist],
          select: list[str] | None = None, ignore: list[str] | None = None) -> Outcome:
    """The findings left once codes are selected and ignored (command line over configuration)
    and inline comments applied; ``suppressed`` counts the rest."""
    inline, warnings = inline_all(checklists)
    return apply_inline(findings, cfg, inline, warnings, select, ignore)


def inline_all(checklists: list[Checklist]) -> tuple[dict[str, dict[int, set[str]]], list[str]]:
    """``{checklist: {line: codes suppressed there}}`` and the warnings about malformed comments."""
    inline: dict[str, dict[int, set[str]]] = {}
    warnings: list[str] = []
    for cl in checklists:
        spans, said = inline_spans(cl)
        warnings.extend(said)
        if spans:
            inline[cl.rel] = spans
    return inline, warnings


def apply_inline(findings: list[Finding], cfg: Config, inline: dict[str, dict[int, set[str]]], inline_warnings: list[str],
                 select: list[str] | None = None, ignore: list[str] | None = None) -> Outcome:
    """:func:`apply` with the inline comments already read (:func:`inline_all`)."""
    chosen = select if select is not None else cfg.select
    ignored = set(cfg.ignore) | set(ignore or ())

    def on(code: str) -> bool:
        if chosen is None:
            wanted = code not in OFF_BY_DEFAULT
        else:
            wanted = code in chosen or ("ALL" in chosen)
        return wanted and code not in ignored and "ALL" not in ignored

    out = Outcome([], warnings=list(inline_warnings))
    for f in findings:
        if not on(f.code) or _per_checklist(f, cfg) or _inline(f, inline):
            out.suppressed += 1
        else:
            out.findings.append(f)
    return out


def _per_checklist(f: Finding, cfg: Config) -> bool:
    if f.checklist is None or not cfg.per_checklist_ignores:
        return False
    name = f.checklist.rsplit("/", 1)[-1]
    for glob, codes in cfg.per_checklist_ignores.items():
        if fnmatch.fnmatchcase(f.checklist, glob) or fnmatch.fnmatchcase(name, glob):
            if f.code in codes or "ALL" in codes:
                return True
    return False


def _inline(f: Finding, inline: dict[str, dict[int, set[str]]]) -> bool:
    spans = inline.get(f.checklist or "")
    if not spans:
        return False
    codes = spans.get(f.checklist_line or 0, ())
    return f.code in codes or "ALL" in codes


def inline_spans(cl: Checklist) -> tuple[dict[int, set[str]], list[str]]:
    """``{checklist line: codes suppressed there}`` from the checklist's inline comments."""
    from upgrade_checklists.checklist import text_lines

    lines = text_lines(cl.text)  # as markdown-it counts them, as findings do
    comments: dict[int, set[str]] = {}
    warnings: list[str] = []
    for n, text in enumerate(lines, 1):
        if "upgrade-checklists" not in text or not _LOOSE_RE.search(text):
            continue
        found = COMMENT_RE.findall(text)
        if not found:
            warnings.append(f"{cl.rel}:{n}: not an 'upgrade-checklists: ignore[CODE,...]' comment; ignored")
            continue
        codes: set[str] = set()
        for group in found:
            for code in (c.strip() for c in group.split(",")):
                try:
                    codes.update(check_codes([code], f"{cl.rel}:{n}"))
                except ConfigError as exc:
                    warnings.append(f"{exc}; ignored")
        if codes:
            comments[n] = codes
    if not comments:
        return {}, warnings

    spans: dict[int, set[str]] = {}
    rows = {r.line for r in cl.rows}
    ends = sorted({*cl.section_lines.values(), *(e.line for e in cl.entries), len(lines) + 1})
    entries = {e.line: _next(ends, e.line) for e in cl.entries}
    guard_starts = sorted(g.ref_line for g in cl.guards)
    guard_ends = sorted({*ends, *guard_starts})
    for n, codes in comments.items():
        if n in rows:
            targets = range(n, n + 1)
        elif n in entries:
            targets = range(n, entries[n])
        else:
            start = max((g for g in guard_starts if g <= n), default=None)
            if start is None or n >= _next(guard_ends, start) or _blank_between(lines, start, n):
                warnings.append(f"{cl.rel}:{n}: ignore comment is not on a row, an entry heading or a guard; ignored")
                continue
            targets = range(start, start + 1)
        for t in targets:
            spans.setdefault(t, set()).update(codes)
    return spans, warnings


def _next(ends: list[int], line: int) -> int:
    return next((e for e in ends if e > line), ends[-1])


def _blank_between(lines: list[str], start: int, n: int) -> bool:
    """A blank line between a guard item's first line and ``n`` ends the item."""
    return any(not lines[i - 1].strip() for i in range(start + 1, n + 1))
