"""Receivers typed by a project's own class-level declarations, class objects (``type[pkg.Cls]``) and
conditional expressions narrowed by ``isinstance`` (``receivers.py``, ``uses._SelfAttrs``).

The shape follows a schema registry: a project subclass of an upstream schema class declares a mapping
from names to schema classes or instances, looks one up, makes an instance when it holds a class, and
uses a member of the instance that a later upstream release removes."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from upstream import app_findings, audited_project, project_pyproject, tagged_upstream
from upgrade_checklists.project.uses import ANNOTATED, TYPED, find_uses


def _sized(src: str) -> list[tuple[int, str, tuple[str, ...]]]:
    """(line, target, steps) of each ANNOTATED / TYPED use of ``size`` in ``src`` (upstream ``pkg``)."""
    uses = find_uses({"app/m.py": (src, ast.parse(src))}, ["pkg"])
    return sorted((u.line, u.target, u.steps) for u in uses if u.kind in (ANNOTATED, TYPED) and u.member == "size")


HEAD = "import typing\nfrom typing import Type\nimport pkg\n\n"


@pytest.mark.parametrize("body, line", [
    # a. a class-level declaration of the project class
    ("class A(pkg.Base):\n    x: pkg.Thing\n    def f(self):\n        return self.x.size\n", 8),
    # a. ... of a project base of it
    ("class B(pkg.Base):\n    x: 'pkg.Thing'\n\nclass A(B):\n    def f(self):\n        return self.x.size\n", 10),
    # a. ``self.x: T = ...`` in a method
    ("class A(pkg.Base):\n    def __init__(self):\n        self.x: pkg.Thing = make()\n"
     "    def f(self):\n        return self.x.size\n", 9),
    # a. + b. a generic: an item, ``.get``
    ("class A(pkg.Base):\n    x: dict[str, pkg.Thing] = {}\n    def f(self, k):\n        return self.x[k].size\n", 8),
    ("class A(pkg.Base):\n    x: typing.Mapping[str, pkg.Thing] = {}\n    def f(self, k):\n"
     "        t = self.x.get(k)\n        return t.size\n", 9),
    # a. ``ClassVar[T]``
    ("class A(pkg.Base):\n    x: typing.ClassVar[pkg.Thing]\n    def f(self):\n        return self.x.size\n", 8),
    # c. calling a class object: a local one, one declared on the class
    ("def f(c: type[pkg.Thing]):\n    obj = c()\n    return obj.size\n", 7),
    ("def f(c: Type[pkg.Thing]):\n    return c().size\n", 6),
    ("class A(pkg.Base):\n    x: type[pkg.Thing]\n    def f(self):\n        return self.x().size\n", 8),
    # d. the true arm narrowed, the false arm the union's other arm called: both a Thing
    ("def f(t: type[pkg.Thing] | pkg.Thing):\n    s = t if isinstance(t, pkg.Thing) else t()\n    return s.size\n", 7),
    # d. no isinstance: both arms already the same class
    ("def f(a: pkg.Thing, b: pkg.Thing, c):\n    return (a if c else b).size\n", 6),
    # the whole chain: a class-level mapping of classes or instances, looked up, made an instance
    ("class A(pkg.Base):\n    schemas: typing.Mapping[str, type[pkg.Thing] | pkg.Thing] = {}\n"
     "    def f(self, k):\n        ts = self.schemas.get(k)\n        if not ts:\n            return None\n"
     "        s = ts if isinstance(ts, pkg.Thing) else ts()\n        return s.size\n", 12),
])
def test_declared_class_objects_and_conditionals_type_a_receiver(body: str, line: int) -> None:
    assert _sized(HEAD + body) == [(line, "pkg.Thing", ())]


@pytest.mark.parametrize("body", [
    # a. the project declares the attribute with a type of its own: not upstream's ``x`` either
    "class A(pkg.Base):\n    x: int = 0\n    def f(self):\n        return self.x.size\n",
    "class A(pkg.Base):\n    x: 'Mine'\n    def f(self):\n        return self.x.size\n",
    # a. two project declarations that disagree
    "class B(pkg.Base):\n    x: pkg.Thing\n\nclass A(B):\n    x: pkg.Other\n    def f(self):\n        return self.x.size\n",
    # a. a class of the project with no upstream base (``self`` is not followed there)
    "class A:\n    x: pkg.Thing\n    def f(self):\n        return self.x.size\n",
    # b. a mapping whose values are not upstream's
    "class A(pkg.Base):\n    x: dict[str, int] = {}\n    def f(self, k):\n        return self.x.get(k).size\n",
    # c. a member of the class object itself, a class object of the project's, calling an instance
    "def f(c: type[pkg.Thing]):\n    return c.size\n",
    "def f(c: type[Mine]):\n    return c().size\n",
    "def f(c: pkg.Thing):\n    return c().size\n",
    # c. the union itself: a class or an instance, no member use of its own
    "def f(t: type[pkg.Thing] | pkg.Thing):\n    return t.size\n",
    # d. nothing left for the false arm (the name is a Thing already): unknown, not guessed
    "def f(t: pkg.Thing):\n    s = t if isinstance(t, pkg.Thing) else t()\n    return s.size\n",
    # d. narrowed to another class: the arms differ
    "def f(t: type[pkg.Thing] | pkg.Thing):\n    s = t if isinstance(t, pkg.Other) else t()\n    return s.size\n",
    # d. arms of different classes, or one unknown
    "def f(a: pkg.Thing, b: pkg.Other, c):\n    return (a if c else b).size\n",
    "def f(a: pkg.Thing, b, c):\n    return (a if c else b).size\n",
    # d. ``isinstance`` shadowed by the function
    "def f(t: type[pkg.Thing] | pkg.Thing, isinstance):\n    s = t if isinstance(t, pkg.Thing) else t()\n"
    "    return s.size\n",
])
def test_what_is_not_typed(body: str) -> None:
    assert _sized(HEAD + body) == []


# -- the audit, end to end ---------------------------------------------------------------------

SCHEMA_V1 = {
    "fakepkg/schema/__init__.py": "from fakepkg.schema.core import Schema\n",
    "fakepkg/schema/core.py": (
        "class Schema:\n"
        "    def __init__(self):\n"
        "        self.context = {}\n"
        "\n"
        "    def dump(self, obj):\n"
        "        return {}\n"),
}
SCHEMA_V2 = {**SCHEMA_V1, "fakepkg/schema/core.py": SCHEMA_V1["fakepkg/schema/core.py"].replace(
    "        self.context = {}\n", "        pass\n")}

# The comment on a line says what the audit must say there.
REGISTRY_PY = '''\
import typing

from fakepkg.schema import Schema


class Registry(Schema):
    kinds: typing.Mapping[str, type[Schema] | Schema] = {}

    def pick(self, name):
        kind = self.kinds.get(name)
        if not kind:
            return None
        schema = kind if isinstance(kind, Schema) else kind()
        schema.context.update({})  # REMOVED_API
        return schema.dump(name)

    def guess(self, name, other):
        schema = self.kinds.get(name) if other else other
        return schema.context  # unknown: one arm is not a Schema
'''

CHECKLIST = (
    "---\npackage: fakepkg-schema\ngithub: example/fakepkg-schema\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/schema/\nimport_names:\n  - fakepkg.schema\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/registry.py` | `Schema` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


def test_the_audit_finds_a_removed_member_on_a_declared_registry(tmp_path: Path, capsys) -> None:
    upstreams = tagged_upstream(tmp_path / "up", "fakepkg-schema", [("1.0.0", SCHEMA_V1), ("2.0.0", SCHEMA_V2)])
    project = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/registry.py": REGISTRY_PY, "checklists/fakepkg-schema.md": CHECKLIST,
        "pyproject.toml": project_pyproject("fakepkg-schema", upstreams, "1.0.0")})
    project.write("pyproject.toml", project_pyproject("fakepkg-schema", upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache))
    assert r.code == 1
    removed = [(where, code) for where, code, _m in app_findings(r) if code == "REMOVED_API"]
    assert removed == [("app/registry.py:14", "REMOVED_API")]
