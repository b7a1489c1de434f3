"""Tier rules: which tier a file's location maps to (configured, or inferred from the checklists)."""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatch

from upgrade_checklists.checklist import TIERS, Checklist
from upgrade_checklists.config import Config


@dataclass
class TierRules:
    rules: list[tuple[str, str]]  # (pattern, tier), most specific first
    inferred: bool

    @classmethod
    def build(cls, cfg: Config, checklists: list[Checklist]) -> "TierRules":
        if cfg.tiers is not None:
            rules = [(p, t) for t in TIERS for p in cfg.tiers.get(t, [])]
            return cls(sorted(rules, key=lambda r: -len(r[0].rstrip("/"))), False)
        votes: dict[str, set[str]] = {}
        for cl in checklists:
            for row in cl.rows:
                parent = row.file.rsplit("/", 1)[0] + "/" if "/" in row.file else ""
                if parent:
                    votes.setdefault(parent, set()).add(row.tier)
        rules = [(d, ts.pop()) for d, ts in votes.items() if len(ts) == 1]
        return cls(sorted(rules, key=lambda r: -len(r[0])), True)

    def tier_of(self, path: str) -> tuple[str | None, str | None]:
        for pattern, tier in self.rules:
            if any(ch in pattern for ch in "*?["):
                if fnmatch(path, pattern):
                    return tier, pattern
            else:
                p = pattern.rstrip("/")
                if path == p or path.startswith(p + "/") or p in ("", "."):
                    return tier, pattern
        return None, None
