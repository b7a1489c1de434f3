"""A wrapper patched over an upstream method hands the wrapped method's result to the project's
own functions: where the result goes is followed (only the reads its assignment reaches), and a
parameter's annotation is the project's own statement of what it takes.

Fixture upstream ``fakepkg-vis``: ``Encoder.forward`` and ``Encoder.embed`` return ``list`` at
1.0.0; at 2.0.0 ``forward`` returns an ``Output`` (a ``dict`` subclass, as a model output that
derives from ``OrderedDict``) and ``embed`` a ``tuple | Output``."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from upstream import fixture_checklist, app_findings, tagged_upstream, upgrade_audit
from upgrade_checklists.core.reaching import reached_reads

V1 = {
    "fakepkg/vis/__init__.py": "from fakepkg.vis.encoder import Encoder\n",
    "fakepkg/vis/encoder.py": textwrap.dedent('''
        def passthrough(f):
            return f


        class Encoder:
            def forward(self, x) -> list:
                return [x]

            def embed(self, x) -> list:
                return [x]

            def encode(self, x) -> list:
                return [x]

            def pool(self, x) -> list:
                return [x]

            @passthrough
            def probe(self, x) -> list:
                return [x]

        '''),
}
V2 = {
    "fakepkg/vis/__init__.py": "from fakepkg.vis.encoder import Encoder, Output\n",
    "fakepkg/vis/encoder.py": textwrap.dedent('''
        def passthrough(f):
            return f


        class Output(dict):
            pass


        class Encoder:
            def forward(self, x) -> Output:
                return Output(hidden=x)

            def embed(self, x) -> "tuple | Output":
                return Output(hidden=x)

            def encode(self, x) -> Output:
                return Output(hidden=x)

            def pool(self, x) -> list:
                if not x:
                    return Output()
                return Output(hidden=x)

            @passthrough
            def probe(self, x) -> list:
                return Output(hidden=x)

        '''),
}

WRAPPER_PY = '''\
from typing import Any, Sequence

from fakepkg.vis import Encoder


def gather(values: list, group=None) -> list:
    return values


def unpack(values: "list | tuple"):
    return values[0] if isinstance(values, tuple) else None


def anything(values: Any):
    return values


def lengths(values: Sequence):
    return len(values)


def make_forward(original):
    def forward(self, x, **kwargs):
        if not x:
            out = []
        else:
            out = original(self, x, **kwargs)
        pair = unpack(out)
        if pair is not None:
            out = pair
        total = gather(out, group=None)
        anything(out)
        lengths(values=out)
        out = []
        gather(out)
        return total
    return forward


def make_embed(original):
    def embed(self, x):
        got = original(self, x)
        return gather(got) if got.shape else None
    return embed


def make_pool(original):
    def pool(self, x):
        return gather(original(self, x))
    return pool


def make_encode(original):
    def encode(self, x):
        out = original(self, x)
        if isinstance(out, dict):
            out = list(out.values())
        return gather(out)
    return encode


Encoder.forward = make_forward(Encoder.forward)
Encoder.embed = make_embed(Encoder.embed)
Encoder.pool = make_pool(Encoder.pool)
Encoder.probe = make_pool(Encoder.probe)
Encoder.encode = make_encode(Encoder.encode)
'''

CHECKLIST = fixture_checklist("fakepkg-vis", "fakepkg/vis/", ["fakepkg.vis"], {"app/wrap.py": "`Encoder`"})


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("vis-upstream"), "fakepkg-vis", [("1.0.0", V1), ("2.0.0", V2)])


def test_a_result_handed_to_an_annotated_project_parameter_is_checked_against_it(tmp_path: Path, capsys, upstreams: Path) -> None:
    r = upgrade_audit(tmp_path / "project", capsys, "fakepkg-vis", upstreams, {
        "app/__init__.py": "", "app/wrap.py": WRAPPER_PY, "checklists/fakepkg-vis.md": CHECKLIST})
    got = [f for f in app_findings(r) if f[1] == "RETURN_CHANGED" and f[0] != "app/wrap.py:49"]  # 49: the next test's
    # encode's wrapper tests the result's type (isinstance): it handles more than one kind; no claim
    assert [f[2].split(" at 2.0.0, ")[1] for f in got if "Encoder.encode" in f[2]] == [
        "and wrapper `encode` (line 54) uses its result at line 56, in a way not checked statically",
        "and wrapper `encode` (line 54) uses its result at line 58, in a way not checked statically"]
    assert all(f[2].startswith("[info] ") for f in got if "Encoder.encode" in f[2])
    got = [f for f in got if "Encoder.encode" not in f[2]]
    forward = "`fakepkg.vis.encoder.Encoder.forward`: returns `Output` (was `list`) at 2.0.0, and wrapper `forward` (line 23)"
    embed = "`fakepkg.vis.encoder.Encoder.embed`: returns `Output | tuple` (was `list`) at 2.0.0, and wrapper `embed` (line 41)"
    assert got == [
        # Any takes anything; a Sequence is an ABC (a class may be one without deriving from it): not known
        ("app/wrap.py:27", "RETURN_CHANGED", f"[info] {forward} passes its result to `lengths` at line 33, whose parameter "
                                             "`values` is annotated `Sequence`; whether the new type is one is not known statically"),
        # `out = pair` is conditional: the wrapped result still reaches `gather`; the later `out = []` hides it from line 35
        ("app/wrap.py:27", "RETURN_CHANGED", f"{forward} passes its result to `gather` at line 31, whose parameter `values` "
                                             "is annotated `list`: `Output` is not one"),
        # `list | tuple`: an Output is a dict, neither
        ("app/wrap.py:27", "RETURN_CHANGED", f"{forward} passes its result to `unpack` at line 28, whose parameter `values` "
                                             "is annotated `list | tuple`: `Output` is not one"),
        # an Output is a dict (this interpreter's own class says it has no `shape`); a tuple's attributes are not modelled
        ("app/wrap.py:42", "RETURN_CHANGED", f"{embed} passes its result to `gather` at line 43, whose parameter `values` "
                                             "is annotated `list`: `Output` is not one"),
        ("app/wrap.py:42", "RETURN_CHANGED", f"{embed} reads `….shape` at line 43, which `Output` does not support (no `shape`)"),
    ]
    assert r.code == 1


def test_an_annotation_left_behind_by_the_body_is_not_believed(tmp_path: Path, capsys, upstreams: Path) -> None:
    """``pool`` and ``probe`` are annotated ``-> list`` at both versions, but at 2.0.0 every ``return``
    of their bodies constructs an ``Output``; ``probe`` is decorated (the decorator could hand a call
    something else): a warning."""
    r = upgrade_audit(tmp_path / "project", capsys, "fakepkg-vis", upstreams, {
        "app/__init__.py": "", "app/wrap.py": WRAPPER_PY, "checklists/fakepkg-vis.md": CHECKLIST})
    got = [f[2] for f in app_findings(r) if f[1] == "RETURN_CHANGED" and f[0] == "app/wrap.py:49"]
    tail = ("and wrapper `pool` (line 48) passes its result to `gather` at line 49, whose parameter `values` is annotated `list`: "
            "`Output` is not one (annotated `list` at both versions, its body returns `Output` now")
    assert got == [
        f"[warning] `fakepkg.vis.encoder.Encoder.probe`: returns `Output` (was `list`) at 2.0.0, {tail}; decorated by "
        "`passthrough`, which may hand a call something else)",
        f"`fakepkg.vis.encoder.Encoder.pool`: returns `Output` (was `list`) at 2.0.0, {tail})",
    ]


def test_an_old_type_that_did_not_fit_either_is_not_news(tmp_path: Path, capsys, upstreams: Path) -> None:
    wrapper = WRAPPER_PY.replace("def gather(values: list,", "def gather(values: set,").replace(
        'def unpack(values: "list | tuple")', "def unpack(values: dict)")
    r = upgrade_audit(tmp_path / "project", capsys, "fakepkg-vis", upstreams, {
        "app/__init__.py": "", "app/wrap.py": wrapper, "checklists/fakepkg-vis.md": CHECKLIST})
    got = [f[2].split(" passes its result to ")[1].split(" at line")[0] for f in app_findings(r)
           if f[1] == "RETURN_CHANGED" and " passes its result to " in f[2]]
    # `set` took no list before either (nothing this upgrade changed); a dict parameter takes the new Output
    assert got == ["`lengths`"]


def _reached(code: str, line: int, name: str) -> list[int]:
    fn = ast.parse(textwrap.dedent(code)).body[0]
    assignment = next(n for n in ast.walk(fn) if isinstance(n, ast.Assign) and n.lineno == line)
    return sorted(n.lineno for n in reached_reads(fn, assignment, name))


def test_which_reads_an_assignment_reaches() -> None:
    code = '''
        def f(c):
            x = 1
            if c:
                x = 2
                use(x)
            else:
                use(x)
            use(x)
            x = 3
            use(x)
        '''
    assert _reached(code, 3, "x") == [8, 9]  # line 6 reads the `x = 2` above it; line 11 the `x = 3`
    assert _reached(code, 5, "x") == [6, 9]  # not the else branch
    loop = '''
        def f(items):
            x = None
            for i in items:
                use(x)
                x = i
            try:
                y = x
            except ValueError:
                use(y)
            finally:
                use(y)
            g = lambda: x
        '''
    assert _reached(loop, 6, "x") == [5, 8]  # the next iteration reads it; the lambda runs at another time
    assert _reached(loop, 8, "y") == [10, 12]
    assert _reached("def f():\n    x = x + 1\n", 2, "x") == []  # its own value is read before it is stored


class _Classes:
    """A model that knows only class hierarchies (``ancestors``, as ``api.UpstreamModel`` gives them)."""

    def __init__(self, classes: dict[str, list[str]]) -> None:
        self.classes = classes

    def ancestors(self, path: str) -> list[str]:
        return self.classes.get(path, [])


def test_assignable_answers_only_what_the_hierarchies_tell() -> None:
    from upgrade_checklists.audit.assignable import assignable

    model = _Classes({
        "pkg.Out": ["pkg.Out", "pkg.Base", "?collections.OrderedDict"],
        "pkg.Base": ["pkg.Base", "?collections.OrderedDict"],
        "dep.Tensor": ["dep.Tensor", "dep._C.TensorBase"],
        "pkg.Shaped": ["pkg.Shaped", "?typing.Protocol"],
        "pkg.Remote": ["pkg.Remote", "?otherdist.Base"],
    })
    assert assignable(model, "pkg.Out", ["dep.Tensor"]) is False  # both hierarchies known, no common class
    assert assignable(model, "pkg.Out", ["dep.Tensor", "tuple"]) is False
    assert assignable(model, "pkg.Out", ["pkg.Base"]) is True
    assert assignable(model, "pkg.Out", ["dict"]) is True  # OrderedDict derives from dict (this interpreter's own classes)
    assert assignable(model, "pkg.Out", ["typing.Any"]) is True
    assert assignable(model, "pkg.Out", ["pkg.Shaped"]) is None  # a Protocol: structural
    assert assignable(model, "pkg.Out", ["typing.Sequence"]) is None  # an ABC no model holds
    assert assignable(model, "pkg.Out", ["pkg.Alias"]) is None  # a name no model knows as a class
    assert assignable(model, "pkg.Remote", ["dep.Tensor"]) is None  # a base not followed could derive from anything
    assert assignable(model, "int", ["float"]) is True  # the numeric tower
    assert assignable(model, "bool", ["int"]) is True
    assert assignable(model, "list[int]", ["tuple"]) is False
