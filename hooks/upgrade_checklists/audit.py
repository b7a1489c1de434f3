"""The upgrade audit: fetch source -> API model -> bind call sites -> findings.

For each focused package whose version moves (or each at its pin, when nothing
moves), fetch upstream at the old and new versions, resolve every catalog API
statically, bind every call site in the code against old and new signatures,
check the version guards and the upgrade families. ``summary.py`` writes
``upgrade-summary.md`` from the result.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path

from packaging.utils import canonicalize_name

from upgrade_checklists import fetch as fetching
from upgrade_checklists.api import Api, Unresolved, UpstreamModel
from upgrade_checklists.bind import bind_call, signature_changes
from upgrade_checklists.calls import Call, bindings, find_calls, find_method_calls
from upgrade_checklists.calls import resolve as resolve_use
from upgrade_checklists.checklist import Checklist
from upgrade_checklists.config import Config
from upgrade_checklists.findings import Finding
from upgrade_checklists.catalog import located_guard_line
from upgrade_checklists.guards import GuardResult, catches_import_error, check_guard
from upgrade_checklists.result import Result
from upgrade_checklists.targets import AuditError, Target, plan
from upgrade_checklists.versions import DEFAULT, Reader, resolve

__all__ = ["AuditError", "AuditResult", "Auditor", "Target", "plan"]


@dataclass
class AuditResult:
    targets: list[Target] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # the audit could not run (exit 2)
    notes: list[str] = field(default_factory=list)

    @property
    def breaking(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error" and f.code != "FETCH"]


class Auditor:
    def __init__(self, cfg: Config, check: Result, *, source: str = "auto", cache_dir: Path | None = None,
                 timeout: int = 600, progress=None) -> None:
        self.cfg = cfg
        self.check = check
        self.source = source
        self.cache_dir = cache_dir or fetching.default_cache_dir()
        self.timeout = timeout
        self.progress = progress or (lambda msg: None)
        self._fetched: dict[tuple[str, str], Path] = {}
        self._models: dict[tuple, UpstreamModel] = {}
        self.git_pins: dict[tuple[str, str], str] = {}  # (package, ref) -> repository of a git pin

    # -- fetching -------------------------------------------------------------------

    def fetch(self, cl: Checklist, version: str) -> Path:
        key = (cl.package, version)
        if key in self._fetched:
            return self._fetched[key]
        fm = cl.frontmatter
        names = self.check.import_names.get(cl.rel, [])
        errors = []
        pinned_repo = self.git_pins.get(key)
        if pinned_repo is not None:  # a git pin: that repository at that ref, whatever --source says
            path = fetching.fetch_git_pin(pinned_repo, version, cache_dir=self.cache_dir, timeout=self.timeout)
            self._fetched[key] = path
            return path
        for kind in (["git", "index"] if self.source == "auto" else [self.source]):
            try:
                if kind == "git":
                    sparse = [n.replace(".", "/") for n in names] + [f"src/{n.replace('.', '/')}" for n in names]
                    for p in fm.get("upstream_paths") or []:
                        if isinstance(p, str):
                            sparse.append(p if p.endswith("/") else p.rsplit("/", 1)[0] if "/" in p else "")
                    path = fetching.fetch_git(fm.get("github"), fm.get("branch_template"), version,
                                              url_template=self.cfg.git_url, cache_dir=self.cache_dir,
                                              sparse=[s for s in sparse if s], timeout=self.timeout)
                else:
                    path = fetching.fetch_index(cl.package, version, cache_dir=self.cache_dir, timeout=self.timeout)
                self._fetched[key] = path
                return path
            except fetching.FetchError as exc:
                errors.append(f"{kind}: {exc}")
        raise fetching.FetchError(f"cannot fetch {cl.package} {version}: " + "; ".join(errors))

    def family_of(self, cl: Checklist) -> list[Checklist]:
        key = canonicalize_name(cl.package)
        members: list[Checklist] = []
        for fam in self.cfg.families.values():
            names = {canonicalize_name(n) for n in fam}
            if key in names:
                members += [c for c in self.check.checklists if canonicalize_name(c.package) in names and c is not cl]
        return members

    def model(self, cl: Checklist, version: str, versions: dict[str, str], result: AuditResult) -> UpstreamModel:
        """The API model of ``cl`` at ``version``, its family members loaded alongside (loaded once)."""
        memo = (cl.package, version, tuple(sorted((o.package, versions.get(o.package)) for o in self.family_of(cl))))
        if memo in self._models:
            return self._models[memo]
        self._models[memo] = model = self._load_model(cl, version, versions, result)
        return model

    def _load_model(self, cl: Checklist, version: str, versions: dict[str, str], result: AuditResult) -> UpstreamModel:
        root = self.fetch(cl, version)
        roots, modules = [root], list(self.check.import_names.get(cl.rel, []))
        for other in self.family_of(cl):
            v = versions.get(other.package)
            if v is None:
                continue
            try:
                roots.append(self.fetch(other, v))
                modules += self.check.import_names.get(other.rel, [])
            except fetching.FetchError as exc:
                result.notes.append(f"{cl.package}: family member {other.package} {v} not loaded ({exc})")
        return UpstreamModel(roots, modules)

    # -- the audit ------------------------------------------------------------------------

    def run(self, targets: list[Target]) -> AuditResult:
        result = AuditResult(targets=targets)
        every = resolve(Reader(self.cfg.root), [cl.package for cl in self.check.checklists], self.cfg.manifests)
        for pins in every.values():
            for key, pin in pins.resolved.items():
                if pin.git:
                    self.git_pins[(self._package(key), pin.version)] = pin.git
        for t in targets:
            if t.old and t.old_git:
                self.git_pins[(t.package, t.old)] = t.old_git
            if t.new_git:
                self.git_pins[(t.package, t.new)] = t.new_git
        for t in targets:
            new_versions, old_versions = self._versions(t, targets, every)
            arrow = f"{t.old} -> {t.new}" if t.old else f"at {t.new}"
            self.progress(f"auditing {t.package} {arrow} @ {t.variant_label}")
            start = len(result.findings)
            try:
                new = self.model(t.checklist, t.new, new_versions, result)
                t.source = self._fetched_how(t.checklist, t.new)
                old = self.model(t.checklist, t.old, old_versions, result) if t.old else None
                if old is not None:
                    old.peer = new
            except fetching.FetchError as exc:
                result.errors.append(f"{t.package}: {exc}")
                result.findings.append(Finding(t.checklist.rel, 1, "FETCH", str(exc), package=t.package, severity="warning", at_source=False))
                t.findings = _unique(result.findings[start:])
                continue
            try:
                self._audit_package(t, old, new, result)
            except Unresolved as exc:  # a lookup no finer step caught: the rest of the package is not audited
                result.findings.append(Finding(t.checklist.rel, 1, "UNRESOLVED", f"{t.package}: audit stopped: {exc}",
                                               package=t.package, severity="info", at_source=False))
            t.findings = _unique(result.findings[start:])
        new_versions = self._versions(targets[0], targets, every)[0] if targets else {}
        start = len(result.findings)
        self._families(targets, new_versions, result)
        for f in result.findings[start:]:
            for t in targets:
                if t.package == f.package and t.old and t.old != t.new:
                    t.findings.append(f)
                    break
        result.findings = _unique(result.findings)
        return result

    def _package(self, key: str) -> str:
        return next((cl.package for cl in self.check.checklists if canonicalize_name(cl.package) == key), key)

    def _versions(self, t: Target, targets: list[Target], every) -> tuple[dict[str, str], dict[str, str]]:
        """The versions of every package, new and old, in ``t``'s (first) variant: family members load at these."""
        variant = t.variants[0] if t.variants else DEFAULT
        pins = every.get(variant)
        new_versions, old_versions = {}, {}
        for o in targets:
            if variant in o.variants:
                new_versions[o.package] = o.new
                old_versions[o.package] = o.old or o.new
        for cl in self.check.checklists:
            p = pins.resolved.get(canonicalize_name(cl.package)) if pins else None
            if p is not None:
                new_versions.setdefault(cl.package, p.version)
                old_versions.setdefault(cl.package, p.version)
        return new_versions, old_versions

    def _fetched_how(self, cl: Checklist, version: str) -> str:
        """What the source was fetched from (recorded in the cache when it was)."""
        path = self._fetched.get((cl.package, version))
        if path is None:
            return ""
        mark = path / ".upgrade-checklists-complete"
        return mark.read_text().strip() if mark.is_file() else str(path)

    def _audit_package(self, t: Target, old: UpstreamModel | None, new: UpstreamModel, result: AuditResult) -> None:
        cl = t.checklist
        names = self.check.import_names.get(cl.rel, [])
        version = t.new

        def add(code: str, severity: str, message: str, file: str | None = None, line: int | None = None, at: int | None = None,
                fix: dict | None = None):
            result.findings.append(Finding(cl.rel, at or 1, code, message, file, line, cl.package, fix, severity=severity, at_source=True))

        sources: dict[str, tuple[str, ast.Module]] = {}
        for rel, facts in sorted(self.check.facts.items()):
            if facts.imports_of(names):
                text = (self.cfg.root / rel).read_text(encoding="utf-8", errors="replace")
                try:
                    sources[rel] = (text, ast.parse(text))
                except SyntaxError:
                    continue
        calls: list[tuple[str, Call]] = [(rel, c) for rel, (text, tree) in sources.items() for c in find_calls(text, tree, names)]

        def canonical(model: UpstreamModel | None, dotted: str) -> Api | None:
            if model is None:
                return None
            try:
                return model.lookup(dotted)
            except Unresolved:
                return None

        site_api: dict[int, tuple[Api | None, Api | None]] = {}
        for i, (rel, c) in enumerate(calls):
            site_api[i] = (canonical(old, c.api), canonical(new, c.api))

        catalog = set()
        for e in cl.entries:
            try:
                catalog.add(new.resolve_heading(e.api, e.source, names).path if e.api else "")
            except Unresolved:
                pass
        for e in cl.entries:
            if not e.api:
                add("UNRESOLVED", "info", f"entry {e.number}: heading names no API in backticks", at=e.line)
                t.not_resolved.append((e.number, "", "the heading names no API in backticks"))
                continue
            api_new = api_old = None
            reason = None
            try:
                api_new = new.resolve_heading(e.api, e.source, names)
            except Unresolved as exc:
                reason = str(exc)
            if old is not None:
                try:
                    api_old = old.resolve_heading(e.api, e.source, names)
                except Unresolved:
                    api_old = None
            if api_new is None:
                if api_old is not None:
                    code = self._gone(e.api, api_old, new, calls, site_api, add, e.line, version)
                    t.not_resolved.append((e.number, e.api, f"{'moved' if code == 'MOVED_API' else 'removed'} at {version} ({code})"))
                else:
                    add("UNRESOLVED", "info", f"entry {e.number}: {reason}", at=e.line)
                    t.not_resolved.append((e.number, e.api, reason or "not found"))
                continue
            t.resolved += 1
            targets = self._entry_apis(api_new, api_old, new, old, calls, site_api)
            if _is_method(api_new):  # calls on instances in the files the entry names: self.bridge.m(...)
                targets[0][1].extend(self._instance_calls(e, api_new, sources, calls))
            for (a_new, a_old), sites in targets:
                what = a_new.path
                hit: set[tuple[str, str]] = set()
                if sites:
                    warned = new.deprecation(a_new, e.api if a_new is api_new else None)
                    if warned is not None:
                        for rel, c, _i in sites:
                            add("DEPRECATED", "warning", f"`{what}` is deprecated at {version}: \"{warned}\"", rel, c.line, e.line)
                if a_new.signature is None:
                    if sites:
                        add("UNRESOLVED", "info", f"entry {e.number}: signature of `{what}` not known statically (no __init__ found)", at=e.line)
                    continue
                t.bound += len(sites)
                t.entry_bound[e.number] = t.entry_bound.get(e.number, 0) + len(sites)
                for rel, c, i in sites:
                    for code, sev, param, msg in bind_call(c, what, a_old.signature if a_old else None, a_new.signature, version):
                        hit.add((code, param))
                        add(code, sev, msg, rel, c.line, e.line)
                    try:
                        self._returned_methods(rel, c, a_new, a_old, new, old, sources, add, e.line, version, catalog)
                    except Unresolved as exc:
                        add("UNRESOLVED", "info", f"entry {e.number}: methods called on the result of `{what}`: {exc}", rel, c.line, e.line)
                if a_old is not None and a_old.signature is not None:
                    for code, sev, param, msg in signature_changes(what, a_old.signature, a_new.signature):
                        if (code, param) not in hit and not (code == "REMOVED_PARAM" and ("RENAMED_PARAM", param) in hit):
                            add(code, sev, msg, sites[0][0] if sites else None, sites[0][1].line if sites else None, e.line)
        self._imports(cl, sources, names, old, new, add, version)
        self._deprecated_attributes(cl, sources, names, new, add, version)
        for g in cl.guards:
            path = self.cfg.root / g.file
            if not path.is_file() or g.line is None:
                add("GUARD_UNKNOWN", "warning", f"version guard `{g.file}:{g.line}` not found", g.file, g.line, g.ref_line)
                continue
            source = path.read_text(encoding="utf-8", errors="replace")
            line = located_guard_line(source, g) or g.line  # where its quoted expression now is
            try:
                checked = check_guard(source, line, new, names, version)
            except Unresolved as exc:
                checked = [GuardResult("GUARD_UNKNOWN", "info", f"cannot tell: {exc}")]
            for r in checked:
                add(r.code, r.severity, r.message, g.file, line, g.ref_line)

    def _instance_calls(self, e, api: Api, sources, calls) -> list:
        method = api.path.rsplit(".", 1)[-1]
        explained = {(r, k.line) for r, k in calls}
        out = []
        for rel in sorted({cs.file for cs in e.call_sites if cs.file in sources}):
            text, tree = sources[rel]
            for c in find_method_calls(text, tree, None, method):
                if (rel, c.line) not in explained:  # not already bound through an import
                    out.append((rel, c, -1))
        return out

    def _entry_apis(self, api_new, api_old, new, old, calls, site_api):
        """[((new api, old api), [(file, call, index)])]: a module heading covers its members' calls."""
        groups: dict[str, list] = {}
        apis: dict[str, tuple[Api, Api | None]] = {api_new.path: (api_new, api_old)}
        for i, (rel, c) in enumerate(calls):
            o, n = site_api[i]
            if n is not None and (n.path == api_new.path or (api_new.kind == "module" and n.path.startswith(api_new.path + "."))):
                apis.setdefault(n.path, (n, o))
                groups.setdefault(n.path, []).append((rel, c, i))
            elif n is None and o is not None and api_old is not None and o.path == api_old.path:
                groups.setdefault(api_new.path, []).append((rel, c, i))
        if api_new.kind == "module":
            return [(apis[p], sites) for p, sites in sorted(groups.items())]
        return [(apis[api_new.path], groups.get(api_new.path, []))]

    def _gone(self, name, api_old, new, calls, site_api, add, at, version):
        """An API the old version had and the new one does not: moved, or removed."""
        last = api_old.path.rsplit(".", 1)[-1]
        elsewhere = new.by_name(last, kinds=(api_old.kind,))
        sites = [(rel, c) for i, (rel, c) in enumerate(calls) if site_api[i][0] is not None and site_api[i][0].path == api_old.path]
        if elsewhere:
            msg = f"`{name}` is gone from `{api_old.path}` at {version}; found at `{elsewhere[0]}`"
            code = "MOVED_API"
        else:
            shown = f"`{name}`" if name == api_old.path else f"`{name}` (`{api_old.path}`)"
            msg = f"{shown} was removed at {version}"
            code = "REMOVED_API"
        fix = {"old": api_old.path, "new": elsewhere[0], "new_file": _upstream_file(new, new.find(elsewhere[0]))} if elsewhere else None
        if not sites:
            add(code, "info", msg + " (no call site)", at=at, fix=fix)
        for rel, c in sites:
            add(code, "error", msg, rel, c.line, at, fix)
        return code

    def _returned_methods(self, rel, call, a_new, a_old, new, old, sources, add, at, version, catalog):
        """Methods called on the object an API call returned: ``b = X.make(); b.save(...)``
        (those with a catalog entry of their own are bound there)."""
        if not call.assigned_to:
            return
        cls_new = new.returned_class(a_new)
        if cls_new is None:
            return
        cls_old = old.returned_class(a_old) if (old is not None and a_old is not None) else None
        text, tree = sources[rel]
        for mc in find_method_calls(text, tree, call.assigned_to, None):
            m_new = new.member(cls_new, mc.api)
            m_old = old.member(cls_old, mc.api) if cls_old is not None else None
            what = f"{cls_new.path}.{mc.api}"
            if m_new is not None and m_new.path in catalog:
                continue
            if m_new is None:
                if m_old is not None:
                    add("METHOD_CHANGED", "error", f"`{what}` (called on the result of `{a_new.path}`) was removed at {version}", rel, mc.line, at)
                continue
            if m_new.signature is None or m_new.kind != "function":
                continue
            for code, sev, _param, msg in bind_call(mc, what, m_old.signature if m_old else None, m_new.signature, version):
                if m_old is None and code != "REMOVED_PARAM":
                    continue
                add("METHOD_CHANGED", sev, f"on the result of `{a_new.path}`: {code}: {msg}", rel, mc.line, at)

    def _imports(self, cl, sources, names, old, new, add, version):
        """Every import of the package must still resolve: else MOVED_API or REMOVED_API."""
        rows = {row.file: row.line for row in cl.rows}
        for rel, (text, tree) in sources.items():
            fallback_lines = _fallback_import_lines(tree)
            typing_lines = _type_checking_lines(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    paths = [f"{node.module}.{a.name}" for a in node.names if a.name != "*"]
                elif isinstance(node, ast.Import):
                    paths = [a.name for a in node.names]
                else:
                    continue
                for path in paths:
                    if not any(path == m or path.startswith(m + ".") for m in names):
                        continue
                    if new.resolves(path):
                        how = new.via(path)
                        if how is not None and how.warning:
                            add("DEPRECATED", "warning", f"import `{path}` is served by a {how.via} that warns at {version}: "
                                f"\"{how.warning}\"", rel, node.lineno, rows.get(rel))
                        continue
                    was = old is not None and old.resolves(path)
                    last = path.rsplit(".", 1)[-1]
                    elsewhere = new.by_name(last, kinds=("class", "function", "module"))
                    sev = "info" if node.lineno in fallback_lines else "warning" if node.lineno in typing_lines else "error"
                    at = rows.get(rel)
                    verb = "no longer resolves" if was else "does not resolve"
                    if elsewhere:
                        add("MOVED_API", sev, f"import `{path}` {verb} at {version}; `{last}` is at `{elsewhere[0]}`", rel, node.lineno, at,
                            {"old": path, "new": elsewhere[0], "new_file": _upstream_file(new, new.find(elsewhere[0]))})
                    elif was or old is None:
                        add("REMOVED_API", sev, f"import `{path}` {verb} at {version}", rel, node.lineno, at)

    def _deprecated_attributes(self, cl, sources, names, new, add, version):
        """Attribute uses (``pkg.__version__``) of names a module ``__getattr__`` serves with a warning."""
        rows = {row.file: row.line for row in cl.rows}
        for rel, (_text, tree) in sources.items():
            bound = bindings(tree, names)
            seen: set[tuple[int, str]] = set()
            for node in ast.walk(tree):
                if not isinstance(node, ast.Attribute):
                    continue
                path = resolve_use(node, bound)
                if path is None or (node.lineno, path) in seen:
                    continue
                seen.add((node.lineno, path))
                try:
                    if new.find(path) is None:
                        continue
                except Unresolved:
                    continue
                how = new.served.get(path)
                if how is not None and how.warning:
                    add("DEPRECATED", "warning", f"`{path}` is served by a {how.via} that warns at {version}: "
                        f"\"{how.warning}\"", rel, node.lineno, rows.get(rel))

    def _families(self, targets: list[Target], versions: dict[str, str], result: AuditResult) -> None:
        moving = {canonicalize_name(t.package): t for t in targets if t.old and t.old != t.new}
        for fam, members in sorted(self.cfg.families.items()):
            keys = [canonicalize_name(m) for m in members]
            moved = [k for k in keys if k in moving]
            still = [k for k in keys if k not in moving]
            if moved and still:
                t = moving[moved[0]]
                stays = ", ".join(f"{m} (at {versions.get(m, versions.get(_orig(members, m), '?'))})" for m in still)
                result.findings.append(Finding(
                    t.checklist.rel, 1, "FAMILY",
                    f"upgrade family `{fam}`: {t.package} moves {t.old} -> {t.new} but {stays} does not; check that they are compatible",
                    package=t.package, severity="warning", at_source=False))


def _upstream_file(model: UpstreamModel, obj) -> str | None:
    """The file ``obj`` is defined in, relative to the fetched source's root (the repository layout)."""
    fp = getattr(obj, "filepath", None)
    if isinstance(fp, list):
        fp = fp[0] if fp else None
    for root in model.search if fp is not None else []:
        try:
            return Path(fp).relative_to(root).as_posix()
        except ValueError:
            continue
    return None


def _unique(findings: list[Finding]) -> list[Finding]:
    seen = set()
    out = []
    for f in findings:
        key = (f.code, f.file, f.line, f.message)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def _is_method(api: Api) -> bool:
    parent = getattr(api.obj, "parent", None)
    return api.kind == "function" and parent is not None and parent.kind.value == "class"


def _orig(members: list[str], key: str) -> str:
    return next((m for m in members if canonicalize_name(m) == key), key)


def _fallback_import_lines(tree: ast.Module) -> set[int]:
    """Lines of imports inside ``try/except ImportError`` (either branch)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and catches_import_error(node):
            for part in [node.body, *(h.body for h in node.handlers)]:
                for s in part:
                    for n in ast.walk(s):
                        if isinstance(n, (ast.Import, ast.ImportFrom)):
                            out.add(n.lineno)
    return out


def _type_checking_lines(tree: ast.Module) -> set[int]:
    """Lines of imports under ``if TYPE_CHECKING:`` (never run: only type checking can break)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test).split(".")[-1] == "TYPE_CHECKING":
            for s in node.body:
                for n in ast.walk(s):
                    if isinstance(n, (ast.Import, ast.ImportFrom)):
                        out.add(n.lineno)
    return out


def progress_printer(stream=None):
    """A progress line per package, on a terminal only."""
    stream = stream or sys.stderr
    if stream.isatty():
        return lambda msg: print(msg + " ...", file=stream, flush=True)
    return None
