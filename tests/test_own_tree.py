"""We use our own hook on ourselves: this repository's checklists are true."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import REPO_ROOT


def test_own_checklists_are_clean() -> None:
    r = subprocess.run([sys.executable, "-m", "upgrade_checklists", "check", "-v"], cwd=REPO_ROOT,
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT / "hooks")})
    assert (r.returncode, r.stdout) == (0, "")
    assert "checklists/libcst.md: import names libcst (frontmatter import_names)" in r.stderr
    assert "checklists/markdown-it-py.md: import names markdown_it (frontmatter import_names)" in r.stderr
