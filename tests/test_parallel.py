"""parallel.share: the same answers as a plain loop, whatever happens to the child."""

from __future__ import annotations

import os

import pytest

from conftest import settle
from upgrade_checklists.project import parallel

JOBS = list(range(40))


def square(x: int) -> int:
    return x * x


def test_shared_jobs_give_the_plain_loop_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UPGRADE_CHECKLISTS_JOBS", "2")
    here: list[int] = []

    def work(x: int) -> int:
        here.append(x)
        return x * x

    out = parallel.share(JOBS, work, lambda r: r, int, weight=lambda x: x % 7)
    assert out == [x * x for x in JOBS]
    assert 0 < len(here) < len(JOBS)  # the other jobs ran in the child


def test_whoever_is_free_takes_the_next_job(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """The parent is held up by its first job until the child has done 30 of the 40: a
    split made up front (20 each) would never get there."""
    import time

    monkeypatch.setenv("UPGRADE_CHECKLISTS_JOBS", "2")
    parent = os.getpid()
    marker = tmp_path / "child-did-30"
    done_in_child: list[int] = []
    here: list[int] = []

    def work(x: int) -> int:
        if os.getpid() == parent:
            here.append(x)
            deadline = time.monotonic() + 60
            while len(here) == 1 and not marker.exists() and time.monotonic() < deadline:
                time.sleep(0.01)
        else:
            done_in_child.append(x)
            if len(done_in_child) == 30:
                marker.write_text("30")
        return x * x

    assert parallel.share(JOBS, work, lambda r: r, int) == [x * x for x in JOBS]
    assert marker.exists() and len(here) <= 10


@pytest.mark.parametrize("tickets", [1, 3, 16])
def test_many_jobs_go_by_tickets_of_several(monkeypatch: pytest.MonkeyPatch, tickets: int) -> None:
    monkeypatch.setenv("UPGRADE_CHECKLISTS_JOBS", "2")
    monkeypatch.setattr(parallel, "MAX_TICKETS", tickets)
    parent = os.getpid()
    here: list[int] = []

    def work(x: int) -> int:
        if os.getpid() == parent:
            here.append(x)
        return x * x

    jobs = list(range(101))
    assert parallel.share(jobs, work, lambda r: r, int, weight=lambda x: -x) == [x * x for x in jobs]
    assert here[0] == 0 and 1 not in here  # the heaviest here, the second in the child
    assert len(here) == len(set(here))  # nothing done twice


def test_a_child_that_fails_is_made_up_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UPGRADE_CHECKLISTS_JOBS", "2")
    parent = os.getpid()

    def work(x: int) -> int:
        if os.getpid() != parent and x == 3:
            raise RuntimeError("only in the child")
        return x * x

    assert parallel.share(JOBS, work, lambda r: r, int) == [x * x for x in JOBS]

    def crash(x: int) -> int:
        if os.getpid() != parent:
            os._exit(139)  # as a native crash would
        return x * x

    assert parallel.share(JOBS, crash, lambda r: r, int) == [x * x for x in JOBS]


def test_results_the_parent_does_not_accept_are_recomputed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UPGRADE_CHECKLISTS_JOBS", "2")

    def strict(value: object) -> int:
        if type(value) is not int or value % 2:
            raise ValueError("not what this side expects")
        return value

    # the child's odd squares are refused on the way back: those jobs run here again
    assert parallel.share(JOBS, square, lambda r: r, strict) == [x * x for x in JOBS]
    # not JSON at all on the way out: the child fails, the parent does it all
    assert parallel.share(JOBS, square, lambda r: object(), int) == [x * x for x in JOBS]


def test_one_cpu_or_few_jobs_stay_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    forks: list[int] = []
    monkeypatch.setattr(parallel.os, "fork", lambda: forks.append(1) or os.getpid())
    monkeypatch.setenv("UPGRADE_CHECKLISTS_JOBS", "1")
    assert parallel.share(JOBS, square, lambda r: r, int) == [x * x for x in JOBS]
    monkeypatch.setenv("UPGRADE_CHECKLISTS_JOBS", "2")
    assert parallel.share(JOBS[:3], square, lambda r: r, int) == [0, 1, 4]
    assert forks == []


def test_a_check_on_two_cores_reports_and_remembers_what_one_core_does(repo, monkeypatch: pytest.MonkeyPatch) -> None:
    import json
    import shutil
    import time

    from test_output import OTHER, PLAIN

    repo.write("checklists/otherlib.md", OTHER)
    repo.write("app/utils/ol.py", "import otherlib\n\n\notherlib.helper(1)\n")
    repo.write("app/engine/use_ol.py", "from otherlib import helper, alpha, beta, gamma\n")
    repo.write("app/utils/new.py", "import fakepkg.core\n")
    repo.remove("app/tools/names.py")
    repo.edit("app/engine/core.py", "tensor_model_parallel_size=2", "tensor_model_parallel_size=4")
    old = time.time() - 3600
    for p in repo.path.rglob("*"):
        if ".git" not in p.parts:
            os.utime(p, (old, old))
    settle()
    for jobs in ("1", "2"):
        monkeypatch.setenv("UPGRADE_CHECKLISTS_JOBS", jobs)
        r = repo.run("check", "--no-cache", "--output-format", "text")
        assert (r.code, r.out) == (1, PLAIN), jobs
    # the snippet answers of both checklists' catalogs (one of them matched in the child, and
    # its questions found in the child that read it, verbatim look-ups included) are cached:
    # the same answers as one core finds
    answers = {}
    for jobs in ("1", "2"):
        monkeypatch.setenv("UPGRADE_CHECKLISTS_JOBS", jobs)
        shutil.rmtree(repo.path / ".upgrade-checklists-cache", ignore_errors=True)
        assert repo.run("check").code == 1
        entries = json.loads((repo.path / ".upgrade-checklists-cache/v3/check.json").read_text().split("\n", 1)[1])
        answers[jobs] = {k: dict((q, json.dumps(a)) for q, a in v[4]) for k, v in entries.items() if k.startswith("snippets:")}
    assert {"snippets:app/engine/core.py", "snippets:app/utils/ol.py"} <= set(answers["2"])
    assert any(q.startswith("v:") for q in answers["2"]["snippets:app/utils/ol.py"])
    assert answers["1"] == answers["2"]


def test_an_error_here_stops_the_child_and_is_raised(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("UPGRADE_CHECKLISTS_JOBS", "2")
    parent = os.getpid()
    marker = tmp_path / "child-finished"

    def work(x: int) -> int:
        if os.getpid() == parent:
            raise KeyboardInterrupt  # as ^C during the parent's share
        import time

        time.sleep(3)
        marker.write_text("done")  # a killed child never gets here
        return x

    with pytest.raises(KeyboardInterrupt):
        parallel.share(JOBS, work, lambda r: r, int)
    assert not marker.exists()


def test_a_cold_check_parses_a_file_once_for_its_scan_and_its_catalog(repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """app/engine/core.py is listed (scanned for its names) and holds the catalog's version
    guard (matched by parsing it): one parse serves both."""
    import ast

    source = (repo.path / "app/engine/core.py").read_bytes()
    parses: list[int] = []
    real = ast.parse

    def counting(src, *args, **kwargs):
        if src in (source, source.decode()):
            parses.append(1)
        return real(src, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting)
    monkeypatch.setenv("UPGRADE_CHECKLISTS_JOBS", "1")
    assert repo.run("check", "--no-cache").code == 0
    assert len(parses) == 1
    repo.edit("app/engine/core.py", 'hasattr(mpu, "destroy")', 'hasattr(mpu, "teardown")')
    source = (repo.path / "app/engine/core.py").read_bytes()
    parses.clear()
    r = repo.run("check", "--no-cache")
    assert r.code == 1 and len(parses) == 1
    assert 'GUARD version guard `hasattr(mpu, "destroy")` is not in `app/engine/core.py`' in r.out


DATED = """\
---
package: otherlib
github: example/otherlib
reviewed: 2024-05-01
---

## Affected Files

### Primary (engine layer — most likely to break)

| File               | Imports / Usage |
| ------------------ | --------------- |
| `app/utils/ol.py`  | `helper`        |
"""


@pytest.mark.parametrize("dated_first", [True, False])
def test_checklists_read_on_two_cores_are_the_ones_read_here(repo, monkeypatch: pytest.MonkeyPatch, dated_first: bool) -> None:
    """Checklists are read half in a child; a frontmatter JSON cannot carry (a date) is read
    again here, whichever side read it first, and is never cached."""
    import json
    import shutil
    import time

    from upgrade_checklists.project import checklists

    # the larger checklist is read here, the other in the child
    padding = "\n" + "<!-- padding -->\n" * (200 if dated_first else 0)
    repo.write("checklists/otherlib.md", DATED + padding)
    repo.write("app/utils/ol.py", "import otherlib\n\n\notherlib.helper(1)\n")
    if not dated_first:
        repo.write("checklists/fakepkg-core.md", (repo.path / "checklists/fakepkg-core.md").read_text() + "\n" + "<!-- padding -->\n" * 400)
    old = time.time() - 3600  # not racily clean: the run caches what it read
    for p in repo.path.rglob("*"):
        if ".git" not in p.parts:
            os.utime(p, (old, old))
    settle()
    read_here: list[str] = []
    real = checklists.read_checklist
    monkeypatch.setattr(checklists, "read_checklist", lambda path, rel: read_here.append(rel) or real(path, rel))
    outputs = {}
    for jobs in ("1", "2"):
        read_here.clear()
        monkeypatch.setenv("UPGRADE_CHECKLISTS_JOBS", jobs)
        shutil.rmtree(repo.path / ".upgrade-checklists-cache", ignore_errors=True)
        r = repo.run("check", "--output-format", "json")
        outputs[jobs] = (r.code, r.out)
        if jobs == "2":
            # dated read here first: the child read the other; dated read in the child: sent back as "read it here"
            assert read_here == (["checklists/otherlib.md"] if dated_first else ["checklists/fakepkg-core.md", "checklists/otherlib.md"])
    assert outputs["1"] == outputs["2"]
    assert json.loads(outputs["2"][1]) == json.loads(outputs["1"][1])
    entries = json.loads((repo.path / ".upgrade-checklists-cache/v3/check.json").read_text().split("\n", 1)[1])
    assert "checklist:checklists/fakepkg-core.md" in entries and "checklist:checklists/otherlib.md" not in entries


def _other_frontmatter() -> str:
    from test_output import OTHER

    return OTHER[: OTHER.index("## Affected Files")]


DIR_ROW = _other_frontmatter() + """\
## Affected Files

### Primary (engine layer — most likely to break)

| File           | Imports / Usage     |
| -------------- | ------------------- |
| `app/plugins/` | `helper`, `Session` |

### Secondary (model / infra layer)

_None._

### Tertiary (tests, config)

_None._

## API Usage Catalog

_None._

## Version-Guarded Code

_None._
"""


def test_an_importer_below_a_directory_row_is_parsed_once(repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its row's tokens are matched against its names (``otherlib.helper`` is no import):
    the scan collects them in its one parse."""
    import ast

    repo.write("checklists/otherlib.md", DIR_ROW)
    repo.write("app/plugins/__init__.py", "")
    repo.write("app/plugins/a.py", "import otherlib\n\n\ndef run():\n    return otherlib.helper(otherlib.Session())\n")
    repo.write("app/plugins/b.py", "X = 1\n")  # no import: read, never parsed
    parses: list[str] = []
    real = ast.parse

    def counting(src, *args, **kwargs):
        parses.append(kwargs.get("filename", "?"))
        return real(src, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting)
    monkeypatch.setenv("UPGRADE_CHECKLISTS_JOBS", "1")
    r = repo.run("check", "--no-cache")
    assert (r.code, r.out) == (0, "All checks passed (2 checklists, 11 files scanned).\n")
    assert parses.count("app/plugins/a.py") == 1 and "app/plugins/b.py" not in parses
    repo.edit("app/plugins/a.py", "otherlib.Session()", "None")
    r = repo.run("check", "--no-cache")
    assert r.code == 0 and "`Session`" in r.out and "CHANGED [warning]" in r.out  # a row that only lags: a warning


def test_names_are_collected_only_where_a_row_looks_for_them(repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """core.py's row names what it imports: its imports decide, its names are not walked.
    A token only its code has (the function ``build``) makes the scan collect its names,
    in the same parse."""
    import ast

    from upgrade_checklists.project import scan

    walked: list[tuple[str, bool]] = []
    parses: list[str] = []
    real_collect, real_parse = scan._collect, ast.parse
    monkeypatch.setattr(scan, "_collect", lambda tree, facts, full, *nodes: walked.append((facts.path, full))
                        or real_collect(tree, facts, full, *nodes))
    monkeypatch.setattr(ast, "parse", lambda src, *a, **k: parses.append(k.get("filename", "?")) or real_parse(src, *a, **k))
    monkeypatch.setenv("UPGRADE_CHECKLISTS_JOBS", "1")
    assert repo.run("check", "--no-cache").code == 0
    assert ("app/engine/core.py", False) in walked and ("app/engine/core.py", True) not in walked
    repo.edit("checklists/fakepkg-core.md", "`DistributedDataParallel` |", "`DistributedDataParallel`, `build` |")
    walked.clear()
    parses.clear()
    r = repo.run("check", "--no-cache")
    assert ("app/engine/core.py", True) in walked and parses.count("app/engine/core.py") == 1
    assert "CHANGED" not in r.out  # `build` is defined there
    repo.edit("checklists/fakepkg-core.md", "`build` |", "`teardown` |")
    r = repo.run("check", "--no-cache")
    assert "`teardown` no longer match anything" in r.out
