"""The catalog's part in the audit (after binding): entries add, they do not limit.

Every use is bound whether or not an entry names it (``bind.py``). An entry adds:
its heading resolved at both versions (``resolve_entries``); its recorded call
sites, which count as uses when the import scan does not explain them
(``entry_uses``: ``self.bridge.save(...)`` in a file the entry names); the
changes of its API that no use reaches, reported at the entry
(``entry_findings``); and its place in the checklist, where the findings of
the uses it covers are anchored (``Anchors``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from upgrade_checklists.audit.api import Api, Signature, Unresolved, UpstreamModel
from upgrade_checklists.audit.bound import Bound, gone, moved_fix, moved_to
from upgrade_checklists.audit.signatures import signature_changes
from upgrade_checklists.project.calls import make_call, statement_calls
from upgrade_checklists.core.checklist import Checklist, Entry
from upgrade_checklists.project.use import CALL, MEMBER, Use

#: (checklist line, code, severity, message, file, line, fix)
EntryFinding = tuple[int, str, str, str, "str | None", "int | None", "dict | None"]


@dataclass
class ResolvedEntry:
    entry: Entry
    new: Api | None
    old: Api | None
    reason: str | None  # why the heading did not resolve at the new version


def resolve_entries(entries: list[Entry], old: UpstreamModel | None, new: UpstreamModel, names: list[str]) -> list[ResolvedEntry]:
    out = []
    for e in entries:
        a_new = a_old = None
        reason = None
        if e.api:
            try:
                a_new = new.resolve_heading(e.api, e.source, names)
            except Unresolved as exc:
                reason = str(exc)
            if old is not None:
                try:
                    a_old = old.resolve_heading(e.api, e.source, names)
                except Unresolved:
                    a_old = None
        out.append(ResolvedEntry(e, a_new, a_old, reason))
    return out


def _is_method(api: Api) -> bool:
    return api.kind == "function" and api.method


def entry_uses(resolved: list[ResolvedEntry], sources: dict[str, tuple[str, ast.Module]], uses: list[Use]) -> list[Use]:
    """Calls the catalog records that the import scan does not explain: a method called on an
    instance in a file the entry names, or a call of the API's name at a recorded line."""
    explained = {(u.file, u.line) for u in uses if u.kind in (CALL, MEMBER) and u.call is not None}
    out: list[Use] = []
    for r in resolved:
        api = r.new or r.old
        if api is None or api.kind not in ("function", "class"):
            continue
        last = api.path.rsplit(".", 1)[-1]
        method = _is_method(api)
        for rel in sorted({cs.file for cs in r.entry.call_sites if cs.file in sources}):
            text, tree = sources[rel]
            recorded = [(cs.line, cs.end_line or cs.line) for cs in r.entry.call_sites if cs.file == rel and cs.line]
            within = _recorded_functions(tree, [cs for cs in r.entry.call_sites if cs.file == rel and not cs.line])
            for c in _calls_named(text, tree, last):
                at_record = any(a <= c.line <= b for a, b in recorded)
                if (rel, c.line) in explained or not (method or at_record):
                    continue
                if not at_record and within is not None and not any(a <= c.line <= b for a, b in within):
                    continue  # a call of that name outside the functions the catalog records (``rows.append``)
                explained.add((rel, c.line))
                out.append(Use(rel, c.line, CALL, api.path, call=c))
    return out


def _recorded_functions(tree: ast.Module, sites: list) -> list[tuple[int, int]] | None:
    """The line spans of the functions the call sites recorded without a line name
    (``Called in `app/x.py` (`Table.grow`)``), where a call of the method's name is taken for
    a call of it; None (the whole file) when a site names no function (module level, or a
    hand-written reference) or none of the names is defined in the file any more."""
    if not sites or any(not cs.qualname for cs in sites):
        return None
    wanted = {cs.qualname for cs in sites}
    spans: list[tuple[int, int]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for n in ast.iter_child_nodes(node):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                q = prefix + n.name
                if any(q == w or q.endswith("." + w) for w in wanted):
                    spans.append((n.lineno, n.end_lineno or n.lineno))
                walk(n, q + ".")
            else:
                walk(n, prefix)

    walk(tree, "")
    return spans or None


def _calls_named(text: str, tree: ast.Module, name: str):
    lines = text.splitlines()
    for stmt, node, where in statement_calls(tree):
        f = node.func
        if (isinstance(f, ast.Attribute) and f.attr == name) or (isinstance(f, ast.Name) and f.id == name):
            yield make_call(name, where, node, stmt, lines)


def entry_findings(resolved: list[ResolvedEntry], bound: list[Bound], old: UpstreamModel | None, new: UpstreamModel,
                   version: str) -> list[EntryFinding]:
    """What an entry reports itself: unresolved headings, and changes no bound use reached. Each
    API's changes are said once, at one line: the first entry whose heading names the API itself
    (as ``Anchors`` anchors its uses), else the first module entry that holds it."""
    out: list[EntryFinding] = []
    own: dict[str, int] = {}  # API path -> the line of the first entry naming it
    for r in resolved:
        if r.new is not None and r.new.kind != "module":
            own.setdefault(r.new.path, r.entry.line)
    said: set[str] = set()
    for r in resolved:
        e = r.entry
        if not e.api:
            out.append((e.line, "UNRESOLVED", "info", f"entry {e.number}: heading names no API in backticks", None, None, None))
            continue
        if r.new is None:
            if r.old is None:
                out.append((e.line, "UNRESOLVED", "info", f"entry {e.number}: {r.reason}", None, None, None))
            elif not any(b.old == r.old.path for b in bound):
                code, msg = gone(e.api, r.old, new, version)
                fix = moved_fix(new, r.old.path, moved_to(r.old, new)) if code == "MOVED_API" else None
                out.append((e.line, code, "info", msg + " (no call site)", None, None, fix))
            continue
        if r.new.path in own and own[r.new.path] != e.line:
            continue  # an earlier entry names the same API: said there
        apis = {r.new.path: (r.new, r.old)}
        if r.new.kind == "module":
            for b in bound:
                if (b.new and b.new.startswith(r.new.path + ".") and b.use.kind == CALL and b.new not in apis
                        and b.new not in own):  # an API with an entry of its own is said there
                    a_new = new.lookup(b.new) if _safe(new, b.new) else None
                    a_old = old.lookup(b.old) if (old is not None and b.old and _safe(old, b.old)) else None
                    if a_new is not None:
                        apis[b.new] = (a_new, a_old)
            if len(apis) > 1:
                del apis[r.new.path]
        for path, (a_new, a_old) in sorted(apis.items()):
            if path in said:
                continue  # a module entry's member another module entry (a parent package) said already
            said.add(path)
            sites = [b for b in bound if b.new == path and b.use.call is not None]
            if a_new.signature is None:
                if sites:
                    out.append((e.line, "UNRESOLVED", "info", f"entry {e.number}: signature of `{path}` not known statically "
                                f"({_no_signature(a_new)})", None, None, None))
                continue
            if a_old is None or a_old.signature is None:
                continue
            hit = {(code, param) for b in sites for code, _s, param, _m in b.problems}
            hit |= _positions_hit(hit, a_old.signature)
            first = sites[0].use if sites else None
            for code, sev, param, msg in signature_changes(path, a_old.signature, a_new.signature):
                if (code, param) not in hit and not (code == "REMOVED_PARAM" and ("RENAMED_PARAM", param) in hit):
                    out.append((e.line, code, sev, msg, first.file if first else None, first.line if first else None, None))
    return out


def _positions_hit(hit: set[tuple[str, str]], old: Signature) -> set[tuple[str, str]]:
    """A call's finding about a positional argument left without a parameter names it by place
    (``#2``); the old signature's parameter at that place is the one the call passes, so the
    entry does not also say that no call site passes it."""
    pos = old.positional()
    out = set()
    for code, param in hit:
        if param and param.startswith("#") and param[1:].isdigit() and 0 < int(param[1:]) <= len(pos):
            out.add((code, pos[int(param[1:]) - 1].name))
    return out


def _safe(model: UpstreamModel, path: str) -> bool:
    try:
        return model.lookup(path) is not None
    except Unresolved:
        return False


class Anchors:
    """Where in the checklist a use's finding belongs: the entry covering its API or its
    recorded call site, else the version guard around it, else its file's row."""

    def __init__(self, cl: Checklist, resolved: list[ResolvedEntry]) -> None:
        self.paths: dict[str, int] = {}
        self.modules: list[tuple[str, int]] = []
        self.sites: dict[tuple[str, int], int] = {}
        for r in resolved:
            for api in (r.new, r.old):
                if api is not None:
                    self.paths.setdefault(api.path, r.entry.line)
                    if api.kind == "module":
                        self.modules.append((api.path + ".", r.entry.line))
            for cs in r.entry.call_sites:
                if cs.line:
                    for ln in range(cs.line, (cs.end_line or cs.line) + 1):
                        self.sites.setdefault((cs.file, ln), r.entry.line)
        self.guards = {(g.file, g.line): g.ref_line for g in cl.guards if g.line}
        self.rows = {row.file: row.line for row in cl.rows}

    def line(self, b: Bound) -> int | None:
        for p in (b.new, b.old):
            if p and p in self.paths:
                return self.paths[p]
        for p in (b.new, b.old):
            for prefix, at in self.modules:
                if p and p.startswith(prefix):
                    return at
        u = b.use
        at = self.sites.get((u.file, u.line))
        if at is None and u.guard_line is not None:
            at = self.guards.get((u.file, u.guard_line))
        return at if at is not None else self.rows.get(u.file)


def not_resolved(resolved: list[ResolvedEntry], bound: list[Bound], new: UpstreamModel, version: str) -> list[tuple[int, str, str]]:
    """``(entry number, heading API, why)`` for each entry whose API is not there at the new version."""
    out = []
    for r in resolved:
        e = r.entry
        if not e.api:
            out.append((e.number, "", "the heading names no API in backticks"))
        elif r.new is None and r.old is not None:
            code, _msg = gone(e.api, r.old, new, version)
            out.append((e.number, e.api, f"{'moved' if code == 'MOVED_API' else 'removed'} at {version} ({code})"))
        elif r.new is None:
            out.append((e.number, e.api, r.reason or "not found"))
    return out


def entry_bound(resolved: list[ResolvedEntry], bound: list[Bound]) -> dict[int, int]:
    """Entry number -> the call sites of its API (a module heading: of its members) bound to a signature."""
    out: dict[int, int] = {}
    for r in resolved:
        if r.new is None:
            continue
        prefix = r.new.path + "." if r.new.kind == "module" else None
        n = sum(1 for b in bound if b.signature and b.new and (b.new == r.new.path or (prefix and b.new.startswith(prefix))))
        if n:
            out[r.entry.number] = n
    return out


def _no_signature(api: Api) -> str:
    """Why a called API has no signature: a class with no constructor of its own in the loaded source (its
    bases give it: a builtin such as ``Exception``, or a base outside it), or a value that is no function."""
    if api.kind == "class":
        return "no `__init__` or `__new__` in the loaded source: a base outside it, such as a builtin, builds it"
    return f"a value ({api.kind}), not a function or class: what calling it does is not read statically"
