"""End to end through the real pre-commit framework: ``pre-commit try-repo`` on
this repository, against a fixture repository made with git.

The hook environment is built once per test session: this working tree is committed
once into a session repository (``hooks_repo``) that every test names at that commit,
so pre-commit (PRE_COMMIT_HOME in a session temp dir) installs this package and its
dependencies from the package index once, like any user's pre-commit would. (``try-repo``
on the working tree itself makes a new shadow commit, and so a new environment, per call.)
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT, Repo, git


@pytest.fixture(scope="session")
def precommit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(scope="session")
def hooks_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("hooks-repo")
    return path, _hooks_repo(path)


def try_repo(repo: Repo, home: Path, hooks: tuple[Path, str], *args: str,
             extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never", **(extra_env or {})}
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hooks[0]), *args, "--ref", hooks[1]],
        cwd=repo.path, env=env, capture_output=True, text=True, timeout=900,
    )


def test_checklist_structure_hook(repo: Repo, precommit_home: Path, hooks_repo: tuple[Path, str]) -> None:
    # a clean tree passes
    r = try_repo(repo, precommit_home, hooks_repo, "checklist-structure", "--all-files")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "checklist structure" in r.stdout and "Passed" in r.stdout

    # adding an unlisted import fails with MISSING (only the staged file is passed)
    repo.write("app/utils/new.py", "from fakepkg.core import optimizer\n")
    git(repo.path, "add", "app/utils/new.py")
    r = try_repo(repo, precommit_home, hooks_repo, "checklist-structure")
    assert r.returncode == 1, r.stdout + r.stderr
    assert ("checklists/fakepkg-core.md:\n"
            "  17 MISSING [*] `app/utils/new.py:1` imports `fakepkg.core.optimizer` but no tier lists it (belongs in Secondary)\n"
            "\n"
            "Found 1 finding in 1 checklist: 1 MISSING.\n"
            "[*] 1 fixable with `upgrade-checklists check --fix`.\n") in r.stdout
    git(repo.path, "rm", "-qf", "app/utils/new.py")

    # deleting a listed file fails with STALE, though pre-commit passes no file for it
    git(repo.path, "rm", "-q", "app/tools/names.py")
    r = try_repo(repo, precommit_home, hooks_repo, "checklist-structure")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "checklists/fakepkg-core.md:\n  25 STALE [*] `app/tools/names.py` was deleted\n" in r.stdout
    git(repo.path, "reset", "-q", "--hard")

    # moving a listed file into another tier fails with MOVED (within its tier: a warning)
    git(repo.path, "mv", "tests/test_core.py", "app/engine/checkpoints.py")
    r = try_repo(repo, precommit_home, hooks_repo, "checklist-structure")
    assert r.returncode == 1, r.stdout + r.stderr
    assert ("checklists/fakepkg-core.md:\n  26 MOVED [*] `tests/test_core.py` was renamed to `app/engine/checkpoints.py:2` "
            "(git)\n") in r.stdout


def test_upgrade_audit_manual_hook(tmp_path: Path, capsys, precommit_home: Path, hooks_repo: tuple[Path, str]) -> None:
    from test_audit import make_project, pyproject
    from upstream import make_upstreams

    upstreams = make_upstreams(tmp_path / "upstream")
    project = make_project(tmp_path / "project", capsys, upstreams)
    env_cache = tmp_path / "xdg-cache"

    def run_audit() -> subprocess.CompletedProcess:
        return try_repo(project, precommit_home, hooks_repo, "upgrade-audit", "--hook-stage", "manual", "--all-files",
                        extra_env={"XDG_CACHE_HOME": str(env_cache)})

    # nothing moved: every package bound at its pin, nothing breaks
    r = run_audit()
    assert r.returncode == 0, r.stdout + r.stderr
    assert "upgrade audit" in r.stdout and "Passed" in r.stdout

    # the pin moves: the hook fails with the breaking findings, and writes the summary
    project.write("pyproject.toml", pyproject(upstreams, core="2.0.0"))
    r = run_audit()
    assert r.returncode == 1, r.stdout + r.stderr
    assert ("app/engine/core.py:16:1: REMOVED_PARAM `fakepkg.core.optim.get_optimizer`: `lr` was removed; "
            "`**kwargs` now swallows it silently (checklists/fakepkg-core.md:81)") in r.stdout
    assert "Audited 1 package(s): 15 breaking, 8 other (4 info not listed; -v lists them)." in r.stdout
    assert "#### fakepkg-core (1.0.0 → 2.0.0) @ default" in project.read("upgrade-summary.md")
    assert (env_cache / "upgrade-checklists" / "git").is_dir()


def test_manifest_runs_the_structure_hook_at_commit_stages_only() -> None:
    import yaml

    hooks = {h["id"]: h for h in yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["checklist-structure"]["stages"] == ["pre-commit", "pre-merge-commit", "pre-push", "manual"]
    assert hooks["checklist-structure"]["always_run"] is True  # deletion-only commits
    assert hooks["upgrade-audit"]["stages"] == ["manual"]


def _hooks_repo(dest: Path) -> str:
    """This working tree as a git repository pre-commit can clone at a commit (as try-repo
    does, but for a real ``pre-commit install``); returns the commit."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO_ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        src = REPO_ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest / rel)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-qm", "hooks")
    return git(dest, "rev-parse", "HEAD").strip()


def test_installed_with_commit_msg_hooks_an_unrelated_commit_passes(repo: Repo, precommit_home: Path,
                                                                   hooks_repo: tuple[Path, str]) -> None:
    hooks_path, rev = hooks_repo
    # an old finding, committed before the hooks were installed: not this commit's business
    repo.write("app/utils/late.py", "from fakepkg.core import optimizer\n")
    repo.write("deploy.yaml", "replicas: 1\n")
    repo.write(".pre-commit-config.yaml", f"""\
default_install_hook_types: [pre-commit, commit-msg]
repos:
  - repo: {hooks_path}
    rev: {rev}
    hooks:
      - id: checklist-structure
  - repo: local
    hooks:
      - id: no-wip
        name: no WIP commits
        language: pygrep
        entry: '^WIP'
        stages: [commit-msg]
""")
    repo.commit("late import, before the hooks")
    env = {**os.environ, "PRE_COMMIT_HOME": str(precommit_home), "PRE_COMMIT_COLOR": "never",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    env.pop("PYTHONPATH", None)

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(list(args), cwd=repo.path, env=env, capture_output=True, text=True, timeout=900)

    r = run(sys.executable, "-m", "pre_commit", "install")
    assert r.returncode == 0, r.stdout + r.stderr
    assert (repo.path / ".git/hooks/pre-commit").is_file() and (repo.path / ".git/hooks/commit-msg").is_file()

    # a commit touching only a YAML file: the hook runs (always_run) with no files, reports
    # nothing; at the commit-msg stage it does not run at all
    repo.write("deploy.yaml", "replicas: 2\n")
    git(repo.path, "add", "deploy.yaml")
    r = run("git", "commit", "-m", "Scale the deployment")
    out = r.stdout + r.stderr  # git shows the hooks' output on stderr
    assert r.returncode == 0, out
    assert re.search(r"^checklist structure\.+Passed$", out, re.M), out
    assert out.count("checklist structure") == 1
    assert re.search(r"^no WIP commits\.+Passed$", out, re.M), out

    # a deletion-only commit: fails on the deleted file alone, not on the old finding
    git(repo.path, "rm", "-q", "app/tools/names.py")
    r = run("git", "commit", "-m", "Drop the names table")
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert re.search(r"^checklist structure\.+Failed$", out, re.M), out
    assert "checklists/fakepkg-core.md:\n  25 STALE [*] `app/tools/names.py` was deleted\n" in out
    assert "late.py" not in out
