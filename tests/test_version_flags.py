"""The project's version flags decide which ``return`` of a patch runs.

The fixture upstream ``fakepkg-flag`` (a local git repository, releases 1.0.0 and 2.0.0) has a
``Manager`` whose ``one``, ``two`` and ``three`` returned a triple and now return a pair;
upstream's own ``use`` unpacked three names from each and now unpacks two. The project patches
all three with functions returning a triple or a pair, picked by an ``if`` on a flag:

- ``one``: ``if GE_1:`` (``Version(fakepkg.flag.__version__) >= Version("1.0")``, a flag
  imported from another project module): the triple runs at 2.0.0, the pair is dead: an error.
- ``two``: ``if BEFORE_2:`` (``< "2.0"``): the triple is dead at 2.0.0, the pair runs: no finding.
- ``three``: ``if plain():`` (no flag): which return runs is not known: ``info``, as without flags.

``core.legacy()`` is gone at 2.0.0; the project calls it under ``if BEFORE_2:`` (dead at 2.0.0:
``info``), its ``elif GE_1:`` (runs: an error) and ``if plain():`` (not known: an error).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import Repo
from upstream import app_findings, audited_project, project_pyproject, tagged_upstream
from upgrade_checklists.audit.guards import flag_value
from upgrade_checklists.project.use import CALL, RETURNED
from upgrade_checklists.project.uses import find_uses


def _core(k: int) -> str:
    names = ", ".join("abc"[:k])
    ret = ", ".join(["x"] * k)
    return f'''
        class Manager:
            def one(self, x):
                return {ret}

            def two(self, x):
                return {ret}

            def three(self, x):
                return {ret}

            def use(self, x):
                {names} = self.one(x)
                {names} = self.two(x)
                {names} = self.three(x)
                return a
        '''


FLAG_V1 = {"fakepkg/flag/__init__.py": '__version__ = "1.0.0"\nfrom fakepkg.flag.core import Manager\n',
           "fakepkg/flag/core.py": _core(3) + "\n\n        def legacy():\n            return 1\n"}
FLAG_V2 = {"fakepkg/flag/__init__.py": '__version__ = "2.0.0"\nfrom fakepkg.flag.core import Manager\n',
           "fakepkg/flag/core.py": _core(2)}

COMPAT_PY = '''\
from packaging.version import Version

import fakepkg.flag

FLAG_VERSION = Version(fakepkg.flag.__version__)
GE_1 = FLAG_VERSION >= Version("1.0")
BEFORE_2 = FLAG_VERSION < Version("2.0")
'''

# line numbers matter: the assertions name them
PLUGIN_PY = '''\
from fakepkg.flag import Manager

from app.compat import BEFORE_2, GE_1


def plain():
    return True


def one(self, x):
    if GE_1:
        return x, x, x
    else:
        return x, x


def two(self, x):
    if BEFORE_2:
        return x, x, x
    else:
        return x, x


def three(self, x):
    if plain():
        return x, x, x
    else:
        return x, x


Manager.one = one
Manager.two = two
Manager.three = three

from fakepkg.flag import core


def call_legacy():
    if BEFORE_2:
        core.legacy()
    elif GE_1:
        core.legacy()
    if plain():
        core.legacy()
'''

CHECKLIST = (
    "---\npackage: fakepkg-flag\ngithub: example/fakepkg-flag\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/flag/\nimport_names:\n  - fakepkg.flag\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/compat.py` | `fakepkg.flag` |\n| `app/plugin.py` | `Manager` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("flag-upstream"), "fakepkg-flag", [("1.0.0", FLAG_V1), ("2.0.0", FLAG_V2)])


@pytest.fixture
def project(tmp_path: Path, capsys, upstreams: Path) -> Repo:
    return audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/compat.py": COMPAT_PY, "app/plugin.py": PLUGIN_PY,
        "checklists/fakepkg-flag.md": CHECKLIST, "pyproject.toml": project_pyproject("fakepkg-flag", upstreams, "1.0.0")})


def test_the_return_a_version_flag_makes_dead_is_left_out(project: Repo, upstreams: Path) -> None:
    project.write("pyproject.toml", project_pyproject("fakepkg-flag", upstreams, "2.0.0"))
    r = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    returned = {w: m for w, c, m in app_findings(r) if c == "RETURN_CHANGED"}
    # upstream's calls of one/two/three in use(): core.py lines 12, 13, 14 (the file's first line is `class Manager:`)
    # one(): GE_1 holds at 2.0.0, so the triple runs where upstream now unpacks two: an error at the def
    assert returned["app/plugin.py:10"] == (
        "upstream `Manager.use` (fakepkg/flag/core.py:12) unpacks `self.one(…)` into 2 names at 2.0.0; the patch `one` of "
        "`Manager.one` (line 10) returns line 12: a tuple of 3 (line 14 left out: in a branch the project's version flag "
        "makes dead at 2.0.0) (the old version unpacked 3)")
    # two(): BEFORE_2 is false at 2.0.0: only the pair runs, as upstream unpacks
    assert "app/plugin.py:17" not in returned
    # three(): plain() is no flag: which return runs stays unknown
    assert returned["app/plugin.py:24"] == (
        "[info] upstream `Manager.use` (fakepkg/flag/core.py:14) unpacks `self.three(…)` into 2 names at 2.0.0; the patch "
        "`three` of `Manager.three` (line 24) returns line 26: a tuple of 3; line 28: a tuple of 2: which return runs is "
        "not known statically (no version flag of the project decides between them)")
    assert r.code == 1


def test_a_call_in_a_branch_a_version_flag_makes_dead_is_info(project: Repo, upstreams: Path) -> None:
    project.write("pyproject.toml", project_pyproject("fakepkg-flag", upstreams, "2.0.0"))
    r = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    got = {w: m for w, c, m in app_findings(r) if c == "REMOVED_API"}
    removed = "`fakepkg.flag.core.legacy` was removed at 2.0.0"
    assert got == {
        "app/plugin.py:40": f"[info] {removed} (in a branch the project's version flag makes dead at 2.0.0)",
        "app/plugin.py:42": removed,  # the elif: not BEFORE_2 and GE_1, which hold at 2.0.0
        "app/plugin.py:44": removed,  # plain() is no flag
    }


def _flags(files: dict[str, str], modules=("fakepkg",)) -> dict[int, str]:
    uses = find_uses({rel: (src, ast.parse(src)) for rel, src in files.items()}, list(modules))
    return {line: flag for u in uses if u.kind == RETURNED for line, flag in u.return_flags}


PATCH_HEAD = "import fakepkg\nfrom fakepkg import Manager\n"


def _patch(test: str, before: str = "") -> str:
    # line 6: ``if <test>:``, line 7: the triple, line 9: the pair (one line more per line of ``before``)
    return (PATCH_HEAD + before + "\n\ndef m(self):\n    if " + test + ":\n        return 1, 2, 3\n    else:\n        return 1, 2\n\n\n"
            "Manager.m = m\n")


def _compat_flags(compat: str, head: str, test: str) -> dict[int, str]:
    """The return flags of a patch in ``app/p.py`` testing ``test``, its flags imported from ``app/compat.py`` by ``head``."""
    files = {"app/__init__.py": "", "app/compat.py": compat, "app/p.py": _patch(test).replace(PATCH_HEAD, PATCH_HEAD + head, 1)}
    return _flags(files)


def test_flags_read_from_the_project() -> None:
    compat = ("import importlib.metadata\nfrom packaging import version\nimport fakepkg\n"
              "V = version.parse(fakepkg.__version__)\nNEW = V >= version.parse('2.0')\n"
              "META = importlib.metadata.version('fakepkg') < '3'\nBOTH = NEW and not META\n"
              "BETWEEN = '1.0' <= fakepkg.__version__ < '2.0'\n")
    head = "from app.compat import NEW, META, BOTH, BETWEEN\n"

    def at(test):
        return _compat_flags(compat, head, test)

    # the branch lines move down one: the import of the flags is line 3
    assert at("NEW") == {8: "(V >= '2.0')", 10: "(not (V >= '2.0'))"}
    # metadata's version and the bare ``__version__`` are text: compared as strings, as Python does
    assert at("not META")[8] == "(not (S < '3'))"
    assert at("BOTH")[8] == "((V >= '2.0') and (not (S < '3')))"
    assert at("BETWEEN")[8] == "((S >= '1.0') and (S < '2.0'))"
    assert at("NEW or plain()")[8] == "((V >= '2.0') or (U))"


def test_elif_and_nested_branches() -> None:
    src = (PATCH_HEAD + "OLD = fakepkg.__version__ < '2'\n\n\ndef m(self):\n    if OLD:\n        return 1, 2, 3\n"
           "    elif plain():\n        return 1, 2\n    return 1\n\n\nManager.m = m\n")
    got = _flags({"app/p.py": src})
    # the elif's test is no flag: the second return only carries `not OLD`; the last one follows an
    # `if OLD:` that returns: it runs only when OLD is false too
    assert got == {8: "(S < '2')", 10: "(not (S < '2'))", 11: "(not (S < '2'))"}


@pytest.mark.parametrize("compat", [
    "import fakepkg\nNEW = fakepkg.__version__ >= '2'\nNEW = False\n",  # assigned twice
    "import other\nNEW = other.__version__ >= '2'\n",  # another package's version
    "import fakepkg\nNEW = fakepkg.__version__ >= 'latest'\n",  # no version literal
    "import fakepkg\nNEW = len(fakepkg.__version__) >= '2'\n",  # not the version
    "import fakepkg\nNEW = fakepkg.__version__ >= Version('2')\n",  # text against a Version: a TypeError
    "import fakepkg\ndef NEW():\n    return True\n",  # a function
    "import fakepkg\n",  # not defined at all
    "import fakepkg\nNEW = fakepkg.__version__ >= '2'\ndef force():\n    global NEW\n    NEW = True\n",  # set again in a function
    "import fakepkg\nNEW = fakepkg.__version__ >= '2'\nfor NEW in (1, 2):\n    pass\n",  # rebound by a loop
])
def test_what_is_no_flag(compat: str) -> None:
    files = {"app/__init__.py": "", "app/compat.py": compat,
             "app/p.py": _patch("NEW").replace(PATCH_HEAD, PATCH_HEAD + "from app.compat import NEW\n", 1)}
    assert _flags(files) == {}


def test_flag_value_at_a_version() -> None:
    assert flag_value("(V >= '3.7.0')", "8.0.0") is True
    assert flag_value("(not (V >= '3.7.0'))", "8.0.0") is False
    assert flag_value("(V >= '3.7.0')", "3.6.2") is False
    assert flag_value("(V < '8') or (U)", "8.0.0") is None  # the unknown part decides
    assert flag_value("(V < '8') and (U)", "8.0.0") is False  # whatever the unknown part is
    assert flag_value("(V >= '8') or (U)", "8.0.0") is True
    assert flag_value("(V == '8.0') and (V != '7')", "8.0.0") is True
    assert flag_value("V >= '2.0'", "not-a-version") is None
    assert flag_value("V >= 'x.y'", "2.0") is None
    assert flag_value("S >= '9'", "10.0") is False  # text: '1' < '9', as Python compares the strings
    assert flag_value("V >= '9'", "10.0") is True
    assert flag_value("V >=", "2.0") is None  # garbled: not known
    assert flag_value("__import__('os')", "2.0") is None  # never run, only read


def test_the_flag_around_each_use() -> None:
    src = ("import fakepkg\nOLD = fakepkg.__version__ < '2'\n\n\ndef f(OLD):\n    if OLD:\n        fakepkg.gone()\n\n\n"
           "def g():\n    if OLD:\n        fakepkg.gone()\n    else:\n        fakepkg.kept()\n")
    uses = find_uses({"app/p.py": (src, ast.parse(src))}, ["fakepkg"])
    calls = {u.line: u.flag for u in uses if u.kind == CALL}
    # f's parameter OLD is not the module's flag; g reads the module's
    assert calls == {7: "", 12: "(S < '2')", 14: "(not (S < '2'))"}


def test_a_return_after_an_early_return_on_a_flag() -> None:
    src = (PATCH_HEAD + "NEW = fakepkg.__version__ >= '2'\n\n\ndef m(self):\n    if NEW:\n        return 1, 2\n"
           "    x = 1\n    return 1, 2, x\n\n\ndef k(self):\n    if NEW:\n        x = 1\n    else:\n        raise TypeError\n"
           "    return 1, 2, x\n\n\nManager.m = m\nManager.k = k\n")
    # m: the triple runs only when NEW is false; k: only when NEW is true (its else raises)
    assert _flags({"app/p.py": src}) == {8: "(S >= '2')", 10: "(not (S >= '2'))", 18: "(S >= '2')"}


# -- the version's numbers, and flags a project function computes ------------------------------

NUMBERS_PY = '''\
import packaging.version
from packaging.version import Version

import fakepkg.flag

__version_info__ = tuple(int(part) for part in fakepkg.flag.__version__.split("."))
MAJOR_MINOR = tuple(map(int, fakepkg.flag.__version__.split(".")[:2]))


def flag_at_least(text):
    """Whether the installed fakepkg.flag is at least ``text``."""
    return Version(fakepkg.flag.__version__) >= Version(text)


def twice(text):
    found = Version(fakepkg.flag.__version__)
    return found >= Version(text)


OLD_BY_INFO = __version_info__ < (2, 0)
OLD_BY_CALL = not flag_at_least("2.0")
'''

# line numbers matter: the assertions name them
NUMBERS_CALLS_PY = '''\
from fakepkg.flag import core

from app.numbers import MAJOR_MINOR, OLD_BY_CALL, OLD_BY_INFO, flag_at_least, twice


def call_legacy(other):
    if OLD_BY_INFO:
        core.legacy()
    if OLD_BY_CALL:
        core.legacy()
    if not flag_at_least("2"):
        core.legacy()
    if MAJOR_MINOR <= (1, 9):
        core.legacy()
    if twice("2") is False:
        core.legacy()
    if not flag_at_least(other):
        core.legacy()
'''


def test_version_numbers_and_project_function_flags_in_an_audit(project: Repo, upstreams: Path) -> None:
    project.write("app/numbers.py", NUMBERS_PY)
    project.write("app/numbers_calls.py", NUMBERS_CALLS_PY)
    project.commit("numbers")
    project.write("pyproject.toml", project_pyproject("fakepkg-flag", upstreams, "2.0.0"))
    r = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    got = {w: m for w, c, m in app_findings(r) if c == "REMOVED_API" and w.startswith("app/numbers_calls.py")}
    removed = "`fakepkg.flag.core.legacy` was removed at 2.0.0"
    dead = f"[info] {removed} (in a branch the project's version flag makes dead at 2.0.0)"
    assert got == {
        "app/numbers_calls.py:8": dead,  # __version_info__ < (2, 0): a tuple of the version's ints
        "app/numbers_calls.py:10": dead,  # not flag_at_least("2.0"): the project function's return, "2.0" in place of text
        "app/numbers_calls.py:12": dead,  # the function called in the test itself
        "app/numbers_calls.py:14": dead,  # the first two numbers
        "app/numbers_calls.py:16": removed,  # twice() has two statements: not read, so not known
        "app/numbers_calls.py:18": removed,  # an argument that is no literal: not known
    }


def test_version_numbers_read_as_flags() -> None:
    compat = ("import packaging.version\nfrom packaging import version\nfrom packaging.version import Version\nimport fakepkg\n"
              "INFO = tuple(int(x) for x in fakepkg.__version__.split('.'))\n"
              "A = INFO >= (2, 0)\n"
              "B = tuple(map(int, fakepkg.__version__.split('.')[:2])) < (2, 1)\n"
              "C = int(fakepkg.__version__.split('.')[0]) >= 2\n"
              "D = packaging.version.parse(fakepkg.__version__) >= Version('2')\n"
              "E = Version(fakepkg.__version__).release >= (2,)\n"
              "F = version.parse(fakepkg.__version__).major < 3\n"
              "G = INFO[:2] == (2, 0)\n"
              "def ge(v, strict=False):\n    return Version(fakepkg.__version__) >= Version(v)\n"
              "def info():\n    return INFO\n"
              "H = ge('2.1')\n"
              "I = info() >= (2, 1)\n"
              "J = ge(v='3')\n")
    head = "from app.compat import A, B, C, D, E, F, G, H, I, J, ge\n"

    def at(test):
        return _compat_flags(compat, head, test).get(8)

    assert at("A") == "(T >= (2, 0))"
    assert at("B") == "(T[:2] < (2, 1))"
    assert at("C") == "(T[0] >= 2)"
    assert at("D") == "(V >= '2')"
    assert at("E") == "(R >= (2,))"
    assert at("F") == "(R[0] < 3)"
    assert at("G") == "(T[:2] == (2, 0))"
    assert at("H") == "(V >= '2.1')"  # the function's return with '2.1' for v (strict's default unused)
    assert at("I") == "(T >= (2, 1))"
    assert at("J") == "(V >= '3')"
    assert at("ge('4')") == "(V >= '4')"  # imported, then called in the test itself
    assert at("(2, 0) <= INFO") is None  # INFO itself is not imported into p.py: a name of nothing


@pytest.mark.parametrize("compat", [
    "import fakepkg\nNEW = tuple(int(x) for x in fakepkg.__version__.split('-')) >= (2,)\n",  # not split on dots
    "import fakepkg\nNEW = tuple(int(x) for x in fakepkg.__version__.split('.') if x) >= (2,)\n",  # filtered
    "import fakepkg\nNEW = tuple(float(x) for x in fakepkg.__version__.split('.')) >= (2,)\n",  # not int
    "import fakepkg\nNEW = tuple(int(x) for x in fakepkg.__version__.split('.')) >= '2'\n",  # a tuple against a string
    "import fakepkg\nNEW = tuple(int(x) for x in fakepkg.__version__.split('.')) >= 2\n",  # a tuple against an int
    "import fakepkg\nNEW = int(fakepkg.__version__.split('.')[0]) >= (2,)\n",  # an int against a tuple
    "import fakepkg\nNEW = tuple(int(x) for x in fakepkg.__version__.split('.'))[1:] >= (2,)\n",  # a slice not from the start
    "import other\nNEW = tuple(int(x) for x in other.__version__.split('.')) >= (2,)\n",  # another package
    "import fakepkg\ndef ge(v):\n    x = 1\n    return fakepkg.__version__ >= v\nNEW = ge('2')\n",  # two statements
    "import fakepkg\ndef ge(*v):\n    return fakepkg.__version__ >= v[0]\nNEW = ge('2')\n",  # *args
    "import fakepkg\ndef ge(v):\n    return fakepkg.__version__ >= v\nNEW = ge(fakepkg.x)\n",  # no literal
    "import fakepkg\ndef ge(v):\n    return fakepkg.__version__ >= v\nNEW = ge()\n",  # a parameter without a value
    "import fakepkg\ndef ge(v):\n    return fakepkg.__version__ >= v\nNEW = ge('2', '3')\n",  # too many arguments
    "import fakepkg\ndef ge(v):\n    return fakepkg.__version__ >= v\nge = len\nNEW = ge('2')\n",  # rebound
    "import fakepkg, functools\n@functools.cache\ndef ge(v):\n    return fakepkg.__version__ >= v\nNEW = ge('2')\n",  # decorated
])
def test_what_is_no_numbers_flag(compat: str) -> None:
    files = {"app/__init__.py": "", "app/compat.py": compat,
             "app/p.py": _patch("NEW").replace(PATCH_HEAD, PATCH_HEAD + "from app.compat import NEW\n", 1)}
    assert _flags(files) == {}


def test_numbers_flag_value_at_a_version() -> None:
    assert flag_value("T >= (8, 0)", "8.0.0") is True
    assert flag_value("T >= (8, 0)", "7.4.4") is False
    assert flag_value("T[:2] == (8, 1)", "8.1.2") is True
    assert flag_value("T[0] >= 8", "10.0") is True
    assert flag_value("T >= (8, 0)", "8.0.0rc1") is None  # int('0rc1') raises in the project: not known
    assert flag_value("R >= (8,)", "8.0.0rc1") is True  # the parsed release is (8, 0, 0)
    assert flag_value("R[1] < 2", "8.1") is True
    assert flag_value("R[2] < 2", "8.1") is None  # no third number: an IndexError
    assert flag_value("T >= '8'", "8.0") is None  # a tuple against a string: a TypeError in Python
    assert flag_value("T >= 8", "8.0") is None
    assert flag_value("T >= (8, __import__('os'))", "8.0") is None  # read, never run


# -- flags written as rich-click writes them: names of numbers, a try's else, a conditional expression --

def test_a_tuple_of_the_versions_numbers_item_by_item_is_a_flag() -> None:
    compat = ("import fakepkg\n"
              "_major = int(fakepkg.__version__.split('.')[0])\n"
              "_minor = int(fakepkg.__version__.split('.')[1])\n"
              "A = (_major, _minor) < (2, 1)\n"
              "B = (int(fakepkg.__version__.split('.')[0]),) >= (2,)\n"
              "C = (_minor, _major) < (2, 1)\n"  # not in the version's order
              "D = (_major, 1) < (2, 1)\n"  # a literal among them
              "E = (_major, *rest) < (2, 1)\n")
    head = "from app.compat import A, B, C, D, E\n"

    def at(test):
        return _compat_flags(compat, head, test).get(8)

    assert at("A") == "(T[:2] < (2, 1))"
    assert at("B") == "(T[:1] >= (2,))"
    assert at("C") is None
    assert at("D") is None
    assert at("E") is None


def test_a_flag_set_in_a_trys_else_is_the_value_when_reading_the_version_does_not_fail() -> None:
    def at(compat):
        files = {"app/__init__.py": "", "app/compat.py": "import fakepkg\n" + compat,
                 "app/p.py": _patch("OLD").replace(PATCH_HEAD, PATCH_HEAD + "from app.compat import OLD\n", 1)}
        return _flags(files).get(8)

    assert at("try:\n    v = fakepkg.__version__\nexcept Exception:\n    OLD = False\n"
              "else:\n    OLD = int(v.split('.')[1]) < 2\n") == "(T[1] < 2)"
    assert at("try:\n    OLD = fakepkg.__version__ < '2'\nexcept AttributeError:\n    OLD = True\n") == "(S < '2')"
    # bound twice outside the handlers, or only in handlers (twice): not one value
    assert at("try:\n    OLD = fakepkg.__version__ < '2'\n    OLD = fakepkg.__version__ < '3'\nexcept Exception:\n    OLD = True\n") is None
    assert at("try:\n    import nothing\nexcept ImportError:\n    OLD = fakepkg.__version__ < '2'\n") == "(S < '2')"
    assert at("try:\n    pass\nexcept ImportError:\n    OLD = fakepkg.__version__ < '2'\nexcept ValueError:\n    OLD = True\n") is None


TERNARY_PY = '''\
from fakepkg.flag import core

from app.compat import BEFORE_2


def call_legacy():
    x = core.legacy() if BEFORE_2 else core.Manager()
    y = core.Manager() if BEFORE_2 else core.legacy()
    return x, y
'''


def test_the_dead_arm_of_a_conditional_expression_on_a_flag_is_info(project: Repo, upstreams: Path) -> None:
    project.write("app/ternary.py", TERNARY_PY)
    project.commit("ternary")
    project.write("pyproject.toml", project_pyproject("fakepkg-flag", upstreams, "2.0.0"))
    r = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    got = {w: m for w, c, m in app_findings(r) if c == "REMOVED_API" and w.startswith("app/ternary.py")}
    removed = "`fakepkg.flag.core.legacy` was removed at 2.0.0"
    # both arms stand on one line: the column tells which arm a call is in
    assert got == {"app/ternary.py:7": f"[info] {removed} (in a branch the project's version flag makes dead at 2.0.0)",
                   "app/ternary.py:8": removed}
    assert r.code == 1


def test_setting_a_name_on_the_package_is_no_read_of_it() -> None:
    src = "import fakepkg\n\n\ndef patch(new):\n    fakepkg.Old = new\n    return fakepkg.Old\n"
    uses = find_uses({"app/p.py": (src, ast.parse(src))}, ["fakepkg"])
    # ``fakepkg.Old = new`` neither needs ``Old`` upstream nor asks a module ``__getattr__`` (no deprecation, no removal)
    assert sorted((u.line, u.target) for u in uses if u.kind == "attribute") == [(6, "fakepkg.Old")]


# -- the version tuple a package exports (``django.VERSION``), and skip decorators on a flag --------

# line numbers matter: the assertions name them
OWN_TUPLE_PY = '''\
import unittest

import pytest

import fakepkg.flag
from fakepkg.flag import core, version_info


def call_legacy():
    if fakepkg.flag.VERSION < (2, 0):
        core.legacy()
    if version_info[:2] >= (1, 0):
        core.legacy()
    if fakepkg.flag.VERSION > (2, 0, 0):
        core.legacy()


@unittest.skipUnless(fakepkg.flag.VERSION < (2, 0), "gone at 2")
class LegacyTests(unittest.TestCase):
    def test_legacy(self):
        core.legacy()


@pytest.mark.skipif(fakepkg.flag.VERSION >= (2,), reason="gone at 2")
def test_legacy():
    core.legacy()


@unittest.skipIf(fakepkg.flag.VERSION < (2, 0), "at 2 only")
def test_at_two():
    core.legacy()


@unittest.skipUnless(fakepkg.flag.__version__ < "2", "gone at 2")
@pytest.mark.skipif(fakepkg.flag.VERSION < (2,), "a second positional argument: not one condition")
def test_two_conditions():
    core.legacy()


@pytest.mark.skip(reason="no condition")
def test_skipped():
    core.legacy()
'''


def test_the_packages_own_version_tuple_and_skip_decorators_in_an_audit(project: Repo, upstreams: Path) -> None:
    project.write("app/own_tuple.py", OWN_TUPLE_PY)
    project.commit("own tuple")
    project.write("pyproject.toml", project_pyproject("fakepkg-flag", upstreams, "2.0.0"))
    r = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    got = {w: m for w, c, m in app_findings(r) if c == "REMOVED_API" and w.startswith("app/own_tuple.py")}
    removed = "`fakepkg.flag.core.legacy` was removed at 2.0.0"
    dead = f"[info] {removed} (in a branch the project's version flag makes dead at 2.0.0)"
    assert got == {
        "app/own_tuple.py:11": dead,  # fakepkg.flag.VERSION < (2, 0): the package's own tuple
        "app/own_tuple.py:13": removed,  # version_info[:2] >= (1, 0), imported by name: runs at 2.0.0
        "app/own_tuple.py:15": removed,  # > (2, 0, 0): a release level may follow the numbers: not known
        "app/own_tuple.py:21": dead,  # the class body skipUnless guards
        "app/own_tuple.py:26": dead,  # pytest's skipif: runs when the flag does not hold
        "app/own_tuple.py:31": removed,  # skipIf on a flag false at 2.0.0: runs
        "app/own_tuple.py:37": dead,  # the first decorator decides; the second is not one condition
        "app/own_tuple.py:42": removed,  # no flag
    }


def test_own_version_tuple_flag_value_at_a_version() -> None:
    assert flag_value("P < (5, 0)", "5.0") is False  # django.VERSION at 5.0 is (5, 0, 0, 'final', 0)
    assert flag_value("P < (5, 0)", "4.2.7") is True
    assert flag_value("P >= (5, 0, 0)", "5.0") is True  # whatever follows the three numbers
    assert flag_value("P < (5, 0, 0)", "5.0") is False
    assert flag_value("P > (5, 0, 0)", "5.0") is None  # (5, 0, 0, 'final', 0) > (5, 0, 0), (5, 0, 0) is not
    assert flag_value("P == (5, 0, 0)", "5.0") is None
    assert flag_value("P > (5, 0)", "5.0") is True  # longer than the literal, equal on it
    assert flag_value("P > (4, 2, 7)", "5.0") is True
    assert flag_value("P[:2] == (5, 0)", "5.0") is True
    assert flag_value("P[:3] == (5, 0, 0)", "5.0") is True
    assert flag_value("P[:4] == (5, 0, 0)", "5.0") is None  # past the numbers: a release level
    assert flag_value("P[2] == 0", "5.0") is True
    assert flag_value("P[3] == 0", "5.0") is None
    assert flag_value("P >= (5, 0)", "5.0rc1") is True  # the release's numbers


@pytest.mark.parametrize("compat", [
    "import fakepkg.sub\nNEW = fakepkg.sub.VERSION >= (2,)\n",  # a submodule's name, not the import name's
    "import fakepkg\nNEW = fakepkg.VERSIONS >= (2,)\n",  # another name
    "import other\nNEW = other.VERSION >= (2,)\n",  # another package
    "import fakepkg\nNEW = fakepkg.VERSION >= '2'\n",  # against a string
])
def test_what_is_no_own_tuple_flag(compat: str) -> None:
    files = {"app/__init__.py": "", "app/compat.py": compat,
             "app/p.py": _patch("NEW").replace(PATCH_HEAD, PATCH_HEAD + "from app.compat import NEW\n", 1)}
    assert _flags(files) == {}


def test_a_local_version_tuple_is_the_projects() -> None:
    src = ("import fakepkg\nVERSION = (3, 0)\n\n\ndef g():\n    if VERSION < (2, 0):\n        fakepkg.gone()\n")
    uses = find_uses({"app/p.py": (src, ast.parse(src))}, ["fakepkg"])
    assert {u.line: u.flag for u in uses if u.kind == CALL} == {7: ""}


# A feature test is a flag too: ``hasattr(X, "name")`` of an upstream module or class is decided by
# whether upstream has that member at the version (``H('…')``, answered from the model).
FEATURES_PY = '''\
from fakepkg.flag import core
from fakepkg.flag.core import Manager

HAS_LEGACY = hasattr(core, "legacy")
HAS_ONE = hasattr(Manager, "one")


def call_legacy(thing):
    if HAS_LEGACY:
        core.legacy()
    if not HAS_ONE:
        core.legacy()
    if hasattr(Manager, "four"):
        core.legacy()
    if hasattr(thing, "legacy"):
        core.legacy()
    if HAS_ONE:
        core.legacy()
'''


def test_a_feature_test_of_an_upstream_member_is_a_flag(project: Repo, upstreams: Path) -> None:
    project.write("app/features.py", FEATURES_PY)
    project.commit("features")
    project.write("pyproject.toml", project_pyproject("fakepkg-flag", upstreams, "2.0.0"))
    r = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    got = {w: m for w, c, m in app_findings(r) if c == "REMOVED_API" and w.startswith("app/features.py")}
    removed = "`fakepkg.flag.core.legacy` was removed at 2.0.0"
    dead = f"[info] {removed} (in a branch the project's version flag makes dead at 2.0.0)"
    assert got == {
        "app/features.py:10": dead,  # core has no `legacy` at 2.0.0: the branch cannot run there
        "app/features.py:12": dead,  # Manager still has `one`: `not HAS_ONE` is false
        "app/features.py:14": dead,  # Manager has no `four`
        "app/features.py:16": removed,  # hasattr of a parameter: not a flag, not known
        "app/features.py:18": removed,  # the branch that runs
    }


def test_feature_flags_read_and_valued() -> None:
    # no model to ask: a feature test is not known, and neither is what it decides
    assert flag_value("H('fakepkg.flag.core.legacy')", "2.0.0") is None
    assert flag_value("not (H('pkg.C.m'))", "2.0.0") is None
    answers = {"pkg.C.m": True, "pkg.C.gone": False}
    assert flag_value("not (H('pkg.C.m'))", "2.0.0", answers.get) is False
    assert flag_value("(H('pkg.C.gone')) or (V >= '3')", "2.0.0", answers.get) is False
    assert flag_value("(H('pkg.C.other')) and (V >= '1')", "2.0.0", answers.get) is None
    assert flag_value("H(1)", "2.0.0", answers.get) is None  # not a dotted name: not known


class _Answers:
    """A model's answers for ``has_member``: ``pkg.C`` a class (``m`` its member), ``pkg.F`` a class with a
    base in another distribution not followed, ``pkg.f`` a function, ``pkg.mod`` a module holding ``g``."""

    def lookup(self, dotted: str):
        from upgrade_checklists.audit.api import Api
        kinds = {"pkg.C": "class", "pkg.F": "class", "pkg.f": "function", "pkg.mod": "module"}
        return Api(dotted, kinds[dotted], None) if dotted in kinds else None

    def member(self, cls, name: str):
        return self.lookup("pkg.mod") if (cls.path, name) == ("pkg.C", "m") else None

    def foreign_bases(self, cls) -> list[str]:
        return ["otherdist.Base"] if cls.path == "pkg.F" else []

    def status(self, dotted: str) -> str:
        return "found" if dotted in ("pkg.C.m", "pkg.mod.g") else "absent"


def test_a_feature_tests_member_is_asked_of_the_model() -> None:
    from upgrade_checklists.audit.bound import has_member
    m = _Answers()
    assert has_member(m, "pkg.C.m") is True
    assert has_member(m, "pkg.C.gone") is False
    assert has_member(m, "pkg.F.anything") is None  # it may come from the base not followed: not known
    assert has_member(m, "pkg.mod.g") is True and has_member(m, "pkg.mod.h") is False
    assert has_member(m, "pkg.f.attr") is None  # a function's attributes: not a feature test we decide
    assert has_member(m, "pkg.nothing.attr") is None
