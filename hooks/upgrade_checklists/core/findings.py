"""Findings are plain data: a code, where, and a message. Formatting is in report.py."""

from __future__ import annotations

from dataclasses import dataclass, field


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
    #: what a fixer needs to repair it (e.g. {"tier": "primary"}); not part of the output
    fix: dict | None = field(default=None, compare=False, hash=False, repr=False)
    #: audit findings: "error" breaks the upgrade, "warning" and "info" do not
    severity: str = field(default="error", compare=False)
    #: audit findings are located at the call site, structure findings at the checklist
    at_source: bool = field(default=False, compare=False)

    def as_dict(self) -> dict:
        out = {k: getattr(self, k) for k in ("code", "checklist", "checklist_line", "file", "line", "package", "message")}
        out["severity"] = self.severity
        out["fixable"] = self.fixable
        return out

    @property
    def fixable(self) -> bool:
        """``check --fix`` can repair it: a fixable code, with what the fixer needs."""
        return self.code in FIXABLE and self.fix is not None

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
    "MOVED": "a listed file moved (same name, same imports)",
    "CHANGED": "a file's imports differ from its row's tokens",
    "TIER": "a listed file sits in another tier than its location maps to",
    "FRONTMATTER": "missing or malformed frontmatter",
    "FORMAT": "an unparseable section or table, a missing section or tier",
    "NUMBERING": "catalog entries not numbered 1..N",
    "LINE": "a call-site snippet now starts at another line",
    "SNIPPET": "a call-site snippet no longer occurs in its file",
    "GUARD": "a version guard points at a missing file or past its end",
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
    "UNRESOLVED",
    "GUARD_DEAD",
    "GUARD_MISMATCH",
    "GUARD_NEEDED",
    "GUARD_UNKNOWN",
    "FAMILY",
    "FETCH",
)
