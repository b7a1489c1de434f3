"""The API Usage Catalog and Version-Guarded Code against the files they name: SNIPPET, LINE, GUARD.

- SNIPPET: a statement a snippet documents is no longer in any file the entry names
  (the message says what differs and where the nearest match is), or a referenced
  path does not exist (reported once per checklist, with the nearest existing path).
- LINE: a recorded line number (every number of every reference) is neither inside a
  statement the entry's snippets match (from its decorators to its end) nor on the
  line where a statement or function enclosing one starts (or, for the end of a range,
  ends). Fixable: the finding carries the exact edits.
- GUARD: a version guard's file is missing, its quoted expression is nowhere in the
  file, or (fixable, like LINE) its recorded line drifted from where the expression is.
"""

from __future__ import annotations

import ast
import difflib
import os
from pathlib import Path
from collections.abc import Callable

from upgrade_checklists.core import gitfiles
from upgrade_checklists.core.checklist import Checklist, Guard, text_lines
from upgrade_checklists.core.findings import Finding
from upgrade_checklists.core.refs import Part
from upgrade_checklists.project.history import paths_ever
from upgrade_checklists.project.result import Result
from upgrade_checklists.project.snippets import Snippets, distance as _distance, guard_code, is_glob, quoted_code as _quoted_code, snippet_units
from upgrade_checklists.core.files import is_inside


def renamed_references(root: Path, checklists: list[Checklist], snippets: Snippets, cache=None) -> dict[str, str]:
    """``{old: new}`` for the files catalog references and version guards name that are
    gone and that git saw renamed; git is asked once a run, and only about paths its
    history ever held (a path it never held is a typo, not a rename)."""
    absent = {p for cl in checklists for p in [*(cs.file for e in cl.entries for cs in e.call_sites), *(g.file for g in cl.guards)]}
    absent = {p for p in absent if not is_glob(p) and _in_repository(root, p) and not snippets.exists(p)}
    if not absent:
        return {}
    held = paths_ever(root, cache)
    absent = sorted(p for p in absent if held is not None and p in held)
    return gitfiles.renames(root, absent) if absent else {}


def check_catalog(res: Result, cl: Checklist, snippets: Snippets, strict_lines: bool = True,
                  moved: dict[str, str] | None = None, strict_rows: bool = True) -> None:
    """``strict_lines``: a stale line number (LINE, a drifted version-guard line) is an
    error; else a warning (``severity``), reported and fixable, never failing a run.
    ``moved``: :func:`renamed_references` (a reference to a renamed file: MOVED, fixable;
    an error with ``strict_rows``, else a warning: only the path changed)."""
    level = "error" if strict_lines else "warning"
    moved_level = "error" if strict_rows else "warning"
    add = res.findings.append
    pkg = cl.package
    lines = text_lines(cl.text)  # as markdown-it counts them (a lone CR breaks a line)
    missing_reported: set[str] = set()

    nearest: dict[str, str | None] = {}
    # references to files git saw renamed (followed by --fix); a row naming the old path speaks for it
    moved = moved or {}
    in_rows = {f for row in cl.rows for f in (row.files or (row.file,))}

    def missing(path: str, at: int, code: str, what: str, line: int | None) -> str | None:
        """Report a path that does not exist (once); the nearest existing path, if any:
        where git says it was renamed to (a fixable MOVED), else a likely typo's meaning."""
        if path in moved:
            if path not in missing_reported and path not in in_rows:
                missing_reported.add(path)
                add(Finding(cl.rel, at, "MOVED", f"{what} `{path}` was renamed to `{moved[path]}` (git)", moved[path], None, pkg,
                            {"old": path, "new": moved[path], "reference": True}, severity=moved_level))
            return moved[path]
        out = snippets.outside.get(path)
        if path not in nearest:
            nearest[path] = nearest_path(snippets.root, path) if out is None else None
        if path not in missing_reported:
            missing_reported.add(path)
            hint = f" (nearest existing path: `{nearest[path]}`)" if nearest[path] else ""
            if out is not None:  # a symlink (or a symlinked folder) leading out: never read
                add(Finding(cl.rel, at, code, f"{what} `{path}` is not read: {out.split(': ', 1)[-1]}",
                            path, line, pkg))
            else:
                add(Finding(cl.rel, at, code, f"{what} `{path}` does not exist{hint}", path, line, pkg))
        return nearest[path]

    for e in cl.entries:
        files: list[str] = []
        located: dict[int, list[str]] = {}
        for i, cs in enumerate(e.call_sites):
            found = _resolve(cs.file, snippets)
            if not found:
                if _in_repository(snippets.root, cs.file):
                    near = missing(cs.file, cs.ref_line, "SNIPPET", f"entry {e.number}: call site", cs.line)
                    if near and near not in files:
                        files.append(near)  # its snippets are looked for there too (not its line numbers)
                continue
            located[i] = found
            files += [f for f in found if f not in files]
        if e.source and not is_glob(e.source) and snippets.exists(e.source) and e.source not in files:
            files.append(e.source)  # an entry about the repository's own code names it as its source
        # a snippet found verbatim (whitespace aside) needs no parsing, nor do numbers that are exactly its lines
        verbatim = {f: [snippets.verbatim(f, code) or [] for code, _ in e.snippets] for f in files}
        answers: dict[str, list] = {}

        def parsed(f: str) -> list:
            if f not in answers:
                answers[f] = [snippets.match(f, code) for code, _ in e.snippets]
            return answers[f]

        mark = len(res.findings)
        for k, (code, fence_line) in enumerate(e.snippets):
            if not any(v[k] for v in verbatim.values()):
                # where the entry's other examples are (asked only for a near match): the one
                # statement another snippet documents is not a near match of this one ("`x` is
                # now `y`" would name the other example); a snippet found in several places
                # claims none (which one it documents is not known)
                def others(f: str, k: int = k) -> list[list[int]]:
                    out = []
                    for j in range(len(e.snippets)):
                        if j != k:
                            places = {g: _places(verbatim[g][j], parsed, g, j) for g in files}
                            if sum(len(p) for p in places.values()) == 1:
                                out += places[f]
                    return out

                _check_snippet(res, cl, e.number, code, fence_line, {f: parsed(f)[k] for f in files}, others)
        # a snippet reported gone: its numbers past the file's end are the same change, said once
        snippet_gone = any(f.code == "SNIPPET" for f in res.findings[mark:])
        for i, cs in enumerate(e.call_sites):
            if i not in located or not cs.parts or is_glob(cs.file):
                continue
            f = located[i][0]
            if _numbers_verbatim(cs, verbatim.get(f, [])):
                continue
            spans = [sp for a in parsed(f) if a for u in a if u and u.get("at") for sp in u["at"]]
            if not spans:  # no snippet here: code quoted in its paragraph ("via `from x import y`") says where
                for code in filter(None, (_quoted_code(c) for c in cs.codes)):
                    spans += [sp for u in snippets.match(f, code) or [] if u and u.get("at") for sp in u["at"]]
            wholes = []
            for p in cs.parts:  # "(`func`, lines N-M)": the function named with the numbers
                q = p.qualname or cs.qualname
                wholes.append(snippets.def_span(f, q) if q else None)
            what = f"entry {e.number}: snippet in `{f}`"
            count = snippets.line_count(f, _numbers(cs.parts))
            if snippet_gone:
                count = None
            _check_numbers(res, cl, lines, cs.parts, cs.words, spans, count, what, f, "LINE", wholes=wholes, level=level)
    outside = _outside_repository(cl, snippets)
    for g in cl.guards:
        if outside(g.file) and snippets.line_count(g.file) is None:
            continue  # another repository's file (the subsection's note in -v says so)
        _check_guard(res, cl, lines, g, snippets, missing, level)


def _outside_repository(cl: Checklist, snippets: Snippets):
    """A path of another repository: listed under a non-tier subsection of Affected Files
    ("External (...)"), or below the same top folder as such a row, a folder this
    repository does not have."""
    extra = {r.file for r in cl.rows if r.extra}
    tops = {f.split("/", 1)[0] for f in extra if "/" in f}
    tops = {t for t in tops if not (snippets.root / t).exists()}

    def outside(path: str) -> bool:
        return path in extra and not (snippets.root / path).exists() or path.split("/", 1)[0] in tops

    return outside


def _numbers_verbatim(cs, verbatim: list[list]) -> bool:
    """Every number of the call site is exactly where a snippet is verbatim (no parse needed)."""
    exact = {tuple(p) for v in verbatim for p in v}
    return all((p.start.value, (p.end or p.start).value) in exact or (p.end is None and any(
        a == p.start.value for a, _ in exact)) for p in cs.parts)


def likely_matches(checklists: list[Checklist], snippets: Snippets) -> dict[str, list[str]]:
    """``{file: [question, ...]}``: what :func:`check_catalog` will likely ask of each file
    by parsing it (:meth:`Snippets.ask` keys: a snippet's match, a function's span), as
    it decides: snippets not there verbatim, the numbers that are not exactly a verbatim
    place, and each version guard's quoted code. Asked ahead of the catalogs, a file at
    a time, the questions can be shared between processes by file (``compare.py``); one
    missed here is answered when the catalog asks it, one asked in vain costs only time."""
    out: dict[str, dict[str, None]] = {}

    def ask(f: str, key: str) -> None:
        out.setdefault(f, {})[key] = None

    for cl in checklists:
        for e in cl.entries:
            located = [_resolve(cs.file, snippets) for cs in e.call_sites]
            files = list(dict.fromkeys(f for found in located for f in found))
            if e.source and not is_glob(e.source) and snippets.exists(e.source) and e.source not in files:
                files.append(e.source)
            codes = [code for code, _ in e.snippets]
            verbatim = {f: [snippets.verbatim(f, code) or [] for code in codes] for f in files}
            if any(not any(v[k] for v in verbatim.values()) for k in range(len(codes))):
                for f in files:
                    for code in codes:
                        ask(f, "m:" + code)
            for cs, found in zip(e.call_sites, located):
                if not found or not cs.parts or is_glob(cs.file) or _numbers_verbatim(cs, verbatim.get(found[0], [])):
                    continue
                f = found[0]
                for code in codes + [q for q in map(_quoted_code, cs.codes) if q]:
                    ask(f, "m:" + code)
                for q in dict.fromkeys(p.qualname or cs.qualname for p in cs.parts):
                    if q:
                        ask(f, "d:" + q)
        for g in cl.guards:
            code = guard_code(g)
            if code and snippets.exists(g.file):
                ask(g.file, "m:" + code)
    return {f: list(keys) for f, keys in out.items()}


def questions(checklists: list[Checklist], likely: dict[str, dict[str, list[str]]], snippets: Snippets) -> dict[str, list[str]]:
    """:func:`likely_matches` of every checklist, in their order: those read in
    this run were asked in the job that read them (``likely``), the others here."""
    out: dict[str, dict[str, None]] = {}
    for cl in checklists:
        asks = likely.get(cl.rel)
        for f, keys in (asks if asks is not None else likely_matches([cl], snippets)).items():
            out.setdefault(f, {}).update(dict.fromkeys(keys))
    return {f: list(keys) for f, keys in out.items()}


def _resolve(path: str, snippets: Snippets) -> list[str]:
    if is_glob(path):
        return snippets.glob(path)
    return [path] if snippets.exists(path) else []


def _in_repository(root: Path, path: str) -> bool:
    """Whether a path that does not exist is meant to be in this repository: its top
    folder is (else it names an upstream file, or another repository's)."""
    top = path.split("/", 1)[0]
    return "/" not in path or (not is_glob(top) and os.path.isdir(os.path.join(root, top)))


def nearest_path(root: Path, path: str) -> str | None:
    """The existing file most like ``path``: the same name elsewhere, else a close name
    in the deepest folder of ``path`` that exists."""
    name = path.rsplit("/", 1)[-1]
    if is_glob(name):
        return None
    top = path.split("/", 1)[0]
    base = root / top if "/" in path and (root / top).is_dir() else root
    try:
        same = [p.relative_to(root).as_posix() for p in base.rglob(name) if p.is_file() and ".git" not in p.parts]
        same = [p for p in same if is_inside(root, p)]  # no name from a folder elsewhere
    except OSError:
        same = []
    if same:
        return max(same, key=lambda p: difflib.SequenceMatcher(None, p, path).ratio())
    folder = root / path.rsplit("/", 1)[0] if "/" in path else root
    while folder != root and not folder.is_dir():
        folder = folder.parent
    if folder != root and not is_inside(root, folder.relative_to(root).as_posix()):
        return None
    try:
        names = [p.name for p in folder.iterdir() if p.is_file()]
    except OSError:
        return None
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.75)
    if close:
        return (folder / close[0]).relative_to(root).as_posix()
    if "/" not in path or (root / path.rsplit("/", 1)[0]).is_dir():
        return None
    # a typo in a folder's name (`pkg/utlis/io.py`): the closest of the files git lists with
    # a name like this one's
    from upgrade_checklists.check.rows import project_listing  # the run's listing: git asked once

    by_name: dict[str, list[str]] = {}
    for p in project_listing(root) or []:
        by_name.setdefault(p.rsplit("/", 1)[-1], []).append(p)
    alike = [p for n in difflib.get_close_matches(name, by_name, n=max(1, len(by_name)), cutoff=0.75) for p in by_name[n]]
    close = difflib.get_close_matches(path, alike, n=1, cutoff=0.8)
    return close[0] if close else None


def _places(verbatim: list, parsed, f: str, k: int) -> list[list[int]]:
    """[start, end] of each place snippet ``k`` of an entry is in file ``f``: verbatim, or
    (only when it is not) where each of its statements matched (``parsed(f)``: the answers)."""
    if verbatim:
        return [p[:2] for p in verbatim]
    answer = parsed(f)[k] or []
    return [sp[:2] for u in answer if u and u.get("at") for sp in u["at"]]


def _check_snippet(res: Result, cl: Checklist, number: int, code: str, fence_line: int, per_file: dict[str, list | None],
                   others: Callable[[str], list[list[int]]] | None = None) -> None:
    """``others(file)``: the lines the entry's other snippets are at there (no near match there)."""
    answers = {f: a for f, a in per_file.items() if a is not None}
    if not answers:
        return
    # each answer has one item per unit of the snippet: when every unit is somewhere, the
    # snippet need not be parsed again (the usual case of a warm run)
    if all(any(i < len(a) and a[i] and a[i].get("at") for a in answers.values())
           for i in range(max(len(a) for a in answers.values()))):
        return
    units = snippet_units(code)
    problems = []
    for i, unit in enumerate(units):
        if any(i < len(a) and a[i] and a[i].get("at") for a in answers.values()):
            continue
        nears = [(len(a[i]["near"][1]), f, a[i]["near"]) for f, a in answers.items() if i < len(a) and a[i] and a[i].get("near")
                 and not (others and any(sp[0] <= a[i]["near"][0] <= sp[1] for sp in others(f)))]
        shown = _source(unit.node)
        if nears:
            _, f, (line, diffs) = min(nears, key=lambda x: x[0])
            problems.append((f, line, f"`{shown}`: {'; '.join(diffs[:3])} (nearest match `{f}:{line}`)"))
        else:
            names = list(answers)
            where = ", ".join(f"`{f}`" for f in names[:3]) + (f" and {len(names) - 3} more files" if len(names) > 3 else "")
            problems.append((None, None, f"`{shown}` is not in {where}"))
    if problems:
        f, line = next(((f, ln) for f, ln, _ in problems if f), (next(iter(answers)), None))
        text = "; ".join(p[2] for p in problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        # it concerns every file the entry names: a commit that edits the one the code was in sees it
        res.findings.append(Finding(cl.rel, fence_line, "SNIPPET", f"entry {number}: documented code changed: {text}", f, line, cl.package,
                                    {"concerns": sorted(answers)}))


def _source(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # noqa: BLE001
        text = type(node).__name__
    text = " ".join(text.split("\n")[0].split())
    return text if len(text) <= 60 else text[:57] + "..."


# --- line numbers ------------------------------------------------------------------------


def _ok(n: int, spans: list, end: bool) -> bool:
    for start, stop, starts, ends, _ in spans:
        if start <= n <= stop or n in starts or (end and n in ends):
            return True
    return False


def _range_ok(a: int, b: int, spans: list) -> bool:
    """A recorded range ``a-b`` is right when ``a`` is where a matched statement, or a
    statement or function enclosing one, starts, and ``b`` is inside that same statement
    or function (a function that grew at its end, or a range that stops short of its
    end, is not stale)."""
    for start, stop, starts, ends, _ in spans:
        if a == start and start <= b <= stop:
            return True
        if any(a == s and s <= b <= e for s, e in zip(starts, ends)):
            return True
    return False


def wrong_parts(parts: list[Part], spans: list, wholes: list | None = None, lenient: bool = False) -> list[tuple[Part, int, int]]:
    """(part, new start, new end) for every part whose number(s) are not where the
    matched statements are. Each matched statement belongs to its nearest part; a part
    naming a function (``wholes[i]``: its span) is read against the statements inside
    it, else against the function itself. A wrong range becomes whichever is most like
    what was recorded (length first, then place): the statements it owns (in one
    function), the function it names, or, when its start is right, that start to the
    end of either. ``lenient`` (not ``strict-lines``): a range is also right when it starts
    where a statement or function starts and ends inside it (:func:`_range_ok`)."""
    wholes = wholes or [None] * len(parts)
    owned: dict[int, list] = {i: [] for i in range(len(parts))}
    for sp in spans:
        i = min(range(len(parts)), key=lambda i: _distance(sp, parts[i].start.value, (parts[i].end or parts[i].start).value))
        owned[i].append(sp)
    out = []
    for i, p in enumerate(parts):
        mine_all, whole = spans, wholes[i]
        if whole:
            mine_all = [sp for sp in spans if whole[0] <= sp[0] and sp[1] <= whole[1]] or [whole]
            owned[i] = [sp for sp in owned[i] if sp in mine_all] or mine_all
        if not mine_all:
            continue
        start_ok = _ok(p.start.value, mine_all, False)
        if start_ok and (p.end is None or _ok(p.end.value, mine_all, True)):
            continue
        if lenient and p.end is not None and _range_ok(p.start.value, p.end.value, mine_all):
            continue
        a, b = p.start.value, (p.end or p.start).value
        nearest = min(owned[i] or mine_all, key=lambda sp: (_distance(sp, a, b), sp[0]))
        if p.end is None:
            out.append((p, nearest[0], nearest[1]))
            continue
        mine = [sp for sp in owned[i] if sp[4] == nearest[4]] or [nearest]
        choices = [(min(sp[0] for sp in mine), max(sp[1] for sp in mine))]
        # or from the statement enclosing them (`try:` above the documented call)
        choices.append((min(sp[2][0] if sp[2] else sp[0] for sp in mine), choices[0][1]))
        if whole:
            choices.append((whole[0], whole[1]))
        if start_ok:
            choices += [(a, max(a, c[1])) for c in choices]
        start, end = min(choices, key=lambda c: (abs((c[1] - c[0]) - (b - a)), abs(c[0] - a) + abs(c[1] - b)))
        out.append((p, start, end))
    return out


def _edits(lines: list[str], parts: list[Part], words, part: Part, start: int, end: int) -> list[list] | None:
    """Exact text edits [line, col, old, new] that write ``start``/``end`` into ``part``."""
    a, b = part.start, part.end
    if b is None:
        edits = [[a.line, a.col, a.text, str(start)]]
        single = True
    elif a.line == b.line:
        old = lines[a.line - 1][a.col : b.col + len(b.text)]
        dash = lines[a.line - 1][a.col + len(a.text) : b.col]
        new = str(start) if start == end else f"{start}{dash}{end}"
        edits = [[a.line, a.col, old, new]]
        single = start == end
    else:
        edits = [[a.line, a.col, a.text, str(start)], [b.line, b.col, b.text, str(max(end, start))]]
        single = False
    if len(parts) == 1 and len(words) == 1:
        w = words[0]
        want = ("line" if single else "lines")
        want = want.capitalize() if w.text[:1].isupper() else want
        if want != w.text:
            edits.append([w.line, w.col, w.text, want])
    for line, col, old, _ in edits:
        if not (0 < line <= len(lines)) or lines[line - 1][col : col + len(old)] != old:
            return None
    return edits


def _shown(start: int, end: int | None) -> str:
    return f"line {start}" if end is None or end == start else f"lines {start}-{end}"


def _numbers(parts) -> list[int]:
    """Every line number the parts of a reference give (what ``_check_numbers`` may compare
    with the file's line count)."""
    return [n.value for p in parts for n in (p.start, p.end) if n is not None]


def _check_numbers(res, cl, lines, parts, words, spans, count, what, file, code, subject="", wholes=None,
                   level: str = "error") -> None:
    """Findings (of ``code``, severity ``level``) for the numbers of ``parts`` that are not where ``spans`` are."""
    if not spans and not any(wholes or []):
        for p in parts:
            for n in (p.start, p.end):
                if n is not None and count is not None and n.value > count:
                    res.findings.append(Finding(cl.rel, n.line, code, f"{what}: line {n.value} is past the end of the file ({count} lines)", file, None, cl.package,
                                                severity=level))
        return
    for p, start, end in wrong_parts(parts, spans, wholes, lenient=level != "error"):
        was = _shown(p.start.value, p.end.value if p.end else None)
        now = _shown(start, end if p.end else None)
        edits = _edits(lines, parts, words, p, start, end)
        msg = f"{what}{subject} is now at {now} (recorded {was})"
        res.findings.append(Finding(cl.rel, p.start.line, code, msg, file, start, cl.package, {"edits": edits} if edits else None,
                                    severity=level))


# --- version guards -------------------------------------------------------------------------


def _check_guard(res: Result, cl: Checklist, lines: list[str], g: Guard, snippets: Snippets, missing, level: str = "error") -> None:
    """GUARD: a missing file or expression is an error; a drifted line number is of severity ``level``."""
    count = snippets.line_count(g.file, [g.line, *_numbers(g.parts)])
    if count is None:
        missing(g.file, g.ref_line, "GUARD", "version guard", g.line)
        return
    code = guard_code(g)
    answer = snippets.match(g.file, code) if code else None
    if answer:
        if not (answer[0] and answer[0].get("at")):
            near = answer[0].get("near") if answer[0] else None
            hint = f" (nearest: line {near[0]}: {'; '.join(near[1][:2])})" if near else ""
            res.findings.append(Finding(cl.rel, g.ref_line, "GUARD", f"version guard `{code}` is not in `{g.file}`{hint}", g.file, g.line, cl.package))
            return
        if not g.parts:  # anchored by file (and function) alone: found is enough
            return
        spans = [sp for u in answer if u and u.get("at") for sp in u["at"]]
        _check_numbers(res, cl, lines, g.parts, [], spans, count, "version guard", g.file, "GUARD", f" `{code}` in `{g.file}`",
                       level=level)
        return
    if g.line is not None and g.line > count:
        res.findings.append(Finding(cl.rel, g.ref_line, "GUARD", f"version guard `{g.file}:{g.line}` is past the end of the file ({count} lines)", g.file, g.line, cl.package))
