"""What this upgrade does not break is not an error (issue 24 items 7 and 8, and false errors found
on real upgrades), on a fixture upstream ``fbpkg`` 1.0.0 -> 2.0.0 written for it:

- ``fbpkg.Old`` is removed: a read Python never evaluates (a local variable's annotation, PEP 526;
  any annotation under ``from __future__ import annotations``, PEP 563; a quoted one; the body of
  ``if TYPE_CHECKING:``) breaks nothing at run time (a warning), while module-level, class-level,
  parameter and return annotations are evaluated (errors);
- ``Marker`` keeps its one positional parameter: a call passing three did not bind at 1.0.0
  either (info, said once), while ``make`` loses ``b``, which a call passes (error);
- version guards: one already dead at 1.0.0 (a comparison with 0.5, an import that resolved)
  is counted on one info line; one that dies at 2.0.0 is reported;
- ``Client.get`` and ``fetch`` hand their ``legacy`` keyword to a helper that warns when it is
  passed: deprecated at the calls passing it, not at the others.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Repo
from upstream import audited_project, project_pyproject, tagged_upstream

V1 = {
    "fbpkg/__init__.py": '''
        from fbpkg.core import Client, Marker, fetch, make

        Old = float
        __version__ = "1.0.0"
        ''',
    "fbpkg/core.py": '''
        class Marker:
            def __init__(self, mark, *, _private=False):
                self.mark = mark


        def make(a, b=1):
            return a


        def fetch(url, legacy=None):
            return url


        class Client:
            def get(self, url, *, follow=None, legacy=None):
                return url
        ''',
    "fbpkg/compat.py": '''
        def helper():
            return 1
        ''',
}

V2 = {
    **V1,
    "fbpkg/__init__.py": '''
        from fbpkg.core import Client, Marker, fetch, make

        __version__ = "2.0.0"
        ''',
    "fbpkg/core.py": '''
        import warnings


        class Marker:
            def __init__(self, mark, *, _private=False):
                self.mark = mark


        def make(a):
            return a


        def _resolve(url, legacy=None, other=None):
            if legacy is not None:
                warnings.warn("`legacy` is deprecated; drop it", DeprecationWarning)
            if other is not None:
                warnings.warn("`other` is deprecated", DeprecationWarning)
            return url


        def fetch(url, legacy=None, other=None):
            return _resolve(url, legacy)


        class Client:
            def get(self, url, *, follow=None, legacy=None):
                chosen = self._choose(follow, legacy)
                return url, chosen

            def _choose(self, follow, legacy):
                if legacy is not None:
                    message = "The `legacy` argument is deprecated. Use `follow` instead."
                    warnings.warn(message, DeprecationWarning)
                return follow
        ''',
    "fbpkg/newmod.py": '''
        thing = 1
        ''',
}

ANNOT = '''\
import fbpkg

X: fbpkg.Old = 1.0


class K:
    y: fbpkg.Old = 2.0


def f(a: fbpkg.Old) -> "fbpkg.Old":
    z: fbpkg.Old = 3.0
    w: "fbpkg.Old" = 4.0
    v: fbpkg.Old = fbpkg.Old(5)
    return z + w + v + a


def g():
    class Inner:
        q: fbpkg.Old = 6.0
    return Inner
'''

FUTURE = '''\
from __future__ import annotations

import fbpkg

X: fbpkg.Old = 1.0


def g(a: fbpkg.Old) -> fbpkg.Old:
    return a
'''

TYPING = '''\
from typing import TYPE_CHECKING

import fbpkg

if TYPE_CHECKING:
    T = fbpkg.Old
else:
    T = fbpkg.Old
'''

CALLS = '''\
from fbpkg import Client, Marker, fetch, make

m = Marker("a", "b", "c")
n = make(1, b=2)
c = Client()
r1 = c.get("/", legacy=True)
r2 = c.get("/", follow=True)
r3 = fetch("/", legacy=1)
r4 = fetch("/")
r5 = fetch("/", other=1)
'''

GUARDS = '''\
import fbpkg

if fbpkg.__version__ >= "0.5":
    A = 1
if fbpkg.__version__ >= "2.0":
    B = 1
try:
    from fbpkg.compat import helper
except ImportError:
    helper = None
try:
    from fbpkg.newmod import thing
except ImportError:
    thing = None
'''

CHECKLIST = (
    "---\npackage: fbpkg\ngithub: example/fbpkg\nbranch_template: v${VERSION}\nimport_names:\n  - fbpkg\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/calls.py` | `Marker`, `make` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n"
    "### 1. `fbpkg.make`\n\nCalled in `app/calls.py` (line 4):\n\n```python\nn = make(1, b=2)\n```\n\n"
    "## Version-Guarded Code\n\n"
    "- `app/guards.py:3` — version comparison with 0.5.\n"
    "- `app/guards.py:5` — version comparison with 2.0.\n"
    "- `app/guards.py:8` — `try` import of the compat helper.\n"
    "- `app/guards.py:12` — `try` import of the new module.\n"
)


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("fbpkg"), "fbpkg", [("1.0.0", V1), ("2.0.0", V2)])


@pytest.fixture
def project(tmp_path: Path, capsys, upstream: Path) -> Repo:
    return audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/annot.py": ANNOT, "app/future.py": FUTURE, "app/typing_only.py": TYPING,
        "app/calls.py": CALLS, "app/guards.py": GUARDS,
        "checklists/fbpkg.md": CHECKLIST, "pyproject.toml": project_pyproject("fbpkg", upstream, "1.0.0", primary=None)})


def findings(run) -> list[tuple[str, str, str]]:
    out = []
    for line in run.lines:
        if not (line.startswith("app/") or (line.startswith("checklists/") and " GUARD_" in line)):
            continue
        where, rest = line.split(": ", 1)
        code, msg = rest.split(" ", 1)
        out.append((where.rsplit(":", 1)[0], code, msg.rsplit(" (checklists/", 1)[0]))
    return sorted(out)


REMOVED = "`fbpkg.Old` was removed at 2.0.0"
NEVER_RUN = ": nothing breaks at run time; a type checker will flag it)"
LOCAL = f"[warning] {REMOVED} (read only in the annotation of a local variable, which Python never evaluates (PEP 526){NEVER_RUN}"
FUTURE_ = (f"[warning] {REMOVED} (read only in an annotation under `from __future__ import annotations`, which Python never "
           f"evaluates (PEP 563){NEVER_RUN}")
TC = f"[warning] {REMOVED} (read only in code under `if TYPE_CHECKING:`, which never runs{NEVER_RUN}"
ERROR = f"{REMOVED} (read here)"
DEPRECATED_LEGACY = "[warning] `fbpkg.core.{}`: passing `legacy` is deprecated at 2.0.0: \"{}\""

#: reasoned from the two versions above, line by line
EXPECTED = sorted([
    # evaluated: module level, class body (also a class made inside a function), parameter annotation, a value
    ("app/annot.py:3", "REMOVED_API", ERROR),
    ("app/annot.py:7", "REMOVED_API", ERROR),
    ("app/annot.py:10", "REMOVED_API", ERROR),  # the parameter's; the quoted return annotation holds no name
    ("app/annot.py:13", "REMOVED_API", REMOVED),  # the annotation is not evaluated, but the call on its line is (said by the call)
    ("app/annot.py:19", "REMOVED_API", ERROR),
    # never evaluated: a local variable's annotation (line 12's is quoted: nothing at all)
    ("app/annot.py:11", "REMOVED_API", LOCAL),
    ("app/future.py:5", "REMOVED_API", FUTURE_),
    ("app/future.py:8", "REMOVED_API", FUTURE_),
    ("app/typing_only.py:6", "REMOVED_API", TC),
    ("app/typing_only.py:8", "REMOVED_API", ERROR),  # the else branch runs
    # three positional arguments for one positional parameter, at 1.0.0 too: info, one finding
    ("app/calls.py:3", "REMOVED_PARAM", "[info] `fbpkg.core.Marker`: positional arguments 2, 3 have no parameter at 2.0.0 "
     "(1 positional parameters) (the call did not bind at the old version either: 3 positional arguments for 1 positional "
     "parameters; not a change of this upgrade)"),
    ("app/calls.py:4", "REMOVED_PARAM", "`fbpkg.core.make`: keyword `b` was removed"),
    # the keyword handed to a helper that warns: only where it is passed (not r2, r4; `other` is not handed on by fetch)
    # (the warning is given in `_choose`, which `get` hands `legacy` on to by position: named)
    ("app/calls.py:6", "DEPRECATED", DEPRECATED_LEGACY.format("Client.get", "The `legacy` argument is deprecated. Use `follow` instead.")
     + " (warned by `fbpkg.core.Client._choose`, which it hands `legacy` on to) (called on the result of `fbpkg.core.Client`)"),
    ("app/calls.py:8", "DEPRECATED", DEPRECATED_LEGACY.format("fetch", "`legacy` is deprecated; drop it")),
    # guards: line 5 dies at 2.0.0, line 12's import resolves only at 2.0.0; lines 3 and 8 were dead at 1.0.0 already
    ("app/guards.py:5", "GUARD_DEAD", "[warning] version comparison with 2.0: at or below the new version 2.0.0, the guard can be removed"),
    ("app/guards.py:12", "GUARD_DEAD", "[warning] the primary import `fbpkg.newmod.thing` now resolves: the ImportError fallback can be removed"),
    ("checklists/fbpkg.md:1", "GUARD_DEAD", "[info] 2 version guard(s) not listed: already dead at the old version 1.0.0 (a version check "
     "at or below it, an import or attribute it already had), so not news of this upgrade"),
])


def test_what_this_upgrade_does_not_break_is_no_error(project: Repo) -> None:
    r = project.run("audit", "fbpkg==2.0.0", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    assert "Traceback" not in r.err
    assert findings(r) == EXPECTED
    assert r.code == 1  # the real breaks stay errors
