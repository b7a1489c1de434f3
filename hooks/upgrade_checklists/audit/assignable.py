"""Whether a value of an upstream type is one an annotation accepts, from class hierarchies
alone (nominal subtyping, as a type checker decides ``isinstance``-like assignability).

``True`` and ``False`` are sure answers; ``None`` is "not known statically", and the audit then
claims nothing. An answer is ``False`` only where every class involved is known:

- the value's class and every class it derives from are in a model (the audited package or a
  distribution its bases were followed into: ``ancestors``), or builtins and the few standard
  library classes below, whose hierarchies are this interpreter's own (nothing of upstream or
  of the project is imported);
- each class the annotation names is *nominal*: a builtin, or a class of a model that is not a
  ``Protocol`` and not an ``abc.ABC`` (which accept classes that do not derive from them).
  ``Any``, ``object``, a type variable, an alias, a ``typing`` ABC (``Sequence``), a name no
  model knows: not nominal, so the answer is ``None``.

Generic arguments are not compared: ``list[int]`` is ``list``.
"""

from __future__ import annotations

import abc

from upgrade_checklists.audit.api import Unresolved
from upgrade_checklists.audit.stdlib import spelled, stdlib_class, stdlib_mro

#: bases that say nothing about what a class is not (``Generic``), or that make it structural
_MARKERS = {"typing.Generic": [], "typing.Protocol": ["typing.Protocol"], "typing_extensions.Protocol": ["typing.Protocol"],
            "abc.ABC": ["abc.ABC"]}
_OPEN = ("typing.Protocol", "abc.ABC")
#: a type checker's promotions (PEP 484's numeric tower, and ``bytes`` before PEP 688)
_PROMOTED = {"float": ("int", "bool"), "complex": ("float", "int", "bool"), "bytes": ("bytearray", "memoryview")}


def mro(model, path: str) -> list[str] | None:
    """The classes ``path`` derives from (itself first), or None where one of them is not known."""
    known = stdlib_mro(path)
    if known is not None:
        return known
    try:
        found = model.ancestors(path)
    except Unresolved:
        return None
    if not found:
        return None
    out: list[str] = []
    for p in found:
        if not p.startswith("?"):
            out.append(p)
        elif p[1:] in _MARKERS:
            out += _MARKERS[p[1:]]
        elif stdlib_mro(p[1:]) is not None:
            out += stdlib_mro(p[1:])
        else:
            return None  # a base in a distribution not followed: it could derive from anything
    return out


def _nominal(model, path: str) -> bool:
    cls = stdlib_class(path)
    if cls is not None:  # ``object`` takes anything; an ABC (``collections.abc.Mapping``) takes registered classes
        return cls is not object and not isinstance(cls, abc.ABCMeta)
    found = mro(model, path)
    return found is not None and not any(m in found for m in _OPEN)


def _spelling(path: str) -> str:
    """A standard-library class by the path its own module gives (``unittest.TestCase``: ``unittest.case.TestCase``)."""
    cls = stdlib_class(path)
    return spelled(cls) if cls is not None else path


def assignable(model, value: str, targets: list[str]) -> bool | None:
    """Whether a value of type ``value`` (a canonical class path or builtin name) is one of
    ``targets`` (an annotation's union members, canonical): True, False, or None (not known)."""
    head = _spelling(value.split("[", 1)[0].strip())
    heads = [_spelling(t.split("[", 1)[0].strip()) for t in targets]
    if not heads or head in heads or any(h in ("typing.Any", "object", "builtins.object") for h in heads):
        return True
    if any(head in _PROMOTED.get(h, ()) for h in heads):
        return True
    found = mro(model, head)
    if found is None:
        return None
    if any(h in found for h in heads):
        return True
    return False if all(_nominal(model, h) for h in heads) else None
