"""The CI examples users copy (examples/ci/, and the workflow in the README) are valid:
checked with check-jsonschema against the GitHub workflow and GitLab CI schemas it ships
(no network)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO_ROOT

GITHUB = REPO_ROOT / "examples/ci/github-actions.yml"
GITLAB = REPO_ROOT / "examples/ci/gitlab-ci.yml"


def validate(schema: str, path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(path)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(("schema", "path"), [("vendor.github-workflows", GITHUB), ("vendor.gitlab-ci", GITLAB)])
def test_example_validates_against_its_schema(schema: str, path: Path) -> None:
    r = validate(schema, path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ok -- validation done" in r.stdout


@pytest.mark.parametrize(
    ("schema", "path", "old", "new"),
    [
        ("vendor.github-workflows", GITHUB, "    runs-on: ubuntu-latest\n", ""),  # a job needs a runner
        ("vendor.gitlab-ci", GITLAB, "    when: always\n", "    when: sometimes\n"),
    ],
)
def test_a_broken_example_fails_validation(schema: str, path: Path, old: str, new: str, tmp_path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    broken = tmp_path / path.name
    broken.write_text(text.replace(old, new, 1), encoding="utf-8")
    r = validate(schema, broken)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Schema validation errors were encountered." in r.stdout + r.stderr


def test_readme_links_the_ci_examples_and_quotes_their_commands() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    for example in (GITHUB, GITLAB):
        assert f"]({example.relative_to(REPO_ROOT).as_posix()})" in readme
    workflow = GITHUB.read_text(encoding="utf-8")
    for line in re.findall(r"```yaml\n(.*?)```", readme.split("## In CI", 1)[1], re.S)[0].splitlines():
        if line.strip().startswith("- run:"):
            assert "run: " + line.split("run:", 1)[1].strip() in workflow, line


def test_github_workflow_checks_every_pull_request_and_audits_on_pin_changes() -> None:
    wf = yaml.safe_load(GITHUB.read_text(encoding="utf-8"))
    assert "pull_request" in wf[True]  # YAML 1.1 reads the key `on` as true
    structure = [s.get("run", "") for s in wf["jobs"]["structure"]["steps"]]
    assert "upgrade-checklists check --format github" in structure
    audit = wf["jobs"]["audit"]["steps"]
    cache = next(s for s in audit if s.get("uses", "").startswith("actions/cache@"))
    assert cache["with"]["path"] == "~/.cache/upgrade-checklists"
    assert "uv.lock" in cache["with"]["key"] and "requirements*.txt" in cache["with"]["key"]
    runs = [s for s in audit if "upgrade-checklists audit" in s.get("run", "")]
    assert len(runs) == 1 and runs[0]["if"] == "steps.pins.outputs.changed == 'true'"
    assert '--base-ref "origin/${{ github.base_ref }}"' in runs[0]["run"]


def test_gitlab_audit_runs_when_a_manifest_or_lock_changes() -> None:
    ci = yaml.safe_load(GITLAB.read_text(encoding="utf-8"))
    assert ci["checklist-structure"]["script"][-1] == "upgrade-checklists check"
    (rule,) = ci["upgrade-audit"]["rules"]
    assert {"**/pyproject.toml", "**/uv.lock"} <= set(rule["changes"])
    assert ci["upgrade-audit"]["cache"]["key"]["files"] == ["uv.lock", "pyproject.toml"]


def test_gitlab_audit_keeps_its_source_cache_outside_the_checkout() -> None:
    """GitLab caches only folders of the checkout, and the audit refuses a source cache in it (a
    branch could commit forged sources): the job moves the restored cache out, refuses one the
    branch committed, gives the audit the folder outside, and moves it back for GitLab to save."""
    job = yaml.safe_load(GITLAB.read_text(encoding="utf-8"))["upgrade-audit"]
    (kept,) = job["cache"]["paths"]
    folder = kept.rstrip("/")
    outside = job["variables"]["AUDIT_CACHE"]
    assert outside.startswith("/tmp/") and "CI_PROJECT_DIR" not in outside
    assert "XDG_CACHE_HOME" not in job["variables"]
    script = job["script"]
    guard = next(i for i, line in enumerate(script) if "git ls-files" in line)
    move = next(i for i, line in enumerate(script) if line.endswith(f'mv {folder} "$AUDIT_CACHE"'))
    run = next(i for i, line in enumerate(script) if line.startswith("upgrade-checklists audit"))
    assert f"test -z \"$(git ls-files -- {folder})\"" in script[guard]
    assert guard < move < run and script[run].endswith('--cache-dir "$AUDIT_CACHE"')
    assert job["after_script"] == [f'test ! -d "$AUDIT_CACHE" || mv "$AUDIT_CACHE" {folder}']


def test_examples_are_not_code_our_own_check_scans(tmp_path: Path) -> None:
    from upgrade_checklists.core import config

    cfg = config.load(REPO_ROOT)
    assert not any(r == "examples" or r.startswith("examples/") for r in cfg.roots)
    assert not list((REPO_ROOT / "examples").rglob("*.py"))
