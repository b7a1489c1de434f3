"""Fixture repositories made in tmp_path with real git, and a way to call ``main``."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from upgrade_checklists.project import cache as _cache
from upgrade_checklists.cli import main

REPO_ROOT = Path(__file__).resolve().parent.parent

CHECKLIST = """\
---
package: fakepkg-core
github: example/fakepkg
branch_template: v${VERSION}
upstream_paths:
  - fakepkg/core/
---

## Affected Files

### Primary (engine layer — most likely to break)

| File                 | Imports / Usage                                        |
| -------------------- | ------------------------------------------------------ |
| `app/engine/core.py` | `parallel_state` (as `mpu`), `DistributedDataParallel` |

### Secondary (model / infra layer)

_None._

### Tertiary (tests, config)

| File                 | Imports / Usage                                          |
| -------------------- | -------------------------------------------------------- |
| `app/tools/names.py` | `"fakepkg-core"` in `PACKAGE_IMPORT_MAP` (metadata only) |
| `tests/test_core.py` | `dist_checkpointing.save`                                |

______________________________________________________________________

## API Usage Catalog

### 1. `fakepkg.core.parallel_state.initialize_model_parallel`

**Source:** `fakepkg/core/parallel_state.py`

Called in `app/engine/core.py` (line 9):

```python
mpu.initialize_model_parallel(tensor_model_parallel_size=2)
```

**Check:** `tensor_model_parallel_size` still accepted.

______________________________________________________________________

### 2. `fakepkg.core.distributed.DistributedDataParallel`

**Source:** `fakepkg/core/distributed.py`

Called in `app/engine/core.py` (lines 10-13):

```python
return DDP(
    model,
    config=None,
)
```

**Check:** `config` is still a keyword.

## Version-Guarded Code

- `app/engine/core.py:7` — `hasattr(mpu, "destroy")` guard; remove once upstream has it.
"""

FILES = {
    "app/__init__.py": "",
    "app/engine/__init__.py": "",
    "app/engine/core.py": '''\
"""Engine. `import fakepkg.core` in a docstring is not an import."""
from fakepkg.core import parallel_state as mpu
from fakepkg.core.distributed import DistributedDataParallel as DDP


def build(model):
    if hasattr(mpu, "destroy"):  # version guard
        mpu.destroy()
    mpu.initialize_model_parallel(tensor_model_parallel_size=2)
    return DDP(
        model,
        config=None,
    )
''',
    "app/tools/__init__.py": "",
    "app/tools/names.py": 'PACKAGE_IMPORT_MAP = {"fakepkg-core": "fakepkg.core"}\n',
    "app/utils/__init__.py": "",
    "app/utils/other.py": '''\
import os
import fakepkg_ext  # not fakepkg
# from fakepkg.core import nothing
TEXT = "import fakepkg.core"
''',
    "tests/test_core.py": '''\
def test_save():
    from fakepkg.core import dist_checkpointing
    dist_checkpointing.save({}, "/tmp/x")
''',
    "checklists/fakepkg-core.md": CHECKLIST,
    "pyproject.toml": '''\
[tool.upgrade-checklists]
roots = ["app", "tests"]

[tool.upgrade-checklists.tiers]
primary = ["app/engine/"]
secondary = ["app/"]
tertiary = ["tests/", "app/tools/"]
''',
}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


#: the summary lines of the text outputs (Run.lines keeps the findings only)
SUMMARY_STARTS = ("Found ", "All checks passed", "[*] ", "Not shown: ", "Rewrote ", "Warnings do not", "A warning does not",
                  "Needs a hand edit")


@dataclass
class Run:
    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return [line for line in self.out.splitlines() if not line.startswith(SUMMARY_STARTS)]

    @property
    def codes(self) -> list[str]:
        return sorted(line.split(": ", 1)[1].split()[0] for line in self.lines)

    def json(self) -> dict:
        return json.loads(self.out)


class Repo:
    def __init__(self, path: Path, capsys) -> None:
        self.path = path
        self._capsys = capsys

    def write(self, rel: str, text: str | bytes) -> Path:
        p = self.path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(textwrap.dedent(text) if text.startswith("\n") else text, encoding="utf-8")
        return p

    def read(self, rel: str) -> str:
        return (self.path / rel).read_text(encoding="utf-8")

    def edit(self, rel: str, old: str, new: str) -> None:
        text = self.read(rel)
        assert old in text, f"{old!r} not in {rel}"
        self.write(rel, text.replace(old, new, 1))

    def remove(self, rel: str) -> None:
        (self.path / rel).unlink()

    def commit(self, message: str = "change") -> None:
        git(self.path, "add", "-A")
        git(self.path, "commit", "-qm", message)

    def run(self, *argv: str) -> Run:
        """``main(argv)`` in the repository; ``check`` without an output format gets the
        one-line-per-finding ``concise`` form (the grouped text has its own tests)."""
        if argv[:1] == ("check",) and not any(a.startswith(("--format", "--output-format")) for a in argv):
            argv = (*argv, "--output-format", "concise")
        self._capsys.readouterr()
        old = os.getcwd()
        os.chdir(self.path)
        try:
            code = main(list(argv))
        finally:
            os.chdir(old)
        captured = self._capsys.readouterr()
        return Run(code, captured.out, captured.err)


def settle() -> None:
    """As if two seconds passed now: every file changed until now is out of the racy
    window of the caches (``cache.racy_since``), every file changed from now on is in it.
    (Setting a file's mtime back is not enough: its change time, which the racy rule
    reads too, is now.) The clock is the real one again after the test."""
    at = time.time_ns()
    _cache.clock = lambda: max(time.time_ns(), at + _cache.RACY_NS + 1)


@pytest.fixture(autouse=True)
def _real_clock():
    yield
    _cache.clock = time.time_ns


@pytest.fixture
def repo(tmp_path: Path, capsys) -> Repo:
    """A clean fixture repository (checked in with git) using fake package ``fakepkg-core``."""
    r = Repo(tmp_path / "repo", capsys)
    r.path.mkdir()
    git(r.path, "init", "-q", "-b", "main")
    for rel, text in FILES.items():
        r.write(rel, text)
    r.commit("initial")
    return r
