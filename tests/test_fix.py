"""``check --fix`` and ``--diff``: every fix kind, byte preservation, idempotence,
mdformat stability, atomicity."""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import Repo
from upgrade_checklists.core import atomic
from upgrade_checklists.check import fix

CL = "checklists/fakepkg-core.md"


def changed_lines(before: str, after: str) -> list[str]:
    """The lines of ``before`` that the change removed or replaced, and the added ones."""
    out = []
    for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0):
        if line[:1] in "+-" and not line.startswith(("+++", "---")):
            out.append(line)
    return out


def mdformat(path: Path) -> None:
    subprocess.run([sys.executable, "-m", "mdformat", "--wrap=88", str(path)], check=True)


def test_missing_creates_table_in_empty_tier(repo: Repo) -> None:
    repo.write("app/utils/new.py", "from fakepkg.core.tensor_parallel import layers as tp_layers\n")
    before = repo.read(CL)
    r = repo.run("check", "--fix")
    assert (r.code, r.out) == (1, f"Fixing {CL}\nAll checks passed after rewriting 1 file (1 checklist, 9 files scanned).\n")
    assert changed_lines(before, repo.read(CL)) == [
        "-_None._",
        "+| File               | Imports / Usage           |",
        "+| ------------------ | ------------------------- |",
        "+| `app/utils/new.py` | `layers` (as `tp_layers`) |",
    ]
    assert repo.run("check").code == 0


def test_missing_adds_sorted_row(repo: Repo) -> None:
    repo.write("tests/test_api.py", "import fakepkg.core\n")
    before = repo.read(CL)
    assert repo.run("check", "--fix").code == 1
    assert changed_lines(before, repo.read(CL)) == [
        "+| `tests/test_api.py`  | `fakepkg.core`                                           |",
    ]


def test_missing_realigns_a_table_that_grows(repo: Repo) -> None:
    repo.write("tests/unit/test_parallel_state_helpers.py", "from fakepkg.core import parallel_state\n")
    before = repo.read(CL)
    assert repo.run("check", "--fix").code == 1
    assert changed_lines(before, repo.read(CL)) == [
        "-| File                 | Imports / Usage                                          |",
        "-| -------------------- | -------------------------------------------------------- |",
        "-| `app/tools/names.py` | `\"fakepkg-core\"` in `PACKAGE_IMPORT_MAP` (metadata only) |",
        "-| `tests/test_core.py` | `dist_checkpointing.save`                                |",
        "+| File                                        | Imports / Usage                                          |",
        "+| ------------------------------------------- | -------------------------------------------------------- |",
        '+| `app/tools/names.py`                        | `"fakepkg-core"` in `PACKAGE_IMPORT_MAP` (metadata only) |',
        "+| `tests/test_core.py`                        | `dist_checkpointing.save`                                |",
        "+| `tests/unit/test_parallel_state_helpers.py` | `parallel_state`                                         |",
    ]
    assert repo.run("check").code == 0


def test_a_live_row_that_stopped_using_the_package_is_removed_when_nothing_cites_it(repo: Repo) -> None:
    """A listed file that still exists but no longer uses the package, and that no catalog
    entry or version guard names: its row is untrue, and --fix removes it (as a linter's
    fixer would); nothing is marked."""
    repo.write("tests/test_core.py", "def test_nothing():\n    pass\n")
    before = repo.read(CL)
    r = repo.run("check", "--fix")
    assert r.code == 1 and r.out.startswith(f"Fixing {CL}\n")
    assert changed_lines(before, repo.read(CL)) == [
        "-| `tests/test_core.py` | `dist_checkpointing.save`                                |",
    ]
    assert "TODO" not in repo.read(CL)
    assert repo.run("check").code == 0


def test_a_live_row_the_catalog_still_cites_is_left_to_a_person(repo: Repo) -> None:
    """The same, for a file the catalog's call sites and a version guard name: the entries
    need re-reading, so the row stays and the finding says why (not fixable)."""
    repo.write("app/engine/core.py", "def build(model):\n    return model\n")
    before = repo.read(CL)
    r = repo.run("check", "--fix")
    assert r.code == 1 and "Fixing" not in r.out
    stale = [line for line in r.lines if " STALE " in line]
    assert stale == [f"{CL}:15:1: STALE `app/engine/core.py` no longer imports fakepkg-core and none of its row's tokens match"
                     " (the catalog still cites it: entry 1)"]
    assert repo.read(CL) == before


def test_a_live_row_only_a_guard_cites_is_left_to_a_person(repo: Repo) -> None:
    """A version guard naming the file is enough to keep the row."""
    text = repo.read(CL)
    text = text.replace("Called in `app/engine/core.py` (line 9):", "Called somewhere:")
    text = text.replace("Called in `app/engine/core.py` (lines 10-13):", "Called somewhere else:")
    repo.write(CL, text)
    repo.commit("catalog without call sites")
    repo.write("app/engine/core.py", "def build(model):\n    return model\n")
    r = repo.run("check", "--fix")
    stale = [line for line in r.lines if " STALE " in line]
    assert stale == [f"{CL}:15:1: STALE `app/engine/core.py` no longer imports fakepkg-core and none of its row's tokens match"
                     " (the catalog still cites it: a version guard)"]
    assert "| `app/engine/core.py` |" in repo.read(CL)


def test_moved_rewrites_row_catalog_and_guards(repo: Repo) -> None:
    (repo.path / "app/engine/v2").mkdir()
    (repo.path / "app/engine/core.py").rename(repo.path / "app/engine/v2/core.py")
    before = repo.read(CL)
    r = repo.run("check", "--fix")
    assert r.out == f"Fixing {CL}\nAll checks passed after rewriting 1 file (1 checklist, 8 files scanned).\n"
    assert changed_lines(before, repo.read(CL)) == [
        "-| File                 | Imports / Usage                                        |",
        "-| -------------------- | ------------------------------------------------------ |",
        "-| `app/engine/core.py` | `parallel_state` (as `mpu`), `DistributedDataParallel` |",
        "+| File                    | Imports / Usage                                        |",
        "+| ----------------------- | ------------------------------------------------------ |",
        "+| `app/engine/v2/core.py` | `parallel_state` (as `mpu`), `DistributedDataParallel` |",
        "-Called in `app/engine/core.py` (line 9):",
        "+Called in `app/engine/v2/core.py` (line 9):",
        "-Called in `app/engine/core.py` (lines 10-13):",
        "+Called in `app/engine/v2/core.py` (lines 10-13):",
        "-- `app/engine/core.py:7` — `hasattr(mpu, \"destroy\")` guard; remove once upstream has it.",
        "+- `app/engine/v2/core.py:7` — `hasattr(mpu, \"destroy\")` guard; remove once upstream has it.",
    ]
    assert repo.run("check").code == 0


def test_moved_to_another_tier_moves_the_row(repo: Repo) -> None:
    (repo.path / "tests/test_core.py").rename(repo.path / "app/utils/test_core.py")
    assert repo.run("check", "--fix").code == 1
    text = repo.read(CL)
    secondary = text.split("### Secondary")[1].split("### Tertiary")[0]
    # the row's token still covers the import (a use of `save` through it): nothing to add
    assert "| `app/utils/test_core.py` | `dist_checkpointing.save` |" in secondary
    assert "tests/test_core.py" not in text
    assert repo.run("check").code == 0


def test_changed_adds_names_and_strikes_dead_tokens(repo: Repo) -> None:
    repo.write("tests/test_core.py", "from fakepkg.core import dist_checkpointing as dcp\n\ndef test_load():\n    dcp.load({})\n")
    before = repo.read(CL)
    assert repo.run("check", "--fix").code == 1
    after = repo.read(CL)
    assert [l for l in changed_lines(before, after) if "test_core" in l] == [
        "-| `tests/test_core.py` | `dist_checkpointing.save`                                |",
        "+| `tests/test_core.py` | ~~`dist_checkpointing.save`~~, `dist_checkpointing` (as `dcp`) |",
    ]
    assert repo.run("check").code == 0
    r = repo.run("check", "--fix")
    assert (r.code, repo.read(CL)) == (0, after)


def test_tier_moves_row(repo: Repo) -> None:
    repo.edit("pyproject.toml", 'tertiary = ["tests/", "app/tools/"]', 'tertiary = ["tests/"]')
    assert repo.run("check", "--fix").code == 1
    text = repo.read(CL)
    assert "| `app/tools/names.py` | `\"fakepkg-core\"` in `PACKAGE_IMPORT_MAP` (metadata only) |" in text.split("### Secondary")[1].split("### Tertiary")[0]
    assert repo.run("check").code == 0


def test_line_rewrites_recorded_lines(repo: Repo) -> None:
    repo.edit("app/engine/core.py", "def build(model):\n", "def build(model):\n    '''Build.'''\n\n")
    before = repo.read(CL)
    assert repo.run("check", "--fix").code == 1
    assert changed_lines(before, repo.read(CL)) == [
        "-Called in `app/engine/core.py` (line 9):",
        "+Called in `app/engine/core.py` (line 11):",
        "-Called in `app/engine/core.py` (lines 10-13):",
        "+Called in `app/engine/core.py` (lines 12-15):",
        '-- `app/engine/core.py:7` — `hasattr(mpu, "destroy")` guard; remove once upstream has it.',
        '+- `app/engine/core.py:9` — `hasattr(mpu, "destroy")` guard; remove once upstream has it.',
    ]


def test_line_keeps_en_dash_and_prefix(repo: Repo) -> None:
    repo.edit(CL, "Called in `app/engine/core.py` (lines 10-13)", "Called in `app/engine/core.py` (`build`, lines 10–13)")
    repo.edit("app/engine/core.py", "def build(model):\n", "def build(model):\n    pass\n")
    repo.run("check", "--fix")
    assert "Called in `app/engine/core.py` (`build`, lines 11–14):" in repo.read(CL)


def test_numbering_renumbers_and_fixes_references(repo: Repo) -> None:
    repo.edit(CL, "### 2. `fakepkg", "### 5. `fakepkg")
    repo.edit(CL, "**Check:** `config` is still a keyword.", "**Check:** `config` is still a keyword (see entry 5 and entry 1).")
    before = repo.read(CL)
    assert repo.run("check", "--fix").code == 1
    assert changed_lines(before, repo.read(CL)) == [
        "-### 5. `fakepkg.core.distributed.DistributedDataParallel`",
        "+### 2. `fakepkg.core.distributed.DistributedDataParallel`",
        "-**Check:** `config` is still a keyword (see entry 5 and entry 1).",
        "+**Check:** `config` is still a keyword (see entry 2 and entry 1).",
    ]
    assert repo.run("check").code == 0


def test_status_count_and_missing_row(repo: Repo) -> None:
    repo.edit("pyproject.toml", 'roots = ["app", "tests"]', 'roots = ["app", "tests"]\nstatus_file = "SKILL.md"')
    skill = "# Skill\n\n| Checklist | Entries |\n| --- | --- |\n| `fakepkg-core.md` | 7 API entries (parallel state, DDP) |\n"
    repo.write("SKILL.md", skill)
    assert repo.run("check", "--fix").out == "Fixing SKILL.md\nAll checks passed after rewriting 1 file (1 checklist, 8 files scanned).\n"
    assert repo.read("SKILL.md") == skill.replace("7 API entries", "2 API entries")
    repo.write("SKILL.md", "| Checklist     | Entries       |\n| ------------- | ------------- |\n| `other.md`    | 1 API entry   |\n")
    repo.write("checklists/other.md", repo.read(CL).replace("package: fakepkg-core", "package: other").replace("### 2.", "### X.").split("### X.")[0] + "## Version-Guarded Code\n\n_None._\n")
    repo.run("check", "--fix")
    assert repo.read("SKILL.md") == (
        "| Checklist         | Entries       |\n"
        "| ----------------- | ------------- |\n"
        "| `fakepkg-core.md` | 2 API entries |\n"
        "| `other.md`        | 1 API entry   |\n"
    )


def test_unaligned_table_keeps_untouched_rows_bytes(repo: Repo) -> None:
    text = repo.read(CL)
    unaligned = text.replace(
        "| File                 | Imports / Usage                                          |\n"
        "| -------------------- | -------------------------------------------------------- |\n",
        "| File | Imports / Usage |\n|---|---|\n",
    ).replace("| `tests/test_core.py` | `dist_checkpointing.save`                                |", "| `tests/test_core.py` |  `dist_checkpointing.save` |")
    repo.write(CL, unaligned)
    assert repo.run("check").code == 0
    repo.write("tests/test_zz.py", "import fakepkg.core as fc\n")
    repo.run("check", "--fix")
    assert changed_lines(unaligned, repo.read(CL)) == ["+| `tests/test_zz.py` | `fakepkg.core` (as `fc`) |"]


def test_unfixable_findings_leave_file_untouched(repo: Repo) -> None:
    repo.edit("app/engine/core.py", "tensor_model_parallel_size=2", "tensor_model_parallel_size=8")  # SNIPPET
    repo.edit(CL, '`hasattr(mpu, "destroy")`', '`hasattr(mpu, "teardown")`')  # GUARD: quoted code is not there
    repo.edit(CL, "github: example/fakepkg", "github: nope")  # FRONTMATTER
    old = time.time() - 100
    os.utime(repo.path / CL, (old, old))
    mtime = (repo.path / CL).stat().st_mtime_ns
    r = repo.run("check", "--fix")
    assert r.code == 1 and "Fixing" not in r.out
    assert r.codes == ["FRONTMATTER", "GUARD", "SNIPPET"]
    assert (repo.path / CL).stat().st_mtime_ns == mtime


def test_clean_file_is_not_rewritten(repo: Repo) -> None:
    old = time.time() - 100
    os.utime(repo.path / CL, (old, old))
    mtime = (repo.path / CL).stat().st_mtime_ns
    assert repo.run("check", "--fix") .code == 0
    assert (repo.path / CL).stat().st_mtime_ns == mtime


def many_findings(repo: Repo) -> None:
    repo.write("app/utils/new.py", "from fakepkg.core.tensor_parallel import layers\n")
    repo.write("tests/test_api.py", "import fakepkg.core\n")
    repo.edit("app/engine/core.py", "def build(model):\n", "def build(model):\n    pass\n")
    repo.edit(CL, "### 2. `fakepkg", "### 3. `fakepkg")
    repo.remove("app/tools/names.py")
    repo.write("tests/test_core.py", "from fakepkg.core import dist_checkpointing as dcp\n\ndef test_load():\n    dcp.load({})\n")


def test_fix_is_idempotent_and_clean_after(repo: Repo) -> None:
    many_findings(repo)
    assert repo.run("check").codes == ["CHANGED", "CHANGED", "GUARD", "LINE", "LINE", "MISSING", "MISSING", "NUMBERING", "STALE"]
    r = repo.run("check", "--fix")
    assert (r.code, r.out) == (1, f"Fixing {CL}\nAll checks passed after rewriting 1 file (1 checklist, 9 files scanned).\n")  # and no finding is left
    once = repo.read(CL)
    r = repo.run("check", "--fix")
    assert (r.code, r.out) == (0, "All checks passed (1 checklist, 9 files scanned).\n")
    assert repo.read(CL) == once


def test_mdformat_leaves_fixed_tables_alone(repo: Repo, tmp_path: Path) -> None:
    many_findings(repo)
    repo.run("check", "--fix")
    fixed = repo.read(CL)
    copy = tmp_path / "copy.md"
    shutil.copy(repo.path / CL, copy)
    mdformat(copy)
    formatted = copy.read_text()
    tables = lambda text: [l for l in text.splitlines() if l.startswith("|")]
    assert len(tables(fixed)) == 10  # the deleted file's row removed, two rows added, a table made
    assert tables(formatted) == tables(fixed)
    assert formatted == fixed  # the fixture was mdformat-clean, and so is the fix


def test_diff_prints_and_changes_nothing(repo: Repo) -> None:
    repo.write("app/utils/new.py", "import fakepkg.core\n")
    before = repo.read(CL)
    r = repo.run("check", "--diff")
    assert r.code == 1
    assert r.out.splitlines()[:3] == [f"--- a/{CL}", f"+++ b/{CL}", "@@ -16,7 +16,9 @@"]
    assert "+| `app/utils/new.py` | `fakepkg.core`  |" in r.out.splitlines()
    assert repo.read(CL) == before
    repo.write(CL, before.replace("_None._", "| File | Imports / Usage |\n| --- | --- |\n| `app/utils/new.py` | `fakepkg.core` |"))
    assert repo.run("check", "--diff") .code == 0


def test_render_failure_leaves_original(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo.write("app/utils/new.py", "import fakepkg.core\n")
    before = repo.read(CL)

    def boom(self):
        raise RuntimeError("injected failure while rendering")

    monkeypatch.setattr(fix.Table, "render", boom)
    r = repo.run("check", "--fix")
    assert r.code == 2 and r.err.startswith("upgrade-checklists: internal error: RuntimeError: injected failure while rendering (details in ")
    assert repo.read(CL) == before


def test_write_failure_leaves_original_and_no_temp(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo.write("app/utils/new.py", "import fakepkg.core\n")
    before = repo.read(CL)

    def fail(src, dst):
        raise OSError(28, "No space left on device", str(dst))

    monkeypatch.setattr(atomic.os, "replace", fail)
    r = repo.run("check", "--fix")
    assert r.code == 2
    assert r.err == f"upgrade-checklists: error: {repo.path / CL}: No space left on device\n"
    assert repo.read(CL) == before
    assert sorted(p.name for p in (repo.path / "checklists").iterdir()) == ["fakepkg-core.md"]


# Cells whose display width Python's len() and unicodedata get wrong; the widths are those
# mdformat-tables pads them to (see the table below, written by hand from mdformat's output).
WIDE_CELLS = [
    ("`x.py` ⚠️", 9),  # WARNING SIGN + VARIATION SELECTOR-16: an emoji, 2 columns
    ("👍🏽", 2),  # thumbs up + skin-tone modifier: one emoji
    ("👩\u200d💻", 2),  # woman + ZWJ + laptop: one emoji
    ("soft\u00adhyphen", 11),  # the soft hyphen takes a column
    ("日本", 4),
    ("plain", 5),
]

MDFORMAT_TABLE = """\
| Cell        | Note |
| ----------- | ---- |
| `x.py` ⚠️   | a    |
| 👍🏽          | b    |
| 👩\u200d💻          | c    |
| soft\u00adhyphen | d    |
| 日本        | e    |
| plain       | f    |
"""


@pytest.mark.parametrize(("text", "expected"), WIDE_CELLS)
def test_width_is_the_display_width_mdformat_tables_pads_to(text: str, expected: int) -> None:
    assert fix.width(text) == expected


def test_width_of_control_characters_is_not_negative() -> None:
    assert fix.width("a\x07b") == 2


def test_mdformat_pads_emoji_cells_as_width_measures_them(tmp_path: Path) -> None:
    path = tmp_path / "t.md"
    path.write_text("| Cell | Note |\n| --- | --- |\n" + "".join(f"| {t} | {n} |\n" for (t, _), n in zip(WIDE_CELLS, "abcdef")))
    mdformat(path)
    assert path.read_text() == MDFORMAT_TABLE
    # so every line of mdformat's table has one display width: we see it as aligned
    assert {fix.width(line) for line in MDFORMAT_TABLE.splitlines()} == {22}


def test_fix_keeps_an_emoji_table_mdformat_clean(repo: Repo) -> None:
    row = "| `tests/test_core.py` | `dist_checkpointing.save` ⚠️ 👩\u200d💻                          |"
    repo.edit(CL, "| `tests/test_core.py` | `dist_checkpointing.save`                                |", row)
    path = repo.path / CL
    mdformat(path)
    before = repo.read(CL)
    assert row in before.splitlines()  # as mdformat aligns it: 25 spaces pad the emoji (2 columns each)
    repo.commit("emoji in a row")
    repo.write("tests/test_api.py", "import fakepkg.core\n")
    assert repo.run("check", "--fix").code == 1
    fixed = repo.read(CL)
    assert changed_lines(before, fixed) == [
        "+| `tests/test_api.py`  | `fakepkg.core`                                           |",
    ]
    mdformat(path)
    assert repo.read(CL) == fixed
