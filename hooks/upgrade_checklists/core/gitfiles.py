"""What git knows about the work tree: which files belong to the project, which the
index deletes.

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
