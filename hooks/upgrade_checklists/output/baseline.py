"""A baseline: findings known when a repository adopted the check, no longer reported.

``check --write-baseline FILE`` writes the current findings to ``FILE`` (JSON);
``check --baseline FILE`` reports only findings that are not in it, and a missing ``FILE``
is an error (exit 2): a baseline lost or misspelt in CI must not pass everything. A finding
matches a baseline entry by code, checklist, source file and message, never by where it
is: the numbers of a message that say where (line numbers and ranges, ``path:N``, a file's
line count, catalog entry numbers, byte offsets) or how many (API entries of a ``STATUS``
count, files below a folder, "and N more") are ignored, so a call site that shifts by a few
lines (``LINE``) or a count that moves stays known. Every other number is part of what the
finding says: a baselined ``=2`` is now ``=4`` does not hide a later ``=64``, nor a version
or size another. A number inside a code span is kept, unless the span is a ``path:N``
reference. A hint naming the nearest existing path of a missing one is ignored too (it
names another file, and changes as files come and go). Each entry absorbs one finding: a
second, identical finding is new.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from upgrade_checklists.core.config import ConfigError
from upgrade_checklists.core.findings import Finding

VERSION = 1
_N = r"(?:\d{1,3}(?:,\d{3})+|\d+)"  # 12, 1,234
#: outside code spans: where a finding is, and counts that move with edits elsewhere
_WHERE_RE = re.compile(
    rf"\b(?:[Ll]ines?|[Ee]ntry|offset)\s+#?{_N}(?:\s*(?:[-\u2013]|,|and)\s*{_N}\b)*"  # line 9, lines 10-13, lines 12, 391-396
    rf"|\b{_N}(?=\s+(?:(?:lines|(?:more\s+)?files?|more)\b|API\s+entr))"  # (120 lines), 3 files below, 4 API entries, and 2 more
    rf"|(?<=\bhas\s){_N}\b"  # the catalog has 4
    rf"|(?<=[\w.]):{_N}(?:[-\u2013]{_N})?\b"  # file.py:9 outside a code span
)
_CODE_RE = re.compile(r"(`+)(.+?)\1")
_PATH_LINE_RE = re.compile(r"^([\w./-]*\.\w+):\d+(?:[-\u2013]\d+)?$")  # `app/x.py:9`, `a/b.py:10-13`
_HINT_RE = re.compile(r" \(nearest existing path: `[^`]*`\)")
_FIELDS = ("code", "checklist", "file", "message")


def normalized(message: str) -> str:
    """``message`` with the numbers that say where it is (or how many of something there are) as ``#``,
    and without a suggestion of the nearest existing path (another file's name, which
    changes when other files come and go: the finding it is a hint to stays the same)."""
    message = _HINT_RE.sub("", message)
    out, at = [], 0
    for m in _CODE_RE.finditer(message):
        out.append(_WHERE_RE.sub(_hashed, message[at:m.start()]))
        p = _PATH_LINE_RE.match(m.group(2))
        out.append(f"{m.group(1)}{p.group(1)}:#{m.group(1)}" if p else m.group())
        at = m.end()
    out.append(_WHERE_RE.sub(_hashed, message[at:]))
    return "".join(out)


def _hashed(m: re.Match) -> str:
    return re.sub(_N, "#", m.group())


def key(entry: dict | Finding) -> tuple:
    get = entry.get if isinstance(entry, dict) else (lambda k: getattr(entry, k))
    return (get("code"), get("checklist"), get("file"), normalized(get("message") or ""))


def write(path: Path, findings: list[Finding]) -> None:
    from upgrade_checklists.core.atomic import write_atomic_any

    entries = sorted(({k: getattr(f, k) for k in _FIELDS} for f in findings),
                     key=lambda e: tuple(e[k] or "" for k in _FIELDS))
    doc = {"version": VERSION, "tool": "upgrade-checklists", "findings": entries}
    write_atomic_any(path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def read(path: Path, shown: str) -> Counter:
    """The baseline's entries, counted by key; a malformed file is a usage error (exit 2)."""
    from upgrade_checklists.core.files import Skipped, read_capped

    if not path.exists():  # never an empty baseline: CI would pass on whatever is found
        raise ConfigError(f"{shown}: baseline file not found (record the current findings with --write-baseline {shown})")
    try:
        doc = json.loads(read_capped(path).decode("utf-8"))  # a regular file, capped: never /dev/zero
    except Skipped as exc:
        raise ConfigError(f"{shown}: not a baseline file ({exc})") from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
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
