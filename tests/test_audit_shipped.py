"""A package the upstream distribution ships beside the one the checklist names (pytest ships
``_pytest`` too): the project's imports of it are audited with the package, and the audit says that the
checklist leaves them out."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Repo
from upstream import app_findings, audited_project, project_pyproject, tagged_upstream
from upgrade_checklists.audit.shipped import left_out, shipped
from upgrade_checklists.project.uses import Sources

V1 = {"shipmain/__init__.py": "from _shipcore.config import Config\n",
      "_shipcore/__init__.py": "", "_shipcore/config.py": "class Config:\n    def get(self, name):\n        return name\n",
      "tests/__init__.py": "", "helper.py": "X = 1\n", "no_init/mod.py": "Y = 1\n"}
V2 = {**V1, "_shipcore/config.py": "class Config:\n    def get(self, name, default):\n        return name\n"}

CHECKLIST = (
    "---\npackage: shipmain\ngithub: example/shipmain\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - shipmain/\n  - _shipcore/\nimport_names:\n  - shipmain\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/uses.py` | `shipmain` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)

USES_PY = "import shipmain\nfrom _shipcore.config import Config\n\n\ndef read(c: Config):\n    return c.get('x')\n"
OTHER_PY = "import _shipcore.config\n"


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("ship-upstream"), "shipmain", [("1.0.0", V1), ("2.0.0", V2)])


def test_a_package_the_names_leave_out_is_audited_with_the_package_and_the_user_is_told(tmp_path: Path, capsys, upstreams: Path) -> None:
    project: Repo = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/uses.py": USES_PY, "app/other.py": OTHER_PY,
        "checklists/shipmain.md": CHECKLIST, "pyproject.toml": project_pyproject("shipmain", upstreams, "2.0.0")})
    # the git source checks out the upstream paths (an index's wheel holds every package the distribution ships)
    r = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache))
    got = sorted(f for f in app_findings(r) if not f[2].startswith("[info]"))
    assert got == [
        ("app/other.py:1", "UNRESOLVED",
         "[warning] `_shipcore` is a package the shipmain distribution ships, imported here (and 1 other file(s)), but the "
         "checklist's import names leave it out: its uses are audited with the package in this run, but the checklist does "
         "not list them (add it to `import_names`)"),
        ("app/uses.py:6", "NEW_REQUIRED_PARAM", "`_shipcore.config.Config.get`: `default` is required at 2.0.0 and this "
         "call does not pass it (`c` annotated `_shipcore.config.Config` in `read`)"),
    ]
    assert r.code == 1  # the break in `c.get('x')` is seen though the checklist names only shipmain


def test_what_counts_as_shipped_and_left_out(tmp_path: Path) -> None:
    root = tmp_path / "src"
    for rel, text in {**V1, "src/inner/__init__.py": "", "stubbed/__init__.pyi": "", "bad-name/__init__.py": ""}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    # folders with an __init__ (a stub one too), in the root or its src/; test folders, modules, folders without one,
    # and names that are no identifiers are left out
    assert shipped([root]) == ["_shipcore", "inner", "shipmain", "stubbed"]
    files = {"app/a.py": "from _shipcore import x\nimport inner.y\n", "app/b.py": "# _shipcore named in a comment\n",
             "stubbed/own.py": "import stubbed\n", "app/c.py": "from . import _shipcore\nimport shipmainx\n"}
    sources = Sources.of({rel: (text, __import__("ast").parse(text)) for rel, text in files.items()})
    # covered by an import name (a dotted one by its top); the project's own folder of that name; a relative import
    assert [(lo.name, lo.file, lo.line, lo.files) for lo in left_out([root], ["shipmain.core"], sources)] == [
        ("_shipcore", "app/a.py", 1, 1), ("inner", "app/a.py", 2, 1)]
    assert left_out([tmp_path / "absent"], ["shipmain"], sources) == []
