"""The scanner: bad source files are reported once and skipped, never fatal."""

from __future__ import annotations

import sys

from conftest import Repo
from upgrade_checklists.project.scan import scan_file
from upgrade_checklists.core.findings import Finding


def test_syntax_error_file_is_reported_once_and_skipped(repo: Repo) -> None:
    repo.write("app/utils/broken.py", "import fakepkg.core\n\ndef f(:\n    pass\n")
    r = repo.run("check")
    assert r.code == 1
    assert r.lines == ["app/utils/broken.py:3:1: PARSE syntax error in app/utils/broken.py: invalid syntax; file skipped"]


def test_syntax_error_in_unrelated_file_is_not_parsed(repo: Repo) -> None:
    repo.write("app/utils/broken.py", "def f(:\n    pass\n")
    assert repo.run("check").code == 0


def test_non_utf8_source_is_reported_with_its_line(repo: Repo) -> None:
    repo.write("app/utils/latin.py", b"import fakepkg.core\nNAME = '\xe9t\xe9'\n")
    r = repo.run("check", "--format", "json")
    assert r.code == 1
    assert r.json()["findings"] == [{
        "code": "PARSE", "checklist": None, "checklist_line": None, "file": "app/utils/latin.py", "line": 2,
        "package": None, "message": "cannot decode app/utils/latin.py: not valid utf-8 (byte 0xe9 at line 2); file skipped",
        "severity": "error", "fixable": False,
    }]


def test_declared_encoding_is_honoured(repo: Repo) -> None:
    repo.write("app/utils/latin.py", b"# -*- coding: latin-1 -*-\nimport fakepkg.core\nNAME = '\xe9t\xe9'\n")
    assert repo.run("check").codes == ["MISSING"]


def test_newer_syntax_falls_back_to_libcst() -> None:
    # PEP 695 (3.12) syntax: the 3.10/3.11 ast cannot parse it, libcst can.
    src = b"from fakepkg.core import x as y\ntype Alias = list[int]\ndef f[T](a: T) -> T:\n    '''from fakepkg.core import z'''\n    return y.run(a, 'lit')\n"
    facts = scan_file("m.py", src, full=True)
    assert not isinstance(facts, Finding)
    assert [(i.qualname, i.bound, i.line) for i in facts.imports] == [("fakepkg.core.x", "y", 1)]
    assert facts.attributes == {"fakepkg.core.x.run": 5}
    assert "lit" in facts.strings and "from fakepkg.core import z" not in facts.strings
    if sys.version_info < (3, 12):
        import ast
        try:
            ast.parse(src)
        except SyntaxError:
            pass
        else:  # pragma: no cover
            raise AssertionError("this Python's ast parses PEP 695: the fallback was not exercised")


def test_facts_exclude_docstrings_and_collect_attribute_uses() -> None:
    src = b'"""mod doc"""\nimport fakepkg.core as fc\nclass A:\n    """class doc"""\n    def m(self, arg):\n        return fc.sub.call(arg, key="/generate")\n'
    facts = scan_file("m.py", src, full=True)
    assert facts.strings == {"/generate"}
    assert facts.attributes == {"fakepkg.core.sub.call": 6, "fakepkg.core.sub": 6}
    assert {"A", "m", "arg", "key", "call", "sub", "fc"} <= facts.names



def test_names_in_every_kind_of_node_are_collected() -> None:
    """The walk skips the fields that hold no node (names, flags, operators): none that does."""
    src = (b"import fakepkg.core as fc\n"
           b"def f(a, *, b=fc.DEFAULT, **kw) -> fc.Ret:\n"
           b"    global shared\n"
           b"    match a:\n"
           b"        case fc.Point(x=px, y=[py, *rest]) if px > limit:\n"
           b"            return f'{value!r:>{width}}'\n"
           b"        case {'key': fc.KEY, **others}:\n"
           b"            pass\n"
           b"    with open(path) as fh, ctx() as (c1, c2):\n"
           b"        pass\n"
           b"    try:\n"
           b"        total = [e.item for e in seq if e.ok] + [-neg, not flag]\n"
           b"    except fc.Error as err:\n"
           b"        raise Wrapped(err) from cause\n"
           b"    return lambda q: q.attr_of_lambda, (yield fc.gen_value), {k: v for k, v in pairs}\n")
    facts = scan_file("m.py", src, full=True)
    assert {"DEFAULT", "Ret", "Point", "limit", "value", "width", "KEY", "path", "ctx", "c1", "c2", "item", "seq",
            "ok", "neg", "flag", "Error", "Wrapped", "cause", "attr_of_lambda", "gen_value", "pairs", "open",
            "b", "kw", "q", "total"} <= facts.names
    assert {"fakepkg.core.DEFAULT", "fakepkg.core.Ret", "fakepkg.core.Point", "fakepkg.core.KEY",
            "fakepkg.core.Error", "fakepkg.core.gen_value"} <= set(facts.attributes)
    assert facts.strings == {"key", ">"}  # the format spec is a literal too

# --- dynamic imports ----------------------------------------------------------------

from upgrade_checklists.project.scan import Prefilter  # noqa: E402


def _dynamic(source: str, full: bool = False) -> list[tuple[str, str, int]]:
    facts = scan_file("x.py", source.encode(), full)
    assert not isinstance(facts, Finding)
    return [(i.qualname, i.bound, i.line) for i in facts.imports if i.dynamic]


def test_import_module_with_a_literal_is_an_import() -> None:
    src = 'import importlib\nmod = importlib.import_module("fakepkg.core.layers")\n'
    assert _dynamic(src) == [("fakepkg.core.layers", "mod", 2)]


def test_importorskip_and_dunder_import_are_imports() -> None:
    src = 'import pytest\npytest.importorskip("fakepkg.core")\nm = __import__("fakepkg")\n'
    assert _dynamic(src) == [("fakepkg.core", "fakepkg.core", 2), ("fakepkg", "m", 3)]


def test_f_string_prefix_names_the_module() -> None:
    src = 'from importlib import import_module\n\ndef load(n):\n    return import_module(f"fakepkg.core.models.{n}.impl")\n'
    assert _dynamic(src) == [("fakepkg.core.models", "fakepkg.core.models", 4)]


def test_f_string_without_a_dotted_prefix_names_nothing() -> None:
    src = 'from importlib import import_module\nimport_module(f"{n}.core")\nimport_module(f"fakepkg{n}")\n'
    assert _dynamic(src) == []


def test_computed_argument_imports_the_dotted_strings_of_the_file() -> None:
    src = '''\
"""Docstring naming fakepkg.core.hidden is not an import."""
import importlib
TARGETS = ["fakepkg.core.alpha", "not a module", "plain"]

def load():
    for name in TARGETS:
        importlib.import_module(name)
'''
    assert _dynamic(src) == [("fakepkg.core.alpha", "fakepkg.core.alpha", 3)]


def test_dotted_strings_without_a_dynamic_import_are_not_imports() -> None:
    assert _dynamic('TARGETS = ["fakepkg.core.alpha"]\nimport importlib\n') == []


def test_attribute_uses_through_a_dynamic_import_are_seen() -> None:
    src = 'import importlib\nmod = importlib.import_module("fakepkg.core")\nmod.save(1)\n'
    facts = scan_file("x.py", src.encode(), True)
    assert "fakepkg.core.save" in facts.attributes


def test_prefilter_passes_a_file_that_only_imports_dynamically() -> None:
    keep = Prefilter(["fakepkg.core"])
    assert keep(b'import importlib\nm = importlib.import_module(\n    "fakepkg.core"\n)\n')
    assert keep(b'import pytest\npytest.importorskip("fakepkg.core")\n')
    assert not keep(b'NAME = "fakepkg.core"\n')
    assert not keep(b'import importlib\nimportlib.import_module("otherpkg")\n')


def test_dynamic_import_is_missing_stale_and_changed_alike(repo: Repo) -> None:
    repo.write("app/utils/lazy.py", 'import importlib\n\nopt = importlib.import_module("fakepkg.core.optimizer")\n')
    r = repo.run("check")
    assert r.lines == [
        "checklists/fakepkg-core.md:17:1: MISSING `app/utils/lazy.py` imports `fakepkg.core.optimizer as opt` (dynamic import)"
        " but no tier lists it (belongs in Secondary) (app/utils/lazy.py:3)"
    ]
    # a listed test that only probes the package with importorskip is not stale
    repo.write("tests/test_core.py", 'import pytest\n\nds = pytest.importorskip("fakepkg.core.dist_checkpointing")\nds.save({}, "x")\n')
    repo.remove("app/utils/lazy.py")
    assert repo.run("check").code == 0
    # ...and an uncovered dynamic import is CHANGED
    repo.write("tests/test_core.py", 'import pytest\n\npytest.importorskip("fakepkg.core.mpu")\n\ndef test_save(dist_checkpointing):\n    dist_checkpointing.save()\n')
    assert repo.run("check").lines == [
        "checklists/fakepkg-core.md:26:1: CHANGED [warning] `tests/test_core.py` imports `fakepkg.core.mpu` (dynamic import), not in its row (tests/test_core.py:3)"
    ]


def test_sources_from_a_whole_repository_listing_are_those_git_lists_below_the_roots(repo) -> None:
    from upgrade_checklists.core import gitfiles
    from upgrade_checklists.project.scan import iter_sources

    repo.write("apps/x.py", "import os\n")  # shares a prefix with app/, not below it
    repo.write("tests/sub/t.py", "import os\n")
    expected = ["app/__init__.py", "app/engine/__init__.py", "app/engine/core.py", "app/tools/__init__.py",
                "app/tools/names.py", "app/utils/__init__.py", "app/utils/other.py", "tests/sub/t.py", "tests/test_core.py"]
    listing = gitfiles.project_files(repo.path, ["."])
    assert iter_sources(repo.path, ["app", "./tests/"], [], listing) == expected
    assert iter_sources(repo.path, ["app", "./tests/"], []) == expected
