"""audit --fix: moved Source paths and upstream_paths, dead-guard markers, status counts;
atomic, idempotent, mdformat-stable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import mdformat

from conftest import Repo
from test_audit import CORE_CL, audit, project, upstreams  # noqa: F401 (fixtures)

EXT = {"gfm", "tables", "frontmatter"}


def formatted_checklist() -> str:
    text = CORE_CL.replace("upstream_paths:\n  - fakepkg/core/\n", "upstream_paths:\n  - fakepkg/core/utils/helpers.py\n  - fakepkg/core/bridge.py\n")
    text = text.replace("### 7. `fakepkg.core.utils.helper`\n\n", "### 7. `fakepkg.core.utils.helper`\n\n**Source:** `fakepkg/core/utils/helpers.py`\n\n")
    return mdformat.text(text, options={"wrap": 88}, extensions=EXT)


STATUS = "| Package | Checklist file | Status |\n| --- | --- | --- |\n| `fakepkg-core` | `checklists/fakepkg-core.md` | 9 API entries |\n| `fakepkg-bridge` | `checklists/fakepkg-bridge.md` | 1 API entries |\n"


def setup(project: Repo, upstreams: Path) -> None:
    project.write("checklists/fakepkg-core.md", formatted_checklist())
    project.write("STATUS.md", STATUS)
    project.edit("pyproject.toml", "[tool.upgrade-checklists]\n", '[tool.upgrade-checklists]\nstatus_file = "STATUS.md"\n')
    project.commit("formatted, with a status file")
    project.edit("pyproject.toml", "fakepkg-core==1.0.0", "fakepkg-core==2.0.0")


def test_write_back_after_an_upgrade(project: Repo, upstreams: Path) -> None:
    setup(project, upstreams)
    before = project.read("checklists/fakepkg-core.md")
    r = audit(project, "--fix")
    assert r.code == 1
    assert [l for l in r.out.splitlines() if l.startswith("Fixing ")] == ["Fixing checklists/fakepkg-core.md", "Fixing STATUS.md"]
    after = project.read("checklists/fakepkg-core.md")
    # the moved API's Source, and the frontmatter path that named the old file
    assert "**Source:** `fakepkg/core/tools/helpers.py`" in after and "fakepkg/core/utils/helpers.py" not in after
    assert "upstream_paths:\n  - fakepkg/core/tools/helpers.py\n  - fakepkg/core/bridge.py\n" in after
    # dead guards marked; the hasattr guard whose patch differs from the native method is not
    guards = after.split("## Version-Guarded Code")[1]
    compat4, compat8, lora = (next(b for b in guards.split("\n- ") if b.startswith(f"`{ref}`")) for ref in
                              ("app/engine/compat.py:4", "app/engine/compat.py:8", "app/engine/lora.py:4"))
    assert compat4.rstrip().endswith("<!-- TODO: guard can be removed at 2.0.0 -->")
    assert compat8.rstrip().endswith("<!-- TODO: guard can be removed at 2.0.0 -->")
    assert "TODO" not in lora
    # nothing else changed: the edited lines aside, the bytes are the same
    assert [l for l in before.splitlines() if l not in after.splitlines()] == [
        "  - fakepkg/core/utils/helpers.py", "**Source:** `fakepkg/core/utils/helpers.py`"]
    # mdformat wraps the long guard lines: the marker goes on a continuation line of the item
    assert [l for l in after.splitlines() if l not in before.splitlines()] == [
        "  - fakepkg/core/tools/helpers.py", "**Source:** `fakepkg/core/tools/helpers.py`",
        "      <!-- TODO: guard can be removed at 2.0.0 -->", "      <!-- TODO: guard can be removed at 2.0.0 -->"]
    assert project.read("STATUS.md").count("11 API entries") == 1
    # mdformat (--wrap=88) changes nothing
    path = project.path / "checklists/fakepkg-core.md"
    m = subprocess.run([sys.executable, "-m", "mdformat", "--wrap", "88", "--check", str(path)], capture_output=True, text=True)
    assert m.returncode == 0, m.stderr
    # idempotent: a second run rewrites nothing
    again = audit(project, "--fix")
    assert "Fixing" not in again.out and project.read("checklists/fakepkg-core.md") == after
    assert again.code == 1  # still breaking: the code has not been fixed
    # the check agrees with what was written (no new structure finding)
    assert [l for l in project.run("check").lines if "STATUS" in l or "FRONTMATTER" in l or "FORMAT" in l] == []


def test_without_fix_nothing_is_written(project: Repo, upstreams: Path) -> None:
    setup(project, upstreams)
    before = project.read("checklists/fakepkg-core.md")
    r = audit(project)
    assert "Fixing" not in r.out and project.read("checklists/fakepkg-core.md") == before


def test_unformatted_checklist_keeps_its_bytes_outside_the_edits(project: Repo, upstreams: Path) -> None:
    text = CORE_CL.replace("### 7. `fakepkg.core.utils.helper`\n\n", "### 7. `fakepkg.core.utils.helper`\n\n")
    assert mdformat.text(text, options={"wrap": 88}, extensions=EXT) != text  # not mdformat-formatted
    project.edit("pyproject.toml", "fakepkg-core==1.0.0", "fakepkg-core==2.0.0")
    r = audit(project, "--fix")
    assert r.code == 1 and "Fixing checklists/fakepkg-core.md" in r.out
    after = project.read("checklists/fakepkg-core.md")
    # entry 7 had no Source line: one is added under its heading
    assert "### 7. `fakepkg.core.utils.helper`\n\n**Source:** `fakepkg/core/tools/helpers.py`\n\nCalled in" in after
    changed = [l for l in after.splitlines() if l not in text.splitlines()]
    assert changed == [
        "**Source:** `fakepkg/core/tools/helpers.py`",
        "- `app/engine/compat.py:4` — version comparison with 2.0.0. <!-- TODO: guard can be removed at 2.0.0 -->",
        "- `app/engine/compat.py:8` — `try` import of the new helper location. <!-- TODO: guard can be removed at 2.0.0 -->",
    ]
    assert [l for l in text.splitlines() if l not in after.splitlines()] == [
        "- `app/engine/compat.py:4` — version comparison with 2.0.0.",
        "- `app/engine/compat.py:8` — `try` import of the new helper location.",
    ]
