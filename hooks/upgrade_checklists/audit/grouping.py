"""What the binders said, said once: the same break on one line once, a use failing on several
arms of a union (or on each upstream base a project mixin comes before) as one finding naming
them, and a use in a branch the project's version flag makes dead at the new version as info.
"""

from __future__ import annotations

import re

from upgrade_checklists.audit.api import UpstreamModel
from upgrade_checklists.audit.bound import Bound, has_member
from upgrade_checklists.audit.guards import flag_value
from upgrade_checklists.audit.signatures import Problem
from upgrade_checklists.project.use import ATTRIBUTE, CALL


def union_arms(bound: list[Bound]) -> None:
    """The same use failing on several arms of a union (``x: pkg.A | pkg.B``; ``x.m(…)`` breaks against
    ``A.m`` and ``B.m``) is one problem per code and severity, said on the first arm's use and naming
    each arm: ``<A's message>; <B's message> (`x` annotated `A | B` in `f`: on the arms `A`, `B`)``."""
    groups: dict[tuple, list[Bound]] = {}
    for b in bound:
        u = b.use
        if u.arms and b.problems:
            groups.setdefault((u.file, u.line, u.kind, u.member, u.arms, u.steps, _arms_shown(u.via)), []).append(b)
    for (*_k, shown), group in groups.items():
        if len(group) < 2:
            continue
        by_kind: dict[tuple[str, str], list[tuple[Bound, Problem]]] = {}
        for b in group:
            for p in b.problems:
                by_kind.setdefault((p[0], p[1]), []).append((b, p))
        for (_code, _sev), found in by_kind.items():
            arms = list(dict.fromkeys(b.use.target for b, _p in found))
            if len(arms) < 2:
                continue
            cores = []
            for b, p in found:
                mark = f" ({b.use.via}"
                cores.append(p[3][:p[3].index(mark)] if mark in p[3] else p[3])
            first_b, first_p = found[0]
            named = ", ".join(f"`{a}`" for a in arms)
            merged = (first_p[0], first_p[1], first_p[2], "; ".join(dict.fromkeys(cores)) + f" ({shown}: on the arms {named})")
            if shown.startswith("mixin `"):
                merged = _mixin_merged(found, shown) or merged
            for b, p in found:
                b.problems = [x for x in b.problems if x is not p]
            first_b.problems.append(merged)


def _arms_shown(via: str) -> str:
    """What the uses on the arms of one union share: the receiver (``x` annotated `A | B` in `f``), or the
    project mixin whose ``super()`` reaches each upstream base it comes before (``mixin `M`, through `super()```)."""
    if via.startswith("mixin `") and " before `" in via:
        return via.split(" before `")[0] + ", through `super()`"
    return via.split(": a `")[0]


_MIXIN_USER = re.compile(r" in `[^`]*`")  # the project class of ``mixin `M` before `B` in `C```


def _mixin_merged(found: list[tuple[Bound, Problem]], shown: str) -> Problem | None:
    """One problem for a mixin's ``super().m(...)`` that fails the same way on each upstream base it comes
    before: the first base's message, said through the mixin, naming every base (as the messages name it) and
    the project class that puts the mixin before it; None when the messages differ by more than that."""
    texts, each = set(), {}
    for b, p in found:
        base = re.compile(rf"`((?:[\w.]+\.)?{re.escape(b.use.target.rsplit('.', 1)[-1])})`")
        named = base.search(p[3])
        if named is None:
            return None
        texts.add(base.sub("`\0`", p[3].replace(b.use.via, "\1"), count=1))
        user = _MIXIN_USER.search(b.use.via)
        each[f"`{named.group(1)}`{user.group(0) if user else ''}"] = None
    if len(texts) != 1:
        return None
    first_b, first_p = found[0]
    text = first_p[3].replace(first_b.use.via, shown)
    return (first_p[0], first_p[1], first_p[2], f"{text} (the same on each upstream base it comes before: {', '.join(each)})")


def dead_branches(bound: list[Bound], new: UpstreamModel, version: str) -> None:
    """A use in a branch the project's version flag makes dead at ``version`` (``Use.flag``) does not
    run there: its errors and warnings are said as ``info``."""
    for b in bound:
        if b.problems and b.use.flag and flag_value(b.use.flag, version, lambda p: has_member(new, p)) is False:
            note = f" (in a branch the project's version flag makes dead at {version})"
            b.problems = [(p[0], "info", *p[2:-1], p[-1] + note) if p[1] in ("error", "warning") else p for p in b.problems]


_NOT_THERE = ("MOVED_API", "REMOVED_API", "UNRESOLVED")


def once_a_line(bound: list[Bound]) -> None:
    """A name that does not resolve is reported once on its line: a read ``pkg.mod.f`` is also the
    read ``pkg.mod`` (and maybe a call of it), so only the shortest path that does not resolve is
    said, by the call when there is one; a name deprecated through a module's ``__getattr__`` is
    said by its read, not again by its call."""
    at: dict[tuple[str, int], list[Bound]] = {}
    for b in bound:
        if b.problems:
            at.setdefault((b.use.file, b.use.line), []).append(b)
    for group in at.values():
        if len(group) < 2:
            continue
        missing_ = [b for b in group if any(p[0] in _NOT_THERE for p in b.problems)]
        warned = {b.use.target for b in group if b.use.kind == ATTRIBUTE and any(p[0] == "DEPRECATED" for p in b.problems)}
        for b in group:
            t = b.use.target
            if any(o is not b and o.use.kind == ATTRIBUTE and t.startswith(o.use.target + ".") for o in missing_) or (
                    b.use.kind == ATTRIBUTE and any(o.use.target == t and o.use.kind != ATTRIBUTE for o in missing_)):
                b.problems = [p for p in b.problems if p[0] not in _NOT_THERE]
            elif b.use.kind == CALL and t in warned:
                b.problems = [p for p in b.problems if not (p[0] == "DEPRECATED" and p[3].startswith(f"`{t}` is deprecated"))]
