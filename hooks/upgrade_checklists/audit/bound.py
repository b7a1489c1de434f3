"""A use bound against the upstream model (``Bound``), the reasons a use stays unchecked, and
the model look-ups every binder shares: an API by its dotted path, a member of a class as Python
resolves it (bases, a base followed into another distribution, the standard library), and what
became of a path that no longer resolves (moved, removed, refused by a module ``__getattr__``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from upgrade_checklists.audit.api import Api, Unresolved, UpstreamModel
from upgrade_checklists.audit.deprecation import split_when
from upgrade_checklists.audit.signatures import Problem
from upgrade_checklists.audit.stdlib import stdlib_has
from upgrade_checklists.project.receivers import hook_prefix
from upgrade_checklists.project.use import Use

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


def lookup_api(model: UpstreamModel | None, dotted: str) -> Api | None:
    if model is None:
        return None
    try:
        return model.lookup(dotted)
    except Unresolved:
        return None


def member_api(model: UpstreamModel | None, cls: Api | None, name: str) -> Api | None:
    if model is None or cls is None or cls.kind != "class":
        return None
    try:
        return model.member(cls, name)
    except Unresolved:
        return None


def has_member(model: UpstreamModel | None, dotted: str) -> bool | None:
    """A feature flag's ``hasattr(X, "name")`` (``H('X.name')``) at ``model``'s version: whether ``X`` (a
    module or class there) has ``name``, as Python resolves it; None when ``X`` is neither or it is not known."""
    owner = lookup_api(model, dotted.rpartition(".")[0])
    if owner is None or owner.kind not in ("class", "module"):
        return None
    if owner.kind == "class":
        if member_api(model, owner, dotted.rpartition(".")[2]) is not None:  # its own, inherited, or from a base followed
            return True
        try:
            if model.foreign_bases(owner):  # a base in another distribution not followed: its members are not known
                return None
        except Unresolved:
            return None
    now = path_status(model, dotted)
    if now == "found":
        return True
    return False if now == "absent" or now.startswith(("removed:", "gone:")) else None


def foreign_bases_of(model, cls: Api, name: str | None = None) -> str:
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


def stdlib_member(model, cls: Api | None, name: str) -> str | None:
    """``Base.name`` where ``cls`` inherits ``name`` from a standard-library base (``unittest.TestCase``),
    as this interpreter's class says (``stdlib.py``): no upgrade of the package changes it. None: not known."""
    if cls is None or cls.kind != "class":
        return None
    try:
        bases = model.foreign_bases(cls)
    except Unresolved:
        return None
    return next((f"{b}.{name}" for b in bases if stdlib_has(b, name)), None)


def path_status(model, dotted: str) -> str:
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
    now = path_status(new, name)
    if now == "found":
        return None
    if now.startswith("unknown:"):
        return "UNRESOLVED", "info", f"{shown} cannot be resolved statically at {version}: {now.removeprefix('unknown:')}"
    if old is None:
        return "UNRESOLVED", "info", f"{shown} does not resolve at {version}"
    before = path_status(old, name)
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


def receiver_class_of(model, start: str, steps: tuple[str, ...]) -> Api | None:
    """The class ``steps`` reach from ``start`` at one version; steps that start at a hook
    implementation's parameter (``hook:NAME``, ``p:PARAM``) start at that version's spec of NAME."""
    if model is None:
        return None
    if hook_prefix(steps):
        (hook, param), steps = hook_prefix(steps), steps[2:]
        spec = hook_spec_of(model, hook[5:])
        if spec is None:
            return None
        start, steps = spec, (param, *steps)
    try:
        return model.receiver_class(start, steps)
    except Unresolved:
        return None


def hook_spec_of(model, name: str) -> str | None:
    if model is None:
        return None
    try:
        return model.hook_spec(name)
    except Unresolved:
        return None


def deprecated_problem(old, a_old: Api | None, a_new: Api, warned: str, version: str, how: str = "") -> Problem:
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
