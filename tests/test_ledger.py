"""audit --ledger: releases listed from the index's file names, pre-release rules, the
bisection per finding, and the probe cache on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from upgrade_checklists.audit import ledger
from upgrade_checklists.core.findings import Finding


def test_releases_from_file_names_only(tmp_path: Path, monkeypatch) -> None:
    links = tmp_path / "links"
    links.mkdir()
    for name in ["libx-1.0.tar.gz", "libx-1.1-py3-none-any.whl", "libx-1.1.tar.gz", "libx-1.2rc1.tar.gz",
                 "libx-1.10-cp311-cp311-manylinux_2_28_x86_64.whl", "libx_other-9.0.tar.gz", "libx-notaversion.tar.gz",
                 "README.txt"]:
        (links / name).write_bytes(b"")  # never opened: the names are the listing
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(links))
    assert ledger.index_releases("libx") == ["1.0", "1.1", "1.2rc1", "1.10"]


@pytest.mark.parametrize(("old", "new", "want"), [
    ("1.0", "2.0", ["1.1", "1.2", "2.0"]),  # no pre-releases between two final versions
    ("1.0", "2.0rc1", ["1.1", "1.2", "1.3.dev0", "2.0rc1"]),  # the new one is a pre-release: they count
    ("1.1", "1.1", []),
    ("x", "2.0", []),
])
def test_between(old: str, new: str, want: list[str]) -> None:
    assert ledger.between(["0.9", "1.0", "1.1", "1.2", "1.3.dev0", "2.0rc1", "2.0", "2.1"], old, new) == want


def test_bisect_finds_the_first_release_each_finding_appears_in() -> None:
    releases = [f"1.{i}" for i in range(1, 11)]
    appears = {"a": "1.1", "b": "1.4", "c": "1.10"}
    calls = []

    def probe(release: str) -> set[str]:
        calls.append(release)
        return {k for k, first in appears.items() if int(release.split(".")[1]) >= int(first.split(".")[1])}

    assert ledger.bisect(releases, ["a", "b", "c"], probe) == appears
    assert len(calls) == len(set(calls)) <= 9  # each release probed at most once, shared between findings
    assert ledger.bisect([], ["a"], probe) == {}


def test_a_finding_keeps_its_key_across_releases() -> None:
    f = Finding("c.md", 3, "REMOVED_API", "`x.y` was removed at 1.4 (was in 1.40)", "app/a.py", 7)
    g = Finding("c.md", 3, "REMOVED_API", "`x.y` was removed at 1.9 (was in 1.40)", "app/a.py", 7)
    assert ledger.key(f, "1.4") == ledger.key(g, "1.9")
    assert "1.40" in ledger.key(f, "1.4")  # only the version itself is replaced


def test_probe_cache_round_trip_and_bad_data(tmp_path: Path) -> None:
    c = ledger.ProbeCache(tmp_path, "libx", "1.0", "inputs")
    c.put("1.1", {"k1", "k2"})
    again = ledger.ProbeCache(tmp_path, "libx", "1.0", "inputs")
    assert again.get("1.1") == {"k1", "k2"} and again.get("1.2") is None
    assert ledger.ProbeCache(tmp_path, "libx", "1.0", "other inputs").get("1.1") is None
    c.path.write_text('{"1.1": [1, 2]}')  # not ours: ignored, never trusted
    assert ledger.ProbeCache(tmp_path, "libx", "1.0", "inputs").get("1.1") is None


# --- end to end: three releases, some breaks in the middle one ----------------------------

from test_audit import make_project  # noqa: E402
from upstream import BRIDGE_V1, CORE_V1, CORE_V2, make_repo  # noqa: E402


@pytest.fixture(scope="module")
def three_releases(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("three")
    middle = {"fakepkg/core/parallel_state.py": CORE_V2["fakepkg/core/parallel_state.py"]}  # 1.5.0: only this file moves
    make_repo(base / "example" / "fakepkg-core", "fakepkg-core", [("1.0.0", CORE_V1), ("1.5.0", middle), ("2.0.0", CORE_V2)])
    make_repo(base / "example" / "fakepkg-bridge", "fakepkg-bridge", [("1.0.0", BRIDGE_V1)])
    links = base / "links"
    links.mkdir()
    for v in ("0.9.0", "1.0.0", "1.5.0", "2.0.0", "2.1.0"):
        (links / f"fakepkg_core-{v}.tar.gz").write_bytes(b"")
    return base


def test_ledger_end_to_end(tmp_path: Path, capsys, monkeypatch, three_releases: Path) -> None:
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(three_releases / "links"))
    project = make_project(tmp_path / "project", capsys, three_releases)
    project.edit("pyproject.toml", "fakepkg-core==1.0.0", "fakepkg-core==2.0.0")
    cache = tmp_path / "cache"
    r = project.run("audit", "--cache-dir", str(cache), "--ledger")
    assert r.code == 1
    first = {tuple(l.split(": ")[1:3]) for l in r.err.splitlines() if l.startswith("ledger: ")}
    got = {(place, text.split()[0], text.rsplit(" ", 1)[1]) for place, text in first}
    # parallel_state.py changed in 1.5.0; the rest in 2.0.0
    assert ("app/engine/core.py:11", "REMOVED_PARAM", "1.5.0") in got
    assert ("app/engine/core.py:12", "RETURN_CHANGED", "1.5.0") in got
    assert ("app/engine/core.py:13", "REMOVED_API", "1.5.0") in got
    assert ("app/engine/core.py:14", "NEW_REQUIRED_PARAM", "2.0.0") in got
    assert ("app/engine/core.py:16", "REMOVED_PARAM", "2.0.0") in got
    assert len([l for l in r.err.splitlines() if l.startswith("ledger: ")]) == 15 + 6  # the breaking findings, 3 GUARD_DEAD and 3 info changes
    assert "note: fakepkg-core: ledger over 2 releases (1.5.0, 2.0.0); 1 loaded (1.5.0)" in r.err
    summary = " ".join(project.read("upgrade-summary.md").split())
    assert "- [app/engine/core.py:12] RETURN_CHANGED: `fakepkg.core.parallel_state.get_rank`: returns `str` (was `int`), and this call uses the result (introduced in 1.5.0)" in summary
    # again: nothing between old and new is loaded, and old and new come from the model cache (griffe loads nothing)
    import griffe

    def refuse(*args, **kwargs):
        raise AssertionError("griffe was asked to load a model")
    monkeypatch.setattr(griffe, "GriffeLoader", refuse)
    again = project.run("audit", "--cache-dir", str(cache), "--ledger")
    assert again.code == 1
    assert "note: fakepkg-core: ledger over 2 releases (1.5.0, 2.0.0); 0 loaded (none: all from the cache)" in again.err
    assert {l for l in again.err.splitlines() if l.startswith("ledger: ")} == {l for l in r.err.splitlines() if l.startswith("ledger: ")}
