"""The lazy upstream model: the whole model's answers, from only the modules a question reaches."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from test_audit import BREAKING, OTHER, audit, bump, project, upstreams  # noqa: F401 (fixtures)
from test_audit_verdicts import VERDICTS, findings
from test_audit_verdicts import project as verdicts_project  # noqa: F401 (fixture)
from test_audit_verdicts import upstream  # noqa: F401 (fixture)
from test_api import tree
from test_model_cache import moved_pin_findings
from upgrade_checklists.audit import model_cache
from upgrade_checklists.audit.api import Unresolved, UpstreamModel
from upgrade_checklists.audit.lazy_model import LazyModel, NeedFull, griffe_private
from upgrade_checklists.audit.model_cache import CachedModel

PKG = {
    "pkg/__init__.py": """
        def early(): ...
        from pkg.api import *
        def late(): ...
        from pkg.sub.reexport import Helper as PublicHelper
        """,
    "pkg/api.py": """
        from pkg.core.engine import Engine

        __all__ = ["Engine", "early", "late", "make"]

        def early(x): ...
        def late(x): ...
        def make(size=1): ...
        """,
    "pkg/core/__init__.py": "",
    "pkg/core/base.py": "class Base:\n    def step(self, lr=0.1): ...\n",
    "pkg/core/engine.py": "from pkg.core.base import Base\n\nclass Engine(Base):\n    def run(self, n): ...\n",
    "pkg/core/baseconfig.py": "from dataclasses import dataclass\n\n@dataclass\nclass BaseConfig:\n    x: int\n",
    "pkg/core/config.py": """
        from dataclasses import dataclass
        from pkg.core.baseconfig import BaseConfig

        @dataclass
        class Config(BaseConfig):
            y: int = 2
        """,
    "pkg/sub/__init__.py": "",
    "pkg/sub/reexport.py": "from pkg.sub.impl import Helper\n",
    "pkg/sub/impl.py": "class Helper:\n    def __init__(self, x): ...\n",
    "pkg/moved/__init__.py": "",
    "pkg/moved/place.py": "def relocated(a, b): ...\n",
    "pkg/ns/tool.py": "def tool(x): ...\n",  # ns/ has no __init__.py
    "pkg/unrelated.py": "class Other:\n    def relocated_not(self): ...\n",
}


def loaded(model) -> set[str]:
    """Every module in the model's tree (plain dict walk: what griffe has parsed)."""
    out = set()
    stack = list(dict.values(model.collection.members))
    while stack:
        mod = stack.pop()
        if mod.is_alias or not mod.is_module:
            continue
        out.add(mod.path)
        stack += list(dict.values(mod.members))
    return out


def names(api) -> list[str]:
    return [p.name for p in api.signature.params]


@pytest.fixture
def src(tmp_path: Path) -> Path:
    return tree(tmp_path / "src", PKG)


def test_inherited_method_from_a_base_in_another_module_loads_only_its_way(src: Path) -> None:
    lazy = LazyModel([src], ["pkg"])
    assert loaded(lazy) == {"pkg"}
    step = lazy.lookup("pkg.Engine.step")  # a wildcard re-export, then a base class in another module
    assert (step.path, names(step)) == ("pkg.core.base.Base.step", ["lr"])
    assert lazy.lookup("pkg.Engine").path == "pkg.core.engine.Engine"
    assert loaded(lazy) == {"pkg", "pkg.api", "pkg.core", "pkg.core.engine", "pkg.core.base"}


def test_re_export_chain(src: Path) -> None:
    lazy = LazyModel([src], ["pkg"])
    helper = lazy.lookup("pkg.PublicHelper")
    assert (helper.path, names(helper)) == ("pkg.sub.impl.Helper", ["x"])
    assert loaded(lazy) == {"pkg", "pkg.sub", "pkg.sub.reexport", "pkg.sub.impl"}  # pkg.api: it does not spell Helper


def test_wildcard_import_and_its_precedence(src: Path) -> None:
    lazy = LazyModel([src], ["pkg"])
    assert names(lazy.lookup("pkg.make")) == ["size"]
    assert lazy.lookup("pkg.early").path == "pkg.api.early"  # the wildcard below the def wins
    assert lazy.lookup("pkg.late").path == "pkg.late"  # the def below the wildcard wins
    assert lazy.lookup("pkg.nothing") is None
    assert "pkg.core" not in loaded(lazy)


def test_by_name_finds_a_moved_api_in_an_unrelated_module(src: Path) -> None:
    lazy = LazyModel([src], ["pkg"])
    assert lazy.by_name("relocated") == ["pkg.moved.place.relocated"]
    assert lazy.by_name("place", kinds=("module",)) == ["pkg.moved.place"]
    assert lazy.by_name("Helper", kinds=("class",)) == ["pkg.sub.impl.Helper"]
    assert lazy.by_name("absent") == []
    assert "pkg.unrelated" not in loaded(lazy)  # it spells `relocated` only as part of another name


def test_namespace_folder_and_dataclass_fields_from_a_base(src: Path) -> None:
    lazy = LazyModel([src], ["pkg"])
    assert names(lazy.lookup("pkg.ns.tool.tool")) == ["x"]
    assert names(lazy.lookup("pkg.core.config.Config")) == ["x", "y"]
    assert lazy.by_name("tool", kinds=("function", "module")) == ["pkg.ns.tool", "pkg.ns.tool.tool"]


def test_same_answers_as_the_whole_model(src: Path) -> None:
    lazy, whole = LazyModel([src], ["pkg"]), UpstreamModel([src], ["pkg"])
    for path in ("pkg.Engine.step", "pkg.PublicHelper", "pkg.early", "pkg.late", "pkg.make", "pkg.ns.tool.tool",
                 "pkg.core.config.Config", "pkg.unrelated.Other", "pkg.nothing", "pkg.core.nothing.deeper"):
        assert lazy.lookup(path) == whole.lookup(path), path
        assert lazy.file_of(path) == whole.file_of(path), path
    for name in ("relocated", "tool", "Engine", "Base", "early", "ns"):
        assert lazy.by_name(name, ("class", "function", "module")) == whole.by_name(name, ("class", "function", "module"))


def test_missing_module_names_the_same_reason(src: Path) -> None:
    lazy = LazyModel([src], ["pkg", "pkg.absent", "nopkg"])
    assert lazy.missing == ["pkg.absent (KeyError)", "nopkg (ModuleNotFoundError)"]
    with pytest.raises(Unresolved, match=r"could not load pkg.absent \(KeyError\), nopkg \(ModuleNotFoundError\)"):
        lazy.resolve_heading("pkg.absent.thing", None, ["pkg"])


def test_gives_up_where_it_cannot_be_exact(src: Path) -> None:
    (src / "pkg" / "__init__.pyi").write_text("def early() -> int: ...\n")
    with pytest.raises(NeedFull, match=r"__init__.pyi` beside `__init__.py`: the whole load merges the top package's stub"):
        LazyModel([src], ["pkg"])


# Stub files, as torch ships them: a module and its stub (``nn/functional.py`` + ``.pyi``), a compiled module
# known by its stub only (``_C.cpython-*.so`` left empty by the unpacking, ``_C/__init__.pyi``), a subpackage
# with an ``__init__.pyi`` beside its ``__init__.py``, functions a stub declares only by ``@overload``.
STUBBED = {
    "tpkg/__init__.py": """
        from tpkg._C import *
        from tpkg._C import _Base
        from tpkg import fn
        from tpkg.fn import relu
        from tpkg._ops import *
        """,
    "tpkg/_C/__init__.pyi": """
        from typing import overload
        from tpkg._C._nn import Linear as Linear
        __all__ = ["_Base", "Tensor", "empty", "add"]
        class _Base:
            def step(self, lr: float = 0.1) -> None: ...
        class Tensor(_Base):
            def size(self, dim: int) -> int: ...
        @overload
        def empty(size: int) -> Tensor: ...
        @overload
        def empty(size: int, dtype: str, *, pin: bool = False) -> Tensor: ...
        def add(a: Tensor, b: Tensor, alpha: float = 1) -> Tensor: ...
        """,
    "tpkg/_C/_nn.pyi": "class Linear:\n    def __init__(self, n: int, bias: bool = True) -> None: ...\n",
    "tpkg/fn.py": """
        import tpkg._C as _C
        def relu(x, inplace=False): ...
        conv = _C.add
        __all__ = ["relu", "conv"]
        """,
    "tpkg/fn.pyi": """
        from typing import overload
        __all__ = ["relu", "conv", "pad"]
        def relu(x: int, inplace: bool = False) -> int: ...
        def conv(x: int, weight: int, stride: int = 1) -> int: ...
        @overload
        def pad(x: int) -> int: ...
        @overload
        def pad(x: int, value: float) -> int: ...
        class StubOnly:
            def go(self, n: int) -> None: ...
        """,
    "tpkg/_ops.py": "from tpkg._VF import *\n",
    "tpkg/_VF.py": "import sys\n",
    "tpkg/_VF.pyi": "__all__ = ['where']\ndef where(cond: int, x: int, y: int) -> int: ...\n",
    "tpkg/nn/__init__.py": "from tpkg.nn.modules import Module\ndef helper(a): ...\n",
    "tpkg/nn/__init__.pyi": "from tpkg.nn.modules import Module as Module\ndef helper(a: int) -> int: ...\ndef typed(a: int) -> int: ...\n",
    "tpkg/nn/modules.py": "from tpkg._C import _Base\nclass Module(_Base):\n    def forward(self, x): ...\n",
    "tpkg/unrelated.py": "def where(a): ...\nclass Module:\n    ...\n",
}
STUB_PATHS = ("tpkg.Tensor.size", "tpkg.Tensor.step", "tpkg.empty", "tpkg.add", "tpkg.Linear", "tpkg._Base.step",
              "tpkg.fn.relu", "tpkg.relu", "tpkg.fn.conv", "tpkg.fn.pad", "tpkg.fn.StubOnly.go", "tpkg.where",
              "tpkg._ops.where", "tpkg.nn.helper", "tpkg.nn.typed", "tpkg.nn.Module.step", "tpkg.nn.Module.forward",
              "tpkg._C._nn.Linear", "tpkg.nothing", "tpkg._C.nothing")
STUB_NAMES = ("empty", "pad", "conv", "relu", "where", "Linear", "StubOnly", "Module", "typed", "_nn", "fn")


def same_answers(lazy, whole, paths, names_) -> None:
    for path in paths:
        for q in ("lookup", "file_of"):
            try:
                expected = getattr(whole, q)(path)
            except Unresolved as exc:
                with pytest.raises(Unresolved, match=re.escape(str(exc))):
                    getattr(lazy, q)(path)
                continue
            assert getattr(lazy, q)(path) == expected, (q, path)
    for name in names_:
        assert lazy.by_name(name, ("class", "function", "module")) == whole.by_name(name, ("class", "function", "module")), name


@pytest.fixture
def stubbed(tmp_path: Path) -> Path:
    root = tree(tmp_path / "src", STUBBED)
    (root / "tpkg" / "_C.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")  # as archives.py leaves it
    (root / "tpkg" / "_fast.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")  # compiled, no stub
    return root


def test_stub_files_are_merged_as_the_whole_load_merges_them(stubbed: Path) -> None:
    lazy, whole = LazyModel([stubbed], ["tpkg"]), UpstreamModel([stubbed], ["tpkg"])
    assert loaded(lazy) == {"tpkg"}  # no NeedFull for the stubs: only the top package so far
    same_answers(lazy, whole, STUB_PATHS, STUB_NAMES)
    assert lazy.file_of("tpkg.Tensor.size") == "tpkg/_C/__init__.pyi"
    relu = lazy.lookup("tpkg.relu")  # the module's function, the stub's annotations
    assert (relu.path, names(relu), relu.signature.returns) == ("tpkg.fn.relu", ["x", "inplace"], "int")
    assert names(lazy.lookup("tpkg.fn.conv")) == ["x", "weight", "stride"]  # a function in the stub beats the attribute
    assert (names(lazy.lookup("tpkg.empty")), lazy.lookup("tpkg.empty").signature.overloaded) == (["size", "dtype", "pin"], True)
    assert lazy.lookup("tpkg.fn.pad").signature.overloaded  # declared by @overload only, in the stub beside the module
    assert lazy.lookup("tpkg.nn.Module.step").path == "tpkg._C._Base.step"  # a base in a compiled module's stub
    assert lazy.lookup("tpkg.nn.typed").path == "tpkg.nn.typed"  # the subpackage's own __init__.pyi
    lazy = LazyModel([stubbed], ["tpkg"])
    assert lazy.lookup("tpkg.nn.Module.step").path == "tpkg._C._Base.step"
    assert loaded(lazy) == {"tpkg", "tpkg._C", "tpkg.nn", "tpkg.nn.modules"}  # the modules on its way, no more


def test_a_stub_only_top_package(tmp_path: Path) -> None:
    root = tree(tmp_path / "src", {
        "stubtop/__init__.pyi": "from stubtop.core import Engine as Engine\nfrom stubtop.extra import *\n",
        "stubtop/core.pyi": "class Engine:\n    def run(self, n: int, *, fast: bool = ...) -> None: ...\n",
        "stubtop/extra.pyi": "__all__ = ['tool']\ndef tool(x: int) -> int: ...\ndef hidden() -> None: ...\n",
    })
    lazy, whole = LazyModel([root], ["stubtop"]), UpstreamModel([root], ["stubtop"])
    same_answers(lazy, whole, ("stubtop.Engine.run", "stubtop.tool", "stubtop.hidden", "stubtop.core.Engine"),
                 ("Engine", "tool", "core", "hidden"))
    assert names(lazy.lookup("stubtop.Engine.run")) == ["n", "fast"]
    assert lazy.file_of("stubtop.tool") == "stubtop/extra.pyi"


def test_a_module_file_beside_a_package_of_that_name_still_gives_up(stubbed: Path) -> None:
    tree(stubbed, {"tpkg/nn.pyi": "def helper(a: str) -> str: ...\n"})
    lazy = LazyModel([stubbed], ["tpkg"])
    with pytest.raises(NeedFull, match=r"`tpkg.nn` is both a module file and a package"):
        lazy.lookup("tpkg.nn.helper")


def test_gives_up_half_way_and_the_cached_model_asks_the_whole_package(src: Path, tmp_path: Path) -> None:
    (src / "pkg" / "core" / "base.py").write_text(
        "from dataclasses import InitVar, dataclass\n\n@dataclass\nclass Base:\n    seed: InitVar[int]\n    def step(self, lr=0.1): ...\n")
    lazy = LazyModel([src], ["pkg"])
    with pytest.raises(NeedFull, match="InitVar fields in `pkg.core.base`"):
        lazy.lookup("pkg.Engine.step")
    with pytest.raises(NeedFull):  # nothing of it is trusted any more
        lazy.lookup("pkg.make")
    cached = CachedModel([("pkg", "1.0", src)], ["pkg"], tmp_path / "cache")
    assert cached.lookup("pkg.make").path == "pkg.api.make"
    assert cached.gave_up is None
    step = cached.lookup("pkg.Engine.step")
    assert (step.path, names(step)) == ("pkg.core.base.Base.step", ["lr"])
    assert cached.gave_up == "InitVar fields in `pkg.core.base`"
    assert isinstance(cached.real(), UpstreamModel) and not isinstance(cached.real(), LazyModel)
    assert cached.lookup("pkg.make").path == "pkg.api.make"  # from the record


def test_griffe_private_functions_are_what_we_call() -> None:
    """griffe's private loader and dataclass functions, as the lazy model calls them (fails loudly on a change)."""
    private = griffe_private()
    assert list(inspect.signature(private["_load_module"]).parameters) == ["self", "module_name", "module_path", "submodules", "parent"]
    assert list(inspect.signature(private["_load_submodule"]).parameters) == ["self", "module", "subparts", "subpath"]
    assert list(inspect.signature(private["_dataclass_decorator"]).parameters) == ["decorators"]
    assert list(inspect.signature(private["_set_dataclass_init"]).parameters) == ["class_"]
    import griffe

    from upgrade_checklists.audit import lazy_model
    # the files griffe's finder takes for modules: the lazy model finds a submodule's files by the same suffixes
    assert tuple(griffe.ModuleFinder.accepted_py_module_extensions) == lazy_model._MODULE_SUFFIXES


def refuse_whole_loads(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("the whole package was loaded")
    monkeypatch.setattr(model_cache, "UpstreamModel", refuse)


def test_first_audit_is_answered_by_the_lazy_model_alone(project, upstreams: Path, monkeypatch) -> None:
    refuse_whole_loads(monkeypatch)
    bump(project, upstreams)
    first = audit(project)  # empty model cache: every question reaches griffe, lazily
    assert (first.code, moved_pin_findings(first)) == (1, set(BREAKING) | set(OTHER))
    assert first.lines[-1] == "Audited 1 package(s): 15 breaking, 8 other."


def test_served_names_and_deprecations_from_the_lazy_model(verdicts_project, monkeypatch) -> None:
    refuse_whole_loads(monkeypatch)
    r = verdicts_project.run("audit", "oldnew==2.0.0", "--from", "1.0.0", "--cache-dir", str(verdicts_project.cache), "-v")
    assert findings(r) == VERDICTS  # the __getattr__ that warns, @deprecated, the alias to torch


def test_names_a_wildcard_binds_beyond_griffes_expansion(tmp_path: Path) -> None:
    """``__all__`` grown by a call: griffe's expansion misses the name, the whole model binds it after loading."""
    root = tree(tmp_path / "src", {
        "gpkg/__init__.py": "from gpkg.ops import *\n",
        "gpkg/ops.py": "from gpkg._impl import fast\n__all__ = ['slow']\n__all__.extend(['fast'])\ndef slow(x): ...\n",
        "gpkg/_impl.py": "def fast(a, b=2): ...\n",
    })
    lazy, whole = LazyModel([root], ["gpkg"]), UpstreamModel([root], ["gpkg"])
    same_answers(lazy, whole, ("gpkg.fast", "gpkg.slow", "gpkg.ops.fast"), ("fast", "slow"))
    assert lazy.lookup("gpkg.fast").path == "gpkg._impl.fast"


def test_what_a_wildcard_binds_is_read_without_keeping_the_trees(tmp_path: Path) -> None:
    """A ``*`` import of a package of many ``*`` imports (transformers.models: 2,000 modules) is read for what it
    binds; the trees of the modules griffe does not load are not kept (they had doubled an audit's peak memory)."""
    root = tree(tmp_path / "src", {
        "gpkg/__init__.py": "from gpkg.models import *\n",
        "gpkg/models/__init__.py": "from .one import *\nfrom .two import *\n",
        "gpkg/models/one.py": "from gpkg._impl import fast\n__all__ = ['slow']\n__all__.extend(['fast'])\ndef slow(x): ...\n",
        "gpkg/models/two.py": "__all__ = ['other']\ndef other(): ...\n",
        "gpkg/_impl.py": "def fast(a, b=2): ...\n",
    })
    lazy, whole = LazyModel([root], ["gpkg"]), UpstreamModel([root], ["gpkg"])
    same_answers(lazy, whole, ("gpkg.fast", "gpkg.models.fast"), ("fast",))
    assert lazy.lookup("gpkg.fast").path == "gpkg._impl.fast"
    assert "gpkg.models.two" not in loaded(lazy)
    kept = {p.relative_to(root).as_posix() for p, t in lazy.sources._trees.items() if t is not None}
    assert "gpkg/models/two.py" not in kept, kept  # read for what it exposes (nothing binds ``fast``): not loaded, not kept


def test_a_stub_declaring_what_its_module_imports_gives_up(stubbed: Path) -> None:
    """griffe resolves the module's alias to merge the stub's declaration into it: what it finds depends on
    the whole load's order (an alias into a compiled module nothing binds it in resolves in none: merged the same)."""
    lazy = LazyModel([stubbed], ["tpkg"])
    assert lazy.lookup("tpkg.fn.relu").path == "tpkg.fn.relu"  # fn.py imports tpkg._C as _C: the stub declares no _C
    tree(stubbed, {"tpkg/fn.py": "from tpkg.nn.modules import Module\nfrom tpkg._C import _Missing as Gone\ndef relu(x): ...\n",
                   "tpkg/fn.pyi": "class Module:\n    def forward(self, x: int) -> int: ...\nclass Gone: ...\ndef relu(x: int) -> int: ...\n"})
    lazy = LazyModel([stubbed], ["tpkg"])
    with pytest.raises(NeedFull, match=r"the stub of `tpkg.fn` declares what its module imports \(Module\)"):
        lazy.lookup("tpkg.fn.relu")
    tree(stubbed, {"tpkg/fn.pyi": "class Gone: ...\ndef relu(x: int) -> int: ...\n"})  # _Missing: bound nowhere
    lazy, whole = LazyModel([stubbed], ["tpkg"]), UpstreamModel([stubbed], ["tpkg"])
    same_answers(lazy, whole, ("tpkg.fn.relu", "tpkg.fn.Gone"), ("Gone", "relu"))


def test_a_merge_griffe_gives_up_is_given_up_alike(stubbed: Path) -> None:
    """The stub overloads a function its module imports from a compiled module without a stub: griffe's merge
    stops on the alias (in any order), and keeps the later file's module alone."""
    tree(stubbed, {"tpkg/ops2.py": "from tpkg._fast import where\ndef keep(x): ...\n",
                   "tpkg/ops2.pyi": "from typing import overload\n@overload\ndef where(c: int) -> int: ...\n"
                                    "@overload\ndef where(c: int, x: int) -> int: ...\ndef keep(x: int, y: int = 0) -> int: ...\n"})
    lazy, whole = LazyModel([stubbed], ["tpkg"]), UpstreamModel([stubbed], ["tpkg"])
    same_answers(lazy, whole, ("tpkg.ops2.keep", "tpkg.ops2.where", "tpkg.ops2"), ("keep", "where", "ops2"))
