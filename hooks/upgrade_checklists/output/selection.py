"""Which findings concern the files a run was given (pre-commit passes the changed files)."""

from __future__ import annotations

import os
from pathlib import Path

from upgrade_checklists.core.config import Config
from upgrade_checklists.core.findings import Finding

__all__ = ["select", "select_deleted"]


def select(findings: list[Finding], paths: list[str], cfg: Config) -> list[Finding]:
    """The findings that concern ``paths``: a changed checklist is checked whole;
    a listed file that no longer exists always concerns the commit (pre-commit
    never passes deleted files); a changed configuration file selects everything. A
    finding about code that may be in several files (a SNIPPET: every file its entry
    names, ``fix["concerns"]``) concerns each of them, not only the nearest match it names."""
    wanted = {Path(p).as_posix().removeprefix("./") for p in paths}
    if cfg.source is not None and cfg.source.resolve().as_posix() in {(cfg.root / p).resolve().as_posix() for p in wanted}:
        return findings
    out = []
    for f in findings:
        if f.checklist in wanted or f.file in wanted:
            out.append(f)
        elif f.fix and not wanted.isdisjoint(f.fix.get("concerns", ())):  # a snippet about several files
            out.append(f)
        elif f.file is not None and f.code in ("STALE", "MOVED", "SNIPPET", "GUARD") and not _exists(cfg.root, f.file):
            out.append(f)
    return out


def select_deleted(findings: list[Finding], deleted: list[str]) -> list[Finding]:
    """The findings about ``deleted`` files only: what a hook run without file arguments
    (pre-commit passes none for a deletion-only commit, nor for files of other types) reports."""
    gone = {Path(p).as_posix() for p in deleted}
    return [f for f in findings if f.file in gone or f.checklist in gone or (f.fix or {}).get("old") in gone]


def _exists(root: Path, rel: str) -> bool:
    try:
        return os.path.lexists(os.path.join(root, rel))
    except (OSError, ValueError):
        return False
