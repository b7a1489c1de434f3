"""Every use is audited: uses outside the catalog, subclasses (across files, any depth),
keywords forwarded through ``**kwargs``, patched methods and their drift. A fixture
upstream ``fakepkg-models`` (a local git repository, two tagged versions) and a fixture
project in ``tmp_path``."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from conftest import Repo
from upstream import audited_project, project_pyproject, tagged_upstream
from upgrade_checklists.project.uses import ATTRIBUTE, CALL, IMPORT, MEMBER, OVERRIDE, PATCH, RESULT, Sources, find_uses

MODELS_V1 = {
    "fakepkg/models/__init__.py": "",
    "fakepkg/models/base.py": '''
        class Module:
            def __init__(self, config, dropout=0.0, bias=True):
                self.config = config
                self.hidden = config.hidden
                self.rope_scaling = config.rope_scaling

            def forward(self, x, past_key_values=None, use_cache=False):
                return x

            def reset(self):
                return None

            def helper(self, x):
                return x
        ''',
    "fakepkg/models/util.py": '''
        class OldType:
            pass


        def stats(x):
            return x


        def legacy(x):
            return x
        ''',
}

MODELS_V2 = {
    **MODELS_V1,
    "fakepkg/models/base.py": '''
        class Module:
            def __init__(self, config, dropout=0.0):
                self.config = config
                self.hidden = config.hidden
                self.rope_parameters = config.rope_parameters

            def forward(self, x, cache=None, use_cache=False):
                return x

            def reset(self):
                return None
        ''',
    "fakepkg/models/util.py": '''
        def stats(x):
            return x
        ''',
}

LAYERS_PY = '''\
from typing import TYPE_CHECKING

from fakepkg.models import base as fm
from fakepkg.models.util import legacy, stats

if TYPE_CHECKING:
    from fakepkg.models.util import OldType


class Layer(fm.Module):
    def __init__(self, config, width=1, **kwargs):
        super().__init__(config, **kwargs)
        self.width = width

    def run(self, x):
        y = self.helper(x)
        return self.forward(y, past_key_values=None)

    def total(self):
        return self.width + self.hidden


def score(x):
    return stats(legacy(x))
'''

DEEP_PY = '''\
from app.layers import Layer


class Deep(Layer):
    def size(self):
        return self.rope_scaling


class Deeper(Deep):
    pass
'''

MAKE_PY = '''\
from app.deep import Deeper


def make(cfg):
    d = Deeper(cfg, width=2, bias=False, dropout=0.1)
    d.reset()
    d.helper(1)
    return d
'''

PATCH_PY = '''\
import fakepkg.models.base as B
from fakepkg.models.base import Module


def forward(self, x, past_key_values=None, use_cache=False):
    scale = self.rope_scaling
    self.seen = True
    return self.helper(x) if self.seen else scale


def reset(self):
    return self.config


def apply():
    Module.forward = forward
    setattr(B.Module, "reset", reset)
'''

CHECKLIST = (
    "---\npackage: fakepkg-models\ngithub: example/fakepkg-models\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/models/\nimport_names:\n  - fakepkg.models\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/layers.py` | `base` (as `fm`), `legacy`, `stats`, `OldType` |\n"
    "| `app/patch.py` | `fakepkg.models.base` (as `B`), `Module` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n"
    # not re-exported from fakepkg.models: found in the Source module by its last name
    "### 1. `fakepkg.models.Module.forward`\n\n**Source:** `fakepkg/models/base.py`\n\n"
    "Called in `app/layers.py` (line 17):\n\n```python\nreturn self.forward(y, past_key_values=None)\n```\n\n"
    "**Check:** the cache keyword.\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


def pyproject(upstreams: Path, version: str) -> str:
    return project_pyproject("fakepkg-models", upstreams, version)


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("models-upstream"), "fakepkg-models", [("1.0.0", MODELS_V1), ("2.0.0", MODELS_V2)])


@pytest.fixture
def project(tmp_path: Path, capsys, upstreams: Path) -> Repo:
    return audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/layers.py": LAYERS_PY, "app/deep.py": DEEP_PY, "app/make.py": MAKE_PY,
        "app/patch.py": PATCH_PY, "checklists/fakepkg-models.md": CHECKLIST, "pyproject.toml": pyproject(upstreams, "1.0.0")})


def findings(run) -> set[tuple[str, str, str]]:
    """(file:line, CODE, message without the checklist reference)."""
    out = set()
    for line in run.lines:
        if ":1: " not in line:
            continue
        where, rest = line.split(":1: ", 1)
        code, msg = rest.split(" ", 1)
        out.add((where, code, msg.rsplit(" (checklists/", 1)[0]))
    return out


EXPECTED_BREAKING = {
    # a use outside any catalog entry
    ("app/layers.py:4", "REMOVED_API", "import `fakepkg.models.util.legacy` no longer resolves at 2.0.0"),
    ("app/layers.py:24", "REMOVED_API", "`fakepkg.models.util.legacy` was removed at 2.0.0"),
    # a subclass method removed upstream, and a keyword renamed in the base method it calls
    ("app/layers.py:16", "REMOVED_API",
     "`fakepkg.models.base.Module` has no `helper` at 2.0.0 (it had at the old version), and subclass `Layer` uses `self.helper(...)`"),
    ("app/layers.py:17", "RENAMED_PARAM",
     "`fakepkg.models.base.Module.forward`: keyword `past_key_values` was renamed: `past_key_values -> cache` (subclass `Layer`)"),
    # an instance attribute the base class stopped setting, read two project classes down, in another file
    ("app/deep.py:6", "REMOVED_API",
     "`fakepkg.models.base.Module` has no `rope_scaling` at 2.0.0 (it had at the old version), and subclass `Deep` uses `self.rope_scaling`"),
    # a keyword the caller forwards through Layer.__init__(**kwargs) into Module.__init__
    ("app/make.py:5", "REMOVED_PARAM",
     "`fakepkg.models.base.Module`: keyword `bias` was removed (forwarded by `Layer.__init__` (`**kwargs`))"),
    # a method of the base class called on an instance of the subclass
    ("app/make.py:7", "REMOVED_API",
     "`fakepkg.models.base.Module` has no `helper` at 2.0.0 (it had at the old version), and a `Deeper` instance uses `d.helper(...)`"),
    # the patched method's signature drifted; its body reads an attribute and calls a method the class lost
    ("app/patch.py:16", "PATCH_MISMATCH",
     "`fakepkg.models.base.Module.forward(self, x, cache, use_cache)` at 2.0.0 differs from the patch "
     "`forward(self, x, past_key_values, use_cache)` (line 5) assigned in its place: parameter 3 is `cache` upstream, `past_key_values` in the patch"),
    ("app/patch.py:6", "PATCH_MISMATCH",
     "`fakepkg.models.base.Module` has no `rope_scaling` at 2.0.0 (it had at the old version), and patch `forward` of `Module.forward` uses `self.rope_scaling`"),
    ("app/patch.py:8", "PATCH_MISMATCH",
     "`fakepkg.models.base.Module` has no `helper` at 2.0.0 (it had at the old version), and patch `forward` of `Module.forward` uses `self.helper(...)`"),
}

EXPECTED_OTHER = {
    ("app/layers.py:7", "REMOVED_API", "[warning] import `fakepkg.models.util.OldType` no longer resolves at 2.0.0"),
}


def test_every_use_is_audited(project: Repo, upstreams: Path) -> None:
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert r.code == 1
    got = findings(r)
    assert {f for f in got if not f[2].startswith("[")} == EXPECTED_BREAKING
    assert {f for f in got if f[2].startswith("[") and "UNRESOLVED" != f[1]} >= EXPECTED_OTHER
    # the heading not re-exported at its dotted path resolved in its Source module
    assert not any(code == "UNRESOLVED" for _w, code, _m in got)
    # what is unchanged is not reported: self.hidden, self.width, self.config in the patch,
    # the matching `reset` patch, d.reset(), stats(...), the dropout keyword
    assert not any(w.startswith(("app/layers.py:20", "app/make.py:6", "app/patch.py:12", "app/patch.py:17")) for w, _c, _m in got)
    # findings of the catalog's API are anchored at its entry; the rest at the file's row
    line = next(l for l in r.lines if l.startswith("app/layers.py:17:1: RENAMED_PARAM"))
    assert line.endswith("(checklists/fakepkg-models.md:30)")
    line = next(l for l in r.lines if l.startswith("app/layers.py:24:1: REMOVED_API"))
    assert line.endswith("(checklists/fakepkg-models.md:17)")
    summary = project.read("upgrade-summary.md")
    # calls: super().__init__, self.helper, self.forward, stats, legacy (layers.py), the forwarded
    # keywords, d.reset, d.helper (make.py), self.helper (patch.py); bound: those whose API is still there
    assert "Resolved 1 of 1 catalog APIs upstream; bound 5 of 9 call sites." in summary
    assert "(no call site" not in summary


def test_nothing_moved_binds_cleanly(project: Repo) -> None:
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert (r.code, sorted(findings(r))) == (0, [])


def test_patch_drift_is_reported_without_a_catalog_entry(project: Repo, upstreams: Path) -> None:
    project.write("checklists/fakepkg-models.md", CHECKLIST.split("## API Usage Catalog")[0]
                  + "## API Usage Catalog\n\n_None._\n\n## Version-Guarded Code\n\n_None._\n")
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert r.code == 1
    assert {f for f in findings(r) if not f[2].startswith("[")} == EXPECTED_BREAKING


def uses_of(files: dict[str, str]) -> list[tuple]:
    sources = {rel: (textwrap.dedent(t), ast.parse(textwrap.dedent(t))) for rel, t in files.items()}
    return sorted((u.file, u.line, u.kind, u.target, u.member or "", u.via) for u in find_uses(sources, ["pkg"]) if u.kind != ATTRIBUTE)


def test_uses_through_aliases_subclasses_and_patches() -> None:
    got = uses_of({
        "a.py": '''
            import pkg.mod as m
            from pkg import Base as B

            class Mine(B):
                def go(self):
                    super().go(1)
                    return self.x

            def f(self, a):
                return self.y

            setattr(m.Cls, "f", f)
            m.Cls.g = f
            m.Cls.h = lambda self: 0
            ''',
        "b.py": '''
            from a import Mine as M

            class Sub(M):
                def go(self):
                    return self.z
            ''',
    })
    assert got == [
        ("a.py", 2, IMPORT, "pkg.mod", "", ""),
        ("a.py", 3, IMPORT, "pkg.Base", "", ""),
        ("a.py", 6, OVERRIDE, "pkg.Base", "go", "subclass `Mine`"),  # its def overrides the base's go
        ("a.py", 7, MEMBER, "pkg.Base", "go", "subclass `Mine`, through `super()`"),
        ("a.py", 8, MEMBER, "pkg.Base", "x", "subclass `Mine`"),
        ("a.py", 11, MEMBER, "pkg.mod.Cls", "y", "patch `f` of `Cls.f`"),
        ("a.py", 11, MEMBER, "pkg.mod.Cls", "y", "patch `f` of `Cls.g`"),
        ("a.py", 13, PATCH, "pkg.mod.Cls", "f", "patch `f`"),
        ("a.py", 14, PATCH, "pkg.mod.Cls", "g", "patch `f`"),
        # b.py's Sub goes on overriding go(): its self.z is a use of pkg.Base
        ("b.py", 5, OVERRIDE, "pkg.Base", "go", "subclass `Sub`"),
        ("b.py", 6, MEMBER, "pkg.Base", "z", "subclass `Sub`"),
    ]


def test_no_use_without_an_import_of_the_package() -> None:
    got = uses_of({
        "app/a.py": '''
            import other
            from .pkg import Base  # relative: the project's own pkg

            class Mine(other.Base, Base):
                def go(self):
                    return self.x

            other.Cls.f = print
            ''',
    })
    assert got == []


def test_calls_results_and_typing_only_imports() -> None:
    sources = {"a.py": (s := textwrap.dedent('''
        from typing import TYPE_CHECKING
        import pkg
        if TYPE_CHECKING:
            from pkg.types import T
        try:
            from pkg.new import x
        except ImportError:
            from pkg.old import x
        b = pkg.make(1, k=2)
        b.save(path="p")
        ''').lstrip(), ast.parse(s))}
    uses = find_uses(sources, ["pkg"])
    imports = {(u.target, u.typing_only, u.fallback) for u in uses if u.kind == IMPORT}
    assert imports == {("pkg", False, False), ("pkg.types.T", True, False), ("pkg.new.x", False, True), ("pkg.old.x", False, True)}
    (call,) = [u for u in uses if u.kind == CALL]
    assert (call.target, call.line, call.call.positional, call.call.keywords) == ("pkg.make", 9, 1, ["k"])
    (res,) = [u for u in uses if u.kind == RESULT]
    assert (res.target, res.member, res.line, res.call.keywords) == ("pkg.make", "save", 10, ["path"])


def test_a_method_called_at_once_on_a_result() -> None:
    sources = {"a.py": (s := textwrap.dedent('''
        from pkg.testing import Client
        r = Client(app).get("/", stream=True)
        Client(app).close()
        other(app).get("/")
        Client(app)
        ''').lstrip(), ast.parse(s))}
    uses = find_uses(sources, ["pkg"])
    got = sorted((u.line, u.target, u.member, tuple(u.call.keywords), u.call.used) for u in uses if u.kind == RESULT)
    assert got == [(2, "pkg.testing.Client", "get", ("stream",), True), (3, "pkg.testing.Client", "close", (), False)]


def test_patch_guards_around_or_returning_before() -> None:
    src = textwrap.dedent('''
        from pkg import Cls


        def apply():
            if hasattr(Cls, "m"):
                return

            def m(self):
                return self.a

            Cls.m = m


        def n2(self):
            return 0


        if not hasattr(Cls, "n"):
            Cls.n = n2
        if FLAG:
            Cls.k = n2
        Cls.j = n2
        ''')
    uses = find_uses({"a.py": (src, ast.parse(src))}, ["pkg"])
    got = sorted((u.line, u.member, u.guarded, u.guard_line) for u in uses if u.kind == PATCH)
    assert got == [(12, "m", True, 6), (20, "n", True, 19), (22, "k", False, 21), (23, "j", False, None)]
    (member,) = [u for u in uses if u.kind == MEMBER]
    assert (member.line, member.member, member.patch, member.guard_line) == (10, "a", True, 6)


def test_a_method_the_project_patches_back_in_is_not_missing(project: Repo, upstreams: Path) -> None:
    project.write("app/restore.py", textwrap.dedent('''\
        from fakepkg.models.base import Module


        def helper(self, x):
            return x


        def restore():
            if hasattr(Module, "helper"):
                return
            Module.helper = helper
        '''))
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    got = findings(r)
    assert not any("no `helper`" in m for _w, _c, m in got)
    # the guard before the assignment is that method's version guard, though the checklist does not list it
    assert ("app/restore.py:9", "GUARD_NEEDED", "[info] `fakepkg.models.base.Module` still lacks `helper`: "
            "the guard (and its patch) is still needed") in got
    assert r.code == 1  # the other breaks stay


DYN_PY = '''\
MAPPINGS = {
    "one": {"module": "fakepkg.models.base", "cls": "Module", "patch_module": "app.patch", "func": "forward"},
}


def apply(kind):
    mapping = MAPPINGS[kind]
    module = __import__(mapping["module"], fromlist=[mapping["cls"]])
    cls = getattr(module, mapping["cls"])
    fn = getattr(__import__(mapping["patch_module"], fromlist=[mapping["func"]]), mapping["func"])
    cls.forward = fn
'''


def test_a_patch_reached_through_strings(project: Repo, upstreams: Path) -> None:
    project.write("app/dyn.py", DYN_PY)
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    got = findings(project.run("audit", "--cache-dir", str(project.cache), "-v"))
    assert ("app/dyn.py:11", "PATCH_MISMATCH",
            "`fakepkg.models.base.Module.forward(self, x, cache, use_cache)` at 2.0.0 differs from the patch "
            "`forward(self, x, past_key_values, use_cache)` (`app/patch.py:5`) assigned in its place: "
            "parameter 3 is `cache` upstream, `past_key_values` in the patch") in got


def test_values_keep_each_choice_together() -> None:
    from upgrade_checklists.project.values import assignments_onto

    src = textwrap.dedent('''
        import importlib

        TABLE = {
            "a": {"mod": "pkg.one", "cls": "A", "fn": "fa"},
            "b": {"mod": "pkg.two", "cls": "B", "fn": "fb"},
        }


        def fa(self):
            pass


        def patch(key, name):
            entry = TABLE[key]
            klass = getattr(importlib.import_module(entry["mod"]), entry["cls"])
            setattr(klass, "run", getattr(importlib.import_module("app.funcs"), entry["fn"]))
            klass.local = fa
            klass.unknown = make(name)
            getattr(klass, name).x = fa
        ''')
    tree = ast.parse(src)
    got = sorted((c, n, f, s.lineno) for c, n, f, s in assignments_onto(tree, {"importlib": "importlib"}))
    assert got == [
        ("pkg.one.A", "local", "<local>.fa", 18),
        ("pkg.one.A", "run", "app.funcs.fa", 17),
        ("pkg.two.B", "local", "<local>.fa", 18),
        ("pkg.two.B", "run", "app.funcs.fb", 17),
    ]


SUB_PY = '''\
from otherlib_core import layers as L


class Block(L.Dense):
    def __init__(self, units, **kwargs):
        super().__init__(units=units, **kwargs)

    def call(self, x):
        return self.kernel @ self.activate(x)
'''

DEEPER_PY = '''\
from app.models.block import Block


class Wide(Block):
    def width(self):
        return self.units
'''


def test_new_writes_entries_for_subclassed_base_classes(repo: Repo) -> None:
    repo.write("app/models/__init__.py", "")
    repo.write("app/models/block.py", SUB_PY)
    repo.write("app/models/wide.py", DEEPER_PY)
    r = repo.run("new", "otherlib-core", "--github", "acme/otherlib")
    assert r.code == 0
    text = repo.read("checklists/otherlib-core.md")
    entry = text.split("### 1. `otherlib_core.layers.Dense`\n\n", 1)[1].split("\n### ", 1)[0]
    # the class statement, then one use through `super()` (two sites at most); the rest is in the Check text
    assert entry.startswith(
        "Used in `app/models/block.py` (`Block`):\n\n```python\nclass Block(L.Dense):\n```\n\n"
        "Also used in `app/models/block.py` (`Block.__init__`):\n\n```python\nsuper().__init__(units=units, **kwargs)\n```\n\n"
    )
    # the entry for the name read in `class Block(L.Dense)` gets the subclass's uses and Check text
    assert ("**Check:** `Dense` still exists on `otherlib_core.layers`, with the same meaning; "
            "subclassed by `Block`, `Wide`; what they use through `self` / `super()` still exists on "
            "`Dense`: `__init__()`, `activate()`, `kernel`, `units`; the methods they define override the base's where "
            "it has them (`call()`, `width()`): each takes what the base's takes and what upstream calls it with; "
            "`__init__` still takes what the subclasses pass and forward.") in " ".join(entry.split())
    assert repo.run("check").code == 0


def test_keywords_forwarded_through_a_runtime_alias_of_a_subclass() -> None:
    src = textwrap.dedent('''\
        from typing import TYPE_CHECKING
        import pkg


        class _Client(pkg.Client):
            def __init__(self, **kwargs):
                kwargs.setdefault("timeout", 5)
                super().__init__(**kwargs)


        if TYPE_CHECKING:
            Client = pkg.Client
        else:
            Client = _Client


        class Wrapper(Client):
            pass


        def make(p):
            return Wrapper(base_url="u", proxies=p)
        ''')
    uses = [u for u in find_uses({"app/c.py": (src, ast.parse(src))}, ["pkg"]) if u.kind != ATTRIBUTE]
    got = sorted((u.line, u.kind, u.target, u.member or "", u.via, tuple(u.call.keywords) if u.call else ()) for u in uses)
    assert got == [
        (2, IMPORT, "pkg", "", "", ()),
        (8, MEMBER, "pkg.Client", "__init__", "subclass `_Client`, through `super()`", ()),
        # Wrapper is the runtime `_Client` (not the TYPE_CHECKING `pkg.Client`): its callers' keywords
        # go through `_Client.__init__(**kwargs)` into `pkg.Client`
        (22, CALL, "pkg.Client", "", "forwarded by `_Client.__init__` (`**kwargs`)", ("base_url", "proxies")),
    ]


def test_a_decorated_config_class_inheriting_init_has_no_known_signature(tmp_path: Path) -> None:
    from upgrade_checklists.audit.api import UpstreamModel

    root = tmp_path / "up"
    (root / "cfg").mkdir(parents=True)
    (root / "cfg/__init__.py").write_text(textwrap.dedent('''
        from dataclasses import dataclass
        from typing import dataclass_transform


        def strict(cls):
            return cls


        @dataclass_transform(kw_only_default=True)
        @dataclass
        class Base:
            name: str = ""


        @strict
        class Decorated(Base):
            hidden_size: int = 1


        class Plain(Base):
            hidden_size: int = 1


        class Own(Base):
            def __init__(self, hidden_size=1):
                pass
        '''))
    m = UpstreamModel([root], ["cfg"])
    # the real __init__ takes each subclass's fields; the base's, griffe's guess, would be wrong
    assert m.lookup("cfg.Decorated").signature is None
    assert m.lookup("cfg.Plain").signature is None
    assert [p.name for p in m.lookup("cfg.Own").signature.params] == ["hidden_size"]
    assert [p.name for p in m.lookup("cfg.Base").signature.params] == ["name"]


def test_an_annotation_added_is_not_a_return_change() -> None:
    from upgrade_checklists.audit.api import Param, Signature
    from upgrade_checklists.audit.signatures import bind_call, signature_changes

    src = "from pkg import f\nout, _ = f(1)\n"
    (c,) = [u for u in find_uses({"a.py": (src, ast.parse(src))}, ["pkg"]) if u.kind == CALL]
    old = Signature([Param("a", "positional or keyword", None)], None)
    new = Signature([Param("a", "positional or keyword", None)], "tuple[int, int]")
    assert bind_call(c.call, "pkg.f", old, new, "2") == []
    assert signature_changes("pkg.f", old, new) == []
    changed = Signature([Param("a", "positional or keyword", None)], "int")
    assert [p[0] for p in bind_call(c.call, "pkg.f", changed, new, "2")] == ["RETURN_CHANGED"]


def test_a_patch_that_already_differed_at_the_old_version_is_a_warning(project: Repo, upstreams: Path) -> None:
    # reset(self) is the same at both versions; the patch adds a parameter: no drift of this upgrade
    project.write("app/extra.py", "from fakepkg.models.base import Module\n\n\ndef reset(self, hard=False):\n"
                  "    return hard\n\n\nModule.reset = reset\n")
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    got = findings(project.run("audit", "--cache-dir", str(project.cache), "-v"))
    assert ("app/extra.py:8", "PATCH_MISMATCH", "[warning] `fakepkg.models.base.Module.reset(self)` at 2.0.0 differs from the "
            "patch `reset(self, hard)` (line 4) assigned in its place: only the patch has `hard` (so did the old version's: "
            "not a change of this upgrade)") in got


def test_only_files_a_use_can_be_in_are_parsed() -> None:
    """A project class subclassing the package in one file, built in a second that never imports the
    package (through a renaming import), and files that can hold no use: those are never parsed."""
    texts = {
        "app/base.py": "from pkg import Engine\n\n\nclass Mine(Engine):\n    def go(self):\n        return self.run(1)\n",
        "app/build.py": "from app.base import Mine as M\n\n\ndef make():\n    m = M(path='x')\n    m.stop()\n",
        "app/plain.py": "def helper(x):\n    return x + 1\n",
        "app/other.py": "class Local:\n    pass\n",
        "app/broken.py": "def (:\n",
    }
    sources = Sources({rel: textwrap.dedent(t) for rel, t in texts.items()})
    got = sorted((u.file, u.line, u.kind, u.target, u.member or "", u.via) for u in find_uses(sources, ["pkg"]) if u.kind != ATTRIBUTE)
    assert got == [
        ("app/base.py", 1, IMPORT, "pkg.Engine", "", ""),
        ("app/base.py", 5, OVERRIDE, "pkg.Engine", "go", "subclass `Mine`"),  # bound only if Engine has a go
        ("app/base.py", 6, MEMBER, "pkg.Engine", "run", "subclass `Mine`"),
        ("app/build.py", 5, CALL, "pkg.Engine", "", "`Mine(...)`: the constructor it inherits"),  # Mine has none of its own
        ("app/build.py", 6, MEMBER, "pkg.Engine", "stop", "a `Mine` instance"),
    ]
    assert sorted(sources._trees) == ["app/base.py", "app/build.py"]  # kept; other.py was read for its classes, not kept
    assert sorted(sources) == ["app/base.py", "app/build.py", "app/other.py", "app/plain.py"]  # broken.py does not parse


def test_a_name_a_function_binds_otherwise_is_not_the_package() -> None:
    # a module alias of the package, shadowed in a function by a parameter, an assignment,
    # an import of another module (vcrpy rebinds its urllib3 ``cpool`` to botocore's), a
    # loop target or a comprehension's variable: the reads there are not the package's;
    # what a function evaluates outside its body (a default, a decorator) and a function
    # importing the package itself (or importing it and assigning a fallback) still are
    sources = {"a.py": (s := textwrap.dedent('''
        import pkg.pool as pool
        from pkg import forms


        def param(pool):
            return pool.gone


        def assigned():
            forms = []
            forms.append(1)
            return forms


        def other_module():
            try:
                import json as pool
            except ImportError:
                pass
            else:
                return pool.gone()


        def looped(items):
            for pool in items:
                pool.gone()
            return [forms.gone for forms in items]


        @pool.deco
        def outside(x=pool.default, pool=None):
            return x


        def own_import():
            try:
                import pkg.pool as pool
            except ImportError:
                pool = None
            return pool.kept()


        class Holder:
            pool = None

            def method(self):
                return pool.kept_too
        ''').lstrip(), ast.parse(s))}
    uses = find_uses(sources, ["pkg"])
    reads = {(u.kind, u.target, u.line) for u in uses if u.kind in (ATTRIBUTE, CALL)}
    assert reads == {
        (ATTRIBUTE, "pkg.pool.deco", 30), (ATTRIBUTE, "pkg.pool.default", 31),
        (CALL, "pkg.pool.kept", 40), (ATTRIBUTE, "pkg.pool.kept", 40), (ATTRIBUTE, "pkg.pool.kept_too", 47),
    }


def test_a_module_bound_by_importorskip_or_import_module_is_the_package() -> None:
    from upgrade_checklists.project.calls import dynamic_imports

    src = textwrap.dedent('''\
        import importlib
        import pytest

        fakepkg = pytest.importorskip("fakepkg")
        core = importlib.import_module("fakepkg.core")
        other = pytest.importorskip("otherpkg")
        skipped = pytest.importorskip(name)
        also = pytest.importorskip("fakepkg", minversion="2")


        def test_it():
            fakepkg.tool.run()
            return core.Engine, other.Thing
        ''')
    tree = ast.parse(src)
    # a name that is not a literal: not read
    assert dynamic_imports(tree) == [("fakepkg", "fakepkg"), ("core", "fakepkg.core"), ("other", "otherpkg"), ("also", "fakepkg")]
    uses = find_uses({"app/t.py": (src, tree)}, ["fakepkg"])
    assert sorted((u.line, u.kind, u.target) for u in uses if u.kind in (ATTRIBUTE, CALL)) == [
        (12, ATTRIBUTE, "fakepkg.tool"), (12, ATTRIBUTE, "fakepkg.tool.run"), (12, CALL, "fakepkg.tool.run"),
        (13, ATTRIBUTE, "fakepkg.core.Engine")]


def test_a_module_aliased_once_in_a_function_is_read_through_the_alias() -> None:
    src = textwrap.dedent('''\
        import fakepkg.pool


        def test_reset(arg):
            cpool = fakepkg.pool
            cpool.Verified
            twice = fakepkg.pool
            twice = None
            twice.Gone
            arg = fakepkg.pool
            arg.Param


        def other():
            cpool.Elsewhere
        ''')
    uses = find_uses({"app/t.py": (src, ast.parse(src))}, ["fakepkg"])
    # once assigned: read through; assigned twice, or a parameter: not the module; another function: nothing
    assert sorted((u.line, u.target) for u in uses if u.kind == ATTRIBUTE) == [
        (5, "fakepkg.pool"), (6, "fakepkg.pool.Verified"), (7, "fakepkg.pool"), (10, "fakepkg.pool")]


def test_a_subclass_defined_in_a_function_or_a_class_body_is_followed() -> None:
    """Tests often define their subclass where they use it: in the test function, or in the test class's
    body (then built through ``self.X(...)``). Its ``self.x`` reads, its overrides and the constructor it
    inherits are uses, as for a module-level class; a call is read only where the name is that class."""
    src = textwrap.dedent('''\
        from pkg import Engine


        def test_local():
            class Fast(Engine):
                def go(self):
                    return self.speed

            class Faster(Fast):
                pass

            Fast(gear=2)
            Faster(gear=3)


        def test_elsewhere():
            Fast(gear=4)


        def test_rebound():
            class Fast(Engine):
                pass

            Fast = make()
            Fast(gear=5)


        class TestEngines:
            class Slow(Engine):
                pass

            def test_built(self):
                if True:
                    return self.Slow(gear=6)

            def test_by_class(self):
                return TestEngines.Slow(gear=7)
        ''')
    got = sorted((u.line, u.kind, u.target, u.member or "", u.via)
                 for u in find_uses({"tests/test_e.py": (src, ast.parse(src))}, ["pkg"]) if u.kind not in (ATTRIBUTE, IMPORT))
    assert got == [
        (6, OVERRIDE, "pkg.Engine", "go", "subclass `Fast`"),
        (7, MEMBER, "pkg.Engine", "speed", "subclass `Fast`"),
        (12, CALL, "pkg.Engine", "", "`Fast(...)`: the constructor it inherits"),
        (13, CALL, "pkg.Engine", "", "`Faster(...)`: the constructor it inherits"),  # its base is the class beside it
        # line 17: another function's `Fast` is not this one; line 25: the name is bound again before the call
        (34, CALL, "pkg.Engine", "", "`Slow(...)`: the constructor it inherits"),
        (37, CALL, "pkg.Engine", "", "`Slow(...)`: the constructor it inherits"),
    ]
