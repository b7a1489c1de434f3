"""Compare checklists with the code: the structure check's findings.

Input: the configuration. Output: a :class:`Result` holding plain findings.
Nothing here prints or exits; ``report.py`` formats, ``cli.py`` decides.
"""

from __future__ import annotations

import bisect
import os
import re
import stat
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

from upgrade_checklists.cache import ScanCache
from upgrade_checklists.checklist import TIERS, Checklist, Row, cell_codes, read_checklist, read_status, table_rows
from upgrade_checklists.config import Config, ConfigError
from upgrade_checklists.findings import Finding
from upgrade_checklists.scan import Facts, Import, Prefilter, iter_sources, scan_file


@dataclass
class Result:
    findings: list[Finding] = field(default_factory=list)
    checklists: list[Checklist] = field(default_factory=list)
    files_scanned: int = 0
    notes: list[str] = field(default_factory=list)
    facts: dict[str, Facts] = field(default_factory=dict)
    import_names: dict[str, list[str]] = field(default_factory=dict)
    tiers: "TierRules | None" = None
    cache: ScanCache | None = None


# --- loading -------------------------------------------------------------------


def load_checklists(cfg: Config, cache: ScanCache | None = None) -> list[Checklist]:
    d = cfg.checklist_dir
    if not d.is_dir():
        raise ConfigError(f"checklist directory {cfg.checklists!r} not found (configure 'checklists')")
    out = []
    for path in sorted(d.glob("*.md")):
        if path.name.startswith("_"):
            continue
        rel = path.relative_to(cfg.root).as_posix()
        if cache is None:
            out.append(read_checklist(path, rel))
            continue
        st = path.stat()
        hit, cl = cache.get("checklist:" + rel, st)
        if not hit:
            cl = read_checklist(path, rel)
            cache.put("checklist:" + rel, st, cl)
        out.append(cl)
    return out


def resolve_import_names(cl: Checklist, cfg: Config, guide: dict[str, list[str]]) -> tuple[list[str], str]:
    """The import paths a checklist's package is used through, and where they came from."""
    names = cl.frontmatter.get("import_names")
    if isinstance(names, list) and names and all(isinstance(n, str) for n in names):
        return list(names), "frontmatter import_names"
    for key in (cl.package, cl.name):
        if key in cfg.import_names:
            return cfg.import_names[key], "configuration [tool.upgrade-checklists.import-names]"
        if key in guide:
            return guide[key], f"maintenance guide {cfg.maintenance_guide}"
    return [derive_import_name(cl.package, [e.api for e in cl.entries if e.api])], "derived from the package name and catalog headings"


def derive_import_name(package: str, headings: list[str]) -> str:
    parts = [p for p in re.split(r"[-_.]+", package.lower()) if p]
    if parts and parts[0].startswith("py") and len(parts[0]) > 2:
        alt = [parts[0][2:]] + parts[1:]
    else:
        alt = []
    candidates = []
    for ps in (parts, alt):
        for k in range(len(ps), 0, -1):
            candidates += [".".join(ps[:k]), "_".join(ps[:k])]
    apis = [h.strip("`()") for h in headings]
    for c in sorted(set(candidates), key=len, reverse=True):
        if any(a == c or a.startswith(c + ".") for a in apis):
            return c
    return "_".join(parts) or package


def read_guide_mapping(cfg: Config) -> dict[str, list[str]]:
    """``| pip name | `import.name` |`` rows of tables in the maintenance guide."""
    if not cfg.maintenance_guide:
        return {}
    path = cfg.root / cfg.maintenance_guide
    if not path.is_file():
        raise ConfigError(f"maintenance_guide {cfg.maintenance_guide!r} not found")
    out: dict[str, list[str]] = {}
    for _line, cells in table_rows(path.read_text(encoding="utf-8")):
        if len(cells) < 2:
            continue
        pip = cells[0].content.strip().strip("`")
        mods = cell_codes(cells[1])
        if pip and mods and all(re.match(r"^[A-Za-z_][\w.]*$", m) for m in mods):
            out[pip] = mods
    return out


# --- tiers -----------------------------------------------------------------------


@dataclass
class TierRules:
    rules: list[tuple[str, str]]  # (pattern, tier), most specific first
    inferred: bool

    @classmethod
    def build(cls, cfg: Config, checklists: list[Checklist]) -> "TierRules":
        if cfg.tiers is not None:
            rules = [(p, t) for t in TIERS for p in cfg.tiers.get(t, [])]
            return cls(sorted(rules, key=lambda r: -len(r[0].rstrip("/"))), False)
        votes: dict[str, set[str]] = {}
        for cl in checklists:
            for row in cl.rows:
                parent = row.file.rsplit("/", 1)[0] + "/" if "/" in row.file else ""
                if parent:
                    votes.setdefault(parent, set()).add(row.tier)
        rules = [(d, ts.pop()) for d, ts in votes.items() if len(ts) == 1]
        return cls(sorted(rules, key=lambda r: -len(r[0])), True)

    def tier_of(self, path: str) -> tuple[str | None, str | None]:
        for pattern, tier in self.rules:
            if any(ch in pattern for ch in "*?["):
                if fnmatch(path, pattern):
                    return tier, pattern
            else:
                p = pattern.rstrip("/")
                if path == p or path.startswith(p + "/") or p in ("", "."):
                    return tier, pattern
        return None, None


# --- token matching ---------------------------------------------------------------

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


# --- snippets ----------------------------------------------------------------------

_ELISION = re.compile(r"^\s*(?:#\s*)?(?:\.\.\.|\u2026)\s*$")


class SquashedText:
    """A file's text with all whitespace removed, mapped back to line numbers."""

    def __init__(self, text: str) -> None:
        parts, starts, pos = [], [], 0
        for line in text.split("\n"):
            s = "".join(line.split())
            starts.append(pos)
            parts.append(s)
            pos += len(s)
        self.text = "".join(parts)
        self.starts = starts
        self.line_count = len(starts) - (1 if text.endswith("\n") else 0)

    def line_at(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) if offset < len(self.text) else len(self.starts)

    def find(self, snippet: str) -> list[tuple[int, int]]:
        """(start line, end line) of each place the snippet occurs."""
        chunks, cur = [], []
        for line in snippet.split("\n"):
            if _ELISION.match(line):
                if cur:
                    chunks.append("".join(cur))
                cur = []
            else:
                cur.append("".join(line.split()))
        if cur:
            chunks.append("".join(cur))
        chunks = [c for c in chunks if c]
        if not chunks:
            return []
        out = []
        start = self.text.find(chunks[0])
        while start != -1:
            end = start + len(chunks[0])
            ok = True
            for c in chunks[1:]:
                at = self.text.find(c, end)
                if at == -1:
                    ok = False
                    break
                end = at + len(c)
            if ok:
                out.append((self.line_at(start), self.line_at(end - 1)))
            start = self.text.find(chunks[0], start + 1)
        return out


# --- the check ---------------------------------------------------------------------


def run_check(cfg: Config, use_cache: bool = True) -> Result:
    res = Result()
    cache_dir = cfg.root / cfg.cache_dir if (use_cache and cfg.cache_dir) else None
    res.cache = ScanCache(cache_dir, str(cfg.root.resolve()))
    checklists = load_checklists(cfg, res.cache)
    res.checklists = checklists
    guide = read_guide_mapping(cfg)
    for cl in checklists:
        names, how = resolve_import_names(cl, cfg, guide)
        res.import_names[cl.rel] = names
        res.notes.append(f"{cl.rel}: import names {', '.join(names)} ({how})")
        res.findings.extend(cl.problems)
    tiers = TierRules.build(cfg, checklists)
    res.tiers = tiers
    if tiers.inferred:
        shown = ", ".join(f"{p} -> {t}" for p, t in tiers.rules) or "none"
        res.notes.append(f"tiers inferred from the checklists (no [tool.upgrade-checklists.tiers]): {shown}")

    listed = {row.file for cl in checklists for row in cl.rows}
    _scan(cfg, res, listed)

    snippets = Snippets(cfg.root, res.cache)
    for cl in checklists:
        _compare_tables(cfg, res, cl, tiers)
        _check_catalog(res, cl, snippets)
    snippets.save()
    if cfg.status_file:
        _check_status(cfg, res, checklists)
    res.cache.save()
    return res


def _scan(cfg: Config, res: Result, listed: set[str]) -> None:
    """Imports of every file that may import a focused package, and of every
    listed file. Names and strings (full facts) are collected later, only for
    the listed files whose rows the imports alone cannot decide."""
    modules = sorted({m for names in res.import_names.values() for m in names})
    may_import = Prefilter(modules)
    skip = ("skip", tuple(modules))  # a negative pre-filter result holds for these modules only
    cache = res.cache
    sources = iter_sources(cfg.root, cfg.roots, cfg.exclude)
    known = set(sources)
    extra = sorted(f for f in listed if f.endswith(".py") and f not in known)
    for rel in sources + extra:
        path = os.path.join(cfg.root, rel)
        try:
            st = os.stat(path)
        except OSError:
            continue
        hit, out = cache.get(rel, st)
        if not hit or (out == skip and rel in listed) or (type(out) is tuple and out != skip):
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                continue
            if rel not in listed and not may_import(data):
                out = skip
            else:
                out = scan_file(rel, data, False)
            cache.put(rel, st, out)
        if isinstance(out, Finding):
            res.findings.append(out)
        elif isinstance(out, Facts):
            res.facts[rel] = out
    res.files_scanned = len(sources)


def _row_tokens_cover(row: Row, imp: Import, facts: Facts) -> bool:
    return any(covers(t, imp, facts.attributes) for t in row.tokens)


def _compare_tables(cfg: Config, res: Result, cl: Checklist, tiers: TierRules) -> None:
    names = res.import_names[cl.rel]
    pkg = cl.package
    add = res.findings.append
    users = {}
    for path, facts in list(res.facts.items()):
        if not facts.full and any(m.startswith(i.qualname + ".") for i in facts.imports for m in names):
            facts = _ensure_full(cfg, res, path)  # `import pkg` then `pkg.sub.x`: needs attribute uses
        imps = facts.imports_of(names)
        if imps:
            users[path] = imps
    by_file: dict[str, Row] = {}
    gone: list[Row] = []
    for row in cl.rows:
        if row.file in by_file:
            add(Finding(cl.rel, row.line, "FORMAT", f"`{row.file}` is listed twice (also at line {by_file[row.file].line})", row.file, None, pkg))
            continue
        by_file[row.file] = row
        path = cfg.root / row.file
        if not path.is_file():
            gone.append(row)
            continue
        facts = res.facts.get(row.file)
        text = None
        if facts is None and not row.file.endswith(".py"):
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
        elif facts is None:
            continue  # a PARSE finding already speaks for it
        imps = users.get(row.file, [])
        live = [t for t in row.tokens if matches(t, facts, imps, text)]
        uncovered = [i for i in imps if not _row_tokens_cover(row, i, facts)] if facts else []
        if facts is not None and not facts.full and (len(live) < len(row.tokens) or uncovered):
            facts = _ensure_full(cfg, res, row.file)  # imports alone do not decide: names, strings
            live = [t for t in row.tokens if matches(t, facts, imps, text)]
            uncovered = [i for i in imps if not _row_tokens_cover(row, i, facts)]
        if not imps and not live:
            if not row.marked_removal:
                why = "no longer imports" if row.tokens else "does not import"
                add(Finding(cl.rel, row.line, "STALE", f"`{row.file}` {why} {pkg} and none of its row's tokens match", row.file, None, pkg, {"mark": True}))
            continue
        if uncovered:
            shown = ", ".join(f"`{d}`" for d in dict.fromkeys(_describe(i) for i in uncovered))
            first = min(i.line for i in uncovered)
            add(Finding(cl.rel, row.line, "CHANGED", f"`{row.file}` imports {shown}, not in its row", row.file, first, pkg,
                        {"add": usage_parts(uncovered)}))
        dead = [t for t in row.tokens if t not in live]
        if dead:
            shown = ", ".join(f"`{t}`" for t in dead)
            add(Finding(cl.rel, row.line, "CHANGED", f"`{row.file}`: {shown} no longer match anything in the file", row.file, None, pkg,
                        {"strike": dead}))
        want, rule = tiers.tier_of(row.file)
        if want is not None and want != row.tier:
            add(Finding(cl.rel, row.line, "TIER", f"`{row.file}` is listed as {row.tier.capitalize()} but its location ({rule}) maps to {want.capitalize()}", row.file, None, pkg, {"tier": want}))

    missing = {p: imps for p, imps in users.items() if p not in by_file}
    if gone:  # matching a move compares row tokens with uses: needs full facts
        for p in missing:
            _ensure_full(cfg, res, p)
    for row in gone:
        match = _moved_target(row, missing, res.facts)
        if match is not None:
            imps = missing.pop(match)
            add(Finding(cl.rel, row.line, "MOVED", f"`{row.file}` moved to `{match}` (same name, same imports)", match, imps[0].line, pkg,
                        {"old": row.file, "new": match}))
        elif not row.marked_removal:
            add(Finding(cl.rel, row.line, "STALE", f"`{row.file}` does not exist", row.file, None, pkg, {"mark": True}))
    for path, imps in sorted(missing.items()):
        tier, _ = tiers.tier_of(path)
        line = cl.tier_lines.get(tier or "", cl.section_lines.get("affected", 1))
        where = f"belongs in {tier.capitalize()}" if tier else "no tier rule matches its location"
        shown = ", ".join(f"`{d}`" for d in dict.fromkeys(_describe(i) for i in imps))
        fix = {"tier": tier, "cell": ", ".join(usage_parts(imps))} if tier else None
        add(Finding(cl.rel, line, "MISSING", f"`{path}` imports {shown} but no tier lists it ({where})", path, imps[0].line, pkg, fix))


def _ensure_full(cfg: Config, res: Result, rel: str) -> Facts:
    """The file's full facts (names, attribute uses, strings), scanned once."""
    facts = res.facts[rel]
    if not facts.full:
        path = cfg.root / rel
        st = path.stat()
        out = scan_file(rel, path.read_bytes(), True)
        if isinstance(out, Facts):
            res.facts[rel] = facts = out
            if res.cache is not None:
                res.cache.put(rel, st, out)
    return facts


def usage_parts(imports: list[Import]) -> list[str]:
    """Backticked cell parts documenting ``imports``: original names, alias noted."""
    parts = []
    for imp in imports:
        if imp.original == "*":
            part = f"`{imp.qualname}`"
        elif imp.bound not in (imp.original, imp.original.split(".")[0]):
            part = f"`{imp.original}` (as `{imp.bound}`)"
        else:
            part = f"`{imp.original}`"
        if part not in parts:
            parts.append(part)
    return parts


def _describe(imp: Import) -> str:
    if imp.bound not in (imp.original, imp.original.split(".")[0]):
        return f"{imp.qualname} as {imp.bound}"
    return imp.qualname


def _moved_target(row: Row, missing: dict[str, list[Import]], facts: dict[str, Facts]) -> str | None:
    base = row.file.rsplit("/", 1)[-1]
    best, score = None, -1
    for path, imps in missing.items():
        if path.rsplit("/", 1)[-1] != base:
            continue
        covered = sum(_row_tokens_cover(row, i, facts[path]) for i in imps)
        if (covered or not row.tokens) and covered > score:
            best, score = path, covered
    return best


@dataclass
class _Source:
    rel: str
    st: os.stat_result
    answers: dict  # snippet -> places, None -> line count
    text: SquashedText | None = None  # read only when an answer is not cached


class Snippets:
    """Where snippets occur in source files (and how long the files are), remembered
    in the scan cache by each file's stat, so that a warm run reads no source file."""

    def __init__(self, root: Path, cache: ScanCache) -> None:
        self.root = root
        self.cache = cache
        self.files: dict[str, _Source | None] = {}

    def _answer(self, rel: str, key: str | None, compute):
        if rel not in self.files:
            try:
                st = os.stat(os.path.join(self.root, rel))
            except OSError:
                st = None
            if st is None or not stat.S_ISREG(st.st_mode):
                self.files[rel] = None
            else:
                hit, known = self.cache.get("snippets:" + rel, st)
                self.files[rel] = _Source(rel, st, dict(known) if hit else {})
        src = self.files[rel]
        if src is None:
            return None  # the file does not exist
        if key not in src.answers:
            if src.text is None:
                src.text = SquashedText((self.root / rel).read_text(encoding="utf-8", errors="replace"))
            src.answers[key] = compute(src.text)
        return src.answers[key]

    def places(self, rel: str, snippet: str) -> list[tuple[int, int]] | None:
        """(start, end) lines of each occurrence; None when the file does not exist."""
        return self._answer(rel, snippet, lambda text: text.find(snippet))

    def line_count(self, rel: str) -> int | None:
        return self._answer(rel, None, lambda text: text.line_count)

    def save(self) -> None:
        for src in self.files.values():
            if src is not None and src.text is not None:  # something new was computed
                self.cache.put("snippets:" + src.rel, src.st, src.answers)


def _check_catalog(res: Result, cl: Checklist, snippets: Snippets) -> None:
    add = res.findings.append
    pkg = cl.package
    for e in cl.entries:
        for cs in e.call_sites:
            if not cs.snippet:
                if snippets.line_count(cs.file) is None:
                    add(Finding(cl.rel, cs.ref_line, "SNIPPET", f"entry {e.number}: call site `{cs.file}` does not exist", cs.file, cs.line, pkg))
                continue
            places = snippets.places(cs.file, cs.snippet)
            if places is None:
                add(Finding(cl.rel, cs.ref_line, "SNIPPET", f"entry {e.number}: call site `{cs.file}` does not exist", cs.file, cs.line, pkg))
                continue
            if not places:
                add(Finding(cl.rel, cs.snippet_line or cs.ref_line, "SNIPPET", f"entry {e.number}: snippet no longer occurs in `{cs.file}`", cs.file, cs.line, pkg))
                continue
            if cs.line is None:
                continue
            if any(s == cs.line and (cs.end_line is None or t == cs.end_line) for s, t in places):
                continue
            start, end = min(places, key=lambda p: abs(p[0] - cs.line))
            now = f"line {start}" if cs.end_line is None or start == end else f"lines {start}-{end}"
            was = f"line {cs.line}" if cs.end_line is None else f"lines {cs.line}-{cs.end_line}"
            add(Finding(cl.rel, cs.ref_line, "LINE", f"entry {e.number}: snippet in `{cs.file}` is now at {now} (recorded {was})", cs.file, start, pkg,
                        {"start": start, "end": end}))
    for g in cl.guards:
        count = snippets.line_count(g.file)
        if count is None:
            add(Finding(cl.rel, g.ref_line, "GUARD", f"version guard `{g.file}` does not exist", g.file, g.line, pkg))
        elif g.line is not None and g.line > count:
            add(Finding(cl.rel, g.ref_line, "GUARD", f"version guard `{g.file}:{g.line}` is past the end of the file ({count} lines)", g.file, g.line, pkg))


def _check_status(cfg: Config, res: Result, checklists: list[Checklist]) -> None:
    rel = cfg.status_file
    path = cfg.root / rel
    if not path.is_file():
        res.findings.append(Finding(rel, 1, "STATUS", f"status file {rel} does not exist"))
        return
    try:
        rows = read_status(path)
    except UnicodeDecodeError as exc:
        res.findings.append(Finding(rel, 1, "STATUS", f"status file is not valid UTF-8 ({exc.reason})"))
        return
    by_name = {r.name: r for r in rows}
    names = {cl.name for cl in checklists}
    for cl in checklists:
        row = by_name.get(cl.name)
        if row is None:
            res.findings.append(Finding(rel, 1, "STATUS", f"no status row for {cl.name} ({len(cl.entries)} API entries)", cl.rel, None, cl.package,
                                        {"name": cl.name, "count": len(cl.entries)}))
        elif row.count != len(cl.entries):
            res.findings.append(Finding(rel, row.line, "STATUS", f"{cl.name}: status says {row.count} API entries, the catalog has {len(cl.entries)}", cl.rel, None, cl.package,
                                        {"count": len(cl.entries)}))
    for r in rows:
        if r.name not in names:
            res.findings.append(Finding(rel, r.line, "STATUS", f"status row for {r.name}, which has no checklist"))


# --- path selection (pre-commit passes the changed files) -----------------------------


def select(findings: list[Finding], paths: list[str], cfg: Config) -> list[Finding]:
    """The findings that concern ``paths``: a changed checklist is checked whole;
    a listed file that no longer exists always concerns the commit (pre-commit
    never passes deleted files); a changed configuration file selects everything."""
    wanted = {Path(p).as_posix().removeprefix("./") for p in paths}
    if cfg.source is not None and cfg.source.resolve().as_posix() in {(cfg.root / p).resolve().as_posix() for p in wanted}:
        return findings
    out = []
    for f in findings:
        if f.checklist in wanted or f.file in wanted:
            out.append(f)
        elif f.file is not None and f.code in ("STALE", "MOVED", "SNIPPET", "GUARD") and not (cfg.root / f.file).exists():
            out.append(f)
    return out
