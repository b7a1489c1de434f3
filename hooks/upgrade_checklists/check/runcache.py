"""The last run's outcome, reused while nothing the check reads has changed.

A warm run that finds every file as it was does not need to parse a checklist or
compare anything: it answers from ``v3/run.json`` in the cache directory. The state
is keyed like the scan cache (``cache.py``), file by file as git's index keys them
(path, size, mtime, ctime, inode), over everything the check can read:

- every file git lists in the work tree (tracked, or untracked and not ignored:
  ``git ls-files --cached --others --exclude-standard``), whatever its type: checklists,
  sources, manifests, the status file, the files a row or a snippet names;
- the checklists, the configuration file, the status file, the maintenance guide and
  the manifests in the root by name, in case git ignores them or they live outside the
  repository;
- the configuration itself, the tool build (and the Python that parses), and the options
  that change the outcome;
- when the run looked at git history (a "never existed" path), a digest of the refs;
- every other path the run read or looked for (``files.journal``, ``Result.observed``):
  a file a row, a catalog reference or a setting names that git does not list (ignored,
  absent: an absent path is recorded as absent), or that git lists as a symlink; its
  stat (the target's) is stored in the record and compared on reuse, as is what each
  glob expanded on the file system matched.

Outside a git work tree, or when git cannot answer, nothing is reused. A state with
a file changed in the last two seconds is not stored (git's "racily clean" rule), and
the record's own shape is checked on reading: anything unexpected is a miss. The record
is plain JSON; like the scan cache, one written on another machine or for another
checkout never matches (inode and ctime are in the key).
"""

from __future__ import annotations

import fnmatch
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from upgrade_checklists.core import gitfiles
from upgrade_checklists.core.atomic import write_atomic
from upgrade_checklists.core.config import Config
from upgrade_checklists.core.digest import blake2b
from upgrade_checklists.core.findings import Finding
from upgrade_checklists.project.cache import hash_stats

FILE = "run.json"  # in the scan cache's format directory
MAX_BYTES = 64 * 1024 * 1024


@dataclass
class Outcome:
    """What ``check`` reports, without the parsed checklists and facts behind it."""

    findings: list[Finding]
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    files_scanned: int = 0
    parsed: int = 0
    checklists: list[str] = field(default_factory=list)  # repository-relative paths
    inline: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # checklist -> line -> codes (suppress.py)
    inline_warnings: list[str] = field(default_factory=list)
    refs: str | None = None  # digest of git's refs, when the outcome depends on history
    cache_hits: int = 0


@dataclass
class State:
    key: str
    racy: bool  # a file changed too recently to be keyed safely
    files: list[str] = field(default_factory=list)  # what git listed (the run reuses it)
    #: each listed file's stat as keyed (in ``files`` order), and the key of all the rest
    #: (configuration, build, options, the files read by name): what
    #: ``cutoff.py`` compares to find the files that changed
    stats: list[str] = field(default_factory=list)
    base: str = ""
    #: the stat lines of the paths the run read beyond the listing (:func:`reads_of`), set
    #: once a run (or a reuse) has told them; None: not known (nothing is stored)
    reads: list[str] | None = None


def state(cfg: Config, options: str) -> State | None:
    """The key of everything the check reads, or None where it cannot be known (no git)."""
    files = gitfiles.project_files(cfg.root, ["."])
    if files is None:
        return None
    from upgrade_checklists.project.cache import build_id, racy_since  # build_id: the hash of our own source files

    root = str(cfg.root)
    h = blake2b(digest_size=20)
    h.update(f"{build_id()}\0{options}\0{root}\0{_config_text(cfg)}\0".encode("utf-8", "surrogateescape"))
    extra = []
    if cfg.source is not None:
        extra.append(str(cfg.source))
    if cfg.status_file:
        extra.append(cfg.status_file)
    if cfg.maintenance_guide:
        extra.append(cfg.maintenance_guide)
    try:  # the manifests in the root (the Impact Matrix reads them), even when git ignores them
        extra += sorted(n for n in os.listdir(root) if any(fnmatch.fnmatchcase(n, p) for p in cfg.manifests))
    except OSError:
        pass
    try:
        extra += [f"{cfg.checklists}/{n}" for n in sorted(os.listdir(cfg.checklist_dir)) if n.endswith(".md")]
    except OSError:
        extra.append(cfg.checklists)
    base = h.copy()  # the files read by name (all of them, listed or not): no cut-off past them
    newest = hash_stats(base, root, extra)
    h.update(base.digest())
    stats: list[str] = []
    newest = max(newest, hash_stats(h, root, files, keep=stats))
    return State(h.hexdigest(), racy_since(newest), files, stats, base.hexdigest())


_GLOB = "\x01glob"  # a read line that holds a glob and its matches, not a path and its stat


def reads_of(cfg: Config, st: State, result, journal: list[str], globs: dict[str, list[str]]) -> bool:
    """Set ``st.reads``: the stat lines (the target's, an absent path as absent) of every
    path the run read or looked for that the state does not key already, git listing
    neither it nor a link there, and a line per glob expanded on the file system with its
    matches. False when one of them changed in the last two seconds (nothing is stored)."""
    listed = set(st.files)
    links = {f for f, line in zip(st.files, st.stats) if _mode_is(line, stat.S_ISLNK)}
    paths = dict.fromkeys(journal)
    if result is not None:
        paths.update(dict.fromkeys(result.observed | result.asked))
    rels = sorted(p for p in paths if p and (p not in listed or p in links))
    lines: list[str] = []
    newest = hash_stats(blake2b(digest_size=8), cfg.root, rels, follow=True, keep=lines)
    lines = [_steady(x) for x in lines] + [_glob_line(p, found) for p, found in sorted(globs.items())]
    st.reads = lines
    from upgrade_checklists.project.cache import racy_since

    return not racy_since(newest)


def _mode_is(line: str, test) -> bool:
    parts = line.split("\0")
    try:
        return len(parts) > 2 and test(int(parts[1]))
    except ValueError:
        return False


def _steady(line: str) -> str:
    """A folder's stat line as its presence alone: a folder row (``tests/``) is read through
    the files git lists in it, which the key holds; the folder's own times change with every
    editor's swap file or ``__pycache__`` in it, and must not make a warm run miss."""
    return line.split("\0", 1)[0] + "\0dir\n" if _mode_is(line, stat.S_ISDIR) else line


def _glob_line(pattern: str, found: list[str]) -> str:
    return "\0".join([_GLOB, pattern, *found]) + "\n"


def same_reads(cfg: Config, lines: object) -> bool:
    """Whether every path a stored run read stats as it did then (:func:`reads_of`)."""
    if type(lines) is not list or not all(type(x) is str for x in lines):
        return False
    from upgrade_checklists.core.files import glob_files

    rels = []
    for line in lines:
        parts = line[:-1].split("\0")
        if parts[0] == _GLOB:
            if len(parts) < 2 or _glob_line(parts[1], glob_files(cfg.root, parts[1])) != line:
                return False
        else:
            rels.append(parts[0])
    now: list[str] = []
    hash_stats(blake2b(digest_size=8), cfg.root, rels, follow=True, keep=now)
    return [_steady(x) for x in now] == [x for x in lines if not x.startswith(_GLOB)]


def _config_text(cfg: Config) -> str:
    return repr({k: v for k, v in vars(cfg).items() if k != "warnings"})


def _where(cfg: Config, name: str) -> tuple[Path, dict] | None:
    """A record's file and the header it must carry (the scan cache's: format, build,
    machine, repository); None when caching is off."""
    from upgrade_checklists.project import cache

    directory = cache.cache_directory(cfg)  # checked: inside the repository, the tool's own folder
    if directory is None:
        return None
    return directory / cache.DIRECTORY / name, cache.header(str(cfg.root.resolve()))


def read_record(cfg: Config, name: str = FILE) -> dict | None:
    """The record ``name`` in the cache's format directory when it is a JSON object with
    this cache's header; None when absent, unreadable, not ours or caching is off."""
    from upgrade_checklists.project.cache import open_cache_file

    where = _where(cfg, name)
    f = open_cache_file(where[0], MAX_BYTES) if where else None
    if f is None:
        return None
    try:
        with f:
            data = json.loads(f.read())
    except (OSError, ValueError, RecursionError, MemoryError):
        return None
    return data if type(data) is dict and data.get("header") == where[1] else None


def write_record(cfg: Config, name: str, fields: dict) -> None:
    """Write the record ``name`` (``fields`` and the header), atomically; never fails the run."""
    where = _where(cfg, name)
    if where is None:
        return
    path, header = where
    try:
        from upgrade_checklists.project.cache import prepare

        data = json.dumps({"header": header, **fields}, separators=(",", ":"))
        prepare(path.parent.parent, path.parent)
        write_atomic(path, data.encode("utf-8", "surrogateescape"), durable=False)  # a cache: checked when read
    except (OSError, ValueError, UnicodeError):
        pass


def stored_outcome(cfg: Config, data: dict) -> Outcome | None:
    """A record's ``outcome``, or None when it is not one, or when it looked at git
    history and git's refs have moved since (asked of git only then)."""
    from upgrade_checklists.project.history import refs_digest
    from upgrade_checklists.core.plain import PlainError, from_plain

    try:
        out = from_plain(Outcome, data.get("outcome"))
    except PlainError:
        return None
    if out.refs is not None and refs_digest(cfg.root) != out.refs:
        return None
    return out


def load(cfg: Config, st: State) -> Outcome | None:
    """The outcome stored for this state, or None."""
    data = read_record(cfg)
    if data is None or data.get("key") != st.key or not same_reads(cfg, data.get("reads")):
        return None
    st.reads = data["reads"]
    return stored_outcome(cfg, data)


def save(cfg: Config, st: State, outcome: Outcome) -> object:
    """Store the outcome for this state (not when the state is racy); the outcome as the
    record holds it (plain data), None when it was not stored."""
    from upgrade_checklists.core.plain import PlainError, to_plain

    if st.racy or st.reads is None:
        return None
    try:
        plain = to_plain(outcome)
    except PlainError:
        return None
    write_record(cfg, FILE, {"key": st.key, "reads": st.reads, "outcome": plain})
    return plain


def outcome_of(result) -> Outcome:
    """What to keep of a full run (``compare.Result``)."""
    from upgrade_checklists.project import history
    from upgrade_checklists.core.inline import inline_all

    inline, said = inline_all(result.checklists)
    return Outcome(
        findings=list(result.findings), notes=list(result.notes), warnings=list(result.warnings),
        files_scanned=result.files_scanned, parsed=len(result.facts),
        checklists=[cl.rel for cl in result.checklists],
        inline={rel: {str(line): sorted(codes) for line, codes in spans.items()} for rel, spans in inline.items()},
        inline_warnings=said, refs=history.consulted(result.root) if result.root is not None else None,
        cache_hits=result.cache.hits if result.cache is not None else 0)


def inline_of(outcome: Outcome) -> dict[str, dict[int, set[str]]]:
    return {rel: {int(line): set(codes) for line, codes in spans.items()} for rel, spans in outcome.inline.items()}
