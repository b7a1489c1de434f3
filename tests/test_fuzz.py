"""Fuzzing as a test profile: mutated checklists and sources through check, check --fix (twice) and new.

The generators build checklists of the shapes real ones have (frontmatter; Affected Files
tiers with aligned or unaligned tables, prose in cells, struck tokens, removal marks;
numbered catalog entries with sources, call sites, fenced snippets and checks; guard
lists) and sources that import the package in the ways code does, then damage them:
truncation, NUL bytes, invalid UTF-8, a BOM, CRLF or lone CR line endings, a lone CR inside
a line, line separators markdown-it does not count, very long lines, deep nesting (past
markdown-it's nesting limit, on lines short enough to be read and too long to be), YAML
alias bombs, unclosed HTML comments and fences, duplicate headings, broken tables, coding
cookies of every kind.

Properties: no command crashes (exit 0 or 1, or 2 with a one-line configuration error,
never an internal error); ``--fix`` never loses a table row (or refuses, exit 2) and a
second ``--fix`` changes nothing; ``new`` writes a checklist that reads without FORMAT, FRONTMATTER or
NUMBERING findings.

The default run tries 300 inputs; ``UC_FUZZ=10000 pytest -m fuzz`` tries 10,000
(half checklists, a third sources, the rest ``new``). ``UC_FUZZ_PROGRESS=FILE`` appends each
test's count of inputs tried (shrinking included) to FILE every 100 inputs and at its end, so a
long run that is stopped still says how far it got (``--hypothesis-show-statistics`` gives the
figures of a run that finishes).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FILES, settle
from upgrade_checklists.core.checklist import REMOVAL_MARK, read_checklist
from upgrade_checklists.cli import main

pytestmark = pytest.mark.fuzz

TOTAL = int(os.environ.get("UC_FUZZ", "300"))
PROGRESS = os.environ.get("UC_FUZZ_PROGRESS")
_TRIED: Counter[str] = Counter()


def _progress(name: str, every: int = 100) -> None:
    _TRIED[name] += 1
    if PROGRESS and _TRIED[name] % every == 0:
        _report(name, "inputs tried")


def _report(name: str, what: str) -> None:
    with open(PROGRESS, "a", encoding="utf-8") as f:
        f.write(f"{time.strftime('%H:%M:%S')} {name}: {_TRIED[name]} {what}\n")


@pytest.fixture(autouse=True)
def _final_count(request):
    yield
    if PROGRESS:
        _report(request.node.name, "inputs tried in all (pass or fail: see pytest's report)")


SETTINGS = dict(deadline=None, database=None, derandomize=TOTAL <= 300,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                                       HealthCheck.large_base_example])

CL = "checklists/fakepkg-core.md"
PYPROJECT = """\
[tool.upgrade-checklists]
roots = ["app", "tests"]
status_file = "STATUS.md"

[tool.upgrade-checklists.tiers]
primary = ["app/engine/"]
secondary = ["app/"]
tertiary = ["tests/"]
"""
SOURCES = ["app/engine/core.py", "app/engine/more.py", "app/utils/other.py", "tests/test_core.py"]
PATHS = SOURCES + ["app/engine/gone.py", "app/tools/names.py", "docs/notes.md", "app/" + "x" * 300 + ".py",
                   "../outside.py", "/dev/zero", "app/engine/", "app/engine/core.py"]

# --- checklists -------------------------------------------------------------------------

FRONTMATTERS = [
    "---\npackage: fakepkg-core\ngithub: example/fakepkg\nbranch_template: v${VERSION}\nupstream_paths:\n  - fakepkg/core/\n---\n",
    "---\npackage: fakepkg-core\ngithub: example/fakepkg\nbranch_template: v${VERSION}\nupstream_paths:\n  - fakepkg/core/\nimport_names:\n  - fakepkg.core\n---\n",
    "---\npackage: fakepkg-core\ngithub: example/fakepkg\nbranch_template: v${VERSION}\nupstream_paths: fakepkg/\n---\n",
    "---\npackage: [1, 2]\ngithub: ../../etc\nbranch_template: -x\nupstream_paths:\n  - ../up\n---\n",
    "---\npackage: fakepkg-core\n",  # never closed
    "---\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\npackage: *c\n---\n",
    "---\npackage: fakepkg-core\nx: !!float abc\n---\n",
    "---\npackage: fakepkg-core\nn: " + "7" * 5000 + "\n---\n",
    "---\npackage: fakepkg-core\nx: " + "[" * 600 + "]" * 600 + "\n---\n",
    "---\npackage: fakepkg-core\nwhen: 2024-01-01\n3: three\nset: !!set {a, b}\n---\n",
    "---\n: : :\n\t- bad\n---\n",
    "<!-- a comment first -->\n---\npackage: fakepkg-core\ngithub: example/fakepkg\n---\n",
    "",
]

CELLS = ["`fakepkg.core`", "`parallel_state` (as `mpu`)", "`DistributedDataParallel`", "~~`old_api`~~",
         "`dist_checkpointing.save`", "indirect — consumes the `peft_config` dict schema", REMOVAL_MARK,
         "`\"fakepkg-core\"` in `PACKAGE_IMPORT_MAP` (metadata only)", "", "`a|b`", "a \\| b", "`fakepkg.core.x.y.Z`"]
TIERS = ["Primary (engine layer — most likely to break)", "Secondary (model / infra layer)", "Tertiary (tests, config)",
         "Primary", "Quaternary", "**Secondary**", ""]


@st.composite
def tables(draw) -> str:
    rows = draw(st.lists(st.tuples(st.sampled_from(PATHS), st.lists(st.sampled_from(CELLS), max_size=3)), max_size=4))
    cells = [(f"`{p}`" if draw(st.booleans()) or not p else p, ", ".join(c)) for p, c in rows]
    header = ("File", "Imports / Usage")
    style = draw(st.sampled_from(["aligned", "plain", "no-delimiter", "extra-column", "quoted", "listed", "indented"]))
    if style == "aligned":
        w = [max(3, *(len(r[i]) for r in [header, *cells])) for i in range(2)]
        lines = ["| " + " | ".join(c.ljust(w[i]) for i, c in enumerate(header)) + " |",
                 "| " + " | ".join("-" * w[i] for i in range(2)) + " |"]
        lines += ["| " + " | ".join(c.ljust(w[i]) for i, c in enumerate(r)) + " |" for r in cells]
    else:
        lines = ["| File | Imports / Usage |", "| --- | --- |"] + [f"| {a} | {b} |" for a, b in cells]
    if style == "no-delimiter":
        del lines[1]
    elif style == "extra-column":
        lines = [line + " x |" for line in lines]
    elif style == "quoted":
        lines = ["> " + line for line in lines]
    elif style == "listed":
        lines = ["- The files:", ""] + ["  " + line for line in lines]
    elif style == "indented":
        lines = ["   " + line for line in lines]
    return "\n".join(lines)


@st.composite
def affected(draw) -> str:
    parts = ["## Affected Files"]
    for title in draw(st.lists(st.sampled_from(TIERS), max_size=4)):
        parts.append(f"### {title}")
        parts.append(draw(st.one_of(tables(), st.sampled_from(["_None._", "*None.*", "> _None._", "- _None._"]))))
    return "\n\n".join(parts)


SNIPPETS = ["mpu.initialize_model_parallel(tensor_model_parallel_size=2)", "return DDP(\n    model,\n    config=None,\n)",
            "...", "dist_checkpointing.save({}, \"/tmp/x\")", "not in the code at all", "# ...\nmpu.destroy()"]


@st.composite
def entries(draw) -> str:
    parts = ["## API Usage Catalog", "Intro prose with `fakepkg.core` in it."]
    n = draw(st.integers(0, 4))
    for i in range(1, n + 1):
        number = draw(st.sampled_from([str(i), str(i), str(i + 1), "0", "9" * 5000, "x"]))
        parts.append(f"### {number}. `fakepkg.core.{draw(st.sampled_from(['parallel_state.initialize_model_parallel', 'distributed.DistributedDataParallel', 'x']))}`")
        parts.append("**Source:** `fakepkg/core/parallel_state.py`")
        for _ in range(draw(st.integers(0, 2))):
            path = draw(st.sampled_from(PATHS))
            lines = draw(st.sampled_from(["line 9", "lines 10-13", "lines 10–13", "line 8", "lines 11-14", "lines 11–14", "line 0", "line " + "8" * 5000, "`f`, line 3", ""]))
            parts.append(f"Called in `{path}` ({lines}):" if lines else f"Used in `{path}`:")
            fence = draw(st.sampled_from(["```python", "```", "~~~", "````"]))
            body = draw(st.sampled_from(SNIPPETS))
            closed = draw(st.integers(0, 4)) > 0
            parts.append(f"{fence}\n{body}\n" + (fence.rstrip("python") if closed else ""))
        parts.append("**Check:** `tensor_model_parallel_size` still accepted.")
        if draw(st.booleans()):
            parts.append("_" * 70)
    return "\n\n".join(parts)


@st.composite
def guards(draw) -> str:
    items = draw(st.lists(st.sampled_from([
        "- `app/engine/core.py:7` — `hasattr(mpu, \"destroy\")` guard",
        "- `app/engine/core.py:700` — past the end",
        "- `app/engine/gone.py:1` — gone",
        "- `app/engine/core.py:" + "9" * 5000 + "` — huge",
        "- `app/engine/core.py` (line 7) — prose",
        "- a guard naming no path",
        "_None._",
    ]), max_size=3))
    return "\n\n".join(["## Version-Guarded Code", *items])


EXTRAS = ["<!-- an unclosed comment", "## Affected Files", "## API Usage Catalog", "```", "> " * 200 + "deep quote",
          "- " * 200 + "deep list", "<details>\n| raw | html |", "Owner: infra\x85team.", "a\u2028b\u2029c",
          "| File | Imports / Usage |", "\x0b\x0c\x1c\x1d\x1e",
          # nesting past markdown-it's limit (20 levels: the rest of the document is one item), on
          # one line short enough to be read, on one too long to be, and over many lines
          "- " * 9999 + "deep list", "> " * 9999 + "deep quote", ">" * 19_000, "- " * 10000 + "deeper list",
          "\n".join("  " * i + "- item" for i in range(300)), "1. " * 3000 + "x",
          "| `app/engine/core.py` | " + "- " * 9990 + " |"]


@st.composite
def checklists(draw) -> str:
    parts = [draw(affected()), draw(entries()), draw(guards())]
    for extra in draw(st.lists(st.sampled_from(EXTRAS), max_size=2)):
        parts.insert(draw(st.integers(0, len(parts))), extra)
    return draw(st.sampled_from(FRONTMATTERS)) + "\n" + "\n\n".join(parts) + "\n"


# --- sources ----------------------------------------------------------------------------

LINES = ["import fakepkg.core", "from fakepkg.core import parallel_state as mpu",
         "from fakepkg.core.distributed import DistributedDataParallel as DDP", "import fakepkg", "import os",
         "from fakepkg.core import *", "from . import sibling", "mpu.initialize_model_parallel(tensor_model_parallel_size=2)",
         "fakepkg.core.x.y(1)", "def build(model):\n    return DDP(\n        model,\n        config=None,\n    )",
         "class A:\n    '''import fakepkg.core in a docstring'''", "if True:\n    from fakepkg.core import dist_checkpointing",
         "TEXT = 'import fakepkg.core'", "try:\n    import fakepkg.core\nexcept ImportError:\n    pass",
         "x = [", "def f(:", "match x:\n    case 1:\n        pass", "type X = int", "print f", "\tmixed\n  indent"]


@st.composite
def sources(draw) -> bytes:
    text = "\n".join(draw(st.lists(st.sampled_from(LINES), max_size=8))) + "\n"
    deep = draw(st.sampled_from([None, None, None, "paren", "unary", "attr", "bracket"]))
    n = draw(st.sampled_from([50, 300, 3000, 10000]))
    if deep == "paren":
        text += "x = " + "(" * n + "1" + ")" * n + "\n"
    elif deep == "unary":
        text += "x = " + "-" * n + "1\n"
    elif deep == "attr":
        text += "x = a" + ".b" * n + "\n"
    elif deep == "bracket":
        text += "x = " + "[" * n + "\n"
    cookie = draw(st.sampled_from([None, None, "utf-8", "latin-1", "rot13", "hex", "base64", "zlib", "uu", "punycode",
                                   "bz2", "quopri", "utf-16", "no-such-codec", "idna"]))
    if cookie:
        text = f"# -*- coding: {cookie} -*-\n" + text
    data = text.encode("utf-8")
    return draw(damaged(data))


# --- damage -----------------------------------------------------------------------------


@st.composite
def damaged(draw, data: bytes) -> bytes:
    for how in draw(st.lists(st.sampled_from(["truncate", "nul", "invalid", "bom", "crlf", "cr", "cr-inline", "separator",
                                              "long", "megabyte", "none"]), max_size=3)):
        at = draw(st.integers(0, len(data)))
        if how == "truncate":
            data = data[:at]
        elif how == "nul":
            data = data[:at] + b"\x00" + data[at:]
        elif how == "invalid":
            data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xe2\x80"])) + data[at:]
        elif how == "bom":
            data = b"\xef\xbb\xbf" + data
        elif how == "crlf":
            data = data.replace(b"\n", b"\r\n")
        elif how == "cr":
            data = data.replace(b"\n", b"\r")
        elif how == "cr-inline":
            data = data[:at] + b"\r" + data[at:]
        elif how == "separator":
            data = data[:at] + draw(st.sampled_from(["\x85", "\u2028", "\u2029", "\x0b", "\x0c", "\x1c"])).encode() + data[at:]
        elif how == "long":
            data = data[:at] + b"y" * 100_000 + data[at:]
        elif how == "megabyte" and draw(st.integers(0, 9)) == 0:  # rare: 1 MB costs time
            data = data[:at] + b"1+" * 500_000 + data[at:]
    return data


# --- running ----------------------------------------------------------------------------


def _run(root: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(root)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
    finally:
        os.chdir(old)
    assert "internal error" not in err.getvalue(), err.getvalue()
    assert code in (0, 1) or (code == 2 and err.getvalue().startswith("upgrade-checklists: error: ")), (code, err.getvalue())
    return code, out.getvalue(), err.getvalue()


class _Repo:
    def __init__(self, files: dict[str, bytes]) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="uc-fuzz-"))
        for rel, data in {"pyproject.toml": PYPROJECT.encode(), **files}.items():
            p = self.root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
            os.utime(p, (1_600_000_000, 1_600_000_000))
        settle()  # not racy: the cache serves the later runs

    def __enter__(self) -> Path:
        return self.root

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def _rows(root: Path) -> int | None:
    try:
        return len(read_checklist(root / CL, CL).rows)
    except OSError:
        return None


def _fix_twice(root: Path) -> None:
    code, out, _ = _run(root, "check", "--format", "json")
    # the rows --fix may remove: a STALE it can fix (a deleted file, a live one that stopped
    # using the package and that the catalog does not cite)
    gone: set[str] = set()
    if code != 2:
        gone = {f["file"] for f in json.loads(out)["findings"] if f["code"] == "STALE" and f["fixable"]}
    before = (root / CL).read_bytes()
    rows = _rows(root)
    try:
        removable = sum(1 for r in read_checklist(root / CL, CL).rows if r.file in gone)  # every row of such a file
    except OSError:
        removable = 0
    _run(root, "check", "--fix")
    once = (root / CL).read_bytes()
    if once != before:
        once.decode("utf-8")  # a fix writes text
        assert _rows(root) >= rows - removable, "a fix lost a table row"
    _run(root, "check", "--fix")
    assert (root / CL).read_bytes() == once, "a second --fix changed the checklist again"
    _run(root, "check")
    assert [p.name for p in root.rglob("*.tmp")] == []


def _status(n: int) -> bytes:
    return f"| Checklist | Entries |\n| --- | --- |\n| `fakepkg-core.md` | {n} API entries |\n".encode()


@settings(max_examples=max(1, TOTAL // 2), **SETTINGS)
@given(cl=checklists(), status=st.sampled_from([0, 2, 3]), data=st.data())
def test_fuzz_checklists(cl: str, status: int, data) -> None:
    _progress("test_fuzz_checklists")
    raw = data.draw(damaged(cl.encode("utf-8")))
    # the fixture's engine (13 lines): the entries' references are right, one line off (LINE, fixable) or past its end
    files = {CL: raw, "STATUS.md": _status(status), "app/engine/core.py": FILES["app/engine/core.py"].encode(),
             "app/utils/other.py": b"import fakepkg.core\n", "tests/test_core.py": b"import os\n"}
    with _Repo(files) as root:
        _fix_twice(root)


@settings(max_examples=max(1, TOTAL // 3), **SETTINGS)
@given(srcs=st.lists(sources(), min_size=1, max_size=len(SOURCES)), cl=checklists())
def test_fuzz_sources(srcs: list[bytes], cl: str) -> None:
    _progress("test_fuzz_sources")
    files = {CL: cl.encode("utf-8"), "STATUS.md": _status(2), **dict(zip(SOURCES, srcs))}
    with _Repo(files) as root:
        _fix_twice(root)


@settings(max_examples=max(1, TOTAL - TOTAL // 2 - TOTAL // 3), **SETTINGS)
@given(srcs=st.lists(sources(), min_size=1, max_size=len(SOURCES)), status=st.booleans())
def test_fuzz_new(srcs: list[bytes], status: bool) -> None:
    _progress("test_fuzz_new")
    files = dict(zip(SOURCES, srcs))
    files["checklists/.keep"] = b""
    if status:
        files["STATUS.md"] = _status(1)
    with _Repo(files) as root:
        code, _, _ = _run(root, "new", "fakepkg-core", "--github", "example/fakepkg", "--import-name", "fakepkg.core")
        if code == 0:
            _, out, _ = _run(root, "check", "--format", "json")
            bad = [f for f in json.loads(out)["findings"]
                   if f["checklist"] == CL and f["code"] in ("FORMAT", "FRONTMATTER", "NUMBERING")]
            assert bad == []
            _fix_twice(root)
