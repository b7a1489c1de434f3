"""``audit --ledger``: the first release, between old and new, in which each finding appears.

Each breaking finding, and each change no call site breaks on (a new optional
parameter, a removed parameter nobody passes, a dead guard: an adjacent-release ledger
records those too), is located in the first release that shows it.

The releases come from the package index (the simple repository API pages of pip's
configured indexes and find-links, read as ``index.py`` reads them: file names only,
nothing downloaded or run), or, with ``--source git``, are not listed (the ledger says
so). Pre-releases count only when the old or the new version is one. Each breaking
finding of the old -> new audit is then bisected over the releases: a *probe* audits
old -> release and records which breaking findings appear (a finding is the same across
releases when its code, place and message, the version spelled ``{V}``, are). Probes are
shared between findings and kept on disk as plain JSON per (package, old version,
release, inputs), so auditing the same range again loads no upstream source at all.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

from packaging.utils import InvalidSdistFilename, InvalidWheelFilename, canonicalize_name, parse_sdist_filename, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from upgrade_checklists.audit import index
from upgrade_checklists.core.findings import Finding
from upgrade_checklists.core.files import read_text

FORMAT = 1
#: the codes a ledger follows besides the breaking ones: changes, found with or without a call site affected
LEDGER_CODES = ("REMOVED_PARAM", "RENAMED_PARAM", "NEW_REQUIRED_PARAM", "NEW_OPTIONAL_PARAM", "POSITION_CHANGED",
                "RETURN_CHANGED", "REMOVED_API", "MOVED_API", "METHOD_CHANGED", "GUARD_DEAD")


def index_releases(package: str, timeout: int = 60) -> list[str]:
    """Every version of ``package`` the configured indexes and find-links hold, oldest first."""
    sources = index.pip_sources(timeout)
    names: list[str] = []
    for loc in sources.find_links:
        path = Path(loc[7:] if loc.startswith("file://") else loc)
        if "://" not in loc or loc.startswith("file://"):
            if path.is_dir():
                names += [p.name for p in path.iterdir()]
            continue
        names += [index._filename(u) for u in index._page_links(loc, timeout, sources.cert)]
    for base in sources.index_urls:
        url = base.rstrip("/") + "/" + canonicalize_name(package) + "/"
        try:
            names += [index._filename(u) for u in index._page_links(url, timeout, sources.cert)]
        except (OSError, ValueError, index.IndexLookupError):
            continue
    versions = set()
    for name in names:
        v = _version_of(name, package)
        if v is not None:
            versions.add(v)
    return [str(v) for v in sorted(versions)]


def _version_of(filename: str, package: str) -> Version | None:
    try:
        if filename.endswith(".whl"):
            name, ver, _build, _tags = parse_wheel_filename(filename)
        elif filename.endswith((".tar.gz", ".zip")):
            name, ver = parse_sdist_filename(filename)
        else:
            return None
    except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
        return None
    return ver if canonicalize_name(name) == canonicalize_name(package) else None


def between(releases: list[str], old: str, new: str) -> list[str]:
    """The releases after ``old`` up to and including ``new``; pre-releases only when
    ``old`` or ``new`` is one."""
    try:
        lo, hi = Version(old), Version(new)
    except InvalidVersion:
        return []
    pre = lo.is_prerelease or hi.is_prerelease
    out = []
    for r in releases:
        try:
            v = Version(r)
        except InvalidVersion:
            continue
        if lo < v <= hi and (pre or not (v.is_prerelease or v.is_devrelease)):
            out.append(r)
    if new not in out and out and Version(out[-1]) == hi:
        out[-1] = new  # the spelling the audit used
    return out


def key(f: Finding, version: str) -> str:
    """A finding's identity across releases: code, place, message with the version as ``{V}``."""
    message = re.sub(rf"(?<![\w.]){re.escape(version)}(?![\w.])", "{V}", f.message)
    return json.dumps([f.code, f.file, f.line, f.checklist_line, message])


class ProbeCache:
    """Probe results on disk: ``{release: [finding keys]}`` per (package, old version, inputs)."""

    def __init__(self, directory: Path | None, package: str, old: str, inputs: str) -> None:
        digest = hashlib.sha256(json.dumps([FORMAT, package, old, inputs]).encode()).hexdigest()[:24]
        self.path = directory / "ledger" / re.sub(r"[^A-Za-z0-9._-]+", "_", package) / f"{digest}.json" if directory else None
        self.data: dict[str, list[str]] = {}
        if self.path is not None and self.path.is_file():
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
                if isinstance(data, dict) and all(isinstance(k, str) and isinstance(v, list) and all(isinstance(x, str) for x in v)
                                                  for k, v in data.items()):
                    self.data = data
            except (OSError, ValueError):
                self.data = {}

    def get(self, release: str) -> set[str] | None:
        found = self.data.get(release)
        return None if found is None else set(found)

    def put(self, release: str, keys: set[str]) -> None:
        self.data[release] = sorted(keys)
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".ledger-")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(self.data, f, indent=0, sort_keys=True)
        os.replace(tmp, self.path)


def bisect(releases: list[str], wanted: list[str], probe) -> dict[str, str]:
    """``{finding key: first release it appears in}``; ``probe(release)`` -> set of keys.
    The last release (the new version) is known to have every wanted key."""
    memo: dict[int, set[str]] = {}

    def has(i: int, k: str) -> bool:
        if i not in memo:
            memo[i] = probe(releases[i])
        return k in memo[i]

    out = {}
    for k in wanted:
        lo, hi = 0, len(releases) - 1
        if hi < 0:
            continue
        while lo < hi:
            mid = (lo + hi) // 2
            if has(mid, k):
                hi = mid
            else:
                lo = mid + 1
        out[k] = releases[lo]
    return out


def run(auditor, result) -> dict[Finding, str]:
    """``{breaking finding: first release}`` for every moved target of ``result`` (``auditor``
    is the :class:`~upgrade_checklists.audit.pipeline.Auditor` that produced it)."""
    from upgrade_checklists.audit.pipeline import AuditResult
    from upgrade_checklists.project.cache import build_id
    from upgrade_checklists.audit.fetch import FetchError
    from upgrade_checklists.audit.targets import Target
    from upgrade_checklists.project.versions import Reader, resolve

    every = resolve(Reader(auditor.cfg.root, cache=auditor.store), [cl.package for cl in auditor.check.checklists], auditor.cfg.manifests)
    introduced: dict[Finding, str] = {}
    for t in result.targets:
        breaking = [f for f in t.findings if (f.severity == "error" and f.code != "FETCH") or f.code in LEDGER_CODES]
        if not t.old or t.old == t.new or not breaking:
            continue
        if t.old_git or t.new_git:
            result.notes.append(f"{t.package}: ledger not made (a git pin has no releases to list)")
            continue
        try:
            releases = between(index_releases(t.package, auditor.timeout), t.old, t.new)
        except (OSError, ValueError, index.IndexLookupError) as exc:
            result.notes.append(f"{t.package}: ledger not made (cannot list the releases: {exc})")
            continue
        if not releases or releases[-1] != t.new:
            result.notes.append(f"{t.package}: ledger not made ({t.new} is not among the index's releases)")
            continue
        new_versions, _old = auditor._versions(t, [t], every)
        h = hashlib.sha256(build_id().encode() + t.checklist.text.encode() + json.dumps(sorted(new_versions.items())).encode())
        names = auditor.import_names(t.checklist)
        for rel, facts in sorted(auditor.check.facts.items()):
            if facts.imports_of(names):
                h.update(rel.encode() + b"\0" + (read_text(auditor.cfg.root, rel) or "").encode("utf-8", "surrogateescape"))
        cache = ProbeCache(auditor.cache_dir, t.package, t.old, h.hexdigest())
        keys = {key(f, t.new): f for f in breaking}
        cache.put(t.new, set(keys) | (cache.get(t.new) or set()))
        probes = []

        def probe(release: str, t=t, cache=cache, probes=probes) -> set[str]:
            found = cache.get(release)
            if found is not None:
                return found
            probes.append(release)
            auditor.progress(f"ledger: {t.package} {t.old} -> {release}")
            sub = Target(t.package, t.checklist, t.old, release, "ledger probe", variants=list(t.variants))
            res = AuditResult(targets=[sub])
            nv, ov = auditor._versions(sub, [sub], every)
            try:
                new = auditor.model(t.checklist, release, nv, res)
                old = auditor.model(t.checklist, t.old, ov, res)
            except FetchError as exc:
                result.notes.append(f"{t.package}: ledger probe at {release} failed ({exc}); counted as not yet broken")
                return set()
            auditor._audit_package(sub, old, new, res)
            found = {key(f, release) for f in res.findings if (f.severity == "error" and f.code != "FETCH") or f.code in LEDGER_CODES}
            cache.put(release, found)
            return found

        try:
            first = bisect(releases, list(keys), probe)
        finally:
            auditor.save_models()
        for k, release in first.items():
            introduced[keys[k]] = release
        result.notes.append(f"{t.package}: ledger over {len(releases)} releases ({', '.join(releases)}); "
                            f"{len(probes)} loaded ({', '.join(probes) or 'none: all from the cache'})")
    return introduced
