"""Classes of the standard library, answered by this interpreter's own.

An upstream class may derive from a builtin or a standard-library class (a model output from
``OrderedDict``, a test case from ``unittest.TestCase``): no distribution holds that base, so the
audit follows it nowhere, and its members were unknown. The running interpreter has those classes;
a few modules of the standard library, which do nothing but define names when imported, are asked
what such a class has and derives from. A class is looked up only by the path upstream spells, in
those modules; nothing of upstream or of the project is imported, and a name outside the list is
not known (None). The user's Python may be another release than ours: what is asked is whether a
class has a member and what it derives from, which standard-library releases rarely change.
"""

from __future__ import annotations

import builtins
import importlib
import types

#: modules whose import only defines names (no I/O, no threads, no output): the only ones asked
_MODULES = frozenset({
    "abc", "argparse", "ast", "collections", "collections.abc", "configparser", "contextlib", "dataclasses", "datetime",
    "decimal", "enum", "fractions", "functools", "html.parser", "http.client", "io", "json", "logging", "numbers",
    "pathlib", "queue", "string", "types", "typing", "unittest", "unittest.mock", "weakref", "xml.etree.ElementTree",
})
#: builtins an annotation or a base spells by their bare name
_BUILTINS = frozenset({"tuple", "list", "dict", "set", "frozenset", "str", "bytes", "bytearray", "int", "float", "complex",
                       "bool", "memoryview", "range", "slice", "type", "object", "BaseException", "Exception"}
                      | {n for n in dir(builtins) if n.endswith(("Error", "Warning", "Exception"))})


def stdlib_class(path: str) -> type | None:
    """The builtin or standard-library class ``path`` names (``dict``, ``builtins.object``,
    ``collections.OrderedDict``, ``unittest.case.TestCase``), or None."""
    if path in _BUILTINS:
        return getattr(builtins, path)
    module, _, name = path.rpartition(".")
    if module == "builtins" and name in _BUILTINS:
        return getattr(builtins, name)
    while module and module not in _MODULES and "." in module:  # ``unittest.case.TestCase``: from ``unittest``
        module = module.rpartition(".")[0]
        if module in _MODULES:
            break
    if module not in _MODULES or not name.isidentifier():
        return None
    try:
        found = getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None
    return found if isinstance(found, type) else None


def stdlib_has(path: str, name: str) -> bool | None:
    """Whether the standard-library class ``path`` has the attribute ``name``; None for another class, and
    for a name it lacks but may serve on its instances (``__getattr__``: ``unittest.mock.Mock``)."""
    cls = stdlib_class(path)
    if cls is None:
        return None
    if hasattr(cls, name):
        return True
    custom = any(isinstance(vars(c).get("__getattribute__"), types.FunctionType) for c in cls.__mro__)
    return None if hasattr(cls, "__getattr__") or custom else False


def spelled(cls: type) -> str:
    """A class's path as annotations spell it (builtins by their bare name)."""
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def stdlib_mro(path: str) -> list[str] | None:
    """The classes the standard-library class ``path`` derives from (itself first), or None."""
    cls = stdlib_class(path)
    return None if cls is None else [spelled(c) for c in cls.__mro__]
