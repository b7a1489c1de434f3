"""parallel.share: the same answers as a plain loop, whatever happens to the child."""

from __future__ import annotations

import os

import pytest

from upgrade_checklists import parallel

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
    for jobs in ("1", "2"):
        monkeypatch.setenv("UPGRADE_CHECKLISTS_JOBS", jobs)
        r = repo.run("check", "--no-cache", "--output-format", "text")
        assert (r.code, r.out) == (1, PLAIN), jobs
    # the snippet answers of both checklists' catalogs (one of them matched in the child) are cached
    assert repo.run("check").code == 1
    entries = json.loads((repo.path / ".upgrade-checklists-cache/v2/check.json").read_text().split("\n", 1)[1])
    assert {"snippets:app/engine/core.py", "snippets:app/utils/ol.py"} <= set(entries)


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
