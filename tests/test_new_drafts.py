"""``new``: drafts a person keeps (bounded, ranked, whole statements, symbol anchors,
folder rows, version guards) and that stay quiet as the code moves."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import Repo, git
from upgrade_checklists.check.new import template_of, wrap

PYPROJECT = """\
[tool.upgrade-checklists]
roots = ["lib", "tests", "scripts"]

[tool.upgrade-checklists.tiers]
primary = ["lib/core/"]
secondary = ["lib/"]
tertiary = ["tests/", "scripts/"]
"""

ENGINE = '''\
import widgetkit as wk
from widgetkit.render import Canvas


class Engine:
    def build(self, size):
        canvas = Canvas(size, dpi=96)
        return wk.paint(canvas, mode="fast")
'''


@pytest.fixture
def wk(repo: Repo) -> Repo:
    """A library (lib/, a package) that uses `widgetkit`; no other checklist."""
    repo.write("pyproject.toml", PYPROJECT)
    repo.remove("checklists/fakepkg-core.md")
    repo.write("lib/__init__.py", "")
    repo.write("lib/core/__init__.py", "")
    repo.write("lib/core/engine.py", ENGINE)
    repo.commit("widgetkit user")
    return repo


def new(r: Repo, *args: str):
    return r.run("new", "widgetkit", "--github", "acme/widgetkit", *args)


def section(text: str, start: str, end: str) -> str:
    return text[text.index(start):text.index(end)]


def entries(text: str) -> list[str]:
    return [l.split(" ", 2)[2] for l in text.splitlines() if l.startswith("### ") and l[4].isdigit()]


# --- references that do not rot ---------------------------------------------------------


def test_references_name_the_function_not_lines_and_survive_code_moving(wk: Repo) -> None:
    assert new(wk).code == 0
    text = wk.read("checklists/widgetkit.md")
    assert "Called in `lib/core/engine.py` (`Engine.build`):\n\n```python\ncanvas = Canvas(size, dpi=96)\n```" in text
    assert "line" not in section(text, "## API Usage Catalog", "## Version-Guarded Code")
    wk.commit("checklist")
    # a commit that moves every line: ten lines above, and the function grows
    wk.edit("lib/core/engine.py", "import widgetkit as wk\n", "import widgetkit as wk\n" + "# note\n" * 10)
    wk.edit("lib/core/engine.py", "    def build(self, size):\n", "    def build(self, size):\n        size = size * 2\n")
    r = wk.run("check")
    assert (r.code, r.lines) == (0, [])


def test_lines_option_records_numbers_which_then_go_stale(wk: Repo) -> None:
    assert new(wk, "--lines").code == 0
    text = wk.read("checklists/widgetkit.md")
    assert "Called in `lib/core/engine.py` (`Engine.build`, line 7):" in text
    assert wk.run("check").code == 0
    wk.edit("lib/core/engine.py", "import widgetkit as wk\n", "import widgetkit as wk\n# note\n")
    assert "LINE" in wk.run("check").codes


def test_a_changed_call_is_still_found_by_its_snippet(wk: Repo) -> None:
    new(wk)
    wk.edit("lib/core/engine.py", "dpi=96", "dpi=72")
    r = wk.run("check")
    assert r.code == 1 and r.codes == ["SNIPPET"]
    assert "`dpi=96` is now `dpi=72`" in r.out


# --- folder rows -------------------------------------------------------------------------


def add_tests(r: Repo, n: int) -> None:
    for i in range(n):
        r.write(f"tests/test_t{i}.py", f"from widgetkit.render import Canvas\n\n\ndef test_{i}():\n    assert Canvas({i})\n")


def test_a_folder_of_like_users_gets_one_row_and_a_new_file_there_blocks_nothing(wk: Repo) -> None:
    add_tests(wk, 5)
    wk.write("lib/core/extra.py", "import widgetkit\n\nX = widgetkit.paint(None)\n")
    r = new(wk)
    assert r.code == 0
    assert "  3 rows; one per folder for tests/\n" in r.out
    text = wk.read("checklists/widgetkit.md")
    tertiary = section(text, "### Tertiary", "## API Usage Catalog")
    assert "| `tests/` | `Canvas`; all files below |" in " ".join(tertiary.split()).replace("| ", "| ").replace("  ", " ")
    assert "test_t0.py" not in tertiary
    primary = section(text, "### Primary", "### Secondary")  # the library's own files keep a row each
    assert "`lib/core/engine.py`" in primary and "`lib/core/extra.py`" in primary
    wk.commit("checklist")
    # a contributor adds a test that imports something else of the package: covered, nothing to fix
    wk.write("tests/test_more.py", "import widgetkit.extras as wx\n\n\ndef test_x():\n    assert wx.go()\n")
    r = wk.run("check")
    assert (r.code, r.lines) == (0, [])


def test_folders_below_the_minimum_and_the_librarys_own_folders_keep_a_row_per_file(wk: Repo) -> None:
    add_tests(wk, 2)
    for i in range(6):  # a package folder: the library's own code, however many files
        wk.write(f"lib/core/m{i}.py", f"import widgetkit\n\nV{i} = widgetkit.paint({i})\n")
    r = new(wk)
    assert r.code == 0 and "one per folder" not in r.out
    text = wk.read("checklists/widgetkit.md")
    assert "`tests/test_t0.py`" in text and "`tests/test_t1.py`" in text and "| `tests/` " not in text
    assert "`lib/core/m5.py`" in text and "| `lib/core/` " not in text
    assert wk.run("check").code == 0


def test_a_folder_outside_any_package_is_grouped_whatever_its_name_or_tier(wk: Repo) -> None:
    wk.edit("pyproject.toml", 'tertiary = ["tests/", "scripts/"]', 'tertiary = ["tests/"]')
    wk.edit("pyproject.toml", 'secondary = ["lib/"]', 'secondary = ["lib/", "scripts/"]')  # Secondary, by the rules
    for i in range(3):  # no __init__.py: not importable, so not the library's own
        wk.write(f"scripts/tool{i}.py", "import widgetkit as wk\n\nwk.paint(1)\n")
    r = new(wk, "--folder-min", "3")
    assert r.code == 0 and "one per folder for scripts/" in r.out
    secondary = section(wk.read("checklists/widgetkit.md"), "### Secondary", "### Tertiary")
    assert "`scripts/`" in secondary and "tool0" not in secondary
    assert wk.run("check").code == 0


def test_folder_min_zero_writes_a_row_per_file(wk: Repo) -> None:
    add_tests(wk, 6)
    assert new(wk, "--folder-min", "0").code == 0
    assert "`tests/test_t5.py`" in wk.read("checklists/widgetkit.md")
    assert new(wk, "--folder-min", "-1").code == 2  # (the checklist exists too: refused either way)


def test_missing_in_a_folder_of_like_users_suggests_the_folder_row(wk: Repo) -> None:
    add_tests(wk, 2)
    new(wk, "--folder-min", "0")
    wk.write("tests/test_t9.py", "from widgetkit.render import Canvas\n")
    r = wk.run("check")
    assert r.codes == ["MISSING"]
    assert ("`tests/test_t9.py` imports `widgetkit.render.Canvas` but no tier lists it (belongs in Tertiary; "
            "or list its folder: a `tests/` row lists every importer below it, 3 today)") in r.out
    # a new file of the library's own code gets no such suggestion
    wk.write("lib/core/new_part.py", "import widgetkit\n")
    r = wk.run("check")
    assert "`lib/core/new_part.py` imports `widgetkit` but no tier lists it (belongs in Primary)" in r.out


# --- what entries show -------------------------------------------------------------------


def test_names_are_bound_as_python_binds_them(wk: Repo) -> None:
    wk.write("lib/scopes.py", '''\
import widgetkit as wk


def shadowed(wk):
    return wk.not_the_package()


def lazy():
    import widgetkit.extras as wx
    return wx.real_lazy()


def elsewhere():
    return wx.not_imported_here()


class Holder:
    wk = None

    def method(self):
        return wk.real_from_module()


def local_assignment():
    wk = object()
    return wk.also_not()
''')
    new(wk)
    names = entries(wk.read("checklists/widgetkit.md"))
    assert "`widgetkit.extras.real_lazy`" in names and "`widgetkit.real_from_module`" in names
    assert not [n for n in names if "not_the_package" in n or "not_imported_here" in n or "also_not" in n]


def test_entries_are_ranked_by_tier_bounded_and_the_rest_named(wk: Repo) -> None:
    wk.write("tests/test_many.py", "import widgetkit as wk\n\n" + "".join(f"wk.t{i}()\nwk.t{i}()\n" for i in range(6)))
    r = new(wk, "--max-entries", "3")
    assert r.code == 0 and "  5 less used APIs not catalogued" in r.out
    text = wk.read("checklists/widgetkit.md")
    # Primary first (each used once), whatever the tests' counts
    assert entries(text) == ["`widgetkit.paint`", "`widgetkit.render.Canvas`", "`widgetkit.t0`"]
    assert "_The 3 APIs used most, in the most exposed files, are catalogued; 5 more are used" in text
    assert wk.run("check").code == 0


def test_sites_are_bounded_and_the_others_counted_by_folder(wk: Repo) -> None:
    for i, folder in enumerate(["lib/a", "lib/b", "lib/c", "lib/d", "lib/e"]):
        wk.write(f"{folder}/__init__.py", "")
        wk.write(f"{folder}/use.py", f"import widgetkit as wk\n\nwk.paint({i})\nwk.paint({i}, mode='slow')\n")
    new(wk)
    text = wk.read("checklists/widgetkit.md")
    paint = text[text.index("`widgetkit.paint`"):text.index("**Check:**", text.index("`widgetkit.paint`"))]
    assert paint.count("```python") == 1  # the others add no keyword
    assert "Used 11 times in 6 files; also in `lib/a/` (2 uses), `lib/b/` (2 uses), `lib/c/` (2 uses) and 2 more folders." in " ".join(paint.split())


def test_a_second_site_is_shown_when_it_passes_other_keywords(wk: Repo) -> None:
    wk.write("lib/other.py", "import widgetkit as wk\n\nwk.paint(None, mode='slow', depth=3)\n")
    new(wk)
    text = wk.read("checklists/widgetkit.md")
    assert "Also called in `lib/other.py`:\n\n```python\nwk.paint(None, mode='slow', depth=3)\n```" in text


def test_base_class_entries_rank_with_the_others_and_name_each_subclass_once(wk: Repo) -> None:
    for folder in ("lib/core/a.py", "lib/core/b.py"):  # the same class name in two files
        wk.write(folder, "import widgetkit as wk\n\n\nclass Panel(wk.Widget):\n    def draw(self):\n        return super().draw()\n")
    wk.write("tests/test_x.py", "import widgetkit as wk\n\nwk.zzz()\nwk.zzz()\nwk.zzz()\n")
    new(wk)
    text = wk.read("checklists/widgetkit.md")
    names = entries(text)
    assert names.index("`widgetkit.Widget`") < names.index("`widgetkit.zzz`")  # Primary before Tertiary
    widget = text[text.index("`widgetkit.Widget`"):]
    widget = widget[:widget.index("\n### ")]
    check = " ".join(widget[widget.index("**Check:**"):].split())
    assert "subclassed by `Panel`;" in check and check.count("`Panel`") == 1
    assert widget.count("```python\nclass Panel(wk.Widget):\n```") == 1
    assert wk.run("check").code == 0


# --- version guards ---------------------------------------------------------------------


def test_version_guards_are_found_and_listed_by_symbol(wk: Repo) -> None:
    wk.write("lib/compat.py", '''\
import widgetkit as wk
from packaging.version import Version

WK_VERSION = Version(wk.__version__)

try:
    from widgetkit.fast import blit
except ImportError:
    blit = None


def draw(obj):
    if hasattr(wk, "turbo"):
        return wk.turbo(obj)
    if hasattr(obj, "other"):
        return None
    return obj


def legacy():
    if WK_VERSION < Version("3.0"):
        return 1
    return 2
''')
    assert new(wk).code == 0
    text = wk.read("checklists/widgetkit.md")
    guards = section(text, "## Version-Guarded Code", "\x00") if False else text[text.index("## Version-Guarded Code"):]
    items = [" ".join(item.split()) for item in guards.split("\n- ")[1:]]
    assert ["- " + item for item in items] == [
        "- `lib/compat.py` (`draw`) — `hasattr(wk, \"turbo\")`: the code it guards is for versions without `turbo`; "
        "it can go once every supported version has it.",
        "- `lib/compat.py` (`legacy`) — `WK_VERSION < Version(\"3.0\")`: a version comparison; the branch for older "
        "versions can go once the oldest supported version is past it.",
        "- `lib/compat.py` — `from widgetkit.fast import blit`: in a `try` whose `except ImportError` falls back; "
        "the fallback can go once this import always works.",
    ]
    assert "hasattr(obj" not in guards
    wk.commit("checklist")
    wk.edit("lib/compat.py", "import widgetkit as wk\n", "import widgetkit as wk\n\n# moved down\n")
    assert wk.run("check").code == 0  # no line to go stale
    wk.edit("lib/compat.py", 'hasattr(wk, "turbo")', 'hasattr(wk, "turbo2")')
    assert wk.run("check").codes == ["GUARD"]


# --- frontmatter, nothing to draft -------------------------------------------------------


def test_a_package_nobody_imports_is_an_error_and_nothing_is_written(wk: Repo) -> None:
    wk.edit("pyproject.toml", 'roots = ["lib", "tests", "scripts"]', 'roots = ["lib", "tests", "scripts", "tests/"]')
    r = wk.run("new", "nothere", "--github", "acme/nothere")
    assert r.code == 2
    assert r.err == ("upgrade-checklists: error: no file in lib/, tests/, scripts/ imports nothere (as nothere): "
                     "nothing to draft; pass --import-name if its import path is another\n")
    assert not (wk.path / "checklists/nothere.md").exists()


def test_branch_template_comes_from_a_local_clones_tags(wk: Repo, tmp_path) -> None:
    up = tmp_path / "mirror" / "acme" / "widgetkit"
    up.mkdir(parents=True)
    git(up, "init", "-q", "-b", "main")
    (up / "README").write_text("x")
    git(up, "add", "-A")
    git(up, "commit", "-qm", "x")
    for tag in ("release-1.0.0", "release-1.1.0", "nightly"):
        git(up, "tag", tag)
    wk.edit("pyproject.toml", 'roots = ["lib", "tests", "scripts"]',
            f'roots = ["lib", "tests", "scripts"]\ngit_url = "{tmp_path}/mirror/{{github}}"')
    r = new(wk)
    assert r.code == 0
    assert f"  branch_template: release-${{VERSION}}, from the tags of {tmp_path}/mirror/acme/widgetkit\n" in r.out
    assert "\nbranch_template: release-${VERSION}\n" in wk.read("checklists/widgetkit.md")


def test_without_a_local_clone_the_default_template_is_said_to_be_a_guess(wk: Repo) -> None:
    r = new(wk)
    assert "branch_template: v${VERSION} is a guess: check it against upstream's tag names" in r.out
    r = wk.run("new", "widgetkit-x", "--github", "acme/w", "--import-name", "widgetkit", "--branch-template", "r${VERSION}")
    assert "guess" not in r.out


@pytest.mark.parametrize(("tags", "template"), [
    (["v1.2.3", "v1.3.0", "latest", "v2.0"], "v${VERSION}"),
    (["1.0", "2.0.1", "v3.0"], "${VERSION}"),
    (["core_r0.16.0", "core_r0.17.0", "v0.1.0"], "core_r${VERSION}"),
    (["nightly", "stable"], None),
    ([], None),
])
def test_template_of_tags(tags: list[str], template: str | None) -> None:
    assert template_of(tags) == template


def test_like_users_in_many_small_folders_of_one_name_get_a_glob_row(wk: Repo) -> None:
    wk.edit("pyproject.toml", 'tertiary = ["tests/", "scripts/"]', 'tertiary = ["tests/", "scripts/", "lib/*/tests/*"]')
    for sub in ("a", "b", "c"):  # each subpackage has its own tests folder, two importers in each
        wk.write(f"lib/{sub}/__init__.py", "")
        wk.write(f"lib/{sub}/tests/__init__.py", "")
        for i in range(2):
            wk.write(f"lib/{sub}/tests/test_{i}.py", f"import widgetkit as wk\n\n\ndef test_{i}():\n    assert wk.paint({i})\n")
    r = new(wk)
    assert r.code == 0 and "one per folder for lib/*/tests/*.py" in r.out
    tertiary = section(wk.read("checklists/widgetkit.md"), "### Tertiary", "## API Usage Catalog")
    assert "`lib/*/tests/*.py`" in tertiary and "`widgetkit`; every file it matches" in tertiary
    assert "test_0.py" not in tertiary
    wk.commit("checklist")
    # a new subpackage's test importing other names of the package: covered by the glob, nothing to fix
    wk.write("lib/d/__init__.py", "")
    wk.write("lib/d/tests/test_new.py", "from widgetkit.render import Canvas\nfrom widgetkit import extras\n")
    r = wk.run("check")
    assert (r.code, r.lines) == (0, [])


def test_a_glob_is_not_written_when_it_would_match_the_librarys_own_code(wk: Repo) -> None:
    wk.edit("pyproject.toml", 'tertiary = ["tests/", "scripts/"]', 'tertiary = ["tests/", "scripts/", "lib/a/tests/*"]')
    for sub in ("a", "b"):
        wk.write(f"lib/{sub}/__init__.py", "")
        wk.write(f"lib/{sub}/tests/__init__.py", "")
        for i in range(3):
            wk.write(f"lib/{sub}/tests/test_{i}.py", "import widgetkit\n")
    r = new(wk, "--folder-min", "4")  # lib/b/tests/ is Secondary and importable: the library's own, by the rules
    assert r.code == 0 and "one per folder" not in r.out
    text = wk.read("checklists/widgetkit.md")
    assert "`lib/a/tests/test_0.py`" in text and "`lib/b/tests/test_0.py`" in text


def test_attribute_reads_and_class_headers_are_shown_as_whole_statements(wk: Repo) -> None:
    wk.write("lib/shapes.py", '''\
import widgetkit as wk


def shape(x):
    return wk.resize(
        x,
        wk.SMALL,
    )


class Box(
    wk.Widget,
):
    pass


if wk.DEBUG:
    pass
''')
    new(wk)
    text = wk.read("checklists/widgetkit.md")
    assert "```python\nreturn wk.resize(\n    x,\n    wk.SMALL,\n)\n```" in text
    assert "```python\nclass Box(\n    wk.Widget,\n):\n```" in text
    assert "```python\nwk.DEBUG\n```" in text  # in a compound header: the read itself
    assert "```python\nwk.SMALL,\n```" not in text
    assert wk.run("check").code == 0


def test_a_long_draft_is_mdformat_stable(wk: Repo) -> None:
    wk.write("lib/core/a_module_with_a_rather_long_name_for_wrapping.py", '''\
import widgetkit as wk


class AVeryLongClassNameThatPushesTheReference:
    def and_a_very_long_method_name_that_pushes_it_further(self):
        if hasattr(wk, "a_feature_with_a_long_name_that_must_wrap_the_item"):
            return wk.paint(None, mode="a", depth=2)
''')
    wk.write("tests/test_many.py", "import widgetkit as wk\n\n" + "".join(f"wk.t{i}()\n" for i in range(20)))
    assert new(wk, "--max-entries", "4").code == 0
    path = wk.path / "checklists/widgetkit.md"
    before = path.read_text()
    prose = [line for line in before.splitlines() if not line.startswith(("|", "wk.", "return", "if", "canvas"))]
    assert all(len(line) <= 88 or " " not in line.strip() for line in prose)  # only a word longer than a line is
    subprocess.run([sys.executable, "-m", "mdformat", "--wrap=88", str(path)], check=True)
    assert path.read_text() == before
    assert wk.run("check").code == 0


@pytest.mark.parametrize(("text", "width", "wrapped"), [
    ("a b c", 3, "a b\nc"),
    ("see (`check --select X`) now", 12, "see\n(`check --select X`)\nnow"),  # a code span is one word
    ("- one two three", 9, "- one two\n  three"),
])
def test_wrap_keeps_code_spans_whole(text: str, width: int, wrapped: str) -> None:
    assert wrap(text, width, "  " if text.startswith("- ") else "") == wrapped
