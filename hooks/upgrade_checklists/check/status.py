"""The status file's table against the checklists: STATUS."""

from __future__ import annotations

from pathlib import Path

from upgrade_checklists.project.cache import ScanCache
from upgrade_checklists.core.checklist import Checklist, StatusRow, read_status
from upgrade_checklists.core.config import Config
from upgrade_checklists.core.findings import Finding
from upgrade_checklists.core.plain import PlainError, from_plain, to_plain
from upgrade_checklists.project.result import Result


def check_status(cfg: Config, res: Result, checklists: list[Checklist]) -> None:
    rel = cfg.status_file
    path = cfg.root / rel
    if not path.is_file():
        res.findings.append(Finding(rel, 1, "STATUS", f"status file {rel} does not exist"))
        return
    try:
        rows = _read_cached(path, rel, res.cache)
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


def _read_cached(path: Path, rel: str, cache: ScanCache | None) -> list[StatusRow]:
    """The status rows, from the cache when the file has not changed (no Markdown parse)."""
    if cache is None:
        return read_status(path)
    st = path.stat()
    hit, data = cache.get("status:" + rel, st)
    if hit and type(data) is list:
        try:
            return [from_plain(StatusRow, row) for row in data]
        except PlainError:
            pass
    rows = read_status(path)
    cache.put("status:" + rel, st, to_plain(rows))
    return rows
