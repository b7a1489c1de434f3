"""Patches: a function assigned in place of an upstream method (``Cls.m = f``).

The fixture upstream ``fakepkg-layer`` has two tagged releases. Between them:

- ``Keyed.forward`` renames ``past`` to ``cache``; its one upstream caller (``Keyed.step``)
  passes everything after the first argument by keyword;
- ``Positional.forward`` gains ``cache`` before ``pos``, and ``Positional.step`` passes its
  arguments by position (at both releases);
- ``Plain.forward`` renames it too, and nothing upstream calls it;
- ``Moved.forward`` gains ``mask`` before ``pos``, so ``pos`` moves; nothing upstream calls it.

The project's patches all take ``(self, hidden, mask, pos, **kwargs)`` (or ``(self, hidden,
pos, **kwargs)``): an order that already differed from ``Keyed`` and ``Plain`` at the old
release, and was ``Positional``'s."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Repo
from upstream import audited_project, project_pyproject, tagged_upstream
from upgrade_checklists.audit.bind import differences

LAYER_V1 = {
    "fakepkg/layer/__init__.py": "from fakepkg.layer.mods import Keyed, Moved, Plain, Positional\n",
    "fakepkg/layer/mods.py": '''
        class Keyed:
            def forward(self, hidden, mask=None, past=None, pos=None, **kwargs):
                return hidden

            def step(self, hidden, pos):
                return self.forward(hidden, mask=None, pos=pos)


        class Positional:
            def forward(self, hidden, mask=None, pos=None, **kwargs):
                return hidden

            def step(self, hidden, pos):
                return self.forward(hidden, None, pos)


        class Plain:
            def forward(self, hidden, mask=None, past=None, pos=None, **kwargs):
                return hidden


        class Moved:
            def forward(self, hidden, pos=None, **kwargs):
                return hidden
        ''',
}

LAYER_V2 = {
    **LAYER_V1,
    "fakepkg/layer/mods.py": '''
        class Keyed:
            def forward(self, hidden, mask=None, cache=None, pos=None, **kwargs):
                return hidden

            def step(self, hidden, pos):
                return self.forward(hidden, mask=None, pos=pos)


        class Positional:
            def forward(self, hidden, mask=None, cache=None, pos=None, **kwargs):
                return hidden

            def step(self, hidden, pos):
                return self.forward(hidden, None, None, pos)


        class Plain:
            def forward(self, hidden, mask=None, cache=None, pos=None, **kwargs):
                return hidden


        class Moved:
            def forward(self, hidden, mask=None, pos=None, **kwargs):
                return hidden
        ''',
}

PATCH_PY = '''\
from fakepkg.layer import Keyed, Moved, Plain, Positional


def fast_forward(self, hidden, mask=None, pos=None, **kwargs):
    return hidden


def short_forward(self, hidden, pos=None, **kwargs):
    return hidden


Keyed.forward = fast_forward
Positional.forward = fast_forward
Plain.forward = fast_forward
Moved.forward = short_forward
'''

CHECKLIST = (
    "---\npackage: fakepkg-layer\ngithub: example/fakepkg-layer\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/layer/\nimport_names:\n  - fakepkg.layer\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/patch.py` | `Keyed` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


def pyproject(upstreams: Path, version: str) -> str:
    return project_pyproject("fakepkg-layer", upstreams, version)


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("layer-upstream"), "fakepkg-layer", [("1.0.0", LAYER_V1), ("2.0.0", LAYER_V2)])


@pytest.fixture
def project(tmp_path: Path, capsys, upstreams: Path) -> Repo:
    return audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/patch.py": PATCH_PY, "checklists/fakepkg-layer.md": CHECKLIST,
        "pyproject.toml": pyproject(upstreams, "1.0.0")})


def patch_findings(run) -> dict[str, list[str]]:
    """The patched class -> its PATCH_MISMATCH lines (severity and message, no checklist reference)."""
    out: dict[str, list[str]] = {}
    for line in run.lines:
        if ": PATCH_MISMATCH " in line:
            msg = line.split(": PATCH_MISMATCH ", 1)[1].rsplit(" (checklists/", 1)[0]
            cls = msg.split("fakepkg.layer.mods.", 1)[1].split(".", 1)[0]
            out.setdefault(cls, []).append(msg)
    return out


def test_an_order_difference_upstream_never_meets_is_no_break(project: Repo, upstreams: Path) -> None:
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    got = patch_findings(r)
    # Keyed.step passes mask and pos by keyword: the patch takes them wherever they sit
    assert got["Keyed"] == [
        "[info] `fakepkg.layer.mods.Keyed.forward(self, hidden, mask, cache, pos, **kwargs)` at 2.0.0 differs from the patch "
        "`fast_forward(self, hidden, mask, pos, **kwargs)` (line 4) assigned in its place: parameter 4 is `cache` upstream, "
        "`pos` in the patch (order differs); upstream's own calls of it bind to the patch "
        "(`Keyed.step` (fakepkg/layer/mods.py:6)): not a break"]
    # Positional.step passes pos by position: at 2.0.0 its third argument is `cache`, the patch's `pos`: a break
    assert got["Positional"] == [
        "`fakepkg.layer.mods.Positional.forward(self, hidden, mask, cache, pos, **kwargs)` at 2.0.0 differs from the patch "
        "`fast_forward(self, hidden, mask, pos, **kwargs)` (line 4) assigned in its place: parameter 4 is `cache` upstream, "
        "`pos` in the patch (order differs); upstream `Positional.step` (fakepkg/layer/mods.py:14) calls "
        "`self.forward(…, …, …, …)` at 2.0.0, which the patch cannot take: 4 positional argument(s), the patch takes 3; "
        "its argument 3 is `cache` upstream, which the patch takes as `pos`"]
    assert r.code == 1


def test_a_difference_the_old_release_had_stays_a_warning_unless_its_parameters_change(project: Repo, upstreams: Path) -> None:
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    got = patch_findings(r)
    # Plain: `past` renamed `cache`, a parameter the patch never had (its **kwargs takes either): pre-existing
    assert got["Plain"] == [
        "[warning] `fakepkg.layer.mods.Plain.forward(self, hidden, mask, cache, pos, **kwargs)` at 2.0.0 differs from the patch "
        "`fast_forward(self, hidden, mask, pos, **kwargs)` (line 4) assigned in its place: parameter 4 is `cache` upstream, "
        "`pos` in the patch (order differs) (so did the old version's: not a change of this upgrade)"]
    # Moved: `pos` was where the patch has it, and the new release moved it
    assert got["Moved"] == [
        "`fakepkg.layer.mods.Moved.forward(self, hidden, mask, pos, **kwargs)` at 2.0.0 differs from the patch "
        "`short_forward(self, hidden, pos, **kwargs)` (line 8) assigned in its place: parameter 3 is `mask` upstream, "
        "`pos` in the patch (order differs)"]
    assert r.code == 1


def test_the_differences_a_caller_can_meet() -> None:
    pk, kw, va = "positional or keyword", "variadic keyword", "variadic positional"
    mine = [("self", pk), ("hidden", pk), ("pos", pk), ("kwargs", kw)]
    # an upstream parameter the patch's **kwargs takes is no difference; its rename neither
    assert differences([("self", pk), ("hidden", pk), ("past", pk), ("pos", pk), ("kwargs", kw)], mine) == {
        ("pos", "order"), ("", "fewer positional")}
    assert differences([("self", pk), ("hidden", pk), ("cache", pk), ("pos", pk), ("kwargs", kw)], mine) == {
        ("pos", "order"), ("", "fewer positional")}
    assert differences([("self", pk), ("hidden", pk), ("pos", pk), ("kwargs", kw)], mine) == set()
    # without **kwargs in the patch the upstream parameter is one; so are *args and kinds
    assert differences([("self", pk), ("hidden", pk), ("pos", pk), ("mask", "keyword-only"), ("args", va)],
                       [("self", pk), ("hidden", pk), ("pos", "keyword-only")]) == {
        ("mask", "upstream only"), ("*args", "upstream only"), ("pos", "kind"), ("", "fewer positional")}
    assert differences([("self", pk)], [("self", pk), ("extra", pk)]) == {("extra", "patch only")}
