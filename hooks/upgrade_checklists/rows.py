"""Affected Files rows against the code's imports: MISSING, STALE, MOVED, CHANGED, TIER (and duplicate rows)."""

from __future__ import annotations

from upgrade_checklists.checklist import Checklist, Row
from upgrade_checklists.config import Config
from upgrade_checklists.findings import Finding
from upgrade_checklists.result import Result, ensure_full
from upgrade_checklists.scan import Facts, Import
from upgrade_checklists.tiers import TierRules
from upgrade_checklists.tokens import covers, matches


def _row_tokens_cover(row: Row, imp: Import, facts: Facts) -> bool:
    return any(covers(t, imp, facts.attributes) for t in row.tokens)


def compare_rows(cfg: Config, res: Result, cl: Checklist, tiers: TierRules) -> None:
    names = res.import_names[cl.rel]
    pkg = cl.package
    add = res.findings.append
    users = {}
    for path, facts in list(res.facts.items()):
        if not facts.full and any(m.startswith(i.qualname + ".") for i in facts.imports for m in names):
            facts = ensure_full(cfg, res, path)  # `import pkg` then `pkg.sub.x`: needs attribute uses
        imps = facts.imports_of(names)
        if imps:
            users[path] = imps
    by_file: dict[str, Row] = {}
    gone: list[Row] = []
    for row in cl.rows:
        if row.file in by_file:
            add(Finding(cl.rel, row.line, "FORMAT", f"`{row.file}` is listed twice (also at line {by_file[row.file].line})", row.file, None, pkg))
            continue
        by_file[row.file] = row
        path = cfg.root / row.file
        if not path.is_file():
            gone.append(row)
            continue
        facts = res.facts.get(row.file)
        text = None
        if facts is None and not row.file.endswith(".py"):
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
        elif facts is None:
            continue  # a PARSE finding already speaks for it
        imps = users.get(row.file, [])
        live = [t for t in row.tokens if matches(t, facts, imps, text)]
        uncovered = [i for i in imps if not _row_tokens_cover(row, i, facts)] if facts else []
        if facts is not None and not facts.full and (len(live) < len(row.tokens) or uncovered):
            facts = ensure_full(cfg, res, row.file)  # imports alone do not decide: names, strings
            live = [t for t in row.tokens if matches(t, facts, imps, text)]
            uncovered = [i for i in imps if not _row_tokens_cover(row, i, facts)]
        if not imps and not live:
            if not row.marked_removal:
                why = "no longer imports" if row.tokens else "does not import"
                add(Finding(cl.rel, row.line, "STALE", f"`{row.file}` {why} {pkg} and none of its row's tokens match", row.file, None, pkg, {"mark": True}))
            continue
        if uncovered:
            shown = ", ".join(f"`{d}`" for d in dict.fromkeys(_describe(i) for i in uncovered))
            first = min(i.line for i in uncovered)
            add(Finding(cl.rel, row.line, "CHANGED", f"`{row.file}` imports {shown}, not in its row", row.file, first, pkg,
                        {"add": usage_parts(uncovered)}))
        dead = [t for t in row.tokens if t not in live]
        if dead:
            shown = ", ".join(f"`{t}`" for t in dead)
            add(Finding(cl.rel, row.line, "CHANGED", f"`{row.file}`: {shown} no longer match anything in the file", row.file, None, pkg,
                        {"strike": dead}))
        want, rule = tiers.tier_of(row.file)
        if want is not None and want != row.tier:
            add(Finding(cl.rel, row.line, "TIER", f"`{row.file}` is listed as {row.tier.capitalize()} but its location ({rule}) maps to {want.capitalize()}", row.file, None, pkg, {"tier": want}))

    missing = {p: imps for p, imps in users.items() if p not in by_file}
    if gone:  # matching a move compares row tokens with uses: needs full facts
        for p in missing:
            ensure_full(cfg, res, p)
    for row in gone:
        match = _moved_target(row, missing, res.facts)
        if match is not None:
            imps = missing.pop(match)
            add(Finding(cl.rel, row.line, "MOVED", f"`{row.file}` moved to `{match}` (same name, same imports)", match, imps[0].line, pkg,
                        {"old": row.file, "new": match}))
        elif not row.marked_removal:
            add(Finding(cl.rel, row.line, "STALE", f"`{row.file}` does not exist", row.file, None, pkg, {"mark": True}))
    for path, imps in sorted(missing.items()):
        tier, _ = tiers.tier_of(path)
        line = cl.tier_lines.get(tier or "", cl.section_lines.get("affected", 1))
        where = f"belongs in {tier.capitalize()}" if tier else "no tier rule matches its location"
        shown = ", ".join(f"`{d}`" for d in dict.fromkeys(_describe(i) for i in imps))
        fix = {"tier": tier, "cell": ", ".join(usage_parts(imps))} if tier else None
        add(Finding(cl.rel, line, "MISSING", f"`{path}` imports {shown} but no tier lists it ({where})", path, imps[0].line, pkg, fix))


def usage_parts(imports: list[Import]) -> list[str]:
    """Backticked cell parts documenting ``imports``: original names, alias noted."""
    parts = []
    for imp in imports:
        if imp.original == "*":
            part = f"`{imp.qualname}`"
        elif imp.bound not in (imp.original, imp.original.split(".")[0]):
            part = f"`{imp.original}` (as `{imp.bound}`)"
        else:
            part = f"`{imp.original}`"
        if part not in parts:
            parts.append(part)
    return parts


def _describe(imp: Import) -> str:
    if imp.bound not in (imp.original, imp.original.split(".")[0]):
        return f"{imp.qualname} as {imp.bound}"
    return imp.qualname


def _moved_target(row: Row, missing: dict[str, list[Import]], facts: dict[str, Facts]) -> str | None:
    base = row.file.rsplit("/", 1)[-1]
    best, score = None, -1
    for path, imps in missing.items():
        if path.rsplit("/", 1)[-1] != base:
            continue
        covered = sum(_row_tokens_cover(row, i, facts[path]) for i in imps)
        if (covered or not row.tokens) and covered > score:
            best, score = path, covered
    return best
