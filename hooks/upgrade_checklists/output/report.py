"""Format findings: ``text`` (grouped per checklist, as ruff), ``concise`` (one
``path:line:col: CODE message`` line each), ``json``, ``sarif`` (2.1.0), ``github``
(workflow annotations) and the Markdown table for ``$GITHUB_STEP_SUMMARY``.

Nothing here reads the code or decides an exit code: the command line passes in what
it knows (counts, whether a source file exists, colour) and writes the strings out.

Every message, in every format, and every path in the text formats, is shown with its
control characters escaped (``findings.printable``): a file name or a checklist cell from
the repository can neither drive the terminal (ANSI escapes) nor start a line of its own (a
forged finding, a workflow command). The JSON and SARIF documents keep the paths exact
(JSON escapes what it must; a SARIF URI is percent-encoded).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from upgrade_checklists import __version__
from upgrade_checklists.core.findings import AUDIT_CODES, DESCRIPTIONS, Finding, printable

FORMATS = ("text", "concise", "json", "sarif", "github")
FIX_HINT = "upgrade-checklists check --fix"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
#: rows of the step summary's findings table (the rest is counted)
SUMMARY_ROWS = 200


@dataclass
class Context:
    """What the output says besides the findings."""

    checklists: int = 0
    files_scanned: int = 0
    suppressed: int = 0  # by --select / --ignore / configuration / inline comments
    baselined: int = 0  # known from the baseline
    elsewhere: int = 0  # about files other than the ones given (pre-commit's)
    fixed: list[str] = field(default_factory=list)  # files --fix rewrote
    color: bool = False
    quiet: bool = False
    statistics: bool = False
    base: str = ""  # prefix from the current directory to the repository root ("" or "../")
    exists: Callable[[str], bool] | None = None  # does a repository-relative file exist
    checklist_files: set[str] | None = None  # the checklists' paths (the status file is not one)


#: a file that cannot be read as a checklist says so first: the rest of its findings may follow from it
READ_FIRST = ("FRONTMATTER", "FORMAT")


def sort_key(f: Finding) -> tuple:
    path, line = f.location
    return (path, f.code not in READ_FIRST, line, f.code, f.message)


# --- text -------------------------------------------------------------------------------


class _Style:
    def __init__(self, on: bool) -> None:
        self.on = on

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.on else text

    def bold(self, t: str) -> str:
        return self._wrap("1", t)

    def code(self, t: str) -> str:
        return self._wrap("1;31", t)

    def warn(self, t: str) -> str:
        return self._wrap("1;33", t)

    def dim(self, t: str) -> str:
        return self._wrap("36", t)

    def fix(self, t: str) -> str:
        return self._wrap("36", t)

    def ok(self, t: str) -> str:
        return self._wrap("1;32", t)


def text_line(f: Finding) -> str:
    """The concise form: ``path:line:1: CODE message (where)``."""
    path, line = f.location
    msg = f.message
    if f.severity != "error" and (f.at_source or f.code not in AUDIT_CODES):  # the audit's run-level ones say it themselves
        msg = f"[{f.severity}] {msg}"
    if f.at_source:
        if f.checklist and f.checklist_line:
            msg += f" ({f.checklist}:{f.checklist_line})"
    elif f.checklist is not None and f.file and f.line:
        msg += f" ({f.file}:{f.line})"
    return printable(f"{path}:{line}:1: {f.code} {msg}")


_RUN_RE = re.compile(r"`[^`\n]+`(?:, `[^`\n]+`){3,}")


def short_message(f: Finding) -> str:
    """The message for the grouped text output: the source line joined to the file the
    message names (`` `a.py:12` ``), long lists of names cut to three and a count."""
    msg = _RUN_RE.sub(lambda m: _cut(m.group(0)), f.message)
    if f.severity != "error" and (f.at_source or f.code not in AUDIT_CODES):
        msg = f"[{f.severity}] {msg}"
    if f.at_source:
        if f.checklist and f.checklist_line:
            msg += f" ({f.checklist}:{f.checklist_line})"
    elif f.checklist is not None and f.file and f.line:
        named = f"`{f.file}`"
        if f"{f.file}:{f.line}" in msg:
            pass  # the message names the place already
        elif named in msg:
            msg = msg.replace(named, f"`{f.file}:{f.line}`", 1)
        else:
            msg += f" ({f.file}:{f.line})"
    return printable(msg)


def _cut(run: str) -> str:
    items = run.split(", ")
    return ", ".join(items[:2]) + f" and {len(items) - 2} more"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _by_code(findings: list[Finding]) -> list[tuple[str, int]]:
    return sorted(Counter(f.code for f in findings).items(), key=lambda kv: (-kv[1], kv[0]))


def render_text(findings: list[Finding], ctx: Context) -> str:
    s = _Style(ctx.color)
    findings = sorted(findings, key=sort_key)
    out: list[str] = []
    if ctx.statistics:
        out.extend(statistics(findings, s))
    else:
        groups: dict[str, list[Finding]] = {}
        for f in findings:
            groups.setdefault(f.location[0], []).append(f)
        for path, group in groups.items():
            out.append(s.bold(printable(f"{ctx.base}{path}")) + ":")
            width = max(len(str(f.location[1])) for f in group)
            for f in group:
                mark = s.fix("[*]") + " " if f.fixable else ""
                code = s.code(f.code) if f.fails else s.warn(f.code)
                out.append(f"  {s.dim(str(f.location[1]).rjust(width))} {code} {mark}{short_message(f)}")
            out.append("")
    if not ctx.quiet:
        out.extend(summary_lines(findings, ctx, s))
    elif out and out[-1] == "":
        out.pop()
    return "".join(line + "\n" for line in out)


def statistics(findings: list[Finding], s: _Style) -> list[str]:
    """``--statistics``: one line per code, most frequent first (as ruff)."""
    rows = _by_code(findings)
    if not rows:
        return []
    cw = max(len(str(n)) for _, n in rows)
    kw = max(len(c) for c, _ in rows)
    fixable = Counter(f.code for f in findings if f.fixable)
    out = []
    for code, n in rows:
        mark = s.fix("[*]") if fixable[code] else "   "
        out.append(f"{str(n).rjust(cw)}  {s.code(code.ljust(kw))}  {mark} {DESCRIPTIONS.get(code, code)}")
    out.append("")
    return out


def summary_lines(findings: list[Finding], ctx: Context, s: _Style | None = None) -> list[str]:
    s = s or _Style(False)
    hidden = []
    if ctx.baselined:
        hidden.append(f"{ctx.baselined} in the baseline")
    if ctx.suppressed:
        hidden.append(f"{ctx.suppressed} ignored")
    if ctx.elsewhere:
        hidden.append(f"{ctx.elsewhere} about other files")
    scope = f"{_plural(ctx.checklists, 'checklist')}, {_plural(ctx.files_scanned, 'file')} scanned"
    if not findings:
        rewritten = f" after rewriting {_plural(len(ctx.fixed), 'file')}" if ctx.fixed else ""
        not_shown = f"; not shown: {', '.join(hidden)}" if hidden else ""
        return [s.ok(f"All checks passed{rewritten}") + f" ({scope}{not_shown})."]
    files = {f.location[0] for f in findings}
    if ctx.checklist_files is not None:
        noun = "checklist" if files <= ctx.checklist_files else "file"
    else:
        noun = "checklist" if all(f.checklist is not None and not f.at_source for f in findings) else "file"
    counts = ", ".join(f"{n} {code}" for code, n in _by_code(findings))
    warnings = sum(not f.fails for f in findings)
    errors = len(findings) - warnings
    if not warnings:
        found = _plural(len(findings), "finding")
    elif not errors:
        found = _plural(warnings, "warning")
    else:
        found = f"{_plural(len(findings), 'finding')} ({_plural(errors, 'error')}, {_plural(warnings, 'warning')})"
    out = [f"Found {found} in {_plural(len(files), noun)}: {counts}."]
    if warnings:
        out.append(f"{'Warnings do' if warnings > 1 else 'A warning does'} not fail the run"
                   f"{'; the errors do' if errors else ''}.")
    if ctx.fixed:
        out.append(f"Rewrote {_plural(len(ctx.fixed), 'file')} with --fix; review and stage {'it' if len(ctx.fixed) == 1 else 'them'}.")
    if hidden:
        out.append(f"Not shown: {', '.join(hidden)}.")
    fixable = sum(f.fixable for f in findings)
    if fixable:
        out.append(f"{s.fix('[*]')} {fixable} fixable with `{FIX_HINT}`.")
    by_hand = [f for f in findings if f.fails and not f.fixable]
    if by_hand:  # --fix leaves these: say what a person does
        codes = sorted({f.code for f in by_hand})
        advice = "; ".join(f"{c}: {HAND_EDIT[c]}" for c in codes if c in HAND_EDIT)
        out.append(f"Needs a hand edit (--fix leaves {'it' if len(by_hand) == 1 else 'them'}): {_plural(len(by_hand), 'error')}"
                   f"{f' ({advice})' if advice else ''}.")
    return out


#: what a person does about an error ``--fix`` cannot repair
HAND_EDIT = {
    "SNIPPET": "re-read the code the entry documents, then update the snippet or remove it",
}


# --- machine formats ------------------------------------------------------------------


def render(findings: list[Finding], fmt: str, *, checklists: int, files_scanned: int, extra: dict | None = None,
           ctx: Context | None = None, hide_info: bool = False) -> str:
    """The output for ``fmt``. ``extra`` (the audit's) is added to the JSON document and
    selects the audit's one-line-per-finding text form; ``hide_info``: there, audit findings
    of severity ``info`` are counted, not listed."""
    ctx = ctx or Context()
    ctx.checklists, ctx.files_scanned = checklists, files_scanned
    findings = sorted(findings, key=sort_key)
    if fmt == "json":
        doc = {
            "version": 1,
            "findings": [{**f.as_dict(), "message": printable(f.message)} for f in findings],
            "summary": {
                "checklists": checklists,
                "files_scanned": files_scanned,
                "findings_by_code": dict(sorted(Counter(f.code for f in findings).items())),
                "findings_by_severity": dict(sorted(Counter(f.severity for f in findings).items())),
                "fixable": sum(f.fixable for f in findings),
                "not_shown": {"baseline": ctx.baselined, "ignored": ctx.suppressed, "other_files": ctx.elsewhere},
            },
        }
        if ctx.fixed:
            doc["fixed"] = list(ctx.fixed)
        if extra:
            doc.update(extra)
        return json.dumps(doc, indent=2) + "\n"
    if fmt == "sarif":
        return json.dumps(sarif(findings, ctx), indent=2) + "\n"
    if fmt == "github":
        return "".join(github_line(f, ctx) + "\n" for f in findings)
    if extra is not None:  # the audit: one line per finding and its own count
        hidden = [f for f in findings if hide_info and f.at_source and f.severity == "info"]
        lines = [text_line(f) for f in findings if not (hide_info and f.at_source and f.severity == "info")]
        errors = sum(f.severity == "error" and f.code != "FETCH" for f in findings)
        more = f" ({len(hidden)} info not listed; -v lists them)" if hidden else ""
        lines += [coverage_line(p) for p in extra.get("packages", []) if p.get("coverage")]
        lines.append(f"Audited {len(extra.get('packages', []))} package(s): {errors} breaking, {len(findings) - errors} other{more}.")
        return "".join(line + "\n" for line in lines)
    if fmt == "concise":
        lines = [text_line(f) for f in findings]
        if not ctx.quiet:
            lines.extend(summary_lines(findings, ctx))
        return "".join(line + "\n" for line in lines)
    return render_text(findings, ctx)


def coverage_line(package: dict) -> str:
    """The audit's coverage of one package, said before its count line."""
    from upgrade_checklists.audit.bind import BEHAVIOUR, coverage_text

    arrow = f"{package['old_version']} -> {package['new_version']}" if package.get("old_version") else f"at {package['new_version']}"
    return f"Coverage, {package['package']} {arrow}: {coverage_text(package['coverage'])}; {BEHAVIOUR}."


def anchor(f: Finding, ctx: Context) -> tuple[str, int, str | None]:
    """Where a CI annotation goes: the source file and line when there is one (that is
    what a pull request's diff shows), else the checklist; and the other place, if any."""
    if f.file and f.line and (ctx.exists is None or ctx.exists(f.file)):
        other = f"{f.checklist}:{f.checklist_line or 1}" if f.checklist else None
        return f.file, f.line, other
    path, line = f.location
    other = f"{f.file}:{f.line}" if f.file and f.line and f.file != path else None
    return path, line, other


_LEVEL = {"error": "error", "warning": "warning"}


def github_line(f: Finding, ctx: Context) -> str:
    path, line, other = anchor(f, ctx)
    level = _LEVEL.get(f.severity, "notice")
    msg = f.message
    if other:
        msg += f" ({'checklist ' if f.checklist and other.startswith(f.checklist) else ''}{other})"
    if f.fixable:
        msg += f"; fixable with `{FIX_HINT}`"
    return f"::{level} file={_gh_prop(printable(path))},line={line},title={_gh_prop(f.code)}::{_gh(printable(msg))}"


def step_summary(findings: list[Finding], ctx: Context) -> str:
    """Markdown for ``$GITHUB_STEP_SUMMARY``: counts per code, then every finding (GitHub
    shows only the first few annotations of a step)."""
    findings = sorted(findings, key=sort_key)
    out = ["## upgrade-checklists", ""]
    if not findings:
        out.append(f"All checks passed ({_plural(ctx.checklists, 'checklist')}, {_plural(ctx.files_scanned, 'file')} scanned).")
        return "\n".join(out) + "\n\n"
    fixable = Counter(f.code for f in findings if f.fixable)
    out += ["| Code | Findings | Fixable | Meaning |", "| --- | ---: | ---: | --- |"]
    for code, n in _by_code(findings):
        out.append(f"| `{code}` | {n} | {fixable[code]} | {_md(DESCRIPTIONS.get(code, ''))} |")
    out += ["", "| Where | Code | Message |", "| --- | --- | --- |"]
    for f in findings[:SUMMARY_ROWS]:
        path, line, _ = anchor(f, ctx)
        level = "" if f.fails else f"[{f.severity}] "
        out.append(f"| `{_md(printable(path))}:{line}` | `{f.code}` | {level}{_md(printable(f.message))}{' [*]' if f.fixable else ''} |")
    if len(findings) > SUMMARY_ROWS:
        out.append(f"\n{len(findings) - SUMMARY_ROWS} more not listed; run `upgrade-checklists check` for all.")
    total = sum(fixable.values())
    if total:
        out.append(f"\n[*] {total} fixable with `{FIX_HINT}`.")
    return "\n".join(out) + "\n\n"


def sarif(findings: list[Finding], ctx: Context) -> dict:
    codes = sorted({f.code for f in findings} | set(DESCRIPTIONS))
    index = {c: i for i, c in enumerate(codes)}
    # a rule's default level: "warning" when every finding of it in this run is one (LINE
    # without strict-lines); each result carries its own level, from the finding's severity
    warned = {f.code for f in findings if not f.fails} - {f.code for f in findings if f.fails}
    rules = [{
        "id": c,
        "name": c.title().replace("_", ""),
        "shortDescription": {"text": DESCRIPTIONS.get(c, c)},
        "defaultConfiguration": {"level": "warning" if c in warned else "error"},
    } for c in codes]
    results = []
    for f in findings:
        path, line, _ = anchor(f, ctx)
        result = {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": {"error": "error", "warning": "warning"}.get(f.severity, "note"),
            "message": {"text": printable(f.message)},
            "locations": [_sarif_location(path, line)],
            "partialFingerprints": {"upgradeChecklists/v1": _fingerprint(f)},
            "properties": {"fixable": f.fixable, **({"package": f.package} if f.package else {})},
        }
        related = []
        if f.checklist and (f.checklist, f.checklist_line or 1) != (path, line):
            related.append(_sarif_location(f.checklist, f.checklist_line or 1))
        if f.file and f.line and (f.file, f.line) != (path, line):
            related.append(_sarif_location(f.file, f.line))
        if related:
            for i, loc in enumerate(related):
                loc["id"] = i
            result["relatedLocations"] = related
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "upgrade-checklists", "version": __version__, "rules": rules}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def _sarif_location(path: str, line: int) -> dict:
    return {"physicalLocation": {"artifactLocation": {"uri": _uri(path), "uriBaseId": "%SRCROOT%"},
                                 "region": {"startLine": max(1, line)}}}


def _uri(path: str) -> str:
    from urllib.parse import quote

    return quote(path.replace(os.sep, "/"))


def _fingerprint(f: Finding) -> str:
    """Stable across line shifts (as the baseline matches): code, checklist, file, message."""
    import hashlib

    from upgrade_checklists.output.baseline import key

    return hashlib.sha256(json.dumps(key(f)).encode()).hexdigest()[:32]


def _md(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


def _gh(value: str) -> str:
    """Escape a message for a GitHub workflow command."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(value: str) -> str:
    """Escape a property value (file=...) for a GitHub workflow command."""
    return _gh(value).replace(":", "%3A").replace(",", "%2C")
