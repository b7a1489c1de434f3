"""Deprecated upstream APIs, read statically, with the text of their warning.

An API is deprecated when

- it carries ``@deprecated("…")`` (``warnings.deprecated``, ``typing_extensions.deprecated``,
  or any decorator named ``deprecated``, e.g. the ``deprecated`` package), or
- its body (a class: its ``__init__``, ``__new__`` or ``__post_init__``) calls
  ``warnings.warn(…, DeprecationWarning | FutureWarning | PendingDeprecationWarning)``
  unconditionally, or under a condition that does not test one of its parameters
  (a warning about one parameter's value is not the function's deprecation), or
- a module ``__getattr__`` serves it and warns (see ``aliases.py``).

The message is the warning's text as written: a string, or an f-string with its
placeholders kept (``{name}``); it usually names the replacement.
"""

from __future__ import annotations

import ast

CATEGORIES = ("DeprecationWarning", "FutureWarning", "PendingDeprecationWarning")


def _message(node: ast.AST | None) -> str:
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = ""
        for v in node.values:
            if isinstance(v, ast.Constant):
                out += str(v.value)
            elif isinstance(v, ast.FormattedValue):
                conv = f"!{chr(v.conversion)}" if v.conversion and v.conversion > 0 else ""
                spec = ":" + _message(v.format_spec) if v.format_spec is not None else ""
                out += "{" + ast.unparse(v.value) + conv + spec + "}"
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _message(node.left) + _message(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _message(node.func.value)
    return ast.unparse(node)


def _warn_call(node: ast.AST) -> str | None:
    """The message of a ``warnings.warn(msg, <deprecation category>)`` call, else None."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    fname = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if fname not in ("warn", "warn_explicit"):
        return None
    category = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "category"), None)
    cat = category.attr if isinstance(category, ast.Attribute) else getattr(category, "id", None)
    if cat not in CATEGORIES:
        return None
    msg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "message"), None)
    return _message(msg) or cat


def warning_in(stmts: list[ast.stmt], fn: ast.FunctionDef | ast.AsyncFunctionDef | None = None) -> str | None:
    """The deprecation warning ``stmts`` give on every run (not under a test of ``fn``'s parameters)."""
    params = set()
    if fn is not None:
        a = fn.args
        params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs} - {"self", "cls"}
        params |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
    for stmt in stmts:
        found = _in_stmt(stmt, params)
        if found is not None:
            return found
    return None


def _in_stmt(stmt: ast.stmt, params: set[str]) -> str | None:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return None  # a nested definition warns when it runs, not when this does
    if isinstance(stmt, ast.If):
        tested = {n.id for n in ast.walk(stmt.test) if isinstance(n, ast.Name)}
        if tested & params:
            return None
        for part in (stmt.body, stmt.orelse):
            for s in part:
                found = _in_stmt(s, params)
                if found is not None:
                    return found
        return None
    if isinstance(stmt, (ast.With, ast.Try)):
        for s in [*stmt.body, *getattr(stmt, "finalbody", [])]:
            found = _in_stmt(s, params)
            if found is not None:
                return found
        return None
    for node in ast.walk(stmt):
        found = _warn_call(node)
        if found is not None:
            return found
    return None


def decorator_message(decorators) -> str | None:
    """The text of a ``@deprecated(...)`` among griffe decorators, else None."""
    for d in decorators or []:
        path = getattr(d, "callable_path", "") or ""
        if path.rsplit(".", 1)[-1] != "deprecated":
            continue
        value = d.value
        args = [a for a in getattr(value, "arguments", []) if type(a).__name__ not in ("ExprKeyword",)]
        if args:
            try:
                text = ast.literal_eval(str(args[0]))
                if isinstance(text, str):
                    return text
            except (ValueError, SyntaxError):
                return str(args[0])
        for kw in getattr(value, "arguments", []):
            if type(kw).__name__ == "ExprKeyword" and kw.name in ("reason", "message", "msg"):
                try:
                    return str(ast.literal_eval(str(kw.value)))
                except (ValueError, SyntaxError):
                    return str(kw.value)
        return "deprecated"
    return None


def _def_at(tree: ast.Module, name: str, lineno: int):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if first <= lineno <= (node.end_lineno or node.lineno):
                return node
    return None


def deprecation_of(obj, tree: ast.Module | None) -> str | None:
    """The deprecation message of a griffe function or class (``tree``: its module's source)."""
    kind = obj.kind.value
    if kind not in ("function", "class"):
        return None
    msg = decorator_message(getattr(obj, "decorators", None))
    if msg is not None or tree is None or obj.lineno is None:
        return msg
    node = _def_at(tree, obj.name, obj.lineno)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return warning_in(node.body, node)
    if isinstance(node, ast.ClassDef):
        for sub in node.body:
            if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and sub.name in ("__init__", "__new__", "__post_init__"):
                found = warning_in(sub.body, sub)
                if found is not None:
                    return found
    return None
