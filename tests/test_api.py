"""The upstream API model: what griffe gives, and the gaps we cover."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from upgrade_checklists.audit.api import Unresolved, UpstreamModel
from upgrade_checklists.audit.lazy_model import LazyModel


def tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return root


@pytest.fixture
def model(tmp_path: Path) -> UpstreamModel:
    tree(tmp_path / "src", {
        "lib/__init__.py": "from lib.core import Engine as PublicEngine\nfrom external_pkg import Thing\n",
        "lib/core.py": """
            import attr

            class Engine:
                def __init__(self, path, *, fast=False): ...
                def run(self, steps: int = 1) -> "Engine": ...
                @staticmethod
                def version(): ...

            class Turbo(Engine):
                pass

            @attr.s
            class Record:
                name = attr.ib()
            """,
        "lib/peft/lora.py": "class LoRA:\n    def __call__(self, model, training=True): ...\n",
        "lib/ops/fused.py": "def add(x, y): ...\n",  # ops/ has no __init__.py
    })
    return UpstreamModel([tmp_path / "src"], ["lib"])


def names(api) -> list[str]:
    return [p.name for p in api.signature.params]


def test_re_exports_inheritance_and_self(model: UpstreamModel) -> None:
    engine = model.lookup("lib.PublicEngine")
    assert (engine.path, engine.kind, names(engine)) == ("lib.core.Engine", "class", ["path", "fast"])
    assert [p.kind for p in engine.signature.params] == ["positional or keyword", "keyword-only"]
    run = model.lookup("lib.core.Turbo.run")  # inherited
    assert (run.path, names(run), run.signature.returns) == ("lib.core.Engine.run", ["steps"], "lib.core.Engine")  # the class, not the text
    assert names(model.lookup("lib.core.Turbo")) == ["path", "fast"]
    assert names(model.lookup("lib.core.Engine.version")) == []  # staticmethod: nothing stripped, nothing there


def test_folder_without_init_is_loaded(model: UpstreamModel) -> None:
    assert names(model.lookup("lib.ops.fused.add")) == ["x", "y"]


def test_relative_headings(model: UpstreamModel) -> None:
    assert model.resolve_heading("LoRA.__call__", "lib/peft/lora.py", ["lib"]).path == "lib.peft.lora.LoRA.__call__"
    # without a Source: line, a unique class of that name
    assert model.resolve_heading("`LoRA.__call__`", None, ["lib"]).path == "lib.peft.lora.LoRA.__call__"
    assert model.resolve_heading("core.Engine.run()", None, ["lib"]).path == "lib.core.Engine.run"


def test_unresolved_has_a_reason_and_is_not_removed(model: UpstreamModel) -> None:
    with pytest.raises(Unresolved, match=r"`POST /generate` is not a Python API name"):
        model.resolve_heading("POST /generate", None, ["lib"])
    with pytest.raises(Unresolved, match=r"^`lib.Thing` is an alias to `external_pkg.Thing` \(package `external_pkg`\), which is not in the loaded source \(AliasResolutionError\)$"):
        model.lookup("lib.Thing")
    with pytest.raises(Unresolved, match=r"`lib.core.Nope` not found in the upstream source"):
        model.resolve_heading("lib.core.Nope", None, ["lib"])


def test_attrs_class_signature_is_unknown_not_empty(model: UpstreamModel) -> None:
    assert model.lookup("lib.core.Record").signature is None


def test_returned_class(model: UpstreamModel) -> None:
    run = model.lookup("lib.core.Engine.run")
    assert model.returned_class(run).path == "lib.core.Engine"


def test_family_members_sharing_a_namespace_load_it_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import griffe

    core = tree(tmp_path / "core", {
        "ns/core/__init__.py": "from ns.core.base import Base\n",
        "ns/core/base.py": "class Base:\n    def step(self, lr=0.1): ...\n",
    })
    bridge = tree(tmp_path / "bridge", {
        "ns/bridge/__init__.py": "from ns.core import Base\n\nclass Bridge(Base):\n    def save(self, path): ...\n",
    })
    loads: list[str] = []
    real_load = griffe.GriffeLoader.load

    def counting(self, objspec, /, **kwargs):
        loads.append(objspec)
        return real_load(self, objspec, **kwargs)

    monkeypatch.setattr(griffe.GriffeLoader, "load", counting)
    model = UpstreamModel([core, bridge], ["ns.core", "ns.bridge", "ns.absent"])
    # `ns.core` loads all of `ns` (both trees); `ns.bridge` is in it; `ns.absent` is not, so it is tried (and missing)
    assert loads == ["ns.core", "ns.absent"]
    assert model.missing == ["ns.absent (KeyError)"]
    step = model.lookup("ns.bridge.Bridge.step")  # inherited across the two trees
    assert (step.path, names(step)) == ("ns.core.base.Base.step", ["lr"])
    assert model.lookup("ns.bridge.Base").path == "ns.core.base.Base"


def test_what_griffe_cannot_read_in_upstream_stays_off_the_terminal(tmp_path: Path, caplog) -> None:
    # an annotation in a function that shadows a failed optional import: griffe logs an *error* resolving it
    # (seen in torch's ``_logging/scribe.py``); the audit's findings say what it could not bind, griffe's log does not
    src = tree(tmp_path / "src", {"lib/__init__.py": """
        from collections.abc import Callable
        try:
            from optional_pkg import make
        except ImportError:
            def make(name: str) -> Callable[..., None]:
                return print
        """})
    caplog.set_level("DEBUG")
    for model in (UpstreamModel([src], ["lib"]), LazyModel([src], ["lib"])):
        assert names(model.lookup("lib.make")) == ["name"]
    assert [r.getMessage() for r in caplog.records if r.name.startswith("griffe")] == []


@pytest.mark.parametrize("model_class", [UpstreamModel, LazyModel])
def test_a_folder_of_the_working_directory_is_never_read_as_upstream(tmp_path: Path, monkeypatch, model_class) -> None:
    # upstream's `lib/tests/` has no __init__.py (a namespace folder the models graft); the audit runs in the project,
    # whose own `tests/` griffe found first by a path relative to the working directory, and read as upstream's
    src = tree(tmp_path / "src", {"lib/__init__.py": "", "lib/tests/helpers.py": "def upstream_fn():\n    pass\n",
                                  "lib/core.py": "X = 1\n"})
    project = tree(tmp_path / "project", {"tests/helpers.py": "def project_fn():\n    pass\n", "lib/core.py": "Y = 2\n"})
    monkeypatch.chdir(project)
    model = model_class([src], ["lib"])
    assert names(model.lookup("lib.tests.helpers.upstream_fn")) == []
    assert model.lookup("lib.tests.helpers.project_fn") is None
    assert model.lookup("lib.core.X") is not None and model.lookup("lib.core.Y") is None
    assert all(str(project) not in str(p) for p in model.collection["lib"].members["tests"].filepath)
