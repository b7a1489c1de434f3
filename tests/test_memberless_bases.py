"""A base from the standard library that gives a class no member (``abc.ABC``, like ``object``,
``typing.Generic``, ``typing.Protocol``) leaves the class's members known: a member gone from the
loaded source is gone, not "inherited from a base not followed". Another standard-library base
(``collections.OrderedDict``) is this interpreter's own class: what it lacks is known too.

The fixture upstream ``fakepkg-node`` (a local git repository, two tagged releases): ``Folder``
(on ``Node(abc.ABC)``) loses its ``obj`` property at 2.0.0, as pytest 8's ``Package`` lost the
one ``Module`` gave it; ``Table`` (on ``OrderedDict``) loses ``legacy``."""

from __future__ import annotations

from pathlib import Path

from upstream import fixture_checklist, app_findings, tagged_upstream, upgrade_audit

NODE_V1 = {
    "fakepkg/node/__init__.py": "from fakepkg.node.core import Folder, Table\nfrom fakepkg.node.testing import Case\n",
    "fakepkg/node/testing.py": "import unittest\n\n\nclass Case(unittest.TestCase):\n    pass\n",
    "fakepkg/node/core.py": '''
        import abc
        import collections


        class Node(abc.ABC):
            def __init__(self, path):
                self.path = path


        class Folder(Node):
            @property
            def obj(self):
                return self.path


        class Table(collections.OrderedDict):
            def legacy(self):
                return None
        ''',
}
NODE_V2 = {
    **NODE_V1,
    "fakepkg/node/core.py": '''
        import abc
        import collections


        class Node(abc.ABC):
            def __init__(self, path):
                self.path = path


        class Folder(Node):
            pass


        class Table(collections.OrderedDict):
            pass
        ''',
}
# line numbers matter: the assertions name them
APP_PY = '''\
from fakepkg.node import Folder, Table


def collect(folder: Folder, table: Table):
    folder.path.upper()
    table.legacy()
    return folder.obj
'''
CHECKLIST = fixture_checklist("fakepkg-node", "fakepkg/node/", ["fakepkg.node"], {"app/collect.py": "`Folder`, `Table`"})


def test_a_member_gone_from_a_class_on_abc_is_removed(tmp_path: Path, capsys) -> None:
    ups = tagged_upstream(tmp_path / "ups", "fakepkg-node", [("1.0.0", NODE_V1), ("2.0.0", NODE_V2)])
    r = upgrade_audit(tmp_path / "project", capsys, "fakepkg-node", ups, {
        "app/__init__.py": "", "app/collect.py": APP_PY, "checklists/fakepkg-node.md": CHECKLIST})
    got = {(w, c): m for w, c, m in app_findings(r)}
    assert [k for k in got if k[0] == "app/collect.py:5"] == []  # path: set by Node's __init__, at both
    # Table's OrderedDict is the standard library's: this interpreter's class says it has no `legacy`, so it is gone
    assert got[("app/collect.py:6", "REMOVED_API")].startswith("`fakepkg.node.core.Table.legacy` (defined at fakepkg/node/core.py:")
    # Folder's abc.ABC brings no member: obj is gone
    assert got[("app/collect.py:7", "REMOVED_API")].startswith("`fakepkg.node.core.Folder.obj` (defined at fakepkg/node/core.py:")
    assert r.code == 1


def test_members_a_standard_library_base_has_are_known(tmp_path: Path, capsys) -> None:
    """A project test case on upstream's ``Case`` (on ``unittest.TestCase``) calls ``self.assertEqual``:
    the standard library's, which no upgrade of the package changes: checked, not unknown."""
    ups = tagged_upstream(tmp_path / "ups", "fakepkg-node", [("1.0.0", NODE_V1), ("2.0.0", NODE_V2)])
    app = ("from fakepkg.node import Case\n\n\nclass MyCase(Case):\n    def test_it(self):\n"
           "        self.assertEqual(1, 1)\n        self.assertNothing()\n")
    r = upgrade_audit(tmp_path / "project", capsys, "fakepkg-node", ups, {
        "app/__init__.py": "", "app/collect.py": app, "checklists/fakepkg-node.md": CHECKLIST.replace("`Folder`, `Table`", "`Case`")})
    coverage = next(line for line in r.lines if line.startswith("Coverage, "))
    # assertEqual: TestCase's; assertNothing: nobody's (set at run time, or a mistake): not found
    assert "2 uses found, 1 checked, 1 unknown (1 not found in the loaded upstream source)" in coverage, coverage


def test_a_standard_library_class_is_answered_by_this_interpreters_own() -> None:
    from upgrade_checklists.audit.stdlib import stdlib_class, stdlib_has, stdlib_mro

    import collections
    import unittest

    assert stdlib_class("unittest.case.TestCase") is unittest.TestCase  # by the module that defines it, or its package
    assert stdlib_class("collections.OrderedDict") is collections.OrderedDict
    assert stdlib_has("unittest.TestCase", "assertEqual") is True
    assert stdlib_has("collections.OrderedDict", "legacy") is False
    assert stdlib_mro("collections.OrderedDict") == ["collections.OrderedDict", "dict", "object"]
    # only modules that define names when imported, and only classes: anything else is not known
    assert stdlib_class("antigravity.Geo") is None
    assert stdlib_class("os.system") is None
    assert stdlib_class("json.dumps") is None
    assert stdlib_class("fakepkg.node.Table") is None
    assert stdlib_has("this.Zen", "x") is None
    # a class that serves names on its instances (``__getattr__``) may have any: not known
    assert stdlib_has("unittest.mock.Mock", "anything") is None
