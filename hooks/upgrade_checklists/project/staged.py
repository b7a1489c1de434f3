"""Which state of the manifests and lock files the audit sees: unstaged edits, and pre-commit's stash.

``pre-commit run upgrade-audit --hook-stage manual`` stashes unstaged edits before the
hook runs (it writes them to ``patch<time>-<pid>`` in its cache directory, or in the
temporary store of ``pre-commit try-repo``, and checks out the index), so the audit then
sees the *staged* state. The audit says so when a manifest
or lock file is among the stashed files; run by hand, it says which of them have
unstaged edits (it reads the working tree, and pre-commit would not).
"""

from __future__ import annotations

import fnmatch
import os
import re
import subprocess
import tempfile
from pathlib import Path

from upgrade_checklists.core import proc


def _pre_commit_home(env) -> Path:
    base = env.get("PRE_COMMIT_HOME")
    if base:
        return Path(base)
    return Path(env.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")) / "pre-commit"


def stashed_files(env=None, ppid: int | None = None) -> list[str] | None:
    """The files pre-commit stashed for the run that started us (None: not run by pre-commit)."""
    env = os.environ if env is None else env
    if env.get("PRE_COMMIT") != "1":
        return None
    ppid = os.getppid() if ppid is None else ppid
    home = _pre_commit_home(env)
    try:
        found = list(home.glob(f"patch*-{ppid}"))
        if not found:  # `pre-commit try-repo` keeps its store in a temporary directory
            found = list(Path(tempfile.gettempdir()).glob(f"tmp*/patch*-{ppid}"))
        patches = sorted((p for p in found if p.is_file()), key=lambda p: p.stat().st_mtime)
    except OSError:
        return []
    if not patches:
        return []
    files = []
    try:
        with open(patches[-1], "rb") as f:
            for raw in f:
                m = re.match(rb"^diff --git a/(.+) b/(.+)$", raw.rstrip(b"\r\n"))
                if m:
                    files.append(m.group(2).decode("utf-8", "replace"))
    except OSError:
        return []
    return files


def unstaged_files(root: Path) -> list[str]:
    """Files whose working-tree content differs from the index."""
    try:
        r = proc.run(["git", "diff", "--name-only", "-z"], kind=proc.GIT_REPO, cwd=root, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [n for n in r.stdout.decode("utf-8", "replace").split("\0") if n] if r.returncode == 0 else []


def notes(root: Path, patterns: list[str], env=None, ppid: int | None = None) -> list[str]:
    """What to tell about the state of the manifests and lock files the audit reads."""
    def manifests(files: list[str]) -> list[str]:
        return sorted(f for f in files if any(fnmatch.fnmatchcase(f, p) for p in patterns))

    stashed = stashed_files(env, ppid)
    if stashed is not None:
        hit = manifests(stashed)
        if hit:
            return [f"pre-commit stashed unstaged changes to {', '.join(hit)}: the audit sees the staged state "
                    "(git add them to audit them)"]
        return []
    hit = manifests(unstaged_files(root))
    if hit:
        return [f"{', '.join(hit)} {'has' if len(hit) == 1 else 'have'} unstaged changes: the audit reads the working tree, but under pre-commit "
                "(which stashes unstaged changes) it would see the staged state"]
    return []
