"""What ``check`` prints: the grouped text (with and without colour), --statistics,
--quiet, --exit-zero, the machine formats (pure JSON, GitHub annotations and the step
summary) and --help. Expected output is written out by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import Repo

from upgrade_checklists.cli import main

OTHER = """\
---
package: otherlib
github: example/otherlib
branch_template: v${VERSION}
upstream_paths:
  - otherlib/
---

## Affected Files

### Primary (engine layer)

_None._

### Secondary (model / infra layer)

| File | Imports / Usage |
| --- | --- |
| `app/utils/ol.py` | `otherlib`, `helper` |

### Tertiary (tests, config)

_None._

## API Usage Catalog

### 1. `otherlib.helper`

Called in `app/utils/ol.py` (line 3):

```python
otherlib.helper(1)
```

## Version-Guarded Code

_None._
"""


@pytest.fixture
def two(repo: Repo) -> Repo:
    """Findings in two checklists: fixable (MISSING, STALE, LINE) and not (SNIPPET)."""
    repo.write("checklists/otherlib.md", OTHER)
    repo.write("app/utils/ol.py", "import otherlib\n\n\notherlib.helper(1)\n")  # the call moved to line 4
    repo.write("app/engine/use_ol.py", "from otherlib import helper, alpha, beta, gamma\n")  # not listed
    repo.write("app/utils/new.py", "import fakepkg.core\n")  # not listed
    repo.remove("app/tools/names.py")  # listed
    repo.edit("app/engine/core.py", "tensor_model_parallel_size=2", "tensor_model_parallel_size=4")  # snippet gone
    repo.commit("two checklists with findings")
    return repo


PLAIN = """\
checklists/fakepkg-core.md:
  17 MISSING [*] `app/utils/new.py:1` imports `fakepkg.core` but no tier lists it (belongs in Secondary)
  25 STALE [*] `app/tools/names.py` was deleted
  38 SNIPPET entry 1: documented code changed: `mpu.initialize_model_parallel(tensor_model_parallel_size=2)`: `tensor_model_parallel_size=2` is now `tensor_model_parallel_size=4` (nearest match `app/engine/core.py:9`)

checklists/otherlib.md:
  11 MISSING [*] `app/engine/use_ol.py:1` imports `otherlib.helper`, `otherlib.alpha` and 2 more but no tier lists it (belongs in Primary)
  29 LINE [*] [warning] entry 1: snippet in `app/utils/ol.py:4` is now at line 4 (recorded line 3)

Found 5 findings (4 errors, 1 warning) in 2 checklists: 2 MISSING, 1 LINE, 1 SNIPPET, 1 STALE.
A warning does not fail the run; the errors do.
[*] 4 fixable with `upgrade-checklists check --fix`.
Needs a hand edit (--fix leaves it): 1 error (SNIPPET: re-read the code the entry documents, then update the snippet or remove it).
"""

B, R, C, G, X, Y = "\x1b[1m", "\x1b[1;31m", "\x1b[36m", "\x1b[1;32m", "\x1b[0m", "\x1b[1;33m"

COLOURED = f"""\
{B}checklists/fakepkg-core.md{X}:
  {C}17{X} {R}MISSING{X} {C}[*]{X} `app/utils/new.py:1` imports `fakepkg.core` but no tier lists it (belongs in Secondary)
  {C}25{X} {R}STALE{X} {C}[*]{X} `app/tools/names.py` was deleted
  {C}38{X} {R}SNIPPET{X} entry 1: documented code changed: `mpu.initialize_model_parallel(tensor_model_parallel_size=2)`: `tensor_model_parallel_size=2` is now `tensor_model_parallel_size=4` (nearest match `app/engine/core.py:9`)

{B}checklists/otherlib.md{X}:
  {C}11{X} {R}MISSING{X} {C}[*]{X} `app/engine/use_ol.py:1` imports `otherlib.helper`, `otherlib.alpha` and 2 more but no tier lists it (belongs in Primary)
  {C}29{X} {Y}LINE{X} {C}[*]{X} [warning] entry 1: snippet in `app/utils/ol.py:4` is now at line 4 (recorded line 3)

Found 5 findings (4 errors, 1 warning) in 2 checklists: 2 MISSING, 1 LINE, 1 SNIPPET, 1 STALE.
A warning does not fail the run; the errors do.
{C}[*]{X} 4 fixable with `upgrade-checklists check --fix`.
Needs a hand edit (--fix leaves it): 1 error (SNIPPET: re-read the code the entry documents, then update the snippet or remove it).
"""


def test_text_grouped_per_checklist(two: Repo) -> None:
    r = two.run("check", "--output-format", "text")
    assert (r.code, r.out, r.err) == (1, PLAIN, "")


def test_the_command_prints_everything_before_its_hard_exit(two: Repo) -> None:
    """``python -m upgrade_checklists`` (as the console script) ends with a hard exit,
    without tearing the interpreter down (``cli.entry``): what it printed reaches the
    pipe whole, in order, with the exit code of the run; a reader that stops reading
    early gets no traceback."""
    import os
    import subprocess
    import sys

    from conftest import REPO_ROOT

    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "hooks"), "NO_COLOR": "1"}
    cmd = [sys.executable, "-m", "upgrade_checklists", "check", "--no-cache"]
    r = subprocess.run([*cmd, "--output-format", "text"], cwd=two.path, env=env, capture_output=True, text=True)
    assert (r.returncode, r.stdout, r.stderr) == (1, PLAIN, "")
    r = subprocess.run([*cmd, "--output-format", "json", "-v"], cwd=two.path, env=env, capture_output=True, text=True)
    assert r.returncode == 1 and len(json.loads(r.stdout)["findings"]) == 5 and r.stderr.startswith("note: ")
    head = subprocess.Popen([*cmd, "--output-format", "text"], cwd=two.path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    head.stdout.close()  # nobody reads what it prints
    assert (head.wait(timeout=60), head.stderr.read()) in ((1, b""), (2, b"upgrade-checklists: error: Broken pipe\n"))
    assert (subprocess.run([*cmd, "--bogus"], cwd=two.path, env=env, capture_output=True).returncode) == 2


def test_text_in_colour(two: Repo) -> None:
    r = two.run("check", "--format", "text", "--color", "always")
    assert (r.code, r.out) == (1, COLOURED)


@pytest.mark.parametrize(("env", "flag", "coloured"), [
    ({}, "auto", False),  # not a terminal
    ({"FORCE_COLOR": "1"}, "auto", True),
    ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, "auto", False),  # NO_COLOR wins
    ({"FORCE_COLOR": "1"}, "never", False),
    ({"NO_COLOR": "1"}, "always", True),  # the flag wins over the environment
    ({"NO_COLOR": ""}, "auto", False),  # empty is unset
])
def test_colour_choice(two: Repo, monkeypatch: pytest.MonkeyPatch, env: dict, flag: str, coloured: bool) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert two.run("check", "--format", "text", "--color", flag).out == (COLOURED if coloured else PLAIN)


def test_colour_never_in_concise_or_json(two: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" not in two.run("check", "--format", "concise").out
    assert "\x1b[" not in two.run("check", "--format", "json", "--color", "always").out


def test_ok_summary_is_one_line(repo: Repo) -> None:
    r = repo.run("check", "--format", "text")
    assert (r.code, r.out) == (0, "All checks passed (1 checklist, 8 files scanned).\n")


def test_summary_counts_only_affected_checklists(two: Repo) -> None:
    two.write("app/utils/ol.py", "import otherlib\n\notherlib.helper(1)\n")
    two.remove("app/engine/use_ol.py")
    r = two.run("check", "--format", "text", "--select", "MISSING,STALE")
    assert r.out.splitlines()[-3:] == ["Found 2 findings in 1 checklist: 1 MISSING, 1 STALE.",
                                       "Not shown: 1 ignored.",  # the SNIPPET, not selected
                                       "[*] 2 fixable with `upgrade-checklists check --fix`."]


def test_statistics(two: Repo) -> None:
    r = two.run("check", "--statistics", "--format", "text")
    assert (r.code, r.out) == (1, """\
2  MISSING  [*] a file imports the package but no tier lists it
1  LINE     [*] a catalog reference's line number is stale (a warning unless strict-lines = true)
1  SNIPPET      a call-site snippet no longer occurs in its file
1  STALE    [*] a listed file is gone, or neither imports the package nor matches its row

Found 5 findings (4 errors, 1 warning) in 2 checklists: 2 MISSING, 1 LINE, 1 SNIPPET, 1 STALE.
A warning does not fail the run; the errors do.
[*] 4 fixable with `upgrade-checklists check --fix`.
Needs a hand edit (--fix leaves it): 1 error (SNIPPET: re-read the code the entry documents, then update the snippet or remove it).
""")


def test_quiet_prints_findings_only(two: Repo, repo: Repo) -> None:
    r = two.run("check", "--format", "text", "-q")
    assert (r.code, r.out) == (1, PLAIN.split("\n\nFound")[0] + "\n")


def test_quiet_clean_prints_nothing(repo: Repo) -> None:
    assert (repo.run("check", "--format", "text", "--quiet").out) == ""


def test_exit_zero(two: Repo) -> None:
    r = two.run("check", "--format", "text", "--exit-zero")
    assert (r.code, r.out) == (0, PLAIN)


def test_exit_zero_keeps_usage_errors(two: Repo) -> None:
    assert two.run("check", "--exit-zero", "--select", "NOPE").code == 2


def test_concise_is_one_line_per_finding(two: Repo) -> None:
    r = two.run("check", "--format", "concise")
    assert r.out == """\
checklists/fakepkg-core.md:17:1: MISSING `app/utils/new.py` imports `fakepkg.core` but no tier lists it (belongs in Secondary) (app/utils/new.py:1)
checklists/fakepkg-core.md:25:1: STALE `app/tools/names.py` was deleted
checklists/fakepkg-core.md:38:1: SNIPPET entry 1: documented code changed: `mpu.initialize_model_parallel(tensor_model_parallel_size=2)`: `tensor_model_parallel_size=2` is now `tensor_model_parallel_size=4` (nearest match `app/engine/core.py:9`) (app/engine/core.py:9)
checklists/otherlib.md:11:1: MISSING `app/engine/use_ol.py` imports `otherlib.helper`, `otherlib.alpha`, `otherlib.beta`, `otherlib.gamma` but no tier lists it (belongs in Primary) (app/engine/use_ol.py:1)
checklists/otherlib.md:29:1: LINE [warning] entry 1: snippet in `app/utils/ol.py` is now at line 4 (recorded line 3) (app/utils/ol.py:4)
Found 5 findings (4 errors, 1 warning) in 2 checklists: 2 MISSING, 1 LINE, 1 SNIPPET, 1 STALE.
A warning does not fail the run; the errors do.
[*] 4 fixable with `upgrade-checklists check --fix`.
Needs a hand edit (--fix leaves it): 1 error (SNIPPET: re-read the code the entry documents, then update the snippet or remove it).
"""


def test_fix_in_text_says_what_was_rewritten_and_what_is_left(two: Repo) -> None:
    r = two.run("check", "--fix", "--format", "text")
    # the MISSING row turned Secondary's `_None._` into a table (2 lines more), the deleted file's row went
    # (1 line less): the snippet is 1 line down
    assert (r.code, r.out) == (1, """\
Fixing checklists/fakepkg-core.md
Fixing checklists/otherlib.md
checklists/fakepkg-core.md:
  39 SNIPPET entry 1: documented code changed: `mpu.initialize_model_parallel(tensor_model_parallel_size=2)`: `tensor_model_parallel_size=2` is now `tensor_model_parallel_size=4` (nearest match `app/engine/core.py:9`)

Found 1 finding in 1 checklist: 1 SNIPPET.
Rewrote 2 files with --fix; review and stage them.
Needs a hand edit (--fix leaves it): 1 error (SNIPPET: re-read the code the entry documents, then update the snippet or remove it).
""")


# --- machine output ---------------------------------------------------------------------


def test_json_is_pure_with_fix(two: Repo) -> None:
    r = two.run("check", "--fix", "--format", "json")
    doc = json.loads(r.out)  # nothing but the document on stdout
    assert r.err == "Fixing checklists/fakepkg-core.md\nFixing checklists/otherlib.md\n"
    assert doc["fixed"] == ["checklists/fakepkg-core.md", "checklists/otherlib.md"]
    assert [(f["code"], f["severity"], f["fixable"]) for f in doc["findings"]] == [("SNIPPET", "error", False)]


def test_json_severity_and_fixable(two: Repo) -> None:
    doc = two.run("check", "--format", "json").json()
    assert [(f["code"], f["severity"], f["fixable"]) for f in doc["findings"]] == [
        ("MISSING", "error", True), ("STALE", "error", True), ("SNIPPET", "error", False), ("MISSING", "error", True),
        ("LINE", "warning", True)]  # a stale line number: a warning (no strict-lines)
    assert doc["summary"]["fixable"] == 4


def test_github_annotations_on_the_source_line(two: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    fix = "; fixable with `upgrade-checklists check --fix`"
    r = two.run("check", "--format", "github")
    assert r.out.splitlines() == [
        # MISSING: on the import, in the pull request's diff
        f"::error file=app/utils/new.py,line=1,title=MISSING::`app/utils/new.py` imports `fakepkg.core` but no tier lists it (belongs in Secondary) (checklist checklists/fakepkg-core.md:17){fix}",
        # STALE: the file is gone, so on the checklist's row
        f"::error file=checklists/fakepkg-core.md,line=25,title=STALE::`app/tools/names.py` was deleted{fix}",
        "::error file=app/engine/core.py,line=9,title=SNIPPET::entry 1: documented code changed: `mpu.initialize_model_parallel(tensor_model_parallel_size=2)`: `tensor_model_parallel_size=2` is now `tensor_model_parallel_size=4` (nearest match `app/engine/core.py:9`) (checklist checklists/fakepkg-core.md:38)",
        f"::error file=app/engine/use_ol.py,line=1,title=MISSING::`app/engine/use_ol.py` imports `otherlib.helper`, `otherlib.alpha`, `otherlib.beta`, `otherlib.gamma` but no tier lists it (belongs in Primary) (checklist checklists/otherlib.md:11){fix}",
        f"::warning file=app/utils/ol.py,line=4,title=LINE::entry 1: snippet in `app/utils/ol.py` is now at line 4 (recorded line 3) (checklist checklists/otherlib.md:29){fix}",
    ]


def test_github_step_summary_is_appended(two: Repo, tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("# earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    two.run("check", "--format", "github")
    assert summary.read_text(encoding="utf-8") == """\
# earlier step
## upgrade-checklists

| Code | Findings | Fixable | Meaning |
| --- | ---: | ---: | --- |
| `MISSING` | 2 | 2 | a file imports the package but no tier lists it |
| `LINE` | 1 | 1 | a catalog reference's line number is stale (a warning unless strict-lines = true) |
| `SNIPPET` | 1 | 0 | a call-site snippet no longer occurs in its file |
| `STALE` | 1 | 1 | a listed file is gone, or neither imports the package nor matches its row |

| Where | Code | Message |
| --- | --- | --- |
| `app/utils/new.py:1` | `MISSING` | `app/utils/new.py` imports `fakepkg.core` but no tier lists it (belongs in Secondary) [*] |
| `checklists/fakepkg-core.md:25` | `STALE` | `app/tools/names.py` was deleted [*] |
| `app/engine/core.py:9` | `SNIPPET` | entry 1: documented code changed: `mpu.initialize_model_parallel(tensor_model_parallel_size=2)`: `tensor_model_parallel_size=2` is now `tensor_model_parallel_size=4` (nearest match `app/engine/core.py:9`) |
| `app/engine/use_ol.py:1` | `MISSING` | `app/engine/use_ol.py` imports `otherlib.helper`, `otherlib.alpha`, `otherlib.beta`, `otherlib.gamma` but no tier lists it (belongs in Primary) [*] |
| `app/utils/ol.py:4` | `LINE` | [warning] entry 1: snippet in `app/utils/ol.py` is now at line 4 (recorded line 3) [*] |

[*] 4 fixable with `upgrade-checklists check --fix`.

"""


def test_github_step_summary_not_written_for_text(two: Repo, tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    two.run("check", "--format", "text")
    assert not summary.exists()


def test_github_escapes_newlines_and_percent(repo: Repo) -> None:
    from upgrade_checklists.core.findings import Finding
    from upgrade_checklists.output.report import Context, github_line

    f = Finding("checklists/a,b.md", 3, "FORMAT", "50% done\nsecond line")
    # a newline in a message can only come from the repository: shown escaped (issue 21, item 11), not as a second line
    assert github_line(f, Context()) == "::error file=checklists/a%2Cb.md,line=3,title=FORMAT::50%25 done\\nsecond line"


# --- help -----------------------------------------------------------------------------------


def test_help_per_command_has_examples_codes_and_exit_codes(capsys) -> None:
    assert main(["--help"]) == 0
    top = capsys.readouterr().out
    assert top.startswith("usage: upgrade-checklists [-h] [--version] COMMAND ...\n\nKeep per-dependency API checklists true")
    assert "The command line" not in top
    assert "exit codes:\n  0  no findings, or warnings only (or --exit-zero)\n" in top
    assert main(["check", "--help"]) == 0
    check = capsys.readouterr().out
    assert "  upgrade-checklists check --fix                    rewrite checklists to repair [*] findings\n" in check
    assert "  MISSING     [*] a file imports the package but no tier lists it\n" in check
    assert "  SNIPPET         a call-site snippet no longer occurs in its file\n" in check
    assert "<!-- upgrade-checklists: ignore[SNIPPET,LINE] -->" in check
    assert "  2  usage, configuration or internal error (e.g. a --baseline file that is missing)\n" in check
    assert "--output-format {text,concise,json,sarif,github}, --format {text,concise,json,sarif,github}" in check
    for command in ("new", "audit"):
        assert main([command, "--help"]) == 0
        out = capsys.readouterr().out
        assert "examples:\n" in out and "exit codes:\n" in out


# --- SARIF ------------------------------------------------------------------------------------

SCHEMA_FILE = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"


def sarif_errors(doc: dict) -> list[str]:
    """Errors against the official SARIF 2.1.0 schema (OASIS, errata01; see tests/data/README.md)."""
    from jsonschema import Draft4Validator

    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    Draft4Validator.check_schema(schema)
    return [f"{list(e.absolute_path)}: {e.message}" for e in Draft4Validator(schema).iter_errors(doc)]


def test_sarif_is_valid_and_points_at_the_source(two: Repo) -> None:
    r = two.run("check", "--output-format", "sarif")
    doc = json.loads(r.out)
    assert sarif_errors(doc) == []
    (run,) = doc["runs"]
    assert run["tool"]["driver"]["name"] == "upgrade-checklists"
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert {"MISSING", "STALE", "SNIPPET", "LINE"} <= set(rules)

    def where(loc: dict) -> tuple[str, int]:
        p = loc["physicalLocation"]
        return p["artifactLocation"]["uri"], p["region"]["startLine"]

    got = [(res["ruleId"], rules[res["ruleIndex"]], res["level"], where(res["locations"][0]),
            [where(x) for x in res.get("relatedLocations", [])], res["properties"]["fixable"]) for res in run["results"]]
    assert got == [
        ("MISSING", "MISSING", "error", ("app/utils/new.py", 1), [("checklists/fakepkg-core.md", 17)], True),
        ("STALE", "STALE", "error", ("checklists/fakepkg-core.md", 25), [], True),
        ("SNIPPET", "SNIPPET", "error", ("app/engine/core.py", 9), [("checklists/fakepkg-core.md", 38)], False),
        ("MISSING", "MISSING", "error", ("app/engine/use_ol.py", 1), [("checklists/otherlib.md", 11)], True),
        ("LINE", "LINE", "warning", ("app/utils/ol.py", 4), [("checklists/otherlib.md", 29)], True),
    ]
    assert run["results"][1]["message"] == {"text": "`app/tools/names.py` was deleted"}


def test_sarif_fingerprints_ignore_line_numbers(two: Repo) -> None:
    before = {r["ruleId"] + r["message"]["text"][:20]: r["partialFingerprints"]
              for r in json.loads(two.run("check", "--format", "sarif").out)["runs"][0]["results"]}
    two.edit("checklists/fakepkg-core.md", "## Affected Files\n", "## Affected Files\n\nA line that moves every row down.\n")
    after = {r["ruleId"] + r["message"]["text"][:20]: r["partialFingerprints"]
             for r in json.loads(two.run("check", "--format", "sarif").out)["runs"][0]["results"]}
    assert before == after and len(before) == 5


def test_sarif_of_no_findings_and_of_audit_severities() -> None:
    from upgrade_checklists.core.findings import Finding
    from upgrade_checklists.output.report import Context, render

    empty = json.loads(render([], "sarif", checklists=1, files_scanned=3))
    assert sarif_errors(empty) == [] and empty["runs"][0]["results"] == []
    findings = [
        Finding("checklists/a b.md", 4, "GUARD_DEAD", "guard is dead", "pkg/x y.py", 7, "a", severity="info", at_source=True),
        Finding("checklists/a b.md", 9, "NEW_OPTIONAL_PARAM", "new `z`", "pkg/x y.py", 12, "a", severity="warning", at_source=True),
        Finding(None, None, "PARSE", "syntax error in pkg/bad.py", "pkg/bad.py", 3),
    ]
    doc = json.loads(render(findings, "sarif", checklists=1, files_scanned=3, ctx=Context(exists=lambda rel: True)))
    assert sarif_errors(doc) == []
    results = doc["runs"][0]["results"]
    assert [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in results] == [
        ("PARSE", "error", "pkg/bad.py"), ("GUARD_DEAD", "note", "pkg/x%20y.py"), ("NEW_OPTIONAL_PARAM", "warning", "pkg/x%20y.py")]


def test_schema_rejects_a_broken_log() -> None:
    # the validation is real: a result without a message, a level SARIF does not know
    broken = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}},
                                            "results": [{"ruleId": "MISSING", "level": "fatal"}]}]}
    errors = sarif_errors(broken)
    assert any("'message' is a required property" in e for e in errors)
    assert any("'fatal' is not one of" in e for e in errors)


def test_headers_are_relative_to_the_current_directory(two: Repo, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.chdir(two.path / "app" / "engine")
    assert main(["check", "--format", "text", "--select", "STALE"]) == 1
    assert capsys.readouterr().out.splitlines()[:2] == [
        "../../checklists/fakepkg-core.md:",
        "  25 STALE [*] `app/tools/names.py` was deleted",
    ]


def test_summary_says_files_when_the_status_file_has_findings(two: Repo) -> None:
    two.edit("pyproject.toml", 'roots = ["app", "tests"]', 'roots = ["app", "tests"]\nstatus_file = "SKILL.md"')
    two.write("SKILL.md", "| Checklist | Entries |\n| --- | --- |\n| `fakepkg-core.md` | 5 API entries |\n"
                          "| `otherlib.md` | 1 API entry |\n")
    r = two.run("check", "--format", "text", "--select", "STATUS,STALE")
    # the status file is not a checklist: two files, not "2 checklists"
    assert r.out.splitlines()[-3] == "Found 2 findings in 2 files: 1 STALE, 1 STATUS."
