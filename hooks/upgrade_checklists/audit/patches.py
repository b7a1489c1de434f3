"""Project functions installed over upstream ones: a patch (``Cls.m = f``, ``obj.m = f``,
``mod.f = g``) against the new signature and upstream's own calls of it (``PATCH``), what a patch
returns against what upstream's callers do with it (``RETURNED``), and a wrapper's use of the
wrapped method's result against the new return type (``WRAPPED``).
"""

from __future__ import annotations

import functools

from upgrade_checklists.audit.annotations import normalize, short, split_union
from upgrade_checklists.audit.api import Api, Param, Signature, Unresolved
from upgrade_checklists.audit.assignable import assignable
from upgrade_checklists.audit.bound import (NO_RECEIVER_CLASS, NO_SIGNATURE, NOT_A_USE, NOT_FOUND, Bound, has_member, lookup_api,
                                            member_api, receiver_class_of)
from upgrade_checklists.audit.guards import flag_value
from upgrade_checklists.audit.overrides import call_fails, call_shape, upstream_module_calls, upstream_self_calls
from upgrade_checklists.audit.signatures import Problem, spell_param, tuple_arity
from upgrade_checklists.audit.stdlib import stdlib_has
from upgrade_checklists.project.use import Use


def bind_patch(u: Use, old, new, version) -> Bound:
    """A function assigned in place of an upstream method: parameter names, order and kinds must
    match, as far as a caller can tell. Upstream's own ``self.m(...)`` calls of the method (found
    in the new version) are bound against the patch and decide: a difference none of them meets
    (a different order where every call passes those parameters by keyword) is no break. With no
    such call known, a difference the old version had already, parameter for parameter, stays a
    warning unless the new release changed the parameters involved."""
    if u.helper and not u.steps:
        owner = lookup_api(new, u.target)
        if owner is not None and owner.kind == "module":
            return _bind_function_patch(u, old, new, version)
    cls_new = _patched_class(new, u)
    b = Bound(u, None, None)
    if u.on_instance and cls_new is None:
        b.unknown = NO_RECEIVER_CLASS
        return b
    m_new = member_api(new, cls_new, u.member)
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
    m_old = member_api(old, cls_old, u.member)
    before = list(m_old.parameters or ()) if m_old is not None and m_old.kind == "function" else None
    shown = (f"`{m_new.path}({', '.join(spell_param(n, k) for n, k in theirs)})` at {version} differs from the patch "
             f"`{u.via.split('`')[1]}({', '.join(spell_param(n, k) for n, k in mine)})` ({_at(u)}) assigned in its place: "
             f"{_difference(theirs, mine)}")
    patch = _patch_signature(u)
    calls = upstream_self_calls(new, cls_new, u.member)
    if calls and m_new.signature is not None:
        _calls_decide(b, u, shown, version, f"self.{u.member}", calls, upstream_self_calls(old, cls_old, u.member), patch,
                      m_new.signature, m_old.signature if m_old is not None else None)
        return b
    _differences_decide(b, u, shown, theirs, mine, before, m_new, m_old)
    return b


def _calls_decide(b: Bound, u: Use, shown: str, version: str, callee: str, calls: list[dict], old_calls: list[dict],
                  patch: Signature, new_sig: Signature, old_sig: Signature | None) -> None:
    """Upstream's own calls of the patched name (``callee`` as they spell it), bound against the patch: an error
    per failing call shape (a warning where the old version's call failed the same way); one ``info`` when every
    call binds (a difference met only by keyword is no break)."""
    old_fails = {(c["caller"], call_shape(c)) for c in old_calls if old_sig is not None and patch_call_fails(c, old_sig, patch)}
    failing: dict[tuple, list[dict]] = {}
    for c in calls:
        why = patch_call_fails(c, new_sig, patch)
        if why:
            failing.setdefault((call_shape(c), tuple(why), (c["caller"], call_shape(c)) in old_fails), []).append(c)
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
    f_new = lookup_api(new, f"{u.target}.{u.member}")
    if f_new is None or f_new.kind != "function" or f_new.parameters is None:
        return b  # gone (the helper's lookup says so), or not a function: nothing to compare
    b.new = f_new.path
    theirs, mine = list(f_new.parameters), list(u.params)
    if theirs == mine or not differences(theirs, mine, _required(u), _optional(f_new)):
        return b
    f_old = lookup_api(old, f"{u.target}.{u.member}")
    before = list(f_old.parameters) if f_old is not None and f_old.kind == "function" and f_old.parameters is not None else None
    shown = (f"`{f_new.path}({', '.join(spell_param(n, k) for n, k in theirs)})` at {version} differs from the patch "
             f"`{u.via.split('`')[1]}({', '.join(spell_param(n, k) for n, k in mine)})` ({_at(u)}) that `{u.helper}` puts "
             f"in place of `{u.target}.{u.member}`: {_difference(theirs, mine)}")
    patch = _patch_signature(u, instance=False)
    calls = upstream_module_calls(new, u.target, u.member)
    if calls and f_new.signature is not None:
        _calls_decide(b, u, shown, version, u.member, calls, upstream_module_calls(old, u.target, u.member), patch,
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
                out.add((spell_param(n, k), "upstream only"))
        elif n not in mk and not ("variadic keyword" in m_kinds and k != "positional-only"):
            out.add((n, "upstream only"))
    if len(tpos) > len(mpos) and "variadic positional" not in m_kinds:
        out.add(("", "fewer positional"))
    return out


def _patched_class(model, u: Use) -> Api | None:
    """The upstream class a patch replaces a method of: ``target``, or for a patch installed on an
    instance, the class of that receiver (``steps`` from ``target``)."""
    if u.steps:
        cls = receiver_class_of(model, u.target, u.steps)
    else:
        cls = lookup_api(model, u.target)
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


def bind_returned(u: Use, old, new, version) -> Bound:
    """A patch's ``return`` statements against upstream's own ``self.m(...)`` calls that unpack the
    method's result (new version): an error where every return gives a tuple of ``k`` elements,
    a call unpacks ``n != k`` names, and at the old version upstream unpacked ``k`` (or the old
    return annotation had ``k`` elements). A return under ``if`` tests on the project's version flags
    (``u.return_flags``) that make it dead at the new version is left out. Returns of different
    lengths (or not all tuple displays) after that: which one runs is not known statically:
    ``info``. No unpacking call: nothing to check."""
    b = Bound(u, None, None)
    cls_new, cls_old = _patched_class(new, u), _patched_class(old, u)
    m_new = member_api(new, cls_new, u.member)
    if cls_new is None or m_new is None or m_new.kind != "function":
        b.unknown = NOT_A_USE if cls_new is not None else NO_RECEIVER_CLASS
        return b
    m_old = member_api(old, cls_old, u.member)
    b.new, b.old = m_new.path, (m_old.path if m_old else None)
    calls = [c for c in upstream_self_calls(new, cls_new, u.member) if c.get("unpacked")]
    if not calls:
        b.unknown = NOT_A_USE
        return b
    b.signature = True
    before = {c["unpacked"] for c in upstream_self_calls(old, cls_old, u.member) if c.get("unpacked")}
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
    return [m for m in split_union(text) if m != "None"]


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
    if any(member_api(model, cls, w) is not None for w in wanted):
        return True
    if how == "attribute" and any(member_api(model, cls, d) is not None for d in ("__getattr__", "__getattribute__")):
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


def bind_wrapped(u: Use, old, new, version) -> Bound:
    """A call of the original method inside a wrapper patched over it: what the wrapper does with
    the result (``u.results``) is checked against the new return annotation when it changed. An
    error only where the new type certainly does not support the use (a class in the loaded source
    without ``__getitem__`` indexed, without the attribute read); what cannot be told is ``info``."""
    cls_new, cls_old = lookup_api(new, u.target), lookup_api(old, u.target)
    b = Bound(u, None, None)
    m_new = member_api(new, cls_new, u.member)
    m_old = member_api(old, cls_old, u.member)
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
