"""Which state of the manifests the audit sees: unstaged edits by hand, pre-commit's stash under pre-commit."""

from __future__ import annotations

from pathlib import Path

from conftest import Repo
from upgrade_checklists.project import staged

PATTERNS = ["pyproject*.toml", "uv*.lock", "requirements*.txt"]
PATCH = (b"diff --git a/pyproject.vllm.toml b/pyproject.vllm.toml\nindex 1..2 100644\n--- a/pyproject.vllm.toml\n"
         b"+++ b/pyproject.vllm.toml\n@@ -1 +1 @@\n-a\n+b\n"
         b"diff --git a/app/x.py b/app/x.py\n")


def test_under_pre_commit_the_stash_is_read(tmp_path: Path) -> None:
    home = tmp_path / "pc"
    home.mkdir()
    (home / "patch1700000000-4242").write_bytes(PATCH)
    (home / "patch1700000000-999").write_bytes(b"diff --git a/uv.lock b/uv.lock\n")  # another run's stash
    env = {"PRE_COMMIT": "1", "PRE_COMMIT_HOME": str(home)}
    assert staged.stashed_files(env, 4242) == ["pyproject.vllm.toml", "app/x.py"]
    assert staged.notes(tmp_path, PATTERNS, env, 4242) == [
        "pre-commit stashed unstaged changes to pyproject.vllm.toml: the audit sees the staged state (git add them to audit them)"]
    assert staged.notes(tmp_path, PATTERNS, env, 1) == []  # nothing stashed for this run
    assert staged.stashed_files({}, 4242) is None  # not under pre-commit


def test_by_hand_unstaged_manifests_are_named(repo: Repo) -> None:
    repo.write("uv.lock", "[[package]]\n")
    repo.commit("lock")
    assert staged.notes(repo.path, PATTERNS, {}) == []
    repo.write("uv.lock", "[[package]]\nname = 'x'\n")
    repo.write("app/other.py", "x = 1\n")
    assert staged.notes(repo.path, PATTERNS, {}) == [
        "uv.lock has unstaged changes: the audit reads the working tree, but under pre-commit (which stashes "
        "unstaged changes) it would see the staged state"]
    repo.write("pyproject.toml", repo.read("pyproject.toml") + "\n")
    assert staged.notes(repo.path, PATTERNS, {})[0].startswith("pyproject.toml, uv.lock have unstaged changes")
    repo.commit("more")
    assert staged.notes(repo.path, PATTERNS, {}) == []
