"""upgrade-summary.md in the upgrade skill's Step 8 shape, section by section, and as
mdformat (--wrap=88, gfm, tables) writes it."""

from __future__ import annotations

import datetime
import re
import subprocess
import sys
from pathlib import Path

from upgrade_checklists.audit.pipeline import AuditResult
from upgrade_checklists.core.checklist import read_checklist
from upgrade_checklists.core.findings import Finding
from upgrade_checklists.audit.summary import render, verdicts
from upgrade_checklists.audit.targets import Target

CL = """---
package: libx
github: org/libx
branch_template: v${VERSION}
---

## Affected Files

### Primary

| File | Imports / Usage |
| --- | --- |
| `app/engine/z.py` | `run` |

### Secondary

_None._

### Tertiary

_None._

## API Usage Catalog

### 1. `libx.run`

Called in `app/engine/z.py` (line 3).

### 2. `libx.old`

Called nowhere.

### 3. `libx.grow`

Called in `app/engine/z.py` (line 4).

### 4. `GET /health`

An HTTP surface.

## Version-Guarded Code

_None._
"""

# The Step 8 template of the upgrade skill, its headings and labels in order (by hand)
STEP8 = [
    "## Dependency Upgrade Summary",
    "**Date:**",
    "**Requested:**",
    "### Version Changes",
    "| Package | Old Version | New Version | Variant(s) |",
    "### Dependency Resolution",
    "### Dockerfile Changes",
    "### API Compatibility Audit",
    "#### libx (1.0 → 2.0) @ default, vllm",
    "**Breaking changes found:**",
    "**Module moves / renames:**",
    "**Version-guarded code:**",
    "### Unresolved Issues",
]
LABELS = re.compile(r"^(#{2,4} .*|\*\*[A-Z][^*]*:\*\*|\| Package .*)$")


def skeleton(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        line = re.sub(r"\s+\|", " |", line)  # table padding
        m = re.match(r"^(\*\*[A-Z][^*]*:\*\*)", line)
        if m:
            out.append(m.group(1))
        elif LABELS.match(line):
            out.append(line)
    return out


def checklist(tmp_path: Path):
    p = tmp_path / "libx.md"
    p.write_text(CL, encoding="utf-8")
    return read_checklist(p, "checklists/libx.md")


def finding(code: str, file: str | None, line: int | None, entry_line: int, severity: str, message: str, fix=None) -> Finding:
    return Finding("checklists/libx.md", entry_line, code, message, file, line, "libx", fix, severity=severity, at_source=True)


def sample(tmp_path: Path) -> AuditResult:
    cl = checklist(tmp_path)
    lines = {e.number: e.line for e in cl.entries}
    t = Target("libx", cl, "1.0", "2.0", "moved in uv.lock since HEAD", source="libx-2.0-py3-none-any.whl",
               resolved=3, bound=2, variants=["default", "vllm"], entry_bound={1: 1, 3: 1})
    t.findings = [
        finding("REMOVED_PARAM", "tests/test_z.py", 7, lines[1], "error", "`libx.run`: keyword `a` was removed"),
        finding("REMOVED_PARAM", "app/models/m.py", 2, lines[1], "error", "`libx.run`: keyword `b` was removed"),
        finding("REMOVED_PARAM", "app/engine/z.py", 9, lines[1], "error", "`libx.run`: keyword `c` was removed"),
        finding("MOVED_API", None, None, lines[2], "info", "`libx.old` is gone from `libx.a.old` at 2.0; found at `libx.b.old` (no call site)",
                {"old": "libx.a.old", "new": "libx.b.old"}),
        finding("NEW_OPTIONAL_PARAM", "app/engine/z.py", 4, lines[3], "info", "`libx.grow`: new optional parameter `x=1`"),
        finding("UNRESOLVED", None, None, lines[4], "info", "entry 4: `GET /health` is not a Python API name"),
        finding("GUARD_DEAD", "app/engine/z.py", 1, 40, "warning", "version comparison with 2.0: the guard is dead"),
        finding("GUARD_NEEDED", "app/engine/y.py", 5, 41, "info", "`libx.X` still lacks `y`: the guard is still needed"),
    ]
    return AuditResult(targets=[t], findings=list(t.findings), notes=["libx @ vllm: the pin moved 1.0 -> 3.0 in pyproject.vllm.toml, but uv.vllm.lock still resolves 2.0: the lock wins (re-lock to audit 3.0)"])


TIERS = {"app/engine/": "primary", "app/models/": "secondary", "tests/": "tertiary"}


def tier_of(path: str):
    return next((t for p, t in TIERS.items() if path.startswith(p)), None)


def test_sections_follow_the_step8_template(tmp_path: Path) -> None:
    text = render(sample(tmp_path), requested="upgrade-checklists audit", date=datetime.date(2026, 3, 1),
                  docker={"libx": "Base image"}, tier_of=tier_of)
    assert skeleton(text) == STEP8
    assert "**Date:** 2026-03-01" in text and "**Requested:** `upgrade-checklists audit`" in text
    assert "| `libx`  | 1.0         | 2.0         | default, vllm |" in text
    # breaking changes: Primary, then Secondary, then Tertiary (not alphabetical)
    breaking = text.split("**Breaking changes found:**")[1].split("**Module moves")[0]
    assert [l.split("]")[0] for l in breaking.splitlines() if l.startswith("- ")] == [
        "- [app/engine/z.py:9", "- [app/models/m.py:2", "- [tests/test_z.py:7"]
    assert "**Module moves / renames:**\n\n- `libx.a.old` → `libx.b.old`\n" in text
    assert "- [app/engine/z.py:1] can be removed: version comparison with 2.0: the guard is dead" in text
    assert "- [app/engine/y.py:5] still needed: `libx.X` still lacks `y`: the guard is still needed" in text
    assert "### Dockerfile Changes\n\n- `libx` (Base image): review the Dockerfile\n" in text
    # a lock that overrides a pin is part of the dependency resolution
    assert "### Dependency Resolution\n\n- libx @ vllm: the pin moved 1.0 -> 3.0" in text
    assert "**No breaking changes found**" not in text


def test_per_entry_verdicts(tmp_path: Path) -> None:
    result = sample(tmp_path)
    assert verdicts(result.targets[0]) == [
        (1, "libx.run", "BREAKS", 1),
        (2, "libx.old", "CHANGED-UNUSED", 0),  # moved, but nothing calls it
        (3, "libx.grow", "OK", 1),  # a new optional parameter breaks nothing
        (4, "GET /health", "UNRESOLVED", 0),
    ]
    text = render(result, requested="x", tier_of=tier_of)
    assert "| 2   | `libx.old`    | CHANGED-UNUSED | 0                |" in text


def test_clean_package_and_no_matrix(tmp_path: Path) -> None:
    result = sample(tmp_path)
    t = result.targets[0]
    t.findings = [f for f in t.findings if f.severity != "error"]
    text = render(result, requested="x", docker=None)
    assert "**No breaking changes found**" in text and "**Breaking changes found:**" not in text
    assert "### Dockerfile Changes\n\n- Not known: the status file has no Package Impact Matrix.\n" in text
    assert "### Dockerfile Changes\n\n- No changes required\n" in render(result, requested="x", docker={"libx": "No"})


def test_failure_is_written_under_unresolved_issues(tmp_path: Path) -> None:
    result = sample(tmp_path)
    result.errors.append("libx: cannot fetch libx 2.0: index: no such version")
    text = render(result, requested="x")
    assert "### Unresolved Issues\n\n- The audit could not complete: libx: cannot fetch libx 2.0: index: no such version\n" in text
    empty = render(AuditResult(), requested="upgrade-checklists audit")
    assert "No focused package to audit." in empty and "### Unresolved Issues\n\n- None.\n" in empty
    # nothing moved: no claim about pins; versions named by hand: said so, not "a pin change"
    assert "### Dependency Resolution\n\n- No version change.\n" in empty
    result.targets[0].why = "command line"
    by_hand = render(result, requested="upgrade-checklists audit libx==2.0 --from 1.0")
    assert "\n- `libx` 1.0 → 2.0: named on the command line (not read from a pin)\n" in by_hand.split("### Dependency Resolution")[1]
    assert "every version change is a pin change" not in by_hand


def test_summary_is_mdformat_stable(tmp_path: Path) -> None:
    result = sample(tmp_path)
    # Markdown-significant characters in messages: escaped once, stable after
    result.targets[0].findings.append(finding("REMOVED_API", "app/engine/z.py", 3, 99, "error",
                                              "`a|b` was removed; *not* <b>bold</b> [x](y) _z_ " + "word " * 30))
    path = tmp_path / "upgrade-summary.md"
    path.write_text(render(result, requested="upgrade-checklists audit libx==2.0@vllm --from 1.0", docker={"libx": "No"}, tier_of=tier_of),
                    encoding="utf-8")
    before = path.read_text(encoding="utf-8")
    assert max(len(l) for l in before.splitlines() if not l.startswith("|")) <= 88
    r = subprocess.run([sys.executable, "-m", "mdformat", "--wrap", "88", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert path.read_text(encoding="utf-8") == before


def test_a_deprecation_is_listed_and_no_entry_with_one_is_ok(tmp_path: Path) -> None:
    result = sample(tmp_path)
    t = result.targets[0]
    grow = next(e.line for e in t.checklist.entries if e.number == 3)
    t.findings.append(finding("DEPRECATED", "app/engine/z.py", 4, grow, "warning",
                              '`libx.grow` is deprecated at 2.0: "use libx.expand"'))
    t.coverage = {"found": 5, "checked": 3, "unknown": {"not found in the loaded upstream source": 2}}
    assert [v for n, _api, v, _s in verdicts(t) if n == 3] == ["DEPRECATED"]  # it works today, but is not OK
    text = render(result, requested="x", tier_of=tier_of)
    assert "**Deprecations (work now, warn at the new version):**\n\n- [app/engine/z.py:4] `libx.grow` is deprecated" in text
    assert ("Coverage: 5 uses found, 3 checked, 2 unknown (2 not found in the loaded upstream source). Not checked: "
            "behaviour changes (same signature, other semantics) are outside a static audit.") in " ".join(text.split())
