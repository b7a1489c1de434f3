"""Import names under which another distribution re-exports the audited package.

``requests`` puts urllib3's modules into ``sys.modules`` under ``requests.packages.urllib3`` at run
time; code written against old requests imports urllib3 that way. No source of urllib3 holds that
path, so the audit cannot bind it as written. A checklist that lists such a name beside the
package's own (``import_names: [urllib3, requests.packages.urllib3]``) says what it is: a name
whose last part is another of its import names, and which the package's source does not provide,
is read as that name (``requests.packages.urllib3.contrib.appengine`` is
``urllib3.contrib.appengine``). Nothing is guessed from the code: only names the checklist lists.
:func:`unlisted` finds the names the project imports that way though the checklist leaves them out
(``project/reexports.py``), so the audit can say that their uses are not audited.
"""

from __future__ import annotations

from dataclasses import replace

from upgrade_checklists.audit.api import Unresolved
from upgrade_checklists.project.reexports import ReExport, candidates_in, own_names, reexports
from upgrade_checklists.project.use import Use

SPELLED = "written `"  # how a use's ``via`` starts when its path was read through a re-exported name


def vendored_names(names: list[str], model) -> dict[str, str]:
    """``{re-exported name: the import name it stands for}`` among a checklist's import ``names``."""
    out: dict[str, str] = {}
    for name in names:
        head, _, last = name.rpartition(".")
        if not head or last not in names:
            continue
        try:
            provided = model.resolves(name)
        except Unresolved:
            provided = False
        if not provided:
            out[name] = last
    return out


def real_path(path: str, aliases: dict[str, str]) -> str:
    """``path`` with a re-exported name at its start read as the package's (:func:`vendored_names`)."""
    for alias, real in aliases.items():
        if path == alias or path.startswith(alias + "."):
            return real + path[len(alias):]
    return path


def unvendored(uses: list[Use], aliases: dict[str, str]) -> list[Use]:
    """``uses`` with each path under a re-exported name read as the package's own (``via`` says how the
    code spelled it)."""
    if not aliases:
        return uses
    out = []
    for u in uses:
        target = real_path(u.target, aliases)
        if target == u.target and not any(real_path(p, aliases) != p for p in (*u.tried, *u.arms, u.star)):
            out.append(u)
            continue
        alias = next((a for a in aliases if u.target == a or u.target.startswith(a + ".")), None)
        via = u.via if alias is None or u.via else f"{SPELLED}{u.target}`: `{aliases[alias]}` re-exported as `{alias}`"
        out.append(replace(u, target=target, via=via, tried=tuple(real_path(p, aliases) for p in u.tried),
                           arms=tuple(real_path(p, aliases) for p in u.arms), star=real_path(u.star, aliases) if u.star else ""))
    return out


def unlisted(facts: dict, sources, names: list[str], models) -> list[tuple[ReExport, str]]:
    """The re-exported names the project imports that ``names`` leave out, each with what says it is
    the package: imported as the alternative of the package's own name, or a path imported through
    it that one of ``models`` (the package at the new and the old version) has. ``facts``: the check's
    scan of the project (path -> ``Facts``: their imports pick the files to parse); ``sources``:
    ``project.use.Sources``."""
    own = own_names(sources.paths)
    known = set(sources.paths)
    files = [rel for rel, f in sorted(facts.items())
             if rel in known and any(not i.dynamic and candidates_in(i.qualname, names, own) for i in getattr(f, "imports", ()))]
    trees = ((rel, tree) for rel in files if (tree := sources.tree(rel)) is not None)
    out = []
    for r in reexports(trees, names, own):
        why = f"imported as the alternative of `{r.package}` itself" if r.paired else next(
            (f"`{p}` is {r.package}'s" for p in r.below for m in models if m is not None and m.resolves(p)), None)
        if why:
            out.append((r, why))
    return out
