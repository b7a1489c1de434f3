"""Which paths the repository's git history ever held (to tell "moved" from "never existed").

``git`` is run with an argument list (never a shell), without prompting, with a timeout;
no git, not a repository, or any failure -> ``None`` (the caller skips the refinement).
The answer is cached under a digest of all refs, so a warm run asks git only for the refs.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from upgrade_checklists.core import proc
from upgrade_checklists.project.cache import ScanCache
from upgrade_checklists.core.digest import blake2b

_TIMEOUT = 60
_memo: dict[tuple[str, str], frozenset[str]] = {}


_REFS = ("rev-parse", "--is-shallow-repository", "--all")
_LOG = ("log", "--all", "--format=", "--name-only", "--no-renames", "-z")
_INDEX = ("ls-files", "-z")
_pending: dict[tuple[str, tuple[str, ...]], subprocess.Popen] = {}  # started ahead (prefetch)


def _start(root: Path, args: tuple[str, ...]) -> subprocess.Popen | None:
    try:
        return proc.start(["git", *args], cwd=root, text=True)
    except (OSError, subprocess.SubprocessError):
        return None


def _git(root: Path, *args: str) -> str | None:
    p = _pending.pop((str(root), args), None) or _start(root, args)
    if p is None:
        return None
    try:
        out, _ = p.communicate(timeout=_TIMEOUT)
    except (OSError, subprocess.SubprocessError):
        p.kill()
        p.wait()
        return None
    return out if p.returncode == 0 else None


def prefetch(root: Path, cache: ScanCache | None) -> None:
    """Start the git calls :func:`paths_ever` will make, when its answer is not cached yet:
    they run while the caller parses (a cold run waits for git once, not three times)."""
    if (cache is not None and cache.entries.get("git-history") is not None) or any(k[0] == str(root) for k in _pending):
        return
    for args in (_REFS, _LOG, _INDEX):
        p = _start(root, args)
        if p is not None:
            _pending[(str(root), args)] = p


_refs_memo: dict[str, str | None] = {}


def forget() -> None:
    """A new run: refs may have moved since the last one in this process; git calls
    started for a run that did not read them are stopped."""
    _refs_memo.clear()
    while _pending:
        _, p = _pending.popitem()
        p.kill()
        p.wait()
        if p.stdout is not None:
            p.stdout.close()


def _refs(root: Path) -> str | None:
    """``git rev-parse --all`` (asked once a run, with the shallow test in the same call);
    None when git cannot answer or the clone is shallow."""
    key = str(root)
    if key not in _refs_memo:
        out = _git(root, *_REFS)
        shallow, _, refs = (out or "").partition("\n")
        _refs_memo[key] = refs if out is not None and shallow.strip() == "false" else None
    return _refs_memo[key]


def refs_digest(root: Path) -> str | None:
    """A digest of every ref (what :func:`paths_ever`'s answer depends on), or None."""
    refs = _git(root, "rev-parse", "--all")
    return None if refs is None else _digest(refs)


def _digest(refs: str) -> str:
    return blake2b(refs.encode("utf-8", "surrogateescape"), digest_size=20).hexdigest()


def consulted(root: Path) -> str | None:
    """The refs digest of the history this process read for ``root``, or None if it read none."""
    where = str(root.resolve())
    return next((stamp for (r, stamp) in _memo if r == where), None)


def paths_ever(root: Path, cache: ScanCache | None = None) -> frozenset[str] | None:
    """Every path any commit reachable from any ref added, changed or deleted, plus the index."""
    refs = _refs(root)
    if refs is None:  # not answerable, or a shallow clone (it has forgotten its history)
        return None
    stamp = _digest(refs)
    memo_key = (str(root.resolve()), stamp)
    if memo_key in _memo:
        return _memo[memo_key]
    if cache is not None:
        hit, value = cache.get_stamped("git-history", stamp)
        if hit and type(value) is list and all(type(p) is str for p in value):
            _memo[memo_key] = frozenset(value)
            return _memo[memo_key]
    out: set[str] = set()
    if refs.strip():
        log = _git(root, *_LOG)
        if log is None:
            return None
        out.update(p.strip("\n") for p in log.split("\0") if p.strip("\n"))
    index = _git(root, *_INDEX)
    if index is not None:
        out.update(p for p in index.split("\0") if p)
    value = frozenset(out)
    _memo[memo_key] = value
    if cache is not None:
        cache.put_stamped("git-history", stamp, sorted(value))
    return value
