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
- when the run looked at git history (a "never existed" path), a digest of the refs.

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
import time
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
RACY_NS = 2_000_000_000


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


def state(cfg: Config, options: str) -> State | None:
    """The key of everything the check reads, or None where it cannot be known (no git)."""
    files = gitfiles.project_files(cfg.root, ["."])
    if files is None:
        return None
    from upgrade_checklists.project.cache import build_id  # the hash of our own source files

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
    return State(h.hexdigest(), newest > time.time_ns() - RACY_NS, files, stats, base.hexdigest())


def _config_text(cfg: Config) -> str:
    return repr({k: v for k, v in vars(cfg).items() if k != "warnings"})


def _where(cfg: Config, name: str) -> tuple[Path, dict] | None:
    """A record's file and the header it must carry (the scan cache's: format, build,
    machine, repository); None when caching is off."""
    from upgrade_checklists.project import cache

    if not cfg.cache_dir:
        return None
    return cfg.root / cfg.cache_dir / cache.DIRECTORY / name, cache.header(str(cfg.root.resolve()))


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
        data = json.dumps({"header": header, **fields}, separators=(",", ":"))
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, data.encode("utf-8", "surrogateescape"))
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
    return stored_outcome(cfg, data) if data is not None and data.get("key") == st.key else None


def save(cfg: Config, st: State, outcome: Outcome) -> object:
    """Store the outcome for this state (not when the state is racy); the outcome as the
    record holds it (plain data), None when it was not stored."""
    from upgrade_checklists.core.plain import PlainError, to_plain

    if st.racy:
        return None
    try:
        plain = to_plain(outcome)
    except PlainError:
        return None
    write_record(cfg, FILE, {"key": st.key, "outcome": plain})
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
