"""The status file's Package Impact Matrix against the manifests: MATRIX.

For each row (package, scope, locations per manifest): the package must be declared in
each manifest exactly at the locations its cell names (``—``: nowhere in that
manifest), with the pin a parenthesis claims (``(==0.15.0)``, ``(≥2.9.1)``,
``(git pin)``); a ``shared`` package must be pinned alike in every manifest; and every
focused package (a checklist, or a row of the Focused Packages table) needs a row.
Only the manifests named by the matrix's columns are read (their declarations cached by
stat): no lock file, no source file.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from dataclasses import dataclass

from upgrade_checklists.project.cache import ScanCache
from upgrade_checklists.core.config import Config
from upgrade_checklists.core.findings import Finding
from upgrade_checklists.core.plain import PlainError, from_plain, to_plain
from upgrade_checklists.project.sources import SideJob
from upgrade_checklists.project.status_tables import StatusTables

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_NONE = {"", "—", "–", "-", "n/a", "none"}
_ALIASES = {
    "optional-deps": "project.optional-dependencies",
    "optional-dependencies": "project.optional-dependencies",
    "project.optional-dependencies": "project.optional-dependencies",
    "project.optional-deps": "project.optional-dependencies",
    "project": "project",
    "tool.uv": "tool.uv",
    "dependency-groups": "dependency-groups",
}


_CANONICAL_RE = re.compile(r"[-_.]+")


def canonicalize_name(name: str) -> str:
    """PEP 503 normalised name (what ``packaging.utils.canonicalize_name`` returns), without
    importing packaging on the warm path."""
    return _CANONICAL_RE.sub("-", name).lower()


@dataclass(frozen=True)
class Declared:
    location: str  # "[project].dependencies", "[project.optional-dependencies].megatron", ...
    spec: str  # the specifier ("==0.15.0", ">=2.9.1,<2.11") or "git+URL@ref"
    line: int


_LEADING_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def declarations(text: str, wanted: set[str] | None = None) -> dict[str, list[Declared]] | None:
    """``{canonical name: [Declared]}`` of a pyproject's requirements (None: not TOML);
    with ``wanted``, of those packages only (the others are not parsed)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    lines = text.splitlines()
    out: dict[str, list[Declared]] = {}
    project = data.get("project", {}) if isinstance(data.get("project"), dict) else {}
    places = [("[project].dependencies", project.get("dependencies", []))]
    for extra, reqs in (project.get("optional-dependencies") or {}).items():
        places.append((f"[project.optional-dependencies].{extra}", reqs))
    places.append(("[tool.uv].override-dependencies", ((data.get("tool") or {}).get("uv") or {}).get("override-dependencies", [])))
    for group, reqs in (data.get("dependency-groups") or {}).items():
        places.append((f"[dependency-groups].{group}", reqs))
    for where, reqs in places:
        for raw in reqs if isinstance(reqs, list) else []:
            if not isinstance(raw, str):
                continue
            lead = _LEADING_NAME.match(raw)
            if wanted is not None and (lead is None or canonicalize_name(lead.group(1)) not in wanted):
                continue
            from upgrade_checklists.project.versions import parse_requirement  # packaging: only when a manifest is re-read

            req = parse_requirement(raw)
            if req is None:
                continue
            spec = req.url or str(req.specifier)
            line = next((i + 1 for i, text_line in enumerate(lines) if raw in text_line), 1)
            out.setdefault(canonicalize_name(req.name), []).append(Declared(where, spec, line))
    return out


def _locations(cell: str) -> tuple[list[str], list[str]]:
    """The backticked locations of a matrix cell, normalised, and the parenthesised claims."""
    locs = []
    for code in re.findall(r"`([^`]+)`", cell):
        m = re.match(r"^\[([^\]]+)\]\.?(.*)$", code.strip())
        if not m:
            continue
        table = _ALIASES.get(m.group(1).strip(), m.group(1).strip())
        key = m.group(2).strip()
        if table == "project.optional-dependencies":
            locs.append(f"[project.optional-dependencies].{key}")
        else:
            locs.append(f"[{table}].{key}")
    claims = [c.strip() for c in re.findall(r"\(([^)]*)\)", re.sub(r"`[^`]*`", "", cell))]
    return locs, claims


def _claim_holds(claim: str, declared: list[Declared]) -> bool | None:
    """A parenthesised claim against the declarations (None: not a claim we read)."""
    c = claim.replace("≥", ">=").replace("≤", "<=").replace(" ", "")
    if claim.lower() == "git pin":
        return any(d.spec.startswith("git+") for d in declared)
    if re.match(r"^(==|>=|<=|~=|!=|<|>)[\w.*+!-]+$", c):
        return any(c in d.spec.split(",") for d in declared)
    return None


def _wanted(tables: StatusTables) -> set[str]:
    return {canonicalize_name(row.package) for row in tables.matrix}


def _key(rel: str, wanted: set[str]) -> str:
    return f"manifest:{rel}:{','.join(sorted(wanted))}"


def unread_manifests(cfg: Config, tables: StatusTables | None, cache: ScanCache | None) -> list[tuple[str, os.stat_result]]:
    """The manifests :func:`check_matrix` will read, and their stats, whose declarations the
    cache does not hold: read ahead, on the cold path's second core, with
    :func:`read_ahead` (parsing requirements imports packaging, a cost worth sharing)."""
    if tables is None or not tables.has_matrix or cache is None or cache.directory is None:
        return []
    wanted, out = _wanted(tables), []
    for rel in dict.fromkeys(m for row in tables.matrix for m in row.locations):
        try:
            st = (cfg.root / rel).stat()
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(st.st_mode) and not cache.get(_key(rel, wanted), st)[0]:
            out.append((rel, st))
    return out


def read_ahead(cfg: Config, tables: StatusTables, rel: str) -> object:
    """A manifest's declarations as plain data (what :func:`remember` stores)."""
    text = (cfg.root / rel).read_text(encoding="utf-8", errors="replace")
    return to_plain(declarations(text, _wanted(tables)))


def remember(cache: ScanCache, tables: StatusTables, rel: str, st: os.stat_result, plain: object) -> None:
    """Store declarations :func:`read_ahead` found, for the manifest as it was (``st``)."""
    cache.put(_key(rel, _wanted(tables)), st, plain)


def read_ahead_job(cfg: Config, tables: StatusTables | None, cache: ScanCache | None) -> SideJob:
    """The manifests :func:`check_matrix` will read, read ahead as one job of the scan's
    share of the cores (every manifest in one job: one process imports packaging)."""
    return SideJob(keys=lambda: unread_manifests(cfg, tables, cache),
                   work=lambda key: read_ahead(cfg, tables, key[0]),
                   done=lambda key, plain: remember(cache, tables, key[0], key[1], plain))


def _cached_declarations(path, rel: str, wanted: set[str], cache: ScanCache | None) -> dict[str, list[Declared]] | None:
    """A manifest's declarations of the matrix's packages, cached by the manifest's stat."""
    st = path.stat()
    key = _key(rel, wanted)
    if cache is not None:
        hit, data = cache.get(key, st)
        if hit and (data is None or type(data) is dict):
            try:
                return None if data is None else {k: [from_plain(Declared, d) for d in v] for k, v in data.items()}
            except (PlainError, TypeError, AttributeError):
                pass
    out = declarations(path.read_text(encoding="utf-8", errors="replace"), wanted)
    if cache is not None:
        cache.put(key, st, to_plain(out))
    return out


def check_matrix(cfg: Config, tables: StatusTables, focused: list[str], cache: ScanCache | None = None) -> list[Finding]:
    rel = cfg.status_file
    findings: list[Finding] = []
    if not tables.has_matrix:
        return findings

    def add(message: str, line: int, package: str | None, file: str | None = None, file_line: int | None = None) -> None:
        findings.append(Finding(rel, line, "MATRIX", message, file, file_line, package))

    manifests: dict[str, dict[str, list[Declared]] | None] = {}
    wanted = _wanted(tables)
    for row in tables.matrix:
        for m in row.locations:
            if m not in manifests:
                path = cfg.root / m
                manifests[m] = _cached_declarations(path, m, wanted, cache) if path.is_file() else None
                if manifests[m] is None:
                    add(f"the matrix has a column for {m}, which " + ("is not valid TOML" if path.is_file() else "does not exist"),
                        row.line, None)
    listed = set()
    for row in tables.matrix:
        key = canonicalize_name(row.package)
        listed.add(key)
        specs: dict[str, set[str]] = {}
        for m, cell in row.locations.items():
            decl = manifests.get(m)
            if decl is None:
                continue
            every = decl.get(key, [])
            have = [d for d in every if d.spec]  # where a version is declared (unpinned mentions pin nothing)
            where = {d.location for d in have}
            first = every[0].line if every else None
            if cell.strip().lower() in _NONE:
                if have:
                    add(f"`{row.package}` is pinned in {m} at {_join(where)}, but the matrix says it is not there ({cell.strip() or 'empty'})",
                        row.line, row.package, m, first)
                continue
            want, claims = _locations(cell)
            mentioned = {d.location for d in every}
            for loc in want:
                if loc not in mentioned:
                    add(f"the matrix lists `{row.package}` at `{loc}` in {m}, but it is not declared there"
                        + (f" (it is pinned at {_join(where)})" if where else ""), row.line, row.package, m, first)
            for loc in sorted(where - set(want)):
                d = next(x for x in have if x.location == loc)
                add(f"`{row.package}` is pinned in {m} at `{loc}`, which the matrix does not list", row.line, row.package, m, d.line)
            for claim in claims:
                if _claim_holds(claim, have) is False:
                    shown = "; ".join(f"`{d.spec}` at `{d.location}`" for d in have) or "no pin"
                    add(f"the matrix says `{row.package}` is ({claim}) in {m}, but it declares {shown}", row.line, row.package, m, first)
            listed_here = [d for d in every if d.location in want]
            if listed_here:
                specs[m] = {d.spec or "unpinned" for d in listed_here}
        if row.scope == "shared" and len({frozenset(s) for s in specs.values()}) > 1:
            shown = "; ".join(f"{_join(sorted(s))} in {m}" for m, s in specs.items())
            add(f"`{row.package}` is `shared` but pinned differently: {shown}", row.line, row.package)
    for name in focused:
        if canonicalize_name(name) not in listed:
            add(f"focused package `{name}` has no row in the Package Impact Matrix", 1, name)
    return findings


def _join(items) -> str:
    return ", ".join(f"`{i}`" for i in sorted(items))
