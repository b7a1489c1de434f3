"""The API model kept on disk (``model_cache.py``): plain JSON, a second audit of the same
versions loads nothing with griffe and finds the same, a file that is not ours (garbled,
forged under another key, another format) is never trusted, and a question the record
does not hold still follows re-exports and inheritance across modules."""

from __future__ import annotations

import json
from pathlib import Path

import griffe
import pytest

from test_api import tree
from test_audit import BREAKING, OTHER, audit, bump, project, upstreams  # noqa: F401 (fixtures)
from test_audit_verdicts import VERDICTS, findings
from test_audit_verdicts import project as verdicts_project  # noqa: F401 (fixture)
from test_audit_verdicts import upstream  # noqa: F401 (fixture)
from upgrade_checklists.audit import api
from upgrade_checklists.audit.model_cache import FORMAT, CachedModel


def no_griffe(monkeypatch) -> None:
    """Any griffe load from here on fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("griffe was asked to load a model")
    monkeypatch.setattr(griffe, "GriffeLoader", refuse)


def records(cache: Path) -> list[Path]:
    return sorted((cache / "models" / f"v{FORMAT}").glob("*.json"))


def moved_pin_findings(run) -> set[tuple[str, str, str]]:
    return {(l.split(":1: ")[0], l.split(":1: ")[1].split(" ", 1)[0], l.split(":1: ")[1].split(" ", 1)[1].rsplit(" (checklists/", 1)[0])
            for l in run.lines if ":1: " in l}


def test_second_audit_loads_nothing_and_finds_the_same(project, upstreams: Path, monkeypatch) -> None:
    bump(project, upstreams)
    first = audit(project)
    assert (first.code, moved_pin_findings(first)) == (1, set(BREAKING) | set(OTHER))
    files = records(project.cache)
    assert len(files) == 2  # fakepkg-core (with its family member) at 1.0.0 and at 2.0.0
    for f in files:
        data = json.loads(f.read_text(encoding="utf-8"))  # plain JSON, nothing else
        assert sorted(data) == ["key", "tables"]
        assert data["key"]["format"] == FORMAT
        assert [[p, v] for p, v, _h in data["key"]["trees"]] in (
            [["fakepkg-core", "1.0.0"], ["fakepkg-bridge", "1.0.0"]], [["fakepkg-core", "2.0.0"], ["fakepkg-bridge", "1.0.0"]])
    loads = api.LOADS
    no_griffe(monkeypatch)
    second = audit(project)
    assert (second.code, moved_pin_findings(second)) == (1, set(BREAKING) | set(OTHER))
    assert second.lines[-1] == "Audited 1 package(s): 15 breaking, 8 other."
    assert api.LOADS == loads


def test_served_names_and_deprecations_come_back_from_the_record(verdicts_project, monkeypatch) -> None:
    args = ("audit", "oldnew==2.0.0", "--from", "1.0.0", "--cache-dir", str(verdicts_project.cache), "-v")
    assert findings(verdicts_project.run(*args)) == VERDICTS
    no_griffe(monkeypatch)
    r = verdicts_project.run(*args)
    assert (r.code, findings(r)) == (0, VERDICTS)  # the __getattr__ that warns, @deprecated, the alias to torch


@pytest.mark.parametrize("spoil", ["garbled", "other key", "wrong shapes", "empty"])
def test_a_record_that_is_not_ours_is_discarded(project, upstreams: Path, spoil: str) -> None:
    bump(project, upstreams)
    assert moved_pin_findings(audit(project)) == set(BREAKING) | set(OTHER)
    for f in records(project.cache):
        data = json.loads(f.read_text(encoding="utf-8"))
        if spoil == "garbled":
            f.write_bytes(b"\x80\x04\x95 not json at all (a pickle header) \x00")
        elif spoil == "empty":
            f.write_text("")
        elif spoil == "other key":  # another build's answers, forged to say every lookup finds nothing
            data["key"]["build"] = "0.0.0+forged"
            data["tables"] = {peer: {q: {"ok": None, "served": {}} for q in t} for peer, t in data["tables"].items()}
            f.write_text(json.dumps(data))
        else:  # our key, answers of the wrong shape: asked again
            data["tables"] = {peer: {q: {"ok": {"path": 5}, "served": []} for q in t} for peer, t in data["tables"].items()}
            f.write_text(json.dumps(data))
    loads = api.LOADS
    again = audit(project)
    assert moved_pin_findings(again) == set(BREAKING) | set(OTHER)
    assert api.LOADS == loads + 2  # loaded again, not trusted
    for f in records(project.cache):  # and replaced by a good record
        assert json.loads(f.read_text(encoding="utf-8"))["key"]["build"] != "0.0.0+forged"


def test_another_formats_directory_is_not_read(project, upstreams: Path) -> None:
    bump(project, upstreams)
    audit(project)
    for f in records(project.cache):
        other = project.cache / "models" / f"v{FORMAT + 1}" / f.name
        other.parent.mkdir(parents=True, exist_ok=True)
        other.write_text(f.read_text())
        f.unlink()
    loads = api.LOADS
    assert moved_pin_findings(audit(project)) == set(BREAKING) | set(OTHER)
    assert api.LOADS == loads + 2


LIB = {
    "lib/__init__.py": "from lib.core import Engine as PublicEngine\n",
    "lib/core.py": '''
        from lib.base import Base

        class Engine(Base):
            def __init__(self, path, *, fast=False): ...
        ''',
    "lib/base.py": '''
        class Base:
            def run(self, steps: int = 1) -> "Base": ...
        ''',
}


def cached(root: Path, cache: Path) -> CachedModel:
    return CachedModel([("lib", "1.0", root)], ["lib"], cache)


def test_a_question_not_in_the_record_loads_and_extends_it(tmp_path: Path, monkeypatch) -> None:
    root, cache = tree(tmp_path / "src", LIB), tmp_path / "cache"
    m = cached(root, cache)
    engine = m.lookup("lib.PublicEngine")  # a re-export
    assert (engine.path, [p.name for p in engine.signature.params]) == ("lib.core.Engine", ["path", "fast"])
    assert m.loaded
    m.save()
    loads = api.LOADS
    m = cached(root, cache)
    assert m.lookup("lib.PublicEngine") == engine
    assert not m.loaded and api.LOADS == loads
    run = m.lookup("lib.PublicEngine.run")  # not asked before: loads, follows the re-export and the base class
    assert (run.path, run.kind, run.method, run.parameters) == (
        "lib.base.Base.run", "function", True, (("self", "positional or keyword"), ("steps", "positional or keyword")))
    assert run.signature.returns == "lib.base.Base"
    assert m.member(engine, "run").path == "lib.base.Base.run"  # engine came from the record: found again by its path
    assert api.LOADS == loads + 1
    m.save()
    no_griffe(monkeypatch)
    m = cached(root, cache)
    assert m.lookup("lib.PublicEngine.run").path == "lib.base.Base.run"
    assert m.member(m.lookup("lib.PublicEngine"), "run").parameters == run.parameters
    assert not m.loaded


def test_an_unresolved_answer_is_kept_with_its_reason(tmp_path: Path, monkeypatch) -> None:
    root, cache = tree(tmp_path / "src", {"lib/__init__.py": "from torch import Tensor\n"}), tmp_path / "cache"
    m = cached(root, cache)
    with pytest.raises(api.Unresolved, match=r"^`lib.Tensor` is an alias to `torch.Tensor` \(package `torch`\)"):
        m.lookup("lib.Tensor")
    m.save()
    no_griffe(monkeypatch)
    with pytest.raises(api.Unresolved, match=r"^`lib.Tensor` is an alias to `torch.Tensor` \(package `torch`\)"):
        cached(root, cache).lookup("lib.Tensor")


def test_an_edited_source_tree_is_another_key(tmp_path: Path) -> None:
    root, cache = tree(tmp_path / "src", LIB), tmp_path / "cache"
    m = cached(root, cache)
    assert [p.name for p in m.lookup("lib.core.Engine").signature.params] == ["path", "fast"]
    m.save()
    (root / "lib" / "core.py").write_text((root / "lib" / "core.py").read_text().replace("fast=False", "fast=False, slow=True"))
    m = cached(root, cache)
    assert [p.name for p in m.lookup("lib.core.Engine").signature.params] == ["path", "fast", "slow"]
    assert m.loaded


def test_a_tree_whose_files_kept_their_stats_is_not_read_again(tmp_path: Path, monkeypatch) -> None:
    """The source trees' hashes are remembered by their files' stats: a warm audit does not
    read both versions' every file. A file changed since (its stat differs) means the tree
    is read and hashed again; a tree with a file changed in the last seconds is not
    remembered (a second change within the clock's step could keep the stat)."""
    from upgrade_checklists.audit import model_cache
    from upgrade_checklists.audit.model_cache import TREES, tree_hash

    root, memo = tree(tmp_path / "src", LIB), tmp_path / "memo"
    real = tree_hash(root)
    assert tree_hash(root, memo) == real and not memo.exists()  # just written: racy, not remembered
    monkeypatch.setattr(model_cache, "RACY_NS", 0)  # as if written long ago
    assert tree_hash(root, memo) == real
    data = json.loads(memo.read_text())
    assert data["trees"][str(root.resolve())][1] == real
    data["trees"][str(root.resolve())][1] = "f" * 32  # what the memo says is what a stat-equal tree hashes to
    memo.write_text(json.dumps(data))
    assert tree_hash(root, memo) == "f" * 32
    core = root / "lib" / "core.py"
    core.write_text(core.read_text().replace("fast=False", "fast=True"))
    assert tree_hash(root, memo) == tree_hash(root) != real
    memo.write_text("{not json")  # a memo that is not ours: the tree is hashed
    assert tree_hash(root, memo) == tree_hash(root)
    assert not TREES.endswith(".json")  # not taken for one of the records (*.json)


def test_no_cache_dir_keeps_nothing(tmp_path: Path) -> None:
    root = tree(tmp_path / "src", LIB)
    m = CachedModel([("lib", "1.0", root)], ["lib"], None)
    assert (m.lookup("lib.core.Base").path, m.lookup("lib.core.Nope")) == ("lib.base.Base", None)
    m.save()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]


def test_second_audit_formats_nothing_and_writes_the_same_summary(project, upstreams: Path, monkeypatch) -> None:
    """The summary's formatting is remembered in the project's audit cache, for its text and
    the formatters' versions: an audit that finds the same writes the same bytes without mdformat."""
    import mdformat

    bump(project, upstreams)
    audit(project)
    summary = project.path / "upgrade-summary.md"
    first = summary.read_bytes()
    summary.unlink()

    def refuse(*args, **kwargs):
        raise AssertionError("mdformat was asked to format the summary")

    monkeypatch.setattr(mdformat, "text", refuse)
    audit(project)
    assert summary.read_bytes() == first
