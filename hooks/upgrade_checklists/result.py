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
from upgrade_checklists.scan import Facts, Import, scan_file
from upgrade_checklists.tiers import TierRules


@dataclass
class Result:
    findings: list[Finding] = field(default_factory=list)
    checklists: list[Checklist] = field(default_factory=list)
    files_scanned: int = 0
    files_parsed: int = 0  # read again this run (not answered by the cache)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # said on stderr, whatever the format
    facts: dict[str, Facts] = field(default_factory=dict)
    import_names: dict[str, list[str]] = field(default_factory=dict)
    tiers: "TierRules | None" = None
    cache: ScanCache | None = None
    status_tables: "StatusTables | None" = None  # the status file's tables, when one is configured
    root: "Path | None" = None  # the repository checked
    #: the files whose content the outcome depends on beyond the pre-filter's "cannot
    #: import" (what ``cutoff.py`` must read again when one changes), and the modules the
    #: pre-filter looked for
    observed: set[str] = field(default_factory=set)
    asked: set[str] = field(default_factory=set)  # the observed files the catalogs asked about
    ceilings: dict[str, int] = field(default_factory=dict)  # Snippets.ceilings: line counts that read the same
    modules: list[str] = field(default_factory=list)
    _by_head: "dict[str, set[str]] | None" = field(default=None, repr=False, compare=False)

    def importers(self, modules: list[str]) -> list[str]:
        """The files (in ``facts`` order) with an import that may refer to ``modules``:
        one of the same top-level package (what ``Facts.imports_of`` needs to look at)."""
        if self._by_head is None:
            self._by_head = {}
            for path, facts in self.facts.items():
                for imp in facts.imports:
                    self._by_head.setdefault(imp.qualname.split(".", 1)[0], set()).add(path)
        wanted = set().union(*(self._by_head.get(m.split(".", 1)[0], ()) for m in modules))
        return [p for p in self.facts if p in wanted] if wanted else []


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
            res._by_head = None  # read again: its imports may differ from the first look
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
            return facts_from_plain(data["facts"])
        if "finding" in data:
            return from_plain(Finding, data["finding"])
    except PlainError:
        return None
    skip = data.get("skip")
    return skip if type(skip) is str else None


_IMPORT_KEYS = ("qualname", "bound", "original", "target")


def facts_from_plain(d: object) -> Facts:
    """``from_plain(Facts, d)``, written out: a warm run converts every cached file's facts,
    and the generic converter is the larger part of that. Same checks, same errors."""
    if type(d) is not dict or type(d.get("path")) is not str:
        raise PlainError("not the facts of a file")
    if type(d.get("imports", [])) is not list:
        raise PlainError("imports is not a list")
    imports = []
    for i in d.get("imports", []):
        if type(i) is not dict or type(i.get("line")) is not int or type(i.get("dynamic", False)) is not bool:
            raise PlainError("not an import")
        for k in _IMPORT_KEYS:
            if type(i.get(k)) is not str:
                raise PlainError(f"import {k} is not a string")
        imports.append(Import(i["qualname"], i["bound"], i["original"], i["line"], i["target"], i.get("dynamic", False)))
    names, strings, attributes = d.get("names", []), d.get("strings", []), d.get("attributes", {})
    full = d.get("full", False)
    if (type(names) is not list or type(strings) is not list or type(attributes) is not dict or type(full) is not bool
            or any(type(n) is not str for n in names) or any(type(s) is not str for s in strings)
            or any(type(v) is not int for v in attributes.values())):
        raise PlainError("facts of the wrong shape")
    return Facts(d["path"], imports, set(names), dict(attributes), set(strings), full)
