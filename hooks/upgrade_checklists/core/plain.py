"""Dataclasses to plain data (dicts, lists, strings, numbers) and back, for the JSON cache.

``to_plain(obj)`` turns a dataclass (and the lists, dicts, sets, tuples and paths
inside it) into what ``json`` writes; ``from_plain(cls, data)`` rebuilds it from
the field types, checking every value's type on the way: data that does not fit
raises :class:`PlainError` (the cache treats that as a miss), never builds a
half-typed object. Nothing is executed or imported by name: the classes come
from the caller.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from pathlib import Path
from typing import Any, Callable

__all__ = ["PlainError", "to_plain", "from_plain"]


class PlainError(ValueError):
    """The data does not have the shape of the class."""


_SCALARS = (str, int, float, bool, type(None))


_FIELD_NAMES: dict[type, tuple[str, ...] | None] = {}  # a dataclass's field names, None for other types


def to_plain(obj: Any) -> Any:
    """``obj`` as JSON-ready data: dataclasses become dicts of their fields."""
    t = type(obj)
    if t in _SCALARS:
        return obj
    if t is list or t is tuple:
        return [to_plain(v) for v in obj]
    try:
        names = _FIELD_NAMES[t]
    except KeyError:
        names = _FIELD_NAMES[t] = tuple(f.name for f in dataclasses.fields(t)) if dataclasses.is_dataclass(t) else None
    if names is not None:
        return {n: to_plain(getattr(obj, n)) for n in names}
    if t is set or t is frozenset:
        try:
            return sorted(to_plain(v) for v in obj)
        except TypeError:
            raise PlainError("a set of mixed types") from None
    if t is dict:
        out = {}
        for k, v in obj.items():
            if type(k) is not str:
                raise PlainError(f"dict key {k!r} is not a string")
            out[k] = to_plain(v)
        return out
    if isinstance(obj, Path):
        return str(obj)
    raise PlainError(f"{t.__name__} is not plain data")


def from_plain(cls: type, data: Any) -> Any:
    """An instance of dataclass ``cls`` built from ``to_plain``'s output; :class:`PlainError` if it does not fit."""
    try:
        return _converter(cls)(data)
    except PlainError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, RecursionError) as exc:
        raise PlainError(str(exc)) from None


_CONVERTERS: dict[Any, Callable[[Any], Any]] = {}


def _converter(tp: Any) -> Callable[[Any], Any]:
    conv = _CONVERTERS.get(tp)
    if conv is None:
        conv = _CONVERTERS[tp] = _build(tp)
    return conv


def _fail(tp: Any, value: Any) -> PlainError:
    return PlainError(f"expected {getattr(tp, '__name__', tp)}, got {type(value).__name__}")


def _exact(tp: type) -> Callable[[Any], Any]:
    """A converter that accepts exactly ``tp`` (``True`` is no int, ``1`` no bool)."""
    def conv_exact(v):
        if type(v) is not tp:
            raise _fail(tp, v)
        return v
    return conv_exact


def _build(tp: Any) -> Callable[[Any], Any]:
    if tp is Any or tp is object:
        return _any
    if dataclasses.is_dataclass(tp):
        return _dataclass(tp)
    if tp in (bool, int, str):
        return _exact(tp)
    if tp is float:
        def conv_float(v):
            if type(v) not in (float, int):
                raise _fail(tp, v)
            return float(v)
        return conv_float
    if tp is type(None):
        def conv_none(v):
            if v is not None:
                raise _fail(tp, v)
            return v
        return conv_none
    if tp is Path:
        def conv_path(v):
            if type(v) is not str:
                raise _fail(tp, v)
            return Path(v)
        return conv_path
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp in (list, dict, set, tuple):
        origin, args = tp, ()
    if origin in (typing.Union, types.UnionType):
        convs = [_converter(a) for a in args]

        def conv_union(v):
            for c in convs:
                try:
                    return c(v)
                except PlainError:
                    pass
            raise _fail(tp, v)
        return conv_union
    if origin is list:
        item = _converter(args[0]) if args else _any

        def conv_list(v):
            if type(v) is not list:
                raise _fail(tp, v)
            return [item(x) for x in v]
        return conv_list
    if origin in (set, frozenset):
        item = _converter(args[0]) if args else _any

        def conv_set(v):
            if type(v) is not list:
                raise _fail(tp, v)
            return origin(item(x) for x in v)
        return conv_set
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = _converter(args[0])

            def conv_tuple_var(v):
                if type(v) is not list:
                    raise _fail(tp, v)
                return tuple(item(x) for x in v)
            return conv_tuple_var
        items = [_converter(a) for a in args]

        def conv_tuple(v):
            if type(v) is not list or (items and len(v) != len(items)):
                raise _fail(tp, v)
            return tuple(c(x) for c, x in zip(items, v)) if items else tuple(_any(x) for x in v)
        return conv_tuple
    if origin is dict:
        key = _converter(args[0]) if args else _any
        value = _converter(args[1]) if args else _any

        def conv_dict(v):
            if type(v) is not dict:
                raise _fail(tp, v)
            return {key(k): value(x) for k, x in v.items()}
        return conv_dict
    raise PlainError(f"no plain form for {tp!r}")


def _any(v: Any) -> Any:
    """Plain JSON data as it is (checked to be plain)."""
    t = type(v)
    if t in _SCALARS:
        return v
    if t is list:
        return [_any(x) for x in v]
    if t is dict:
        return {k: _any(x) for k, x in v.items()}
    raise _fail(object, v)


def _dataclass(cls: type) -> Callable[[Any], Any]:
    hints = typing.get_type_hints(cls)
    fields = [(f.name, f.init) for f in dataclasses.fields(cls)]
    required = {f.name for f in dataclasses.fields(cls)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    convs: dict[str, Callable[[Any], Any]] = {}

    def conv(v):
        if type(v) is not dict:
            raise _fail(cls, v)
        if not convs:
            convs.update((name, _converter(hints[name])) for name, _ in fields)
        missing = required - v.keys()
        if missing:
            raise PlainError(f"{cls.__name__}: missing {sorted(missing)}")
        kwargs, late = {}, {}
        for name, init in fields:
            if name in v:
                (kwargs if init else late)[name] = convs[name](v[name])
        obj = cls(**kwargs)
        for name, value in late.items():
            object.__setattr__(obj, name, value)
        return obj
    return conv
