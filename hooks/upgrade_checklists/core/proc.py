"""Every subprocess the tool starts, started one way: an argument list (never a shell), no
input, a timeout, and an environment and working directory chosen by what the command
acts on -- never inherited as they are.

Three kinds of command:

``PYTHON``
    A helper interpreter (``python -m pip``): run isolated (``-I``: neither the working
    directory, the script's folder, ``PYTHONPATH`` nor the user's site-packages are on
    its path, ``PYTHON*`` variables are ignored), in a fresh empty working directory, with
    every ``PYTHON*`` variable removed. A repository's own ``pip/`` or ``sitecustomize.py``
    is never imported. pip's own settings (``PIP_*``, pip.conf) still apply.
``GIT_UPSTREAM``
    git acting on a fetched upstream: in a fresh empty directory that is also ``HOME`` and
    ``XDG_CONFIG_HOME``, with every ``GIT_*`` variable removed (those that locate a
    repository -- ``GIT_DIR``, ``GIT_WORK_TREE``, ``GIT_INDEX_FILE``, ... as a git hook in a
    linked worktree exports them --, those that configure git -- ``GIT_CONFIG_*`` -- and those
    that name programs -- ``GIT_EXEC_PATH``, ``GIT_SSH*``, ``GIT_ASKPASS``, ``GIT_TEMPLATE_DIR``)
    but the certificate settings of the transport, and neither system nor user
    configuration: only the fixed configuration the caller gives (see ``fetch.py``).
``GIT_REPO``
    git reading the user's repository (``ls-files``, ``diff``, ``show``, ``log``): in the
    repository (``cwd`` is required), with the variables that would point git at another
    repository removed, so that git finds the repository from the working directory. The
    user's git configuration applies (a global ``excludesFile`` decides what is ignored).
    ``GIT_INDEX_FILE`` is kept only when it names a file in the git folder git finds there
    (``git commit -- path`` runs its hook with a temporary index: what is committed is
    what the check sees); optional locks are off (a read never rewrites the index).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Mapping, Sequence

PYTHON = "python"
GIT_UPSTREAM = "git-upstream"
GIT_REPO = "git-repo"
_KINDS = (PYTHON, GIT_UPSTREAM, GIT_REPO)

#: the variables ``git rev-parse --local-env-vars`` lists but the configuration ones (the tests
#: check this against the installed git), and the others that choose which repository, or
#: which part of it, git acts on
REPOSITORY_VARS = frozenset({
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_DIR", "GIT_GRAFT_FILE", "GIT_IMPLICIT_WORK_TREE",
    "GIT_INDEX_FILE", "GIT_INTERNAL_SUPER_PREFIX", "GIT_NO_REPLACE_OBJECTS", "GIT_OBJECT_DIRECTORY", "GIT_PREFIX",
    "GIT_REPLACE_REF_BASE", "GIT_SHALLOW_FILE", "GIT_WORK_TREE", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_QUARANTINE_PATH", "GIT_INDEX_VERSION",
})
#: of git's own variables, what a command on an upstream keeps: the transport's certificates
UPSTREAM_KEEPS = frozenset({"GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "GIT_HTTP_PROXY_AUTHMETHOD"})


def python_command(*args: str) -> list[str]:
    """``[this interpreter, -I, *args]``."""
    return [sys.executable, "-I", *args]


def environment(kind: str, cwd: Path | None = None, extra: Mapping[str, str] | None = None,
                base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a command of ``kind`` runs with (``base``: the process's environment;
    ``cwd``: the repository, for ``GIT_REPO``; ``extra`` is added last)."""
    if kind not in _KINDS:
        raise ValueError(f"unknown kind of command {kind!r}")
    base = os.environ if base is None else base
    env = {k: v for k, v in base.items() if not k.upper().startswith("PYTHON")}
    if kind == GIT_UPSTREAM:
        env = {k: v for k, v in env.items() if not k.upper().startswith("GIT_") or k in UPSTREAM_KEEPS}
        env.update({"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0",
                    "GIT_ASKPASS": "", "SSH_ASKPASS": "", "GIT_LFS_SKIP_SMUDGE": "1"})
    elif kind == GIT_REPO:
        index = base.get("GIT_INDEX_FILE")
        env = {k: v for k, v in env.items() if k.upper() not in REPOSITORY_VARS}
        env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"})
        if index and cwd is not None:
            kept = _own_index(Path(cwd), index, env)
            if kept is not None:
                env["GIT_INDEX_FILE"] = kept
    else:
        env["PIP_NO_INPUT"] = "1"
    env.update(extra or {})
    return env


_git_dirs: dict[str, str | None] = {}


def _own_index(root: Path, index: str, env: dict[str, str]) -> str | None:
    """``index`` (absolute) when it is a file in the git folder git finds from ``root``, else None."""
    path = os.path.realpath(os.path.abspath(index))
    own = os.path.join(os.path.realpath(root), ".git")
    if os.path.isdir(own) and path.startswith(own + os.sep):
        return path  # the common case (a commit's hook in the repository's top folder): no git asked
    key = str(root)
    if key not in _git_dirs:
        try:
            r = subprocess.run(["git", "rev-parse", "--absolute-git-dir"], cwd=root, env=env, capture_output=True,
                               text=True, stdin=subprocess.DEVNULL, timeout=60)
            _git_dirs[key] = os.path.realpath(r.stdout.strip()) if r.returncode == 0 and r.stdout.strip() else None
        except (OSError, subprocess.SubprocessError):
            _git_dirs[key] = None
    git_dir = _git_dirs[key]
    if git_dir is None:
        return None
    return path if path.startswith(git_dir + os.sep) else None


def command(cmd: Sequence[str], kind: str, cwd: Path | None = None) -> list[str]:
    """``cmd`` as it runs (``-I`` after the interpreter), or ValueError for a command of another kind."""
    cmd = [str(c) for c in cmd]
    if kind == PYTHON:
        if not cmd or cmd[0] != sys.executable:
            raise ValueError("a helper interpreter is this interpreter")
        if cmd[1:2] != ["-I"]:
            cmd.insert(1, "-I")
    elif not cmd or cmd[0] != "git":
        raise ValueError(f"a {kind} command is a git command")
    if (kind == GIT_REPO) != (cwd is not None):
        raise ValueError("git on the repository runs in the repository; every other command in a fresh folder")
    return cmd


def run(cmd: Sequence[str], *, kind: str, timeout: float, cwd: Path | None = None, text: bool = False,
        extra_env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess:
    """``subprocess.run`` of ``cmd``, output captured, no input. A ``GIT_REPO`` command runs in
    ``cwd`` (the repository); the others in a fresh empty directory (removed after), which is
    also an upstream git command's ``HOME``. Raises what ``subprocess.run`` raises (``OSError``,
    ``subprocess.TimeoutExpired``)."""
    cmd = command(cmd, kind, cwd)
    text_args = {"text": True, "encoding": "utf-8", "errors": "replace"} if text else {}
    if kind == GIT_REPO:
        return subprocess.run(cmd, cwd=cwd, env=environment(kind, cwd, extra_env), capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=timeout, **text_args)
    import shutil  # here, not at the top: git on the repository (every check) needs neither
    import tempfile

    neutral = tempfile.mkdtemp(prefix="upgrade-checklists-")
    try:
        extra = {"HOME": neutral, "XDG_CONFIG_HOME": neutral} if kind == GIT_UPSTREAM else {}
        return subprocess.run(cmd, cwd=neutral, env=environment(kind, None, {**extra, **(extra_env or {})}),
                              capture_output=True, stdin=subprocess.DEVNULL, timeout=timeout, **text_args)
    finally:
        shutil.rmtree(neutral, ignore_errors=True)


def start(cmd: Sequence[str], *, cwd: Path, text: bool = False) -> subprocess.Popen:
    """A git command on the repository at ``cwd``, started (``Popen``): stdout piped, stderr
    discarded, no input. Raises ``OSError`` when it cannot start."""
    cmd = command(cmd, GIT_REPO, cwd)
    text_args = {"text": True, "encoding": "utf-8", "errors": "replace"} if text else {}
    return subprocess.Popen(cmd, cwd=cwd, env=environment(GIT_REPO, cwd), stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, **text_args)
