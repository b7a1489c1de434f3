"""Affected Files rows as people write them (``rows.py``, ``tiers.py``, the File cell reading of
``checklist.py``): globs, directories, several paths, paths that never existed, subsections that
are not tiers, a checklist's own tier rules, prose-only rows; and what ``--fix`` does with them."""

from __future__ import annotations

import shutil

from conftest import Repo

CL = "checklists/fakepkg-core.md"
TERTIARY_ROW = "| `tests/test_core.py` | `dist_checkpointing.save`                                |"
PLUGIN = "from fakepkg.core import plugins\n\nplugins.register()\n"


def add_row(repo: Repo, row: str) -> None:
    repo.edit(CL, TERTIARY_ROW, f"{TERTIARY_ROW}\n{row}")


# --- globs --------------------------------------------------------------------------


def test_glob_row_lists_every_file_it_matches_at_any_depth(repo: Repo) -> None:
    repo.write("tests/plugins/a/conf.py", PLUGIN)
    repo.write("tests/plugins/b/deep/conf.py", PLUGIN)
    repo.write("tests/plugins/c/conf.py", "X = 1\n")  # matched, but no user: the glob row is still live
    add_row(repo, "| `tests/plugins/*/conf.py` | `plugins.register` |")
    repo.commit()
    assert repo.run("check").lines == []


def test_glob_row_matches_what_git_lists_untracked_included_ignored_not(repo: Repo) -> None:
    add_row(repo, "| `tests/plugins/*/conf.py` | `plugins.register` |")
    repo.write(".gitignore", "tests/plugins/generated/\n")
    repo.commit()
    repo.write("tests/plugins/a/conf.py", PLUGIN)  # not committed yet: still the project's
    assert repo.run("check").lines == []
    (repo.path / "tests/plugins/a/conf.py").unlink()
    repo.write("tests/plugins/generated/conf.py", PLUGIN)  # ignored by git: not the project's code
    assert repo.run("check").lines == ["checklists/fakepkg-core.md:27:1: STALE `tests/plugins/*/conf.py` matches no file"]


def test_glob_row_is_never_narrowed_to_a_move(repo: Repo) -> None:
    repo.write("tests/plugins/a/conf.py", PLUGIN)
    add_row(repo, "| `tests/plugins/*/conf.py` | `plugins.register` |")
    repo.commit()
    shutil.rmtree(repo.path / "tests/plugins")
    repo.write("tests/elsewhere/conf.py", PLUGIN)
    assert repo.run("check").lines == [
        "checklists/fakepkg-core.md:21:1: MISSING `tests/elsewhere/conf.py` imports `fakepkg.core.plugins` but no tier lists it"
        " (belongs in Tertiary; or list its folder: a `tests/` row lists every importer below it, 2 today) (tests/elsewhere/conf.py:1)",
        "checklists/fakepkg-core.md:27:1: STALE `tests/plugins/*/conf.py` matches no file (its files were deleted)",
    ]  # git held a file it matched: --fix removes the row


def test_glob_row_tier_is_judged_per_file(repo: Repo) -> None:
    repo.write("app/plugins/a/conf.py", PLUGIN)
    repo.write("app/engine/plugins/conf.py", PLUGIN)
    add_row(repo, "| `app/*/conf.py` | `plugins.register` |")
    repo.commit()
    assert repo.run("check").lines == [
        "checklists/fakepkg-core.md:27:1: TIER `app/engine/plugins/conf.py` (row `app/*/conf.py`) is listed as Tertiary but its location"
        " (app/engine/) maps to Primary; if ranked so on purpose, add `tiers: {tertiary: [\"app/*/conf.py\"]}` to this checklist's frontmatter",
        "checklists/fakepkg-core.md:27:1: TIER `app/plugins/a/conf.py` (row `app/*/conf.py`) is listed as Tertiary but its location"
        " (app/) maps to Secondary; if ranked so on purpose, add `tiers: {tertiary: [\"app/*/conf.py\"]}` to this checklist's frontmatter",
    ]
    before = repo.read(CL)
    repo.run("check", "--fix")
    assert repo.read(CL) == before  # two target tiers: a person decides, nothing is moved


def test_glob_row_whose_files_share_one_tier_is_one_finding_and_moves(repo: Repo) -> None:
    repo.write("app/plugins/a/conf.py", PLUGIN)
    repo.write("app/plugins/b/conf.py", PLUGIN)
    add_row(repo, "| `app/plugins/*/conf.py` | `plugins.register` |")
    repo.commit()
    assert repo.run("check").lines == [
        "checklists/fakepkg-core.md:27:1: TIER `app/plugins/*/conf.py` (2 files) is listed as Tertiary but its location (app/) maps to"
        " Secondary; if ranked so on purpose, add `tiers: {tertiary: [\"app/plugins/*/conf.py\"]}` to this checklist's frontmatter",
    ]
    repo.run("check", "--fix")
    secondary = repo.read(CL).split("### Secondary")[1].split("### Tertiary")[0]
    assert "`app/plugins/*/conf.py`" in secondary
    assert repo.run("check").code == 0


# --- several paths, directories -------------------------------------------------------


def test_several_paths_in_one_cell_are_all_listed(repo: Repo) -> None:
    repo.write("tests/plugins/one.py", PLUGIN)
    repo.write("tests/plugins/two.py", PLUGIN)
    add_row(repo, "| `tests/plugins/one.py` and `two.py` | `plugins.register` |")
    repo.commit()
    assert repo.run("check").lines == []


def test_an_absent_second_path_is_stale_but_the_row_is_never_marked(repo: Repo) -> None:
    repo.write("tests/plugins/one.py", PLUGIN)
    add_row(repo, "| `tests/plugins/one.py`, `tests/plugins/gone.py` | `plugins.register` |")
    repo.commit()
    assert repo.run("check").lines == [
        "checklists/fakepkg-core.md:27:1: STALE `tests/plugins/gone.py` (in the row of `tests/plugins/one.py`) does not exist",
    ]
    before = repo.read(CL)
    repo.run("check", "--fix")
    assert repo.read(CL) == before


def test_directory_cell_lists_every_importer_below_it(repo: Repo) -> None:
    repo.write("tests/plugins/one.py", PLUGIN)
    repo.write("tests/plugins/sub/two.py", PLUGIN)
    add_row(repo, "| `tests/plugins/` | `plugins.register` |")
    repo.commit()
    assert repo.run("check").lines == []


def test_worded_directory_cell_is_a_summary_not_a_listing(repo: Repo) -> None:
    repo.write("tests/plugins/one.py", PLUGIN)
    add_row(repo, "| 10+ files under `tests/plugins/` | `plugins.register`, `plugins.unused_thing` |")
    repo.commit()
    assert repo.run("check").lines == [
        "checklists/fakepkg-core.md:21:1: MISSING `tests/plugins/one.py` imports `fakepkg.core.plugins` but no tier lists it"
        " (belongs in Tertiary; or list its folder: a `tests/` row lists every importer below it, 2 today) (tests/plugins/one.py:1)",
        "checklists/fakepkg-core.md:27:1: CHANGED [warning] `tests/plugins/` (1 file below): `plugins.unused_thing` no longer match anything in the files",
    ]


def test_directory_without_importers_is_stale(repo: Repo) -> None:
    repo.write("tests/plugins/one.py", "X = 1\n")
    add_row(repo, "| `tests/plugins/` | `plugins.register` |")
    repo.commit()
    assert repo.run("check").lines == [
        "checklists/fakepkg-core.md:27:1: STALE no file below `tests/plugins/` imports fakepkg-core",
    ]


# --- never existed ----------------------------------------------------------------------


def test_a_path_that_never_existed_is_not_a_move(repo: Repo) -> None:
    repo.write("app/utils/opt.py", "from fakepkg.core import optimizer\n")
    repo.edit(CL, "_None._", "| File | Imports / Usage |\n| --- | --- |\n| `app/util/opt.py` | `optimizer` |")
    repo.commit()
    r = repo.run("check")
    assert r.lines == [
        "checklists/fakepkg-core.md:21:1: STALE `app/util/opt.py` never existed in this repository; it likely means"
        " `app/utils/opt.py` (same name, same imports) (app/utils/opt.py:1)",
    ]
    repo.run("check", "--fix")
    assert "| `app/utils/opt.py` | `optimizer` |" in repo.read(CL)
    assert repo.run("check").code == 0


def test_a_path_that_never_existed_without_a_candidate_names_the_closest_file(repo: Repo) -> None:
    repo.edit(CL, "_None._", "| File | Imports / Usage |\n| --- | --- |\n| `app/tools/nmes.py` | `optimizer` |")
    repo.commit()
    assert repo.run("check").lines == [
        "checklists/fakepkg-core.md:21:1: STALE `app/tools/nmes.py` never existed in this repository; it likely means `app/tools/names.py`",
    ]
    before = repo.read(CL)
    repo.run("check", "--fix")
    assert repo.read(CL) == before  # a guess is for a person: no mark, no rewrite


def test_the_closest_file_named_is_one_that_exists_now(repo: Repo) -> None:
    repo.write("app/tools/nmes_.py", "X = 1\n")  # closer to the row's path than names.py, then deleted
    repo.commit()
    (repo.path / "app/tools/nmes_.py").unlink()
    repo.edit(CL, "_None._", "| File | Imports / Usage |\n| --- | --- |\n| `app/tools/nmes.py` | `optimizer` |")
    repo.commit()
    assert repo.run("check").lines == [
        "checklists/fakepkg-core.md:21:1: STALE `app/tools/nmes.py` never existed in this repository; it likely means `app/tools/names.py`",
    ]


def test_a_deleted_path_is_still_a_move(repo: Repo) -> None:
    (repo.path / "app/engine/v2").mkdir()
    (repo.path / "app/engine/core.py").rename(repo.path / "app/engine/v2/core.py")
    codes = repo.run("check").codes
    assert "MOVED" in codes and "STALE" not in codes


def test_without_git_history_the_refinement_is_skipped(repo: Repo) -> None:
    repo.write("app/utils/opt.py", "from fakepkg.core import optimizer\n")
    repo.edit(CL, "_None._", "| File | Imports / Usage |\n| --- | --- |\n| `app/util/opt.py` | `optimizer` |")
    shutil.rmtree(repo.path / ".git")
    assert repo.run("check").codes == ["MOVED"]


# --- subsections that are not tiers ---------------------------------------------------------

EXTERNAL = """
### External (sidecar — another repository)

| File | Imports / Usage |
| --- | --- |
| `sidecar/server.py` | `fakepkg.core.serve` |
| `app/utils/other.py` | `fakepkg_ext` |
"""


def test_non_tier_subsection_is_legal_and_never_stale(repo: Repo) -> None:
    repo.edit(CL, "\n______________________________________________________________________\n\n## API Usage Catalog",
              EXTERNAL + "\n______________________________________________________________________\n\n## API Usage Catalog")
    repo.edit(CL, "- `app/engine/core.py:7`", "- `sidecar/server.py:12` — a guard over there.\n- `app/engine/core.py:7`")
    repo.commit()
    r = repo.run("check", "-v")
    assert (r.code, r.lines) == (0, [])
    assert "note: checklists/fakepkg-core.md:28: 'External (sidecar — another repository)' under Affected Files is not a tier" in r.err
    assert "version guards on its paths outside the repository are not checked" in r.err
    assert r.err.count("External") == 1


def test_guard_outside_any_subsection_is_still_an_error(repo: Repo) -> None:
    repo.edit(CL, "- `app/engine/core.py:7`", "- `sidecar/server.py:12` — a guard over there.\n- `app/engine/core.py:7`")
    assert repo.run("check").codes == ["GUARD"]


def test_misspelled_tier_heading_is_still_a_format_error(repo: Repo) -> None:
    repo.edit(CL, "### Tertiary (tests, config)", "### Tertiery (tests, config)")
    assert "FORMAT" in repo.run("check").codes


# --- a checklist's own tier rules --------------------------------------------------------------


def test_checklist_tiers_take_precedence_for_that_checklist(repo: Repo) -> None:
    repo.edit("pyproject.toml", 'tertiary = ["tests/", "app/tools/"]', 'tertiary = ["tests/"]')
    assert repo.run("check").codes == ["TIER"]
    repo.edit(CL, "---\n\n## Affected Files", "tiers:\n  tertiary: [\"app/tools/names.py\"]\n---\n\n## Affected Files")
    assert repo.run("check").lines == []
    # and a new file there is placed by the checklist's rule too
    repo.write("app/tools/more.py", "from fakepkg.core import optimizer\n")
    repo.edit(CL, 'tertiary: ["app/tools/names.py"]', 'tertiary: ["app/tools/"]')
    assert repo.run("check").lines == [
        "checklists/fakepkg-core.md:23:1: MISSING `app/tools/more.py` imports `fakepkg.core.optimizer` but no tier lists it"
        " (belongs in Tertiary) (app/tools/more.py:1)",
    ]


def test_malformed_checklist_tiers_are_a_frontmatter_error(repo: Repo) -> None:
    repo.edit(CL, "---\n\n## Affected Files", "tiers:\n  top: [\"app/\"]\n---\n\n## Affected Files")
    assert repo.run("check").lines == [
        "checklists/fakepkg-core.md:7:1: FRONTMATTER frontmatter 'tiers': must map primary / secondary / tertiary to lists of relative paths or globs",
    ]
    repo.edit(CL, 'top: ["app/"]', 'primary: ["../outside/"]')
    assert repo.run("check").codes == ["FRONTMATTER"]


# --- prose-only rows, and what --fix leaves alone ---------------------------------------------


def test_prose_only_row_is_never_changed(repo: Repo) -> None:
    repo.write("tests/test_more.py", "from fakepkg.core import plugins, optimizer\n")
    add_row(repo, "| `tests/test_more.py` | the same plugin pattern as the engine |")
    assert repo.run("check").lines == []


def test_fix_never_strikes_a_matching_token_nor_marks_a_live_row(repo: Repo) -> None:
    repo.write("tests/test_more.py", """\
from fakepkg.core import plugins
from fakepkg.core.models.alpha import Alpha
from fakepkg.core.models.beta import Beta

@plugins.register
def test_it(store):
    store.save_all(fast=True)
    store.load_all()
    Alpha(), Beta()
""")
    add_row(repo, "| `tests/test_more.py` | `from fakepkg.core import plugins`, `@register`, `store.save_all`, `.load_all`,"
                  " `fakepkg.core.models.{alpha.Alpha, beta.Beta}`, `fast=True`, `conftest.py`, `.gone_method` |")
    r = repo.run("check")
    assert r.lines == [
        "checklists/fakepkg-core.md:27:1: CHANGED [warning] `tests/test_more.py`: `.gone_method` no longer match anything in the file",
    ]
    repo.run("check", "--fix")
    row = next(line for line in repo.read(CL).splitlines() if "tests/test_more.py" in line)
    assert row.count("~~") == 2 and "~~`.gone_method`~~" in row
    assert "TODO: verify removal" not in row
    assert repo.run("check").code == 0


def test_a_shallow_clone_does_not_claim_a_path_never_existed(repo: Repo, tmp_path) -> None:
    from conftest import git

    add_row(repo, "| `tests/gone.py` | `fakepkg.core` |")
    repo.commit("a row for a file that was never written")
    assert repo.run("check").lines == ["checklists/fakepkg-core.md:27:1: STALE `tests/gone.py` never existed in this repository"]
    git(repo.path, "commit", "-q", "--allow-empty", "-m", "two")
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo.path}", "shallow")
    shallow = Repo(tmp_path / "shallow", repo._capsys)
    # one commit of history: that the path never existed cannot be known
    assert shallow.run("check").lines == ["checklists/fakepkg-core.md:27:1: STALE `tests/gone.py` does not exist"]


def test_history_is_asked_of_git_ahead_and_once(repo: Repo, monkeypatch) -> None:
    """A cold run with a row whose file is gone starts git's history calls before it parses
    (history.prefetch) and reads each once; a run that did not read them stops them."""
    from upgrade_checklists.check import compare
    from upgrade_checklists.project import history

    started: list[tuple[str, ...]] = []
    real = history._start
    monkeypatch.setattr(history, "_start", lambda root, args: started.append(args) or real(root, args))
    before_rows: list[int] = []
    real_rows = compare.compare_rows
    monkeypatch.setattr(compare, "compare_rows", lambda *a: before_rows.append(len(started)) or real_rows(*a))
    repo.edit(CL, "_None._", "| File | Imports / Usage |\n| --- | --- |\n| `app/tools/nmes.py` | `optimizer` |")
    repo.commit()
    r = repo.run("check", "--no-cache")
    assert r.lines == ["checklists/fakepkg-core.md:21:1: STALE `app/tools/nmes.py` never existed in this repository;"
                       " it likely means `app/tools/names.py`"]
    assert sorted(started) == sorted([history._REFS, history._LOG, history._INDEX]) and not history._pending
    assert before_rows[0] == 3  # all three running before the rows were compared
    history.prefetch(repo.path, None)  # started, never read: the next run stops them
    left = list(history._pending.values())
    assert len(left) == 3
    history.forget()
    assert not history._pending and all(p.returncode is not None for p in left)
