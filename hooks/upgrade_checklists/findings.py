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
        return {k: getattr(self, k) for k in ("code", "checklist", "checklist_line", "file", "line", "package", "message")}

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
