"""The last run's outcome, reused when the files that changed since read the same to the check.

``runcache.py`` reuses an outcome while no file changed at all. Most commits do change
a file or two, and most of those files mean nothing to the check: they import no focused
package and no checklist names them, or an edit left everything the check takes from
them as it was. A full run leaves, beside the run record, what tells which
(``cutoff.json``): its outcome, every listed file's stat as that run saw it, the files
whose content the outcome depends on (``Result.observed``: scanned for facts, named by
a row, asked about by a catalog or a guard, skipped with a note, absent, and the files
read by name), the modules the pre-filter looks for and the line-count ceilings. When the work tree differs from
that run's only in the content of at most :data:`MAX_CHANGED` listed files:

- a file the check neither scans nor observes: its content is not the check's;
- a source file the scan did not observe (the pre-filter said it cannot import a focused
  package): the pre-filter must still say so;
- an observed source file: the pre-filter must still pass it, and its scan result
  (imports, and names and strings where the run had them) and every answer the catalogs
  had of it (where each snippet and function is, verbatim places, its line count) are
  computed again from its new content and must equal those the run used, which the scan
  cache holds under the stat the run saw. The line count is the catalogs' only for its
  comparisons with the line numbers they give (``Snippets.ceilings``): two counts at or
  past the highest of them read the same.

If all hold, the outcome is the one the run computed, as an early cut-off in a build
system keeps what an unchanged intermediate feeds. Anything else means a full run: a
file added, removed or renamed; a configuration, checklist, status file, guide or
manifest changed (the state's ``base``); an observed file that is not a source; a cached
answer missing; a file unreadable; git's refs moved when the outcome looked at history.
A reuse leaves the record as it is, so each later run is compared with the full run's
view. The record is plain JSON written atomically, with the scan cache's header (format,
tool build, machine, repository root); one that does not match is ignored.
"""

from __future__ import annotations

import json

from upgrade_checklists.core.config import Config
from upgrade_checklists.check.runcache import Outcome, State, read_record, stored_outcome, write_record

FILE = "cutoff.json"  # in the scan cache's format directory, beside run.json
MAX_CHANGED = 16  # more changed files than this: a full run is as quick and surely right


def save(cfg: Config, st: State, result, outcome: object) -> None:
    """Remember a full run's outcome (as the run record holds it: ``runcache.save``'s plain
    data) and what it observed (``compare.Result``), for the state it ran on. A reuse
    leaves this record as it is: later runs are compared with this run's view."""
    if st.stats:
        write_record(cfg, FILE, {"base": st.base, "files": st.files, "stats": st.stats,
                                 "observed": sorted(result.observed), "asked": sorted(result.asked),
                                 "modules": result.modules, "ceilings": result.ceilings, "outcome": outcome})


def reuse(cfg: Config, st: State) -> Outcome | None:
    """The last full run's outcome when only files that read the same to the check have
    changed since (see the module's text), else None. The caller stores it for ``st``."""
    rec = read_record(cfg, FILE) if st.stats else None
    if (rec is None or rec.get("base") != st.base or rec.get("files") != st.files
            or not all(_strings(rec.get(k)) for k in ("stats", "observed", "asked", "modules"))
            or len(rec["stats"]) != len(st.stats) or type(rec.get("ceilings")) is not dict
            or not all(type(n) is int for n in rec["ceilings"].values())):
        return None
    # compared with the full run's own view (a reuse does not move it): what changed since that run
    changed = {rel: then for rel, then, now in zip(st.files, rec["stats"], st.stats) if then != now}
    if not changed or len(changed) > MAX_CHANGED:
        return None
    outcome = stored_outcome(cfg, rec)
    if outcome is None or not _read_the_same(cfg, changed, set(rec["observed"]), set(rec["asked"]), rec["modules"],
                                             rec["ceilings"]):
        return None
    return outcome


def _strings(v: object) -> bool:
    return type(v) is list and all(type(x) is str for x in v)


def _stamp(line: object) -> list[int] | None:
    """The cache stamp (size, mtime, ctime, inode) of a file's keyed stat line
    (``cache.hash_stats``), None for an absent file."""
    parts = line.split("\0") if type(line) is str else []
    try:
        return [int(p) for p in parts[2:6]] if len(parts) == 6 else None
    except ValueError:
        return None


def _read_the_same(cfg: Config, changed: dict[str, str], observed: set[str], asked: set[str], modules: list[str],
                   ceilings: dict[str, int]) -> bool:
    from upgrade_checklists.project.cache import peek
    from upgrade_checklists.core.files import Skipped, file_stat, read_file
    from upgrade_checklists.project.scan import Prefilter, iter_sources

    sources = set(iter_sources(cfg.root, cfg.roots, cfg.exclude, list(changed)))
    may_import = Prefilter(modules)
    read: dict[str, bytes] = {}  # the observed sources that changed, as they are now
    for rel in changed:
        if rel not in sources and rel not in observed:
            continue  # neither scanned nor read: its content is not the check's
        if rel not in sources:
            return False  # a row's text file, a listed file outside the roots: read as text
        try:
            data = read_file(cfg.root, rel, file_stat(cfg.root, rel))
        except (Skipped, OSError):
            return False
        if may_import(data) != (rel in observed):
            return False  # an importer no more, or a file that may import a focused package now
        if rel in observed:
            read[rel] = data
    if not read:
        return True
    # the scan cache read once, for the entries of these files only
    stored = peek(cfg.root / cfg.cache_dir, str(cfg.root.resolve()), [k for rel in read for k in (rel, "snippets:" + rel)])
    for rel, data in read.items():
        stamp = _stamp(changed[rel])
        if stamp is None:
            return False
        answers = _Answers(cfg, rel, data, stored, stamp, ceilings.get(rel, 0)) if rel in asked else None
        # what needs no parse first (line count, verbatim places: most edits move one), then the scan
        if answers is not None and not answers.same(parsed=False):
            return False
        if not _scan_the_same(rel, data, stored, stamp):
            return False
        if answers is not None and not answers.same(parsed=True):
            return False
    return True

_ABSENT = object()


def _stored(entries: dict, key: str, stamp: list[int]):
    """The value stored under ``key`` for the file as the full run saw it (its stat
    ``stamp``): what that run used. ``_ABSENT`` when there is none."""
    entry = entries.get(key)
    return entry[4] if type(entry) is list and len(entry) == 5 and entry[:4] == stamp else _ABSENT


def _scan_the_same(rel: str, data: bytes, entries: dict, stamp: list[int]) -> bool:
    """The scan's result for the new content equals the one the run used (imports only,
    or full facts when the run had them)."""
    from upgrade_checklists.project.scan import Facts, full_facts, scan_to_plain, scan_tree

    old = _stored(entries, rel, stamp)
    if type(old) is not dict or "facts" not in old and "finding" not in old:
        return False  # a pre-filter answer of an observed file, or nothing stored: not worth the doubt
    out, tree = scan_tree(rel, data, False)
    if isinstance(out, Facts) and type(old.get("facts")) is dict and old["facts"].get("full") is True:
        out = full_facts(rel, data, tree)
    return scan_to_plain(out) == old


class _Answers:
    """The answers the run had about a file (snippet places, function spans, verbatim
    places, line count), compared with the same questions asked of its new content. The
    line count counts only for the catalogs' comparisons: two counts at or past
    ``ceiling``, the highest line number compared with it, read the same (it is said
    nowhere else)."""

    def __init__(self, cfg: Config, rel: str, data: bytes, entries: dict, stamp: list[int], ceiling: int) -> None:
        from upgrade_checklists.project.cache import ScanCache
        from upgrade_checklists.project.snippets import Snippets

        old = _stored(entries, "snippets:" + rel, stamp)
        ok = type(old) is list and all(type(kv) is list and len(kv) == 2 and type(kv[0]) is str for kv in old)
        self.old: list | None = old if ok else None
        self.rel, self.ceiling = rel, ceiling
        self.fresh = Snippets(cfg.root, ScanCache(None, ""))  # no cache: every answer computed from ``data``
        self.src = self.fresh._source(rel)
        if self.src is None or self.src.st.st_size != len(data):
            self.old = None
        else:
            self.src.text = data.decode("utf-8", errors="replace")

    def same(self, parsed: bool) -> bool:
        """Whether the answers that need a parse (``parsed``: where a snippet or function
        is) or those that do not (line count, verbatim places) are all the same."""
        if self.old is None:
            return False
        fresh, rel = self.fresh, self.rel
        for key, value in self.old:
            if key.startswith(("#", "v:")) == parsed:
                continue
            if key == "#lines":
                new = fresh.line_count(rel)
                if type(new) is int and type(value) is int and min(new, value) >= self.ceiling:
                    continue
            elif key.startswith("v:"):
                new = fresh.verbatim(rel, key[2:])
            elif key.startswith(("m:", "d:")):
                fresh.ask(rel, key)
                new = self.src.answers.get(key)
            else:
                return False
            if json.loads(json.dumps(new)) != value:  # as stored: tuples are lists
                return False
        return True
