"""Affected Files rows against the code's imports: MISSING, STALE, MOVED, CHANGED, TIER (and duplicate rows).

A row's File cell may name one file, several (`a.py` and `b.py`), a glob (every file it
matches is listed), or a directory: a File cell that is only `tests/` lists every importer
below it; a cell that sums them up in words ("30+ files under `tests/`") is a summary: it is
compared with the importers below it, and each of them still wants a row of its own. What a row's
tokens mean is ``tokens.py``; which tier a location maps to is ``tiers.py``.
"""

from __future__ import annotations

import difflib
import os
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path
from fnmatch import fnmatch

from upgrade_checklists.core import gitfiles
from upgrade_checklists.core.checklist import Checklist, Row
from upgrade_checklists.core.config import Config
from upgrade_checklists.core.files import Skipped, read_file
from upgrade_checklists.core.findings import Finding
from upgrade_checklists.check.folders import suggested_folder
from upgrade_checklists.project.history import paths_ever
from upgrade_checklists.project.result import Result, ensure_full
from upgrade_checklists.project.scan import SKIP_DIRS, Facts, Import
from upgrade_checklists.project.tiers import EXCEPTION_HINT, TierRules
from upgrade_checklists.core.tokens import RowToken, covers, matches
from upgrade_checklists.core.files import Outside, inside


def _row_tokens_cover(tokens: tuple[RowToken, ...], imp: Import, facts: Facts) -> bool:
    return any(covers(t, imp, facts) for t in tokens)


@dataclass
class _Cell:
    """What a File cell names, on disk: existing files, directories, and paths that are not there."""

    files: list[str] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)  # "tests/" (with the slash)
    absent: list[str] = field(default_factory=list)
    outside: list[tuple[str, str]] = field(default_factory=list)  # (path, why): leads out of the repository
    globbed: bool = False


def _is_glob(p: str) -> bool:
    return "*" in p or "?" in p or "[" in p


#: per run (compare.run_check calls forget_listing first): what git lists, and each glob's matches
_listing: dict[str, list[str] | None] = {}
_globbed: dict[tuple[str, str], list[str]] = {}


def forget_listing(root: Path | None = None, files: list[str] | None = None) -> None:
    """A new run: the work tree may have changed since the last one in this process.
    ``files``: what git lists in ``root`` now, when the caller knows it already."""
    _listing.clear()
    _globbed.clear()
    if root is not None and files is not None:
        _listing[str(root)] = files


def project_listing(root: Path) -> list[str] | None:
    """What git lists in ``root`` (``gitfiles.project_files``), asked once a run: the run
    passes the listing it has already (:func:`forget_listing`)."""
    key = str(root)
    if key not in _listing:
        _listing[key] = gitfiles.project_files(root, ["."])
    return _listing[key]


def _glob(cfg: Config, pattern: str) -> list[str]:
    """Files matching ``pattern`` as the tier rules match (``*`` crosses folders:
    `a/*/args.py` is every `args.py` below `a/`). In a git work tree, matched against the
    files git lists (tracked, or untracked and not ignored) that exist; elsewhere, a walk
    below the pattern's fixed prefix. Hidden and tool folders below the prefix are skipped."""
    key = (str(cfg.root), pattern)
    if key in _globbed:
        return list(_globbed[key])
    first = min(i for i in (pattern.find(ch) for ch in "*?[") if i >= 0)
    static = pattern[:first].rsplit("/", 1)[0] if "/" in pattern[:first] else ""
    prefix = static + "/" if static else ""
    root = str(cfg.root)
    listing = project_listing(cfg.root)
    found = []
    if listing is not None:
        for rel in listing:
            if (rel.startswith(prefix) and fnmatch(rel, pattern)
                    and not any(d.startswith(".") or d in SKIP_DIRS for d in rel[len(prefix):].split("/")[:-1])
                    and os.path.lexists(os.path.join(root, rel))):
                found.append(rel)
    else:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, static)):
            dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS]
            rel_dir = os.path.relpath(dirpath, cfg.root).replace(os.sep, "/")
            for name in filenames:
                rel = name if rel_dir == "." else f"{rel_dir}/{name}"
                if fnmatch(rel, pattern):
                    found.append(rel)
    _globbed[key] = sorted(found)
    return list(_globbed[key])


def _expand(cfg: Config, row: Row) -> _Cell:
    cell = _Cell()
    root = str(cfg.root)
    for p in row.files or (row.file,):
        if p.startswith(("/", "-")) or ".." in p.split("/") or "\x00" in p:
            cell.absent.append(p)
            continue
        if _is_glob(p):
            cell.globbed = True
            found = _glob(cfg, p)
            if found:
                cell.files.extend(f for f in found if f not in cell.files)
            else:
                cell.absent.append(p)
            continue
        try:
            mode = os.stat(inside(root, p)).st_mode  # a symlink, or a symlinked folder, leading out: Outside
        except Outside as exc:
            cell.outside.append((p, str(exc).split(": ", 1)[-1]))
            continue
        except (Skipped, OSError, ValueError):
            mode = 0
        if p.endswith("/") or stat.S_ISDIR(mode):
            (cell.dirs if stat.S_ISDIR(mode) else cell.absent).append(p.rstrip("/") + "/")
        elif stat.S_ISREG(mode):  # a regular file of the repository, read or not (too large, unreadable)
            if p not in cell.files:
                cell.files.append(p)
        else:
            cell.absent.append(p)  # a FIFO, a device: not a file of the repository
    return cell


def compare_rows(cfg: Config, res: Result, cl: Checklist, tiers: TierRules) -> None:
    start = len(res.findings)
    _compare_rows(cfg, res, cl, tiers)
    _keep_fixable_only_where_editable(cl, res.findings, start)
    if not cfg.strict_rows:
        _bookkeeping_as_warnings(cl, res.findings, start, tiers.for_checklist(cl))


def _bookkeeping_as_warnings(cl: Checklist, findings: list[Finding], start: int, tiers: TierRules) -> None:
    """Without ``strict-rows``, a row whose file is still listed right and only its cell or
    path lags is a warning (reported, repaired by ``--fix``, exit 0), as a stale line
    number is: a CHANGED (names the file imports that the cell lacks, a token matching
    nothing any more) and a MOVED of a file git reports renamed into the same tier. The
    use of the package did not change in a way a maintainer must look at: the audit reads
    the code's imports, not the cell. Kept errors: one ``--fix`` cannot repair (the row is
    not editable), and a move into another tier (the file's rank changes)."""
    rows = {row.line: row for row in cl.rows}
    for i in range(start, len(findings)):
        f = findings[i]
        if f.checklist != cl.rel or not f.fixable or f.severity != "error":
            continue
        if f.code == "MOVED":
            row = rows.get(f.checklist_line)
            if row is None or "(git)" not in f.message or tiers.tier_of(f.fix["new"])[0] not in (None, row.tier):
                continue
        elif f.code != "CHANGED":
            continue
        findings[i] = replace(f, severity="warning")


def _keep_fixable_only_where_editable(cl: Checklist, findings: list[Finding], start: int) -> None:
    """A finding is fixable only if ``--fix`` can make its edit: its row is editable
    (``Row.editable``), and the tier it adds a row to or moves one to takes rows
    (``Checklist.addable_tiers``). The rest keep their message and lose their fix data."""
    rows = {row.line: row for row in cl.rows}
    for i in range(start, len(findings)):
        f = findings[i]
        if f.fix is None or f.checklist != cl.rel:
            continue
        if f.code == "MISSING":
            ok = f.fix.get("tier") in cl.addable_tiers
        elif f.code in ("STALE", "CHANGED", "TIER", "MOVED"):
            row = rows.get(f.checklist_line)
            ok = row is not None and row.editable and (f.code != "TIER" or f.fix.get("tier") in cl.addable_tiers)
        else:
            continue
        if not ok:
            findings[i] = replace(f, fix=None)


def _compare_rows(cfg: Config, res: Result, cl: Checklist, tiers: TierRules) -> None:
    names = res.import_names[cl.rel]
    pkg = cl.package
    add = res.findings.append
    tiers = tiers.for_checklist(cl)
    users = {}
    for path in res.importers(names):
        facts = res.facts[path]
        if not facts.full and any(m.startswith(i.qualname + ".") for i in facts.imports for m in names):
            facts = ensure_full(cfg, res, path)  # `import pkg` then `pkg.sub.x`: needs attribute uses
        imps = facts.imports_of(names)
        if imps:
            users[path] = imps
    by_file: dict[str, Row] = {}
    listed: set[str] = set()
    listing_dirs: list[str] = []  # directory rows whose File cell is only paths: every importer below is listed
    gone: list[Row] = []
    inert: list[Row] = []  # live files that stopped using the package: STALE, or a move (the code went elsewhere)
    for row in cl.rows:
        if row.file in by_file:
            add(Finding(cl.rel, row.line, "FORMAT", f"`{row.file}` is listed twice (also at line {by_file[row.file].line})", row.file, None, pkg))
            continue
        by_file[row.file] = row
        cell = _expand(cfg, row)
        listed.update(cell.files)
        for p, why in cell.outside:  # never read, never marked: a person looks at it
            add(Finding(cl.rel, row.line, "STALE", f"`{p}` is not read: {why}", p, None, pkg))
        if cell.outside and not cell.files and not cell.dirs:
            continue
        if cell.dirs and row.paths_only:  # `tests/`: a listing of every importer below
            listing_dirs.extend(cell.dirs)
        if not cell.files and not cell.dirs:
            if not row.extra:  # a subsection that is not a tier (another repository): never stale
                gone.append(row)
            continue
        for p in cell.absent:  # one of several paths is not there: say so, mark nothing
            add(Finding(cl.rel, row.line, "STALE", f"`{p}` (in the row of `{row.file}`) does not exist", p, None, pkg))
        if _compare_row(cfg, res, cl, row, cell, users, tiers):
            inert.append(row)

    # a table that could not be read has its FORMAT finding: the files it names are not MISSING too
    unread = sorted(cl.unread)
    missing = {p: imps for p, imps in users.items() if p not in listed and not any(p.startswith(d) for d in listing_dirs)
               and not _named_in(p, unread)}
    if gone or inert:  # matching a move compares row tokens with uses: needs full facts
        for p in missing:
            ensure_full(cfg, res, p)
    for row in inert:
        _inert_row(res, cl, row, missing)
    history = paths_ever(cfg.root, res.cache) if gone else None
    # what git saw renamed (in the work tree, the index or a commit): asked only of paths it ever held
    plain = [r.file for r in gone if not (_is_glob(r.file) or r.file.endswith("/"))]
    renamed = gitfiles.renames(cfg.root, [p for p in plain if p in history]) if history is not None and plain else {}
    for row in gone:
        if _is_glob(row.file) or row.file.endswith("/"):
            if not row.marked_removal:
                what = "matches no file" if _is_glob(row.file) else "is not a directory"
                deleted = history is not None and _held(row.file, history)
                add(Finding(cl.rel, row.line, "STALE", f"`{row.file}` {what}{' (its files were deleted)' if deleted else ''}",
                            row.file, None, pkg, {"remove": True} if deleted else None))
            continue
        target = renamed.get(row.file)
        if target is not None:
            imps = missing.pop(target, None)
            if target in listed:  # the new path has a row already: this one is only the old name's
                add(Finding(cl.rel, row.line, "STALE", f"`{row.file}` was renamed to `{target}`, which has a row already",
                            row.file, None, pkg, {"remove": True}))
            else:
                add(Finding(cl.rel, row.line, "MOVED", f"`{row.file}` was renamed to `{target}` (git)", target,
                            imps[0].line if imps else None, pkg, {"old": row.file, "new": target}))
            continue
        match = _moved_target(row, missing, res.facts)
        if history is not None and row.file not in history:
            _never_existed(cfg, res, cl, row, match, missing, history)
            continue
        if match is not None:
            imps = missing.pop(match)
            add(Finding(cl.rel, row.line, "MOVED", f"`{row.file}` moved to `{match}` (same name, same imports)", match, imps[0].line, pkg,
                        {"old": row.file, "new": match}))
        elif not row.marked_removal:
            if history is not None:  # git held it, and it is gone: deleted (--fix removes the row)
                add(Finding(cl.rel, row.line, "STALE", f"`{row.file}` was deleted", row.file, None, pkg, {"remove": True}))
            else:  # no history to tell a deletion from a typo: a person decides
                add(Finding(cl.rel, row.line, "STALE", f"`{row.file}` does not exist", row.file, None, pkg))
    user_tiers: dict[str, str | None] | None = None
    for path, imps in sorted(missing.items()):
        tier, _ = tiers.tier_of(path)
        line = cl.tier_lines.get(tier or "", cl.section_lines.get("affected", 1))
        where = f"belongs in {tier.capitalize()}" if tier else "no tier rule matches its location"
        if tier:
            if user_tiers is None:
                user_tiers = {p: tiers.tier_of(p)[0] for p in users}
            folder = suggested_folder(cfg.root, path, user_tiers)
            if folder:  # tests, examples, scripts: one row for the folder lists the next one too
                where += f"; or list its folder: a `{folder[0]}` row lists every importer below it, {folder[1]} today"
        shown = _shown(imps)
        fix = {"tier": tier, "cell": ", ".join(usage_parts(imps))} if tier else None
        add(Finding(cl.rel, line, "MISSING", f"`{path}` imports {shown} but no tier lists it ({where})", path, imps[0].line, pkg, fix))


def _cited_in_catalog(cl: Checklist, files: list[str]) -> str:
    """Where the checklist's catalog or version guards name one of ``files`` (a call
    site's path or glob, a guard's path): "entry 3", "a version guard"; "" when nowhere.
    A row whose file is cited stays for a person: the entry needs re-reading too."""
    def names(path: str) -> bool:
        return any(path == f or (_is_glob(path) and fnmatch(f, path)) for f in files)

    for e in cl.entries:
        if any(names(cs.file) for cs in e.call_sites):
            return f"entry {e.number}"
    if any(names(g.file) for g in cl.guards):
        return "a version guard"
    return ""


def _stale_live(cl: Checklist, row: Row, files: list[str], message: str) -> Finding:
    """STALE for a live file that stopped using the package: --fix removes its row, unless
    the catalog still points into it (then a person re-reads the entry)."""
    cited = _cited_in_catalog(cl, files)
    tail = f" (the catalog still cites it: {cited})" if cited else ""
    return Finding(cl.rel, row.line, "STALE", message + tail, row.file, None, cl.package, None if cited else {"remove": True})


def _inert_row(res: Result, cl: Checklist, row: Row, missing: dict[str, list[Import]]) -> None:
    """A listed file that is still there but no longer uses the package. When an unlisted
    importer has its name and the imports its row names, the code moved there and the old
    file stayed (a shim, a re-export): MOVED, and --fix follows it in the row, catalog
    references and guards. Else STALE."""
    pkg = cl.package
    match = _moved_target(row, missing, res.facts)
    if match is not None:
        imps = missing.pop(match)
        res.findings.append(Finding(cl.rel, row.line, "MOVED", f"`{row.file}` no longer uses {pkg}: its code moved to `{match}`"
                                    " (same name, same imports)", match, imps[0].line, pkg, {"old": row.file, "new": match}))
        return
    res.findings.append(_stale_live(cl, row, [row.file], f"`{row.file}` no longer imports {pkg} and none of its row's tokens match"))


def _compare_row(cfg: Config, res: Result, cl: Checklist, row: Row, cell: _Cell, users: dict[str, list[Import]], tiers: TierRules) -> bool:
    """CHANGED / STALE / TIER for a row whose files exist (each file of a glob on its own).
    True: the row's one file is live and no longer uses the package (:func:`_inert_row` decides)."""
    add = res.findings.append
    pkg = cl.package
    tokens = tuple(t for t in row.parsed if t.compared)
    live: set[int] = set()
    importers = 0
    inert: list[str] = []  # files that neither import the package nor match a token
    unread: list[str] = []  # files that are there and could not be read: the row's tokens cannot be judged
    for file in cell.files:
        facts = res.facts.get(file)
        text = None
        if facts is None and not file.endswith(".py"):
            try:
                text = read_file(cfg.root, file).decode("utf-8", errors="replace")
            except FileNotFoundError:
                text = ""  # gone since it was listed
            except (Skipped, OSError) as exc:  # never taken for empty text
                unread.append(file)
                _unread_finding(res, cl, row, file, exc)
                continue
        elif facts is None:  # a PARSE finding, or a note (too large, unreadable, leaving the repository)
            unread.append(file)
            _unread_finding(res, cl, row, file, None)
            continue
        imps = users.get(file, [])
        here, uncovered = _row_in_file(tokens, imps, facts, text)
        if facts is not None and not facts.full and (len(here) < len(tokens) or uncovered):
            facts = ensure_full(cfg, res, file)  # imports alone do not decide: names, strings
            here, uncovered = _row_in_file(tokens, imps, facts, text)
        live |= here
        if imps:
            importers += 1
        if not imps and not here:
            inert.append(file)
            continue
        if uncovered:
            shown = _shown(uncovered)
            first = min(i.line for i in uncovered)
            add(Finding(cl.rel, row.line, "CHANGED", f"`{file}` imports {shown}, not in its row", file, first, pkg,
                        {"add": usage_parts(uncovered)}))
    below = sorted(p for p in users if any(p.startswith(d) for d in cell.dirs))
    for file in below:  # a directory row sums up the importers below it: its tokens are theirs
        importers += 1
        if len(live) < len(tokens):
            facts = res.facts[file]
            live |= _live(tokens, facts, None, live)
            if len(live) < len(tokens) and not facts.full:
                live |= _live(tokens, ensure_full(cfg, res, file), None, live)
    if unread:
        return  # a token may be in the file that could not be read: nothing is struck, nothing marked
    if cell.dirs and not below and not cell.files and not row.extra:
        if not row.marked_removal:
            shown = " and ".join(f"`{d}`" for d in cell.dirs)
            add(Finding(cl.rel, row.line, "STALE", f"no file below {shown} imports {pkg}", row.file, None, pkg))
        return
    if not live and not importers and inert and not row.extra:
        if not row.marked_removal:
            subject = f"`{row.file}`" if not cell.globbed else f"no file `{row.file}` matches"
            why = "no longer imports" if tokens else "does not import"
            if cell.globbed:
                add(Finding(cl.rel, row.line, "STALE", f"{subject} that imports {pkg} or matches its row's tokens", row.file, None, pkg))
            elif len(cell.files) == 1 and cell.files[0] == row.file and tokens:
                return True  # decided once every row is read: its code may have moved to an unlisted file
            else:
                add(_stale_live(cl, row, cell.files, f"{subject} {why} {pkg} and none of its row's tokens match"))
        return False
    dead = [t.raw for i, t in enumerate(tokens) if i not in live]
    if dead and (cell.files or below):
        shown = ", ".join(f"`{t}`" for t in dead)
        if cell.dirs and not cell.files:
            where, what = f"`{row.file}` ({len(below)} file{'s' if len(below) != 1 else ''} below)", "the files"
        elif not cell.globbed and len(cell.files) == 1:
            where, what = f"`{row.file}`", "the file"
        else:
            where, what = f"`{row.file}` ({len(cell.files)} files)", "the files"
        add(Finding(cl.rel, row.line, "CHANGED", f"{where}: {shown} no longer match anything in {what}", row.file, None, pkg,
                    {"strike": dead}))
    if row.extra or cell.dirs:
        return
    wants = {}
    for file in cell.files:
        want, rule = tiers.tier_of(file)
        if want is not None and want != row.tier:
            wants[file] = (want, rule)
    if wants:
        targets = {w for w, _ in wants.values()}
        movable = len(targets) == 1 and len(wants) == len(cell.files)
        for file, (want, rule) in wants.items():
            paths = [p for p in row.files if _is_glob(p)] if cell.globbed else [file]
            hint = EXCEPTION_HINT.format(tier=row.tier, paths=", ".join(f'"{p}"' for p in paths))
            subject = f"`{file}`" if file == row.file else f"`{file}` (row `{row.file}`)"
            if movable and cell.globbed:
                subject = f"`{row.file}` ({len(cell.files)} files)"
            add(Finding(cl.rel, row.line, "TIER", f"{subject} is listed as {row.tier.capitalize()} but its location ({rule}) maps to {want.capitalize()}; {hint}",
                        file, None, pkg, {"tier": want} if movable else None))
            if movable and cell.globbed:
                break  # one finding (and one move) for the whole glob row


def _unread_finding(res: Result, cl: Checklist, row: Row, file: str, exc: Exception | None) -> None:
    """A PARSE finding for a listed file whose content the row cannot be compared with,
    unless the scan reported one for it already (a syntax error, an unreadable source)."""
    if any(f.code == "PARSE" and f.file == file for f in res.findings):
        return
    if exc is None:
        try:
            read_file(res.root, file)
            return  # readable now: a file the scan did not keep (gone, changed): nothing to say
        except FileNotFoundError:
            return
        except (Skipped, OSError) as again:
            exc = again
    why = str(exc).split(": ", 1)[-1] if isinstance(exc, Outside) else str(exc)
    res.findings.append(Finding(cl.rel, row.line, "PARSE", f"cannot read `{file}` (in the row of `{row.file}`): {why}; "
                                "its row is not compared", file, None, cl.package))


def _held(pattern: str, history: frozenset[str]) -> bool:
    """Git history holds a file a directory row (``tests/``) or a glob row names."""
    if pattern.endswith("/"):
        return any(p.startswith(pattern) for p in history)
    return any(fnmatch(p, pattern) for p in history)


def _named_in(path: str, named: list[str]) -> bool:
    """``path`` is one of ``named`` (a path, a directory with its slash, or a glob)."""
    return any(path == n or (n.endswith("/") and path.startswith(n)) or (_is_glob(n) and fnmatch(path, n)) for n in named)


def _row_in_file(tokens: tuple[RowToken, ...], imps: list[Import], facts: Facts | None,
                 text: str | None) -> tuple[set[int], list[Import]]:
    """The row's tokens that match the file, and the file's imports of the package that
    no token covers."""
    uncovered = [i for i in imps if not _row_tokens_cover(tokens, i, facts)] if facts and tokens else []
    return _live(tokens, facts, text), uncovered


@dataclass
class NamesPlan:
    """What decides, at scan time, whether a file's names and strings will be read (its
    full facts): the rows that name it and their checklists' import names. A file the
    rows will not read by name is scanned for its imports only; a wrong guess costs
    time only (``compare_rows`` reads the file again when it needs its names)."""

    modules: list[str]  # every checklist's import names
    files: dict[str, list[tuple[tuple[RowToken, ...], list[str]]]] = field(default_factory=dict)
    dirs: list[tuple[str, tuple[RowToken, ...], list[str]]] = field(default_factory=list)
    #: (import names, files listed) of each checklist with a row whose file is gone: its
    #: unlisted importers are matched against that row (a move) by name
    moves: list[tuple[list[str], set[str]]] = field(default_factory=list)

    def wants_names(self, rel: str, facts: Facts) -> bool:
        """Whether :func:`compare_rows` will read ``rel``'s names, its imports being ``facts``."""
        if any(m.startswith(i.qualname + ".") for i in facts.imports for m in self.modules):
            return True  # `import pkg` then `pkg.sub.x`: attribute uses decide (see _compare_rows)
        if any(rel not in listed and facts.imports_of(names) for names, listed in self.moves):
            return True
        for tokens, names in self.files.get(rel, []):  # a row naming the file (_compare_row)
            here, uncovered = _row_in_file(tokens, facts.imports_of(names), facts, None)
            if len(here) < len(tokens) or uncovered:
                return True
        # below a directory row: its tokens are matched against the importers' names
        return any(rel.startswith(d) and facts.imports_of(names) and len(_live(tokens, facts, None)) < len(tokens)
                   for d, tokens, names in self.dirs)


def names_plan(cfg: Config, checklists: list[Checklist], import_names: dict[str, list[str]]) -> NamesPlan:
    plan = NamesPlan(sorted({m for names in import_names.values() for m in names}))
    for cl in checklists:
        names = import_names.get(cl.rel, [])
        listed: set[str] = set()
        gone = False
        for row in cl.rows:
            tokens = tuple(t for t in row.parsed if t.compared)
            cell = _expand(cfg, row)
            for f in cell.files:
                plan.files.setdefault(f, []).append((tokens, names))
            plan.dirs += [(d, tokens, names) for d in cell.dirs]
            listed.update(cell.files)
            gone = gone or not (cell.files or cell.dirs or row.extra)
        if gone:
            plan.moves.append((names, listed))
    return plan


def _live(tokens: tuple[RowToken, ...], facts: Facts | None, text: str | None, known: set[int] = frozenset()) -> set[int]:
    """The tokens that match the file, those in ``known`` (matched elsewhere) left out."""
    imports = facts.imports if facts is not None else []
    return {i for i, t in enumerate(tokens) if i not in known and matches(t, facts, imports, text)}


def _never_existed(cfg: Config, res: Result, cl: Checklist, row: Row, match: str | None,
                   missing: dict[str, list[Import]], history: frozenset[str]) -> None:
    """A path that no commit ever held is a typo, not a move: name the likely intended path."""
    pkg = cl.package
    add = res.findings.append
    if match is not None:  # an unlisted importer with the same name and imports: the intended path
        imps = missing.pop(match)
        add(Finding(cl.rel, row.line, "STALE", f"`{row.file}` never existed in this repository; it likely means `{match}` (same name, same imports)",
                    match, imps[0].line, pkg, {"old": row.file, "new": match}))
        return
    guess = _likely_path(cfg, res, row.file, history)
    hint = f"; it likely means `{guess}`" if guess else ""
    if not row.marked_removal:  # no fix: a person decides between the guess and removal
        add(Finding(cl.rel, row.line, "STALE", f"`{row.file}` never existed in this repository{hint}", row.file, None, pkg))


def _likely_path(cfg: Config, res: Result, path: str, history: frozenset[str]) -> str | None:
    """An existing file with the same name (the closest folder wins), else the closest path."""
    known = set(res.facts) | history
    base = path.rsplit("/", 1)[-1]
    same = [p for p in known if p.rsplit("/", 1)[-1] == base and os.path.isfile(os.path.join(cfg.root, p))]
    if same:
        return max(same, key=lambda p: (difflib.SequenceMatcher(None, p, path).ratio(), p))
    existing = [p for p in known if os.path.isfile(os.path.join(cfg.root, p))]
    close = difflib.get_close_matches(path, existing, n=1, cutoff=0.8)
    return close[0] if close else None


def usage_parts(imports: list[Import]) -> list[str]:
    """Backticked cell parts documenting ``imports``: original names, alias noted."""
    parts = []
    for imp in imports:
        if imp.original == "*":
            part = f"`{imp.qualname}`"
        elif imp.bound not in (imp.original, imp.original.split(".")[0]) and imp.bound.isidentifier():
            part = f"`{imp.original}` (as `{imp.bound}`)"
        else:
            part = f"`{imp.original}`"
        parts.append(part)
    return list(dict.fromkeys(parts))  # a set's speed, a list's order (200,000 imports are linear)


def _describe(imp: Import) -> str:
    if imp.bound not in (imp.original, imp.original.split(".")[0]) and imp.bound.isidentifier():
        return f"{imp.qualname} as {imp.bound}"
    return imp.qualname


def _shown(imports: list[Import]) -> str:
    """`a.b`, `c.d` (dynamic import): each import once, in backticks."""
    parts = {f"`{_describe(i)}`" + (" (dynamic import)" if i.dynamic else ""): None for i in imports}
    return ", ".join(parts)


def listed_paths(cfg: Config, checklists: list[Checklist]) -> set[str]:
    """Every file a row names: globs expanded (the scan must read them all)."""
    out: set[str] = set()
    for cl in checklists:
        for row in cl.rows:
            if any(_is_glob(p) for p in row.files):
                out.update(_expand(cfg, row).files)
            out.update(p for p in row.files or (row.file,) if not _is_glob(p))
    return out


def _moved_target(row: Row, missing: dict[str, list[Import]], facts: dict[str, Facts]) -> str | None:
    """The unlisted importer of the row's file name whose imports its tokens cover most;
    between equals, the one whose path ends most like the row's (`pkg/color/util.py` ->
    `pkg2/color/util.py`, not `pkg2/draw/util.py`)."""
    base = row.file.rsplit("/", 1)[-1]
    tokens = tuple(t for t in row.parsed if t.compared)
    old = row.file.split("/")[::-1]
    best, score = None, (-1, -1)
    for path, imps in missing.items():
        if path.rsplit("/", 1)[-1] != base:
            continue
        covered = sum(_row_tokens_cover(tokens, i, facts[path]) for i in imps)
        same = 0
        for a, b in zip(old, path.split("/")[::-1]):
            if a != b:
                break
            same += 1
        if (covered or not tokens) and (covered, same) > score:
            best, score = path, (covered, same)
    return best
