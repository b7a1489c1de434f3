"""The repository's checklists, parsed: from the scan cache, on the second core, or fresh.

A checklist is kept in the scan cache as plain data, keyed by its file's stat (one whose
frontmatter does not survive JSON is read each time). markdown-it is most of reading a
checklist, so a cold run reads them on two cores (``parallel.share``). The job that reads
a checklist can also ask, on the same core, what its catalog will ask of the code
(``ask``): the answers it learns come back with the checklist.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from upgrade_checklists.core.atomic import clean_stale_temps
from upgrade_checklists.core.checklist import Checklist, load_parsers, read_checklist
from upgrade_checklists.core.config import Config, ConfigError
from upgrade_checklists.core.files import Skipped, file_stat
from upgrade_checklists.core.plain import PlainError, from_plain, to_plain
from upgrade_checklists.project.cache import ScanCache
from upgrade_checklists.project.parallel import share
from upgrade_checklists.project.snippets import Snippets

#: what a checklist's catalog will ask of the code: {file: [question keys]}
Questions = dict[str, list[str]]


def load_checklists(cfg: Config, cache: ScanCache | None = None, notes: list[str] | None = None) -> list[Checklist]:
    """The checklists of ``cfg.checklists`` (``_*.md`` templates left out), in name order."""
    return read_checklists(cfg, cache, notes)[0]


def read_checklists(cfg: Config, cache: ScanCache | None, notes: list[str] | None, snippets: Snippets | None = None,
                    ask: Callable[[Checklist], Questions] | None = None) -> tuple[list[Checklist], dict[str, Questions]]:
    """The checklists, and for those read here (not taken from the cache) what ``ask``
    says their catalogs will ask of the code, by checklist: asked in the job that read
    the checklist, on either core, the answers it learnt kept in ``snippets``.
    A file that cannot be read is a note in ``notes``, and is left out."""
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

    def work(job) -> tuple[Checklist, dict | None, Questions | None]:
        cl = read_checklist(job[1], job[2])
        return cl, _to_plain(cl), ask(cl) if ask is not None else None

    def sent(done) -> dict:  # in the child: the checklist, its questions, and the answers it learnt
        return {"checklist": done[1], "likely": done[2], "answers": snippets.take_new() if snippets is not None else []}

    def received(data: object):
        if type(data) is not dict or set(data) != {"checklist", "likely", "answers"}:
            raise ValueError("not a checklist job's result")
        cl, plain = _from_plain(data["checklist"])
        likely = data["likely"]
        if likely is not None and not (type(likely) is dict and all(
                type(keys) is list and all(type(k) is str for k in keys) for keys in likely.values())):
            raise ValueError("not the questions of a catalog")
        if snippets is not None:
            snippets.learn(data["answers"])
        return cl, plain, likely

    if todo:
        load_parsers()  # imported once, before the child is forked

    likely: dict[str, Questions] = {}
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


def _to_plain(cl: Checklist) -> dict | None:
    """The checklist as plain data, or None when its frontmatter does not survive JSON."""
    try:
        data = to_plain(cl)
        if from_plain(Checklist, data).frontmatter != cl.frontmatter:
            return None
    except PlainError:
        return None
    return data


def _from_plain(data: object) -> tuple[Checklist, dict]:
    """A checklist another process read (:func:`_to_plain`), and that plain data."""
    if type(data) is not dict:
        raise ValueError("read here: its frontmatter does not survive JSON")
    return from_plain(Checklist, data), data
