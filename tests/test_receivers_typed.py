"""Receivers typed from upstream declarations (issue 25, item 2): ``self.x`` in a project subclass
of an upstream class keeps the type upstream declares for ``x`` where the project assigns it
without annotation (as mypy reads it); elements and items of typed containers (``x[i]``,
``x[0]`` of a tuple, ``for`` over an upstream class's ``__iter__``, ``obj[k]`` through its
``__getitem__``); properties with a return annotation; PEP 484 type comments (per argument and
per function) on parameters.

The fixture upstream ``fakepkg-meta`` (a local git repository, two tagged releases): between
them ``Spec.__init__`` no longer sets ``funcargs`` and ``Spec.copy`` gains a required ``deep``;
everything else is the same at both."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from conftest import Repo
from upstream import app_findings, audited_project, project_pyproject, tagged_upstream
from upgrade_checklists.audit.api import UpstreamModel
from upgrade_checklists.project.receivers import type_comments
from upgrade_checklists.project.uses import ANNOTATED, TYPED, find_uses

META_V1 = {
    "fakepkg/meta/__init__.py": "from fakepkg.meta.core import Bag, Runner, Spec, make_bag\n",
    "fakepkg/meta/core.py": '''
        from typing import Dict, Iterator, List, Tuple


        class Spec:
            def __init__(self):
                self.funcargs = {}
                self.params = {}

            def copy(self):
                return self


        class Bag:
            def __iter__(self) -> Iterator[Spec]:
                return iter([])

            def __getitem__(self, key) -> Spec:
                return Spec()


        class Runner:
            def __init__(self):
                self._calls: List[Spec] = []
                self.plain = []
                self.named: Dict[str, Spec] = {}
                self.pair: Tuple[Spec, int] = (Spec(), 0)
                self.bag: Bag = Bag()

            @property
            def current(self) -> Spec:
                return Spec()


        def make_bag() -> Bag:
            return Bag()
        ''',
}

META_V2 = {
    **META_V1,
    "fakepkg/meta/core.py": META_V1["fakepkg/meta/core.py"].replace(
        "                self.funcargs = {}\n", "").replace("def copy(self):", "def copy(self, deep):"),
}

# The comment on a line says what the audit must say there.
META_PY = '''\
from typing import List

from fakepkg.meta import Bag, Runner, Spec, make_bag


class Local:
    pass


class Mini(Runner):
    def __init__(self):
        self._calls = []
        self.named = {}
        self.mine = []
        self.bag = None

    def run(self):
        a = self._calls[0].funcargs  # 18: REMOVED_API (upstream declares _calls: List[Spec]; [] keeps it)
        for c in self._calls:
            c.copy()  # 20: NEW_REQUIRED_PARAM
        self.named["k"].funcargs  # 21: REMOVED_API (a Dict[str, Spec]'s value)
        self.pair[0].funcargs  # 22: REMOVED_API (the first of a Tuple[Spec, int])
        self.pair[1].real  # 23: an int: no use
        self.current.funcargs  # 24: REMOVED_API (a property's return annotation)
        self.current.copy()  # 25: NEW_REQUIRED_PARAM
        self.mine[0].funcargs  # 26: the project's own attribute (no upstream declares it): no use
        self.plain[0].funcargs  # 27: upstream declares plain without a type: counted unknown
        for s in self.bag:
            s.funcargs  # 29: REMOVED_API (Bag.__iter__ -> Iterator[Spec])
        self.bag["k"].params  # 30: binds, no finding (Bag.__getitem__ -> Spec)

        def later():
            return self._calls[1].funcargs  # 33: REMOVED_API (a closure reads the method's self)
        return a, later


class Swapped(Runner):
    def __init__(self):
        self._calls = make_bag()
        self._calls = []

    def run(self):
        return self._calls[0].funcargs  # 43: rebound (a Bag and a list): counted unknown


class Duck(Runner):
    def __init__(self):
        self._calls = Local()

    def run(self):
        return self._calls[0].funcargs  # 51: a project object: not typed, no use


def comments(calls,  # type: List[Spec]
             nodes,  # type: List[Local]
             ):
    for i in range(len(calls)):
        c, n = calls[i], nodes[i]
        c.funcargs  # 59: REMOVED_API (per-argument type comment; a tuple display unpacked pairwise)
        c = calls[i]
        c.copy()  # 61: NEW_REQUIRED_PARAM


def whole(spec, count):
    # type: (Spec, int) -> None
    return spec.funcargs  # 66: REMOVED_API (a function's type comment)


def method_like(self, bag):
    # type: (Bag) -> Spec
    return bag["k"].funcargs  # 71: REMOVED_API (self left out of the comment; Bag.__getitem__)


def rebound(calls):
    # type: (List[Spec]) -> None
    c = calls[0]
    c = 3
    return c.funcargs  # 78: rebound: counted unknown


def mismatched(a, b):
    # type: (Spec) -> None
    return a.funcargs  # 83: the comment does not match the parameters: not typed


class Own(Runner):
    def run(self):
        x = self.mine[0]
        x = 3
        return x.funcargs  # 90: rebound, from the project's own attribute (no upstream declares it): no use
'''

CHECKLIST = (
    "---\npackage: fakepkg-meta\ngithub: example/fakepkg-meta\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/meta/\nimport_names:\n  - fakepkg.meta\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/meta.py` | `Runner` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


def _uses(src: str, modules=("fakepkg.meta",)):
    return find_uses({"app/meta.py": (src, ast.parse(src))}, list(modules))


def test_each_typed_form_is_a_use_with_its_steps() -> None:
    got = sorted((u.line, u.target, u.member, u.steps, u.attr) for u in _uses(META_PY) if u.kind == ANNOTATED)
    runner, spec, bag = "fakepkg.meta.Runner", "fakepkg.meta.Spec", "fakepkg.meta.Bag"
    assert got == [
        (18, runner, "funcargs", ("a:_calls", "i:0"), "_calls"),
        (20, runner, "copy", ("a:_calls", "iter"), "_calls"),
        (21, runner, "funcargs", ("a:named", "item"), "named"),
        (22, runner, "funcargs", ("a:pair", "i:0"), "pair"),
        (23, runner, "real", ("a:pair", "i:1"), "pair"),
        (26, runner, "funcargs", ("a:mine", "i:0"), "mine"),
        (27, runner, "funcargs", ("a:plain", "i:0"), "plain"),
        (29, runner, "funcargs", ("a:bag", "iter"), "bag"),
        (30, runner, "params", ("a:bag", "item"), "bag"),
        (33, runner, "funcargs", ("a:_calls", "i:1"), "_calls"),
        (43, "fakepkg.meta.make_bag", "funcargs", ("rebound",), ""),
        (59, spec, "funcargs", (), ""),
        (61, spec, "copy", (), ""),
        (66, spec, "funcargs", (), ""),
        (71, bag, "funcargs", ("item",), ""),
        (78, spec, "funcargs", ("rebound",), ""),
        (90, runner, "funcargs", ("rebound", "a:mine"), "mine"),
    ]
    # ``self.current.funcargs`` (24, 25): on an attribute the project never assigns, the TYPED use it was
    # (one attribute deep); deeper chains (``self.pair[0].funcargs``) are ANNOTATED above
    typed = sorted((u.line, u.member, u.attr) for u in _uses(META_PY) if u.kind == TYPED)
    assert typed == [(24, "funcargs", "current"), (25, "copy", "current")]


@pytest.mark.parametrize("src", [
    # a method assigns ``self.x`` an annotated value: the project's own declaration, not upstream's
    "import pkg\n\nclass A(pkg.Base):\n    def f(self):\n        self.x: int = 0\n        return self.x.size\n",
    # a static method's first parameter is no ``self``
    "import pkg\n\nclass A(pkg.Base):\n    @staticmethod\n    def f(me):\n        return me.x.size\n",
    # ``self`` assigned again in the method
    "import pkg\n\nclass A(pkg.Base):\n    def f(self):\n        self = other()\n        return self.x[0].size\n",
    # a class of the project with no upstream base
    "import pkg\n\nclass A:\n    def f(self):\n        return self.x[0].size\n",
    # a method of the project's class named like the attribute
    "import pkg\n\nclass A(pkg.Base):\n    def x(self):\n        return 1\n    def f(self):\n        return self.x[0].size\n",
    # assigned a parameter the project annotates with a class of its own
    "import pkg\n\nclass A(pkg.Base):\n    def __init__(self, cfg: 'MyConfig'):\n        self.x = cfg\n"
    "    def f(self):\n        return self.x[0].size\n",
    # unpacked into: not known
    "import pkg\n\nclass A(pkg.Base):\n    def f(self):\n        self.x, y = 1, 2\n        return self.x[0].size\n",
])
def test_self_attributes_the_project_declares_otherwise_are_not_typed(src: str) -> None:
    assert [u for u in _uses(src, ["pkg"]) if u.kind in (ANNOTATED, TYPED) and u.member == "size"] == []


def test_self_attribute_assigned_a_parameter_without_annotation_keeps_upstreams_type() -> None:
    src = ("import pkg\n\nclass A(pkg.Base):\n    def __init__(self, cfg):\n        self.x = cfg\n"
           "    def f(self):\n        return self.x[0].size\n")
    assert [(u.target, u.steps, u.attr) for u in _uses(src, ["pkg"]) if u.member == "size"] == [
        ("pkg.Base", ("a:x", "i:0"), "x")]


def _fn(src: str):
    return ast.parse(src).body[0], src.splitlines()


@pytest.mark.parametrize("src, params, returns", [
    ("def f(a,  # type: int\n      b):\n    pass\n", {"a": "int"}, None),
    ("def f(a, b):\n    # type: (int, List[X]) -> Y\n    pass\n", {"a": "int", "b": "List[X]"}, "Y"),
    ("def f(self, b):\n    # type: (X) -> None\n    pass\n", {"b": "X"}, "None"),  # self left out
    ("def f(a, b):\n    # type: (...) -> Y\n    pass\n", {}, "Y"),
    ("def f(a, b):\n    # type: (int) -> Y\n    pass\n", {}, "Y"),  # one type for two parameters (and no self): none
    ("def f(a,  # type: not valid(\n      b):\n    pass\n", {}, None),  # not an expression: ignored
    ("def f(a):  # type: ignore\n    pass\n", {}, None),
    ("def f(a):\n    # type: this is not a signature\n    pass\n", {}, None),
    ("def f(a): return a  # type: int\n", {}, None),  # on the body's line: not the header's
    ("def f(a):\n    return a\n", {}, None),
])
def test_type_comments_of_a_def_are_read_from_its_header(src: str, params: dict, returns: str | None) -> None:
    fn, lines = _fn(src)
    got, ret = type_comments(fn, lines)
    assert {k: ast.unparse(v) for k, v in got.items()} == params
    assert (ast.unparse(ret) if ret is not None else None) == returns


@pytest.mark.parametrize("comment", [
    "(" * 300 + "int" + ")" * 300,  # deeper than the parser takes
    "+".join(["x"] * 20000),  # a long expression (read or not, it names no class)
])
def test_a_hostile_type_comment_is_no_type_and_no_crash(comment: str) -> None:
    src = f"import pkg\n\ndef f(a,  # type: {comment}\n      b):\n    x = a  # type: {comment}\n    return x.size\n"
    fn = ast.parse(src).body[1]
    params, returns = type_comments(fn, src.splitlines())
    assert set(params) <= {"a"} and returns is None
    assert [u for u in _uses(src, ["pkg"]) if u.kind == ANNOTATED] == []


def test_an_indented_method_header_with_type_comments_is_read() -> None:
    src = "class A:\n    def f(self,\n          a,  # type: pkg.X\n    ):\n        return a\n"
    fn = ast.parse(src).body[0].body[0]
    got, _ = type_comments(fn, src.splitlines())
    assert {k: ast.unparse(v) for k, v in got.items()} == {"a": "pkg.X"}


# -- the model ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> UpstreamModel:
    root = tmp_path_factory.mktemp("meta")
    for rel, text in META_V1.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text).lstrip("\n"))
    return UpstreamModel([root], ["fakepkg.meta"])


@pytest.mark.parametrize("start, steps, cls", [
    ("fakepkg.meta.Runner", ("a:_calls", "i:0"), "fakepkg.meta.core.Spec"),
    ("fakepkg.meta.Runner", ("a:_calls", "item"), "fakepkg.meta.core.Spec"),
    ("fakepkg.meta.Runner", ("a:named", "item"), "fakepkg.meta.core.Spec"),  # a dict's value
    ("fakepkg.meta.Runner", ("a:named", "i:0"), "fakepkg.meta.core.Spec"),  # an int key: still a value
    ("fakepkg.meta.Runner", ("a:pair", "i:0"), "fakepkg.meta.core.Spec"),
    ("fakepkg.meta.Runner", ("a:pair", "i:1"), "builtins.int"),
    ("fakepkg.meta.Runner", ("a:pair", "i:2"), None),  # no third
    ("fakepkg.meta.Runner", ("a:current",), "fakepkg.meta.core.Spec"),  # a property
    ("fakepkg.meta.Runner", ("m:current",), None),  # a property is not called
    ("fakepkg.meta.Runner", ("a:bag", "iter"), "fakepkg.meta.core.Spec"),  # Bag.__iter__ -> Iterator[Spec]
    ("fakepkg.meta.Runner", ("a:bag", "item"), "fakepkg.meta.core.Spec"),  # Bag.__getitem__ -> Spec
    ("fakepkg.meta.Runner", ("a:bag", "i:3"), "fakepkg.meta.core.Spec"),
    ("fakepkg.meta.Runner", ("a:plain", "i:0"), None),  # declared without a type
    ("fakepkg.meta.Runner", ("a:mine", "i:0"), None),  # not declared
    ("fakepkg.meta.Spec", ("call", "item"), None),  # no __getitem__
    ("fakepkg.meta.Spec", ("call", "iter"), None),  # no __iter__
])
def test_receiver_class_reads_declarations_items_and_dunders(model, start, steps, cls) -> None:
    got = model.receiver_class(start, steps)
    assert (got.path if got is not None else None) == cls


# -- the audit, end to end ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("meta-upstream"), "fakepkg-meta", [("1.0.0", META_V1), ("2.0.0", META_V2)])


def test_the_audit_binds_uses_on_receivers_typed_from_declarations(tmp_path: Path, capsys, upstreams: Path) -> None:
    project: Repo = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/meta.py": META_PY, "checklists/fakepkg-meta.md": CHECKLIST,
        "pyproject.toml": project_pyproject("fakepkg-meta", upstreams, "1.0.0")})
    project.write("pyproject.toml", project_pyproject("fakepkg-meta", upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert r.code == 1
    got = {(int(where.split(":")[1]), code) for where, code, _msg in app_findings(r)}
    removed = {18, 21, 22, 24, 29, 33, 59, 66, 71}
    required = {20, 25, 61}
    assert got == {(n, "REMOVED_API") for n in removed} | {(n, "NEW_REQUIRED_PARAM") for n in required}
    msgs = {where: m for where, code, m in app_findings(r) if code == "REMOVED_API"}
    gone = "`fakepkg.meta.core.Spec.funcargs` (defined at fakepkg/meta/core.py:6) was removed at 2.0.0"
    assert msgs["app/meta.py:18"] == (
        f"{gone} (`self._calls[0]` is `fakepkg.meta.Runner._calls[0]` in `run`: a `fakepkg.meta.core.Spec`)")
    assert msgs["app/meta.py:59"] == f"{gone} (`c` is a `fakepkg.meta.Spec` in `comments`)"
    assert msgs["app/meta.py:66"] == f"{gone} (`spec` typed `fakepkg.meta.Spec` by its type comment in `whole`)"
    # counted, not guessed: 27 (declared without a type), 43 and 78 (rebound); 23 (an int), 26 and 90 (the
    # project's own attribute) are no uses of upstream
    cov = next(line for line in r.lines if "uses found" in line)
    assert "2 a receiver the function assigns more than one kind of value" in cov
    assert "1 the class of a receiver reached from upstream is not known" in cov


@pytest.mark.parametrize("src, expected", [
    # an assignment's type comment
    ("from typing import List\nimport pkg\n\ndef f(x):\n    items = x  # type: List[pkg.Thing]\n    return items[0].size\n",
     [("pkg.Thing", ())]),
    # a project function's return by its type comment
    ("import pkg\n\ndef make():\n    # type: () -> pkg.Thing\n    return object()\n\ndef f():\n    return make().size\n",
     [("pkg.Thing", ())]),
    # a type comment naming no upstream class, or not an expression: nothing
    ("import pkg\n\ndef f(x):\n    items = x  # type: int\n    return items.size\n", []),
    ("import pkg\n\ndef f(x):\n    items = x  # type: List[\n    return items.size\n", []),
    # ``# type: ignore`` is no type
    ("import pkg\n\ndef f(x: pkg.Thing):\n    y = x  # type: ignore\n    return y.size\n", [("pkg.Thing", ())]),
])
def test_assignment_and_return_type_comments(src: str, expected: list) -> None:
    got = [(u.target, u.steps) for u in _uses(src, ["pkg"]) if u.kind == ANNOTATED and u.member == "size"]
    assert got == expected
