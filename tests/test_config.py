"""Configuration errors are exit 2 with one line naming the file and the key."""

from __future__ import annotations

import pytest

from conftest import Repo, git


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


def test_default_roots_take_a_single_module_under_src(repo: Repo) -> None:
    # a one-module project (src/plugin.py, as many pytest plugins are) has no package to find:
    # the module itself is the code, and `new` / `check` with no roots configured must scan it
    repo.write("pyproject.toml", "[project]\nname = 'x'\n")
    repo.write("src/fakeplugin.py", "import fakepkg.core\n\n\ndef hook():\n    return fakepkg.core.Engine()\n")
    repo.write("src/notes.txt", "not code\n")
    r = repo.run("check", "-v")
    assert "note: scanned 9 files in app, src/fakeplugin.py, tests;" in r.err
    assert r.codes == ["MISSING"] and "src/fakeplugin.py" in r.out


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


def run_in(repo: Repo, subdir: str, *argv: str):
    """``repo.run`` from a subdirectory of the repository (or any directory)."""
    import os

    from conftest import Run
    from upgrade_checklists.cli import main

    if argv[:1] == ("check",) and not any(a.startswith(("--format", "--output-format")) for a in argv):
        argv = (*argv, "--output-format", "concise")  # one line per finding, as repo.run
    repo._capsys.readouterr()
    old = os.getcwd()
    os.chdir(repo.path / subdir)
    try:
        code = main(list(argv))
    finally:
        os.chdir(old)
    captured = repo._capsys.readouterr()
    return Run(code, captured.out, captured.err)


MISSING_NEW = ("MISSING `app/utils/new.py` imports `fakepkg.core.optimizer` but no tier lists it "
               "(belongs in Secondary) (app/utils/new.py:1)")


def test_configuration_is_found_above_the_current_directory(repo: Repo) -> None:
    repo.write("app/utils/new.py", "from fakepkg.core import optimizer\n")
    r = run_in(repo, "app/engine", "check")
    assert r.code == 1
    assert MISSING_NEW in r.out  # roots and tiers from ../../pyproject.toml, paths from its directory
    # a pyproject.toml without the table on the way up is passed over
    repo.write("app/pyproject.toml", "[project]\nname = 'app'\n")
    assert MISSING_NEW in run_in(repo, "app/engine", "check").out


def test_explicit_config_above_resolves_paths_from_its_directory(repo: Repo) -> None:
    repo.write("app/utils/new.py", "from fakepkg.core import optimizer\n")
    r = run_in(repo, "app", "check", "--config", "../pyproject.toml")
    assert r.code == 1
    assert MISSING_NEW in r.out


def test_explicit_config_kept_elsewhere_applies_to_the_current_repository(repo: Repo, tmp_path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "lint.toml").write_text(repo.read("pyproject.toml"))
    repo.write("pyproject.toml", "[project]\nname = 'x'\n")
    repo.write("app/utils/new.py", "from fakepkg.core import optimizer\n")
    r = repo.run("check", "--config", str(shared / "lint.toml"))
    assert r.code == 1
    assert MISSING_NEW in r.out


def test_dedicated_file_wins_over_pyproject_in_the_same_directory(repo: Repo) -> None:
    repo.write("upgrade-checklists.toml", 'roots = ["app"]\n[tiers]\nprimary = ["app/engine/"]\nsecondary = ["app/"]\n'
                                          'tertiary = ["tests/", "app/tools/"]\n')
    repo.write("tests/test_more.py", "import fakepkg.core\n")  # outside roots: not scanned
    r = run_in(repo, "app", "check")
    assert (r.code, r.out) == (0, "All checks passed (1 checklist, 7 files scanned).\n")
    repo.write("upgrade-checklists.toml", 'checklist = "x"\n')
    r = repo.run("check")
    assert r.code == 2
    assert "upgrade-checklists.toml: [tool.upgrade-checklists]: unknown key 'checklist'" in r.err


def test_underscore_table_is_not_read_and_said_so(repo: Repo) -> None:
    repo.write("pyproject.toml", '[tool.upgrade_checklists]\nroots = ["app"]\n')
    r = repo.run("check")
    assert ("upgrade-checklists: warning: pyproject.toml: [tool.upgrade_checklists] is not read: "
            "the table is spelt [tool.upgrade-checklists]\n") in r.err


def test_empty_checklist_folder_is_a_warning(repo: Repo) -> None:
    git(repo.path, "rm", "-q", "checklists/fakepkg-core.md")
    repo.write("checklists/_TEMPLATE.md", "# not a checklist\n")
    r = repo.run("check")
    assert (r.code, r.out) == (0, "All checks passed (0 checklists, 8 files scanned).\n")
    assert r.err == ("upgrade-checklists: warning: checklists/ holds no checklist yet: "
                     "write one with `upgrade-checklists new PACKAGE`\n")


def test_checklist_of_a_package_nothing_imports_is_a_warning(repo: Repo) -> None:
    repo.write("checklists/unused-lib.md", "---\npackage: unused-lib\ngithub: example/unused\nbranch_template: v${VERSION}\nupstream_paths:\n  - unused_lib/\n"
                                           "---\n\n## Affected Files\n\n### Primary\n\n_None._\n\n### Secondary\n\n_None._\n\n"
                                           "### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n## Version-Guarded Code\n\n_None._\n")
    r = repo.run("check")
    assert r.code == 0
    assert r.err == ("upgrade-checklists: warning: checklists/unused-lib.md: no file in app, tests imports unused_lib "
                     "(a package the code no longer uses, or configure 'roots' / 'import-names')\n")


def test_nonexistent_path_argument_is_exit_2(repo: Repo) -> None:
    r = repo.run("check", "app/engine/core.py", "app/nowhere.py")
    assert (r.code, r.out, r.err) == (2, "", "upgrade-checklists: error: app/nowhere.py: no such file or directory\n")


def test_path_arguments_are_relative_to_the_current_directory(repo: Repo) -> None:
    repo.write("app/utils/new.py", "from fakepkg.core import optimizer\n")
    assert MISSING_NEW in run_in(repo, "app", "check", "utils/new.py").out
    assert run_in(repo, "app", "check", "engine/core.py").out == \
        "All checks passed (1 checklist, 9 files scanned; not shown: 1 about other files).\n"


def test_gitignored_files_are_not_scanned_in_git_and_are_outside_it(repo: Repo) -> None:
    import shutil

    repo.write(".gitignore", "app/generated/\n")
    repo.write("app/generated/stub.py", "from fakepkg.core import optimizer\n")
    repo.write("app/utils/untracked.py", "from fakepkg.core import optimizer\n")  # untracked, not ignored: scanned
    r = repo.run("check")
    assert r.code == 1
    assert "app/generated" not in r.out
    assert "`app/utils/untracked.py` imports" in r.out
    # outside a git work tree, the file system is walked: everything below the roots counts
    shutil.rmtree(repo.path / ".git")
    r = repo.run("check", "--no-cache")
    assert "`app/generated/stub.py` imports" in r.out and "`app/utils/untracked.py` imports" in r.out


def test_a_tier_glob_ending_in_a_slash_is_a_folder() -> None:
    """``pkg/*/tests/`` reads as a prefix with a glob in it: every file below each match (it
    used to match nothing, the files falling to a shorter rule's tier without a word)."""
    from upgrade_checklists.project.tiers import TierRules

    rules = TierRules([("pkg/*/tests/", "tertiary"), ("pkg/", "secondary")], False)
    assert rules.tier_of("pkg/dcim/tests/test_api.py")[0] == "tertiary"
    assert rules.tier_of("pkg/dcim/tests/deep/test_x.py")[0] == "tertiary"
    assert rules.tier_of("pkg/dcim/models.py")[0] == "secondary"
    assert TierRules([("pkg/*/tests/*.py", "tertiary")], False).tier_of("pkg/a/tests/t.py")[0] == "tertiary"
    assert TierRules([("pkg/*/tests/*.py", "tertiary")], False).tier_of("pkg/a/tests.py")[0] is None

