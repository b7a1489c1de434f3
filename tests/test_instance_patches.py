"""Patches installed on an instance of an upstream class (``obj.m = f``,
``obj.m = functools.partial(f, obj)``, ``obj.m = lambda ...``), calls through the class
(``x.__class__.m(x, ...)``, ``type(x).m(x)``), and the tuples returned and unpacked.

The fixture upstream ``fakepkg-fix`` is a small fixture manager (a local git repository with
two tagged releases). Between them ``Manager.close`` swaps its first two parameters, renames
``names`` to ``initial``, makes ``ignore`` required and returns a pair where it returned a
triple; ``Manager.info`` (upstream's own caller) now passes it all by keyword and unpacks two
names where it unpacked three. ``Manager.pair`` returns a triple where it returned a pair;
``Manager.spread`` a pair where it returned ``Tuple[int, ...]``. ``split`` and ``kept`` do not
change; upstream unpacks ``self.split(x)`` into two names and calls ``self.kept(x)``."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from conftest import Repo
from upstream import app_findings, audited_project, project_pyproject, tagged_upstream
from upgrade_checklists.audit.api import self_calls_in
from upgrade_checklists.audit.signatures import tuple_arity
from upgrade_checklists.project.use import PATCH, RETURNED
from upgrade_checklists.project.uses import find_uses

FIX_V1 = {
    "fakepkg/fix/__init__.py": "from fakepkg.fix.core import Manager, Session\n",
    "fakepkg/fix/core.py": '''
        from typing import Dict, List, Tuple


        class Manager:
            def close(self, names, node, ignore=()) -> Tuple[Tuple[str, ...], List[str], Dict[str, int]]:
                return (), [], {}

            def info(self, node, names):
                initial, closure, defs = self.close(names, node, ignore=())
                return closure

            def split(self, x):
                return x, x

            def use_split(self, x):
                a, b = self.split(x)
                return a

            def kept(self, a, b=0):
                return a

            def use_kept(self, x):
                return self.kept(x)

            def pair(self) -> Tuple[int, int]:
                return 1, 2

            def spread(self, a) -> Tuple[int, ...]:
                return (a,)


        class Session:
            manager: Manager

            def __init__(self):
                self.manager = Manager()
        ''',
}

FIX_V2 = {
    "fakepkg/fix/__init__.py": "from fakepkg.fix.core import Manager, Session\n",
    "fakepkg/fix/core.py": '''
        from typing import Dict, List, Tuple


        class Manager:
            def close(self, node, initial, ignore) -> Tuple[List[str], Dict[str, int]]:
                return [], {}

            def info(self, node, names):
                closure, defs = self.close(node=node, initial=names, ignore=())
                return closure

            def split(self, x):
                return x, x

            def use_split(self, x):
                a, b = self.split(x)
                return a

            def kept(self, a, b=0):
                return a

            def use_kept(self, x):
                return self.kept(x)

            def pair(self) -> Tuple[int, int, int]:
                return 1, 2, 3

            def spread(self, a) -> Tuple[int, int]:
                return a, a


        class Session:
            manager: Manager

            def __init__(self):
                self.manager = Manager()
        ''',
}

# line numbers matter: the assertions name them
PLUGIN_PY = '''\
from functools import partial

from fakepkg.fix import Manager, Session

FLAG = True


def close(fm, names, node, ignore=()):
    initial, found, defs = fm.__class__.close(fm, names, node, ignore=ignore)
    return initial, found, defs


def split(x):
    if FLAG:
        return x, x
    return x, x, x


def split_two(x):
    return x, x


def keep(a, b=0):
    return a


def install(session: Session):
    session.manager.close = partial(close, session.manager)
    session.manager.split = split
    session.manager.kept = partial(keep, b=1)


def install_more(m: Manager):
    m.split = split_two
    m.kept = lambda a, b=0: a


def untyped(obj):
    obj.close = partial(close, obj)
    obj.split = split


def unpacks(m: Manager):
    a, b = m.pair()
    x, y, z = m.spread(1)
    c, d, e = type(m).pair(m)
    return a, b, x, y, z, c, d, e


def keep_two(a, extra):
    return a


def install_wrong(m: Manager):
    m.kept = keep_two
'''

CHECKLIST = (
    "---\npackage: fakepkg-fix\ngithub: example/fakepkg-fix\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/fix/\nimport_names:\n  - fakepkg.fix\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/plugin.py` | `Manager`, `Session` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("fix-upstream"), "fakepkg-fix", [("1.0.0", FIX_V1), ("2.0.0", FIX_V2)])


@pytest.fixture
def project(tmp_path: Path, capsys, upstreams: Path) -> Repo:
    return audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/plugin.py": PLUGIN_PY, "checklists/fakepkg-fix.md": CHECKLIST,
        "pyproject.toml": project_pyproject("fakepkg-fix", upstreams, "1.0.0")})


def audited(project: Repo, upstreams: Path):
    project.write("pyproject.toml", project_pyproject("fakepkg-fix", upstreams, "2.0.0"))
    r = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    return r, app_findings(r)


def test_a_partial_installed_on_an_instance_is_bound_against_upstreams_own_calls(project: Repo, upstreams: Path) -> None:
    r, got = audited(project, upstreams)
    assert r.code == 1
    at = {(w, c): m for w, c, m in got}
    # partial(close, session.manager): a caller of the instance's `close` meets (names, node, ignore=()),
    # nothing bound; upstream's info() now passes `initial` by keyword
    assert at[("app/plugin.py:28", "PATCH_MISMATCH")] == (
        "`fakepkg.fix.core.Manager.close(self, node, initial, ignore)` at 2.0.0 differs from the patch "
        "`partial(close, …)(self, names, node, ignore)` (line 8) assigned in its place: parameter 2 is `node` upstream, "
        "`names` in the patch (order differs); upstream `Manager.info` (fakepkg/fix/core.py:9) calls "
        "`self.close(node=…, initial=…, ignore=…)` at 2.0.0, which the patch cannot take: keyword `initial`, "
        "which the patch does not take; no `names`, which the patch requires")
    # partial(keep, b=1) and the lambda take what upstream's use_kept() passes: no error
    assert [m for w, c, m in got if w == "app/plugin.py:30"] == [
        "[info] `fakepkg.fix.core.Manager.kept(self, a, b)` at 2.0.0 differs from the patch `partial(keep, …)(self, a, b)` "
        "(line 23) assigned in its place: kinds differ for `b`; upstream's own calls of it bind to the patch "
        "(`Manager.use_kept` (fakepkg/fix/core.py:23)): not a break"]
    for line in (34, 35, 39, 40):  # a matching patch; an untyped receiver: no use at all
        assert not [x for x in got if x[0] == f"app/plugin.py:{line}"], line


def test_a_plain_function_installed_on_an_instance(project: Repo, upstreams: Path) -> None:
    _r, got = audited(project, upstreams)
    # keep_two requires `extra`, which upstream's use_kept() never passes: at both versions, so a warning
    assert [m for w, c, m in got if w == "app/plugin.py:55"] == [
        "[warning] `fakepkg.fix.core.Manager.kept(self, a, b)` at 2.0.0 differs from the patch `keep_two(self, a, extra)` "
        "(line 50) assigned in its place: parameter 3 is `b` upstream, `extra` in the patch; upstream `Manager.use_kept` "
        "(fakepkg/fix/core.py:23) calls `self.kept(…)` at 2.0.0, which the patch cannot take: no `extra`, which the patch "
        "requires (so did the old version: not a change of this upgrade)"]


def test_the_instance_parameter_a_partial_binds_is_typed_and_a_call_through_the_class_is_bound(project: Repo, upstreams: Path) -> None:
    _r, got = audited(project, upstreams)
    line9 = sorted((c, m.split(" (`fm` is ")[0]) for w, c, m in got if w == "app/plugin.py:9")
    assert line9 == [
        ("POSITION_CHANGED", "`fakepkg.fix.core.Manager.close`: `node` moved from position 2 to 1, and this call passes it by position"),
        ("RENAMED_PARAM", "[info] `fakepkg.fix.core.Manager.close`: positional `names` was renamed `names -> node` (passed by position: still binds)"),
        ("RETURN_CHANGED", "`fakepkg.fix.core.Manager.close`: returns a tuple of 2 (`tuple[list[str], dict[str, int]]`) at 2.0.0, "
                           "and this call unpacks it into 3 names (was a tuple of 3: `tuple[tuple[str, ...], list[str], dict[str, int]]`)"),
    ]
    assert all("(`fm` is what `partial` binds it to at line 28: `fakepkg.fix.Session.manager`; called through its class, "
               "`fm` as `self`: a `fakepkg.fix.core.Manager`)" in m for w, c, m in got if w == "app/plugin.py:9")


def test_a_patchs_returned_tuples_against_upstreams_unpacking(project: Repo, upstreams: Path) -> None:
    _r, got = audited(project, upstreams)
    returned = {w: m for w, c, m in got if c == "RETURN_CHANGED" and "returns line" in m}
    # close() returns a triple; info() unpacked three at 1.0.0 and unpacks two at 2.0.0: an error at the def
    assert returned["app/plugin.py:8"] == (
        "upstream `Manager.info` (fakepkg/fix/core.py:9) unpacks `self.close(…)` into 2 names at 2.0.0; the patch "
        "`partial(close, …)` installed on `session.manager` (`fakepkg.fix.Session.manager`) (line 8) returns line 10: "
        "a tuple of 3 (the old version unpacked 3)")
    # split() returns a pair or a triple: which one runs is not known
    assert returned["app/plugin.py:13"].startswith("[info] upstream `Manager.use_split` (fakepkg/fix/core.py:16) unpacks "
                                                   "`self.split(…)` into 2 names at 2.0.0")
    assert returned["app/plugin.py:13"].endswith("returns line 15: a tuple of 2; line 16: a tuple of 3: which return runs is "
                                                 "not known statically (no version flag of the project decides between them)")
    assert "app/plugin.py:19" not in returned  # split_two returns a pair, as upstream unpacks


def test_a_fixed_tuple_unpacked_into_names(project: Repo, upstreams: Path) -> None:
    _r, got = audited(project, upstreams)
    at = {w: m for w, c, m in got if c == "RETURN_CHANGED" and w in ("app/plugin.py:44", "app/plugin.py:45", "app/plugin.py:46")}
    assert at["app/plugin.py:44"].startswith(
        "`fakepkg.fix.core.Manager.pair`: returns a tuple of 3 (`tuple[int, int, int]`) at 2.0.0, and this call unpacks it "
        "into 2 names (was a tuple of 2: `tuple[int, int]`)")
    # Tuple[int, ...] at the old version: whether three names unpacked then is not known
    assert at["app/plugin.py:45"].startswith(
        "[info] `fakepkg.fix.core.Manager.spread`: returns a tuple of 2 (`tuple[int, int]`) at 2.0.0, and this call unpacks "
        "it into 3 names; the old return (`tuple[int, ...]`) has no fixed length")
    # type(m).pair(m): m is self, no argument; three names for a pair failed at the old version and fit now
    assert not [m for w, c, m in got if w == "app/plugin.py:46" and not m.startswith("[")]


def test_instance_patch_uses() -> None:
    src = PLUGIN_PY
    uses = find_uses({"app/plugin.py": (src, ast.parse(src))}, ["fakepkg.fix"])
    patches = [(u.line, u.member, u.target, u.steps, u.params, u.defaults) for u in uses if u.kind == PATCH]
    PK, KW = "positional or keyword", "keyword-only"
    assert patches == [
        (28, "close", "fakepkg.fix.Session", ("a:manager",), (("names", PK), ("node", PK), ("ignore", PK)), ("ignore",)),
        (29, "split", "fakepkg.fix.Session", ("a:manager",), (("x", PK),), ()),
        (30, "kept", "fakepkg.fix.Session", ("a:manager",), (("a", PK), ("b", KW)), ("b",)),
        (34, "split", "fakepkg.fix.Manager", (), (("x", PK),), ()),
        (35, "kept", "fakepkg.fix.Manager", (), (("a", PK), ("b", PK)), ("b",)),
        (55, "kept", "fakepkg.fix.Manager", (), (("a", PK), ("extra", PK)), ()),
    ]
    returned = sorted((u.line, u.member, u.returns) for u in uses if u.kind == RETURNED)
    assert returned == [(8, "close", ((10, 3),)), (13, "split", ((15, 2), (16, 3))), (19, "split", ((20, 2),))]
    through_class = [u for u in uses if u.line == 46 and u.member == "pair"]
    # m is self, not an argument: the binding leaves it out (as for ``Base.m(self, x)``; not for a static method)
    assert len(through_class) == 1 and through_class[0].through_class and through_class[0].call.positional == 1


@pytest.mark.parametrize("src, why", [
    ("def install(s: Session):\n    s.manager.close = partial(close, s.manager, 1, 2, 3, 4)\n", "more arguments than parameters"),
    ("def install(s: Session):\n    s.manager.close = partial(close, s.manager, nope=1)\n", "a keyword the function lacks"),
    ("def install(s: Session):\n    s.manager.close = partial(*args)\n", "what partial fills is not known"),
    ("def install(s: Session):\n    close = make()\n    s.manager.close = close\n", "a local name holding something else"),
    ("def install(s: Session):\n    s.manager.close = other.close\n", "not a function of the project"),
    ("def install(s):\n    s.manager.close = close\n", "an untyped receiver"),
    ("def install(s: Session):\n    s = make()\n    s.manager.close = close\n", "a receiver assigned another value"),
])
def test_what_is_not_an_instance_patch(src: str, why: str) -> None:
    head = "from functools import partial\nfrom fakepkg.fix import Manager, Session\n\n\ndef close(fm, names, node):\n    return 1, 2\n\n\n"
    text = head + src
    uses = find_uses({"app/p.py": (text, ast.parse(text))}, ["fakepkg.fix"])
    assert [u for u in uses if u.kind in (PATCH, RETURNED)] == [], why


def test_self_of_a_class_patch_is_typed_for_calls_through_the_class() -> None:
    src = textwrap.dedent('''
        from fakepkg.fix import Manager


        def pair(self):
            a, b = type(self).spread(self, 1)
            return self.__class__.pair(self)


        Manager.pair = pair
        ''')
    uses = find_uses({"app/p.py": (src, ast.parse(src))}, ["fakepkg.fix"])
    got = sorted((u.line, u.kind, u.target, u.member, u.call.positional, u.through_class) for u in uses if u.call is not None)
    assert got == [(6, "annotated", "fakepkg.fix.Manager", "spread", 2, True), (7, "annotated", "fakepkg.fix.Manager", "pair", 1, True)]


def test_tuple_arity_and_unpacked_upstream_calls() -> None:
    assert tuple_arity("tuple[int, str, dict[str, int]]") == 3
    assert tuple_arity("typing.Tuple[int, int]") == 2
    assert tuple_arity("tuple[()]") == 0
    for text in ("tuple[int, ...]", "tuple", "list[int]", "tuple[int, int] | None", None, "pkg.Out"):
        assert tuple_arity(text) is None, text
    cls = ast.parse(textwrap.dedent('''
        class M:
            def a(self):
                x, y = self.m()
                z = self.m()
                p, *q = self.m()
                self.m()
        ''')).body[0]
    assert [c["unpacked"] for c in self_calls_in(cls, "m", "m.py")] == [2, 0, 0, 0]


def test_what_is_not_typed_by_a_patch_or_called_through_a_class() -> None:
    src = textwrap.dedent('''
        from functools import partial
        from fakepkg.fix import Manager, Session


        def close(fm, names, node):
            return fm.__class__.close(fm, names, node)


        def install(s: Session, other):
            s.manager.close = partial(close, other)


        def calls(m: Manager, other):
            type(m).pair(other)
            m.__class__.pair
            type(other).pair(other)
            m.__class__.pair(m)
        ''')
    uses = find_uses({"app/p.py": (src, ast.parse(src))}, ["fakepkg.fix"])
    # partial binds `other`, not the receiver: the patch is a use, its `fm` is not typed
    assert [(u.line, u.kind) for u in uses if u.line in (6, 7, 11)] == [(11, "patch"), (11, "annotated")]
    # only a call through the class with the instance itself as first argument is a call of the method
    got = [(u.line, u.member, u.through_class) for u in uses if u.line >= 15 and u.call is not None]
    assert got == [(18, "pair", True)]
    assert not [u for u in uses if u.line in (15, 16, 17)]


# -- a patch installed at module level, and a patch function from another project file ---------

# line numbers matter: the assertions name them
ELSEWHERE_FUNCS_PY = '''\
def close_elsewhere(fm, names, node, ignore=()):
    initial, found, defs = fm.__class__.close(fm, names, node, ignore=ignore)
    return initial, found, defs


def keep_other(a, extra):
    return a
'''

ELSEWHERE_PY = '''\
from functools import partial

from fakepkg.fix import Manager, Session

from app.patchfns import close_elsewhere, keep_other

SESSION = Session()
SESSION.manager.close = partial(close_elsewhere, SESSION.manager)
MANAGER = Manager()
MANAGER.kept = keep_other
LOOSE = object()
LOOSE.kept = keep_other
'''


def test_a_patch_installed_at_module_level_from_a_function_of_another_file(project: Repo, upstreams: Path) -> None:
    project.write("app/patchfns.py", ELSEWHERE_FUNCS_PY)
    project.write("app/elsewhere.py", ELSEWHERE_PY)
    project.commit("patches elsewhere")
    _r, got = audited(project, upstreams)
    at = {(w, c): m for w, c, m in got if w.startswith(("app/elsewhere.py", "app/patchfns.py"))}
    # module level: SESSION is a Session, so SESSION.manager a Manager: the partial is a patch of its close
    assert at[("app/elsewhere.py:8", "PATCH_MISMATCH")].startswith(
        "`fakepkg.fix.core.Manager.close(self, node, initial, ignore)` at 2.0.0 differs from the patch "
        "`partial(close_elsewhere, …)(self, names, node, ignore)` (`app/patchfns.py:1`) assigned in its place")
    # a plain function of another file installed on a module-level Manager: upstream's use_kept never passes `extra`
    assert at[("app/elsewhere.py:10", "PATCH_MISMATCH")].startswith(
        "[warning] `fakepkg.fix.core.Manager.kept(self, a, b)` at 2.0.0 differs from the patch `keep_other(self, a, extra)` "
        "(`app/patchfns.py:6`) assigned in its place")
    # the function's instance parameter, in its own file, is what `partial` binds it to in the other file
    assert at[("app/patchfns.py:2", "POSITION_CHANGED")] == (
        "`fakepkg.fix.core.Manager.close`: `node` moved from position 2 to 1, and this call passes it by position "
        "(`fm` is what `partial` binds it to at app/elsewhere.py:8: `fakepkg.fix.Session().manager`; called through "
        "its class, `fm` as `self`: a `fakepkg.fix.core.Manager`)")
    # the patch's returns, in its own file, against upstream's unpacking
    assert at[("app/patchfns.py:1", "RETURN_CHANGED")].endswith(
        "the patch `partial(close_elsewhere, …)` installed on `SESSION.manager` (`fakepkg.fix.Session().manager`) (line 1) "
        "returns line 3: a tuple of 3 (the old version unpacked 3)")
    assert not [k for k in at if k[0] == "app/elsewhere.py:12"]  # an object of no upstream class: no patch
