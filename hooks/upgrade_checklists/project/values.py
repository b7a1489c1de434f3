"""What a name can hold, statically: enough to see a monkey-patch whose class and
function are reached through strings.

    mapping = MAPPINGS[model_type]            # a dict of dicts, chosen at run time
    module = __import__(mapping["module"], fromlist=[...])
    cls = getattr(module, mapping["attn_class"])
    cls.forward = getattr(__import__(mapping["patch_module"], ...), mapping["patch_func"])

Values are string constants, dict literals with string keys, and qualified names
(an import, ``__import__`` / ``importlib.import_module`` of a string, ``getattr``
of a string, an attribute). A name assigned from a dict subscripted by a key not
known statically is a *choice*: each value of the dict is followed on its own, so
the class and the function chosen together stay together; so are the names a
``for`` loop binds from a literal table (``for mod, cls in [("pkg.a", "A"), ...]``).
A function's parameter holds what the calls of that function in the same file pass
(``_patch(cls)`` called with ``getattr(module, name)``); a module's name read in a function
holds what the module assigns it under the module's own choices (``TARGET = f"pkg.{n}"`` in a
``for n in ("a", "b"):`` loop). An f-string holds each combination of its parts' strings (a
part with a conversion other than ``!s`` or a format spec: nothing). Nothing is executed.
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass

from upgrade_checklists.core.astwalk import BLOCKS, statements

_CAP = 32  # values per expression, combinations per scope
_DEPTH = 8


@dataclass(frozen=True)
class Qual:
    """A qualified name: a module, or an object inside one."""

    path: str


@dataclass(frozen=True)
class DictLit:
    items: tuple[tuple[str, tuple], ...]  # key -> values

    def get(self, key: str) -> tuple:
        return next((v for k, v in self.items if k == key), ())


def _assigned(scope: ast.AST) -> dict[str, list[ast.expr]]:
    """Name -> the expressions assigned to it directly in ``scope`` (not in nested functions)."""
    out: dict[str, list[ast.expr]] = {}
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out.setdefault(node.targets[0].id, []).append(node.value)
        stack.extend(ast.iter_child_nodes(node))
    return out


def assigned_once(scope: ast.AST, name: str) -> ast.expr | None:
    """The expression ``scope`` assigns ``name``, when it assigns it exactly once (and binds it no other way
    that ``_assigned`` sees)."""
    exprs = _assigned(scope).get(name, [])
    return exprs[0] if len(exprs) == 1 else None


class Values:
    """Evaluate expressions of one function (or the module) of a file."""

    def __init__(self, scope: ast.AST, module: ast.Module, imports: dict[str, str]) -> None:
        self.scope = scope
        self.module = module
        self.local = _assigned(scope)
        self.globals = _assigned(module) if scope is not module else {}
        self.imports = imports
        self._module: Values | None = None

    def module_values(self) -> Values:
        """The module's own evaluation (its choices: the names its ``for`` loops over literal tables bind)."""
        if self.scope is self.module:
            return self
        if self._module is None:
            self._module = Values(self.module, self.module, self.imports)
        return self._module

    def module_choices(self, depth: int) -> list[dict[str, tuple]]:
        """``choices(depth)``, found once per depth (every read of a module name asks)."""
        memo = self.__dict__.setdefault("_memo", {})
        if depth not in memo:
            memo[depth] = self.choices(depth)
        return memo[depth]

    def choices(self, depth: int = 0) -> list[dict[str, tuple]]:
        """Each consistent assignment of the choice names (at most ``_CAP``): a name assigned from
        a dict subscripted by a key not known statically takes each value; the names a ``for``
        loop over a literal table binds (``for mod, cls in TABLE:``) take each row together.
        ``depth``: how deep the evaluation asking for them is (a caller's choices, asked for a
        parameter's values, count on: functions that call each other end at ``_DEPTH``)."""
        groups: list[list[dict[str, tuple]]] = []
        for name, exprs in self.local.items():
            if len(exprs) == 1 and isinstance(exprs[0], ast.Subscript) and _const(exprs[0].slice) is None:
                options = tuple(v for d in self.eval(exprs[0].value, {}, depth) if isinstance(d, DictLit) for _k, vs in d.items for v in vs)
                if options:
                    groups.append([{name: (o,)} for o in options])
        for stmt in _own_statements(self.scope):
            if isinstance(stmt, (ast.For, ast.AsyncFor)):
                rows = self._rows(stmt.target, stmt.iter, depth)
                if rows:
                    groups.append(rows)
        if not groups:
            return [{}]
        combos = itertools.islice(itertools.product(*groups), _CAP)
        return [{k: v for part in c for k, v in part.items()} for c in combos]

    def _rows(self, target: ast.AST, it: ast.AST, depth: int = 0) -> list[dict[str, tuple]]:
        """What each pass of ``for target in it`` binds, when ``it`` is a list or tuple literal
        (or a name assigned one, once) and each item fits the target (a name, or a tuple of names)."""
        if isinstance(it, ast.Name):
            exprs = self.local.get(it.id) or self.globals.get(it.id) or []
            it = exprs[0] if len(exprs) == 1 else None
        if not isinstance(it, (ast.List, ast.Tuple)):
            return []
        out = []
        for item in it.elts[:_CAP]:
            if isinstance(target, ast.Name):
                out.append({target.id: self.eval(item, {}, depth + 1)})
            elif (isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(t, ast.Name) for t in target.elts)
                  and isinstance(item, (ast.Tuple, ast.List)) and len(item.elts) == len(target.elts)):
                out.append({t.id: self.eval(v, {}, depth + 1) for t, v in zip(target.elts, item.elts)})
        return out

    def _arguments(self, name: str, depth: int) -> tuple:
        """What parameter ``name`` of this scope's function is passed by the calls of the function
        in the same file (each caller's values and choices its own)."""
        fn = self.scope
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return ()
        positional = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        if name not in positional and name not in {a.arg for a in fn.args.kwonlyargs}:
            return ()
        at = positional.index(name) if name in positional else None
        out: list = []
        for caller, calls in _callers(self.module).get(fn.name, ()):
            if caller is fn:
                continue
            values = Values(caller, self.module, self.imports)
            for env in values.choices(depth):
                for c in calls:
                    arg = next((k.value for k in c.keywords if k.arg == name), None)
                    if arg is None and at is not None and at < len(c.args) and not any(isinstance(a, ast.Starred) for a in c.args[:at + 1]):
                        arg = c.args[at]
                    if arg is not None:
                        out += values.eval(arg, env, depth + 1)
        return tuple(out)

    def eval(self, node: ast.AST, env: dict[str, tuple], depth: int) -> tuple:
        if depth > _DEPTH:
            return ()
        out = self._eval(node, env, depth)
        return tuple(dict.fromkeys(out))[:_CAP]

    def _eval(self, node: ast.AST, env: dict[str, tuple], depth: int) -> tuple:
        d = depth + 1
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return (node.value,)
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            if node.id in self.local:
                return tuple(v for e in self.local[node.id] for v in self.eval(e, env, d))
            if node.id in self.globals:  # a module's name: each of its values under the module's own choices
                mv = self.module_values()
                return tuple(v for e in self.globals[node.id] for menv in mv.module_choices(d) for v in mv.eval(e, menv, d))
            if node.id in self.imports:
                return (Qual(self.imports[node.id]),)
            return self._arguments(node.id, d)  # a parameter: what the file's calls pass
        if isinstance(node, ast.JoinedStr):  # an f-string: each combination of its parts' string values
            parts = []
            for part in node.values:
                if isinstance(part, ast.FormattedValue):
                    if part.conversion not in (-1, ord("s")) or part.format_spec is not None:
                        return ()
                    parts.append([s for s in self.eval(part.value, env, d) if isinstance(s, str)])
                else:
                    parts.append([s for s in self.eval(part, env, d) if isinstance(s, str)])
            return tuple("".join(c) for c in itertools.islice(itertools.product(*parts), _CAP))
        if isinstance(node, ast.Dict):
            if not all(_const(k) is not None for k in node.keys):
                return ()
            return (DictLit(tuple((_const(k), self.eval(v, env, d)) for k, v in zip(node.keys, node.values))),)
        if isinstance(node, ast.Subscript):
            key = _const(node.slice)
            out = []
            for v in self.eval(node.value, env, d):
                if isinstance(v, DictLit):
                    out += list(v.get(key)) if key is not None else [x for _k, vs in v.items for x in vs]
            return tuple(out)
        if isinstance(node, ast.Attribute):
            return tuple(Qual(f"{v.path}.{node.attr}") for v in self.eval(node.value, env, d) if isinstance(v, Qual))
        if isinstance(node, ast.Call) and node.args:
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
            if name in ("__import__", "import_module"):
                return tuple(Qual(s) for s in self.eval(node.args[0], env, d) if isinstance(s, str))
            if name == "getattr" and len(node.args) >= 2:
                objs = [v for v in self.eval(node.args[0], env, d) if isinstance(v, Qual)]
                attrs = [s for s in self.eval(node.args[1], env, d) if isinstance(s, str)]
                return tuple(Qual(f"{o.path}.{a}") for o in objs for a in attrs)
        return ()


def _const(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def assignments_onto(tree: ast.Module, imports: dict[str, str]):
    """``(class, name, function, statement)`` for each ``X.name = F`` / ``setattr(X, "name", F)``
    whose ``X`` and ``F`` are followed to qualified names (``Qual`` paths; a function defined in
    the file itself is ``"<local>.f"``, and a call of it, ``X.name = f(X.name)``, a factory whose
    returned function is the patch, ``"<local>.f()"``)."""
    scopes = [tree] + [n for n in statements(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    local_functions = {n.name for n in scopes[1:]}
    seen = set()
    for scope in scopes:
        stmts = [s for s in _own_statements(scope) if _patch_parts(s)]
        if not stmts:
            continue
        values = Values(scope, tree, imports)
        for env in values.choices():
            for stmt in stmts:
                obj, name, fn = _patch_parts(stmt)
                names = [name] if isinstance(name, str) else [s for s in values.eval(name, env, 0) if isinstance(s, str)]
                if isinstance(fn, ast.Name) and fn.id in local_functions and fn.id not in values.local:
                    funcs = [f"<local>.{fn.id}"]
                elif (isinstance(fn, ast.Call) and isinstance(fn.func, ast.Name) and fn.func.id in local_functions
                      and fn.func.id not in values.local):
                    funcs = [f"<local>.{fn.func.id}()"]  # a factory of the file: the function it returns
                else:
                    funcs = [v.path for v in values.eval(fn, env, 0) if isinstance(v, Qual)]
                for cls in (v.path for v in values.eval(obj, env, 0) if isinstance(v, Qual)):
                    for n in names:
                        for f in funcs:
                            key = (cls, n, f, stmt.lineno)
                            if key not in seen:
                                seen.add(key)
                                yield cls, n, f, stmt


_CALLERS = "_uc_callers"  # a module's calls of plain names, by name, kept on its tree (``_callers``)


def _callers(module: ast.Module) -> dict[str, list[tuple[ast.AST, list[ast.Call]]]]:
    """Function name -> ``(scope, its calls of that name)`` for the module and each function of it
    (``statements`` order; the calls in ``_own_nodes`` order), found once per tree: a parameter's
    values are asked for every ``self.x = ...`` of a file."""
    index = module.__dict__.get(_CALLERS)
    if index is None:
        index = {}
        scopes = [module] + [n for n in statements(module) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for scope in scopes:
            mine: dict[str, list[ast.Call]] = {}
            for c in _own_nodes(scope):
                if isinstance(c, ast.Call) and isinstance(c.func, ast.Name):
                    mine.setdefault(c.func.id, []).append(c)
            for name, calls in mine.items():
                index.setdefault(name, []).append((scope, calls))
        module.__dict__[_CALLERS] = index
    return index


def _own_nodes(scope: ast.AST):
    """Every node of ``scope`` outside nested functions, classes and lambdas."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _own_statements(scope: ast.AST):
    """The statements of ``scope`` outside nested functions and classes (depth first; only
    the blocks are descended into: a statement never sits inside an expression)."""
    stack = _blocks(scope)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, ast.stmt):
            yield node
        stack.extend(_blocks(node))


def _blocks(node: ast.AST) -> list[ast.AST]:
    """``node``'s children that are statements, ``except`` handlers or ``case`` clauses, in order."""
    out = []
    for name in node._fields:
        v = getattr(node, name, None) if name in BLOCKS else None
        if type(v) is list:
            out += [x for x in v if isinstance(x, ast.AST)]
    return out


def _patch_parts(stmt: ast.stmt):
    """(object, attribute name or its expression, function expression) of a patch statement."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Attribute):
        if isinstance(stmt.value, (ast.Name, ast.Attribute, ast.Call)):
            return stmt.targets[0].value, stmt.targets[0].attr, stmt.value
    if (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name)
            and stmt.value.func.id == "setattr" and len(stmt.value.args) == 3):
        obj, name, fn = stmt.value.args
        return obj, (name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else name), fn
    return None
