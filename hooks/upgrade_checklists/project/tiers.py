"""Tier rules: which tier a file's location maps to.

From the configuration (``[tool.upgrade-checklists.tiers]``), or inferred from the
checklists' own rows; and a checklist may state its own exceptions in its frontmatter
(``tiers: {primary: ["pkg/models/core/"]}``: a file ranked by risk rather than by
location), which take precedence for that checklist only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatch

from upgrade_checklists.core.checklist import TIERS, Checklist
from upgrade_checklists.core.config import Config

#: how a TIER message tells the reader to state a deliberate ranking
EXCEPTION_HINT = "if ranked so on purpose, add `tiers: {{{tier}: [{paths}]}}` to this checklist's frontmatter"


@dataclass
class TierRules:
    rules: list[tuple[str, str]]  # (pattern, tier), most specific first
    inferred: bool
    own: list[tuple[str, str]] = field(default_factory=list)  # a checklist's frontmatter rules, consulted first

    @classmethod
    def build(cls, cfg: Config, checklists: list[Checklist]) -> "TierRules":
        if cfg.tiers is not None:
            rules = [(p, t) for t in TIERS for p in cfg.tiers.get(t, [])]
            return cls(_most_specific_first(rules), False)
        votes: dict[str, set[str]] = {}
        for cl in checklists:
            for row in cl.rows:
                if row.extra:
                    continue
                parent = row.file.rsplit("/", 1)[0] + "/" if "/" in row.file else ""
                if parent:
                    votes.setdefault(parent, set()).add(row.tier)
        rules = [(d, ts.pop()) for d, ts in votes.items() if len(ts) == 1]
        return cls(sorted(rules, key=lambda r: -len(r[0])), True)

    def for_checklist(self, cl: Checklist) -> "TierRules":
        """These rules, with the checklist's own ``tiers:`` frontmatter rules taking precedence."""
        own = checklist_rules(cl)
        if not own:
            return self
        return TierRules(self.rules, self.inferred, own)

    def tier_of(self, path: str) -> tuple[str | None, str | None]:
        for rules in (self.own, self.rules):
            for pattern, tier in rules:
                if _applies(pattern, path):
                    return tier, pattern
        return None, None


def checklist_rules(cl: Checklist) -> list[tuple[str, str]]:
    """``tiers:`` in the frontmatter: {tier: [pattern, ...]} (validated by the reader)."""
    own = cl.frontmatter.get("tiers")
    if not isinstance(own, dict):
        return []
    rules = [(p, t) for t in TIERS for p in own.get(t) or [] if isinstance(p, str) and isinstance(own.get(t), list)]
    return _most_specific_first(rules)


def _most_specific_first(rules: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return sorted(rules, key=lambda r: -len(r[0].rstrip("/")))


def _applies(pattern: str, path: str) -> bool:
    """A prefix (``app/``) covers what is below it; a glob matches the whole path (``*``
    crosses folders), and a glob ending in ``/`` is a folder that covers what is below it
    (``pkg/*/tests/`` as ``pkg/*/tests/*``: written as a prefix, it used to match nothing)."""
    if "*" in pattern or "?" in pattern or "[" in pattern:
        return fnmatch(path, pattern + "*" if pattern.endswith("/") else pattern)
    p = pattern.rstrip("/")
    return path == p or path.startswith(p + "/") or p in ("", ".")
