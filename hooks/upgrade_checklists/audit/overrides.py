"""Project methods that override upstream ones (``OVERRIDE``), and constructors a project class
skips (``INIT_SKIPPED``): the override against the new base signature, and against upstream's own
calls of the method in the new version (``self.m(...)``, ``cls.m(...)``, module-level calls);
what the skipped ``__init__`` sets that upstream's methods read.
"""

from __future__ import annotations

import functools

from upgrade_checklists.audit.api import Api, Param, Signature, Unresolved
from upgrade_checklists.audit.bound import (INIT_UNKNOWN, NO_SIGNATURE, NOT_A_USE, NOT_FOUND, Bound, deprecated_problem, lookup_api,
                                            member_api)
from upgrade_checklists.audit.signatures import Problem, spell_param
from upgrade_checklists.project.use import Use

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
    return ", ".join(spell_param(p.name, p.kind) for p in params)


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
            out.append((spell_param(theirs.name, kind), False, False, f"the base takes `{spell_param(theirs.name, kind)}`; the override does not"))
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


def call_shape(call: dict) -> str:
    args = ["…"] * call["positional"] + [f"{k}=…" for k in call["keywords"]]
    args += ["*…"] if call["star_args"] else []
    args += ["**…"] if call["star_kwargs"] else []
    return ", ".join(args)


def upstream_module_calls(model, module: str, name: str) -> list[dict]:
    """Upstream's own calls of the global ``name`` in ``module``'s file (``api.module_calls``)."""
    mod = lookup_api(model, module)
    if mod is None or mod.kind != "module":
        return []
    try:
        return model.module_calls(mod, name)
    except Unresolved:
        return []


def upstream_self_calls(model, cls: Api | None, name: str) -> list[dict]:
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


def bind_override(u: Use, old, new, version) -> Bound:
    """A method a project subclass defines over an upstream base's method: it must take what the
    base takes at the new version, and every call upstream makes of it on ``self``."""
    cls_new, cls_old = lookup_api(new, u.target), lookup_api(old, u.target)
    b = Bound(u, None, None)
    if cls_new is None or cls_new.kind != "class":
        b.unknown = NOT_FOUND
        return b
    m_new = member_api(new, cls_new, u.member)
    m_old = member_api(old, cls_old, u.member) if cls_old is not None and cls_old.kind == "class" else None
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
    calls_new = upstream_self_calls(new, cls_new, u.member)
    old_fails = set()
    if m_old is not None:
        for c in upstream_self_calls(old, cls_old, u.member):
            if _override_fails(c, mine, u.binding):
                old_fails.add((c["caller"], call_shape(c), bool(c.get("through_class"))))
    named: set[str] = set()
    failing: dict[tuple, list[dict]] = {}  # (shape, on the class, why, pre-existing) -> the upstream calls: one problem each
    for c in calls_new:
        why = _override_fails(c, mine, u.binding)
        if not why:
            continue
        on_class = bool(c.get("through_class"))
        before = (c["caller"], call_shape(c), on_class) in old_fails
        named |= set(c["keywords"]) | {p.name for p in m_new.signature.positional()[: c["positional"]]}  # said here
        failing.setdefault((call_shape(c), on_class, tuple(why), before), []).append(c)
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
    return [deprecated_problem(old, m_old, m_new, warned, version, f" ({shown} overrides it: upstream is on its way to no "
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


def bind_init_skipped(u: Use, old, new, version) -> Bound:
    """A project subclass's ``__init__`` runs no base constructor: the attributes the upstream constructor
    sets at the new version that the project does not set itself are missing on its instances. An upstream
    method the project calls on such an instance that reads one of them on every call fails: an error when
    that read is new (the old version's method read it only under a condition, or not at all); a new read
    under a condition is a warning, and so is a read by a method the project is not seen calling of an
    attribute no method read at the old version; a read the old version made the same way is not this
    upgrade's news (the project would have failed then already). With no old version (a pinned
    version audited alone): a warning where a method the project calls reads one on every call, nothing else."""
    cls_new, cls_old = lookup_api(new, u.target), lookup_api(old, u.target)
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
