"""``upgrade-checklists new PACKAGE``: write a first checklist from a scan of the code.

Frontmatter from options (validated like any checklist's), Affected Files from the
files that import the package (tiers by location; with no tiers configured, tests/ and
examples/ are Tertiary), and one API Usage Catalog entry per distinct API the code calls
or reads as an attribute (``pkg.__version__``), ordered by tier and then by how often it
is used. A name that is only imported is documented in its file's row, not pinned to an
import line. Snippets are the call's own statement (its first lines and ``...`` when it
is long); the Check line names what that call relies on: the keywords it passes, its
positional arguments, and what the code reads from the result.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from upgrade_checklists.project.calls import Call, dotted, find_attribute_uses, find_calls
from upgrade_checklists.core.checklist import TIERS, read_checklist
from upgrade_checklists.project.checklists import load_checklists
from upgrade_checklists.core.config import Config, ConfigError
from upgrade_checklists.core.files import Skipped, read_file
from upgrade_checklists.check.fix import Table, status_text, write_atomic
from upgrade_checklists.check.rows import usage_parts
from upgrade_checklists.project.scan import Facts, Prefilter, iter_sources, scan_file
from upgrade_checklists.project.tiers import TierRules
from upgrade_checklists.project.uses import MEMBER, find_uses, subclasses

_TIER_TITLES = {
    "primary": "Primary (most likely to break)",
    "secondary": "Secondary",
    "tertiary": "Tertiary (tests, tools, examples)",
}


@dataclass
class Created:
    path: Path
    files: int
    entries: int
    import_names: list[str]
    status_updated: bool


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


def create(cfg: Config, package: str, github: str, branch_template: str,
           import_names: list[str], upstream_paths: list[str]) -> Created:
    path = cfg.checklist_dir / f"{package}.md"
    if path.exists():
        raise ConfigError(f"{path.relative_to(cfg.root).as_posix()} already exists; new never overwrites a checklist")
    sources = iter_sources(cfg.root, cfg.roots, cfg.exclude)
    guessed = not import_names
    names = import_names or cfg.import_names.get(package) or candidates(package)
    users = _users(cfg, sources, names)
    if guessed and not cfg.import_names.get(package):
        used = [n for n in names if any(f.imports_of([n]) for f in users.values())]
        names = used[:1] or [names[0].replace("-", "_")]  # the longest import path in use
        users = {p: f for p, f in users.items() if f.imports_of(names)}
    paths = upstream_paths or [n.replace(".", "/") + "/" for n in names]

    front = ["---", f"package: {package}", f"github: {github}", f"branch_template: {_yaml(branch_template)}", "upstream_paths:"]
    front += [f"  - {_yaml(p)}" for p in paths]
    front += ["import_names:"] + [f"  - {n}" for n in names] + ["---", ""]
    _validate(cfg, path, "\n".join(front) + _skeleton())
    cfg.checklist_dir.mkdir(parents=True, exist_ok=True)  # the first checklist makes the folder

    tiers = TierRules.build(cfg, load_checklists(cfg))
    if cfg.tiers is None:  # nothing configured: tests and examples are Tertiary, unless the checklists say otherwise
        known = {pattern.rstrip("/") for pattern, _ in tiers.rules}
        tiers = TierRules(sorted(tiers.rules + [(d, "tertiary") for d in DEFAULT_TERTIARY if d.rstrip("/") not in known],
                                 key=lambda r: -len(r[0].rstrip("/"))), True)
    tier_of = {rel: tiers.tier_of(rel)[0] or "secondary" for rel in users}
    rows: dict[str, list[list[str]]] = {t: [] for t in TIERS}
    for rel in sorted(users):
        rows[tier_of[rel]].append([f"`{rel}`", ", ".join(usage_parts(users[rel].imports_of(names)))])

    body = ["## Affected Files", ""]
    for tier in TIERS:
        body += [f"### {_TIER_TITLES[tier]}", ""]
        if rows[tier]:
            t = Table.new(["File", "Imports / Usage"], aligned=True)
            for row in rows[tier]:
                t.add_row(row)
            body += [line.rstrip("\n") for line in t.render()]
        else:
            body.append("_None._")
        body.append("")
    entries = _entries(cfg, users, names, tier_of)
    entries += _base_class_entries(cfg, sources, names, entries)
    body += ["## API Usage Catalog", ""]
    for i, e in enumerate(entries, 1):
        snippet, end = _shortened(e.call)
        where = f"line {e.call.line}" if e.call.line == end else f"lines {e.call.line}-{end}"
        verb = "Called" if e.called else "Used"
        others = f", 1 of {e.count} uses in {e.files} file{'s' if e.files > 1 else ''}" if e.count > 1 else ""
        body += [f"### {i}. `{e.api}`", "", f"{verb} in `{e.rel}` ({where}){others}:", "", "```python", snippet, "```", ""]
        for r, c in e.also:  # a subclassed base class: the subclass's uses of it
            body += [f"Called in `{r}` (line {c.line}):", "", "```python", c.snippet, "```", ""]
        body += [textwrap.fill(f"**Check:** {e.check}", 88, break_long_words=False, break_on_hyphens=False), ""]
    if not entries:
        body += ["_None yet._", ""]
    body += ["## Version-Guarded Code", "", "_None._", ""]
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
    return Created(path, len(users), len(entries), names, status)


def _yaml(value: str) -> str:
    return f"'{value}'" if value.startswith(("$", "{", "[", "*", "&", "!", "%", "@", "`")) or ": " in value else value


def _skeleton() -> str:
    return "## Affected Files\n\n" + "".join(f"### {t.capitalize()}\n\n_None._\n\n" for t in TIERS) + \
        "## API Usage Catalog\n\n## Version-Guarded Code\n\n_None._\n"


def _validate(cfg: Config, path: Path, text: str) -> None:
    """Refuse values that a checklist would reject (before anything is written)."""
    import tempfile

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


#: with no tiers configured, these locations are Tertiary
DEFAULT_TERTIARY = ("tests/", "examples/")
#: a longer snippet shows its first lines, then ``...`` (the check reads ``...`` as elided code)
MAX_SNIPPET_LINES = 6


@dataclass
class Entry:
    api: str
    rel: str  # the file of the call site shown
    call: Call  # the call site shown (for an attribute use: the line that reads it)
    check: str
    called: bool
    count: int  # uses across the code
    files: int
    also: list[tuple[str, Call]] = field(default_factory=list)  # further call sites shown (a subclassed base class)


def _entries(cfg: Config, users: dict[str, Facts], names: list[str], tier_of: dict[str, str]) -> list[Entry]:
    """One entry per distinct API the code calls or reads as an attribute, ordered by the
    best tier of the files that use it, then by how often it is used, then by name."""
    uses: dict[str, list[tuple[str, Call, str]]] = {}  # api -> (file, use, check)
    called: set[str] = set()
    attributes: dict[str, list[tuple[str, Call]]] = {}
    for rel in sorted(users):
        try:
            source = read_file(cfg.root, rel).decode("utf-8", errors="replace")
            tree = ast.parse(source)
        except (Skipped, OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # unreadable, or too deep for ast: its scan says PARSE
        for call in find_calls(source, tree, names):
            called.add(call.api)
            uses.setdefault(call.api, []).append((rel, call, _check_text(call, _result_reads(tree, call))))
        for api, use in find_attribute_uses(source, tree, names):
            attributes.setdefault(api, []).append((rel, use))
    for api, found in attributes.items():
        if api in called or any(c.startswith(api + ".") for c in called):
            continue  # a module or class whose members are called: those entries cover it
        owner, _, attr = api.rpartition(".")
        uses[api] = [(rel, use, f"`{attr}` still exists on `{owner}`, with the same meaning.") for rel, use in found]
    rank = {t: i for i, t in enumerate(TIERS)}
    out = []
    for api, found in uses.items():
        best = min(rank[tier_of[rel]] for rel, _, _ in found)
        rel, call, check = next(u for u in found if rank[tier_of[u[0]]] == best)
        out.append((best, -len(found), api, Entry(api, rel, call, check, api in called, len(found), len({u[0] for u in found}))))
    return [e for *_, e in sorted(out, key=lambda x: x[:3])]


def _result_reads(tree: ast.Module, call: Call) -> list[str]:
    """The attributes the code reads on the call's result after the call, in the function
    (or module) that makes it: ``out = f(x)`` then ``out.logits`` -> ``[logits]``."""
    if not call.assigned_to:
        return []
    scope: ast.AST = tree
    for node in ast.walk(tree):  # the innermost function around the call
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= call.line <= (node.end_lineno or 0):
            if scope is tree or node.lineno >= scope.lineno:
                scope = node
    out: list[str] = []
    for node in ast.walk(scope):
        if (isinstance(node, ast.Attribute) and node.lineno >= call.line and node.attr not in out
                and dotted(node.value) == call.assigned_to):
            out.append(node.attr)
    return out


def _base_class_entries(cfg: Config, sources: list[str], names: list[str], entries: list[Entry]) -> list[Entry]:
    """One entry per upstream class the project subclasses: the ``class`` statement, then the
    subclass's uses of it (``super().__init__(...)``, ``self.x``, ``self.m(...)``) as further
    call sites. A class that already has an entry gets these sites and Check text added."""
    known = {e.api: e for e in entries}
    parsed = {}
    for rel in sources:
        try:
            text = read_file(cfg.root, rel).decode("utf-8", errors="replace")
            parsed[rel] = (text, ast.parse(text))
        except (Skipped, OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    found = subclasses(parsed, names)
    if not found:
        return []
    uses = [u for u in find_uses(parsed, names) if u.kind == MEMBER and u.via.startswith("subclass ")]
    out = []
    for base in dict.fromkeys(b for b, *_ in found):
        mine = [(qual, rel, line) for b, qual, rel, line in found if b == base]
        first_qual, first_rel, first_line = mine[0]
        lines = parsed[first_rel][0].splitlines()
        head = Call(base, first_line, first_line, lines[first_line - 1].strip())
        shorts = {q.rsplit(".", 1)[-1] for q, _r, _l in mine}
        sites, members = [], []
        for u in uses:
            if u.target == base and u.via.split("`")[1] in shorts:
                members.append(f"`{u.member}()`" if u.call is not None else f"`{u.member}`")
                if len(sites) < 3 and (u.file, u.line) not in {(r, c.line) for r, c in sites} and (u.file, u.line) != (first_rel, first_line):
                    text = parsed[u.file][0].splitlines()[u.line - 1].strip()
                    sites.append((u.file, Call(base, u.line, u.line, text)))
        who = ", ".join(f"`{q.rsplit('.', 1)[-1]}`" for q, _r, _l in mine)
        check = f"subclassed by {who}"
        members = list(dict.fromkeys(members))
        if members:
            check += f"; what it uses through `self` / `super()` still exists on `{base.rsplit('.', 1)[-1]}`: " + ", ".join(members[:8])
        check += "; `__init__` still takes what the subclass passes and forwards."
        if base in known:
            e = known[base]
            e.also = [(r, c) for r, c in [(first_rel, head), *sites] if (r, c.line) != (e.rel, e.call.line)]
            e.check = e.check.rstrip(".") + "; " + check
        else:
            out.append(Entry(base, first_rel, head, check[0].upper() + check[1:], True, 1, 1, sites))
    return out


def _shortened(call: Call) -> tuple[str, int]:
    """The snippet to show and the last line it covers: the whole statement when short,
    else its first lines and ``...`` (then only the first line is recorded)."""
    lines = call.snippet.split("\n")
    if len(lines) <= MAX_SNIPPET_LINES:
        return call.snippet, call.end_line
    return "\n".join(lines[: MAX_SNIPPET_LINES - 1] + ["..."]), call.line


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
