"""bench/replay.py: the replay harness itself (a fixture project with three commits after
the adoption, replayed with the tool of this interpreter)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

HARNESS = Path(__file__).resolve().parent.parent / "bench" / "replay.py"


@pytest.fixture(scope="module")
def replay_mod():
    spec = importlib.util.spec_from_file_location("bench_replay", HARNESS)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_replay"] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    yield mod
    sys.modules.pop("bench_replay", None)


def git(cwd: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(cwd),
           "PATH": "/usr/bin:/bin:/usr/local/bin"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)
    return git(root, "rev-parse", "HEAD").strip()


CORE = '''import fakepkg


def open_link():
    return fakepkg.connect(host="a", port=1)
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project that imports ``fakepkg`` in one library file, then three commits: a
    Markdown-only one, one that drops a keyword the catalogued call passes, a YAML-only one."""
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, "pyproject.toml", '[project]\nname = "demo"\nversion = "1"\n')
    write(root, "demo/__init__.py", "")
    write(root, "demo/core.py", CORE)
    commit(root, "start")
    write(root, "README.md", "# demo\n")
    commit(root, "docs: a readme")
    write(root, "demo/core.py", CORE.replace(', port=1', ''))
    commit(root, "core: the default port")
    write(root, "ci.yml", "on: push\n")
    commit(root, "ci")
    return root


def test_replay_blocks_the_changed_call_and_counts_a_hand_edit(replay_mod, project: Path, tmp_path: Path) -> None:
    keep = tmp_path / "kept"
    out_json = tmp_path / "out.json"
    head_before = git(project, "rev-parse", "HEAD")
    replay_mod.main([str(project), "--start", "HEAD~3", "--package", "fakepkg=acme/fakepkg", "--roots", "demo",
                     "--secondary", "demo/", "--python", sys.executable, "--keep", str(keep), "--json", str(out_json)])
    doc = json.loads(out_json.read_text(encoding="utf-8"))
    # the project itself is untouched
    assert git(project, "rev-parse", "HEAD") == head_before
    assert git(project, "status", "--porcelain") == ""
    assert doc["adoption"]["new"]["fakepkg"]["exit"] == 0
    assert doc["adoption"]["after_new"] == {}
    steps = doc["steps"]
    assert [s["subject"] for s in steps] == ["docs: a readme", "core: the default port", "ci"]
    readme, port, ci = steps
    # the hook gets what pre-commit passes: README.md; then the changed Python file; a YAML file is not passed
    assert (readme["files"], port["files"], ci["files"]) == (1, 1, 0)
    assert readme["hook_exit"] == 0 and ci["hook_exit"] == 0
    # a keyword the catalogued call passed is gone: SNIPPET, which --fix cannot repair
    assert port["hook_exit"] == 1
    assert port["blocked_by"] == ["SNIPPET"]
    assert port["lines"] == 0 and port["left"] == ["SNIPPET"]
    summary = doc["summary"]
    assert (summary["commits"], summary["blocked"], summary["blocked_line_only"], summary["hand_edits"]) == (3, 1, 0, 1)
    assert summary["by_code"] == {"SNIPPET": {"commits_blocked": 1, "findings": 1, "hand_edits": 1}}
    # the hand edit is stood in for by the baseline: the next commit is not blocked by it
    base = json.loads((keep / ".upgrade-checklists-baseline.json").read_text(encoding="utf-8"))
    assert [f["code"] for f in base["findings"]] == ["SNIPPET"]
    # the replayed tree is the project's last commit plus our checklist, baseline and configuration
    last = git(project, "rev-parse", "HEAD").strip()
    ours = set(git(keep, "ls-tree", "-r", "--name-only", "HEAD").split())
    theirs = set(git(project, "ls-tree", "-r", "--name-only", last).split())
    assert ours - theirs == {"checklists/fakepkg.md", ".upgrade-checklists-baseline.json"}
    assert (keep / "demo/core.py").read_text(encoding="utf-8") == CORE.replace(', port=1', '')
    pyproject = tomllib.loads((keep / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["name"] == "demo"
    assert pyproject["tool"]["upgrade-checklists"] == {"checklists": "checklists", "roots": ["demo"],
                                                       "tiers": {"secondary": ["demo/"]}}
    assert git(keep, "status", "--porcelain", "--untracked-files=no") == ""


def test_lines_changed_counts_a_replaced_line_once(replay_mod) -> None:
    before = {"c/a.md": ["x", "y", "z"], "c/gone.md": ["1", "2"]}
    after = {"c/a.md": ["x", "Y", "z", "new"], "c/b.md": ["b"]}
    changed, added, removed, files = replay_mod.lines_changed(before, after)
    # a.md: y -> Y (1 changed), "new" inserted (1); gone.md: 2 removed; b.md: 1 added
    assert (changed, added, removed) == (5, 3, 3)
    assert files == ["c/a.md", "c/b.md", "c/gone.md"]
    assert replay_mod.lines_changed(before, before) == (0, 0, 0, [])


def test_reasons_are_the_error_findings(replay_mod) -> None:
    run = replay_mod.Run(1, 0.1, {"findings": [{"code": "LINE", "severity": "warning"},
                                               {"code": "SNIPPET", "severity": "error"},
                                               {"code": "SNIPPET", "severity": "error"}]}, "")
    assert replay_mod.reasons(run) == ["SNIPPET", "SNIPPET"]
    # a build whose findings carry no severity: every finding is a reason
    old = replay_mod.Run(1, 0.1, {"findings": [{"code": "LINE"}]}, "")
    assert replay_mod.reasons(old) == ["LINE"]


def test_a_missing_repository_or_start_is_an_error(replay_mod, tmp_path: Path, project: Path) -> None:
    with pytest.raises(subprocess.CalledProcessError):
        replay_mod.main([str(tmp_path / "nowhere"), "--start", "HEAD", "--package", "x=a/b"])
    with pytest.raises(RuntimeError, match="rev-parse"):
        replay_mod.main([str(project), "--start", "no-such-rev", "--package", "x=a/b"])
