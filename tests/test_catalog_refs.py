"""The catalog against the code, end to end: references as people write them, LINE for
every number, SNIPPET that never hides LINE, GUARD located by its quoted expression."""

from __future__ import annotations

from conftest import Repo

from upgrade_checklists.check.catalog import wrong_parts
from upgrade_checklists.project.snippets import located_guard_line
from upgrade_checklists.core.checklist import Guard
from upgrade_checklists.core.refs import Number, Part

CL = "checklists/fakepkg-core.md"

JOBS = '''\
from fakepkg.core import parallel_state as mpu


class Runner:
    def start(self, size):
        # warm up
        mpu.initialize_model_parallel(
            tensor_model_parallel_size=size,
        )
        return mpu.get_rank()

    def stop(self):
        mpu.destroy()
'''


def add_entry(repo: Repo, body: str) -> None:
    """A third catalog entry about `lib/jobs.py` (outside the scanned roots: no row needed)."""
    repo.write("lib/jobs.py", JOBS)
    repo.edit(CL, "## Version-Guarded Code", f"### 3. `fakepkg.core.parallel_state.get_rank`\n\n{body}\n## Version-Guarded Code")


SNIPPET = "```python\nmpu.initialize_model_parallel(\n    tensor_model_parallel_size=size,\n)\n```\n"


def test_clean_entry_with_every_pattern(repo: Repo) -> None:
    repo.write("lib/extra.py", "from fakepkg.core import parallel_state as mpu\n\nmpu.destroy()\n")
    add_entry(repo, (
        "Called inside `lib/jobs.py`\n(`Runner.start`, lines 7–9):\n\n" + SNIPPET + "\n"
        "Also used in `stop` (line 12), and in `extra.py` (line 3):\n\n```python\nmpu.destroy()\n```\n\n"
        "Monkey-patched in `lib/*.py` (glob: every file):\n\n```python\nfrom fakepkg.core import parallel_state as mpu\n```\n\n"
        "**Check:** `lib/jobs.py` (lines 1, 7) and upstream `fakepkg/core/parallel_state.py` (line 900).\n"))
    assert repo.run("check").lines == []


def test_wrapped_reference_line_and_fix(repo: Repo) -> None:
    add_entry(repo, "Called inside `lib/jobs.py`\n(`Runner.start`, lines 6–8):\n\n" + SNIPPET)
    r = repo.run("check")
    assert r.lines == [f"{CL}:64:1: LINE [warning] entry 3: snippet in `lib/jobs.py` is now at lines 7-9 (recorded lines 6-8) (lib/jobs.py:7)"]
    assert repo.run("check", "--fix").code == 1
    assert "Called inside `lib/jobs.py`\n(`Runner.start`, lines 7–9):\n" in repo.read(CL)
    assert repo.run("check", "--fix").out == "All checks passed (1 checklist, 8 files scanned).\n"


def test_every_number_of_a_multi_number_reference(repo: Repo) -> None:
    add_entry(repo, "Set in `lib/jobs.py` (lines 2, 14):\n\n```python\nfrom fakepkg.core import parallel_state as mpu\n...\nmpu.destroy()\n```\n")
    r = repo.run("check")
    assert r.lines == [
        f"{CL}:63:1: LINE [warning] entry 3: snippet in `lib/jobs.py` is now at line 1 (recorded line 2) (lib/jobs.py:1)",
        f"{CL}:63:1: LINE [warning] entry 3: snippet in `lib/jobs.py` is now at line 13 (recorded line 14) (lib/jobs.py:13)",
    ]
    repo.run("check", "--fix")
    assert "Set in `lib/jobs.py` (lines 1, 13):" in repo.read(CL)
    assert repo.run("check").lines == []


def test_enclosing_function_start_is_a_right_line(repo: Repo) -> None:
    # 5 is `def start`, 12 is `def stop`: the enclosing function of the documented statement
    add_entry(repo, "Called in `lib/jobs.py` (lines 5, 12):\n\n```python\nmpu.get_rank()\n...\nmpu.destroy()\n```\n")
    assert repo.run("check").lines == []


def test_snippet_finding_never_hides_line(repo: Repo) -> None:
    add_entry(repo, "Called in `lib/jobs.py` (line 9):\n\n```python\nmpu.initialize_model_parallel(tensor_model_parallel_size=4)\nreturn mpu.get_rank()\n```\n")
    r = repo.run("check")
    assert r.lines == [
        f"{CL}:63:1: LINE [warning] entry 3: snippet in `lib/jobs.py` is now at line 10 (recorded line 9) (lib/jobs.py:10)",
        f"{CL}:65:1: SNIPPET entry 3: documented code changed: `mpu.initialize_model_parallel(tensor_model_parallel_size=4)`: "
        "`tensor_model_parallel_size=4` is now `tensor_model_parallel_size=size` (nearest match `lib/jobs.py:7`) (lib/jobs.py:7)",
    ]


def test_statement_found_in_the_second_file_the_entry_names(repo: Repo) -> None:
    repo.write("lib/extra.py", "from fakepkg.core import parallel_state as mpu\n\nmpu.destroy(force=True)\n")
    add_entry(repo, "Called in `lib/jobs.py` and `lib/extra.py`:\n\n```python\nmpu.destroy(force=True)\nmpu.get_rank()\n```\n")
    assert repo.run("check").lines == []


def test_an_example_gone_is_not_near_the_entry_s_other_example(repo: Repo) -> None:
    # two examples of one call; the second's statement was deleted from `lib/extra.py`: the
    # first example (its one place, in `lib/jobs.py`) is other code documented, not a change of it
    repo.write("lib/extra.py", "from fakepkg.core import parallel_state as mpu\n\nmpu.get_rank()\n")
    add_entry(repo, (
        "Called in `lib/jobs.py` (`Runner.stop`):\n\n```python\nmpu.destroy()\n```\n\n"
        "Also called in `lib/extra.py`:\n\n```python\nmpu.destroy(force=True, wait=2)\n```\n"))
    assert repo.run("check").lines == [
        f"{CL}:71:1: SNIPPET entry 3: documented code changed: `mpu.destroy(force=True, wait=2)` is not in `lib/jobs.py`, `lib/extra.py`"]
    # an example found in two places claims neither: the calls stay near matches
    repo.write("lib/extra.py", "from fakepkg.core import parallel_state as mpu\n\nmpu.destroy()\n")
    assert repo.run("check").lines == [
        f"{CL}:71:1: SNIPPET entry 3: documented code changed: `mpu.destroy(force=True, wait=2)`: keyword `force` is gone from "
        "`destroy(...)`; keyword `wait` is gone from `destroy(...)` (nearest match `lib/jobs.py:13`) (lib/jobs.py:13)"]


def test_glob_path_means_every_file_it_matches(repo: Repo) -> None:
    add_entry(repo, "Used in `lib/*.py`:\n\n```python\nmpu.shutdown()\n```\n")
    assert repo.run("check").lines == [f"{CL}:65:1: SNIPPET entry 3: documented code changed: `mpu.shutdown()` is not in `lib/jobs.py`"]


def test_missing_path_reported_once_with_the_nearest_existing_path(repo: Repo) -> None:
    add_entry(repo, (
        "Called in `lib/jobs.py` and `jobz.py`:\n\n```python\nmpu.destroy()\n```\n\n"
        "Also in `lib/jobz.py` and `lib/tasks/run.py`; upstream in `fakepkg/core/gone.py`.\n"))
    assert repo.run("check").lines == [
        f"{CL}:63:1: SNIPPET entry 3: call site `lib/jobz.py` does not exist (nearest existing path: `lib/jobs.py`)",
        f"{CL}:69:1: SNIPPET entry 3: call site `lib/tasks/run.py` does not exist",
    ]


def test_also_used_in_a_function_of_the_previous_file(repo: Repo) -> None:
    add_entry(repo, "Called in `lib/jobs.py` (line 10):\n\n```python\nreturn mpu.get_rank()\n```\n\nAlso used in `stop` (line 11).\n")
    r = repo.run("check")
    assert r.lines == [f"{CL}:69:1: LINE [warning] entry 3: snippet in `lib/jobs.py` is now at line 12 (recorded line 11) (lib/jobs.py:12)"]


def test_reference_without_snippet_located_by_code_quoted_in_its_paragraph(repo: Repo) -> None:
    add_entry(repo, "**Check:** also imported directly in `lib/jobs.py` (line 2) via\n"
                    "`from fakepkg.core import parallel_state as mpu`.\n")
    assert repo.run("check").lines == [f"{CL}:63:1: LINE [warning] entry 3: snippet in `lib/jobs.py` is now at line 1 (recorded line 2) (lib/jobs.py:1)"]


def test_guard_located_by_its_quoted_expression(repo: Repo) -> None:
    repo.edit("app/engine/core.py", "def build(model):\n", "def build(model):\n    '''Build.'''\n")
    r = repo.run("check")
    assert f'{CL}:63:1: GUARD [warning] version guard `hasattr(mpu, "destroy")` in `app/engine/core.py` is now at line 8 (recorded line 7) (app/engine/core.py:8)' in r.lines
    repo.run("check", "--fix")
    assert '- `app/engine/core.py:8` — `hasattr(mpu, "destroy")` guard' in repo.read(CL)
    repo.edit("app/engine/core.py", 'hasattr(mpu, "destroy")', 'hasattr(mpu, "teardown")')
    assert repo.run("check").lines == [
        f'{CL}:63:1: GUARD version guard `hasattr(mpu, "destroy")` is not in `app/engine/core.py` '
        '(nearest: line 8: `\'destroy\'` is now `\'teardown\'`) (app/engine/core.py:8)']


def test_located_guard_line_for_the_audit() -> None:
    source = "import x\n\n\nif hasattr(x, 'save'):\n    x.save()\n"
    g = Guard("m.py", 1, None, 1, "", [], ['hasattr(x, "save")'])
    assert located_guard_line(source, g) == 4
    assert located_guard_line(source, Guard("m.py", 1, None, 1, "", [], ["nothing(quoted)"])) == 1
    assert located_guard_line("def (:\n", g) == 1  # a file that does not parse: the recorded line


def n(value: int) -> Number:
    return Number(value, 1, 0, str(value))


def test_wrong_parts_rules() -> None:
    # spans: [start, end, enclosing starts, enclosing ends, enclosing function start]
    spans = [[7, 9, [5], [10], 5], [13, 13, [12], [13], 12]]
    assert wrong_parts([Part(n(8), None)], spans) == []  # inside a statement
    assert wrong_parts([Part(n(5), n(9))], spans) == []  # the enclosing function's start, the statement's end
    assert wrong_parts([Part(n(6), None)], spans) == [(Part(n(6), None), 7, 9)]  # a comment line: the nearest statement
    # a range owns the statements nearest to it; the other number keeps its own
    assert wrong_parts([Part(n(2), n(4)), Part(n(13), None)], spans) == [(Part(n(2), n(4)), 7, 9)]
    # a range naming a function whose statements moved: the choice most like what was recorded
    whole = [20, 40, [], [], 0]
    assert wrong_parts([Part(n(1), n(21))], [[25, 27, [20], [40], 20]], [whole]) == [(Part(n(1), n(21)), 20, 40)]
    # a range over a `try:` and the documented call under it: the enclosing statement's start counts
    assert wrong_parts([Part(n(156), n(157))], [[146, 146, [145], [150], 0]]) == [(Part(n(156), n(157)), 145, 146)]
