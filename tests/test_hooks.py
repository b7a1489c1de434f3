"""Hook implementations: a plugin of a pluggy-based framework implements a hook by defining a
function named like one of the framework's hook specifications, with unannotated parameters
pluggy passes by the spec's names. The spec's annotations type them; a parameter the new spec
no longer has makes pluggy refuse the plugin at registration.

The fixture upstream ``fakepkg-plug`` is a small plugin framework (a local git repository with
two tagged releases). Its specs live in ``fakepkg/plug/hookspec.py`` (decorated with
``hookspec = HookspecMarker("plug")`` imported from ``markers.py``, and undecorated ``plug_*``
functions beside them) and in a spec class in ``specs.py``. Between the releases,
``FixtureManager.resolve`` gains a required ``node``, ``Item.funcargs`` goes,
``plug_report`` loses its ``when`` parameter and the ``plug_legacy`` hook is removed."""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import pytest

from conftest import Repo
from upstream import app_findings, audited_project, project_pyproject, tagged_upstream
from upgrade_checklists.audit.model_cache import FORMAT
from upgrade_checklists.audit.hookspecs import hook_specs
from upgrade_checklists.project.uses import ANNOTATED, HOOK, find_uses

MARKERS = '''
    from pluggy import HookimplMarker, HookspecMarker

    hookspec = HookspecMarker("plug")
    hookimpl = HookimplMarker("plug")
    '''

MAIN_V1 = '''
    class FixtureManager:
        def resolve(self, names):
            return names


    class Session:
        fixtures: FixtureManager

        def __init__(self, config):
            self.config = config


    class Item:
        def __init__(self, name):
            self.name = name
            self.funcargs = {}
    '''

MAIN_V2 = '''
    class FixtureManager:
        def resolve(self, names, node):
            return names


    class Session:
        fixtures: FixtureManager

        def __init__(self, config):
            self.config = config


    class Item:
        def __init__(self, name):
            self.name = name
    '''

HOOKSPEC_V1 = '''
    from typing import TYPE_CHECKING, List

    from fakepkg.plug.markers import hookspec

    if TYPE_CHECKING:
        from fakepkg.plug.main import Item, Session


    @hookspec(firstresult=True)
    def plug_collection(session: "Session") -> None:
        """Collect."""


    def plug_modifyitems(session: "Session", config, items: "List[Item]") -> None:
        """Undecorated, named like the decorated specs: a spec too."""


    @hookspec
    def plug_report(item: "Item", when: str) -> None:
        """Report."""


    @hookspec
    def plug_legacy(session: "Session") -> None:
        """Gone at 2.0.0."""


    def helper(x: "Session") -> None:
        """Not named like the specs: no spec."""
    '''

HOOKSPEC_V2 = '''
    from typing import TYPE_CHECKING, List

    from fakepkg.plug.markers import hookspec

    if TYPE_CHECKING:
        from fakepkg.plug.main import Item, Session


    @hookspec(firstresult=True)
    def plug_collection(session: "Session") -> None:
        """Collect."""


    def plug_modifyitems(session: "Session", config, items: "List[Item]") -> None:
        """Undecorated, named like the decorated specs: a spec too."""


    @hookspec
    def plug_report(item: "Item") -> None:
        """Report."""


    def helper(x: "Session") -> None:
        """Not named like the specs: no spec."""
    '''

SPECS = '''
    from fakepkg.plug import markers
    from fakepkg.plug.main import Session


    class RunSpecs:
        @markers.hookspec
        def plug_before_run(self, session: Session) -> None:
            """A spec declared in a class: ``self`` is no hook parameter."""
    '''


def _release(main: str, hookspec: str) -> dict[str, str]:
    return {"fakepkg/plug/__init__.py": "from fakepkg.plug.markers import hookimpl, hookspec\n",
            "fakepkg/plug/markers.py": MARKERS, "fakepkg/plug/main.py": main, "fakepkg/plug/hookspec.py": hookspec,
            "fakepkg/plug/specs.py": SPECS}


PLUGIN_PY = '''\
from fakepkg.plug import hookimpl


def plug_collection(session):
    session.fixtures.resolve(["a"])


def plug_modifyitems(session, items):
    for item in items:
        print(item.funcargs)


@hookimpl(tryfirst=True)
def plug_report(item, when, extra=None):
    return item.funcargs


def plug_legacy(session):
    return session.config


def helper(x):
    return x.fixtures.resolve([])


def plug_unknown(thing):
    thing.fixtures.resolve([])


@hookimpl(specname="plug_collection")
def collect_again(session):
    session.fixtures.resolve(["d"])


class Plugin:
    def plug_before_run(self, session):
        session.fixtures.resolve(["c"])

    @hookimpl(optionalhook=True)
    def plug_legacy(self, session):
        return session
'''

OTHER_PY = '''\
import fakepkg.plug


class Fake:
    fixtures = None


def plug_collection(session: "Fake"):
    session.fixtures.resolve([])


def plug_report(item, colour):
    return item.name
'''

LOOSE_PY = '''\
def plug_collection(session):
    session.fixtures.resolve([])
'''

MARKED_PY = '''\
from pluggy import HookimplMarker

impl = HookimplMarker("plug")


@impl
def plug_collection(session):
    session.fixtures.resolve(["b"])
'''

CHECKLIST = (
    "---\npackage: fakepkg-plug\ngithub: example/fakepkg-plug\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/plug/\nimport_names:\n  - fakepkg.plug\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/plugin.py` | `hookimpl` |\n| `app/other.py` | `fakepkg.plug` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("plug-upstream"), "fakepkg-plug",
                           [("1.0.0", _release(MAIN_V1, HOOKSPEC_V1)), ("2.0.0", _release(MAIN_V2, HOOKSPEC_V2))])


@pytest.fixture
def project(tmp_path: Path, capsys, upstreams: Path) -> Repo:
    return audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/plugin.py": PLUGIN_PY, "app/other.py": OTHER_PY, "app/loose.py": LOOSE_PY,
        "app/marked.py": MARKED_PY, "checklists/fakepkg-plug.md": CHECKLIST,
        "pyproject.toml": project_pyproject("fakepkg-plug", upstreams, "1.0.0")})


def test_hook_implementations_are_typed_and_checked_by_upstreams_specs(project: Repo, upstreams: Path) -> None:
    project.write("pyproject.toml", project_pyproject("fakepkg-plug", upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert r.code == 1
    got = [(w, c, m) for w, c, m in app_findings(r) if c != "NEW_OPTIONAL_PARAM"]
    resolve = "`fakepkg.plug.main.FixtureManager.resolve`: `node` is required at 2.0.0 and this call does not pass it"
    funcargs = "`fakepkg.plug.main.Item.funcargs` (defined at fakepkg/plug/main.py:16) was removed at 2.0.0"
    spec = "a parameter of hook `{}`, typed by upstream's spec): a `fakepkg.plug.main.{}`"
    fixtures = "(`session.fixtures` in `{}` (`session`: " + spec.format("{}", "FixtureManager") + ")"
    assert got == sorted([
        # the spec's `session: "Session"` (a string, imported under TYPE_CHECKING) types the parameter, and its
        # declared attribute `fixtures` is a FixtureManager; a file that marks its function with its own
        # HookimplMarker need not import the package
        ("app/marked.py:8", "NEW_REQUIRED_PARAM", f"{resolve} {fixtures.format('plug_collection', 'plug_collection')}"),
        ("app/plugin.py:5", "NEW_REQUIRED_PARAM", f"{resolve} {fixtures.format('plug_collection', 'plug_collection')}"),
        # an element of the spec's `items: List[Item]`, in a hook that takes fewer parameters than the spec
        ("app/plugin.py:10", "REMOVED_API", f"{funcargs} (`item` is an element of `items` in `plug_modifyitems` "
         f"(`items`: {spec.format('plug_modifyitems', 'Item')})"),
        # `when` is gone from the new spec: pluggy refuses the plugin; `extra` has a default: pluggy does not pass it
        ("app/plugin.py:14", "HOOK_MISMATCH", "`plug_report(item, when, extra)` implements hook "
         "`fakepkg.plug.hookspec.plug_report(item)` at 2.0.0, which has no parameter `when`: pluggy refuses the hook "
         "implementation when it registers the plugin (`when` is declared in the hookimpl but not found in the "
         "hookspec) (a parameter of the old version's spec)"),
        ("app/plugin.py:15", "REMOVED_API", f"{funcargs} (`item` in `plug_report` (`item`: "
         f"{spec.format('plug_report', 'Item')})"),
        ("app/plugin.py:18", "HOOK_MISMATCH", "[warning] `plug_legacy(session)` implements hook "
         "`fakepkg.plug.hookspec.plug_legacy`, whose spec is gone at 2.0.0: upstream no longer calls it (a plugin "
         "manager that checks pending hooks refuses an unknown hook; `optionalhook=True` says it may be absent)"),
        # @hookimpl(specname=...) implements the spec it names
        ("app/plugin.py:32", "NEW_REQUIRED_PARAM", f"{resolve} {fixtures.format('collect_again', 'plug_collection')}"),
        # a method of a plugin class implements a spec declared in a spec class (self is no hook parameter)
        ("app/plugin.py:37", "NEW_REQUIRED_PARAM", f"{resolve} {fixtures.format('plug_before_run', 'plug_before_run')}"),
        # `colour` was no parameter of the old spec either: already refused, not this upgrade's news
        ("app/other.py:12", "HOOK_MISMATCH", "[info] `plug_report(item, colour)` implements hook "
         "`fakepkg.plug.hookspec.plug_report(item)` at 2.0.0, which has no parameter `colour`: pluggy refuses the hook "
         "implementation when it registers the plugin (`colour` is declared in the hookimpl but not found in the "
         "hookspec) (nor had the old version's spec: not a change of this upgrade)"),
    ])
    # not hooks: `helper` (no spec: undecorated and not named like the specs), `plug_unknown` (no such spec),
    # a parameter the project annotates (other.py:9), a file that neither imports the package nor marks its
    # function with a HookimplMarker (loose.py), an optional hook whose spec is gone (plugin.py:40)
    assert not any(w in ("app/plugin.py:23", "app/plugin.py:27", "app/other.py:9", "app/loose.py:2", "app/plugin.py:40")
                   for w, _c, _m in app_findings(r))
    summary = " ".join(project.read("upgrade-summary.md").split())
    assert "HOOK_MISMATCH: `plug_report(item, when, extra)` implements hook" in summary


def test_an_unchanged_upstream_types_hook_parameters_without_findings(project: Repo) -> None:
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert r.code == 0
    got = app_findings(r)
    # only the hook parameter refused at 1.0.0 is said: `colour` is not in the spec (a warning when binding only)
    assert [(w, c, m[:10]) for w, c, m in got] == [("app/other.py:12", "HOOK_MISMATCH", "[warning] ")]
    cov = next(line for line in r.lines if "uses found" in line)
    # the typed hook uses are checked, the functions that implement no hook are not counted at all
    assert "unknown" in cov and "a receiver" not in cov


PATCHER_PY = '''\
from functools import partial

import fakepkg.plug


def resolve_all(fm, names):
    return names


def plug_collection(session):
    session.fixtures.resolve = partial(resolve_all, session.fixtures)
'''


def test_a_patch_installed_on_what_a_hook_parameter_reaches_is_bound(tmp_path: Path, capsys, upstreams: Path) -> None:
    # `session` is typed by the spec (a Session), its declared `fixtures` a FixtureManager: the partial installed
    # over `resolve` takes `(names)`, and at 2.0.0 `resolve` is `(self, names, node)`; at 1.0.0 it matched
    project = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/patcher.py": PATCHER_PY, "checklists/fakepkg-plug.md": CHECKLIST,
        "pyproject.toml": project_pyproject("fakepkg-plug", upstreams, "2.0.0")})
    r = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    assert r.code == 1
    got = [(w, c, m) for w, c, m in app_findings(r) if c == "PATCH_MISMATCH"]
    assert len(got) == 1
    where, _code, message = got[0]
    assert where == "app/patcher.py:11"
    assert message.startswith("`fakepkg.plug.main.FixtureManager.resolve(self, names, node)` at 2.0.0 differs from the patch")
    assert "`node`" in message and "[warning]" not in message and "[info]" not in message


def test_hook_specs_are_cached_with_the_model(project: Repo, upstreams: Path) -> None:
    project.write("pyproject.toml", project_pyproject("fakepkg-plug", upstreams, "2.0.0"))
    first = app_findings(project.run("audit", "--cache-dir", str(project.cache), "-v"))
    records = [json.loads(p.read_text()) for p in (project.cache / "models" / f"v{FORMAT}").glob("*.json")]
    asked = [v["ok"] for rec in records for table in rec.get("tables", {}).values() for k, v in table.items()
             if k == '["hook_specs"]']
    # one answer per version (a plain JSON table of every spec), not one per name the project asks about
    specs = "fakepkg.plug.hookspec."
    common = {"plug_collection": f"{specs}plug_collection", "plug_modifyitems": f"{specs}plug_modifyitems",
              "plug_report": f"{specs}plug_report", "plug_before_run": "fakepkg.plug.specs.RunSpecs.plug_before_run"}
    assert sorted(asked, key=len) == [common, {**common, "plug_legacy": f"{specs}plug_legacy"}]
    # a warm audit answers from the record: the same findings
    assert app_findings(project.run("audit", "--cache-dir", str(project.cache), "-v")) == first


def _specs(tmp_path: Path, files: dict[str, str]) -> dict[str, str | None]:
    found = []
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
        dotted = rel.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        found.append((dotted, p))
    return hook_specs(found, lambda path: path.read_bytes())


def test_hook_specs_are_found_structurally(tmp_path: Path) -> None:
    got = _specs(tmp_path, {
        "fw/__init__.py": "",
        "fw/marks.py": "import pluggy\n\nspec = pluggy.HookspecMarker('fw')\n",
        # the marker imported under another name, and through its module
        "fw/a.py": '''
            from fw.marks import spec as hs
            from . import marks

            @hs
            def fw_start(app): ...

            @marks.spec(historic=True)
            def fw_stop(app): ...

            def fw_plain(app): ...

            def other(app): ...

            @staticmethod
            def fw_decorated_otherwise(app): ...
            ''',
        # the same hook specified twice: ambiguous
        "fw/b.py": '''
            from pluggy import HookspecMarker

            local = HookspecMarker("fw")

            @local
            def fw_start(app, extra): ...

            @local()
            def run(): ...

            def run_more(): ...
            ''',
        # a name bound to something else is no marker
        "fw/c.py": '''
            spec = object()

            @spec
            def fw_fake(x): ...
            ''',
    })
    assert got == {"fw_plain": "fw.a.fw_plain", "fw_start": None, "fw_stop": "fw.a.fw_stop", "run": "fw.b.run"}


def test_no_marker_no_specs(tmp_path: Path) -> None:
    assert _specs(tmp_path, {"fw/__init__.py": "def fw_start(app): ...\n", "fw/bad.py": "def (:\n"}) == {}


def test_hook_uses_are_found_only_when_asked_for() -> None:
    src = textwrap.dedent('''
        import pkg

        def pkg_start(app, config: int, opt=None, *, kw):
            app.go()
            config.go()
            opt.go()
            kw.go()

        class Plugin:
            def pkg_stop(self, app):
                app.go()

            @staticmethod
            def pkg_static(app):
                app.go()
        ''')
    files = {"app/x.py": (src, ast.parse(src))}
    assert not [u for u in find_uses(files, ["pkg"]) if u.kind == HOOK or u.steps[:1] and u.steps[0].startswith("hook:")]
    uses = find_uses(files, ["pkg"], hooks=True)
    hooks = sorted((u.line, u.member, u.params, u.defaults) for u in uses if u.kind == HOOK)
    assert hooks == [
        (4, "pkg_start", (("app", "positional or keyword"), ("config", "positional or keyword"),
                          ("opt", "positional or keyword"), ("kw", "keyword-only")), ("opt",)),
        (11, "pkg_stop", (("app", "positional or keyword"),), ()),
        (15, "pkg_static", (("app", "positional or keyword"),), ()),
    ]
    # only what pluggy passes and the project does not annotate is typed by the spec
    typed = sorted((u.line, u.steps) for u in uses if u.kind == ANNOTATED)
    assert typed == [(5, ("hook:pkg_start", "p:app")), (12, ("hook:pkg_stop", "p:app")), (16, ("hook:pkg_static", "p:app"))]


def test_hook_names_known_leave_other_functions_out() -> None:
    """The audit passes upstream's hook names: a function of another name is not read as a hook
    implementation (no HOOK use, its parameters untyped), and what is left is exactly what the
    binding stage keeps of ``hooks=True`` for those names; no names: as ``hooks=False``."""
    src = textwrap.dedent('''
        import pkg

        def pkg_start(app):
            app.go()
            pkg.run(app)

        def helper(app, n):
            app.go()
            return pkg.make(n)

        class Plugin:
            @hookimpl(specname="pkg_stop")
            def stop(self, app):
                app.halt()
        ''')
    files = {"app/x.py": (src, ast.parse(src))}

    def seen(uses):
        return sorted((u.line, u.kind, u.member, u.steps) for u in uses)

    def hooky(u):
        return u.kind == HOOK or u.kind == ANNOTATED and bool(u.steps[:1]) and u.steps[0].startswith("hook:")

    every = find_uses(files, ["pkg"], hooks=True)
    assert {u.member for u in every if u.kind == HOOK} == {"pkg_start", "helper", "pkg_stop"}
    named = find_uses(files, ["pkg"], hooks={"pkg_stop", "pkg_start", "not_in_the_file"})
    assert {u.member for u in named if u.kind == HOOK} == {"pkg_start", "pkg_stop"}
    assert seen(named) == seen(u for u in every if not hooky(u) or (u.member if u.kind == HOOK else u.steps[0][5:]) != "helper")
    assert (5, ANNOTATED, "go", ("hook:pkg_start", "p:app")) in seen(named)
    assert (15, ANNOTATED, "halt", ("hook:pkg_stop", "p:app")) in seen(named)
    assert not [u for u in named if u.line in (9, 10) and hooky(u)]
    assert seen(find_uses(files, ["pkg"], hooks=frozenset())) == seen(find_uses(files, ["pkg"])) == seen(
        u for u in every if not hooky(u))


# -- a HookimplMarker bound in another project module ------------------------------------------

IMPORTED_MARKER_FILES = {
    "app/hooks/__init__.py": "from .marker import hookimpl\n",
    "app/hooks/marker.py": "import pluggy\n\nhookimpl = pluggy.HookimplMarker('plug')\nplain = object()\n",
    # line numbers matter: the assertions name them
    "app/hooks/impl.py": "from .marker import hookimpl\n\n\n@hookimpl\ndef plug_collection(session):\n    session.fixtures.resolve(['e'])\n",
    "app/reexported.py": "from app.hooks import hookimpl as mark\n\n\n@mark(tryfirst=True)\ndef plug_collection(session):\n"
                         "    session.fixtures.resolve(['f'])\n",
    "app/through_module.py": "from app.hooks import marker\n\n\n@marker.hookimpl\ndef plug_collection(session):\n"
                             "    session.fixtures.resolve(['g'])\n",
    "app/not_a_marker.py": "from app.hooks.marker import plain\n\n\n@plain\ndef plug_collection(session):\n"
                           "    session.fixtures.resolve(['h'])\n",
}


def test_a_hookimpl_marker_imported_from_another_project_module(tmp_path: Path, capsys, upstreams: Path) -> None:
    project = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", **IMPORTED_MARKER_FILES, "checklists/fakepkg-plug.md": CHECKLIST,
        "pyproject.toml": project_pyproject("fakepkg-plug", upstreams, "1.0.0")})
    project.write("pyproject.toml", project_pyproject("fakepkg-plug", upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    resolve = "`fakepkg.plug.main.FixtureManager.resolve`: `node` is required at 2.0.0 and this call does not pass it"
    fixtures = ("(`session.fixtures` in `plug_collection` (`session`: a parameter of hook `plug_collection`, typed by "
                "upstream's spec): a `fakepkg.plug.main.FixtureManager`)")
    # none of these files imports the package: the marker, bound in app/hooks/marker.py, says they are hooks
    # (imported from its module, re-exported by the package's __init__, or read as an attribute of its module)
    assert sorted((w, c, m) for w, c, m in app_findings(r) if c != "NEW_OPTIONAL_PARAM") == [
        ("app/hooks/impl.py:6", "NEW_REQUIRED_PARAM", f"{resolve} {fixtures}"),
        ("app/reexported.py:6", "NEW_REQUIRED_PARAM", f"{resolve} {fixtures}"),
        ("app/through_module.py:6", "NEW_REQUIRED_PARAM", f"{resolve} {fixtures}"),
    ]  # app/not_a_marker.py: `plain` is bound to no HookimplMarker: no hook
    assert r.code == 1
