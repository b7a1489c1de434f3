"""Hostile and unusual input: every class the fuzzing found, each reproduced on the fixture repository.

Each test says what used to happen; now nothing crashes, hangs or is lost.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from conftest import Repo
from upgrade_checklists.core import files
from upgrade_checklists.core.checklist import REMOVAL_MARK
from upgrade_checklists.check.rows import usage_parts
from upgrade_checklists.project.scan import Import

CL = "checklists/fakepkg-core.md"
GONE_ROW = "| `app/engine/core.py` | `parallel_state` (as `mpu`), `DistributedDataParallel` |"


def _unaligned(repo: Repo) -> str:
    """The fixture checklist with an unaligned Primary table (so edits are easy to state)."""
    text = repo.read(CL)
    text = re.sub(r"\| File +\| Imports / Usage +\|\n\| -+ \| -+ \|\n\| `app/engine/core.py` \| .*\|\n",
                  "| File | Imports / Usage |\n| --- | --- |\n" + GONE_ROW + "\n", text, count=1)
    assert GONE_ROW in text
    return text


# 1. line separators other than \n -------------------------------------------------------


@pytest.mark.parametrize("sep", ["\x85", "\u2028", "\u2029", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"])
def test_line_separators_are_not_line_breaks(repo: Repo, sep: str) -> None:
    text = _unaligned(repo).replace("## Affected Files", f"Owner: infra{sep}team.\n\n## Affected Files")
    text = text.replace(GONE_ROW, GONE_ROW + "\n| `app/engine/__init__.py` | `DistributedDataParallel` |")
    repo.write(CL, text)
    assert repo.run("check").codes == ["STALE"]
    assert repo.run("check", "--fix").code == 1
    expected = text.replace("| `app/engine/__init__.py` | `DistributedDataParallel` |",
                            f"| `app/engine/__init__.py` | `DistributedDataParallel` {REMOVAL_MARK} |")
    assert repo.read(CL) == expected
    assert repo.run("check").code == 0


def test_lone_carriage_returns_count_as_markdown_it_counts_them(repo: Repo) -> None:
    text = _unaligned(repo).replace("## Affected Files", "Owner:\rinfra.\n\n## Affected Files")
    text = text.replace(GONE_ROW, GONE_ROW + "\n| `app/engine/__init__.py` | `x` |")
    repo.write(CL, text)
    assert repo.run("check", "--fix").code == 1
    expected = text.replace("| `app/engine/__init__.py` | `x` |", f"| `app/engine/__init__.py` | `x` {REMOVAL_MARK} |")
    assert (repo.path / CL).read_bytes() == expected.encode()
    assert repo.run("check").code == 0


# 2, 3. tables in a blockquote or a list item: left alone, findings reported --------------


def test_blockquoted_table_is_not_fixable(repo: Repo) -> None:
    text = _unaligned(repo)
    quoted = "\n".join("> " + line for line in ["| File | Imports / Usage |", "| --- | --- |", GONE_ROW,
                                                  "| `app/engine/__init__.py` | `x` |"])
    text = text.replace("| File | Imports / Usage |\n| --- | --- |\n" + GONE_ROW, quoted)
    repo.write(CL, text)
    repo.write("app/engine/more.py", "import fakepkg.core\n")
    assert repo.run("check").codes == ["MISSING", "STALE"]
    found = sorted((f["code"], f["fixable"]) for f in repo.run("check", "--format", "json").json()["findings"])
    assert found == [("MISSING", False), ("STALE", False)]  # what --fix leaves alone is not offered
    for _ in range(2):  # never pulls a row out of the quote, never appends outside it
        r = repo.run("check", "--fix")
        assert r.code == 1 and sorted(r.codes) == ["MISSING", "STALE"] and "Fixing" not in r.out
        assert repo.read(CL) == text


def test_aligned_table_in_a_list_item_is_not_fixable(repo: Repo) -> None:
    text = repo.read(CL)
    block = text[text.index("### Tertiary"):text.index("______")]
    table = [line for line in block.splitlines() if line.startswith("|")]
    nested = "### Tertiary (tests, config)\n\n- The tertiary files:\n\n" + "\n".join("  " + line for line in table) + "\n\n"
    text = text.replace(block, nested)
    repo.write(CL, text)
    repo.write("tests/test_more.py", "import fakepkg.core\n")
    assert repo.run("check").codes == ["MISSING"]
    assert [f["fixable"] for f in repo.run("check", "--format", "json").json()["findings"]] == [False]
    d = repo.run("check", "--diff")
    assert (d.code, d.out) == (0, "")
    r = repo.run("check", "--fix")
    assert r.code == 1 and r.codes == ["MISSING"]
    assert repo.read(CL) == text


# 4, 10. sources that would crash, recurse or exhaust the parsers ------------------------


@pytest.mark.parametrize("body", [
    "x = " + "(" * 2000 + "1" + ")" * 2000 + "\n",
    "x = " + "[" * 3000 + "]" * 3000 + "\n",
    "x = a" + ".b" * 3000 + "\n",
    "x = " + "-" * 10000 + "1\n",
    "x = " + "1+" * 500_000 + "1\n",
    "x = (a\n" + "[0]\n" * 3000 + ")\nclass C[T]: pass\n",  # a syntax error ast rejects, a chain libcst would take minutes on
    # a statement ast rejects (before 3.12) ahead of nesting without brackets: libcst's parser
    # overflowed its stack and the process died of SIGSEGV (found by the 10,000 fuzz profile)
    "type X = int\nx = " + "-" * 10000 + "1\n",
    "type X = int\nx = " + "-\\\n" * 10000 + "1\n",
    "type X = int\nx = (" + "-\n" * 10000 + "1)\n",
], ids=["parens", "brackets", "attributes", "unary", "one-MB-line", "chain", "unary-after-newer-syntax",
        "unary-continued-lines", "unary-bracketed-lines"])
def test_deep_sources_are_parse_findings(repo: Repo, body: str) -> None:
    repo.write("app/engine/deep.py", "import fakepkg.core\n" + body)
    r = repo.run("check", "--format", "json")
    found = [(f["code"], f["file"]) for f in r.json()["findings"]]
    assert r.code == 1 and found == [("PARSE", "app/engine/deep.py")]


# 5, 6. files that are not plain files -----------------------------------------------------


def _notes(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("note: skipped ")]


def test_special_files_are_skipped_with_one_note_each(repo: Repo, tmp_path: Path) -> None:
    os.mkfifo(repo.path / "app/engine/fifo.py")
    os.mkfifo(repo.path / "checklists/fifo.md")
    os.symlink("/dev/zero", repo.path / "app/engine/zero.py")
    os.symlink("/dev/zero", repo.path / "checklists/zero.md")
    outside = tmp_path / "outside.py"
    outside.write_text("import fakepkg.core\n")
    os.symlink(outside, repo.path / "app/engine/outside.py")
    os.symlink("loop.py", repo.path / "app/engine/loop.py")
    (repo.path / "app/engine/dir.py").mkdir()
    (repo.path / "app/engine/dir.py/inner.txt").write_text("not python\n")
    os.symlink("core.py", repo.path / "app/engine/inside.py")  # inside the repository: read like the file
    r = repo.run("check", "-v")
    assert r.code == 1 and r.codes == ["MISSING"]  # only app/engine/inside.py, the in-repository link
    assert "`app/engine/inside.py`" in r.out
    notes = [
        "note: skipped app/engine/loop.py: a symlink loop",
        "note: skipped app/engine/outside.py: a symlink leaving the repository",
        "note: skipped app/engine/zero.py: a symlink leaving the repository",
        "note: skipped checklists/fifo.md: a FIFO",
        "note: skipped checklists/zero.md: a symlink leaving the repository",
    ]
    assert sorted(_notes(r.err)) == notes  # git lists no FIFO: app/engine/fifo.py is never even seen
    shutil.rmtree(repo.path / ".git")  # outside git the file system is walked, and the FIFO found
    r = repo.run("check", "-v")
    assert r.code == 1 and r.codes == ["MISSING"]
    assert sorted(_notes(r.err)) == sorted([*notes, "note: skipped app/engine/fifo.py: a FIFO"])


def test_a_row_naming_a_fifo_or_device_does_not_block(repo: Repo) -> None:
    os.mkfifo(repo.path / "app/engine/fifo.txt")
    text = _unaligned(repo).replace(GONE_ROW, GONE_ROW + "\n| `app/engine/fifo.txt` | `x` |\n| `/dev/zero` | `y` |")
    repo.write(CL, text)
    r = repo.run("check", "-v")
    assert r.code == 1 and r.codes == ["STALE", "STALE"]  # neither is a file of the repository; neither is opened
    assert "STALE `app/engine/fifo.txt` never existed in this repository" in r.out


def test_large_and_unreadable_files_are_skipped(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo.write("app/engine/big.py", "import fakepkg.core\n" + "x = 1\n" * 1000)
    repo.write("app/engine/secret.py", "import fakepkg.core\n")
    monkeypatch.setattr(files, "MAX_BYTES", 4000)
    real_open = os.open

    def deny(path, flags, *args):
        if str(path).endswith("secret.py"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(files.os, "open", deny)
    r = repo.run("check", "-v", "--no-cache")
    assert r.code == 0
    assert sorted(_notes(r.err)) == ["note: skipped app/engine/big.py: larger than 4000 bytes",
                                     "note: skipped app/engine/secret.py: unreadable (permission denied)"]


# 6, 7, 8. frontmatter and numbers ---------------------------------------------------------


def _frontmatter(repo: Repo, extra: str) -> None:
    repo.edit(CL, "upstream_paths:\n", extra + "upstream_paths:\n")


def test_yaml_alias_bomb_is_rejected(repo: Repo) -> None:
    levels = ["a0: &a0 [" + ", ".join(["x"] * 9) + "]"]
    levels += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    text = repo.read(CL).replace("package: fakepkg-core", "\n".join(levels) + "\npackage: *a8", 1)
    repo.write(CL, text)
    r = repo.run("check")
    assert r.code == 1 and "FRONTMATTER frontmatter is not valid YAML: aliases (*name) are not allowed in checklist frontmatter" in r.out


@pytest.mark.parametrize("extra,why", [
    ("x: !!float abc\n", "ValueError"),
    ("x: " + "[" * 500 + "]" * 500 + "\n", None),
    ("x: " + "[" * 20 + "{a: " * 20 + "1" + "}" * 20 + "]" * 20 + "\n", None),  # 40 deep: not read
    ("x: |\n" + "  long\n" * 20_000, None),
    ("x: " + "9" * 5000 + "\n", "ValueError"),
])
def test_frontmatter_loader_errors_are_findings(repo: Repo, extra: str, why: str | None) -> None:
    _frontmatter(repo, extra)
    r = repo.run("check")
    assert r.code == 1 and r.codes == ["FRONTMATTER"]
    if why:
        assert f"frontmatter is not valid YAML: {why}" in r.out


def test_huge_integers_are_bounded(repo: Repo) -> None:
    big = "9" * 5000
    text = repo.read(CL)
    text = text.replace("(line 9)", f"(line {big})").replace("### 2. ", f"### {big}. ")
    text = text.replace("`app/engine/core.py:7`", f"`app/engine/core.py:{big}`")
    repo.write(CL, text)
    r = repo.run("check")
    assert r.code == 1 and r.codes == ["GUARD", "LINE", "NUMBERING"]
    assert "is now at line 7 (recorded line 1000000000)" in r.out  # the guard: read as the bound
    assert "catalog entry numbered 1000000000, expected 2" in r.out
    assert repo.run("check", "--fix").code == 1  # rewrites the numbers it can, without a traceback
    assert big not in repo.read(CL).split("## Version-Guarded Code")[0]
    repo.edit("pyproject.toml", "[tool.upgrade-checklists]\n", '[tool.upgrade-checklists]\nstatus_file = "STATUS.md"\n')
    repo.write("STATUS.md", f"| Checklist | Entries |\n| --- | --- |\n| `fakepkg-core.md` | {big} API entries |\n")
    r = repo.run("check")
    assert r.code == 1 and r.codes == ["STATUS"]  # the rest was fixed above
    assert "status says 1000000000 API entries, the catalog has 2" in r.out
    assert repo.run("check", "--fix").code == 1 and repo.run("check").code == 0


# 9. coding cookies naming codecs that are not text encodings ----------------------------


@pytest.mark.parametrize("codec", ["rot13", "hex", "base64", "zlib", "uu", "punycode", "bz2", "quopri"])
def test_non_text_coding_cookies_are_parse_findings(repo: Repo, codec: str) -> None:
    repo.write("app/engine/cookie.py", f"# -*- coding: {codec} -*-\nimport fakepkg.core\n")
    r = repo.run("check", "--format", "json")
    found = [(f["code"], f["file"]) for f in r.json()["findings"]]
    assert r.code == 1 and found == [("PARSE", "app/engine/cookie.py")]


def test_row_split_by_a_pipe_keeps_its_bytes_when_its_aligned_table_is_realigned(repo: Repo) -> None:
    """Adding a row re-aligns an aligned table: every row is written again from its cells.
    The row a pipe in a code span split used to lose what followed the pipe (`` `a`` was
    left), which later fixes then edited, growing the row on every ``--fix`` (found by the
    10,000 fuzz profile). Its text is now kept as written, only padded."""
    text = repo.read(CL)
    old_table = ("| File                 | Imports / Usage                                        |\n"
                 "| -------------------- | ------------------------------------------------------ |\n"
                 "| `app/engine/core.py` | `parallel_state` (as `mpu`), `DistributedDataParallel` |\n")
    assert old_table in text
    split_table = ("| File                  | Imports / Usage                                        |\n"
                   "| --------------------- | ------------------------------------------------------ |\n"
                   "| `app/engine/core.py`  | `parallel_state` (as `mpu`), `DistributedDataParallel` |\n"
                   "| `app/engine/split.py` | `parallel_state` (as `mpu`), `a|b`                     |\n")
    text = text.replace(old_table, split_table)
    repo.write(CL, text)
    repo.write("app/engine/split.py", "from fakepkg.core import parallel_state as mpu\n")
    repo.write("app/engine/more.py", "import fakepkg.core\n")  # MISSING: a row added to Primary
    assert repo.run("check", "--fix").code == 1
    fixed = text.replace(split_table,
                         "| File                  | Imports / Usage                                        |\n"
                         "| --------------------- | ------------------------------------------------------ |\n"
                         "| `app/engine/core.py`  | `parallel_state` (as `mpu`), `DistributedDataParallel` |\n"
                         "| `app/engine/more.py`  | `fakepkg.core`                                         |\n"
                         "| `app/engine/split.py` | `parallel_state` (as `mpu`), `a|b`                     |\n")
    assert repo.read(CL) == fixed
    repo.run("check", "--fix")
    assert repo.read(CL) == fixed


# a 1 MB line: markdown-it's inline parser is quadratic in a line's length --------------------


def test_megabyte_line_in_a_checklist_is_one_format_finding(repo: Repo) -> None:
    """A paragraph of one 1 MB line of ``1+1+…`` used to take markdown-it over a minute per
    run (found by the fuzz profile). Lines over 20,000 characters are not read: one FORMAT
    finding at that line, the rest of the checklist is checked and fixed, the line is kept."""
    text = repo.read(CL)
    long_line = "1+" * 500_000 + "1"
    text = text.replace("**Check:** `config` is still a keyword.\n",
                        "**Check:** `config` is still a keyword.\n\n" + long_line + "\n")
    repo.write(CL, text)
    line = text.splitlines().index(long_line) + 1
    repo.write("app/utils/new.py", "import fakepkg.core\n")
    found = sorted((f["code"], f["checklist_line"], f["message"]) for f in repo.run("check", "--format", "json").json()["findings"])
    assert found == [("FORMAT", line, f"line {line} is 1000001 characters long (over 20,000): not read"),
                     ("MISSING", 17, "`app/utils/new.py` imports `fakepkg.core` but no tier lists it (belongs in Secondary)")]
    assert repo.run("check", "--fix").code == 1
    fixed = repo.read(CL)
    assert fixed == text.replace("### Secondary (model / infra layer)\n\n_None._",
                                 "### Secondary (model / infra layer)\n\n| File               | Imports / Usage |\n"
                                 "| ------------------ | --------------- |\n| `app/utils/new.py` | `fakepkg.core`  |")
    assert repo.run("check").codes == ["FORMAT"]
    repo.run("check", "--fix")
    assert repo.read(CL) == fixed


# 11. usage parts of many imports ------------------------------------------------------------


def test_usage_parts_keeps_order_and_drops_repeats_of_many_imports() -> None:
    imports = [Import(f"transformers.N{i}", f"N{i}", f"N{i}", i, f"transformers.N{i}") for i in range(200_000)]
    imports.insert(1, imports[0])
    parts = usage_parts(imports)
    assert len(parts) == 200_000 and parts[:2] == ["`N0`", "`N1`"] and parts[-1] == "`N199999`"


# 12. what killed runs leave behind ---------------------------------------------------------


def test_temporary_files_of_dead_runs_are_removed(repo: Repo) -> None:
    dead = 2**22 + 12345  # above the default pid_max: no such process
    stale = [repo.path / f"checklists/.fakepkg-core.md.uc-{dead}-0a1b2c3d.tmp",
             repo.path / f".upgrade-checklists-cache/v3/.check.json.uc-{dead}-0a1b2c3d.tmp"]
    live = repo.path / f"checklists/.fakepkg-core.md.uc-{os.getpid()}-0a1b2c3d.tmp"
    for p in [*stale, live]:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("")
    other = repo.path / "checklists/.notes.tmp"  # not ours: never touched
    other.write_text("")
    assert repo.run("check").code == 0
    assert [p.exists() for p in stale] == [False, False]
    assert live.exists() and other.exists()


# 13. an over-long path ------------------------------------------------------------------------


def test_over_long_path_is_one_finding(repo: Repo) -> None:
    long = "app/" + "x" * 300 + ".py"
    repo.write(CL, _unaligned(repo).replace(GONE_ROW, GONE_ROW + f"\n| `{long}` | `y` |"))
    r = repo.run("check")
    assert r.code == 1 and r.codes == ["FORMAT"] and "is not a usable path" in r.out


def test_over_long_call_site_and_guard_paths_are_findings(repo: Repo) -> None:
    long = "app/" + "x" * 300 + ".py"
    text = repo.read(CL).replace("Called in `app/engine/core.py` (line 9)", f"Called in `{long}` (line 9)")
    text = text.replace("`app/engine/core.py:7`", f"`{long}:7`")
    repo.write(CL, text)
    r = repo.run("check")
    assert r.code == 1 and "SNIPPET" in r.codes and r.err == ""  # one finding each at most, never exit 2


# 14. CRLF checklists ---------------------------------------------------------------------------


def test_crlf_checklist_is_fixed_and_stays_crlf(repo: Repo) -> None:
    text = repo.read(CL).replace("\n", "\r\n")
    (repo.path / CL).write_bytes(text.encode())
    assert repo.run("check").code == 0
    repo.write("app/utils/new.py", "import fakepkg.core\n")
    d = repo.run("check", "--diff")
    assert d.code == 1 and "+| `app/utils/new.py` | `fakepkg.core`  |\r\n" in d.out
    r = repo.run("check", "--fix")
    assert r.code == 1 and r.out.startswith(f"Fixing {CL}\n")
    data = (repo.path / CL).read_bytes()
    assert b"\r\n" in data and data.count(b"\n") == data.count(b"\r\n")
    assert b"| `app/utils/new.py` | `fakepkg.core`  |\r\n" in data
    assert repo.run("check").code == 0


def test_new_skips_deep_sources_and_fifos(repo: Repo) -> None:
    # found by the fuzz profile: new parsed every source again with ast, unguarded
    repo.write("app/engine/deep.py", "import fakepkg.core\nx = " + "-" * 10000 + "1\n")
    repo.write("app/engine/chain.py", "import fakepkg.core\nx = a" + ".b" * 3000 + "\n")
    shutil.rmtree(repo.path / ".git")  # outside git the walk sees the FIFO too
    os.mkfifo(repo.path / "app/engine/fifo.py")
    r = repo.run("new", "fakepkg", "--github", "example/fakepkg", "--import-name", "fakepkg.core")
    assert r.code == 0 and r.out.startswith("Created checklists/fakepkg.md: ")
    text = repo.read("checklists/fakepkg.md")
    assert "`app/engine/core.py`" in text and "deep.py" not in text and "fifo.py" not in text


def test_snippet_in_a_source_too_deep_for_ast_is_not_a_crash(repo: Repo) -> None:
    # found by the 10,000-input fuzz profile: the snippet index parsed sources with ast, unguarded
    repo.write("app/engine/core.py", repo.read("app/engine/core.py") + "x = " + "-" * 10000 + "1\n")
    r = repo.run("check")
    assert r.code == 1 and "internal error" not in r.err and "PARSE" in r.codes


def test_a_tier_whose_table_cannot_be_edited_gets_no_second_table(repo: Repo) -> None:
    # found by the 10,000-input fuzz profile: a duplicate tier heading's "_None._" received a new
    # table while the tier's own (indented, so not editable) table stayed: rows read as a second table
    text = _unaligned(repo).replace("| File | Imports / Usage |\n| --- | --- |\n" + GONE_ROW,
                                    "_None._\n\n### Primary\n\n   | File | Imports / Usage |\n   | --- | --- |\n   " + GONE_ROW)
    repo.write(CL, text)
    repo.write("app/engine/more.py", "import fakepkg.core\n")
    r = repo.run("check", "--fix")
    assert r.code == 1 and "MISSING" in r.codes
    assert repo.read(CL) == text


# A pipe inside a code span splits the cell (GFM): the row is not edited -------------------


def test_row_split_by_a_pipe_in_a_code_span_is_left_alone(repo: Repo) -> None:
    """GFM splits ``| `a|b` |`` at the pipe: the row has more cells than its header and
    a cell that ends inside a code span. Appending to it would land after a broken span,
    never cover the import, and grow on every ``--fix``: such a row is not edited."""
    text = repo.read(CL).replace(
        "### Secondary (model / infra layer)\n\n_None._",
        "### Secondary (model / infra layer)\n\n| File | Imports / Usage |\n| --- | --- |\n"
        "| `app/utils/other.py` | `parallel_state` (as `mpu`), `a|b` |",
    )
    assert "`a|b`" in text
    repo.write(CL, text)
    repo.write("app/utils/other.py", "import fakepkg.core\n")
    before = repo.run("check")
    assert before.code == 1 and "CHANGED" in before.codes
    for _ in range(2):  # the same answer twice: nothing written, the finding stays
        r = repo.run("check", "--fix")
        assert r.code == 1 and "Fixing" not in r.out and "CHANGED" in r.codes
        assert repo.read(CL) == text


def test_row_split_by_a_pipe_in_a_code_span_is_not_reported_fixable(repo: Repo) -> None:
    """The row ``--fix`` leaves alone is not offered as fixable: no ``[*]`` in the text, ``fixable:
    false`` in JSON, and the fixable count says 1 (the MISSING row that is fixed), not 2."""
    text = repo.read(CL).replace(
        "### Secondary (model / infra layer)\n\n_None._",
        "### Secondary (model / infra layer)\n\n| File | Imports / Usage |\n| --- | --- |\n"
        "| `app/utils/other.py` | `parallel_state` (as `mpu`), `a|b` |\n"
        "| `app/utils/third.py` | `parallel_state` (as `mpu`) |",
    )
    repo.write(CL, text)
    repo.write("app/utils/other.py", "import fakepkg.core\n")  # CHANGED on the split row
    repo.write("app/utils/third.py", "from fakepkg.core import parallel_state as mpu\n")
    repo.write("app/utils/fourth.py", "import fakepkg.core\n")  # MISSING: a row added to Secondary
    found = sorted((f["code"], f["file"], f["fixable"]) for f in repo.run("check", "--format", "json").json()["findings"])
    assert found == [("CHANGED", "app/utils/other.py", False),  # `fakepkg.core` is not in the row
                     ("CHANGED", "app/utils/other.py", False),  # `parallel_state`, `mpu` match nothing
                     ("MISSING", "app/utils/fourth.py", True)]
    out = repo.run("check", "--format", "text").out
    changed = [line for line in out.splitlines() if "app/utils/other.py" in line and "CHANGED" in line]
    missing = [line for line in out.splitlines() if "app/utils/fourth.py" in line and "MISSING" in line]
    assert len(changed) == 2 and not any("[*]" in line for line in changed)
    assert len(missing) == 1 and "[*]" in missing[0]
    assert "[*] 1 fixable with" in out
    r = repo.run("check", "--fix")
    assert r.code == 1 and f"Fixing {CL}" in r.out
    assert repo.run("check").codes == ["CHANGED", "CHANGED"]
    assert "| `app/utils/fourth.py` | `fakepkg.core` |" in repo.read(CL)
    assert "`parallel_state` (as `mpu`), `a|b` |\n" in repo.read(CL)
