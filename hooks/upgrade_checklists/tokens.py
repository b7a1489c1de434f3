"""Row tokens (the Imports / Usage cell) against a file's facts: does a token cover an import, does it match the file."""

from __future__ import annotations

import re

from upgrade_checklists.scan import Facts, Import

_CALL_RE = re.compile(r"\(.*\)$")


def normalize_token(token: str) -> str:
    t = token.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "\"'":
        return t[1:-1]
    return _CALL_RE.sub("", t).strip()


def covers(token: str, imp: Import, attributes: dict[str, int]) -> bool:
    """Section 5: a token covers an import (bound name, original name, dotted suffix)."""
    t = normalize_token(token)
    if not t:
        return False
    if t in (imp.bound, imp.original) or imp.qualname == t or imp.qualname.endswith("." + t):
        return True
    prefix = imp.target + "."
    head, _, rest = t.partition(".")
    if rest and head == imp.bound:  # `mpu.initialize_model_parallel`: a use through the alias
        used = prefix + rest
        return any(a == used or a.startswith(used + ".") for a in attributes)
    suffix = "." + t
    return any(a.startswith(prefix) and a.endswith(suffix) for a in attributes)


def matches(token: str, facts: Facts | None, imports: list[Import], text: str | None) -> bool:
    """Section 5: a token matches a file (an import, a name in the code, a string)."""
    if facts is None:  # not a Python file: plain text
        t = normalize_token(token)
        return bool(t) and text is not None and t in text
    if any(covers(token, imp, facts.attributes) for imp in imports):
        return True
    t = normalize_token(token)
    if not t:
        return False
    if t in facts.strings or token.strip() in facts.strings:
        return True
    last = t.rsplit(".", 1)[-1]
    if last in facts.names:
        return True
    if any(ch.isspace() for ch in t):
        return any(matches(w, facts, imports, text) for w in t.split())
    return False
