"""UNCATALOGUED (off by default, ``--select UNCATALOGUED``): APIs of a checklist's package
that the code calls or reads as an attribute, and that no catalog entry heading names.

It parses every file that imports the package, so it runs only when selected: the
commit hook's fast path never pays for it.
"""

from __future__ import annotations

import ast
import re

from upgrade_checklists.project.calls import find_attribute_uses, find_calls, through_metadata
from upgrade_checklists.core.checklist import Checklist
from upgrade_checklists.core.config import Config
from upgrade_checklists.core.findings import Finding
from upgrade_checklists.project.result import Result
from upgrade_checklists.core.files import Skipped, read_file

CODE = "UNCATALOGUED"
_TOKEN_RE = re.compile(r"`([^`]+)`")


def named(api: str, headings: set[str]) -> bool:
    """A heading names ``api`` when it spells it whole, by a dotted suffix
    (``AutoBridge.from_hf_pretrained``), or names the class or module it belongs to."""
    for h in headings:
        h = h.strip().rstrip("()")
        if api == h or api.endswith("." + h) or api.startswith(h + ".") or ("." + h + ".") in ("." + api + "."):
            return True
    return False


def find(cfg: Config, res: Result) -> list[Finding]:
    out: list[Finding] = []
    sources: dict[str, tuple[str, ast.Module] | None] = {}
    for cl in res.checklists:
        out.extend(_for_checklist(cfg, res, cl, sources))
    return out


def _for_checklist(cfg: Config, res: Result, cl: Checklist, sources: dict) -> list[Finding]:
    names = res.import_names.get(cl.rel, [])
    headings = {t for e in cl.entries for t in _TOKEN_RE.findall(e.title)}
    uses: dict[str, list[tuple[str, int]]] = {}
    for rel in sorted(res.facts):
        if not res.facts[rel].imports_of(names):
            continue
        if rel not in sources:
            try:
                text = read_file(cfg.root, rel).decode("utf-8", errors="replace")
                sources[rel] = (text, ast.parse(text))
            except (Skipped, OSError, SyntaxError, ValueError, RecursionError, MemoryError):
                sources[rel] = None
        if sources[rel] is None:
            continue
        text, tree = sources[rel]
        for call in find_calls(text, tree, names):
            if not through_metadata(call.api):
                uses.setdefault(call.api, []).append((rel, call.line))
        for api, use in find_attribute_uses(text, tree, names):
            uses.setdefault(api, []).append((rel, use.line))
    line = cl.section_lines.get("catalog", 1)
    out = []
    for api in sorted(uses):
        if named(api, headings):
            continue
        found = sorted(uses[api])
        rel, at = found[0]
        more = f" (and {len(found) - 1} more use{'s' if len(found) > 2 else ''})" if len(found) > 1 else ""
        out.append(Finding(cl.rel, line, CODE, f"`{api}` is used in `{rel}`{more} but no catalog entry names it",
                           rel, at, cl.package))
    return out
