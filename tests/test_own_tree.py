"""We use our own hook on ourselves: this repository's checklists are true."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import REPO_ROOT


def test_own_checklists_are_clean() -> None:
    r = subprocess.run([sys.executable, "-m", "upgrade_checklists", "check", "-v"], cwd=REPO_ROOT,
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT / "hooks")})
    assert r.returncode == 0
    assert r.stdout.startswith("All checks passed (") and r.stdout.count("\n") == 1, r.stdout
    assert "checklists/libcst.md: import names libcst (frontmatter import_names)" in r.stderr
    assert "checklists/markdown-it-py.md: import names markdown_it (frontmatter import_names)" in r.stderr


def test_the_template_the_guide_points_at_is_a_valid_checklist_that_is_never_checked(repo) -> None:
    import re
    import shutil

    guide = (REPO_ROOT / "CHECKLIST_MAINTENANCE.md").read_text(encoding="utf-8")
    assert set(re.findall(r"`(checklists/_\w+\.md)`", guide)) == {"checklists/_TEMPLATE.md"}
    from upgrade_checklists.core.checklist import read_checklist

    copy = repo.path.parent / "PIP-NAME.md"  # copied to <pip-name>.md, as the comment in it says
    shutil.copyfile(REPO_ROOT / "checklists/_TEMPLATE.md", copy)
    template = read_checklist(copy, "checklists/PIP-NAME.md")
    assert template.problems == []
    assert [row.file for row in template.rows] == ["pkg/engine/engine.py", "tests/test_engine.py"]
    # in a repository, the loader skips it: its made-up rows are never reported
    shutil.copyfile(REPO_ROOT / "checklists/_TEMPLATE.md", repo.path / "checklists/_TEMPLATE.md")
    r = repo.run("check")
    assert (r.code, r.out) == (0, "All checks passed (1 checklist, 8 files scanned).\n")
