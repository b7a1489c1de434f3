"""What a patch's code says (``X.m = f``, ``X.m = make(X.m)``, ``setattr``, ``functools.partial``), read
from the project's source alone: the ``if`` that guards it, the names its body reads the replaced
method by, the function a factory returns, what ``partial`` leaves a caller to pass, the tuples it
returns, and what a wrapper does with the replaced method's result (the reads its assignment reaches,
``core/reaching.py``; a project parameter it is handed to, by annotation). ``uses.py`` turns these
into uses."""

from __future__ import annotations

import ast

from upgrade_checklists.core.astwalk import statements
from upgrade_checklists.core.reaching import reached_reads
from upgrade_checklists.project.calls import dotted, resolve
from upgrade_checklists.project.flags import return_conditions
from upgrade_checklists.project.use import PARAM_KINDS, RETURNED, Use


def scope_of(tree: ast.Module, stmt: ast.stmt) -> ast.AST:
    """The innermost function (else the module) holding ``stmt``."""
    best: ast.AST = tree
    for node in statements(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno < stmt.lineno <= (node.end_lineno or node.lineno):
            if best is tree or node.lineno > best.lineno:
                best = node
    return best


def _tests_hasattr(test: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "hasattr" and len(n.args) == 2
               and isinstance(n.args[1], ast.Constant) and n.args[1].value == name for n in ast.walk(test))


def patch_guard(tree: ast.Module, stmt: ast.stmt, name: str) -> tuple[ast.If | None, bool]:
    """The ``if`` guarding a patch assignment, and whether it tests ``hasattr(…, name)``: an ``if``
    around it, or an ``if hasattr(…, name): return`` before it in the same function."""
    scope = scope_of(tree, stmt)
    around = None
    for node in statements(scope):
        if not isinstance(node, ast.If) or scope_of(tree, node) is not scope:
            continue
        if node.lineno < stmt.lineno <= (node.end_lineno or node.lineno):
            if around is None or node.lineno > around.lineno:
                around = node
        elif ((node.end_lineno or node.lineno) < stmt.lineno and _tests_hasattr(node.test, name)
              and node.body and isinstance(node.body[-1], (ast.Return, ast.Raise))):
            return node, True
    if around is not None:
        return around, _tests_hasattr(around.test, name)
    return None, False


def _is_original(expr: ast.AST | None, name: str, cls: str, obj_text: str | None, names: dict[str, str]) -> bool:
    """``expr`` reads the upstream method being replaced: ``X.name`` where ``X`` is written as the
    patched object is, or names the patched class."""
    if not (isinstance(expr, ast.Attribute) and expr.attr == name):
        return False
    return (obj_text is not None and dotted(expr.value) == obj_text) or resolve(expr.value, names) == cls


def _assigned_originals(scope: ast.AST | None, name: str, cls: str, obj_text: str | None, names: dict[str, str]) -> set[str]:
    """Names assigned the original method (``orig = Cls.name``) directly in ``scope``."""
    if scope is None:
        return set()
    body = scope.body if isinstance(scope, ast.Module) else [scope]
    out = set()
    for node in body:
        for n in ast.walk(node) if not isinstance(scope, ast.Module) else [node]:
            if (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                    and _is_original(n.value, name, cls, obj_text, names)):
                out.add(n.targets[0].id)
    return out


def _patched_object(stmt: ast.stmt) -> str | None:
    """The patched object of ``X.name = F`` / ``setattr(X, "name", F)`` as written (``X``'s dotted text)."""
    if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Attribute):
        return dotted(stmt.targets[0].value)
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and stmt.value.args:
        return dotted(stmt.value.args[0])
    return None


def original_names(ftree: ast.Module | None, scope, stmt: ast.stmt, name: str, cls: str, names: dict[str, str]) -> set[str]:
    """The names a patch function defined at module level reads the original method by: a module
    level ``orig = Cls.name`` of its file (and of the patch's own scope, when in the same file)."""
    obj = _patched_object(stmt)
    out = _assigned_originals(ftree, name, cls, obj, names)
    if scope is not False and scope is not None and not isinstance(scope, ast.Module):
        out |= _assigned_originals(scope, name, cls, obj, names)
    return out


def factory_product(factory, stmt: ast.stmt, name: str, tree: ast.Module, cls: str, names: dict[str, str]):
    """``X.name = make(X.name)``: the function ``make`` returns (a ``def`` in its body, returned by
    name) and the names that function reads the original method by (the parameters of ``make`` the
    call passes it to, and ``orig = X.name`` inside ``make``); (None, ∅) when it returns no own ``def``."""
    returned = {r.value.id for r in ast.walk(factory) if isinstance(r, ast.Return) and isinstance(r.value, ast.Name)}
    inner = next((n for n in factory.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in returned), None)
    if inner is None:
        return None, set()
    call = stmt.value if isinstance(stmt, ast.Assign) else stmt.value.args[2]
    obj = _patched_object(stmt)
    aliases = _assigned_originals(scope_of(tree, stmt) if scope_of(tree, stmt) is not tree else tree, name, cls, obj, names)
    params = [p.arg for p in factory.args.posonlyargs + factory.args.args]
    out = set()
    for i, arg in enumerate(call.args if isinstance(call, ast.Call) else []):
        if i < len(params) and (_is_original(arg, name, cls, obj, names) or (isinstance(arg, ast.Name) and arg.id in aliases)):
            out.add(params[i])
    for kw in call.keywords if isinstance(call, ast.Call) else []:
        if kw.arg and (_is_original(kw.value, name, cls, obj, names) or (isinstance(kw.value, ast.Name) and kw.value.id in aliases)):
            out.add(kw.arg)
    return inner, out


def unpartial(value: ast.expr, names: dict[str, str]) -> tuple[ast.Name, list[ast.expr], set[str]] | None:
    """``(function name, partial's positional arguments, partial's keywords)`` of ``f`` or
    ``functools.partial(f, …)``; None for another value, or a ``partial`` whose fill is not known
    (``*args``, ``**kwargs``)."""
    if isinstance(value, ast.Call):
        if resolve(value.func, names) != "functools.partial" or not value.args:
            return None
        if any(isinstance(a, ast.Starred) for a in value.args) or any(k.arg is None for k in value.keywords):
            return None
        value, args, keywords = value.args[0], value.args[1:], {k.arg for k in value.keywords}
    else:
        args, keywords = [], set()
    return (value, args, keywords) if isinstance(value, ast.Name) else None


def partial_params(params, defaults: set[str], npos: int, keywords: set[str]):
    """The parameters a caller of ``functools.partial(f, <npos args>, <keywords>)`` meets, and
    which have a default: the first ``npos`` positional ones are gone; a keyword filled gets a
    default and, like every positional-or-keyword parameter after it, can only be passed by
    keyword. None where ``partial``'s call itself cannot bind."""
    out, dropped = [], 0
    for n, k in params:
        if dropped < npos and k in PARAM_KINDS[:2]:
            dropped += 1
            continue
        out.append((n, k))
    kinds = {k for _n, k in params}
    if dropped < npos and PARAM_KINDS[2] not in kinds:
        return None
    names = {n for n, k in out if k not in (PARAM_KINDS[0], PARAM_KINDS[2], PARAM_KINDS[4])}
    if keywords - names and PARAM_KINDS[4] not in kinds:
        return None
    after, res = False, []
    for n, k in out:
        if n in keywords and k in PARAM_KINDS[:2]:
            after = True
        res.append((n, PARAM_KINDS[3] if after and k == PARAM_KINDS[1] else k))
    return tuple(res), set(defaults) | (keywords & names)


def returned_use(frel: str, fn, cls: str, name: str, via: str, flags=None) -> Use | None:
    """A RETURNED use of the patch ``fn`` when one of its ``return`` statements gives a tuple display."""
    if isinstance(fn, ast.Lambda):
        found = [(fn.lineno, len(fn.body.elts) if isinstance(fn.body, ast.Tuple) else -1)]
    else:
        own = list(_own_body_nodes(fn))
        if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own):
            return None  # a generator: its ``return`` is no result
        found = [(n.lineno, len(n.value.elts) if isinstance(n.value, ast.Tuple)
                  and not any(isinstance(e, ast.Starred) for e in n.value.elts) else -1)
                 for n in own if isinstance(n, ast.Return)]
    if not any(k >= 0 for _l, k in found):
        return None
    return Use(frel, fn.lineno, RETURNED, cls, name, via=via, function_line=fn.lineno, function_file=frel,
               returns=tuple(sorted(found)), return_flags=return_conditions(fn, flags, frel))


def _own_body_nodes(fn):
    """The nodes of ``fn``'s body outside nested functions, lambdas and classes."""
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))


#: calls that look at a value's type or attributes: code that asks them handles more than one kind of value
_TYPE_TESTS = frozenset({"isinstance", "hasattr", "getattr", "type"})


def wrapped_results(fn, originals: set[str], argument=None) -> list[tuple[int, tuple[tuple[int, str, str], ...]]]:
    """Each call of the original method in the wrapper ``fn`` (``orig(self, ...)``, ``orig`` one of
    ``originals`` and not assigned again in ``fn``): its line and how its result is used (a result
    assigned to a name: every read of that name in ``fn`` the assignment may reach, ``reaching.py``).
    ``argument(call, index, keyword)``: the project parameter an argument of ``call`` meets, as
    ``"f(param): annotation"``, or None (see :func:`_how`)."""
    if not originals:
        return []
    assigned = {t.id for n in ast.walk(fn) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
    originals = originals - assigned - params
    parent: dict[ast.AST, ast.AST] = {}
    for n in ast.walk(fn):
        for c in ast.iter_child_nodes(n):
            parent[c] = n
    out = []
    for call in ast.walk(fn):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in originals):
            continue
        up = parent.get(call)
        if isinstance(up, ast.Assign) and len(up.targets) == 1 and isinstance(up.targets[0], ast.Name):
            var = up.targets[0].id
            reads = reached_reads(fn, up, var)  # not those another assignment holds
            # a value whose type the wrapper tests (``isinstance(out, tuple)``) is handled by type: no claim on it
            tested = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _TYPE_TESTS and n.args
                         and isinstance(n.args[0], ast.Name) and n.args[0].id == var for n in ast.walk(fn))
            results = tuple(sorted({_how(r, parent, None if tested else argument) for r in reads}))
        elif isinstance(up, ast.Expr):
            results = ()  # the result is dropped
        else:
            results = (_how(call, parent, argument),)
        if results:
            out.append((call.lineno, results))
    return out


def _how(node: ast.AST, parent: dict, argument=None) -> tuple[int, str, str]:
    """How the value ``node`` (a read of the result, or the call itself) is used, as ``(line, how, attribute)``;
    passed to a project function whose parameter is annotated: ``(line, "argument", "f(param): annotation")``."""
    up = parent.get(node)
    call, at, keyword = (parent.get(up), None, up.arg) if isinstance(up, ast.keyword) else (up, node, None)
    if argument is not None and isinstance(call, ast.Call) and node is not call.func and (keyword or at in call.args):
        index = None if keyword else call.args.index(at)
        if keyword or not any(isinstance(a, ast.Starred) for a in call.args[:index]):
            said = argument(call, index, keyword)
            if said is not None:
                return (call.lineno, "argument", said)
    if isinstance(up, ast.Subscript) and up.value is node:
        return (up.lineno, "index", "")
    if isinstance(up, ast.Attribute) and up.value is node:
        return (up.lineno, "attribute", up.attr)
    if isinstance(up, ast.Return):
        return (up.lineno, "return", "")
    if isinstance(up, ast.Assign) and up.value is node and isinstance(up.targets[0], (ast.Tuple, ast.List)):
        return (up.lineno, "unpack", "")
    if isinstance(up, (ast.For, ast.AsyncFor, ast.comprehension)) and up.iter is node:
        return (getattr(up, "lineno", node.lineno), "iterate", "")
    return (node.lineno, "other", "")
