"""The structure check end to end through ``main``: one test per finding code that
triggers it, and the clean fixture that does not."""

from __future__ import annotations

from conftest import Repo, git


def test_clean_fixture_passes(repo: Repo) -> None:
    r = repo.run("check")
    assert (r.code, r.out) == (0, "All checks passed (1 checklist, 8 files scanned).\n")


def test_missing_import_not_listed(repo: Repo) -> None:
    repo.write("app/utils/new.py", "def f():\n    from fakepkg.core.tensor_parallel import layers\n    return layers\n")
    r = repo.run("check")
    assert r.code == 1
    assert r.lines == [
        "checklists/fakepkg-core.md:17:1: MISSING `app/utils/new.py` imports "
        "`fakepkg.core.tensor_parallel.layers` but no tier lists it (belongs in Secondary) (app/utils/new.py:2)"
    ]


def test_missing_finds_every_kind_of_import(repo: Repo) -> None:
    repo.write("app/utils/kinds.py", """
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from fakepkg.core import a
        try:
            import fakepkg.core.b as b
        except ImportError:
            b = None
        if b:
            import fakepkg.core.c
        def lazy():
            from fakepkg.core.d import e as f
        """)
    r = repo.run("check", "--format", "json")
    (finding,) = r.json()["findings"]
    assert finding["code"] == "MISSING"
    assert finding["message"] == (
        "`app/utils/kinds.py` imports `fakepkg.core.a`, `fakepkg.core.b as b`, `fakepkg.core.c`, "
        "`fakepkg.core.d.e as f` but no tier lists it (belongs in Secondary)"
    )


def test_no_false_positives_from_comments_strings_or_substrings(repo: Repo) -> None:
    repo.write("app/utils/noise.py", '''
        """Docstring: import fakepkg.core as fc"""
        # from fakepkg.core import x
        import fakepkg_ext
        import notfakepkg.core
        from flash_attn.fakepkg import core
        S = "from fakepkg.core import y"
        def f():
            """import fakepkg.core"""
        ''')
    assert repo.run("check").code == 0


def test_stale_listed_file_gone(repo: Repo) -> None:
    repo.remove("app/tools/names.py")
    r = repo.run("check")
    assert r.lines == ["checklists/fakepkg-core.md:25:1: STALE `app/tools/names.py` was deleted"]  # git held it
    assert r.code == 1


def test_stale_no_longer_uses(repo: Repo) -> None:
    repo.write("tests/test_core.py", "def test_nothing():\n    assert True\n")
    r = repo.run("check")
    assert r.lines == [
        "checklists/fakepkg-core.md:26:1: STALE `tests/test_core.py` no longer imports fakepkg-core "
        "and none of its row's tokens match"
    ]


def test_indirect_user_is_legal_and_not_stale(repo: Repo) -> None:
    # names.py never imports the package; its documented string is enough
    r = repo.run("check", "--format", "json")
    assert r.json()["findings"] == []
    # one documented token still matches: the row changed, it is not stale
    repo.write("app/tools/names.py", "PACKAGE_IMPORT_MAP = {}\n")
    assert repo.run("check").lines == [
        'checklists/fakepkg-core.md:25:1: CHANGED [warning] `app/tools/names.py`: `"fakepkg-core"` no longer match anything in the file'
    ]
    repo.write("app/tools/names.py", "OTHER = {}\n")
    assert repo.run("check").codes == ["STALE"]


def test_moved_reported_once(repo: Repo) -> None:
    (repo.path / "app/engine/moved").mkdir()
    (repo.path / "app/engine/core.py").rename(repo.path / "app/engine/moved/core.py")
    repo.edit("checklists/fakepkg-core.md", "- `app/engine/core.py:7`", "- `app/engine/moved/core.py:7`")
    r = repo.run("check")
    assert [l for l in r.lines if "MOVED" in l or "MISSING" in l or "STALE" in l] == [
        "checklists/fakepkg-core.md:15:1: MOVED `app/engine/core.py` moved to `app/engine/moved/core.py` "
        "(same name, same imports) (app/engine/moved/core.py:2)"
    ]


def test_changed_new_import_and_dead_token(repo: Repo) -> None:
    repo.edit("app/engine/core.py", "from fakepkg.core.distributed import DistributedDataParallel as DDP\n",
              "from fakepkg.core.distributed import DistributedDataParallel as DDP\nfrom fakepkg.core import optimizer\n")
    r = repo.run("check")
    assert "checklists/fakepkg-core.md:15:1: CHANGED [warning] `app/engine/core.py` imports `fakepkg.core.optimizer`, not in its row (app/engine/core.py:4)" in r.lines
    repo.edit("tests/test_core.py", "dist_checkpointing.save({}, \"/tmp/x\")", "dist_checkpointing.load({})")
    r = repo.run("check")
    assert "checklists/fakepkg-core.md:26:1: CHANGED [warning] `tests/test_core.py`: `dist_checkpointing.save` no longer match anything in the file" in r.lines


def test_token_coverage_rules(repo: Repo) -> None:
    # alias (DDP) and original name both cover; a dotted suffix of an attribute use covers
    repo.edit("checklists/fakepkg-core.md", "`parallel_state` (as `mpu`), `DistributedDataParallel`",
              "`mpu.initialize_model_parallel`, `DDP`")
    assert repo.run("check").code == 0


def test_tier_mismatch(repo: Repo) -> None:
    repo.edit("pyproject.toml", 'tertiary = ["tests/", "app/tools/"]', 'tertiary = ["tests/"]')
    r = repo.run("check")
    assert r.lines == [
        "checklists/fakepkg-core.md:25:1: TIER `app/tools/names.py` is listed as Tertiary but its location (app/) maps to Secondary;"
        ' if ranked so on purpose, add `tiers: {tertiary: ["app/tools/names.py"]}` to this checklist\'s frontmatter'
    ]


def test_tiers_inferred_when_not_configured(repo: Repo) -> None:
    repo.write("pyproject.toml", '[tool.upgrade-checklists]\nroots = ["app", "tests"]\n')
    repo.write("app/engine/more.py", "import fakepkg.core\n")
    r = repo.run("check", "-v")
    assert r.lines == [
        "checklists/fakepkg-core.md:11:1: MISSING `app/engine/more.py` imports `fakepkg.core` but no tier lists it (belongs in Primary) (app/engine/more.py:1)"
    ]
    assert "note: tiers inferred from the checklists (no [tool.upgrade-checklists.tiers]): app/engine/ -> primary, app/tools/ -> tertiary, tests/ -> tertiary" in r.err
    assert "import names fakepkg.core (derived from the package name and catalog headings)" in r.err


def test_line_moved_snippet(repo: Repo) -> None:
    repo.edit("app/engine/core.py", "def build(model):\n", "def build(model):\n    # one more line\n")
    r = repo.run("check")
    assert r.lines == [
        "checklists/fakepkg-core.md:36:1: LINE [warning] entry 1: snippet in `app/engine/core.py` is now at line 10 (recorded line 9) (app/engine/core.py:10)",
        "checklists/fakepkg-core.md:50:1: LINE [warning] entry 2: snippet in `app/engine/core.py` is now at lines 11-14 (recorded lines 10-13) (app/engine/core.py:11)",
        # the guard's quoted expression moved down with it
        'checklists/fakepkg-core.md:63:1: GUARD [warning] version guard `hasattr(mpu, "destroy")` in `app/engine/core.py` is now at line 8 (recorded line 7) (app/engine/core.py:8)',
    ]


def test_snippet_is_whitespace_insensitive(repo: Repo) -> None:
    repo.edit("app/engine/core.py", "    return DDP(\n        model,\n        config=None,\n    )\n", "    return DDP(model,  config=None,)\n")
    r = repo.run("check")
    assert r.lines == [
        "checklists/fakepkg-core.md:50:1: LINE [warning] entry 2: snippet in `app/engine/core.py` is now at line 10 (recorded lines 10-13) (app/engine/core.py:10)"
    ]


def test_snippet_gone_and_file_gone(repo: Repo) -> None:
    repo.edit("app/engine/core.py", "tensor_model_parallel_size=2", "tensor_model_parallel_size=4")
    r = repo.run("check")
    assert r.lines == [
        "checklists/fakepkg-core.md:38:1: SNIPPET entry 1: documented code changed: "
        "`mpu.initialize_model_parallel(tensor_model_parallel_size=2)`: `tensor_model_parallel_size=2` is now "
        "`tensor_model_parallel_size=4` (nearest match `app/engine/core.py:9`) (app/engine/core.py:9)"
    ]
    repo.edit("checklists/fakepkg-core.md", "Called in `app/engine/core.py` (lines 10-13)", "Called in `app/engine/gone.py` (lines 10-13)")
    r = repo.run("check")
    assert "checklists/fakepkg-core.md:50:1: SNIPPET entry 2: call site `app/engine/gone.py` does not exist (app/engine/gone.py:10)" in r.lines


def test_a_gone_snippet_is_one_finding_not_also_a_line_past_the_end(repo: Repo) -> None:
    """The documented call is gone and the file shrank below the recorded line: one
    SNIPPET says it; a LINE "past the end" for the same reference would only repeat it."""
    repo.write("app/engine/core.py", "from fakepkg.core import parallel_state as mpu\n"
               "from fakepkg.core.distributed import DistributedDataParallel as DDP\n\n\n"
               "def build(model):\n    if hasattr(mpu, \"destroy\"):\n        mpu.destroy()\n    return DDP(model, config=None)\n")
    r = repo.run("check", "--output-format", "json")
    codes = [(f["code"], f["checklist_line"]) for f in r.json()["findings"]]
    assert ("SNIPPET", 38) in codes
    assert not any(code == "LINE" and line == 36 for code, line in codes)  # entry 1's "(line 9)": 8 lines now
    # an entry without a snippet still hears that its number is past the end
    repo.edit("checklists/fakepkg-core.md", "## Version-Guarded Code", "### 3. `fakepkg.core.parallel_state.destroy`\n\n"
              "Called in `app/engine/core.py` (line 20).\n\n## Version-Guarded Code")
    r = repo.run("check")
    assert any("line 20 is past the end of the file (8 lines)" in line for line in r.lines)


def test_a_hook_run_sees_a_snippet_change_in_its_file_whatever_file_the_nearest_match_is_in(repo: Repo) -> None:
    """The entry names two files; the commit changes the documented call in one, and the
    closest remaining statement is in the other. The finding names the closest match, and
    concerns both: the hook given the changed file reports it."""
    repo.write("app/engine/helpers.py", "from fakepkg.core import parallel_state as mpu\n\n"
               "mpu.initialize_model_parallel(tensor_model_parallel_size=3)\n")
    repo.edit("checklists/fakepkg-core.md", "Called in `app/engine/core.py` (line 9):",
              "Called in `app/engine/core.py` (line 9), and in `app/engine/helpers.py` (line 3):")
    repo.edit("checklists/fakepkg-core.md", "| `app/engine/core.py` | `parallel_state` (as `mpu`), `DistributedDataParallel` |",
              "| `app/engine/core.py` | `parallel_state` (as `mpu`), `DistributedDataParallel` |\n"
              "| `app/engine/helpers.py` | `parallel_state` (as `mpu`) |")
    repo.commit("a second call site")
    assert repo.run("check").code == 0
    repo.edit("app/engine/core.py", "tensor_model_parallel_size=2", "tensor_model_parallel_size=8, pipeline=1")
    r = repo.run("check", "--output-format", "json", "app/engine/core.py")
    found = [(f["code"], f["file"]) for f in r.json()["findings"] if f["code"] == "SNIPPET"]
    assert r.code == 1 and found == [("SNIPPET", "app/engine/helpers.py")]
    # a commit that touches neither file does not hear of it
    repo.write("app/utils/plain.py", "X = 1\n")
    assert repo.run("check", "app/utils/plain.py").code == 0


def test_guard_reference(repo: Repo) -> None:
    repo.edit("checklists/fakepkg-core.md", "`app/engine/core.py:7`", "`app/engine/core.py:60`")
    r = repo.run("check")  # the quoted expression says where the guard is
    assert r.lines == ['checklists/fakepkg-core.md:63:1: GUARD [warning] version guard `hasattr(mpu, "destroy")` in `app/engine/core.py` is now at line 7 (recorded line 60) (app/engine/core.py:7)']
    repo.edit("checklists/fakepkg-core.md", '`hasattr(mpu, "destroy")` guard', "guard")
    r = repo.run("check")  # nothing quoted: only the file's length can be checked
    assert r.lines == ["checklists/fakepkg-core.md:63:1: GUARD version guard `app/engine/core.py:60` is past the end of the file (13 lines) (app/engine/core.py:60)"]
    repo.edit("checklists/fakepkg-core.md", "`app/engine/core.py:60`", "`app/engine/nope.py:6`")
    assert repo.run("check").lines == ["checklists/fakepkg-core.md:63:1: GUARD version guard `app/engine/nope.py` does not exist (app/engine/nope.py:6)"]


def test_numbering(repo: Repo) -> None:
    repo.edit("checklists/fakepkg-core.md", "### 2. `fakepkg", "### 3. `fakepkg")
    r = repo.run("check")
    assert r.lines == ["checklists/fakepkg-core.md:46:1: NUMBERING catalog entry numbered 3, expected 2"]


def test_status_file(repo: Repo) -> None:
    repo.edit("pyproject.toml", 'roots = ["app", "tests"]', 'roots = ["app", "tests"]\nstatus_file = "SKILL.md"')
    repo.write("SKILL.md", "# Skill\n\n## Checklist File Status\n\n| Checklist | Entries |\n| --- | --- |\n| `fakepkg-core.md` | 2 API entries (parallel state, DDP) |\n")
    assert repo.run("check").code == 0
    repo.edit("SKILL.md", "2 API entries", "3 API entries")
    assert repo.run("check").lines == ["SKILL.md:7:1: STATUS fakepkg-core: status says 3 API entries, the catalog has 2"]
    repo.write("SKILL.md", "# Skill\n\n| Checklist | Entries |\n| --- | --- |\n| `other.md` | 1 API entry |\n")
    assert repo.run("check").lines == [
        "SKILL.md:1:1: STATUS no status row for fakepkg-core (2 API entries)",
        "SKILL.md:5:1: STATUS status row for other, which has no checklist",
    ]


def test_templates_are_not_checklists(repo: Repo) -> None:
    repo.write("checklists/_TEMPLATE.md", "# not a checklist\n")
    assert repo.run("check").code == 0


def test_paths_select_findings(repo: Repo) -> None:
    repo.write("app/utils/new.py", "import fakepkg.core\n")
    repo.edit("app/engine/core.py", "def build(model):\n", "def build(model):\n    pass\n")
    # only the passed file's findings
    assert repo.run("check", "app/utils/new.py").codes == ["MISSING"]
    assert repo.run("check", "app/engine/core.py").codes == ["GUARD", "LINE", "LINE"]
    assert repo.run("check", "app/utils/other.py").code == 0
    # a changed checklist is checked whole
    assert repo.run("check", "checklists/fakepkg-core.md").codes == ["GUARD", "LINE", "LINE", "MISSING"]
    # the configuration file selects everything
    assert repo.run("check", "pyproject.toml").codes == ["GUARD", "LINE", "LINE", "MISSING"]


def test_deleted_listed_file_concerns_every_commit(repo: Repo) -> None:
    repo.remove("app/tools/names.py")
    assert repo.run("check", "app/utils/other.py").codes == ["STALE"]


def test_github_format(repo: Repo) -> None:
    repo.remove("app/tools/names.py")
    r = repo.run("check", "--format", "github")
    assert r.out == "::error file=checklists/fakepkg-core.md,line=25,title=STALE::`app/tools/names.py` was deleted; fixable with `upgrade-checklists check --fix`\n"


def test_json_format_envelope(repo: Repo) -> None:
    repo.write("app/utils/new.py", "import fakepkg.core\n")
    doc = repo.run("check", "--format", "json").json()
    assert doc == {
        "version": 1,
        "findings": [{
            "code": "MISSING",
            "checklist": "checklists/fakepkg-core.md",
            "checklist_line": 17,
            "file": "app/utils/new.py",
            "line": 1,
            "package": "fakepkg-core",
            "message": "`app/utils/new.py` imports `fakepkg.core` but no tier lists it (belongs in Secondary)",
            "severity": "error",
            "fixable": True,
        }],
        "summary": {"checklists": 1, "files_scanned": 9, "findings_by_code": {"MISSING": 1},
                    "findings_by_severity": {"error": 1}, "fixable": 1,
                    "not_shown": {"baseline": 0, "ignored": 0, "other_files": 0}},
    }


def test_hook_run_without_files_reports_only_what_concerns_deleted_files(repo: Repo, monkeypatch) -> None:
    repo.write("app/utils/late.py", "from fakepkg.core import optimizer\n")
    repo.commit("an old finding")
    monkeypatch.setenv("PRE_COMMIT", "1")
    # nothing staged (pre-commit passed no file: the commit touches none of our types)
    r = repo.run("check")
    assert (r.code, r.out) == (0, "All checks passed (1 checklist, 9 files scanned; not shown: 1 about other files).\n")
    # a staged deletion: its finding only; a rename counts as deleting the old path
    git(repo.path, "rm", "-q", "app/tools/names.py")
    git(repo.path, "mv", "tests/test_core.py", "app/tools/test_core.py")
    r = repo.run("check")
    assert r.code == 1
    assert r.lines == [
        "checklists/fakepkg-core.md:25:1: STALE `app/tools/names.py` was deleted",
        "checklists/fakepkg-core.md:26:1: MOVED [warning] `tests/test_core.py` was renamed to `app/tools/test_core.py` (git)"
        " (app/tools/test_core.py:2)",
    ]
    # outside pre-commit, no file arguments still mean the whole repository
    monkeypatch.delenv("PRE_COMMIT")
    assert "late.py" in repo.run("check").out


def test_uncatalogued_lists_apis_no_entry_names_only_when_asked(repo: Repo) -> None:
    from upgrade_checklists.core import config
    from upgrade_checklists.check.compare import run_check

    cfg = config.load(repo.path)
    assert [f for f in run_check(cfg).findings if f.code == "UNCATALOGUED"] == []  # off by default
    found = [(f.checklist, f.checklist_line, f.message, f.file, f.line)
             for f in run_check(cfg, uncatalogued=True).findings if f.code == "UNCATALOGUED"]
    # initialize_model_parallel and DistributedDataParallel have entries; these two do not
    assert found == [
        ("checklists/fakepkg-core.md", 30,
         "`fakepkg.core.dist_checkpointing.save` is used in `tests/test_core.py` but no catalog entry names it",
         "tests/test_core.py", 3),
        ("checklists/fakepkg-core.md", 30,
         "`fakepkg.core.parallel_state.destroy` is used in `app/engine/core.py` but no catalog entry names it",
         "app/engine/core.py", 8),
    ]


def test_uncatalogued_counts_uses_and_accepts_relative_and_class_headings(repo: Repo) -> None:
    from upgrade_checklists.core import config
    from upgrade_checklists.check.compare import run_check
    from upgrade_checklists.check.uncatalogued import named

    repo.write("app/utils/more.py", "from fakepkg.core import dist_checkpointing as dc\n\ndc.save(1)\ndc.save(2)\nV = dc.FORMAT\n")
    cfg = config.load(repo.path)
    messages = [f.message for f in run_check(cfg, uncatalogued=True).findings if f.code == "UNCATALOGUED"]
    assert messages == [
        "`fakepkg.core.dist_checkpointing.FORMAT` is used in `app/utils/more.py` but no catalog entry names it",
        "`fakepkg.core.dist_checkpointing.save` is used in `app/utils/more.py` (and 2 more uses) but no catalog entry names it",
        "`fakepkg.core.parallel_state.destroy` is used in `app/engine/core.py` but no catalog entry names it",
    ]
    assert named("pkg.bridge.AutoBridge.from_hf", {"AutoBridge.from_hf"})  # relative heading
    assert named("pkg.bridge.AutoBridge.from_hf", {"AutoBridge"})  # the class's entry
    assert named("pkg.bridge.AutoBridge.from_hf", {"pkg.bridge.AutoBridge.from_hf()"})
    assert not named("pkg.bridge.AutoBridge.from_hf", {"Bridge"})
    assert not named("pkg.bridge.AutoBridge.from_hf", {"from"})
