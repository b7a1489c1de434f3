"""The structure check, as a pipeline: read -> scan -> compare -> result.

Input: the configuration. Output: a :class:`Result` holding plain findings.
Nothing here prints or exits; ``output/report.py`` formats, ``cli.py`` decides.
Each stage keeps its own cache and shares its work with a second core itself
(``project/checklists.py`` reads the checklists, ``project/sources.py`` scans the code);
each comparison lives in its own module: ``rows.py`` (Affected Files), ``catalog.py``
(API Usage Catalog, version guards), ``status.py`` (status file), ``matrix.py`` (Package
Impact Matrix).
"""

from __future__ import annotations

import gc
import os

from upgrade_checklists.check.catalog import check_catalog, likely_matches, questions, renamed_references
from upgrade_checklists.check.matrix import check_matrix, read_ahead_job
from upgrade_checklists.check.rows import compare_rows, forget_listing, listed_paths, names_plan
from upgrade_checklists.check.status import check_status
from upgrade_checklists.core import files as _files
from upgrade_checklists.core import gitfiles
from upgrade_checklists.core.config import Config, ConfigError
from upgrade_checklists.core.files import Skipped
from upgrade_checklists.project import history, status_tables
from upgrade_checklists.project.cache import ScanCache, cache_directory
from upgrade_checklists.project.checklists import load_checklists, read_checklists
from upgrade_checklists.project.import_names import read_guide_mapping, resolve_import_names
from upgrade_checklists.project.result import Result
from upgrade_checklists.project.snippets import Snippets
from upgrade_checklists.project.sources import scan_sources
from upgrade_checklists.project.tiers import TierRules

__all__ = ["Result", "load_checklists", "read_project", "run_check"]


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
    """read -> scan -> compare -> result."""
    res = Result(root=cfg.root)
    forget_listing(cfg.root, files)
    history.forget()
    _files.forget()
    gitfiles.forget_renames()
    res.cache = ScanCache(cache_directory(cfg) if use_cache else None, str(cfg.root.resolve()))
    snippets = res.snippets = Snippets(cfg.root, res.cache)
    likely = _read(cfg, res, snippets if compare else None)
    listed = listed_paths(cfg, res.checklists)
    _scan(cfg, res, listed, files, snippets, likely if compare else None)
    if compare:
        _compare(cfg, res, listed, snippets, uncatalogued)
    return _done(res)


def _read(cfg: Config, res: Result, snippets: Snippets | None) -> dict[str, dict[str, list[str]]]:
    """The checklists, their import names, the status tables and the tiers, into ``res``;
    with ``snippets``, what the catalogs of the checklists read afresh will ask of the
    code (asked as each is read)."""
    ask = (lambda cl: likely_matches([cl], snippets)) if snippets is not None else None
    checklists, likely = read_checklists(cfg, res.cache, res.notes, snippets, ask)
    res.checklists = checklists
    if not checklists:
        res.warnings.append(f"{cfg.checklists}/ holds no checklist yet: write one with `upgrade-checklists new PACKAGE`")
    guide = read_guide_mapping(cfg)
    if cfg.status_file:
        setting_file(cfg, "status_file", cfg.status_file)
    tables = res.status_tables = status_tables.load(cfg.root, cfg.status_file, res.cache) if cfg.status_file else None
    for cl in checklists:
        names, how = resolve_import_names(cl, cfg, guide, tables.focused if tables else None)
        res.import_names[cl.rel] = names
        res.notes.append(f"{cl.rel}: import names {', '.join(names)} ({how})")
        res.findings.extend(cl.problems)
    tiers = res.tiers = TierRules.build(cfg, checklists)
    if tiers.inferred:
        shown = ", ".join(f"{p} -> {t}" for p, t in tiers.rules) or "none"
        res.notes.append(f"tiers inferred from the checklists (no [tool.upgrade-checklists.tiers]): {shown}")
    for cl in checklists:
        for title, line in cl.subsections.items():
            res.notes.append(f"{cl.rel}:{line}: '{title}' under Affected Files is not a tier: its rows are listed, never STALE nor TIER;"
                             " version guards on its paths outside the repository are not checked")
    return likely


def _scan(cfg: Config, res: Result, listed: set[str], files: list[str] | None, snippets: Snippets,
          likely: dict[str, dict[str, list[str]]] | None) -> None:
    """Every file's facts, into ``res``; with ``likely`` (a comparing run), the catalogs'
    questions answered from the same parse and the Impact Matrix's manifests read ahead."""

    def plan():
        rows = names_plan(cfg, res.checklists, res.import_names)  # stats every row's files
        if rows.moves:  # a row's file is gone: git's history will be read, after the parsing
            history.prefetch(cfg.root, res.cache)
        return rows

    comparing = likely is not None
    scan_sources(cfg, res, listed, files, snippets, questions(res.checklists, likely, snippets) if comparing else {}, plan,
                 read_ahead_job(cfg, res.status_tables, res.cache) if comparing else None)
    for cl in res.checklists:
        names = res.import_names[cl.rel]
        if not any(res.facts[p].imports_of(names) for p in res.importers(names)):
            res.warnings.append(f"{cl.rel}: no file in {', '.join(cfg.roots)} imports {', '.join(names)} "
                                "(a package the code no longer uses, or configure 'roots' / 'import-names')")


def _compare(cfg: Config, res: Result, listed: set[str], snippets: Snippets, uncatalogued: bool) -> None:
    """The checklists against the facts: rows, catalogs, the status file, the matrix."""
    checklists, tables = res.checklists, res.status_tables
    per_rows = []
    for cl in checklists:
        mark = len(res.findings)
        compare_rows(cfg, res, cl, res.tiers)
        per_rows.append(res.findings[mark:])
        del res.findings[mark:]
    moved = res.moved = renamed_references(cfg.root, checklists, snippets, res.cache)
    for cl, rows in zip(checklists, per_rows):
        view = Result()  # check_catalog adds findings only
        snippets.touched = set()
        check_catalog(view, cl, snippets, cfg.strict_lines, moved, cfg.strict_rows)
        res.findings += rows
        res.catalogs[cl.rel] = {"span": [len(res.findings), len(res.findings) + len(view.findings)],
                                "asked": sorted(snippets.touched)}
        res.findings += view.findings
    snippets.touched = None
    snippets.save()
    res.asked, res.ceilings = set(snippets.files), dict(snippets.ceilings)
    res.observed |= set(res.facts) | listed | res.asked
    if uncatalogued:
        from upgrade_checklists.check import uncatalogued as uncat

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


def setting_file(cfg: Config, key: str, rel: str) -> os.stat_result | None:
    """A file a setting names, checked before it is read (None: absent): inside the
    repository, a regular file, not too large; else a configuration error (exit 2)."""
    try:
        return _files.setting_stat(cfg.root, rel)
    except _files.Outside as exc:
        raise ConfigError(f"{key} {exc}") from None
    except Skipped as exc:
        raise ConfigError(f"{key} {rel!r}: {exc}") from None


def _done(res: Result) -> Result:
    res.cache.save()
    res.cache.release()  # the entries of every file: not needed past the save
    res.notes = list(dict.fromkeys(res.notes))  # a file skipped by two steps: one note
    return res


