"""The checklist reader: the real-world variations of section 2 parse, and
malformed input becomes a one-line finding naming the file and line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CHECKLIST, Repo
from upgrade_checklists.core.checklist import read_checklist

VARIANTS = """\
---
package: megatron-core
github: NVIDIA/Megatron-LM
branch_template: core_r${VERSION}
upstream_paths:
  - megatron/core/parallel_state.py
---

## Affected Files

### Primary (engine layer — most likely to break)

| File | Imports / Usage |
|------|-----------------|
| `pkg/engine/a.py` | `parallel_state` (as `mpu`), `dist_checkpointing.save`, HTTP-only, `/generate`, `meta_info` |
| [`pkg/engine/b.py`](../pkg/engine/b.py) | layer specs via `get_gpt_layer_spec()` <!-- TODO: verify removal --> |

### Secondary

_None._

### Tertiary (tests, infra) — and other words

| File | Imports / Usage |
| --- | --- |
| `tests/t.py` | `"megatron-core"` in `PACKAGE_IMPORT_MAP` (metadata only) |

______

## API Usage Catalog

### 1. `megatron.core.parallel_state` getter functions

Called in `pkg/engine/a.py` (line 3):

```python
mpu.get_data_parallel_rank()
```

______

### 2. `LoRA.__call__`

**Source:** `megatron/bridge/peft/lora.py`

Called in `pkg/engine/a.py` (lines 10–12):

```python
x = 1
```

**Check:** still callable with `(model, training=True)`.

### 3. `POST /generate` — request payload

Called in `pkg/engine/a.py` (`Engine.generate`, lines 20–24):

```python
payload = {"meta_info": 1}
```

### 4. `megatron.core.tensor_parallel`

Called in `pkg/engine/a.py` (lines 30-31), and nowhere else.

## Version-Guarded Code

- `pkg/engine/lora.py:185` — `hasattr(AutoBridge, "save_hf_adapter")` guard; the
  monkey-patch is applied only when upstream lacks the method. Remove once the native
  signature matches entry 4.
- `pkg/engine/b.py` (line 7) — a version comparison.
"""


def parse(tmp_path: Path, text: str, name: str = "megatron-core.md"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return read_checklist(p, name)


def test_real_world_variations_parse(tmp_path: Path) -> None:
    cl = parse(tmp_path, VARIANTS)
    assert cl.problems == []
    assert cl.frontmatter["branch_template"] == "core_r${VERSION}"
    assert [(r.file, r.tier, r.line, r.marked_removal) for r in cl.rows] == [
        ("pkg/engine/a.py", "primary", 15, False),
        ("pkg/engine/b.py", "primary", 16, True),
        ("tests/t.py", "tertiary", 26, False),
    ]
    assert cl.rows[0].tokens == ["parallel_state", "mpu", "dist_checkpointing.save", "/generate", "meta_info"]
    assert cl.rows[2].tokens == ['"megatron-core"', "PACKAGE_IMPORT_MAP"]
    assert cl.tier_lines == {"primary": 11, "secondary": 18, "tertiary": 22}
    got = [(e.number, e.api, [(c.file, c.line, c.end_line, c.snippet) for c in e.call_sites], e.check) for e in cl.entries]
    assert got == [
        (1, "megatron.core.parallel_state", [("pkg/engine/a.py", 3, None, "mpu.get_data_parallel_rank()\n")], None),
        (2, "LoRA.__call__", [("pkg/engine/a.py", 10, 12, "x = 1\n")], "still callable with `(model, training=True)`."),
        (3, "POST /generate", [("pkg/engine/a.py", 20, 24, 'payload = {"meta_info": 1}\n')], None),
        (4, "megatron.core.tensor_parallel", [("pkg/engine/a.py", 30, 31, None)], None),
    ]
    assert cl.entries[1].source == "megatron/bridge/peft/lora.py"
    assert [(g.file, g.line, g.ref_line) for g in cl.guards] == [("pkg/engine/lora.py", 185, 68), ("pkg/engine/b.py", 7, 71)]


def test_mdformat_output_parses_the_same(tmp_path: Path) -> None:
    """A checklist after mdformat (gfm, tables, frontmatter, --wrap=88) reads the same."""
    p = tmp_path / "megatron-core.md"
    p.write_text(VARIANTS, encoding="utf-8")
    subprocess.run([sys.executable, "-m", "mdformat", "--wrap=88", str(p)], check=True)
    after = read_checklist(p, "megatron-core.md")
    assert after.problems == []
    assert [(r.file, r.tokens) for r in after.rows] == [
        ("pkg/engine/a.py", ["parallel_state", "mpu", "dist_checkpointing.save", "/generate", "meta_info"]),
        ("pkg/engine/b.py", ["get_gpt_layer_spec()"]),
        ("tests/t.py", ['"megatron-core"', "PACKAGE_IMPORT_MAP"]),
    ]
    assert [e.number for e in after.entries] == [1, 2, 3, 4]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("github: example/fakepkg\n", "github: [example\n",
         "checklists/fakepkg-core.md:4:1: FRONTMATTER frontmatter is not valid YAML: expected ',' or ']', but got ':'"),
        ("---\npackage: fakepkg-core\ngithub: example/fakepkg\nbranch_template: v${VERSION}\nupstream_paths:\n  - fakepkg/core/\n---",
         "---\n- fakepkg-core\n- example/fakepkg\n---", None),
        ("github: example/fakepkg", "github: ../../etc",
         "checklists/fakepkg-core.md:3:1: FRONTMATTER frontmatter 'github': '../../etc' is not of the form 'org/repo'"),
        ("github: example/fakepkg", "github: -oProxyCommand=x/y",
         "checklists/fakepkg-core.md:3:1: FRONTMATTER frontmatter 'github': '-oProxyCommand=x/y' is not of the form 'org/repo'"),
        ("branch_template: v${VERSION}", "branch_template: v${VERSION}; rm -rf ~",
         "checklists/fakepkg-core.md:4:1: FRONTMATTER frontmatter 'branch_template': 'v${VERSION}; rm -rf ~' has characters not allowed in a git ref"),
        ("branch_template: v${VERSION}", "branch_template: --upload-pack=x${VERSION}",
         "checklists/fakepkg-core.md:4:1: FRONTMATTER frontmatter 'branch_template': '--upload-pack=x${VERSION}' has characters not allowed in a git ref"),
        ("branch_template: v${VERSION}", "branch_template: v1.0",
         "checklists/fakepkg-core.md:4:1: FRONTMATTER frontmatter 'branch_template': 'v1.0' does not contain ${VERSION}"),
        ("  - fakepkg/core/", "  - ../secret",
         "checklists/fakepkg-core.md:5:1: FRONTMATTER frontmatter 'upstream_paths': '../secret' must be a relative path without '..' or a leading '-'"),
        ("  - fakepkg/core/", "  - /etc/passwd",
         "checklists/fakepkg-core.md:5:1: FRONTMATTER frontmatter 'upstream_paths': '/etc/passwd' must be a relative path without '..' or a leading '-'"),
        ("package: fakepkg-core", "package: other-pkg",
         "checklists/fakepkg-core.md:2:1: FRONTMATTER frontmatter 'package': 'other-pkg' does not match the file name 'fakepkg-core.md'"),
        ("github: example/fakepkg\n", "",
         "checklists/fakepkg-core.md:1:1: FRONTMATTER frontmatter key 'github' is missing or empty"),
        ("upstream_paths:\n", "import_names: [1]\nupstream_paths:\n",
         "checklists/fakepkg-core.md:5:1: FRONTMATTER frontmatter 'import_names': 1 is not a dotted module name (identifiers joined by dots)"),
        ("---\npackage", "<!-- generated -->\n---\npackage",
         "checklists/fakepkg-core.md:2:1: FRONTMATTER frontmatter is not at the start of the file: an HTML comment (or other text) before it; frontmatter must start at line 1"),
        ("upstream_paths:\n  - fakepkg/core/\n---\n", "upstream_paths:\n  - fakepkg/core/\n",
         "checklists/fakepkg-core.md:1:1: FRONTMATTER frontmatter opened at line 1 is never closed with '---'"),
    ],
)
def test_bad_frontmatter_is_one_line_finding(repo: Repo, old: str, new: str, expected: str | None) -> None:
    repo.edit("checklists/fakepkg-core.md", old, new)
    before = repo.read("checklists/fakepkg-core.md")
    r = repo.run("check")
    assert r.code == 1
    if expected is None:  # a YAML list, not a mapping
        expected = "checklists/fakepkg-core.md:2:1: FRONTMATTER frontmatter is not a mapping of keys to values"
    assert expected in r.lines
    assert all(line.count("\n") == 0 for line in r.lines)
    assert repo.read("checklists/fakepkg-core.md") == before  # nothing written


def test_formatter_mangled_frontmatter_names_the_cause(repo: Repo) -> None:
    """The real trigger: text before the frontmatter, then mdformat."""
    repo.edit("checklists/fakepkg-core.md", "---\npackage", "<!-- keep in sync -->\n\n---\npackage")
    subprocess.run([sys.executable, "-m", "mdformat", "--wrap=88", str(repo.path / "checklists/fakepkg-core.md")], check=True)
    text = repo.read("checklists/fakepkg-core.md")
    assert "______" in text.split("## Affected")[0]  # mdformat really mangled it
    r = repo.run("check")
    assert r.code == 1
    (line,) = [l for l in r.lines if "FRONTMATTER" in l]
    assert line.startswith("checklists/fakepkg-core.md:3:1: FRONTMATTER frontmatter is not at the start of the file: "
                           "a Markdown formatter turned the '---' fences into thematic breaks")


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("| File                 | Imports / Usage                                        |",
         "| Path | What |", "checklists/fakepkg-core.md:13:1: FORMAT tier table has columns ['Path', 'What']; expected | File | Imports / Usage |"),
        ("| -------------------- | ------------------------------------------------------ |\n", "",
         "checklists/fakepkg-core.md:13:1: FORMAT broken table: lines start with '|' but there is no '| --- |' delimiter row"),
        ("## API Usage Catalog", "## Catalogue of APIs",
         "checklists/fakepkg-core.md:1:1: FORMAT missing section '## API Usage Catalog'"),
        ("### Secondary (model / infra layer)", "### Secondry (model / infra layer)",
         "checklists/fakepkg-core.md:17:1: FORMAT unknown tier heading 'Secondry (model / infra layer)' (expected Primary, Secondary or Tertiary)"),
        ("### 2. `fakepkg", "### Two `fakepkg",
         "checklists/fakepkg-core.md:46:1: NUMBERING catalog heading 'Two `fakepkg.core.distributed.DistributedDataParallel`' is not numbered '### N.'"),
        ("- `app/engine/core.py:7` —", "- somewhere in the engine —",
         "checklists/fakepkg-core.md:63:1: GUARD version-guard item names no `path:line`"),
    ],
)
def test_broken_structure_is_one_line_finding(repo: Repo, old: str, new: str, expected: str) -> None:
    repo.edit("checklists/fakepkg-core.md", old, new)
    r = repo.run("check")
    assert r.code == 1
    assert expected in r.lines


def test_non_utf8_checklist(repo: Repo) -> None:
    raw = CHECKLIST.encode().replace(b"## Affected Files", b"## Affected Files \xff")
    repo.write("checklists/fakepkg-core.md", raw)
    r = repo.run("check")
    assert r.code == 1
    assert "checklists/fakepkg-core.md:9:1: FORMAT not valid UTF-8 (byte 0xff at offset 136)" in r.lines
    assert (repo.path / "checklists/fakepkg-core.md").read_bytes() == raw
