"""Patches written through test helpers (``mock.patch("pkg.mod.name", new)``, ``mock.patch.object``,
``mocker.patch``, ``monkeypatch.setattr`` / ``delattr``): the name they look up is a use of it, and
the function, ``partial`` or ``lambda`` they put in its place is bound like ``Cls.m = f``.

The fixture upstream ``fakepkg-mock`` (a local git repository with two tagged releases): between
them ``core.gone`` is removed, ``core._private`` moves to ``fakepkg.mock._impl``, ``Loader.load``
gains a keyword-only ``cache`` that upstream's own ``Loader.run`` passes, and ``render`` (re-exported
by the package) gains a keyword-only ``markup``. ``core.kept``, ``core.TABLE`` and ``Loader.size`` do
not change."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from conftest import Repo
from upstream import app_findings, audited_project, project_pyproject, tagged_upstream
from upgrade_checklists.project.testpatches import helper_patches
from upgrade_checklists.project.uses import ATTRIBUTE, PATCH, find_uses

CORE_V1 = '''
    TABLE = {}


    def gone(x):
        return x


    def _private(x):
        return x


    def kept(a):
        return a


    def render(text, width=80):
        return text


    def show(text):
        return render(text, 10)


    class Loader:
        def load(self, path, strict=False):
            return path

        def size(self):
            return 0

        def run(self):
            return self.load("x", strict=True)
    '''

CORE_V2 = '''
    from fakepkg.mock._impl import _private as _moved

    TABLE = {}


    def kept(a):
        return a


    def render(text, width=80, *, markup=False):
        return text


    def show(text):
        return render(text, 10, markup=True)


    class Loader:
        def load(self, path, *, strict=False, cache=None):
            return path

        def size(self):
            return 0

        def run(self):
            return self.load("x", strict=True, cache=None)
    '''

MOCK_V1 = {"fakepkg/mock/__init__.py": "from fakepkg.mock.core import Loader, render\n", "fakepkg/mock/core.py": CORE_V1}
MOCK_V2 = {"fakepkg/mock/__init__.py": "from fakepkg.mock.core import Loader, render\n", "fakepkg/mock/core.py": CORE_V2,
           "fakepkg/mock/_impl.py": "def _private(x):\n    return x\n"}

# line numbers matter: the assertions name them
TESTS_PY = '''\
from functools import partial
from unittest import mock
from unittest.mock import patch

import fakepkg.mock.core as core
from fakepkg.mock import Loader


def my_render(ctx, text, width=80):
    return text


def fake_load(self, path, strict=False):
    return path


@mock.patch("fakepkg.mock.core.gone")
def test_gone(m):
    pass


def test_private_created():
    with patch("fakepkg.mock.core._private", create=True):
        pass


def test_monkeypatch(monkeypatch):
    monkeypatch.setattr("fakepkg.mock.core._private", lambda x: x)
    monkeypatch.delattr("fakepkg.mock.core.gone", raising=False)
    monkeypatch.delattr(core, "gone")
    monkeypatch.setattr(core, "kept", lambda a: a)


def test_object():
    with patch.object(Loader, "load", fake_load):
        pass
    with patch.object(Loader, "size", create=True):
        pass


def test_partial(ctx):
    p = patch("fakepkg.mock.render", partial(my_render, ctx))
    p.start()


def test_strings(name):
    for n in ("gone", "kept"):
        patch(f"fakepkg.mock.core.{n}").start()
    patch(name).start()
    patch(f"fakepkg.mock.core.{name!r}").start()
    patch("app.helpers.gone").start()
    patch("os.path.join").start()


def test_spec(mocker):
    patch("fakepkg.mock.core.kept", autospec=True).start()
    patch("fakepkg.mock.core.gone", autospec=True).start()
    mocker.patch("fakepkg.mock.core.gone")
    mocker.patch.object(core, "gone", new=lambda x: x)
    patch.dict("fakepkg.mock.core.TABLE", {"a": 1}).start()


TARGET = ""
for _n in ("never_there", "gone"):
    TARGET = f"fakepkg.mock.core.{_n}"


def test_module_target():
    patch(TARGET).start()


def test_module_calls(ctx):
    patch("fakepkg.mock.core.render", partial(my_render, ctx)).start()
    patch("fakepkg.mock.core.render", lambda text, width=80, markup=False: text).start()
'''

CHECKLIST = (
    "---\npackage: fakepkg-mock\ngithub: example/fakepkg-mock\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/mock/\nimport_names:\n  - fakepkg.mock\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/test_it.py` | `Loader`, `core` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("mock-upstream"), "fakepkg-mock", [("1.0.0", MOCK_V1), ("2.0.0", MOCK_V2)])


@pytest.fixture
def project(tmp_path: Path, capsys, upstreams: Path) -> Repo:
    return audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/helpers.py": "def gone():\n    pass\n", "app/test_it.py": TESTS_PY,
        "checklists/fakepkg-mock.md": CHECKLIST, "pyproject.toml": project_pyproject("fakepkg-mock", upstreams, "1.0.0")})


def audited(project: Repo, upstreams: Path):
    project.write("pyproject.toml", project_pyproject("fakepkg-mock", upstreams, "2.0.0"))
    r = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    return r, app_findings(r)


def errors(got) -> dict[str, tuple[str, str]]:
    """line -> (code, message) of each error (a warning or info starts ``[warning]`` / ``[info]``)."""
    out = {}
    for where, code, msg in got:
        if not msg.startswith("["):
            assert where not in out, (where, out[where], code, msg)
            out[where] = (code, msg)
    return out


def test_a_string_target_upstream_no_longer_has_is_an_error_at_the_patch(project: Repo, upstreams: Path) -> None:
    r, got = audited(project, upstreams)
    assert r.code == 1
    err = errors(got)
    looked_up = "looks it up when the patch starts: it raises here"
    # decorator; ``patch(...).start()`` of a loop's f-string; ``autospec`` looks it up as well; pytest-mock's fixture
    for line, helper in ((17, "mock.patch"), (48, "mock.patch"), (57, "mock.patch"), (58, "mocker.patch"),
                         (59, "mocker.patch.object")):
        assert err[f"app/test_it.py:{line}"] == (
            "REMOVED_API", f"`fakepkg.mock.core.gone` was removed at 2.0.0 (`{helper}` {looked_up})"), line
    # a module-level name assigned in a ``for`` loop over a table, read in a function
    assert err["app/test_it.py:69"][0] == "REMOVED_API"
    # monkeypatch: a dotted string, and an object with a name
    assert err["app/test_it.py:28"] == (
        "MOVED_API", "`fakepkg.mock.core._private` is gone from `fakepkg.mock.core._private` at 2.0.0; found at "
        f"`fakepkg.mock._impl._private` (`monkeypatch.setattr` {looked_up})")
    assert err["app/test_it.py:30"] == (
        "REMOVED_API", f"`fakepkg.mock.core.gone` was removed at 2.0.0 (`monkeypatch.delattr` {looked_up})")


def test_a_replacement_is_bound_like_an_assignment(project: Repo, upstreams: Path) -> None:
    _r, got = audited(project, upstreams)
    err = errors(got)
    # ``patch.object(Cls, "m", f)``: against upstream's own ``self.load(...)`` calls
    code, msg = err["app/test_it.py:35"]
    assert code == "PATCH_MISMATCH"
    assert "upstream `Loader.run` (fakepkg/mock/core.py:26) calls `self.load(…, strict=…, cache=…)`" in msg
    # ``patch("pkg.name", partial(f, ctx))`` of a module function re-exported by the package: what ``partial``
    # fills is left out, and the string follows the re-export to the function
    # the same patched where upstream's own ``show`` reads it: its call decides
    assert err["app/test_it.py:73"] == (
        "PATCH_MISMATCH", "`fakepkg.mock.core.render(text, width, markup)` at 2.0.0 differs from the patch "
        "`partial(my_render, …)(text, width)` (line 9) that `mock.patch` puts in place of `fakepkg.mock.core.render`: "
        "only upstream has `markup`; upstream `show` (fakepkg/mock/core.py:15) calls `render(…, …, markup=…)` at 2.0.0, "
        "which the patch cannot take: keyword `markup`, which the patch does not take")
    # a difference upstream's calls never meet (they pass ``markup`` by keyword) is no break
    assert [m for w, _c, m in got if w == "app/test_it.py:74"] == [
        "[info] `fakepkg.mock.core.render(text, width, markup)` at 2.0.0 differs from the patch "
        "`lambda(text, width, markup)` (line 74) that `mock.patch` puts in place of `fakepkg.mock.core.render`: "
        "kinds differ for `markup`; upstream's own calls of it bind to the patch (`show` (fakepkg/mock/core.py:15)): not a break"]
    assert err["app/test_it.py:42"] == (
        "PATCH_MISMATCH", "`fakepkg.mock.core.render(text, width, markup)` at 2.0.0 differs from the patch "
        "`partial(my_render, …)(text, width)` (line 9) that `mock.patch` puts in place of `fakepkg.mock.render`: "
        "only upstream has `markup`")


def test_what_is_fine_or_not_followed_is_no_error(project: Repo, upstreams: Path) -> None:
    _r, got = audited(project, upstreams)
    # create=True, raising=False: a missing attribute is fine; a lambda taking what ``kept`` takes; a mock
    # built with ``autospec`` has the real signature; a dict that is still there; a string not known
    # statically (a parameter, an f-string part with ``!r``); a project module's name, another package's
    assert set(errors(got)) == {f"app/test_it.py:{n}" for n in (17, 28, 30, 35, 42, 48, 57, 58, 59, 69, 73)}
    assert not [g for g in got if g[0] in {f"app/test_it.py:{n}" for n in (22, 29, 31, 37, 49, 50, 51, 52, 56, 60)}
                and g[1] != "UNRESOLVED"]


def _found(src: str) -> list[tuple]:
    tree = ast.parse(textwrap.dedent(src))
    names = {"mock": "unittest.mock", "patch": "unittest.mock.patch", "pytest": "pytest", "core": "fakepkg.mock.core"}
    return [(hp.line, hp.owner, hp.name, hp.helper, hp.lenient, hp.value is not None) for hp in sorted(helper_patches(tree, names), key=lambda h: h.line)]


def test_helper_calls_read_from_their_arguments() -> None:
    assert _found('''
        def f(monkeypatch, flag, **kw):
            patch("a.b.c", create=flag).start()
            patch("a.b.c", lambda: 0, **kw).start()
            monkeypatch.setattr(core, "x", 1, raising=flag)
            monkeypatch.setattr("a.b", 2)
            monkeypatch.setattr(f"a.{flag:>3}", 2)
            mock.patch.object(missing, "x").start()
            patch().start()
            patch.object(core).start()
            patch("nodots").start()
            with pytest.MonkeyPatch.context() as mp:
                mp.delattr(core, "y", raising=True)
        ''') == [
        (3, "a.b", "c", "mock.patch", True, False),  # create= a value not known: a missing target may be fine
        (5, "fakepkg.mock.core", "x", "monkeypatch.setattr", True, True),
        (6, "a", "b", "monkeypatch.setattr", False, True),
        (13, "fakepkg.mock.core", "y", "mp.delattr", False, False),
    ]


def test_a_test_case_class_and_its_methods_decorators_are_read() -> None:
    assert _found('''
        @mock.patch.object(core, "a")
        class T(unittest.TestCase):
            patcher = patch("fakepkg.mock.core.e")

            @mock.patch("fakepkg.mock.core.b")
            def test_one(self, m):
                patch("fakepkg.mock.core.c").start()

            class Inner:
                @patch("fakepkg.mock.core.d")
                def test_two(self, m):
                    pass
        ''') == [
        (2, "fakepkg.mock.core", "a", "mock.patch.object", False, False),
        (4, "fakepkg.mock.core", "e", "mock.patch", False, False),  # a class attribute
        (6, "fakepkg.mock.core", "b", "mock.patch", False, False),
        (8, "fakepkg.mock.core", "c", "mock.patch", False, False),
        (11, "fakepkg.mock.core", "d", "mock.patch", False, False),
    ]


def test_a_name_bound_by_an_import_is_no_fixture() -> None:
    # ``monkeypatch`` imported from somewhere is not pytest's fixture; ``patch`` of another library neither
    tree = ast.parse("from x import monkeypatch, patch\nmonkeypatch.setattr('a.b', 1)\npatch('a.b')\n")
    assert list(helper_patches(tree, {"monkeypatch": "x.monkeypatch", "patch": "x.patch"})) == []


def test_find_uses_keeps_only_upstream_targets(tmp_path: Path) -> None:
    src = textwrap.dedent('''
        from unittest import mock
        import fakepkg.mock

        def test(ctx):
            mock.patch("fakepkg.mock.core.gone").start()
            mock.patch("app.core.gone").start()
            mock.patch("fakepkgother.x").start()
            mock.patch("fakepkg.mock.core.kept", create=True).start()
        ''')
    uses = [u for u in find_uses({"app/t.py": (src, ast.parse(src))}, ["fakepkg.mock"]) if u.helper]
    assert [(u.line, u.kind, u.target) for u in uses] == [(6, ATTRIBUTE, "fakepkg.mock.core.gone")]
    assert not [u for u in uses if u.kind == PATCH]


def test_module_calls_are_the_calls_reading_the_global() -> None:
    from upgrade_checklists.audit.api import module_calls_in

    tree = ast.parse(textwrap.dedent('''
        def f(x):
            return x

        y = f(1)

        class C:
            def m(self):
                a, b = f(2, k=3)

        def shadowed(f):
            return f(4)

        def assigned():
            f = print
            f(5)

        def other():
            obj.f(6)
        '''))
    got = [(c["line"], c["caller"], c["positional"], c["keywords"], c["unpacked"]) for c in module_calls_in(tree, "f", "m.py")]
    assert sorted(got) == [(5, "<module>", 1, [], 0), (9, "C.m", 1, ["k"], 2)]


def test_the_word_filter_keeps_every_spelling_of_a_helper() -> None:
    from upgrade_checklists.project.testpatches import MAY_PATCH

    for text in ("from unittest.mock import patch as p\n", "mock.patch.object(a, 'b')", "def t(monkeypatch): ...",
                 "with pytest.MonkeyPatch.context() as mp:\n    mp.setattr('a.b', 1)", "mp.delattr(x, 'y')"):
        assert MAY_PATCH.search(text), text
    assert not MAY_PATCH.search("self.dispatch(event)\nsetattr(obj, 'x', 1)\npatcher_count = 0\n")


def test_create_and_raising_passed_by_position_are_read() -> None:
    assert _found('''
        def f(monkeypatch, args):
            patch("a.b.c", None, None, True).start()
            patch("a.b.d", None, None, False).start()
            mock.patch.object(core, "x", None, None, True).start()
            monkeypatch.setattr(core, "y", 1, False)
            monkeypatch.delattr(core, "z", False)
            monkeypatch.delattr(core, "w", True)
            patch("a.b.e", *args).start()
        ''') == [
        (3, "a.b", "c", "mock.patch", True, True),  # ``new=None`` is a value too
        (4, "a.b", "d", "mock.patch", False, True),
        (5, "fakepkg.mock.core", "x", "mock.patch.object", True, True),
        (6, "fakepkg.mock.core", "y", "monkeypatch.setattr", True, True),
        (7, "fakepkg.mock.core", "z", "monkeypatch.delattr", True, False),
        (8, "fakepkg.mock.core", "w", "monkeypatch.delattr", False, False),
        (9, "a.b", "e", "mock.patch", True, False),  # *args may fill `create` (its `new` is not followed)
    ]


def test_a_function_imports_the_name_it_patches_on_itself() -> None:
    # vcrpy: ``cpool`` is urllib3's connectionpool in one try, botocore's in the next, and None at module level;
    # the file's flat bindings say the last import; each call is read with the function's imports above it
    tree = ast.parse(textwrap.dedent('''
        from unittest import mock
        cp = None

        def patchers():
            try:
                import fakepkg.mock.core as cp
            except ImportError:
                pass
            else:
                yield mock.patch.object(cp, "gone", None)
            try:
                import other.mod as cp
            except ImportError:
                pass
            else:
                yield mock.patch.object(cp, "elsewhere", None)

        def untouched():
            return mock.patch.object(cp, "module_level", None)
        '''))
    names = {"mock": "unittest.mock", "cp": "other.mod"}
    got = [(hp.line, hp.owner, hp.name) for hp in sorted(helper_patches(tree, names), key=lambda h: h.line)]
    # the module-level ``cp = None`` is no object: nothing at 21
    assert got == [(11, "fakepkg.mock.core", "gone"), (17, "other.mod", "elsewhere")]
