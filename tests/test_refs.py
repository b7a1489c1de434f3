"""Call-site references read as people write them (refs.py): one test per pattern."""

from __future__ import annotations

from upgrade_checklists.core.refs import CallSite, read_guard_ref, read_references


def refs(text: str, previous: CallSite | None = None, in_check: bool = False, first_line: int = 10) -> list[tuple]:
    out = []
    for cs in read_references(text, first_line, previous, in_check):
        parts = [(p.start.value, p.end.value if p.end else None) for p in cs.parts]
        out.append((cs.file, parts, cs.qualname))
    return out


def test_any_verb_reads_the_reference() -> None:
    for verb in ("Called in", "Set in", "Parsed in", "Populated in", "Consumed in", "Imported in",
                 "Monkey-patched in", "Accessed by module string in", "And in", "Subclassed in", ""):
        assert refs(f"{verb} `pkg/jobs/runner.py` (line 12):") == [("pkg/jobs/runner.py", [(12, None)], None)], verb


def test_single_line_range_en_dash_and_em_dash() -> None:
    assert refs("Called in `pkg/a.py` (lines 4-9), `pkg/b.py` (lines 5–7) and `pkg/c.py` (lines 1—2).") == [
        ("pkg/a.py", [(4, 9)], None), ("pkg/b.py", [(5, 7)], None), ("pkg/c.py", [(1, 2)], None)]


def test_reference_wrapped_onto_the_next_line_by_a_formatter() -> None:
    text = "Consumed in `pkg/jobs/runner.py`\n(`Runner.start`, lines 40–52):"
    [cs] = read_references(text, 10, None)
    assert (cs.file, cs.qualname, cs.line, cs.end_line) == ("pkg/jobs/runner.py", "Runner.start", 40, 52)
    # each number keeps its exact place in the checklist: line 11, after "(`Runner.start`, lines "
    assert [(n.value, n.line, n.col) for n in cs.numbers] == [(40, 11, 23), (52, 11, 26)]


def test_numbers_wrapped_inside_the_parenthesis() -> None:
    [cs] = read_references("Parsed in `pkg/io.py` (`load`,\nlines 8–30) before use.", 3, None)
    assert (cs.line, cs.end_line, cs.qualname) == (8, 30, "load")
    assert (cs.numbers[0].line, cs.numbers[0].col) == (4, 6)
    [cs] = read_references("Set in `pkg/io.py` (lines\n77–79):", 3, None)
    assert [(n.value, n.line, n.col) for n in cs.numbers] == [(77, 4, 0), (79, 4, 3)]


def test_formatter_escaped_closing_parenthesis() -> None:
    # mdformat writes "36\)" when a wrapped line would otherwise start a numbered list
    [cs] = read_references("Imported inside `pkg/fp.py` `enable()` (line\n36\\) and kept.", 1, None)
    assert (cs.file, cs.line, cs.qualname) == ("pkg/fp.py", 36, "enable")


def test_a_list_of_numbers_and_ranges() -> None:
    assert refs("Called in `pkg/server.py` (lines 12, 391-396):") == [("pkg/server.py", [(12, None), (391, 396)], None)]
    assert refs("Imported in `pkg/t.py` (lines 89-92,\n101-104):") == [("pkg/t.py", [(89, 92), (101, 104)], None)]
    assert refs("Called in `pkg/s.py` (import line 6, usage line 57):") == [("pkg/s.py", [(6, None), (57, None)], None)]
    # prose after the numbers is not a number
    assert refs("Called in `pkg/s.py` (line 732, hot loop):") == [("pkg/s.py", [(732, None)], None)]


def test_each_number_may_name_its_own_function() -> None:
    [cs] = read_references("Called in `pkg/r.py` (`pause` line 211,\n`resume` lines 214–216):", 1, None)
    assert [(p.start.value, p.qualname) for p in cs.parts] == [(211, "pause"), (214, "resume")]
    assert cs.qualname is None  # two functions: none for the reference as a whole


def test_bare_file_name_means_the_folder_of_the_previous_path() -> None:
    assert refs("Called in `pkg/platforms/gpu.py` and `fallback.py`:") == [
        ("pkg/platforms/gpu.py", [], None), ("pkg/platforms/fallback.py", [], None)]
    prev = read_references("Called in `pkg/ext/worker.py` (line 3)", 1, None)[-1]
    assert refs("and `server.py` (line 21):", prev) == [("pkg/ext/server.py", [(21, None)], None)]


def test_also_used_in_a_function_means_the_previous_file() -> None:
    prev = read_references("Parsed in `pkg/lora.py` (`infer`, lines 10–20):", 1, None)[-1]
    assert refs("Also used in `build_config` (lines 23–40) to write a file.", prev) == [("pkg/lora.py", [(23, 40)], "build_config")]
    # a parenthesis that names no function and follows no path in its paragraph is prose
    assert refs("Its own signature (line 25):", prev) == []


def test_numbers_after_the_path_in_the_same_paragraph_belong_to_it() -> None:
    text = "Imported inside `pkg/fp.py` (line 36). Called in the patched forward\n(line 156-157):"
    assert refs(text) == [("pkg/fp.py", [(36, None)], None), ("pkg/fp.py", [(156, 157)], None)]


def test_glob_path_is_kept_as_written() -> None:
    assert refs("Used in `pkg/models/*/args.py`:") == [("pkg/models/*/args.py", [], None)]


def test_check_paragraph_reads_full_paths_only() -> None:
    text = "**Check:** it is imported in `pkg/vl/qwen.py` (line 7); see `vision.py` for more."
    assert refs(text, in_check=True) == [("pkg/vl/qwen.py", [(7, None)], None)]


def test_not_references() -> None:
    # identifiers, dotted names, URLs and upward paths are not files
    assert refs("Uses `torch.nn.Linear`, `https://x.org/a.py`, `../up.py` and `get(x)` (line 4).") == []


def test_guard_reference_path_line_and_quoted_expression() -> None:
    g = read_guard_ref('- `pkg/bridge.py:185` —\n  `hasattr(Bridge, "save")` guard; see `save` too.', 30)
    assert (g.file, g.codes) == ("pkg/bridge.py", ['hasattr(Bridge, "save")', "save"])
    assert [(n.value, n.line, n.col) for n in (g.parts[0].start,)] == [(185, 30, 17)]
    g = read_guard_ref("- `pkg/cli.py:1713-1714` — `if old(): raise E(...)`.", 5)
    assert [(p.start.value, p.end.value) for p in g.parts] == [(1713, 1714)]
    g = read_guard_ref("- `pkg/platforms/gpu.py` and `fallback.py` — tries `a.Worker` first.", 5)
    assert (g.file, g.parts, g.codes) == ("pkg/platforms/gpu.py", [], ["a.Worker"])
    assert read_guard_ref("_None._", 5) is None
