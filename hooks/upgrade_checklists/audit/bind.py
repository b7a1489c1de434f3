"""The audit's third stage: bind every use (``uses.py``) against the upstream
symbols at the old and new versions (``api.py``).

``bind_uses`` gives one ``Bound`` per use: the canonical path it reached at each
version, whether a signature was bound, and its problems. Each problem is
``(code, severity, parameter, message)``; ``severity`` is ``error`` (the code
breaks), ``warning`` or ``info`` (nothing breaks here).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace

from upgrade_checklists.audit.annotations import normalize, short
from upgrade_checklists.audit.assignable import assignable
from upgrade_checklists.audit.api import BUILTIN, Api, Param, Signature, Unresolved, UpstreamModel
from upgrade_checklists.audit.decorated import POSITIONAL
from upgrade_checklists.audit.deprecation import split_when, split_where
from upgrade_checklists.audit.guards import flag_value
from upgrade_checklists.audit.stdlib import stdlib_has
from upgrade_checklists.audit.vendored import SPELLED
from upgrade_checklists.audit.subclasses import providers
from upgrade_checklists.project.calls import Call
from upgrade_checklists.project.receivers import CALLERS, REBOUND, hook_prefix
from upgrade_checklists.project.use import (ANNOTATED, ATTRIBUTE, CALL, HOOK, IMPORT, INIT_SKIPPED, MEMBER, OVERRIDE, PATCH, RESULT, RETURNED,
                                           TYPED, WRAPPED, Use)

Problem = tuple[str, str, str, str]


def _renamed(name: str, old: Signature, new: Signature, oldn: dict | None = None) -> str | None:
    """``name`` was removed and another parameter was added at its position (``oldn``: ``old.named()``)."""
    idx = next((i for i, p in enumerate(old.params) if p.name == name), None)
    if idx is None or idx >= len(new.params):
        return None
    cand = new.params[idx]
    if cand.name in (old.named() if oldn is None else oldn) or cand.kind != old.params[idx].kind:
        return None
    return cand.name


def bind_call(call: Call, what: str, old: Signature | None, new: Signature, version: str) -> list[Problem]:
    out: list[Problem] = []
    newn = new.named()
    oldn = old.named() if old else None
    varkw = next((p.name for p in new.params if p.kind == "variadic keyword"), None)
    renamed_to: set[str] = set()
    for kw in call.keywords:
        if kw in newn and newn[kw].kind != "positional-only":
            continue
        if oldn is not None and kw in oldn:
            to = _renamed(kw, old, new)
            if to:
                renamed_to.add(to)
                out.append(("RENAMED_PARAM", "error", kw, f"`{what}`: keyword `{kw}` was renamed: `{kw} -> {to}`"))
            elif varkw:
                out.append(("REMOVED_PARAM", "error", kw, f"`{what}`: `{kw}` was removed; `**{varkw}` now swallows it silently"))
            else:
                out.append(("REMOVED_PARAM", "error", kw, f"`{what}`: keyword `{kw}` was removed"))
        elif oldn is None and not varkw:
            out.append(("REMOVED_PARAM", "error", kw, f"`{what}`: `{kw}` is not a parameter at {version}"))
        elif old is not None and not varkw and old.var_kwargs:
            took = next(p.name for p in old.params if p.kind == "variadic keyword")
            out.append(("REMOVED_PARAM", "error", kw, f"`{what}`: `{kw}` is not a parameter at {version} (the old `**{took}` took it)"))
    npos = new.positional()
    opos = old.positional() if old else None
    extra: list[int] = []  # positional arguments without a parameter: one finding for the call
    for i in range(call.positional):
        if i >= len(npos):
            was = opos[i].name if opos is not None and i < len(opos) else None
            if was is not None and was in newn:
                out.append(("POSITION_CHANGED", "error", was, f"`{what}`: `{was}` is now keyword-only, and this call passes it by position"))
            elif not new.var_args:
                extra.append(i + 1)
            continue
        if opos is None or i >= len(opos) or opos[i].name == npos[i].name:
            continue
        was = opos[i].name
        now = next((j for j, p in enumerate(npos) if p.name == was), None)
        if now is not None:
            out.append(("POSITION_CHANGED", "error", was, f"`{what}`: `{was}` moved from position {i + 1} to {now + 1}, and this call passes it by position"))
        elif was in newn:
            out.append(("POSITION_CHANGED", "error", was, f"`{what}`: `{was}` is now keyword-only, and this call passes it by position"))
        else:
            out.append(("RENAMED_PARAM", "info", was, f"`{what}`: positional `{was}` was renamed `{was} -> {npos[i].name}` (passed by position: still binds)"))
    if extra:
        shown = f"positional argument {extra[0]} has" if len(extra) == 1 else f"positional arguments {', '.join(map(str, extra))} have"
        out.append(("REMOVED_PARAM", "error", f"#{extra[0]}", f"`{what}`: {shown} no parameter at {version} ({len(npos)} positional parameters)"))
    if not (call.star_args or call.star_kwargs):
        passed = {p.name for p in npos[: call.positional]} | set(call.keywords)
        for p in new.params:
            if p.required and p.name not in passed and p.name not in renamed_to:
                if oldn is None or p.name not in oldn or not oldn[p.name].required:
                    out.append(("NEW_REQUIRED_PARAM", "error", p.name, f"`{what}`: `{p.name}` is required at {version} and this call does not pass it"))
    if old is not None and None not in (old.returns, new.returns) and old.returns != new.returns and call.used:
        arity = unpack_arity(what, call.targets, old.returns, new.returns, version)
        if arity is not None:
            out.append(arity)
        elif call.unpacked and _sequence(old.returns) and _sequence(new.returns):
            now, was = _types(new.returns, old.returns)
            out.append(("RETURN_CHANGED", "info", "return", f"`{what}`: returns `{now}` (was `{was}`); "
                        "this call only unpacks or iterates the result, which either supports"))
        elif call.members_only and _a_class(old.returns) and _a_class(new.returns):
            now, was = _types(new.returns, old.returns)
            out.append(("RETURN_CHANGED", "info", "return", f"`{what}`: returns `{now}` (was `{was}`); this call's result is "
                        "only used through its attributes, each checked against the new class where it is read"))
        elif old.overloaded or new.overloaded:
            now, was = _types(new.returns, old.returns)
            out.append(("RETURN_CHANGED", "info", "return", f"`{what}`: returns `{now}` (was `{was}`), "
                        "the union of its overloads; which one this call takes depends on its arguments' types, not known statically"))
        else:
            now, was = _types(new.returns, old.returns)
            out.append(("RETURN_CHANGED", "error", "return", f"`{what}`: returns `{now}` (was `{was}`), and this call uses the result"))
    why = (unbound_at(call, old) or _unpacked_wrong(call, old)) if old is not None and any(p[1] == "error" for p in out) else None
    if why is not None:  # already broken: not this upgrade's (issue 24.8)
        out = [(code, "info" if sev == "error" else sev, param,
                msg + (f" (the call did not bind at the old version either: {why}; not a change of this upgrade)" if sev == "error" else ""))
               for code, sev, param, msg in out]
    return out


def _unpacked_wrong(call: Call, sig: Signature) -> str | None:
    """Why unpacking ``call``'s result certainly failed against ``sig`` (``a, b = f()`` where
    ``f`` returned a tuple of 3), else None."""
    k = tuple_arity(sig.returns)
    if call.targets and k is not None and k != call.targets:
        return f"its result, a tuple of {k}, unpacked into {call.targets} names"
    return None


_TUPLES = ("tuple", "typing.Tuple", "Tuple", "builtins.tuple")


def tuple_arity(text: str | None) -> int | None:
    """How many elements a (normalised) return annotation of a fixed-length tuple has
    (``tuple[A, B, C]``: 3); None for anything else (``tuple[A, ...]``, a union, a bare ``tuple``)."""
    if not text or "[" not in text:
        return None
    head, _, rest = text.partition("[")
    if head.strip() not in _TUPLES or not rest.endswith("]"):
        return None
    items = [m.strip() for m in _top_level(rest[:-1], ",")]
    if items in ([""], ["()"]):
        return 0
    return None if "..." in items or "" in items else len(items)


def _top_level(text: str, sep: str) -> list[str]:
    """``text`` split at each ``sep`` outside brackets."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += 1 if ch in "[(" else -1 if ch in "])" else 0
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


_UNPACKS = "`{what}`: returns a tuple of "  # how an unpacking-arity problem's message starts (``_bind_on`` keeps those)


def unpack_arity(what: str, targets: int, old: str, new: str, version: str) -> Problem | None:
    """``a, b, c = what(...)`` (``targets`` names) against fixed-length tuple returns: an error where
    the old return had ``targets`` elements and the new one has another count; ``info`` where the
    new count differs and the old one did not match either (or is not known); None where the new
    count is not known or matches (the other return checks apply)."""
    k_new, k_old = tuple_arity(new), tuple_arity(old)
    if not targets or k_new is None or k_new == targets:
        return None
    now, was = _types(new, old)
    head = _UNPACKS.format(what=what) + f"{k_new} (`{now}`) at {version}, and this call unpacks it into {targets} names"
    if k_old == targets:
        return ("RETURN_CHANGED", "error", "return", f"{head} (was a tuple of {k_old}: `{was}`)")
    if k_old is not None:
        return ("RETURN_CHANGED", "info", "return", f"{head}; the old return (`{was}`) had {k_old} already: not a change of this upgrade")
    return ("RETURN_CHANGED", "info", "return", f"{head}; the old return (`{was}`) has no fixed length: whether it unpacked is not known statically")


def unbound_at(call: Call, sig: Signature) -> str | None:
    """Why ``call`` certainly raises ``TypeError`` against ``sig`` (too many positional arguments,
    a keyword it has no parameter for, a required parameter not passed), or None when it binds
    or cannot be told (``*args`` / ``**kwargs`` at the call hide what is passed)."""
    pos = sig.positional()
    if call.positional > len(pos) and not sig.var_args:
        return f"{call.positional} positional arguments for {len(pos)} positional parameters"
    named = sig.named()
    for kw in call.keywords:
        p = named.get(kw)
        if (p is None or p.kind == "positional-only") and not sig.var_kwargs:
            return f"no parameter `{kw}`"
    if not (call.star_args or call.star_kwargs):
        passed = {p.name for p in pos[: call.positional]} | set(call.keywords)
        lacking = [p.name for p in sig.params if p.required and p.name not in passed]
        if lacking:
            return f"`{lacking[0]}` is required and not passed"
    return None


_SEQUENCES = ("list", "tuple", "typing.Sequence", "typing.MutableSequence", "typing.Iterable", "typing.Collection")


def _types(new: str, old: str) -> tuple[str, str]:
    """Two annotations as messages show them: short, unless that makes them look alike
    (``requests.models.Response`` and ``httpx._models.Response``)."""
    a, b = short(new), short(old)
    return (a, b) if a != b else (new, old)


def _a_class(text: str) -> bool:
    """An annotation naming one class by its dotted path (``httpx.Response``): no builtin, union or generic."""
    return "." in text and not any(c in text for c in "[|, ") and not text.startswith(("builtins.", "typing."))


def _sequence(text: str) -> bool:
    """An annotation (normalised) of a sequence: unpacking or iterating it works for each of them."""
    return text.split("[", 1)[0].strip() in _SEQUENCES and "|" not in text


def signature_changes(what: str, old: Signature, new: Signature) -> list[Problem]:
    """What changed in the signature, whoever calls it (reported as info when no call is hit)."""
    out: list[Problem] = []
    oldn, newn = old.named(), new.named()
    optional: list[str] = []
    for name, p in oldn.items():
        if name not in newn:
            to = _renamed(name, old, new)
            if to:
                out.append(("RENAMED_PARAM", "info", name, f"`{what}`: `{name} -> {to}` (no call site passes it)"))
            else:
                out.append(("REMOVED_PARAM", "info", name, f"`{what}`: `{name}` was removed (no call site passes it)"))
    for name, p in newn.items():
        if name in oldn and not (p.required and not oldn[name].required):
            continue
        if name not in oldn and _renamed_from(name, old, new):
            continue
        if name not in oldn and not p.required and old.var_kwargs and p.kind != "positional-only":
            continue  # the old ``**kwargs`` took it already: not new to a caller
        if p.required and name in oldn:
            out.append(("NEW_REQUIRED_PARAM", "info", name, f"`{what}`: `{name}` is now required (was optional); every call site passes it"))
        elif p.required:
            out.append(("NEW_REQUIRED_PARAM", "info", name, f"`{what}`: new required parameter `{name}` (no call site affected)"))
        else:
            optional.append(f"{name}={p.default}")
    if len(optional) == 1:
        out.append(("NEW_OPTIONAL_PARAM", "info", optional[0].split("=")[0], f"`{what}`: new optional parameter `{optional[0]}`"))
    elif optional:  # one finding per API, its parameters listed
        names = [o.split("=")[0] for o in optional]
        shown = ", ".join(f"`{o}`" for o in (optional if len(optional) <= 4 else names))
        out.append(("NEW_OPTIONAL_PARAM", "info", ",".join(names), f"`{what}`: {len(optional)} new optional parameters: {shown}"))
    if None not in (old.returns, new.returns) and old.returns != new.returns:  # an annotation added is no change
        now, was = _types(new.returns, old.returns)
        out.append(("RETURN_CHANGED", "info", "return", f"`{what}`: returns `{now}` (was `{was}`); no call site uses the result"))
    return out


def _renamed_from(name: str, old: Signature, new: Signature) -> bool:
    oldn, newn = old.named(), new.named()  # once: a signature can have hundreds of parameters
    return any(_renamed(o, old, new, oldn) == name for o in oldn if o not in newn)


# -- every use -------------------------------------------------------------------------------


@dataclass
class Bound:
    """One use bound against the upstream source at both versions."""

    use: Use
    old: str | None  # the canonical path the use reached at the old version
    new: str | None  # ... and at the new one
    signature: bool = False  # a call bound against a known signature
    problems: list[Problem] = field(default_factory=list)
    fix: dict | None = None  # a MOVED_API problem: where it went (for ``audit --fix``)
    #: why the use could not be checked ("" checked; ``NOT_A_USE``: an override of nothing upstream has)
    unknown: str = ""


NOT_A_USE = "-"
#: why a use stays unchecked (counted per reason in the audit's coverage, never guessed)
NOT_FOUND = "not found in the loaded upstream source"
NO_SIGNATURE = "no signature known statically"
NO_RESULT_CLASS = "the class of the object an upstream call returned is not known"
NO_ATTRIBUTE_CLASS = "the class of an attribute upstream declares is not known"
NOT_RESOLVABLE = "not resolvable statically"
NO_RECEIVER_CLASS = "the class of a receiver reached from upstream is not known"
RECEIVER_REBOUND = "a receiver the function assigns more than one kind of value"
CALLERS_DISAGREE = "a parameter its callers give different or unknown values"
CALLERS_ESCAPE = "a parameter of a function that escapes (passed as a value, named elsewhere, decorated, called with `*args`)"
NOT_FOLLOWED = "a member of a base in another distribution that could not be followed"
INIT_UNKNOWN = "a constructor chain with a base outside the loaded source or a `__getattr__`"


def _lookup(model: UpstreamModel | None, dotted: str) -> Api | None:
    if model is None:
        return None
    try:
        return model.lookup(dotted)
    except Unresolved:
        return None


def _member(model: UpstreamModel | None, cls: Api | None, name: str) -> Api | None:
    if model is None or cls is None or cls.kind != "class":
        return None
    try:
        return model.member(cls, name)
    except Unresolved:
        return None


def bind_uses(uses: list[Use], old: UpstreamModel | None, new: UpstreamModel, version: str,
              covered: frozenset[str] = frozenset()) -> list[Bound]:
    """Bind each use; ``covered``: canonical paths whose methods-on-results are bound by their own use."""
    out = []
    # a bare name a project ``from pkg.mod import *`` may bind is a use only where the old version's
    # ``pkg.mod`` has it (at a pin with no old version: the new one's)
    star_found: dict[str, bool] = {}
    for u in uses:
        if u.star and u.star not in star_found:
            star_found[u.star] = _status(old if old is not None else new, u.star) == "found"
    uses = [u for u in uses if not u.star or star_found[u.star]]
    uses = hook_uses(uses, old, new)
    patched = set()  # (class, method) the project assigns itself: its uses bind against the patch
    for u in uses:
        # a patch of one instance: the class's other uses meet upstream's; a test helper's is undone after
        if u.kind == PATCH and not u.on_instance and not u.helper:
            cls = _lookup(new, u.target)
            patched.add((cls.path if cls is not None else u.target, u.member))
    binders = {
        IMPORT: lambda u: _bind_import(u, old, new, version),
        CALL: lambda u: _bind_call_use(u, old, new, version),
        RESULT: lambda u: _bind_result(u, old, new, version, covered),
        MEMBER: lambda u: _bind_member(u, old, new, version, patched),
        PATCH: lambda u: _bind_patch(u, old, new, version),
        ATTRIBUTE: lambda u: _bind_attribute(u, old, new, version),
        OVERRIDE: lambda u: _bind_override(u, old, new, version),
        TYPED: lambda u: _bind_typed(u, old, new, version),
        ANNOTATED: lambda u: _guarded_read(_bind_annotated(u, old, new, version)),
        WRAPPED: lambda u: _bind_wrapped(u, old, new, version),
        HOOK: lambda u: _bind_hook(u, old, new, version),
        RETURNED: lambda u: _bind_returned(u, old, new, version),
        INIT_SKIPPED: lambda u: _bind_init_skipped(u, old, new, version),
    }
    for u in uses:
        try:
            out.append(binders[u.kind](u))
        except Unresolved:  # an alias into a package not loaded (torch, ...): not bound
            out.append(Bound(u, None, None, unknown=NOT_RESOLVABLE))
    _once_a_line(out)
    _union_arms(out)
    _dead_branches(out, new, version)
    return out


def _union_arms(bound: list[Bound]) -> None:
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


def has_member(model: UpstreamModel | None, dotted: str) -> bool | None:
    """A feature flag's ``hasattr(X, "name")`` (``H('X.name')``) at ``model``'s version: whether ``X`` (a
    module or class there) has ``name``, as Python resolves it; None when ``X`` is neither or it is not known."""
    owner = _lookup(model, dotted.rpartition(".")[0])
    if owner is None or owner.kind not in ("class", "module"):
        return None
    if owner.kind == "class":
        if _member(model, owner, dotted.rpartition(".")[2]) is not None:  # its own, inherited, or from a base followed
            return True
        try:
            if model.foreign_bases(owner):  # a base in another distribution not followed: its members are not known
                return None
        except Unresolved:
            return None
    now = _status(model, dotted)
    if now == "found":
        return True
    return False if now == "absent" or now.startswith(("removed:", "gone:")) else None


def _dead_branches(bound: list[Bound], new: UpstreamModel, version: str) -> None:
    """A use in a branch the project's version flag makes dead at ``version`` (``Use.flag``) does not
    run there: its errors and warnings are said as ``info``."""
    for b in bound:
        if b.problems and b.use.flag and flag_value(b.use.flag, version, lambda p: has_member(new, p)) is False:
            note = f" (in a branch the project's version flag makes dead at {version})"
            b.problems = [(p[0], "info", *p[2:-1], p[-1] + note) if p[1] in ("error", "warning") else p for p in b.problems]


def hook_names(old, new) -> frozenset[str]:
    """The hook names upstream specifies in one place at either version (``hook_spec`` answers for them):
    the project's functions of other names are no hook implementations (``find_uses`` need not read them)."""
    out: set[str] = set()
    for model in (old, new):
        if model is None:
            continue
        try:
            out |= {name for name, spec in model.hook_specs().items() if spec}
        except Unresolved:
            continue
    return frozenset(out)


def hook_uses(uses: list[Use], old, new) -> list[Use]:
    """``uses`` without the possible hook implementations (and the uses on their parameters) whose name
    is no hook spec of upstream's at either version: functions of the project's own, not uses."""
    specs: dict[str, bool] = {}

    def known(name: str) -> bool:
        if name not in specs:
            specs[name] = _hook_spec(new, name) is not None or _hook_spec(old, name) is not None
        return specs[name]

    out = []
    for u in uses:
        if u.kind == HOOK:
            if known(u.member):
                out.append(u)
        elif u.kind == ANNOTATED and hook_prefix(u.steps):
            if known(u.steps[0][5:]):
                out.append(u)
        else:
            out.append(u)
    return out


_NOT_THERE = ("MOVED_API", "REMOVED_API", "UNRESOLVED")


def _once_a_line(bound: list[Bound]) -> None:
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


def _foreign(model, cls: Api, name: str | None = None) -> str:
    """The bases of ``cls`` from another distribution, as text ("" when none); with ``name``, not those
    of the standard library that certainly lack that member (this interpreter's class says: ``stdlib.py``)."""
    try:
        bases = model.foreign_bases(cls)
    except Unresolved:
        return "a base not in the loaded source"
    if name is not None:
        bases = [b for b in bases if stdlib_has(b, name) is not False]
    why = getattr(model, "why_not_followed", None)  # a model following bases (``bases.Followed``): why not this one
    out = []
    for b in bases:
        reason = why(b) if why is not None else ""
        out.append(f"`{b}` ({reason})" if reason else f"`{b}`")
    return ", ".join(out)


def _stdlib_member(model, cls: Api | None, name: str) -> str | None:
    """``Base.name`` where ``cls`` inherits ``name`` from a standard-library base (``unittest.TestCase``),
    as this interpreter's class says (``stdlib.py``): no upgrade of the package changes it. None: not known."""
    if cls is None or cls.kind != "class":
        return None
    try:
        bases = model.foreign_bases(cls)
    except Unresolved:
        return None
    return next((f"{b}.{name}" for b in bases if stdlib_has(b, name)), None)


def _status(model, dotted: str) -> str:
    if model is None:
        return "absent"
    try:
        return model.status(dotted)
    except Unresolved as exc:
        return f"unknown:{exc}"


def missing(name: str, old, new, version: str, a_old: Api | None, shown: str | None = None) -> tuple[str, str, str] | None:
    """(code, severity, message) for a use of ``name``, a path that does not give an API at ``version``,
    judged as Python resolves names: an error only when the old version resolved it and the new one
    certainly does not (a module refusing it by name gives its own message); what the model cannot
    tell, or what did not resolve before either, is ``UNRESOLVED`` (info). None when it resolves."""
    shown = shown or f"`{name}`"
    now = _status(new, name)
    if now == "found":
        return None
    if now.startswith("unknown:"):
        return "UNRESOLVED", "info", f"{shown} cannot be resolved statically at {version}: {now.removeprefix('unknown:')}"
    if old is None:
        return "UNRESOLVED", "info", f"{shown} does not resolve at {version}"
    before = _status(old, name)
    if before != "found" or a_old is None:
        why = before.split(":", 1)[1] if ":" in before else "not found"
        return "UNRESOLVED", "info", f"{shown} does not resolve at {version}, nor did it at the old version ({why}): not a change of this upgrade"
    if now.startswith("removed:"):
        said = now.removeprefix("removed:")
        return "REMOVED_API", "error", f"{shown} was removed at {version}" + (f": \"{said}\"" if said else "")
    code, msg = gone(name, a_old, new, version)
    if code == "REMOVED_API" and now.startswith("gone:") and now != "gone:":
        msg += f": \"{now.removeprefix('gone:')}\""  # what the module's ``__getattr__`` says of any name it lacks
    if shown != f"`{name}`":
        msg = msg.replace(f"`{name}`", shown, 1)
    return code, "error", msg


def gone(name: str, api_old: Api, new: UpstreamModel, version: str) -> tuple[str, str]:
    """An API the old version had and the new one does not: (MOVED_API or REMOVED_API, message)."""
    there = moved_to(api_old, new)
    if there is not None and there == api_old.path:  # an alias (a re-export, ``Old = New``) dropped: the object stayed
        return "MOVED_API", f"`{name}` no longer resolves at {version}: the name is gone, the object it named is still `{there}`"
    if there is not None:
        return "MOVED_API", f"`{name}` is gone from `{api_old.path}` at {version}; found at `{there}`"
    shown = f"`{name}`" if name == api_old.path else f"`{name}` (`{api_old.path}`)"
    return "REMOVED_API", f"{shown} was removed at {version}"


def moved_to(api_old: Api, new: UpstreamModel) -> str | None:
    """Where a gone API went: an object of its name and kind elsewhere in the new version (a method only
    as a method of a class of the same name; a module's function not as any class's method), or None."""
    last = api_old.path.rsplit(".", 1)[-1]
    elsewhere = new.by_name(last, kinds=(api_old.kind,))
    if api_old.kind == "function" and api_old.method:  # a method moves with its class, not to another class's
        owner = api_old.path.rsplit(".", 2)[-2]
        elsewhere = [p for p in elsewhere if p.rsplit(".", 2)[-2] == owner]
    elif api_old.kind == "function":
        elsewhere = [p for p in elsewhere if not _is_method(new, p)]
    return elsewhere[0] if elsewhere else None


def _is_method(model: UpstreamModel, path: str) -> bool:
    try:
        api = model.lookup(path)
    except Unresolved:
        return False
    return api is not None and bool(api.method)


def moved_fix(new: UpstreamModel, old_path: str, new_path: str) -> dict:
    """What ``audit --fix`` needs of a move: the old and new paths and the new file."""
    return {"old": old_path, "new": new_path, "new_file": new.file_of(new_path)}


def _via(u: Use, msg: str) -> str:
    return f"{msg} ({u.via})" if u.via and u.kind == CALL else msg


def _bind_import(u: Use, old, new, version) -> Bound:
    a_new, a_old = _lookup(new, u.target), _lookup(old, u.target)
    b = Bound(u, a_old.path if a_old else None, a_new.path if a_new else None)
    if a_new is not None or new.resolves(u.target):
        how = new.via(u.target)
        if how is not None and how.warning:
            b.problems.append(("DEPRECATED", "warning", "", f"import `{u.target}` is served by a {how.via} that warns at {version}: "
                               f"\"{how.warning}\""))
        return b
    found = missing(u.target, old, new, version, a_old, f"import `{u.target}`")
    if found is None:
        return b
    code, sev, msg = found
    binding_only = old is None and code == "UNRESOLVED" and not _status(new, u.target).startswith("unknown:")
    if code == "UNRESOLVED" and not binding_only:
        b.problems.append((code, sev, "", msg))
        return b
    sev, why = _import_severity(u, new, version)
    if u.via.startswith(SPELLED):
        why += f" ({u.via})"  # a name another distribution re-exports the package under (``vendored.py``)
    verb = "does not resolve" if binding_only else "no longer resolves"
    last = u.target.rsplit(".", 1)[-1]
    elsewhere = new.by_name(last, kinds=("class", "function", "module")) if code != "REMOVED_API" or binding_only else []
    if elsewhere:
        b.problems.append(("MOVED_API", sev, "", f"import `{u.target}` {verb} at {version}; `{last}` is at `{elsewhere[0]}`{why}"))
        b.fix = moved_fix(new, u.target, elsewhere[0])
    else:
        quoted = msg.split(": ", 1)[1] if "was removed at" in msg and ": \"" in msg else ""
        b.problems.append(("REMOVED_API", sev, "", f"import `{u.target}` {verb} at {version}" + (f": {quoted}" if quoted else "") + why))
    return b


def _import_severity(u: Use, new, version: str) -> tuple[str, str]:
    """How much an import that no longer resolves matters, and why, when its place says so. Under
    ``try/except ImportError`` it has a way out (``info``), except in an ``except`` block whose own
    ``ImportError`` nothing catches: that block runs when its ``try`` block's import fails. Where the
    ``try`` block imports the package and that import resolves at ``version``, the block is not reached
    (``info``); where all of those fail too, it runs and fails (error); where the ``try`` block imports
    no name of the package (another package, the standard library), it runs when that one is missing
    (a warning)."""
    if u.last_resort and not u.typing_only:
        if any(_lookup(new, p) is not None or new.resolves(p) for p in u.tried):
            return "info", ""
        if u.tried:
            first = ", ".join(f"`{p}`" for p in u.tried)
            return "error", (f" (in the `except ImportError` block, which runs: the `try` block's import of {first} "
                             f"fails at {version} too)")
        return "warning", " (in the `except ImportError` block: it runs where the `try` block's import fails)"
    return ("info" if u.fallback else "warning" if u.typing_only else "error"), ""


def _bind_call_use(u: Use, old, new, version) -> Bound:
    a_new, a_old = _lookup(new, u.target), _lookup(old, u.target)
    b = Bound(u, a_old.path if a_old else None, a_new.path if a_new else None)
    if a_new is None:
        if u.forwarded:  # gone upstream: said once, at the project's own call that hands the arguments on
            return b
        found = missing(u.target, old, new, version, a_old) if (a_old is not None or u.call is not None) else None
        if found is not None:
            code, sev, msg = found
            b.problems.append((code, sev, "", _via(u, msg)))
            if code == "MOVED_API":
                b.fix = moved_fix(new, a_old.path, moved_to(a_old, new))
        else:
            b.unknown = NOT_FOUND
        return b
    if u.call is not None and not u.via:
        how = new.via(u.target)
        if how is not None and how.warning:  # served through a deprecated name: that name is deprecated, not its target
            b.problems.append(("DEPRECATED", "warning", "", f"`{u.target}` is deprecated at {version}: \"{how.warning}\""))
        else:
            warned = new.deprecation(a_new)
            if warned is not None:
                b.problems.append(_deprecated(old, a_old, a_new, warned, version))
    for code, sev, kw, msg in _scoped(u, new, a_new, version):
        b.problems.append((code, sev, kw, _via(u, msg)))
    if a_new.signature is None or u.call is None:
        b.unknown = NO_SIGNATURE if u.call is not None else ""
        return b
    b.signature = True
    call = _unbound(u.call, a_new) if _through_class(u) or _is_new(a_new) else u.call
    for code, sev, param, msg in bind_call(call, a_new.path, a_old.signature if a_old else None, a_new.signature, version):
        b.problems.append((code, sev, param, _via(u, msg)))
    return b


def _scoped(u: Use, new, api: Api, version: str, suffix: str = "") -> list[Problem]:
    """``DEPRECATED`` for each keyword the call passes that ``api`` warns about when passed (its own
    body or a helper it hands the keyword to, see ``deprecation.keyword_warnings``)."""
    if u.call is None or api.kind not in ("function", "class") or not (u.call.keywords or u.call.positional):
        return []
    try:
        scoped = new.keyword_deprecations(api)
    except Unresolved:
        return []
    out = []
    for key, text in scoped.items():  # ``*N``: more than N arguments by position (``self`` counted) warn
        if not key.startswith(POSITIONAL) or not key[1:].isdigit() or u.call.star_args:
            continue
        bound = api.parameters is not None and api.method and bool(api.parameters) and api.parameters[0][0] in ("self", "cls") \
            and not _through_class(u)
        allowed = int(key[1:]) - (1 if bound or (api.kind == "class") else 0)
        if u.call.positional > allowed:
            msg, _ = split_where(text)
            out.append(("DEPRECATED", "warning", "", f"`{api.path}`: passing more than {allowed} argument(s) by position is "
                        f"deprecated at {version}: \"{msg}\"{suffix}"))
    for kw in u.call.keywords:
        if kw not in scoped:
            continue
        msg, where = split_where(scoped[kw])
        said = f" (warned by `{where}`, which it hands `{kw}` on to)" if where else ""
        out.append(("DEPRECATED", "warning", kw, f"`{api.path}`: passing `{kw}` is deprecated at {version}: \"{msg}\"{said}{suffix}"))
    return out


_CLASS_FIRST = ("cls", "mcs", "metacls", "klass")


def _through_class(u: Use) -> bool:
    """The call is written through the class (``click.Group.get_command(self, ...)``), not on an
    instance (``bridge.save(...)``, a call site a catalog entry records)."""
    callee = u.call.callee_text() if u.call is not None else None
    parts = u.target.split(".")
    return bool(callee) and len(parts) > 1 and callee.split(".")[-2:-1] == parts[-2:-1]


def _is_new(api: Api) -> bool:
    """``__new__``: a static method without the decorator, so every call of it names the class
    first, through ``super()`` (``super().__new__(cls, name)``) as through the class."""
    return api.method and api.path.rsplit(".", 1)[-1] == "__new__"


def _unbound(call: Call, api: Api) -> Call:
    """A method called through its class (``Base.m(self, x)``) gets its instance as the first
    positional argument: the call without it (what binds to the signature, ``self`` left out).
    A static method has no ``self``; a class method (first parameter ``cls``) binds its class;
    ``__new__`` (first parameter ``cls`` too) is given its class."""
    ps = api.parameters or ()
    if (not api.method or api.signature is None or len(ps) != len(api.signature.params) + 1
            or (ps[0][0] in _CLASS_FIRST and not _is_new(api)) or call.positional == 0):
        return call
    return replace(call, positional=call.positional - 1)


def _bind_result(u: Use, old, new, version, covered) -> Bound:
    """A method called on the object an API call returned."""
    a_new, a_old = _lookup(new, u.target), _lookup(old, u.target)
    b = Bound(u, None, None)
    cls_new = new.returned_class(a_new) if a_new is not None else None
    if cls_new is None:
        b.unknown = NO_RESULT_CLASS
        return b
    cls_old = old.returned_class(a_old) if (old is not None and a_old is not None) else None
    m_new, m_old = _member(new, cls_new, u.member), _member(old, cls_old, u.member)
    b.new, b.old = (m_new.path if m_new else None), (m_old.path if m_old else None)
    what = f"{cls_new.path}.{u.member}"
    if m_new is not None and m_new.path in covered:
        return b
    if m_new is None:
        if m_old is not None:
            foreign = _foreign(new, cls_new, u.member)
            if foreign:
                b.problems.append(("UNRESOLVED", "info", "", f"`{what}` (called on the result of `{a_new.path}`) is not in the loaded "
                                   f"source at {version}; `{cls_new.path}` inherits from {foreign}, not followed: its members are unknown"))
            else:
                owner = m_old.path.rsplit(".", 1)[0]
                was = f" (at the old version inherited from `{owner}`)" if cls_old is not None and owner != cls_old.path else ""
                b.problems.append(("METHOD_CHANGED", "error", "", f"`{what}` (called on the result of `{a_new.path}`) was removed at {version}{was}"))
        elif _foreign(new, cls_new):
            b.new = _stdlib_member(new, cls_new, u.member)
            b.unknown = "" if b.new else NOT_FOLLOWED if _foreign(new, cls_new, u.member) else NOT_FOUND
        return b
    b.problems += _deprecated_call(u, old, new, m_old, m_new, version, f" (called on the result of `{a_new.path}`)")
    b.problems += _scoped(u, new, m_new, version, f" (called on the result of `{a_new.path}`)")
    if m_new.signature is None or m_new.kind != "function":
        return b
    b.signature = True
    for code, sev, _param, msg in bind_call(u.call, what, m_old.signature if m_old else None, m_new.signature, version):
        if m_old is None and code != "REMOVED_PARAM":
            continue
        b.problems.append(("METHOD_CHANGED", sev, _param, f"on the result of `{a_new.path}`: {code}: {msg}"))
    return b


def _deprecated_call(u: Use, old, new, m_old: Api | None, m_new: Api, version: str, how: str) -> list[tuple]:
    """A DEPRECATED warning for a call of a method (or constructor) that is deprecated at the new version,
    called on an object (a typed receiver, an API call's result, ``self`` / ``super()`` of a subclass): a
    method warns whatever reaches it, not only a dotted call of its path. ``info`` when the old version's
    method warned already (not news of this upgrade)."""
    if u.call is None or m_new.kind not in ("function", "class"):
        return []
    try:
        warned = new.deprecation(m_new)
    except Unresolved:
        return []
    if not warned:
        return []
    return [_deprecated(old, m_old, m_new, warned, version, how)]


def _deprecated(old, a_old: Api | None, a_new: Api, warned: str, version: str, how: str = "") -> Problem:
    """``DEPRECATED`` for a call of ``a_new``, which gives ``warned`` at the new version: a warning, ``info``
    when it is given only under a condition on upstream's own state (``self.x`` set: the call does not
    decide it; ``deprecation.split_when``) or when the old version's API gave it already (its callers saw
    it before this upgrade)."""
    text, when = split_when(warned)
    sev, said, only = "warning", "", ""
    if when:
        sev, only = "info", f" when {when}"
        said = " (a condition on upstream's own state, not on what the call passes)"
    if old is not None and a_old is not None:
        try:
            before = old.deprecation(a_old)
        except Unresolved:
            before = None
        if before and (not split_when(before)[1] or when):
            sev, said = "info", said + " (deprecated at the old version too: not news of this upgrade)"
    return ("DEPRECATED", sev, "", f"`{a_new.path}` is deprecated at {version}{only}: \"{text}\"{how}{said}")


def _bind_member(u: Use, old, new, version, patched: set[tuple[str, str]]) -> Bound:
    """``self.x`` / ``self.m(...)`` / ``super().m(...)`` of an upstream class, through a project
    subclass, an instance of one, or a function patched onto the class."""
    cls_new, cls_old = _lookup(new, u.target), _lookup(old, u.target)
    b = Bound(u, None, None)
    if cls_new is None or cls_new.kind != "class":
        b.unknown = NOT_FOUND
        return b
    if u.member == "__init__":  # super().__init__(...): the class's constructor
        m_new, m_old = cls_new, (cls_old if cls_old is not None and cls_old.kind == "class" else None)
    else:
        m_new, m_old = _member(new, cls_new, u.member), _member(old, cls_old, u.member)
    b.new, b.old = (m_new.path if m_new else None), (m_old.path if m_old else None)
    callee = u.call.callee_text() if u.call is not None else None
    used = f"`self.{u.member}`" if u.call is None else f"`{callee}(...)`" if callee is not None else f"`{u.member}(...)`"
    if m_new is None:
        foreign = _foreign(new, cls_new, u.member) if m_old is not None else ""
        if foreign and (cls_new.path, u.member) not in patched:
            b.problems.append(("UNRESOLVED", "info", u.member, f"`{cls_new.path}` has no `{u.member}` in the loaded source at {version}; "
                               f"it inherits from {foreign}, not followed: its members are unknown ({u.via})"))
        elif m_old is not None and (cls_new.path, u.member) not in patched:  # else the project adds it itself
            code = "PATCH_MISMATCH" if u.patch else "REMOVED_API"
            b.problems.append((code, "error", u.member,
                               f"`{cls_new.path}` has no `{u.member}` at {version} (it had at the old version), and {u.via} uses {used}"))
        elif m_old is None:  # set at run time, or by a project class, or by a base not followed: not known statically
            b.new = _stdlib_member(new, cls_new, u.member)
            b.unknown = "" if b.new else NOT_FOLLOWED if _foreign(new, cls_new, u.member) else NOT_FOUND
        return b
    b.problems += _deprecated_call(u, old, new, m_old, m_new, version, f" ({u.via})")
    b.problems += _scoped(u, new, m_new, version, f" ({u.via})")
    if u.call is None or m_new.signature is None or m_new.kind not in ("function", "class"):
        return b
    b.signature = True
    what = f"{cls_new.path}.{u.member}" if u.member != "__init__" else cls_new.path
    call = _unbound(u.call, m_new) if _is_new(m_new) else u.call  # ``super().__new__(cls, ...)``
    for code, sev, param, msg in bind_call(call, what, m_old.signature if m_old else None, m_new.signature, version):
        if m_old is None and code not in ("REMOVED_PARAM", "NEW_REQUIRED_PARAM"):
            continue
        if code == "RETURN_CHANGED":
            continue  # a method's return through self: only bound where the result type is known
        b.problems.append((code, sev, param, f"{msg} ({u.via})"))
    return b


def _bind_attribute(u: Use, old, new, version) -> Bound:
    """``pkg.name`` read (a value, a default argument, a decorator, an annotation, an ``isinstance``
    target): removed or moved when its path no longer resolves; deprecated when a module
    ``__getattr__`` serves it with a warning."""
    b = Bound(u, None, None)
    if _status(new, u.target) == "found":
        how = new.served.get(u.target)
        if how is not None and how.warning:
            b.problems.append(("DEPRECATED", "warning", "", f"`{u.target}` is served by a {how.via} that warns at {version}: \"{how.warning}\""))
        return b
    a_old = _lookup(old, u.target)
    found = missing(u.target, old, new, version, a_old)
    if found is not None:
        code, sev, msg = found
        if code == "UNRESOLVED" and old is None:
            return b  # binding only: a read of what is not known is not a finding
        if sev == "error" and u.unevaluated:
            sev, msg = "warning", msg + f" (read only in {u.unevaluated}: nothing breaks at run time; a type checker will flag it)"
        where = f" ({u.via}: it raises here)" if u.helper else " (read here)"
        b.problems.append((code, sev, "", msg + (where if sev == "error" else "")))
        if code == "MOVED_API" and a_old is not None:
            b.fix = moved_fix(new, a_old.path, moved_to(a_old, new))
    return b


def _bind_patch(u: Use, old, new, version) -> Bound:
    """A function assigned in place of an upstream method: parameter names, order and kinds must
    match, as far as a caller can tell. Upstream's own ``self.m(...)`` calls of the method (found
    in the new version) are bound against the patch and decide: a difference none of them meets
    (a different order where every call passes those parameters by keyword) is no break. With no
    such call known, a difference the old version had already, parameter for parameter, stays a
    warning unless the new release changed the parameters involved."""
    if u.helper and not u.steps:
        owner = _lookup(new, u.target)
        if owner is not None and owner.kind == "module":
            return _bind_function_patch(u, old, new, version)
    cls_new = _patched_class(new, u)
    b = Bound(u, None, None)
    if u.on_instance and cls_new is None:
        b.unknown = NO_RECEIVER_CLASS
        return b
    m_new = _member(new, cls_new, u.member)
    if m_new is None or m_new.kind != "function" or u.guarded:
        return b  # a method upstream lacks (the patch adds it), or applied only where it lacks it
    b.new = m_new.path
    theirs = list(m_new.parameters or ())
    mine = list(u.params)
    if u.on_instance and theirs and theirs[0][1] in ("positional-only", "positional or keyword"):
        mine = [theirs[0], *mine]  # nothing is bound on an instance: the patch takes what callers pass after ``self``
    if theirs == mine or not differences(theirs, mine, _required(u), _optional(m_new)):
        return b  # the same, or a patch taking whatever the method takes (``(self, *args, **kwargs)``)
    cls_old = _patched_class(old, u)
    m_old = _member(old, cls_old, u.member)
    before = list(m_old.parameters or ()) if m_old is not None and m_old.kind == "function" else None
    shown = (f"`{m_new.path}({', '.join(_spell(n, k) for n, k in theirs)})` at {version} differs from the patch "
             f"`{u.via.split('`')[1]}({', '.join(_spell(n, k) for n, k in mine)})` ({_at(u)}) assigned in its place: "
             f"{_difference(theirs, mine)}")
    patch = _patch_signature(u)
    calls = _self_calls(new, cls_new, u.member)
    if calls and m_new.signature is not None:
        _calls_decide(b, u, shown, version, f"self.{u.member}", calls, _self_calls(old, cls_old, u.member), patch,
                      m_new.signature, m_old.signature if m_old is not None else None)
        return b
    _differences_decide(b, u, shown, theirs, mine, before, m_new, m_old)
    return b


def _calls_decide(b: Bound, u: Use, shown: str, version: str, callee: str, calls: list[dict], old_calls: list[dict],
                  patch: Signature, new_sig: Signature, old_sig: Signature | None) -> None:
    """Upstream's own calls of the patched name (``callee`` as they spell it), bound against the patch: an error
    per failing call shape (a warning where the old version's call failed the same way); one ``info`` when every
    call binds (a difference met only by keyword is no break)."""
    old_fails = {(c["caller"], _shape(c)) for c in old_calls if old_sig is not None and patch_call_fails(c, old_sig, patch)}
    failing: dict[tuple, list[dict]] = {}
    for c in calls:
        why = patch_call_fails(c, new_sig, patch)
        if why:
            failing.setdefault((_shape(c), tuple(why), (c["caller"], _shape(c)) in old_fails), []).append(c)
    if not failing:
        b.problems.append(("PATCH_MISMATCH", "info", u.member, f"{shown}; upstream's own calls of it bind to the patch "
                           f"({_callers(calls)}): not a break"))
    for (shape, why, pre), cs in failing.items():
        b.problems.append(("PATCH_MISMATCH", "warning" if pre else "error", u.member,
                           f"{shown}; upstream {_callers(cs)} call{'s' if len(cs) == 1 else ''} `{callee}({shape})` "
                           f"at {version}, which the patch cannot take: " + "; ".join(why)
                           + (" (so did the old version: not a change of this upgrade)" if pre else "")))


def _differences_decide(b: Bound, u: Use, shown: str, theirs, mine, before, a_new, a_old) -> None:
    """With no upstream call known: an error for a parameter difference the old version did not have, a warning
    when it had every one of them."""
    fresh = differences(theirs, mine, _required(u), _optional(a_new)) - (
        differences(before, mine, _required(u), _optional(a_old)) if before is not None else set())
    if not fresh:
        b.problems.append(("PATCH_MISMATCH", "warning", u.member, f"{shown} (so did the old version's: not a change of this upgrade)"))
    else:
        b.problems.append(("PATCH_MISMATCH", "error", u.member, shown))


def _bind_function_patch(u: Use, old, new, version) -> Bound:
    """A function a test helper puts in place of a module's function (``mock.patch("pkg.mod.f", g)``): it
    is called as the function is. Upstream's own calls of the name in that module's file (the calls that
    look it up among the module's globals) are bound against the patch and decide, as for a method's
    ``self.m(...)`` calls; with none known, parameter names, order and kinds must match what upstream's
    function takes at the new version, a difference the old version's function had already a warning."""
    b = Bound(u, None, None)
    f_new = _lookup(new, f"{u.target}.{u.member}")
    if f_new is None or f_new.kind != "function" or f_new.parameters is None:
        return b  # gone (the helper's lookup says so), or not a function: nothing to compare
    b.new = f_new.path
    theirs, mine = list(f_new.parameters), list(u.params)
    if theirs == mine or not differences(theirs, mine, _required(u), _optional(f_new)):
        return b
    f_old = _lookup(old, f"{u.target}.{u.member}")
    before = list(f_old.parameters) if f_old is not None and f_old.kind == "function" and f_old.parameters is not None else None
    shown = (f"`{f_new.path}({', '.join(_spell(n, k) for n, k in theirs)})` at {version} differs from the patch "
             f"`{u.via.split('`')[1]}({', '.join(_spell(n, k) for n, k in mine)})` ({_at(u)}) that `{u.helper}` puts "
             f"in place of `{u.target}.{u.member}`: {_difference(theirs, mine)}")
    patch = _patch_signature(u, instance=False)
    calls = _module_calls(new, u.target, u.member)
    if calls and f_new.signature is not None:
        _calls_decide(b, u, shown, version, u.member, calls, _module_calls(old, u.target, u.member), patch,
                      f_new.signature, f_old.signature if f_old is not None else None)
        return b
    _differences_decide(b, u, shown, theirs, mine, before, f_new, f_old)
    return b


_VARIADIC = ("variadic positional", "variadic keyword")


def _required(u: Use) -> frozenset[str]:
    """The patch's parameters without a default."""
    return frozenset(n for n, k in u.params if k not in _VARIADIC and n not in u.defaults)


def _optional(m: Api | None) -> frozenset[str]:
    """The upstream method's parameters with a default."""
    if m is None or m.signature is None:
        return frozenset()
    return frozenset(p.name for p in m.signature.params if p.default is not None)


def differences(theirs: list[tuple[str, str]], mine: list[tuple[str, str]], required: frozenset[str] = frozenset(),
                optional: frozenset[str] = frozenset()) -> set[tuple[str, str]]:
    """What a caller of the upstream method (parameters ``theirs``, as written) can meet on the
    patch (``mine``), one ``(parameter, how)`` per parameter: in the patch only, another kind,
    another position, or upstream only and not taken by the patch's ``**kwargs``; and the
    variadics, and fewer positional places; a parameter the patch requires (``required``) that
    upstream makes optional (``optional``). An upstream parameter the patch's ``**kwargs``
    takes is no difference to a keyword caller: its name changing is not the patch's concern."""
    out: set[tuple[str, str]] = set()
    positional = ("positional-only", "positional or keyword")
    tk, mk = dict(theirs), dict(mine)
    tpos = [n for n, k in theirs if k in positional]
    mpos = [n for n, k in mine if k in positional]
    m_kinds = {k for _n, k in mine}
    for n, k in mine:
        if k in _VARIADIC:
            continue
        if n not in tk:
            out.add((n, "patch only"))
        elif tk[n] != k:
            out.add((n, "kind"))
        elif k in positional and tpos.index(n) != mpos.index(n):
            out.add((n, "order"))
        if n in tk and n in required and n in optional:
            out.add((n, "required"))
    for n, k in theirs:
        if k in _VARIADIC:
            if k not in m_kinds:
                out.add((_spell(n, k), "upstream only"))
        elif n not in mk and not ("variadic keyword" in m_kinds and k != "positional-only"):
            out.add((n, "upstream only"))
    if len(tpos) > len(mpos) and "variadic positional" not in m_kinds:
        out.add(("", "fewer positional"))
    return out


def _patched_class(model, u: Use) -> Api | None:
    """The upstream class a patch replaces a method of: ``target``, or for a patch installed on an
    instance, the class of that receiver (``steps`` from ``target``)."""
    if u.steps:
        cls = _receiver_class(model, u.target, u.steps)
    else:
        cls = _lookup(model, u.target)
    return cls if cls is not None and cls.kind == "class" else None


def _patch_signature(u: Use, instance: bool | None = None) -> Signature:
    """The patch's signature with its instance parameter left out (a function patched onto a class
    gets the instance first; one installed on an instance, or in a module's place, gets nothing bound:
    ``instance=False``)."""
    params = list(u.params)
    if params and params[0][1] in ("positional-only", "positional or keyword") and (not u.on_instance if instance is None else instance):
        params = params[1:]
    return Signature([Param(n, k, "..." if n in u.defaults else None) for n, k in params], None)


def patch_call_fails(call: dict, theirs: Signature, patch: Signature) -> list[str]:
    """Why an upstream call of the method (``api.self_calls_in``), written for signature ``theirs``,
    does not reach the patch as meant: it does not bind, or a parameter it passes by position
    lands on another parameter of the patch."""
    why = call_fails(call, patch, "the patch")
    tpos, mpos = theirs.positional(), patch.positional()
    for i in range(min(call["positional"], len(tpos), len(mpos))):
        if tpos[i].name != mpos[i].name:
            why.append(f"its argument {i + 1} is `{tpos[i].name}` upstream, which the patch takes as `{mpos[i].name}`")
    return why


def _callers(calls: list[dict]) -> str:
    return ", ".join(f"`{c['caller']}` ({c['file']}:{c['line']})" for c in calls)


def _at(u: Use) -> str:
    return f"line {u.function_line}" if u.function_file in ("", u.file) else f"`{u.function_file}:{u.function_line}`"


def _spell(name: str, kind: str) -> str:
    return {"variadic positional": f"*{name}", "variadic keyword": f"**{name}"}.get(kind, name)


def _difference(theirs: list[tuple[str, str]], mine: list[tuple[str, str]]) -> str:
    tn, mn = [n for n, _ in theirs], [n for n, _ in mine]
    for i, (t, m) in enumerate(zip(tn, mn)):
        if t != m:
            if t not in mn and m not in tn:
                return f"parameter {i + 1} is `{t}` upstream, `{m}` in the patch"
            return f"parameter {i + 1} is `{t}` upstream, `{m}` in the patch (order differs)"
    if len(tn) != len(mn):
        extra = tn[len(mn):] or mn[len(tn):]
        side = "upstream" if len(tn) > len(mn) else "the patch"
        return f"only {side} has {', '.join(f'`{x}`' for x in extra)}"
    kinds = [n for (n, k), (_, k2) in zip(theirs, mine) if k != k2]
    return f"kinds differ for {', '.join(f'`{x}`' for x in kinds)}"


def _bind_returned(u: Use, old, new, version) -> Bound:
    """A patch's ``return`` statements against upstream's own ``self.m(...)`` calls that unpack the
    method's result (new version): an error where every return gives a tuple of ``k`` elements,
    a call unpacks ``n != k`` names, and at the old version upstream unpacked ``k`` (or the old
    return annotation had ``k`` elements). A return under ``if`` tests on the project's version flags
    (``u.return_flags``) that make it dead at the new version is left out. Returns of different
    lengths (or not all tuple displays) after that: which one runs is not known statically:
    ``info``. No unpacking call: nothing to check."""
    b = Bound(u, None, None)
    cls_new, cls_old = _patched_class(new, u), _patched_class(old, u)
    m_new = _member(new, cls_new, u.member)
    if cls_new is None or m_new is None or m_new.kind != "function":
        b.unknown = NOT_A_USE if cls_new is not None else NO_RECEIVER_CLASS
        return b
    m_old = _member(old, cls_old, u.member)
    b.new, b.old = m_new.path, (m_old.path if m_old else None)
    calls = [c for c in _self_calls(new, cls_new, u.member) if c.get("unpacked")]
    if not calls:
        b.unknown = NOT_A_USE
        return b
    b.signature = True
    before = {c["unpacked"] for c in _self_calls(old, cls_old, u.member) if c.get("unpacked")}
    old_arity = tuple_arity(m_old.signature.returns) if m_old is not None and m_old.signature is not None else None
    if old_arity is not None:
        before.add(old_arity)
    dead = {line for line, flag in u.return_flags if flag_value(flag, version, lambda p: has_member(new, p)) is False}
    live = [(line, k) for line, k in u.returns if line not in dead] or list(u.returns)  # all dead: a flag misread
    dead = {line for line, _k in u.returns} - {line for line, _k in live}
    lengths = {k for _line, k in live}
    by_n: dict[int, list[dict]] = {}
    for c in calls:
        by_n.setdefault(c["unpacked"], []).append(c)
    shown = "; ".join(f"line {line}: " + (f"a tuple of {k}" if k >= 0 else "not a tuple display") for line, k in live)
    if dead:
        shown += (f" (line{'s' if len(dead) > 1 else ''} {', '.join(map(str, sorted(dead)))} left out: in a branch the "
                  f"project's version flag makes dead at {version})")
    for n, cs in sorted(by_n.items()):
        if lengths == {n}:
            continue
        head = (f"upstream {_callers(cs)} unpack{'s' if len(cs) == 1 else ''} `self.{u.member}(…)` into {n} names at "
                f"{version}; the {u.via} ({_at(u)}) returns {shown}")
        if len(lengths) == 1 and min(lengths) >= 0:
            k = next(iter(lengths))
            if k in before:
                b.problems.append(("RETURN_CHANGED", "error", "return", f"{head} (the old version unpacked {k})"))
            else:
                b.problems.append(("RETURN_CHANGED", "info", "return", f"{head}; not known to have matched at the old "
                                   "version either: not a change shown to come from this upgrade"))
        else:
            b.problems.append(("RETURN_CHANGED", "info", "return", f"{head}: which return runs is not known statically "
                               "(no version flag of the project decides between them)"))
    return b


# -- wrappers of upstream methods --------------------------------------------------------------

#: builtin and typing containers: what each supports of a wrapper's uses of a value (``index``, ``iterate``)
_INDEXABLE = ("tuple", "list", "dict", "str", "bytes", "typing.Sequence", "typing.MutableSequence", "typing.Mapping",
              "typing.MutableMapping", "typing.Tuple", "typing.List", "typing.Dict")
_ITERABLE = _INDEXABLE + ("set", "frozenset", "typing.Iterable", "typing.Iterator", "typing.Generator", "typing.Collection",
                          "typing.Set", "typing.FrozenSet", "typing.AbstractSet")
_HOW = {"index": "indexes", "unpack": "unpacks", "iterate": "iterates over", "attribute": "reads", "other": "uses"}


def _members(text: str) -> list[str]:
    """The members of a (normalised) union annotation: ``tuple | pkg.Out`` -> ``["tuple", "pkg.Out"]``."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "[(" and 1 or (-1 if ch in "])" else 0)
        if ch == "|" and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return [m for m in out if m and m != "None"]


def _supports(model, member: str, how: str, attr: str) -> bool | None:
    """Whether a value of type ``member`` supports the use (``True``/``False``; ``None``: not known)."""
    base = member.split("[", 1)[0].strip()
    if base in _ITERABLE:
        if how == "index":
            return base in _INDEXABLE
        return True if how in ("unpack", "iterate") else None
    try:
        cls = model.lookup(base)
    except Unresolved:
        return None
    if cls is None or cls.kind != "class":
        return None  # a class outside the loaded source (torch.Tensor), a type variable, ``Any``
    wanted = {"index": ("__getitem__",), "unpack": ("__iter__", "__getitem__"), "iterate": ("__iter__", "__getitem__"),
              "attribute": (attr,)}.get(how)
    if wanted is None:
        return None
    if any(_member(model, cls, w) is not None for w in wanted):
        return True
    if how == "attribute" and any(_member(model, cls, d) is not None for d in ("__getattr__", "__getattribute__")):
        return None
    try:
        foreign = model.foreign_bases(cls)
    except Unresolved:
        return None
    # bases from the standard library (a model output deriving from ``OrderedDict``): this interpreter's own classes
    known = [[stdlib_has(f, w) for w in wanted] for f in foreign]
    if any(True in k for k in known):
        return True
    return None if any(None in k for k in known) else False


def _bind_wrapped(u: Use, old, new, version) -> Bound:
    """A call of the original method inside a wrapper patched over it: what the wrapper does with
    the result (``u.results``) is checked against the new return annotation when it changed. An
    error only where the new type certainly does not support the use (a class in the loaded source
    without ``__getitem__`` indexed, without the attribute read); what cannot be told is ``info``."""
    cls_new, cls_old = _lookup(new, u.target), _lookup(old, u.target)
    b = Bound(u, None, None)
    m_new = _member(new, cls_new, u.member)
    m_old = _member(old, cls_old, u.member)
    if m_new is None or m_new.kind != "function" or m_new.signature is None:
        b.unknown = NOT_FOUND if m_new is None else NO_SIGNATURE
        return b
    b.new, b.old = m_new.path, (m_old.path if m_old else None)
    b.signature = True
    was = m_old.signature.returns if m_old is not None and m_old.signature is not None else None
    now = m_new.signature.returns
    note, cap = "", False
    if was is not None and was == now:
        now, note, cap = _returned_in_body(old, new, m_old, m_new, now)
    if None in (was, now) or was == now:
        return b  # no annotation to compare, or the same: nothing changed for the wrapper
    head = f"`{m_new.path}`: returns `{short(now)}` (was `{short(was)}`) at {version}, and {u.via} (line {u.function_line})"
    for line, how, attr in u.results:
        if how == "return":
            continue  # handed on as it is: the wrapper's callers get what upstream's got
        use = f"`….{attr}`" if how == "attribute" else "its result"
        said = f"{head} {_HOW.get(how, 'uses')} {use} at line {line}"
        if how == "argument":
            b.problems += _passed_on(old, new, was, now, f"{head} passes its result to", line, attr)
            continue
        if how == "other":
            b.problems.append(("RETURN_CHANGED", "info", "return", f"{said}, in a way not checked statically"))
            continue
        verdicts = [(m, _supports(new, m, how, attr)) for m in _members(now)]
        bad = [m for m, ok in verdicts if ok is False]
        if bad:
            b.problems.append(("RETURN_CHANGED", "error", "return", f"{said}, which `{short(bad[0])}` does not support"
                               + (f" (no `{attr}`)" if how == "attribute" else " (no `__getitem__`)" if how == "index" else
                                  " (not iterable)")))
        elif any(ok is None for _m, ok in verdicts) or not verdicts:
            b.problems.append(("RETURN_CHANGED", "info", "return", f"{said}; whether the new type supports that is not known statically"))
    if note:
        b.problems = [(code, "warning" if cap and sev == "error" else sev, what, f"{msg} ({note})") for code, sev, what, msg in b.problems]
    return b


def _returned_in_body(old, new, m_old: Api, m_new: Api, annotated: str) -> tuple[str, str, bool]:
    """Where the annotation is the same at both versions: what the new body returns instead, when every
    ``return`` of it constructs a class the annotation certainly does not accept and the old body did not
    (the annotation was left behind); with a note for the message, and whether an error is only a warning
    (a decorator may hand a call something else). Else ``(annotated, "", False)``."""
    try:
        body, before = new.body_returns(m_new), old.body_returns(m_old)
    except Unresolved:
        return annotated, "", False
    classes = body["classes"]
    if not classes or set(classes) == set(before["classes"]):
        return annotated, "", False
    if not all(assignable(new, c, _members(annotated)) is False for c in classes):
        return annotated, "", False
    returned = " | ".join(classes)
    note = f"annotated `{short(annotated)}` at both versions, its body returns `{short(returned)}` now"
    if body["decorators"]:
        return returned, f"{note}; decorated by `{'`, `'.join(body['decorators'])}`, which may hand a call something else", True
    return returned, note, False


def _canonical(model, path: str) -> str:
    try:
        return model.canonical(path) or path
    except Unresolved:
        return path


def _passed_on(old, new, was: str, now: str, said: str, line: int, attr: str) -> list[Problem]:
    """The result handed to a project function's annotated parameter (``attr``: ``"f(param): annotation"``):
    an error where every type the old version returned is one the annotation accepts and a type the new
    one returns certainly is not; ``info`` where that cannot be told; nothing where the old type did not fit either."""
    callee, _, rest = attr.partition("(")
    param, _, text = rest.partition("): ")
    where = f"{said} `{callee}` at line {line}, whose parameter `{param}` is annotated `{short(text)}`"
    verdicts = []
    for model, returned in ((old, was), (new, now)):
        targets = _members(normalize(text, functools.partial(_canonical, model)) or text)
        verdicts.append([(m, assignable(model, m, targets)) for m in _members(returned)])
    before, after = verdicts
    if before and all(ok is True for _m, ok in before):
        bad = [m for m, ok in after if ok is False]
        if bad:
            return [("RETURN_CHANGED", "error", "return", f"{where}: `{short(bad[0])}` is not one")]
        if all(ok is True for _m, ok in after):
            return []
    elif any(ok is False for _m, ok in before):
        return []  # the old type did not fit the annotation either: nothing this upgrade changed
    return [("RETURN_CHANGED", "info", "return", f"{where}; whether the new type is one is not known statically")]


# -- overrides -------------------------------------------------------------------------------


def override_signature(u: Use) -> Signature:
    """The signature of a project override (an OVERRIDE use), ``self`` left out."""
    return Signature([Param(n, k, "..." if n in u.defaults else None) for n, k in u.params], None)


#: methods of Python's data model that the interpreter itself calls with positional arguments only
#: (``with`` calls ``__exit__(t, v, tb)``, ``x[k]`` calls ``__getitem__(k)``): an override needs the base's
#: positions, not its parameter names. Data about Python, not about a project. Left out: ``__call__``,
#: ``__init_subclass__``, ``__replace__`` (called with keywords) and the dunders of other libraries'
#: protocols (numpy passes ``__array__(copy=...)`` by keyword).
POSITIONAL_DUNDERS = frozenset("""
    __enter__ __exit__ __aenter__ __aexit__ __iter__ __next__ __aiter__ __anext__ __await__ __len__
    __length_hint__ __contains__ __getitem__ __setitem__ __delitem__ __missing__ __reversed__ __bool__
    __getattr__ __getattribute__ __setattr__ __delattr__ __dir__ __get__ __set__ __delete__ __set_name__
    __repr__ __str__ __bytes__ __format__ __hash__ __eq__ __ne__ __lt__ __le__ __gt__ __ge__
    __add__ __sub__ __mul__ __matmul__ __truediv__ __floordiv__ __mod__ __divmod__ __pow__ __lshift__
    __rshift__ __and__ __xor__ __or__ __radd__ __rsub__ __rmul__ __rmatmul__ __rtruediv__ __rfloordiv__
    __rmod__ __rdivmod__ __rpow__ __rlshift__ __rrshift__ __rand__ __rxor__ __ror__ __iadd__ __isub__
    __imul__ __imatmul__ __itruediv__ __ifloordiv__ __imod__ __ipow__ __ilshift__ __irshift__ __iand__
    __ixor__ __ior__ __neg__ __pos__ __abs__ __invert__ __complex__ __int__ __float__ __index__ __round__
    __trunc__ __floor__ __ceil__ __copy__ __deepcopy__ __reduce__ __reduce_ex__ __getstate__ __setstate__
    __getnewargs__ __getnewargs_ex__ __sizeof__ __fspath__ __instancecheck__ __subclasscheck__
    __class_getitem__ __del__
""".split())


def _spelled(params) -> str:
    return ", ".join(_spell(p.name, p.kind) for p in params)


def cannot_accept(base: Signature, mine: Signature) -> list[tuple[str, bool, bool, str]]:
    """How a call the base method accepts can fail on the override: ``(parameter, the base
    requires it, only by keyword, why)`` per gap. A base parameter the override cannot take
    (at its position, or by its name), a base ``*args`` / ``**kwargs`` the override lacks, and
    a parameter the override requires that the base's callers need not pass."""
    out: list[tuple[str, bool, bool, str]] = []
    mpos, mnamed = mine.positional(), mine.named()
    seen: set[str] = set()
    for i, p in enumerate(base.positional()):
        if i >= len(mpos) and not mine.var_args:
            seen.add(p.name)
            out.append((p.name, p.required, False, f"the base takes `{p.name}` as positional argument {i + 1}; "
                        f"the override takes {len(mpos)} positional argument(s) and no `*args`"))
    for p in base.params:
        if p.name in seen or p.kind not in ("positional or keyword", "keyword-only"):
            continue
        q = mnamed.get(p.name)
        if (q is None or q.kind == "positional-only") and not mine.var_kwargs:
            positional_ok = p.kind == "positional or keyword"
            out.append((p.name, p.required, positional_ok, f"the base takes `{p.name}` by keyword; the override has no "
                        f"parameter `{p.name}` and no `**kwargs`"))
    for kind, has in (("variadic positional", mine.var_args), ("variadic keyword", mine.var_kwargs)):
        theirs = next((p for p in base.params if p.kind == kind), None)
        if theirs is not None and not has:
            out.append((_spell(theirs.name, kind), False, False, f"the base takes `{_spell(theirs.name, kind)}`; the override does not"))
    bpos, bnamed = base.positional(), base.named()
    for i, q in enumerate(mine.params):
        if not q.required:
            continue
        at = mpos.index(q) if q in mpos else None
        by_name = bnamed.get(q.name)
        if by_name is not None and by_name.kind != "positional-only":
            if not by_name.required:
                out.append((q.name, False, False, f"the override requires `{q.name}`, which the base makes optional"))
            continue
        if at is not None and at < len(bpos):
            if not bpos[at].required:
                out.append((q.name, False, False, f"the override requires `{q.name}` (position {at + 1}), which the base makes optional"))
            continue
        if base.var_args and at is not None or base.var_kwargs and q.kind != "positional-only":
            continue  # the base's callers may pass it through ``*args`` / ``**kwargs``
        out.append((q.name, True, False, f"the override requires `{q.name}`, which the base does not take"))
    return out


def call_fails(call: dict, mine: Signature, who: str = "the override") -> list[str]:
    """Why an upstream call (``api.self_calls_in``) cannot bind to the override or patch (empty: it binds)."""
    why = []
    mpos, mnamed = mine.positional(), mine.named()
    if call["positional"] > len(mpos) and not mine.var_args:
        why.append(f"{call['positional']} positional argument(s), {who} takes {len(mpos)}")
    filled = {p.name for p in mpos[: call["positional"]]}
    for kw in call["keywords"]:
        q = mnamed.get(kw)
        if q is None or q.kind == "positional-only":
            if not mine.var_kwargs:
                why.append(f"keyword `{kw}`, which {who} does not take")
        elif kw in filled:
            why.append(f"`{kw}` twice (by position and by keyword)")
    if not (call["star_args"] or call["star_kwargs"]):
        passed = filled | set(call["keywords"])
        missing = [p.name for p in mine.params if p.required and p.name not in passed]
        if missing:
            why.append("no " + ", ".join(f"`{m}`" for m in missing) + f", which {who} requires")
    return why


def _shape(call: dict) -> str:
    args = ["…"] * call["positional"] + [f"{k}=…" for k in call["keywords"]]
    args += ["*…"] if call["star_args"] else []
    args += ["**…"] if call["star_kwargs"] else []
    return ", ".join(args)


def _module_calls(model, module: str, name: str) -> list[dict]:
    """Upstream's own calls of the global ``name`` in ``module``'s file (``api.module_calls``)."""
    mod = _lookup(model, module)
    if mod is None or mod.kind != "module":
        return []
    try:
        return model.module_calls(mod, name)
    except Unresolved:
        return []


def _self_calls(model, cls: Api | None, name: str) -> list[dict]:
    if model is None or cls is None or cls.kind != "class":
        return []
    try:
        return model.self_calls(cls, name)
    except Unresolved:
        return []


def _override_fails(call: dict, mine: Signature, binding: str) -> list[str]:
    """Why an upstream ``self.m(...)`` / ``cls.m(...)`` call cannot bind to an override of ``m`` (``mine``:
    its signature without ``self``; ``binding``: ``Use.binding``). A call made on the class (in a class
    method) binds no instance to a plain method: its first argument goes to ``self``."""
    if not call.get("through_class") or binding:
        return call_fails(call, mine)
    unbound = Signature([Param("self", "positional or keyword", None), *mine.params], mine.returns)
    why = call_fails(call, unbound)
    return ["made on the class, it binds no instance to the override, a plain method", *why] if why else []


def _bind_override(u: Use, old, new, version) -> Bound:
    """A method a project subclass defines over an upstream base's method: it must take what the
    base takes at the new version, and every call upstream makes of it on ``self``."""
    cls_new, cls_old = _lookup(new, u.target), _lookup(old, u.target)
    b = Bound(u, None, None)
    if cls_new is None or cls_new.kind != "class":
        b.unknown = NOT_FOUND
        return b
    m_new = _member(new, cls_new, u.member)
    m_old = _member(old, cls_old, u.member) if cls_old is not None and cls_old.kind == "class" else None
    b.new, b.old = (m_new.path if m_new else None), (m_old.path if m_old else None)
    mine = override_signature(u)
    name = f"{u.via.split('`')[1]}.{u.member}" if "`" in u.via else u.member
    shown = f"`{name}({_spelled(mine.params)})`"
    if m_new is None:
        if m_old is not None and m_old.kind == "function":
            b.problems.append(("OVERRIDE_MISMATCH", "warning", u.member, f"{shown} overrides `{m_old.path}`, which is gone at "
                               f"{version}: upstream no longer calls it"))
        else:
            b.unknown = NOT_A_USE  # a method of the project's own
        return b
    if m_new.kind != "function" or m_new.signature is None:
        b.unknown = NOT_A_USE if m_new.kind != "function" else NO_SIGNATURE
        return b
    b.signature = True
    b.problems += _deprecated_base(old, new, m_old, m_new, version, shown)
    calls_new = _self_calls(new, cls_new, u.member)
    old_fails = set()
    if m_old is not None:
        for c in _self_calls(old, cls_old, u.member):
            if _override_fails(c, mine, u.binding):
                old_fails.add((c["caller"], _shape(c), bool(c.get("through_class"))))
    named: set[str] = set()
    failing: dict[tuple, list[dict]] = {}  # (shape, on the class, why, pre-existing) -> the upstream calls: one problem each
    for c in calls_new:
        why = _override_fails(c, mine, u.binding)
        if not why:
            continue
        on_class = bool(c.get("through_class"))
        before = (c["caller"], _shape(c), on_class) in old_fails
        named |= set(c["keywords"]) | {p.name for p in m_new.signature.positional()[: c["positional"]]}  # said here
        failing.setdefault((_shape(c), on_class, tuple(why), before), []).append(c)
    for (shape, on_class, why, before), calls in failing.items():
        where = ", ".join(f"`{c['caller']}` ({c['file']}:{c['line']})" for c in calls)
        receiver = "cls" if on_class else "self"
        b.problems.append(("OVERRIDE_MISMATCH", "warning" if before else "error", u.member,
                           f"upstream {where} call{'s' if len(calls) == 1 else ''} `{receiver}.{u.member}({shape})` at {version}; "
                           f"the override {shown} cannot take it: " + "; ".join(why)
                           + (" (so did the old version: not a change of this upgrade)" if before else "")))
    old_gaps = ({g[0] for g in cannot_accept(m_old.signature, mine)}
                if m_old is not None and m_old.kind == "function" and m_old.signature is not None else None)
    calls_bind = bool(calls_new) and not any(p[1] == "error" for p in b.problems)
    # upstream's calls ``x.<member>(...)`` on the objects it holds: asked once, when needed
    others = functools.cache(lambda: _named_calls(new, cls_new, u.member))
    base = f"`{m_new.path}({_spelled(m_new.signature.params)})`"
    for param, required, by_keyword_only, why in cannot_accept(m_new.signature, mine):
        if param in named:
            continue  # said with the upstream call that passes it
        if old_gaps is not None and param in old_gaps:
            sev, tail = "info", " (so did the old version's base: not a change of this upgrade)"
        elif by_keyword_only and u.member in POSITIONAL_DUNDERS:
            sev, tail = "info", f" (Python calls `{u.member}` with positional arguments, which the override takes)"
        elif required and by_keyword_only and not calls_bind and _by_position(others(), param):
            first = others()[0]
            sev = "warning"
            tail = (f" (upstream's {len(others())} call(s) of `.{u.member}(...)` on the objects it holds, "
                    f"`{first['caller']}` ({first['file']}:{first['line']}) first, pass it by position)")
        elif required and not (by_keyword_only and calls_bind):
            sev, tail = ("error" if old is not None else "warning"), ""  # no old version: binding only
        else:
            sev = "warning"
            tail = " (upstream's own calls of it bind)" if calls_bind else ""
        b.problems.append(("OVERRIDE_MISMATCH", sev, param, f"{base} at {version}: the override {shown} cannot accept what "
                           f"the base accepts: {why}{tail}"))
    return b


def _deprecated_base(old, new, m_old: Api | None, m_new: Api, version: str, shown: str) -> list[Problem]:
    """DEPRECATED for an override of a base method that warns at the new version: upstream is on its way
    to no longer calling it (``info`` when the old base warned already, as for a call)."""
    try:
        warned = new.deprecation(m_new)
    except Unresolved:
        return []
    if not warned:
        return []
    return [_deprecated(old, m_old, m_new, warned, version, f" ({shown} overrides it: upstream is on its way to no "
                                                            "longer calling it)")]


def _named_calls(model, cls: Api, name: str) -> list[dict]:
    try:
        return model.named_calls(cls, name)
    except Unresolved:
        return []


def _by_position(calls: list[dict], param: str) -> bool:
    """Upstream calls a method of this name, and none of its calls could pass ``param`` by keyword."""
    return bool(calls) and not any(param in c["keywords"] or c["star_kwargs"] for c in calls)


# -- a subclass constructor that skips the upstream one ------------------------------------------


def _init_facts(model, cls: Api | None) -> dict | None:
    if model is None or cls is None or cls.kind != "class":
        return None
    try:
        return model.init_facts(cls)
    except Unresolved:
        return None


def self_reads(facts: dict | None, method: str, own: set[str]) -> dict[str, tuple[bool, str, str]]:
    """What upstream method ``method`` reads on ``self`` of the constructor's attributes (``facts``:
    ``api.init_facts``), itself and through the methods it calls on ``self`` (one level; not those the
    project defines, ``own``): attr -> (read on every call, who reads it, ``file:line``). An attribute the
    method (or the one it calls) stores itself is left out."""
    info = facts["methods"].get(method) if facts is not None else None
    out: dict[str, tuple[bool, str, str]] = {}
    if info is None:
        return out

    def put(attr: str, always: bool, who: str, where: str) -> None:
        prev = out.get(attr)
        if prev is None or (always and not prev[0]):
            out[attr] = (always, who, where)

    mine = set(info["stores"])
    for attr, line, always in info["reads"]:
        if attr not in mine:
            put(attr, always, f"`{info['caller']}`", f"{info['file']}:{line}")
    for name, _line, always in info["calls"]:
        sub = facts["methods"].get(name)
        if sub is None or name in own or name == method:
            continue
        for attr, line, a in sub["reads"]:
            if attr not in mine and attr not in sub["stores"]:
                put(attr, always and a, f"`{info['caller']}` (through `self.{name}()`, `{sub['caller']}`)", f"{sub['file']}:{line}")
    return out


def _bind_init_skipped(u: Use, old, new, version) -> Bound:
    """A project subclass's ``__init__`` runs no base constructor: the attributes the upstream constructor
    sets at the new version that the project does not set itself are missing on its instances. An upstream
    method the project calls on such an instance that reads one of them on every call fails: an error when
    that read is new (the old version's method read it only under a condition, or not at all); a new read
    under a condition is a warning, and so is a read by a method the project is not seen calling of an
    attribute no method read at the old version; a read the old version made the same way is not this
    upgrade's news (the project would have failed then already). With no old version (a pinned
    version audited alone): a warning where a method the project calls reads one on every call, nothing else."""
    cls_new, cls_old = _lookup(new, u.target), _lookup(old, u.target)
    b = Bound(u, None, None)
    facts = _init_facts(new, cls_new)
    if facts is None:
        b.unknown = NOT_FOUND
        return b
    b.new = cls_new.path
    if not facts["complete"] or facts["getattr"]:
        b.unknown = INIT_UNKNOWN
        return b
    own = set(u.names)
    sets = {a: (who, where) for a, who, where in facts["sets"] if a not in own and a not in facts["class_names"]}
    f_old = _init_facts(old, cls_old)
    if f_old is not None and (not f_old["complete"] or f_old["getattr"]):
        f_old = None
    if not sets:
        return b
    short = u.via.split("`")[1] if "`" in u.via else u.target
    head = f"`{short}.__init__` does not run the constructor of `{cls_new.path}`"
    said: set[str] = set()
    # an attribute a method the project calls sets itself (``setup()`` before ``plan()``) may be there: not
    # said; one another upstream method sets may be too (set lazily): a warning at most
    reached_stores = set()
    for m, _l, _r in u.reached:
        info = facts["methods"].get(m)
        if info is not None and m not in own:
            reached_stores |= set(info["stores"])
            for name, _line, _a in info["calls"]:
                sub = facts["methods"].get(name)
                if sub is not None and name not in own:
                    reached_stores |= set(sub["stores"])
    lazily = {a for m, info in facts["methods"].items() if m not in own for a in info["stores"]}
    for m, line, rel in u.reached:
        if m in own:
            continue
        was = self_reads(f_old, m, own) if f_old is not None else {}
        for attr, (always, who, where) in self_reads(facts, m, own).items():
            if attr not in sets or attr in said or attr in reached_stores:
                continue
            before = was.get(attr)
            if before is not None and (before[0] or not always):
                continue  # read the same way at the old version: not this upgrade's news
            if f_old is None and not always:
                continue  # no old version: only what fails on every call is said (a warning)
            setter, set_at = sets[attr]
            then = ("the old version read it only under a condition" if before is not None else
                    "the old version did not read it there" if f_old is not None else "")
            how = "on every call" if always else "under a condition"
            sev = "error" if always and f_old is not None and attr not in lazily else "warning"
            said.add(attr)
            b.problems.append(("INIT_SKIPPED", sev, attr,
                               f"{head}: at {version} `{setter}` ({set_at}) sets `self.{attr}`, which upstream {who} "
                               f"({where}) reads {how}, and the project calls `{m}` on an instance of `{short}` ({rel}:{line}): "
                               f"{'it fails' if sev == 'error' else 'it may fail'} with AttributeError"
                               + (f" ({then})" if then else "")))
    if f_old is None:
        return b  # no old version (or none readable): what is not reached is no news of an upgrade
    reached = {m for m, _l, _r in u.reached}
    read_before = {a for m in f_old["methods"].values() for a, _l, _a in m["reads"]}
    unreached: dict[str, dict[str, str]] = {}  # attr -> where read -> who
    for m in sorted(facts["methods"]):
        if m in reached or m in own:
            continue
        for attr, (_always, who, where) in self_reads(facts, m, own).items():
            if attr in sets and attr not in said and attr not in read_before and attr not in reached_stores:
                unreached.setdefault(attr, {}).setdefault(where, who)
    for attr, by_place in unreached.items():
        readers = [f"{who} ({where})" for where, who in by_place.items()]
        setter, set_at = sets[attr]
        more = f" and {len(readers) - 3} more" if len(readers) > 3 else ""
        b.problems.append(("INIT_SKIPPED", "warning", attr,
                           f"{head}: at {version} `{setter}` ({set_at}) sets `self.{attr}`, which upstream "
                           f"{', '.join(readers[:3])}{more} read{'s' if len(readers) == 1 else ''} (no method read it at the old version); "
                           f"the project is not seen calling {'it' if len(readers) == 1 else 'them'} on an instance of `{short}`"))
    return b


# -- receivers typed by upstream ---------------------------------------------------------------


def _attribute_class(model, cls: Api | None, name: str) -> Api | None:
    if model is None or cls is None or cls.kind != "class":
        return None
    try:
        return model.attribute_class(cls, name)
    except Unresolved:
        return None


def _bind_typed(u: Use, old, new, version) -> Bound:
    """``self.x.m(...)`` where the upstream base declares ``x``: ``m`` of the class it declares ``x`` as.
    The receiver's class not known (no annotation, a union, a class outside the source): not bound."""
    cls_new, cls_old = _lookup(new, u.target), _lookup(old, u.target)
    b = Bound(u, None, None)
    t_new = _attribute_class(new, cls_new, u.attr)
    if t_new is None:
        b.unknown = NO_ATTRIBUTE_CLASS
        return b
    t_old = _attribute_class(old, cls_old, u.attr)
    return _bind_on(b, t_new, t_old, old, new, version, f"`{u.attr}` is a `{t_new.path}` in `{cls_new.path}`; {u.via}")


def _receiver_class(model, start: str, steps: tuple[str, ...]) -> Api | None:
    """The class ``steps`` reach from ``start`` at one version; steps that start at a hook
    implementation's parameter (``hook:NAME``, ``p:PARAM``) start at that version's spec of NAME."""
    if model is None:
        return None
    if hook_prefix(steps):
        (hook, param), steps = hook_prefix(steps), steps[2:]
        spec = _hook_spec(model, hook[5:])
        if spec is None:
            return None
        start, steps = spec, (param, *steps)
    try:
        return model.receiver_class(start, steps)
    except Unresolved:
        return None


def _declares(model, cls: str, name: str) -> bool | None:
    """Upstream class ``cls`` has a member ``name`` (its own or inherited) in ``model``; None when the
    class is not known there."""
    api = _lookup(model, cls) if model is not None else None
    if api is None or api.kind != "class":
        return None
    return _member(model, api, name) is not None


def _bind_annotated(u: Use, old, new, version) -> Bound:
    """``p.m(...)`` / ``p.a`` on a receiver typed from upstream: a parameter the project annotates
    with an upstream class (``steps`` empty), or an object reached from upstream path ``target``
    through ``steps`` (the model reads each from upstream's annotations at each version)."""
    b = Bound(u, None, None)
    if hook_prefix(u.steps):
        return _bind_hook_param(b, old, new, version)
    if u.steps[:1] == (REBOUND,) and u.steps[1:2] and u.steps[1].startswith(CALLERS):
        b.unknown = CALLERS_ESCAPE if u.steps[1] == CALLERS + "escapes" else CALLERS_DISAGREE
        return b
    if u.steps[:1] == (REBOUND,):
        gone = u.attr and _declares(new, u.target, u.attr) is False and not _declares(old, u.target, u.attr)
        b.unknown = NOT_A_USE if gone else RECEIVER_REBOUND  # ``self.x…`` where upstream has no ``x``: the project's own
        return b
    if not u.steps:
        t_new, t_old = _lookup(new, u.target), _lookup(old, u.target)
        if t_new is None or t_new.kind != "class":
            b.unknown = NOT_FOUND
            return b
        t_old = t_old if t_old is not None and t_old.kind == "class" else None
    else:
        t_new = _receiver_class(new, u.target, u.steps)
        if t_new is None and u.attr and _declares(new, u.target, u.attr) is False and not _declares(old, u.target, u.attr):
            b.unknown = NOT_A_USE  # ``self.x…`` where no version of the upstream base has ``x``: the project's own
            return b
        if t_new is not None and t_new.kind == BUILTIN:
            return _bind_builtin(b, t_new, _receiver_class(old, u.target, u.steps), version)
        if t_new is None or t_new.kind == BUILTIN:
            b.unknown = NO_RECEIVER_CLASS if t_new is None else NOT_A_USE  # ``d.items()`` on a dict upstream returned
            return b
        t_old = _receiver_class(old, u.target, u.steps)
        t_old = t_old if t_old is not None and t_old.kind == "class" else None
    return _bind_on(b, t_new, t_old, old, new, version, u.via if not u.steps else f"{u.via}: a `{t_new.path}`")


def _guarded_read(b: Bound) -> Bound:
    """A read through ``getattr`` with a default or ``hasattr`` (``Use.guarded``): the code handles the
    attribute's absence, so a member gone is ``info``, said so."""
    if b.use.guarded and b.use.kind == ANNOTATED:
        b.problems = [(code, "info" if sev in ("error", "warning") else sev, param,
                       msg + "; read through `getattr` with a default or `hasattr`: the code handles its absence"
                       if sev in ("error", "warning") else msg) for code, sev, param, msg in b.problems]
    return b


def _hook_spec(model, name: str) -> str | None:
    if model is None:
        return None
    try:
        return model.hook_spec(name)
    except Unresolved:
        return None


def _bind_hook_param(b: Bound, old, new, version) -> Bound:
    """A member used on a parameter of a hook implementation (``steps``: ``hook:NAME``, ``p:PARAM``, …):
    typed by the annotation of PARAM in upstream's spec of hook NAME at each version. No spec of that
    name at the new version: not a use (a function of the project's own; a hook gone is said at its ``def``)."""
    u = b.use
    (hook, _param), rest = hook_prefix(u.steps), u.steps[2:]
    spec_new, spec_old = _hook_spec(new, hook[5:]), _hook_spec(old, hook[5:])
    if spec_new is None:
        b.unknown = NOT_A_USE
        return b
    if rest == (REBOUND,):
        b.unknown = RECEIVER_REBOUND
        return b
    t_new = _receiver_class(new, u.target, u.steps)
    t_old = _receiver_class(old, u.target, u.steps) if spec_old is not None else None
    if t_new is not None and t_new.kind == BUILTIN:
        return _bind_builtin(b, t_new, t_old, version)
    if t_new is None:
        b.unknown = NO_RECEIVER_CLASS
        return b
    t_old = t_old if t_old is not None and t_old.kind == "class" else None
    return _bind_on(b, t_new, t_old, old, new, version, f"{u.via}: a `{t_new.path}`")


def _passed(params, defaults) -> list[str]:
    """What pluggy passes a hook function: its positional parameters without a default (its ``argnames``)."""
    return [n for n, k in params if k in ("positional-only", "positional or keyword") and n not in defaults]


def _spec_argnames(api: Api | None) -> list[str] | None:
    if api is None or api.kind != "function" or api.signature is None:
        return None
    return [p.name for p in api.signature.params if p.kind in ("positional-only", "positional or keyword") and p.default is None]


def _bind_hook(u: Use, old, new, version) -> Bound:
    """A function named like one of upstream's hook specifications (a HOOK use). pluggy registers a
    hook implementation only when each parameter it would pass (positional, no default) is a parameter
    of the spec: one that is not is an error at the ``def`` (taking fewer is fine). A spec gone at the
    new version is a warning (pluggy calls no implementation of an unknown hook, and refuses it only
    where the framework checks pending hooks); nothing for ``optionalhook=True``. A name that is no
    spec at either version is not a use."""
    b = Bound(u, None, None)
    spec_new, spec_old = _hook_spec(new, u.member), _hook_spec(old, u.member)
    b.new, b.old = spec_new, spec_old
    spelled = ", ".join(_spell(n, k) for n, k in u.params)
    shown = f"`{u.via.split('`')[1] if '`' in u.via else u.member}({spelled})`"
    if spec_new is None:
        if spec_old is None or u.optional:
            b.unknown = NOT_A_USE
            return b
        b.problems.append(("HOOK_MISMATCH", "warning", u.member, f"{shown} implements hook `{spec_old}`, whose spec is gone at "
                           f"{version}: upstream no longer calls it (a plugin manager that checks pending hooks refuses an "
                           "unknown hook; `optionalhook=True` says it may be absent)"))
        return b
    api_new = _lookup(new, spec_new)
    theirs = _spec_argnames(api_new)
    if theirs is None:
        b.unknown = NO_SIGNATURE
        return b
    b.signature = True
    before = _spec_argnames(_lookup(old, spec_old)) if spec_old is not None else None
    for name in _passed(u.params, u.defaults):
        if name in theirs:
            continue
        spec = f"`{api_new.path}({', '.join(theirs)})`"
        why = (f"{shown} implements hook {spec} at {version}, which has no parameter `{name}`: pluggy refuses the "
               f"hook implementation when it registers the plugin (`{name}` is declared in the hookimpl but not found "
               "in the hookspec)")
        if before is not None and name not in before:
            b.problems.append(("HOOK_MISMATCH", "info", name, f"{why} (nor had the old version's spec: not a change of "
                               "this upgrade)"))
        else:  # no old version (binding only): a warning, as for an override
            b.problems.append(("HOOK_MISMATCH", "error" if old is not None else "warning", name,
                               why + (" (a parameter of the old version's spec)" if before is not None else "")))
    return b


#: the builtin classes whose objects a receiver can be known to be (``-> str``, ``list[T]``); a
#: member is looked up on the running interpreter's class: data about Python, not about the project
_BUILTIN_CLASSES = {c.__name__: c for c in (str, bytes, int, float, bool, list, dict, tuple, set)}


def _bind_builtin(b: Bound, t_new: Api, t_old: Api | None, version: str) -> Bound:
    """A member of a receiver that upstream's annotations make a builtin object at the new version
    (an element of ``httpx.Cookies``, whose ``__iter__`` gives ``Iterator[str]``): no use of upstream,
    unless the builtin has no such member. Then it fails at the new version: an error when the
    old version's type was another or not known (its annotation said nothing), ``info`` when it
    was the same builtin (already broken)."""
    u = b.use
    name = t_new.path.rsplit(".", 1)[-1]
    cls = _BUILTIN_CLASSES.get(name)
    if cls is None or hasattr(cls, u.member):
        b.unknown = NOT_A_USE
        return b
    old_name = t_old.path.rsplit(".", 1)[-1] if t_old is not None and t_old.kind == BUILTIN else None
    old_cls = _BUILTIN_CLASSES.get(old_name or "")
    what = f"`{u.member}`{'()' if u.call is not None else ''}"
    if old_cls is not None and not hasattr(old_cls, u.member):
        b.problems.append(("REMOVED_API", "info", u.member, f"{what}: a `{name}` has no attribute `{u.member}` ({u.via}: a `{name}` "
                           f"at {version}; a `{old_name}` at the old version: already broken, not a change of this upgrade)"))
        return b
    was = f"a `{t_old.path}` at the old version" if t_old is not None else "the old version's annotations do not say what it was"
    b.problems.append(("REMOVED_API", "error", u.member, f"{what}: a `{name}` has no attribute `{u.member}` ({u.via}: a `{name}` "
                       f"at {version}; {was})"))
    return b


def _bind_on(b: Bound, t_new: Api, t_old: Api | None, old, new, version, how: str) -> Bound:
    """Method ``b.use.member`` of class ``t_new`` (``t_old`` at the old version) called as ``b.use.call``."""
    u = b.use
    m_new, m_old = _member(new, t_new, u.member), _member(old, t_old, u.member)
    b.new, b.old = (m_new.path if m_new else None), (m_old.path if m_old else None)
    what = f"{t_new.path}.{u.member}"
    if m_new is None:
        foreign = _foreign(new, t_new, u.member)
        if m_old is not None and foreign:  # inherited from a base not followed (the standard library, say): unknown
            b.problems.append(("UNRESOLVED", "info", "", f"`{what}` is not in the loaded source at {version} ({how}); "
                               f"`{t_new.path}` inherits from {foreign}, not followed: its members are unknown"))
        elif m_old is not None:
            dynamic = next((d for d in ("__getattr__", "__getattribute__") if _member(new, t_new, d) is not None), None)
            remap = _remapped(new, t_new, u.member, version) if dynamic else None
            sev = "warning" if dynamic and (remap is None or remap[0]) else "error"
            b.problems.append(("REMOVED_API", sev, u.member, f"`{what}`{_was(old, m_old)} was removed at {version} ({how})"
                               + (f"; {remap[1]}" if remap else f"; `{t_new.path}` defines `{dynamic}`, which may still serve it"
                                  if dynamic else "")))
        elif not foreign and _subclass_read(b, t_new, t_old, None, old, new, version, how):
            pass  # set by subclasses of the receiver's class: judged by them
        else:  # set at run time, or not upstream's (a standard-library base's: known): not known statically
            b.new = _stdlib_member(new, t_new, u.member) if foreign else None
            b.unknown = "" if b.new else NOT_FOLLOWED if foreign else NOT_FOUND
        return b
    if m_old is None and t_old is not None:
        _subclass_read(b, t_new, t_old, m_new, old, new, version, how)
    b.problems += _deprecated_call(u, old, new, m_old, m_new, version, f" ({how})")
    b.problems += _scoped(u, new, m_new, version, f" ({how})")
    if m_new.signature is None or m_new.kind not in ("function", "class") or u.call is None:
        return b
    b.signature = True
    call = _unbound(u.call, m_new) if u.through_class else u.call  # ``type(x).m(x, ...)``: ``x`` is ``self``
    for code, sev, param, msg in bind_call(call, what, m_old.signature if m_old else None, m_new.signature, version):
        if (m_old is None and code not in ("REMOVED_PARAM", "NEW_REQUIRED_PARAM")) or (
                code == "RETURN_CHANGED" and not msg.startswith(_UNPACKS.format(what=what))):
            continue  # a return type changed: the receivers reached from the result are checked where used
        b.problems.append((code, sev, param, f"{msg} ({how})"))
    return b


def _subclass_index(model, cls: Api | None) -> dict | None:
    if model is None or cls is None or cls.kind != "class":
        return None
    try:
        return model.subclass_index(cls)
    except Unresolved:
        return None


def _names(paths, n: int = 3) -> str:
    """A few class names of ``paths`` (each name once), ``…`` when there are more."""
    names = list(dict.fromkeys(sorted(p.rsplit(".", 1)[-1] for p in paths)))
    return ", ".join(f"`{x}`" for x in names[:n]) + (", …" if len(names) > n else "")


def _remapped(new, t_new: Api, a: str, version: str) -> tuple[bool, str] | None:
    """Where the new ``B`` has a ``__getattr__`` / ``__getattribute__`` that only remaps names through a class-level
    table (``subclasses.remap_table``): (whether something may still serve ``a``: the base's table or a subclass
    setting it, or one that may serve any name; what to say). None: not such a remap (anything may be served)."""
    ix = _subclass_index(new, t_new)
    if ix is None or not ix["table"] or ix["base_dynamic"]:
        return None
    said = f"`{t_new.path.rsplit('.', 1)[-1]}` only remaps names through its `{ix['table']}` table"
    if a in ix["base_keys"]:
        return True, f"{said}, which maps `{a}`"
    has, dyn = providers(ix, a)
    if has or dyn:
        return True, f"{said}; at {version} set by {len(has)} subclass(es) ({_names(has)})" + (
            f", and {len(dyn)} may serve any name ({_names(dyn)})" if dyn else "")
    return False, f"{said}, and no subclass sets `{a}` at {version}"


def _subclass_read(b: Bound, t_new: Api, t_old: Api | None, m_new: Api | None, old, new, version, how: str) -> bool:
    """A read of attribute ``a`` on a receiver typed as upstream class ``B`` that the old version's ``B`` (and its
    MRO) does not define: judged by ``B``'s subclasses in its package, which set it (``subclasses.py``). With
    ``m_new`` None (nor does the new ``B``): the subclasses that still exist at the new version, set ``a`` at
    the old one and no longer do are a ``REMOVED_API``, an error when no subclass sets it at the new version
    (and nothing may serve it: a ``__getattr__``, a table that is not literal), else a warning. With ``m_new``
    a property or method of the new ``B``: a warning that its kind changed (the subclasses' values were
    plain attributes). True when the subclasses decided (a finding, or set at both versions alike)."""
    u = b.use
    a = u.member
    if u.call is not None or a.startswith("__") or t_old is None:
        return False
    ix_old = _subclass_index(old, t_old)
    if ix_old is None or a in ix_old["base_keys"]:
        return False
    had, _dyn_old = providers(ix_old, a)
    if not had:
        return False
    base = f"`{t_old.path.rsplit('.', 1)[-1]}`"
    if m_new is not None:
        kind = (_subclass_index(new, t_new) or {}).get("base_defs", {}).get(a)
        if kind is None:
            return False  # a plain attribute the base now declares (or a member of a base outside the source)
        what = f"a {kind}"
        where = _was(new, m_new).replace(" (defined at ", "").rstrip(")")
        b.problems.append(("METHOD_CHANGED", "warning", a, f"`{a}` (read on a `{t_new.path}`; {how}): at the old version "
                           f"set by {len(had)} subclass(es) of {base} (not by {base} itself), at {version} "
                           f"{what} of `{t_new.path}`{f' ({where})' if where else ''}: its kind changed, and what it "
                           "gives may have too"))
        return True
    ix_new = _subclass_index(new, t_new)
    if ix_new is None or a in ix_new["base_keys"]:
        return False
    has, dyn = providers(ix_new, a)
    now = set(ix_new["classes"])
    lost = sorted(c for c in had if c in now and c not in has and c not in dyn)
    if not lost:
        return True  # set by the same subclasses (or by those that remain): nothing changed for this read
    maybe = [x for x in (ix_new["base_dynamic"] and f"`{ix_new['base_dynamic']}`",
                         dyn and f"{len(dyn)} subclass(es) with a `__getattr__` or a table not written out ({_names(dyn)})")
             if x]
    # the concrete class is chosen at run time: a few of hundreds losing it (a composite configuration moving its
    # values into a sub-object) is no news for most readers; most of them losing it is
    still = [c for c in had if c in now]
    minor = 2 * len(lost) < len(still)
    sev = "error" if not has and not maybe else "info" if minor else "warning"
    msg = (f"`{a}` (read on a `{t_new.path}`; {how}) is not defined by {base}: at the old version set by {len(had)} "
           f"subclass(es) of {base}, at {version} by {len(has)}" + (f" ({_names(has)})" if has else "")
           + f"; gone from {len(lost)} that still exist ({_names(lost)})")
    if maybe:
        msg += f"; {' and '.join(maybe)} may still serve it"
    if sev == "info":
        msg += f" (fewer than half of the {len(still)} that set it and still exist: most still do)"
    b.problems.append(("REMOVED_API", sev, a, msg))
    return True


def _was(old, m_old: Api) -> str:
    """Where the old version defined a member (an instance attribute: where its ``__init__`` set it)."""
    try:
        where = old.defined_at(m_old.path) if old is not None else None
    except Unresolved:
        where = None
    return f" (defined at {where})" if where else ""


def coverage(bound: list[Bound]) -> dict:
    """What the audit saw of the code: uses found, checked, and unknown by reason (imports and
    a project's own methods left out)."""
    uses = [b for b in bound if b.use.kind != IMPORT and b.unknown != NOT_A_USE]
    unknown: dict[str, int] = {}
    for b in uses:
        if b.unknown:
            unknown[b.unknown] = unknown.get(b.unknown, 0) + 1
    return {"found": len(uses), "checked": len(uses) - sum(unknown.values()), "unknown": dict(sorted(unknown.items()))}


BEHAVIOUR = "behaviour changes (same signature, other semantics) are outside a static audit"


def coverage_text(cov: dict) -> str:
    """``12 uses found, 9 checked, 3 unknown (2 <reason>, 1 <reason>)``."""
    unknown = cov.get("unknown", {})
    n = sum(unknown.values())
    why = f" ({', '.join(f'{k} {r}' for r, k in unknown.items())})" if n else ""
    return f"{cov.get('found', 0)} uses found, {cov.get('checked', 0)} checked, {n} unknown{why}"
