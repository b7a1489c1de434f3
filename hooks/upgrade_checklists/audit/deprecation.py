"""Deprecated upstream APIs, read statically, with the text of their warning.

An API is deprecated when

- it carries ``@deprecated("…")`` (``warnings.deprecated``, ``typing_extensions.deprecated``,
  or any decorator named ``deprecated``, e.g. the ``deprecated`` package), or
- its body (a class: its ``__init__``, ``__new__`` or ``__post_init__``) calls
  ``warnings.warn(…, DeprecationWarning | FutureWarning | PendingDeprecationWarning)``
  unconditionally, or under a condition that does not test one of its parameters
  (a warning about one parameter's value is not the function's deprecation), or
- a module ``__getattr__`` serves it and warns (see ``aliases.py``).

A body's warning given only under a condition on upstream's own state (``if self.x:``, a module
flag, a local it computed: not one of its parameters) is a *conditional* deprecation: its text
carries the condition in words (``split_when``), and the audit says it as ``info`` (the calls do
not decide it; a project's tests may never meet it). An early ``return`` / ``continue`` /
``break`` counts as a condition of what follows it, an early ``raise`` does not (a precondition);
a warn-once guard (the branch sets what its test reads) and a flag or attribute being unset
(``not X``, ``X is None``: an opt-out's default state) are no conditions. :func:`deprecation_in`.

A warning tested on what a caller passed (a parameter, or a local popped from ``**kwargs``)
is not the function's: ``keyword_warnings`` gives it per keyword, for the calls that pass it.

The message is the warning's text as written: a string, or an f-string with its
placeholders kept (``{name}``); it usually names the replacement.
"""

from __future__ import annotations

import ast
from typing import Callable

#: a test of a ``warn`` call's category expression (beyond the names in :data:`CATEGORIES`)
Category = Callable[[ast.AST], bool]

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


def _warn_call(node: ast.AST, values: dict[str, ast.AST] | None = None, category: Category | None = None) -> str | None:
    """The message of a ``warnings.warn(msg, <deprecation category>)`` call, else None (``values``:
    a local name -> the one value assigned to it, for ``message = "..."; warn(message, ...)``;
    ``category``: tells a category that is not one of :data:`CATEGORIES` by name, an upstream
    subclass of one, ``decorated.category_test``)."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    fname = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if fname not in ("warn", "warn_explicit"):
        return None
    category_node = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "category"), None)
    cat = category_node.attr if isinstance(category_node, ast.Attribute) else getattr(category_node, "id", None)
    if cat not in CATEGORIES and (category is None or category_node is None or not category(category_node)):
        return None
    msg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "message"), None)
    if isinstance(msg, ast.Name) and values and msg.id in values:
        msg = values[msg.id]
    return _message(msg) or cat


def warning_in(stmts: list[ast.stmt], fn: ast.FunctionDef | ast.AsyncFunctionDef | None = None,
               category: Category | None = None) -> str | None:
    """The deprecation warning ``stmts`` give (not under a test of ``fn``'s parameters), whatever else
    it is given under (see :func:`deprecation_in` for the condition)."""
    found = deprecation_in(stmts, fn, category)
    return None if found is None else split_when(found)[0]


def deprecation_in(stmts: list[ast.stmt], fn: ast.FunctionDef | ast.AsyncFunctionDef | None = None,
                   category: Category | None = None) -> str | None:
    """The deprecation warning ``stmts`` give on every run, else the one they give only under a
    condition the caller does not decide (a test of ``self.x``, of module state, of anything but
    ``fn``'s parameters), that condition after :data:`WHEN` (:func:`split_when`); None when they
    give none, or only under a test of a parameter (a keyword's deprecation: :func:`keyword_warnings`).

    The conditions are those of the ``if`` branches on the way (``else``: the test negated) and of
    the early ``return`` / ``continue`` / ``break`` before it (``if not self.x: return``: the warning
    is given when ``self.x`` is set); an early ``raise`` is a precondition, not a condition of the
    warning. A test of a flag the branch (or the rest of the block after an early exit) sets is a
    warn-once guard, not a condition: ``if not _warned: _warned = True; warn(...)``; nor is a flag
    or attribute being unset (``not X``, ``X is None``: a flag's default state, its opt-out, as
    ``decorated`` allows ``if not <opt-out>``)."""
    params: set[str] = set()
    shared: set[str] = set()
    if fn is not None:
        a = fn.args
        params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs} - {"self", "cls"}
        params |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
        params |= _from_params(fn, params)
        shared = {name for n in ast.walk(fn) if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
    conditional = None
    for msg, when in _warnings(stmts, params, shared, category, ()):
        when = tuple(w for w in when if not _unset(*w))
        if not when:
            return msg
        if conditional is None:
            conditional = msg + WHEN + " and ".join(_said(test, true) for test, true in when)
    return conditional


def _from_params(fn: ast.FunctionDef | ast.AsyncFunctionDef, params: set[str]) -> set[str]:
    """Locals that hold what a caller passed: ``x = kwargs.pop("x", None)``, ``kwargs.get(...)``,
    ``kwargs["x"]``, ``x = param`` (a warning tested on one of them concerns the calls passing it)."""
    out: set[str] = set()
    for _ in range(2):  # a local from a local from a parameter
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
                continue
            v = node.value
            source = None
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in ("pop", "get"):
                source = v.func.value
            elif isinstance(v, ast.Subscript):
                source = v.value
            elif isinstance(v, ast.Name):
                source = v
            if isinstance(source, ast.Name) and source.id in params | out:
                out.add(node.targets[0].id)
    return out


def _assigned(stmt: ast.stmt) -> dict[str, ast.AST]:
    """``name -> value`` when ``stmt`` is ``name = value`` (or ``name: T = value``), else empty."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return {stmt.targets[0].id: stmt.value}
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return {stmt.target.id: stmt.value}
    return {}


#: a condition: (test, whether the warning is given when it is true)
When = tuple[tuple[ast.expr, bool], ...]


def _warnings(stmts: list[ast.stmt], params: set[str], shared: set[str], category: Category | None, when: When,
              values: dict[str, ast.AST] | None = None):
    """``(message, conditions)`` of each deprecation warning ``stmts`` may give, in order (``shared``:
    the names the function declares ``global`` / ``nonlocal``; ``values``: the local names assigned on
    the way, each to its last value, for ``message = "..."; warn(message, ...)``)."""
    values = dict(values or {})
    for i, stmt in enumerate(stmts):
        values.update(_assigned(stmt))
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue  # a nested definition warns when it runs, not when this does
        if isinstance(stmt, ast.If):
            if {n.id for n in ast.walk(stmt.test) if isinstance(n, ast.Name)} & params:
                continue  # a warning on what the caller passed is not the function's
            once = _once(stmt.test, stmt.body, shared)
            yield from _warnings(stmt.body, params, shared, category, when if once else (*when, (stmt.test, True)), values)
            once = _once(stmt.test, stmt.orelse, shared)
            yield from _warnings(stmt.orelse, params, shared, category, when if once else (*when, (stmt.test, False)), values)
            rest = stmts[i + 1:]
            for branch, true in ((stmt.body, False), (stmt.orelse, True)):
                if branch and _exits(branch) and not _once(stmt.test, rest, shared):  # ``if not self.x: return``
                    when = (*when, (stmt.test, true))
            continue
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            yield from _warnings(stmt.body, params, shared, category, when, values)
            continue
        if isinstance(stmt, ast.Try):  # a handler runs on a failure: not a run the warning is given on
            yield from _warnings([*stmt.body, *stmt.finalbody], params, shared, category, when, values)
            continue
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            yield from _warnings([*stmt.body, *stmt.orelse], params, shared, category, when, values)
            continue
        for node in ast.walk(stmt):
            found = _warn_call(node, values, category)
            if found is not None:
                yield found, when
                break


def _exits(stmts: list[ast.stmt]) -> bool:
    """``stmts`` end by leaving the block early (``return`` / ``continue`` / ``break``, not ``raise``)."""
    return isinstance(stmts[-1], (ast.Return, ast.Continue, ast.Break))


def _once(test: ast.expr, stmts: list[ast.stmt], shared: set[str]) -> bool:
    """``stmts`` set state that outlives the call and that ``test`` reads (``self._warned = True``, a
    ``global _warned`` set, ``_seen.add(key)``): a guard that warns once, not a condition (a local
    assigned is not such state)."""
    tested = {ast.unparse(n) for n in ast.walk(test) if isinstance(n, (ast.Name, ast.Attribute))}
    written: set[str] = set()
    todo: list[ast.AST] = list(stmts)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(n))
        targets: list[ast.AST] = []
        mutated = False
        if isinstance(n, ast.Assign):
            targets = list(n.targets)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
            targets = [n.target]
        elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
              and n.func.attr in ("add", "append", "update", "setdefault", "extend")):
            targets, mutated = [n.func.value], True
        for t in targets:
            while isinstance(t, ast.Subscript):
                t, mutated = t.value, True
            if isinstance(t, ast.Attribute) or (isinstance(t, ast.Name) and t.id not in ("self", "cls")
                                                and (mutated or t.id in shared)):
                written.add(ast.unparse(t))
    return bool(tested & written)


def _unset(test: ast.expr, true: bool) -> bool:
    """The condition is that a name or attribute is unset: ``not X``, ``X is None`` (or, ``true``
    False, ``X`` / ``X is not None``)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _unset(test.operand, not true)
    if isinstance(test, (ast.Name, ast.Attribute)):
        return not true
    if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot))
            and isinstance(test.left, (ast.Name, ast.Attribute))
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None):
        return isinstance(test.ops[0], ast.Is) == true
    return False


def _said(test: ast.expr, true: bool) -> str:
    """A condition in words: ``self.x`` -> "`self.x` is set", ``not self.x`` -> "`self.x` is not set",
    else the test as written (negated when the warning is given when it is false)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _said(test.operand, not true)
    if isinstance(test, (ast.Name, ast.Attribute, ast.Subscript)):
        return f"`{_short(test)}` is {'set' if true else 'not set'}"
    if not true and isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _INVERSE:
        test = ast.Compare(left=test.left, ops=[_INVERSE[type(test.ops[0])]()], comparators=test.comparators)
    elif not true:
        test = ast.UnaryOp(op=ast.Not(), operand=test)
    return f"`{_short(test)}`"


_INVERSE = {ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
            ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt}

#: how much of a condition's text is said
CONDITION_CHARS = 120


def _short(expr: ast.expr) -> str:
    text = " ".join(ast.unparse(expr).split())
    return text if len(text) <= CONDITION_CHARS else text[:CONDITION_CHARS - 1] + "…"


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


def deprecation_of(obj, tree: ast.Module | None, category: Category | None = None) -> str | None:
    """The deprecation message of a griffe function or class (``tree``: its module's source;
    ``category``: see :func:`_warn_call`)."""
    kind = obj.kind.value
    if kind not in ("function", "class"):
        return None
    msg = decorator_message(getattr(obj, "decorators", None))
    if msg is not None or tree is None or obj.lineno is None:
        return msg
    node = _def_at(tree, obj.name, obj.lineno)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return deprecation_in(node.body, node, category)
    if isinstance(node, ast.ClassDef):
        conditional = None
        for sub in node.body:
            if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and sub.name in ("__init__", "__new__", "__post_init__"):
                found = deprecation_in(sub.body, sub, category)
                if found is not None and WHEN not in found:
                    return found
                conditional = conditional or found
        return conditional
    return None


#: how many calls deep a keyword is followed into upstream's own helpers (``self._h(kw)``, ``_h(kw)``)
HELPER_DEPTH = 2


def keyword_warnings(obj, tree: ast.Module | None, category: Category | None = None) -> dict[str, str]:
    """The deprecation warnings a function (a class: its ``__init__``) gives only when one keyword is
    passed: ``if tp_plan is not None: warnings.warn(...)`` after ``tp_plan = kwargs.pop("tp_plan", None)``,
    ``if arg is not _SENTINEL: ...``, ``if "k" in kwargs: ...``: keyword -> message. A keyword handed
    on to a helper of the same class (``self._h(...)``) or module (``_h(...)``) that warns when it
    gets it counts too, up to ``HELPER_DEPTH`` calls deep (the parameters mapped call by call)."""
    if tree is None or obj.lineno is None or obj.kind.value not in ("function", "class"):
        return {}
    node = _def_at(tree, obj.name, obj.lineno)
    if isinstance(node, ast.ClassDef):
        node = next((s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"), None)
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return {}
    return _keyword_warnings(node, tree, HELPER_DEPTH, category)


def _keyword_warnings(node: ast.FunctionDef | ast.AsyncFunctionDef, tree: ast.Module, depth: int,
                      category: Category | None = None) -> dict[str, str]:
    keywords, bags = caller_keywords(node)  # x = kwargs.pop("x", ...) / kwargs.get("x") / kwargs["x"] too
    out: dict[str, str] = {}
    assigned: dict[str, list[ast.AST]] = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            assigned.setdefault(n.targets[0].id, []).append(n.value)
    values = {k: v[0] for k, v in assigned.items() if len(v) == 1}
    for n in ast.walk(node):
        if not isinstance(n, ast.If):
            continue
        passed = _passed(n.test, keywords, bags)
        if passed is None:
            continue
        here = dict(values)  # a local the branch assigns before the warning: its text there
        for s in n.body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            msg = next((m for m in (_warn_call(x, here, category) for x in ast.walk(s)) if m is not None), None)
            if msg is not None:
                out.setdefault(passed, msg)
                break
            here.update(_assigned(s))
    if depth > 0:
        for call, helper, bound_self in _helper_calls(node, tree):
            theirs = _keyword_warnings(helper, tree, depth - 1, category)
            if not theirs:
                continue
            handed, whole = _handed_on(call, helper, bound_self, keywords, bags)
            for param, msg in theirs.items():
                mine = handed.get(param, param if whole else None)
                if mine is not None:
                    out.setdefault(mine, msg)
    return out


def _helper_calls(node: ast.FunctionDef | ast.AsyncFunctionDef, tree: ast.Module):
    """``(call, helper def, called through self)`` for each call in ``node``'s own body of a method
    of its class (``self._h(...)``) or a function of its module (``_h(...)``)."""
    cls = next((c for c in ast.walk(tree) if isinstance(c, ast.ClassDef) and node in c.body), None)
    methods = {s.name: s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))} if cls is not None else {}
    functions = {s.name: s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    first = (node.args.posonlyargs + node.args.args)[:1]
    me = first[0].arg if first and cls is not None else None
    todo = list(node.body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue  # a nested definition calls when it runs, not when this does
        if isinstance(n, ast.Call):
            f = n.func
            if (me is not None and isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == me
                    and f.attr in methods and methods[f.attr] is not node):
                yield n, methods[f.attr], not _static(methods[f.attr])
            elif isinstance(f, ast.Name) and f.id in functions and functions[f.id] is not node:
                yield n, functions[f.id], False
        todo.extend(ast.iter_child_nodes(n))


def _static(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)


def _handed_on(call: ast.Call, helper: ast.FunctionDef | ast.AsyncFunctionDef, bound_self: bool,
               keywords: dict[str, str], bags: set[str]) -> tuple[dict[str, str], bool]:
    """The helper's parameter -> the caller's keyword it receives (an argument that is a name
    holding what the caller was passed), and whether the caller's ``**kwargs`` is handed on whole
    (then any other keyword reaches the helper under its own name)."""
    a = helper.args
    positional = [x.arg for x in a.posonlyargs + a.args][1 if bound_self else 0:]
    out: dict[str, str] = {}
    whole = False
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        if i < len(positional) and isinstance(arg, ast.Name) and arg.id in keywords:
            out[positional[i]] = keywords[arg.id]
    for kw in call.keywords:
        if kw.arg is not None and isinstance(kw.value, ast.Name) and kw.value.id in keywords:
            out[kw.arg] = keywords[kw.value.id]
        elif kw.arg is None and isinstance(kw.value, ast.Name) and kw.value.id in bags:
            whole = True
    return out, whole


def _passed(test: ast.AST, keywords: dict[str, str], bags: set[str]) -> str | None:
    """The keyword whose being passed makes ``test`` true: ``x is not None`` / ``x is not SENTINEL`` /
    ``x != default`` / ``x`` / ``"x" in kwargs``, else None."""
    if isinstance(test, ast.Name) and test.id in keywords:
        return keywords[test.id]
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(op, (ast.IsNot, ast.NotEq)) and isinstance(left, ast.Name) and left.id in keywords:
            return keywords[left.id]
        if (isinstance(op, ast.In) and isinstance(left, ast.Constant) and isinstance(left.value, str)
                and isinstance(right, ast.Name) and right.id in bags):
            return left.value
    return None


# -- keywords a method hands on to another method (``super().m(...)``, ``self.m(...)``) ------------------


def caller_keywords(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[dict[str, str], set[str]]:
    """What a function's caller can pass it by keyword: local name -> the keyword it holds (its
    named parameters, ``x = kwargs.pop("x", ...)`` / ``kwargs.get("x")`` / ``kwargs["x"]``), and
    the names of its ``**kwargs``."""
    a = node.args
    keywords = {x.arg: x.arg for x in a.posonlyargs + a.args + a.kwonlyargs if x.arg not in ("self", "cls")}
    bags = {x.arg for x in (a.kwarg,) if x is not None}
    for n in ast.walk(node):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            v = n.value
            key = None
            if (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in ("pop", "get")
                    and isinstance(v.func.value, ast.Name) and v.func.value.id in bags and v.args):
                key = v.args[0]
            elif isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name) and v.value.id in bags:
                key = v.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                keywords[n.targets[0].id] = key.value
    return keywords, bags


def forwarded_calls(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[dict]:
    """The calls a method makes, in its own body, of a method on its own instance (``self.m(...)``)
    or of its base's (``super().m(...)``, ``super(Cls, self).m(...)``) that hand on something its
    caller passed: ``{"how": "self" | "super", "member", "line", "map", "whole", "own"}``, ``map``
    the called method's parameter -> the caller's keyword it gets (``"@i"`` for the i-th
    positional argument), ``whole`` when the caller's ``**kwargs`` is handed on whole, ``own``
    the caller's named parameters (never handed on through ``**kwargs``)."""
    first = (node.args.posonlyargs + node.args.args)[:1]
    me = first[0].arg if first else None
    keywords, bags = caller_keywords(node)
    out: list[dict] = []
    todo = list(node.body)
    while todo:
        n = todo.pop(0)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue  # a nested definition calls when it runs, not when this does
        todo.extend(ast.iter_child_nodes(n))
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)):
            continue
        on = n.func.value
        if (isinstance(on, ast.Call) and isinstance(on.func, ast.Name) and on.func.id == "super" and not on.keywords
                and (not on.args or len(on.args) == 2)):
            how = "super"
        elif me is not None and isinstance(on, ast.Name) and on.id == me and n.func.attr != node.name:
            how = "self"
        else:
            continue
        mapping: dict[str, str] = {}
        whole = False
        for i, arg in enumerate(n.args):
            if isinstance(arg, ast.Starred):
                break
            if isinstance(arg, ast.Name) and arg.id in keywords:
                mapping[f"@{i}"] = keywords[arg.id]
        for kw in n.keywords:
            if kw.arg is not None and isinstance(kw.value, ast.Name) and kw.value.id in keywords:
                mapping[kw.arg] = keywords[kw.value.id]
            elif kw.arg is None and isinstance(kw.value, ast.Name) and kw.value.id in bags:
                whole = True
        if mapping or whole:
            out.append({"how": how, "member": n.func.attr, "line": n.lineno, "map": mapping, "whole": whole,
                        "own": sorted(set(keywords.values()))})
    return out


#: how many methods deep a keyword handed on (``super().m(...)``, ``self.m(...)``, a base in another distribution) is followed
FORWARD_DEPTH = 3
#: between a warning's text and where it is given, in a keyword's deprecation handed on (``split_where``)
WHERE = "\x1f"


def split_where(text: str) -> tuple[str, str]:
    """(the warning's text, the upstream callable that gives it: "" when the called one does)."""
    msg, _, where = text.partition(WHERE)
    return msg, where


#: between a warning's text and the condition on upstream's own state it is given under (``split_when``)
WHEN = "\x1e"


def split_when(text: str) -> tuple[str, str]:
    """(the warning's text, the condition it is given under in words: "" when it is given on every call)."""
    msg, _, when = text.partition(WHEN)
    return msg, when
