"""The project side of a warm audit (``usecache.py``): what ``find_uses`` found is kept as
plain JSON in ``audit.json``; a second audit of an unchanged project finds the same without
analysing it again; an edited, added or removed file is noticed; a record that is not ours
(garbled, another build, the wrong shape) is never trusted."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from conftest import settle
from test_audit import BREAKING, OTHER, audit, bump, project, upstreams  # noqa: F401 (fixtures)
from upgrade_checklists.project import usecache
from upgrade_checklists.project.uses import Sources, find_uses

KEY = 'uses:[["fakepkg.core"], []]'  # the import names, and upstream's hook names (none)


def age(project) -> None:
    """Every file of the project written an hour ago: out of the racy window, so kept."""
    for path in project.path.rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            st = path.stat()
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - 3600 * 10**9))
    settle()


def store(project) -> Path:
    return project.path / ".upgrade-checklists-cache" / "v3" / "audit.json"


def entries(project) -> dict:
    header, body = store(project).read_text(encoding="utf-8").split("\n", 1)
    assert json.loads(header)["format"] == 3
    return json.loads(body)


def found(run) -> set[tuple[str, str, str]]:
    """``(file:line, code, message)`` of each finding line of ``audit -v``."""
    out = set()
    for line in run.lines:
        if ":1: " in line:
            where, rest = line.split(":1: ")
            code, msg = rest.split(" ", 1)
            out.add((where, code, msg.rsplit(" (checklists/", 1)[0]))
    return out


class Analyses:
    """Counts the analyses of the project; ``refuse`` makes one fail the test."""

    def __init__(self, monkeypatch, refuse: bool = False) -> None:
        self.count = 0
        real = usecache.find_uses

        def counted(sources, names, **kw):
            if refuse:
                raise AssertionError("the project was analysed again")
            self.count += 1
            return real(sources, names, **kw)
        monkeypatch.setattr(usecache, "find_uses", counted)


EVERY = set(BREAKING) | set(OTHER)


def test_the_uses_are_kept_as_plain_json_and_a_second_audit_does_not_analyse(project, upstreams: Path, monkeypatch) -> None:
    bump(project, upstreams)
    age(project)
    assert found(audit(project)) == EVERY
    stamped, digest, record = entries(project)[KEY]
    assert stamped == "stamped" and len(digest) == 40
    assert {"file": "app/engine/core.py", "line": 13, "kind": "call", "target": "fakepkg.core.parallel_state.get_old_group",
            "member": None, "via": "", "patch": False, "write": False, "typing_only": False, "fallback": False,
            "last_resort": False, "tried": [],
            "params": [], "function_line": 0, "function_file": "", "guarded": False, "guard_line": None,
            "defaults": [], "binding": "", "attr": "", "steps": [], "results": [], "unevaluated": "", "star": "", "forwarded": False,
            "on_instance": False, "returns": [], "through_class": False, "names": [], "reached": [],
            "optional": False, "return_flags": [], "flag": "", "arms": [], "helper": "",
            "call": {"api": "fakepkg.core.parallel_state.get_old_group", "line": 13, "end_line": 13,
                     "snippet": "group = mpu.get_old_group()", "positional": 0, "keywords": [], "star_args": False,
                     "star_kwargs": False, "used": True, "assigned_to": "group", "node": None,
                     "callee": "mpu.get_old_group", "unpacked": False, "members_only": False,
                         "targets": 0}} in record  # `group` is returned (line 42)
    patch = [u for u in record if u["kind"] == "patch"]
    assert [(u["file"], u["line"], u["target"], u["member"], u["guarded"], u["guard_line"], u["function_line"]) for u in patch] == [
        ("app/engine/lora.py", 5, "fakepkg.core.bridge.AutoBridge", "save_hf_adapter", True, 4, 8)]
    Analyses(monkeypatch, refuse=True)
    second = audit(project)
    assert (second.code, found(second)) == (1, EVERY)


EXTRA = "from fakepkg.core import parallel_state as mpu\n\n\ndef more():\n    return mpu.get_old_group()\n"
GONE = "`fakepkg.core.parallel_state.get_old_group` was removed at 2.0.0"


@pytest.mark.parametrize("change", ["edited", "added", "removed", "edited, same size and an old mtime"])
def test_a_changed_project_is_analysed_again(project, upstreams: Path, monkeypatch, change: str) -> None:
    bump(project, upstreams)
    age(project)
    assert found(audit(project)) == EVERY
    want = set(EVERY)
    if change == "edited":
        project.write("app/engine/core.py", project.read("app/engine/core.py") + "\n\ndef more():\n    return mpu.get_old_group()\n")
        want.add(("app/engine/core.py:25", "REMOVED_API", GONE))
    elif change == "added":
        project.write("app/engine/extra.py", EXTRA)
        want.add(("app/engine/extra.py:5", "REMOVED_API", GONE))
    elif change == "removed":
        project.remove("app/engine/lora.py")
        want -= {w for w in want if w[0] == "app/engine/lora.py:4"}  # no patch, no guard around it
        want.add(("app/engine/lora.py:4", "GUARD_UNKNOWN", "[warning] version guard `app/engine/lora.py:4` not found"))
    else:  # the call moves to the next line: same size, the mtime set an hour back again
        project.edit("app/engine/core.py", "    group = mpu.get_old_group()\n    ddp = DDP(model, config)\n",
                     "    ddp = DDP(model, config)\n    group = mpu.get_old_group()\n")
        age(project)
        want = {w for w in want if w[0] not in ("app/engine/core.py:13", "app/engine/core.py:14")}
        want |= {("app/engine/core.py:14", "REMOVED_API", GONE)}
        want |= {("app/engine/core.py:13", code, msg) for where, code, msg in EVERY if where == "app/engine/core.py:14"}
    analyses = Analyses(monkeypatch)
    assert found(audit(project)) == want
    assert analyses.count == 1
    if change.startswith("edited, same size"):  # kept for the new state: the next audit analyses nothing
        Analyses(monkeypatch, refuse=True)
        assert found(audit(project)) == want


@pytest.mark.parametrize("spoil", ["garbled", "empty", "another build", "wrong shape", "a call with a node", "another stamp"])
def test_a_record_that_is_not_ours_is_not_trusted(project, upstreams: Path, monkeypatch, spoil: str) -> None:
    bump(project, upstreams)
    age(project)
    assert found(audit(project)) == EVERY
    path = store(project)
    header, body = path.read_text(encoding="utf-8").split("\n", 1)
    data, head = json.loads(body), json.loads(header)
    stamped, digest, record = data[KEY]
    if spoil == "garbled":
        path.write_bytes(b"\x80\x04\x95 a pickle header, not json\x00")
    elif spoil == "empty":
        path.write_text("")
    else:
        if spoil == "another build":  # a record saying the project uses nothing, written by another build
            head["build"] = "0.0.0+forged"
            data[KEY] = [stamped, digest, []]
        elif spoil == "wrong shape":
            data[KEY] = [stamped, digest, [{"file": 5, "line": "13"}]]
        elif spoil == "a call with a node":
            with_call = next(u for u in record if u["call"] is not None)
            forged = [dict(u, call=dict(u["call"], node={"lineno": 1})) if u is with_call else u for u in record]
            data[KEY] = [stamped, digest, forged]
        else:  # what the project used to use, for another state of its files
            data[KEY] = [stamped, "0" * 40, []]
        path.write_text(json.dumps(head) + "\n" + json.dumps(data))
    analyses = Analyses(monkeypatch)
    assert found(audit(project)) == EVERY
    assert analyses.count == 1
    assert entries(project)[KEY][2] == record  # replaced by a good record
    Analyses(monkeypatch, refuse=True)
    assert found(audit(project)) == EVERY


def test_no_cache_keeps_nothing(project, upstreams: Path, monkeypatch) -> None:
    bump(project, upstreams)
    age(project)
    assert found(audit(project, "--no-cache")) == EVERY
    assert not store(project).exists()
    analyses = Analyses(monkeypatch)
    assert found(audit(project, "--no-cache")) == EVERY
    assert analyses.count == 1


def test_a_record_gives_back_the_same_uses_and_calls() -> None:
    texts = {
        "app/a.py": """
            import pkg
            from pkg import Base

            class Mine(Base):
                def step(self):
                    self.engine.run(1, key=2)
                    return super().step(*self.args)

            x = pkg.make(3)
            x.save(path="p")
            Mine().step()
            """,
    }
    sources = Sources({rel: textwrap.dedent(t) for rel, t in texts.items()})
    uses = find_uses(sources, ["pkg"])
    back = usecache.from_record(json.loads(json.dumps(usecache.to_record(uses))))
    assert back == uses
    assert [u.call for u in back] == [u.call for u in uses]  # Use does not compare its call
    assert [u.call.callee_text() if u.call else None for u in back] == [u.call.callee_text() if u.call else None for u in uses]
    assert {u.call.callee_text() for u in back if u.call} >= {"super().step", "pkg.make", "x.save"}
    assert all(u.call is None or u.call.node is None for u in back)


@pytest.mark.parametrize("record", [None, {}, "[]", [1], [{"file": "a.py"}], [{"file": "a.py", "line": 1, "kind": "call", "target": "t",
                                                                                   "call": {"api": "t", "line": 1, "end_line": 1, "snippet": "t()", "node": [1]}}]])
def test_from_record_refuses_what_it_did_not_write(record) -> None:
    assert usecache.from_record(record) is None


class _Store:
    """A stand-in for the scan cache's stamped records (``get_stamped`` / ``put_stamped`` / ``forget``)."""

    def __init__(self) -> None:
        self.records: dict[str, tuple[str, object]] = {}

    def get_stamped(self, key, digest):
        stamped = self.records.get(key)
        return (True, stamped[1]) if stamped is not None and stamped[0] == digest else (False, None)

    def put_stamped(self, key, digest, record) -> None:
        self.records[key] = (digest, record)

    def forget(self, key) -> None:
        self.records.pop(key, None)


def test_the_hook_names_are_part_of_the_key(tmp_path: Path, monkeypatch) -> None:
    """The uses found for one set of upstream hook names are not served for another: a function named
    like a hook of the new set must be read as one."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "x.py").write_text("import pkg\n\ndef pkg_start(app):\n    app.go()\n")
    settle()  # not racy: the record is stored
    sources = Sources(["app/x.py"], read=lambda rel: (tmp_path / rel).read_text())
    store, analyses = _Store(), Analyses(monkeypatch)
    hooks = {u.member for u in usecache.cached_uses(store, tmp_path, sources, ["pkg"], hooks=frozenset()) if u.kind == "hook"}
    assert hooks == set() and analyses.count == 1
    hooks = {u.member for u in usecache.cached_uses(store, tmp_path, sources, ["pkg"], hooks={"pkg_start"}) if u.kind == "hook"}
    assert hooks == {"pkg_start"} and analyses.count == 2
    usecache.cached_uses(store, tmp_path, sources, ["pkg"], hooks={"pkg_start"})
    usecache.cached_uses(store, tmp_path, sources, ["pkg"], hooks=())
    assert analyses.count == 2  # each answer kept under its own key
    assert set(store.records) == {'uses:[["pkg"], []]', 'uses:[["pkg"], ["pkg_start"]]'}
