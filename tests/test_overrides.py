"""Overrides: a project class subclassing an upstream class defines a method the upstream
base also defines. Upstream calls it on ``self`` from its own methods, so the override must
take what the base takes at the new version, and every call upstream makes of it.

The fixture upstream ``fakepkg-cmd`` is a small command framework (a local git repository
with two tagged releases); between them, ``Command.render`` gains a required ``ctx`` that
``Command.run`` now passes, ``Command.handle`` is called by keyword where it was called by
position, ``Command.parse`` gains an optional ``strict`` nobody passes, and the
``before`` hook disappears."""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import pytest

from conftest import Repo
from upstream import audited_project, project_pyproject, tagged_upstream, upgrade_audit
from upgrade_checklists.audit.model_cache import FORMAT
from upgrade_checklists.audit.api import Param, Signature, UpstreamModel, self_calls_in
from upgrade_checklists.audit.overrides import call_fails, cannot_accept, override_signature
from upgrade_checklists.project.uses import OVERRIDE, find_uses

CMD_V1 = {
    "fakepkg/cmd/__init__.py": "from fakepkg.cmd.base import Command, Context\n",
    "fakepkg/cmd/base.py": '''
        class Context:
            pass


        class Command:
            def __init__(self, name):
                self.name = name
                self.box = Style()

            def render(self):
                return self.name

            def parse(self, argv):
                return argv

            def handle(self, ctx, value):
                return value

            def before(self):
                return None

            def close(self, force=False):
                return force

            def describe(self):
                return self.name

            def run(self, argv):
                ctx = Context()
                self.before()
                self.render()
                self.parse(argv)
                self.close()
                return self.handle(ctx, 1)

            style: "Style"


        class Style:
            def paint(self, text):
                return text

            def legacy(self):
                return None


        class Group(Command):
            pass
        ''',
}

CMD_V2 = {
    **CMD_V1,
    "fakepkg/cmd/base.py": '''
        class Context:
            pass


        class Command:
            def __init__(self, name):
                self.name = name
                self.box = Style()

            def render(self, ctx):
                return self.name

            def parse(self, argv, strict=False):
                return argv

            def handle(self, ctx, value):
                return value

            def close(self, force=False):
                return force

            def describe(self):
                return self.name

            def run(self, argv):
                ctx = Context()
                self.render(ctx)
                self.parse(argv)
                self.close(force=True)
                return self.handle(ctx, value=1)

            def preview(self):
                return self.render(Context())

            style: "Style | None"


        class Style:
            def paint(self, text, width):
                return text


        class Group(Command):
            pass
        ''',
}

APP_PY = '''\
from fakepkg.cmd import Command


class Greet(Command):
    def render(self):
        return "hi"

    def parse(self, argv):
        return argv[1:]

    def handle(self, context, val):
        return val

    def before(self):
        return None

    def close(self, **kwargs):
        return True

    def describe(self, verbose):
        return verbose

    def __call__(self, *args, **kwargs):
        return self.run(list(args))

    def extra(self):
        return 0

    def show(self):
        self.name.upper()
        return self.style.paint("x") + self.box.paint("y")

    def old(self):
        return self.style.legacy()
'''

CHECKLIST = (
    "---\npackage: fakepkg-cmd\ngithub: example/fakepkg-cmd\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/cmd/\nimport_names:\n  - fakepkg.cmd\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/greet.py` | `Command` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


def pyproject(upstreams: Path, version: str) -> str:
    return project_pyproject("fakepkg-cmd", upstreams, version)


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("cmd-upstream"), "fakepkg-cmd", [("1.0.0", CMD_V1), ("2.0.0", CMD_V2)])


@pytest.fixture
def project(tmp_path: Path, capsys, upstreams: Path) -> Repo:
    return audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/greet.py": APP_PY, "checklists/fakepkg-cmd.md": CHECKLIST,
        "pyproject.toml": pyproject(upstreams, "1.0.0")})


def findings(run) -> dict[tuple[str, str], list[str]]:
    """file:line -> the OVERRIDE_MISMATCH messages there (without the checklist reference)."""
    out: dict[tuple[str, str], list[str]] = {}
    for line in run.lines:
        if ": OVERRIDE_MISMATCH " not in line:
            continue
        where, msg = line.split(": OVERRIDE_MISMATCH ", 1)
        out.setdefault(where.removesuffix(":1"), []).append(msg.rsplit(" (checklists/", 1)[0])
    return out


def test_overrides_are_checked_against_the_new_base_and_upstreams_calls(project: Repo, upstreams: Path) -> None:
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert r.code == 1
    got = findings(r)
    # render(self): upstream's run() now passes ctx; the error names the upstream caller and its line
    # (one finding for the two upstream callers that pass it alike)
    assert got["app/greet.py:5"] == [
        "upstream `Command.run` (fakepkg/cmd/base.py:27), `Command.preview` (fakepkg/cmd/base.py:33) call "
        "`self.render(…)` at 2.0.0; the override `Greet.render()` cannot take it: 1 positional argument(s), the override takes 0"]
    # parse(self, argv): the base's new optional `strict` is a warning (no upstream call passes it)
    assert got["app/greet.py:8"] == [
        "[warning] `fakepkg.cmd.base.Command.parse(argv, strict)` at 2.0.0: the override `Greet.parse(argv)` cannot "
        "accept what the base accepts: the base takes `strict` as positional argument 2; the override takes 1 "
        "positional argument(s) and no `*args` (upstream's own calls of it bind)"]
    # handle(self, context, val): called by position at 1.0.0 (it bound), by keyword `value` at 2.0.0
    # (the names differed at the old version already, but upstream passed both by position then)
    assert got["app/greet.py:11"] == [
        "upstream `Command.run` (fakepkg/cmd/base.py:30) calls `self.handle(…, value=…)` at 2.0.0; the override "
        "`Greet.handle(context, val)` cannot take it: keyword `value`, which the override does not take; "
        "no `val`, which the override requires"]
    # before(self): the hook is gone upstream; nothing calls the override any more
    assert got["app/greet.py:14"] == [
        "[warning] `Greet.before()` overrides `fakepkg.cmd.base.Command.before`, which is gone at 2.0.0: upstream no longer calls it"]
    # __call__ and extra are not upstream's; close(**kwargs) cannot take `force` by position and describe
    # requires `verbose`, at both versions alike: info, not a change of this upgrade
    assert "app/greet.py:23" not in got and "app/greet.py:26" not in got
    for line in ("app/greet.py:17", "app/greet.py:20"):
        assert got[line] and all(m.startswith("[info] ") and m.endswith("not a change of this upgrade)") for m in got[line])
    errors = sorted(w for w, ms in got.items() if any(not m.startswith("[") for m in ms))
    assert errors == ["app/greet.py:11", "app/greet.py:5"]
    summary = " ".join(project.read("upgrade-summary.md").split())  # as wrapped at 88 columns
    assert "OVERRIDE_MISMATCH: upstream `Command.run` (fakepkg/cmd/base.py:27), `Command.preview`" in summary


def test_calls_on_attributes_upstream_declares_are_bound(project: Repo, upstreams: Path) -> None:
    """``self.style`` is declared ``Style`` (``Style | None`` at 2.0.0) by the upstream base; ``self.box``
    is set to a ``Style()`` in its ``__init__``; ``self.name`` has no known class: not bound."""
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    got = sorted((line.split(": ", 1)[0], line.split(": ", 1)[1].rsplit(" (checklists/", 1)[0]) for line in r.lines
                 if line.startswith(("app/greet.py:30:", "app/greet.py:31:", "app/greet.py:34:")))
    assert got == [
        ("app/greet.py:31:1", "NEW_REQUIRED_PARAM `fakepkg.cmd.base.Style.paint`: `width` is required at 2.0.0 and this call "
                              "does not pass it (`box` is a `fakepkg.cmd.base.Style` in `fakepkg.cmd.base.Command`; subclass "
                              "`Greet`, through `self.box`)"),
        ("app/greet.py:31:1", "NEW_REQUIRED_PARAM `fakepkg.cmd.base.Style.paint`: `width` is required at 2.0.0 and this call "
                              "does not pass it (`style` is a `fakepkg.cmd.base.Style` in `fakepkg.cmd.base.Command`; subclass "
                              "`Greet`, through `self.style`)"),
        ("app/greet.py:34:1", "REMOVED_API `fakepkg.cmd.base.Style.legacy` (defined at fakepkg/cmd/base.py:43) was removed "
                              "at 2.0.0 (`style` is a `fakepkg.cmd.base.Style` in `fakepkg.cmd.base.Command`; subclass "
                              "`Greet`, through `self.style`)"),
    ]


def test_the_audit_says_what_it_checked(project: Repo, upstreams: Path) -> None:
    """Greet's uses of fakepkg.cmd: 6 overrides of upstream methods (render, parse, handle, before, close,
    describe; __call__, extra, show and old are its own), 5 members of self (run, name, style, box,
    style) and 4 calls on attributes (style.paint, box.paint, style.legacy, and name.upper, whose class
    nobody declares): 15 found, 14 checked, 1 unknown."""
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache))
    assert r.lines[-2] == ("Coverage, fakepkg-cmd 1.0.0 -> 2.0.0: 15 uses found, 14 checked, 1 unknown (1 the class of an "
                           "attribute upstream declares is not known); behaviour changes (same signature, other semantics) "
                           "are outside a static audit.")
    summary = " ".join(project.read("upgrade-summary.md").split())
    assert ("Coverage: 15 uses found, 14 checked, 1 unknown (1 the class of an attribute upstream declares is not known). "
            "Not checked: behaviour changes (same signature, other semantics) are outside a static audit.") in summary


def test_an_unchanged_upstream_leaves_overrides_alone(project: Repo) -> None:
    r = project.run("audit", "--cache-dir", str(project.cache))
    assert r.code == 0
    assert not [line for line in r.lines if "OVERRIDE_MISMATCH" in line and "[info]" not in line and "[warning]" not in line]


def test_upstream_calls_are_cached_with_the_model(project: Repo, upstreams: Path) -> None:
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    first = findings(project.run("audit", "--cache-dir", str(project.cache), "-v"))
    records = [json.loads(p.read_text()) for p in (project.cache / "models" / f"v{FORMAT}").glob("*.json")]
    asked = [k for rec in records for table in rec.get("tables", {}).values() for k in table if k.startswith('["self_calls"')]
    assert '["self_calls", "fakepkg.cmd.base.Command", "class", "render"]' in asked
    # a warm audit answers from the record: same findings
    assert findings(project.run("audit", "--cache-dir", str(project.cache), "-v")) == first


def test_override_uses_leave_constructors_and_properties_out() -> None:
    src = textwrap.dedent('''
        from pkg import Base

        class Mine(Base):
            def __init__(self, a):
                super().__init__()

            @property
            def size(self):
                return 1

            @staticmethod
            def make(x, y=1, *, z):
                return x

            @classmethod
            def build(cls, spec, **kw):
                return cls()

            def __len__(self):
                return 0
        ''')
    uses = [u for u in find_uses({"m.py": (src, ast.parse(src))}, ["pkg"]) if u.kind == OVERRIDE]
    got = [(u.line, u.member, u.params, u.defaults) for u in uses]
    assert got == [
        (13, "make", (("x", "positional or keyword"), ("y", "positional or keyword"), ("z", "keyword-only")), ("y",)),
        (17, "build", (("spec", "positional or keyword"), ("kw", "variadic keyword")), ()),
        (20, "__len__", (), ()),
    ]


PK, KW, VA, VK, PO = "positional or keyword", "keyword-only", "variadic positional", "variadic keyword", "positional-only"


def sig(*params) -> Signature:
    return Signature([Param(n, k, d) for n, k, d in params], None)


def test_what_an_override_cannot_accept() -> None:
    base = sig(("a", PK, None), ("b", PK, "1"), ("c", KW, None))
    # the same parameters: nothing
    assert cannot_accept(base, base) == []
    # *args, **kwargs take everything the base takes
    assert cannot_accept(base, sig(("args", VA, None), ("kwargs", VK, None))) == []
    # a parameter missing: `b` cannot be passed at position 2, nor by keyword (optional in the base)
    gaps = cannot_accept(base, sig(("a", PK, None), ("c", KW, None)))
    assert [(p, req) for p, req, _kw, _why in gaps] == [("b", False)]
    # a name differing at the same position: only callers passing it by keyword fail
    gaps = cannot_accept(base, sig(("x", PK, None), ("b", PK, "1"), ("c", KW, None)))
    assert [(p, req, kw) for p, req, kw, _why in gaps] == [("a", True, True)]
    # a parameter the override requires that the base makes optional, or does not have
    gaps = cannot_accept(base, sig(("a", PK, None), ("b", PK, None), ("c", KW, None), ("d", KW, None)))
    assert [(p, req) for p, req, _kw, _why in gaps] == [("b", False), ("d", True)]
    # ... unless the base's callers may pass it through its **kwargs
    assert cannot_accept(sig(("a", PK, None), ("kw", VK, None)), sig(("a", PK, None), ("d", KW, None), ("kw", VK, None))) == []


def test_an_upstream_call_binds_or_says_why_not() -> None:
    mine = sig(("ctx", PK, None), ("flag", KW, "False"))
    call = {"positional": 1, "keywords": [], "star_args": False, "star_kwargs": False}
    assert call_fails(call, mine) == []
    assert call_fails({**call, "positional": 2}, mine) == ["2 positional argument(s), the override takes 1"]
    assert call_fails({**call, "keywords": ["ctx"]}, mine) == ["`ctx` twice (by position and by keyword)"]
    assert call_fails({**call, "positional": 0, "keywords": ["flag"]}, mine) == ["no `ctx`, which the override requires"]
    assert call_fails({**call, "positional": 0, "star_args": True}, mine) == []  # what *args holds is not known


def test_upstream_self_calls_are_found_in_the_class_and_its_bases(tmp_path: Path) -> None:
    root = tmp_path / "src"
    (root / "up").mkdir(parents=True)
    (root / "up/__init__.py").write_text(textwrap.dedent('''
        def deco(cls):
            return cls


        class Root:
            def go(self):
                self.step(1, mode="x")
                other.step(2)


        @deco
        class Mid(Root):
            def again(me):
                def inner():
                    return me.step(*[1])
                return inner

            @staticmethod
            def s(self):
                self.step()
        '''))
    m = UpstreamModel([root], ["up"])
    calls = m.self_calls(m.lookup("up.Mid"), "step")
    assert sorted((c["file"], c["line"], c["caller"], c["positional"], c["keywords"], c["star_args"]) for c in calls) == [
        ("up/__init__.py", 8, "Root.go", 1, ["mode"], False),
        ("up/__init__.py", 16, "Mid.again", 0, [], True),
    ]
    node = ast.parse("class K:\n    def f(self):\n        self.g(**{})\n").body[0]
    assert self_calls_in(node, "g", "k.py")[0]["star_kwargs"] is True


def test_the_signature_of_an_override_keeps_its_defaults() -> None:
    src = "from pkg import B\n\nclass C(B):\n    def m(self, a, b=1, *rest, c, d=2, **kw):\n        pass\n"
    (u,) = [u for u in find_uses({"c.py": (src, ast.parse(src))}, ["pkg"]) if u.kind == OVERRIDE]
    s = override_signature(u)
    assert [(p.name, p.kind, p.required) for p in s.params] == [
        ("a", PK, True), ("b", PK, False), ("rest", VA, False), ("c", KW, True), ("d", KW, False), ("kw", VK, False)]


def test_a_method_called_through_its_class_passes_its_instance() -> None:
    from upgrade_checklists.audit.api import Api
    from upgrade_checklists.audit.bind import _unbound
    from upgrade_checklists.project.calls import Call

    def api(params, kept, method=True):
        return Api("pkg.Group.get", "function", sig(*[(n, PK, None) for n in kept]), tuple((n, PK) for n in params), method)

    call = Call("pkg.Group.get", 3, 3, "Group.get(self, ctx, name)", positional=3)
    # Group.get(self, ctx, name): the instance fills `self`, two arguments are left for (ctx, name)
    assert _unbound(call, api(["self", "ctx", "name"], ["ctx", "name"])).positional == 2
    # a class method binds its class itself; a static method and a plain function have no `self`
    assert _unbound(call, api(["cls", "ctx", "name"], ["ctx", "name"])).positional == 3
    assert _unbound(call, api(["a", "ctx", "name"], ["a", "ctx", "name"])).positional == 3
    assert _unbound(call, api(["self", "ctx"], ["ctx"], method=False)).positional == 3


def test_only_a_call_written_through_the_class_passes_its_instance() -> None:
    from upgrade_checklists.audit.bind import _through_class
    from upgrade_checklists.project.calls import Call
    from upgrade_checklists.project.uses import CALL, Use

    def use(callee):
        return Use("a.py", 1, CALL, "pkg.core.Group.get", call=Call("pkg.core.Group.get", 1, 1, "", callee=callee))

    assert _through_class(use("click.Group.get"))
    assert not _through_class(use("group.get"))  # an instance (a call site a catalog entry records)
    assert not _through_class(use("get"))


HELPERS_PY = '''\
from typing import Optional

import fakepkg.cmd.base as b


def paint_all(style: "b.Style", maybe: Optional[b.Style], other: b.Style | None, n: int):
    style.paint("x")
    maybe.paint("y", 1)
    n.bit_length()
    other = None
    return other.paint("z")
'''


def test_calls_on_parameters_annotated_with_an_upstream_class(project: Repo, upstreams: Path) -> None:
    """``style`` / ``maybe`` are annotated ``b.Style`` (as text, as ``Optional``): their calls bind against
    ``Style``; ``other`` is assigned again in the body (its class is then not known), ``n`` is no upstream class."""
    uses = [(u.line, u.target, u.member, u.steps) for u in find_uses(
        {"app/helpers.py": (HELPERS_PY, ast.parse(HELPERS_PY))}, ["fakepkg.cmd"]) if u.kind == "annotated"]
    # ``other`` is a Style and None and None again: its call is a use whose class is not known (counted)
    assert uses == [(7, "fakepkg.cmd.base.Style", "paint", ()), (8, "fakepkg.cmd.base.Style", "paint", ()),
                    (11, "fakepkg.cmd.base.Style", "paint", ("rebound",))]
    project.write("app/helpers.py", HELPERS_PY)
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache))
    got = [line.rsplit(" (checklists/", 1)[0] for line in r.lines if line.startswith("app/helpers.py")]
    assert got == ["app/helpers.py:7:1: NEW_REQUIRED_PARAM `fakepkg.cmd.base.Style.paint`: `width` is required at 2.0.0 "
                   "and this call does not pass it (`style` annotated `fakepkg.cmd.base.Style` in `paint_all`)"]


READS_PY = '''\
import fakepkg.cmd.base as b


def width_of(style: b.Style, other: b.Style):
    return style.legacy, style.paint, other.unknown_attr
'''


def test_attribute_reads_on_typed_receivers(project: Repo, upstreams: Path) -> None:
    """A read of what the receiver's class had and lost is REMOVED_API (``legacy``); what it still has
    binds (``paint``); what neither version has is counted unknown, never reported."""
    uses = [(u.line, u.member, u.call is None) for u in find_uses({"app/reads.py": (READS_PY, ast.parse(READS_PY))},
                                                                   ["fakepkg.cmd"]) if u.kind == "annotated"]
    assert sorted(uses) == [(5, "legacy", True), (5, "paint", True), (5, "unknown_attr", True)]
    project.write("app/reads.py", READS_PY)
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache))
    got = [line.rsplit(" (checklists/", 1)[0] for line in r.lines if line.startswith("app/reads.py")]
    assert got == ["app/reads.py:5:1: REMOVED_API `fakepkg.cmd.base.Style.legacy` (defined at fakepkg/cmd/base.py:43) was removed at 2.0.0 "
                   "(`style` annotated `fakepkg.cmd.base.Style` in `width_of`)"]
    assert "not found in the loaded upstream source" in r.lines[-2]  # other.unknown_attr, counted


def test_reads_through_an_attribute_of_self_are_typed_uses() -> None:
    src = ("from pkg import Base\n\nclass Mine(Base):\n    def go(self):\n        self.mine = 1\n"
           "        return self.kind.size, self.mine.real, self.kind.grow(1)\n")
    got = sorted((u.line, u.attr, u.member, u.call is None) for u in find_uses({"m.py": (src, ast.parse(src))}, ["pkg"])
                 if u.kind == "typed")
    # self.mine is the project's own: not upstream's to declare
    assert got == [(6, "kind", "grow", False), (6, "kind", "size", True)]


# A context-manager base whose dunders name their parameters at 2.0.0 (``*exc`` at 1.0.0), and a plain
# method that does the same: the interpreter calls ``__exit__`` / ``__getitem__`` with positional
# arguments only, so an override that takes the positions cannot fail on the names; ``close`` is
# called by whoever holds the object, by keyword too, so the same gap there stays an error.
RES_V1 = {
    "fakepkg/res/__init__.py": "from fakepkg.res.base import Resource\n",
    "fakepkg/res/base.py": '''
        class Resource:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return None

            def __getitem__(self, *key):
                return None

            def close(self, *how):
                return None
        ''',
}
RES_V2 = {
    **RES_V1,
    "fakepkg/res/base.py": '''
        class Resource:
            def __enter__(self):
                return self

            def __exit__(self, exc_type, exc_value, traceback):
                return None

            def __getitem__(self, key):
                return None

            def close(self, how):
                return None
        ''',
}
RES_APP = '''\
from fakepkg.res import Resource


class Handle(Resource):
    def __exit__(self, *args):
        return None

    def __getitem__(self, index):
        return index

    def close(self, *args):
        return None

    def __enter__(self, extra):
        return self
'''


def test_dunders_the_interpreter_calls_need_the_positions_not_the_names(tmp_path: Path, capsys) -> None:
    ups = tagged_upstream(tmp_path / "ups", "fakepkg-res", [("1.0.0", RES_V1), ("2.0.0", RES_V2)])
    checklist = CHECKLIST.replace("fakepkg-cmd", "fakepkg-res").replace("fakepkg/cmd/", "fakepkg/res/").replace(
        "fakepkg.cmd", "fakepkg.res").replace("`app/greet.py` | `Command`", "`app/res.py` | `Resource`")
    project = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/res.py": RES_APP, "checklists/fakepkg-res.md": checklist,
        "pyproject.toml": project_pyproject("fakepkg-res", ups, "1.0.0")})
    project.write("pyproject.toml", project_pyproject("fakepkg-res", ups, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    got = findings(r)
    # __exit__(*args) takes the three positions `with` passes; the new names are no gap a caller meets
    assert sorted(got["app/res.py:5"]) == [
        f"[info] `fakepkg.res.base.Resource.__exit__(exc_type, exc_value, traceback)` at 2.0.0: the override "
        f"`Handle.__exit__(*args)` cannot accept what the base accepts: the base takes `{name}` by keyword; the override "
        f"has no parameter `{name}` and no `**kwargs` (Python calls `__exit__` with positional arguments, which the override takes)"
        for name in ("exc_type", "exc_value", "traceback")]
    # __getitem__(index) takes the one position `x[k]` passes
    assert [m.startswith("[info] ") and "`key` by keyword" in m for m in got["app/res.py:8"]] == [True]
    # close is no interpreter protocol: a caller may pass `how=` by keyword, as for any method
    assert [m for m in got["app/res.py:11"] if not m.startswith("[")] == [
        "`fakepkg.res.base.Resource.close(how)` at 2.0.0: the override `Handle.close(*args)` cannot accept what the base "
        "accepts: the base takes `how` by keyword; the override has no parameter `how` and no `**kwargs`"]
    # a position the interpreter does not pass is still a gap: __enter__ is called with none, the override requires one
    # (already so at 1.0.0: info)
    assert got["app/res.py:14"] and all(m.startswith("[info] ") for m in got["app/res.py:14"])
    assert r.code == 1


# -- a base method that became a class method, called on the class -----------------------------

JOB_V1 = {
    "fakepkg/job/__init__.py": "from fakepkg.job.base import Job\n",
    "fakepkg/job/base.py": '''
        class Job:
            def prepare(self):
                return None

            def tidy(self):
                return None

            def stamp(self, when):
                return when

            def run(self):
                self.prepare()
                self.tidy()
                return self.stamp(1)
        ''',
}
JOB_V2 = {
    **JOB_V1,
    "fakepkg/job/base.py": '''
        class Job:
            @classmethod
            def prepare(cls):
                return None

            @classmethod
            def tidy(cls):
                return None

            @classmethod
            def stamp(cls, when):
                return when

            @classmethod
            def start_all(cls):
                cls.prepare()
                return cls.stamp(2)

            def run(self):
                self.prepare()
                self.tidy()
                return self.stamp(1)
        ''',
}
JOB_APP = '''\
from fakepkg.job import Job


class Nightly(Job):
    def prepare(self):
        return None

    def tidy(self):
        return None

    @staticmethod
    def stamp(when):
        return when


class Hourly(Job):
    @classmethod
    def prepare(cls):
        return None
'''


def test_a_plain_override_of_a_method_upstream_now_calls_on_the_class(tmp_path: Path, capsys) -> None:
    ups = tagged_upstream(tmp_path / "ups", "fakepkg-job", [("1.0.0", JOB_V1), ("2.0.0", JOB_V2)])
    checklist = CHECKLIST.replace("fakepkg-cmd", "fakepkg-job").replace("fakepkg/cmd/", "fakepkg/job/").replace(
        "fakepkg.cmd", "fakepkg.job").replace("`app/greet.py` | `Command`", "`app/job.py` | `Job`")
    project = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/job.py": JOB_APP, "checklists/fakepkg-job.md": checklist,
        "pyproject.toml": project_pyproject("fakepkg-job", ups, "1.0.0")})
    project.write("pyproject.toml", project_pyproject("fakepkg-job", ups, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    got = findings(r)
    # `cls.prepare()` in the new class method: the plain override gets no instance for `self`
    assert got == {"app/job.py:5": [
        "upstream `Job.start_all` (fakepkg/job/base.py:16) calls `cls.prepare()` at 2.0.0; the override "
        "`Nightly.prepare()` cannot take it: made on the class, it binds no instance to the override, a plain method; "
        "no `self`, which the override requires"]}
    # tidy became a class method too, but upstream calls it on instances only; a static or class method
    # override (stamp, Hourly.prepare) takes a call on the class as it is
    assert r.code == 1


def test_an_upstream_call_on_cls_is_marked_as_made_on_the_class() -> None:
    tree = ast.parse(textwrap.dedent(JOB_V2["fakepkg/job/base.py"]))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    assert [(c["caller"], c["through_class"]) for c in self_calls_in(cls, "prepare", "m.py")] == [
        ("Job.start_all", True), ("Job.run", False)]


# -- super() in a project mixin reaches the base that follows it -------------------------------

MIXINS_PY = '''\
from fakepkg.cmd import Command

from app.greet import Greet


class Hooked:
    def before(self):
        return super().before()

    def describe(self):
        return super().describe()

    def own(self):
        return self.before()


class Tail:
    def before(self):
        return super().before()


class Based(Command):
    def before(self):
        return super().before()


class Late:
    def before(self):
        return super().before()


class Plain(Hooked, Command):
    pass


class Tailed(Command, Tail):
    pass


class OnGreet(Late, Greet):
    pass
'''

# a second project class puts the mixin before another upstream base, which inherits the method
GROUPED = '''

class Grouped(Hooked, Group):
    pass
'''


def test_super_in_a_project_mixin_binds_against_the_base_after_it(project: Repo, upstreams: Path) -> None:
    project.write("app/mixins.py", MIXINS_PY)
    project.commit("mixins")
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache))
    got = sorted(line.split(" (checklists/")[0] for line in r.lines if line.startswith("app/mixins.py"))
    # Hooked.before: super() there is Command (Plain lists Hooked before it), whose before is gone at 2.0.0;
    # describe is still there; self.before() in a mixin is no use (self is the whole class).
    # Tail comes last in Tailed: its super() is object's. Based subclasses Command itself (as before).
    # Late comes before Greet, a project class that defines before itself: super() stops there.
    assert got == [
        "app/mixins.py:23:1: OVERRIDE_MISMATCH [warning] `Based.before()` overrides `fakepkg.cmd.base.Command.before`, "
        "which is gone at 2.0.0: upstream no longer calls it",
        "app/mixins.py:24:1: REMOVED_API `fakepkg.cmd.base.Command` has no `before` at 2.0.0 (it had at the old version), "
        "and subclass `Based`, through `super()` uses `super().before(...)`",
        "app/mixins.py:8:1: REMOVED_API `fakepkg.cmd.base.Command` has no `before` at 2.0.0 (it had at the old version), "
        "and mixin `Hooked` before `Command` in `Plain`, through `super()` uses `super().before(...)`",
    ]


def test_a_mixin_failing_the_same_way_on_two_bases_is_one_finding_naming_both(project: Repo, upstreams: Path) -> None:
    project.write("app/mixins.py", MIXINS_PY.replace("import Command\n", "import Command\nfrom fakepkg.cmd.base import Group\n", 1)
                  + GROUPED)
    project.commit("mixins")
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache))
    got = sorted(line.split(" (checklists/")[0] for line in r.lines if line.startswith("app/mixins.py:9:"))
    assert got == [
        "app/mixins.py:9:1: REMOVED_API `fakepkg.cmd.base.Command` has no `before` at 2.0.0 (it had at the old version), "
        "and mixin `Hooked`, through `super()` uses `super().before(...)` (the same on each upstream base it comes before: "
        "`fakepkg.cmd.base.Command` in `Plain`, `fakepkg.cmd.base.Group` in `Grouped`)",
    ]


# -- a renamed parameter upstream passes by position to the objects it holds -------------------

FIELD_V1 = {
    "fakepkg/fld/__init__.py": "from fakepkg.fld.base import Field, Keyed, Schema\n",
    "fakepkg/fld/base.py": '''
        class Field:
            def bind(self, name, schema):
                self.name = name


        class Keyed:
            def attach(self, name, owner):
                self.name = name


        class Schema:
            def __init__(self, fields, keyed):
                for name, field in fields.items():
                    field.bind(name, self)
                keyed.attach(name="k", owner=self)
        ''',
}
FIELD_V2 = {
    **FIELD_V1,
    "fakepkg/fld/base.py": FIELD_V1["fakepkg/fld/base.py"].replace("def bind(self, name, schema)", "def bind(self, name, parent)")
                                                          .replace("def attach(self, name, owner)", "def attach(self, name, parent)")
                                                          .replace('owner=self', 'parent=self'),
}
# line numbers matter: the assertions name them
FIELD_APP = '''\
from fakepkg.fld import Field, Keyed


class Tagged(Field):
    def bind(self, name, schema):
        super().bind(name, schema)


class Owned(Keyed):
    def attach(self, name, owner):
        super().attach(name, owner)
'''


def test_a_renamed_parameter_upstream_passes_by_position_is_a_warning(tmp_path: Path, capsys) -> None:
    """``Field.bind``'s ``schema`` is ``parent`` at 2.0.0; upstream calls ``field.bind(name, self)`` on the
    fields it holds (never on ``self``): by position, which the override takes. ``Keyed.attach``'s is passed
    by keyword (``parent=self``): the override cannot take it."""
    ups = tagged_upstream(tmp_path / "ups", "fakepkg-fld", [("1.0.0", FIELD_V1), ("2.0.0", FIELD_V2)])
    checklist = CHECKLIST.replace("fakepkg-cmd", "fakepkg-fld").replace("fakepkg/cmd/", "fakepkg/fld/").replace(
        "fakepkg.cmd", "fakepkg.fld").replace("`app/greet.py` | `Command`", "`app/fld.py` | `Field`, `Keyed`")
    r = upgrade_audit(tmp_path / "project", capsys, "fakepkg-fld", ups, {
        "app/__init__.py": "", "app/fld.py": FIELD_APP, "checklists/fakepkg-fld.md": checklist})
    got = findings(r)
    assert [m for m in got["app/fld.py:5"] if "`parent`" in m] == [
        "[warning] `fakepkg.fld.base.Field.bind(name, parent)` at 2.0.0: the override `Tagged.bind(name, schema)` cannot accept "
        "what the base accepts: the base takes `parent` by keyword; the override has no parameter `parent` and no `**kwargs` "
        "(upstream's 1 call(s) of `.bind(...)` on the objects it holds, `Schema.__init__` (fakepkg/fld/base.py:14) first, "
        "pass it by position)"]
    assert [m for m in got["app/fld.py:10"] if "`parent`" in m and not m.startswith("[")] == [
        "`fakepkg.fld.base.Keyed.attach(name, parent)` at 2.0.0: the override `Owned.attach(name, owner)` cannot accept "
        "what the base accepts: the base takes `parent` by keyword; the override has no parameter `parent` and no `**kwargs`"]
