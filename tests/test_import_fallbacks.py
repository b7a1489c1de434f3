"""An import under ``try/except ImportError`` that no longer resolves: how much it matters.

The fixture upstream ``fallpkg`` (a local git repository, releases 1.0.0 and 2.0.0) moves ``helper``
from ``fallpkg.legacy`` to ``fallpkg.current`` and drops ``fallpkg.util`` and ``fallpkg.moved``. An
import in the ``try`` block has a way out (the ``except`` block): ``info``. An import in the ``except``
block is the last resort, whose own ``ImportError`` nothing catches:

- the ``try`` block imports ``fallpkg.current.helper``, which resolves at 2.0.0: the ``except`` block is
  not reached there (``info``);
- the ``try`` block imports ``fallpkg.moved.thing``, gone at 2.0.0 too: the ``except`` block runs and
  fails (an error);
- the ``try`` block imports another package: the ``except`` block runs where that one is missing (a
  warning);
- an ``except`` block inside an outer ``try`` that catches ``ImportError``: that one has a way out (``info``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import Repo
from upstream import app_findings, audited_project, project_pyproject, tagged_upstream
from upgrade_checklists.project.uses import IMPORT, find_uses

V1 = {"fallpkg/__init__.py": '__version__ = "1.0.0"\n',
      "fallpkg/legacy.py": "def helper():\n    return 1\n",
      "fallpkg/util.py": "def thing():\n    return 1\n\n\ndef tool():\n    return 2\n",
      "fallpkg/moved.py": "def thing():\n    return 1\n"}
V2 = {"fallpkg/__init__.py": '__version__ = "2.0.0"\n',
      "fallpkg/current.py": "def helper():\n    return 1\n",
      "fallpkg/legacy.py": None, "fallpkg/util.py": None, "fallpkg/moved.py": None}  # None: the file is gone

COMPAT_PY = '''\
try:
    from fallpkg.current import helper
except ImportError:
    from fallpkg.legacy import helper
try:
    from fallpkg.moved import thing
except ImportError:
    from fallpkg.util import thing
try:
    import speedups
except ImportError:
    from fallpkg.util import tool
try:
    try:
        import speedups as fast
    except ImportError:
        from fallpkg.util import tool as fast
except ImportError:
    fast = None
'''

CHECKLIST = (
    "---\npackage: fallpkg\ngithub: example/fallpkg\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fallpkg/\nimport_names:\n  - fallpkg\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/compat.py` | `fallpkg` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("fallpkg"), "fallpkg", [("1.0.0", V1), ("2.0.0", V2)])


@pytest.fixture
def project(tmp_path: Path, capsys, upstream: Path) -> Repo:
    return audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/compat.py": COMPAT_PY,
        "checklists/fallpkg.md": CHECKLIST, "pyproject.toml": project_pyproject("fallpkg", upstream, "1.0.0")})


def test_the_except_blocks_import_is_the_last_resort() -> None:
    uses = {u.line: u for u in find_uses({"app/compat.py": (COMPAT_PY, ast.parse(COMPAT_PY))}, ["fallpkg"]) if u.kind == IMPORT}
    assert {line: (u.fallback, u.last_resort, u.tried) for line, u in uses.items()} == {
        2: (True, False, ()),
        4: (True, True, ("fallpkg.current.helper",)),
        6: (True, False, ()),
        8: (True, True, ("fallpkg.moved.thing",)),
        12: (True, True, ()),  # the try block imports another package
        17: (True, False, ()),  # the outer try catches its ImportError
    }


def test_an_except_blocks_import_that_runs_and_fails_is_an_error(project: Repo, upstream: Path) -> None:
    project.write("pyproject.toml", project_pyproject("fallpkg", upstream, "2.0.0"))
    r = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    got = {w: m for w, c, m in app_findings(r) if c in ("REMOVED_API", "MOVED_API")}
    assert got["app/compat.py:4"].startswith("[info] import `fallpkg.legacy.helper` no longer resolves at 2.0.0")
    assert got["app/compat.py:6"].startswith("[info] import `fallpkg.moved.thing` no longer resolves at 2.0.0")
    assert got["app/compat.py:8"] == (
        "import `fallpkg.util.thing` no longer resolves at 2.0.0 (in the `except ImportError` block, which runs: "
        "the `try` block's import of `fallpkg.moved.thing` fails at 2.0.0 too)")
    assert got["app/compat.py:12"] == (
        "[warning] import `fallpkg.util.tool` no longer resolves at 2.0.0 (in the `except ImportError` block: "
        "it runs where the `try` block's import fails)")
    assert got["app/compat.py:17"].startswith("[info] import `fallpkg.util.tool` no longer resolves at 2.0.0")
    assert r.code == 1  # the error breaks the upgrade
