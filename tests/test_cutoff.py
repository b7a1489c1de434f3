"""The cut-off (``cutoff.py``): after an edit to files that read the same to the check (a
file importing no focused package, or an edit that leaves every import, name, string
and catalog answer as it was), the last full run's outcome is reused; any edit that
changes what the check takes from a file runs the check again."""

from __future__ import annotations

import json

from conftest import Repo
from test_runcache import age, stale_row

CUT = "the files changed since the last run read the same to the check: its outcome is reused"
RECORD = ".upgrade-checklists-cache/v3/cutoff.json"
CL = "checklists/fakepkg-core.md"


def edit_and_age(repo: Repo, rel: str, old: str, new: str) -> None:
    repo.edit(rel, old, new)
    age(repo, rel, seconds=7200)  # not racy, and not the stat the last run saw


PLAIN = "app/utils/plain.py"


def plain_file(repo: Repo) -> None:
    repo.write(PLAIN, "import os\n\nSIZE = 2\n")
    repo.commit("a file that imports no focused package")


def test_an_edit_to_a_file_that_imports_no_focused_package_reuses_the_outcome(repo: Repo) -> None:
    plain_file(repo)
    stale_row(repo)
    age(repo)
    first = repo.run("check", "-v")
    assert first.codes == ["STALE"] and CUT not in first.err
    edit_and_age(repo, PLAIN, "SIZE = 2\n", "import sys\n\nSIZE = 3\n")
    second = repo.run("check", "-v")
    assert CUT in second.err
    assert second.out == first.out and second.code == 1
    # the reused outcome is remembered for the new state: the next run is a plain warm run
    assert "nothing changed since the last run" in repo.run("check", "-v").err
    # compared with the full run's view, not the reuse's: a second edit is judged the same way
    edit_and_age(repo, PLAIN, "SIZE = 3\n", "SIZE = 4\n")
    assert CUT in repo.run("check", "-v").err


def test_a_file_that_starts_importing_the_package_runs_again(repo: Repo) -> None:
    plain_file(repo)
    age(repo)
    assert repo.run("check").code == 0
    edit_and_age(repo, PLAIN, "import os\n", "import os\nfrom fakepkg.core import optimizer\n")
    r = repo.run("check", "-v")
    assert CUT not in r.err
    assert r.lines == ["checklists/fakepkg-core.md:17:1: MISSING `app/utils/plain.py` imports `fakepkg.core.optimizer`"
                       " but no tier lists it (belongs in Secondary) (app/utils/plain.py:2)"]


def test_an_edit_that_keeps_imports_names_and_catalog_answers_reuses_the_outcome(repo: Repo) -> None:
    age(repo)
    assert repo.run("check").code == 0
    # the docstring is a comment to the scan, and no line moves
    edit_and_age(repo, "app/engine/core.py", '"""Engine.', '"""The engine.')
    assert CUT in repo.run("check", "-v").err


AGAIN = ("the files changed since the last run read the same to the check but for places the catalog of "
         "checklists/fakepkg-core.md found in them, checked again: its outcome is reused")


def test_an_importer_no_catalog_asks_about_reuses_the_outcome_when_it_reads_the_same(repo: Repo) -> None:
    age(repo)
    first = repo.run("check")
    assert first.code == 0
    # a row's file that no catalog names: its scan is compared, no catalog is checked again
    edit_and_age(repo, "tests/test_core.py", '"/tmp/x")\n', '"/tmp/x")  # saved\n')
    r = repo.run("check", "-v")
    assert CUT in r.err and r.out == first.out
    edit_and_age(repo, "tests/test_core.py", "  # saved\n", "\n    from fakepkg.core import optimizer\n")
    r = repo.run("check", "-v")
    assert "read the same to the check" not in r.err and r.codes == ["CHANGED"]


def test_an_edit_that_moves_a_catalogued_call_checks_that_catalog_again(repo: Repo) -> None:
    age(repo)
    assert repo.run("check").code == 0
    # a line above every catalogued call: the imports, names and strings read the same, the places do not
    edit_and_age(repo, "app/engine/core.py", "def build(model):\n", "def build(model):\n    # set up\n")
    r = repo.run("check", "-v")
    assert AGAIN in r.err and CUT not in r.err
    assert r.lines == [
        "checklists/fakepkg-core.md:36:1: LINE [warning] entry 1: snippet in `app/engine/core.py` is now at line 10"
        " (recorded line 9) (app/engine/core.py:10)",
        "checklists/fakepkg-core.md:50:1: LINE [warning] entry 2: snippet in `app/engine/core.py` is now at lines 11-14"
        " (recorded lines 10-13) (app/engine/core.py:11)",
        "checklists/fakepkg-core.md:63:1: GUARD [warning] version guard `hasattr(mpu, \"destroy\")` in `app/engine/core.py`"
        " is now at line 8 (recorded line 7) (app/engine/core.py:8)",
    ]
    assert r.code == 0  # warnings (``strict-lines`` is off)
    # what a run without any cache finds, to the byte
    assert repo.run("check", "--no-cache").out == r.out
    # the same edit twice more: judged against the full run's view each time
    edit_and_age(repo, "app/engine/core.py", "    # set up\n", "    # set up\n    # and again\n")
    r = repo.run("check", "-v")
    assert AGAIN in r.err and "is now at line 11 (recorded line 9)" in r.out
    assert repo.run("check", "--no-cache").out == r.out


def test_only_the_catalogs_that_asked_about_the_moved_file_are_checked_again(repo: Repo) -> None:
    other = CL.replace("fakepkg-core", "fakepkg-ext")
    repo.write("app/utils/ext.py", "import fakepkg_ext\n\n\ndef go():\n    fakepkg_ext.run(fast=True)\n")
    repo.write(other, "---\npackage: fakepkg-ext\ngithub: example/ext\nbranch_template: v${VERSION}\n"
               "upstream_paths: [fakepkg_ext/]\nimport_names: [fakepkg_ext]\n---\n\n## Affected Files\n\n"
               "### Primary\n\n_None._\n\n### Secondary\n\n| File | Imports / Usage |\n| --- | --- |\n"
               "| `app/utils/ext.py` | `fakepkg_ext` |\n| `app/utils/other.py` | `fakepkg_ext` |\n\n### Tertiary\n\n_None._\n\n"
               "## API Usage Catalog\n\n### 1. `fakepkg_ext.run`\n\nCalled in `app/utils/ext.py` (line 2):\n\n"
               "```python\nfakepkg_ext.run(fast=True)\n```\n\n## Version-Guarded Code\n\n_None._\n")
    repo.commit("a second checklist, its one catalog line stale")
    age(repo)
    first = repo.run("check")
    assert first.codes == ["LINE"] and "fakepkg-ext.md" in first.lines[0]
    edit_and_age(repo, "app/engine/core.py", "def build(model):\n", "def build(model):\n    # set up\n")
    r = repo.run("check", "-v")
    assert AGAIN in r.err  # fakepkg-ext.md is not named: its catalog never asked about app/engine/core.py
    assert sorted(r.codes) == ["GUARD", "LINE", "LINE", "LINE"] and first.lines[0] in r.lines
    assert repo.run("check", "--no-cache").out == r.out


def test_a_line_count_the_catalog_read_is_compared(repo: Repo) -> None:
    # a catalog line past the end of an importer: comments added, its imports, names and
    # strings stay as they were, and only its line count tells the finding is gone
    repo.edit(CL, "## Version-Guarded Code", "### 3. `fakepkg.core.parallel_state.destroy`\n\n"
              "Called in `app/engine/core.py` (line 20).\n\n## Version-Guarded Code")
    age(repo)
    first = repo.run("check")
    assert first.codes == ["LINE"] and "line 20 is past the end of the file (13 lines)" in first.out
    edit_and_age(repo, "app/engine/core.py", "    )\n", "    )\n" + "# note\n" * 8)
    r = repo.run("check", "-v")
    assert AGAIN in r.err and r.code == 0 and r.codes == []  # the count the catalog compares changed
    (repo.path / RECORD).unlink()  # a full run at 21 lines
    (repo.path / ".upgrade-checklists-cache/v3/run.json").unlink()
    assert CUT not in repo.run("check", "-v").err
    # the same edit undone and done again: nothing but comments past the last line changed
    edit_and_age(repo, "app/engine/core.py", "# note\n" * 8, "# other note\n" * 8)
    assert CUT in repo.run("check", "-v").err
    # one line more: both counts reach line 20, the highest the catalog compares: no finding can tell
    edit_and_age(repo, "app/engine/core.py", "# other note\n", "# other note\n# and one more\n")
    assert CUT in repo.run("check", "-v").err


def test_lines_added_past_every_catalogued_line_read_the_same(repo: Repo) -> None:
    age(repo)
    first = repo.run("check")
    assert first.code == 0
    for i in range(3):  # a comment appended, as an editor's last line: nothing the catalog reads moves
        edit_and_age(repo, "app/engine/core.py", "    )\n", f"    )\n# appended {i}\n")
        r = repo.run("check", "-v")
        assert CUT in r.err and r.out == first.out


def test_more_than_a_few_changed_files_run_again(repo: Repo) -> None:
    age(repo)
    assert repo.run("check").code == 0
    for i in range(17):
        repo.write(f"app/utils/mod{i}.py", "X = 1\n")
    repo.commit("many files")
    age(repo)
    assert repo.run("check").code == 0  # new files: a full run
    for i in range(17):
        edit_and_age(repo, f"app/utils/mod{i}.py", "X = 1", "X = 2")
    assert CUT not in repo.run("check", "-v").err


def test_forged_or_garbled_records_are_not_used(repo: Repo) -> None:
    stale_row(repo)
    age(repo)
    assert repo.run("check").codes == ["STALE"]
    record = json.loads((repo.path / RECORD).read_text())
    assert set(record) == {"header", "base", "files", "stats", "reads", "observed", "asked", "modules", "ceilings", "outcome",
                           "catalogs", "moved"}
    edit_and_age(repo, "app/utils/other.py", "import os\n", "import os\nfrom fakepkg.core import optimizer\n")
    record["outcome"]["findings"] = []
    for bad in (b"not json", b"[]", json.dumps({**record, "observed": [["x"]]}).encode(),
                json.dumps({**record, "outcome": {"findings": [{"code": 1}]}}).encode(),
                json.dumps({**record, "header": {**record["header"], "build": "0+other"}}).encode(),
                json.dumps({**record, "base": "0" * 40}).encode(), json.dumps({**record, "ceilings": {"a.py": "9"}}).encode()):
        (repo.path / RECORD).write_bytes(bad)
        (repo.path / ".upgrade-checklists-cache/v3/run.json").unlink(missing_ok=True)
        r = repo.run("check", "-v")
        assert r.codes == ["MISSING", "STALE"] and CUT not in r.err, bad[:40]


def test_every_file_the_check_reads_past_the_pre_filter_is_observed(repo: Repo, monkeypatch) -> None:
    """What ``cutoff`` trusts: a file read for anything but the pre-filter's "cannot
    import" is in ``Result.observed``. Every content read goes through ``files.read_file``."""
    import sys

    from upgrade_checklists.core import config, files
    from upgrade_checklists.check.compare import run_check
    from upgrade_checklists.project.scan import Prefilter

    plain_file(repo)
    repo.write("app/utils/conf.txt", "fakepkg settings\n")
    repo.write("tests/plugins/a/conf.py", "from fakepkg.core import plugins\n")
    repo.write("tests/plugins/b/conf.py", "X = 1\n")
    repo.edit(CL, "| `tests/test_core.py` |", "| `app/utils/conf.txt` | `fakepkg settings` |\n"
              "| `tests/plugins/*/conf.py` | `plugins` |\n| `tests/test_core.py` |")
    repo.edit(CL, "## Version-Guarded Code", "### 3. `SIZE`\n\nIn `app/utils/plain.py` (line 3):\n\n"
              "```python\nSIZE = 2\n```\n\n## Version-Guarded Code")
    repo.commit("rows and entries of every kind")
    monkeypatch.setenv("UPGRADE_CHECKLISTS_JOBS", "1")  # every read in this process
    reads: list[tuple[str, str]] = []
    real = files.read_file

    def read_file(root, rel, st=None):
        reads.append((sys._getframe(1).f_code.co_name, rel))
        return real(root, rel, st)

    for module in list(sys.modules.values()):
        if getattr(module, "read_file", None) is real:
            monkeypatch.setattr(module, "read_file", read_file)
    res = run_check(config.load(repo.path), use_cache=False)
    assert {"app/utils/conf.txt", "app/utils/plain.py", "tests/plugins/b/conf.py"} <= res.observed
    may_import = Prefilter(res.modules)
    for caller, rel in reads:
        if rel not in res.observed:
            assert caller == "_scan_one" and not may_import((repo.path / rel).read_bytes()), (caller, rel)
    assert any(rel not in res.observed for _, rel in reads)  # app/__init__.py and the like: read, not observed


def test_files_read_by_name_are_never_cut_off(repo: Repo) -> None:
    """Checklists, the status file and the manifests are not sources: any edit runs again."""
    from test_matrix import SECOND, matrix_lines, setup

    setup(repo)
    repo.commit("a status file with a matrix")
    age(repo)
    assert len(matrix_lines(repo.run("check"))) == 1
    repo.write("pyproject.second.toml", SECOND.replace('"peft"', '"peft<=0.18.1"'))
    age(repo, "pyproject.second.toml", seconds=7200)
    r = repo.run("check", "-v")
    assert CUT not in r.err and matrix_lines(r) == []
    edit_and_age(repo, "STATUS.md", "✅ 2 API entries", "✅ 3 API entries")
    r = repo.run("check", "-v")
    assert CUT not in r.err and any(" STATUS " in line for line in r.lines)
    stale_row(repo)
    age(repo, CL, seconds=7200)
    r = repo.run("check", "-v")
    assert CUT not in r.err and "STALE" in r.codes


def test_a_new_import_on_a_line_of_its_own_is_compared(repo: Repo) -> None:
    # the docstring's line becomes an import: no line moves, no catalog answer changes
    age(repo)
    assert repo.run("check").code == 0
    edit_and_age(repo, "app/engine/core.py", '"""Engine. `import fakepkg.core` in a docstring is not an import."""',
                 "from fakepkg.core import optimizer")
    r = repo.run("check", "-v")
    assert CUT not in r.err
    assert r.codes == ["CHANGED"] and "imports `fakepkg.core.optimizer`, not in its row" in r.out


def test_a_garbled_catalog_record_means_a_full_run(repo: Repo) -> None:
    age(repo)
    assert repo.run("check").code == 0
    record = json.loads((repo.path / RECORD).read_text())
    assert record["catalogs"] == {CL: {"span": [0, 0], "asked": ["app/engine/core.py", "fakepkg/core/distributed.py", "fakepkg/core/parallel_state.py"]}} and record["moved"] == {}
    edit_and_age(repo, "app/engine/core.py", "def build(model):\n", "def build(model):\n    # set up\n")
    expected = repo.run("check", "--no-cache").out
    for bad in ({**record, "catalogs": {CL: {"span": [0, 5], "asked": ["app/engine/core.py"]}}},  # past the findings
                {**record, "catalogs": {CL: {"span": [1, 0], "asked": ["app/engine/core.py"]}}},
                {**record, "catalogs": {CL: {"span": [0, 0], "asked": "app/engine/core.py"}}},
                {**record, "catalogs": [CL]}, {**record, "moved": {"a.py": 1}},
                {k: v for k, v in record.items() if k != "catalogs"}):
        (repo.path / RECORD).write_text(json.dumps(bad))
        (repo.path / ".upgrade-checklists-cache/v3/run.json").unlink(missing_ok=True)
        r = repo.run("check", "-v")
        assert "read the same to the check" not in r.err and r.out == expected, bad
