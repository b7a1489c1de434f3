"""``upgrade-checklists new PACKAGE``: a first checklist that passes ``check``."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import Repo

LM = '''\
import otherlib_core as oc
from otherlib_core.layers import Dense, build as make


def model(x):
    layer = Dense(
        units=4,
        activation="relu",
    )
    if oc.utils.ready(x):
        return make(layer, x)
    return oc.Model(layer)
'''


@pytest.fixture
def other(repo: Repo) -> Repo:
    repo.write("app/models/__init__.py", "")
    repo.write("app/models/lm.py", LM)
    repo.write("tests/test_lm.py", "from otherlib_core.layers import Dense\n\n\ndef test_dense():\n    assert Dense(units=1)\n")
    return repo


def test_new_creates_a_checklist_that_passes_check(other: Repo) -> None:
    r = other.run("new", "otherlib-core", "--github", "acme/otherlib")
    assert (r.code, r.out) == (0, "Created checklists/otherlib-core.md: 2 files, 4 API entries (import names: otherlib_core)\n"
                                  "  branch_template: v${VERSION} is a guess: check it against upstream's tag names\n")
    text = other.read("checklists/otherlib-core.md")
    assert text.startswith(
        "---\npackage: otherlib-core\ngithub: acme/otherlib\nbranch_template: v${VERSION}\n"
        "upstream_paths:\n  - otherlib_core/\nimport_names:\n  - otherlib_core\n---\n\n## Affected Files\n"
    )
    assert "| `app/models/lm.py` | `otherlib_core` (as `oc`), `Dense`, `build` (as `make`) |" in text
    assert "| `tests/test_lm.py` | `Dense` |" in text  # compact: the repository does not run mdformat
    # all in Secondary (app/): the most used first, then by name
    assert [l for l in text.splitlines() if l.startswith("### ") and l[4].isdigit()] == [
        "### 1. `otherlib_core.layers.Dense`",
        "### 2. `otherlib_core.Model`",
        "### 3. `otherlib_core.layers.build`",
        "### 4. `otherlib_core.utils.ready`",
    ]
    # anchored by file and function, no line numbers; the uses not shown are counted by folder
    assert ("Called in `app/models/lm.py` (`model`):\n\n```python\nlayer = Dense(\n"
            "    units=4,\n    activation=\"relu\",\n)\n```\n\nUsed 2 times in 2 files; also in `tests/` (1 use).") in text
    assert ("**Check:** `units`, `activation` are still accepted as keywords; the result (`layer`)\nkeeps its type."
            in text)
    assert ("Called in `app/models/lm.py` (`model`):\n\n```python\nreturn make(layer, x)\n```\n\n**Check:** The 2 "
            "positional arguments are still in the same order; the return value,\nwhich the code uses, keeps its type.") in text
    assert other.run("check").code == 0


def test_new_output_is_mdformat_stable(other: Repo) -> None:
    """In a repository that formats Markdown with mdformat (its pre-commit configuration runs
    it), the draft is written as mdformat writes it: padded tables."""
    other.write(".pre-commit-config.yaml", "repos:\n  - repo: https://github.com/hukkin/mdformat\n    hooks:\n      - id: mdformat\n")
    other.run("new", "otherlib-core", "--github", "acme/otherlib")
    path = other.path / "checklists/otherlib-core.md"
    before = path.read_text()
    subprocess.run([sys.executable, "-m", "mdformat", "--wrap=88", str(path)], check=True)
    assert path.read_text() == before


def test_new_adds_status_row(other: Repo) -> None:
    other.edit("pyproject.toml", 'roots = ["app", "tests"]', 'roots = ["app", "tests"]\nstatus_file = "SKILL.md"')
    other.write("SKILL.md", "| Checklist | Entries |\n| --- | --- |\n| `fakepkg-core.md` | 2 API entries |\n")
    r = other.run("new", "otherlib-core", "--github", "acme/otherlib", "--import-name", "otherlib_core")
    assert r.out.endswith("Added a row to SKILL.md\n")
    assert other.read("SKILL.md") == (
        "| Checklist | Entries |\n| --- | --- |\n| `fakepkg-core.md` | 2 API entries |\n| `otherlib-core.md` | 4 API entries |\n"
    )
    assert other.run("check").code == 0


def test_new_refuses_to_overwrite(other: Repo) -> None:
    before = other.read("checklists/fakepkg-core.md")
    r = other.run("new", "fakepkg-core", "--github", "acme/x")
    assert (r.code, r.err) == (2, "upgrade-checklists: error: checklists/fakepkg-core.md already exists; new never overwrites a checklist\n")
    assert other.read("checklists/fakepkg-core.md") == before


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["otherlib-core", "--github=-oProxyCommand=x"], "checklists/otherlib-core.md: frontmatter 'github': '-oProxyCommand=x' is not of the form 'org/repo'"),
        (["otherlib-core", "--github", "a/b", "--branch-template", "v1"], "frontmatter 'branch_template': 'v1' does not contain ${VERSION}"),
        (["otherlib-core", "--github", "a/b", "--branch-template", "$(touch x)${VERSION}"], "has characters not allowed in a git ref"),
        (["otherlib-core", "--github", "a/b", "--upstream-path", "../../etc"], "'../../etc' must be a relative path"),
        (["otherlib-core", "--github", "a/b", "--import-name", "os; import x"], "'import_names': 'os; import x' is not a dotted module name"),
        (["../evil", "--github", "a/b"], "'../evil' is not a valid package name"),
    ],
)
def test_new_rejects_hostile_values_and_writes_nothing(other: Repo, args: list[str], error: str) -> None:
    r = other.run("new", *args)
    assert r.code == 2
    assert error in r.err and r.err.count("\n") == 1
    assert sorted(p.name for p in (other.path / "checklists").iterdir()) == ["fakepkg-core.md"]
    assert not (other.path / "x").exists()


def test_new_creates_the_checklist_folder(other: Repo) -> None:
    other.edit("pyproject.toml", 'roots = ["app", "tests"]', 'checklists = "docs/deps/checklists"\nroots = ["app", "tests"]')
    r = other.run("new", "otherlib-core", "--github", "acme/otherlib")
    assert r.code == 0, r.err
    assert r.out.startswith("Created docs/deps/checklists/otherlib-core.md: 2 files")
    assert other.run("check").code == 0


def test_new_with_a_bad_value_creates_no_folder(other: Repo) -> None:
    other.edit("pyproject.toml", 'roots = ["app", "tests"]', 'checklists = "deps"\nroots = ["app", "tests"]')
    assert other.run("new", "otherlib-core", "--github", "not-a-repo").code == 2
    assert not (other.path / "deps").exists()


def headings(text: str) -> list[str]:
    return [l.split(" ", 2)[2] for l in text.splitlines() if l.startswith("### ") and l[4].isdigit()]


def test_new_collapses_import_only_names_into_the_row(other: Repo) -> None:
    other.write("app/models/conv.py", "from otherlib_core.layers import Conv, Dense\n\n\ndef make():\n    return Dense(units=2)\n")
    other.run("new", "otherlib-core", "--github", "acme/otherlib")
    text = other.read("checklists/otherlib-core.md")
    assert "| `app/models/conv.py` | `Conv`, `Dense` " in text
    assert "`otherlib_core.layers.Conv`" not in headings(text)
    assert "from otherlib_core.layers import" not in text  # no entry pinned to an import line
    assert other.run("check").code == 0


def test_new_orders_entries_by_tier_then_by_use(other: Repo) -> None:
    other.write("app/engine/run.py", "import otherlib_core as oc\n\n\ndef go(x):\n    return oc.serve(x)\n")
    other.write("app/models/more.py", "from otherlib_core.layers import Dense\n\nA = Dense(1)\nB = Dense(2)\n")
    other.run("new", "otherlib-core", "--github", "acme/otherlib")
    assert headings(other.read("checklists/otherlib-core.md")) == [
        "`otherlib_core.serve`",  # Primary (app/engine/), used once
        "`otherlib_core.layers.Dense`",  # Secondary, 4 uses
        "`otherlib_core.Model`",
        "`otherlib_core.layers.build`",
        "`otherlib_core.utils.ready`",
    ]


def test_new_never_cuts_a_statement_and_prefers_a_short_one(other: Repo) -> None:
    args = "".join(f"    arg{i}={i},\n" for i in range(12))
    other.write("app/models/big.py", f"from otherlib_core.layers import Dense\n\nLAYER = Dense(\n{args})\n")
    other.run("new", "otherlib-core", "--github", "acme/otherlib", "--import-name", "otherlib_core.layers")
    text = other.read("checklists/otherlib-core.md")
    # Dense has a 5-line call in app/models/lm.py: that one is shown, not the 14-line one, and nothing is cut
    assert "### 1. `otherlib_core.layers.Dense`\n\nCalled in `app/models/lm.py` (`model`):\n\n```python\nlayer = Dense(\n" in text
    assert "arg0" not in text and "\n...\n" not in text
    assert other.run("check").code == 0


def test_new_shows_a_long_call_whole_when_it_is_the_only_one(other: Repo) -> None:
    args = "".join(f"    arg{i}={i},\n" for i in range(12))
    other.write("app/models/big.py", f"import otherlib_core as oc\n\nLAYER = oc.wide(\n{args})\n")
    other.run("new", "otherlib-core", "--github", "acme/otherlib")
    text = other.read("checklists/otherlib-core.md")
    assert f"Called in `app/models/big.py`:\n\n```python\nLAYER = oc.wide(\n{args})\n```" in text
    assert other.run("check").code == 0


def test_new_names_module_attributes_and_what_the_code_reads_from_a_result(other: Repo) -> None:
    other.write("app/models/ver.py", (
        "import otherlib_core\n\n"
        "OLD = otherlib_core.__version__ < \"2\"\n\n\n"
        "def before(out):\n"
        "    return out.hidden\n\n\n"  # another `out`, in another function: not the result
        "def forward(x):\n"
        "    out = otherlib_core.run(x, mode=\"fast\")\n"
        "    return out.logits, out.loss\n"
    ))
    other.run("new", "otherlib-core", "--github", "acme/otherlib")
    text = other.read("checklists/otherlib-core.md")
    assert ("### 3. `otherlib_core.__version__`\n\nUsed in `app/models/ver.py`:\n\n```python\n"
            "OLD = otherlib_core.__version__ < \"2\"\n```\n\n**Check:** `__version__` still exists on `otherlib_core`, "
            "with the same meaning.") in text
    assert ("**Check:** `mode` is still accepted as a keyword; the positional argument is still the\nfirst "
            "parameter; the result (`out`) still has `logits`, `loss`.") in text
    assert other.run("check").code == 0


def test_new_leaves_out_the_metadata_python_gives_every_module_and_function(other: Repo) -> None:
    """``mod.__file__``, ``f.__module__``: not an API of the package (issue 24, real case: pytest's
    ``_pytest.config.__file__``); the package's own ``__version__`` is one, and stays."""
    other.write("app/models/meta.py", (
        "import otherlib_core\n"
        "from otherlib_core import layers\n\n"
        "HERE = layers.__file__\n"
        "WHO = otherlib_core.run.__module__\n"
        "NAME = otherlib_core.run.__name__.upper()\n"
        "OLD = otherlib_core.__version__ < \"2\"\n"
    ))
    other.run("new", "otherlib-core", "--github", "acme/otherlib")
    text = other.read("checklists/otherlib-core.md")
    assert "`otherlib_core.__version__`" in text
    for meta in ("__file__", "__module__", "__name__"):
        assert meta not in text
    # nor does the check ask for an entry for them
    assert other.run("check").code == 0


def test_new_without_tier_rules_puts_tests_and_examples_in_tertiary(other: Repo) -> None:
    other.write("pyproject.toml", "[project]\nname = 'x'\n")  # no table: default roots, no tier rules
    other.remove("checklists/fakepkg-core.md")  # and no checklist to infer them from
    other.write("examples/demo.py", "from otherlib_core.layers import Dense\n\nDense(units=3)\n")
    r = other.run("new", "otherlib-core", "--github", "acme/otherlib")
    assert r.out.startswith("Created checklists/otherlib-core.md: 3 files,")
    text = other.read("checklists/otherlib-core.md")
    secondary = text[text.index("### Secondary"):text.index("### Tertiary")]
    tertiary = text[text.index("### Tertiary"):text.index("## API Usage Catalog")]
    assert "`app/models/lm.py`" in secondary
    assert "`examples/demo.py`" in tertiary and "`tests/test_lm.py`" in tertiary
    assert other.run("check").code == 0
