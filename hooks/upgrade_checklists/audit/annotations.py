"""Annotations compared as types, not as text.

griffe parses an annotation into an expression whose names resolve through the
defining module's imports (``t.Optional`` with ``import typing as t`` is
``typing.Optional``; a string annotation is parsed too). From it we spell one
canonical text, so that equal types compare equal:

- ``typing_extensions.X`` is ``typing.X``; ``collections.abc.X`` is ``typing.X``;
  ``List``/``Dict``/``Tuple``/``Set``/``FrozenSet``/``Type`` are the builtins;
- ``Optional[X]``, ``Union[X, None]``, ``X | None`` and ``None | X`` are one union,
  its members sorted (``None`` last) and without duplicates;
- ``TypeGuard[X]`` and ``TypeIs[X]`` are ``bool``: what such a function returns at run time;
- a class name is replaced by ``canon(path)``: the audit passes the model's final
  path of the class, so the same class reached through a re-export (or moved into a
  sub-package and re-exported at the same public path) is the same type.
"""

from __future__ import annotations

import ast
import builtins
import re
from typing import Callable

_BUILTIN_GENERICS = {"List": "list", "Dict": "dict", "Tuple": "tuple", "Set": "set", "FrozenSet": "frozenset",
                     "Type": "type", "DefaultDict": "collections.defaultdict", "Deque": "collections.deque",
                     "OrderedDict": "collections.OrderedDict", "Counter": "collections.Counter"}
_ABC = ("Callable", "Iterable", "Iterator", "Generator", "Mapping", "MutableMapping", "Sequence", "MutableSequence",
        "Awaitable", "Coroutine", "AsyncIterator", "AsyncIterable", "AsyncGenerator", "Collection", "Container",
        "Hashable", "Sized", "Reversible", "AbstractSet", "MutableSet", "ItemsView", "KeysView", "ValuesView")

Canon = Callable[[str], str]
_BOOL_AT_RUN_TIME = ("typing.TypeGuard", "typing.TypeIs")  # a type checker's narrowing; the call returns a bool


def _name(path: str, canon: Canon | None) -> str:
    for prefix in ("typing_extensions.", "typing.", "collections.abc.", "builtins."):
        if path.startswith(prefix):
            rest = path[len(prefix):]
            if prefix == "builtins.":
                return rest
            if prefix == "collections.abc." and rest not in _ABC:
                return path
            return _BUILTIN_GENERICS.get(rest, f"typing.{rest}")
    if path == "Set" or path in _BUILTIN_GENERICS:  # unresolved bare names (no import seen)
        return _BUILTIN_GENERICS.get(path, path)
    if path in ("None", "NoneType", "type(None)"):
        return "None"
    if canon is not None and "." in path:
        return canon(path)
    return path


def _union(members: list[str]) -> str:
    flat: list[str] = []
    for m in members:
        for part in split_union(m):
            if part not in flat:
                flat.append(part)
    flat.sort(key=lambda m: (m == "None", m))
    return " | ".join(flat)


def split_union(text: str) -> list[str]:
    """Top-level ``|`` parts of an already normalised text."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "[("
        depth -= ch in "])"
        if ch == "|" and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return [p for p in parts if p]


def normalize(expr, canon: Canon | None = None) -> str | None:
    """The canonical text of a griffe annotation (an ``Expr`` or a plain string), or None."""
    if expr is None:
        return None
    try:
        return _norm(expr, canon)
    except RecursionError:
        return str(expr)


def _elements(expr) -> list:
    cls = type(expr).__name__
    if cls in ("ExprTuple", "ExprList"):
        return list(expr.elements)
    return [expr]


def _norm(expr, canon: Canon | None) -> str:
    cls = type(expr).__name__
    if isinstance(expr, str):
        return _norm_text(expr, canon)
    if cls in ("ExprName", "ExprAttribute"):
        if cls == "ExprName" and _builtin_here(expr):
            return expr.name
        try:
            path = expr.canonical_path
        except Exception:  # a name griffe cannot resolve: keep it as written
            path = str(expr)
        return _name(path, canon)
    if cls == "ExprSubscript":
        left = _norm(expr.left, canon)
        if left in _BOOL_AT_RUN_TIME:
            return "bool"
        args = [_norm(e, canon) for e in _elements(expr.slice)]
        if left == "typing.Optional":
            return _union([*args, "None"])
        if left == "typing.Union":
            return _union(args)
        return f"{left}[{', '.join(args)}]"
    if cls == "ExprBinOp" and str(expr.operator).strip() == "|":
        return _union([_norm(expr.left, canon), _norm(expr.right, canon)])
    if cls == "ExprList":
        return "[" + ", ".join(_norm(e, canon) for e in expr.elements) + "]"
    if cls == "ExprTuple":
        return ", ".join(_norm(e, canon) for e in expr.elements)
    return re.sub(r"\s+", " ", str(expr))


_BUILTINS = frozenset(dir(builtins))


def _builtin_here(expr) -> bool:
    """A bare builtin name (``bool``) that the scopes of its annotation do not bind: the builtin, as Python
    resolves it (griffe looks a name up in the enclosing *packages* too, where ``pkg.bool`` may be defined).
    A name a ``*`` import binds is not counted: annotations are mostly written in a stub (``.pyi``), whose
    namespace is not the module's (``from .numerictypes import *`` binds ``bool`` in the ``.py`` only)."""
    name = getattr(expr, "name", None)
    if name not in _BUILTINS:
        return False
    obj = getattr(expr, "parent", None)
    try:
        while obj is not None:
            if name in getattr(obj, "imports", {}):
                return False
            member = obj.members.get(name)
            if member is not None and not (member.is_alias and getattr(member, "wildcard_imported", False)):
                return False
            if obj.kind.value == "module":
                return True
            obj = obj.parent
    except Exception:  # an object griffe cannot walk (an alias not resolved): as griffe resolves it
        return False
    return False


def _norm_text(text: str, canon: Canon | None) -> str:
    """A plain-string piece griffe did not parse (``None``, a literal, an odd annotation)."""
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        try:
            inner = ast.literal_eval(t)
        except (ValueError, SyntaxError):
            inner = None
        if isinstance(inner, str) and _looks_like_type(inner):  # a forward reference griffe left as text
            return _norm_source(inner, canon)
        return t
    if t in ("None", "NoneType"):
        return "None"
    return _norm_source(t, canon) if _looks_like_type(t) else t


def _looks_like_type(text: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z_][\w.\[\], |]*", text.strip()))


def _norm_source(text: str, canon: Canon | None) -> str:
    """Normalise annotation source text without module context (names as written)."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return text
    return _norm_ast(node, canon)


def _norm_ast(node: ast.AST, canon: Canon | None) -> str:
    if isinstance(node, ast.Constant) and node.value is None:
        return "None"
    if isinstance(node, (ast.Name, ast.Attribute)):
        text = ast.unparse(node)
        if text.startswith(("t.", "te.")):
            text = "typing." + text.split(".", 1)[1]
        return _name(text if "." in text else f"typing.{text}" if text in _TYPING_NAMES else text, canon)
    if isinstance(node, ast.Subscript):
        left = _norm_ast(node.value, canon)
        if left in _BOOL_AT_RUN_TIME:
            return "bool"
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        args = [_norm_ast(e, canon) for e in elts]
        if left == "typing.Optional":
            return _union([*args, "None"])
        if left == "typing.Union":
            return _union(args)
        return f"{left}[{', '.join(args)}]"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union([_norm_ast(node.left, canon), _norm_ast(node.right, canon)])
    if isinstance(node, ast.List):
        return "[" + ", ".join(_norm_ast(e, canon) for e in node.elts) + "]"
    return ast.unparse(node)


_TYPING_NAMES = {"Optional", "Union", "Any", "NoReturn", "Never", "Callable", "Literal", "Self", "List", "Dict",
                 "Tuple", "Set", "FrozenSet", "Type", "Iterable", "Iterator", "Sequence", "Mapping", "TypeGuard", "TypeIs"}


def short(text: str | None) -> str | None:
    """For messages: ``typing.X`` as ``X`` and dotted class paths by their last part."""
    if text is None:
        return None
    return re.sub(r"\b(?:[A-Za-z_]\w*\.)+([A-Za-z_]\w*)", r"\1", text)
