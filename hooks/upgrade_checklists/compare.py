"""The structure check: read checklists -> scan code -> compare -> findings.

Input: the configuration. Output: a :class:`Result` holding plain findings.
Nothing here prints or exits; ``report.py`` formats, ``cli.py`` decides.
Each comparison lives in its own module: ``rows.py`` (Affected Files),
``catalog.py`` (API Usage Catalog, version guards), ``status.py`` (status file).
"""

from __future__ import annotations

import gc
import os
import stat
from pathlib import Path

from upgrade_checklists.atomic import clean_stale_temps
from upgrade_checklists.files import MAX_BYTES, Skipped, file_stat, read_file

from upgrade_checklists.cache import ScanCache
from upgrade_checklists.catalog import check_catalog, likely_matches, renamed_references
from upgrade_checklists.checklist import Checklist, load_parsers, read_checklist
from upgrade_checklists.config import Config, ConfigError
from upgrade_checklists.findings import Finding
from upgrade_checklists import gitfiles, history, status_tables
from upgrade_checklists.status_tables import StatusTables
from upgrade_checklists.import_names import read_guide_mapping, resolve_import_names
from upgrade_checklists.plain import PlainError, from_plain, to_plain
from upgrade_checklists.result import Result
from upgrade_checklists.rows import NamesPlan, compare_rows, forget_listing, listed_paths, names_plan
from upgrade_checklists.scan import Facts, Prefilter, full_facts, iter_sources, scan_from_plain, scan_to_plain, scan_tree
from upgrade_checklists.snippets import Snippets
from upgrade_checklists.matrix import check_matrix, read_ahead, remember, unread_manifests
from upgrade_checklists.parallel import share
from upgrade_checklists.status import check_status
from upgrade_checklists.tiers import TierRules

__all__ = ["Result", "load_checklists", "read_project", "run_check"]


def load_checklists(cfg: Config, cache: ScanCache | None = None, notes: list[str] | None = None) -> list[Checklist]:
    return _read_checklists(cfg, cache, notes, None)[0]


def _read_checklists(cfg: Config, cache: ScanCache | None, notes: list[str] | None,
                     snippets: Snippets | None) -> tuple[list[Checklist], dict[str, dict[str, list[str]]]]:
    """The checklists, and with ``snippets`` what the catalogs of those read here (not from
    the cache) will ask of the code (:func:`catalog.likely_matches`, by checklist): asked
    in the job that read the checklist, on either core, its verbatim look-ups with it."""
    d = cfg.checklist_dir
    if not d.is_dir():
        raise ConfigError(f"checklist directory {cfg.checklists!r} not found (configure 'checklists')")
    out: list[Checklist | None] = []
    todo: list[tuple[int, Path, str, os.stat_result]] = []
    clean_stale_temps(d)  # what a killed --fix left behind
    for path in sorted(d.glob("*.md")):
        if path.name.startswith("_"):
            continue
        rel = path.relative_to(cfg.root).as_posix()
        try:
            st = file_stat(cfg.root, rel)
        except (Skipped, OSError) as exc:
            if notes is not None:
                notes.append(f"skipped {rel}: {exc}")
            continue
        cl = None
        if cache is not None:
            hit, data = cache.get("checklist:" + rel, st)
            if hit:
                try:
                    cl = from_plain(Checklist, data)
                except PlainError:
                    cl = None
            if cl is not None and cl.rel != rel:
                cl = None
        if cl is None:
            todo.append((len(out), path, rel, st))
        else:
            cl.path = path
        out.append(cl)

    # markdown-it is most of reading a checklist: a cold run reads them on two cores
    def work(job) -> tuple[Checklist, dict | None, dict[str, list[str]] | None]:
        cl = read_checklist(job[1], job[2])
        return cl, _checklist_to_plain(cl), likely_matches([cl], snippets) if snippets is not None else None

    def sent(done) -> dict:  # in the child: the checklist, its questions, and the answers it learnt
        return {"checklist": done[1], "likely": done[2], "answers": snippets.take_new() if snippets is not None else []}

    def received(data: object):
        if type(data) is not dict or set(data) != {"checklist", "likely", "answers"}:
            raise ValueError("not a checklist job's result")
        cl, plain = _checklist_from_plain(data["checklist"])
        likely = data["likely"]
        if likely is not None and not (type(likely) is dict and all(
                type(keys) is list and all(type(k) is str for k in keys) for keys in likely.values())):
            raise ValueError("not the questions of a catalog")
        if snippets is not None:
            snippets.learn(data["answers"])
        return cl, plain, likely

    if todo:
        load_parsers()  # imported once, before the child is forked

    likely: dict[str, dict[str, list[str]]] = {}
    read = share(todo, work, sent, received, weight=lambda job: job[3].st_size, min_jobs=2)
    for (i, path, rel, st), (cl, data, asks) in zip(todo, read):
        cl.path = path
        out[i] = cl
        if asks is not None:
            likely[rel] = asks
        if cache is not None:
            if data is None:  # frontmatter JSON cannot hold (dates, non-string keys): read each time
                cache.forget("checklist:" + rel)
            else:
                cache.put("checklist:" + rel, st, data)
    return [cl for cl in out if cl is not None], likely


def _queries(checklists: list[Checklist], likely: dict[str, dict[str, list[str]]], snippets: Snippets) -> dict[str, list[str]]:
    """:func:`catalog.likely_matches` of every checklist, in their order: those read in
    this run were asked in the job that read them (``likely``), the others here."""
    out: dict[str, dict[str, None]] = {}
    for cl in checklists:
        asks = likely.get(cl.rel)
        for f, keys in (asks if asks is not None else likely_matches([cl], snippets)).items():
            out.setdefault(f, {}).update(dict.fromkeys(keys))
    return {f: list(keys) for f, keys in out.items()}


def _checklist_to_plain(cl: Checklist) -> dict | None:
    """The checklist as plain data, or None when its frontmatter does not survive JSON."""
    try:
        data = to_plain(cl)
        if from_plain(Checklist, data).frontmatter != cl.frontmatter:
            return None
    except PlainError:
        return None
    return data


def _checklist_from_plain(data: object) -> tuple[Checklist, dict]:
    """A checklist another process read (:func:`_checklist_to_plain`), and that plain data."""
    if type(data) is not dict:
        raise ValueError("read here: its frontmatter does not survive JSON")
    return from_plain(Checklist, data), data


def run_check(cfg: Config, use_cache: bool = True, uncatalogued: bool = False, files: list[str] | None = None) -> Result:
    """The structure check. ``uncatalogued``: also list the APIs no catalog entry names
    (UNCATALOGUED, off by default: it parses every file that imports a package).
    ``files``: the repository's files as ``gitfiles.project_files(root, ["."])`` listed
    them just now (the caller asked git already).

    Python's cycle collector is paused meanwhile: a cold run allocates millions of
    syntax-tree nodes, freed by reference counting (they hold no cycles), and the
    collector only walked them again and again (a quarter of a cold run's time)."""
    return _paused(cfg, use_cache, uncatalogued, files, True)


def read_project(cfg: Config, use_cache: bool = True) -> Result:
    """The check's reading half, what the audit takes from it: the checklists, their
    import names, the status tables, the tiers and every file's imports (``Result.facts``),
    with the same notes and warnings; no comparison is made (``Result.findings`` holds
    only what reading found: a checklist's problems, a file that does not parse)."""
    return _paused(cfg, use_cache, False, None, False)


def _paused(cfg: Config, use_cache: bool, uncatalogued: bool, files: list[str] | None, compare: bool) -> Result:
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run_check(cfg, use_cache, uncatalogued, files, compare)
    finally:
        if collecting:
            gc.enable()


def _run_check(cfg: Config, use_cache: bool, uncatalogued: bool, files: list[str] | None, compare: bool) -> Result:
    res = Result(root=cfg.root)
    forget_listing(cfg.root, files)
    history.forget()
    gitfiles.forget_renames()
    cache_dir = cfg.root / cfg.cache_dir if (use_cache and cfg.cache_dir) else None
    res.cache = ScanCache(cache_dir, str(cfg.root.resolve()))
    snippets = res.snippets = Snippets(cfg.root, res.cache)
    checklists, likely = _read_checklists(cfg, res.cache, res.notes, snippets if compare else None)
    res.checklists = checklists
    if not checklists:
        res.warnings.append(f"{cfg.checklists}/ holds no checklist yet: write one with `upgrade-checklists new PACKAGE`")
    guide = read_guide_mapping(cfg)
    tables = status_tables.load(cfg.root, cfg.status_file, res.cache) if cfg.status_file else None
    res.status_tables = tables
    for cl in checklists:
        names, how = resolve_import_names(cl, cfg, guide, tables.focused if tables else None)
        res.import_names[cl.rel] = names
        res.notes.append(f"{cl.rel}: import names {', '.join(names)} ({how})")
        res.findings.extend(cl.problems)
    tiers = TierRules.build(cfg, checklists)
    res.tiers = tiers
    if tiers.inferred:
        shown = ", ".join(f"{p} -> {t}" for p, t in tiers.rules) or "none"
        res.notes.append(f"tiers inferred from the checklists (no [tool.upgrade-checklists.tiers]): {shown}")

    listed = listed_paths(cfg, checklists)
    for cl in checklists:
        for title, line in cl.subsections.items():
            res.notes.append(f"{cl.rel}:{line}: '{title}' under Affected Files is not a tier: its rows are listed, never STALE nor TIER;"
                             " version guards on its paths outside the repository are not checked")
    _scan(cfg, res, listed, files, snippets, _queries(checklists, likely, snippets) if compare else {}, tables if compare else None)
    for cl in checklists:
        names = res.import_names[cl.rel]
        if not any(res.facts[p].imports_of(names) for p in res.importers(names)):
            res.warnings.append(f"{cl.rel}: no file in {', '.join(cfg.roots)} imports {', '.join(names)} "
                                "(a package the code no longer uses, or configure 'roots' / 'import-names')")
    if not compare:
        return _done(res)

    per_rows = []
    for cl in checklists:
        mark = len(res.findings)
        compare_rows(cfg, res, cl, tiers)
        per_rows.append(res.findings[mark:])
        del res.findings[mark:]
    moved = renamed_references(cfg.root, checklists, snippets, res.cache)
    for cl, rows in zip(checklists, per_rows):
        view = Result()  # check_catalog adds findings only
        check_catalog(view, cl, snippets, cfg.strict_lines, moved)
        res.findings += rows + view.findings
    snippets.save()
    res.asked, res.ceilings = set(snippets.files), dict(snippets.ceilings)
    res.observed |= set(res.facts) | listed | res.asked
    if uncatalogued:
        from upgrade_checklists import uncatalogued as uncat

        res.findings.extend(uncat.find(cfg, res))
    if cfg.status_file:
        check_status(cfg, res, checklists)
        res.observed.add(cfg.status_file)
        if tables is not None:
            res.findings.extend(check_matrix(cfg, tables, [cl.package for cl in checklists] + list(tables.focused), res.cache))
            res.observed.update(m for row in tables.matrix for m in row.locations)  # the manifests it read
    res.observed.update(cl.rel for cl in checklists)
    if cfg.maintenance_guide:
        res.observed.add(cfg.maintenance_guide)
    return _done(res)


def _done(res: Result) -> Result:
    res.cache.save()
    res.cache.release()  # the entries of every file: not needed past the save
    res.notes = list(dict.fromkeys(res.notes))  # a file skipped by two steps: one note
    return res


def _scan(cfg: Config, res: Result, listed: set[str], files: list[str] | None, snippets: Snippets,
          queries: dict[str, list[str]], tables: StatusTables | None = None) -> None:
    """Imports of every file that may import a focused package, and of every listed
    file; full facts (names, attribute uses, strings: what a row's tokens are matched
    against) in the same parse, of the files whose rows will look for them
    (``rows.NamesPlan``). ``compare_rows`` reads a file again if that guess fell short.

    ``queries`` (:func:`catalog.likely_matches`): what the catalogs will ask of each
    file (where a snippet is, where a function is); answered here, a file at a time
    with the scan's own parse of it, so that a cold run reads and parses each file
    once, on two cores (``parallel.share``). The Impact Matrix's manifests (``tables``)
    are read ahead in the same share (``matrix.read_ahead``)."""
    modules = res.modules = sorted({m for names in res.import_names.values() for m in names})
    may_import = Prefilter(modules)
    skip = _skip_id(modules)  # a negative pre-filter result holds for these modules only
    cache = res.cache
    sources = iter_sources(cfg.root, cfg.roots, cfg.exclude, files)
    known = set(sources)
    extra = sorted(f for f in listed if f.endswith(".py") and f not in known)
    missing = 0  # tracked by git, deleted in the work tree: listed, not scanned
    outs: list = []  # per file, in order: Facts | Finding | skip id | ("note", text) | None
    rels: list[str] = []
    todo: list[tuple[int, str, os.stat_result]] = []
    for rel in sources + extra:
        try:
            st = os.lstat(os.path.join(cfg.root, rel))
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
                st = file_stat(cfg.root, rel)  # a symlink, FIFO, device, directory named *.py, huge file
        except Skipped as exc:
            rels.append(rel)
            outs.append(("note", f"skipped {rel}: {exc}"))
            continue
        except OSError:
            missing += rel in known
            res.observed.add(rel)  # its absence counts (files scanned)
            continue
        hit, data = cache.get(rel, st)
        out = scan_from_plain(data) if hit else None
        if out is None or (type(out) is str and (out != skip or rel in listed)):
            todo.append((len(outs), rel, st, []))
        rels.append(rel)
        outs.append(out)
    res.files_parsed = len(todo)
    # a file's catalog snippets are matched in the job that scans it; other files get jobs of their own
    plan = names_plan(cfg, res.checklists, res.import_names) if todo else None  # stats every row's files
    if plan is not None and plan.moves:  # a row's file is gone: git's history will be read, after the parsing
        history.prefetch(cfg.root, cache)
    by_rel = {job[1]: job for job in todo}
    for rel, keys in queries.items():
        keys = snippets.unanswered(rel, keys)
        if keys:
            by_rel.setdefault(rel, (-1, rel, None, []))[3].extend(keys)

    def work(job: tuple[int, str, os.stat_result | None, list[str]]):
        if job[0] == _MANIFEST:  # every manifest in one job: one process imports packaging
            read = []
            for rel, _ in job[3]:
                try:
                    read.append([read_ahead(cfg, tables, rel)])
                except (OSError, ValueError, RecursionError, MemoryError):
                    read.append([])  # check_matrix reads it again, and says what is wrong
            return ("declared", read)
        _, rel, st, keys = job
        out, data, tree = _NO_SCAN, None, None
        if st is not None:
            out, data, tree = _scan_one(cfg.root, rel, st, rel in listed, may_import, skip, plan)
        if keys:
            if data is not None:
                snippets.adopt(rel, data, tree)
            for key in keys:
                snippets.ask(rel, key)
        return out

    def to_plain(out) -> dict:  # in the child: the scan's result and the answers it learnt
        return {"scan": _job_to_plain(out), "answers": snippets.take_new()}

    sent: dict[int, dict] = {}  # id of a Facts or Finding the child sent -> its plain data, as the cache keeps it

    def from_plain(data: object):
        if type(data) is not dict or set(data) != {"scan", "answers"}:
            raise ValueError("not a job's result")
        out = _job_from_plain(data["scan"])
        snippets.learn(data["answers"])
        if isinstance(out, (Facts, Finding)):
            sent[id(out)] = data["scan"]
        return out

    def weight(job) -> int:
        """About the job's cost, to start the heaviest first: a full scan parses and walks
        the file, most other files are only read (the pre-filter says no), a catalog
        question is cheap once the file is parsed; a manifest costs an import of packaging."""
        if job[0] == _MANIFEST:
            return 1 << 40
        _, rel, st, keys = job
        cost = 0 if st is None else st.st_size * (200 if rel in listed else 30)
        if keys:
            cost += snippets.size(rel) * (15 * len(keys) + (250 if st is None else 0))
        return cost

    # reading and parsing is most of a cold run: shared with a second process
    jobs = list(by_rel.values())
    if jobs:
        manifests = unread_manifests(cfg, tables, cache)
        if manifests:
            jobs.append((_MANIFEST, "", None, manifests))
    for (i, rel, st, keys), out in zip(jobs, share(jobs, work, to_plain, from_plain, weight=weight)):
        if i == _MANIFEST:
            if type(out) is tuple and out[0] == "declared" and type(out[1]) is list:
                for (rel, st), read in zip(keys, out[1]):
                    if type(read) is list and len(read) == 1:
                        remember(cache, tables, rel, st, read[0])
            continue
        if st is None:
            continue
        outs[i] = out
        if out is not None and type(out) is not tuple:
            plain = sent.get(id(out))
            cache.put(rel, st, plain if plain is not None else scan_to_plain(out))
    for rel, out in zip(rels, outs):
        if isinstance(out, Finding):
            res.findings.append(out)
            res.observed.add(rel)
        elif isinstance(out, Facts):
            res.facts[rel] = out
        elif type(out) is tuple:
            res.notes.append(out[1])
            res.observed.add(rel)
        elif out is None:  # gone since it was listed
            res.observed.add(rel)
    res.files_scanned = len(sources) - missing


_NO_SCAN = ("no scan",)  # a job that only matches snippets
_MANIFEST = -2  # a job's index that says: read the manifests' declarations ahead (its keys: (rel, stat) each)


def _scan_one(root, rel: str, st: os.stat_result, listed: bool, may_import: Prefilter, skip: str, plan: NamesPlan):
    """(scan result, the bytes read, the tree parsed) of one file; the result is Facts, a
    PARSE Finding, ``skip`` (the pre-filter says it cannot import), a note, or None (gone).
    A listed file is read whatever it imports; its names and strings (full facts) are
    collected, from the same parse, when its rows will look for them (``plan``)."""
    try:
        data = read_file(root, rel, st)
    except Skipped as exc:
        return ("note", f"skipped {rel}: {exc}"), None, None
    except OSError:
        return None, None, None
    if not listed and not may_import(data):
        return skip, data, None
    out, tree = scan_tree(rel, data, False)
    if isinstance(out, Facts) and plan.wants_names(rel, out):
        out = full_facts(rel, data, tree)
    return out, data, tree


def _job_to_plain(out) -> dict:
    if out is _NO_SCAN:
        return {"no scan": True}
    if type(out) is tuple and out[0] == "declared":
        return {"declared": out[1]}
    if out is None:
        return {"gone": True}
    if type(out) is tuple:
        return {"note": out[1]}
    return scan_to_plain(out)


def _job_from_plain(data: object):
    if type(data) is dict and data.get("no scan") is True and len(data) == 1:
        return _NO_SCAN
    if type(data) is dict and "declared" in data and len(data) == 1:
        return ("declared", data["declared"])
    if type(data) is dict and data.get("gone") is True and len(data) == 1:
        return None
    if type(data) is dict and type(data.get("note")) is str and len(data) == 1:
        return ("note", data["note"])
    out = scan_from_plain(data)
    if out is None:
        raise ValueError("not a scan result")
    return out


def _skip_id(modules: list[str]) -> str:
    from upgrade_checklists.digest import blake2b

    return blake2b("\0".join(modules).encode(), digest_size=8).hexdigest()
