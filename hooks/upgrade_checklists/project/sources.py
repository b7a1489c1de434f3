"""The facts of every source file that may import a focused package, and of every file a
row lists: from the scan cache, on the second core, or from a fresh parse.

Each file is read and parsed once: the job that scans a file also answers, from the same
parse, what the catalogs will ask of it (where a snippet is, where a function is), and
collects its names and strings when its rows will look for them. A cold run shares the
jobs with a forked child (``parallel.share``); what the child scanned comes back as the
plain data the cache keeps. A job's result is plain data too: Facts, a PARSE finding, the
pre-filter's "cannot import" (a digest of the modules it was asked about), a note, or
"gone".
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import Callable, Protocol

from upgrade_checklists.core.config import Config
from upgrade_checklists.core.files import MAX_BYTES, Skipped, file_stat, read_file
from upgrade_checklists.core.findings import Finding
from upgrade_checklists.project.parallel import share
from upgrade_checklists.project.result import Result
from upgrade_checklists.project.scan import Facts, Prefilter, full_facts, iter_sources, scan_from_plain, scan_to_plain, scan_tree
from upgrade_checklists.project.snippets import Snippets


class NamesPlan(Protocol):
    """Which files' names and strings (full facts) the check's rows will look for."""

    def wants_names(self, rel: str, facts: Facts) -> bool: ...


@dataclass
class SideJob:
    """Work that rides the scan's share of the cores, as one job: ``keys()`` (asked once
    there is scanning to do) is the work; ``work(key)`` runs on either core and returns
    plain data (or raises OSError / ValueError: that key is left to its owner, who reads
    it again and says what is wrong); ``done(key, data)`` takes each result here."""

    keys: Callable[[], list]
    work: Callable[[object], object]
    done: Callable[[object, object], None]

    def run(self, keys: list) -> list:
        out = []
        for key in keys:
            try:
                out.append([self.work(key)])
            except (OSError, ValueError, RecursionError, MemoryError):
                out.append([])
        return out

    def receive(self, keys: list, results: object) -> None:
        if type(results) is list:
            for key, got in zip(keys, results):
                if type(got) is list and len(got) == 1:
                    self.done(key, got[0])


def scan_sources(cfg: Config, res: Result, listed: set[str], files: list[str] | None, snippets: Snippets,
                 queries: dict[str, list[str]], plan: Callable[[], NamesPlan], side: SideJob | None = None) -> None:
    """Imports of every file that may import a focused package, and of every listed
    file; full facts (names, attribute uses, strings: what a row's tokens are matched
    against) in the same parse, of the files whose rows will look for them
    (``plan``, made only when a file is to be parsed). The check reads a file again if
    that guess fell short.

    ``queries`` (:func:`catalog.likely_matches`): what the catalogs will ask of each
    file (where a snippet is, where a function is); answered here, a file at a time
    with the scan's own parse of it, so that a cold run reads and parses each file
    once, on two cores (``parallel.share``). ``side``: other work that rides the same
    share (the check reads the Impact Matrix's manifests ahead so)."""
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
    names = plan() if todo else None  # stats every row's files
    by_rel = {job[1]: job for job in todo}
    for rel, keys in queries.items():
        keys = snippets.unanswered(rel, keys)
        if keys:
            by_rel.setdefault(rel, (-1, rel, None, []))[3].extend(keys)

    def work(job: tuple[int, str, os.stat_result | None, list[str]]):
        if job[0] == _SIDE:  # the side job's keys in one job
            return ("side", side.run(job[3]))
        _, rel, st, keys = job
        out, data, tree = _NO_SCAN, None, None
        if st is not None:
            out, data, tree = _scan_one(cfg.root, rel, st, rel in listed, may_import, skip, names)
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
        question is cheap once the file is parsed; the side job goes first."""
        if job[0] == _SIDE:
            return 1 << 40
        _, rel, st, keys = job
        cost = 0 if st is None else st.st_size * (200 if rel in listed else 30)
        if keys:
            cost += snippets.size(rel) * (15 * len(keys) + (250 if st is None else 0))
        return cost

    # reading and parsing is most of a cold run: shared with a second process
    jobs = list(by_rel.values())
    if jobs and side is not None:
        side_keys = side.keys()
        if side_keys:
            jobs.append((_SIDE, "", None, side_keys))
    for (i, rel, st, keys), out in zip(jobs, share(jobs, work, to_plain, from_plain, weight=weight)):
        if i == _SIDE:
            if type(out) is tuple and out[0] == "side":
                side.receive(keys, out[1])
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
_SIDE = -2  # a job's index that says: the side job (its keys: the side job's)


def _scan_one(root, rel: str, st: os.stat_result, listed: bool, may_import: Prefilter, skip: str, plan: NamesPlan | None):
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
    if type(out) is tuple and out[0] == "side":
        return {"side": out[1]}
    if out is None:
        return {"gone": True}
    if type(out) is tuple:
        return {"note": out[1]}
    return scan_to_plain(out)


def _job_from_plain(data: object):
    if type(data) is dict and data.get("no scan") is True and len(data) == 1:
        return _NO_SCAN
    if type(data) is dict and "side" in data and len(data) == 1:
        return ("side", data["side"])
    if type(data) is dict and data.get("gone") is True and len(data) == 1:
        return None
    if type(data) is dict and type(data.get("note")) is str and len(data) == 1:
        return ("note", data["note"])
    out = scan_from_plain(data)
    if out is None:
        raise ValueError("not a scan result")
    return out


def _skip_id(modules: list[str]) -> str:
    from upgrade_checklists.core.digest import blake2b

    return blake2b("\0".join(modules).encode(), digest_size=8).hexdigest()
