"""The row-token grammar: what the backticked tokens of an Imports / Usage cell stand for, and how
they compare with a file's facts.

A cell is parsed once, when the checklist is read (:func:`parse_cell`), into plain
:class:`RowToken` values that can be cached; the comparison then only looks names up.
The shapes people write, each handled in one place below:

- a dotted name, a bare name, a call (`` `AutoTokenizer.from_pretrained()` ``)  -> ``_code``
- an import statement (`` `from M import a, b` ``, `` `import M as x` ``)        -> ``_import_statement``
- braces (`` `m.{a, b}` ``) and globs (`` `._weight_name_mapping_*` ``)           -> ``_braces`` / ``_glob_covers``
- a decorator (`` `@register_model` ``)                                          -> ``_code``
- a leading-dot name continuing the previous qualified token (`` `.load` ``)     -> ``parse_cell``
- a module named inside an import path (`` `gpt_layer_specs` ``)                 -> ``_name_covers``
- `KEY=VALUE` lists and dict literals (keys against strings and keywords)         -> ``_keys``
- a quoted string (`` `"mbridge"` ``)                                            -> ``string``
- a file name (`` `adapter.py` ``): not a code token, never compared              -> ``file``
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the facts are the scan's (project/), read here only through their fields
    from upgrade_checklists.project.scan import Facts, Import


_CALL_RE = re.compile(r"\(.*\)$")
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_DOTTED_GLOB_RE = re.compile(r"^[A-Za-z0-9_*?.]+$")
_FROM_RE = re.compile(r"^from\s+([A-Za-z_][\w.]*)\s+import\s+(.+)$", re.S)
_IMPORT_RE = re.compile(r"^import\s+(.+)$", re.S)
_KEY_VALUE_RE = re.compile(rf"(?:^|,)\s*({_IDENT})\s*=(?!=)")
_DICT_KEY_RE = re.compile(r"""["']([A-Za-z_][\w.-]*)["']\s*:""")
_ANNOTATED_RE = re.compile(rf"^({_IDENT}(?:\.{_IDENT})*)\s*:\s*[\w\[\], .|]+$")
_FILE_RE = re.compile(r"^[\w./*-]*\.py$")

#: token kinds: compared as code names, as an import statement's names, as a string
#: literal, as keys (strings and keywords); a file name is not compared at all
KINDS = ("code", "import", "string", "keys", "file")


@dataclass(frozen=True)
class RowToken:
    """One backticked token of a row. ``raw`` is what the cell says (what ``--fix`` strikes);
    ``names`` what it stands for: qualified or bare names (``*``/``?`` globs allowed), the
    string without its quotes, or the keys of a ``KEY=VALUE`` list."""

    raw: str
    kind: str
    names: tuple[str, ...] = ()

    @property
    def compared(self) -> bool:
        return self.kind != "file" and bool(self.names)


def parse_cell(raws: list[str]) -> tuple[RowToken, ...]:
    """The tokens of one cell, in order. A leading-dot token continues the qualified
    token before it (`` `dist_checkpointing.save`, `.load` `` -> ``dist_checkpointing.load``)."""
    out = []
    base = ""  # the parent of the last qualified token: what `.name` continues
    for raw in raws:
        tok = parse_token(raw)
        if tok.kind == "code" and raw.strip().lstrip("@").startswith(".") and base:
            tok = RowToken(raw, "code", tuple(f"{base}.{n}" for n in tok.names))
        elif tok.kind in ("code", "import") and tok.names and "." in tok.names[0]:
            base = tok.names[0].rsplit(".", 1)[0] if tok.kind == "code" else tok.names[0]
        out.append(tok)
    return tuple(out)


def parse_token(raw: str) -> RowToken:
    """One backticked token on its own (no continuation)."""
    t = raw.strip()
    if not t:
        return RowToken(raw, "code")
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "\"'" and t[0] not in t[1:-1]:
        return RowToken(raw, "string", (t[1:-1],))
    if _FILE_RE.match(t) and not t.startswith("."):
        return RowToken(raw, "file")
    statement = _import_statement(t)
    if statement is not None:
        return RowToken(raw, "import", statement)
    keys = _keys(t)
    if keys:
        return RowToken(raw, "keys", keys)
    return RowToken(raw, "code", _code(t))


def _import_statement(t: str) -> tuple[str, ...] | None:
    """`from M import a, b as c` -> M.a, M.b; `import M, N as x` -> M, N."""
    m = _FROM_RE.match(t)
    if m:
        module = m.group(1)
        names = [_strip_alias(n) for n in m.group(2).strip("() \n").split(",")]
        return tuple(module if n == "*" else f"{module}.{n}" for n in names if n)
    m = _IMPORT_RE.match(t)
    if m:
        names = [_strip_alias(n) for n in m.group(1).split(",")]
        return tuple(n for n in names if n)
    return None


def _strip_alias(part: str) -> str:
    return part.strip().split(" as ")[0].strip().strip("()")


def _keys(t: str) -> tuple[str, ...]:
    """`KEY=VALUE, KEY2=VALUE2` and `{"key": value, ...}`: the keys."""
    if t.startswith("{") and ":" in t:
        return tuple(dict.fromkeys(_DICT_KEY_RE.findall(t)))
    if "=" in t and "==" not in t and _KEY_VALUE_RE.match(t):
        return tuple(dict.fromkeys(_KEY_VALUE_RE.findall(t)))
    return ()


def _code(t: str) -> tuple[str, ...]:
    t = t.lstrip("@").lstrip(".")
    m = _ANNOTATED_RE.match(t)
    if m:  # `Meta.peft_config: dict`
        t = m.group(1)
    t = _CALL_RE.sub("", t).strip()
    if "{" in t and "}" in t:
        return _braces(t)
    if "," in t:  # `a, b.c`: a list of names
        parts = [p.strip() for p in t.split(",")]
        if all(_DOTTED_GLOB_RE.match(p) for p in parts if p):
            return tuple(p for p in parts if p)
    return (t,) if t else ()


def _braces(t: str) -> tuple[str, ...]:
    """`m.{a, b}.c` -> m.a.c, m.b.c (one brace group, the first)."""
    i, j = t.index("{"), t.index("}")
    if j < i:
        return (t,)
    head, alts, tail = t[:i], t[i + 1 : j], t[j + 1 :]
    out = []
    for alt in alts.split(","):
        alt = _CALL_RE.sub("", alt.strip())
        if alt:
            out.extend(_braces(head + alt + tail) if "{" in tail else [head + alt + tail])
    return tuple(out)


# --- comparison -------------------------------------------------------------------


def covers(token: RowToken, imp: Import, facts: Facts) -> bool:
    """A token covers an import: it names what the import binds (bound name, original name,
    a dotted suffix of the qualified name, a module inside its path, an attribute use
    through it, or the same qualified name used as an attribute)."""
    if token.kind == "import":
        q = imp.qualname
        return any(q == n or q.startswith(n + ".") and imp.original == "*" for n in token.names)
    if token.kind not in ("code", "string"):
        return False
    return any(_name_covers(n, imp, facts) for n in token.names)


def _name_covers(n: str, imp: Import, facts: Facts) -> bool:
    if not n:
        return False
    if "*" in n or "?" in n:
        return _glob_covers(n, imp, facts)
    q = imp.qualname
    if n in (imp.bound, imp.original) or q == n or q.endswith("." + n):
        return True
    if f".{n}." in f".{q}.":  # a module inside the import's path: `gpt_layer_specs`
        return True
    if imp.original == q and n[:1].isupper() and _snake(n.rsplit(".", 1)[-1]) == q.rsplit(".", 1)[-1]:
        return True  # `FunctionCallParser` and a module import of `...function_call_parser`
    prefix = imp.target + "."
    head, _, rest = n.partition(".")
    if rest and head == imp.bound:  # `mpu.initialize_model_parallel`: a use through the alias
        used = prefix + rest
        return any(a == used or a.startswith(used + ".") for a in facts.uses_below(prefix))
    if n.startswith(prefix) and n in facts.attributes:  # the fully qualified name of a use
        return True
    suffix = "." + n
    return any(a.endswith(suffix) for a in facts.uses_below(prefix))


def _snake(name: str) -> str:
    """`FunctionCallParser` -> `function_call_parser` (a class named after its module)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def _glob_covers(n: str, imp: Import, facts: Facts) -> bool:
    pattern = "*." + n if not n.startswith("*") else n
    if fnmatchcase(imp.qualname, n) or fnmatchcase(imp.qualname, pattern):
        return True
    return any(fnmatchcase(a, n) or fnmatchcase(a, pattern) for a in facts.uses_below(imp.target + "."))


def matches(token: RowToken, facts: Facts | None, imports: list[Import], text: str | None) -> bool:
    """A token matches a file: it covers one of the file's imports (of any package: an
    indirect user documents the other package's API it goes through), its last dotted
    segment is a name, attribute or definition in the code, it equals a string literal,
    or (keys) one of its keys is a string or a keyword. A file token always matches."""
    if token.kind == "file":
        return True
    if facts is None:  # not a Python file: plain text
        return text is not None and any(n and n in text for n in token.names)
    if token.kind == "keys":
        return any(k in facts.strings or k in facts.names for k in token.names)
    if token.kind == "code" and facts.full:  # the cheap look-ups first (this runs per token, per file)
        names, strings = facts.names, facts.strings
        if any(n in strings or n.rsplit(".", 1)[-1] in names for n in token.names):
            return True
    if any(covers(token, imp, facts) for imp in imports):
        return True
    if token.kind == "string":  # a quoted token is a literal, not a name
        return any(n in facts.strings for n in token.names)
    return any(_name_matches(n, facts, imports, text) for n in token.names)


_PLACEHOLDER_RE = re.compile(r"(?:^|\.)(?:[A-Z]|\d+|<[^>.]*>)(?:\.|$)")


def _name_matches(n: str, facts: Facts, imports: list[Import], text: str | None) -> bool:
    if not n:
        return False
    if n in facts.strings:
        return True
    if _PLACEHOLDER_RE.search(n) and any(_fragment_of(s, n) for s in facts.strings):
        return True  # a key format (`model.layers.N.q_proj.weight`) the code builds or parses from fragments
    last = n.rsplit(".", 1)[-1]
    if last == "*" and "." in n:
        last = n.rsplit(".", 2)[-2]
    if "*" in last or "?" in last:
        if any(fnmatchcase(x, last) for x in facts.names):
            return True
    elif last in facts.names:
        return True
    if any(ch.isspace() for ch in n):
        return any(matches(parse_token(w), facts, imports, text) for w in n.split())
    return False


def _fragment_of(s: str, pattern: str) -> bool:
    """A string literal of at least two dotted parts that the documented format contains."""
    core = s.strip(".")
    return "." in core and len(core) >= 5 and s in pattern


def normalize_token(token: str) -> str:
    """The name a raw token stands for, quotes and call parentheses removed."""
    t = token.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "\"'":
        return t[1:-1]
    return _CALL_RE.sub("", t).strip()
