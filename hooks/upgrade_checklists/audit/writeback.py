"""``audit --fix``: bring the checklists to the post-upgrade state the audit can derive.

- the **Source:** path of a catalog entry whose API moved (``MOVED_API``) becomes the
  file the API is now defined in, and the frontmatter's ``upstream_paths`` follow (an
  exact entry is replaced; a new path no entry covers is added);
- a version guard the audit found dead in every audited variant (``GUARD_DEAD``, and no
  ``GUARD_MISMATCH`` / ``GUARD_NEEDED`` for it) gets ``<!-- TODO: guard can be removed
  at X -->`` (X the lowest new version);
- the status file's counts (the ``STATUS`` fixes of ``check --fix``).

Same rules as ``check --fix``: only the edited lines change; a checklist that mdformat
(``--wrap=88`` or ``keep``, gfm, tables, frontmatter) leaves unchanged is written as
mdformat writes it, so it stays stable; writing is atomic; a second run changes nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

from packaging.version import InvalidVersion, Version

from upgrade_checklists.audit.pipeline import AuditResult
from upgrade_checklists.core.checklist import Checklist, Entry
from upgrade_checklists.core.findings import Finding

MARK = "<!-- TODO: guard can be removed at {} -->"
_MARK_RE = re.compile(r"<!-- TODO: guard can be removed at ([^ ]+) -->")


def plan(result: AuditResult) -> dict[Path, tuple[str, str]]:
    """``{path: (old text, new text)}`` for the checklists the audit's findings change."""
    by_checklist: dict[str, tuple[Checklist, list[tuple[Finding, str]]]] = {}
    for t in result.targets:
        slot = by_checklist.setdefault(t.checklist.rel, (t.checklist, []))
        slot[1].extend((f, t.new) for f in t.findings)
    out = {}
    for cl, findings in by_checklist.values():
        new = _rewrite(cl, findings)
        if new is not None and new != cl.text:
            out[cl.path] = (cl.text, new)
    return out


def _rewrite(cl: Checklist, findings: list[tuple[Finding, str]]) -> str | None:
    lines = cl.text.splitlines(keepends=True)
    changed = False
    entries = {e.line: e for e in cl.entries}
    moves: dict[int, str] = {}  # entry line -> the new source file
    for f, _version in findings:
        fix = f.fix or {}
        if f.code == "MOVED_API" and fix.get("new_file") and f.checklist_line in entries:
            moves.setdefault(f.checklist_line, fix["new_file"])
    if _mark_guards(cl, lines, findings):  # first: the guards' lines as read (the edits below may insert lines)
        changed = True
    renamed: list[tuple[str | None, str]] = []
    for line, new_file in sorted(moves.items(), reverse=True):  # bottom up: inserted lines shift nothing above
        e = entries[line]
        if e.source == new_file:
            continue
        if _set_source(lines, e, new_file):
            renamed.append((e.source, new_file))
            changed = True
    if renamed and _upstream_paths(lines, renamed):  # last: the frontmatter, above every line used
        changed = True
    if not changed:
        return None
    return stable_like(cl.text, "".join(lines))


def _set_source(lines: list[str], e: Entry, new_file: str) -> bool:
    """Rewrite the entry's ``**Source:** `path``` line, or add one under its heading."""
    start = e.line  # 1-based heading line: lines[start - 1]
    for i in range(start, len(lines)):
        text = lines[i]
        if text.startswith("#"):
            break
        if "**Source:**" in text:
            if e.source and f"`{e.source}`" in text:
                lines[i] = text.replace(f"`{e.source}`", f"`{new_file}`", 1)
                return True
            m = re.search(r"\*\*Source:\*\*\s*`([^`]*)`", text)
            if m:
                lines[i] = text[:m.start(1)] + new_file + text[m.end(1):]
                return True
            return False
    eol = "\r\n" if lines[start - 1].endswith("\r\n") else "\n"
    lines[start:start] = [eol, f"**Source:** `{new_file}`{eol}"]
    return True


def _upstream_paths(lines: list[str], renamed: list[tuple[str | None, str]]) -> bool:
    """Follow moved sources in the frontmatter's ``upstream_paths`` list (line by line: the
    YAML around it keeps its bytes)."""
    if not lines or lines[0].strip() != "---":
        return False
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        return False
    key = next((i for i in range(1, end) if re.match(r"^upstream_paths:\s*$", lines[i])), None)
    if key is None:
        return False
    items = []
    i = key + 1
    while i < end and re.match(r"^\s+-\s", lines[i]):
        items.append(i)
        i += 1
    if not items:
        return False

    def value(j: int) -> str:
        return lines[j].split("-", 1)[1].strip().strip("'\"")

    changed = False
    for old, new in renamed:
        exact = [j for j in items if old and value(j) == old]
        if exact and not any(value(j) == new for j in items):
            j = exact[0]
            lines[j] = lines[j].replace(old, new, 1)
            changed = True
            continue
        if any(_covers(value(j), new) for j in items):
            continue
        last = items[-1]
        indent = lines[last][: len(lines[last]) - len(lines[last].lstrip())]
        eol = "\r\n" if lines[last].endswith("\r\n") else "\n"
        lines.insert(last + 1, f"{indent}- {new}{eol}")
        items.append(last + 1)
        changed = True
    return changed


def _covers(path: str, new: str) -> bool:
    p = path.rstrip("/")
    return new == path or (p != "" and new.startswith(p + "/"))


def _mark_guards(cl: Checklist, lines: list[str], findings: list[tuple[Finding, str]]) -> bool:
    codes: dict[int, set[str]] = {}
    versions: dict[int, list[str]] = {}
    guard_lines = {g.ref_line for g in cl.guards}
    for f, version in findings:
        if f.code.startswith("GUARD_") and f.checklist_line in guard_lines:
            codes.setdefault(f.checklist_line, set()).add(f.code)
            if f.code == "GUARD_DEAD":
                versions.setdefault(f.checklist_line, []).append(version)
    changed = False
    for line, seen in codes.items():
        if seen != {"GUARD_DEAD"}:
            continue  # needed in some variant, or the patch differs from the native method
        at = min(versions[line], key=_version_key)
        last = _item_end(lines, line - 1)
        block = "".join(lines[line - 1:last + 1])
        m = _MARK_RE.search(block)
        if m and m.group(1) == at:
            continue
        if m:
            for j in range(line - 1, last + 1):
                lines[j] = _MARK_RE.sub(MARK.format(at), lines[j])
        else:
            text = lines[last]
            body = text.rstrip("\r\n")
            lines[last] = body + " " + MARK.format(at) + text[len(body):]
        changed = True
    return changed


def _item_end(lines: list[str], i: int) -> int:
    """The last line of the list item starting at line index ``i`` (its continuation lines)."""
    j = i
    while j + 1 < len(lines) and lines[j + 1].strip() and lines[j + 1][:1] in (" ", "\t"):
        j += 1
    return j


def _version_key(v: str):
    try:
        return (0, Version(v))
    except InvalidVersion:
        return (1, v)


_STYLES = [{"wrap": 88, "number": False}, {"wrap": 88, "number": True}, {"wrap": "keep", "number": False},
           {"wrap": "keep", "number": True}]


def stable_like(original: str, edited: str) -> str:
    """``edited`` as mdformat writes it, in the style that leaves ``original`` unchanged
    (``edited`` itself when ``original`` was not mdformat-formatted)."""
    try:
        import mdformat
    except ImportError:  # pragma: no cover - a declared dependency
        return edited
    for options in _STYLES:
        try:
            if mdformat.text(original, options=options, extensions={"gfm", "tables", "frontmatter"}) == original:
                return mdformat.text(edited, options=options, extensions={"gfm", "tables", "frontmatter"})
        except Exception:  # an extension missing or a file mdformat cannot take: leave the edits as they are
            return edited
    return edited
