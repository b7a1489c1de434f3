"""The audit's third stage: bind every use (``uses.py``) against the upstream
symbols at the old and new versions (``api.py``).

``bind_uses`` gives one ``Bound`` per use: the canonical path it reached at each
version, whether a signature was bound, and its problems. Each problem is
``(code, severity, parameter, message)``; ``severity`` is ``error`` (the code
breaks), ``warning`` or ``info`` (nothing breaks here).

Here: imports, calls, results, members, attributes, typed receivers, hook implementations.
Overrides and skipped constructors are bound in ``overrides.py``, patches and wrappers in
``patches.py``; ``signatures.py`` binds a call to a signature, ``bound.py`` holds the look-ups
they share, and ``grouping.py`` says each break once.
"""

from __future__ import annotations

from dataclasses import replace

from upgrade_checklists.audit.api import BUILTIN, Api, Unresolved, UpstreamModel
from upgrade_checklists.audit.bound import (CALLERS_DISAGREE, CALLERS_ESCAPE, NO_ATTRIBUTE_CLASS, NO_RECEIVER_CLASS,
                                            NO_RESULT_CLASS, NO_SIGNATURE, NOT_A_USE, NOT_FOLLOWED, NOT_FOUND, NOT_RESOLVABLE,
                                            RECEIVER_REBOUND, Bound, deprecated_problem, foreign_bases_of, hook_spec_of,
                                            lookup_api, member_api, missing, moved_fix, moved_to, path_status, receiver_class_of,
                                            stdlib_member)
from upgrade_checklists.audit.decorated import POSITIONAL
from upgrade_checklists.audit.deprecation import split_where
from upgrade_checklists.audit.grouping import dead_branches, once_a_line, union_arms
from upgrade_checklists.audit.overrides import bind_init_skipped, bind_override
from upgrade_checklists.audit.patches import bind_patch, bind_returned, bind_wrapped
from upgrade_checklists.audit.signatures import UNPACKS, Problem, bind_call, spell_param
from upgrade_checklists.audit.subclasses import providers
from upgrade_checklists.audit.vendored import SPELLED
from upgrade_checklists.project.calls import Call
from upgrade_checklists.project.receivers import CALLERS, REBOUND, hook_prefix
from upgrade_checklists.project.use import (ANNOTATED, ATTRIBUTE, CALL, HOOK, IMPORT, INIT_SKIPPED, MEMBER, OVERRIDE, PATCH,
                                            RESULT, RETURNED, TYPED, WRAPPED, Use)


def bind_uses(uses: list[Use], old: UpstreamModel | None, new: UpstreamModel, version: str,
              covered: frozenset[str] = frozenset()) -> list[Bound]:
    """Bind each use; ``covered``: canonical paths whose methods-on-results are bound by their own use."""
    out = []
    # a bare name a project ``from pkg.mod import *`` may bind is a use only where the old version's
    # ``pkg.mod`` has it (at a pin with no old version: the new one's)
    star_found: dict[str, bool] = {}
    for u in uses:
        if u.star and u.star not in star_found:
            star_found[u.star] = path_status(old if old is not None else new, u.star) == "found"
    uses = [u for u in uses if not u.star or star_found[u.star]]
    uses = hook_uses(uses, old, new)
    patched = set()  # (class, method) the project assigns itself: its uses bind against the patch
    for u in uses:
        # a patch of one instance: the class's other uses meet upstream's; a test helper's is undone after
        if u.kind == PATCH and not u.on_instance and not u.helper:
            cls = lookup_api(new, u.target)
            patched.add((cls.path if cls is not None else u.target, u.member))
    binders = {
        IMPORT: lambda u: _bind_import(u, old, new, version),
        CALL: lambda u: _bind_call_use(u, old, new, version),
        RESULT: lambda u: _bind_result(u, old, new, version, covered),
        MEMBER: lambda u: _bind_member(u, old, new, version, patched),
        PATCH: lambda u: bind_patch(u, old, new, version),
        ATTRIBUTE: lambda u: _bind_attribute(u, old, new, version),
        OVERRIDE: lambda u: bind_override(u, old, new, version),
        TYPED: lambda u: _bind_typed(u, old, new, version),
        ANNOTATED: lambda u: _guarded_read(_bind_annotated(u, old, new, version)),
        WRAPPED: lambda u: bind_wrapped(u, old, new, version),
        HOOK: lambda u: _bind_hook(u, old, new, version),
        RETURNED: lambda u: bind_returned(u, old, new, version),
        INIT_SKIPPED: lambda u: bind_init_skipped(u, old, new, version),
    }
    for u in uses:
        try:
            out.append(binders[u.kind](u))
        except Unresolved:  # an alias into a package not loaded (torch, ...): not bound
            out.append(Bound(u, None, None, unknown=NOT_RESOLVABLE))
    once_a_line(out)
    union_arms(out)
    dead_branches(out, new, version)
    return out


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
            specs[name] = hook_spec_of(new, name) is not None or hook_spec_of(old, name) is not None
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


def _via(u: Use, msg: str) -> str:
    return f"{msg} ({u.via})" if u.via and u.kind == CALL else msg


def _bind_import(u: Use, old, new, version) -> Bound:
    a_new, a_old = lookup_api(new, u.target), lookup_api(old, u.target)
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
    binding_only = old is None and code == "UNRESOLVED" and not path_status(new, u.target).startswith("unknown:")
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
        if any(lookup_api(new, p) is not None or new.resolves(p) for p in u.tried):
            return "info", ""
        if u.tried:
            first = ", ".join(f"`{p}`" for p in u.tried)
            return "error", (f" (in the `except ImportError` block, which runs: the `try` block's import of {first} "
                             f"fails at {version} too)")
        return "warning", " (in the `except ImportError` block: it runs where the `try` block's import fails)"
    return ("info" if u.fallback else "warning" if u.typing_only else "error"), ""


def _bind_call_use(u: Use, old, new, version) -> Bound:
    a_new, a_old = lookup_api(new, u.target), lookup_api(old, u.target)
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
                b.problems.append(deprecated_problem(old, a_old, a_new, warned, version))
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
    a_new, a_old = lookup_api(new, u.target), lookup_api(old, u.target)
    b = Bound(u, None, None)
    cls_new = new.returned_class(a_new) if a_new is not None else None
    if cls_new is None:
        b.unknown = NO_RESULT_CLASS
        return b
    cls_old = old.returned_class(a_old) if (old is not None and a_old is not None) else None
    m_new, m_old = member_api(new, cls_new, u.member), member_api(old, cls_old, u.member)
    b.new, b.old = (m_new.path if m_new else None), (m_old.path if m_old else None)
    what = f"{cls_new.path}.{u.member}"
    if m_new is not None and m_new.path in covered:
        return b
    if m_new is None:
        if m_old is not None:
            foreign = foreign_bases_of(new, cls_new, u.member)
            if foreign:
                b.problems.append(("UNRESOLVED", "info", "", f"`{what}` (called on the result of `{a_new.path}`) is not in the loaded "
                                   f"source at {version}; `{cls_new.path}` inherits from {foreign}, not followed: its members are unknown"))
            else:
                owner = m_old.path.rsplit(".", 1)[0]
                was = f" (at the old version inherited from `{owner}`)" if cls_old is not None and owner != cls_old.path else ""
                b.problems.append(("METHOD_CHANGED", "error", "", f"`{what}` (called on the result of `{a_new.path}`) was removed at {version}{was}"))
        elif foreign_bases_of(new, cls_new):
            b.new = stdlib_member(new, cls_new, u.member)
            b.unknown = "" if b.new else NOT_FOLLOWED if foreign_bases_of(new, cls_new, u.member) else NOT_FOUND
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
    return [deprecated_problem(old, m_old, m_new, warned, version, how)]


def _bind_member(u: Use, old, new, version, patched: set[tuple[str, str]]) -> Bound:
    """``self.x`` / ``self.m(...)`` / ``super().m(...)`` of an upstream class, through a project
    subclass, an instance of one, or a function patched onto the class."""
    cls_new, cls_old = lookup_api(new, u.target), lookup_api(old, u.target)
    b = Bound(u, None, None)
    if cls_new is None or cls_new.kind != "class":
        b.unknown = NOT_FOUND
        return b
    if u.member == "__init__":  # super().__init__(...): the class's constructor
        m_new, m_old = cls_new, (cls_old if cls_old is not None and cls_old.kind == "class" else None)
    else:
        m_new, m_old = member_api(new, cls_new, u.member), member_api(old, cls_old, u.member)
    b.new, b.old = (m_new.path if m_new else None), (m_old.path if m_old else None)
    callee = u.call.callee_text() if u.call is not None else None
    used = f"`self.{u.member}`" if u.call is None else f"`{callee}(...)`" if callee is not None else f"`{u.member}(...)`"
    if m_new is None:
        foreign = foreign_bases_of(new, cls_new, u.member) if m_old is not None else ""
        if foreign and (cls_new.path, u.member) not in patched:
            b.problems.append(("UNRESOLVED", "info", u.member, f"`{cls_new.path}` has no `{u.member}` in the loaded source at {version}; "
                               f"it inherits from {foreign}, not followed: its members are unknown ({u.via})"))
        elif m_old is not None and (cls_new.path, u.member) not in patched:  # else the project adds it itself
            code = "PATCH_MISMATCH" if u.patch else "REMOVED_API"
            b.problems.append((code, "error", u.member,
                               f"`{cls_new.path}` has no `{u.member}` at {version} (it had at the old version), and {u.via} uses {used}"))
        elif m_old is None:  # set at run time, or by a project class, or by a base not followed: not known statically
            b.new = stdlib_member(new, cls_new, u.member)
            b.unknown = "" if b.new else NOT_FOLLOWED if foreign_bases_of(new, cls_new, u.member) else NOT_FOUND
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
    if path_status(new, u.target) == "found":
        how = new.served.get(u.target)
        if how is not None and how.warning:
            b.problems.append(("DEPRECATED", "warning", "", f"`{u.target}` is served by a {how.via} that warns at {version}: \"{how.warning}\""))
        return b
    a_old = lookup_api(old, u.target)
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
    cls_new, cls_old = lookup_api(new, u.target), lookup_api(old, u.target)
    b = Bound(u, None, None)
    t_new = _attribute_class(new, cls_new, u.attr)
    if t_new is None:
        b.unknown = NO_ATTRIBUTE_CLASS
        return b
    t_old = _attribute_class(old, cls_old, u.attr)
    return _bind_on(b, t_new, t_old, old, new, version, f"`{u.attr}` is a `{t_new.path}` in `{cls_new.path}`; {u.via}")


def _declares(model, cls: str, name: str) -> bool | None:
    """Upstream class ``cls`` has a member ``name`` (its own or inherited) in ``model``; None when the
    class is not known there."""
    api = lookup_api(model, cls) if model is not None else None
    if api is None or api.kind != "class":
        return None
    return member_api(model, api, name) is not None


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
        t_new, t_old = lookup_api(new, u.target), lookup_api(old, u.target)
        if t_new is None or t_new.kind != "class":
            b.unknown = NOT_FOUND
            return b
        t_old = t_old if t_old is not None and t_old.kind == "class" else None
    else:
        t_new = receiver_class_of(new, u.target, u.steps)
        if t_new is None and u.attr and _declares(new, u.target, u.attr) is False and not _declares(old, u.target, u.attr):
            b.unknown = NOT_A_USE  # ``self.x…`` where no version of the upstream base has ``x``: the project's own
            return b
        if t_new is not None and t_new.kind == BUILTIN:
            return _bind_builtin(b, t_new, receiver_class_of(old, u.target, u.steps), version)
        if t_new is None or t_new.kind == BUILTIN:
            b.unknown = NO_RECEIVER_CLASS if t_new is None else NOT_A_USE  # ``d.items()`` on a dict upstream returned
            return b
        t_old = receiver_class_of(old, u.target, u.steps)
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


def _bind_hook_param(b: Bound, old, new, version) -> Bound:
    """A member used on a parameter of a hook implementation (``steps``: ``hook:NAME``, ``p:PARAM``, …):
    typed by the annotation of PARAM in upstream's spec of hook NAME at each version. No spec of that
    name at the new version: not a use (a function of the project's own; a hook gone is said at its ``def``)."""
    u = b.use
    (hook, _param), rest = hook_prefix(u.steps), u.steps[2:]
    spec_new, spec_old = hook_spec_of(new, hook[5:]), hook_spec_of(old, hook[5:])
    if spec_new is None:
        b.unknown = NOT_A_USE
        return b
    if rest == (REBOUND,):
        b.unknown = RECEIVER_REBOUND
        return b
    t_new = receiver_class_of(new, u.target, u.steps)
    t_old = receiver_class_of(old, u.target, u.steps) if spec_old is not None else None
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
    spec_new, spec_old = hook_spec_of(new, u.member), hook_spec_of(old, u.member)
    b.new, b.old = spec_new, spec_old
    spelled = ", ".join(spell_param(n, k) for n, k in u.params)
    shown = f"`{u.via.split('`')[1] if '`' in u.via else u.member}({spelled})`"
    if spec_new is None:
        if spec_old is None or u.optional:
            b.unknown = NOT_A_USE
            return b
        b.problems.append(("HOOK_MISMATCH", "warning", u.member, f"{shown} implements hook `{spec_old}`, whose spec is gone at "
                           f"{version}: upstream no longer calls it (a plugin manager that checks pending hooks refuses an "
                           "unknown hook; `optionalhook=True` says it may be absent)"))
        return b
    api_new = lookup_api(new, spec_new)
    theirs = _spec_argnames(api_new)
    if theirs is None:
        b.unknown = NO_SIGNATURE
        return b
    b.signature = True
    before = _spec_argnames(lookup_api(old, spec_old)) if spec_old is not None else None
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
    m_new, m_old = member_api(new, t_new, u.member), member_api(old, t_old, u.member)
    b.new, b.old = (m_new.path if m_new else None), (m_old.path if m_old else None)
    what = f"{t_new.path}.{u.member}"
    if m_new is None:
        foreign = foreign_bases_of(new, t_new, u.member)
        if m_old is not None and foreign:  # inherited from a base not followed (the standard library, say): unknown
            b.problems.append(("UNRESOLVED", "info", "", f"`{what}` is not in the loaded source at {version} ({how}); "
                               f"`{t_new.path}` inherits from {foreign}, not followed: its members are unknown"))
        elif m_old is not None:
            dynamic = next((d for d in ("__getattr__", "__getattribute__") if member_api(new, t_new, d) is not None), None)
            remap = _remapped(new, t_new, u.member, version) if dynamic else None
            sev = "warning" if dynamic and (remap is None or remap[0]) else "error"
            b.problems.append(("REMOVED_API", sev, u.member, f"`{what}`{_was(old, m_old)} was removed at {version} ({how})"
                               + (f"; {remap[1]}" if remap else f"; `{t_new.path}` defines `{dynamic}`, which may still serve it"
                                  if dynamic else "")))
        elif not foreign and _subclass_read(b, t_new, t_old, None, old, new, version, how):
            pass  # set by subclasses of the receiver's class: judged by them
        else:  # set at run time, or not upstream's (a standard-library base's: known): not known statically
            b.new = stdlib_member(new, t_new, u.member) if foreign else None
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
                code == "RETURN_CHANGED" and not msg.startswith(UNPACKS.format(what=what))):
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
