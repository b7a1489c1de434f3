"""pluggy's registry by name: an object upstream registers with ``pm.register(obj, "name")``, where
the object's class is known, is what ``pm.get_plugin("name")`` returns on a receiver typed as a
``PluginManager`` (pytest's ``FixtureManager.__init__`` registers ``self`` as ``"funcmanage"``; a
plugin asks ``config.pluginmanager.get_plugin("funcmanage")`` for it).

The fixture upstream ``fakepkg-pm`` (a local git repository, two tagged releases) registers a few
objects; between the releases ``FixtureManager.closure`` swaps its parameters and gains a required
``ignore``; ``Reporter.report`` does not change."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from conftest import Repo
from upstream import app_findings, audited_project, project_pyproject, tagged_upstream
from upgrade_checklists.audit.hookspecs import registered_plugins

MANAGER = '''
    import pluggy


    class AppPluginManager(pluggy.PluginManager):
        """pluggy's manager (another distribution, not followed here) with the app's additions."""

        def extra(self):
            return None
    '''

FIXTURES_V1 = '''
    from fakepkg.pm.manager import AppPluginManager


    class Config:
        pluginmanager: AppPluginManager

        def get_plugin(self, name):
            return None


    class FixtureManager:
        def __init__(self, config: Config):
            self.config = config  # stores on self, as pytest's does: self is still the instance registered
            config.pluginmanager.register(self, "funcmanage")

        def closure(self, names, node):
            return names


    class Reporter:
        def report(self):
            return None


    class Other:
        pass


    def setup(config: Config):
        rep = Reporter()
        config.pluginmanager.register(rep, "reporter")
        config.pluginmanager.register(Other(), "twice")
        config.pluginmanager.register(Reporter(), name="twice")
        config.pluginmanager.register(object(), "opaque")
    '''

FIXTURES_V2 = FIXTURES_V1.replace("def closure(self, names, node):", "def closure(self, node, names, ignore):")


def _release(fixtures: str) -> dict[str, str]:
    return {"fakepkg/pm/__init__.py": "from fakepkg.pm.fixtures import Config, FixtureManager\n",
            "fakepkg/pm/manager.py": MANAGER, "fakepkg/pm/fixtures.py": fixtures}


# line numbers matter: the assertions name them
PLUGIN_PY = '''\
from fakepkg.pm import Config


def use(config: Config, name):
    fm = config.pluginmanager.get_plugin("funcmanage")
    fm.closure(["a"], None)
    config.pluginmanager.get_plugin("reporter").report()
    config.pluginmanager.get_plugin("twice").report()
    config.pluginmanager.get_plugin("opaque").closure(["b"], None)
    config.pluginmanager.get_plugin("missing").closure(["c"], None)
    config.pluginmanager.get_plugin(name).closure(["d"], None)
    config.get_plugin("funcmanage").closure(["e"], None)
'''

CHECKLIST = (
    "---\npackage: fakepkg-pm\ngithub: example/fakepkg-pm\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/pm/\nimport_names:\n  - fakepkg.pm\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/plugin.py` | `Config` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("pm-upstream"), "fakepkg-pm",
                           [("1.0.0", _release(FIXTURES_V1)), ("2.0.0", _release(FIXTURES_V2))])


def test_get_plugin_by_name_is_the_class_upstream_registers(tmp_path: Path, capsys, upstreams: Path) -> None:
    project: Repo = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/plugin.py": PLUGIN_PY, "checklists/fakepkg-pm.md": CHECKLIST,
        "pyproject.toml": project_pyproject("fakepkg-pm", upstreams, "1.0.0")})
    project.write("pyproject.toml", project_pyproject("fakepkg-pm", upstreams, "2.0.0"))
    r = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    assert r.code == 1
    errors = {(w, c) for w, c, m in app_findings(r) if not m.startswith("[")}
    # only the "funcmanage" plugin is typed as what upstream registers (FixtureManager): its closure now takes
    # (node, names, ignore); "reporter" binds Reporter.report (unchanged); "twice" is registered with two
    # classes, "opaque" with an object of no class read, "missing" not at all, `name` is no literal, and
    # Config is no PluginManager: none is typed
    assert errors == {("app/plugin.py:6", "NEW_REQUIRED_PARAM"), ("app/plugin.py:6", "POSITION_CHANGED")}
    msg = next(m for w, c, m in app_findings(r) if w == "app/plugin.py:6" and c == "NEW_REQUIRED_PARAM")
    assert msg == ("`fakepkg.pm.fixtures.FixtureManager.closure`: `ignore` is required at 2.0.0 and this call does not "
                   "pass it (`fm` is `fakepkg.pm.Config.pluginmanager.get_plugin('funcmanage')` in `use`: a "
                   "`fakepkg.pm.fixtures.FixtureManager`)")
    # the same again, from the model's cache
    again = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    assert {(w, c) for w, c, m in app_findings(again) if not m.startswith("[")} == errors


def _registry(tmp_path: Path, files: dict[str, str]) -> dict[str, str | None]:
    listed = []
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
        listed.append((rel.removesuffix(".py").replace("/", "."), path))
    return registered_plugins(listed, lambda p: p.read_bytes())


def test_registered_plugins_are_read_structurally(tmp_path: Path) -> None:
    got = _registry(tmp_path, {
        "fw/__init__.py": "",
        "fw/plugins.py": '''
            class Cache:
                def __init__(self, pm):
                    self.pm = pm  # an attribute stored on self leaves self the instance
                    self.seen: dict = {}
                    self.seen["x"], self.n = 1, 2
                    pm.register(self, "cache")

                @staticmethod
                def install(self, pm):
                    pm.register(self, "static")  # a static method's first parameter is no instance

                def again(self, pm):
                    self = object()
                    pm.register(self, "rebound")
            ''',
        "fw/setup.py": '''
            from fw.plugins import Cache
            from fw import plugins


            def setup(pm, name):
                pm.register(Cache(pm), "by-call")
                pm.register(plugins.Cache(pm), name="by-module")
                made = Cache(pm)
                pm.register(made, "by-name")
                made2 = Cache(pm)
                made2 = None
                pm.register(made2, "assigned-twice")
                made3 = Cache(pm)
                made3.x = 1
                made3, other = Cache(pm), 2
                pm.register(made3, "tuple-rebound")
                pm.register(Cache(pm), name)
                pm.register(Cache(pm))
                pm.register(Unknown(), "unknown-class")
                pm.register(*args)
            ''',
        "fw/broken.py": "def (:\n    pm.register(x, 'y')\n",
    })
    assert got == {"by-call": "fw.plugins.Cache", "by-module": "fw.plugins.Cache", "by-name": "fw.plugins.Cache",
                   "cache": "fw.plugins.Cache", "assigned-twice": None, "rebound": None, "static": None,
                   "tuple-rebound": None, "unknown-class": None}


# pytest's own shape: `Config.__init__(self, pluginmanager: PytestPluginManager, ...)` stores the parameter
# (`self.pluginmanager = pluginmanager`) and nothing annotates the attribute itself
INIT_STORED = FIXTURES_V1.replace('''    class Config:
        pluginmanager: AppPluginManager
''', '''    class Config:
        def __init__(self, pluginmanager: AppPluginManager, other: AppPluginManager, plain) -> None:
            self.pluginmanager = pluginmanager
            other = plain
            self.other = other
            self.plain = plain
''')

INIT_PY = '''\
from fakepkg.pm import Config


def use(config: Config):
    config.pluginmanager.get_plugin("funcmanage").closure(["a"], None)
    config.other.get_plugin("funcmanage").closure(["b"], None)
    config.plain.get_plugin("funcmanage").closure(["c"], None)
'''


def test_an_attribute_init_stores_from_an_annotated_parameter_has_that_type(tmp_path: Path, capsys,
                                                                             tmp_path_factory) -> None:
    assert INIT_STORED != FIXTURES_V1
    ups = tagged_upstream(tmp_path_factory.mktemp("pm-init"), "fakepkg-pm", [
        ("1.0.0", _release(INIT_STORED)),
        ("2.0.0", _release(INIT_STORED.replace("def closure(self, names, node):",
                                               "def closure(self, node, names, ignore):")))])
    project: Repo = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/plugin.py": INIT_PY, "checklists/fakepkg-pm.md": CHECKLIST,
        "pyproject.toml": project_pyproject("fakepkg-pm", ups, "1.0.0")})
    project.write("pyproject.toml", project_pyproject("fakepkg-pm", ups, "2.0.0"))
    r = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    assert r.code == 1
    # `pluginmanager` is the annotated parameter stored as it is; `other` is rebound before it is stored,
    # and `plain` has no annotation: those two stay untyped
    errors = {(w, c) for w, c, m in app_findings(r) if not m.startswith("[")}
    assert errors == {("app/plugin.py:5", "NEW_REQUIRED_PARAM"), ("app/plugin.py:5", "POSITION_CHANGED")}


# the manager itself annotated (`pm: AppPluginManager`), not reached through an attribute
DIRECT_PY = '''\
from fakepkg.pm.manager import AppPluginManager


def use(pm: AppPluginManager, other: "AppPluginManager"):
    pm.get_plugin("funcmanage").closure(["a"], None)
    other.get_plugin("funcmanage").closure(["b"], None)
    AppPluginManager.get_plugin("funcmanage").closure(["c"], None)
    held = AppPluginManager
    held.get_plugin("funcmanage").closure(["d"], None)
'''


def test_get_plugin_on_a_parameter_annotated_with_the_manager(tmp_path: Path, capsys, upstreams: Path) -> None:
    project: Repo = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/plugin.py": DIRECT_PY,
        "checklists/fakepkg-pm.md": CHECKLIST.replace("| `Config` |", "| `AppPluginManager` |"),
        "pyproject.toml": project_pyproject("fakepkg-pm", upstreams, "1.0.0")})
    project.write("pyproject.toml", project_pyproject("fakepkg-pm", upstreams, "2.0.0"))
    r = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    assert r.code == 1
    # the class object's own `get_plugin` (lines 7, 9) is an unbound call: no instance, not typed
    errors = {(w, c) for w, c, m in app_findings(r) if not m.startswith("[")}
    assert errors == {(f"app/plugin.py:{n}", c) for n in (5, 6) for c in ("NEW_REQUIRED_PARAM", "POSITION_CHANGED")}
