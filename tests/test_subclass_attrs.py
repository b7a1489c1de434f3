"""Reads of an attribute that an upstream base class does not define but its subclasses set
(``subclasses.py``; bound in ``bind._subclass_read``).

A project types a receiver by the base (``cfg: BaseConfig``) and reads what the concrete class chosen at
run time sets (a model configuration's ``theta``). The fixture upstream ``fakepkg-cfg`` (a local git
repository, two tagged releases) moves such attributes between 1.0.0 and 2.0.0:

- ``theta``: set by ``AlphaConfig`` (and so ``GammaConfig``, which inherits it), ``BetaConfig``, ``DeltaConfig``
  (class level) and ``EpsConfig`` at 1.0.0; at 2.0.0 only ``DeltaConfig`` sets it, and ``EpsConfig`` has a
  ``__getattr__``: gone from some (a warning);
- ``width``: set by ``AlphaConfig``, served through ``BetaConfig``'s ``attribute_map`` at 1.0.0; by nobody at
  2.0.0: gone from all (an error);
- ``scaling``: set by ``AlphaConfig`` and ``BetaConfig`` at 1.0.0; a property of ``BaseConfig`` at 2.0.0 (a
  warning: its kind changed);
- ``depth``: set by every subclass at both releases, ``size``: set by ``AlphaConfig`` at 1.0.0 and served by its
  ``attribute_map`` at 2.0.0: nothing;
- ``tie``: set by ``BaseConfig.__init__`` at 1.0.0, by ``AlphaConfig`` only at 2.0.0; ``legacy``: set by
  ``BaseConfig.__init__`` at 1.0.0, by nobody at 2.0.0. ``BaseConfig.__getattribute__`` only remaps names through
  ``attribute_map``, read as such: ``tie`` is a warning, ``legacy`` an error (before, any ``__getattribute__``
  made both warnings);
- ``knob``: set by ``LooseA`` (a subclass of ``LooseBase``, whose ``__getattr__`` is no remap) at 1.0.0 only: a
  warning, it may be served.
"""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import pytest

from conftest import Repo
from upstream import app_findings, audited_project, project_pyproject, tagged_upstream
from upgrade_checklists.audit.api import UpstreamModel
from upgrade_checklists.audit.model_cache import FORMAT, _subs_in
from upgrade_checklists.audit.subclasses import base_remap, class_sets, providers, remap_table
from upgrade_checklists.core.plain import PlainError

BASE_V1 = '''
    class BaseConfig:
        attribute_map: dict = {}

        def __getattribute__(self, key):
            if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
                key = super().__getattribute__("attribute_map")[key]
            return super().__getattribute__(key)

        def __init__(self, **kwargs):
            self.name = kwargs.pop("name", "")
            self.tie = True
            self.legacy = 0


    Config = BaseConfig


    class LooseBase:
        def __getattr__(self, name):
            return self.__dict__.get("_extra", {}).get(name)


    class PlainBase:
        pass
    '''

BASE_V2 = '''
    class BaseConfig:
        attribute_map: dict = {}

        def __getattribute__(self, key):
            if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
                key = super().__getattribute__("attribute_map")[key]
            return super().__getattribute__(key)

        def __init__(self, **kwargs):
            self.name = kwargs.pop("name", "")
            self.params = kwargs.pop("params", {})

        @property
        def scaling(self):
            return self.params


    Config = BaseConfig


    class LooseBase:
        def __getattr__(self, name):
            return self.__dict__.get("_extra", {}).get(name)


    class PlainBase:
        pass
    '''

CFG_V1 = {
    "fakepkg/cfg/__init__.py": "from fakepkg.cfg.base import BaseConfig, LooseBase, PlainBase\n",
    "fakepkg/cfg/base.py": BASE_V1,
    "fakepkg/cfg/models/__init__.py": "",
    "fakepkg/cfg/models/alpha.py": '''
        from fakepkg.cfg.base import BaseConfig


        class AlphaConfig(BaseConfig):
            def __init__(self, theta=1.0, scaling=None, width=4, **kwargs):
                super().__init__(**kwargs)
                self.theta = theta
                self.scaling = scaling
                self.width, self.depth = width, 2
                self.size = 8
                self.label = "a"
        ''',
    "fakepkg/cfg/models/beta.py": '''
        from ..base import Config


        class BetaConfig(Config):
            attribute_map = {"width": "hidden"}

            def __init__(self, theta=1.0, scaling=None):
                super().__init__()
                self.theta = theta
                self.scaling = scaling
                self.hidden = 3
                setattr(self, "depth", 3)
                self.label = "b"
        ''',
    "fakepkg/cfg/models/gamma.py": '''
        from fakepkg.cfg.models.alpha import AlphaConfig


        class GammaConfig(AlphaConfig):
            pass
        ''',
    "fakepkg/cfg/models/delta.py": '''
        from fakepkg.cfg import base


        class DeltaConfig(base.BaseConfig):
            depth: int = 5
            theta = 2.0
            label = "d"
        ''',
    "fakepkg/cfg/models/eps.py": '''
        from fakepkg.cfg.base import PlainBase


        class EpsConfig(PlainBase):
            def __init__(self):
                self.theta = 0.5


        class ZetaConfig(PlainBase):
            def __init__(self):
                self.theta = 0.25
        ''',
    "fakepkg/cfg/loose.py": '''
        from fakepkg.cfg.base import LooseBase


        class LooseA(LooseBase):
            def __init__(self):
                self.knob = 1
        ''',
}

CFG_V2 = {
    **CFG_V1,
    "fakepkg/cfg/base.py": BASE_V2,
    "fakepkg/cfg/models/alpha.py": '''
        from fakepkg.cfg.base import BaseConfig


        class AlphaConfig(BaseConfig):
            attribute_map = {"size": "width2"}

            def __init__(self, params=None, **kwargs):
                super().__init__(params=params, **kwargs)
                self.depth = 2
                self.width2 = 8
                self.tie = False
                self.label = "a"
        ''',
    "fakepkg/cfg/models/beta.py": '''
        from ..base import Config


        class BetaConfig(Config):
            def __init__(self):
                super().__init__()
                self.hidden = 3
                self.depth = 3
        ''',
    "fakepkg/cfg/models/eps.py": '''
        from fakepkg.cfg.base import PlainBase


        class EpsConfig(PlainBase):
            def __getattr__(self, name):
                return None


        class ZetaConfig(PlainBase):
            def __init__(self):
                self.mode = 1
        ''',
    "fakepkg/cfg/loose.py": '''
        from fakepkg.cfg.base import LooseBase


        class LooseA(LooseBase):
            def __init__(self):
                self.other = 1
        ''',
}

APP_PY = '''\
from fakepkg.cfg import BaseConfig, LooseBase, PlainBase


def use(cfg: BaseConfig, loose: LooseBase, plain: PlainBase):
    a = cfg.theta
    b = cfg.scaling
    c = cfg.width
    d = cfg.depth
    e = cfg.size
    f = cfg.tie
    g = cfg.legacy
    h = loose.knob
    i = cfg.name
    j = cfg.nowhere
    k = plain.theta
    m = cfg.label
    return cfg.theta()
'''

CHECKLIST = (
    "---\npackage: fakepkg-cfg\ngithub: example/fakepkg-cfg\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/cfg/\nimport_names:\n  - fakepkg.cfg\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/cfgs.py` | `BaseConfig` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


def pyproject(upstreams: Path, version: str) -> str:
    return project_pyproject("fakepkg-cfg", upstreams, version)


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("cfg-upstream"), "fakepkg-cfg", [("1.0.0", CFG_V1), ("2.0.0", CFG_V2)])


@pytest.fixture
def project(tmp_path: Path, capsys, upstreams: Path) -> Repo:
    return audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/cfgs.py": APP_PY, "checklists/fakepkg-cfg.md": CHECKLIST,
        "pyproject.toml": pyproject(upstreams, "1.0.0")})


ON = "(read on a `fakepkg.cfg.base.BaseConfig`; `cfg` annotated `fakepkg.cfg.BaseConfig` in `use`)"
REMAP = "`BaseConfig` only remaps names through its `attribute_map` table"


def test_reads_of_what_subclasses_set_are_judged_by_them(project: Repo, upstreams: Path) -> None:
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert r.code == 1
    got = [f for f in app_findings(r) if f[1] in ("REMOVED_API", "METHOD_CHANGED")]
    assert got == [
        # tie: set by the base at 1.0.0, by Alpha (and Gamma, which inherits it) at 2.0.0; the base's
        # __getattribute__ only remaps through attribute_map: still a warning
        ("app/cfgs.py:10", "REMOVED_API", "[warning] `fakepkg.cfg.base.BaseConfig.tie` (defined at fakepkg/cfg/base.py:11) "
         "was removed at 2.0.0 (`cfg` annotated `fakepkg.cfg.BaseConfig` in `use`); " + REMAP + "; at 2.0.0 set by 2 "
         "subclass(es) (`AlphaConfig`, `GammaConfig`)"),
        # legacy: set by the base at 1.0.0, by nobody at 2.0.0, and the remap table cannot serve it: an error
        # (before, any __getattribute__ made it a warning)
        ("app/cfgs.py:11", "REMOVED_API", "`fakepkg.cfg.base.BaseConfig.legacy` (defined at fakepkg/cfg/base.py:12) was "
         "removed at 2.0.0 (`cfg` annotated `fakepkg.cfg.BaseConfig` in `use`); " + REMAP + ", and no subclass sets `legacy` "
         "at 2.0.0"),
        # knob: LooseBase's __getattr__ is no remap: it may serve anything
        ("app/cfgs.py:12", "REMOVED_API", "[warning] `knob` (read on a `fakepkg.cfg.base.LooseBase`; `loose` annotated "
         "`fakepkg.cfg.LooseBase` in `use`) is not defined by `LooseBase`: at the old version set by 1 subclass(es) of "
         "`LooseBase`, at 2.0.0 by 0; gone from 1 that still exist (`LooseA`); `LooseBase.__getattr__` may still serve it"),
        # theta on PlainBase: Eps and Zeta at 1.0.0; at 2.0.0 neither, but Eps has a __getattr__
        ("app/cfgs.py:15", "REMOVED_API", "[warning] `theta` (read on a `fakepkg.cfg.base.PlainBase`; `plain` annotated "
         "`fakepkg.cfg.PlainBase` in `use`) is not defined by `PlainBase`: at the old version set by 2 subclass(es) of "
         "`PlainBase`, at 2.0.0 by 0; gone from 1 that still exist (`ZetaConfig`); 1 subclass(es) with a `__getattr__` "
         "or a table not written out (`EpsConfig`) may still serve it"),
        # label: Alpha, Beta, Delta, Gamma at 1.0.0; Beta no longer at 2.0.0: one of four, info
        ("app/cfgs.py:16", "REMOVED_API", f"[info] `label` {ON} is not defined by `BaseConfig`: at the old version set "
         "by 4 subclass(es) of `BaseConfig`, at 2.0.0 by 3 (`AlphaConfig`, `DeltaConfig`, `GammaConfig`); gone from 1 "
         "that still exist (`BetaConfig`) (fewer than half of the 4 that set it and still exist: most still do)"),
        # theta on BaseConfig: Alpha, Beta, Delta (class level), Gamma (through Alpha) at 1.0.0; Delta at 2.0.0
        ("app/cfgs.py:5", "REMOVED_API", f"[warning] `theta` {ON} is not defined by `BaseConfig`: at the old version set "
         "by 4 subclass(es) of `BaseConfig`, at 2.0.0 by 1 (`DeltaConfig`); gone from 3 that still exist (`AlphaConfig`, "
         "`BetaConfig`, `GammaConfig`)"),
        # scaling: Alpha, Beta, Gamma at 1.0.0; a property of the base at 2.0.0
        ("app/cfgs.py:6", "METHOD_CHANGED", f"[warning] `scaling` {ON}: at the old version set by 3 subclass(es) of "
         "`BaseConfig` (not by `BaseConfig` itself), at 2.0.0 a property of `fakepkg.cfg.base.BaseConfig` "
         "(fakepkg/cfg/base.py:14): its kind changed, and what it gives may have too"),
        # width: Alpha (a tuple target) and Gamma set it, Beta's attribute_map served it; nobody at 2.0.0: an error
        ("app/cfgs.py:7", "REMOVED_API", f"`width` {ON} is not defined by `BaseConfig`: at the old version set by 3 "
         "subclass(es) of `BaseConfig`, at 2.0.0 by 0; gone from 3 that still exist (`AlphaConfig`, `BetaConfig`, "
         "`GammaConfig`)"),
    ]
    # depth (set by every subclass at both: a tuple target, setattr with a literal name, a class-level annotation,
    # inherited), size (Alpha's attribute_map at 2.0.0), name (on the base at both), nowhere (set by nobody), and a
    # call of theta (only reads are judged): nothing at lines 8, 9, 13, 14, 17


def test_an_unchanged_upstream_says_nothing(project: Repo) -> None:
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert [f for f in app_findings(r) if f[1] in ("REMOVED_API", "METHOD_CHANGED")] == []


def test_the_index_is_cached_with_the_model(project: Repo, upstreams: Path) -> None:
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    first = app_findings(project.run("audit", "--cache-dir", str(project.cache), "-v"))
    records = [json.loads(p.read_text()) for p in (project.cache / "models" / f"v{FORMAT}").glob("*.json")]
    asked = [k for rec in records for table in rec.get("tables", {}).values() for k in table if k.startswith('["subclass_index"')]
    assert '["subclass_index", "fakepkg.cfg.base.BaseConfig", "class"]' in asked
    warm = app_findings(project.run("audit", "--cache-dir", str(project.cache), "-v"))
    assert warm == first and len([f for f in first if f[1] == "REMOVED_API"]) == 7


# -- the parts -------------------------------------------------------------------------------------


def fn(src: str) -> ast.FunctionDef:
    return ast.parse(textwrap.dedent(src)).body[0]


@pytest.mark.parametrize("src, table", [
    ('''
     def __getattribute__(self, key):
         if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
             key = super().__getattribute__("attribute_map")[key]
         return super().__getattribute__(key)
     ''', "attribute_map"),
    ('''
     def __getattribute__(self, name):
         """Remapped."""
         if name in type(self).aliases:
             name = type(self).aliases[name]
         return object.__getattribute__(self, name)
     ''', "aliases"),
    ('''
     def __getattr__(self, name):
         if name in self.renames:
             return getattr(self, self.renames[name])
         raise AttributeError(name)
     ''', "renames"),
    # not a remap: anything else in the body, two tables, another lookup, a default value
    ('''
     def __getattribute__(self, key):
         if key in self.a:
             key = self.b[key]
         return super().__getattribute__(key)
     ''', None),
    ('''
     def __getattribute__(self, key):
         if key in self.a:
             key = self.a[key]
         print(key)
         return super().__getattribute__(key)
     ''', None),
    ('''
     def __getattribute__(self, key):
         if key in self.a:
             key = self.a[key]
         return super().__getattribute__("other")
     ''', None),
    ('''
     def __getattr__(self, name):
         if name in self.renames:
             return getattr(self, self.renames[name])
         return None
     ''', None),
    ('''
     def __getattr__(self, name, default=None):
         if name in self.renames:
             return getattr(self, self.renames[name])
         raise AttributeError(name)
     ''', None),
    ('''
     def __getattr__(self, name):
         if name.startswith("x") and name in self.renames:
             return getattr(self, self.renames[name])
         raise AttributeError(name)
     ''', None),
])
def test_which_dunders_only_remap_through_a_table(src: str, table) -> None:
    assert remap_table(fn(src)) == table


def test_what_a_class_statement_sets() -> None:
    node = ast.parse(textwrap.dedent('''
        class C(B):
            a = 1
            b: int
            c, (d, e) = 1, (2, 3)

            class Inner:
                pass

            def __init__(this, k):
                this.f = k
                this.g: int = 2
                this.h += 1
                this.i, [this.j, *this.k] = 1, [2, 3]
                setattr(this, "l", 1)
                setattr(this, k, 1)  # computed: not counted
                other.m = 1
                this.n.o = 1  # an attribute of an attribute: not this class's

            @property
            def p(self):
                return 1

            @staticmethod
            def q(self):
                self.r = 1  # no instance: not counted
        ''')).body[0]
    assert class_sets(node) == {"a", "b", "c", "d", "e", "Inner", "__init__", "f", "g", "h", "i", "j", "k", "l", "p", "q"}


def package(tmp_path: Path, files: dict[str, str]) -> UpstreamModel:
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return UpstreamModel([tmp_path], ["pkg"])


def test_which_classes_are_subclasses(tmp_path: Path) -> None:
    """Bases resolved through each module's imports: a class of the same name elsewhere, a base of another
    distribution spelled alike, a file that does not parse, an alias of the base, a subclass of a subclass
    in another module, a generic base, a base written across lines."""
    model = package(tmp_path, {
        "pkg/__init__.py": "from pkg.base import Base\n",
        "pkg/base.py": "class Base:\n    pass\n\n\nOld = Base\n",
        "pkg/a.py": '''
            from pkg.base import Old
            from typing import Generic, TypeVar
            T = TypeVar("T")


            class A(Old):
                def __init__(self):
                    self.x = 1


            class Shared(Generic[T], Old):
                y = 1
            ''',
        "pkg/b.py": '''
            from other_dist import Base
            from . import a


            class Shared(Base):  # another distribution's Base: no subclass
                x = 1


            class B(
                a.A,
            ):
                z = 1
            ''',
        "pkg/broken.py": "from pkg.base import Base\n\nclass Broken(Base):\n    x = (\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/c.py": '''
            from ..a import A as Renamed


            class C(Renamed):
                pass
            ''',
    })
    ix = model.subclass_index(model.lookup("pkg.Base"))
    assert ix["classes"] == ["pkg.a.A", "pkg.a.Shared", "pkg.b.B", "pkg.sub.c.C"]
    assert providers(ix, "x") == ({"pkg.a.A", "pkg.b.B", "pkg.sub.c.C"}, set())
    assert providers(ix, "y") == ({"pkg.a.Shared"}, set())
    assert providers(ix, "z") == ({"pkg.b.B"}, set())
    assert ix["table"] == "" and ix["base_dynamic"] == "" and ix["dynamic"] == []
    assert _subs_in(json.loads(json.dumps(ix))) == ix
    assert model.subclass_index(model.lookup("pkg")) is None  # not a class


def test_remap_tables_of_subclasses(tmp_path: Path) -> None:
    model = package(tmp_path, {
        "pkg/__init__.py": '''
            class Base:
                names = {"short": "long"}

                def __getattribute__(self, key):
                    if key in super().__getattribute__("names"):
                        key = super().__getattribute__("names")[key]
                    return super().__getattribute__(key)

                def helper(self):
                    return 1


            class Literal(Base):
                names = {"w": "width", "h": "height"}


            class Computed(Base):
                names = dict(w="width")


            class Below(Literal):
                pass


            class Own(Base):
                def __getattr__(self, name):
                    return 0


            class Loose:
                def __getattr__(self, name):
                    return name
            ''',
    })
    ix = model.subclass_index(model.lookup("pkg.Base"))
    assert ix["table"] == "names" and ix["base_keys"] == ["short"] and ix["base_dynamic"] == ""
    assert ix["base_defs"] == {"__getattribute__": "method", "helper": "method"}
    assert providers(ix, "w") == ({"pkg.Literal", "pkg.Below"}, {"pkg.Computed", "pkg.Own"})
    loose = model.subclass_index(model.lookup("pkg.Loose"))
    assert loose["base_dynamic"] == "Loose.__getattr__" and loose["classes"] == []


def test_a_base_table_not_written_out_may_serve_anything() -> None:
    mro = [ast.parse(textwrap.dedent('''
        class Base:
            table = make()

            def __getattr__(self, key):
                if key in self.table:
                    return getattr(self, self.table[key])
                raise AttributeError(key)
        ''')).body[0]]
    assert base_remap(mro) == ("table", [], "Base.table")


@pytest.mark.parametrize("bad", [
    [], {"classes": []},
    {"classes": ["a"], "parents": [[]], "sets": {"x": [1]}, "dynamic": [], "table": "", "base_keys": [], "base_dynamic": "",
     "base_defs": {}},
    {"classes": ["a"], "parents": [], "sets": {}, "dynamic": [], "table": "", "base_keys": [], "base_dynamic": "",
     "base_defs": {}},
    {"classes": ["a"], "parents": [["0"]], "sets": {}, "dynamic": [], "table": "", "base_keys": [], "base_dynamic": "",
     "base_defs": {}},
    {"classes": ["a"], "parents": [[]], "sets": {}, "dynamic": [], "table": 1, "base_keys": [], "base_dynamic": "",
     "base_defs": {}},
    {"classes": ["a"], "parents": [[]], "sets": {}, "dynamic": [], "table": "", "base_keys": [], "base_dynamic": "",
     "base_defs": {"p": "attribute"}},
    {"classes": [1], "parents": [[]], "sets": {}, "dynamic": [], "table": "", "base_keys": [], "base_dynamic": "",
     "base_defs": {}},
])
def test_a_garbled_cached_index_is_refused(bad) -> None:
    with pytest.raises(PlainError):
        _subs_in(bad)


def test_a_cycle_of_bases_ends() -> None:
    ix = {"classes": ["a", "b"], "parents": [[1], [0]], "sets": {"x": [0]}, "dynamic": [], "table": "", "base_keys": [],
          "base_dynamic": "", "base_defs": {}}
    assert providers(ix, "x") == ({"a", "b"}, set())


def test_a_hostile_package_stays_cheap(tmp_path: Path) -> None:
    """Class headers that never close, thousands of subclasses in one file, a subclass whose lines hold a string
    at column 0 (its own lines do not parse: the whole file is read): found, and quickly."""
    import time

    many = "from pkg.base import Base\n\n" + "".join(f"class C{i}(Base):\n    x{i % 7} = {i}\n\n" for i in range(3000))
    model = package(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/base.py": "class Base:\n    pass\n",
        "pkg/open.py": "class A(\n" * 20000,
        "pkg/many.py": many,
        "pkg/doc.py": 'from pkg.base import Base\n\n\nclass D(Base):\n    """\nat column 0\n"""\n\n    def __init__(self):\n'
                      '        self.x0 = 1\n',
    })
    start = time.process_time()
    ix = model.subclass_index(model.lookup("pkg.base.Base"))
    assert time.process_time() - start < 20
    assert len(ix["classes"]) == 3001
    assert "pkg.doc.D" in providers(ix, "x0")[0] and len(providers(ix, "x0")[0]) == 430  # 429 of C0..C2999 (i % 7 == 0), and D
