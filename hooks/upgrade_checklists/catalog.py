"""The API Usage Catalog and Version-Guarded Code against the files they name: SNIPPET, LINE, GUARD."""

from __future__ import annotations

from upgrade_checklists.checklist import Checklist
from upgrade_checklists.findings import Finding
from upgrade_checklists.result import Result
from upgrade_checklists.snippets import Snippets


def check_catalog(res: Result, cl: Checklist, snippets: Snippets) -> None:
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
    outside = _outside_repository(cl, snippets)
    for g in cl.guards:
        count = snippets.line_count(g.file)
        if count is None and outside(g.file):
            continue  # another repository's file (the subsection's note in -v says so)
        if count is None:
            add(Finding(cl.rel, g.ref_line, "GUARD", f"version guard `{g.file}` does not exist", g.file, g.line, pkg))
        elif g.line is not None and g.line > count:
            add(Finding(cl.rel, g.ref_line, "GUARD", f"version guard `{g.file}:{g.line}` is past the end of the file ({count} lines)", g.file, g.line, pkg))


def _outside_repository(cl: Checklist, snippets: Snippets):
    """A path of another repository: listed under a non-tier subsection of Affected Files
    ("External (...)"), or below the same top folder as such a row, a folder this
    repository does not have."""
    extra = {r.file for r in cl.rows if r.extra}
    tops = {f.split("/", 1)[0] for f in extra if "/" in f}
    tops = {t for t in tops if not (snippets.root / t).exists()}

    def outside(path: str) -> bool:
        return path in extra and not (snippets.root / path).exists() or path.split("/", 1)[0] in tops

    return outside
