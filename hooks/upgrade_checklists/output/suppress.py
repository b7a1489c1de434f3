"""Which findings are reported: ``--select`` / ``--ignore``, the ``select`` / ``ignore`` /
``per-checklist-ignores`` keys, and inline ``<!-- upgrade-checklists: ignore[CODE,...] -->``
comments in a checklist (read, with the rules of where they apply, by ``core/inline.py``).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from upgrade_checklists.core.config import Config, ConfigError, check_codes
from upgrade_checklists.core.findings import OFF_BY_DEFAULT, Finding
from upgrade_checklists.core.inline import inline_all

if TYPE_CHECKING:
    from upgrade_checklists.core.checklist import Checklist


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
