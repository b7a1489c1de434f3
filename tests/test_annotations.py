"""Annotations as types, compatibility aliases and deprecations, on small upstream trees."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from upgrade_checklists.audit.aliases import served
from upgrade_checklists.audit.annotations import normalize, short
from upgrade_checklists.audit.api import UpstreamModel
from upgrade_checklists.audit.deprecation import warning_in

from test_api import tree  # the same upstream tree writer


@pytest.fixture
def model(tmp_path: Path) -> UpstreamModel:
    tree(tmp_path, {
        "lib/__init__.py": """
            from lib.sub.thing import Thing
            """,
        "lib/sub/__init__.py": "",
        "lib/sub/thing.py": "class Thing: ...\n",
        "lib/a.py": """
            import typing as t
            import typing_extensions as te
            from collections.abc import Callable as C
            from datetime import datetime
            from typing import Dict, List, Optional, Union

            from lib import Thing

            def opt() -> t.Optional[datetime]: ...
            def union() -> Union[None, str, int]: ...
            def never() -> te.NoReturn: ...
            def lst() -> List[Dict[str, int]]: ...
            def call() -> C[[int], str]: ...
            def fwd() -> "Optional[Thing]": ...
            def none() -> None: ...
            def guard(x) -> bool: ...
            def is_thing(x) -> bool: ...
            """,
        "lib/b.py": """
            import typing
            import typing_extensions
            from collections.abc import Callable
            from datetime import datetime

            from lib.sub.thing import Thing

            def opt() -> datetime | None: ...
            def union() -> int | str | None: ...
            def never() -> typing.NoReturn: ...
            def lst() -> list[dict[str, int]]: ...
            def call() -> Callable[[int], str]: ...
            def fwd() -> Thing | None: ...
            def none() -> None: ...
            def guard(x) -> typing_extensions.TypeGuard[list[int]]: ...
            def is_thing(x) -> "typing.TypeIs[Thing]": ...
            """,
    })
    return UpstreamModel([tmp_path], ["lib"])


@pytest.mark.parametrize(("name", "expected"), [
    ("opt", "datetime.datetime | None"),
    ("union", "int | str | None"),
    ("never", "typing.NoReturn"),
    ("lst", "list[dict[str, int]]"),
    ("call", "typing.Callable[[int], str]"),
    ("fwd", "lib.sub.thing.Thing | None"),
    ("none", "None"),
    ("guard", "bool"),  # a TypeGuard / TypeIs function returns a bool at run time
    ("is_thing", "bool"),
])
def test_equal_types_spelled_differently_are_equal(model: UpstreamModel, name: str, expected: str) -> None:
    a, b = model.lookup(f"lib.a.{name}"), model.lookup(f"lib.b.{name}")
    assert a.signature.returns == expected
    assert b.signature.returns == expected


def test_different_types_stay_different_and_read_short() -> None:
    assert normalize("Optional[int]") != normalize("int")
    assert normalize("List[int]") != normalize("list[str]")
    assert short("lib.sub.thing.Thing | None") == "Thing | None"
    assert short("typing.Callable[[int], str]") == "Callable[[int], str]"
    assert normalize(None) is None
    assert normalize("TypeGuard[int]") == normalize("TypeIs[str]") == "bool"
    assert normalize("list[TypeGuard]") == "list[typing.TypeGuard]"  # the bare name is no call's return: kept


def src(text: str) -> ast.Module:
    return ast.parse(textwrap.dedent(text))


def test_served_by_a_legacy_alias_table_a_call_and_sys_modules() -> None:
    t = src("""
        import sys
        from pkg import new_mod
        ALIASES = {"old_mod": "new_mod", "other": []}
        _make_alias(f"{__name__}.older", ".newer")
        sys.modules[__name__ + ".oldest"] = new_mod
        """)
    assert served(t, "pkg", True, "old_mod").targets == ("pkg.new_mod", "new_mod")
    assert served(t, "pkg", True, "older").targets == ("pkg.newer",)
    got = served(t, "pkg", True, "oldest")
    assert (got.targets, got.via) == (("pkg.new_mod", "new_mod"), "sys.modules alias")
    assert served(t, "pkg", True, "other") is None  # a key with no target named
    assert served(t, "pkg", True, "missing") is None


def test_served_by_module_getattr_with_and_without_a_warning() -> None:
    t = src("""
        import importlib
        import warnings

        def __getattr__(name):
            if name == "__version__":
                warnings.warn("__version__ is deprecated", DeprecationWarning, stacklevel=2)
                return "1"
            if name in ("lazy", "other"):
                return importlib.import_module(".impl", __name__)
            raise AttributeError(name)
        """)
    v = served(t, "pkg", True, "__version__")
    assert (v.via, v.targets, v.warning) == ("module __getattr__", (), "__version__ is deprecated")
    lazy = served(t, "pkg", True, "lazy")
    assert (lazy.targets, lazy.warning) == (("pkg.impl",), None)
    assert served(t, "pkg", True, "nothing") is None


def test_module_getattr_name_resolves_and_is_deprecated(tmp_path: Path) -> None:
    tree(tmp_path, {
        "pkg/__init__.py": """
            import warnings
            def __getattr__(name):
                if name == "OldThing":
                    warnings.warn("use pkg.impl.NewThing", FutureWarning)
                    from pkg.impl import NewThing
                    return NewThing
                raise AttributeError(name)
            """,
        "pkg/impl.py": "class NewThing:\n    def __init__(self, a): ...\n",
    })
    m = UpstreamModel([tmp_path], ["pkg"])
    api = m.lookup("pkg.OldThing")
    assert (api.kind, api.path, [p.name for p in api.signature.params]) == ("class", "pkg.impl.NewThing", ["a"])
    assert m.deprecation(api, "pkg.OldThing") == "use pkg.impl.NewThing"
    assert m.lookup("pkg.Nothing") is None


_NOTES_WARN_BY_CLASS = """
    import warnings

    class KitDeprecation(DeprecationWarning):
        pass

    def note_move(module, name, new_home, *, when):
        if when == (3, 0):
            category = KitDeprecation
        else:
            category = FutureWarning
        text = f"{module}.{name} moved to {new_home}"
        warnings.warn(text, category, stacklevel=3)
    """


@pytest.mark.parametrize(("notes", "warning"), [
    ("def note_move(module, name, new_home, *, when): ...\n", None),  # the helper does not warn
    (_NOTES_WARN_BY_CLASS, "`kit.notes.note_move` gives a FutureWarning or KitDeprecation"),
    ('import warnings\ndef note_move(module, name, new_home, *, when):\n    warnings.warn("moved", DeprecationWarning)\n', "moved"),
    ('import warnings\ndef note_move(module, name, new_home, *, when):\n    warnings.warn("moved", UserWarning)\n', None),
    ('import warnings\ndef note_move(module, name, new_home, *, when):\n    if when:\n        warnings.warn("moved", DeprecationWarning)\n', None),
])
def test_module_getattr_unpacks_the_row_a_table_keeps_for_the_name(tmp_path: Path, notes: str, warning: str | None) -> None:
    # ``obj, new_home, when = TABLE[name]`` then ``return obj`` (Sphinx 8.1's sphinx.util): the row's
    # first element is what is served; a name with no row is refused by the test before it; the
    # helper it calls to warn (Sphinx's ``_deprecation_warning``) makes it a deprecation when the
    # helper itself warns with a deprecation category (a class of its module deriving from one too)
    tree(tmp_path, {
        "kit/__init__.py": "",
        "kit/faults.py": "class Fault(Exception):\n    def __init__(self, why, code=0): ...\n",
        "kit/helpers/__init__.py": """
            from kit.faults import Fault as _Fault

            _MOVED: dict = {
                "Fault": (_Fault, "kit.faults.Fault", (3, 0)),
            }

            def __getattr__(name):
                if name not in _MOVED:
                    raise AttributeError(name)
                from kit.notes import note_move
                obj, new_home, when = _MOVED[name]
                note_move(__name__, name, new_home, when=when)
                return obj
            """,
        "kit/notes.py": notes,
    })
    m = UpstreamModel([tmp_path], ["kit"])
    api = m.lookup("kit.helpers.Fault")
    assert (api.kind, api.path, [p.name for p in api.signature.params]) == ("class", "kit.faults.Fault", ["why", "code"])
    assert m.deprecation(api, "kit.helpers.Fault") == warning
    assert m.lookup("kit.helpers.Other") is None


@pytest.mark.parametrize(("body", "expected"), [
    ('warnings.warn("gone soon", DeprecationWarning)', "gone soon"),
    ('warn("x", category=PendingDeprecationWarning)', "x"),
    ('warnings.warn("not a deprecation", UserWarning)', None),
    ('if flag:\n    warnings.warn("about flag", DeprecationWarning)', None),
    ('if not _WARNED:\n    warnings.warn("once", FutureWarning)', "once"),
    ('def inner():\n    warnings.warn("later", DeprecationWarning)', None),
    ('warnings.warn("a " + "b", DeprecationWarning)', "a b"),
    ('warnings.warn("{} is old".format(x), DeprecationWarning)', "{} is old"),
])
def test_warning_in_a_body(body: str, expected: str | None) -> None:
    fn = src(f"def f(a, flag=False):\n{textwrap.indent(body, '    ')}\n").body[0]
    assert warning_in(fn.body, fn) == expected


def test_where_a_name_went_prefers_a_real_definition_over_a_placeholder(tmp_path: Path) -> None:
    tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/backends/__init__.py": "",  # sorts first: the placeholder must still come last
        "pkg/backends/dummy_tokenizers_objects.py": "class Fast(metaclass=DummyObject):\n    _backends = ['tokenizers']\n",
        "pkg/tokenization/__init__.py": "",
        "pkg/tokenization/fast.py": "class Fast:\n    def __init__(self, path): ...\n",
    })
    m = UpstreamModel([tmp_path], ["pkg"])
    assert m.by_name("Fast") == ["pkg.tokenization.fast.Fast", "pkg.backends.dummy_tokenizers_objects.Fast"]
