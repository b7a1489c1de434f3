"""The upgrade audit, the orchestration of its stages, each a function over plain data:

    uses.py     every use of the package in the code (calls, imports, subclasses,
                patched methods, forwarded keywords)
    api.py      the upstream symbols at the old and new versions (fetched, loaded with griffe)
    bind.py     each use bound against both versions: its problems
    entries.py  what the catalog adds: headings, recorded call sites, changes no use
                reached, and where in the checklist each finding belongs
    guards.py   the version guards

For each focused package whose version moves (or each at its pin, when nothing
moves), this module plans the targets, fetches and loads upstream, runs the
stages and checks the upgrade families. ``summary.py`` writes
``upgrade-summary.md`` from the result.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from packaging.utils import canonicalize_name

from upgrade_checklists.audit import fetch as fetching
from upgrade_checklists.audit.api import Unresolved
from upgrade_checklists.audit.bases import Followed, Follower, newest, newest_cached
from upgrade_checklists.project.cache import ScanCache
from upgrade_checklists.audit.bind import bind_uses, coverage, hook_names
from upgrade_checklists.audit.vendored import unlisted, unvendored, vendored_names
from upgrade_checklists.core.checklist import Checklist
from upgrade_checklists.core.config import Config
from upgrade_checklists.audit.entries import Anchors, entry_bound, entry_findings, entry_uses, not_resolved, resolve_entries
from upgrade_checklists.core.findings import Finding
from upgrade_checklists.project.snippets import guard_code, located_guard_line
from upgrade_checklists.audit.guards import GuardResult, already_dead, check_guard
from upgrade_checklists.audit.model_cache import CachedModel
from upgrade_checklists.audit.shipped import LeftOut, left_out
from upgrade_checklists.project.usecache import cached_uses
from upgrade_checklists.project.use import IMPORT, PATCH, Sources
from upgrade_checklists.project.result import Result
from upgrade_checklists.project.scan import iter_sources
from upgrade_checklists.audit.targets import AuditError, Target, plan
from upgrade_checklists.project.versions import DEFAULT, Reader, check_version, resolve
from upgrade_checklists.core.files import read_text

__all__ = ["AuditError", "AuditResult", "Auditor", "Target", "plan"]

AUDIT_FILE = "audit.json"  # in the scan cache's format directory


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
        self._failed: dict[tuple[str, str], fetching.FetchError] = {}  # what a fetch side by side could not get
        self._models: dict[tuple, CachedModel] = {}
        self._left_out: dict[str, list[LeftOut]] = {}  # checklist -> packages its distribution ships beside (``_pytest``)
        self.git_pins: dict[tuple[str, str], str] = {}  # (package, ref) -> repository of a git pin
        self._parsed: Sources | None = None
        self.store = project_store(cfg, check)
        self.fell_back: list[str] = []  # sources fetched from the index after git failed (a note each)
        self._base_pins: dict[tuple, str | None] = {}  # (variant, ref, distribution) -> its pinned version
        self.base_notes: list[str] = []  # each distribution a base was followed into (a note each, with -v)

    # -- fetching -------------------------------------------------------------------

    def fetch_all(self, wanted: list[tuple[Checklist, str]]) -> None:
        """Fetch these sources side by side, before they are needed: each fetch mostly waits
        (the network, pip, git), and a cold audit fetches the old and the new version of
        each package and of its family. What fails is said where the source is used."""
        todo = list({(cl.package, v): (cl, v) for cl, v in wanted if (cl.package, v) not in self._fetched}.values())
        if len(todo) < 2:
            return
        from concurrent.futures import ThreadPoolExecutor

        def one(job: tuple[Checklist, str]) -> None:
            try:
                self.fetch(*job)
            except fetching.FetchError as exc:
                self._failed[(job[0].package, job[1])] = exc

        with ThreadPoolExecutor(max_workers=min(4, len(todo))) as pool:
            list(pool.map(one, todo))

    def fetch(self, cl: Checklist, version: str) -> Path:
        return self._fetch(cl.package, version, cl.frontmatter, self.check.import_names.get(cl.rel, []))

    def _fetch(self, package: str, version: str, fm: dict, names: list[str], base: bool = False) -> Path:
        """The source of ``package`` at ``version`` (``fm``: its checklist's frontmatter, for the git
        source; ``names``: its import names, what a sparse clone checks out)."""
        key = (package, version)
        if key in self._fetched:
            return self._fetched[key]
        if key in self._failed:
            raise self._failed[key]
        errors = []
        pinned_repo = self.git_pins.get(key)
        if pinned_repo is not None:  # a git pin: that repository at that ref, whatever --source says
            path = fetching.fetch_git_pin(pinned_repo, version, cache_dir=self.cache_dir, timeout=self.timeout)
            self._fetched[key] = path
            return path
        kinds = ["git", "index"] if self.source == "auto" else [self.source]
        if base and self.source == "auto" and not fm.get("github"):
            kinds = ["index"]  # no repository known (a distribution reached by a base, without a checklist)
        for kind in kinds:
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
                    path = fetching.fetch_index(package, version, cache_dir=self.cache_dir, timeout=self.timeout)
                self._fetched[key] = path
                if errors:  # git failed: said with -v
                    self.fell_back.append(f"{package} {version}: the git source failed ({errors[0]}); the index's was used")
                return path
            except fetching.FetchError as exc:
                errors.append(f"{kind}: {exc}")
        raise fetching.FetchError(f"cannot fetch {package} {version}: " + "; ".join(errors))

    def family_of(self, cl: Checklist) -> list[Checklist]:
        key = canonicalize_name(cl.package)
        members: list[Checklist] = []
        for fam in self.cfg.families.values():
            names = {canonicalize_name(n) for n in fam}
            if key in names:
                members += [c for c in self.check.checklists if canonicalize_name(c.package) in names and c is not cl]
        return members

    def model(self, cl: Checklist, version: str, versions: dict[str, str], result: AuditResult) -> CachedModel:
        """The API model of ``cl`` at ``version``, its family members loaded alongside (loaded once)."""
        memo = (cl.package, version, tuple(sorted((o.package, versions.get(o.package)) for o in self.family_of(cl))))
        if memo in self._models:
            return self._models[memo]
        self._models[memo] = model = self._load_model(cl, version, versions, result)
        return model

    def import_names(self, cl: Checklist) -> list[str]:
        """What the audit reads as ``cl``'s package: its import names, and the other top-level packages its
        distribution ships that the project imports though those names leave them out (``_pytest`` beside
        ``pytest``: :func:`shipped.left_out`, found in the first source tree fetched for it)."""
        return list(self.check.import_names.get(cl.rel, [])) + [lo.name for lo in self._left_out.get(cl.rel, [])]

    def _load_model(self, cl: Checklist, version: str, versions: dict[str, str], result: AuditResult) -> CachedModel:
        root = self.fetch(cl, version)
        if cl.rel not in self._left_out:
            self._left_out[cl.rel] = left_out([root], self.check.import_names.get(cl.rel, []), self._sources())
        trees, modules = [(cl.package, version, root)], self.import_names(cl)
        for other in self.family_of(cl):
            v = versions.get(other.package)
            if v is None:
                continue
            try:
                trees.append((other.package, v, self.fetch(other, v)))
                modules += self.check.import_names.get(other.rel, [])
            except fetching.FetchError as exc:
                result.notes.append(f"{cl.package}: family member {other.package} {v} not loaded ({exc})")
        return CachedModel(trees, modules, self.cache_dir)

    # -- bases in other distributions (``bases.py``) ---------------------------------------------

    def followed(self, t: Target, model: CachedModel, version: str, side: str) -> Followed:
        """``model`` (of ``t`` at ``version``, its ``side``: "old" or "new") with the members of its
        classes' bases in other distributions, each followed at the version the project pins
        (at the base ref for the old side of a comparison with one), else the newest the
        release's own requirements allow."""
        variant = t.variants[0] if t.variants else DEFAULT
        ref = t.base_ref if side == "old" else None
        release = self._fetched.get((t.package, version))
        return Followed(model, Follower(self, release, lambda dist: self._base_pin(variant, ref, dist), label=f"{t.package} {version}",
                                        own=t.package))

    def _base_pin(self, variant: str, ref: str | None, dist: str) -> str | None:
        key = (variant, ref, canonicalize_name(dist))
        if key not in self._base_pins:
            version = None
            try:
                every = resolve(Reader(self.cfg.root, ref, cache=self.store if ref is None else None), [dist], self.cfg.manifests)
                pins = every.get(variant) or every.get(DEFAULT)
                pin = pins.resolved.get(key[2]) if pins else None
                if pin is not None:
                    version = check_version(pin.version)
                    if pin.git:
                        self.git_pins[(dist, pin.version)] = pin.git
            except Exception:  # a manifest that cannot be read at that ref, a version not allowed: not pinned
                version = None
            self._base_pins[key] = version
        return self._base_pins[key]

    def distribution_model(self, dist: str, version: str, top: str) -> tuple[CachedModel, Path]:
        """The model of distribution ``dist`` at ``version`` (fetched as a checklist of it says, else
        from the index; cached), loading import name ``top``; and its source tree."""
        cl = next((c for c in self.check.checklists if canonicalize_name(c.package) == canonicalize_name(dist)), None)
        names = self.check.import_names.get(cl.rel, []) if cl is not None else []
        names = names if top in names or top in [n.split(".")[0] for n in names] else [top]
        root = self._fetch(cl.package if cl is not None else dist, version, cl.frontmatter if cl is not None else {}, names, base=True)
        memo = ("base", canonicalize_name(dist), version, top)
        if memo not in self._models:
            self._models[memo] = CachedModel([(dist, version, root)], names, self.cache_dir)
        return self._models[memo], root

    def newest_release(self, dist: str, spec) -> str | None:
        """The newest release of ``dist`` that ``spec`` allows on pip's indexes (remembered a day)."""
        from upgrade_checklists.audit.ledger import index_releases

        return newest_cached(self.cache_dir, dist, spec, lambda: newest(index_releases(dist, min(self.timeout, 120)), spec))

    def save_models(self) -> None:
        """Keep what the audit asked of each model (the next audit of these versions loads none),
        and what it learnt of the project (``audit.json``)."""
        for model in self._models.values():
            model.save()
        if self.store is not None:
            self.store.save()

    # -- the audit ------------------------------------------------------------------------

    def run(self, targets: list[Target]) -> AuditResult:
        try:
            return self._run(targets)
        finally:
            self.save_models()

    def _run(self, targets: list[Target]) -> AuditResult:
        result = AuditResult(targets=targets)
        every = resolve(Reader(self.cfg.root, cache=self.store), [cl.package for cl in self.check.checklists], self.cfg.manifests)
        for pins in every.values():
            for key, pin in pins.resolved.items():
                if pin.git:
                    self.git_pins[(self._package(key), pin.version)] = pin.git
        for t in targets:
            if t.old and t.old_git:
                self.git_pins[(t.package, t.old)] = t.old_git
            if t.new_git:
                self.git_pins[(t.package, t.new)] = t.new_git
        wanted = []
        for t in targets:
            for version, versions in zip((t.new, t.old), self._versions(t, targets, every)):
                if version:
                    wanted.append((t.checklist, version))
                    wanted += [(o, versions[o.package]) for o in self.family_of(t.checklist) if o.package in versions]
        self.fetch_all(wanted)
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
                    old = self.followed(t, old, t.old, "old")
                new = self.followed(t, new, t.new, "new")
            except fetching.FetchError as exc:
                result.errors.append(f"{t.package}: {exc}")
                result.findings.append(Finding(t.checklist.rel, 1, "FETCH", str(exc), package=t.package, severity="warning", at_source=False))
                t.findings = _unique(result.findings[start:])
                continue
            # every look-up of a use or an entry answers Unresolved where it is asked: one reaching here is a
            # bug, and it stops the audit (exit 2, crash log) rather than drop the package's findings unsaid
            self._audit_package(t, old, new, result)
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
        result.notes += sorted(self.fell_back) + list(dict.fromkeys(self.base_notes))
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
        return fetching.fetched_from(path) or str(path)

    def _sources(self) -> Sources:
        """Every project source (subclasses are followed across files), read and parsed when first
        needed; a file git lists that is gone from the work tree (deleted, not yet staged) is none."""
        if self._parsed is None:
            root = self.cfg.root
            texts = {rel: read_text(root, rel) for rel in sorted(set(iter_sources(self.cfg.root, self.cfg.roots, self.cfg.exclude))
                                                                   | set(self.check.facts)) if rel.endswith(".py")}
            rels = [rel for rel, text in texts.items() if text is not None]  # inside the repository, readable
            self._parsed = Sources(rels, read=lambda rel: texts.pop(rel, None) or read_text(root, rel) or "")
        return self._parsed

    def _audit_package(self, t: Target, old: CachedModel | None, new: CachedModel, result: AuditResult) -> None:
        """uses in the code -> bound at both versions -> findings, anchored in the checklist."""
        cl = t.checklist
        names = self.import_names(cl)
        sources = self._sources()
        # the project unchanged: nothing parsed; functions named like none of upstream's hooks are not read as such
        found = cached_uses(self.store, self.cfg.root, sources, names, hooks=hook_names(old, new))
        found = unvendored(found, vendored_names(names, new))  # ``requests.packages.urllib3.x`` is ``urllib3.x``
        resolved = resolve_entries(cl.entries, old, new, names)
        found += entry_uses(resolved, sources, found)
        covered = frozenset(r.new.path for r in resolved if r.new is not None)
        bound = bind_uses(found, old, new, t.new, covered)
        t.resolved = sum(r.new is not None for r in resolved)
        t.calls = sum(b.use.kind != IMPORT and b.use.call is not None for b in bound)
        t.bound = sum(b.signature for b in bound)
        t.coverage = coverage(bound)
        anchors = Anchors(cl, resolved)

        def add(code: str, severity: str, message: str, file: str | None = None, line: int | None = None, at: int | None = None,
                fix: dict | None = None):
            result.findings.append(Finding(cl.rel, at or 1, code, message, file, line, cl.package, fix, severity=severity, at_source=True))

        for b in bound:
            for code, sev, _param, msg in b.problems:
                add(code, sev, msg, b.use.file, b.use.line, anchors.line(b), b.fix if code == "MOVED_API" else None)
        for at, code, sev, msg, file, line, fix in entry_findings(resolved, bound, old, new, t.new):
            add(code, sev, msg, file, line, at, fix)
        t.not_resolved += not_resolved(resolved, bound, new, t.new)
        t.entry_bound.update(entry_bound(resolved, bound))
        dead_before: set[tuple[str, int]] = set()  # guards already dead at the old version: counted, not listed

        def judged(file: str, source: str, line: int, code: str | None = None) -> list[GuardResult]:
            now = _guard(source, line, new, names, t.new, code)
            if old is None or not any(r.code == "GUARD_DEAD" for r in now):
                return now
            stale = already_dead(now, _guard(source, line, old, names, t.old, code))
            if stale:
                dead_before.add((file, line))
            return [r for r in now if all(r is not x for x in stale)]

        for g in cl.guards:
            source = read_text(self.cfg.root, g.file)  # never through a link leading out
            # where its quoted expression now is (a guard recorded without a line: found by its code)
            line = (located_guard_line(source, g) or g.line) if source is not None else None
            if line is None:
                shown = f"`{g.file}:{g.line}`" if g.line is not None else f"`{g.file}`"
                add("GUARD_UNKNOWN", "warning", f"version guard {shown} not found", g.file, g.line, g.ref_line)
                continue
            for r in judged(g.file, source, line, guard_code(g)):
                add(r.code, r.severity, r.message, g.file, line, g.ref_line)
        listed = {(g.file, g.line) for g in cl.guards}
        for u in found:  # the guard around a patch is that method's version guard, listed or not
            if u.kind == PATCH and u.guard_line is not None and (u.file, u.guard_line) not in listed:
                listed.add((u.file, u.guard_line))
                for r in judged(u.file, sources.text(u.file), u.guard_line):
                    if r.code != "GUARD_UNKNOWN":
                        add(r.code, r.severity, r.message, u.file, u.guard_line, anchors.rows.get(u.file))
        for lo in self._left_out.get(cl.rel, []):  # audited with the package; the checklist does not list them
            more = f" (and {lo.files - 1} other file(s))" if lo.files > 1 else ""
            add("UNRESOLVED", "warning", f"`{lo.name}` is a package the {t.package} distribution ships, imported here{more}, "
                "but the checklist's import names leave it out: its uses are audited with the package in this run, "
                "but the checklist does not list them (add it to `import_names`)",
                lo.file, lo.line, anchors.rows.get(lo.file))
        for r, why in unlisted(self.check.facts, sources, names, (new, old)):  # ``requests.packages.urllib3`` left out
            more = f" (and {r.files - 1} other file(s))" if r.files > 1 else ""
            add("UNRESOLVED", "warning", f"`{r.name}` reads as {r.package} re-exported under another name ({why}), imported "
                f"here{more}, but the checklist's import names leave it out: uses through `{r.name}` are not audited until you "
                "add it to `import_names`", r.file, r.line, anchors.rows.get(r.file))
        if dead_before:
            add("GUARD_DEAD", "info", f"{len(dead_before)} version guard(s) not listed: already dead at the old version {t.old} "
                "(a version check at or below it, an import or attribute it already had), so not news of this upgrade")

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


def project_store(cfg: Config, check: Result) -> ScanCache | None:
    """The audit's own cache file beside the check's (``audit.json`` in the scan cache's format
    directory, same header: format, tool build, machine, repository root); None when the
    check ran without a cache (``--no-cache``, no ``cache_dir``)."""
    cache = getattr(check, "cache", None)
    if cache is None or cache.root is None:
        return None
    return ScanCache(cache.root, str(cfg.root.resolve()), name=AUDIT_FILE)


def _unique(findings: list[Finding]) -> list[Finding]:
    seen = set()
    out = []
    for f in findings:
        key = (f.code, f.file, f.line, f.message)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def _orig(members: list[str], key: str) -> str:
    return next((m for m in members if canonicalize_name(m) == key), key)


def _guard(source: str, line: int, new: CachedModel, names: list[str], version: str,
           code: str | None = None) -> list[GuardResult]:
    try:
        return check_guard(source, line, new, names, version, code)
    except Unresolved as exc:
        return [GuardResult("GUARD_UNKNOWN", "info", f"cannot tell: {exc}")]


def progress_printer(stream=None):
    """A progress line per package, on a terminal only."""
    stream = stream or sys.stderr
    if stream.isatty():
        return lambda msg: print(msg + " ...", file=stream, flush=True)
    return None
