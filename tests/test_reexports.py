"""A name another distribution re-exports the package under (``hostpkg.packages.corepkg`` standing for
``corepkg``, as requests does for urllib3): ``new`` lists it when the code imports it as the alternative
of the package's own name, and the audit warns, once, while a checklist leaves it out.

Fixture upstream ``fakepkg-core`` (top module ``corepkg``): ``corepkg.contrib.legacy`` is gone at 2.0.0.
``hostpkg`` stands for the distribution that re-exports it; ``otelish`` for one with a module of its own
named like the package. Neither is ever read."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from upstream import app_findings, audited_project, fixture_checklist, tagged_upstream, upgrade_audit
from upgrade_checklists.project.reexports import own_names, reexports

V1 = {
    "corepkg/__init__.py": "",
    "corepkg/fields.py": "def encode(value):\n    return value\n",
    "corepkg/contrib/__init__.py": "",
    "corepkg/contrib/legacy.py": "def fetch(url):\n    return url\n",
}
V2 = {"corepkg/contrib/legacy.py": None}  # removed

# line numbers matter: the assertions name them
COMPAT_PY = '''\
try:
    from hostpkg.packages.corepkg import fields
except ImportError:
    from corepkg import fields

try:
    from app.vendor.corepkg import encode
except ImportError:
    from corepkg.fields import encode

from otelish.instrumentation.corepkg import Instrumentor
'''
LEGACY_PY = "from hostpkg.packages.corepkg.contrib import legacy\n\nURL = legacy.fetch('u')\n"
PYPROJECT = '[project]\nname = "app"\nversion = "0"\n\n[tool.upgrade-checklists]\nroots = ["app", "tests"]\n'


def _project(tmp_path: Path, capsys, files: dict[str, str]):
    return audited_project(tmp_path / "project", capsys, {"app/__init__.py": "", "pyproject.toml": PYPROJECT, **files})


def test_new_lists_a_name_the_code_imports_as_the_alternative_of_the_packages_own(tmp_path: Path, capsys) -> None:
    project = _project(tmp_path, capsys, {"app/compat.py": COMPAT_PY, "app/vendor/__init__.py": "",
                                          "app/vendor/corepkg.py": "def encode(v):\n    return v\n",
                                          "tests/test_legacy.py": LEGACY_PY})
    r = project.run("new", "fakepkg-core", "--github", "example/fakepkg-core", "--import-name", "corepkg")
    assert r.code == 0, r.out + r.err
    assert r.out.splitlines()[:2] == [
        "Created checklists/fakepkg-core.md: 2 files, 1 API entries (import names: corepkg, hostpkg.packages.corepkg)",
        "  import name hostpkg.packages.corepkg added: corepkg re-exported under that name (app/compat.py:2 imports it as "
        "the alternative of corepkg itself); uses through it are audited as corepkg's"]
    text = project.read("checklists/fakepkg-core.md")
    # the package's own path is fetched, never the re-exported one; the project's `app.vendor.corepkg`
    # and `otelish`'s own `corepkg` module are not the package
    assert "upstream_paths:\n  - corepkg/\nimport_names:\n  - corepkg\n  - hostpkg.packages.corepkg\n---" in text
    assert "app.vendor" not in text.split("---")[1] and "otelish" not in text.split("---")[1]
    # the test that imports only through the re-exported name has its row, as any importer
    assert "| `tests/test_legacy.py` | `legacy` |" in text
    assert project.run("check").code == 0


def test_new_lists_no_name_without_the_alternative(tmp_path: Path, capsys) -> None:
    # imported through `hostpkg`, never as the alternative of `corepkg`: the name alone says nothing
    project = _project(tmp_path, capsys, {"app/compat.py": "import corepkg\n", "app/legacy.py": LEGACY_PY})
    r = project.run("new", "fakepkg-core", "--github", "example/fakepkg-core", "--import-name", "corepkg")
    assert r.code == 0, r.out + r.err
    assert "import_names:\n  - corepkg\n---" in project.read("checklists/fakepkg-core.md")
    assert "added" not in r.out


def test_what_counts_as_a_re_exported_name() -> None:
    files = {
        "app/a.py": "try:\n    import hostpkg.packages.corepkg as corepkg\nexcept ImportError:\n    import corepkg\n",
        "app/b.py": "try:\n    from hostpkg.packages import corepkg\nexcept (ImportError, AttributeError):\n"
                    "    corepkg = None\nfrom .corepkg import x\nfrom corepkg.sub.corepkg import y\n",
        "app/c.py": "try:\n    from other.corepkg import encode\nexcept ImportError:\n    from corepkg import decode\n",
        "app/d.py": "try:\n    from x.y.corepkg.util import helper\nexcept ImportError:\n    try:\n"
                    "        from corepkg.util import helper\n    except ImportError:\n        helper = None\n",
        "app/e.py": "from app.compat.corepkg import z\nimport compat.corepkg\n",
        "compat/corepkg.py": "",
    }
    trees = [(rel, ast.parse(text)) for rel, text in sorted(files.items())]
    got = {r.name: (r.file, r.line, r.files, r.paired, r.below) for r in reexports(trees, ["corepkg"], own_names(files))}
    assert got == {
        # `import a.b.corepkg as corepkg` against `import corepkg`; `from a.b import corepkg`, no alternative
        "hostpkg.packages.corepkg": ("app/a.py", 2, 2, "app/a.py:2", ()),
        # binding other names: no alternative; a relative import and the package's own `corepkg.sub.corepkg`: none
        "other.corepkg": ("app/c.py", 2, 1, None, ("corepkg.encode",)),
        # the alternative inside a nested `try`; what continues past the name is the package's path
        "x.y.corepkg": ("app/d.py", 2, 1, "app/d.py:2", ("corepkg.util.helper",)),
        # `app` and `compat` are the project's own folders: not candidates
    }
    # a dotted import name is no target (the audit reads an alias only as a one-part name)
    assert reexports(trees, ["corepkg.sub"], own_names(files)) == []


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("reexport-upstream"), "fakepkg-core", [("1.0.0", V1), ("2.0.0", V2)])


def _audit(tmp_path: Path, capsys, upstreams: Path, names: list[str], files: dict[str, str]):
    checklist = fixture_checklist("fakepkg-core", "corepkg/", names, {f: "`corepkg`" for f in files})
    tmp_path.mkdir(exist_ok=True)
    r = upgrade_audit(tmp_path / "project", capsys, "fakepkg-core", upstreams, {
        "app/__init__.py": "", **files, "checklists/fakepkg-core.md": checklist})
    return r, [f for f in app_findings(r) if not f[2].startswith("[info]")]


WARNING = ("[warning] `hostpkg.packages.corepkg` reads as corepkg re-exported under another name ({why}), imported here{more}, "
           "but the checklist's import names leave it out: uses through `hostpkg.packages.corepkg` are not audited until you "
           "add it to `import_names`")


def test_the_audit_warns_once_while_the_checklist_leaves_the_name_out(tmp_path: Path, capsys, upstreams: Path) -> None:
    files = {"app/compat.py": COMPAT_PY, "app/legacy.py": LEGACY_PY, "app/vendor/__init__.py": "",
             "app/vendor/corepkg.py": "def encode(v):\n    return v\n"}
    r, got = _audit(tmp_path, capsys, upstreams, ["corepkg"], files)
    # once, at the first import (sorted paths); the break through it (legacy.py:1, :3) is not seen, and this says why
    assert got == [("app/compat.py:2", "UNRESOLVED", WARNING.format(
        why="imported as the alternative of `corepkg` itself", more=" (and 1 other file(s))"))]
    assert r.code == 0
    # listed: no warning, and the break is an error where the code has it
    r, got = _audit(tmp_path / "listed", capsys, upstreams, ["corepkg", "hostpkg.packages.corepkg"], files)
    assert [(where, code) for where, code, _msg in got] == [("app/legacy.py:1", "REMOVED_API"), ("app/legacy.py:3", "REMOVED_API")]
    assert r.code == 1


def test_the_audit_warns_of_a_name_that_reaches_the_packages_paths(tmp_path: Path, capsys, upstreams: Path) -> None:
    # no alternative in the code, but what it imports through the name is the package's (at the old version)
    files = {"app/legacy.py": LEGACY_PY, "app/otel.py": "from otelish.instrumentation.corepkg import Instrumentor\n"}
    r, got = _audit(tmp_path, capsys, upstreams, ["corepkg"], files)
    # `otelish`'s own module: `corepkg.Instrumentor` is no path of the package, so no warning
    assert got == [("app/legacy.py:1", "UNRESOLVED", WARNING.format(why="`corepkg.contrib.legacy` is corepkg's", more=""))]


@pytest.mark.parametrize("bad", ["hostpkg..packages.corepkg", "hostpkg.packages.corepkg-x", "hostpkg.1packages.corepkg"])
def test_a_re_exported_name_that_is_no_dotted_name_is_one_clear_line(tmp_path: Path, capsys, bad: str) -> None:
    checklist = fixture_checklist("fakepkg-core", "corepkg/", ["corepkg", f"'{bad}'"], {"app/compat.py": "`fields`"})
    project = _project(tmp_path, capsys, {"app/compat.py": COMPAT_PY, "checklists/fakepkg-core.md": checklist})
    r = project.run("check")
    assert r.lines == [f"checklists/fakepkg-core.md:7:1: FRONTMATTER frontmatter 'import_names': {bad!r} is not a dotted "
                     "module name (identifiers joined by dots)"]
    assert r.code == 1


def test_a_misspelt_re_exported_name_leaves_the_real_one_warned_of(tmp_path: Path, capsys, upstreams: Path) -> None:
    # the audit reads the checklist as it is: the bad name covers nothing, so the name the code imports is left out
    r, got = _audit(tmp_path, capsys, upstreams, ["corepkg", "hostpkg..packages.corepkg"], {"app/legacy.py": LEGACY_PY})
    assert got == [("app/legacy.py:1", "UNRESOLVED", WARNING.format(why="`corepkg.contrib.legacy` is corepkg's", more=""))]


def test_a_guard_through_a_listed_re_exported_name_is_judged_as_the_packages(tmp_path: Path, capsys, upstreams: Path) -> None:
    checklist = fixture_checklist("fakepkg-core", "corepkg/", ["corepkg", "hostpkg.packages.corepkg"],
                                  {"app/compat.py": "`fields`"}).replace(
        "## Version-Guarded Code\n\n_None._\n", "## Version-Guarded Code\n\n- `app/compat.py:2` — the re-exported import\n")
    tmp_path.mkdir(exist_ok=True)
    r = upgrade_audit(tmp_path / "project", capsys, "fakepkg-core", upstreams, {
        "app/__init__.py": "", "app/compat.py": COMPAT_PY, "checklists/fakepkg-core.md": checklist})
    # `hostpkg.packages.corepkg.fields` is `corepkg.fields`, there at both versions: a guard already dead at the old
    # one (counted), never "does not resolve: the fallback is still needed"
    assert not [f for f in app_findings(r) if f[0] == "app/compat.py:2"]
    assert any("GUARD_DEAD [info] 1 version guard(s) not listed: already dead at the old version 1.0.0" in line for line in r.lines)
