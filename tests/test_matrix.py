"""The status file's tables: Focused Packages (import names), Upgrade Families, and the
Package Impact Matrix checked against the manifests (MATRIX)."""

from __future__ import annotations

import sys

from conftest import Repo
from upgrade_checklists.project.status_tables import read_tables

MAIN = '''\
[project]
name = "app"
version = "0"
dependencies = ["fakepkg-core==1.0", "torchy>=2.9.1,<2.11", "peft<=0.18.1"]

[project.optional-dependencies]
extra = ["torchy", "backend-a==0.5.9"]

[tool.uv]
override-dependencies = ["kernel-x==0.15.0"]
'''

SECOND = '''\
[project]
name = "app"
version = "0"
dependencies = ["fakepkg-core==1.0", "torchy>=2.10.0,<2.11", "peft", "kernel-x==0.16.0"]

[project.optional-dependencies]
extra = ["backend-b @ git+https://github.com/org/backend-b.git@310e8fb; sys_platform == 'linux'"]
'''

STATUS = '''\
# Status

## Focused Packages

| Package        | Import path    |
| -------------- | -------------- |
| `fakepkg-core` | `fakepkg.core` |
| `backend-b`    | `backend_b`    |

## Package Impact Matrix

| Package        | Scope            | pyproject.toml locations                      | pyproject.second.toml locations | Docker impact |
| -------------- | ---------------- | --------------------------------------------- | ------------------------------- | ------------- |
| `fakepkg-core` | shared           | `[project].dependencies`                      | `[project].dependencies`        | No            |
| `backend-a`    | main-only        | `[optional-deps].extra`                       | —                               | Base image    |
| `backend-b`    | second-only      | —                                             | `[optional-deps].extra` (git pin) | No          |
| `torchy`       | shared-divergent | `[project].dependencies` (≥2.9.1)             | `[project].dependencies` (≥2.10.0) | Stage 1    |
| `kernel-x`     | shared-divergent | `[tool.uv].override-dependencies` (==0.15.0)  | `[project].dependencies` (==0.16.0) | No        |
| `peft`         | shared           | `[project].dependencies`                      | `[project].dependencies`        | No            |

## Upgrade Families

| Family    | Members                                      | Reason   |
| --------- | -------------------------------------------- | -------- |
| core      | `fakepkg-core`, `peft`                       | coupled  |
| inference | `backend-a` or `backend-b` + `torchy` + `kernel-x` | backends |

## Checklist File Status

| Package        | Checklist file               | Status            |
| -------------- | ---------------------------- | ----------------- |
| `fakepkg-core` | `checklists/fakepkg-core.md` | ✅ 2 API entries  |
'''


def setup(repo: Repo, status: str = STATUS, second: str = SECOND) -> None:
    repo.write("STATUS.md", status)
    repo.write("pyproject.toml", MAIN + '\n[tool.upgrade-checklists]\nstatus_file = "STATUS.md"\n')
    repo.write("pyproject.second.toml", second)


def matrix_lines(r) -> list[str]:
    return [l for l in r.lines if " MATRIX " in l]


def test_tables_are_read_by_header() -> None:
    t = read_tables(STATUS)
    assert t.focused == {"fakepkg-core": ["fakepkg.core"], "backend-b": ["backend_b"]}
    assert t.families == {
        "core": ["fakepkg-core", "peft"],
        # alternatives never have to move together: one family per alternative
        "inference (backend-a)": ["backend-a", "torchy", "kernel-x"],
        "inference (backend-b)": ["backend-b", "torchy", "kernel-x"],
    }
    assert [(r.package, r.scope, r.docker, r.line) for r in t.matrix] == [
        ("fakepkg-core", "shared", "No", 14), ("backend-a", "main-only", "Base image", 15),
        ("backend-b", "second-only", "No", 16), ("torchy", "shared-divergent", "Stage 1", 17),
        ("kernel-x", "shared-divergent", "No", 18), ("peft", "shared", "No", 19)]
    assert t.matrix[4].locations == {"pyproject.toml": "`[tool.uv].override-dependencies` (==0.15.0)",
                                     "pyproject.second.toml": "`[project].dependencies` (==0.16.0)"}
    # columns in another order: the same answer
    swapped = STATUS.replace("| Package        | Import path    |", "| Import path    | Package        |")
    swapped = swapped.replace("| `fakepkg-core` | `fakepkg.core` |", "| `fakepkg.core` | `fakepkg-core` |")
    swapped = swapped.replace("| `backend-b`    | `backend_b`    |", "| `backend_b`    | `backend-b`    |")
    assert read_tables(swapped).focused == t.focused


def test_a_true_matrix_has_one_finding_the_shared_divergence(repo: Repo) -> None:
    setup(repo)
    r = repo.run("check")
    assert matrix_lines(r) == [
        "STATUS.md:19:1: MATRIX `peft` is `shared` but pinned differently: `<=0.18.1` in pyproject.toml; `unpinned` in pyproject.second.toml",
    ]


def test_what_the_matrix_gets_wrong(repo: Repo) -> None:
    second = SECOND.replace('"kernel-x==0.16.0"', '"kernel-x==0.17.0", "backend-a==0.5.9"').replace('"peft"', '"peft<=0.18.1"')
    second = second.replace('"fakepkg-core==1.0", ', "") + '\n[tool.uv]\noverride-dependencies = ["fakepkg-core==1.1"]\n'
    setup(repo, STATUS, second)
    r = repo.run("check")
    assert sorted(matrix_lines(r)) == sorted([
        "STATUS.md:14:1: MATRIX the matrix lists `fakepkg-core` at `[project].dependencies` in pyproject.second.toml, but it is not declared there (it is pinned at `[tool.uv].override-dependencies`) (pyproject.second.toml:10)",
        "STATUS.md:14:1: MATRIX `fakepkg-core` is pinned in pyproject.second.toml at `[tool.uv].override-dependencies`, which the matrix does not list (pyproject.second.toml:10)",
        "STATUS.md:15:1: MATRIX `backend-a` is pinned in pyproject.second.toml at `[project].dependencies`, but the matrix says it is not there (—) (pyproject.second.toml:4)",
        "STATUS.md:18:1: MATRIX the matrix says `kernel-x` is (==0.16.0) in pyproject.second.toml, but it declares `==0.17.0` at `[project].dependencies` (pyproject.second.toml:4)",
    ])
    assert r.code == 1


def test_missing_rows_and_columns(repo: Repo) -> None:
    status = STATUS.replace("| `peft`         | shared           | `[project].dependencies`                      | `[project].dependencies`        | No            |\n", "")
    status = status.replace("pyproject.second.toml locations", "pyproject.gone.toml locations")
    setup(repo, status)
    r = repo.run("check")
    assert "STATUS.md:14:1: MATRIX the matrix has a column for pyproject.gone.toml, which does not exist" in r.lines
    # the checklist's package and the focused packages all have rows; peft is no focused package here
    assert not any("has no row" in l for l in r.lines)
    status = status.replace("| `fakepkg-core` | shared ", "| `fakepkg-corx` | shared ")
    setup(repo, status)
    assert "STATUS.md:1:1: MATRIX focused package `fakepkg-core` has no row in the Package Impact Matrix" in repo.run("check").lines


def test_no_matrix_no_finding(repo: Repo) -> None:
    setup(repo, STATUS.split("## Package Impact Matrix")[0] + "## Checklist File Status" + STATUS.split("## Checklist File Status")[1])
    assert matrix_lines(repo.run("check")) == []


def test_focused_packages_table_is_an_import_name_source(repo: Repo) -> None:
    setup(repo)
    assert "import_names" not in repo.read("checklists/fakepkg-core.md")
    r = repo.run("check", "-v")
    assert "checklists/fakepkg-core.md: import names fakepkg.core (status file STATUS.md, Focused Packages)" in r.err


# --- the audit reads the families and the Docker impact from the status file ---------------

from test_audit import audit, flat, project, upstreams  # noqa: E402,F401 (fixtures)

PROJECT_STATUS = '''\
## Package Impact Matrix

| Package          | Scope  | pyproject.toml locations | Docker impact |
| ---------------- | ------ | ------------------------ | ------------- |
| `fakepkg-core`   | shared | `[project].dependencies` | Base image    |
| `fakepkg-bridge` | shared | `[project].dependencies` | No            |

## Upgrade Families

| Family | Members                            |
| ------ | ---------------------------------- |
| fake   | `fakepkg-core` + `fakepkg-bridge`  |
'''


def test_audit_takes_families_and_docker_impact_from_the_status_file(project: Repo, upstreams) -> None:
    text = project.read("pyproject.toml").replace('families = { fakepkg = ["fakepkg-core", "fakepkg-bridge"] }', 'status_file = "STATUS.md"')
    project.write("pyproject.toml", text)
    project.write("STATUS.md", PROJECT_STATUS)
    project.commit("status file")
    assert not [l for l in project.run("check").lines if " MATRIX " in l]
    project.write("pyproject.toml", text.replace("fakepkg-core==1.0.0", "fakepkg-core==2.0.0"))
    r = audit(project)
    assert r.code == 1
    assert [l for l in r.lines if " FAMILY " in l] == [
        "checklists/fakepkg-core.md:1:1: FAMILY upgrade family `fake`: fakepkg-core moves 1.0.0 -> 2.0.0 but "
        "fakepkg-bridge (at 1.0.0) does not; check that they are compatible"]
    assert "### Dockerfile Changes - `fakepkg-core` (Base image): review the Dockerfile ###" in flat(project.read("upgrade-summary.md"))


def test_cached_answers_follow_the_manifests(repo: Repo) -> None:
    setup(repo)
    first = matrix_lines(repo.run("check"))
    assert matrix_lines(repo.run("check")) == first  # warm: from the cache
    repo.write("pyproject.second.toml", SECOND.replace('"peft"', '"peft<=0.18.1"'))
    assert matrix_lines(repo.run("check")) == []


def test_a_cold_check_parses_the_status_file_once(repo: Repo, monkeypatch) -> None:
    """Its tables (import names, families, matrix) and its status rows come from one parse."""
    from markdown_it import MarkdownIt

    from upgrade_checklists.core import checklist

    setup(repo)
    monkeypatch.setattr(checklist, "_last_parsed", None, raising=False)  # an earlier test's parse is kept
    parsed: list[str] = []
    real = MarkdownIt.parse
    monkeypatch.setattr(MarkdownIt, "parse", lambda self, src, env=None: parsed.append(src) or real(self, src, env))
    r = repo.run("check", "--no-cache")
    assert r.code == 1 and matrix_lines(r)  # the matrix and the status table were both read
    assert parsed.count(STATUS) == 1


def test_manifests_are_read_ahead_once_in_the_scan(repo: Repo, monkeypatch) -> None:
    """A cold run reads the matrix's manifests in the scan's share of work, all in one job
    (parsing requirements costs an import of packaging: one core pays it), and the matrix takes
    their declarations from there: each manifest is read once, with the same findings."""
    from test_runcache import age
    from upgrade_checklists.check import matrix

    setup(repo, second=SECOND + "[broken\n")
    age(repo)  # not racy: what is read ahead is cached for the matrix to find
    read: list[tuple[str, str]] = []
    real = matrix.declarations

    def declarations(text, wanted=None):
        read.append((sys._getframe(1).f_code.co_name, text))
        return real(text, wanted)

    monkeypatch.setattr(matrix, "declarations", declarations)
    monkeypatch.setenv("UPGRADE_CHECKLISTS_JOBS", "1")
    cold = repo.run("check")
    # pyproject.toml and pyproject.second.toml, once each, read ahead (not by the matrix's own look-up)
    assert len(read) == len({text for _, text in read}) == 2 and {who for who, _ in read} == {"read_ahead"}
    assert matrix_lines(cold) == matrix_lines(repo.run("check", "--no-cache")) == [
        "STATUS.md:14:1: MATRIX the matrix has a column for pyproject.second.toml, which is not valid TOML"]
