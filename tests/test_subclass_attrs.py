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
    # call of theta (only reads are judged): nothing at lines 8, 9, 13, 14, 16
