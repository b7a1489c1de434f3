"""A project subclass whose ``__init__`` never runs the upstream constructor (``INIT_SKIPPED``).

Its instances lack every attribute the upstream constructor sets, unless the project sets it itself.
When an upstream method the project calls on such an instance starts reading one of them on every
call, the call fails with ``AttributeError`` (pytest-cases' ``MiniMetafunc`` on pytest 8, whose
``Metafunc.parametrize`` now always reads ``self._arg2fixturedefs``).

The fixture upstream ``fakepkg-plan`` (a local git repository, two tagged releases): between them,
``Planner.plan`` reads ``self.table`` on every call (it did only when ``scope`` was None) and reads the
new ``self.registry`` (set by the base class ``Core``'s constructor, which ``Planner.__init__`` runs
through ``super().__init__``); ``Planner.report`` now reads ``self.cache`` through ``self._render()``;
the new ``fire`` reads the new ``self.hooks``; ``self.extra`` is new and read by nobody;
``describe`` reads ``self.config`` on every call at both releases."""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import pytest

from conftest import Repo
from upstream import app_findings, audited_project, project_pyproject, tagged_upstream
from upgrade_checklists.audit.api import Api, UpstreamModel
from upgrade_checklists.audit.bind import bind_uses
from upgrade_checklists.audit.model_cache import FORMAT, _init_facts_in
from upgrade_checklists.audit.selfreads import init_facts
from upgrade_checklists.core.plain import PlainError
from upgrade_checklists.project.uses import INIT_SKIPPED, Use, find_uses

PLAN_V1 = {
    "fakepkg/plan/__init__.py": "from fakepkg.plan.base import Planner, Remote, Lazy\n",
    "fakepkg/plan/base.py": '''
        from collections import OrderedDict


        class Core:
            def __init__(self, config):
                self.config = config


        class Planner(Core):
            def __init__(self, config, table):
                super().__init__(config)
                self.table = table
                self.calls = []
                self.cache = {}

            def plan(self, names, scope=None):
                if scope is None:
                    return self.table.get(names)
                self.calls.append(names)
                return scope

            def describe(self):
                return self.config

            def report(self):
                return list(self.calls)

            def summary(self):
                return self.config


        class Remote(OrderedDict):
            def __init__(self):
                super().__init__()
                self.peer = None

            def ping(self):
                return self.peer


        class Lazy:
            def __init__(self):
                self.store = {}

            def __getattr__(self, name):
                return None

            def get(self, key):
                return self.store[key]
        ''',
}

PLAN_V2 = {
    "fakepkg/plan/__init__.py": "from fakepkg.plan.base import Planner, Remote, Lazy\n",
    "fakepkg/plan/base.py": '''
        from collections import OrderedDict


        class Core:
            def __init__(self, config):
                self.config = config
                self.registry = {}


        class Planner(Core):
            def __init__(self, config, table):
                super().__init__(config)
                self.table = table
                self.calls = []
                self.cache = {}
                self.hooks = []
                self.extra = 0

            def plan(self, names, scope=None):
                if scope is None:
                    scope = "function"
                found = self.table.get(names)
                self.calls.append(names)
                return self.registry.setdefault(names, found)

            def describe(self):
                return self.config

            def report(self):
                return self._render()

            def _render(self):
                return [self.cache, self.calls]

            def fire(self):
                for hook in self.hooks:
                    hook()

            def summary(self):
                if self.config:
                    return self.registry
                return None


        class Remote(OrderedDict):
            def __init__(self):
                super().__init__()
                self.peer = None
                self.link = None

            def ping(self):
                return self.link


        class Lazy:
            def __init__(self):
                self.store = {}
                self.index = {}

            def __getattr__(self, name):
                return None

            def get(self, key):
                return self.index[key]
        ''',
}

APP_PY = '''\
from fakepkg.plan import Lazy, Planner, Remote


class Mini(Planner):
    def __init__(self, config):
        self.config = config
        self.calls = []

    def run(self, names):
        return self.plan(names, scope="module")


class Described(Planner):
    def __init__(self):
        self.config = None

    def show(self):
        return self.describe()


class Full(Planner):
    def __init__(self):
        super().__init__(None, {})

    def run(self, names):
        return self.plan(names, scope="module")


class Own(Planner):
    def __init__(self):
        self.config = None
        self.table = {}
        self.registry = {}
        self.calls = []

    def run(self, names):
        return self.plan(names)


class Inherits(Planner):
    def run(self, names):
        return self.plan(names)


class Far(Remote):
    def __init__(self):
        self.peer = 1

    def check(self):
        return self.ping()


class Lazier(Lazy):
    def __init__(self):
        self.store = {}

    def check(self):
        return self.get("k")


def use():
    m = Mini(1)
    return m.report()
'''

CHECKLIST = (
    "---\npackage: fakepkg-plan\ngithub: example/fakepkg-plan\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/plan/\nimport_names:\n  - fakepkg.plan\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/plans.py` | `Planner` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


def pyproject(upstreams: Path, version: str) -> str:
    return project_pyproject("fakepkg-plan", upstreams, version)


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("plan-upstream"), "fakepkg-plan", [("1.0.0", PLAN_V1), ("2.0.0", PLAN_V2)])


@pytest.fixture
def project(tmp_path: Path, capsys, upstreams: Path) -> Repo:
    return audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/plans.py": APP_PY, "checklists/fakepkg-plan.md": CHECKLIST,
        "pyproject.toml": pyproject(upstreams, "1.0.0")})


def skipped(run) -> list[tuple[str, str]]:
    return [(where, msg) for where, code, msg in app_findings(run) if code == "INIT_SKIPPED"]


def head(cls: str) -> str:
    return f"`{cls}.__init__` does not run the constructor of `fakepkg.plan.base.Planner`: at 2.0.0 "


def unreached(cls: str, setter: str, attr: str, readers: str) -> str:
    return (f"[warning] {head(cls)}{setter} sets `self.{attr}`, which upstream {readers} (no method read it at the "
            f"old version); the project is not seen calling {'them' if '), ' in readers else 'it'} on an instance of `{cls}`")


REGISTRY = "`Core.__init__` (fakepkg/plan/base.py:7)"  # through Planner.__init__'s super().__init__(config)
TABLE, CACHE, HOOKS = ("`Planner.__init__` (fakepkg/plan/base.py:13)", "`Planner.__init__` (fakepkg/plan/base.py:15)",
                       "`Planner.__init__` (fakepkg/plan/base.py:16)")


def test_a_skipped_constructor_whose_attributes_an_upstream_method_now_reads(project: Repo, upstreams: Path) -> None:
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert r.code == 1
    assert skipped(r) == [
        # Described calls only describe, which reads config (set by Described itself) at both releases alike;
        # the attributes no method read at 1.0.0 are read by methods it is not seen calling: warnings (table
        # was read by plan at 1.0.0 already: not news)
        ("app/plans.py:14", unreached("Described", REGISTRY, "registry", "`Planner.plan` (fakepkg/plan/base.py:24), "
                                      "`Planner.summary` (fakepkg/plan/base.py:41) read")),
        ("app/plans.py:14", unreached("Described", CACHE, "cache", "`Planner._render` (fakepkg/plan/base.py:33) reads")),
        ("app/plans.py:14", unreached("Described", HOOKS, "hooks", "`Planner.fire` (fakepkg/plan/base.py:36) reads")),
        # Own sets table, registry and calls itself, which plan reads; not cache and hooks
        ("app/plans.py:30", unreached("Own", CACHE, "cache", "`Planner._render` (fakepkg/plan/base.py:33) reads")),
        ("app/plans.py:30", unreached("Own", HOOKS, "hooks", "`Planner.fire` (fakepkg/plan/base.py:36) reads")),
        # Mini calls plan (scope given) and, on an instance made in use(), report: plan now reads `table` on
        # every call (at 1.0.0 only when scope was None: Mini passed it) and the new `registry`; report reads
        # `cache` through `self._render()`; nobody calls fire; `extra` is read by no method; Mini sets
        # `config` and `calls` itself
        ("app/plans.py:5", unreached("Mini", HOOKS, "hooks", "`Planner.fire` (fakepkg/plan/base.py:36) reads")),
        ("app/plans.py:5", head("Mini") + REGISTRY + " sets `self.registry`, which upstream `Planner.plan` "
                           "(fakepkg/plan/base.py:24) reads on every call, and the project calls `plan` on an instance of "
                           "`Mini` (app/plans.py:10): it fails with AttributeError (the old version did not read it there)"),
        ("app/plans.py:5", head("Mini") + TABLE + " sets `self.table`, which upstream `Planner.plan` "
                           "(fakepkg/plan/base.py:22) reads on every call, and the project calls `plan` on an instance of "
                           "`Mini` (app/plans.py:10): it fails with AttributeError (the old version read it only under a "
                           "condition)"),
        ("app/plans.py:5", head("Mini") + CACHE + " sets `self.cache`, which upstream `Planner.report` (through "
                           "`self._render()`, `Planner._render`) (fakepkg/plan/base.py:33) reads on every call, and the "
                           "project calls `report` on an instance of `Mini` (app/plans.py:63): it fails with AttributeError "
                           "(the old version did not read it there)"),
    ]
    # Full runs super().__init__, Inherits has no __init__ (Planner's runs), Far's base inherits from the
    # standard library (outside the loaded source) and Lazier's has a __getattr__ (a missing attribute may be
    # served): nothing at their lines
    summary = " ".join(project.read("upgrade-summary.md").split())
    assert "INIT_SKIPPED: `Mini.__init__` does not run the constructor" in summary


def test_the_coverage_counts_what_could_not_be_told(project: Repo, upstreams: Path) -> None:
    """Far (a base from the standard library) and Lazier (a ``__getattr__`` upstream) are unknown, counted."""
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache))
    cov = next(line for line in r.lines if line.startswith("Coverage, fakepkg-plan"))
    assert "2 a constructor chain with a base outside the loaded source or a `__getattr__`" in cov


def test_an_unchanged_upstream_says_nothing(project: Repo) -> None:
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert skipped(r) == []


def test_a_pinned_version_audited_alone_warns_of_reads_on_every_call(project: Repo, upstreams: Path) -> None:
    """Nothing moved (2.0.0 pinned and committed): binding only, no old version to compare with. What a
    method the project calls reads on every call is a warning; what it reads under a condition, or what
    methods it does not call read, is not said."""
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    project.commit("pin 2.0.0")
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert r.code == 0
    calls = "and the project calls `{}` on an instance of `Mini` (app/plans.py:{}): it may fail with AttributeError"
    assert skipped(r) == [
        ("app/plans.py:5", "[warning] " + head("Mini") + REGISTRY + " sets `self.registry`, which upstream `Planner.plan` "
                           "(fakepkg/plan/base.py:24) reads on every call, " + calls.format("plan", 10)),
        ("app/plans.py:5", "[warning] " + head("Mini") + TABLE + " sets `self.table`, which upstream `Planner.plan` "
                           "(fakepkg/plan/base.py:22) reads on every call, " + calls.format("plan", 10)),
        ("app/plans.py:5", "[warning] " + head("Mini") + CACHE + " sets `self.cache`, which upstream `Planner.report` "
                           "(through `self._render()`, `Planner._render`) (fakepkg/plan/base.py:33) reads on every call, "
                           + calls.format("report", 63)),
    ]


def test_the_answers_are_cached_with_the_model(project: Repo, upstreams: Path) -> None:
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    first = skipped(project.run("audit", "--cache-dir", str(project.cache), "-v"))
    records = [json.loads(p.read_text()) for p in (project.cache / "models" / f"v{FORMAT}").glob("*.json")]
    asked = [k for rec in records for table in rec.get("tables", {}).values() for k in table if k.startswith('["init_facts"')]
    assert '["init_facts", "fakepkg.plan.base.Planner", "class"]' in asked
    warm = skipped(project.run("audit", "--cache-dir", str(project.cache), "-v"))
    assert warm == first and len(first) >= 4


# -- the parts -------------------------------------------------------------------------------------


def uses_of(src: str) -> list:
    src = textwrap.dedent(src)
    return [u for u in find_uses({"app/a.py": (src, ast.parse(src))}, ["pkg"]) if u.kind == INIT_SKIPPED]


def test_which_constructors_skip_the_base() -> None:
    got = uses_of('''
        from typing import Generic, TypeVar
        from pkg import Base
        from app.mixins import Mixin

        class Skips(Base):
            def __init__(self, a):
                self.a = a
                setattr(self, "b", 1)

            def go(self):
                Base.reset(self)
                super().other()
                return self.run()

        class Calls(Base):
            def __init__(self):
                super().__init__()

        class Explicit(Base):
            def __init__(self):
                Base.__init__(self)

        class Helper(Base):
            def __init__(self):
                self._setup()

            def _setup(self):
                super(Helper, self).__init__()

        class Dynamic(Base):
            def __init__(self, **kw):
                for k, v in kw.items():
                    setattr(self, k, v)

        class Dicty(Base):
            def __init__(self, other):
                self.__dict__.update(other.__dict__)

        class Served(Base):
            def __init__(self):
                pass

            def __getattr__(self, name):
                return None

        class NoInit(Base):
            def go(self):
                return self.run()

        class Mixed(Mixin, Base):
            def __init__(self):
                self.a = 1

        class Generic_(Base, Generic[T]):
            def __init__(self):
                self.a = 1

        class Child(Skips):
            def more(self):
                return self.extend()

        def use():
            c = Child(1)
            c.finish()
            helpers.log(c)
            c.table = {}

        def given(s: "Skips", t: Optional[Child], u: Skips | None, v: NoInit, w: Skips):
            s.close()
            t.flush()
            u.drain()
            v.ignored()
            w = make()
            w.rebound()
        ''')
    # Mixed has a second base (a mixin may set anything): not said; Generic[T] is no such base
    assert [(u.line, u.via, u.target) for u in got] == [(7, "subclass `Skips`", "pkg.Base"), (56, "subclass `Generic_`", "pkg.Base")]
    got = got[:1]
    u = got[0]
    # what Skips and Child (whose instances run Skips.__init__) define and set (also by a constant setattr)
    # and what a function sets on an object from outside (``c.table = {}``)
    assert u.names == ("__init__", "a", "b", "go", "more", "table")
    # reached: in Skips' and Child's methods (self., super(), Base.m(self)), on a Child instance made in use()
    # and on parameters annotated Skips or Child (not on one the function assigns another value)
    assert [m for m, _line, _f in u.reached] == ["reset", "other", "run", "extend", "finish", "close", "flush", "drain"]


def test_the_constructor_chain_and_what_methods_read_on_every_call() -> None:
    tree = ast.parse(textwrap.dedent('''
        from dataclasses import dataclass, field

        @dataclass
        class Root:
            size: int
            label: str = "x"

            def __post_init__(self):
                self.ready = True

        class Mid(Root):
            def __init__(self, size):
                super().__init__(size)
                self.mid = 1
                self._more()

            def _more(self):
                self.more = 2

        class Top(Mid):
            kind = "top"

            def __init__(self):
                super().__init__(3)
                self.top: int = 0

            def m(self, flag, items):
                a = self.top
                if flag:
                    b = self.mid
                x = flag and self.size
                y = [self.more for _ in items]
                z = self.label
                with open("f") as fh:
                    w = self.ready
                self.helper()
                if flag:
                    return a
                late = self.size
                return b

            def helper(self):
                try:
                    return self.mid
                finally:
                    self.top

            def gen(self):
                yield self.top

            @property
            def prop(self):
                return self.top
    '''))
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    facts = init_facts([(classes["Top"], "t.py"), (classes["Mid"], "t.py"), (classes["Root"], "t.py")])
    sets = {a: who for a, who, _where in facts["sets"]}
    assert sets == {"top": "Top.__init__", "mid": "Mid.__init__", "more": "Mid.__init__ (through `self._more()`)",
                    "size": "Root.__init__", "ready": "Root.__post_init__"}
    assert {"kind", "label", "m", "helper", "gen", "prop"} <= set(facts["class_names"])
    assert facts["getattr"] is False
    m = facts["methods"]["m"]
    assert sorted((a, always) for a, _line, always in m["reads"]) == [
        ("mid", False), ("more", False), ("ready", True), ("size", False), ("size", False), ("top", True)]
    assert m["calls"] == [["helper", 37, True]]
    assert sorted((a, always) for a, _l, always in facts["methods"]["helper"]["reads"]) == [("mid", False), ("top", True)]
    assert [a for a, _l, always in facts["methods"]["gen"]["reads"] if always] == []  # a generator runs when iterated
    assert "prop" not in facts["methods"]


def test_a_model_answers_for_a_deep_mro_and_a_base_outside_the_source(tmp_path: Path) -> None:
    body = "class C0:\n    def __init__(self):\n        self.a0 = 0\n"
    for i in range(1, 40):
        body += (f"\n\nclass C{i}(C{i - 1}):\n    def __init__(self):\n        super().__init__()\n"
                 f"        self.a{i} = {i}\n\n    def m{i}(self):\n        return self.a{i - 1}\n")
    body += "\n\nimport collections\n\n\nclass Far(collections.OrderedDict):\n    def __init__(self):\n        self.x = 1\n"
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text(body)
    model = UpstreamModel([tmp_path], ["pkg"])
    deep = model.init_facts(model.lookup("pkg.C39"))
    assert deep["complete"] is True and len(deep["sets"]) == 40 and len(deep["methods"]) == 39
    far = model.init_facts(model.lookup("pkg.Far"))
    assert far["complete"] is False
    assert _init_facts_in(json.loads(json.dumps(deep))) == deep


@pytest.mark.parametrize("bad", [
    [], {"sets": []}, {"sets": [], "class_names": [], "getattr": 1, "methods": {}, "complete": True},
    {"sets": [["a", "b"]], "class_names": [], "getattr": False, "methods": {}, "complete": True},
    {"sets": [], "class_names": [], "getattr": False, "complete": True,
     "methods": {"m": {"caller": "C.m", "file": "f", "line": "1", "reads": [], "calls": [], "stores": []}}},
    {"sets": [], "class_names": [], "getattr": False, "complete": True,
     "methods": {"m": {"caller": "C.m", "file": "f", "line": 1, "reads": [["a", 1, "yes"]], "calls": [], "stores": []}}},
])
def test_a_garbled_cached_answer_is_refused(bad) -> None:
    with pytest.raises(PlainError):
        _init_facts_in(bad)


class FactsModel:
    """A model answering ``lookup`` and ``init_facts`` from plain facts (what ``api.init_facts`` gives)."""

    def __init__(self, facts: dict) -> None:
        self.facts = facts

    def lookup(self, dotted: str) -> Api | None:
        return Api(dotted, "class", None) if dotted == "pkg.Base" else None

    def init_facts(self, cls: Api) -> dict:
        return self.facts


def facts(sets: list[str], methods: dict[str, tuple[list, list, list]], **kw) -> dict:
    """``methods``: name -> (reads [(attr, always)], calls [(name, always)], stores)."""
    return {"sets": [[a, "Base.__init__", f"pkg/base.py:{i + 2}"] for i, a in enumerate(sets)],
            "class_names": sorted(methods), "getattr": kw.get("getattr", False), "complete": kw.get("complete", True),
            "methods": {m: {"caller": f"Base.{m}", "file": "pkg/base.py", "line": 10 + i,
                            "reads": [[a, 20 + i, al] for a, al in reads], "calls": [[c, 30 + i, al] for c, al in calls],
                            "stores": stores} for i, (m, (reads, calls, stores)) in enumerate(methods.items())}}


def bind_one(old: dict, new: dict, reached=("run",), names=()) -> list[tuple[str, str, str]]:
    use = Use("app/a.py", 5, INIT_SKIPPED, "pkg.Base", "__init__", via="subclass `Mine`", names=tuple(names),
              reached=tuple((m, 9, "app/a.py") for m in reached))
    b = bind_uses([use], FactsModel(old), FactsModel(new), "2.0")[0]
    return [(code, sev, param) for code, sev, param, _msg in b.problems] or [b.unknown]


def test_what_decides_an_error_a_warning_or_nothing() -> None:
    old = facts(["a"], {"run": ([], [], [])})
    # run now reads `b` on every call: an error; under a condition: a warning
    assert bind_one(old, facts(["a", "b"], {"run": ([("b", True)], [], [])})) == [("INIT_SKIPPED", "error", "b")]
    assert bind_one(old, facts(["a", "b"], {"run": ([("b", False)], [], [])})) == [("INIT_SKIPPED", "warning", "b")]
    # through a method it calls on every call: an error (one level)
    assert bind_one(old, facts(["b"], {"run": ([], [("step", True)], []), "step": ([("b", True)], [], [])})) == [
        ("INIT_SKIPPED", "error", "b")]
    # ... unless the project overrides that method
    assert bind_one(old, facts(["b"], {"run": ([], [("step", True)], []), "step": ([("b", True)], [], [])}),
                    names=("step",)) == [""]
    # the project sets `b` itself
    assert bind_one(old, facts(["b"], {"run": ([("b", True)], [], [])}), names=("b",)) == [""]
    # read on every call at the old version too: the project failed then already (or `b` comes from elsewhere)
    assert bind_one(facts(["b"], {"run": ([("b", True)], [], [])}), facts(["b"], {"run": ([("b", True)], [], [])})) == [""]
    # a method the project calls sets `b` itself (``setup()`` before ``run()``): nothing
    assert bind_one(old, facts(["b"], {"run": ([("b", True)], [], []), "setup": ([], [], ["b"])}),
                    reached=("setup", "run")) == [""]
    # another upstream method sets it (lazily, maybe before): a warning at most
    assert bind_one(old, facts(["b"], {"run": ([("b", True)], [], []), "load": ([], [], ["b"])})) == [
        ("INIT_SKIPPED", "warning", "b")]
    # set and read by nobody the project calls, read by no method at the old version: a warning
    assert bind_one(old, facts(["b"], {"run": ([], [], []), "other": ([("b", True)], [], [])})) == [
        ("INIT_SKIPPED", "warning", "b")]
    # ... but `a` was read by some method at the old version already: not news
    assert bind_one(facts(["a"], {"other": ([("a", False)], [], [])}),
                    facts(["a"], {"run": ([], [], []), "other": ([("a", True)], [], [])})) == [""]
    # a `__getattr__` in the MRO, or a base outside the loaded source: unknown, counted
    unknown = "a constructor chain with a base outside the loaded source or a `__getattr__`"
    assert bind_one(old, facts(["b"], {"run": ([("b", True)], [], [])}, getattr=True)) == [unknown]
    assert bind_one(old, facts(["b"], {"run": ([("b", True)], [], [])}, complete=False)) == [unknown]


def test_the_use_is_kept_by_the_project_side_cache() -> None:
    from upgrade_checklists.project.usecache import from_record, to_record

    use = Use("app/a.py", 5, INIT_SKIPPED, "pkg.Base", "__init__", via="subclass `Mine`", names=("a", "b"),
              reached=(("run", 9, "app/a.py"), ("plan", 12, "app/b.py")))
    record = json.loads(json.dumps(to_record([use])))
    assert record[0]["reached"] == [["run", 9, "app/a.py"], ["plan", 12, "app/b.py"]]
    assert from_record(record) == [use]
    record[0]["reached"] = [["run", "9", "app/a.py"]]  # a line that is not a number: the record is refused
    assert from_record(record) is None
