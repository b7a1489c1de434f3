"""The row-token grammar (``tokens.py``): each shape people write, parsed once and matched
against a small file's facts; and what must NOT match."""

from __future__ import annotations

import pickle

import pytest

from upgrade_checklists.project.scan import Facts, scan_file
from upgrade_checklists.core.tokens import RowToken, covers, matches, parse_cell, parse_token


def facts_of(source: str) -> Facts:
    out = scan_file("x.py", source.encode(), True)
    assert isinstance(out, Facts)
    return out


def live(cell: list[str], source: str) -> list[str]:
    """The raw tokens of ``cell`` that match ``source``."""
    f = facts_of(source)
    return [t.raw for t in parse_cell(cell) if matches(t, f, f.imports, None)]


def covered(cell: list[str], source: str) -> list[str]:
    """The qualified names of the imports in ``source`` that some token of ``cell`` covers."""
    f = facts_of(source)
    toks = parse_cell(cell)
    return [i.qualname for i in f.imports if any(covers(t, i, f) for t in toks)]


# --- parsing ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, kind, names",
    [
        ("from lib.core import Engine, make as mk", "import", ("lib.core.Engine", "lib.core.make")),
        ("import lib.tools, lib.io as lio", "import", ("lib.tools", "lib.io")),
        ("from lib.core import (Engine)", "import", ("lib.core.Engine",)),
        ("lib.models.{alpha, beta_two}", "code", ("lib.models.alpha", "lib.models.beta_two")),
        ("lib.{a,b}.run()", "code", ("lib.a.run", "lib.b.run")),
        ("@register_plugin", "code", ("register_plugin",)),
        ("Loader.fetch()", "code", ("Loader.fetch",)),
        ('"lib-core"', "string", ("lib-core",)),
        ("ENABLE_FAST_PATH=1", "keys", ("ENABLE_FAST_PATH",)),
        ('use_cache=True, depth=3, mode="fast"', "keys", ("use_cache", "depth", "mode")),
        ('{"rank": r, "alpha": a, "items": [...]}', "keys", ("rank", "alpha", "items")),
        ("Config.options: dict", "code", ("Config.options",)),
        ("helpers.py", "file", ()),
        ("pkg/sub/helpers.py", "file", ()),
        ("a, b.c", "code", ("a", "b.c")),
        ("x == 1", "code", ("x == 1",)),
    ],
)
def test_parse_token(raw: str, kind: str, names: tuple[str, ...]) -> None:
    assert parse_token(raw) == RowToken(raw, kind, names)


def test_leading_dot_continues_the_previous_qualified_token() -> None:
    toks = parse_cell(["store.save", ".load", "Other", ".close", "from lib.core import Engine", ".start"])
    assert [t.names for t in toks] == [
        ("store.save",), ("store.load",), ("Other",), ("store.close",), ("lib.core.Engine",), ("lib.core.Engine.start",),
    ]


def test_leading_dot_with_nothing_before_is_the_bare_name() -> None:
    assert parse_cell([".refresh"])[0].names == ("refresh",)


def test_parsed_cells_are_plain_data_that_pickle() -> None:
    toks = parse_cell(["lib.{a, b}", ".c"])
    assert pickle.loads(pickle.dumps(toks)) == toks


# --- matching -----------------------------------------------------------------------

SOURCE = '''\
import importlib
from lib.core.engine import Engine
from lib.core import tools as tl
from lib.layers.specs import build_spec
from other.adapters.lora import Adapter

ENV = {"ENABLE_FAST_PATH": "1"}


@tl.register_plugin
def run(bridge):
    bridge._name_map_local(1)
    bridge._name_map_global(2)
    Engine.start(use_cache=True)
    return build_spec()
'''


def test_import_statement_token_covers_its_import_only() -> None:
    assert covered(["from lib.core.engine import Engine"], SOURCE) == ["lib.core.engine.Engine"]
    assert live(["from lib.core.engine import Engine"], SOURCE) == ["from lib.core.engine import Engine"]


def test_import_statement_of_a_module_no_longer_imported_is_dead() -> None:
    assert live(["from lib.gone import Thing"], SOURCE) == []


def test_braces_expand_and_cover_each_name() -> None:
    src = "from lib.models.alpha import f\nfrom lib.models.beta import g\n"
    assert covered(["lib.models.{alpha.f, beta.g}"], src) == ["lib.models.alpha.f", "lib.models.beta.g"]


def test_glob_matches_names_in_the_code() -> None:
    assert live(["bridge._name_map_*"], SOURCE) == ["bridge._name_map_*"]
    assert live(["bridge._unrelated_*"], SOURCE) == []


def test_decorator_token_matches_the_decorator() -> None:
    assert live(["@register_plugin"], SOURCE) == ["@register_plugin"]


def test_leading_dot_token_matches_through_its_base() -> None:
    assert live(["bridge._name_map_local", "._name_map_global", ".missing_method"], SOURCE) == [
        "bridge._name_map_local", "._name_map_global",
    ]


def test_module_named_inside_an_import_path_covers_the_import() -> None:
    assert covered(["specs"], SOURCE) == ["lib.layers.specs.build_spec"]
    assert covered(["layers.specs"], SOURCE) == ["lib.layers.specs.build_spec"]


def test_a_partial_segment_is_not_a_module() -> None:
    assert covered(["spec"], SOURCE) == []
    assert covered(["ayers.specs"], SOURCE) == []


def test_keys_match_strings_and_keywords() -> None:
    assert live(["ENABLE_FAST_PATH=1"], SOURCE) == ["ENABLE_FAST_PATH=1"]
    assert live(["use_cache=False, depth=2"], SOURCE) == ["use_cache=False, depth=2"]
    assert live(["NOT_SET_ANYWHERE=1"], SOURCE) == []


def test_keys_never_cover_an_import() -> None:
    assert covered(["Engine=1"], SOURCE) == []


def test_another_packages_api_matches_an_indirect_user() -> None:
    assert live(["other.adapters.lora"], SOURCE) == ["other.adapters.lora"]


def test_file_name_token_is_not_compared() -> None:
    tok = parse_token("engine_helpers.py")
    assert not tok.compared
    assert covered(["engine.py"], SOURCE) == []


def test_fully_qualified_token_covers_the_attribute_use_equal_to_it() -> None:
    src = "from lib import core\n\ncore.setup_seed(1)\n"
    assert covered(["lib.core.setup_seed"], src) == ["lib.core"]
    assert covered(["lib.core.other_function"], src) == []
    src = "import lib\n\nlib.core.setup_seed(1)\n"
    assert covered(["lib.core.setup_seed"], src) == ["lib"]


def test_class_token_covers_the_import_of_its_module() -> None:
    src = 'import pytest\nparser_mod = pytest.importorskip("lib.calls.call_parser")\n'
    assert covered(["CallParser"], src) == ["lib.calls.call_parser"]
    assert covered(["Parser"], src) == []


def test_quoted_string_matches_the_literal_not_a_name() -> None:
    src = 'NAMES = {"lib-core": "lib.core"}\nlib_core = 1\n'
    assert live(['"lib-core"', '"lib_core"'], src) == ['"lib-core"']


def test_plain_text_file_matches_by_substring() -> None:
    tok = parse_cell(["lib.core", "ENABLE_X=1"])
    assert [matches(t, None, [], "uses lib.core and ENABLE_X") for t in tok] == [True, True]
    assert matches(tok[0], None, [], "nothing here") is False


def test_key_format_with_a_placeholder_matches_the_fragments_the_code_uses() -> None:
    src = 'def parse(key):\n    key = key.replace("base.model.", "")\n    return key.endswith(".adapter_A.weight")\n'
    assert live(["base.model.layers.N.q_proj.adapter_A.weight"], src) == ["base.model.layers.N.q_proj.adapter_A.weight"]
    # without a placeholder it is a name path, not a format; and fragments must be in the format
    assert live(["base.model.layers.q_proj.adapter_B.bias"], src) == []
    assert live(["other.layers.N.weight_B"], src) == []
