"""The audit's verdicts on compatibility aliases, equal types, deprecations and names that
cannot be resolved: a fixture upstream (``oldnew`` 1.0.0 -> 2.0.0) that keeps every old
path working, deprecates some APIs, and imports a package that is not loaded (torch)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Repo, git
from upstream import make_repo

V1 = {
    "oldnew/__init__.py": '''
        __version__ = "1.0.0"
        ''',
    "oldnew/tokens.py": '''
        import typing as t
        from datetime import datetime


        class FastTokenizer:
            def __init__(self, path, fast=True):
                self.path = path

            def stamp(self) -> t.Optional[datetime]:
                return None


        class SlowTokenizer:
            pass


        def make(path) -> "FastTokenizer":
            return FastTokenizer(path)
        ''',
    "oldnew/legacy.py": '''
        def run(x):
            return x
        ''',
    "oldnew/api.py": '''
        import typing_extensions as te


        class Record:
            pass


        def load(name: str) -> Record:
            return Record()


        def fetch(url, retries=3):
            return url


        def old_fetch(url):
            return url


        def helper() -> te.NoReturn:
            raise SystemExit


        def pick(key, default=None):
            if default is not None:
                import warnings

                warnings.warn("default= is deprecated", DeprecationWarning)
            return key
        ''',
    "oldnew/hub.py": '''
        import torch
        from torch import Tensor


        def make_hub(size) -> "torch.nn.Module":
            return torch.nn.Linear(size, size)
        ''',
}

V2 = {
    **V1,
    "oldnew/__init__.py": '''
        import sys
        import warnings

        from oldnew import modern as _modern

        # deprecated module paths -> their replacements
        _LEGACY_MODULE_ALIASES = {"tokens": "backends"}

        sys.modules[f"{__name__}.legacy"] = _modern


        def __getattr__(name):
            if name == "__version__":
                warnings.warn(
                    "oldnew.__version__ is deprecated and will be removed in 3.0; use importlib.metadata.version('oldnew')",
                    DeprecationWarning,
                    stacklevel=2,
                )
                return "2.0.0"
            raise AttributeError(name)
        ''',
    "oldnew/tokens.py": None,
    "oldnew/legacy.py": None,
    "oldnew/modern.py": '''
        def run(x):
            return x
        ''',
    "oldnew/backends.py": '''
        from datetime import datetime


        class TokenizersBackend:
            def __init__(self, path, fast=True):
                self.path = path

            def stamp(self) -> datetime | None:
                return None


        # the old name, kept by assignment
        FastTokenizer = TokenizersBackend


        def make(path) -> "TokenizersBackend":
            return TokenizersBackend(path)
        ''',
    "oldnew/models/__init__.py": "",
    "oldnew/models/record.py": '''
        class Record:
            pass
        ''',
    "oldnew/api.py": '''
        import typing
        import warnings

        from typing_extensions import deprecated

        from oldnew.models.record import Record


        def load(name: str) -> Record:
            return Record()


        def fetch(url, retries=3):
            warnings.warn(f"fetch() is deprecated, use get({url!r}) instead", FutureWarning, stacklevel=2)
            return url


        @deprecated("old_fetch() is deprecated: use fetch(url, retries=0)")
        def old_fetch(url):
            return url


        def helper() -> typing.NoReturn:
            raise SystemExit


        def pick(key, default=None):
            if default is not None:
                warnings.warn("default= is deprecated", DeprecationWarning)
            return key
        ''',
}

APP = '''\
from typing import TYPE_CHECKING

import oldnew
from oldnew.api import fetch, helper, load, old_fetch, pick
from oldnew.hub import make_hub
from oldnew.legacy import run
from oldnew.tokens import FastTokenizer, make

if TYPE_CHECKING:
    from oldnew.tokens import SlowTokenizer


def go(path):
    tok = FastTokenizer(path, fast=False)
    when = tok.stamp()
    made = make(path)
    rec = load("x")
    data = fetch("u")
    old = old_fetch("u")
    key = pick("k")
    hub = make_hub(4)
    hub.forward(1)
    helper()
    return run(1), oldnew.__version__, when, made, rec, data, old, key
'''


def entry(n: int, api: str, line: int, snippet: str) -> str:
    return f"### {n}. `{api}`\n\nCalled in `app/tok.py` (line {line}):\n\n```python\n{snippet}\n```\n\n"


CHECKLIST = (
    "---\npackage: oldnew\ngithub: example/oldnew\nbranch_template: v${VERSION}\nimport_names:\n  - oldnew\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/tok.py` | `oldnew`, `fetch`, `helper`, `load`, `old_fetch`, `pick`, `make_hub`, `run`, `FastTokenizer`, `make`, `SlowTokenizer` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n"
    + entry(1, "oldnew.tokens.FastTokenizer", 14, "tok = FastTokenizer(path, fast=False)")
    + entry(2, "oldnew.tokens.make", 16, "made = make(path)")
    + entry(3, "oldnew.api.load", 17, 'rec = load("x")')
    + entry(4, "oldnew.api.fetch", 18, 'data = fetch("u")')
    + entry(5, "oldnew.api.old_fetch", 19, 'old = old_fetch("u")')
    + entry(6, "oldnew.api.pick", 20, 'key = pick("k")')
    + entry(7, "oldnew.hub.make_hub", 21, "hub = make_hub(4)")
    + entry(8, "oldnew.api.helper", 23, "helper()")
    + entry(9, "oldnew.legacy.run", 24, "return run(1), oldnew.__version__, when, made, rec, data, old, key")
    + entry(10, "oldnew.__version__", 24, "return run(1), oldnew.__version__, when, made, rec, data, old, key")
    + entry(11, "oldnew.hub.Tensor", 1, "from torch import Tensor")
    + "## Version-Guarded Code\n\n_None._\n"
)


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("oldnew")
    make_repo(base / "example" / "oldnew", "oldnew", [("1.0.0", V1), ("2.0.0", V2)])
    return base


@pytest.fixture
def project(tmp_path: Path, capsys, upstream: Path) -> Repo:
    r = Repo(tmp_path / "project", capsys)
    r.path.mkdir()
    git(r.path, "init", "-q", "-b", "main")
    r.write("app/__init__.py", "")
    r.write("app/tok.py", APP)
    r.write("app/ver.py", "from oldnew import __version__ as VERSION\n")
    r.write("checklists/oldnew.md", CHECKLIST)
    r.write("pyproject.toml", f'[project]\nname = "app"\nversion = "0"\ndependencies = ["oldnew==1.0.0"]\n\n'
                              f'[tool.upgrade-checklists]\nroots = ["app"]\ngit_url = "file://{upstream}/{{github}}"\n')
    r.write(".gitignore", "upgrade-summary.md\n")
    r.commit("initial")
    r.cache = tmp_path / "cache"
    return r


def findings(run) -> list[tuple[str, str, str]]:
    out = []
    for line in run.lines:
        if ":1: " not in line:
            continue
        where, rest = line.split(":1: ", 1)
        code, msg = rest.split(" ", 1)
        out.append((where, code, msg.rsplit(" (checklists/", 1)[0]))
    return sorted(out)


#: the findings of the audit oldnew 1.0.0 -> 2.0.0 (with -v)
VERDICTS = sorted([
    # a warning in the function body, its text quoted (the f-string's placeholder kept)
    ("app/tok.py:18", "DEPRECATED", "[warning] `oldnew.api.fetch` is deprecated at 2.0.0: \"fetch() is deprecated, use get({url!r}) instead\""),
    # @deprecated
    ("app/tok.py:19", "DEPRECATED", "[warning] `oldnew.api.old_fetch` is deprecated at 2.0.0: \"old_fetch() is deprecated: use fetch(url, retries=0)\""),
    # a name served by a module __getattr__ that warns: not removed, deprecated
    # imported from a module whose __getattr__ warns when serving it
    ("app/ver.py:1", "DEPRECATED", "[warning] import `oldnew.__version__` is served by a module __getattr__ that warns at 2.0.0: \"oldnew.__version__ is deprecated and will be removed in 3.0; use importlib.metadata.version('oldnew')\""),
    ("app/tok.py:24", "DEPRECATED", "[warning] `oldnew.__version__` is served by a module __getattr__ that warns at 2.0.0: \"oldnew.__version__ is deprecated and will be removed in 3.0; use importlib.metadata.version('oldnew')\""),
    # gone, but only imported for type checking: nothing breaks at run time
    ("app/tok.py:10", "REMOVED_API", "[warning] import `oldnew.tokens.SlowTokenizer` no longer resolves at 2.0.0"),
    # an alias to a package that is not loaded: UNRESOLVED with the alias and the package
    ("checklists/oldnew.md:107", "UNRESOLVED", "[info] entry 11: `oldnew.hub.Tensor` is an alias to `torch.Tensor` (package `torch`), which is not in the loaded source (AliasResolutionError)"),
])


def test_aliases_equal_types_and_deprecations(project: Repo) -> None:
    r = project.run("audit", "oldnew==2.0.0", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    assert findings(r) == VERDICTS
    # no MOVED_API / REMOVED_API error for the legacy module alias table, the sys.modules alias or the
    # assignment; no RETURN_CHANGED for Optional[datetime] == datetime | None, "FastTokenizer" ==
    # "TokenizersBackend" (the same class), Record moved but re-exported, te.NoReturn == typing.NoReturn;
    # no DEPRECATED for pick(), whose warning is about one parameter; no traceback for make_hub's result
    assert r.code == 0
    assert r.err.count("Traceback") == 0


def test_the_same_audit_before_the_upgrade_binds_quietly(project: Repo) -> None:
    r = project.run("audit", "--cache-dir", str(project.cache))
    assert (r.code, findings(r)) == (0, [])
    assert r.lines[-1] == "Audited 1 package(s): 0 breaking, 1 other (1 info not listed; -v lists them)."
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert findings(r) == [
        ("checklists/oldnew.md:107", "UNRESOLVED", "[info] entry 11: `oldnew.hub.Tensor` is an alias to `torch.Tensor` (package `torch`), which is not in the loaded source (AliasResolutionError)"),
    ]
