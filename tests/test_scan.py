"""The scanner: bad source files are reported once and skipped, never fatal."""

from __future__ import annotations

import sys

from conftest import Repo
from upgrade_checklists.scan import scan_file
from upgrade_checklists.findings import Finding


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
