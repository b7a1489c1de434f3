"""Calls the catalog records that the import scan does not explain (``audit/entries.py``): a
method's name called in a file an entry names is taken for a call of that method, but only in
the functions the entry's call sites name; and a method that is gone is said removed, not moved
to another class's method of the same name.

The fixture upstream ``fakepkg-tab`` (a local git repository, two tagged releases) has a
``Table`` with ``append`` at 1.0.0; 2.0.0 drops it (and ``Block.append``, another class's
method, exists at both)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from upstream import audited_project, project_pyproject, tagged_upstream
from upgrade_checklists.audit.entries import _recorded_functions
from upgrade_checklists.core.refs import CallSite

TAB_V1 = {
    "fakepkg/tab/__init__.py": "from fakepkg.tab.core import Table, Block\n",
    "fakepkg/tab/core.py": '''
        class Block:
            def append(self, item):
                return None


        class Table:
            def append(self, other, ignore_index=False):
                return self

            def copy(self):
                return self
        ''',
}
TAB_V2 = {
    **TAB_V1,
    "fakepkg/tab/core.py": '''
        class Block:
            def append(self, item):
                return None


        class Table:
            def copy(self):
                return self
        ''',
}
APP = '''\
import fakepkg.tab as ft


class MyTable(ft.Table):
    def append(self, *args, **kwargs):
        return ft.Table.append(self, *args, **kwargs)

    def grow(self, row):
        ids = []
        ids.append(row)
        return self.append(row)


def merge(a, b):
    return a.append(b)
'''
CHECKLIST = (
    "---\npackage: fakepkg-tab\ngithub: example/fakepkg-tab\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/tab/\nimport_names:\n  - fakepkg.tab\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/tab.py` | `Table` |\n\n### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n"
    "## API Usage Catalog\n\n### 1. `fakepkg.tab.Table.append`\n\n"
    "Called in `app/tab.py` (`MyTable.append`):\n\n```python\nreturn ft.Table.append(self, *args, **kwargs)\n```\n\n"
    "**Check:** still there.\n\n## Version-Guarded Code\n\n_None._\n"
)


def test_a_method_name_counts_only_in_the_functions_the_catalog_records(tmp_path: Path, capsys) -> None:
    ups = tagged_upstream(tmp_path / "ups", "fakepkg-tab", [("1.0.0", TAB_V1), ("2.0.0", TAB_V2)])
    project = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/tab.py": APP, "checklists/fakepkg-tab.md": CHECKLIST,
        "pyproject.toml": project_pyproject("fakepkg-tab", ups, "1.0.0")})
    project.write("pyproject.toml", project_pyproject("fakepkg-tab", ups, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "--format", "json")
    errors = sorted((f["line"], f["code"], f["message"]) for f in json.loads(r.out)["findings"]
                    if f["file"] == "app/tab.py" and f["severity"] == "error")
    # line 6, the recorded call, is the break: `Table.append` is gone (not "moved" to `Block.append`);
    # `ids.append(row)` (a list), `self.append(row)` (the project's own method) and `a.append(b)` in
    # `merge` (a function the catalog does not record, its receiver unknown) are not calls of it
    assert errors == [(6, "REMOVED_API", "`fakepkg.tab.Table.append` (`fakepkg.tab.core.Table.append`) was removed at 2.0.0")]
    assert r.code == 1


def _site(qualname: str | None) -> CallSite:
    return CallSite("app/tab.py", None, None, 1, qualname=qualname)


def test_the_functions_a_call_site_names() -> None:
    tree = ast.parse(APP)
    assert _recorded_functions(tree, [_site("MyTable.append")]) == [(5, 6)]
    assert _recorded_functions(tree, [_site("MyTable.grow"), _site("merge")]) == [(8, 11), (14, 15)]
    # a site that names no function (module level, by hand), or names one the file no longer
    # defines: the whole file, as before
    assert _recorded_functions(tree, [_site("MyTable.append"), _site(None)]) is None
    assert _recorded_functions(tree, [_site("Gone.method")]) is None
    assert _recorded_functions(tree, []) is None


# -- a called API whose signature is not read: said why, by what it is ----------------------------

SIG_V = {
    "fakepkg/sig/__init__.py": "from fakepkg.sig.core import Failed, marker\n",
    "fakepkg/sig/core.py": '''
        class Failed(Exception):
            pass


        class Marker:
            def __call__(self, fn):
                return fn


        marker = Marker()
        ''',
}
SIG_APP = "import fakepkg.sig as fs\n\n\ndef check():\n    fs.marker(check)\n    raise fs.Failed('no')\n"
SIG_CHECKLIST = (
    "---\npackage: fakepkg-sig\ngithub: example/fakepkg-sig\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/sig/\nimport_names:\n  - fakepkg.sig\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/sig.py` | `fakepkg.sig` |\n\n### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n"
    "## API Usage Catalog\n\n### 1. `fakepkg.sig.Failed`\n\nCalled in `app/sig.py` (`check`).\n\n"
    "### 2. `fakepkg.sig.marker`\n\nCalled in `app/sig.py` (`check`).\n\n## Version-Guarded Code\n\n_None._\n"
)


def test_a_called_api_without_a_signature_says_why_by_its_kind(tmp_path: Path, capsys) -> None:
    ups = tagged_upstream(tmp_path / "ups", "fakepkg-sig", [("1.0.0", SIG_V), ("2.0.0", SIG_V)])
    project = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/sig.py": SIG_APP, "checklists/fakepkg-sig.md": SIG_CHECKLIST,
        "pyproject.toml": project_pyproject("fakepkg-sig", ups, "1.0.0")})
    project.write("pyproject.toml", project_pyproject("fakepkg-sig", ups, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "--format", "json")
    said = sorted(f["message"] for f in json.loads(r.out)["findings"] if "not known statically (" in f["message"])
    # an exception class builds its instances with its builtin base's constructor; an instance is no function
    assert said == [
        "entry 1: signature of `fakepkg.sig.core.Failed` not known statically (no `__init__` or `__new__` in the loaded "
        "source: a base outside it, such as a builtin, builds it)",
        "entry 2: signature of `fakepkg.sig.core.marker` not known statically (a value (attribute), not a function or "
        "class: what calling it does is not read statically)",
    ]
    assert r.code == 0
