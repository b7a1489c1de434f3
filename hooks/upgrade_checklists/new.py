"""``upgrade-checklists new PACKAGE``: write a first checklist from a scan of the code.

Frontmatter from options (validated like any checklist's), Affected Files from the
files that import the package (tiers by location), and one API Usage Catalog entry
per distinct API the code calls (or only imports), with its first call site.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

from upgrade_checklists.calls import Call, find_calls
from upgrade_checklists.checklist import TIERS, read_checklist
from upgrade_checklists.compare import load_checklists
from upgrade_checklists.config import Config, ConfigError
from upgrade_checklists.fix import Table, status_text, write_atomic
from upgrade_checklists.rows import usage_parts
from upgrade_checklists.scan import Facts, Prefilter, iter_sources, scan_file
from upgrade_checklists.tiers import TierRules

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
    rows: dict[str, list[list[str]]] = {t: [] for t in TIERS}
    for rel in sorted(users):
        tier = tiers.tier_of(rel)[0] or "secondary"
        rows[tier].append([f"`{rel}`", ", ".join(usage_parts(users[rel].imports_of(names)))])

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
    entries = _entries(cfg, users, names)
    body += ["## API Usage Catalog", ""]
    for i, (api, rel, call, check) in enumerate(entries, 1):
        where = f"line {call.line}" if call.line == call.end_line else f"lines {call.line}-{call.end_line}"
        body += [f"### {i}. `{api}`", "", f"Called in `{rel}` ({where}):", "", "```python", call.snippet, "```", "",
                 textwrap.fill(f"**Check:** {check}", 88, break_long_words=False, break_on_hyphens=False), ""]
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
        data = (cfg.root / rel).read_bytes()
        if not may(data):
            continue
        facts = scan_file(rel, data, True)
        if isinstance(facts, Facts) and facts.imports_of(names):
            out[rel] = facts
    return out


def _entries(cfg: Config, users: dict[str, Facts], names: list[str]) -> list[tuple[str, str, Call, str]]:
    """(api, file, first call, check text), one per distinct API, in order of first use."""
    seen: dict[str, tuple[str, str, Call, str]] = {}
    imported: list[tuple[str, str, Call]] = []
    for rel in sorted(users):
        source = (cfg.root / rel).read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        lines = source.splitlines()
        for call in find_calls(source, tree, names):
            if call.api not in seen:
                seen[call.api] = (call.api, rel, call, _check_text(call))
        for imp in users[rel].imports_of(names):
            stmt = lines[imp.line - 1].strip()
            imported.append((imp.qualname, rel, Call(imp.qualname, imp.line, imp.line, stmt)))
    out = list(seen.values())
    for api, rel, call in imported:
        if not any(a == api or a.startswith(api + ".") for a in seen) and api not in {e[0] for e in out}:
            out.append((api, rel, call, f"`{api.rsplit('.', 1)[-1]}` is still importable from `{api.rsplit('.', 1)[0]}`."))
    return out


def _check_text(call: Call) -> str:
    parts = []
    if call.keywords:
        parts.append(", ".join(f"`{k}`" for k in call.keywords) + " still accepted as keyword" + ("s" if len(call.keywords) > 1 else ""))
    if call.positional:
        parts.append(f"the {call.positional} positional argument{'s' if call.positional > 1 else ''} still in the same order")
    if call.star_args or call.star_kwargs:
        parts.append("the `*args` / `**kwargs` passed through still land on the same parameters")
    if not parts:
        parts.append("still callable with no arguments")
    parts.append("no new required parameter")
    return "; ".join(parts) + "."
