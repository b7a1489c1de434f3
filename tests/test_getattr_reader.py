"""A module's ``__getattr__`` and lazy tables, run statically for one name (``aliases.GetattrReader``):
each shape the issue names, in small modules written for the test, and what it cannot decide."""

from __future__ import annotations

import ast
import textwrap

import pytest

from upgrade_checklists.audit.aliases import GetattrReader, Gone, Served, Undecided


def reader(src: str, modname: str = "pkg", others: dict[str, str] | None = None) -> GetattrReader:
    trees = {k: ast.parse(textwrap.dedent(v)) for k, v in (others or {}).items()}
    return GetattrReader(ast.parse(textwrap.dedent(src)), modname, True, trees.get)


REMOVALS = '''
    import warnings

    from ._gone import _removed

    _kinds = [("float", "a message built at run time"), ("int", None)]
    _former = {n: str(m) for n, m in _kinds}


    def __getattr__(attr):
        if attr in _former:
            raise AttributeError(_former[attr])
        if attr in _removed:
            raise AttributeError(f"`pkg.{attr}` is gone. {_removed[attr]}")
        if attr == "chararray":
            warnings.warn("`pkg.chararray` is deprecated", DeprecationWarning)
            from .char import chararray
            return chararray
        raise AttributeError("module {!r} has no attribute {!r}".format(__name__, attr))
    '''
GONE = {"pkg._gone": '_removed = {"Inf": "Use `pkg.inf`.", "NaN": "Use `pkg.nan`."}\n'}


def test_a_table_of_removed_names_imported_from_a_sibling_module_gives_its_message() -> None:
    r = reader(REMOVALS, others=GONE)
    assert r.run("Inf") == Gone(True, "`pkg.Inf` is gone. Use `pkg.inf`.", 14)


def test_a_table_built_by_a_comprehension_is_read_by_its_keys() -> None:
    got = reader(REMOVALS, others=GONE).run("float")
    assert isinstance(got, Gone) and got.removed  # its message is built at run time: not known, but refused by name


def test_a_deprecated_name_is_served_with_its_warning_and_target() -> None:
    assert reader(REMOVALS, others=GONE).run("chararray") == Served(("pkg.char.chararray",), "module __getattr__", 18,
                                                                 "`pkg.chararray` is deprecated")


def test_any_other_name_falls_through_to_a_refusal_that_does_not_name_it() -> None:
    got = reader(REMOVALS, others=GONE).run("mode")
    assert isinstance(got, Gone) and not got.removed


def test_a_shim_serving_its_all_with_a_warning() -> None:
    src = '''
        import warnings
        from . import _impl

        __all__ = ["f", "g"]


        def __getattr__(name):
            if name not in __all__:
                raise AttributeError(f"pkg.old has no {name}")
            warnings.warn(f"use pkg.{name}, not pkg.old.{name}", category=DeprecationWarning)
            return getattr(_impl, name)
        '''
    r = reader(src, "pkg.old")
    assert r.run("g") == Served(("pkg.old._impl.g",), "module __getattr__", 12, "use pkg.g, not pkg.old.g")
    assert r.run("h") == Gone(False, "pkg.old has no h", 10)


def test_a_lazy_table_grown_at_module_level_serves_from_its_submodule() -> None:
    src = '''
        import sys
        from .utils import Lazy

        _structure = {"models": ["Model"], "tools": []}
        _structure["tools"].extend(["Tool", "Hammer"])
        _structure["extra"] = ["Extra"]

        sys.modules[__name__] = Lazy(__name__, __file__, _structure)
        '''
    r = reader(src)
    assert r.run("Hammer").targets == ("pkg.tools.Hammer",)
    assert r.run("Extra").targets == ("pkg.extra.Extra",)
    assert r.run("models").targets == ("pkg.models",)  # a submodule by its key
    assert isinstance(r.run("Nope"), Gone)


def test_a_lazy_submodule_loader() -> None:
    src = '''
        import importlib

        _submodules = {"io", "stats"}


        def __getattr__(name):
            if name in _submodules:
                return importlib.import_module(f"{__name__}.{name}")
            raise AttributeError(name)
        '''
    assert reader(src).run("stats").targets == ("pkg.stats",)
    assert isinstance(reader(src).run("other"), Gone)


@pytest.mark.parametrize("body", [
    "if name in _computed():\n        return 1\n    raise AttributeError(name)",  # a table made by a call
    "for k in range(3):\n        pass\n    return 1",  # a loop: not followed
    "if len(name) > 3:\n        return 1\n    raise AttributeError(name)",  # a test that is not about the name's value
])
def test_what_cannot_be_decided_is_undecided_never_gone(body: str) -> None:
    src = f"def _computed():\n    return set()\n\n\ndef __getattr__(name):\n    {body}\n"
    with pytest.raises(Undecided):
        reader(src).run("x")


def test_a_lazy_table_made_at_run_time_is_undecided() -> None:
    src = "import sys\nfrom .u import Lazy, build\n_file = __file__\nsys.modules[__name__] = Lazy(__name__, _file, build(_file))\n"
    with pytest.raises(Undecided):
        reader(src).run("Anything")


RENAMES = '''
    import warnings

    from .shapes import Circle

    _renamed = {
        "Round": ("Circle", Circle),
        "Blank": None,
    }


    def __getattr__(attr):
        hit = _renamed.get(attr)
        if hit:
            warnings.warn(f"`pkg.{attr}` is now `pkg.{hit[0]}`", DeprecationWarning)
            return hit[1]
        raise AttributeError(f"module 'pkg' has no attribute '{attr}'")
    '''


def test_a_name_found_by_a_get_on_a_table_of_renames_is_served_with_its_warning() -> None:
    got = reader(RENAMES).run("Round")
    assert isinstance(got, Served) and got.line == 16 and got.warning == "`pkg.Round` is now `pkg.{hit[0]}`"


def test_a_name_the_table_lacks_or_maps_to_nothing_falls_through_to_the_refusal() -> None:
    assert reader(RENAMES).run("Square") == Gone(False, "module 'pkg' has no attribute 'Square'", 17)
    assert isinstance(reader(RENAMES).run("Blank"), Gone)  # its entry is None: ``if hit`` is false


def test_a_get_tested_against_none_and_a_default_are_read_too() -> None:
    src = '''
        _moved = {"old": ("new",)}


        def __getattr__(name):
            where = _moved.get(name, ())
            if where is not None and where:
                return 1
            raise AttributeError(name)
        '''
    assert isinstance(reader(src).run("old"), Served)
    assert isinstance(reader(src).run("other"), Gone)  # the default ``()`` is not None, but empty


@pytest.mark.parametrize("table", [
    '_renamed = {"Round": _make()}',  # an entry whose truth is not spelt
    '_renamed = _build()',  # a table made by a call
])
def test_a_get_whose_value_cannot_be_told_is_undecided(table: str) -> None:
    src = f"{table}\n\n\ndef __getattr__(attr):\n    hit = _renamed.get(attr)\n    if hit:\n        return hit\n    raise AttributeError(attr)\n"
    with pytest.raises(Undecided):
        reader(src).run("Round")
