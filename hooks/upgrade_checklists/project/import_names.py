"""Which import paths a checklist's package is used through (frontmatter, configuration, maintenance guide,
the status file's Focused Packages table, or derived)."""

from __future__ import annotations

import re

from upgrade_checklists.core.checklist import Checklist, cell_codes, table_rows
from upgrade_checklists.core.config import Config, ConfigError


def resolve_import_names(cl: Checklist, cfg: Config, guide: dict[str, list[str]],
                         focused: dict[str, list[str]] | None = None) -> tuple[list[str], str]:
    """The import paths a checklist's package is used through, and where they came from."""
    names = cl.frontmatter.get("import_names")
    if isinstance(names, list) and names and all(isinstance(n, str) for n in names):
        return list(names), "frontmatter import_names"
    for key in (cl.package, cl.name):
        if key in cfg.import_names:
            return cfg.import_names[key], "configuration [tool.upgrade-checklists.import-names]"
        if key in guide:
            return guide[key], f"maintenance guide {cfg.maintenance_guide}"
        if focused and key in focused:
            return focused[key], f"status file {cfg.status_file}, Focused Packages"
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
