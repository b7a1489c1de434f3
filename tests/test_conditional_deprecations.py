"""A deprecation warning an upstream body gives only under a condition the call does not decide (a test of
``self.x``, of module state: anything but one of the function's parameters) is a *conditional* deprecation:
said as ``info`` with the condition, not as a warning (the project's tests may never meet it). An
unconditional warning stays a warning; so does one behind a warn-once guard, an opt-out flag (``if not X``)
or an early ``raise`` (a precondition, not a condition of the warning).

The fixture upstream ``fakepkg-cond`` (a local git repository, two tagged releases): at 2.0.0 the methods of
``Transformer`` and ``configure`` warn in the shapes below; at 1.0.0 only ``Transformer.mixed`` warns, and
only when ``self.resolvers`` is set."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from conftest import Repo
from upgrade_checklists.audit.deprecation import deprecation_in, split_when
from upstream import app_findings, audited_project, project_pyproject, tagged_upstream

V1 = '''
    import warnings

    MODE = "lenient"
    _REGISTRY = []


    def configure():
        return _REGISTRY


    class Transformer:
        def __init__(self):
            self.resolvers = []
            self.closed = False

        def populate(self, components):
            for c in components:
                self.resolvers.extend(c)

        def finish(self):
            return None

        def once(self):
            return None

        def close(self):
            return None

        def mixed(self):
            if self.resolvers:
                warnings.warn("mixed() is going away", DeprecationWarning)

        def render(self):
            return None


    class Publisher:
        def set_components(self, reader):
            return reader
    '''
V2 = '''
    import warnings

    MODE = "lenient"
    _REGISTRY = []
    _SEEN = set()


    def configure():
        if _REGISTRY:
            warnings.warn("registered hooks are deprecated", DeprecationWarning)
        return _REGISTRY


    class Transformer:
        def __init__(self):
            self.resolvers = []
            self.closed = False

        def populate(self, components):
            for c in components:
                self.resolvers.extend(c)
            if self.resolvers:
                warnings.warn("the resolver chain is deprecated: use a transform", DeprecationWarning)

        def finish(self):
            if not self.resolvers:
                return None
            warnings.warn("finish() with resolvers is deprecated", DeprecationWarning)

        def once(self):
            if "once" not in _SEEN:
                _SEEN.add("once")
                warnings.warn("once() is deprecated", DeprecationWarning)

        def close(self):
            if self.closed:
                raise ValueError("closed")
            warnings.warn("close() is deprecated: use shutdown()", DeprecationWarning)

        def mixed(self):
            warnings.warn("mixed() is going away", DeprecationWarning)

        def render(self):
            if MODE == "strict":
                if self.resolvers:
                    warnings.warn("strict rendering with resolvers is deprecated", DeprecationWarning)


    class Publisher:
        def set_components(self, reader):
            warnings.warn("set_components() will be removed", PendingDeprecationWarning)
            return reader
    '''
INIT = "from fakepkg.cond.core import Publisher, Transformer, configure\n"

# line numbers matter: the assertions name them
APP = '''\
from fakepkg.cond import Publisher, Transformer, configure


def run(t: Transformer, p: Publisher):
    p.set_components("r")
    t.populate([])
    t.finish()
    t.once()
    t.close()
    t.mixed()
    t.render()
    configure()
'''

CHECKLIST = (
    "---\npackage: fakepkg-cond\ngithub: example/fakepkg-cond\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/cond/\nimport_names:\n  - fakepkg.cond\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/run.py` | `Publisher`, `Transformer`, `configure` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)

T = "fakepkg.cond.core.Transformer"
HOW = " (`t` annotated `fakepkg.cond.Transformer` in `run`)"
STATE = " (a condition on upstream's own state, not on what the call passes)"


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("cond-upstream"), "fakepkg-cond", [
        ("1.0.0", {"fakepkg/cond/__init__.py": INIT, "fakepkg/cond/core.py": V1}),
        ("2.0.0", {"fakepkg/cond/__init__.py": INIT, "fakepkg/cond/core.py": V2})])


def test_a_warning_under_upstreams_own_state_is_info_with_its_condition(tmp_path: Path, capsys, upstreams: Path) -> None:
    project: Repo = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/run.py": APP, "checklists/fakepkg-cond.md": CHECKLIST,
        "pyproject.toml": project_pyproject("fakepkg-cond", upstreams, "1.0.0")})
    project.write("pyproject.toml", project_pyproject("fakepkg-cond", upstreams, "2.0.0"))
    r = project.run("audit", "--from", "1.0.0", "--cache-dir", str(project.cache), "-v")
    got = {w: m for w, c, m in app_findings(r) if c == "DEPRECATED"}
    assert got == {
        # unconditional: a warning, as before
        "app/run.py:5": "[warning] `fakepkg.cond.core.Publisher.set_components` is deprecated at 2.0.0: "
                        "\"set_components() will be removed\" (`p` annotated `fakepkg.cond.Publisher` in `run`)",
        # under ``if self.resolvers:``: the call does not decide it
        "app/run.py:6": f"[info] `{T}.populate` is deprecated at 2.0.0 when `self.resolvers` is set: "
                        f"\"the resolver chain is deprecated: use a transform\"{HOW}{STATE}",
        # after ``if not self.resolvers: return``: given when they are set
        "app/run.py:7": f"[info] `{T}.finish` is deprecated at 2.0.0 when `self.resolvers` is set: "
                        f"\"finish() with resolvers is deprecated\"{HOW}{STATE}",
        # a warn-once guard (the branch sets what it tests) is no condition
        "app/run.py:8": f"[warning] `{T}.once` is deprecated at 2.0.0: \"once() is deprecated\"{HOW}",
        # an early raise is a precondition: every call that goes on warns
        "app/run.py:9": f"[warning] `{T}.close` is deprecated at 2.0.0: \"close() is deprecated: use shutdown()\"{HOW}",
        # conditional at 1.0.0, unconditional now: news of this upgrade
        "app/run.py:10": f"[warning] `{T}.mixed` is deprecated at 2.0.0: \"mixed() is going away\"{HOW}",
        # nested conditions: both said
        "app/run.py:11": f"[info] `{T}.render` is deprecated at 2.0.0 when `MODE == 'strict'` and `self.resolvers` is set: "
                         f"\"strict rendering with resolvers is deprecated\"{HOW}{STATE}",
        # a module function under module state, called by its path
        "app/run.py:12": "[info] `fakepkg.cond.core.configure` is deprecated at 2.0.0 when `_REGISTRY` is set: "
                         f"\"registered hooks are deprecated\"{STATE}",
    }
    assert r.code == 0


def _body(body: str):
    fn = ast.parse(f"def f(self, a, flag=None):\n{textwrap.indent(textwrap.dedent(body), '    ')}\n").body[0]
    found = deprecation_in(fn.body, fn)
    return None if found is None else split_when(found)


W = 'warnings.warn("old", DeprecationWarning)'


@pytest.mark.parametrize(("body", "expected"), [
    (W, ("old", "")),
    (f"if self.x:\n    {W}", ("old", "`self.x` is set")),
    (f"if self.x > 2:\n    pass\nelse:\n    {W}", ("old", "`self.x <= 2`")),
    (f"if self.x > 2 and self.y:\n    pass\nelse:\n    {W}", ("old", "`not (self.x > 2 and self.y)`")),
    (f"if not self.hooks:\n    return\n{W}", ("old", "`self.hooks` is set")),
    (f"if self.hooks is None:\n    return\n{W}", ("old", "`self.hooks is not None`")),
    (f"for h in self.hooks:\n    if not h.ready:\n        continue\n    {W}", ("old", "`h.ready` is set")),
    (f"if self.closed:\n    raise ValueError\n{W}", ("old", "")),
    # opt-out flags: their unset state is the default
    (f"if not SILENCE:\n    {W}", ("old", "")),
    (f"if self.replacement is None:\n    {W}", ("old", "")),
    # warn-once guards: state that outlives the call, set where the test reads it
    (f"global _DONE\nif _DONE:\n    return\n_DONE = True\n{W}", ("old", "")),
    (f"if self.count < 1:\n    self.count += 1\n    {W}", ("old", "")),
    # a local set in the branch is no such guard
    (f"n = len(self.hooks)\nif n:\n    n = 0\n    {W}", ("old", "`n` is set")),
    (f"if self.x:\n    self.update(a)\n    {W}", ("old", "`self.x` is set")),  # a method of self called: no flag set
    # an unconditional warning wins over an earlier conditional one
    (f'if self.x:\n    warnings.warn("c", DeprecationWarning)\n{W}', ("old", "")),
    # a test of a parameter: a keyword's deprecation, not the function's (as before)
    (f"if flag is not None:\n    {W}", None),
    (f"if a is None:\n    return\n{W}", ("old", "")),  # an early exit on a parameter: as before
    # a handler and a nested definition do not run on an ordinary call
    (f"try:\n    pass\nexcept ImportError:\n    {W}", None),
    (f"def inner():\n    {W}", None),
    # odd shapes: an empty branch body cannot be (``pass``), a bare ``return``, ``match``
    ("if self.x:\n    pass\nreturn", None),
    (f"match self.x:\n    case 1:\n        {W}", ("old", "")),
])
def test_the_condition_a_body_warns_under(body: str, expected) -> None:
    assert _body(body) == expected


@pytest.mark.parametrize(("body", "expected"), [
    # the message a local holds, assigned more than once: the assignment before the warning
    ('text = "first is deprecated"\nwarnings.warn(text, DeprecationWarning)\ntext = "unused"', ("first is deprecated", "")),
    ('text = "a"\nif self.x:\n    text = "x is deprecated"\n    warnings.warn(text, FutureWarning)',
     ("x is deprecated", "`self.x` is set")),
    ('if self.x:\n    text = "b"\ntext = "c"\nwarnings.warn(text, DeprecationWarning)', ("c", "")),
])
def test_the_message_a_local_holds_when_the_warning_is_given(body: str, expected) -> None:
    assert _body(body) == expected
