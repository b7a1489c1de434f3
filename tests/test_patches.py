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

import ast
import textwrap
from pathlib import Path

import pytest

from conftest import Repo
from upstream import audited_project, project_pyproject, tagged_upstream
from upgrade_checklists.audit.patches import differences

VISION_V1 = '''
    class Output:
        def __init__(self, hidden):
            self.hidden = hidden


    class Indexed(Output):
        def __getitem__(self, i):
            return self.hidden


    class Encoder:
        def forward(self, x) -> list:
            return [x]

        def embed(self, x) -> list:
            return [x]

        def pool(self, x) -> list:
            return [x]

        def blend(self, x) -> list:
            return [x]

        def probe(self, x) -> list:
            return [x]
    '''

VISION_V2 = '''
    class Output:
        def __init__(self, hidden):
            self.hidden = hidden


    class Indexed(Output):
        def __getitem__(self, i):
            return self.hidden


    class Encoder:
        def forward(self, x) -> Output:
            return Output(x)

        def embed(self, x) -> "tuple | Indexed":
            return Indexed(x)

        def pool(self, x) -> Output:
            return Output(x)

        def blend(self, x) -> Output:
            return Output(x)

        def probe(self, x) -> Output:
            return Output(x)
    '''

LAYER_V1 = {
    "fakepkg/layer/__init__.py": "from fakepkg.layer.mods import Keyed, Moved, Plain, Positional\n",
    "fakepkg/layer/vision.py": VISION_V1,
    "fakepkg/layer/funcs.py": "def scale(x, factor=1):\n    return x * factor\n",
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
    "fakepkg/layer/vision.py": VISION_V2,
    "fakepkg/layer/funcs.py": "def scale(x, factor=1, clip=None):\n    return x * factor\n",
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

WRAP_PY = '''\
import functools

from fakepkg.layer.vision import Encoder

original_forward = Encoder.forward


def first_forward(self, *args, **kwargs):
    out = original_forward(self, *args, **kwargs)
    return out[0]


def make_embed(original):
    @functools.wraps(original)
    def embed(self, x):
        return original(self, x)[0]
    return embed


def make_pool(original):
    def pool(self, x):
        res = original(self, x)
        log(res)
        return res.hidden
    return pool


def make_blend(original):
    def blend(self, x):
        return original(self, x)
    return blend


def make_probe(original):
    def probe(self, x):
        return original(self, x).logits
    return probe


def log(value):
    return value


Encoder.forward = first_forward
Encoder.embed = make_embed(Encoder.embed)
Encoder.pool = make_pool(Encoder.pool)
Encoder.blend = make_blend(Encoder.blend)
Encoder.probe = make_probe(Encoder.probe)
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
    # a parameter the patch requires where upstream has a default
    assert differences(mine, mine, frozenset({"self", "hidden", "pos"}), frozenset({"pos"})) == {("pos", "required")}
    # a patch taking anything the method takes meets no difference
    assert differences([("self", pk), ("hidden", pk), ("mask", "keyword-only")], [("self", pk), ("args", va), ("kwargs", kw)]) == set()


def test_a_wrapper_using_the_wrapped_methods_result_is_checked_against_the_new_return_type(project: Repo, upstreams: Path) -> None:
    project.write("app/wrap.py", WRAP_PY)
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    got = sorted(line.rsplit(" (checklists/", 1)[0] for line in r.lines if ": RETURN_CHANGED " in line)
    assert got == [
        # res.hidden is an attribute Output sets in __init__ (fine); res handed to a project function: not known
        "app/wrap.py:22:1: RETURN_CHANGED [info] `fakepkg.layer.vision.Encoder.pool`: returns `Output` (was `list`) at 2.0.0, "
        "and wrapper `pool` (line 21) uses its result at line 23, in a way not checked statically",
        # .logits: Output neither defines nor sets it
        "app/wrap.py:36:1: RETURN_CHANGED `fakepkg.layer.vision.Encoder.probe`: returns `Output` (was `list`) at 2.0.0, "
        "and wrapper `probe` (line 35) reads `….logits` at line 36, which `Output` does not support (no `logits`)",
        # out[0] on an Output, a class of the loaded source without __getitem__: breaks
        "app/wrap.py:9:1: RETURN_CHANGED `fakepkg.layer.vision.Encoder.forward`: returns `Output` (was `list`) at 2.0.0, "
        "and wrapper `first_forward` (line 8) indexes its result at line 10, which `Output` does not support (no `__getitem__`)",
    ]
    # embed: `tuple | Indexed`, both indexable; blend hands the result on as it is: nothing to say
    assert r.code == 1


def test_wrappers_and_what_they_do_with_the_result() -> None:
    from upgrade_checklists.project.uses import WRAPPED, find_uses

    uses = find_uses({"app/wrap.py": (WRAP_PY, ast.parse(WRAP_PY))}, ["fakepkg.layer"])
    got = sorted((u.file, u.line, u.member, u.via, u.results) for u in uses if u.kind == WRAPPED)
    assert got == [
        ("app/wrap.py", 9, "forward", "wrapper `first_forward`", ((10, "index", ""),)),
        ("app/wrap.py", 16, "embed", "wrapper `embed`", ((16, "index", ""),)),
        ("app/wrap.py", 22, "pool", "wrapper `pool`", ((23, "other", ""), (24, "attribute", "hidden"))),
        ("app/wrap.py", 30, "blend", "wrapper `blend`", ((30, "return", ""),)),
        ("app/wrap.py", 36, "probe", "wrapper `probe`", ((36, "attribute", "logits"),)),
    ]
    # a patch that does not call what it replaces, or calls a name it assigns itself, wraps nothing
    plain = ("from fakepkg.layer.vision import Encoder\norig = Encoder.forward\n\n\ndef f(self, x):\n"
             "    orig = print\n    return orig(x)[0]\n\n\nEncoder.forward = f\n")
    assert [u for u in find_uses({"a.py": (plain, ast.parse(plain))}, ["fakepkg.layer"]) if u.kind == WRAPPED] == []


def test_a_finding_is_anchored_to_one_checklist_line(project: Repo, upstreams: Path) -> None:
    """A module entry and an entry for a function of it, and a second entry naming the same
    function (a re-export spelling): the function's change is said once, at its first own entry."""
    project.write("app/use.py", "from fakepkg.layer import funcs\n\n\ndef run():\n    return funcs.scale(2)\n")
    head, tail = CHECKLIST.split("## API Usage Catalog\n\n_None._\n\n")
    entries = ("## API Usage Catalog\n\n"
               "### 1. `fakepkg.layer.funcs`\n\nUsed in `app/use.py`.\n\n**Check:** the module.\n\n"
               "### 2. `fakepkg.layer.funcs.scale`\n\nUsed in `app/use.py` (`run`).\n\n**Check:** its parameters.\n\n"
               "### 3. `fakepkg.layer.funcs.scale`\n\nUsed in `app/use.py` (`run`).\n\n**Check:** again.\n\n")
    project.write("checklists/fakepkg-layer.md", head.replace("| `app/patch.py` | `Keyed` |", "| `app/patch.py` | `Keyed` |\n"
                                                               "| `app/use.py` | `funcs` |") + entries + tail)
    text = (project.path / "checklists/fakepkg-layer.md").read_text()
    entry2 = text.splitlines().index("### 2. `fakepkg.layer.funcs.scale`") + 1
    project.write("pyproject.toml", pyproject(upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    said = [line for line in r.lines if "`clip=None`" in line]
    assert said == [f"app/use.py:5:1: NEW_OPTIONAL_PARAM [info] `fakepkg.layer.funcs.scale`: new optional parameter `clip=None` "
                    f"(checklists/fakepkg-layer.md:{entry2})"]


BLOCK_PY = '''\
from otherlib_core import layers as L


class Block(L.Dense):
    def call(self, x,
             training=False):
        return super().call(x) * 2

    def width(self):
        return self.kernel.size()
'''

PATCHES_PY = '''\
from otherlib_core.layers import Dense, Pool


def fast_call(self, x, training=False):
    return x


Dense.call = fast_call
Pool.call = fast_call
'''


def catalog_entries(text: str) -> dict[str, str]:
    """The catalog's entries: heading API -> the entry's text below the heading."""
    out = {}
    for part in text.split("\n### ")[1:]:
        number, _, rest = part.partition(". `")
        if number.isdigit():
            api, _, body = rest.partition("`\n\n")
            out[api] = body
    return out


def test_new_catalogs_the_methods_the_project_replaces(repo: Repo) -> None:
    repo.write("app/models/__init__.py", "")
    repo.write("app/models/block.py", BLOCK_PY)
    repo.write("app/patches.py", PATCHES_PY)
    assert repo.run("new", "otherlib-core", "--github", "acme/otherlib").code == 0
    text = repo.read("checklists/otherlib-core.md")
    entries = catalog_entries(text)
    # Block.call calls super().call: an override for certain; Dense.call is patched too: one entry, both sites
    assert entries["otherlib_core.layers.Dense.call"].startswith(
        "Used in `app/models/block.py` (`Block.call`):\n\n```python\ndef call(self, x,\n         training=False):\n```\n\n"
        "Also used in `app/patches.py`:\n\n```python\nDense.call = fast_call\n```\n\n")
    call = " ".join(entries["otherlib_core.layers.Dense.call"].split())
    assert ("**Check:** Overridden by `Block.call`, replaced by the patch `fast_call`: each takes what "
            "upstream's `call` takes (names, order, kinds) and every call upstream makes of it; what a "
            "wrapper does with the original's result still fits its return type.") in call
    assert "Used in `app/patches.py`:\n\n```python\nPool.call = fast_call\n```" in entries["otherlib_core.layers.Pool.call"]
    # width() may be the project's own (new reads no upstream): named in the base class's entry, not an entry
    assert "otherlib_core.layers.Dense.width" not in entries
    dense = " ".join(entries["otherlib_core.layers.Dense"].split())
    assert ("the methods they define override the base's where it has them (`call()`, `width()`): each takes what the "
            "base's takes and what upstream calls it with") in dense
    assert "the classes the base declares its attributes as still have what they call on them: `self.kernel.size()`" in dense
    assert repo.run("check").code == 0


def test_a_class_reached_through_a_loop_over_a_table_and_a_helpers_parameter() -> None:
    from upgrade_checklists.project.values import assignments_onto

    src = textwrap.dedent('''
        import importlib

        CLASSES = [
            ("pkg.one", "A"),
            ("pkg.two", "B"),
        ]


        def make(original):
            def wrapped(self, x):
                return original(self, x)
            return wrapped


        def _patch_one(cls, label):
            original = cls.forward
            cls.forward = make(original)


        def apply():
            for module_path, class_name in CLASSES:
                module = importlib.import_module(module_path)
                _patch_one(getattr(module, class_name), class_name)


        def elsewhere(cls):
            cls.run = make(cls.run)  # `elsewhere` is never called here: its class is not known
        ''')
    got = sorted((c, n, f) for c, n, f, _s in assignments_onto(ast.parse(src), {"importlib": "importlib"}))
    assert got == [("pkg.one.A", "forward", "<local>.make()"), ("pkg.two.B", "forward", "<local>.make()")]
    # a row that does not fit the loop's target is left out; a table assigned twice is not followed
    odd = src.replace('("pkg.two", "B"),', '"pkg.two",')
    assert sorted(c for c, _n, _f, _s in assignments_onto(ast.parse(odd), {"importlib": "importlib"})) == ["pkg.one.A"]
    twice = src.replace("CLASSES = [", "CLASSES = []\nCLASSES = [", 1)
    assert list(assignments_onto(ast.parse(twice), {"importlib": "importlib"})) == []


def test_new_catalogs_a_patch_in_a_project_without_subclasses(repo: Repo) -> None:
    repo.write("app/patches.py", PATCHES_PY.replace("Dense.call", "layer_cls.call").replace(
        "from otherlib_core.layers import Dense, Pool\n", "from otherlib_core.layers import Dense, Pool\n\nlayer_cls = Dense\n"))
    assert repo.run("new", "otherlib-core", "--github", "acme/otherlib").code == 0
    text = repo.read("checklists/otherlib-core.md")
    headings = [line for line in text.splitlines() if line.startswith("### ")]
    # `layer_cls.call = ...` reaches Dense through a name bound to it
    assert any(h.endswith("`otherlib_core.layers.Dense.call`") for h in headings)
    assert any(h.endswith("`otherlib_core.layers.Pool.call`") for h in headings)
    assert "```python\nlayer_cls.call = fast_call\n```" in text
    assert repo.run("check").code == 0


def test_functions_that_call_each_other_end_the_search_for_a_parameters_values() -> None:
    """A parameter's values are what the file's calls pass, and a caller's own choices (a name
    taken from a dict by a key not known statically) are evaluated for that: two functions
    calling each other, one with such a name, once recursed without end (``new`` and ``audit``
    crashed on a pytest plugin written this way)."""
    from upgrade_checklists.project.values import assignments_onto

    src = textwrap.dedent('''
        import pkg


        def hook(target):
            spread(target, "args")
            pkg.Thing.run = spread


        def spread(target, kind, seen=None):
            out = []
            for item in target.items:
                out += expand(item, target, kind, seen)
            target.items = out  # onto what the parameter holds: what the callers pass, followed


        def expand(item, target, kind, seen):
            for key in seen:
                value = getattr(item, kind)[key]
                spread(target, kind, seen | {key})
        ''')
    got = sorted((c, n, f) for c, n, f, _s in assignments_onto(ast.parse(src), {"pkg": "pkg"}))
    assert got == [("pkg.Thing", "run", "<local>.spread")]
