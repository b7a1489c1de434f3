"""The audit's third stage: bind every use (``uses.py``) against the upstream
symbols at the old and new versions (``api.py``).

``bind_uses`` gives one ``Bound`` per use: the canonical path it reached at each
version, whether a signature was bound, and its problems. Each problem is
``(code, severity, parameter, message)``; ``severity`` is ``error`` (the code
breaks), ``warning`` or ``info`` (nothing breaks here).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from upgrade_checklists.audit.annotations import short
from upgrade_checklists.audit.api import Api, Signature, Unresolved, UpstreamModel
from upgrade_checklists.project.calls import Call
from upgrade_checklists.project.uses import ATTRIBUTE, CALL, IMPORT, MEMBER, PATCH, RESULT, Use

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
    if old is not None and None not in (old.returns, new.returns) and old.returns != new.returns and call.used:
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
    if None not in (old.returns, new.returns) and old.returns != new.returns:  # an annotation added is no change
        out.append(("RETURN_CHANGED", "info", "return", f"`{what}`: returns `{short(new.returns)}` (was `{short(old.returns)}`); no call site uses the result"))
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
    patched = set()  # (class, method) the project assigns itself: its uses bind against the patch
    for u in uses:
        if u.kind == PATCH:
            cls = _lookup(new, u.target)
            patched.add((cls.path if cls is not None else u.target, u.member))
    binders = {
        IMPORT: lambda u: _bind_import(u, old, new, version),
        CALL: lambda u: _bind_call_use(u, old, new, version),
        RESULT: lambda u: _bind_result(u, old, new, version, covered),
        MEMBER: lambda u: _bind_member(u, old, new, version, patched),
        PATCH: lambda u: _bind_patch(u, old, new, version),
        ATTRIBUTE: lambda u: _bind_attribute(u, new, version),
    }
    for u in uses:
        try:
            out.append(binders[u.kind](u))
        except Unresolved:  # an alias into a package not loaded (torch, ...): not bound
            out.append(Bound(u, None, None))
    return out


def gone(name: str, api_old: Api, new: UpstreamModel, version: str) -> tuple[str, str]:
    """An API the old version had and the new one does not: (MOVED_API or REMOVED_API, message)."""
    last = api_old.path.rsplit(".", 1)[-1]
    elsewhere = new.by_name(last, kinds=(api_old.kind,))
    if elsewhere:
        return "MOVED_API", f"`{name}` is gone from `{api_old.path}` at {version}; found at `{elsewhere[0]}`"
    shown = f"`{name}`" if name == api_old.path else f"`{name}` (`{api_old.path}`)"
    return "REMOVED_API", f"{shown} was removed at {version}"


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
    was = old is not None and old.resolves(u.target)
    last = u.target.rsplit(".", 1)[-1]
    elsewhere = new.by_name(last, kinds=("class", "function", "module"))
    sev = "info" if u.fallback else "warning" if u.typing_only else "error"
    verb = "no longer resolves" if was else "does not resolve"
    if elsewhere:
        b.problems.append(("MOVED_API", sev, "", f"import `{u.target}` {verb} at {version}; `{last}` is at `{elsewhere[0]}`"))
        b.fix = moved_fix(new, u.target, elsewhere[0])
    elif was or old is None:
        b.problems.append(("REMOVED_API", sev, "", f"import `{u.target}` {verb} at {version}"))
    return b


def _bind_call_use(u: Use, old, new, version) -> Bound:
    a_new, a_old = _lookup(new, u.target), _lookup(old, u.target)
    b = Bound(u, a_old.path if a_old else None, a_new.path if a_new else None)
    if a_new is None:
        if a_old is not None:
            code, msg = gone(u.target, a_old, new, version)
            b.problems.append((code, "error", "", _via(u, msg)))
            if code == "MOVED_API":
                b.fix = moved_fix(new, a_old.path, new.by_name(a_old.path.rsplit(".", 1)[-1], kinds=(a_old.kind,))[0])
        return b
    if u.call is not None and not u.via:
        warned = new.deprecation(a_new, u.target)
        if warned is not None:
            b.problems.append(("DEPRECATED", "warning", "", f"`{a_new.path}` is deprecated at {version}: \"{warned}\""))
    if a_new.signature is None or u.call is None:
        return b
    b.signature = True
    for code, sev, param, msg in bind_call(u.call, a_new.path, a_old.signature if a_old else None, a_new.signature, version):
        b.problems.append((code, sev, param, _via(u, msg)))
    return b


def _bind_result(u: Use, old, new, version, covered) -> Bound:
    """A method called on the object an API call returned."""
    a_new, a_old = _lookup(new, u.target), _lookup(old, u.target)
    b = Bound(u, None, None)
    cls_new = new.returned_class(a_new) if a_new is not None else None
    if cls_new is None:
        return b
    cls_old = old.returned_class(a_old) if (old is not None and a_old is not None) else None
    m_new, m_old = _member(new, cls_new, u.member), _member(old, cls_old, u.member)
    b.new, b.old = (m_new.path if m_new else None), (m_old.path if m_old else None)
    what = f"{cls_new.path}.{u.member}"
    if m_new is not None and m_new.path in covered:
        return b
    if m_new is None:
        if m_old is not None:
            b.problems.append(("METHOD_CHANGED", "error", "", f"`{what}` (called on the result of `{a_new.path}`) was removed at {version}"))
        return b
    if m_new.signature is None or m_new.kind != "function":
        return b
    b.signature = True
    for code, sev, _param, msg in bind_call(u.call, what, m_old.signature if m_old else None, m_new.signature, version):
        if m_old is None and code != "REMOVED_PARAM":
            continue
        b.problems.append(("METHOD_CHANGED", sev, _param, f"on the result of `{a_new.path}`: {code}: {msg}"))
    return b


def _bind_member(u: Use, old, new, version, patched: set[tuple[str, str]]) -> Bound:
    """``self.x`` / ``self.m(...)`` / ``super().m(...)`` of an upstream class, through a project
    subclass, an instance of one, or a function patched onto the class."""
    cls_new, cls_old = _lookup(new, u.target), _lookup(old, u.target)
    b = Bound(u, None, None)
    if cls_new is None or cls_new.kind != "class":
        return b
    if u.member == "__init__":  # super().__init__(...): the class's constructor
        m_new, m_old = cls_new, (cls_old if cls_old is not None and cls_old.kind == "class" else None)
    else:
        m_new, m_old = _member(new, cls_new, u.member), _member(old, cls_old, u.member)
    b.new, b.old = (m_new.path if m_new else None), (m_old.path if m_old else None)
    callee = u.call.callee_text() if u.call is not None else None
    used = f"`self.{u.member}`" if u.call is None else f"`{callee}(...)`" if callee is not None else f"`{u.member}(...)`"
    if m_new is None:
        if m_old is not None and (cls_new.path, u.member) not in patched:  # else the project adds it itself
            code = "PATCH_MISMATCH" if u.patch else "REMOVED_API"
            b.problems.append((code, "error", u.member,
                               f"`{cls_new.path}` has no `{u.member}` at {version} (it had at the old version), and {u.via} uses {used}"))
        return b
    if u.call is None or m_new.signature is None or m_new.kind not in ("function", "class"):
        return b
    b.signature = True
    what = f"{cls_new.path}.{u.member}" if u.member != "__init__" else cls_new.path
    for code, sev, param, msg in bind_call(u.call, what, m_old.signature if m_old else None, m_new.signature, version):
        if m_old is None and code not in ("REMOVED_PARAM", "NEW_REQUIRED_PARAM"):
            continue
        if code == "RETURN_CHANGED":
            continue  # a method's return through self: only bound where the result type is known
        b.problems.append((code, sev, param, f"{msg} ({u.via})"))
    return b


def _bind_attribute(u: Use, new, version) -> Bound:
    """``pkg.name`` read: deprecated when a module ``__getattr__`` serves it with a warning."""
    b = Bound(u, None, None)
    if not new.exists(u.target):
        return b
    how = new.served.get(u.target)
    if how is not None and how.warning:
        b.problems.append(("DEPRECATED", "warning", "", f"`{u.target}` is served by a {how.via} that warns at {version}: \"{how.warning}\""))
    return b


def _bind_patch(u: Use, old, new, version) -> Bound:
    """A function assigned in place of an upstream method: parameter names, order and kinds must match."""
    cls_new = _lookup(new, u.target)
    b = Bound(u, None, None)
    m_new = _member(new, cls_new, u.member)
    if m_new is None or m_new.kind != "function" or u.guarded:
        return b  # a method upstream lacks (the patch adds it), or applied only where it lacks it
    b.new = m_new.path
    theirs = list(m_new.parameters or ())
    mine = list(u.params)
    if theirs != mine:
        def show(ps):
            return ", ".join(_spell(n, k) for n, k in ps)
        m_old = _member(old, _lookup(old, u.target), u.member)
        same = m_old is not None and m_old.kind == "function" and list(m_old.parameters or ()) == theirs
        b.problems.append(("PATCH_MISMATCH", "warning" if same else "error", u.member,
                           f"`{m_new.path}({show(theirs)})` at {version} differs from the patch "
                           f"`{u.via.split('`')[1]}({show(mine)})` ({_at(u)}) assigned in its place: {_difference(theirs, mine)}"
                           + (" (so did the old version's: not a change of this upgrade)" if same else "")))
    return b


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
