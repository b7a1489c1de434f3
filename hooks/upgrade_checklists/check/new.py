"""``upgrade-checklists new PACKAGE``: write a first checklist from a scan of the code.

Frontmatter from options (validated like any checklist's; ``branch_template`` from the
tag names of a local upstream clone when ``git_url`` names one), Affected Files from the
files that import the package (tiers by location; with no tiers configured, tests/ and
examples/ are Tertiary): one row per file of the library's own code, one directory row
for a folder of like users (``folders.py``). An API Usage Catalog entry per distinct API
the code calls, reads as an attribute (``pkg.__version__``) or subclasses, ranked
together by the best tier of their call sites, then by how often they are used, and
bounded (``MAX_ENTRIES``). Each entry shows at most ``MAX_SITES`` call sites, whole
statements taken from the library's own files first, anchored by file and enclosing
``Class.function`` (no line numbers unless asked: they go stale, symbols do not); the
other sites are counted by folder. Names resolve as Python binds them (``calls.Scopes``).
The Check line names what the call relies on: the keywords it passes, its positional
arguments, and what the code reads from the result. Version guards (``hasattr(pkg…)``,
comparisons of the package's version, ``try: import … except ImportError``) are listed
in Version-Guarded Code. A name another distribution re-exports the package under
(``requests.packages.urllib3``), imported as the alternative of the package's own name, is
listed among the import names (``project/reexports.py``). A package that no file imports is an
error: nothing is written.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import tempfile
import textwrap
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from upgrade_checklists.project.calls import Call, Scopes, bindings, dotted, find_attribute_uses, find_calls, resolve, through_metadata
from upgrade_checklists.core import proc
from upgrade_checklists.core.checklist import TIERS, read_checklist
from upgrade_checklists.project.checklists import load_checklists
from upgrade_checklists.core.config import Config, ConfigError
from upgrade_checklists.core.files import Skipped, read_file
from upgrade_checklists.core.findings import has_control
from upgrade_checklists.check.fix import Table, padded_by_default, status_text, write_atomic
from upgrade_checklists.check.folders import FOLDER_MIN, folder_groups, glob_groups, like_user
from upgrade_checklists.check.rows import usage_parts
from upgrade_checklists.project.scan import Facts, Prefilter, iter_sources, scan_file
from upgrade_checklists.project.reexports import ReExport, own_names, reexports
from upgrade_checklists.project.tiers import TierRules
from upgrade_checklists.project.use import MEMBER, OVERRIDE, PATCH, TYPED
from upgrade_checklists.project.uses import catches_import_error, find_uses, subclasses

_TIER_TITLES = {
    "primary": "Primary (most likely to break)",
    "secondary": "Secondary",
    "tertiary": "Tertiary (tests, tools, examples)",
}

#: with no tiers configured, these locations are Tertiary
DEFAULT_TERTIARY = ("tests/", "examples/")
#: bounds that keep a draft readable (a numpy-scale dependency used in 80 files):
MAX_ENTRIES = 30  # catalog entries; the rest are named in one line (``check --select UNCATALOGUED`` finds them)
MAX_SITES = 2  # call sites shown per entry; the others are counted by folder
MAX_FOLDERS = 3  # folders named in an entry's "also used in" line
MAX_GUARDS = 25  # version-guard items
MAX_NAMES = 6  # subclasses named in a base-class entry's Check line
MAX_ROW_TOKENS = 6  # tokens of a folder row
#: a statement longer than this shows the call inside it, when that is shorter
MAX_SNIPPET_LINES = 8
DEFAULT_BRANCH_TEMPLATE = "v${VERSION}"


@dataclass
class Created:
    path: Path
    files: int
    entries: int
    import_names: list[str]
    status_updated: bool
    rows: int = 0
    folder_rows: list[str] = field(default_factory=list)
    omitted: int = 0  # APIs beyond MAX_ENTRIES
    guards: int = 0
    branch_template: str = DEFAULT_BRANCH_TEMPLATE
    template_from: str | None = None  # where branch_template came from (None: the default, unchecked)
    reexported: list[ReExport] = field(default_factory=list)  # import names added as another distribution's re-export


def candidates(package: str) -> list[str]:
    """Import paths a pip name may stand for, longest first (``megatron-core`` -> ``megatron.core``)."""
    parts = [p for p in re.split(r"[-_.]+", package.lower()) if p]
    alts = [parts]
    if parts and parts[0].startswith("py") and len(parts[0]) > 2:
        alts.append([parts[0][2:]] + parts[1:])
    out: list[str] = []
    for ps in alts:
        for k in range(len(ps), 0, -1):
            for c in (".".join(ps[:k]), "_".join(ps[:k])):
                if c not in out:
                    out.append(c)
    return sorted(out, key=len, reverse=True)


@dataclass
class _File:
    """One importer, parsed once."""

    rel: str
    source: str
    tree: ast.Module
    scopes: Scopes
    lines: list[str]
    symbols: list[tuple[int, int, str]]  # (first line, last line, qualname) of each def and class


def create(cfg: Config, package: str, github: str, branch_template: str | None,
           import_names: list[str], upstream_paths: list[str], *, lines: bool = False,
           folder_min: int = FOLDER_MIN, max_entries: int = MAX_ENTRIES) -> Created:
    from upgrade_checklists.core import files
    from upgrade_checklists.check.compare import setting_file

    files.inside(cfg.root, cfg.checklists)  # a committed symlink to a folder elsewhere: Outside, exit 2
    if cfg.status_file:
        setting_file(cfg, "status_file", cfg.status_file)
    path = cfg.checklist_dir / f"{package}.md"
    if os.path.lexists(path):
        raise ConfigError(f"{path.relative_to(cfg.root).as_posix()} already exists; new never overwrites a checklist")
    template_from = "--branch-template" if branch_template else None
    if not branch_template:
        branch_template, template_from = _template_from_tags(cfg, github)
    sources = iter_sources(cfg.root, cfg.roots, cfg.exclude)
    guessed = not import_names
    names = import_names or cfg.import_names.get(package) or candidates(package)
    users = _users(cfg, sources, names)
    if guessed and not cfg.import_names.get(package):
        used = [n for n in names if any(f.imports_of([n]) for f in users.values())]
        names = used[:1] or [names[0].replace("-", "_")]  # the longest import path in use
        users = {p: f for p, f in users.items() if f.imports_of(names)}
    paths = upstream_paths or [n.replace(".", "/") + "/" for n in names]
    # ``requests.packages.urllib3``, imported as the alternative of ``urllib3``: listed, so its uses are audited
    reexported = [r for r in reexports(_trees(cfg, sources, names), names, own_names(sources)) if r.paired]
    if reexported:
        names = names + [r.name for r in reexported]
        users = _users(cfg, sources, names)

    front = ["---", f"package: {package}", f"github: {github}", f"branch_template: {_yaml(branch_template)}", "upstream_paths:"]
    front += [f"  - {_yaml(p)}" for p in paths]
    front += ["import_names:"] + [f"  - {n}" for n in names] + ["---", ""]
    _validate(cfg, path, "\n".join(front) + _skeleton())
    if not users:
        where = ", ".join(dict.fromkeys(f"{r.rstrip('/')}/" if r not in ("", ".") else "./" for r in cfg.roots))
        raise ConfigError(f"no file in {where} imports {package} (as {', '.join(names)}): nothing to draft; "
                          "pass --import-name if its import path is another")
    cfg.checklist_dir.mkdir(parents=True, exist_ok=True)  # the first checklist makes the folder

    tiers = TierRules.build(cfg, load_checklists(cfg))
    if cfg.tiers is None:  # nothing configured: tests and examples are Tertiary, unless the checklists say otherwise
        known = {pattern.rstrip("/") for pattern, _ in tiers.rules}
        tiers = TierRules(sorted(tiers.rules + [(d, "tertiary") for d in DEFAULT_TERTIARY if d.rstrip("/") not in known],
                                 key=lambda r: -len(r[0].rstrip("/"))), True)
    tier_of = {rel: tiers.tier_of(rel)[0] or "secondary" for rel in users}
    rank = {t: i for i, t in enumerate(TIERS)}
    like = {rel: like_user(cfg.root, rel, tier_of[rel]) for rel in users}

    def rank_of(rel: str) -> tuple[int, bool]:  # the library's own files before tests and examples
        tier = tier_of.get(rel) or tiers.tier_of(rel)[0] or "secondary"
        return rank[tier], like.get(rel, like_user(cfg.root, rel, tier))

    groups = folder_groups(cfg.root, dict(tier_of), folder_min)
    grouped = {f for files in groups.values() for f in files}
    globs = glob_groups(cfg.root, dict(tier_of), [f for f in sorted(users) if f not in grouped], folder_min)
    for pattern, files in globs.items():  # a folder row the glob covers whole is not needed
        for folder in [d for d, fs in groups.items() if set(fs) <= set(files)]:
            del groups[folder]
        grouped.update(files)
    rows: dict[str, list[tuple[str, list[str]]]] = {t: [] for t in TIERS}
    for rel in sorted(users):
        if rel not in grouped:
            rows[tier_of[rel]].append((rel, [f"`{rel}`", ", ".join(usage_parts(users[rel].imports_of(names)))]))
    for folder, files in groups.items():
        rows[tier_of[files[0]]].append((folder, [f"`{folder}`", _folder_cell(files, users, names)]))
    for pattern, files in globs.items():  # compared file by file: the import name covers any import
        rows[tier_of[files[0]]].append((pattern, [f"`{pattern}`", ", ".join(f"`{n}`" for n in names) + "; every file it matches"]))

    body = ["## Affected Files", ""]
    for tier in TIERS:
        body += [f"### {_TIER_TITLES[tier]}", ""]
        if rows[tier]:
            t = Table.new(["File", "Imports / Usage"], aligned=padded_by_default(cfg.root))  # compact unless mdformat formats Markdown
            for _key, row in sorted(rows[tier]):
                t.add_row(row)
            body += [line.rstrip("\n") for line in t.render()]
        else:
            body.append("_None._")
        body.append("")

    parsed = _parse(cfg, users, names)
    entries = _entries(parsed, names, rank_of)
    entries = _merge_base_classes(cfg, sources, parsed, names, entries, rank_of)
    # nothing with a control character is written into the checklist
    entries = [e for e in entries if not has_control([e.api, *(s.rel for s in e.sites), *(r for r, _ in e.rest)])
               and not has_control([e.check, *(s.check for s in e.sites), *(s.shown[0] for s in e.sites)], allow="\n\t")]
    entries.sort(key=lambda e: (e.rank, -e.count, e.api))
    omitted = entries[max_entries:]
    entries = entries[:max_entries]
    body += ["## API Usage Catalog", ""]
    if omitted:
        shown = ", ".join(f"`{e.api}`" for e in omitted[:8]) + (f" and {len(omitted) - 8} more" if len(omitted) > 8 else "")
        body += [wrap(f"_The {len(entries)} APIs used most, in the most exposed files, are catalogued; "
                      f"{len(omitted)} more are used less: {shown} (`check --select UNCATALOGUED` lists them)._"), ""]
    for i, e in enumerate(entries, 1):
        body += [f"### {i}. `{e.api}`", ""]
        for n, site in enumerate(e.sites):
            verb = ("Called" if e.called else "Used") if n == 0 else "Also"
            snippet, first, last = site.shown
            where = _where(site.rel, site.symbol, first, last, lines)
            verb = verb if n == 0 else ("Also called" if e.called else "Also used")
            body += [wrap(f"{verb} in {where}:"), "", "```python", snippet, "```", ""]
        if e.rest:
            body += [wrap(_also(e)), ""]
        body += [wrap(f"**Check:** {e.check}"), ""]
    if not entries:
        body += ["_None yet._", ""]
    guards = _guards(parsed, names, package, rank_of)
    body += ["## Version-Guarded Code", ""]
    if guards:
        body += [g.item(lines) for g in guards[:MAX_GUARDS]] + [""]
        if len(guards) > MAX_GUARDS:
            body += [f"_{len(guards) - MAX_GUARDS} more guards of these kinds are not listed._", ""]
    else:
        body += ["_None._", ""]
    text = "\n".join(front) + "\n" + "\n".join(body)
    write_atomic_new(path, text)

    status = False
    if cfg.status_file and (cfg.root / cfg.status_file).is_file():
        sp = cfg.root / cfg.status_file
        old = sp.read_text(encoding="utf-8")
        new = status_text(old, {}, [(package, len(entries))])
        if new != old:
            write_atomic(sp, new)
            status = True
    return Created(path, len(users), len(entries), names, status, sum(len(r) for r in rows.values()), sorted(groups) + sorted(globs),
                   len(omitted), len(guards), branch_template, template_from, reexported)


_WORD = re.compile(r"(?:[^\s`]*`[^`]*`)+[^\s`]*|\S+")


def wrap(text: str, width: int = 88, indent: str = "") -> str:
    """Greedy wrap at spaces, a code span never broken (as mdformat wraps, so that the
    draft is mdformat-stable); continuation lines start with ``indent``."""
    lines: list[str] = []
    line = ""
    for word in _WORD.findall(text):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = indent + word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "\n".join(lines)


def _where(rel: str, symbol: str | None, first: int, last: int, lines: bool) -> str:
    """``(`Class.method`)``, or with ``--lines`` ``(`Class.method`, lines N-M)``."""
    numbers = (f"line {first}" if first == last else f"lines {first}-{last}") if lines else ""
    inside = ", ".join(x for x in (f"`{symbol}`" if symbol else "", numbers) if x)
    return f"`{rel}`" + (f" ({inside})" if inside else "")


def _also(e: "Entry") -> str:
    """Where the sites not shown are, by folder (folders do not go stale as files move)."""
    parts = [f"`{folder}` ({uses} use{'s' if uses != 1 else ''})" if folder else f"the top folder ({uses} use{'s' if uses != 1 else ''})"
             for folder, uses in e.rest[:MAX_FOLDERS]]
    more = len(e.rest) - MAX_FOLDERS
    where = ", ".join(parts) + (f" and {more} more folder{'s' if more != 1 else ''}" if more > 0 else "")
    return f"Used {e.count} times in {e.files} file{'s' if e.files != 1 else ''}; also in {where}."


def _folder_cell(files: list[str], users: dict[str, Facts], names: list[str]) -> str:
    """The imports most of a folder's files share (a token no file below matches any
    more is CHANGED: the shared ones stay true longest)."""
    counts: Counter[str] = Counter()
    for rel in files:
        counts.update(set(usage_parts(users[rel].imports_of(names))))
    common = [t for t, n in counts.most_common() if n >= 2][:MAX_ROW_TOKENS] or [counts.most_common(1)[0][0]]
    return ", ".join(common) + f"; {'all' if len(files) > 1 else 'its'} files below"


def _template_from_tags(cfg: Config, github: str) -> tuple[str, str | None]:
    """``branch_template`` from the tag names of a local upstream clone (``git_url``
    naming a path); the default and None when there is none (nothing is fetched)."""
    url = cfg.git_url.replace("{github}", github) if cfg.git_url.count("{github}") == 1 else ""
    local = url[len("file://"):] if url.startswith("file://") else url
    if not local or "://" in local or local.startswith("-") or not re.match(r"^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9_.][A-Za-z0-9_.-]*$", github) or ".." in github or not os.path.isdir(local):
        return DEFAULT_BRANCH_TEMPLATE, None
    try:  # an upstream's git: a fresh folder, no inherited GIT_* variable, no user configuration
        r = proc.run(["git", "ls-remote", "--tags", "--", os.path.realpath(local)], kind=proc.GIT_UPSTREAM, timeout=60, text=True)
    except (OSError, subprocess.SubprocessError):
        return DEFAULT_BRANCH_TEMPLATE, None
    tags = [ln.split("refs/tags/", 1)[1] for ln in r.stdout.splitlines() if "refs/tags/" in ln and not ln.endswith("^{}")]
    template = template_of(tags) if r.returncode == 0 else None
    return (template, f"the tags of {local}") if template else (DEFAULT_BRANCH_TEMPLATE, None)


_VERSION_TAIL = re.compile(r"(\d+(?:\.\d+)+)$")


def template_of(tags: list[str]) -> str | None:
    """The template most release tags follow: ``v1.2.3`` -> ``v${VERSION}``,
    ``core_r0.16.0`` -> ``core_r${VERSION}``; None when no tag ends in a version."""
    prefixes = Counter(t[: m.start()] for t in tags if (m := _VERSION_TAIL.search(t)))
    if not prefixes:
        return None
    prefix = prefixes.most_common(1)[0][0]
    return prefix + "${VERSION}" if re.match(r"^[A-Za-z0-9._/+-]*$", prefix) else None



def _yaml(value: str) -> str:
    return f"'{value}'" if value.startswith(("$", "{", "[", "*", "&", "!", "%", "@", "`")) or ": " in value else value


def _skeleton() -> str:
    return "## Affected Files\n\n" + "".join(f"### {t.capitalize()}\n\n_None._\n\n" for t in TIERS) + \
        "## API Usage Catalog\n\n## Version-Guarded Code\n\n_None._\n"


def _validate(cfg: Config, path: Path, text: str) -> None:
    """Refuse values that a checklist would reject (before anything is written)."""
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / path.name
        probe.write_text(text, encoding="utf-8")
        problems = [p for p in read_checklist(probe, path.name).problems if p.code == "FRONTMATTER"]
    if problems:
        raise ConfigError(f"{path.relative_to(cfg.root).as_posix()}: {problems[0].message}")


def write_atomic_new(path: Path, text: str) -> None:
    path.touch(mode=0o644, exist_ok=False)  # claim the name: never overwrite
    try:
        write_atomic(path, text)
    except BaseException:
        path.unlink()
        raise


def _users(cfg: Config, sources: list[str], names: list[str]) -> dict[str, Facts]:
    may = Prefilter(names)
    out = {}
    for rel in sources:
        if has_control(rel):  # a name with a newline would end its row (and the table): never written
            continue
        try:
            data = read_file(cfg.root, rel)
        except (Skipped, OSError):  # a FIFO, a symlink out of the repository, a huge file: not read
            continue
        if not may(data):
            continue
        facts = scan_file(rel, data, True)
        if isinstance(facts, Facts) and facts.imports_of(names):
            out[rel] = facts
    return out


def _trees(cfg: Config, sources: list[str], names: list[str]):
    """(path, tree) of each source that may import one of ``names``, in order (for :func:`reexports`)."""
    may = Prefilter(names)
    for rel in sources:
        if has_control(rel):
            continue
        try:
            data = read_file(cfg.root, rel)
            if may(data):
                yield rel, ast.parse(data.decode("utf-8", errors="replace"))
        except (Skipped, OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            continue


def _parse(cfg: Config, users: dict[str, Facts], names: list[str]) -> dict[str, _File]:
    out = {}
    for rel in sorted(users):
        try:
            source = read_file(cfg.root, rel).decode("utf-8", errors="replace")
            tree = ast.parse(source)
            scopes = Scopes(tree, names)
        except (Skipped, OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # unreadable, or too deep for ast: its scan says PARSE
        out[rel] = _File(rel, source, tree, scopes, source.splitlines(), _symbols(tree))
    return out


def _symbols(tree: ast.Module) -> list[tuple[int, int, str]]:
    """(first line, last line, ``Class.method``) of every def and class, decorators included."""
    out = []
    todo: list[tuple[ast.AST, str]] = [(tree, "")]
    while todo:
        node, prefix = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                out.append((first, child.end_lineno or child.lineno, name))
                todo.append((child, name + "."))
            elif not isinstance(child, ast.expr):
                todo.append((child, prefix))
    return out


def symbol_at(symbols: list[tuple[int, int, str]], line: int) -> str | None:
    """The innermost def or class around ``line`` (None at module level)."""
    inside = [s for s in symbols if s[0] <= line <= s[1]]
    return max(inside, key=lambda s: (s[0], -s[1]))[2] if inside else None


@dataclass
class Site:
    rel: str
    call: Call
    check: str
    rank: tuple[int, bool]
    symbol: str | None
    shown: tuple[str, int, int]  # the snippet and the lines it covers


@dataclass
class Entry:
    api: str
    sites: list[Site]  # shown
    check: str
    called: bool
    count: int  # uses across the code
    files: int
    rank: tuple[int, bool]  # of its best call site
    rest: list[tuple[str, int]] = field(default_factory=list)  # (folder, uses) of the sites not shown, most first


def _shown(f: _File, call: Call) -> tuple[str, int, int]:
    """The call's whole statement; when that is long, the whole call inside it, if shorter.
    Never cut: a snippet cut inside an open call documents nothing the check can find."""
    if call.end_line - call.line < MAX_SNIPPET_LINES or call.node is None:
        return call.snippet, call.line, call.end_line
    node = call.node
    inner = Call(call.api, node.lineno, node.end_lineno or node.lineno, _segment(f.lines, node))
    if inner.end_line - inner.line < call.end_line - call.line:
        return inner.snippet, inner.line, inner.end_line
    return call.snippet, call.line, call.end_line


def _segment(lines: list[str], node: ast.AST) -> str:
    from upgrade_checklists.project.calls import _segment as segment

    return segment(lines, node)


def _site(f: _File, call: Call, check: str, rank_of) -> Site:
    shown = _shown(f, call)
    return Site(f.rel, call, check, rank_of(f.rel), symbol_at(f.symbols, call.line), shown)


def _order(site: Site) -> tuple:
    """Best first: the library's own, most exposed files; then a short snippet; then place."""
    length = site.shown[2] - site.shown[1]
    return (site.rank, length >= MAX_SNIPPET_LINES, site.rel, site.call.line)


def _entry(api: str, sites: list[Site], called: bool) -> Entry:
    sites = sorted(sites, key=_order)
    shown = [sites[0]]
    seen = set(sites[0].call.keywords)
    for s in sites[1:]:  # a second site only when it shows keywords the first does not
        if len(shown) >= MAX_SITES:
            break
        if set(s.call.keywords) - seen and s.rel != shown[0].rel and s.shown[2] - s.shown[1] < MAX_SNIPPET_LINES:
            shown.append(s)
            seen |= set(s.call.keywords)
    rest: Counter[str] = Counter()
    for s in sites:
        if s not in shown:
            rest[s.rel.rsplit("/", 1)[0] + "/" if "/" in s.rel else ""] += 1
    return Entry(api, shown, sites[0].check, called, len(sites), len({s.rel for s in sites}), sites[0].rank,
                 sorted(rest.items(), key=lambda x: (-x[1], x[0])))


def _entries(parsed: dict[str, _File], names: list[str], rank_of) -> list[Entry]:
    """One entry per distinct API the code calls or reads as an attribute."""
    uses: dict[str, list[Site]] = {}
    attributes: dict[str, list[Site]] = {}
    for rel, f in parsed.items():
        scopes = f.scopes
        for call in find_calls(f.source, f.tree, names, scopes):
            if through_metadata(call.api):
                continue  # ``pkg.f.__name__.upper()``: a method of the metadata, not the package's
            uses.setdefault(call.api, []).append(_site(f, call, _check_text(call, _result_reads(f, call)), rank_of))
        for api, use in find_attribute_uses(f.source, f.tree, names, scopes):
            owner, _, attr = api.rpartition(".")
            whole = _statement_at(f, use.line)  # the statement around the read, not its line (which may cut a call)
            if whole is not None:
                use = Call(api, whole[1], whole[2], whole[0], used=True)
            else:
                use = Call(api, use.line, use.line, _attribute_text(f, use.line, attr))
            attributes.setdefault(api, []).append(_site(f, use, f"`{attr}` still exists on `{owner}`, with the same meaning.", rank_of))
    out = [_entry(api, sites, True) for api, sites in uses.items()]
    for api, sites in attributes.items():
        if api in uses or any(c.startswith(api + ".") for c in uses):
            continue  # a module or class whose members are called: those entries cover it
        out.append(_entry(api, sites, False))
    return out


def _result_reads(f: _File, call: Call) -> list[str]:
    """The attributes the code reads on the call's result after the call, in the function
    (or module) that makes it: ``out = f(x)`` then ``out.logits`` -> ``[logits]``."""
    if not call.assigned_to:
        return []
    scope: ast.AST = f.tree
    node = call.node
    while node is not None:  # the innermost function around the call
        node = f.scopes.parent.get(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            scope = node
            break
    out: list[str] = []
    for node in ast.walk(scope):
        if (isinstance(node, ast.Attribute) and node.lineno >= call.line and node.attr not in out
                and dotted(node.value) == call.assigned_to):
            out.append(node.attr)
    return out


def _attribute_text(f: _File, line: int, attr: str) -> str:
    """The attribute read at ``line`` as written (``np.newaxis``), when no whole simple
    statement holds it (a compound statement's header): an expression the check finds."""
    for node in ast.walk(f.tree):
        if isinstance(node, ast.Attribute) and node.lineno == line and node.attr == attr:
            return ast.get_source_segment(f.source, node) or attr
    return attr


def _class_header(f: _File, line: int) -> tuple[str, int]:
    """The whole ``class`` statement's header at ``line`` (its bases may span lines)."""
    for node in ast.walk(f.tree):
        if isinstance(node, ast.ClassDef) and node.lineno == line:
            last = max(line, node.body[0].lineno - 1) if node.body and node.body[0].lineno > line else line
            head = textwrap.dedent("\n".join(f.lines[line - 1:last])).rstrip()
            while last > line and (not f.lines[last - 1].strip() or f.lines[last - 1].strip().startswith("#")):
                last -= 1
                head = textwrap.dedent("\n".join(f.lines[line - 1:last])).rstrip()
            if head.endswith(":"):
                return head, last
    return f.lines[line - 1].strip(), line


def _statement_at(f: _File, line: int) -> tuple[str, int, int] | None:
    """The whole simple statement around ``line`` (None inside a compound header)."""
    best = None
    for node in ast.walk(f.tree):
        if isinstance(node, ast.stmt) and node.lineno <= line <= (node.end_lineno or node.lineno):
            if best is None or node.lineno >= best.lineno and (node.end_lineno or 0) <= (best.end_lineno or 0):
                best = node
    if best is None or any(getattr(best, b, None) for b in ("body", "orelse", "finalbody", "handlers")):
        return None
    end = best.end_lineno or best.lineno
    if end - best.lineno >= MAX_SNIPPET_LINES:
        return None
    return _segment(f.lines, best), best.lineno, end


def _merge_base_classes(cfg: Config, sources: list[str], parsed: dict[str, _File], names: list[str],
                        entries: list[Entry], rank_of) -> list[Entry]:
    """An entry per upstream class the project subclasses (at any depth, across files):
    the ``class`` statement, then the subclass's uses of it (``super().__init__(...)``,
    ``self.x``, ``self.m(...)``). A class that already has an entry gets these added.
    Ranked with the others, by the tier of the subclasses' files."""
    texts = {}
    for rel in sources:
        if rel in parsed:
            texts[rel] = (parsed[rel].source, parsed[rel].tree)
            continue
        try:
            text = read_file(cfg.root, rel).decode("utf-8", errors="replace")
            texts[rel] = (text, ast.parse(text))
        except (Skipped, OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    found = subclasses(texts, names)
    every = find_uses(texts, names) if found or any(_may_patch(t[0], names) for t in texts.values()) else []
    known = {e.api: e for e in entries}
    uses = [u for u in every if u.kind == MEMBER and u.via.startswith("subclass ")]
    files: dict[str, _File] = {}

    def file(rel: str) -> _File:
        if rel not in files:
            files[rel] = parsed.get(rel) or _File(rel, texts[rel][0], texts[rel][1], Scopes(texts[rel][1], names),
                                                 texts[rel][0].splitlines(), _symbols(texts[rel][1]))
        return files[rel]

    _merge_replaced(every, known, entries, file, rank_of, names)
    if not found:
        return entries
    defined: dict[str, list[str]] = {}  # base -> the methods its project subclasses define (overrides where the base has them)
    for u in every:
        if u.kind == OVERRIDE:
            defined.setdefault(u.target, []).append(f"`{u.member}()`")
    typed: dict[str, list[str]] = {}  # base -> methods called on attributes it declares (``self.kind.g()``)
    for u in every:
        if u.kind == TYPED and u.call is not None:
            typed.setdefault(u.target, []).append(f"`self.{u.attr}.{u.member}()`")

    for base in dict.fromkeys(b for b, *_ in found):
        mine = [(qual, rel, line) for b, qual, rel, line in found if b == base]
        shorts = list(dict.fromkeys(q.rsplit(".", 1)[-1] for q, _r, _l in mine))
        heads = []
        for qual, rel, line in mine:
            f = file(rel)
            text, last = _class_header(f, line)
            heads.append(Site(rel, Call(base, line, last, text), "", rank_of(rel), symbol_at(f.symbols, line), (text, line, last)))
        heads.sort(key=_order)
        members, sites = [], []
        for u in uses:
            if u.target != base or u.via.split("`")[1] not in shorts:
                continue
            members.append(f"`{u.member}()`" if u.call is not None else f"`{u.member}`")
            if len(sites) < MAX_SITES - 1 and u.file not in {s.rel for s in sites}:
                f = file(u.file)
                stmt = _statement_at(f, u.line)
                if stmt is not None:
                    sites.append(Site(u.file, Call(base, stmt[1], stmt[2], stmt[0]), "", rank_of(u.file), symbol_at(f.symbols, stmt[1]), stmt))
        who = ", ".join(f"`{n}`" for n in shorts[:MAX_NAMES]) + (f" and {len(shorts) - MAX_NAMES} more" if len(shorts) > MAX_NAMES else "")
        check = f"subclassed by {who}"
        members = list(dict.fromkeys(members))
        if members:
            check += f"; what they use through `self` / `super()` still exists on `{base.rsplit('.', 1)[-1]}`: " + ", ".join(members[:8])
        own = list(dict.fromkeys(defined.get(base, [])))
        if own:
            check += (f"; the methods they define override the base's where it has them ({_some(own)}): each takes what the "
                      "base's takes and what upstream calls it with")
        through = list(dict.fromkeys(typed.get(base, [])))
        if through:
            check += f"; the classes the base declares its attributes as still have what they call on them: {_some(through)}"
        check += "; `__init__` still takes what the subclasses pass and forward."
        if base in known:
            e = known[base]
            merged: dict[tuple[str, int], Site] = {}
            at_heads = {(h.rel, h.shown[1]) for h in heads}  # `wk.Widget` read in a class header: the header says more
            for x in [x for x in e.sites if (x.rel, x.shown[1]) not in at_heads] + [heads[0]] + sites:
                merged.setdefault((x.rel, x.shown[1]), x)
            e.sites = list(merged.values())[:MAX_SITES]
            e.check = e.check.rstrip(".") + "; " + check
            e.rank = min(e.rank, heads[0].rank)
        else:
            e = Entry(base, [heads[0], *sites][:MAX_SITES], check[0].upper() + check[1:], True, len(heads) + len(members),
                      len({s.rel for s in heads}), heads[0].rank)
            rest: Counter[str] = Counter(h.rel.rsplit("/", 1)[0] + "/" if "/" in h.rel else "" for h in heads[1:])
            e.rest = sorted(rest.items(), key=lambda x: (-x[1], x[0]))
            e.count = len(heads)
            entries.append(e)
    return entries


def _some(items: list[str], n: int = 8) -> str:
    """The first ``n`` items, and how many more."""
    return ", ".join(items[:n]) + (f" and {len(items) - n} more" if len(items) > n else "")


def _may_patch(text: str, names: list[str]) -> bool:
    """A file that may assign onto an upstream class (``Cls.m = f``, ``setattr``): the cheap test
    before finding uses for patches alone."""
    return bool(_ASSIGN_ONTO.search(text)) and any(n.split(".")[0] in text for n in names)


_ASSIGN_ONTO = re.compile(r"^[ \t]*(?!self\.)[A-Za-z_][\w.]*\.\w+[ \t]*=[^=]|\bsetattr\(", re.M)  # not ``self.x = ...``


def _def_header(f: _File, line: int) -> tuple[str, int, int]:
    """The ``def`` statement's header at ``line`` (its parameters may span lines), without its body."""
    for node in ast.walk(f.tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno == line:
            last = node.body[0].lineno - 1 if node.body and node.body[0].lineno > line else line
            while last > line and (not f.lines[last - 1].strip() or f.lines[last - 1].strip().startswith("#")):
                last -= 1
            return textwrap.dedent("\n".join(f.lines[line - 1:last])).rstrip(), line, last
    return f.lines[line - 1].strip(), line, line


def _overrides_for_sure(f: _File, line: int, name: str, base: str, names: list[str]) -> bool:
    """The ``def name`` at ``line`` certainly overrides upstream's ``base.name``: its class has
    ``base`` as its one base (with more, or through project classes, the method may come from
    another), and it calls ``super().name(...)`` or is decorated ``@override``."""
    cls = next((c for c in ast.walk(f.tree) if isinstance(c, ast.ClassDef)
                and any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.lineno == line for n in c.body)), None)
    if cls is None or len(cls.bases) != 1 or resolve(cls.bases[0], bindings(f.tree, names)) != base:
        return False
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno == line:
            if any((dotted(d) or "").rsplit(".", 1)[-1] == "override" for d in node.decorator_list):
                return True
            return any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == name
                       and isinstance(c.func.value, ast.Call) and isinstance(c.func.value.func, ast.Name)
                       and c.func.value.func.id == "super" for c in ast.walk(node))
    return False


def _merge_replaced(every, known: dict[str, Entry], entries: list[Entry], file, rank_of, names: list[str]) -> None:
    """An entry per upstream method the project replaces: a method a subclass overrides for
    certain (it calls ``super().m(...)`` or is decorated ``@override``; ``new`` reads no upstream
    source, so other methods a subclass defines are named in the base class's entry instead), and
    a method a patch assigns onto an upstream class (``Cls.m = f``). Its sites are the ``def``
    headers and the assignments (two shown, the rest counted by folder): a checklist written
    today names the places an upgrade breaks tomorrow."""
    groups: dict[str, list[tuple[Site, str]]] = {}
    for u in every:
        if u.kind == OVERRIDE:
            f = file(u.file)
            if not _overrides_for_sure(f, u.line, u.member, u.target, names):
                continue
            snippet, first, last = _def_header(f, u.line)
            site = Site(u.file, Call(f"{u.target}.{u.member}", first, last, snippet), "", rank_of(u.file),
                        symbol_at(f.symbols, first), (snippet, first, last))
            groups.setdefault(f"{u.target}.{u.member}", []).append((site, f"overridden by `{u.via.split('`')[1]}.{u.member}`"))
        elif u.kind == PATCH and not u.on_instance:  # one instance's method: no method of a class is replaced
            f = file(u.file)
            stmt = _statement_at(f, u.line)
            if stmt is None:
                continue
            site = Site(u.file, Call(f"{u.target}.{u.member}", stmt[1], stmt[2], stmt[0]), "", rank_of(u.file),
                        symbol_at(f.symbols, stmt[1]), stmt)
            groups.setdefault(f"{u.target}.{u.member}", []).append((site, f"replaced by the patch `{u.via.split('`')[1]}`"))
    for api, found in sorted(groups.items()):
        found.sort(key=lambda x: _order(x[0]))
        places = list(dict.fromkeys((s.rel, s.shown[1]) for s, _w in found))
        by_place = {(s.rel, s.shown[1]): s for s, _w in found}
        who = list(dict.fromkeys(w for _s, w in found))
        method = api.rsplit(".", 1)[-1]
        check = (f"{_some(who, MAX_NAMES)}: each takes what upstream's `{method}` takes (names, order, kinds) and every call "
                 f"upstream makes of it; what a wrapper does with the original's result still fits its return type.")
        shown = [by_place[k] for k in places[:MAX_SITES]]
        rest: Counter[str] = Counter()
        for rel, _line in places[MAX_SITES:]:
            rest[rel.rsplit("/", 1)[0] + "/" if "/" in rel else ""] += 1
        if api in known:
            e = known[api]
            merged = {(x.rel, x.shown[1]): x for x in e.sites}
            for x in shown:
                merged.setdefault((x.rel, x.shown[1]), x)
            e.sites = list(merged.values())[:MAX_SITES]
            e.check = e.check.rstrip(".") + "; " + check
            e.rank = min(e.rank, shown[0].rank)
            continue
        e = Entry(api, shown, check[0].upper() + check[1:], False, len(places), len({r for r, _l in places}), shown[0].rank,
                  sorted(rest.items(), key=lambda x: (-x[1], x[0])))
        known[api] = e
        entries.append(e)


# --- version guards ------------------------------------------------------------------


@dataclass
class Guard:
    rel: str
    line: int
    symbol: str | None
    code: str
    kind: str  # "hasattr", "version", "import"
    rank: tuple[int, bool]
    subject: str = ""  # the attribute of a hasattr guard

    def item(self, lines: bool) -> str:
        place = f"`{self.rel}:{self.line}`" if lines else f"`{self.rel}`"
        if self.symbol:
            place += f" (`{self.symbol}`)"
        why = {
            "hasattr": f"the code it guards is for versions without `{self.subject}`; it can go once every supported version has it",
            "version": "a version comparison; the branch for older versions can go once the oldest supported version is past it",
            "import": "in a `try` whose `except ImportError` falls back; the fallback can go once this import always works",
        }[self.kind]
        return wrap(f"- {place} — `{self.code}`: {why}.", indent="  ")


_VERSION_FUNCS = ("version", "get_distribution", "distribution", "require")


def _guards(parsed: dict[str, _File], names: list[str], package: str, rank_of) -> list[Guard]:
    """``hasattr(pkg…)``, comparisons of the package's version (``pkg.__version__``,
    ``importlib.metadata.version("pkg")``, and a name assigned from one) and ``try:
    import pkg… except ImportError``, in the importers: ranked like call sites, each once."""
    dists = {package.lower(), package.lower().replace("-", "_"), *(n.split(".")[0] for n in names)}
    out: dict[tuple[str, str], Guard] = {}
    for rel, f in parsed.items():
        bound = bindings(f.tree, names)
        scopes = f.scopes

        def of_package(expr: ast.AST) -> bool:
            api = resolve(expr, bound)
            head = expr
            while isinstance(head, ast.Attribute):
                head = head.value
            return api is not None and isinstance(head, ast.Name) and scopes.binds_import(expr, head.id)

        def version_source(expr: ast.AST, names_of_versions: set[str]) -> bool:
            for n in ast.walk(expr):
                if isinstance(n, ast.Attribute) and n.attr in ("__version__", "version", "short_version") and of_package(n):
                    return True
                if (isinstance(n, ast.Call) and (dotted(n.func) or "").rsplit(".", 1)[-1] in _VERSION_FUNCS and n.args
                        and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)
                        and n.args[0].value.lower() in dists):
                    return True
                if isinstance(n, ast.Name) and n.id in names_of_versions:
                    return True
            return False

        versions: set[str] = set()
        for node in ast.walk(f.tree):  # `NP_VERSION = Version(np.__version__)`: the name is the version
            if isinstance(node, ast.Assign) and version_source(node.value, set()):
                versions.update(t.id for t in node.targets if isinstance(t, ast.Name))

        def add(node: ast.AST, kind: str, subject: str = "") -> None:
            text = ast.get_source_segment(f.source, node) or ""
            if "\n" in text:
                text = ast.unparse(node)
            if not text or "`" in text or len(text) > 160:
                return
            key = (rel, text)
            if key not in out:
                out[key] = Guard(rel, node.lineno, symbol_at(f.symbols, node.lineno), text, kind, rank_of(rel), subject)

        for node in ast.walk(f.tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hasattr"
                    and len(node.args) == 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
                    and of_package(node.args[0])):
                add(node, "hasattr", node.args[1].value)
            elif isinstance(node, ast.Compare) and version_source(node, versions):
                add(node, "version")
            elif isinstance(node, ast.Try) and catches_import_error(node):
                for stmt in node.body:
                    if isinstance(stmt, (ast.Import, ast.ImportFrom)) and any(scopes._of_package(stmt, a) for a in stmt.names):
                        add(stmt, "import")
                        break
    kinds = {"hasattr": 0, "version": 1, "import": 2}
    return sorted(out.values(), key=lambda g: (g.rank, kinds[g.kind], g.rel, g.line))


def _check_text(call: Call, reads: list[str]) -> str:
    """What this call relies on, in the order a reader checks it upstream."""
    parts = []
    if call.keywords:
        kws = ", ".join(f"`{k}`" for k in call.keywords)
        parts.append(f"{kws} {'are still accepted as keywords' if len(call.keywords) > 1 else 'is still accepted as a keyword'}")
    if call.positional == 1:
        parts.append("the positional argument is still the first parameter")
    elif call.positional > 1:
        parts.append(f"the {call.positional} positional arguments are still in the same order")
    if call.star_args or call.star_kwargs:
        passed = " and ".join(x for x, on in (("`*args`", call.star_args), ("`**kwargs`", call.star_kwargs)) if on)
        parts.append(f"what {passed} pass{'es' if ' and ' not in passed else ''} through still lands on accepted parameters")
    if not (call.keywords or call.positional or call.star_args or call.star_kwargs):
        parts.append("it is still callable with no arguments")
    read = reads[:4]
    if read:
        parts.append(f"the result (`{call.assigned_to}`) still has {', '.join(f'`{a}`' for a in read)}")
    elif call.assigned_to:
        parts.append(f"the result (`{call.assigned_to}`) keeps its type")
    elif call.used:
        parts.append("the return value, which the code uses, keeps its type")
    text = "; ".join(parts) + "."
    return text[0].upper() + text[1:] if text[0] != "`" else text
