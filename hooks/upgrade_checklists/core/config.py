"""``[tool.upgrade-checklists]`` configuration: load, validate, default."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from upgrade_checklists.core.files import inside

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

TIERS = ("primary", "secondary", "tertiary")
SECTION = "upgrade-checklists"


class ConfigError(Exception):
    """A configuration or usage problem: the command cannot run (exit 2)."""


@dataclass
class Config:
    root: Path
    checklists: str = "checklists"
    roots: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    status_file: str | None = None
    maintenance_guide: str | None = None
    tiers: dict[str, list[str]] | None = None
    import_names: dict[str, list[str]] = field(default_factory=dict)
    families: dict[str, list[str]] = field(default_factory=dict)
    #: import name -> distribution, for a base class in another distribution (``audit/bases.py``)
    distributions: dict[str, str] = field(default_factory=dict)
    git_url: str = "https://github.com/{github}.git"
    cache_dir: str | None = ".upgrade-checklists-cache"
    manifests: list[str] = field(default_factory=lambda: ["pyproject*.toml", "uv*.lock", "requirements*.txt"])
    select: list[str] | None = None  # codes to report (None: every code on by default)
    ignore: list[str] = field(default_factory=list)  # codes never reported
    per_checklist_ignores: dict[str, list[str]] = field(default_factory=dict)  # glob -> codes
    #: a catalog reference's stale line number (LINE, a drifted version-guard line) is an
    #: error, not a warning: for checklists that keep their numbers exact with --fix
    strict_lines: bool = False
    #: a row's bookkeeping out of date (CHANGED: names the cell lacks or no longer finds;
    #: MOVED: a file git reports renamed, within its tier) is an error, not a warning
    strict_rows: bool = False
    source: Path | None = None  # the file the table came from, for messages
    warnings: list[str] = field(default_factory=list)  # said on stderr; the run goes on

    @property
    def checklist_dir(self) -> Path:
        return self.root / self.checklists


_KEYS = {
    "checklists": str,
    "roots": list,
    "exclude": list,
    "status_file": str,
    "maintenance_guide": str,
    "tiers": dict,
    "import-names": dict,
    "families": dict,
    "distributions": dict,
    "git_url": str,
    "cache_dir": str,
    "manifests": list,
    "select": list,
    "ignore": list,
    "per-checklist-ignores": dict,
    "strict-lines": bool,
    "strict-rows": bool,
}


_DIST = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")  # a distribution name (as the index spells one)
DEDICATED = "upgrade-checklists.toml"  # top-level keys, as in the [tool.upgrade-checklists] table


def load(cwd: Path, config_file: Path | None = None) -> Config:
    """The configuration for a run started in ``cwd``.

    Without ``config_file``, as ruff does: the nearest directory at or above ``cwd`` that
    holds an ``upgrade-checklists.toml``, or a ``pyproject.toml`` with a
    ``[tool.upgrade-checklists]`` table; paths in it are relative to that directory (the
    repository root). The search stops at the repository root (the first directory up
    from ``cwd`` holding ``.git``): a configuration above it belongs to something else
    (a home directory, a CI workspace) and is never used. Nothing found: defaults,
    rooted at ``cwd``. A configuration file found must be a regular file of the
    repository (not a symlink leading out of it, not a FIFO or device).

    ``config_file`` (relative to ``cwd``) must hold the table (or be an
    ``upgrade-checklists.toml``); a file named on the command line is the user's choice,
    read wherever it is. Its directory is the root when ``cwd`` is at or below it and it
    is at or below the repository root (``--config ../pyproject.toml`` from a
    subdirectory); a configuration kept elsewhere (shared between repositories, or
    above the repository) applies to the repository at ``cwd``.
    """
    warnings: list[str] = []
    if config_file is not None:
        path = cwd / config_file
        if not path.is_file():
            raise ConfigError(f"{_display(path, cwd)}: config file not found")
        base = path.resolve().parent
        here = cwd.resolve()
        top = _repository_root(here)
        within = top is None or base == top or top in base.parents
        root = base if within and (here == base or base in here.parents) else cwd
        table = _read_table(path, _display(path, root), warnings, required=True)
        return _finish(root, table, path, warnings)
    for d in (cwd, *cwd.parents):
        dedicated = d / DEDICATED
        if os.path.lexists(dedicated):
            inside(d, DEDICATED)  # a committed symlink leading out of the repository: Outside, exit 2
            return _finish(d, _read_table(dedicated, _display(dedicated, d), warnings, required=True), dedicated, warnings)
        pyproject = d / "pyproject.toml"
        if os.path.lexists(pyproject):
            inside(d, "pyproject.toml")
            table = _read_table(pyproject, _display(pyproject, d), warnings, required=False)
            if table is not None:
                return _finish(d, table, pyproject, warnings)
        if os.path.lexists(d / ".git"):
            break  # the repository root: nothing above it configures this repository
    return _finish(cwd, {}, None, warnings)


def _repository_root(d: Path) -> Path | None:
    """The nearest directory at or above ``d`` holding ``.git`` (a folder, or the file of a worktree)."""
    for p in (d, *d.parents):
        if os.path.lexists(p / ".git"):
            return p
    return None


def _read_table(path: Path, shown: str, warnings: list[str], required: bool) -> dict | None:
    """The settings in ``path``: the whole of an ``upgrade-checklists.toml``, else the
    ``[tool.upgrade-checklists]`` table (None when absent and not ``required``)."""
    from upgrade_checklists.core.files import Skipped, read_capped

    try:
        data = tomllib.loads(read_capped(path).decode("utf-8"))  # a regular file, capped: never /dev/zero
    except Skipped as exc:
        raise ConfigError(f"{shown}: {exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{shown}: invalid TOML: {exc}") from None
    except RecursionError:  # tomllib recurses once per level of arrays and inline tables
        raise ConfigError(f"{shown}: invalid TOML: arrays or inline tables nested too deeply") from None
    if path.name == DEDICATED:
        return data.get("tool", {}).get(SECTION, data) if set(data) == {"tool"} else data
    tool = data.get("tool", {})
    misspelt = SECTION.replace("-", "_")
    if misspelt in tool:
        warnings.append(f"{shown}: [tool.{misspelt}] is not read: the table is spelt [tool.{SECTION}]")
    if SECTION not in tool:
        if required:
            raise ConfigError(f"{shown}: no [tool.{SECTION}] table")
        return None
    return tool[SECTION]


def _finish(root: Path, table: dict, path: Path | None, warnings: list[str]) -> Config:
    cfg = _from_table(root, table, path, _display(path, root) if path is not None else "pyproject.toml")
    cfg.warnings = warnings
    if not cfg.roots:
        cfg.roots = default_roots(root)
    return cfg


def _from_table(root: Path, table: dict, path: Path | None, shown: str) -> Config:
    where = f"{shown}: [tool.{SECTION}]"
    for key, value in table.items():
        if key not in _KEYS:
            raise ConfigError(f"{where}: unknown key {key!r} (known: {', '.join(sorted(_KEYS))})")
        if not isinstance(value, _KEYS[key]):
            kind = "boolean (true or false)" if _KEYS[key] is bool else _KEYS[key].__name__
            raise ConfigError(f"{where}: {key!r} must be a {kind}")
    cfg = Config(root=root, source=path)
    if "checklists" in table:
        cfg.checklists = _relative(table["checklists"], f"{where} checklists")
    cfg.roots = [_relative(r, f"{where} roots") for r in _str_list(table, "roots", where)]
    cfg.exclude = _str_list(table, "exclude", where)
    if "status_file" in table:
        cfg.status_file = _relative(table["status_file"], f"{where} status_file")
    if "maintenance_guide" in table:
        cfg.maintenance_guide = _relative(table["maintenance_guide"], f"{where} maintenance_guide")
    if "tiers" in table:
        tiers = table["tiers"]
        for key in tiers:
            if key not in TIERS:
                raise ConfigError(f"{where}.tiers: unknown key {key!r} (known: {', '.join(TIERS)})")
        cfg.tiers = {t: _str_list(tiers, t, f"{where}.tiers") for t in TIERS}
    for key, attr in (("import-names", "import_names"), ("families", "families")):
        mapping = table.get(key, {})
        for name in mapping:
            if isinstance(mapping[name], str):
                mapping[name] = [mapping[name]]
            _str_list(mapping, name, f"{where}.{key}")
        setattr(cfg, attr, {k: list(v) for k, v in mapping.items()})
    dists = table.get("distributions", {})
    for name, dist in dists.items():
        if not isinstance(dist, str) or not _DIST.match(dist) or not name.isidentifier():
            raise ConfigError(f"{where}.distributions: {name!r} = {dist!r}: an import name and a distribution name, "
                              f"e.g. yaml = \"PyYAML\"")
    cfg.distributions = dict(dists)
    if "cache_dir" in table:
        cfg.cache_dir = _relative(table["cache_dir"], f"{where} cache_dir")
    if "git_url" in table:
        cfg.git_url = table["git_url"]
    if "manifests" in table:
        cfg.manifests = [_relative(m, f"{where} manifests") for m in _str_list(table, "manifests", where)]
        if not cfg.manifests:
            raise ConfigError(f"{where}: 'manifests' must name at least one file or glob")
    if "select" in table:
        cfg.select = check_codes(_str_list(table, "select", where), f"{where} select")
    cfg.ignore = check_codes(_str_list(table, "ignore", where), f"{where} ignore")
    per = table.get("per-checklist-ignores", {})
    for glob in per:
        if isinstance(per[glob], str):
            per[glob] = [per[glob]]
        per[glob] = check_codes(_str_list(per, glob, f"{where}.per-checklist-ignores"),
                                f"{where}.per-checklist-ignores {glob!r}")
    cfg.per_checklist_ignores = dict(per)
    cfg.strict_lines = table.get("strict-lines", False)
    cfg.strict_rows = table.get("strict-rows", False)
    return cfg


def check_codes(codes: list[str], where: str) -> list[str]:
    """Finding codes (any case), checked against the known ones; ``ALL`` means every code."""
    from upgrade_checklists.core.findings import AUDIT_CODES, OFF_BY_DEFAULT, STRUCTURE_CODES

    known = set(STRUCTURE_CODES) | set(AUDIT_CODES) | set(OFF_BY_DEFAULT) | {"ALL"}
    out = []
    for code in codes:
        c = code.strip().upper()
        if c not in known:
            raise ConfigError(f"{where}: unknown code {code!r} (known: {', '.join(STRUCTURE_CODES)}, ALL, and the audit's)")
        out.append(c)
    return out


def _str_list(table: dict, key: str, where: str) -> list[str]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: {key!r} must be a list of strings")
    return list(value)


def _relative(value: str, where: str) -> str:
    p = Path(value)
    if p.is_absolute() or ".." in p.parts:
        raise ConfigError(f"{where}: {value!r} must be a path inside the repository")
    return value.rstrip("/") or "."


def _display(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def default_roots(root: Path) -> list[str]:
    """The repository's Python packages (top level and under ``src/``), the modules directly
    under ``src/`` (a one-module project: ``src/pytest_plugin.py``), ``tests/`` and ``examples/``.

    Top-level modules are left out: beside a package they are tooling (``setup.py``,
    ``noxfile.py``, ``conftest.py``); under ``src/`` a module is the project's code."""
    roots = []
    for base in (root, root / "src"):
        if base.is_dir():
            for child in sorted(base.iterdir()):
                if child.is_dir() and (child / "__init__.py").is_file():
                    roots.append(child.relative_to(root).as_posix())
                elif base != root and child.is_file() and child.suffix == ".py":
                    roots.append(child.relative_to(root).as_posix())
    for extra in ("tests", "examples"):
        if (root / extra).is_dir():
            roots.append(extra)
    return roots or ["."]
