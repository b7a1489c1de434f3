"""Bind one call site against an API's old and new signatures.

Each problem is ``(code, severity, parameter, message)``; ``severity`` is
``error`` (the call breaks), ``warning`` or ``info`` (nothing breaks here).
"""

from __future__ import annotations

from upgrade_checklists.annotations import short
from upgrade_checklists.api import Signature
from upgrade_checklists.calls import Call

Problem = tuple[str, str, str, str]


def _renamed(name: str, old: Signature, new: Signature) -> str | None:
    """``name`` was removed and another parameter was added at its position."""
    idx = next((i for i, p in enumerate(old.params) if p.name == name), None)
    if idx is None or idx >= len(new.params):
        return None
    cand = new.params[idx]
    if cand.name in old.named() or cand.kind != old.params[idx].kind:
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
    npos = new.positional()
    opos = old.positional() if old else None
    for i in range(call.positional):
        if i >= len(npos):
            was = opos[i].name if opos is not None and i < len(opos) else None
            if was is not None and was in newn:
                out.append(("POSITION_CHANGED", "error", was, f"`{what}`: `{was}` is now keyword-only, and this call passes it by position"))
            elif not new.var_args:
                out.append(("REMOVED_PARAM", "error", f"#{i + 1}", f"`{what}`: positional argument {i + 1} has no parameter at {version} ({len(npos)} positional parameters)"))
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
    if not (call.star_args or call.star_kwargs):
        passed = {p.name for p in npos[: call.positional]} | set(call.keywords)
        for p in new.params:
            if p.required and p.name not in passed and p.name not in renamed_to:
                if oldn is None or p.name not in oldn or not oldn[p.name].required:
                    out.append(("NEW_REQUIRED_PARAM", "error", p.name, f"`{what}`: `{p.name}` is required at {version} and this call does not pass it"))
    if old is not None and old.returns != new.returns and call.used:
        out.append(("RETURN_CHANGED", "error", "return", f"`{what}`: returns `{short(new.returns)}` (was `{short(old.returns)}`), and this call uses the result"))
    return out


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
    if old.returns != new.returns:
        out.append(("RETURN_CHANGED", "info", "return", f"`{what}`: returns `{short(new.returns)}` (was `{short(old.returns)}`); no call site uses the result"))
    return out


def _renamed_from(name: str, old: Signature, new: Signature) -> bool:
    return any(_renamed(o, old, new) == name for o in old.named() if o not in new.named())
