"""The structure check's result: findings plus what later steps (fix, audit) reuse."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from upgrade_checklists.cache import ScanCache
from upgrade_checklists.status_tables import StatusTables
from upgrade_checklists.checklist import Checklist
from upgrade_checklists.config import Config
from upgrade_checklists.files import Skipped, file_stat, read_file
from upgrade_checklists.findings import Finding
from upgrade_checklists.plain import PlainError, from_plain, to_plain
from upgrade_checklists.scan import Facts, scan_file
from upgrade_checklists.tiers import TierRules


@dataclass
class Result:
    findings: list[Finding] = field(default_factory=list)
    checklists: list[Checklist] = field(default_factory=list)
    files_scanned: int = 0
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # said on stderr, whatever the format
    facts: dict[str, Facts] = field(default_factory=dict)
    import_names: dict[str, list[str]] = field(default_factory=dict)
    tiers: "TierRules | None" = None
    cache: ScanCache | None = None
    status_tables: "StatusTables | None" = None  # the status file's tables, when one is configured
    root: "Path | None" = None  # the repository checked


def ensure_full(cfg: Config, res: Result, rel: str) -> Facts:
    """The file's full facts (names, attribute uses, strings), scanned once."""
    facts = res.facts[rel]
    if not facts.full:
        try:
            st = file_stat(cfg.root, rel)
            out = scan_file(rel, read_file(cfg.root, rel, st), True)
        except (Skipped, OSError):
            return facts  # changed into something unreadable since the first look
        if isinstance(out, Facts):
            res.facts[rel] = facts = out
            if res.cache is not None:
                res.cache.put(rel, st, scan_to_plain(out))
    return facts


# --- a file's scan result in the cache ------------------------------------------------
# {"facts": Facts} | {"finding": Finding (PARSE)} | {"skip": id}: the pre-filter's
# "cannot import" answer, which holds for the module set ``id`` names only.


def scan_to_plain(out: Facts | Finding | str) -> dict:
    if isinstance(out, Facts):
        return {"facts": to_plain(out)}
    if isinstance(out, Finding):
        return {"finding": to_plain(out)}
    return {"skip": out}


def scan_from_plain(data: object) -> Facts | Finding | str | None:
    """The cached scan result, or None when the data is not one."""
    if type(data) is not dict or len(data) != 1:
        return None
    try:
        if "facts" in data:
            return from_plain(Facts, data["facts"])
        if "finding" in data:
            return from_plain(Finding, data["finding"])
    except PlainError:
        return None
    skip = data.get("skip")
    return skip if type(skip) is str else None
