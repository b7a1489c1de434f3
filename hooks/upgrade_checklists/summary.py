"""Write ``upgrade-summary.md``: old -> new per package, breaking changes with
``file:line``, module moves, version-guard status, unresolved issues. Written
also when a step failed (the failure is listed under "Unresolved issues")."""

from __future__ import annotations

from upgrade_checklists.audit import AuditResult
from upgrade_checklists.findings import Finding

_GUARDS = ("GUARD_DEAD", "GUARD_MISMATCH", "GUARD_NEEDED", "GUARD_UNKNOWN")
_MOVES = ("MOVED_API",)


def _where(f: Finding) -> str:
    if f.file:
        return f"`{f.file}:{f.line}`" if f.line else f"`{f.file}`"
    return f"`{f.checklist}:{f.checklist_line}`" if f.checklist else ""


def _item(f: Finding) -> str:
    ref = f" (checklist `{f.checklist}:{f.checklist_line}`)" if f.checklist and f.file else ""
    return f"- {_where(f)} **{f.code}** {f.message}{ref}"


def render(result: AuditResult) -> str:
    out = ["# Upgrade summary", ""]
    if result.targets:
        out += ["| package | old | new | source | breaking | other |", "| --- | --- | --- | --- | --- | --- |"]
        for t in result.targets:
            mine = [f for f in result.findings if f.package == t.package]
            errors = sum(f.severity == "error" and f.code != "FETCH" for f in mine)
            out.append(f"| {t.package} | {t.old or '—'} | {t.new} | {t.source or '—'} | {errors} | {len(mine) - errors} |")
        out.append("")
    else:
        out += ["No focused package to audit.", ""]
    verdict = "**Breaking changes found.**" if result.breaking else "No breaking change found."
    if result.errors:
        verdict = "**The audit could not complete** (see Unresolved issues)."
    out += [verdict, ""]
    for t in result.targets:
        mine = [f for f in result.findings if f.package == t.package]
        out += [f"## {t.package} {t.old + ' -> ' if t.old else 'at '}{t.new}", "", f"Why: {t.why}.", "",
                f"Resolved {t.resolved} of {len(t.checklist.entries)} catalog APIs upstream; bound {t.bound} call sites.", ""]
        if t.not_resolved:
            out += [f"Not resolved ({len(t.not_resolved)}):", ""]
            out += [f"- entry {n}{f' `{api}`' if api else ''}: {why}" for n, api, why in t.not_resolved]
            out.append("")
        sections = [
            ("Breaking changes", [f for f in mine if f.severity == "error" and f.code not in _GUARDS + ("FETCH",)]),
            ("Module moves", [f for f in mine if f.code in _MOVES]),
            ("Version guards", [f for f in mine if f.code in _GUARDS]),
            ("Warnings", [f for f in mine if f.severity == "warning" and f.code not in _GUARDS]),
            ("Informational", [f for f in mine if f.severity == "info" and f.code not in _GUARDS + _MOVES + ("UNRESOLVED",)]),
        ]
        for title, items in sections:
            out += [f"### {title}", ""]
            out += [_item(f) for f in sorted(items, key=lambda f: (f.file or "", f.line or 0, f.code))] or ["_None._"]
            out.append("")
    unresolved = [f"- {e}" for e in result.errors]
    unresolved += [_item(f) for f in result.findings if f.code == "UNRESOLVED"]
    unresolved += [f"- {n}" for n in result.notes]
    out += ["## Unresolved issues", ""] + (unresolved or ["_None._"]) + [""]
    return "\n".join(out)
