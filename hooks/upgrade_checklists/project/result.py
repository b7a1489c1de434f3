"""The structure check's result: findings plus what later steps (fix, audit) reuse."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from upgrade_checklists.project.cache import ScanCache
from upgrade_checklists.project.status_tables import StatusTables
from upgrade_checklists.core.checklist import Checklist
from upgrade_checklists.core.config import Config
from upgrade_checklists.core.files import Skipped, file_stat, read_file
from upgrade_checklists.core.findings import Finding
from upgrade_checklists.project.scan import Facts, scan_file, scan_to_plain
from upgrade_checklists.project.tiers import TierRules


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
    #: per checklist, where its catalog's findings are in ``findings`` (``[start, end]``) and
    #: the files its catalog asked about; and the renamed references the catalogs followed:
    #: what ``cutoff.py`` needs to check one catalog again alone
    catalogs: dict[str, dict] = field(default_factory=dict)
    moved: dict[str, str] = field(default_factory=dict)
    #: the catalogs' answers and the sources they parsed (``snippets.Snippets``), kept with
    #: the result: freed when the run returns, their syntax trees cost a cold run 15 ms
    snippets: object = field(default=None, repr=False, compare=False)
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

