"""Folders whose importers use a package the same way: one Affected Files row for the folder.

A file is a *like user* when it is not the library's own code: its tier is Tertiary, or
it is not part of an importable package (its folder has no ``__init__.py``): tests, docs
examples, scripts. A folder qualifies for a directory row (``tests/``) when every importer
below it is a like user, all in one tier, and there are at least ``minimum`` of them; the
top-most such folder is taken. A directory row lists every importer below it, so a
contributor's new file there is covered and blocks nothing. Which folders these are is
decided from the files, never from their names.

Like users spread over many small folders of the same name (a package with a `tests/`
folder in each subpackage) get one glob row instead (``pkg/*/tests/*.py``), when every
importer the glob matches is a like user of one tier and there are at least ``minimum``.
A glob row compares each file it matches with its tokens, so its token is the package's
import name, which covers any import of the package.
"""

from __future__ import annotations

import os
from fnmatch import fnmatch
from pathlib import Path

#: ``new`` writes a directory row for a folder with at least this many like importers
FOLDER_MIN = 5


def like_user(root: Path, rel: str, tier: str | None) -> bool:
    """Not the library's own code: Tertiary, or outside any importable package."""
    if tier == "tertiary":
        return True
    folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
    return bool(folder) and not os.path.isfile(os.path.join(root, folder, "__init__.py"))


def _ancestors(rel: str) -> list[str]:
    """``a/b/c.py`` -> ``["a/", "a/b/"]`` (top-most first; never the repository's root)."""
    parts = rel.split("/")[:-1]
    return ["/".join(parts[: i + 1]) + "/" for i in range(len(parts))]


def folder_groups(root: Path, tiers: dict[str, str | None], minimum: int = FOLDER_MIN) -> dict[str, list[str]]:
    """``{folder/: [importers below it]}`` for the top-most folders that qualify.
    ``tiers``: every importer of the package and its tier."""
    if minimum < 1:
        return {}
    below: dict[str, list[str]] = {}
    for rel in tiers:
        for d in _ancestors(rel):
            below.setdefault(d, []).append(rel)
    like = {rel: like_user(root, rel, tier) for rel, tier in tiers.items()}
    ok = {d: len(files) >= minimum and all(like[f] for f in files) and len({tiers[f] for f in files}) == 1
          for d, files in below.items()}
    out: dict[str, list[str]] = {}
    for rel in sorted(tiers):
        top = next((d for d in _ancestors(rel) if ok[d]), None)
        if top is not None:
            out.setdefault(top, []).append(rel)
    return out


def suggested_folder(root: Path, rel: str, tiers: dict[str, str | None]) -> tuple[str, int] | None:
    """For an unlisted importer that is a like user: the top-most folder above it whose
    importers (``tiers``: all of them, with their tier) are all like users of one tier,
    at least two of them (``rel`` one); with how many there are. None when there is none."""
    if not like_user(root, rel, tiers.get(rel)):
        return None
    mine = {f: t for f, t in tiers.items() if f.startswith(_ancestors(rel)[0])} if "/" in rel else {}
    groups = folder_groups(root, mine, 2)
    for d, files in groups.items():
        if rel in files:
            return d, len(files)
    return None


def glob_groups(root: Path, tiers: dict[str, str | None], left: list[str], minimum: int = FOLDER_MIN) -> dict[str, list[str]]:
    """``{pattern: [importers it matches]}``: ``top/*/name/*.py`` for like users in
    ``left`` (not in a folder row) whose folder is named alike, where every importer the
    pattern matches is a like user, all of one tier, at least ``minimum`` of them."""
    if minimum < 1:
        return {}
    candidates: dict[str, int] = {}
    for rel in left:
        parts = rel.split("/")
        if len(parts) >= 4 and rel.endswith(".py"):
            pattern = f"{parts[0]}/*/{parts[-2]}/*.py"
            candidates[pattern] = candidates.get(pattern, 0) + 1
    out: dict[str, list[str]] = {}
    taken: set[str] = set()
    for pattern in sorted(candidates, key=lambda p: (-candidates[p], p)):
        matched = [rel for rel in sorted(tiers) if fnmatch(rel, pattern)]
        if (len(matched) >= minimum and not taken.intersection(matched) and len({tiers[f] for f in matched}) == 1
                and all(like_user(root, f, tiers[f]) for f in matched)):
            out[pattern] = matched
            taken.update(matched)
    return out
