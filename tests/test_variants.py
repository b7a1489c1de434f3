"""The audit over several variants: manifests and lock files paired by name, git pins,
a lock overriding a pin, a transitive bump in one lock, ``PKG==VERSION@variant``."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Repo, git
from test_audit import BREAKING, audit, flat, project, upstreams  # noqa: F401 (fixtures)

VLLM = '[project]\nname = "app"\nversion = "0"\ndependencies = [{}]\n'
LOCK = '[[package]]\nname = "{}"\nversion = "{}"\nsource = {{ registry = "https://pypi.org/simple" }}\n'


def vllm_manifest(*reqs: str) -> str:
    return VLLM.format(", ".join(f'"{r}"' for r in reqs))


def lines_of(r, code: str) -> list[str]:
    return [l for l in r.lines if f" {code} " in l]


def test_a_move_in_the_second_manifest_only(project: Repo) -> None:
    project.write("pyproject.vllm.toml", vllm_manifest("fakepkg-core==1.0.0", "fakepkg-bridge==1.0.0"))
    project.commit("vllm variant")
    project.write("pyproject.vllm.toml", vllm_manifest("fakepkg-core==2.0.0", "fakepkg-bridge==1.0.0"))
    r = audit(project, "--format", "json")
    doc = r.json()
    assert r.code == 1
    assert [(p["package"], p["old_version"], p["new_version"], p["variants"]) for p in doc["packages"]] == [
        ("fakepkg-core", "1.0.0", "2.0.0", ["vllm"])]
    assert sum(bool(f.get("severity", "error") == "error" and f["file"]) for f in doc["findings"]) == len(BREAKING)


def test_a_divergent_package_is_audited_per_variant(project: Repo) -> None:
    project.write("pyproject.vllm.toml", vllm_manifest("fakepkg-core==2.0.0", "fakepkg-bridge==1.0.0"))
    project.commit("vllm variant at 2.0.0")
    r = audit(project, "--format", "json")
    doc = r.json()
    got = [(p["package"], p["old_version"], p["new_version"], p["variants"]) for p in doc["packages"]]
    assert got == [("fakepkg-bridge", None, "1.0.0", ["default", "vllm"]),
                   ("fakepkg-core", None, "1.0.0", ["default"]),
                   ("fakepkg-core", None, "2.0.0", ["vllm"])]
    # binding only, but at 2.0.0 the call sites do not bind: the vllm variant breaks, the default does not
    errors = sorted((f["line"], f["code"]) for f in doc["findings"] if f.get("severity") == "error")
    assert errors == [(4, "GUARD_MISMATCH"), (5, "MOVED_API"), (11, "REMOVED_PARAM"), (11, "REMOVED_PARAM"), (14, "NEW_REQUIRED_PARAM"),
                      (15, "NEW_REQUIRED_PARAM"), (15, "REMOVED_PARAM"), (17, "REMOVED_PARAM"), (20, "REMOVED_PARAM")]
    assert all("2.0.0" in f["message"] or f["code"] == "GUARD_MISMATCH" for f in doc["findings"] if f.get("severity") == "error")


def test_variant_on_the_command_line(project: Repo) -> None:
    project.write("pyproject.vllm.toml", vllm_manifest("fakepkg-core==1.0.0", "fakepkg-bridge==1.0.0"))
    project.commit("vllm variant")
    r = audit(project, "fakepkg-core==2.0.0@vllm", "--format", "json")
    assert [(p["old_version"], p["new_version"], p["variants"]) for p in r.json()["packages"]] == [("1.0.0", "2.0.0", ["vllm"])]
    r = audit(project, "fakepkg-core==2.0.0", "--format", "json")  # no variant: every variant that pins it
    assert [(p["old_version"], p["variants"]) for p in r.json()["packages"]] == [("1.0.0", ["default", "vllm"])]


@pytest.mark.parametrize(("spec", "error"), [
    ("fakepkg-core==2.0.0@nosuch", "'fakepkg-core==2.0.0@nosuch': no variant 'nosuch' (variants: default, vllm)"),
    ("fakepkg-core==2.0.0@", "'fakepkg-core==2.0.0@': expected PKG==VERSION or PKG==VERSION@variant"),
    ("fakepkg-core==@vllm", "'fakepkg-core==@vllm': expected PKG==VERSION or PKG==VERSION@variant"),
])
def test_bad_variant_specs(project: Repo, spec: str, error: str) -> None:
    project.write("pyproject.vllm.toml", vllm_manifest("fakepkg-core==1.0.0"))
    r = audit(project, spec)
    assert (r.code, r.err) == (2, f"upgrade-checklists: error: {error}\n")


def _tag_commit(upstreams: Path, tag: str) -> str:
    return git(upstreams / "example" / "fakepkg-core", "rev-parse", f"{tag}^{{commit}}").strip()


@pytest.mark.parametrize("abbreviate", [False, True])
def test_a_git_pin_is_fetched_at_its_ref(project: Repo, upstreams: Path, abbreviate: bool) -> None:
    old, new = _tag_commit(upstreams, "v1.0.0"), _tag_commit(upstreams, "v2.0.0")
    if abbreviate:  # an abbreviated commit cannot be fetched shallowly: the history is fetched
        old, new = old[:9], new[:9]
    url = f"git+file://{upstreams}/example/fakepkg-core"
    project.write("pyproject.vllm.toml", vllm_manifest(f"fakepkg-core @ {url}@{old}", "fakepkg-bridge==1.0.0"))
    project.commit("git pin")
    project.write("pyproject.vllm.toml", vllm_manifest(f"fakepkg-core @ {url}@{new}", "fakepkg-bridge==1.0.0"))
    # the checklist's branch_template points nowhere: the pin's repository is what is fetched
    project.edit("checklists/fakepkg-core.md", "github: example/fakepkg-core", "github: example/nowhere")
    r = audit(project, "--format", "json")
    doc = r.json()
    assert r.code == 1, r.err
    assert [(p["old_version"], p["new_version"], p["variants"], p["source"]) for p in doc["packages"]] == [
        (old, new, ["vllm"], f"file://{upstreams}/example/fakepkg-core {new}")]
    assert sum(bool(f.get("severity", "error") == "error" and f["file"]) for f in doc["findings"]) == len(BREAKING)


def test_a_hostile_git_pin_is_refused(project: Repo) -> None:
    project.write("pyproject.vllm.toml", vllm_manifest("fakepkg-core @ git+file:///x/y@--upload-pack=touch"))
    r = audit(project)
    assert r.code == 2
    assert "'--upload-pack=touch' is not a valid version" in r.err


def test_a_lock_overriding_a_changed_pin_is_said(project: Repo) -> None:
    project.write("pyproject.vllm.toml", vllm_manifest("fakepkg-core==1.0.0", "fakepkg-bridge==1.0.0"))
    project.write("uv.vllm.lock", LOCK.format("fakepkg-core", "1.0.0") + LOCK.format("fakepkg-bridge", "1.0.0"))
    project.commit("locked")
    project.write("pyproject.vllm.toml", vllm_manifest("fakepkg-core==2.0.0", "fakepkg-bridge==1.0.0"))
    r = audit(project)
    assert r.code == 0  # the lock still resolves 1.0.0: nothing moved
    assert ("note: fakepkg-core @ vllm: the pin moved 1.0.0 -> 2.0.0 in pyproject.vllm.toml, but uv.vllm.lock "
            "still resolves 1.0.0: the lock wins (re-lock to audit 2.0.0)\n") in r.err


def test_a_transitive_bump_in_one_lock(project: Repo) -> None:
    project.write("pyproject.vllm.toml", vllm_manifest("fakepkg-bridge==1.0.0"))
    project.write("uv.vllm.lock", LOCK.format("fakepkg-core", "1.0.0") + LOCK.format("fakepkg-bridge", "1.0.0"))
    project.commit("locked")
    project.write("uv.vllm.lock", LOCK.format("fakepkg-core", "2.0.0") + LOCK.format("fakepkg-bridge", "1.0.0"))
    r = audit(project, "--format", "json")
    assert [(p["package"], p["old_version"], p["new_version"], p["variants"]) for p in r.json()["packages"]] == [
        ("fakepkg-core", "1.0.0", "2.0.0", ["vllm"])]
    summary = flat(project.read("upgrade-summary.md"))
    assert "Why: moved in uv.vllm.lock since HEAD (transitive: no pin changed)." in summary
    assert ("### Dependency Resolution - `fakepkg-core` 1.0.0 → 2.0.0 @ vllm: moved through the lock file only "
            "(a transitive bump: no pin changed) ###") in summary


def test_manifests_key_limits_the_files_read(project: Repo) -> None:
    project.write("pyproject.vllm.toml", vllm_manifest("fakepkg-core==1.0.0"))
    project.commit("vllm")
    project.write("pyproject.vllm.toml", vllm_manifest("fakepkg-core==2.0.0"))
    project.edit("pyproject.toml", "[tool.upgrade-checklists]\n", '[tool.upgrade-checklists]\nmanifests = ["pyproject.toml"]\n')
    r = audit(project, "--format", "json")
    assert [(p["old_version"], p["new_version"]) for p in r.json()["packages"]] == [(None, "1.0.0"), (None, "1.0.0")]
    project.edit("pyproject.toml", 'manifests = ["pyproject.toml"]', 'manifests = ["../pyproject.toml"]')
    r = audit(project)
    assert r.code == 2 and "must be a path inside the repository" in r.err
