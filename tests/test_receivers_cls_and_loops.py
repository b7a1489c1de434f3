"""``cls.x`` in a class method of a project subclass of an upstream class is typed as ``self.x`` is
in its methods (the project class's declarations, else the upstream base's), and a ``for`` loop's
PEP 484 type comment types its names (``# type: T``; ``# type: A, B`` for two names).

The fixture upstream ``fakepkg-clsm`` (a local git repository, two tagged releases): between
them ``Item.grow`` gains a required ``by`` and ``Item.__init__`` no longer sets ``size``;
``Registry`` declares ``item: Item`` at class level at both."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import Repo
from upstream import app_findings, audited_project, project_pyproject, tagged_upstream
from upgrade_checklists.project.uses import ANNOTATED, TYPED, find_uses

CORE_V1 = '''
    class Item:
        def __init__(self):
            self.size = 1

        def grow(self):
            return self


    class Registry:
        item: Item

        def __init__(self):
            self.count = 0
    '''

V1 = {"fakepkg/clsm/__init__.py": "from fakepkg.clsm.core import Item, Registry\n", "fakepkg/clsm/core.py": CORE_V1}
V2 = {**V1, "fakepkg/clsm/core.py": CORE_V1.replace("            self.size = 1\n", "            pass\n")
      .replace("def grow(self):", "def grow(self, by):")}

# The comment on a line says what the audit must say there.
APP_PY = '''\
from typing import ClassVar, List

from fakepkg.clsm import Item, Registry


class Mine(Registry):
    spare: ClassVar[Item]
    mine: ClassVar[int] = 0

    @classmethod
    def build(cls):
        cls.item.grow()  # 12: NEW_REQUIRED_PARAM (upstream's class-level declaration)
        cls.spare.grow()  # 13: NEW_REQUIRED_PARAM (the project's ClassVar[Item])
        got = cls.spare
        got.size  # 15: REMOVED_API (a local name holding cls.spare)
        cls.mine.real  # 16: an int: no use
        return got

    @staticmethod
    def helper(cls):
        return cls.spare.size  # 21: a static method's first parameter is no class: no use


def loops(pairs, items, other):
    for a, b in pairs:  # type: Item, int
        a.grow()  # 26: NEW_REQUIRED_PARAM (the loop's type comment, pairwise)
        b.real  # 27: an int: no use
    for x in items:  # type: Item
        x.size  # 29: REMOVED_API
    for y in other:  # type: List[Item]
        y.grow  # 31: a list is no Item: no use of upstream
    for p, q in pairs:  # type: Item
        p.size  # 33: the comment does not match two names: not typed
    for z in items: z.size  # type: Item
'''

CHECKLIST = (
    "---\npackage: fakepkg-clsm\ngithub: example/fakepkg-clsm\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/clsm/\nimport_names:\n  - fakepkg.clsm\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/clsm.py` | `Registry` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


def _uses(src: str):
    return find_uses({"app/clsm.py": (src, ast.parse(src))}, ["fakepkg.clsm"])


def test_class_method_attributes_and_loop_comments_are_typed_uses() -> None:
    got = sorted((u.line, u.kind, u.member, u.steps) for u in _uses(APP_PY) if u.kind in (ANNOTATED, TYPED))
    reg, item = "fakepkg.clsm.Registry", "fakepkg.clsm.Item"
    assert got == [
        (12, TYPED, "grow", ()),  # upstream's declaration, as for ``self.item.grow()``
        (13, ANNOTATED, "grow", ()),
        (15, ANNOTATED, "size", ()),
        (26, ANNOTATED, "grow", ()),
        (29, ANNOTATED, "size", ()),
    ]
    targets = {u.line: u.target for u in _uses(APP_PY) if u.kind in (ANNOTATED, TYPED)}
    assert targets == {12: reg, 13: item, 15: item, 26: item, 29: item}


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("clsm-upstream"), "fakepkg-clsm", [("1.0.0", V1), ("2.0.0", V2)])


def test_the_audit_binds_class_method_attributes_and_loop_comments(tmp_path: Path, capsys, upstreams: Path) -> None:
    project: Repo = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/clsm.py": APP_PY, "checklists/fakepkg-clsm.md": CHECKLIST,
        "pyproject.toml": project_pyproject("fakepkg-clsm", upstreams, "1.0.0")})
    project.write("pyproject.toml", project_pyproject("fakepkg-clsm", upstreams, "2.0.0"))
    r = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    assert r.code == 1
    got = {(int(where.split(":")[1]), code) for where, code, _msg in app_findings(r)
           if code in ("REMOVED_API", "NEW_REQUIRED_PARAM")}
    assert got == {(12, "NEW_REQUIRED_PARAM"), (13, "NEW_REQUIRED_PARAM"), (15, "REMOVED_API"),
                   (26, "NEW_REQUIRED_PARAM"), (29, "REMOVED_API")}
    msgs = {where: m for where, code, m in app_findings(r)}
    assert msgs["app/clsm.py:29"] == ("`fakepkg.clsm.core.Item.size` (defined at fakepkg/clsm/core.py:3) was removed at 2.0.0 "
                                      "(`x` annotated `fakepkg.clsm.Item` in `loops`)")  # as an assignment's type comment says it
    assert msgs["app/clsm.py:13"] == ("`fakepkg.clsm.core.Item.grow`: `by` is required at 2.0.0 and this call does not pass it "
                                      "(`cls.spare` is `fakepkg.clsm.Item` in `build`)")
