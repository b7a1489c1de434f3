"""The run cache: a warm run on an unchanged work tree answers from the last run, and
any change to what the check reads (a source, a checklist, the configuration, even one
git ignores or one outside the repository) makes it run again."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from conftest import Repo, git

REUSED = "nothing changed since the last run: its outcome is reused"
RUN = ".upgrade-checklists-cache/v3/run.json"


def age(repo: Repo, *rels: str, seconds: int = 3600) -> None:
    """Files (all but .git when none named) last touched ``seconds`` ago: not racy."""
    old = time.time() - seconds
    paths = [repo.path / r for r in rels] or [p for p in repo.path.rglob("*") if ".git" not in p.parts]
    for p in paths:
        os.utime(p, (old, old))


def stale_row(repo: Repo) -> None:
    """One finding to carry over: a row for a file that does not exist."""
    repo.edit("checklists/fakepkg-core.md", "| `tests/test_core.py` |",
              "| `tests/gone.py` | `fakepkg.core` |\n| `tests/test_core.py` |")


def test_unchanged_tree_reuses_the_outcome(repo: Repo) -> None:
    stale_row(repo)
    age(repo)
    first = repo.run("check", "-v")
    assert first.codes == ["STALE"] and REUSED not in first.err
    assert (repo.path / RUN).is_file()
    second = repo.run("check", "-v")
    assert second.codes == ["STALE"] and REUSED in second.err
    assert second.out == first.out and second.code == first.code == 1
    # options applied after the run work on a reused outcome too
    assert repo.run("check", "--ignore", "STALE").code == 0
    assert repo.run("check", "--select", "STALE", "-v").codes == ["STALE"]
    # a listed file that does not exist concerns every commit (pre-commit never passes it)
    assert repo.run("check", "app/engine/core.py").codes == ["STALE"]
    assert [f["code"] for f in repo.run("check", "--output-format", "json").json()["findings"]] == ["STALE"]


def test_an_edited_source_runs_again(repo: Repo) -> None:
    age(repo)
    assert repo.run("check").code == 0
    # same size, new content, an old mtime: only the stat key (ctime, mtime) tells
    repo.edit("app/engine/core.py", "tensor_model_parallel_size=2", "tensor_model_parallel_size=4")
    age(repo, "app/engine/core.py", seconds=7200)
    r = repo.run("check", "-v")
    assert REUSED not in r.err and r.codes == ["SNIPPET"]
    assert REUSED in repo.run("check", "-v").err


def test_a_new_untracked_file_runs_again(repo: Repo) -> None:
    age(repo)
    assert repo.run("check").code == 0
    repo.write("app/utils/uses.py", "import fakepkg.core\n")
    age(repo, "app/utils/uses.py")
    assert repo.run("check").codes == ["MISSING"]


def test_checklists_git_ignores_and_a_config_outside_are_keyed_by_name(repo: Repo, tmp_path: Path) -> None:
    repo.write(".gitignore", "checklists/\n")
    git(repo.path, "rm", "-rq", "--cached", "checklists")
    repo.commit("checklists are not tracked")
    (tmp_path / "shared").mkdir()
    outside = tmp_path / "shared" / "outside.toml"
    outside.write_text('[tool.upgrade-checklists]\nroots = ["app", "tests"]\n')
    age(repo)
    os.utime(outside, (time.time() - 3600,) * 2)
    assert repo.run("check", "--config", str(outside)).code == 0
    assert REUSED in repo.run("check", "--config", str(outside), "-v").err
    stale_row(repo)
    age(repo, "checklists/fakepkg-core.md")
    assert repo.run("check", "--config", str(outside)).codes == ["STALE"]
    outside.write_text('[tool.upgrade-checklists]\nroots = ["app", "tests"]\nignore = ["STALE"]\n')
    os.utime(outside, (time.time() - 3600,) * 2)
    assert repo.run("check", "--config", str(outside)).code == 0


def test_racy_state_is_not_stored(repo: Repo) -> None:
    # files written just now (the fixture) may change again within the timestamp granularity
    repo.run("check")
    assert not (repo.path / RUN).exists()
    assert REUSED not in repo.run("check", "-v").err


def test_inline_ignores_hold_on_a_reused_outcome(repo: Repo) -> None:
    stale_row(repo)
    repo.edit("checklists/fakepkg-core.md", "| `tests/gone.py` | `fakepkg.core` |",
              "| `tests/gone.py` | `fakepkg.core` <!-- upgrade-checklists: ignore[STALE] --> |")
    age(repo)
    assert repo.run("check").code == 0
    r = repo.run("check", "-v", "--statistics")
    assert REUSED in r.err and r.code == 0


def test_forged_or_garbled_records_are_not_used(repo: Repo, tmp_path: Path) -> None:
    stale_row(repo)
    age(repo)
    assert repo.run("check").codes == ["STALE"]
    record = json.loads((repo.path / RUN).read_text())
    assert set(record) == {"header", "key", "outcome"}
    # the outcome edited to say "no findings", its key kept: used only for this very state
    record["outcome"]["findings"] = []
    for bad in (b"not json", b"[]", json.dumps({**record, "key": "0" * 40}).encode(),
                json.dumps({**record, "outcome": {"findings": [{"code": 1}]}}).encode(),
                json.dumps({**record, "header": {**record["header"], "build": "0+other"}}).encode()):
        (repo.path / RUN).write_bytes(bad)
        r = repo.run("check", "-v")
        assert r.codes == ["STALE"] and REUSED not in r.err, bad[:40]
    # committed with the tree it was written for, then checked out elsewhere: other inodes and ctimes
    (repo.path / RUN).write_text(json.dumps(record))
    git(repo.path, "add", "-f", ".upgrade-checklists-cache")
    repo.commit("a forged run record")
    git(repo.path.parent, "clone", "-q", str(repo.path), str(tmp_path / "clone"))
    clone = Repo(tmp_path / "clone", repo._capsys)
    age(clone)
    r = clone.run("check", "-v")
    assert r.codes == ["STALE"] and REUSED not in r.err


def test_fix_never_reuses(repo: Repo) -> None:
    repo.write("app/utils/uses.py", "import fakepkg.core\n")
    age(repo)
    assert repo.run("check").codes == ["MISSING"]
    # the run before --fix left a record for this state; --fix still reads the checklist to edit it
    assert repo.run("check", "--fix").code == 1
    assert "| `app/utils/uses.py` |" in repo.read("checklists/fakepkg-core.md")
    age(repo)
    assert repo.run("check").code == 0


def test_an_ignored_manifest_and_the_maintenance_guide_are_keyed_by_name(repo: Repo) -> None:
    repo.write(".gitignore", "uv.lock\nGUIDE.md\n")
    repo.write("uv.lock", "version = 1\n")
    repo.write("GUIDE.md", "# guide\n")
    repo.edit("pyproject.toml", 'roots = ["app", "tests"]', 'roots = ["app", "tests"]\nmaintenance_guide = "GUIDE.md"')
    repo.commit("an ignored lock file and guide")
    age(repo)
    from upgrade_checklists.core import config
    from upgrade_checklists.check import runcache

    cfg = config.load(repo.path)
    first = runcache.state(cfg, "")
    assert first is not None and not first.racy
    for rel in ("uv.lock", "GUIDE.md"):
        (repo.path / rel).write_text((repo.path / rel).read_text() + "# edited\n")
        age(repo, rel)
        now = runcache.state(cfg, "")
        assert now is not None and now.key != first.key, rel
        first = now
