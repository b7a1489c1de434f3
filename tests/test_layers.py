"""The package's layers (``[tool.importlinter]`` in pyproject.toml), checked by import-linter.

The contracts are run on the package as it is, and on a copy with one import that goes up
a layer, so a contract that checks nothing (a misspelt layer, a wrong container) fails too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "hooks" / "upgrade_checklists"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint(cwd: Path, pythonpath: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def _copy(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copytree(PACKAGE, tmp_path / "src" / "upgrade_checklists",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "src" / "upgrade_checklists"


def test_the_layers_are_kept(tmp_path: Path) -> None:
    _copy(tmp_path)
    out = _lint(tmp_path, tmp_path / "src")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 kept, 0 broken" in out.stdout


def test_an_import_up_a_layer_breaks_the_layers(tmp_path: Path) -> None:
    package = _copy(tmp_path)
    config = package / "core" / "config.py"
    config.write_text(config.read_text() + "\nfrom upgrade_checklists.check import fix  # up from core\n")
    out = _lint(tmp_path, tmp_path / "src")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "upgrade_checklists.core.config -> upgrade_checklists.check.fix" in out.stdout


def test_the_audit_importing_the_check_breaks_their_independence(tmp_path: Path) -> None:
    package = _copy(tmp_path)
    bind = package / "audit" / "bind.py"
    bind.write_text(bind.read_text() + "\nfrom upgrade_checklists.check import rows  # across\n")
    out = _lint(tmp_path, tmp_path / "src")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "independent BROKEN" in out.stdout
