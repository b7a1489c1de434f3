"""Read a checklist into a model with positions (markdown-it-py + PyYAML).

Every problem with the input is a :class:`Finding` in ``Checklist.problems``
(``FRONTMATTER``, ``FORMAT``, ``NUMBERING``), never an exception: a broken
checklist is something to report, not a reason to stop.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from upgrade_checklists.core.findings import Finding
from upgrade_checklists.core.tokens import RowToken, parse_cell
from upgrade_checklists.core.refs import CallSite, Part, bounded_int, read_guard_ref, read_references

if TYPE_CHECKING:  # imported where used: a warm cached run never parses Markdown
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

TIERS = ("primary", "secondary", "tertiary")
REMOVAL_MARK = "<!-- TODO: verify removal -->"
REQUIRED_KEYS = ("package", "github", "branch_template", "upstream_paths")

_PACKAGE_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")
_GITHUB_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]*)/[A-Za-z0-9_.](?:[A-Za-z0-9_.-]*)$")
_TEMPLATE_RE = re.compile(r"^[A-Za-z0-9._/${}+-]+$")
_DOTTED_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")
_BREAK_RE = re.compile(r"^\s*(?:-{3,}|_{3,}|\*{3,})\s*$")
_ENTRY_RE = re.compile(r"^(\d+)\.\s*(.*)$")
_PYTHON_FENCES = ("", "python", "py", "python3", "pycon")
_STATUS_RE = re.compile(r"(\d+)\s+API\s+entr(?:y|ies)\b", re.I)
_NEWLINE_RE = re.compile(r"\r\n|\r|\n")
MAX_PATH_BYTES, MAX_NAME_BYTES = 1024, 255
#: markdown-it's inline parser takes time quadratic in a line's length (a 1 MB line of
#: ``1+1+…`` takes over a minute): a longer line is not parsed (one FORMAT finding each).
MAX_LINE_CHARS = 20_000
_LONG_LINE_RE = re.compile(r"[^\r\n]{%d,}" % (MAX_LINE_CHARS + 1))
_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


# --- lines, as markdown-it counts them ------------------------------------------
# Every line number of a checklist (a finding's, a reference's, a row's) is markdown-it's:
# it breaks lines at ``\r\n``, a lone ``\r`` and ``\n``, and nowhere else (not at U+0085,
# U+2028, a form feed..., where ``str.splitlines`` breaks too). Whatever reads or edits a
# checklist or the status file by line splits it with these two, never another way.


def text_lines(text: str) -> list[str]:
    """The lines of ``text`` without their endings (``"a\n"``: ``["a", ""]``, as ``str.split``)."""
    return _NEWLINE_RE.split(text)


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` with their endings (``"".join`` gives ``text`` back)."""
    return _LINE_RE.findall(text)


def line_end(line: str, default: str = "\n") -> str:
    """The ending of a line of :func:`split_lines` (``default`` for a last line without one)."""
    return "\r\n" if line.endswith("\r\n") else "\r" if line.endswith("\r") else "\n" if line.endswith("\n") else default




@dataclass
class Row:
    """A row of an Affected Files tier table."""

    file: str
    tokens: list[str]
    tier: str
    line: int
    cell: str
    marked_removal: bool = False
    #: the cell's tokens parsed by the row-token grammar (``tokens.py``), once, when read
    parsed: tuple[RowToken, ...] = ()
    #: every path the File cell names (a glob, a directory and several paths are all legal)
    files: tuple[str, ...] = ()
    #: the row sits under a ``###`` subsection that is not a tier ("External (...)"):
    #: ``tier`` holds that heading; such rows are never STALE nor TIER
    extra: bool = False
    #: the File cell holds paths only (no words around them: "30+ files under `tests/`" is a summary)
    paths_only: bool = True
    #: ``--fix`` can edit this row: its table is the document's own (not in a blockquote or a list
    #: item) and no pipe inside a code span split one of its cells (`` `a|b` `` under GFM)
    editable: bool = True


@dataclass
class Entry:
    """A numbered API Usage Catalog entry (``### N. heading``)."""

    number: int
    title: str
    api: str | None
    line: int
    source: str | None = None
    call_sites: list[CallSite] = field(default_factory=list)
    check: str | None = None
    snippets: list[tuple[str, int]] = field(default_factory=list)  # (Python code, line of its fence)


@dataclass
class Guard:
    """A Version-Guarded Code item: ``path:line`` and its prose."""

    file: str
    line: int | None
    end_line: int | None
    ref_line: int
    text: str
    parts: list[Part] = field(default_factory=list)  # the numbers, with their positions
    codes: list[str] = field(default_factory=list)  # quoted code after the path (the guard's expression first)


@dataclass
class Checklist:
    path: Path
    rel: str
    text: str
    frontmatter: dict = field(default_factory=dict)
    frontmatter_lines: dict[str, int] = field(default_factory=dict)
    rows: list[Row] = field(default_factory=list)
    tier_lines: dict[str, int] = field(default_factory=dict)
    tables: dict[str, tuple[int, int]] = field(default_factory=dict)  # tier -> 0-based [start, end) lines
    empty_tiers: dict[str, tuple[int, int]] = field(default_factory=dict)  # tier -> `_None._` lines
    section_lines: dict[str, int] = field(default_factory=dict)
    entries: list[Entry] = field(default_factory=list)
    guards: list[Guard] = field(default_factory=list)
    problems: list[Finding] = field(default_factory=list)
    #: ``###`` subsections under Affected Files that are not tiers: heading -> line
    subsections: dict[str, int] = field(default_factory=dict)
    #: tiers ``--fix`` can add a row to: a top-level table, or no table and a top-level ``_None._``
    addable_tiers: set[str] = field(default_factory=set)
    #: paths named in the File cells of Affected Files tables that could not be read (a
    #: FORMAT finding says why): not reported MISSING, the FORMAT finding speaks for them
    unread: set[str] = field(default_factory=set)

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def package(self) -> str:
        value = self.frontmatter.get("package")
        return value if isinstance(value, str) else self.name

    def problem(self, code: str, line: int | None, message: str, fix: dict | None = None) -> None:
        self.problems.append(Finding(self.rel, line or 1, code, message, package=self.package, fix=fix))


def load_parsers() -> None:
    """Import the Markdown and YAML parsers now (they load on first use): before a fork,
    so that both processes have them once (``project/checklists.py``)."""
    _md()
    _loader()


@lru_cache(maxsize=None)
def _md() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable(["table", "strikethrough"])


def read_checklist(path: Path, rel: str) -> Checklist:
    """Parse the checklist at ``path``; ``rel`` is its repository-relative name."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        cl = Checklist(path, rel, "")
        line = raw.count(b"\n", 0, exc.start) + 1
        cl.problem("FORMAT", line, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})")
        return cl
    return parse_checklist(path, rel, text)


def parse_checklist(path: Path, rel: str, text: str) -> Checklist:
    """The checklist ``text`` (of ``path``, named ``rel``), parsed."""
    cl = Checklist(path, rel, text)
    body = _read_frontmatter(cl, text.lstrip("\ufeff"))
    _read_body(cl, _md().parse(_without_long_lines(cl, body)))
    return cl


def _without_long_lines(cl: Checklist, body: str) -> str:
    """``body`` with each line over :data:`MAX_LINE_CHARS` emptied (the line itself stays, so
    line numbers stay file line numbers; ``--fix`` never edits it) and a FORMAT finding for it."""
    if len(body) <= MAX_LINE_CHARS:
        return body

    def blank(m: re.Match) -> str:
        line = len(_NEWLINE_RE.findall(body, 0, m.start())) + 1
        cl.problem("FORMAT", line, f"line {line} is {len(m.group())} characters long (over {MAX_LINE_CHARS:,}): not read")
        return ""

    return _LONG_LINE_RE.sub(blank, body)


# --- frontmatter -------------------------------------------------------------


def _read_frontmatter(cl: Checklist, text: str) -> str:
    """Fill ``cl.frontmatter``; return the text with the frontmatter blanked out
    (so that Markdown line numbers stay file line numbers)."""
    lines = text_lines(text)
    if not lines or lines[0].rstrip() != "---":
        _diagnose_missing_frontmatter(cl, lines)
        return text
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        cl.problem("FRONTMATTER", 1, "frontmatter opened at line 1 is never closed with '---'")
        return text
    source = "\n".join(lines[1:end])
    too_big = _frontmatter_too_big(source)
    if too_big:
        cl.problem("FRONTMATTER", 2, f"frontmatter is not valid YAML: {too_big}")
        return "\n" * end + "\n".join(lines[end:])
    import yaml

    try:
        data = yaml.load(source, Loader=_loader())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 2 if mark is not None else 1
        problem = getattr(exc, "problem", None) or (str(exc).splitlines() or [""])[0]
        cl.problem("FRONTMATTER", line, f"frontmatter is not valid YAML: {_short(problem, 200)}")
        data = None
    except (ValueError, TypeError, OverflowError, RecursionError, MemoryError) as exc:
        # ``!!float abc``, a 5,000-digit integer, 500 nested ``[``: PyYAML raises these bare
        cl.problem("FRONTMATTER", 1, f"frontmatter is not valid YAML: {type(exc).__name__}: {_short(str(exc), 200)}")
        data = None
    else:
        if not isinstance(data, dict):
            cl.problem("FRONTMATTER", 2, "frontmatter is not a mapping of keys to values")
            data = None
    for i in range(1, end):
        m = re.match(r"^([A-Za-z_][\w-]*)\s*:", lines[i])
        if m:
            cl.frontmatter_lines.setdefault(m.group(1), i + 1)
    if data is not None:
        cl.frontmatter = data
        _validate_frontmatter(cl)
    return "\n" * end + "\n".join(lines[end:])


@lru_cache(maxsize=None)
def _loader():
    """PyYAML's safe loader without aliases: ``*name`` in a checklist's frontmatter is
    refused (9 levels of 9 aliases expand to gigabytes)."""
    import yaml

    class NoAliasLoader(yaml.SafeLoader):
        def compose_node(self, parent, index):
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                raise yaml.composer.ComposerError(None, None, "aliases (*name) are not allowed in checklist frontmatter",
                                                  event.start_mark)
            return super().compose_node(parent, index)

    return NoAliasLoader


MAX_FRONTMATTER_CHARS, MAX_FRONTMATTER_NESTING = 64 * 1024, 32


def _frontmatter_too_big(source: str) -> str | None:
    """Why the frontmatter is not worth handing to PyYAML (pure Python: deep flow
    collections cost seconds and recursion), or None."""
    if len(source) > MAX_FRONTMATTER_CHARS:
        return f"longer than {MAX_FRONTMATTER_CHARS} characters"
    depth = 0
    for m in re.finditer(r"[\[\]{}]", source):
        if m.group() in "[{":
            depth += 1
            if depth > MAX_FRONTMATTER_NESTING:
                return f"nested deeper than {MAX_FRONTMATTER_NESTING} levels"
        elif depth:
            depth -= 1
    return None


def _short(value: object, limit: int = 80) -> str:
    """A value for a message, cut to ``limit`` characters."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _diagnose_missing_frontmatter(cl: Checklist, lines: list[str]) -> None:
    head = lines[:40]
    for i, line in enumerate(head):
        if not _BREAK_RE.match(line):
            continue
        after = "\n".join(head[i + 1 : i + 12])
        if re.search(r"\bpackage\s*:", after) and re.search(r"\b(github|branch_template)\s*:", after):
            before = "\n".join(head[:i])
            if line.strip() == "---" and re.search(r"^\s*[A-Za-z_][\w-]*\s*:", after, re.M) and "<!--" in before:
                cause = "an HTML comment (or other text) before it; frontmatter must start at line 1"
            elif line.strip() == "---":
                cause = "text before it; frontmatter must start at line 1"
            else:
                cause = (
                    "a Markdown formatter turned the '---' fences into thematic breaks "
                    f"({line.strip()[:6]}...) and re-wrapped the YAML into a paragraph; restore the "
                    "'---' fences at line 1 and run the formatter with a frontmatter plugin"
                )
            cl.problem("FRONTMATTER", i + 1, f"frontmatter is not at the start of the file: {cause}")
            return
    cl.problem(
        "FRONTMATTER",
        1,
        "missing frontmatter: expected a '---' block at line 1 with " + ", ".join(REQUIRED_KEYS),
    )


def _validate_frontmatter(cl: Checklist) -> None:
    fm, at = cl.frontmatter, cl.frontmatter_lines
    for key in REQUIRED_KEYS:
        if key not in fm or fm[key] in (None, "", []):
            cl.problem("FRONTMATTER", 1, f"frontmatter key {key!r} is missing or empty")

    def bad(key: str, why: str) -> None:
        cl.problem("FRONTMATTER", at.get(key, 1), f"frontmatter {key!r}: {why}")

    pkg = fm.get("package")
    if pkg not in (None, ""):
        if not isinstance(pkg, str) or not _PACKAGE_RE.match(pkg):
            bad("package", f"{_short(repr(pkg))} is not a valid package name")
        elif _canonical(pkg) != _canonical(cl.name):
            bad("package", f"{_short(repr(pkg))} does not match the file name {cl.path.name!r}")
    gh = fm.get("github")
    if gh not in (None, "") and (not isinstance(gh, str) or not _GITHUB_RE.match(gh) or ".." in gh):
        bad("github", f"{_short(repr(gh))} is not of the form 'org/repo'")
    tpl = fm.get("branch_template")
    if tpl not in (None, ""):
        if not isinstance(tpl, str) or "${VERSION}" not in tpl:
            bad("branch_template", f"{_short(repr(tpl))} does not contain ${{VERSION}}")
        elif not _TEMPLATE_RE.match(tpl) or tpl.startswith("-") or ".." in tpl:
            bad("branch_template", f"{_short(repr(tpl))} has characters not allowed in a git ref")
    paths = fm.get("upstream_paths")
    if paths not in (None, "", []):
        if not isinstance(paths, list):
            bad("upstream_paths", "must be a list of paths")
        else:
            for p in paths:
                if not isinstance(p, str) or not _safe_relative(p):
                    bad("upstream_paths", f"{_short(repr(p))} must be a relative path without '..' or a leading '-'")
    tiers = fm.get("tiers")
    if tiers is not None:
        ok = isinstance(tiers, dict) and all(
            k in TIERS and isinstance(v, list) and all(isinstance(p, str) and _safe_relative(p) for p in v)
            for k, v in tiers.items()
        )
        if not ok:
            bad("tiers", "must map primary / secondary / tertiary to lists of relative paths or globs")
    names = fm.get("import_names")
    if names is not None:
        if not isinstance(names, list):
            bad("import_names", "must be a list of dotted module names")
        else:
            wrong = [n for n in names if not isinstance(n, str) or not _DOTTED_RE.fullmatch(n)]
            if wrong:
                bad("import_names", f"{_short(repr(wrong[0]))} is not a dotted module name (identifiers joined by dots)")


def _safe_relative(p: str) -> bool:
    return bool(p) and not p.startswith(("/", "-", "\\")) and ".." not in Path(p).parts and "\x00" not in p


def usable_path(p: str) -> bool:
    """Short enough for the file system (255 bytes a name, 1,024 a path) and without NUL."""
    b = p.encode("utf-8", "surrogatepass")
    return len(b) <= MAX_PATH_BYTES and b"\0" not in b and all(len(part) <= MAX_NAME_BYTES for part in b.split(b"/"))


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


# --- body ----------------------------------------------------------------------


def _line(tok: Token) -> int:
    return tok.map[0] + 1 if tok.map else 1


def _codes(inline: Token) -> list[str]:
    """Backticked tokens, except struck-through ones (~~`old`~~: retired by a fix)."""
    out, struck = [], 0
    for c in inline.children or []:
        if c.type == "s_open":
            struck += 1
        elif c.type == "s_close":
            struck -= 1
        elif c.type == "code_inline" and not struck:
            out.append(c.content)
    return out


_PATH_IN_CELL_RE = re.compile(r"`([^`|]+)`")


def _line_paths(lines: list[str]) -> set[str]:
    """The backticked paths in the first cell of pipe-table lines (of a table that could not be read)."""
    out = set()
    for line in lines:
        if line.lstrip().startswith("|"):
            cells = split_row(line)
            out.update(p.strip() for p in _PATH_IN_CELL_RE.findall(cells[0] if cells else "") if p.strip())
    return out


def _cell_file(inline: Token) -> str:
    codes = _codes(inline)
    if codes:
        return codes[0].strip()
    text = "".join(c.content for c in inline.children or [] if c.type == "text")
    return text.strip()


def _cell_files(inline: Token) -> tuple[str, ...]:
    """Every path a File cell names: `a/*/args.py` and `*/adapter.py` (relative to the first
    path's folder when it has none of its own), `tests/` and `examples/`."""
    codes = [c.strip() for c in _codes(inline)]
    paths = [c for c in codes if c and ("/" in c or c.endswith(".py")) and " " not in c]
    if not codes:
        return ()
    if not paths or paths[0] != codes[0]:
        paths.insert(0, codes[0])
    first = paths[0]
    out = [first]
    folder = first.rstrip("/").rsplit("/", 1)[0] if "/" in first.rstrip("/") else ""
    static = first.split("*")[0].split("?")[0].rsplit("/", 1)[0] if "/" in first else ""
    for p in paths[1:]:
        head = p.split("/", 1)[0]
        if "/" not in p and folder and not p.endswith("/"):
            p = f"{folder}/{p}"  # a bare file name: the same folder
        elif static and "/" in p and ("*" in head or "?" in head):
            p = f"{static}/{p}"  # `*/adapter.py` after `a/b/*/args.py`
        if p not in out:
            out.append(p)
    return tuple(out)


def _section(title: str) -> str:
    t = title.lower()
    if "affected files" in t:
        return "affected"
    if "api usage catalog" in t or t.strip() == "catalog":
        return "catalog"
    if "version-guarded" in t or "version guarded" in t:
        return "guards"
    return "other"


def _read_body(cl: Checklist, tokens: list[Token]) -> None:
    section = None
    tier = None
    misspelt: set[str] = set()  # tiers whose heading is misspelt
    entry: Entry | None = None
    lines = text_lines(cl.text)
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        if tok.type == "heading_open":
            title_tok = tokens[i + 1]
            title = title_tok.content.strip()
            if tok.tag in ("h1", "h2"):
                if tok.tag == "h2":
                    section = _section(title)
                    cl.section_lines.setdefault(section, _line(tok))
                tier, entry = None, None
            elif tok.tag == "h3" and section == "affected":
                word = title.split()[0].lower().strip("*_`:") if title else ""
                if word in TIERS:
                    tier = word
                    if tier in cl.tier_lines:
                        cl.problem("FORMAT", _line(tok), f"tier '{title}' appears twice")
                    cl.tier_lines[tier] = _line(tok)
                elif meant := difflib.get_close_matches(word, TIERS, n=1, cutoff=0.75):  # `Secondry`: a typo
                    misspelt.update(meant)  # its finding says the tier is missing too
                    tier = False  # its table: not read, and no second finding (the heading's is the one)
                    cl.problem("FORMAT", _line(tok), f"unknown tier heading '{title}' (expected Primary, Secondary or Tertiary)")
                else:  # a subsection that is not a tier ("External (...)"): legal, its rows are listed
                    tier = title
                    cl.subsections[title] = _line(tok)
            elif tok.tag == "h3" and section == "catalog":
                m = _ENTRY_RE.match(title)
                if m:
                    codes = _codes(title_tok)
                    entry = Entry(bounded_int(m.group(1)), m.group(2), codes[0] if codes else None, _line(tok))
                    cl.entries.append(entry)
                else:
                    entry = None
                    cl.problem("NUMBERING", _line(tok), f"catalog heading '{title}' is not numbered '### N.'")
            i += 3
            continue
        if tok.type == "table_open":
            close = next(j for j in range(i, n) if tokens[j].type == "table_close")
            if section == "affected":
                _read_table(cl, tokens[i:close], tier, lines)
            i = close + 1
            continue
        if tok.type == "inline" and section == "affected" and tier in TIERS and tok.content.strip() in ("_None._", "*None.*"):
            cl.empty_tiers[tier] = (tok.map[0], tok.map[1])
        elif tok.type == "inline" and section == "affected" and tok.content.lstrip().startswith("|"):
            cl.problem("FORMAT", _line(tok), "broken table: lines start with '|' but there is no '| --- |' delimiter row")
            cl.unread.update(_line_paths(tok.content.split("\n")))
        elif tok.type == "inline" and section == "catalog" and entry is not None:
            _read_entry_paragraph(entry, tok, lines)
        elif tok.type == "fence" and section == "catalog" and entry is not None:
            if tok.info.strip().lower() not in _PYTHON_FENCES:
                i += 1
                continue
            entry.snippets.append((tok.content, _line(tok)))
            pending = next((c for c in entry.call_sites if c.snippet is None), None)
            if pending is not None:
                pending.snippet, pending.snippet_line = tok.content, _line(tok)
        elif tok.type == "list_item_open" and section == "guards":
            close = next(j for j in range(i, n) if tokens[j].type == "list_item_close" and tokens[j].level == tok.level)
            inlines = [t for t in tokens[i:close] if t.type == "inline"]
            if inlines:
                _read_guard(cl, inlines[0], _line(tok), "\n".join(lines[tok.map[0] : tok.map[1]]), tok.map[0] + 1)
            i = close + 1
            continue
        i += 1
    for key, title in (("affected", "Affected Files"), ("catalog", "API Usage Catalog"), ("guards", "Version-Guarded Code")):
        if key not in cl.section_lines:
            cl.problem("FORMAT", None, f"missing section '## {title}'")
    if "affected" in cl.section_lines:
        for t in TIERS:
            if t not in cl.tier_lines and t not in misspelt:
                cl.problem("FORMAT", cl.section_lines["affected"], f"missing tier '### {t.capitalize()}' under Affected Files")
    for t, (a, b) in cl.tables.items():
        if top_level_table(lines, a, b):
            cl.addable_tiers.add(t)
    for t, (a, b) in cl.empty_tiers.items():
        if t not in cl.tables and top_level_none(lines, a, b):
            cl.addable_tiers.add(t)
    expected = 1
    for e in cl.entries:
        if e.number != expected:
            cl.problem("NUMBERING", e.line, f"catalog entry numbered {e.number}, expected {expected}", {"renumber": True})
        expected += 1


def _read_table(cl: Checklist, tokens: list[Token], tier: str | None, lines: list[str]) -> None:
    rows: list[list[Token]] = []
    header: list[str] = []
    row_line = 0
    current: list[Token] | None = None
    in_head = False
    for tok in tokens:
        if tok.type == "thead_open":
            in_head = True
        elif tok.type == "thead_close":
            in_head = False
        elif tok.type == "tr_open":
            current, row_line = [], _line(tok)
        elif tok.type == "inline" and current is not None:
            current.append(tok)
        elif tok.type == "tr_close" and current is not None:
            if in_head:
                header = [c.content.strip() for c in current]
            else:
                rows.append(current)
                current[0].meta["row_line"] = row_line
            current = None
    table_line = _line(tokens[0])

    def unread() -> None:  # a table not read: the files it names are not MISSING too (its FORMAT finding says why)
        cl.unread.update(p for cells in rows if cells for p in (_cell_files(cells[0]) or (_cell_file(cells[0]),)) if p)

    if tier is False:  # under a misspelt tier heading, which has its finding
        return unread()
    if tier is None:
        cl.problem("FORMAT", table_line, "table under Affected Files is not under a Primary/Secondary/Tertiary heading")
        return unread()
    if len(header) < 2 or header[0].lower() != "file":
        cl.problem("FORMAT", table_line, f"tier table has columns {header!r}; expected | File | Imports / Usage |")
        return unread()
    extra = tier not in TIERS
    if tier in cl.tables:
        cl.problem("FORMAT", table_line, f"a second table under {tier if extra else tier.capitalize()}; merge the two")
        return unread()
    a, b = cl.tables[tier] = (tokens[0].map[0], tokens[0].map[1])
    top = top_level_table(lines, a, b)
    columns = len(split_row(lines[a])) if top else 0
    for cells in rows:
        line = cells[0].meta["row_line"]
        file = _cell_file(cells[0])
        if not file:
            cl.problem("FORMAT", line, "tier table row has an empty File cell")
            continue
        if not usable_path(file):
            cl.problem("FORMAT", line, f"`{_short(file)}` is not a usable path (too long, or a NUL byte)")
            continue
        usage = cells[1:]
        tokens_ = [c for cell in usage for c in _codes(cell)]
        marked = any(REMOVAL_MARK in cell.content for cell in cells)
        files = _cell_files(cells[0]) or (file,)
        words = "".join(c.content for c in cells[0].children or [] if c.type == "text")
        paths_only = not re.sub(r"\band\b|[,;&+]", "", words).strip()
        cells_here = len(split_row(lines[line - 1])) if top else 0
        editable = top and cells_here <= columns
        if cells_here > columns:  # GFM drops the extra cells: what they hold is not read
            cl.problem("FORMAT", line, f"row has {cells_here} cells, its table {columns} columns: the extra cells are not read "
                                       "(a `|` inside a cell, even in a code span, is written `\\|`)")
        cl.rows.append(Row(file, tokens_, tier, line, " | ".join(c.content for c in usage), marked,
                           parse_cell(tokens_), files, extra, paths_only, editable))


# --- what --fix can edit (fix.py edits exactly these) -------------------------------


def split_row(line: str) -> list[str]:
    """The cells of a pipe-table line, split at every unescaped ``|`` as GFM splits them
    (a pipe inside a code span splits too)."""
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", s)]


def top_level_table(lines: list[str], a: int, b: int) -> bool:
    """A pipe table of the document itself: every line starts with ``|`` (a table in a
    blockquote starts with ``>``, one in a list item is indented)."""
    return 2 <= b - a and b <= len(lines) and all(lines[i].startswith("|") for i in range(a, b))


def top_level_none(lines: list[str], a: int, b: int) -> bool:
    """A tier's ``_None._`` paragraph of the document itself (one line, not quoted nor indented)."""
    return b - a == 1 and b <= len(lines) and lines[a].rstrip() in ("_None._", "*None.*")


def _read_entry_paragraph(entry: Entry, inline: Token, lines: list[str]) -> None:
    content = inline.content
    stripped = content.lstrip()
    if stripped.startswith("**Source:**"):
        codes = _codes(inline)
        entry.source = codes[0] if codes else stripped[len("**Source:**"):].strip()
        return
    in_check = stripped.startswith("**Check:**")
    if in_check:
        entry.check = stripped[len("**Check:**"):].strip()
    if not inline.map:
        return
    a, b = inline.map
    previous = entry.call_sites[-1] if entry.call_sites else None
    entry.call_sites.extend(read_references("\n".join(lines[a:b]), a + 1, previous, in_check))


def _read_guard(cl: Checklist, inline: Token, line: int, raw: str, first_line: int) -> None:
    ref = read_guard_ref(raw, first_line)
    if ref is not None:
        start = ref.parts[0].start.value if ref.parts else None
        end = ref.parts[0].end.value if ref.parts and ref.parts[0].end else None
        cl.guards.append(Guard(ref.file, start, end, line, inline.content, ref.parts, ref.codes))
        return
    if inline.content.strip().strip("_*").lower().rstrip(".") != "none":
        cl.problem("GUARD", line, "version-guard item names no `path:line`")


# --- status file -----------------------------------------------------------------


_last_parsed: tuple[str, list[Token]] | None = None


def markdown_tokens(text: str) -> list[Token]:
    """markdown-it's tokens of ``text``; the last text's are kept: the status file is read
    for its tables (``status_tables.py``) and its status rows (``read_status``) in one run."""
    global _last_parsed
    if _last_parsed is None or _last_parsed[0] != text:
        _last_parsed = (text, _md().parse(text))
    return _last_parsed[1]


def table_rows(text: str) -> Iterator[tuple[int, list[Token]]]:
    """(line, cell inline tokens) of every body row of every table in ``text``."""
    current: list[Token] | None = None
    line = 0
    in_head = False
    for tok in markdown_tokens(text):
        if tok.type in ("thead_open", "thead_close"):
            in_head = tok.type == "thead_open"
        elif tok.type == "tr_open" and not in_head:
            current, line = [], _line(tok)
        elif tok.type == "inline" and current is not None:
            current.append(tok)
        elif tok.type == "tr_close" and current is not None:
            yield line, current
            current = None


def cell_codes(inline: Token) -> list[str]:
    """The backticked tokens of a table cell or paragraph."""
    return _codes(inline)


@dataclass
class StatusRow:
    name: str
    count: int | None
    line: int


def read_status(path: Path) -> list[StatusRow]:
    """Rows of the status file's table(s) that carry an "N API entries" count."""
    rows: list[StatusRow] = []
    for line, cells in table_rows(path.read_text(encoding="utf-8")):
        counts = [m for c in cells if (m := _STATUS_RE.search(c.content))]
        name = _cell_file(cells[0]) if cells else ""
        if counts and name:
            name = Path(name.split("(")[0].strip().strip("[]")).name
            name = name[:-3] if name.endswith(".md") else name
            rows.append(StatusRow(name, bounded_int(counts[0].group(1)), line))
    return rows
