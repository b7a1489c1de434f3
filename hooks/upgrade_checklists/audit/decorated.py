"""Deprecations given by upstream's own decorators, read statically.

Large libraries deprecate through decorators they define themselves, whose *wrapper* warns:
``@deprecated_20("…")``, ``@deprecate_kwarg("old", new_name="new")``, ``@deprecated_params(x=(…))``.
A decorator used on an upstream function or class is followed to its definition in the same
upstream (``resolve``: a name as the decorator's module sees it -> its definition, or None when it
is not upstream's), through the functions it calls and returns (a factory -> the decorator -> the
functions whose result they return, :data:`DEPTH` calls deep), to the *wrappers*: the
nested functions taking ``*args`` / ``**kwargs`` (what a call of the decorated API runs). The
decorator's literal arguments are bound to the parameters they are passed to on the way, so a
wrapper's closure values are known where they are literals. Then:

- a wrapper that warns on every call (``warnings.warn`` with a deprecation category, directly or
  in an upstream helper that does, :data:`HELPER_DEPTH` calls deep; a test of a closure value
  decided when the value is known; ``if not <opt-out>`` allowed) deprecates the decorated API;
- a wrapper that warns only when a keyword named by the decorator's arguments is passed
  (``name in kwargs``, ``kwargs.pop(name) is not None``, or a flag or message set only under such
  a test) deprecates that keyword, at the calls passing it;
- a wrapper that warns when more than N arguments come by position (``len(args) > N``, N a literal
  or the length of a literal list the decorator was given) deprecates passing more: the key
  ``*N`` (:data:`POSITIONAL`) among the keywords, N counted as the wrapper counts (a method's
  ``self`` included); ``bind`` says it at the calls passing more;
- any other condition (a test of a passed value; a count derived from the signature at run time)
  gives nothing.

A category counts when it is ``DeprecationWarning`` / ``FutureWarning`` /
``PendingDeprecationWarning`` or a class of upstream deriving from one (statically, through its
bases): :func:`deprecation_category`. A warning instance handed to ``warn`` without a category
counts by its class. ``logger.warning(...)`` is not a warning a test run sees: it never counts.

The message: the decorator's literal sentences (string arguments with a space; for a keyword,
those in the decorator argument of that name first), else the warning's text with the literals it
was given substituted and other placeholders kept (``{func_name}``), else the decorator as written.

Nothing is imported or run; every walk is bounded (:data:`DEPTH`, :data:`HELPER_DEPTH`,
:data:`BUDGET` definitions per decorator), and a cycle ends the walk.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Callable

from upgrade_checklists.audit.deprecation import CATEGORIES, _message
from upgrade_checklists.project.calls import dotted

#: how many calls deep a decorator factory is followed to its wrapper
DEPTH = 4
#: how many calls deep a wrapper's helper is followed to its ``warnings.warn``
HELPER_DEPTH = 3
#: how many definitions one decorator's walk may read
BUDGET = 60
#: how many bases deep a warning class is followed to a deprecation category
BASES_DEPTH = 6
#: a key of :attr:`Found.keywords` that is no keyword: ``*N``, passing more than N arguments by position
#: (``self`` counted, as the wrapper counts it) is deprecated
POSITIONAL = "*"


@dataclass(frozen=True, eq=False)
class Definition:
    """An upstream function or class as its source reads: its node, the module's tree and dotted name."""

    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    tree: ast.Module
    module: str


#: (module, dotted name as written there) -> its upstream definition, or None
Resolve = Callable[[str, str], "Definition | None"]

# -- abstract values: a frozenset of atoms ------------------------------------------------------------
# a str (a literal), NONE, ("builtin", name), ("def", Definition, closure env or None),
# ("inst", class atom), ("names", frozenset of str): a container whose keys / elements are those

NONE = ("none",)
Env = dict


def _fold(op: ast.boolop, parts: list[bool | None]) -> bool | None:
    """``and`` / ``or`` of three-valued parts (None: not known)."""
    if isinstance(op, ast.And):
        return False if False in parts else (True if all(p is True for p in parts) else None)
    return True if True in parts else (False if all(p is False for p in parts) else None)


def _strs(values) -> list[str]:
    return [v for v in values if isinstance(v, str)]


@dataclass
class _Walk:
    resolve: Resolve
    budget: int = BUDGET
    classes: dict = field(default_factory=dict)
    #: (module, dotted) -> what ``resolve`` said
    seen: dict = field(default_factory=dict)
    #: id(node) -> (node, its own nodes): read once per walk
    owned: dict = field(default_factory=dict)

    def own(self, node: ast.AST) -> list[ast.AST]:
        """``_own_nodes(node)`` (a statement: itself and its nodes), once per node."""
        hit = self.owned.get(id(node))
        if hit is None:
            definition = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            nodes = _own_nodes(node) if definition else _own_nodes(ast.Module(body=[node], type_ignores=[]))
            hit = self.owned[id(node)] = (node, nodes)
        return hit[1]

    # -- names -------------------------------------------------------------------------------

    def lookup(self, dotted: str, module: str):
        key = (module, dotted)
        if key in self.seen:
            return self.seen[key]
        if self.budget <= 0:
            return None
        self.budget -= 1
        try:
            found = self.resolve(module, dotted)
        except RecursionError:
            found = None
        self.seen[key] = found
        return found

    def ev(self, expr: ast.AST | None, env: Env, module: str, depth: int = 2) -> frozenset:
        """What ``expr`` may be (atoms), in a function whose locals are ``env`` (unknown: empty)."""
        if expr is None:
            return frozenset()
        if isinstance(expr, ast.Constant):
            if isinstance(expr.value, str):
                return frozenset([expr.value])
            if isinstance(expr.value, bool):
                return frozenset([("bool", expr.value)])
            if isinstance(expr.value, int):
                return frozenset([("int", expr.value)])
            return frozenset([NONE]) if expr.value is None else frozenset()
        if isinstance(expr, ast.Name):
            if expr.id in env:
                return env[expr.id]
            if expr.id in CATEGORIES:
                return frozenset([("builtin", expr.id)])
            found = self.lookup(expr.id, module)
            return frozenset([("def", found, None)]) if found is not None else frozenset()
        if isinstance(expr, ast.Attribute):
            written = dotted(expr)
            if written is not None and written in env:  # ``self.message``, set in ``__init__``
                return env[written]
            if written is not None and written.split(".")[0] not in env:
                found = self.lookup(written, module)
                if found is not None:
                    return frozenset([("def", found, None)])
                if expr.attr in CATEGORIES and written.split(".")[0] in ("builtins", "warnings"):
                    return frozenset([("builtin", expr.attr)])
            return frozenset()
        if isinstance(expr, (ast.JoinedStr, ast.BinOp)):
            text = self.text(expr, env)
            return frozenset([text]) if text is not None else frozenset()
        if isinstance(expr, ast.IfExp):
            return self.ev(expr.body, env, module, depth) | self.ev(expr.orelse, env, module, depth)
        if isinstance(expr, ast.BoolOp):
            out = frozenset()
            for v in expr.values:
                out |= self.ev(v, env, module, depth)
            return out
        if isinstance(expr, ast.Dict):
            keys = frozenset(k.value for k in expr.keys if isinstance(k, ast.Constant) and isinstance(k.value, str))
            return frozenset([("names", keys)])
        if isinstance(expr, (ast.Set, ast.List, ast.Tuple)):
            if not all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in expr.elts):
                return frozenset()
            return frozenset([("names", frozenset(e.value for e in expr.elts))])
        if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name):
            return env.get(expr.value.id + "[]", frozenset())
        if isinstance(expr, ast.Call):
            return self.ev_call(expr, env, module, depth)
        return frozenset()

    def ev_call(self, call: ast.Call, env: Env, module: str, depth: int) -> frozenset:
        f = call.func
        if isinstance(f, ast.Name) and f.id == "len" and len(call.args) == 1:  # ``len(allowed_args)``, a literal list
            return frozenset(("int", len(v[1])) for v in self.ev(call.args[0], env, module, depth)
                             if isinstance(v, tuple) and v[0] == "names")
        if isinstance(f, ast.Name) and f.id in ("set", "frozenset", "list", "sorted", "tuple", "dict") and call.args:
            return self._names_of(self.ev(call.args[0], env, module, depth))
        if isinstance(f, ast.Attribute) and f.attr in ("keys", "items", "copy", "difference", "intersection", "union"):
            return self._names_of(self.ev(f.value, env, module, depth))
        if isinstance(f, ast.Attribute) and f.attr == "format":
            return self.ev(f.value, env, module, depth)
        out = set()
        for callee in self.ev(f, env, module, depth):
            if isinstance(callee, tuple) and callee[0] in ("def", "builtin") and self.is_class(callee):
                out.add(("inst", callee))  # an instance of a class (a warning made to be handed to warn)
        return frozenset(out)

    @staticmethod
    def _names_of(values: frozenset) -> frozenset:
        names = set(_strs(values))
        for v in values:
            if isinstance(v, tuple) and v[0] == "names":
                names |= v[1]
        return frozenset([("names", frozenset(names))]) if names else frozenset()

    @staticmethod
    def is_class(atom) -> bool:
        return atom[0] == "builtin" or isinstance(atom[1].node, ast.ClassDef)

    def text(self, expr: ast.AST, env: Env) -> str | None:
        """A string expression as written, the literals its names hold substituted (other placeholders kept)."""
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return expr.value
        if isinstance(expr, ast.Name):
            known = _strs(env.get(expr.id, ()))
            return known[0] if len(known) == 1 else None
        if isinstance(expr, ast.JoinedStr):
            out = ""
            for v in expr.values:
                if isinstance(v, ast.Constant):
                    out += str(v.value)
                    continue
                inner = v.value
                quote = False
                if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "repr" and len(inner.args) == 1:
                    inner, quote = inner.args[0], True
                known = _strs(env.get(inner.id, ())) if isinstance(inner, ast.Name) else []
                if len(known) == 1 and v.format_spec is None:
                    out += repr(known[0]) if quote or v.conversion == ord("r") else known[0]
                else:
                    out += _message(ast.JoinedStr(values=[v]))
            return out
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
            left, right = self.text(expr.left, env), self.text(expr.right, env)
            return None if left is None or right is None else left + right
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod):
            return self.text(expr.left, env)
        return None

    # -- categories ------------------------------------------------------------------------------

    def deprecation_class(self, atom, depth: int = BASES_DEPTH) -> bool:
        """``atom`` (a class) is a deprecation category, or derives from one through upstream's classes."""
        if atom[0] == "builtin":
            return atom[1] in CATEGORIES
        if atom[0] != "def" or not isinstance(atom[1].node, ast.ClassDef):
            return False
        d: Definition = atom[1]
        key = id(d.node)
        if key in self.classes:
            return self.classes[key]
        self.classes[key] = False  # a cycle of bases ends here
        found = False
        if depth > 0:
            for base in d.node.bases:
                name = dotted(base)
                if name is None:
                    continue
                if name.rsplit(".", 1)[-1] in CATEGORIES and (name in CATEGORIES or name.startswith(("builtins.", "warnings."))):
                    found = True
                    break
                target = self.lookup(name, d.module)
                if target is not None and self.deprecation_class(("def", target, None), depth - 1):
                    found = True
                    break
        self.classes[key] = found
        return found

    def category_ok(self, values: frozenset) -> bool:
        """Every class ``values`` may be is a deprecation category (and there is one)."""
        classes = [v for v in values if isinstance(v, tuple) and v[0] in ("def", "builtin")]
        return bool(classes) and all(self.deprecation_class(c) for c in classes)

    # -- a function's locals ---------------------------------------------------------------------

    def bind(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call | None, caller_env: Env,
             caller_module: str, closure: Env | None, module: str, skip_first: bool = False) -> Env:
        """``fn``'s locals when called by ``call`` (its arguments evaluated where the call is; defaults
        where ``fn`` is), then its own assignments (all of them: a name may hold any value assigned)."""
        env: Env = dict(closure or {})
        a = fn.args
        positional = a.posonlyargs + a.args
        if skip_first:
            positional = positional[1:]
        defaults = dict(zip([x.arg for x in positional][len(positional) - len(a.defaults):], a.defaults))
        defaults.update({x.arg: d for x, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
        given: dict[str, frozenset] = {}
        extra: set[str] = set()
        if call is not None:
            for i, arg in enumerate(call.args):
                if isinstance(arg, ast.Starred):
                    break
                if i < len(positional):
                    given[positional[i].arg] = self.ev(arg, caller_env, caller_module)
            named = {x.arg for x in positional + a.kwonlyargs}
            for kw in call.keywords:
                if kw.arg is None:
                    continue
                if kw.arg in named:
                    given[kw.arg] = self.ev(kw.value, caller_env, caller_module)
                else:
                    extra.add(kw.arg)
        for x in positional + a.kwonlyargs:
            if x.arg in given:
                env[x.arg] = given[x.arg]
            elif x.arg in defaults:
                env[x.arg] = self.ev(defaults[x.arg], {}, module)
            else:
                env[x.arg] = frozenset()
        if a.vararg is not None:
            env[a.vararg.arg] = frozenset()
        if a.kwarg is not None:
            env[a.kwarg.arg] = frozenset([("names", frozenset(extra))]) if extra else frozenset()
        own = self.own(fn)
        for node in own:  # nested definitions are values: a wrapper handed on, a helper
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not fn:
                env[node.name] = frozenset([("def", Definition(node, None, module), None)])
        for _ in range(2):  # a local from a local
            for node in own:
                self._assign(node, env, module)
        return env

    def _assign(self, node: ast.AST, env: Env, module: str) -> None:
        if isinstance(node, ast.Assign):
            value = self.ev(node.value, env, module)
            for t in node.targets:
                self._target(t, value, env, node.value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None and isinstance(node.target, ast.Name):
            env[node.target.id] = env.get(node.target.id, frozenset()) | self.ev(node.value, env, module)
        elif isinstance(node, (ast.For, ast.comprehension)):
            items = self.ev(node.iter, env, module)
            names = set()
            for v in items:
                if isinstance(v, tuple) and v[0] == "names":
                    names |= v[1]
            first = node.target.elts[0] if isinstance(node.target, ast.Tuple) and node.target.elts else node.target
            if isinstance(first, ast.Name) and names:
                env[first.id] = env.get(first.id, frozenset()) | frozenset(names)

    def _target(self, t: ast.AST, value: frozenset, env: Env, source: ast.AST) -> None:
        if isinstance(t, ast.Name):
            env[t.id] = env.get(t.id, frozenset()) | value
        elif isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name):
            key = f"{t.value.id}.{t.attr}"
            env[key] = env.get(key, frozenset()) | value
        elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
            keys = frozenset(_strs(self.ev(t.slice, env, "")))
            name = t.value.id
            env[name] = env.get(name, frozenset()) | (frozenset([("names", keys)]) if keys else frozenset())
            env[name + "[]"] = env.get(name + "[]", frozenset()) | value


def _own_nodes(fn: ast.AST) -> list[ast.AST]:
    """The nodes of ``fn``'s body, not those of the definitions nested in it (the definitions themselves are kept)."""
    out = []
    todo = list(getattr(fn, "body", []))
    while todo:
        n = todo.pop(0)
        out.append(n)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(n))
    return out


def _names_in(expr: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}


def _is_warn(f: ast.AST) -> bool:
    return dotted(f) in ("warn", "warn_explicit", "warnings.warn", "warnings.warn_explicit")


def _sentences(expr: ast.AST | None) -> list[str]:
    """The literal sentences (strings with a space) written in ``expr``."""
    if expr is None:
        return []
    return [n.value for n in ast.walk(expr) if isinstance(n, ast.Constant) and isinstance(n.value, str) and " " in n.value.strip()]


@dataclass
class Found:
    """What a decorator says of the API it decorates: its deprecation's text, and its keywords' (keyword -> text)."""

    message: str | None = None
    keywords: dict[str, str] = field(default_factory=dict)


class _Wrapper:
    """One wrapper (a nested function a decorator returns), its closure values known where they are literals."""

    def __init__(self, walk: _Walk, fn: ast.FunctionDef | ast.AsyncFunctionDef, env: Env, module: str) -> None:
        self.walk, self.fn, self.env, self.module = walk, fn, env, module
        a = fn.args
        self.bag = a.kwarg.arg if a.kwarg is not None else None
        params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs} | {x.arg for x in (a.vararg, a.kwarg) if x is not None}
        own = walk.own(fn)
        assigned = set()
        for n in own:
            if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                assigned |= {t.id for t in targets if isinstance(t, ast.Name)}
            elif isinstance(n, ast.For):
                assigned |= _names_in(n.target)
        #: the names this wrapper's call decides (its parameters and locals), not its closure's
        self.mine = params | assigned
        #: its locals (a parameter's value is known when a helper is called with a literal)
        self.assigned = assigned
        #: a local -> the values assigned to it
        self.values: dict[str, list[ast.AST]] = {}
        for n in own:
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    if isinstance(t, ast.Name):
                        self.values.setdefault(t.id, []).append(n.value)
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                self.values.setdefault(n.target.id, []).extend([n.value, n.value])  # never one value
        #: local -> the keywords whose value it holds (``x = kwargs.pop(name, None)``)
        self.holds: dict[str, set[str]] = {}
        for n in own:
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                keys = self._keyword_read(n.value)
                if keys:
                    self.holds.setdefault(n.targets[0].id, set()).update(keys)

    def _keyword_read(self, v: ast.AST) -> set[str]:
        """The keywords ``v`` reads from the wrapper's ``**kwargs``: ``kwargs.pop(k)`` / ``.get(k)`` / ``kwargs[k]``."""
        if self.bag is None:
            return set()
        key = None
        if (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in ("pop", "get")
                and isinstance(v.func.value, ast.Name) and v.func.value.id == self.bag and v.args):
            key = v.args[0]
        elif isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name) and v.value.id == self.bag:
            key = v.slice
        return set(_strs(self.walk.ev(key, self.env, self.module))) if key is not None else set()

    # -- the statements and the conditions they run under ----------------------------------------

    def paths(self, stmts, path=()):
        """Each simple statement of ``stmts`` with the tests it runs under: ((test, true?), ...)."""
        for s in stmts:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(s, ast.If):
                known = self.decide(s.test)
                if known is not False:
                    yield from self.paths(s.body, path if known else (*path, (s.test, True)))
                if known is not True:
                    yield from self.paths(s.orelse, path if known is False else (*path, (s.test, False)))
            elif isinstance(s, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
                yield from self.paths(s.body, path)
                yield from self.paths(getattr(s, "orelse", []), path)
            elif isinstance(s, ast.Try):
                yield from self.paths(s.body + s.orelse + s.finalbody, path)
            else:
                yield s, path

    def decide(self, test: ast.AST, depth: int = 3) -> bool | None:
        """A test of closure values the decorator's literals decide (``new_name is None``,
        ``not enabled``, a local set once from such a test), else None."""
        if depth <= 0:
            return None
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self.decide(test.operand, depth)
            return None if inner is None else not inner
        if isinstance(test, ast.Name):
            if test.id in self.assigned:
                values = self.values.get(test.id, [])
                return self.decide(values[0], depth - 1) if len(values) == 1 else None
            known = self.env.get(test.id, frozenset())
            truth = {v[1] if isinstance(v, tuple) and v[0] == "bool" else (False if v == NONE else (bool(v) if isinstance(v, str) else None))
                     for v in known}
            return truth.pop() if len(truth) == 1 and None not in truth and known else None
        if isinstance(test, ast.BoolOp):
            return _fold(test.op, [self.decide(v, depth) for v in test.values])
        if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot))
                and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
                and isinstance(test.left, ast.Name) and test.left.id not in self.assigned):
            values = self.env.get(test.left.id, frozenset())
            if not values:
                return None
            is_none = all(v == NONE for v in values) if NONE in values else False
            if NONE in values and not is_none:
                return None
            return is_none if isinstance(test.ops[0], ast.Is) else not is_none
        return None

    def blocking(self, test: ast.AST) -> bool:
        """A condition on what the call passed (not a closure value; not an opt-out ``if not skip:``)."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Name):
            return False
        return bool(_names_in(test) & self.mine)

    def required(self, test: ast.AST, true: bool) -> set[str]:
        """The keywords a call must pass for ``test`` to be ``true``."""
        if not true:
            return set()
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            out: set[str] = set()
            for v in test.values:
                out |= self.required(v, True)
            return out
        if isinstance(test, ast.Name):
            return set(self.holds.get(test.id, ()))
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            left, op, right = test.left, test.ops[0], test.comparators[0]
            if isinstance(op, ast.In) and isinstance(right, ast.Name) and right.id == self.bag:
                return set(_strs(self.walk.ev(left, self.env, self.module)))
            if isinstance(op, (ast.IsNot, ast.NotEq)):
                if isinstance(left, ast.Name):
                    return set(self.holds.get(left.id, ()))
                return self._keyword_read(left)
        return set()

    def alone(self, path, keywords: set[str]) -> bool:
        """A call passing ``keywords`` (and no other keyword the wrapper tests) may take ``path``."""
        return all(self._alone(t, keywords) in (None, true) for t, true in path)

    def _alone(self, test: ast.AST, keywords: set[str]) -> bool | None:
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self._alone(test.operand, keywords)
            return None if inner is None else not inner
        if isinstance(test, ast.BoolOp):
            return _fold(test.op, [self._alone(v, keywords) for v in test.values])
        if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.In, ast.NotIn))
                and isinstance(test.comparators[0], ast.Name) and test.comparators[0].id == self.bag):
            values = self.walk.ev(test.left, self.env, self.module)
            names = set(_strs(values))
            if not names and values != frozenset([NONE]):
                return None
            passed = bool(names & keywords)  # ``None in kwargs``: never
            return passed if isinstance(test.ops[0], ast.In) else not passed
        return self.decide(test)

    def positional(self, path) -> int | None:
        """N when ``path`` is taken exactly when more than N arguments come by position (``len(args) > N``,
        N a literal or the length of a literal list the decorator was given), else None."""
        vararg = self.fn.args.vararg.arg if self.fn.args.vararg is not None else None
        tests = [(t, true) for t, true in path if self.blocking(t)]
        if vararg is None or len(tests) != 1 or not tests[0][1]:
            return None
        t = tests[0][0]
        if not (isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], (ast.Gt, ast.GtE))):
            return None
        left = t.left
        if not (isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len" and len(left.args) == 1
                and isinstance(left.args[0], ast.Name) and left.args[0].id == vararg):
            return None
        right = t.comparators[0]
        if _names_in(right) & self.mine:
            return None
        values = {v[1] for v in self.walk.ev(right, self.env, self.module) if isinstance(v, tuple) and v[0] == "int"}
        if len(values) != 1:
            return None
        n = values.pop()
        return n if isinstance(t.ops[0], ast.Gt) else n - 1

    def path_keywords(self, path) -> set[str]:
        out: set[str] = set()
        for test, true in path:
            out |= self.required(test, true)
        return out

    # -- warnings --------------------------------------------------------------------------------

    def warnings(self, depth: int = HELPER_DEPTH):
        """``(call, path, message texts)`` of each deprecation warning the wrapper may give (its
        helpers followed ``depth`` calls deep)."""
        last: dict[str, tuple[ast.AST, tuple]] = {}  # a local -> its latest assignment on the way, and its path
        for stmt, path in self.paths(self.fn.body):
            for n in self.walk.own(stmt):
                if isinstance(n, ast.Call):
                    msg = warns(self.walk, n, self.env, self.module, depth)
                    if msg is not None:
                        arg = n.args[0] if n.args else None
                        if isinstance(arg, ast.Name) and arg.id in last and path[:len(last[arg.id][1])] == last[arg.id][1]:
                            text = self.walk.text(last[arg.id][0], self.env)  # the message this branch set
                            msg = [text] if text is not None else msg
                        yield n, path, msg
            if isinstance(stmt, ast.Assign):
                for t in stmt.targets:
                    if isinstance(t, ast.Name):
                        last[t.id] = (stmt.value, path)

    def assignments(self, name: str):
        """``(value, path)`` of each assignment of local ``name`` that sets it from what the call passed
        (not its first, unconditional one; not one refining it from itself)."""
        first = True
        for stmt, path in self.paths(self.fn.body):
            if not (isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)):
                continue
            if first and not path:
                first = False
                continue
            first = False
            if name in _names_in(stmt.value) or any(name in _names_in(t) for t, _ in path):
                continue
            yield stmt.value, path

    def judge(self, decorator: ast.AST, found: Found) -> None:
        for call, path, msg in self.warnings():
            keywords = self.path_keywords(path)
            texts = msg
            positional = self.positional(path)
            if positional is not None:  # ``if len(args) > num_allowed: warn(...)``: passing more by position
                found.keywords.setdefault(f"{POSITIONAL}{positional}", _text(decorator, None, texts))
                continue
            if not keywords and any(self.blocking(t) for t, _ in path):
                # a flag or a message set only when a keyword is passed (``message = ...`` under ``old in kwargs``)
                names = set()
                for t, _ in path:
                    if self.blocking(t):
                        names |= _names_in(t) & self.mine
                if call.args and isinstance(call.args[0], ast.Name):
                    names.add(call.args[0].id)
                for name in sorted(names):
                    sets = [(v, self.path_keywords(p), p) for v, p in self.assignments(name)]
                    if sets and all(s for _, s, _ in sets):
                        common = set.intersection(*(s for _, s, _ in sets))
                        keywords |= common
                        said = call.args[0].id if call.args and isinstance(call.args[0], ast.Name) else None
                        plain = [v for v, s, p in sets if s == common and self.alone(p, common)]
                        if name == said:  # the message set where the keyword alone is tested
                            for v in plain:
                                text = self.walk.text(v, self.env)
                                if text is not None:
                                    texts = [text]
                                    break
                if not keywords:
                    continue  # a warning on a passed value (or the positional count): not the API's, not a keyword's
            if keywords:
                for kw in sorted(keywords):
                    found.keywords.setdefault(kw, _text(decorator, kw, texts))
            elif found.message is None:
                found.message = _text(decorator, None, texts)


def _text(decorator: ast.AST, keyword: str | None, texts) -> str:
    if isinstance(decorator, ast.Call):
        if keyword is not None:
            mine = next((k.value for k in decorator.keywords if k.arg == keyword), None)
            said = _sentences(mine)
            if said:
                return " ".join(said)
        else:
            said = [s for a in [*decorator.args, *(k.value for k in decorator.keywords)] for s in _sentences(a)]
            if said:
                return " ".join(said)
    written = [t for t in texts if isinstance(t, str) and t.strip()]
    if written:
        return written[0]
    return "@" + ast.unparse(decorator)


def warns(walk: _Walk, call: ast.Call, env: Env, module: str, depth: int) -> list[str] | None:
    """The texts (maybe none known) of the deprecation warning ``call`` gives on every run, else None:
    ``warnings.warn(msg, <deprecation category>)``, or an upstream helper whose body gives one."""
    if _is_warn(call.func) and not (isinstance(call.func, ast.Name) and call.func.id in env):
        msg = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "message"), None)
        cat = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "category"), None)
        values = walk.ev(msg, env, module)
        if cat is not None:
            ok = walk.category_ok(walk.ev(cat, env, module))
        else:  # a warning instance: its class is the category
            ok = walk.category_ok(frozenset(v[1] for v in values if isinstance(v, tuple) and v[0] == "inst"))
        if not ok:
            return None
        text = walk.text(msg, env) if msg is not None else None
        return [text] if text is not None else sorted(_strs(values))
    if depth <= 0:
        return None
    for callee in walk.ev(call.func, env, module):
        if not (isinstance(callee, tuple) and callee[0] == "def" and isinstance(callee[1].node, (ast.FunctionDef, ast.AsyncFunctionDef))):
            continue
        d: Definition = callee[1]
        if d.tree is None:
            continue  # a function nested in the wrapper's maker: read as a wrapper, not a helper
        helper = _Wrapper(walk, d.node, walk.bind(d.node, call, env, module, callee[2], d.module), d.module)
        for _, path, msg in helper.warnings(depth - 1):
            if not any(helper.blocking(t) for t, _ in path):
                if not msg and call.args:  # its text is lost on the way (a warning instance made of it): the one handed to it
                    first = call.args[0]
                    text = walk.text(first, env)
                    msg = [text] if text is not None else sorted(_strs(walk.ev(first, env, module)))
                return msg
    return None


def _explore(walk: _Walk, atom, call: ast.Call | None, caller_env: Env, caller_module: str, depth: int, seen: set):
    """The wrappers (nested functions taking ``*args`` / ``**kwargs``) a decorator's definition makes,
    followed through the upstream functions and classes it calls: ``(fn, env, module)``."""
    d: Definition = atom[1]
    if id(d.node) in seen or depth < 0 or walk.budget <= 0:
        return
    seen.add(id(d.node))
    if isinstance(d.node, ast.ClassDef):  # a decorator object: its ``__init__`` keeps the arguments, ``__call__`` wraps
        methods = {s.name: s for s in d.node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
        init = methods.get("__init__")
        state = walk.bind(init, call, caller_env, caller_module, atom[2], d.module, skip_first=True) if init else {}
        me = (init.args.posonlyargs + init.args.args)[0].arg if init and (init.args.posonlyargs + init.args.args) else "self"
        kept = {k.replace(f"{me}.", "self.", 1): v for k, v in state.items() if k.startswith(f"{me}.")}
        todo = ["__call__"]
        done = set()
        while todo:
            name = todo.pop()
            fn = methods.get(name)
            if fn is None or name in done:
                continue
            done.add(name)
            env = walk.bind(fn, None, {}, d.module, kept, d.module, skip_first=True)
            yield from _inside(walk, fn, env, d.module, depth, seen)
            first = (fn.args.posonlyargs + fn.args.args)[:1]
            for n in walk.own(fn):  # ``self._decorate_fun(obj)``: a method of the decorator
                if (first and isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
                        and n.func.value.id == first[0].arg):
                    todo.append(n.func.attr)
        return
    env = walk.bind(d.node, call, caller_env, caller_module, atom[2], d.module)
    yield from _inside(walk, d.node, env, d.module, depth, seen)


def _returned_calls(walk: _Walk, fn) -> set[int]:
    """The calls whose result ``fn`` returns: in a ``return`` (``return _wrap(fn, ...)``), or assigned
    to a name it returns (``decorated = _wrap(fn); return decorated``); and those handed one of its
    parameters as is (``setattr(cls, "__init__", _wrap(cls.__init__))``). Only they make what the
    decorator returns: the rest (a docstring helper, a signature read) is not followed."""
    own = walk.own(fn)
    a = fn.args
    params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    returned = {x.id for n in own if isinstance(n, ast.Return) and n.value is not None
                for x in ast.walk(n.value) if isinstance(x, ast.Name)}
    out: set[int] = set()
    for n in own:
        value = None
        if isinstance(n, ast.Return):
            value = n.value
        elif isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id in returned for t in n.targets):
            value = n.value
        if value is not None:
            out |= {id(x) for x in ast.walk(value) if isinstance(x, ast.Call)}
        elif isinstance(n, ast.Call) and any(isinstance(x, ast.Name) and x.id in params for arg in n.args
                                              for x in ast.walk(arg)):
            out.add(id(n))
    return out


def _inside(walk: _Walk, fn, env: Env, module: str, depth: int, seen: set):
    followed = _returned_calls(walk, fn) if depth > 0 else set()
    for n in walk.own(fn):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n is not fn:
            inner = walk.bind(n, None, {}, module, env, module)
            if n.args.vararg is not None or n.args.kwarg is not None:
                yield n, inner, module
            yield from _inside(walk, n, inner, module, depth, seen)
        elif isinstance(n, ast.Call) and id(n) in followed:
            for callee in walk.ev(n.func, env, module):
                if isinstance(callee, tuple) and callee[0] == "def" and callee[1].tree is not None:
                    yield from _explore(walk, callee, n, env, module, depth - 1, seen)


def decorator_deprecations(node: ast.AST, module: str, resolve: Resolve) -> Found:
    """What the upstream decorators on ``node`` (a function or class of module ``module``) say of it."""
    found = Found()
    for dec in getattr(node, "decorator_list", []):
        call = dec if isinstance(dec, ast.Call) else None
        target = dec.func if call is not None else dec
        if dotted(target) is None:
            continue
        walk = _Walk(resolve, budget=BUDGET)
        try:
            for atom in walk.ev(target, {}, module):
                if not (isinstance(atom, tuple) and atom[0] == "def" and atom[1].tree is not None):
                    continue
                if call is None:  # ``@decorator``: the definition takes the decorated function itself
                    wrappers = _inside(walk, atom[1].node, walk.bind(atom[1].node, None, {}, module, None, atom[1].module),
                                       atom[1].module, DEPTH, {id(atom[1].node)}) if not isinstance(atom[1].node, ast.ClassDef) \
                        else _explore(walk, atom, None, {}, module, DEPTH, set())
                else:
                    wrappers = _explore(walk, atom, call, {}, module, DEPTH, set())
                for fn, env, where in wrappers:
                    _Wrapper(walk, fn, env, where).judge(dec, found)
        except RecursionError:
            continue
    return found


def category_test(module: str, resolve: Resolve) -> Callable[[ast.AST], bool]:
    """A test of a ``warn`` call's category expression in module ``module``: a deprecation category,
    or an upstream class deriving from one."""
    walk = _Walk(resolve, budget=BUDGET)

    def test(expr: ast.AST) -> bool:
        try:
            return walk.category_ok(walk.ev(expr, {}, module))
        except RecursionError:
            return False

    return test
