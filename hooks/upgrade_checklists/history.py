"""Which paths the repository's git history ever held (to tell "moved" from "never existed").

``git`` is run with an argument list (never a shell), without prompting, with a timeout;
no git, not a repository, or any failure -> ``None`` (the caller skips the refinement).
The answer is cached under a digest of all refs, so a warm run asks git only for the refs.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from upgrade_checklists.cache import ScanCache

_TIMEOUT = 60
_memo: dict[tuple[str, str], frozenset[str]] = {}


def _git(root: Path, *args: str) -> str | None:
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0")
    try:
        r = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True,
                           timeout=_TIMEOUT, stdin=subprocess.DEVNULL, encoding="utf-8", errors="replace")
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout if r.returncode == 0 else None


_refs_memo: dict[str, str | None] = {}


def forget() -> None:
    """A new run: refs may have moved since the last one in this process."""
    _refs_memo.clear()


def _refs(root: Path) -> str | None:
    """``git rev-parse --all`` (asked once a run, with the shallow test in the same call);
    None when git cannot answer or the clone is shallow."""
    key = str(root)
    if key not in _refs_memo:
        out = _git(root, "rev-parse", "--is-shallow-repository", "--all")
        shallow, _, refs = (out or "").partition("\n")
        _refs_memo[key] = refs if out is not None and shallow.strip() == "false" else None
    return _refs_memo[key]


def refs_digest(root: Path) -> str | None:
    """A digest of every ref (what :func:`paths_ever`'s answer depends on), or None."""
    refs = _git(root, "rev-parse", "--all")
    return None if refs is None else hashlib.sha1(refs.encode()).hexdigest()


def consulted(root: Path) -> str | None:
    """The refs digest of the history this process read for ``root``, or None if it read none."""
    where = str(root.resolve())
    return next((stamp for (r, stamp) in _memo if r == where), None)


def paths_ever(root: Path, cache: ScanCache | None = None) -> frozenset[str] | None:
    """Every path any commit reachable from any ref added, changed or deleted, plus the index."""
    refs = _refs(root)
    if refs is None:  # not answerable, or a shallow clone (it has forgotten its history)
        return None
    stamp = hashlib.sha1(refs.encode()).hexdigest()
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
        log = _git(root, "log", "--all", "--format=", "--name-only", "--no-renames", "-z")
        if log is None:
            return None
        out.update(p.strip("\n") for p in log.split("\0") if p.strip("\n"))
    index = _git(root, "ls-files", "-z")
    if index is not None:
        out.update(p for p in index.split("\0") if p)
    value = frozenset(out)
    _memo[memo_key] = value
    if cache is not None:
        cache.put_stamped("git-history", stamp, sorted(value))
    return value
