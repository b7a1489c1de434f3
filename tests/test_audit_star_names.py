"""Issue 24 leftovers: names bound as Python binds them, read from small upstream trees written here.

- ``from M import *`` binds M's ``__all__`` even when a stub (``.pyi``) beside M declares
  ``__all__: list[str]`` (griffe then takes the stub's empty list), and ``__all__`` grown by
  ``+=``, ``.extend``, ``.append``, ``.remove`` or a helper ``extend_all(mod)`` is read; a loop
  appending names computed at run time makes what is read a lower bound (a missing name is unknown);
- a function a stub declares only by ``@overload`` (a compiled function) exists;
- a bare builtin name in a stub's annotation is the builtin, not ``pkg.bool`` of a parent package;
- ``r = f(); a, b = r``: the call only unpacks its result;
- one ``GetattrReader`` per module file answers every name asked of it.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from upgrade_checklists.audit import aliases, api
from upgrade_checklists.audit.aliases import SourceCache, StarExports
from upgrade_checklists.audit.api import Param, Signature, UpstreamModel
from upgrade_checklists.audit.signatures import bind_call
from upgrade_checklists.project.uses import CALL, find_uses


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


#: a numpy-1.26-like package: the public names come through two levels of ``*`` imports
NP = {
    "nump/__init__.py": '''
        from . import core
        from .core import *

        __all__ = ["core"]
        __all__.extend(core.__all__)
        __all__.remove("hidden")


        def __getattr__(attr):
            raise AttributeError("module {!r} has no attribute {!r}".format(__name__, attr))
        ''',
    # the stub is empty on purpose: the namespace is "private"; its __all__ is a bare declaration
    "nump/core/__init__.pyi": "__all__: list[str]\n",
    "nump/core/__init__.py": '''
        from . import fromnum, numeric
        from .fromnum import *
        from .numeric import *

        __all__ = ["hidden"]
        __all__ += numeric.__all__
        ''',
    "nump/core/fromnum.pyi": '''
        __all__: list[str]

        def product(a, axis=None) -> int: ...
        def alltrue(a) -> bool: ...
        ''',
    "nump/core/fromnum.py": '''
        __all__ = ["product", "alltrue"]


        def product(a, axis=None):
            return a


        def alltrue(a):
            return a


        def _private(a):
            return a
        ''',
    "nump/core/numeric.py": '''
        from . import fromnum, types
        from .fromnum import *
        from .types import *

        __all__ = ["where", "hidden"]


        def where(cond):
            return cond


        def hidden():
            return 0


        def extend_all(module):
            existing = set(__all__)
            for a in getattr(module, "__all__"):
                if a not in existing:
                    __all__.append(a)


        extend_all(fromnum)
        extend_all(types)
        ''',
    # names computed at run time: what is read of __all__ is only a lower bound
    "nump/core/types.py": '''
        __all__ = ["float64"]
        float64 = float

        for _name in ("int8", "int16"):
            globals()[_name] = int
            __all__.append(_name)
        ''',
    # a compiled function known only by the overloads of its stub, with a builtin in its annotation
    "nump/core/multi.py": '''
        from ._multi_c import *
        ''',
    "nump/core/multi.pyi": '''
        from typing import overload

        @overload
        def empty(shape: int, dtype: None = ...) -> list[float]: ...
        @overload
        def empty(shape: int, dtype: type, *, like: object = ...) -> list[object]: ...
        def can_cast(a, b) -> bool: ...
        ''',
    "nump/core/_multi_c.cpython-311-x86_64-linux-gnu.so": "",
    # a package-level ``bool`` (numpy 2's np.bool) that griffe would find from the stub below
    "nump/bool.py": "",
}


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> UpstreamModel:
    return UpstreamModel([write(tmp_path_factory.mktemp("np"), NP)], ["nump"])


def test_star_imports_bind_the_modules_all_despite_its_stub(model: UpstreamModel) -> None:
    # product / alltrue: fromnum's __all__ (griffe took the stub's empty one), through core, numeric's
    # extend_all(fromnum) and the top package's __all__.extend(core.__all__)
    assert model.status("nump.core.product") == "found"
    assert model.canonical("nump.product") == "nump.core.fromnum.product"
    assert model.canonical("nump.alltrue") == "nump.core.fromnum.alltrue"
    assert model.canonical("nump.where") == "nump.core.numeric.where"
    assert model.status("nump.core.float64") == "found"
    # removed from the top __all__: not bound by `from .core import *` there... but core binds it
    assert model.status("nump.core.hidden") == "found"


def test_names_appended_by_a_loop_make_a_missing_name_unknown_not_absent(model: UpstreamModel) -> None:
    # int8 is appended to types.__all__ by a loop over values computed at run time: it may be there
    status = model.status("nump.core.numeric.int8")
    assert status.startswith("unknown:") and "grows at run time" in status
    # the top module's __getattr__ refuses any other name: but a name the star imports may bind is unknown too
    assert model.status("nump.ghost").startswith("unknown:")


def test_a_module_without_open_stars_refuses_with_its_message_filled(tmp_path: Path) -> None:
    root = write(tmp_path, {"onlyget/__init__.py": '''
        def __getattr__(attr):
            raise AttributeError("module {!r} has no attribute {!r}".format(__name__, attr))
        '''})
    m = UpstreamModel([root], ["onlyget"])
    assert m.status("onlyget.product") == "gone:module 'onlyget' has no attribute 'product'"


def test_star_exports_read_statically() -> None:
    src = SourceCache()
    trees = {
        "p.a": ("__all__ = ['x']\n__all__ += ['y']\n__all__.extend(['z'])\n__all__.append('w')\n__all__.remove('x')\n", False),
        "p.b": ("from .a import *\nfrom . import a\n__all__ = list(a.__all__) + ['v']\n", False),
        "p.c": ("from .b import *\n", False),  # no __all__: what its own * imports bring
        "p.d": ("__all__ = compute()\n", False),  # cannot be read
        "p.e": ("__all__ = ['q']\n__all__.remove('nope')\n", False),  # Python would fail: not a list we trust
    }

    def load(dotted):
        if dotted not in trees:
            return None
        text, pkg = trees[dotted]
        return ast.parse(text), pkg

    s = StarExports(load)
    assert s.exposed("p.a") == ["y", "z", "w"]
    assert s.exposed("p.b") == ["y", "z", "w", "v"]
    assert s.exposed("p.c") == ["y", "z", "w", "v"]
    assert s.exposed("p.d") is None
    assert s.exposed("p.e") is None
    assert s.exposed("p.missing") is None
    assert not s.partial


def test_star_exports_ask_for_each_module_once() -> None:
    """What is read of a module is kept, not its tree: ``load`` may parse anew (the lazy model's does)."""
    texts = {
        "q": ("from .models import *\n", True),
        "q.models": ("from .one import *\nfrom .two import *\n", True),  # no __all__: its * imports'
        "q.models.one": ("__all__ = ['a']\n__all__.extend(['b'])\n", False),
        "q.models.two": ("from .one import *\n__all__ = ['c']\n", False),
    }
    asked: list[str] = []

    def load(dotted):
        asked.append(dotted)
        if dotted not in texts:
            return None
        text, pkg = texts[dotted]
        return ast.parse(text), pkg

    s = StarExports(load)
    assert s.exposed("q") == ["a", "b", "c"]
    assert s.exposed("q.models") == ["a", "b", "c"]  # not asked before at the top: its parts are known
    assert s.exposed("q.models.two") == ["c"]
    assert s.exposed("q.nothing") is None
    assert sorted(asked) == ["q", "q.models", "q.models.one", "q.models.two", "q.nothing"]


def test_a_function_known_only_by_stub_overloads_exists(model: UpstreamModel) -> None:
    a = model.lookup("nump.core.multi.empty")
    assert a is not None and a.kind == "function"
    sig = a.signature
    assert sig.overloaded
    # shape required in both overloads; dtype optional in one; like only in the second: optional
    assert [(p.name, p.required) for p in sig.params] == [("shape", True), ("dtype", False), ("like", False)]
    assert sig.returns == "list[float] | list[object]"


def test_a_builtin_in_a_stub_annotation_is_the_builtin(model: UpstreamModel) -> None:
    assert model.lookup("nump.core.multi.can_cast").signature.returns == "bool"


def test_a_return_change_of_an_overloaded_function_is_info() -> None:
    src = "import pkg\nx = pkg.f(1)\ny = x + 1\n"
    (c,) = [u for u in find_uses({"a.py": (src, ast.parse(src))}, ["pkg"]) if u.kind == CALL]
    old = Signature([Param("a", "positional or keyword", None)], "list[int] | int", overloaded=True)
    new = Signature([Param("a", "positional or keyword", None)], "tuple[int, ...] | int", overloaded=True)
    (problem,) = bind_call(c.call, "pkg.f", old, new, "2")
    assert problem[:2] == ("RETURN_CHANGED", "info") and "overloads" in problem[3]
    plain = Signature(new.params, new.returns)
    assert bind_call(c.call, "pkg.f", Signature(old.params, old.returns), plain, "2")[0][:2] == ("RETURN_CHANGED", "error")


LIST_TO_TUPLE = (Signature([], "list[int]"), Signature([], "tuple[int, int]"))


def _result_severity(src: str) -> list[tuple[str, str]]:
    calls = [u for u in find_uses({"a.py": (src, ast.parse(src))}, ["pkg"]) if u.kind == CALL and u.target == "pkg.pair"]
    assert len(calls) == 1
    return [p[:2] for p in bind_call(calls[0].call, "pkg.pair", *LIST_TO_TUPLE, "2")]


@pytest.mark.parametrize("body", [
    "    r = pkg.pair()\n    a, b = r\n    return a + b\n",
    "    r = pkg.pair()\n    for x in r:\n        print(x)\n    return r[0], len(r), [y for y in r], f(*r)\n",
    "    r = pkg.pair()\n",  # not used again
])
def test_a_named_result_only_unpacked_later_is_info(body: str) -> None:
    assert _result_severity("import pkg\n\n\ndef g():\n" + body) == [("RETURN_CHANGED", "info")]


@pytest.mark.parametrize("body", [
    "    r = pkg.pair()\n    a, b = r\n    r.append(3)\n",  # a list method
    "    r = pkg.pair()\n    a, b = r\n    return r + [3]\n",  # concatenated with a list
    "    r = pkg.pair()\n    r = [0]\n    a, b = r\n",  # bound again
    "    r = pkg.pair()\n    keep(r)\n",  # passed on
])
def test_a_named_result_used_otherwise_stays_an_error(body: str) -> None:
    assert _result_severity("import pkg\n\n\ndef g():\n" + body) == [("RETURN_CHANGED", "error")]


def test_the_same_name_in_another_function_is_not_this_result() -> None:
    src = "import pkg\n\n\ndef g():\n    r = pkg.pair()\n    a, b = r\n\n\ndef h(r):\n    r.append(1)\n"
    assert _result_severity(src) == [("RETURN_CHANGED", "info")]


def test_one_getattr_reader_per_module_file_answers_every_name(tmp_path: Path, monkeypatch) -> None:
    root = write(tmp_path, {"gpkg/__init__.py": '''
        import warnings

        _removed = {"Inf": "Use inf.", "NaN": "Use nan."}


        def isclose(a, b):
            return a == b


        def __getattr__(attr):
            if attr in _removed:
                raise AttributeError(f"`gpkg.{attr}` was removed. {_removed[attr]}")
            if attr == "close":
                warnings.warn("gpkg.close is deprecated", DeprecationWarning)
                return isclose
            raise AttributeError(f"module 'gpkg' has no attribute {attr!r}")
        '''})
    made = []
    real = aliases.GetattrReader

    class Counting(real):
        def __init__(self, *a, **k):
            made.append(a[1])
            super().__init__(*a, **k)

    monkeypatch.setattr(api, "GetattrReader", Counting)
    m = UpstreamModel([root], ["gpkg"])
    # each answer as when asked alone, whatever was asked before (the reader keeps tables, not answers)
    for _ in range(2):
        assert m.status("gpkg.Inf") == "removed:`gpkg.Inf` was removed. Use inf."
        assert m.status("gpkg.close") == "found" and m.served["gpkg.close"].warning == "gpkg.close is deprecated"
        assert m.status("gpkg.ghost") == "gone:module 'gpkg' has no attribute 'ghost'"
        assert m.status("gpkg.NaN") == "removed:`gpkg.NaN` was removed. Use nan."
    assert made == ["gpkg"]


PROJECT = {
    "app/__init__.py": "",
    "app/imports.py": "import os\nimport numpy as np\nimport scipy.ndimage\nfrom scipy.spatial import kdtree as _kd\n",
    "app/job.py": "from app.imports import *\n\nx = scipy.ndimage.filters.maximum_filter(1)\ny = np.where(x)\nk = _kd\n",
    "app/sub/__init__.py": "",
    "app/sub/rel.py": "from ..imports import *\n\nz = np.ones(2)\n",
    # __all__ limits what * brings: np is not exported here
    "app/limited.py": "import numpy as np\n__all__ = ['helper']\n\n\ndef helper():\n    return 1\n",
    "app/uses_limited.py": "from app.limited import *\n\nw = np.zeros(1)\n",
    # an import in the file itself wins over what the * import brings
    "app/own.py": "from app.imports import *\nimport mynp as np\n\nv = np.ones(1)\n",
}


def _uses(package: str) -> set[tuple[str, int, str, str]]:
    src = {k: (v, ast.parse(v)) for k, v in PROJECT.items()}
    return {(u.file, u.line, u.kind, u.target) for u in find_uses(src, [package])}


def test_a_project_star_import_brings_the_upstream_names_its_module_imports() -> None:
    scipy = _uses("scipy")
    assert ("app/job.py", 3, CALL, "scipy.ndimage.filters.maximum_filter") in scipy
    assert not any(f == "app/job.py" and "spatial" in t for f, _, _, t in scipy)  # `_kd` is private: not brought
    numpy = _uses("numpy")
    assert ("app/job.py", 4, CALL, "numpy.where") in numpy
    assert ("app/sub/rel.py", 3, CALL, "numpy.ones") in numpy  # a relative star import
    assert not any(f in ("app/uses_limited.py", "app/own.py") for f, *_ in numpy)


LAZY = {
    "skpkg/__init__.py": '''
        import lazy_loader as lazy

        _subs = ["filters"]

        __getattr__, __dir__, __all__ = lazy.attach(
            __name__,
            submodules=_subs,
            submod_attrs={"util": ["img_as_float"], "_shared": ["lookfor"]},
        )
        ''',
    "skpkg/filters.py": "def gaussian(image, sigma=1):\n    return image\n",
    "skpkg/util.py": "def img_as_float(image, force_copy=False):\n    return image\n",
    "skpkg/_shared.py": "def lookfor(what):\n    return what\n",
    "stubpkg/__init__.py": '''
        import lazy_loader as lazy

        __getattr__, __dir__, __all__ = lazy.attach_stub(__name__, __file__)
        ''',
    "stubpkg/__init__.pyi": "from . import measure\nfrom ._api import label\n",
    "stubpkg/measure.py": "def area(x):\n    return x\n",
    "stubpkg/_api.py": "def label(x, connectivity=None):\n    return x\n",
    "badpkg/__init__.py": '''
        import lazy_loader as lazy

        __getattr__, __dir__, __all__ = lazy.attach(__name__, submodules=compute())
        ''',
}


@pytest.mark.parametrize("lazy_load", [False, True])
def test_lazy_loader_attach_is_a_lazy_table(tmp_path: Path, lazy_load: bool) -> None:
    from upgrade_checklists.audit.lazy_model import LazyModel

    root = write(tmp_path, LAZY)
    m = (LazyModel if lazy_load else UpstreamModel)([root], ["skpkg", "badpkg"])
    assert m.canonical("skpkg.img_as_float") == "skpkg.util.img_as_float"
    assert m.canonical("skpkg.lookfor") == "skpkg._shared.lookfor"
    assert m.canonical("skpkg.filters.gaussian") == "skpkg.filters.gaussian"
    assert [p.name for p in m.lookup("skpkg.img_as_float").signature.params] == ["image", "force_copy"]
    assert m.status("skpkg.ghost") == "gone:No skpkg attribute ghost"
    assert m.status("badpkg.anything").startswith("unknown:")


def test_lazy_loader_attach_stub_reads_the_stub(tmp_path: Path) -> None:
    root = write(tmp_path, LAZY)
    m = UpstreamModel([root], ["stubpkg"])
    assert m.canonical("stubpkg.label") == "stubpkg._api.label"
    assert m.canonical("stubpkg.measure.area") == "stubpkg.measure.area"
    assert m.status("stubpkg.ghost") == "gone:No stubpkg attribute ghost"


def test_an_upstream_star_import_in_the_project_guesses_bare_names() -> None:
    src = ("from scipy.ndimage import *\nimport os\n\n\ndef f(img, size):\n    local = 1\n"
           "    out = maximum_filter(img, size)\n    return len(out) + local + helper(out)\n\n\ndef helper(x):\n    return x\n")
    uses = find_uses({"app/a.py": (src, ast.parse(src))}, ["scipy"])
    calls = {(u.target, u.star) for u in uses if u.kind == CALL}
    # maximum_filter is free in the file: a guess from the star import; len is a builtin, helper and
    # local are the file's own
    assert calls == {("scipy.ndimage.maximum_filter", "scipy.ndimage.maximum_filter")}


def test_a_guessed_star_name_is_kept_only_where_the_old_version_has_it(tmp_path: Path) -> None:
    from upgrade_checklists.audit.bind import bind_uses

    root = write(tmp_path, {"spk/__init__.py": "", "spk/nd.py": "def maximum_filter(a, size=3):\n    return a\n"})
    model = UpstreamModel([root], ["spk"])
    src = "from spk.nd import *\n\nx = maximum_filter(1, 2, 3)\ny = not_there(1)\n"
    uses = find_uses({"app/a.py": (src, ast.parse(src))}, ["spk"])
    assert {u.target for u in uses if u.kind == CALL} == {"spk.nd.maximum_filter", "spk.nd.not_there"}
    bound = bind_uses(uses, model, model, "2")
    targets = {b.use.target for b in bound}
    assert "spk.nd.not_there" not in targets  # not spk's: no use, no UNRESOLVED noise
    (b,) = [b for b in bound if b.use.kind == CALL]
    assert [p[0] for p in b.problems] == ["REMOVED_PARAM"] and b.problems[0][1] == "info"  # 3 positional at both
