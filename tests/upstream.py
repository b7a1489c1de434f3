"""Fixture "upstream" projects for the audit: two packages sharing the ``fakepkg``
namespace, each a local git repository with tagged versions (and sdists and
wheels written by hand from them for the index source: nothing is built). Every audit finding code has a cause here."""

from __future__ import annotations

import io
import subprocess
import tarfile
import textwrap
import zipfile
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from conftest import git

CORE_V1 = {
    "fakepkg/core/__init__.py": '''
        from fakepkg.core.distributed import DistributedDataParallel
        from fakepkg.core.config import TransformerConfig

        __version__ = "1.0.0"
        ''',
    "fakepkg/core/parallel_state.py": '''
        def initialize_model_parallel(tensor_model_parallel_size=1, pipeline_model_parallel_size=1, virtual_size=None):
            """Set up."""


        def get_rank() -> int:
            return 0


        def get_old_group():
            return None
        ''',
    "fakepkg/core/distributed.py": '''
        class DistributedDataParallel:
            def __init__(self, model, config=None, bucket_size=None):
                self.model = model

            def no_sync(self):
                return None
        ''',
    "fakepkg/core/config.py": '''
        from dataclasses import dataclass


        @dataclass
        class TransformerConfig:
            num_layers: int
            hidden_size: int
            dropout: float = 0.1
        ''',
    "fakepkg/core/optim.py": '''
        def get_optimizer(config, model, lr=1e-3, **kwargs):
            return None
        ''',
    "fakepkg/core/utils/__init__.py": '''
        from fakepkg.core.utils.helpers import helper
        ''',
    "fakepkg/core/utils/helpers.py": '''
        def helper(x):
            return x
        ''',
    "fakepkg/core/bridge.py": '''
        class AutoBridge:
            @classmethod
            def from_hf_pretrained(cls, path, trust_remote_code=False, dtype=None) -> "AutoBridge":
                return cls()

            def save_hf_pretrained(self, model, path, source_path=None) -> None:
                return None
        ''',
    # a folder without __init__.py (an implicit namespace subpackage)
    "fakepkg/core/kernels/fused.py": '''
        def fused_add(x, y, inplace=False):
            return x + y
        ''',
}

CORE_V2 = {
    **CORE_V1,
    "fakepkg/core/__init__.py": CORE_V1["fakepkg/core/__init__.py"].replace("1.0.0", "2.0.0"),
    "fakepkg/core/parallel_state.py": '''
        def initialize_model_parallel(tp_size=1, pipeline_model_parallel_size=1, *, context_size=1):
            """Set up."""


        def get_rank() -> str:
            return "0"
        ''',
    "fakepkg/core/distributed.py": '''
        class DistributedDataParallel:
            def __init__(self, config, model, bucket_size=None, *, ddp_config):
                self.model = model

            def no_sync(self, enabled):
                return None
        ''',
    "fakepkg/core/config.py": '''
        from dataclasses import dataclass


        @dataclass
        class TransformerConfig:
            num_layers: int
            hidden_dim: int
            dropout: float = 0.1
        ''',
    "fakepkg/core/optim.py": '''
        def get_optimizer(config, model, **kwargs):
            return None
        ''',
    "fakepkg/core/utils/__init__.py": None,
    "fakepkg/core/utils/helpers.py": None,
    "fakepkg/core/tools/__init__.py": '''
        from fakepkg.core.tools.helpers import helper
        ''',
    "fakepkg/core/tools/helpers.py": '''
        def helper(x):
            return x
        ''',
    "fakepkg/core/bridge.py": '''
        class AutoBridge:
            @classmethod
            def from_hf_pretrained(cls, path, trust_remote_code=False, dtype=None) -> "AutoBridge":
                return cls()

            def save_hf_pretrained(self, model, path) -> None:
                return None

            def save_hf_adapter(self, model, path, peft_config, base_model_name_or_path=None):
                return None
        ''',
    "fakepkg/core/kernels/fused.py": '''
        def fused_add(x, y, *, inplace=False):
            return x + y
        ''',
}

BRIDGE_V1 = {
    "fakepkg/bridge/__init__.py": '''
        from fakepkg.bridge.cfg import BridgeConfig
        ''',
    # a subclass inheriting its fields from the other package
    "fakepkg/bridge/cfg.py": '''
        from dataclasses import dataclass

        from fakepkg.core import TransformerConfig


        @dataclass
        class BridgeConfig(TransformerConfig):
            lora_rank: int = 8
        ''',
}


def _pyproject(name: str, version: str) -> str:
    return textwrap.dedent(f'''
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "{name}"
        version = "{version}"

        [tool.setuptools.packages.find]
        include = ["fakepkg*"]
        namespaces = true
        ''')


def make_repo(path: Path, name: str, versions: list[tuple[str, dict]]) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    for version, files in versions:
        for rel, text in files.items():
            p = path / rel
            if text is None:
                if p.exists():
                    p.unlink()
                continue
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(textwrap.dedent(text).lstrip("\n"))
        (path / "pyproject.toml").write_text(_pyproject(name, version))
        git(path, "add", "-A")
        git(path, "commit", "-qm", f"release {version}")
        git(path, "tag", f"v{version}")
    return path


def make_upstreams(base: Path) -> Path:
    """``base/example/fakepkg-core`` (v1.0.0, v2.0.0) and ``base/example/fakepkg-bridge`` (v1.0.0)."""
    make_repo(base / "example" / "fakepkg-core", "fakepkg-core", [("1.0.0", CORE_V1), ("2.0.0", CORE_V2)])
    make_repo(base / "example" / "fakepkg-bridge", "fakepkg-bridge", [("1.0.0", BRIDGE_V1)])
    return base


def _tree(repo: Path, tag: str) -> dict[str, bytes]:
    """The files of ``repo`` at ``tag``, read with ``git archive`` (nothing is built)."""
    data = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", tag], check=True, capture_output=True).stdout
    out = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        for m in t.getmembers():
            if m.isfile():
                out[m.name] = t.extractfile(m).read()
    return out


def _add(t: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    t.addfile(info, io.BytesIO(data))


def make_sdist(repo: Path, tag: str, dist: Path, extra: dict[str, str] | None = None) -> Path:
    """An sdist archive of ``repo`` at ``tag`` (``name-version/`` inside), written by hand."""
    files = _tree(repo, tag)
    name = tomllib.loads(files["pyproject.toml"].decode())["project"]["name"].replace("-", "_")
    version = tag.removeprefix("v")
    dist.mkdir(parents=True, exist_ok=True)
    path = dist / f"{name}-{version}.tar.gz"
    with tarfile.open(path, "w:gz") as t:
        for rel, data in sorted(files.items()):
            _add(t, f"{name}-{version}/{rel}", data)
        _add(t, f"{name}-{version}/PKG-INFO", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode())
        for rel, text in (extra or {}).items():
            _add(t, f"{name}-{version}/{rel}", textwrap.dedent(text).lstrip("\n").encode())
    return path


def make_wheel(repo: Path, tag: str, dist: Path, extra: dict[str, str] | None = None) -> Path:
    """A pure-Python wheel of ``repo`` at ``tag`` (the package files plus a dist-info), written by hand."""
    files = {k: v for k, v in _tree(repo, tag).items() if k.startswith("fakepkg/")}
    project = tomllib.loads(_tree(repo, tag)["pyproject.toml"].decode())["project"]["name"]
    name, version = project.replace("-", "_"), tag.removeprefix("v")
    info = f"{name}-{version}.dist-info"
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {project}\nVersion: {version}\n".encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    for rel, text in (extra or {}).items():
        files[rel] = textwrap.dedent(text).lstrip("\n").encode()
    record = "".join(f"{rel},,\n" for rel in sorted(files)) + f"{info}/RECORD,,\n"
    files[f"{info}/RECORD"] = record.encode()
    dist.mkdir(parents=True, exist_ok=True)
    path = dist / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for rel, data in sorted(files.items()):
            z.writestr(rel, data)
    return path


def build_dists(upstreams: Path, dist: Path) -> Path:
    """fakepkg-core 1.0.0 and 2.0.0 as sdists only (no wheel: the no-build sdist path), and
    fakepkg-bridge 1.0.0 as a wheel only (pip's path)."""
    core, bridge = upstreams / "example" / "fakepkg-core", upstreams / "example" / "fakepkg-bridge"
    make_sdist(core, "v1.0.0", dist)
    make_sdist(core, "v2.0.0", dist)
    make_wheel(bridge, "v1.0.0", dist)
    return dist


# --- a project audited against one local upstream (the audit tests' common fixture) -----


def tagged_upstream(base: Path, name: str, versions: list[tuple[str, dict]]) -> Path:
    """``name``'s releases as a local git repository at ``base/example/<name>``, one tag each;
    ``base`` is what a project's ``git_url = "file://<base>/{github}"`` names."""
    make_repo(base / "example" / name, name, versions)
    return base


def project_pyproject(package: str, upstreams: Path, version: str, roots: tuple[str, ...] = ("app",),
                      primary: str | None = "app/") -> str:
    """A project pinning ``package==version``, its upstream fetched from ``upstreams``."""
    tiers = f'\n[tool.upgrade-checklists.tiers]\nprimary = ["{primary}"]\n' if primary else ""
    return (f'[project]\nname = "app"\nversion = "0"\ndependencies = ["{package}=={version}"]\n\n'
            f'[tool.upgrade-checklists]\nroots = [{", ".join(f"{r!r}" for r in roots)}]\n'
            f'git_url = "file://{upstreams}/{{github}}"\n' + tiers).replace("'", '"')


def audited_project(path: Path, capsys, files: dict[str, str]):
    """A git repository at ``path`` holding ``files`` (and a .gitignore for the summary),
    committed; its audit cache beside it (``Repo.cache``)."""
    from conftest import Repo

    r = Repo(path, capsys)
    r.path.mkdir()
    git(r.path, "init", "-q", "-b", "main")
    for rel, text in {**files, ".gitignore": "upgrade-summary.md\n"}.items():
        r.write(rel, text)
    r.commit("initial")
    r.cache = path.parent / "cache"
    return r


def app_findings(run) -> list[tuple[str, str, str]]:
    """``(file:line, code, message)`` of each finding about a file under ``app/`` of an audit's
    text output, sorted; the message without the checklist line it is anchored to."""
    out = []
    for line in run.lines:
        if not line.startswith("app/"):
            continue
        where, rest = line.split(": ", 1)
        code, msg = rest.split(" ", 1)
        out.append((where.rsplit(":", 1)[0], code, msg.rsplit(" (checklists/", 1)[0]))
    return sorted(out)


def upgrade_audit(path: Path, capsys, package: str, upstreams: Path, files: dict[str, str], old: str = "1.0.0",
                  new: str = "2.0.0", *argv: str):
    """The audit of a fixture project (``files``, committed pinning ``package==old``) whose pin now says
    ``new``, uncommitted: the upgrade a user is about to make. ``argv``: more audit options."""
    project = audited_project(path, capsys, {**files, "pyproject.toml": project_pyproject(package, upstreams, old)})
    project.write("pyproject.toml", project_pyproject(package, upstreams, new))
    return project.run("audit", "--cache-dir", str(project.cache), "-v", *argv)


def fixture_checklist(package: str, upstream_path: str, import_names: list[str], rows: dict[str, str]) -> str:
    """A checklist of ``package`` (upstream ``example/<package>``, tags ``v<version>``) whose Primary table
    lists ``rows`` (file -> its Imports / Usage cell); the other tables empty."""
    names = "".join(f"  - {n}\n" for n in import_names)
    table = "".join(f"| `{f}` | {cell} |\n" for f, cell in rows.items())
    return (f"---\npackage: {package}\ngithub: example/{package}\nbranch_template: v${{VERSION}}\n"
            f"upstream_paths:\n  - {upstream_path}\nimport_names:\n{names}---\n\n"
            "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
            f"{table}\n### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
            "## Version-Guarded Code\n\n_None._\n")
