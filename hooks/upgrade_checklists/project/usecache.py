"""The project side of a warm audit: what ``uses.find_uses`` found, kept as plain JSON.

``find_uses`` reads three things: the project's Python files (their paths and texts),
the import names, and the names of upstream's hook specifications (only functions of those
names are hook implementations to look into). It consults neither the upstream model nor
the checklists (``bind.py`` and ``entries.py`` do that afterwards, on every run). So its
answer is kept in the audit's cache file (``audit.json``, see ``audit.project_store``)
under the import names and the hook names,
stamped with a digest of every project file's path, mode, size, mtime, ctime and inode
(git's index keys, as ``runcache.py`` keys a check). The file's header carries the
format, the tool build (a hash of our own sources: another analysis never reads an
older record), the machine and the repository root.

A warm audit of an unchanged project stats its files and parses none of them. An
edited, added or removed file (or another list of files: roots, excludes) is another
stamp: the uses are found again and the record replaced. A state with a file changed
in the last two seconds is not stored (git's racy rule: it could change again without
changing its stat). A record that does not convert back exactly (garbled, forged,
another shape) is a miss. Nothing is executed or unpickled: a record is JSON read into
the ``Use`` and ``Call`` dataclasses, their field types checked (``plain.py``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection
from dataclasses import replace
from pathlib import Path

from upgrade_checklists.project.calls import Call
from upgrade_checklists.core.plain import PlainError, from_plain, to_plain
from upgrade_checklists.project.cache import hash_stats, racy_since
from upgrade_checklists.project.use import Sources, Use
from upgrade_checklists.project.uses import find_uses

PREFIX = "uses:"  # the record's key in audit.json: "uses:" and the import names (with the hook names), as JSON


def stamp(root: Path, paths: list[str]) -> tuple[str, bool]:
    """A digest of each file's path and stat (an absent one marked as such), and whether a
    file changed in the last two seconds (racy: the state is not stored)."""
    h = hashlib.blake2b(digest_size=20)
    newest = hash_stats(h, root, paths, follow=True)  # followed, as reading the text follows a symlink
    return h.hexdigest(), racy_since(newest)


def cached_uses(store, root: Path, sources: Sources, names: list[str], hooks: bool | Collection[str] = True) -> list[Use]:
    """``find_uses(sources, names, hooks=hooks)``, from ``store`` (a ``cache.ScanCache``) when it holds the
    answer for exactly these files in this state; else found and kept there. ``store`` None:
    found, nothing kept. ``hooks``: upstream's hook names (part of the record's key), or True for every
    possible hook implementation."""
    if store is None:
        return find_uses(sources, names, hooks=hooks)
    key = PREFIX + json.dumps(list(names) if hooks is True else [list(names), sorted(hooks or ())])
    digest, racy = stamp(root, sources.paths)
    hit, record = store.get_stamped(key, digest)
    if hit:
        uses = from_record(record)
        if uses is not None:
            return uses
    found = find_uses(sources, names, hooks=hooks)
    if racy:
        store.forget(key)
    else:
        try:
            store.put_stamped(key, digest, to_record(found))
        except PlainError:
            store.forget(key)
    return found


def to_record(uses: list[Use]) -> list[dict]:
    """The uses as plain data; a call keeps its callee as written instead of its node."""
    out = []
    for u in uses:
        data = to_plain(replace(u, call=None))
        if u.call is not None:
            data["call"] = to_plain(replace(u.call, node=None, callee=u.call.callee_text()))
        out.append(data)
    return out


def from_record(record) -> list[Use] | None:
    """The uses a record holds, or None when it is not exactly what :func:`to_record` writes."""
    if type(record) is not list:
        return None
    try:
        uses = [from_plain(Use, data) for data in record]
    except PlainError:
        return None
    for u in uses:
        if u.call is not None and (type(u.call) is not Call or u.call.node is not None):
            return None
    return uses
