"""The upgrade audit, hermetic: fixture upstreams are local git repositories (and
sdists built from them); the project is a fixture repository with git."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from conftest import Repo, git
from upstream import build_dists, make_sdist, make_upstreams, make_wheel

CORE_PY = '''\
from fakepkg.core import parallel_state as mpu
from fakepkg.core import DistributedDataParallel as DDP
from fakepkg.core.config import TransformerConfig
from fakepkg.core.optim import get_optimizer
from fakepkg.core.utils import helper
from fakepkg.core.bridge import AutoBridge
from fakepkg.core.kernels.fused import fused_add


def build(model, config):
    mpu.initialize_model_parallel(tensor_model_parallel_size=2, virtual_size=4)
    rank = mpu.get_rank()
    group = mpu.get_old_group()
    ddp = DDP(model, config)
    cfg = TransformerConfig(num_layers=2, hidden_size=8)
    opt = get_optimizer(cfg, model, lr=0.1)
    out = fused_add(1, 2, True)
    ddp.no_sync()
    bridge = AutoBridge.from_hf_pretrained("path", trust_remote_code=True)
    bridge.save_hf_pretrained(model, "out", source_path="src")
    return helper(ddp), rank, group, opt, out
'''

LORA_PY = '''\
def apply_patch():
    from fakepkg.core.bridge import AutoBridge

    if not hasattr(AutoBridge, "save_hf_adapter"):
        AutoBridge.save_hf_adapter = save_hf_adapter


def save_hf_adapter(self, model, path, peft_config, show_progress=True, base_model_name_or_path=None):
    return None
'''

COMPAT_PY = '''\
import fakepkg.core
from packaging.version import Version

if Version(fakepkg.core.__version__) < Version("2.0.0"):
    LEGACY = True

try:
    from fakepkg.core.tools import helper
except ImportError:
    from fakepkg.core.utils import helper
'''

CFG_PY = '''\
from fakepkg.bridge import BridgeConfig


def make():
    return BridgeConfig(num_layers=2, hidden_size=8, lora_rank=4)
'''


def entry(n: int, api: str, line: int, snippet: str, source: str | None = None) -> str:
    src = f"**Source:** `{source}`\n\n" if source else ""
    return f"### {n}. `{api}`\n\n{src}Called in `app/engine/core.py` (line {line}):\n\n```python\n{snippet}\n```\n\n**Check:** see the audit.\n\n"


CORE_CL = (
    "---\npackage: fakepkg-core\ngithub: example/fakepkg-core\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/core/\nimport_names:\n  - fakepkg.core\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/engine/compat.py` | `fakepkg.core`, `helper` |\n"
    "| `app/engine/core.py` | `parallel_state` (as `mpu`), `DistributedDataParallel` (as `DDP`), `TransformerConfig`, `get_optimizer`, `helper`, `AutoBridge`, `fused_add`, `no_sync` |\n"
    "| `app/engine/lora.py` | `AutoBridge` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n"
    + entry(1, "fakepkg.core.parallel_state.initialize_model_parallel", 11, "mpu.initialize_model_parallel(tensor_model_parallel_size=2, virtual_size=4)")
    + entry(2, "fakepkg.core.parallel_state.get_rank", 12, "rank = mpu.get_rank()")
    + entry(3, "fakepkg.core.parallel_state.get_old_group", 13, "group = mpu.get_old_group()")
    + entry(4, "fakepkg.core.DistributedDataParallel", 14, "ddp = DDP(model, config)")
    + entry(5, "fakepkg.core.config.TransformerConfig", 15, "cfg = TransformerConfig(num_layers=2, hidden_size=8)")
    + entry(6, "fakepkg.core.optim.get_optimizer", 16, "opt = get_optimizer(cfg, model, lr=0.1)")
    + entry(7, "fakepkg.core.utils.helper", 21, "return helper(ddp), rank, group, opt, out")
    + entry(8, "fakepkg.core.kernels.fused.fused_add", 17, "out = fused_add(1, 2, True)")
    + entry(9, "AutoBridge.from_hf_pretrained", 19, 'bridge = AutoBridge.from_hf_pretrained("path", trust_remote_code=True)', "fakepkg/core/bridge.py")
    + entry(10, "AutoBridge.save_hf_pretrained", 20, 'bridge.save_hf_pretrained(model, "out", source_path="src")', "fakepkg/core/bridge.py")
    + "### 11. `POST /generate` — request payload\n\nAn HTTP surface.\n\n"
    + "## Version-Guarded Code\n\n"
    "- `app/engine/lora.py:4` — `hasattr(AutoBridge, \"save_hf_adapter\")` guard; patch applied when upstream lacks it.\n"
    "- `app/engine/compat.py:4` — version comparison with 2.0.0.\n"
    "- `app/engine/compat.py:8` — `try` import of the new helper location.\n"
)

BRIDGE_CL = (
    "---\npackage: fakepkg-bridge\ngithub: example/fakepkg-bridge\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/bridge/\nimport_names:\n  - fakepkg.bridge\n---\n\n"
    "## Affected Files\n\n### Primary\n\n_None._\n\n### Secondary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/models/cfg.py` | `BridgeConfig` |\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n"
    "### 1. `fakepkg.bridge.BridgeConfig`\n\nCalled in `app/models/cfg.py` (line 5):\n\n```python\n"
    "return BridgeConfig(num_layers=2, hidden_size=8, lora_rank=4)\n```\n\n**Check:** fields.\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


def pyproject(upstreams: Path, core: str = "1.0.0", bridge: str = "1.0.0") -> str:
    return f'''\
[project]
name = "app"
version = "0"
dependencies = ["fakepkg-core=={core}", "fakepkg-bridge=={bridge}", "packaging"]

[tool.upgrade-checklists]
roots = ["app"]
git_url = "file://{upstreams}/{{github}}"
families = {{ fakepkg = ["fakepkg-core", "fakepkg-bridge"] }}

[tool.upgrade-checklists.tiers]
primary = ["app/engine/"]
secondary = ["app/"]
tertiary = ["tests/"]
'''


@pytest.fixture(scope="session")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_upstreams(tmp_path_factory.mktemp("upstream"))


def make_project(path: Path, capsys, upstreams: Path) -> Repo:
    """The project under audit, committed with both packages pinned at 1.0.0."""
    r = Repo(path, capsys)
    r.path.mkdir()
    git(r.path, "init", "-q", "-b", "main")
    files = {
        "app/__init__.py": "", "app/engine/__init__.py": "", "app/models/__init__.py": "",
        "app/engine/core.py": CORE_PY, "app/engine/lora.py": LORA_PY, "app/engine/compat.py": COMPAT_PY,
        "app/models/cfg.py": CFG_PY, "checklists/fakepkg-core.md": CORE_CL, "checklists/fakepkg-bridge.md": BRIDGE_CL,
        "pyproject.toml": pyproject(upstreams), ".gitignore": "upgrade-summary.md\n.upgrade-checklists-cache/\n",
    }
    for rel, text in files.items():
        r.write(rel, text)
    r.commit("initial")
    return r


@pytest.fixture
def project(tmp_path: Path, capsys, upstreams: Path) -> Repo:
    r = make_project(tmp_path / "project", capsys, upstreams)
    r.cache = tmp_path / "cache"
    return r


def test_fixture_project_passes_structure_check(project: Repo) -> None:
    r = project.run("check")
    assert (r.code, r.out) == (0, "All checks passed (2 checklists, 7 files scanned).\n")


def bump(project: Repo, upstreams: Path, core: str = "2.0.0") -> None:
    project.write("pyproject.toml", pyproject(upstreams, core=core))


def audit(project: Repo, *args: str):
    """The audit with -v: every finding listed, info too."""
    return project.run("audit", "--cache-dir", str(project.cache), "-v", *args)


def pairs(run) -> list[tuple[str, str]]:
    return sorted((line.split(":1: ")[0], line.split(":1: ")[1].split()[0]) for line in run.lines if ":1: " in line)


BREAKING = [
    ("app/engine/core.py:11", "REMOVED_PARAM", "`fakepkg.core.parallel_state.initialize_model_parallel`: keyword `virtual_size` was removed"),
    ("app/engine/core.py:11", "RENAMED_PARAM", "`fakepkg.core.parallel_state.initialize_model_parallel`: keyword `tensor_model_parallel_size` was renamed: `tensor_model_parallel_size -> tp_size`"),
    ("app/engine/core.py:12", "RETURN_CHANGED", "`fakepkg.core.parallel_state.get_rank`: returns `str` (was `int`), and this call uses the result"),
    ("app/engine/core.py:13", "REMOVED_API", "`fakepkg.core.parallel_state.get_old_group` was removed at 2.0.0"),
    ("app/engine/core.py:14", "NEW_REQUIRED_PARAM", "`fakepkg.core.distributed.DistributedDataParallel`: `ddp_config` is required at 2.0.0 and this call does not pass it"),
    ("app/engine/core.py:14", "POSITION_CHANGED", "`fakepkg.core.distributed.DistributedDataParallel`: `model` moved from position 1 to 2, and this call passes it by position"),
    ("app/engine/core.py:14", "POSITION_CHANGED", "`fakepkg.core.distributed.DistributedDataParallel`: `config` moved from position 2 to 1, and this call passes it by position"),
    # a dataclass field renamed: the __init__ griffe builds from the fields
    ("app/engine/core.py:15", "RENAMED_PARAM", "`fakepkg.core.config.TransformerConfig`: keyword `hidden_size` was renamed: `hidden_size -> hidden_dim`"),
    # **kwargs swallowing a removed parameter
    ("app/engine/core.py:16", "REMOVED_PARAM", "`fakepkg.core.optim.get_optimizer`: `lr` was removed; `**kwargs` now swallows it silently"),
    # kernels/ has no __init__.py: loaded all the same
    ("app/engine/core.py:17", "POSITION_CHANGED", "`fakepkg.core.kernels.fused.fused_add`: `inplace` is now keyword-only, and this call passes it by position"),
    ("app/engine/core.py:18", "METHOD_CHANGED", "on the result of `fakepkg.core.distributed.DistributedDataParallel`: NEW_REQUIRED_PARAM: `fakepkg.core.distributed.DistributedDataParallel.no_sync`: `enabled` is required at 2.0.0 and this call does not pass it"),
    # `bridge.save_hf_pretrained(...)`: a call on an instance, in the file the entry names
    ("app/engine/core.py:20", "REMOVED_PARAM", "`fakepkg.core.bridge.AutoBridge.save_hf_pretrained`: keyword `source_path` was removed"),
    # a re-export move, seen from the catalog entry and from the import
    ("app/engine/core.py:21", "MOVED_API", "`fakepkg.core.utils.helper` is gone from `fakepkg.core.utils.helpers.helper` at 2.0.0; found at `fakepkg.core.tools.helpers.helper`"),
    ("app/engine/core.py:5", "MOVED_API", "import `fakepkg.core.utils.helper` no longer resolves at 2.0.0; `helper` is at `fakepkg.core.tools.helpers.helper`"),
    ("app/engine/lora.py:4", "GUARD_MISMATCH", "native `fakepkg.core.bridge.AutoBridge.save_hf_adapter(self, model, path, peft_config, base_model_name_or_path)` differs from the patch `save_hf_adapter(self, model, path, peft_config, show_progress, base_model_name_or_path)` (line 8): only in the patch: `show_progress`; names and order must match exactly"),
]

OTHER = [
    ("app/engine/compat.py:10", "MOVED_API", "[info] import `fakepkg.core.utils.helper` no longer resolves at 2.0.0; `helper` is at `fakepkg.core.tools.helpers.helper`"),
    ("app/engine/compat.py:4", "GUARD_DEAD", "[warning] version comparison with 2.0.0: at or below the new version 2.0.0, the guard can be removed"),
    ("app/engine/compat.py:8", "GUARD_DEAD", "[warning] the primary import `fakepkg.core.tools.helper` now resolves: the ImportError fallback can be removed"),
    ("app/engine/core.py:11", "NEW_OPTIONAL_PARAM", "[info] `fakepkg.core.parallel_state.initialize_model_parallel`: new optional parameter `context_size=1`"),
    ("app/engine/core.py:14", "NEW_REQUIRED_PARAM", "[info] `fakepkg.core.distributed.DistributedDataParallel`: `config` is now required (was optional); every call site passes it"),
    ("app/engine/lora.py:4", "GUARD_DEAD", "[warning] `fakepkg.core.bridge.AutoBridge` now has `save_hf_adapter`: the `hasattr` guard can be removed, once callers follow the native signature"),
    ("checklists/fakepkg-core.md:1", "FAMILY", "upgrade family `fakepkg`: fakepkg-core moves 1.0.0 -> 2.0.0 but fakepkg-bridge (at 1.0.0) does not; check that they are compatible"),
    ("checklists/fakepkg-core.md:135", "UNRESOLVED", "[info] entry 11: `POST /generate` is not a Python API name (HTTP surface or prose)"),
]


def test_the_audit_reads_the_project_without_comparing_it(project: Repo, upstreams: Path, monkeypatch) -> None:
    """The audit takes the checklists, their import names and the code's imports from the
    check's reading half (``compare.read_project``): the structure comparisons are the
    check's work, not repeated by every audit."""
    from upgrade_checklists.check import compare

    def refuse(*args, **kwargs):
        raise AssertionError("the audit compared the checklists with the code")

    for name in ("likely_matches", "compare_rows", "check_catalog", "check_status", "check_matrix"):
        monkeypatch.setattr(compare, name, refuse)
    bump(project, upstreams)
    r = audit(project)
    got = {(l.split(":1: ")[0], l.split(":1: ")[1].split(" ", 1)[0], l.split(":1: ")[1].split(" ", 1)[1].rsplit(" (checklists/", 1)[0]) for l in r.lines if ":1: " in l}
    assert (r.code, got) == (1, set(BREAKING) | set(OTHER))


def test_audit_of_a_moved_pin_finds_every_code(project: Repo, upstreams: Path) -> None:
    bump(project, upstreams)
    r = audit(project)
    assert r.code == 1
    got = {(l.split(":1: ")[0], l.split(":1: ")[1].split(" ", 1)[0], l.split(":1: ")[1].split(" ", 1)[1].rsplit(" (checklists/", 1)[0]) for l in r.lines if ":1: " in l}
    assert got == set(BREAKING) | set(OTHER)
    assert r.lines[-1] == "Audited 1 package(s): 15 breaking, 8 other."
    assert r.err.endswith("Wrote upgrade-summary.md\n")
    summary = project.read("upgrade-summary.md")
    assert "| `fakepkg-core` | 1.0.0       | 2.0.0       | default    |" in summary
    assert "#### fakepkg-core (1.0.0 → 2.0.0) @ default" in summary
    assert flat(f"Why: moved in pyproject.toml since HEAD. Source: file://{upstreams}/example/fakepkg-core v2.0.0.") in flat(summary)
    breaking = summary.split("**Breaking changes found:**")[1].split("**Module moves / renames:**")[0]
    assert breaking.count("\n- ") == 14  # the GUARD_MISMATCH is listed under Version-guarded code
    assert flat("- [app/engine/core.py:16] REMOVED_PARAM: `fakepkg.core.optim.get_optimizer`: `lr` was removed; "
                "`**kwargs` now swallows it silently") in flat(breaking)
    guards = summary.split("**Version-guarded code:**")[1].split("| #")[0]
    assert guards.count("\n- ") == 4
    assert flat("### Unresolved Issues - `fakepkg-core` @ default: [checklists/fakepkg-core.md:135] UNRESOLVED: entry 11:") in flat(summary)


def flat(text: str) -> str:
    """Text with mdformat's line wrapping undone."""
    return " ".join(text.split())


def test_subclass_inheriting_from_the_other_package(project: Repo) -> None:
    r = audit(project, "fakepkg-core==2.0.0", "fakepkg-bridge==1.0.0", "--from", "1.0.0")
    assert r.code == 1
    # BridgeConfig's fields come from fakepkg.core's TransformerConfig, loaded alongside
    assert ("app/models/cfg.py:5:1: RENAMED_PARAM `fakepkg.bridge.cfg.BridgeConfig`: keyword `hidden_size` was renamed: "
            "`hidden_size -> hidden_dim` (checklists/fakepkg-bridge.md:29)") in r.lines


def test_nothing_moved_binds_at_the_pins(project: Repo) -> None:
    r = audit(project)
    assert r.code == 0
    assert pairs(r) == [
        ("app/engine/compat.py:4", "GUARD_NEEDED"),
        ("app/engine/compat.py:8", "GUARD_NEEDED"),
        ("app/engine/compat.py:8", "MOVED_API"),
        ("app/engine/lora.py:4", "GUARD_NEEDED"),
        ("checklists/fakepkg-core.md:135", "UNRESOLVED"),
    ]
    assert r.lines[-1] == "Audited 2 package(s): 0 breaking, 5 other."
    assert "**No breaking changes found**" in project.read("upgrade-summary.md")


def test_json_output_and_summary_path(project: Repo, upstreams: Path) -> None:
    bump(project, upstreams)
    r = audit(project, "--format", "json", "--summary", "out/summary.md")
    doc = r.json()
    coverage = [p.pop("coverage") for p in doc["packages"]]
    assert doc["packages"] == [{"package": "fakepkg-core", "old_version": "1.0.0", "new_version": "2.0.0",
                                "source": f"file://{upstreams}/example/fakepkg-core v2.0.0", "variants": ["default"]}]
    # every use found is either checked or counted as unknown under a reason
    (cov,) = coverage
    assert cov["found"] > 0 and cov["checked"] + sum(cov["unknown"].values()) == cov["found"]
    first = next(f for f in doc["findings"] if f["code"] == "RETURN_CHANGED")
    assert first == {"code": "RETURN_CHANGED", "checklist": "checklists/fakepkg-core.md", "checklist_line": 41,
                     "file": "app/engine/core.py", "line": 12, "package": "fakepkg-core", "severity": "error", "fixable": False,
                     "message": "`fakepkg.core.parallel_state.get_rank`: returns `str` (was `int`), and this call uses the result"}
    assert doc["summary"]["findings_by_code"]["GUARD_DEAD"] == 3
    assert (project.path / "out/summary.md").is_file() and not (project.path / "upgrade-summary.md").exists()


def test_cache_is_reused(project: Repo, upstreams: Path, tmp_path: Path) -> None:
    bump(project, upstreams)
    assert audit(project).code == 1
    # with the upstream gone, the cached checkouts still serve
    project.edit("pyproject.toml", f"file://{upstreams}/", f"file://{tmp_path}/nowhere/")
    assert audit(project).code == 1


def index_env(monkeypatch, dist: Path) -> None:
    """pip (and the sdist lookup, through ``pip config list``) see only ``dist``."""
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(dist))
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)


def test_index_source_uses_wheels_and_unbuilt_sdists(project: Repo, upstreams: Path, tmp_path: Path, monkeypatch) -> None:
    dist = build_dists(upstreams, tmp_path / "dist")
    assert sorted(p.name for p in dist.iterdir()) == [
        "fakepkg_bridge-1.0.0-py3-none-any.whl", "fakepkg_core-1.0.0.tar.gz", "fakepkg_core-2.0.0.tar.gz"]
    index_env(monkeypatch, dist)
    bump(project, upstreams)
    r = audit(project, "--source", "index")
    assert r.code == 1
    got = {(l.split(":1: ")[0], l.split(":1: ")[1].split(" ", 1)[0]) for l in r.lines if ":1: " in l}
    assert got == {(a, b) for a, b, _ in BREAKING + OTHER}
    assert "Source: fakepkg_core-2.0.0.tar.gz." in flat(project.read("upgrade-summary.md"))
    cached = sorted(p.relative_to(project.cache).as_posix() for p in (project.cache / "index").glob("*/[!.@]*"))
    assert cached == ["index/fakepkg-bridge/1.0.0", "index/fakepkg-core/1.0.0", "index/fakepkg-core/2.0.0"]
    # the bridge's wheel: its package files, unpacked as they are
    assert (project.cache / "index/fakepkg-bridge/1.0.0/fakepkg/bridge/cfg.py").is_file()


def test_auto_source_says_when_git_failed_and_the_index_was_used(project: Repo, upstreams: Path, tmp_path: Path,
                                                                   monkeypatch) -> None:
    dist = build_dists(upstreams, tmp_path / "dist")
    index_env(monkeypatch, dist)
    bump(project, upstreams)
    project.edit("pyproject.toml", f"file://{upstreams}/", f"file://{tmp_path}/no-such-mirror/")
    r = audit(project)  # --source auto: git first, then the index
    assert r.code == 1
    notes = [l for l in r.err.splitlines() if "the git source failed" in l]
    assert notes and all(l.startswith("note: fakepkg-") and l.endswith("the index's was used") for l in notes)
    assert any(l.startswith("note: fakepkg-core 2.0.0: ") for l in notes)


def test_a_range_pin_without_from_says_only_the_new_version_is_checked(project: Repo, upstreams: Path) -> None:
    project.write("pyproject.toml", pyproject(upstreams).replace("fakepkg-core==1.0.0", "fakepkg-core>=1.0"))
    r = audit(project, "fakepkg-core==2.0.0")
    assert ("note: fakepkg-core @ default: no exact pin and no --from: only 2.0.0 is checked (binding only, no old/new "
            "comparison); give --from OLD to compare") in r.err.splitlines()
    r = audit(project, "fakepkg-core==2.0.0", "--from", "1.0.0")
    assert "no exact pin" not in r.err


CANARY_SETUP = """
    import pathlib
    pathlib.Path({path!r}).write_text("setup.py ran")
    from setuptools import setup
    setup()
    """


def test_no_upstream_code_runs_sdist_setup_py_and_wheel_pth(project: Repo, upstreams: Path, tmp_path: Path, monkeypatch) -> None:
    """An sdist whose ``setup.py`` and a wheel whose ``.pth`` file write a canary: after the
    audit fetched, unpacked and read both, neither canary exists."""
    core, bridge = upstreams / "example" / "fakepkg-core", upstreams / "example" / "fakepkg-bridge"
    dist = tmp_path / "dist"
    sdist_canary, pth_canary = tmp_path / "CANARY-sdist", tmp_path / "CANARY-pth"
    make_sdist(core, "v1.0.0", dist)
    make_sdist(core, "v2.0.0", dist, {"setup.py": CANARY_SETUP.format(path=str(sdist_canary))})
    wheel = make_wheel(bridge, "v1.0.0", dist, {"zz_canary.pth": f"import pathlib; pathlib.Path({str(pth_canary)!r}).write_text('pth ran')\n"})
    # both canaries are live: run the way an install would run them, they write their file
    check = tmp_path / "check"
    (check / "site").mkdir(parents=True)
    with zipfile.ZipFile(wheel) as z:
        (check / "site" / "zz_canary.pth").write_bytes(z.read("zz_canary.pth"))
    site_run = subprocess.run([sys.executable, "-c", f"import site; site.addsitedir({str(check / 'site')!r})"], capture_output=True)
    assert site_run.returncode == 0 and pth_canary.read_text() == "pth ran"
    (check / "sdist").mkdir()
    with tarfile.open(dist / "fakepkg_core-2.0.0.tar.gz") as t:
        (check / "sdist" / "setup.py").write_bytes(t.extractfile("fakepkg_core-2.0.0/setup.py").read())
    setup_run = subprocess.run([sys.executable, "setup.py", "--name"], cwd=check / "sdist", capture_output=True)
    assert setup_run.returncode == 0 and sdist_canary.read_text() == "setup.py ran"
    sdist_canary.unlink()
    pth_canary.unlink()

    index_env(monkeypatch, dist)
    bump(project, upstreams)
    r = audit(project, "--source", "index")
    assert r.code == 1 and "RENAMED_PARAM" in r.out  # the sources were fetched and read
    assert (project.cache / "index/fakepkg-core/2.0.0/setup.py").is_file()
    assert (project.cache / "index/fakepkg-bridge/1.0.0/zz_canary.pth").is_file()
    assert not sdist_canary.exists()
    assert not pth_canary.exists()


def test_concurrent_audits_share_the_source_cache(project: Repo, upstreams: Path, tmp_path: Path, monkeypatch) -> None:
    """Four audits at once on one cache directory: every one succeeds with the same findings,
    and each source is installed once (no leftover work directory, one lock file each)."""
    dist = build_dists(upstreams, tmp_path / "dist")
    index_env(monkeypatch, dist)
    bump(project, upstreams)
    cmd = [sys.executable, "-m", "upgrade_checklists", "audit", "--source", "index", "--cache-dir", str(project.cache),
           "--format", "json", "--summary"]
    procs = [subprocess.Popen([*cmd, str(tmp_path / f"s{i}.md")], cwd=project.path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(4)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [1, 1, 1, 1], [e for _, e in outs]
    assert len({o for o, _ in outs}) == 1
    assert json.loads(outs[0][0])["summary"]["findings_by_code"]["RENAMED_PARAM"] == 2
    left = sorted(p.name for p in (project.cache / "index" / "fakepkg-core").iterdir())
    assert left == [".1.0.0.lock", ".2.0.0.lock", "1.0.0", "2.0.0", "@1.0.0.complete", "@2.0.0.complete"]


def test_killed_fetches_leave_nothing_after_the_next_audit(project: Repo, upstreams: Path) -> None:
    """A fetch killed half-way leaves its work directory (``.fetch-DEST@…``, a partial clone
    in it) next to the destination; the next fetch into that destination removes it, under
    the destination's lock, and leaves another destination's work directory alone."""
    bump(project, upstreams)
    assert audit(project).code == 1
    parent = project.cache / "git" / "example_fakepkg-core"
    dests = sorted(p for p in parent.iterdir() if p.is_dir())
    assert [p.name.split("-sparse-")[0] for p in dests] == ["v1.0.0", "v2.0.0"]
    for dest in dests:  # a cold cache, and what two killed fetches into each destination left
        shutil.rmtree(dest)
        for n in (1, 2):
            (parent / f".fetch-{dest.name}@killed{n}" / "src" / "fakepkg").mkdir(parents=True)
            (parent / f".fetch-{dest.name}@killed{n}" / "src" / "fakepkg" / "half.py").write_text("def f(")
    other = parent / ".fetch-v9.9.9@elsewhere"  # another destination's (live or killed): not ours to remove
    other.mkdir()
    assert audit(project).code == 1
    assert sorted(p.name for p in parent.iterdir() if p.name.startswith(".fetch-")) == [other.name]
    assert all((dest / "fakepkg/core/parallel_state.py").is_file() for dest in dests)


def test_git_fetch_runs_no_hook_or_filter(project: Repo, upstreams: Path, tmp_path: Path, monkeypatch) -> None:
    """The upstream's ``.gitattributes`` asks for a filter that the user's git configuration
    defines, and that configuration also sets a hook path and a template with hooks: each
    would write a canary during clone or checkout; the audit's git runs none of them."""
    canary = tmp_path / "CANARY"
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for hook in ("post-checkout", "post-merge", "reference-transaction"):
        (hooks / hook).write_text(f"#!/bin/sh\necho {hook} >> {canary}\n")
        (hooks / hook).chmod(0o755)
    (tmp_path / "template" / "hooks").mkdir(parents=True)
    for hook in hooks.iterdir():
        (tmp_path / "template" / "hooks" / hook.name).write_text(hook.read_text())
        (tmp_path / "template" / "hooks" / hook.name).chmod(0o755)
    smudge = tmp_path / "smudge.sh"
    smudge.write_text(f"#!/bin/sh\necho smudge >> {canary}\ncat\n")
    smudge.chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        f"[filter \"canary\"]\n\tsmudge = {smudge}\n\trequired = true\n"
        f"[core]\n\thooksPath = {hooks}\n[init]\n\ttemplateDir = {tmp_path / 'template'}\n")
    mine = make_upstreams(tmp_path / "upstream")  # not the shared one: a tag is added
    project.edit("pyproject.toml", f"file://{upstreams}/", f"file://{mine}/")
    repo = mine / "example" / "fakepkg-core"
    work = tmp_path / "core-work"
    git(repo, "worktree", "add", "-q", str(work), "v2.0.0")
    (work / ".gitattributes").write_text("*.py filter=canary\n")
    git(work, "add", ".gitattributes")
    git(work, "commit", "-qm", "attributes")
    git(work, "tag", "v2.0.1")
    # the configuration is live: a plain clone with it runs the filter and the hooks
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    subprocess.run(["git", "clone", "-q", "--branch", "v2.0.1", str(repo), str(tmp_path / "plain")], check=True, capture_output=True)
    assert "smudge" in canary.read_text() and "post-checkout" in canary.read_text()
    canary.unlink()
    r = audit(project, "fakepkg-core==2.0.1", "--from", "1.0.0", "--source", "git")
    assert r.code == 1 and "RENAMED_PARAM" in r.out
    assert not canary.exists()


def test_failed_fetch_is_exit_2_and_written_in_the_summary(project: Repo) -> None:
    r = audit(project, "fakepkg-core==9.9.9", "--source", "git")
    assert r.code == 2
    # the failing command whole, and git's own error line
    assert re.search(r"^upgrade-checklists: error: fakepkg-core: cannot fetch fakepkg-core 9\.9\.9: git: "
                     r"`git clone --quiet --template= --no-recurse-submodules --depth 1 --branch v9\.9\.9 --no-checkout "
                     r"--filter=blob:none -- file://\S+/example/fakepkg-core \S+/src` failed: "
                     r"fatal: Remote branch v9\.9\.9 not found in upstream origin$", r.err, re.M), r.err
    summary = project.read("upgrade-summary.md")
    assert "### Unresolved Issues - The audit could not complete: fakepkg-core: cannot fetch fakepkg-core 9.9.9: git:" in flat(summary)


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["fakepkg-core==1.0;rm -rf ~"], "version '1.0;rm -rf ~' is not a valid version"),
        (["fakepkg-core==--upload-pack=x"], "version '--upload-pack=x' is not a valid version"),
        (["fakepkg-core==../../x"], "version '../../x' is not a valid version"),
        (["fakepkg-core==2.0.0", "--from=-x"], "--from '-x' is not a valid version"),
        (["nochecklist==1.0"], "'nochecklist' has no checklist in checklists/"),
        (["fakepkg-core>=2"], "'fakepkg-core>=2': expected PKG==VERSION"),
        (["--base-ref=--output=x"], "git ref '--output=x' is not allowed"),
    ],
)
def test_hostile_versions_are_refused_before_any_command(project: Repo, args: list[str], error: str) -> None:
    r = audit(project, *args)
    assert r.code == 2
    assert r.err == f"upgrade-checklists: error: {error}\n" or (error in r.err and r.err.count("\n") == 1)
    assert not (project.path / "upgrade-summary.md").exists()
    assert not project.cache.exists()


def test_hostile_frontmatter_never_reaches_git(project: Repo) -> None:
    project.edit("checklists/fakepkg-core.md", "branch_template: v${VERSION}", "branch_template: --upload-pack=touch${VERSION}")
    r = audit(project, "fakepkg-core==2.0.0", "--source", "git")
    assert r.code == 2
    assert "git ref '--upload-pack=touch2.0.0' is not allowed" in r.err
    assert not list(project.path.glob("touch*"))


def test_git_url_template_is_validated(project: Repo) -> None:
    project.edit("pyproject.toml", "/{github}", "/{github}/{other}")
    r = audit(project, "fakepkg-core==2.0.0", "--source", "git")
    assert r.code == 2
    assert "must contain {github} once and no other placeholder" in r.err


def test_lock_file_reveals_a_transitive_bump(project: Repo, upstreams: Path) -> None:
    project.edit("pyproject.toml", '"fakepkg-core==1.0.0", ', "")
    lock = '[[package]]\nname = "fakepkg-core"\nversion = "{}"\n'
    project.write("uv.lock", lock.format("1.0.0"))
    project.commit("lock")
    project.write("uv.lock", lock.format("2.0.0"))
    r = audit(project)
    assert r.code == 1
    assert "Why: moved in uv.lock since HEAD (transitive: no pin changed)." in flat(project.read("upgrade-summary.md"))


def test_fetch_error_names_the_whole_command_and_pips_first_error_line(tmp_path: Path) -> None:
    import sys

    from upgrade_checklists.audit.fetch import FetchError, _run

    fake_pip = tmp_path / "fake_pip.py"
    fake_pip.write_text(
        "import sys\n"
        "print('Collecting fakepkg==9', file=sys.stderr)\n"
        "print('ERROR: Could not find a version that satisfies fakepkg==9', file=sys.stderr)\n"
        "print('ERROR: No matching distribution found for fakepkg==9', file=sys.stderr)\n"
        "sys.exit(1)\n"
    )
    with pytest.raises(FetchError) as exc:
        _run([sys.executable, str(fake_pip), "download", "--no-deps", "fakepkg==9"], timeout=60)
    assert str(exc.value) == (f"`python3 -I {fake_pip} download --no-deps fakepkg==9` failed: "
                              "ERROR: Could not find a version that satisfies fakepkg==9")


def test_fetch_error_without_an_error_line_gives_the_last_line_or_the_exit_code() -> None:
    import sys

    from upgrade_checklists.audit.fetch import FetchError, _run

    with pytest.raises(FetchError, match=r"^`python3 -I -c 'print\(1\); print\(2\); exit\(3\)'` failed: 2$"):
        _run([sys.executable, "-c", "print(1); print(2); exit(3)"], timeout=60)
    with pytest.raises(FetchError, match=r"^`python3 -I -c 'exit\(4\)'` failed: exit 4$"):
        _run([sys.executable, "-c", "exit(4)"], timeout=60)


def test_info_findings_are_counted_and_listed_only_with_v(project: Repo, upstreams: Path) -> None:
    bump(project, upstreams)
    r = project.run("audit", "--cache-dir", str(project.cache))
    assert r.code == 1
    assert not [line for line in r.lines if "[info]" in line]
    assert len([line for line in r.lines if ":1: " in line]) == 15 + 8 - 4
    assert r.lines[-1] == "Audited 1 package(s): 15 breaking, 8 other (4 info not listed; -v lists them)."
    summary = project.read("upgrade-summary.md")
    # the summary names what did not resolve, and why
    # calls: 9 through imports (core.py lines 11-17, 19, 21), 2 methods on results (18, 20), the
    # recorded `bridge.save_hf_pretrained(...)` (20); bound: all but the removed and the moved API
    assert flat("Resolved 8 of 11 catalog APIs upstream; bound 9 of 12 call sites. Not resolved (3): "
                "- entry 3 `fakepkg.core.parallel_state.get_old_group`: removed at 2.0.0 (REMOVED_API) "
                "- entry 7 `fakepkg.core.utils.helper`: moved at 2.0.0 (MOVED_API) "
                "- entry 11 `POST /generate`: `POST /generate` is not a Python API name (HTTP surface or prose)") in flat(summary)


def test_a_failed_fetch_is_not_counted_as_breaking(project: Repo) -> None:
    r = project.run("audit", "--cache-dir", str(project.cache), "fakepkg-core==9.9.9", "--source", "git")
    assert r.code == 2
    assert r.lines[-1] == "Audited 1 package(s): 0 breaking, 2 other."
    summary = project.read("upgrade-summary.md")
    assert "**Not audited:** the upstream source could not be fetched (see Unresolved Issues)" in summary
    assert "**Breaking changes found:**" not in summary and "**No breaking changes found**" not in summary


def test_guard_patch_compared_parameter_by_parameter() -> None:
    from upgrade_checklists.audit.guards import param_differences

    pk, kw = "positional or keyword", "keyword-only"
    assert param_differences([("self", pk), ("a", pk), ("b", pk)], [("self", pk), ("a", pk), ("b", pk)]) == []
    assert param_differences([("self", pk), ("b", pk), ("a", pk), ("x", pk)], [("self", pk), ("a", pk), ("b", kw), ("y", kw)]) == [
        "only in the patch: `x`", "only native: `y`", "order differs for `b`, `a`", "`b` is keyword-only natively, positional or keyword in the patch"]


def test_guard_at_a_drifted_line_is_checked_where_its_quoted_expression_now_is(project: Repo, upstreams: Path) -> None:
    """The checklist still says `lora.py:4`; five lines were added above the guard, which is now
    at line 9. The audit checks it there, with the full verdict."""
    project.edit("app/engine/lora.py", "def apply_patch():\n", "import logging\n\nLOG = logging.getLogger(__name__)\n\n\ndef apply_patch():\n")
    assert project.read("app/engine/lora.py").splitlines()[8].strip() == 'if not hasattr(AutoBridge, "save_hf_adapter"):'
    bump(project, upstreams)
    r = audit(project)
    got = sorted(l.split(" (checklists/")[0] for l in r.lines if l.startswith("app/engine/lora.py:"))
    assert got == [
        "app/engine/lora.py:9:1: GUARD_DEAD [warning] `fakepkg.core.bridge.AutoBridge` now has `save_hf_adapter`: "
        "the `hasattr` guard can be removed, once callers follow the native signature",
        "app/engine/lora.py:9:1: GUARD_MISMATCH native `fakepkg.core.bridge.AutoBridge.save_hf_adapter(self, model, path, peft_config, "
        "base_model_name_or_path)` differs from the patch `save_hf_adapter(self, model, path, peft_config, show_progress, "
        "base_model_name_or_path)` (line 13): only in the patch: `show_progress`; names and order must match exactly",
    ]
    # before the upgrade, at the pin, the same drifted guard is still needed
    project.write("pyproject.toml", pyproject(upstreams))
    r = audit(project)
    assert [l.split(" (checklists/")[0] for l in r.lines if l.startswith("app/engine/lora.py:")] == [
        "app/engine/lora.py:9:1: GUARD_NEEDED [info] `fakepkg.core.bridge.AutoBridge` still lacks `save_hf_adapter`: "
        "the guard (and its patch) is still needed"]


def test_guards_recorded_without_a_line_are_found_by_their_code(project: Repo, upstreams: Path) -> None:
    """``new`` writes version guards by file and function, with no line that could go stale."""
    project.edit("checklists/fakepkg-core.md",
                 "- `app/engine/lora.py:4` — `hasattr(AutoBridge, \"save_hf_adapter\")` guard; patch applied when upstream lacks it.\n"
                 "- `app/engine/compat.py:4` — version comparison with 2.0.0.\n"
                 "- `app/engine/compat.py:8` — `try` import of the new helper location.\n",
                 "- `app/engine/lora.py` (`apply_patch`) — `hasattr(AutoBridge, \"save_hf_adapter\")`: a feature check.\n"
                 "- `app/engine/compat.py` — `Version(fakepkg.core.__version__) < Version(\"2.0.0\")`: a version comparison.\n"
                 "- `app/engine/compat.py` — `from fakepkg.core.tools import helper`: a `try` import.\n"
                 "- `app/engine/compat.py` — `fakepkg.core.gone()`: quoted code that is not there.\n")
    bump(project, upstreams)
    r = audit(project)
    guards = sorted(l.split(" (checklists/")[0] for l in r.lines if "GUARD_" in l)
    assert guards == [
        "app/engine/compat.py:1:1: GUARD_UNKNOWN [warning] version guard `app/engine/compat.py` not found",
        "app/engine/compat.py:4:1: GUARD_DEAD [warning] version comparison with 2.0.0: at or below the new version 2.0.0, the guard can be removed",
        "app/engine/compat.py:8:1: GUARD_DEAD [warning] the primary import `fakepkg.core.tools.helper` now resolves: the ImportError fallback can be removed",
        "app/engine/lora.py:4:1: GUARD_DEAD [warning] `fakepkg.core.bridge.AutoBridge` now has `save_hf_adapter`: the `hasattr` guard can be removed, once callers follow the native signature",
        "app/engine/lora.py:4:1: GUARD_MISMATCH native `fakepkg.core.bridge.AutoBridge.save_hf_adapter(self, model, path, peft_config, base_model_name_or_path)` differs from the patch `save_hf_adapter(self, model, path, peft_config, show_progress, base_model_name_or_path)` (line 8): only in the patch: `show_progress`; names and order must match exactly",
    ]


def test_a_range_is_not_a_pin_and_the_note_says_how_to_audit_it(project: Repo, upstreams: Path) -> None:
    # a library declares ranges, not pins: the audit with no argument (the upgrade-audit hook)
    # has no version to audit, and the note must say how to name them instead of only "not audited"
    project.write("pyproject.toml", pyproject(upstreams).replace('"fakepkg-core==1.0.0", "fakepkg-bridge==1.0.0"',
                                                                 '"fakepkg-core>=1.0", "fakepkg-bridge>=1.0"'))
    project.commit("ranges")
    r = project.run("audit", "--cache-dir", str(project.cache))
    assert r.code == 0
    note = ("fakepkg-core: no pinned version (`==`) in any manifest or lock file; not audited: "
            "name the versions, `upgrade-checklists audit fakepkg-core==NEW --from OLD`")
    assert f"note: {note}" in r.err.splitlines()
    assert note in flat(project.read("upgrade-summary.md"))
