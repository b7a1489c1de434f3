"""Configuration errors are exit 2 with one line naming the file and the key."""

from __future__ import annotations

import pytest

from conftest import Repo


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ('[tool.upgrade-checklists]\nchecklist = "x"\n', "pyproject.toml: [tool.upgrade-checklists]: unknown key 'checklist'"),
        ('[tool.upgrade-checklists]\nroots = "app"\n', "pyproject.toml: [tool.upgrade-checklists]: 'roots' must be a list"),
        ('[tool.upgrade-checklists.tiers]\nprimry = ["app/"]\n', "pyproject.toml: [tool.upgrade-checklists].tiers: unknown key 'primry'"),
        ('[tool.upgrade-checklists]\nchecklists = "../elsewhere"\n', "must be a path inside the repository"),
        ("[tool.upgrade-checklists\n", "pyproject.toml: invalid TOML: Expected ']' at the end of a table declaration (at line 1, column 25)"),
        ('[tool.upgrade-checklists]\nchecklists = "nowhere"\n', "checklist directory 'nowhere' not found"),
    ],
)
def test_config_errors_exit_2(repo: Repo, toml: str, expected: str) -> None:
    repo.write("pyproject.toml", toml)
    r = repo.run("check")
    assert r.code == 2
    assert r.out == ""
    assert r.err.count("\n") == 1 and r.err.startswith("upgrade-checklists: error: ")
    assert expected in r.err


def test_explicit_config_file(repo: Repo) -> None:
    repo.write("pyproject.toml", "[project]\nname = 'x'\n")  # no table: defaults
    repo.write("lint.toml", '[tool.upgrade-checklists]\nroots = ["app", "tests"]\n[tool.upgrade-checklists.tiers]\nprimary = ["app/engine/"]\nsecondary = ["app/"]\ntertiary = ["tests/", "app/tools/"]\n')
    assert repo.run("check", "--config", "lint.toml").code == 0
    r = repo.run("check", "--config", "missing.toml")
    assert (r.code, r.err) == (2, "upgrade-checklists: error: missing.toml: config file not found\n")
    repo.write("empty.toml", "[other]\n")
    assert repo.run("check", "--config", "empty.toml").err == "upgrade-checklists: error: empty.toml: no [tool.upgrade-checklists] table\n"


def test_default_roots_are_packages_and_tests(repo: Repo) -> None:
    repo.write("pyproject.toml", "[project]\nname = 'x'\n")
    r = repo.run("check", "-v")
    assert "note: scanned 8 files in app, tests; parsed 4" in r.err


def test_usage_errors_exit_2(repo: Repo) -> None:
    assert repo.run("check", "--format", "xml").code == 2
    assert repo.run("frobnicate").code == 2
    assert repo.run("--version").code == 0


def test_import_names_from_config_and_guide(repo: Repo) -> None:
    repo.write("pyproject.toml", '[tool.upgrade-checklists]\nroots = ["app", "tests"]\n[tool.upgrade-checklists.import-names]\nfakepkg-core = ["fakepkg.core", "fakepkg_compat"]\n')
    repo.write("app/utils/compat.py", "import fakepkg_compat\n")
    r = repo.run("check", "-v")
    assert r.codes == ["MISSING"]
    assert "import names fakepkg.core, fakepkg_compat (configuration [tool.upgrade-checklists.import-names])" in r.err
    repo.write("pyproject.toml", '[tool.upgrade-checklists]\nroots = ["app", "tests"]\nmaintenance_guide = "GUIDE.md"\n')
    repo.write("GUIDE.md", "| pip name | import names |\n| --- | --- |\n| fakepkg-core | `fakepkg.core`, `fakepkg_compat` |\n")
    r = repo.run("check", "-v")
    assert r.codes == ["MISSING"]
    assert "(maintenance guide GUIDE.md)" in r.err


def test_exclude_globs(repo: Repo) -> None:
    repo.write("app/utils/vendored/thing.py", "import fakepkg.core\n")
    assert repo.run("check").codes == ["MISSING"]
    repo.edit("pyproject.toml", 'roots = ["app", "tests"]', 'roots = ["app", "tests"]\nexclude = ["app/utils/vendored/*"]')
    assert repo.run("check").code == 0
