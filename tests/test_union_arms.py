"""A call (or a read) on a receiver typed by a union of upstream classes is a use on each arm; when it
fails the same way on several arms, the audit says it once, naming the arms.

The fixture upstream ``fakepkg-arms`` (a local git repository, two tagged releases): between them
``Left.send`` and ``Right.send`` both gain a required ``mode``, ``Left.__init__`` and
``Right.__init__`` both stop setting ``size``, and only ``Left.close`` gains a required ``force``."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Repo
from upstream import app_findings, audited_project, project_pyproject, tagged_upstream


def _core(send: str, close_left: str) -> str:
    return f'''
        class Left:
            def __init__(self):
                {"self.size = 1" if send == "x" else "pass"}

            def send(self, {send}):
                return None

            def close(self, {close_left}):
                return None


        class Right:
            def __init__(self):
                {"self.size = 1" if send == "x" else "pass"}

            def send(self, {send}):
                return None

            def close(self, now=False):
                return None
        '''


V1 = {"fakepkg/arms/__init__.py": "from fakepkg.arms.core import Left, Right\n", "fakepkg/arms/core.py": _core("x", "now=False")}
V2 = {**V1, "fakepkg/arms/core.py": _core("x, mode", "now=False, *, force")}

# line numbers matter: the assertions name them
APP_PY = '''\
from typing import Union

from fakepkg.arms import Left, Right


def use(either: Union[Left, Right], one: Left):
    either.send(1)  # 7: one NEW_REQUIRED_PARAM naming both arms
    either.size  # 8: one REMOVED_API naming both arms
    either.close()  # 9: only Left's close breaks: the Left arm's finding as it was
    one.send(2)  # 10: no union: as it was
'''

CHECKLIST = (
    "---\npackage: fakepkg-arms\ngithub: example/fakepkg-arms\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/arms/\nimport_names:\n  - fakepkg.arms\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/arms.py` | `Left`, `Right` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("arms-upstream"), "fakepkg-arms", [("1.0.0", V1), ("2.0.0", V2)])


def test_a_call_failing_on_two_arms_is_one_finding_naming_both(tmp_path: Path, capsys, upstreams: Path) -> None:
    project: Repo = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/arms.py": APP_PY, "checklists/fakepkg-arms.md": CHECKLIST,
        "pyproject.toml": project_pyproject("fakepkg-arms", upstreams, "1.0.0")})
    project.write("pyproject.toml", project_pyproject("fakepkg-arms", upstreams, "2.0.0"))
    r = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    assert r.code == 1
    got = sorted((w, c, m) for w, c, m in app_findings(r) if not m.startswith("["))
    union = "`either` annotated `fakepkg.arms.Left | fakepkg.arms.Right` in `use`"
    arms = "on the arms `fakepkg.arms.Left`, `fakepkg.arms.Right`"
    assert got == [
        ("app/arms.py:10", "NEW_REQUIRED_PARAM", "`fakepkg.arms.core.Left.send`: `mode` is required at 2.0.0 and this call "
         "does not pass it (`one` annotated `fakepkg.arms.Left` in `use`)"),
        ("app/arms.py:7", "NEW_REQUIRED_PARAM", "`fakepkg.arms.core.Left.send`: `mode` is required at 2.0.0 and this call "
         "does not pass it; `fakepkg.arms.core.Right.send`: `mode` is required at 2.0.0 and this call does not pass it "
         f"({union}: {arms})"),
        ("app/arms.py:8", "REMOVED_API", "`fakepkg.arms.core.Left.size` (defined at fakepkg/arms/core.py:3) was removed at "
         "2.0.0; `fakepkg.arms.core.Right.size` (defined at fakepkg/arms/core.py:14) was removed at 2.0.0 "
         f"({union}: {arms})"),
        ("app/arms.py:9", "NEW_REQUIRED_PARAM", "`fakepkg.arms.core.Left.close`: `force` is required at 2.0.0 and this call "
         f"does not pass it ({union}: a `fakepkg.arms.Left`)"),
    ]
