"""A deprecated method warns whatever reaches it: called on a parameter the project annotates, on what an
upstream call returned, or through ``self`` / ``super()`` of a project subclass, not only as a dotted path.

The fixture upstream ``fakepkg-old`` (a local git repository, two tagged releases): at 2.0.0 ``Engine.execute``
warns (``DeprecationWarning``, in its body) and ``Engine.run`` does not; ``connect()`` returns an ``Engine``."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Repo
from upstream import app_findings, audited_project, project_pyproject, tagged_upstream

ENGINE_V1 = '''
    import warnings


    def helper():
        warnings.warn("helper() is deprecated", DeprecationWarning)


    class Engine:
        def execute(self, statement):
            return statement

        def legacy(self):
            warnings.warn("Engine.legacy() is deprecated", DeprecationWarning)

        def run(self, statement):
            return statement


    def connect() -> Engine:
        return Engine()
    '''
ENGINE_V2 = '''
    import warnings


    def helper():
        warnings.warn("helper() is deprecated", DeprecationWarning)


    class Engine:
        def legacy(self):
            warnings.warn("Engine.legacy() is deprecated", DeprecationWarning)

        def execute(self, statement):
            warnings.warn("Engine.execute() is legacy: use Connection.execute()", DeprecationWarning)
            return statement

        def run(self, statement):
            return statement


    def connect() -> Engine:
        return Engine()
    '''
INIT = "from fakepkg.old.engine import Engine, connect, helper\n"

# line numbers matter: the assertions name them
APP = '''\
from fakepkg.old import Engine, connect, helper


def annotated(engine: Engine):
    engine.execute("a")
    engine.run("b")


def returned():
    connect().execute("c")


class Mine(Engine):
    def go(self):
        self.execute("d")
        super().execute("e")
        return self.run("f")


def already(engine: Engine):
    engine.legacy()
    helper()
'''

CHECKLIST = (
    "---\npackage: fakepkg-old\ngithub: example/fakepkg-old\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/old/\nimport_names:\n  - fakepkg.old\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/db.py` | `Engine`, `connect` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("old-upstream"), "fakepkg-old", [
        ("1.0.0", {"fakepkg/old/__init__.py": INIT, "fakepkg/old/engine.py": ENGINE_V1}),
        ("2.0.0", {"fakepkg/old/__init__.py": INIT, "fakepkg/old/engine.py": ENGINE_V2})])


def test_a_deprecated_method_is_said_wherever_the_project_calls_it(tmp_path: Path, capsys, upstreams: Path) -> None:
    project: Repo = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/db.py": APP, "checklists/fakepkg-old.md": CHECKLIST,
        "pyproject.toml": project_pyproject("fakepkg-old", upstreams, "1.0.0")})
    project.write("pyproject.toml", project_pyproject("fakepkg-old", upstreams, "2.0.0"))
    r = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache))
    said = "[warning] `fakepkg.old.engine.Engine.execute` is deprecated at 2.0.0: \"Engine.execute() is legacy: use Connection.execute()\""
    got = {(w, m.split(" (", 1)[0] if m.startswith(said) else m) for w, c, m in app_findings(r) if c == "DEPRECATED"}
    # 5: an annotated parameter; 10: the result of connect(); 15 and 16: self and super() in a subclass;
    # run() (6, 17) is not deprecated
    assert got == {("app/db.py:5", said), ("app/db.py:10", said), ("app/db.py:15", said), ("app/db.py:16", said)}
    assert r.code == 0  # warnings: nothing breaks
    # 21, 22: deprecated at the old version too: its callers saw the warning before this upgrade
    r = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    older = {(w, m) for w, c, m in app_findings(r) if c == "DEPRECATED" and w in ("app/db.py:21", "app/db.py:22")}
    assert older == {
        ("app/db.py:21", "[info] `fakepkg.old.engine.Engine.legacy` is deprecated at 2.0.0: \"Engine.legacy() is deprecated\" "
                         "(`engine` annotated `fakepkg.old.Engine` in `already`) (deprecated at the old version too: not news of this upgrade)"),
        ("app/db.py:22", "[info] `fakepkg.old.engine.helper` is deprecated at 2.0.0: \"helper() is deprecated\" "
                         "(deprecated at the old version too: not news of this upgrade)")}
