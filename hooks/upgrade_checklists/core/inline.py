"""Inline ``<!-- upgrade-checklists: ignore[CODE,...] -->`` comments in a checklist, read
into the lines they apply to (the reporting of findings is ``output/suppress.py``).

An inline comment applies to the checklist element on whose line it stands, found through
the checklist model's positions:

- on an Affected Files row: findings on that row;
- on a catalog entry heading (``### N. ...``): findings anywhere in that entry;
- on a Version-Guarded Code item (any of its lines): findings on that guard.

A comment elsewhere suppresses nothing and is reported as a warning, as is an unknown code.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from upgrade_checklists.core.config import ConfigError, check_codes

if TYPE_CHECKING:
    from upgrade_checklists.core.checklist import Checklist

COMMENT_RE = re.compile(r"<!--\s*upgrade-checklists:\s*ignore\[([^\]]*)\]\s*-->")
_LOOSE_RE = re.compile(r"<!--\s*upgrade-checklists\s*:")


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


def inline_spans(cl: Checklist) -> tuple[dict[int, set[str]], list[str]]:
    """``{checklist line: codes suppressed there}`` from the checklist's inline comments."""
    if "upgrade-checklists" not in cl.text:  # most checklists: no comment, nothing to split
        return {}, []
    from upgrade_checklists.core.checklist import text_lines

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
