"""Findings are plain data: a code, where, and a message. Formatting is in report.py."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: characters that act on a terminal or break a line, not shown: C0 and C1 controls (escape
#: sequences, newlines, tabs), DEL, the Unicode line and paragraph separators and the
#: bidirectional embeddings, overrides and isolates (text that reads other than it is)
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def has_control(value: object, allow: str = "") -> bool:
    """A control character (see ``_CONTROL_RE``) but those in ``allow`` in ``value``, or in
    any string of a list, tuple or dict (keys and values) in it."""
    if isinstance(value, str):
        if _CONTROL_RE.search(value) is None:  # nearly always: one scan in C
            return False
        return any(m.group() not in allow for m in _CONTROL_RE.finditer(value))
    if isinstance(value, dict):
        return any(has_control(k, allow) or has_control(v, allow) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(has_control(v, allow) for v in value)
    return False


def printable(text: str) -> str:
    """``text`` with each control character written as an escape (``\\n``, ``\\x1b``,
    ``\\u202e``): a name or message from the repository can neither colour nor clear a
    terminal, nor start a line of its own (a forged finding, a workflow command)."""
    if _CONTROL_RE.search(text) is None:
        return text
    return _CONTROL_RE.sub(_escape, text)


def _escape(m: re.Match) -> str:
    c = m.group()
    return _ESCAPES.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


@dataclass(frozen=True, order=True)
class Finding:
    """One thing that is wrong, anchored in a checklist and/or a source file.

    ``checklist``/``checklist_line`` point into the checklist (or status file)
    that needs the edit; ``file``/``line`` point at the source file concerned,
    where there is one. Paths are relative to the repository root, with ``/``.
    """

    checklist: str | None
    checklist_line: int | None
    code: str
    message: str
    file: str | None = None
    line: int | None = None
    package: str | None = None
    #: what a fixer needs to repair it (e.g. {"tier": "primary"}); not part of the output.
    #: ``{"concerns": [paths]}``: every file a finding is about (a SNIPPET's entry), for a hook's selection
    fix: dict | None = field(default=None, compare=False, hash=False, repr=False)
    #: "error" fails the run (exit 1); "warning" and "info" are reported and do not. The
    #: check's warnings: stale line numbers (LINE, a drifted guard line) unless the
    #: configuration sets ``strict-lines``; a row's names (CHANGED) or a path git saw
    #: renamed (MOVED) unless it sets ``strict-rows``. The audit's: "error" breaks the upgrade.
    severity: str = field(default="error", compare=False)
    #: audit findings are located at the call site, structure findings at the checklist
    at_source: bool = field(default=False, compare=False)

    def as_dict(self) -> dict:
        out = {k: getattr(self, k) for k in ("code", "checklist", "checklist_line", "file", "line", "package", "message")}
        out["severity"] = self.severity
        out["fixable"] = self.fixable
        return out

    @property
    def fails(self) -> bool:
        """Whether it fails a run (exit 1): an error, not a warning."""
        return self.severity == "error"

    @property
    def fixable(self) -> bool:
        """``check --fix`` can repair it: a fixable code, with what the fixer needs, and
        nothing to write that has a control character (a file whose name has a newline is
        reported, never written into a row: it would end the row, or the table)."""
        return self.code in FIXABLE and self.fix is not None and not (has_control(self.fix) or has_control(self.file))

    @property
    def location(self) -> tuple[str, int]:
        """Where an editor should jump: the checklist if any, else the source file."""
        if self.checklist is not None and not (self.at_source and self.file):
            return self.checklist, self.checklist_line or 1
        return self.file or "", self.line or 1


#: The structure check's codes, in the order the README documents them.
STRUCTURE_CODES = (
    "MISSING",
    "STALE",
    "MOVED",
    "CHANGED",
    "TIER",
    "FRONTMATTER",
    "FORMAT",
    "NUMBERING",
    "LINE",
    "SNIPPET",
    "GUARD",
    "STATUS",
    "MATRIX",
    "PARSE",
)

#: Structure codes reported only when selected (``--select``): they cost a full parse.
OPTIONAL_CODES = ("UNCATALOGUED",)

#: What ``check --fix`` repairs (given the finding's fix data); the rest needs a person.
FIXABLE = ("MISSING", "MOVED", "STALE", "CHANGED", "TIER", "LINE", "GUARD", "NUMBERING", "STATUS")
NOT_FIXABLE = ("SNIPPET", "FRONTMATTER", "FORMAT", "PARSE")  # and GUARD without a new line

#: Codes reported only when selected (``--select CODE`` or ``select = [...]``).
OFF_BY_DEFAULT: tuple[str, ...] = OPTIONAL_CODES

#: One line per structure code: ``--statistics``, ``--help``, SARIF rules.
DESCRIPTIONS = {
    "MISSING": "a file imports the package but no tier lists it",
    "STALE": "a listed file is gone, or neither imports the package nor matches its row",
    "MOVED": "a listed file moved (a rename git saw, within its tier: a warning unless strict-rows = true)",
    "CHANGED": "a file's imports differ from its row's tokens (a warning unless strict-rows = true)",
    "TIER": "a listed file sits in another tier than its location maps to",
    "FRONTMATTER": "missing or malformed frontmatter",
    "FORMAT": "an unparseable section or table, a missing section or tier",
    "NUMBERING": "catalog entries not numbered 1..N",
    "LINE": "a catalog reference's line number is stale (a warning unless strict-lines = true)",
    "SNIPPET": "a call-site snippet no longer occurs in its file",
    "GUARD": "a version guard's file or expression is gone (its drifted line number: as LINE)",
    "STATUS": "the status file's row or entry count is wrong",
    "MATRIX": "the status file's Package Impact Matrix disagrees with the manifests",
    "PARSE": "a source file cannot be parsed; skipped",
    "UNCATALOGUED": "an API the code uses that no catalog entry names (off by default)",
}

#: The upgrade audit's codes.
AUDIT_CODES = (
    "REMOVED_PARAM",
    "RENAMED_PARAM",
    "NEW_REQUIRED_PARAM",
    "NEW_OPTIONAL_PARAM",
    "POSITION_CHANGED",
    "RETURN_CHANGED",
    "REMOVED_API",
    "MOVED_API",
    "METHOD_CHANGED",
    "DEPRECATED",
    "PATCH_MISMATCH",
    "OVERRIDE_MISMATCH",
    "INIT_SKIPPED",
    "UNRESOLVED",
    "GUARD_DEAD",
    "GUARD_MISMATCH",
    "GUARD_NEEDED",
    "GUARD_UNKNOWN",
    "FAMILY",
    "FETCH",
)
