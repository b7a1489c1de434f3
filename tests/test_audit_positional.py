"""Positional arguments of calls into upstream methods.

A parameter removed upstream that a call passes by position: the call's error names the
argument by its place, and the checklist entry must not add that no call site passes the
parameter (seen on a Sphinx extension whose overrides hand ``no_docstring`` on through
``super()``, Sphinx 4.5 -> 5.0). ``__new__`` is given its class explicitly, through ``super()``
as through the class: that argument is not one of the signature's (seen on a Django model
metaclass, ``super().__new__(cls, name, bases, attrs)``). A class with a ``__new__`` and no
``__init__`` (docutils' ``nodes.Text(str)``) is called with ``__new__``'s parameters."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Repo
from upstream import audited_project, project_pyproject, tagged_upstream

DOC_V1 = {
    "fakepkg/doc/__init__.py": '__version__ = "1.0.0"\n',
    "fakepkg/doc/base.py": '''
        class Writer:
            def add_body(self, lines, skip_doc=False):
                return lines


        def render(text, strict=False):
            return text


        class Meta(type):
            def __new__(cls, name, bases, attrs, flag=False):
                return super().__new__(cls, name, bases, attrs)


        class Word(str):
            def __new__(cls, data, raw=None):
                return str.__new__(cls, data)
        ''',
}
DOC_V2 = {
    "fakepkg/doc/__init__.py": '__version__ = "2.0.0"\n',
    "fakepkg/doc/base.py": '''
        class Writer:
            def add_body(self, lines):
                return lines


        def render(text):
            return text


        class Meta(type):
            def __new__(cls, name, bases, attrs, *, flag=False):
                return super().__new__(cls, name, bases, attrs)


        class Word(str):
            def __new__(cls, data):
                return str.__new__(cls, data)
        ''',
}
APP_PY = '''from fakepkg.doc.base import Meta, Word, Writer, render


class Mine(Writer):
    def add_body(self, lines, skip_doc=False):
        return super().add_body(lines, skip_doc)


def show(text):
    return render(text)


class MyMeta(Meta):
    def __new__(mcs, name, bases, attrs):
        if not attrs:
            return Meta.__new__(mcs, name, bases, attrs)
        if name == "Flagged":
            return super().__new__(mcs, name, bases, attrs, True)
        return super().__new__(mcs, name, bases, attrs)


def words():
    return [Word("a"), Word("b", "b")]
'''


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("doc-upstream"), "fakepkg-doc", [("1.0.0", DOC_V1), ("2.0.0", DOC_V2)])


@pytest.fixture
def project(tmp_path: Path, capsys, upstreams: Path) -> Repo:
    r = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/mine.py": APP_PY,
        "pyproject.toml": project_pyproject("fakepkg-doc", upstreams, "1.0.0")})
    made = r.run("new", "fakepkg-doc", "--github", "example/fakepkg-doc", "--branch-template", "v${VERSION}",
                 "--import-name", "fakepkg.doc", "--upstream-path", "fakepkg/doc/")
    assert made.code == 0, made.lines
    r.commit("checklist")
    return r


def removed(run) -> list[str]:
    """The REMOVED_PARAM lines of an audit's text output, without their checklist reference
    (but those of ``words()``, which the last test reads)."""
    return sorted(line.rsplit(" (checklists/", 1)[0] for line in run.lines
                  if " REMOVED_PARAM " in line and not line.startswith("app/mine.py:23:"))


def test_a_parameter_passed_by_position_is_not_also_said_to_be_passed_by_no_call(project: Repo, upstreams: Path) -> None:
    project.write("pyproject.toml", project_pyproject("fakepkg-doc", upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert r.code == 1
    got = removed(r)
    # the call through super() passes skip_doc as its 2nd positional argument: an error, and nothing else
    # about skip_doc; render's strict is passed by no call: the entry says so (info)
    assert got == [
        "app/mine.py:10:1: REMOVED_PARAM [info] `fakepkg.doc.base.render`: `strict` was removed (no call site passes it)",
        "app/mine.py:6:1: REMOVED_PARAM `fakepkg.doc.base.Writer.add_body`: positional argument 2 has no parameter at "
        "2.0.0 (1 positional parameters) (subclass `Mine`, through `super()`)",
    ]


def test_new_is_given_its_class(project: Repo, upstreams: Path) -> None:
    """``flag`` became keyword-only: only the call passing a 5th positional argument (the class and
    four more) passes it by position; the class given to ``__new__`` is not ``name``."""
    project.write("pyproject.toml", project_pyproject("fakepkg-doc", upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    # lines 16 (through the class), 18 and 19 (through super()) call Meta.__new__
    got = sorted(line.rsplit(" (checklists/", 1)[0] for line in r.lines
                 if line.startswith(tuple(f"app/mine.py:{n}:" for n in range(13, 20))))
    assert got == [
        "app/mine.py:18:1: POSITION_CHANGED `fakepkg.doc.base.Meta.__new__`: `flag` is now keyword-only, and this call "
        "passes it by position (subclass `MyMeta`, through `super()`)",
    ]


def test_a_class_with_only_new_is_called_with_its_parameters(project: Repo, upstreams: Path) -> None:
    """``Word(str)`` has ``__new__(cls, data)`` at 2.0.0 (``raw`` removed) and no ``__init__``: the call
    passing two arguments is an error, the one passing one binds."""
    project.write("pyproject.toml", project_pyproject("fakepkg-doc", upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    got = [line.rsplit(" (checklists/", 1)[0] for line in r.lines if line.startswith("app/mine.py:23:")]
    assert got == ["app/mine.py:23:1: REMOVED_PARAM `fakepkg.doc.base.Word`: positional argument 2 has no parameter "
                   "at 2.0.0 (1 positional parameters)"]
