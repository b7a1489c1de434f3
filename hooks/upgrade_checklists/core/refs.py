"""Call-site references in catalog prose, read as people write them.

A reference is a backticked repository path, optionally followed (on the same line or,
after a formatter's wrap, on the next) by a parenthesis that gives line numbers::

    Called in `app/engine/core.py` (line 9):
    Set in `app/engine/core.py` (lines 10–13):
    Called in `app/engine/core.py`
    (`Engine.build`, lines 42–88):
    Imported in `app/api/server.py` (lines 12, 391-396):
    Used in `app/plugins/*/args.py` and `loader.py`:
    Also used in `_helper` (lines 153–178)

Whatever verb comes first (or none: a **Check:** paragraph counts too). A bare file name
(`loader.py`) means the folder of the path named just before it; a parenthesis that
follows no path ("Also used in `_helper` (lines …)") means the file named before it;
a glob is kept as written and expanded when the check runs.

Every number is kept with its exact position in the checklist (line, column, text), so
that ``--fix`` can rewrite each one, wherever a formatter put it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: Numbers in a checklist (lines, entry numbers, counts) are read up to this; a longer
#: run of digits reads as this (no line or count is that big, and ``int()`` of 5,000
#: digits raises).
MAX_INT = 10**9


def bounded_int(digits: str) -> int:
    digits = digits.lstrip("0") or "0"
    return MAX_INT if len(digits) > 9 else min(int(digits), MAX_INT)


#: A backticked token that looks like a path: has a "/" or ends in ".py"; no spaces.
_PATH_RE = re.compile(r"`([A-Za-z0-9_.*?\[\]/-]+)`")
#: Blank space a formatter may put between the parts of a reference: one line break at most,
#: and a blockquote marker after it.
_GAP = r"[ \t]*(?:\r?\n[ \t]*(?:>[ \t]*)*)?"
#: Backticked words between a path and its parenthesis: `func()` in "`a.py` `func()` (line 3)".
_PAREN_RE = re.compile(r"((?:" + _GAP + r"`[^`\n]+`)*)" + _GAP + r"\(((?:`[^`]*`|[^()`])*)\\?\)")
_NUMBERS_RE = re.compile(r"\b([Ll]ines?)\s+(\d+(?:\s*[-\u2013\u2014]\s*\d+)?(?:\s*,\s*\d+(?:\s*[-\u2013\u2014]\s*\d+)?)*)")
_PART_RE = re.compile(r"(\d+)(?:\s*[-\u2013\u2014]\s*(\d+))?")
_QUALNAME_RE = re.compile(r"`([A-Za-z_][\w.]*)(?:\(\))?`")
_ANY_PAREN_RE = re.compile(r"\(((?:`[^`]*`|[^()`])*)\\?\)")


@dataclass
class Number:
    """A line number as written in the checklist: its value and exact position."""

    value: int
    line: int  # 1-based checklist line
    col: int  # 0-based column of its first digit
    text: str  # the digits as written


@dataclass
class Part:
    """One number or one range of a reference: ``12`` or ``391-396``."""

    start: Number
    end: Number | None = None
    qualname: str | None = None  # `func` named just before its "line(s)" word


@dataclass
class Word:
    """The "line"/"lines" word before the numbers (rewritten when the count changes)."""

    line: int
    col: int
    text: str


@dataclass
class CallSite:
    """A reference to a repository file (``file`` may be a glob) and its line numbers."""

    file: str
    line: int | None
    end_line: int | None
    ref_line: int
    snippet: str | None = None
    snippet_line: int | None = None
    parts: list[Part] = field(default_factory=list)
    written: str = ""  # the path as written (a bare name before it was resolved)
    qualname: str | None = None  # `Class.method` named with the numbers
    words: list[Word] = field(default_factory=list)
    in_check: bool = False  # read from a **Check:** paragraph
    codes: list[str] = field(default_factory=list)  # other quoted code of its paragraph (`from x import y`)

    @property
    def numbers(self) -> list[Number]:
        return [n for p in self.parts for n in (p.start, p.end) if n is not None]


def is_path(token: str) -> bool:
    """A backticked token that names a file: has a folder or a ``.py`` name, no URL."""
    t = token.strip()
    if not t or "://" in t or t.startswith(("/", "-", ".")) or ".." in t.split("/"):
        return False
    return ("/" in t and "." in t.rsplit("/", 1)[-1]) or t.endswith(".py")


def _positions(raw: str, first_line: int):
    starts = [0]
    for m in re.finditer("\n", raw):
        starts.append(m.end())

    def at(offset: int) -> tuple[int, int]:
        lo, hi = 0, len(starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return first_line + lo, offset - starts[lo]

    return at


def _numbers(body: str, body_at: int, at) -> tuple[list[Part], list[Word]]:
    parts: list[Part] = []
    words: list[Word] = []
    for m in _NUMBERS_RE.finditer(body):
        line, col = at(body_at + m.start(1))
        words.append(Word(line, col, m.group(1)))
        named = re.search(r"`([A-Za-z_][\w.]*)(?:\(\))?`[\s,]*$", body[: m.start(1)])
        qualname = named.group(1) if named and not is_path(named.group(1)) else None
        base = body_at + m.start(2)
        for p in _PART_RE.finditer(m.group(2)):
            a_line, a_col = at(base + p.start(1))
            start = Number(bounded_int(p.group(1)), a_line, a_col, p.group(1))
            end = None
            if p.group(2):
                b_line, b_col = at(base + p.start(2))
                end = Number(bounded_int(p.group(2)), b_line, b_col, p.group(2))
            parts.append(Part(start, end, qualname))
    return parts, words


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] + "/" if "/" in path else ""


def read_references(raw: str, first_line: int, previous: CallSite | None, in_check: bool = False) -> list[CallSite]:
    """The references of one paragraph (``raw``: its lines as in the file, from
    ``first_line``). ``previous`` is the last reference read before it in the entry:
    it resolves bare file names and parentheses that follow no path."""
    at = _positions(raw, first_line)
    out: list[CallSite] = []
    taken: list[tuple[int, int]] = []  # spans of parentheses already read
    last = previous
    paths = [m for m in _PATH_RE.finditer(raw) if is_path(m.group(1))]
    if in_check:  # prose: only full paths (a bare name there is too often an upstream file)
        paths = [m for m in paths if "/" in m.group(1)]
    for m in paths:
        written = m.group(1)
        if "/" in written or last is None:
            file = written
        else:
            file = _folder(last.file) + written
        ref_line, _ = at(m.start())
        cs = CallSite(file, None, None, ref_line, written=written, in_check=in_check)
        paren = _PAREN_RE.match(raw, m.end())
        if paren and _NUMBERS_RE.search(paren.group(2)):
            cs.parts, cs.words = _numbers(paren.group(2), paren.start(2), at)
            names = _QUALNAME_RE.findall(paren.group(2)) or _QUALNAME_RE.findall(paren.group(1) or "")
            if len(names) == 1 and not is_path(names[0]):  # one function named with the numbers
                cs.qualname = names[0]
            taken.append((paren.start(), paren.end()))
        _first(cs)
        out.append(cs)
        last = cs
    # parentheses with line numbers that follow no path: they mean the file named before them
    named = list(zip(out, paths))
    for m in _ANY_PAREN_RE.finditer(raw):
        if any(a <= m.start() < b for a, b in taken) or not _NUMBERS_RE.search(m.group(1)):
            continue
        before = [cs for cs, p in named if p.end() <= m.start()]
        head = raw[max(0, m.start() - 80) : m.start()]
        named_before = re.search(r"`([A-Za-z_][\w.]*)(?:\(\))?`\s*$", head)
        # in the paragraph of its path; else only as "`func` (lines ...)", the previous file's function
        owner = before[-1] if before else (previous if named_before else None)
        if owner is None:
            continue
        line, _ = at(m.start())
        cs = CallSite(owner.file, None, None, line, written=owner.written, in_check=in_check)
        cs.parts, cs.words = _numbers(m.group(1), m.start(1), at)
        names = _QUALNAME_RE.findall(m.group(1)) or ([named_before.group(1)] if named_before else [])
        if len(names) == 1 and not is_path(names[0]):
            cs.qualname = names[0]
        _first(cs)
        out.append(cs)
    out.sort(key=lambda c: (c.ref_line, c.numbers[0].col if c.numbers else 0))
    quoted = [m.group(1) for m in _CODE_RE.finditer(raw) if not is_path(m.group(1)) and " " in m.group(1).strip()]
    for cs in out:
        cs.codes = quoted
    return out


def _first(cs: CallSite) -> None:
    if cs.parts:
        cs.line = cs.parts[0].start.value
        cs.end_line = cs.parts[0].end.value if cs.parts[0].end else None


_GUARD_TOKEN_RE = re.compile(r"`([^`:\s]+):(\d+)(?:(\s*[-\u2013]\s*)(\d+))?`")
_CODE_RE = re.compile(r"`([^`]+)`")


@dataclass
class GuardRef:
    file: str
    parts: list[Part]
    codes: list[str]  # the other backticked code of the item, in order (the quoted guard first)


def read_guard_ref(raw: str, first_line: int) -> GuardRef | None:
    """``path:line`` (or ``path`` and a ``(line N)``) of a Version-Guarded Code item."""
    at = _positions(raw, first_line)
    path_span = None
    file = None
    parts: list[Part] = []
    for m in _GUARD_TOKEN_RE.finditer(raw):
        if is_path(m.group(1)):
            file, path_span = m.group(1), (m.start(), m.end())
            line, col = at(m.start(2))
            start = Number(bounded_int(m.group(2)), line, col, m.group(2))
            end = None
            if m.group(4):
                line, col = at(m.start(4))
                end = Number(bounded_int(m.group(4)), line, col, m.group(4))
            parts = [Part(start, end)]
            break
    if file is None:
        for m in _PATH_RE.finditer(raw):
            if is_path(m.group(1)):
                file, path_span = m.group(1), (m.start(), m.end())
                paren = _PAREN_RE.match(raw, m.end())
                if paren and _NUMBERS_RE.search(paren.group(2)):
                    parts, _ = _numbers(paren.group(2), paren.start(2), at)
                break
    if file is None:
        return None
    codes = [m.group(1) for m in _CODE_RE.finditer(raw) if m.start() >= path_span[1] and not is_path(m.group(1))]
    return GuardRef(file, parts, codes)
