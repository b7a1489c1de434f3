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
from upgrade_checklists.check.runcache import same_reads

FILE = "cutoff.json"  # in the scan cache's format directory, beside run.json
MAX_CHANGED = 16  # more changed files than this: a full run is as quick and surely right


def save(cfg: Config, st: State, result, outcome: object) -> None:
    """Remember a full run's outcome (as the run record holds it: ``runcache.save``'s plain
    data) and what it observed (``compare.Result``), for the state it ran on. A reuse
    leaves this record as it is: later runs are compared with this run's view."""
    if st.stats:
        write_record(cfg, FILE, {"base": st.base, "files": st.files, "stats": st.stats, "reads": st.reads,
                                 "observed": sorted(result.observed), "asked": sorted(result.asked),
                                 "modules": result.modules, "ceilings": result.ceilings, "outcome": outcome,
                                 "catalogs": result.catalogs, "moved": result.moved})


def reuse(cfg: Config, st: State) -> tuple[Outcome, list[str]] | None:
    """The last full run's outcome when only files that read the same to the check have
    changed since (see the module's text), with the checklists whose catalogs were checked
    again in it (a changed file moved what they found); else None. The caller stores it
    for ``st``."""
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
    if not same_reads(cfg, rec.get("reads")):
        return None  # a file read beyond the listing (ignored, absent, through a link) changed
    st.reads = rec["reads"]
    outcome = stored_outcome(cfg, rec)
    rechecked = _read_the_same(cfg, rec, changed, outcome) if outcome is not None else None
    return None if rechecked is None else (outcome, rechecked)


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


def _read_the_same(cfg: Config, rec: dict, changed: dict[str, str], outcome: Outcome) -> list[str] | None:
    """None unless the changed files read the same to the check but for the places a
    catalog found in them (a line added above a catalogued call moves it): then the
    catalogs that asked about such a file are checked again in ``outcome`` (``_Catalogs``),
    and their checklists returned."""
    from upgrade_checklists.core.files import Skipped, file_stat, read_file
    from upgrade_checklists.project.scan import Prefilter, iter_sources

    observed, asked, ceilings = set(rec["observed"]), set(rec["asked"]), rec["ceilings"]
    sources = set(iter_sources(cfg.root, cfg.roots, cfg.exclude, list(changed)))
    may_import = Prefilter(rec["modules"])
    read: dict[str, bytes] = {}  # the observed sources that changed, as they are now
    for rel in changed:
        if rel not in sources and rel not in observed:
            continue  # neither scanned nor read: its content is not the check's
        if rel not in sources:
            return None  # a row's text file, a listed file outside the roots: read as text
        try:
            data = read_file(cfg.root, rel, file_stat(cfg.root, rel))
        except (Skipped, OSError):
            return None
        if may_import(data) != (rel in observed):
            return None  # an importer no more, or a file that may import a focused package now
        if rel in observed:
            read[rel] = data
    if not read:
        return []
    catalogs = _Catalogs.of(cfg, rec, outcome, list(read), [rel for rel in read if rel in asked])
    if catalogs is None:
        return None
    shifted: list[str] = []
    for rel, data in read.items():
        stamp = _stamp(changed[rel])
        if stamp is None:
            return None
        tree = _scan_the_same(rel, data, catalogs.stored, stamp)
        if tree is False:
            return None
        if rel in asked and not _Answers(catalogs.snippets, rel, data, tree, catalogs.stored, stamp,
                                         ceilings.get(rel, 0)).same():
            shifted.append(rel)
    return catalogs.again(shifted)


class _Catalogs:
    """The catalogs that asked about some files, checked again alone: what the full run
    would find, as nothing else it computes depends on a catalog's answers (the rows and
    tiers come from the scan, which must read the same). The scan cache is read once,
    for the entries of the changed files, of those checklists and of the files they ask
    about: the other files' answers come from it, the changed files' from their new text."""

    def __init__(self, cfg: Config, outcome: Outcome, spans: list[tuple[int, int, str]], asked: dict[str, list[str]],
                 renamed: dict, stored: dict, snippets) -> None:
        self.cfg, self.outcome, self.spans, self.asked, self.renamed = cfg, outcome, spans, asked, renamed
        self.stored, self.snippets = stored, snippets

    @classmethod
    def of(cls, cfg: Config, rec: dict, outcome: Outcome, read: list[str], maybe: list[str]) -> "_Catalogs | None":
        """For the catalogs that asked about a file in ``maybe``, with the stored entries of
        the files in ``read``; None when the record cannot say which catalogs those are, or
        where their findings are in ``outcome``."""
        from upgrade_checklists.project.cache import ScanCache, cache_directory, peek
        from upgrade_checklists.project.snippets import Snippets

        catalogs, renamed = rec.get("catalogs"), rec.get("moved")
        if type(catalogs) is not dict or type(renamed) is not dict or not all(type(v) is str for v in renamed.values()):
            return None
        spans: list[tuple[int, int, str]] = []
        asked: dict[str, list[str]] = {}
        for rel, cat in catalogs.items():
            span = cat.get("span") if type(cat) is dict else None
            if (type(span) is not list or len(span) != 2 or not all(type(n) is int for n in span)
                    or not 0 <= span[0] <= span[1] <= len(outcome.findings) or not _strings(cat.get("asked"))):
                return None
            if not set(maybe).isdisjoint(cat["asked"]):
                spans.append((span[0], span[1], rel))
                asked[rel] = cat["asked"]
        spans.sort()
        if any(a[1] > b[0] for a, b in zip(spans, spans[1:])):
            return None
        cache = ScanCache(None, "")  # the changed files' entries now; the catalogs' when one is checked again
        cache.entries = peek(cache_directory(cfg), str(cfg.root.resolve()), _changed_keys(read))
        return cls(cfg, outcome, spans, asked, renamed, dict(cache.entries), Snippets(cfg.root, cache))

    def again(self, shifted: list[str]) -> list[str] | None:
        """Check again the catalogs that asked about a file in ``shifted`` (where a
        catalog's answers differ), their findings replaced in the outcome; their
        checklists, or None when one cannot be read as the full run read it."""
        again = [(start, end, rel) for start, end, rel in self.spans if not set(shifted).isdisjoint(self.asked[rel])]
        if not again:
            return []  # nothing moved: the catalogs' module is not even imported
        from upgrade_checklists.check.catalog import check_catalog
        from upgrade_checklists.core.checklist import Checklist
        from upgrade_checklists.core.files import Skipped, file_stat
        from upgrade_checklists.core.plain import PlainError, from_plain
        from upgrade_checklists.project.result import Result

        from upgrade_checklists.project.cache import cache_directory, peek

        cache = self.snippets.cache
        known = set(cache.entries)
        wanted = [*("checklist:" + rel for _, _, rel in again),
                  *sorted({"snippets:" + f for _, _, rel in again for f in self.asked[rel]} - known), "git-history"]
        cache.entries.update(peek(cache_directory(self.cfg), str(self.cfg.root.resolve()), wanted))
        done: list[str] = []
        for start, end, rel in reversed(again):  # from the last: the earlier spans stay where they are
            try:
                hit, data = cache.get("checklist:" + rel, file_stat(self.cfg.root, rel))
                cl = from_plain(Checklist, data) if hit else None
            except (Skipped, OSError, PlainError):
                return None
            if cl is None or cl.rel != rel:
                return None
            cl.path = self.cfg.root / rel
            view = Result()
            check_catalog(view, cl, self.snippets, self.cfg.strict_lines, self.renamed, self.cfg.strict_rows)
            self.outcome.findings[start:end] = view.findings
            done.append(rel)
        return sorted(done)


def _changed_keys(rels: list[str]) -> list[str]:
    return [k for rel in rels for k in (rel, "snippets:" + rel)]


_ABSENT = object()


def _stored(entries: dict, key: str, stamp: list[int]):
    """The value stored under ``key`` for the file as the full run saw it (its stat
    ``stamp``): what that run used. ``_ABSENT`` when there is none."""
    entry = entries.get(key)
    return entry[4] if type(entry) is list and len(entry) == 5 and entry[:4] == stamp else _ABSENT


def _scan_the_same(rel: str, data: bytes, entries: dict, stamp: list[int]):
    """The syntax tree of the new content (None if it does not parse) when the scan's
    result for it equals the one the run used (imports only, or full facts when the run
    had them), else False."""
    from upgrade_checklists.project.scan import Facts, full_facts, scan_to_plain, scan_tree

    old = _stored(entries, rel, stamp)
    if type(old) is not dict or "facts" not in old and "finding" not in old:
        return False  # a pre-filter answer of an observed file, or nothing stored: not worth the doubt
    out, tree = scan_tree(rel, data, False)
    if isinstance(out, Facts) and type(old.get("facts")) is dict and old["facts"].get("full") is True:
        out = full_facts(rel, data, tree)
    return tree if _as_read(scan_to_plain(out)) == _as_read(old) else False


def _as_read(plain: dict) -> dict:
    """A scan result as the check reads it: the attribute uses by name, in order, without
    the line of each one's first use (the audit's and ``new``'s, never a finding's: a line
    added above a use moves it)."""
    facts = plain.get("facts")
    if type(facts) is dict and type(facts.get("attributes")) is dict:
        plain = {**plain, "facts": {**facts, "attributes": list(facts["attributes"])}}
    return plain


class _Answers:
    """The answers the run had about a file (snippet places, function spans, verbatim
    places, line count), compared with the same questions asked of its new content. The
    line count counts only for the catalogs' comparisons: two counts at or past
    ``ceiling``, the highest line number compared with it, read the same (it is said
    nowhere else). The new answers stay in ``snippets``, for a catalog checked again."""

    def __init__(self, snippets, rel: str, data: bytes, tree, entries: dict, stamp: list[int], ceiling: int) -> None:
        old = _stored(entries, "snippets:" + rel, stamp)
        ok = type(old) is list and all(type(kv) is list and len(kv) == 2 and type(kv[0]) is str for kv in old)
        self.old: list | None = old if ok else None
        self.rel, self.ceiling, self.fresh = rel, ceiling, snippets
        self.src = snippets._source(rel)  # its stored answers are not the new content's: none taken
        if self.src is None or self.src.st.st_size != len(data) or self.src.answers:
            self.old = None
        else:
            snippets.adopt(rel, data, tree)  # the scan's parse, not a second one

    def same(self) -> bool:
        """Whether every answer is the same: those that need no parse (line count,
        verbatim places: most edits move one) first."""
        if self.old is None:
            return False
        fresh, rel = self.fresh, self.rel
        for parsed in (False, True):
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
