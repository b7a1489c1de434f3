"""Parameters typed by the project's own call sites (``project/callsites.py``): an unannotated parameter
takes the upstream type (or the string constants) every caller gives it; ``getattr`` / ``hasattr`` with a
known name read that attribute.

The shape follows a test plugin that hands a framework object it receives to its own helpers, which
iterate a list the framework declares and read attributes by names the callers pass as strings."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from upstream import app_findings, audited_project, project_pyproject, tagged_upstream
from upgrade_checklists.project.receivers import CALLERS, REBOUND
from upgrade_checklists.project.uses import ANNOTATED, find_uses

HEAD = "import copy\nimport functools\nimport pkg\n\n"


def _uses(src: str, other: str | None = None) -> list:
    files = {"app/m.py": (src, ast.parse(src))}
    if other is not None:
        files["app/other.py"] = (other, ast.parse(other))
    return [u for u in find_uses(files, ["pkg"]) if u.kind == ANNOTATED and u.file == "app/m.py"]


def _sized(src: str, other: str | None = None) -> list[tuple[int, str, tuple[str, ...]]]:
    """(line, target, steps) of each use of ``size`` (HEAD is 4 lines: a body's first line is 5)."""
    return sorted((u.line, u.target, u.steps) for u in _uses(HEAD + src, other) if u.member == "size")


THING = ("pkg.Thing", ())


@pytest.mark.parametrize("body, line", [
    # two callers agree (by position, by keyword)
    ("def use(t):\n    return t.size\n\ndef a(x: pkg.Thing):\n    use(x)\n\ndef b(y: pkg.Thing):\n    use(t=y)\n", 6),
    # a method called through ``self``
    ("class A:\n    def run(self, x: pkg.Thing):\n        return self.use(x)\n\n    def use(self, t):\n        return t.size\n", 10),
    # two levels: the callers' own parameter typed the same way
    ("def top(x: pkg.Thing):\n    outer(x)\n\ndef outer(t):\n    inner(t)\n\ndef inner(u):\n    return u.size\n", 12),
    # recursion: the recursive call hands on what it got (brings nothing else)
    ("def walk(t, n):\n    if n:\n        walk(t, n - 1)\n    return t.size\n\ndef top(x: pkg.Thing):\n    walk(x, 3)\n", 8),
    # a copy made by a helper whose own parameter its caller types, and returned unannotated
    ("def clone(t):\n    c = copy.copy(t)\n    return c\n\ndef use(t):\n    return t.size\n\n"
     "def top(x: pkg.Thing):\n    use(x)\n    use(clone(x))\n", 10),
])
def test_callers_type_a_parameter(body: str, line: int) -> None:
    assert _sized(body) == [(line, *THING)]


def test_an_element_of_what_the_callers_give() -> None:
    body = ("def top(b: pkg.Box):\n    each(b)\n\ndef each(box):\n    for item in box.items:\n        one(item)\n\n"
            "def one(it):\n    return it.size\n")
    assert _sized(body) == [(13, "pkg.Box", ("a:items", "iter"))]


@pytest.mark.parametrize("body", [
    # no caller at all
    "def use(t):\n    return t.size\n",
    # escapes: passed as a value, exported, decorated, called with *args
    "def use(t):\n    return t.size\n\ndef a(x: pkg.Thing):\n    use(x)\n\nHANDLERS = [use]\n",
    "__all__ = ['use']\n\ndef use(t):\n    return t.size\n\ndef a(x: pkg.Thing):\n    use(x)\n",
    "@functools.cache\ndef use(t):\n    return t.size\n\ndef a(x: pkg.Thing):\n    use(x)\n",
    "def use(t):\n    return t.size\n\ndef a(x: pkg.Thing, *rest):\n    use(x)\n    use(*rest)\n",
    # a method of a class with a base outside the project (another library may call it)
    "class A(dict):\n    def run(self, x: pkg.Thing):\n        return self.use(x)\n\n    def use(self, t):\n        return t.size\n",
    # a method reached otherwise than through ``self``
    "class A:\n    def run(self, x: pkg.Thing):\n        return self.use(x)\n\n    def use(self, t):\n        return t.size\n\n"
    "def b(a, y):\n    a.use(y)\n",
])
def test_no_agreement_no_type(body: str) -> None:
    assert [s for _l, _t, s in _sized(body) if s[:1] != (REBOUND,)] == []


@pytest.mark.parametrize("body, why", [
    # callers disagree: another value, a default left, a value of no known type
    ("def use(t):\n    return t.size\n\ndef a(x: pkg.Thing):\n    use(x)\n\ndef b():\n    use(1)\n", "disagree"),
    ("def use(t=None):\n    return t.size\n\ndef a(x: pkg.Thing):\n    use(x)\n    use()\n", "disagree"),
    ("def use(t):\n    return t.size\n\ndef a(x: pkg.Thing, y: pkg.Other):\n    use(x)\n    use(y)\n", "disagree"),
    # escapes, with an upstream object given: counted
    ("def use(t):\n    return t.size\n\ndef a(x: pkg.Thing):\n    use(x)\n\nHANDLERS = [use]\n", "escapes"),
])
def test_an_untyped_parameter_some_caller_gives_upstream_is_counted(body: str, why: str) -> None:
    assert _sized(body) == [(6, "pkg.Thing", (REBOUND, CALLERS + why))]


def test_a_function_named_in_another_file_escapes() -> None:
    body = "def use(t):\n    return t.size\n\ndef a(x: pkg.Thing):\n    use(x)\n"
    assert _sized(body) == [(6, *THING)]
    assert _sized(body, other="from app.m import use\n\nuse(3)\n") == [(6, "pkg.Thing", (REBOUND, CALLERS + "escapes"))]


def test_getattr_with_constants_reads_each_attribute() -> None:
    body = ("def read(t, name):\n    return getattr(t, name)\n\n"
            "def top(x: pkg.Thing):\n    read(x, 'size')\n    read(x, 'weight')\n"
            "    getattr(x, 'colour')\n    getattr(x, 'shade', None)\n    hasattr(x, 'mass')\n")
    got = sorted((u.line, u.member, u.guarded) for u in _uses(HEAD + body) if u.target == "pkg.Thing")
    assert got == [(6, "size", False), (6, "weight", False), (11, "colour", False), (12, "shade", True), (13, "mass", True)]
    read = next(u for u in _uses(HEAD + body) if u.line == 6 and u.member == "size")
    assert "typed by the 2 caller(s) of `read`" in read.via and "'size', 'weight'" in read.via


@pytest.mark.parametrize("body", [
    # a constant parameter that names no attribute read: nothing
    "def read(t, name):\n    return t.get(name)\n\ndef top(x: pkg.Thing):\n    read(x, 'size')\n",
    # constants and a computed name: the name is not known
    "def read(t, name):\n    return getattr(t, name)\n\ndef top(x: pkg.Thing, n):\n    read(x, 'size')\n    read(x, n)\n",
    # not an identifier, a shadowed getattr
    "def top(x: pkg.Thing):\n    return getattr(x, 'no such')\n",
    "def top(x: pkg.Thing, getattr):\n    return getattr(x, 'size')\n",
])
def test_getattr_names_not_known(body: str) -> None:
    assert [u.member for u in _uses(HEAD + body) if u.target == "pkg.Thing" and u.member in ("size", "no such")] == []


# -- the audit, end to end ---------------------------------------------------------------------

FRAME_V1 = {
    "fakepkg/frame/__init__.py": "from fakepkg.frame.core import Call, Meta\n",
    "fakepkg/frame/core.py": (
        "class Call:\n"
        "    def __init__(self):\n"
        "        self.params = {}\n"
        "        self.values = {}\n"
        "\n"
        "\n"
        "class Meta:\n"
        "    def __init__(self):\n"
        "        self.calls: list[Call] = []\n"),
}
FRAME_V2 = {**FRAME_V1, "fakepkg/frame/core.py": FRAME_V1["fakepkg/frame/core.py"].replace(
    "        self.values = {}\n", "")}

# The comment on a line says what the audit must say there.
PLUGIN_PY = '''\
from fakepkg.frame import Meta


def generate(meta: Meta):
    normalize(meta, "values")
    normalize(meta, "params")


def normalize(meta, kind):
    for call in meta.calls:
        check(call, kind)


def check(call, kind):
    keys = set(getattr(call, kind))  # REMOVED_API (values)
    if hasattr(call, "values"):  # info: guarded
        keys |= set(call.params)
    return keys, call.values  # REMOVED_API
'''

CHECKLIST = (
    "---\npackage: fakepkg-frame\ngithub: example/fakepkg-frame\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/frame/\nimport_names:\n  - fakepkg.frame\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/plugin.py` | `Meta` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


def test_the_audit_finds_removed_attributes_through_callers_and_getattr(tmp_path: Path, capsys) -> None:
    upstreams = tagged_upstream(tmp_path / "up", "fakepkg-frame", [("1.0.0", FRAME_V1), ("2.0.0", FRAME_V2)])
    project = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/plugin.py": PLUGIN_PY, "checklists/fakepkg-frame.md": CHECKLIST,
        "pyproject.toml": project_pyproject("fakepkg-frame", upstreams, "1.0.0")})
    project.write("pyproject.toml", project_pyproject("fakepkg-frame", upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert r.code == 1
    removed = [(where, code, msg) for where, code, msg in app_findings(r) if code == "REMOVED_API"]
    assert [w for w, _c, _m in removed] == ["app/plugin.py:15", "app/plugin.py:16", "app/plugin.py:18"]
    by_line = {w: m for w, _c, m in removed}
    assert "[info]" not in by_line["app/plugin.py:15"] and "Call.values" in by_line["app/plugin.py:15"]
    assert "typed by the 1 caller(s) of `check`" in by_line["app/plugin.py:15"]
    assert "[info]" in by_line["app/plugin.py:16"] and "handles its absence" in by_line["app/plugin.py:16"]
    assert "[info]" not in by_line["app/plugin.py:18"]
