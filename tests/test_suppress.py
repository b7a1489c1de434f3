"""Gradual adoption: --select / --ignore, the select / ignore / per-checklist-ignores keys,
inline ``<!-- upgrade-checklists: ignore[...] -->`` comments, and --baseline."""

from __future__ import annotations

import json

from conftest import CHECKLIST, Repo

CL = "checklists/fakepkg-core.md"


def three_findings(repo: Repo) -> None:
    """MISSING (new file), STALE (listed file gone), SNIPPET (entry 1's call changed)."""
    repo.write("app/utils/new.py", "import fakepkg.core\n")
    repo.remove("app/tools/names.py")
    repo.edit("app/engine/core.py", "tensor_model_parallel_size=2", "tensor_model_parallel_size=4")


# --- select / ignore --------------------------------------------------------------------


def test_select_and_ignore_on_the_command_line(repo: Repo) -> None:
    three_findings(repo)
    assert repo.run("check").codes == ["MISSING", "SNIPPET", "STALE"]
    assert repo.run("check", "--select", "MISSING,stale").codes == ["MISSING", "STALE"]
    assert repo.run("check", "--select", "MISSING", "--select", "SNIPPET").codes == ["MISSING", "SNIPPET"]
    assert repo.run("check", "--ignore", "SNIPPET").codes == ["MISSING", "STALE"]
    assert repo.run("check", "--select", "ALL", "--ignore", "MISSING,STALE,UNCATALOGUED").codes == ["SNIPPET"]
    # ALL includes the codes that are off by default
    assert "UNCATALOGUED" in repo.run("check", "--select", "ALL").codes
    assert "UNCATALOGUED" not in repo.run("check").codes
    r = repo.run("check", "--ignore", "MISSING,SNIPPET,STALE")
    assert (r.code, r.out) == (0, "All checks passed (1 checklist, 8 files scanned; not shown: 3 ignored).\n")


def test_unknown_code_is_a_usage_error(repo: Repo) -> None:
    r = repo.run("check", "--select", "MISSNG")
    assert r.code == 2
    assert r.err.startswith("upgrade-checklists: error: --select: unknown code 'MISSNG' (known: MISSING, STALE,")
    assert repo.run("check", "--ignore", ",").code == 2


def test_ignore_keys_in_configuration(repo: Repo) -> None:
    three_findings(repo)
    repo.edit("pyproject.toml", 'roots = ["app", "tests"]', 'roots = ["app", "tests"]\nignore = ["SNIPPET"]')
    assert repo.run("check").codes == ["MISSING", "STALE"]
    # the command line adds to the configuration's ignores
    assert repo.run("check", "--ignore", "STALE").codes == ["MISSING"]
    repo.edit("pyproject.toml", 'ignore = ["SNIPPET"]', 'select = ["STALE", "SNIPPET"]')
    assert repo.run("check").codes == ["SNIPPET", "STALE"]
    # --select replaces the configuration's select
    assert repo.run("check", "--select", "MISSING").codes == ["MISSING"]


def test_per_checklist_ignores(repo: Repo) -> None:
    three_findings(repo)
    repo.write("checklists/otherlib.md", CHECKLIST.replace("fakepkg-core", "otherlib").replace("example/fakepkg", "example/otherlib"))
    repo.write("app/utils/ol.py", "import otherlib\n")
    before = repo.run("check", "--format", "json").json()["findings"]
    assert sorted({(f["checklist"], f["code"]) for f in before if f["code"] == "MISSING"}) == [
        (CL, "MISSING"), ("checklists/otherlib.md", "MISSING")]
    repo.write("pyproject.toml", repo.read("pyproject.toml") + """
[tool.upgrade-checklists.per-checklist-ignores]
"otherlib.md" = ["MISSING", "STALE", "SNIPPET", "LINE", "GUARD", "CHANGED"]
"checklists/fakepkg-*.md" = "SNIPPET"
""")
    after = repo.run("check", "--format", "json").json()["findings"]
    assert sorted((f["checklist"], f["code"]) for f in after) == [(CL, "MISSING"), (CL, "STALE")]


def test_bad_suppression_configuration(repo: Repo) -> None:
    repo.edit("pyproject.toml", 'roots = ["app", "tests"]', 'roots = ["app", "tests"]\nignore = "SNIPPET"')
    r = repo.run("check")
    assert (r.code, r.err) == (2, "upgrade-checklists: error: pyproject.toml: [tool.upgrade-checklists]: 'ignore' must be a list\n")
    repo.edit("pyproject.toml", 'ignore = "SNIPPET"', 'ignore = ["SNIPET"]')
    r = repo.run("check")
    assert r.code == 2 and "pyproject.toml: [tool.upgrade-checklists] ignore: unknown code 'SNIPET'" in r.err
    repo.edit("pyproject.toml", 'ignore = ["SNIPET"]', '[tool.upgrade-checklists.per-checklist-ignores]\n"x.md" = [1]')
    r = repo.run("check")
    assert r.code == 2 and "per-checklist-ignores: 'x.md' must be a list of strings" in r.err


# --- inline comments ----------------------------------------------------------------------


def test_inline_comment_on_a_row(repo: Repo) -> None:
    repo.remove("app/tools/names.py")
    repo.write("tests/test_core.py", "def test_nothing():\n    pass\n")
    assert repo.run("check").codes == ["STALE", "STALE"]
    repo.edit(CL, "(metadata only) |", "(metadata only) <!-- upgrade-checklists: ignore[STALE] --> |")
    assert repo.run("check").lines == [f"{CL}:26:1: STALE `tests/test_core.py` no longer imports fakepkg-core and none of its row's tokens match"]
    # another code on the same row does not hide STALE
    repo.edit(CL, "ignore[STALE]", "ignore[TIER]")
    assert repo.run("check").codes == ["STALE", "STALE"]


def test_inline_comment_on_an_entry_heading_covers_the_entry(repo: Repo) -> None:
    repo.edit("app/engine/core.py", "tensor_model_parallel_size=2", "tensor_model_parallel_size=4")
    repo.edit("app/engine/core.py", "        config=None,\n", "        config={},\n")
    assert repo.run("check").codes == ["SNIPPET", "SNIPPET"]
    repo.edit(CL, "### 1. `fakepkg.core.parallel_state.initialize_model_parallel`",
              "### 1. `fakepkg.core.parallel_state.initialize_model_parallel` <!-- upgrade-checklists: ignore[SNIPPET, LINE] -->")
    r = repo.run("check")
    assert r.lines == [f"{CL}:52:1: SNIPPET entry 2: documented code changed: `return DDP(model, config=None)`: "
                       "`config=None` is now `config={}` (nearest match `app/engine/core.py:10`) (app/engine/core.py:10)"]
    assert r.out.endswith("Not shown: 1 ignored.\nNeeds a hand edit (--fix leaves it): 1 error (SNIPPET: re-read the code the entry "
                         "documents, then update the snippet or remove it).\n")


def test_inline_comment_on_a_guard(repo: Repo) -> None:
    repo.edit(CL, "`app/engine/core.py:7`", "`app/engine/core.py:70`")
    assert repo.run("check").codes == ["GUARD"]
    repo.edit(CL, "once upstream has it.", "once upstream has it.\n  <!-- upgrade-checklists: ignore[GUARD] -->")
    assert repo.run("check").codes == []


def test_inline_comment_elsewhere_or_malformed_is_a_warning(repo: Repo) -> None:
    repo.remove("app/tools/names.py")
    repo.edit(CL, "## API Usage Catalog\n", "## API Usage Catalog\n\n<!-- upgrade-checklists: ignore[STALE] -->\n")
    repo.edit(CL, "(metadata only) |", "(metadata only) <!-- upgrade-checklists: ignore(STALE) --> |")
    repo.edit(CL, "`dist_checkpointing.save`                                |",
              "`dist_checkpointing.save` <!-- upgrade-checklists: ignore[STAIL] --> |")
    r = repo.run("check")
    assert r.codes == ["STALE"]
    first, unknown, misplaced = r.err.splitlines()
    assert first == f"upgrade-checklists: warning: {CL}:25: not an 'upgrade-checklists: ignore[CODE,...]' comment; ignored"
    assert unknown.startswith(f"upgrade-checklists: warning: {CL}:26: unknown code 'STAIL' (known: MISSING, STALE, MOVED, ")
    assert unknown.endswith(", ALL, and the audit's); ignored")
    assert misplaced == f"upgrade-checklists: warning: {CL}:32: ignore comment is not on a row, an entry heading or a guard; ignored"


def test_inline_comment_does_not_disturb_fix(repo: Repo) -> None:
    repo.write("app/utils/new.py", "import fakepkg.core\n")
    repo.edit(CL, "| `tests/test_core.py` | `dist_checkpointing.save`                                |",
              "| `tests/test_core.py` | `dist_checkpointing.save` <!-- upgrade-checklists: ignore[TIER] --> |")
    assert repo.run("check").codes == ["MISSING"]
    assert repo.run("check", "--fix").code == 1
    assert "| `tests/test_core.py` | `dist_checkpointing.save` <!-- upgrade-checklists: ignore[TIER] --> |" in repo.read(CL)
    assert repo.run("check").codes == []


# --- baseline -----------------------------------------------------------------------------


def test_baseline_round_trip(repo: Repo) -> None:
    three_findings(repo)
    r = repo.run("check", "--write-baseline", "known.json")
    assert (r.code, r.lines) == (0, [])
    assert r.err == "Wrote known.json with 3 known findings; check with --baseline known.json to report only new ones\n"
    assert r.out == "All checks passed (1 checklist, 8 files scanned; not shown: 3 in the baseline).\n"
    doc = json.loads(repo.read("known.json"))
    assert doc == {"version": 1, "tool": "upgrade-checklists", "findings": [
        {"code": "MISSING", "checklist": CL, "file": "app/utils/new.py",
         "message": "`app/utils/new.py` imports `fakepkg.core` but no tier lists it (belongs in Secondary)"},
        {"code": "SNIPPET", "checklist": CL, "file": "app/engine/core.py",
         "message": "entry 1: documented code changed: `mpu.initialize_model_parallel(tensor_model_parallel_size=2)`: "
                    "`tensor_model_parallel_size=2` is now `tensor_model_parallel_size=4` (nearest match `app/engine/core.py:9`)"},
        {"code": "STALE", "checklist": CL, "file": "app/tools/names.py", "message": "`app/tools/names.py` was deleted"},
    ]}
    # the baseline exists now: the same findings pass, without writing it again
    r = repo.run("check", "--baseline", "known.json")
    assert (r.code, r.err) == (0, "")
    # a new import is the one finding reported, with the --fix hint
    repo.write("app/utils/more.py", "from fakepkg.core import optimizer\n")
    r = repo.run("check", "--baseline", "known.json", "--format", "text")
    assert (r.code, r.out) == (1, f"""\
{CL}:
  17 MISSING [*] `app/utils/more.py:1` imports `fakepkg.core.optimizer` but no tier lists it (belongs in Secondary)

Found 1 finding in 1 checklist: 1 MISSING.
Not shown: 3 in the baseline.
[*] 1 fixable with `upgrade-checklists check --fix`.
""")


def test_baseline_ignores_line_numbers(repo: Repo) -> None:
    repo.edit("app/engine/core.py", "def build(model):\n", "def build(model):\n    pass\n")
    assert repo.run("check").codes == ["GUARD", "LINE", "LINE"]  # the guard's line moved too
    assert repo.run("check", "--write-baseline", "b.json").code == 0
    repo.edit("pyproject.toml", 'roots = ["app", "tests"]', 'roots = ["app", "tests"]\nstrict-lines = true')  # errors now
    assert repo.run("check").code == 1 and repo.run("check", "--baseline", "b.json").code == 0
    # the code moves again: the LINE findings now name other lines, and still match
    repo.edit("app/engine/core.py", "def build(model):\n", "def build(model):\n    pass\n")
    assert repo.run("check", "--baseline", "b.json").code == 0
    # a finding of another kind is new
    repo.remove("app/tools/names.py")
    assert repo.run("check", "--baseline", "b.json").codes == ["STALE"]


def test_baseline_ignores_the_nearest_path_hint_of_a_missing_call_site(repo: Repo) -> None:
    """A call site names a file that is gone; the message suggests the nearest existing
    path, which changes when other files come and go: the known finding stays known."""
    repo.edit(CL, "Called in `app/engine/core.py` (line 9):", "Called in `app/legacy/core.py` (line 9):")
    first = [line for line in repo.run("check").lines if "legacy" in line]
    assert first == [f"{CL}:36:1: SNIPPET entry 1: call site `app/legacy/core.py` does not exist"
                     " (nearest existing path: `app/engine/core.py`) (app/legacy/core.py:9)"]
    assert repo.run("check", "--write-baseline", "b.json").code == 0
    repo.write("app/legacy2/core.py", repo.read("app/engine/core.py"))  # a copy: the hint now names another file
    assert any("(nearest existing path: `app/legacy2/core.py`)" in line for line in repo.run("check").lines)
    r = repo.run("check", "--baseline", "b.json", "--output-format", "json")
    assert [f["message"] for f in r.json()["findings"] if f["code"] == "SNIPPET"] == []
    # another missing file is a new finding
    repo.edit(CL, "Called in `app/engine/core.py` (lines 10-13):", "Called in `app/old/core.py` (lines 10-13):")
    r = repo.run("check", "--baseline", "b.json", "--output-format", "json")
    assert [f["code"] for f in r.json()["findings"] if "app/old/core.py` does not exist" in f["message"]] == ["SNIPPET"]


def test_baseline_counts_identical_findings(repo: Repo) -> None:
    repo.write("b.json", json.dumps({"version": 1, "findings": [
        {"code": "STALE", "checklist": CL, "file": "app/tools/names.py", "message": "`app/tools/names.py` was deleted"}]}))
    repo.remove("app/tools/names.py")
    assert repo.run("check", "--baseline", "b.json").code == 0
    # each entry absorbs one finding: the same finding twice is one new finding
    from upgrade_checklists.output.baseline import read, subtract
    from upgrade_checklists.core.findings import Finding

    twice = [Finding(CL, n, "STALE", "`app/tools/names.py` was deleted", "app/tools/names.py") for n in (25, 40)]
    new, matched = subtract(twice, read(repo.path / "b.json", "b.json"))
    assert (new, matched) == ([twice[1]], 1)


def test_baseline_with_paths_and_fix(repo: Repo) -> None:
    three_findings(repo)
    # written from every finding even when paths narrow the report
    assert repo.run("check", "--write-baseline", "b.json", "app/utils/new.py").code == 0
    assert len(json.loads(repo.read("b.json"))["findings"]) == 3
    # baselined findings are not fixed either
    before = repo.read(CL)
    r = repo.run("check", "--baseline", "b.json", "--fix")
    assert r.code == 0 and repo.read(CL) == before


def test_bad_baseline_is_a_usage_error(repo: Repo) -> None:
    for text, why in [
        ("{", "not a baseline file (invalid JSON: "),
        ("[]", 'not a baseline file (expected {"version": 1, "findings": [...]})'),
        ('{"version": 2, "findings": []}', 'not a baseline file (expected {"version": 1, "findings": [...]})'),
        ('{"version": 1, "findings": [{"code": "STALE"}]}', "finding 1 needs string 'code' and 'message'"),
        ('{"version": 1, "findings": [{"code": "STALE", "message": "m", "file": 3}]}', "finding 1 needs string 'code' and 'message'"),
    ]:
        repo.write("b.json", text)
        r = repo.run("check", "--baseline", "b.json")
        assert r.code == 2, text
        assert r.err.startswith(f"upgrade-checklists: error: b.json: {why}"), r.err
    (repo.path / "b.json").write_bytes(b"\xff\xfe")
    assert repo.run("check", "--baseline", "b.json").code == 2
