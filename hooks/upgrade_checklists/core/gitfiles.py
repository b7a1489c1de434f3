"""What git knows about the work tree: which files belong to the project, which the
index deletes, which were renamed.

Every command is an argument list (never a shell), run in the configuration's
directory (``proc.GIT_REPO``: git finds the repository from there, whatever ``GIT_DIR`` a
hook exported), with paths as git prints them relative to it (``-z``: no quoting).
Outside a git work tree (or without git) the callers fall back to the file system.
"""

from __future__ import annotations

import os
import posixpath
import subprocess
from pathlib import Path

from upgrade_checklists.core import proc


def _git(root: Path, *args: str) -> list[str] | None:
    """``git ARGS`` in ``root`` split on NUL, or None when git cannot answer there."""
    try:
        r = proc.run(["git", "--literal-pathspecs", *args], kind=proc.GIT_REPO, cwd=root, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if r.returncode != 0:
        return None
    return [p for p in r.stdout.decode("utf-8", "surrogateescape").split("\0") if p]


def project_files(root: Path, roots: list[str]) -> list[str] | None:
    """The files below ``roots`` that git tracks or would track (untracked, not ignored),
    relative to ``root``; None outside a git work tree."""
    specs = [r for r in roots if r and r != "."] or ["."]
    return _git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate", "--", *specs)


def below(files: list[str], roots: list[str]) -> list[str]:
    """The files of a whole-repository listing that ``project_files(root, roots)`` would list
    (its pathspecs are literal: a root is a file or a folder)."""
    specs = [s for s in (posixpath.normpath(r).strip("/") for r in roots if r) if s not in ("", ".")]
    if len(specs) < len([r for r in roots if r]) or not specs:
        return list(files)  # "." among the roots, or no roots: everything
    prefixes = tuple(s + "/" for s in specs)
    exact = set(specs)
    return [f for f in files if f.startswith(prefixes) or f in exact]


def deleted_in_index(root: Path) -> list[str]:
    """The files the next commit deletes (a rename counts as a deletion of its old path),
    relative to ``root``; empty outside git."""
    out = _git(root, "diff", "--cached", "--name-status", "--no-renames", "--diff-filter=D", "--relative", "-z")
    if not out:
        return []
    # -z --name-status: "D", path, "D", path, ...
    return [out[i + 1] for i in range(0, len(out) - 1, 2) if out[i] == "D"]


def in_pre_commit() -> bool:
    """True when pre-commit runs us as a hook (it sets ``PRE_COMMIT=1`` for every hook)."""
    return os.environ.get("PRE_COMMIT") == "1"


#: per run (``forget_renames``): the answers of :func:`renames`
_renamed: dict[tuple[str, str], str | None] = {}
MAX_HOPS = 5  # a file renamed again and again: followed this far
MAX_COMMITS = 20  # deleting commits read for the paths of one run


_uncommitted: dict[str, list[tuple[str, str]]] = {}  # per run: the renames in the work tree and index


def forget_renames() -> None:
    """A new run: the work tree and the index may have changed since the last one."""
    _renamed.clear()
    _uncommitted.clear()


def renames(root: Path, paths: list[str]) -> dict[str, str]:
    """``{old: new}`` for those of ``paths`` (relative to ``root``, not in the work tree) that
    git saw renamed: in the work tree or the index against HEAD, else in the commit that
    deleted them (rename detection as ``git diff -M``, so also when the name changed);
    followed through later renames to a file that exists. Empty outside git."""
    todo = [p for p in dict.fromkeys(paths) if (str(root), p) not in _renamed
            and not os.path.lexists(os.path.join(root, p))]
    if todo:
        pending = {p: p for p in todo}
        for _ in range(MAX_HOPS):
            if not pending:
                break
            step = _renamed_once(root, sorted(set(pending.values())))
            following: dict[str, str] = {}
            for old, now in pending.items():
                new = step.get(now)
                if new is None or new == old:
                    continue
                if os.path.isfile(os.path.join(root, new)):
                    _renamed[(str(root), old)] = new
                else:
                    following[old] = new
            pending = following
        for p in todo:
            _renamed.setdefault((str(root), p), None)
    return {p: new for p in paths if (new := _renamed.get((str(root), p)))}


def _renamed_once(root: Path, paths: list[str]) -> dict[str, str]:
    """One hop: ``{old: new}`` for the renames of ``paths`` git reports."""
    wanted = set(paths)
    if str(root) not in _uncommitted:
        _uncommitted[str(root)] = _rename_pairs(_git(root, "diff", "-M", "--name-status", "-z", "--relative", "HEAD", "--"))
    out = {old: new for old, new in _uncommitted[str(root)] if old in wanted}
    rest = [p for p in paths if p not in out]
    if not rest:
        return out
    log = _git(root, "log", "--diff-filter=D", "--format=%H%x00", "HEAD", "--", *rest)
    commits = list(dict.fromkeys(c.strip() for c in log or [] if c.strip()))[:MAX_COMMITS]
    for commit in commits:
        pairs = _rename_pairs(_git(root, "diff-tree", "-r", "-M", "--no-commit-id", "--name-status", "-z", "--relative", commit))
        for old, new in pairs:
            if old in wanted and old not in out:
                out[old] = new
        if all(p in out for p in rest):
            break
    return out


def _rename_pairs(fields: list[str] | None) -> list[tuple[str, str]]:
    """The (old, new) renames in ``--name-status -z`` output: a status, then one path, two for R and C."""
    out, i = [], 0
    fields = fields or []
    while i < len(fields):
        status = fields[i]
        if status[:1] in ("R", "C") and i + 2 < len(fields):
            if status[:1] == "R":
                out.append((fields[i + 1], fields[i + 2]))
            i += 3
        else:
            i += 2
    return out
