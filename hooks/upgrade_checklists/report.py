"""Format findings: ``text`` (path:line:col: CODE message), ``json``, ``github``."""

from __future__ import annotations

import json
from collections import Counter

from upgrade_checklists.findings import Finding

FORMATS = ("text", "json", "github")


def sort_key(f: Finding) -> tuple:
    path, line = f.location
    return (path, line, f.code, f.message)


def text_line(f: Finding) -> str:
    path, line = f.location
    msg = f.message
    if f.at_source:
        if f.severity != "error":
            msg = f"[{f.severity}] {msg}"
        if f.checklist and f.checklist_line:
            msg += f" ({f.checklist}:{f.checklist_line})"
    elif f.checklist is not None and f.file and f.line:
        msg += f" ({f.file}:{f.line})"
    return f"{path}:{line}:1: {f.code} {msg}"


def render(findings: list[Finding], fmt: str, *, checklists: int, files_scanned: int, extra: dict | None = None,
           hide_info: bool = False) -> str:
    """``hide_info``: in text output, audit findings of severity ``info`` are counted, not listed."""
    findings = sorted(findings, key=sort_key)
    if fmt == "json":
        doc = {
            "version": 1,
            "findings": [f.as_dict() | ({"severity": f.severity} if f.at_source else {}) for f in findings],
            "summary": {
                "checklists": checklists,
                "files_scanned": files_scanned,
                "findings_by_code": dict(sorted(Counter(f.code for f in findings).items())),
            },
        }
        if extra:
            doc.update(extra)
        return json.dumps(doc, indent=2) + "\n"
    if fmt == "github":
        out = []
        for f in findings:
            path, line = f.location
            level = {"error": "error", "warning": "warning"}.get(f.severity, "notice")
            out.append(f"::{level} file={_gh_prop(path)},line={line},title={f.code}::{_gh(f.message)}")
        return "".join(line + "\n" for line in out)
    hidden = [f for f in findings if hide_info and f.at_source and f.severity == "info"]
    lines = [text_line(f) for f in findings if not (hide_info and f.at_source and f.severity == "info")]
    if findings and extra is None:
        n = len(findings)
        lines.append(f"Found {n} finding{'s' if n != 1 else ''} in {checklists} checklist{'s' if checklists != 1 else ''}.")
    elif extra is not None:
        errors = sum(f.severity == "error" and f.code != "FETCH" for f in findings)
        more = f" ({len(hidden)} info not listed; -v lists them)" if hidden else ""
        lines.append(f"Audited {len(extra.get('packages', []))} package(s): {errors} breaking, {len(findings) - errors} other{more}.")
    return "".join(line + "\n" for line in lines)


def _gh(value: str) -> str:
    """Escape a message for a GitHub workflow command."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(value: str) -> str:
    """Escape a property value (file=...) for a GitHub workflow command."""
    return _gh(value).replace(":", "%3A").replace(",", "%2C")
