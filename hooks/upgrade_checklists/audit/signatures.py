"""A call against a signature: which arguments a call passes that a signature no longer takes
(or takes otherwise), which it lacks, how a signature changed between two versions, and the
tuple arity of a return annotation. Pure functions of ``Call`` and ``Signature``: no model.

Each problem is ``(code, severity, parameter, message)``; ``severity`` is ``error`` (the code
breaks), ``warning`` or ``info`` (nothing breaks here).
"""

from __future__ import annotations

from upgrade_checklists.audit.annotations import short
from upgrade_checklists.audit.api import Signature
from upgrade_checklists.project.calls import Call

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


UNPACKS = "`{what}`: returns a tuple of "  # how an unpacking-arity problem's message starts (``_bind_on`` keeps those)


def unpack_arity(what: str, targets: int, old: str, new: str, version: str) -> Problem | None:
    """``a, b, c = what(...)`` (``targets`` names) against fixed-length tuple returns: an error where
    the old return had ``targets`` elements and the new one has another count; ``info`` where the
    new count differs and the old one did not match either (or is not known); None where the new
    count is not known or matches (the other return checks apply)."""
    k_new, k_old = tuple_arity(new), tuple_arity(old)
    if not targets or k_new is None or k_new == targets:
        return None
    now, was = _types(new, old)
    head = UNPACKS.format(what=what) + f"{k_new} (`{now}`) at {version}, and this call unpacks it into {targets} names"
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


def spell_param(name: str, kind: str) -> str:
    return {"variadic positional": f"*{name}", "variadic keyword": f"**{name}"}.get(kind, name)
