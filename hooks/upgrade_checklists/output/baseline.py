"""A baseline: findings known when a repository adopted the check, no longer reported.

``check --baseline FILE`` writes the current findings to ``FILE`` (JSON) when it does not
exist; once it exists, only findings that are not in it are reported. A finding matches a
baseline entry by code, checklist, source file and message, never by line number: numbers
in the message are ignored too, so a call site that shifts by a few lines (``LINE``) or a
count that moves (``STATUS``) stays known. Each entry absorbs one finding: a second,
identical finding is new.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from upgrade_checklists.core.config import ConfigError
from upgrade_checklists.core.findings import Finding

VERSION = 1
_NUMBER_RE = re.compile(r"\b\d+\b")
_FIELDS = ("code", "checklist", "file", "message")


def key(entry: dict | Finding) -> tuple:
    get = entry.get if isinstance(entry, dict) else (lambda k: getattr(entry, k))
    return (get("code"), get("checklist"), get("file"), _NUMBER_RE.sub("#", get("message") or ""))


def write(path: Path, findings: list[Finding]) -> None:
    from upgrade_checklists.core.atomic import write_atomic_any

    entries = sorted(({k: getattr(f, k) for k in _FIELDS} for f in findings),
                     key=lambda e: tuple(e[k] or "" for k in _FIELDS))
    doc = {"version": VERSION, "tool": "upgrade-checklists", "findings": entries}
    write_atomic_any(path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def read(path: Path, shown: str) -> Counter:
    """The baseline's entries, counted by key; a malformed file is a usage error (exit 2)."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{shown}: not a baseline file (invalid JSON: {exc})") from None
    if not isinstance(doc, dict) or doc.get("version") != VERSION or not isinstance(doc.get("findings"), list):
        raise ConfigError(f"{shown}: not a baseline file (expected {{\"version\": {VERSION}, \"findings\": [...]}})")
    out: Counter = Counter()
    for i, entry in enumerate(doc["findings"]):
        if not isinstance(entry, dict) or not isinstance(entry.get("code"), str) or not isinstance(entry.get("message"), str) \
                or any(entry.get(k) is not None and not isinstance(entry.get(k), str) for k in ("checklist", "file")):
            raise ConfigError(f"{shown}: finding {i + 1} needs string 'code' and 'message' (and 'checklist', 'file': string or null)")
        out[key(entry)] += 1
    return out


def subtract(findings: list[Finding], known: Counter) -> tuple[list[Finding], int]:
    """The findings not in the baseline, and how many were."""
    left = Counter(known)
    new, matched = [], 0
    for f in findings:
        k = key(f)
        if left[k] > 0:
            left[k] -= 1
            matched += 1
        else:
            new.append(f)
    return new, matched
