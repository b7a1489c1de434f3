"""A hook people keep (issue 23, the check's side): stale line numbers warn unless
``strict-lines`` is set, a missing baseline is an error, one broken table gives one
finding, tables keep their layout, deleted and renamed files are followed by ``--fix``,
and the small things (operators in messages, help texts). Fixture repositories in
tmp_path with real git; exit codes also through the console script. Expected texts are
written by hand."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT, Repo, git

from upgrade_checklists.cli import main

CL = "checklists/fakepkg-core.md"


def console(repo: Repo, *argv: str) -> subprocess.CompletedProcess:
    """The installed console script (``upgrade-checklists``), else ``python -m``, in ``repo``:
    a clean environment (no GIT_* of the caller), no colour, no cache."""
    script = Path(sys.executable).parent / ("upgrade-checklists.exe" if os.name == "nt" else "upgrade-checklists")
    cmd = [str(script)] if script.is_file() else [sys.executable, "-m", "upgrade_checklists"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(NO_COLOR="1", PYTHONPATH=str(REPO_ROOT / "hooks"))
    return subprocess.run([*cmd, *argv], cwd=repo.path, env=env, capture_output=True, text=True, timeout=120)


def shift_core(repo: Repo) -> None:
    """Two comment lines at the top of ``app/engine/core.py``: every catalogued call moves
    down by two (a LINE finding for each reference), nothing else changes."""
    repo.edit("app/engine/core.py", '"""Engine.', '# one\n# two\n"""Engine.')
    repo.commit("lines move")


# --- 1. line numbers never block by default ------------------------------------------------


def test_stale_line_number_is_a_fixable_warning_and_exits_0(repo: Repo) -> None:
    shift_core(repo)
    r = console(repo, "check", "--no-cache", "--output-format", "concise")
    assert r.returncode == 0, r.stdout + r.stderr
    assert [line for line in r.stdout.splitlines() if line.startswith("checklists/")] == [
        "checklists/fakepkg-core.md:36:1: LINE [warning] entry 1: snippet in `app/engine/core.py` is now at line 11 (recorded line 9)"
        " (app/engine/core.py:11)",
        "checklists/fakepkg-core.md:50:1: LINE [warning] entry 2: snippet in `app/engine/core.py` is now at lines 12-15"
        " (recorded lines 10-13) (app/engine/core.py:12)",
        # a version guard's line number is bookkeeping too
        "checklists/fakepkg-core.md:63:1: GUARD [warning] version guard `hasattr(mpu, \"destroy\")` in `app/engine/core.py` is now"
        " at line 9 (recorded line 7) (app/engine/core.py:9)",
    ]
    assert r.stdout.endswith("Found 3 warnings in 1 checklist: 2 LINE, 1 GUARD.\nWarnings do not fail the run.\n"
                             "[*] 3 fixable with `upgrade-checklists check --fix`.\n")
    doc = json.loads(console(repo, "check", "--no-cache", "--output-format", "json").stdout)
    assert [(f["code"], f["severity"], f["fixable"]) for f in doc["findings"]] == [("LINE", "warning", True)] * 2 + [
        ("GUARD", "warning", True)]
    assert doc["summary"]["findings_by_severity"] == {"warning": 3}
    fixed = console(repo, "check", "--no-cache", "--fix")
    assert fixed.returncode == 1 and f"Fixing {CL}" in fixed.stdout  # a rewritten file fails the hook, as pre-commit's fixers do
    assert "Called in `app/engine/core.py` (line 11):" in repo.read(CL)
    assert "Called in `app/engine/core.py` (lines 12-15):" in repo.read(CL)
    assert "- `app/engine/core.py:9` — `hasattr(mpu, \"destroy\")` guard" in repo.read(CL)
    assert console(repo, "check", "--no-cache").returncode == 0


def test_strict_lines_makes_a_stale_line_number_an_error(repo: Repo) -> None:
    repo.edit("pyproject.toml", 'roots = ["app", "tests"]', 'roots = ["app", "tests"]\nstrict-lines = true')
    shift_core(repo)
    r = console(repo, "check", "--no-cache", "--output-format", "concise")
    assert r.returncode == 1
    assert "LINE entry 1: snippet in `app/engine/core.py` is now at line 11 (recorded line 9)" in r.stdout
    assert "[warning]" not in r.stdout and "Found 3 findings in 1 checklist: 2 LINE, 1 GUARD." in r.stdout
    doc = json.loads(console(repo, "check", "--no-cache", "--output-format", "json").stdout)
    assert {f["severity"] for f in doc["findings"]} == {"error"}


def test_a_warning_does_not_hide_an_error(repo: Repo) -> None:
    shift_core(repo)
    repo.write("app/utils/new.py", "import fakepkg.core\n")
    r = console(repo, "check", "--no-cache", "--output-format", "concise")
    assert r.returncode == 1
    assert "Found 4 findings (1 error, 3 warnings) in 1 checklist: 2 LINE, 1 GUARD, 1 MISSING." in r.stdout
    assert "Warnings do not fail the run; the errors do." in r.stdout
    # selecting the warnings alone: exit 0; ignoring them: the error alone
    assert console(repo, "check", "--no-cache", "--select", "LINE,GUARD").returncode == 0
    assert repo.run("check", "--ignore", "LINE,GUARD").codes == ["MISSING"]
    assert repo.run("check", "--exit-zero").code == 0


def test_machine_formats_carry_the_level_of_each_finding(repo: Repo) -> None:
    shift_core(repo)
    repo.write("app/utils/new.py", "import fakepkg.core\n")
    sarif = json.loads(repo.run("check", "--output-format", "sarif").out)
    run = sarif["runs"][0]
    assert sorted((r["ruleId"], r["level"]) for r in run["results"]) == [
        ("GUARD", "warning"), ("LINE", "warning"), ("LINE", "warning"), ("MISSING", "error")]
    rules = {r["id"]: r["defaultConfiguration"]["level"] for r in run["tool"]["driver"]["rules"]}
    assert rules["LINE"] == "warning" and rules["MISSING"] == "error"
    github = repo.run("check", "--output-format", "github").out.splitlines()
    assert sorted(line.split(" ", 1)[0] for line in github) == ["::error", "::warning", "::warning", "::warning"]


def test_a_range_may_end_inside_the_function_it_starts(repo: Repo) -> None:
    """``(lines 6-11)`` for the call at line 9 of ``build`` (lines 6-13): it starts where the
    function starts and ends inside it (as a range written before the function grew at its
    end): right by default; strict-lines wants it exact (to the documented statement)."""
    repo.edit(CL, "Called in `app/engine/core.py` (line 9):", "Called in `app/engine/core.py` (lines 6-11):")
    assert repo.run("check").out.startswith("All checks passed")
    repo.edit("pyproject.toml", 'roots = ["app", "tests"]', 'roots = ["app", "tests"]\nstrict-lines = true')
    r = repo.run("check")
    assert r.code == 1 and r.lines == [
        "checklists/fakepkg-core.md:36:1: LINE entry 1: snippet in `app/engine/core.py` is now at lines 6-9 (recorded lines 6-11)"
        " (app/engine/core.py:6)"]


def test_a_range_that_starts_elsewhere_is_still_stale_by_default(repo: Repo) -> None:
    """``(lines 8-9)``: line 8 is inside the `if` above the call, not where the call or an
    enclosing statement starts: a (warning) LINE finding, the call's own line its fix."""
    repo.edit(CL, "Called in `app/engine/core.py` (line 9):", "Called in `app/engine/core.py` (lines 8-9):")
    r = repo.run("check")
    assert r.code == 0 and r.lines == [
        "checklists/fakepkg-core.md:36:1: LINE [warning] entry 1: snippet in `app/engine/core.py` is now at line 9"
        " (recorded lines 8-9) (app/engine/core.py:9)"]


def test_strict_lines_must_be_a_boolean(repo: Repo) -> None:
    repo.edit("pyproject.toml", 'roots = ["app", "tests"]', 'roots = ["app", "tests"]\nstrict-lines = "yes"')
    r = repo.run("check")
    assert r.code == 2
    assert r.err == ("upgrade-checklists: error: pyproject.toml: [tool.upgrade-checklists]: 'strict-lines' must be a boolean"
                     " (true or false)\n")


def test_a_listed_file_that_gains_a_name_is_a_fixable_warning(repo: Repo) -> None:
    """A file already listed imports one more name of the package: its row stays right
    (same file, same tier), only the cell lags. Reported, repaired by --fix, exit 0."""
    repo.edit("app/engine/core.py", "from fakepkg.core.distributed import DistributedDataParallel as DDP\n",
              "from fakepkg.core.distributed import DistributedDataParallel as DDP\nfrom fakepkg.core import optimizer\n")
    r = repo.run("check", "app/engine/core.py")
    changed = [line for line in r.lines if " CHANGED " in line]
    assert r.code == 0 and changed == [
        "checklists/fakepkg-core.md:15:1: CHANGED [warning] `app/engine/core.py` imports `fakepkg.core.optimizer`, not in its row"
        " (app/engine/core.py:4)"]
    assert repo.run("check", "--fix").code == 1
    assert "| `app/engine/core.py` | `parallel_state` (as `mpu`), `DistributedDataParallel`, `optimizer` |" in repo.read(CL)
    after = repo.run("check")
    assert after.code == 0 and not any(" CHANGED " in line for line in after.lines)


def test_strict_rows_makes_a_row_that_lags_an_error(repo: Repo) -> None:
    repo.edit("pyproject.toml", 'roots = ["app", "tests"]', 'roots = ["app", "tests"]\nstrict-rows = true')
    repo.write("tests/test_core.py", "from fakepkg.core import dist_checkpointing, optimizer\n\n"
               "def test_save():\n    dist_checkpointing.save({}, optimizer)\n")
    git(repo.path, "mv", "app/tools/names.py", "app/tools/registry.py")
    r = repo.run("check")
    assert r.code == 1 and "[warning]" not in r.out
    assert r.lines == [
        "checklists/fakepkg-core.md:25:1: MOVED `app/tools/names.py` was renamed to `app/tools/registry.py` (git)",
        "checklists/fakepkg-core.md:26:1: CHANGED `tests/test_core.py` imports `fakepkg.core.optimizer`, not in its row"
        " (tests/test_core.py:1)"]
    repo.edit("pyproject.toml", "strict-rows = true", "strict-rows = 1")
    r = repo.run("check")
    assert r.code == 2 and "'strict-rows' must be a boolean" in r.err


def test_a_rename_into_another_tier_stays_an_error(repo: Repo) -> None:
    """A move that changes the file's rank (tests/ -> app/engine/, Tertiary -> Primary) is
    a change a maintainer looks at: MOVED blocks; --fix still follows it."""
    git(repo.path, "mv", "tests/test_core.py", "app/engine/checkpoints.py")
    r = repo.run("check")
    assert r.code == 1 and r.lines == [
        "checklists/fakepkg-core.md:26:1: MOVED `tests/test_core.py` was renamed to `app/engine/checkpoints.py` (git)"
        " (app/engine/checkpoints.py:2)"]
    assert repo.run("check", "--fix").code == 1
    assert "| `app/engine/checkpoints.py` | `dist_checkpointing.save`" in repo.read(CL)


def test_code_moved_and_a_shim_left_is_followed_as_a_move(repo: Repo) -> None:
    """The engine's code moves to `app/runtime/core.py`; `app/engine/core.py` stays as a
    re-export that no longer uses the package. Not a STALE row and a MISSING file (and the
    catalog's snippets gone): one MOVED, and --fix follows it in the row, the catalog's
    references and the version guard."""
    code = repo.read("app/engine/core.py")
    repo.write("app/runtime/__init__.py", "")
    repo.write("app/runtime/core.py", code)
    repo.write("app/engine/core.py", "from app.runtime.core import build\n\n__all__ = [\"build\"]\n")
    r = repo.run("check")
    assert r.code == 1
    assert [line for line in r.lines if " MOVED " in line or " STALE " in line or " MISSING " in line] == [
        "checklists/fakepkg-core.md:15:1: MOVED `app/engine/core.py` no longer uses fakepkg-core: its code moved to"
        " `app/runtime/core.py` (same name, same imports) (app/runtime/core.py:2)"]
    assert repo.run("check", "--fix").code == 1
    text = repo.read(CL)
    assert "app/engine/core.py" not in text
    assert "| `app/runtime/core.py` | `parallel_state` (as `mpu`), `DistributedDataParallel` |" in text
    assert text.count("Called in `app/runtime/core.py`") == 2 and "- `app/runtime/core.py:7` —" in text
    assert repo.run("check").code == 0


def test_a_shim_without_a_file_of_its_name_elsewhere_is_stale(repo: Repo) -> None:
    repo.write("app/runtime/__init__.py", "")
    repo.write("app/runtime/engine.py", repo.read("app/engine/core.py"))  # another name: not taken for the move
    repo.write("app/engine/core.py", "from app.runtime.engine import build\n")
    r = repo.run("check", "--output-format", "json")
    codes = sorted(f["code"] for f in r.json()["findings"] if f["code"] in ("MOVED", "STALE", "MISSING"))
    assert codes == ["MISSING", "STALE"]


# --- 8. the baseline cannot silently pass CI -------------------------------------------------


def test_a_missing_baseline_is_an_error_and_write_baseline_writes_it(repo: Repo) -> None:
    repo.write("app/utils/new.py", "import fakepkg.core\n")
    r = console(repo, "check", "--no-cache", "--baseline", "known.json")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == ("upgrade-checklists: error: known.json: baseline file not found (record the current findings with"
                        " --write-baseline known.json)\n")
    assert not (repo.path / "known.json").exists()
    w = console(repo, "check", "--no-cache", "--write-baseline", "known.json")
    assert w.returncode == 0 and "Wrote known.json with 1 known finding" in w.stderr
    assert [f["code"] for f in json.loads(repo.read("known.json"))["findings"]] == ["MISSING"]
    assert console(repo, "check", "--no-cache", "--baseline", "known.json").returncode == 0
    repo.write("app/utils/newer.py", "import fakepkg.core\n")
    again = console(repo, "check", "--no-cache", "--baseline", "known.json", "--output-format", "concise")
    assert again.returncode == 1 and "newer.py" in again.stdout and "`app/utils/new.py`" not in again.stdout


def test_baseline_and_write_baseline_exclude_each_other(repo: Repo) -> None:
    r = repo.run("check", "--baseline", "a.json", "--write-baseline", "b.json")
    assert r.code == 2 and "not allowed with argument" in r.err


# --- 7. one broken table, one finding ---------------------------------------------------------

TERTIARY = """\
| File                 | Imports / Usage                                          |
| -------------------- | -------------------------------------------------------- |
| `app/tools/names.py` | `"fakepkg-core"` in `PACKAGE_IMPORT_MAP` (metadata only) |
| `tests/test_core.py` | `dist_checkpointing.save`                                |
"""


def test_a_table_without_its_delimiter_row_is_one_format_finding(repo: Repo) -> None:
    broken = TERTIARY.replace("| -------------------- | -------------------------------------------------------- |\n", "")
    repo.edit(CL, TERTIARY, broken)
    repo.write("tests/test_more.py", "import fakepkg.core\n")  # named by no table: still MISSING
    r = repo.run("check")
    assert r.code == 1
    assert r.lines == [
        "checklists/fakepkg-core.md:23:1: FORMAT broken table: lines start with '|' but there is no '| --- |' delimiter row",
        "checklists/fakepkg-core.md:21:1: MISSING `tests/test_more.py` imports `fakepkg.core` but no tier lists it (belongs in Tertiary;"
        " or list its folder: a `tests/` row lists every importer below it, 2 today) (tests/test_more.py:1)",
    ]  # the FORMAT finding first; `tests/test_core.py`, named in the broken table, is not MISSING


def test_a_table_under_a_misspelt_tier_heading_is_one_finding(repo: Repo) -> None:
    repo.edit(CL, "### Tertiary (tests, config)", "### Tertairy (tests, config)")
    r = repo.run("check")
    assert r.lines == ["checklists/fakepkg-core.md:21:1: FORMAT unknown tier heading 'Tertairy (tests, config)'"
                       " (expected Primary, Secondary or Tertiary)"]


def test_an_extra_cell_is_a_format_finding(repo: Repo) -> None:
    repo.edit(CL, "| `tests/test_core.py` | `dist_checkpointing.save`                                |",
              "| `tests/test_core.py` | `dist_checkpointing.save`                                | `save` |")
    r = repo.run("check")
    assert r.code == 1 and r.lines == [
        "checklists/fakepkg-core.md:26:1: FORMAT row has 3 cells, its table 2 columns: the extra cells are not read"
        " (a `|` inside a cell, even in a code span, is written `\\|`)"]


# --- 4. no churn from table layout -----------------------------------------------------------

OTHERLIB = {
    "app/engine/ol.py": "import otherlib\n",
    "tests/test_ol.py": "from otherlib import helper\n",
}


def test_new_writes_compact_tables_unless_mdformat_formats_markdown(repo: Repo) -> None:
    for rel, text in OTHERLIB.items():
        repo.write(rel, text)
    assert repo.run("new", "otherlib", "--github", "acme/otherlib").code == 0
    text = repo.read("checklists/otherlib.md")
    assert "| File | Imports / Usage |\n| --- | --- |\n| `app/engine/ol.py` | `otherlib` |\n" in text
    assert "| `tests/test_ol.py` | `helper` |\n" in text
    repo.write(".pre-commit-config.yaml", "repos:\n  - repo: https://github.com/hukkin/mdformat\n    rev: 0.7.17\n"
                                          "    hooks:\n      - id: mdformat\n")
    (repo.path / "checklists/otherlib.md").unlink()
    assert repo.run("new", "otherlib", "--github", "acme/otherlib").code == 0
    text = repo.read("checklists/otherlib.md")
    assert ("| File               | Imports / Usage |\n| ------------------ | --------------- |\n"
            "| `app/engine/ol.py` | `otherlib`      |\n") in text


def test_a_mention_of_mdformat_in_a_comment_is_not_a_hook(repo: Repo) -> None:
    from upgrade_checklists.check.fix import padded_by_default

    repo.write(".pre-commit-config.yaml", "# we might use mdformat one day\nrepos: []\n")
    assert padded_by_default(repo.path) is False
    repo.write(".pre-commit-config.yaml", "repos:\n  - repo: local\n    hooks:\n      - id: md\n        entry: mdformat --wrap 88\n")
    assert padded_by_default(repo.path) is True


def test_fix_keeps_a_compact_table_compact_and_its_rows_as_written(repo: Repo) -> None:
    compact = ("| File | Imports / Usage |\n|---|---|\n"
               "| `app/tools/names.py` | `\"fakepkg-core\"` in `PACKAGE_IMPORT_MAP` (metadata only) |\n"
               "|`tests/test_core.py`|`dist_checkpointing.save`|\n")
    repo.edit(CL, TERTIARY, compact)
    repo.write("tests/test_longer_name_than_the_others.py", "from fakepkg.core import dist_checkpointing\n")
    repo.commit("compact table")
    assert repo.run("check", "--fix").code == 1
    assert ("| File | Imports / Usage |\n|---|---|\n"
            "| `app/tools/names.py` | `\"fakepkg-core\"` in `PACKAGE_IMPORT_MAP` (metadata only) |\n"
            "|`tests/test_core.py`|`dist_checkpointing.save`|\n"
            "| `tests/test_longer_name_than_the_others.py` | `dist_checkpointing` |\n") in repo.read(CL)


def test_fix_keeps_a_padded_table_padded(repo: Repo) -> None:
    repo.write("tests/test_longer.py", "from fakepkg.core import dist_checkpointing\n")
    assert repo.run("check", "--fix").code == 1
    assert ("| File                   | Imports / Usage                                          |\n"
            "| ---------------------- | -------------------------------------------------------- |\n"
            "| `app/tools/names.py`   | `\"fakepkg-core\"` in `PACKAGE_IMPORT_MAP` (metadata only) |\n"
            "| `tests/test_core.py`   | `dist_checkpointing.save`                                |\n"
            "| `tests/test_longer.py` | `dist_checkpointing`                                     |\n") in repo.read(CL)


def test_a_new_table_follows_the_repository_when_the_file_has_none(repo: Repo) -> None:
    """A checklist without any table: the new one is compact, padded where mdformat runs."""
    only = "### Primary (engine layer — most likely to break)\n\n"
    text = repo.read(CL)
    start = text.index("| File                 | Imports / Usage                                        |")
    end = text.index("### Secondary")
    text = text[:start] + "_None._\n\n" + text[end:]
    start = text.index("| File                 | Imports / Usage                                          |")
    end = text.index("______________________________________________________________________")
    text = text[:start] + "_None._\n\n" + text[end:]
    repo.write(CL, text)
    assert only in text
    repo.commit("no tables")
    assert repo.run("check", "--fix").code == 1
    assert "| File | Imports / Usage |\n| --- | --- |\n| `app/engine/core.py` | " in repo.read(CL)
    repo.write(CL, text)
    repo.write(".pre-commit-config.yaml", "repos:\n- repo: https://github.com/executablebooks/mdformat\n  hooks:\n  - id: mdformat\n")
    assert repo.run("check", "--fix").code == 1
    assert "| File                 | Imports / Usage " in repo.read(CL)


# --- 6. deleted and renamed files ------------------------------------------------------------


def test_fix_removes_the_row_of_a_deleted_file_and_marks_nothing(repo: Repo) -> None:
    git(repo.path, "rm", "-q", "tests/test_core.py")
    repo.commit("drop a test")
    r = repo.run("check")
    assert r.lines == ["checklists/fakepkg-core.md:26:1: STALE `tests/test_core.py` was deleted"]
    assert repo.run("check", "--fix").code == 1
    text = repo.read(CL)
    assert "tests/test_core.py" not in text and "TODO" not in text
    assert ("| File                 | Imports / Usage                                          |\n"
            "| -------------------- | -------------------------------------------------------- |\n"
            "| `app/tools/names.py` | `\"fakepkg-core\"` in `PACKAGE_IMPORT_MAP` (metadata only) |\n\n") in text
    assert repo.run("check").out.startswith("All checks passed")


def test_a_live_row_that_stopped_matching_is_removed_never_marked(repo: Repo) -> None:
    repo.write("app/tools/names.py", "X = 1\n")  # neither imports the package nor holds a token of its row
    r = repo.run("check")
    assert r.code == 1
    assert r.lines == ["checklists/fakepkg-core.md:25:1: STALE `app/tools/names.py` no longer imports fakepkg-core and none of"
                       " its row's tokens match"]
    assert repo.run("check", "--fix").code == 1
    text = repo.read(CL)
    assert "app/tools/names.py" not in text and "TODO" not in text
    assert repo.run("check").out.startswith("All checks passed")


def test_fix_follows_a_rename_git_detects_in_rows_and_catalog_references(repo: Repo) -> None:
    """``app/engine/core.py`` -> ``app/engine/runtime.py`` (another name), staged: the row
    and both catalog references follow, the row keeps its place and its cell."""
    git(repo.path, "mv", "app/engine/core.py", "app/engine/runtime.py")
    r = repo.run("check")
    assert r.lines == ["checklists/fakepkg-core.md:15:1: MOVED [warning] `app/engine/core.py` was renamed to `app/engine/runtime.py` (git)"
                       " (app/engine/runtime.py:2)"]
    assert repo.run("check", "--fix").code == 1
    text = repo.read(CL)
    assert "app/engine/core.py" not in text
    assert "| `app/engine/runtime.py` | `parallel_state` (as `mpu`), `DistributedDataParallel` |" in text
    assert text.count("Called in `app/engine/runtime.py`") == 2
    assert repo.run("check").out.startswith("All checks passed")


def test_a_rename_committed_earlier_is_followed_too(repo: Repo) -> None:
    git(repo.path, "mv", "tests/test_core.py", "tests/test_checkpoints.py")
    repo.commit("rename, the checklist not updated")
    repo.write("README.md", "unrelated\n")
    repo.commit("later commit")
    r = repo.run("check")
    assert r.lines == ["checklists/fakepkg-core.md:26:1: MOVED [warning] `tests/test_core.py` was renamed to `tests/test_checkpoints.py` (git)"
                       " (tests/test_checkpoints.py:2)"]
    repo.run("check", "--fix")
    assert "| `tests/test_checkpoints.py` | `dist_checkpointing.save`" in repo.read(CL)


def test_a_catalog_reference_to_a_renamed_file_without_a_row_is_followed(repo: Repo) -> None:
    repo.write("app/engine/helpers.py", "from fakepkg.core import parallel_state as mpu\n\nmpu.initialize_model_parallel(tensor_model_parallel_size=2)\n")
    repo.edit(CL, "Called in `app/engine/core.py` (line 9):", "Called in `app/engine/core.py` (line 9), and in `app/engine/helpers.py` (line 3):")
    repo.edit(CL, "| `app/engine/core.py` | `parallel_state` (as `mpu`), `DistributedDataParallel` |",
              "| `app/engine/core.py` | `parallel_state` (as `mpu`), `DistributedDataParallel` |\n"
              "| `app/engine/*s.py`   | `parallel_state` (as `mpu`)                            |")
    repo.commit("a helper, listed by a glob")
    git(repo.path, "mv", "app/engine/helpers.py", "app/engine/setup_parallel.py")
    repo.edit(CL, "| `app/engine/*s.py`   |", "| `app/engine/*l.py`   |")
    r = repo.run("check")
    assert r.lines == ["checklists/fakepkg-core.md:37:1: MOVED [warning] entry 1: call site `app/engine/helpers.py` was renamed to"
                       " `app/engine/setup_parallel.py` (git)"]
    repo.run("check", "--fix")
    assert "and in `app/engine/setup_parallel.py` (line 3):" in repo.read(CL)


def test_a_typo_in_a_folder_of_a_catalog_reference_gets_the_nearest_path(repo: Repo) -> None:
    repo.edit(CL, "Called in `app/engine/core.py` (line 9):", "Called in `app/engnie/core.py` (line 9):")
    r = repo.run("check")
    assert r.code == 1
    assert r.lines == ["checklists/fakepkg-core.md:36:1: SNIPPET entry 1: call site `app/engnie/core.py` does not exist"
                       " (nearest existing path: `app/engine/core.py`) (app/engnie/core.py:9)"]


# --- 9. small things -----------------------------------------------------------------------


def test_a_changed_comparison_operator_is_shown_whole(repo: Repo) -> None:
    repo.edit("app/engine/core.py", '    if hasattr(mpu, "destroy"):  # version guard\n',
              '    if mpu.VERSION >= (2, 0):  # version guard\n')
    repo.edit(CL, "- `app/engine/core.py:7` — `hasattr(mpu, \"destroy\")` guard",
              "- `app/engine/core.py:7` — `mpu.VERSION < (2, 0)` guard")
    r = repo.run("check")
    assert r.lines == ["checklists/fakepkg-core.md:63:1: GUARD version guard `mpu.VERSION < (2, 0)` is not in `app/engine/core.py`"
                       " (nearest: line 7: `mpu.VERSION < (2, 0)` is now `mpu.VERSION >= (2, 0)`) (app/engine/core.py:7)"]
    assert "``" not in r.out


def test_help_says_what_verbose_and_config_do(capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # one line per option
    assert main(["check", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--config FILE the configuration: a pyproject.toml with a [tool.upgrade-checklists] table, or an" in text
    assert "upgrade-checklists.toml (default: the nearest of them in the current directory or above" in text
    assert "-v, --verbose notes on stderr: where each checklist's import names and the tiers came from" in text
    assert "1 errors reported, or files rewritten by --fix" in text
