"""Write ``upgrade-summary.md`` in the upgrade skill's "Step 8" shape.

Date, Requested (the command line), Version Changes (package, old, new, variants),
Dependency Resolution (focused packages moved only through the lock files, and locks
overriding pins), Dockerfile Changes (from the status file's Package Impact Matrix), the
API Compatibility Audit per package (breaking changes ordered Primary -> Secondary ->
Tertiary, module moves, version-guarded code; or "No breaking changes found"), a
per-entry table (verdict OK / BREAKS / DEPRECATED / CHANGED-UNUSED / UNRESOLVED, call sites bound),
and Unresolved Issues. Written also when a step failed (the failure is listed under
Unresolved Issues). The text is normalised with mdformat (``--wrap=88``, gfm, tables) so
that formatting it again changes nothing.
"""

from __future__ import annotations

import datetime
import hashlib

from upgrade_checklists.audit.pipeline import AuditResult
from upgrade_checklists.audit.bind import BEHAVIOUR, coverage_text
from upgrade_checklists.project.cache import ScanCache
from upgrade_checklists.core.findings import Finding
from upgrade_checklists.audit.targets import Target

GUARDS = ("GUARD_DEAD", "GUARD_MISMATCH", "GUARD_NEEDED", "GUARD_UNKNOWN")
#: codes that say the API itself changed (an info/warning one: no call site is affected)
CHANGES = ("REMOVED_PARAM", "RENAMED_PARAM", "NEW_REQUIRED_PARAM", "POSITION_CHANGED", "RETURN_CHANGED",
           "REMOVED_API", "MOVED_API", "METHOD_CHANGED")
TIER_ORDER = {"primary": 0, "secondary": 1, "tertiary": 2}
WRAP = 88


def render(result: AuditResult, *, requested: str, date: datetime.date | None = None,
           docker: dict[str, str] | None = None, tier_of=None, introduced: dict | None = None,
           store: ScanCache | None = None) -> str:
    """The summary. ``docker``: package -> the matrix's Docker impact (None: no matrix);
    ``tier_of(path)`` -> "primary" / "secondary" / "tertiary" / None; ``introduced``:
    finding -> the first release it appears in (the ledger); ``store``: where the
    formatted text is remembered (:func:`normalise`)."""
    tier_of = tier_of or (lambda path: None)
    introduced = introduced or {}
    date = date or datetime.date.today()
    out = ["## Dependency Upgrade Summary", "", f"**Date:** {date.isoformat()}", "", f"**Requested:** `{requested}`", ""]

    out += ["### Version Changes", ""]
    changed = [t for t in result.targets if t.old and t.old != t.new]
    if result.targets:
        out += ["| Package | Old Version | New Version | Variant(s) |", "| --- | --- | --- | --- |"]
        out += [f"| `{t.package}` | {_v(t.old) if t.old else '—'} | {_v(t.new)} | {_cell(t.variant_label)} |" for t in result.targets]
        if not changed:
            out += ["", "Nothing moved: every focused package is audited at its pinned version (binding only)."]
    else:
        out.append("No focused package to audit.")
    out.append("")

    out += ["### Dependency Resolution", ""]
    resolution = [f"- `{t.package}` {_v(t.old)} → {_v(t.new)} @ {t.variant_label}: moved through the lock file only "
                  "(a transitive bump: no pin changed)" for t in changed if t.transitive]
    resolution += [f"- {n}" for n in result.notes if "the lock wins" in n]
    resolution += [f"- `{t.package}` {_v(t.old)} → {_v(t.new)}: named on the command line (not read from a pin)"
                   for t in changed if t.why == "command line"]
    if not changed:
        resolution = resolution or ["- No version change."]
    out += (resolution or ["- No transitive changes: every version change is a pin change."]) + [""]

    out += ["### Dockerfile Changes", ""]
    if docker is None:
        out.append("- Not known: the status file has no Package Impact Matrix.")
    else:
        review = []
        for t in changed:
            impact = docker.get(t.package)
            if impact and impact.strip().lower() not in ("no", "none", "—", "-"):
                review.append(f"- `{t.package}` ({impact}): review the Dockerfile")
        out.append("\n".join(dict.fromkeys(review)) if review else "- No changes required")
    out.append("")

    out += ["### API Compatibility Audit", ""]
    for t in result.targets:
        out += _package(t, tier_of, introduced)

    out += ["### Unresolved Issues", ""]
    unresolved = [f"- The audit could not complete: {e}" for e in result.errors]
    for t in result.targets:
        unresolved += [f"- `{t.package}`{_at(t)}: {_item(f)}" for f in t.findings if f.code == "UNRESOLVED"]
    unresolved += [f"- {n}" for n in result.notes if "the lock wins" not in n]
    out += (unresolved or ["- None."]) + [""]
    return normalise("\n".join(out), store)


def _package(t: Target, tier_of, introduced: dict) -> list[str]:
    arrow = f"{_v(t.old)} → {_v(t.new)}" if t.old else f"at {_v(t.new)}"
    out = [f"#### {t.package} ({arrow}){_at(t)}", ""]
    unresolved = sum(1 for f in t.findings if f.code == "UNRESOLVED" and f.file is not None)
    out += [f"Why: {t.why}. Source: {t.source or '—'}. Resolved {t.resolved} of {len(t.checklist.entries)} catalog APIs "
            f"upstream; bound {t.bound} of {t.calls} call sites"
            + (f"; {unresolved} use(s) in the code could not be resolved (`UNRESOLVED`, info)." if unresolved else "."), ""]
    if getattr(t, "not_resolved", None):
        out += [f"Not resolved ({len(t.not_resolved)}):", ""]
        out += [f"- entry {n}{f' `{api}`' if api else ''}: {why}" for n, api, why in t.not_resolved]
        out.append("")
    if getattr(t, "coverage", None):
        out += [f"Coverage: {coverage_text(t.coverage)}. Not checked: {BEHAVIOUR}.", ""]
    mine = t.findings
    breaking = [f for f in mine if f.severity == "error" and f.code not in GUARDS and f.code != "FETCH"]
    moves = [f for f in mine if f.code == "MOVED_API"]
    guards = [f for f in mine if f.code in GUARDS]
    if breaking:
        def order(f: Finding):
            return (TIER_ORDER.get(tier_of(f.file) if f.file else None, 3), f.file or "", f.line or 0, f.code)

        out += ["**Breaking changes found:**", ""]
        for f in sorted(breaking, key=order):
            when = introduced.get(f)
            out.append(f"- {_where(f)} {f.code}: {f.message}" + (f" (introduced in {when})" if when else ""))
        out.append("")
    if moves:
        out += ["**Module moves / renames:**", ""]
        seen = []
        for f in moves:
            fix = f.fix or {}
            line = f"- `{fix['old']}` → `{fix['new']}`" if fix.get("old") and fix.get("new") else f"- {_where(f)} {f.message}"
            if line not in seen:
                seen.append(line)
        out += seen + [""]
    if guards:
        out += ["**Version-guarded code:**", ""]
        for f in sorted(guards, key=lambda f: (f.file or "", f.line or 0, f.code)):
            out.append(f"- {_where(f)} {_guard_status(f)}: {f.message}")
        out.append("")
    deprecated = [f for f in mine if f.code == "DEPRECATED"]
    if deprecated:
        out += ["**Deprecations (work now, warn at the new version):**", ""]
        out += [f"- {_where(f)} {f.message}" for f in sorted(deprecated, key=lambda f: (f.file or "", f.line or 0, f.message))]
        out.append("")
    if any(f.code == "FETCH" for f in mine):
        out += ["**Not audited:** the upstream source could not be fetched (see Unresolved Issues)", ""]
    elif not breaking:
        out += ["**No breaking changes found**", ""]
    out += _entries(t)
    return out


def _guard_status(f: Finding) -> str:
    return {"GUARD_DEAD": "can be removed", "GUARD_MISMATCH": "can be removed once the patch matches the native method",
            "GUARD_NEEDED": "still needed", "GUARD_UNKNOWN": "not recognised"}[f.code]


def verdicts(t: Target) -> list[tuple[int, str, str, int]]:
    """``(entry number, API, verdict, call sites bound)`` per catalog entry."""
    by_line: dict[int, list[Finding]] = {}
    for f in t.findings:
        if f.checklist == t.checklist.rel and f.checklist_line is not None:
            by_line.setdefault(f.checklist_line, []).append(f)
    rows = []
    for e in t.checklist.entries:
        mine = by_line.get(e.line, [])
        if any(f.severity == "error" for f in mine):
            verdict = "BREAKS"
        elif any(f.code == "UNRESOLVED" for f in mine) or any(f.code == "FETCH" for f in t.findings):
            verdict = "UNRESOLVED"
        elif any(f.code == "DEPRECATED" for f in mine):
            verdict = "DEPRECATED"
        elif any(f.code in CHANGES for f in mine):
            verdict = "CHANGED-UNUSED"
        else:
            verdict = "OK"
        rows.append((e.number, e.api or e.title, verdict, t.entry_bound.get(e.number, 0)))
    return rows


def _entries(t: Target) -> list[str]:
    rows = verdicts(t)
    if not rows:
        return []
    out = ["| # | API | Verdict | Call sites bound |", "| --- | --- | --- | --- |"]
    out += [f"| {n} | {_cell(_code(api))} | {verdict} | {sites} |" for n, api, verdict, sites in rows]
    return out + [""]


def _at(t: Target) -> str:
    return f" @ {t.variant_label}" if t.variants else ""


def _v(version: str | None) -> str:
    """A version; a git commit shortened to 12 characters."""
    if version and len(version) == 40 and all(c in "0123456789abcdef" for c in version):
        return version[:12]
    return version or "—"


def _code(text: str) -> str:
    return f"`{text}`" if "`" not in text else text


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _where(f: Finding) -> str:
    if f.file:
        return f"[{f.file}:{f.line}]" if f.line else f"[{f.file}]"
    return f"[{f.checklist}:{f.checklist_line}]" if f.checklist else ""


def _item(f: Finding) -> str:
    return f"{_where(f)} {f.code}: {f.message}"


def normalise(text: str, store: ScanCache | None = None) -> str:
    """The text as mdformat writes it (``--wrap=88``, gfm, tables): formatting it again changes
    nothing. ``store`` (the audit's cache) remembers the answer for this text and these
    formatters' versions: mdformat is most of a warm audit's own work, and an audit whose
    findings did not change writes the same summary."""
    stamp = None
    if store is not None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            formatters = [version(d) for d in ("mdformat", "mdformat-gfm", "mdformat-tables")]
        except PackageNotFoundError:
            formatters = None
        if formatters is not None:
            h = hashlib.blake2b("\0".join([*formatters, str(WRAP), text]).encode("utf-8", "surrogatepass"), digest_size=16)
            stamp = h.hexdigest()
            hit, value = store.get_stamped("summary", stamp)
            if hit and type(value) is str:
                return value
    import mdformat

    out = mdformat.text(text, options={"wrap": WRAP, "number": False}, extensions={"gfm", "tables"})
    if stamp is not None:
        store.put_stamped("summary", stamp, out)
    return out
