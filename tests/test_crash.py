"""An unexpected exception in any command: one line on stderr, traceback in a log, exit 2 (never 1)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import Repo
from upgrade_checklists.audit import pipeline as audit
from upgrade_checklists.check import fix, new
from upgrade_checklists.project import snippets

CL = "checklists/fakepkg-core.md"
LINE_RE = re.compile(r"^upgrade-checklists: internal error: (\w+): (.*) \(details in (.+)\)$")


def _internal_error(err: str, kind: str, message: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    m = LINE_RE.match(lines[0])
    assert m is not None, err
    assert (m.group(1), m.group(2)) == (kind, message)
    log = Path(m.group(3))
    text = log.read_text()
    assert "Traceback (most recent call last)" in text and f"\n{kind}" in text
    log.unlink()
    return text


def _raiser(exc: BaseException):
    def boom(*args, **kwargs):
        raise exc
    return boom


def test_check(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snippets.Snippets, "save", _raiser(KeyError("injected into check")))
    r = repo.run("check")
    assert r.code == 2 and r.out == ""
    log = _internal_error(r.err, "KeyError", "'injected into check'")
    assert "in run_check" in log and "in boom" in log


def test_check_fix(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo.write("app/utils/new.py", "import fakepkg.core\n")
    before = repo.read(CL)
    monkeypatch.setattr(fix.Table, "render", _raiser(RuntimeError("injected\nwhile rendering")))
    r = repo.run("check", "--fix")
    assert r.code == 2
    _internal_error(r.err, "RuntimeError", "injected while rendering")  # one line, whatever the message
    assert repo.read(CL) == before


def test_check_recursion_and_memory_errors(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snippets.Snippets, "save", _raiser(RecursionError("maximum recursion depth exceeded")))
    r = repo.run("check")
    assert r.code == 2
    _internal_error(r.err, "RecursionError", "maximum recursion depth exceeded")
    monkeypatch.setattr(snippets.Snippets, "save", _raiser(MemoryError()))
    r = repo.run("check", "--format", "json")
    assert r.code == 2 and r.out == ""
    _internal_error(r.err, "MemoryError", "")


def test_new(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(new, "_users", _raiser(AttributeError("injected into new")))
    r = repo.run("new", "otherlib", "--github", "example/otherlib")
    assert r.code == 2 and r.out == ""
    _internal_error(r.err, "AttributeError", "injected into new")
    assert not (repo.path / "checklists/otherlib.md").exists()


def test_audit(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(audit, "plan", _raiser(IndexError("injected into audit")))
    r = repo.run("audit", "fakepkg-core==2.0.0")
    assert r.code == 2 and r.out == ""
    _internal_error(r.err, "IndexError", "injected into audit")


def test_usage_and_configuration_errors_stay_as_they_were(repo: Repo) -> None:
    r = repo.run("check", "--no-such-option")
    assert r.code == 2 and "internal error" not in r.err
    repo.write("pyproject.toml", "[tool.upgrade-checklists]\nroots = 3\n")
    r = repo.run("check")
    assert r.code == 2 and r.err.startswith("upgrade-checklists: error: ") and "internal error" not in r.err
