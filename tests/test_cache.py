"""The scan cache: warm runs stat instead of parse, and never serve stale facts."""

from __future__ import annotations

import os
import time

from conftest import Repo


def age(repo: Repo, seconds: int = 3600) -> None:
    old = time.time() - seconds
    for p in repo.path.rglob("*"):
        if ".git" not in p.parts:
            os.utime(p, (old, old))


def test_warm_run_uses_cache_and_sees_edits(repo: Repo) -> None:
    age(repo)
    first = repo.run("check", "-v")
    assert first.code == 0 and "; 0 from the cache" in first.err
    second = repo.run("check", "-v")
    # 8 sources + 1 checklist + the snippet answers for app/engine/core.py, all unchanged
    assert second.code == 0 and "; 10 from the cache" in second.err
    # same size, new content: mtime differs, so the file is read again
    repo.edit("app/engine/core.py", "tensor_model_parallel_size=2", "tensor_model_parallel_size=4")
    assert repo.run("check").codes == ["SNIPPET"]


def test_racy_files_are_not_cached(repo: Repo) -> None:
    # files written just now may change again within the timestamp granularity
    repo.run("check")
    r = repo.run("check", "-v")
    assert "; 0 from the cache" in r.err


def test_no_cache_writes_nothing(repo: Repo) -> None:
    age(repo)
    assert repo.run("check", "--no-cache").code == 0
    assert not (repo.path / ".upgrade-checklists-cache").exists()


def test_corrupt_cache_is_ignored(repo: Repo) -> None:
    age(repo)
    repo.run("check")
    cache = repo.path / ".upgrade-checklists-cache"
    assert (cache / ".gitignore").read_text().endswith("*\n")
    (cache / "scan-v1.pickle").write_bytes(b"not a pickle")
    repo.write("app/utils/new.py", "import fakepkg.core\n")
    assert repo.run("check").codes == ["MISSING"]


def test_cache_dir_is_configurable(repo: Repo) -> None:
    repo.edit("pyproject.toml", 'roots = ["app", "tests"]', 'roots = ["app", "tests"]\ncache_dir = "build/uc-cache"')
    age(repo)
    repo.run("check")
    assert (repo.path / "build/uc-cache/scan-v1.pickle").is_file()
