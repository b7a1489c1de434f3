"""Receivers typed from upstream, inside one project function: which local names (and
expressions) hold an object of an upstream class, and how the code reached it.

A receiver's type is a *descriptor*: an upstream dotted path and the steps that lead from
it to the object (``STEPS``); the upstream model (``api.receiver_class``) reads each step
from upstream's annotations, so nothing here knows the upstream source. Sources:

- a parameter annotated with an upstream class (``p: pkg.Cls``, ``Optional[...]``,
  ``... | None``, text), a union of upstream classes (``Union[pkg.A, pkg.B]``, ``pkg.A | pkg.B``:
  a use of each, ``Either``), or a generic of one (``items: list[pkg.Cls]``);
- a call of an upstream callable (``x = pkg.f()``: ``("pkg.f", ("call",))``), of a method
  on a typed receiver (``x = obj.m()``: ``+ ("m:m",)``), an attribute read on one
  (``obj.a``: ``+ ("a:a",)``), or of a project function whose return is annotated with an
  upstream class or a generic of one (``def make() -> pkg.Cls``);
- ``for x in …`` (``iter``), ``for k, v in d.items()`` (``m:items``, ``iter``, ``u0`` /
  ``u1``), ``for i, x in enumerate(…)``, ``x = seq[i]`` (``item``), ``a, b = pair``
  (``u0`` / ``u1``), comprehension targets the same way;
- ``pm.get_plugin("name")`` (``plugin:name``, a string literal): on a pluggy ``PluginManager``, an
  object of the class upstream registers under that name (``pm.register(self, "name")``), read by the model;
- ``with … as x`` (``enter``: ``__enter__``'s return, or ``T`` of a context manager
  function's ``Iterator[T]``);
- ``isinstance(x, pkg.Cls)`` narrowing ``x`` inside the ``if`` body (and the rest of an
  ``and`` test), unless the body assigns ``x``;
- an unannotated parameter of a hook implementation (a function named like one of upstream's
  hook specifications, ``uses.py`` says which): ``("hook:NAME", "p:PARAM")`` from the package's
  name; the binding stage finds the spec called NAME (``api.hook_spec``) and reads the
  annotation of its parameter PARAM, at each version (no spec of that name: not a use).
- ``x[0]`` / ``x[1]`` with a constant index (``i:N``: the N-th of a ``tuple[A, B]``, else an item),
  ``a, b = c, d`` (a tuple display to a tuple target: pairwise);
- PEP 484 type comments: ``x = []  # type: List[T]``, ``for x in …:  # type: T`` (``for a, b in …:
  # type: A, B``: pairwise), and where a parameter has no annotation: per argument
  (``calls,  # type: List[CallSpec2]``) and per function (``# type: (A, B) -> R``), read by
  parsing the ``def``'s header alone again (``type_comments``), only where it holds one;
- ``self.x`` in a method of a project subclass of an upstream class, ``cls.x`` in a class method
  of one (``selfs``, given by the caller): ``("<base>", ("a:x",))``, upstream's declaration of ``x`` read by the model, or the
  project's own declaration of ``x`` (``x: T`` in the class or a project base, ``self.x: T = …``);
- ``type[pkg.Cls]`` / ``Type[pkg.Cls]`` (``ClassOf``): calling it (a local name, ``self.x()``)
  gives a ``pkg.Cls``; a union with a class object among its arms is a ``Choice`` (no member use);
- ``a if isinstance(x, pkg.Cls) else b``: ``x`` is a ``pkg.Cls`` in ``a``, the other arms of its
  union in ``b``; the expression has the arms' type when both agree, else none;
- a function installed as a patch (``uses.py``): the parameter that receives the instance
  (``Scope.seed``): the one ``functools.partial`` binds to a typed receiver whose method the
  patch replaces is that receiver (``self`` of a class patch is only used for the next rule:
  its other uses are the patch's ``self`` uses).

- an unannotated parameter of a project function typed by its callers (``callsites.py``: seeded as
  a patch's instance parameter is, with ``Scope.seed``), or given string constants by them
  (``Scope.consts``); ``copy.copy(x)`` / ``copy.deepcopy(x)`` has ``x``'s type (``Scope.copies``);
- ``getattr(x, "a")`` (``a`` a constant, or a parameter of constants): a read of ``a`` on ``x``;
  ``getattr(x, "a", default)`` and ``hasattr(x, "a")`` are guarded reads (``Receiver.guarded``).

``x.__class__.m(x, ...)`` and ``type(x).m(x, ...)`` with ``x`` typed: a call of ``m`` on ``x``
(``Receiver.unbound``: the first argument is the instance, not one of ``m``'s parameters); the
class object itself (``x.__class__``, ``type(x)``) is no member use.

Flow-insensitive: a name's type is what *every* assignment of it in the function gives
(its parameter's annotation included); a name assigned an upstream-typed value and
something else (``None`` too) is rebound: its uses are counted unknown, never typed by
its first assignment.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from upgrade_checklists.core.astwalk import walk
from upgrade_checklists.project.calls import _inside, dotted, resolve

#: the steps a descriptor can hold (``m:NAME``, ``a:NAME`` with a member's name, ``i:N`` a constant
#: index; ``hook:NAME`` then ``p:PARAM`` first: a parameter of a hook implementation, typed by
#: upstream's spec of that hook)
STEPS = ("call", "m:", "a:", "iter", "item", "i:", "u0", "u1", "enter", "hook:", "p:", "plugin:")
#: the one step of a name given an upstream-typed value and something else in the same function
REBOUND = "rebound"
#: after REBOUND: a parameter typed by no agreement of its callers (``callsites.py``), and why
#: (``CALLERS + "disagree"``, ``CALLERS + "escapes"``)
CALLERS = "callers:"

_ITERABLES = frozenset({"list", "List", "Sequence", "MutableSequence", "Iterable", "Iterator", "Generator",
                        "AsyncIterator", "AsyncIterable", "AsyncGenerator", "set", "Set", "frozenset", "FrozenSet",
                        "AbstractSet", "MutableSet", "Collection", "deque", "Deque"})
_MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict", "DefaultDict"})
_MANAGERS = frozenset({"Iterator", "Generator", "ContextManager", "AbstractContextManager", "AsyncIterator",
                       "AsyncGenerator", "AsyncContextManager", "AbstractAsyncContextManager"})
_POPPED = frozenset({"list", "List", "MutableSequence", "deque", "Deque", "set", "Set", "MutableSet"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


@dataclass(frozen=True)
class Up:
    """An object reached from upstream path ``start`` through ``steps``."""

    start: str
    steps: tuple[str, ...] = ()

    def then(self, step: str) -> Up:
        return Up(self.start, (*self.steps, step))


@dataclass(frozen=True)
class Generic:
    """A project annotation that is a generic of an upstream class (``list[pkg.Cls]``), with the
    bindings of the file that wrote it."""

    node: ast.expr
    bound: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class View:
    """``d.keys()`` / ``d.values()`` / ``d.items()`` of a project generic ``d``."""

    of: Generic
    which: str


@dataclass(frozen=True)
class Pair:
    """An element of ``d.items()`` of a project generic, before unpacking."""

    key: ast.expr
    value: ast.expr
    bound: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Either:
    """An object of one of these upstream classes (a union annotation): a member used on it is a
    use on each."""

    members: tuple[Up, ...]


@dataclass(frozen=True)
class Enumerated:
    """An element of ``enumerate(x)``: ``(int, an element of x)``."""

    inner: object


@dataclass(frozen=True)
class ClassOf:
    """A class object (``type[pkg.Cls]`` / ``Type[pkg.Cls]``): calling it gives an object of ``of``;
    a member read on it is not followed."""

    of: Up


@dataclass(frozen=True)
class Choice:
    """A union with a class object among its arms (``type[pkg.A] | pkg.A``): no member use of its
    own; ``isinstance`` in a conditional expression picks arms of it (``Scope.expr``)."""

    arms: tuple[Up | ClassOf, ...]


Type = Up | Either | Generic | View | Pair | Enumerated | ClassOf | Choice | None


@dataclass(frozen=True)
class Receiver:
    """A use of a member on a typed receiver: ``node`` is the ``ast.Attribute`` (its ``attr`` the
    member); ``call`` the ``ast.Call`` when the member is called; ``why``: how the type was found."""

    node: ast.Attribute
    call: ast.Call | None
    type: Up
    why: str
    #: ``x.__class__.m(x, ...)`` / ``type(x).m(x, ...)``: the call's first argument is the instance
    unbound: bool = False
    #: a use on one arm of a union (``x: pkg.A | pkg.B``): every arm's class path, in the union's order
    arms: tuple[str, ...] = ()
    #: ``getattr(x, "a", default)`` / ``hasattr(x, "a")``: a read whose absence the code handles
    guarded: bool = False


def _parse_text(ann: ast.expr | None) -> ast.expr | None:
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            return ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return None
    return ann


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def annotation_type(ann: ast.expr | None, bound: dict[str, str], modules: list[str]) -> Type:
    """What a project annotation says: an upstream class (``Up(cls)``), a generic holding one
    (``Generic``), or None (``Optional[X]`` / ``X | None`` are ``X``); a union of upstream classes
    is ``Either`` of them, a union with anything else (a project class, a generic) None."""
    ann = _parse_text(ann)
    if ann is None:
        return None
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        return _union(_arms(ann), bound, modules)
    if isinstance(ann, ast.Subscript):
        head = (dotted(ann.value) or "").rsplit(".", 1)[-1]
        if head == "Optional":
            return annotation_type(ann.slice, bound, modules)
        if head == "Union":
            return _union(list(ann.slice.elts) if isinstance(ann.slice, ast.Tuple) else [ann.slice], bound, modules)
        if head in _ITERABLES | _MAPPINGS | _MANAGERS | {"tuple", "Tuple"}:
            return Generic(ann, tuple(sorted(bound.items())))
        if head in ("type", "Type"):
            inner = annotation_type(ann.slice, bound, modules)
            return ClassOf(inner) if isinstance(inner, Up) else None
        return None
    path = resolve(ann, bound) if isinstance(ann, (ast.Name, ast.Attribute)) else None
    return Up(path) if path is not None and _inside(path, modules) else None


def qualified_annotation(ann: ast.expr | None, bound: dict[str, str]) -> str | None:
    """A project annotation as text, each name qualified by what the module binds it to
    (``Tensor | tuple`` with ``from torch import Tensor``: ``torch.Tensor | tuple``); a name the
    module does not bind is kept as written (a builtin). None: no annotation, or not parseable."""
    ann = _parse_text(ann)
    if ann is None:
        return None

    class _Qualify(ast.NodeTransformer):
        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            path = resolve(node, bound)
            return ast.Name(path, ast.Load()) if path is not None else self.generic_visit(node)

        def visit_Name(self, node: ast.Name) -> ast.AST:
            return ast.Name(bound.get(node.id, node.id), ast.Load())

        def visit_Constant(self, node: ast.Constant) -> ast.AST:
            inner = _parse_text(node) if isinstance(node.value, str) else None
            return self.visit(inner) if inner is not None else node

    try:
        return ast.unparse(_Qualify().visit(ann))
    except (RecursionError, ValueError, TypeError):
        return None


def _arms(ann: ast.expr) -> list[ast.expr]:
    """The sides of ``A | B | C`` (parsed as ``(A | B) | C``)."""
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        return _arms(ann.left) + _arms(ann.right)
    return [ann]


def _union(arms: list[ast.expr], bound: dict[str, str], modules: list[str]) -> Type:
    """A union's type: its one arm besides ``None``, or ``Either`` when every arm is an upstream class."""
    arms = [a for a in arms if not _is_none(_parse_text(a))]
    if len(arms) == 1:
        return annotation_type(arms[0], bound, modules)
    types = [annotation_type(a, bound, modules) for a in arms]
    if not types or not all(isinstance(t, (Up, ClassOf)) for t in types):
        return None
    return _joined(types)


def _joined(types: list) -> Type:
    """One type for a union of these arms (each ``Up`` or ``ClassOf``): the arm when all are one,
    ``Either`` of upstream classes, ``Choice`` when a class object is among them."""
    members = tuple(dict.fromkeys(types))  # ``A | A``: one
    if len(members) == 1:
        return members[0]
    return Either(members) if all(isinstance(m, Up) for m in members) else Choice(members)


def _element(g: Generic, step: str, modules: list[str]) -> Type:
    """One step into a project generic (the same rules as the model's ``_element``)."""
    node = g.node
    name = (dotted(node.value) or "").rsplit(".", 1)[-1]
    items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    pair = len(items) == 2
    pick = None
    if step.startswith("i:"):  # ``x[N]``: the N-th of a fixed tuple, else an item
        n = int(step[2:])
        fixed = name in ("tuple", "Tuple") and not (isinstance(items[-1], ast.Constant) and items[-1].value is Ellipsis)
        if fixed:
            pick = items[n] if n < len(items) else None
            return None if pick is None else annotation_type(pick, dict(g.bound), modules)
        step = "item"
    if step in ("iter", "item"):
        if name in _ITERABLES or (name in _MAPPINGS and step == "iter"):
            pick = items[0]
        elif name in _MAPPINGS and pair:
            pick = items[1]
        elif name in ("tuple", "Tuple") and pair and isinstance(items[1], ast.Constant) and items[1].value is Ellipsis:
            pick = items[0]
    elif step in ("m:keys", "m:values", "m:items") and name in _MAPPINGS and pair:
        return View(g, step[2:])
    elif step in ("m:pop", "m:get", "m:setdefault") and (name in _MAPPINGS and pair or name in _POPPED):
        pick = items[1] if name in _MAPPINGS else items[0]  # ``d.get(k)``: a value; ``seq.pop()``: an element
    elif step in ("u0", "u1") and name in ("tuple", "Tuple") and pair and not (
            isinstance(items[1], ast.Constant) and items[1].value is Ellipsis):
        pick = items[int(step[1])]
    elif step == "enter" and name in _MANAGERS:
        pick = items[0]
    return None if pick is None else annotation_type(pick, dict(g.bound), modules)


def hook_prefix(steps: tuple[str, ...]) -> tuple[str, ...]:
    """``("hook:NAME", "p:PARAM")`` when ``steps`` start from a hook implementation's parameter, else ``()``."""
    return steps[:2] if steps[:1] and steps[0].startswith("hook:") else ()


def rebound(kinds: list) -> Type:
    """A name given these different types: ``Up(start, (REBOUND,))`` with the first upstream start
    (its uses are counted unknown, under that package), or None when none is upstream's. When every
    upstream one starts at attribute ``x`` of the same class (``self.x…`` in a subclass), that step
    follows: ``(REBOUND, "a:x")`` (not a use at all where upstream has no ``x``). A hook parameter
    (when nothing else is upstream's) keeps its ``hook:``/``p:`` steps before REBOUND: the binding
    stage counts it only where upstream has that hook."""
    ups = [k.members[0] if isinstance(k, Either) else k for k in kinds if isinstance(k, (Up, Either))]
    if not ups:
        return None
    first = next((k for k in ups if not hook_prefix(k.steps)), ups[0])
    if hook_prefix(first.steps):
        return Up(first.start, (*hook_prefix(first.steps), REBOUND))
    head = first.steps[:1] if first.steps[:1] and first.steps[0].startswith("a:") else ()
    if head and all(k.start == first.start and k.steps[:1] == head for k in ups):
        return Up(first.start, (REBOUND, *head))
    return Up(first.start, (REBOUND,))


def is_rebound(t: Type) -> bool:
    """``(REBOUND, …)``, or ``("hook:NAME", "p:PARAM", REBOUND)`` for a hook parameter."""
    return isinstance(t, Up) and REBOUND in t.steps


def then(t: Type, step: str, modules: list[str]) -> Type:
    """``t`` after one step (``STEPS``); a rebound name stays rebound, None stays None."""
    if t is None or is_rebound(t):
        return t
    if isinstance(t, Up):
        return t.then(step)
    if isinstance(t, Either):
        return Either(tuple(m.then(step) for m in t.members))
    if isinstance(t, Generic):
        return _element(t, step, modules)
    if isinstance(t, View) and step == "iter":
        if t.which == "items":
            items = t.of.node.slice.elts
            return Pair(items[0], items[1], t.of.bound)
        return _element(t.of, "iter" if t.which == "keys" else "item", modules)
    if isinstance(t, Pair) and step in ("u0", "u1", "i:0", "i:1"):
        return annotation_type(t.key if step[-1] == "0" else t.value, dict(t.bound), modules)
    if isinstance(t, Enumerated):
        return t.inner if step in ("u1", "i:1") else None
    if isinstance(t, ClassOf) and step == "call":
        return t.of
    return None

_TYPE_COMMENT = re.compile(r"#\s*type:(?!\s*ignore\b)")


def _comment_expr(text: str | None) -> ast.expr | None:
    if not text:
        return None
    try:
        return ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # not an expression, or a hostile one
        return None


def type_comments(fn: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str] | None) -> tuple[dict[str, ast.expr], ast.expr | None]:
    """The PEP 484 type comments of ``fn``'s parameters (name -> type expression) and its return:
    per argument (``calls,  # type: List[X]``) and per function (``# type: (A, B) -> R``; ``self`` /
    ``cls`` may be left out of it). Only the ``def``'s header is parsed again, with
    ``type_comments``, and only when it holds such a comment: the file was parsed without them
    (the every-commit check never pays for this)."""
    if lines is None or not fn.body:
        return {}, None
    first, body = fn.lineno, fn.body[0].lineno
    header = lines[first - 1: body - 1]
    if not header or not any(_TYPE_COMMENT.search(x) for x in header):
        return {}, None
    text = "\n".join([header[0].lstrip(), *header[1:]]) + "\n    pass\n"
    try:
        tree = ast.parse(text, type_comments=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}, None
    node = tree.body[0] if tree.body else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return {}, None
    a = node.args
    params = a.posonlyargs + a.args + a.kwonlyargs
    out = {p.arg: e for p in params if (e := _comment_expr(p.type_comment)) is not None}
    returns = None
    if node.type_comment:
        try:
            sig = ast.parse(node.type_comment, mode="func_type")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            sig = None
        if sig is not None:
            returns = sig.returns
            types = [t for t in sig.argtypes if not (isinstance(t, ast.Constant) and t.value is Ellipsis)]
            named = a.posonlyargs + a.args
            if len(types) == len(named) - 1 and named[0].arg in ("self", "cls"):
                named = named[1:]  # ``self`` / ``cls`` left out of the comment
            if len(types) == len(named):
                for p, t in zip(named, types):
                    out.setdefault(p.arg, t)
    return out, returns


def _own_nodes(fn: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``fn``'s body that run in its own scope: the bodies of nested functions,
    lambdas and classes are left out (their names are theirs), but what their definition
    evaluates here is not (decorators, defaults, bases: ``@cli.command()`` on a nested ``def``)."""
    stack = list(reversed(fn.body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            here: list[ast.AST] = list(getattr(node, "decorator_list", []))
            if isinstance(node, ast.ClassDef):
                here += node.bases + [k.value for k in node.keywords]
            else:
                here += node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
            stack.extend(reversed(here))
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


class Scope:
    """The typed names of one project function (flow-insensitive, see the module's docstring)."""

    def __init__(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, bound: dict[str, str], modules: list[str],
                 returns: Callable[[ast.expr], Type], lines: list[str] | None = None,
                 selfs: Callable[[str], Type] | None = None, hook: tuple[str, str, bool] | None = None) -> None:
        """``bound``: the file's upstream bindings; ``returns(func)``: the type a call of a project
        callable gives (its annotated return), or None; ``lines``: the file's text (for type
        comments); ``selfs(x)``: the type of ``self.x`` when ``fn`` is a method of a project
        subclass of an upstream class (its first parameter is ``self``), else None; ``hook``:
        ``(start, hook name, method)`` when ``fn`` may implement upstream's hook of that name
        (``method``: its first parameter is ``self``): each parameter pluggy passes (positional, no
        default) that the project does not annotate is typed by the spec's annotation of it."""
        self.fn, self.bound, self.modules, self.returns = fn, bound, modules, returns
        self.hooked = hook_params(fn, hook)
        self.comments, _ = type_comments(fn, lines)
        self.lines = lines
        a = fn.args
        first = (a.posonlyargs + a.args)[:1]
        self.me = first[0].arg if selfs is not None and first else None
        self.selfs = selfs
        self.nodes = list(_own_nodes(fn))
        self.defs: dict[str, list[tuple[str, ast.AST]]] = {}  # name -> (how, what) for each binding
        a = fn.args
        for p in a.posonlyargs + a.args + a.kwonlyargs:
            self.defs.setdefault(p.arg, []).append(("param", p))
        for p in (a.vararg, a.kwarg):
            if p is not None:
                self.defs.setdefault(p.arg, []).append(("other", p))
        self._collect()
        self.memo: dict[str, Type] = {}
        self.busy: set[str] = set()
        #: id(Name node) -> its type while a conditional expression's arm is read (``_conditional``)
        self.forced: dict[int, Type] = {}
        #: parameters that receive the instance of an upstream class (a patch's): name -> (type, how);
        #: ``classes_only``: of those, the ones typed only for ``x.__class__.m(x)`` / ``type(x).m(x)``
        self.seeds: dict[str, tuple[Up, str]] = {}
        self.classes_only: set[str] = set()
        #: the enclosing function's scope: a name this one does not bind is the closure's (``link``)
        self.parent: Scope | None = None
        #: parameters every call site gives string constants (``callsites.py``): name -> (constants, how)
        self.consts: dict[str, tuple[frozenset[str], str]] = {}
        #: the names this file binds to the standard library's ``copy.copy`` / ``copy.deepcopy``
        #: (``copy.copy`` spelled so, or a name imported from ``copy``): a copy has its argument's type
        self.copies: frozenset[str] = frozenset()

    def seed(self, param: str, t: Up, how: str, classes_only: bool = False) -> None:
        """Parameter ``param`` (unannotated) receives an object of type ``t`` (``how``: why, as text). A
        type from a hook implementation's parameter (``hook:`` steps: only if upstream has that hook)
        does not replace one known otherwise."""
        before = self.seeds.get(param)
        if before is not None and hook_prefix(t.steps) and not hook_prefix(before[0].steps):
            return
        self.seeds[param] = (t, how)
        if classes_only:
            self.classes_only.add(param)
        self.memo.clear()

    def unseed(self, param: str) -> None:
        """Forget the seed of ``param`` (a type its callers no longer agree on)."""
        if self.seeds.pop(param, None) is not None:
            self.memo.clear()

    def link(self, parent: Scope) -> None:
        """``parent`` encloses this function: names this one does not bind are read from it, and a
        name this one declares ``nonlocal`` is assigned something else there too (not typed)."""
        self.parent = parent
        for node in self.nodes:
            if isinstance(node, ast.Nonlocal):
                for n in node.names:
                    parent.defs.setdefault(n, []).append(("other", node))

    def _bind(self, target: ast.AST, how: str, what: ast.AST) -> None:
        """``target`` is assigned ``what`` (``how``: ``value``, ``iter`` of it, ``enter`` of it)."""
        if isinstance(target, ast.Name):
            self.defs.setdefault(target.id, []).append((how, what))
        elif isinstance(target, (ast.Tuple, ast.List)):
            elts = target.elts
            for i, e in enumerate(elts):
                if isinstance(e, ast.Name):
                    if len(elts) == 2 and not any(isinstance(x, ast.Starred) for x in elts):
                        self.defs.setdefault(e.id, []).append((f"{how}+u{i}", what))
                    else:
                        self.defs.setdefault(e.id, []).append(("other", e))
                else:
                    self._bind(e, "other", e)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, "other", target)

    def _collect(self) -> None:
        for node in self.nodes:
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    v = node.value
                    if (isinstance(t, (ast.Tuple, ast.List)) and isinstance(v, (ast.Tuple, ast.List))
                            and len(t.elts) == len(v.elts)
                            and not any(isinstance(x, ast.Starred) for x in (*t.elts, *v.elts))):
                        for te, ve in zip(t.elts, v.elts):  # ``a, b = c, d``: pairwise
                            self._bind(te, "value", ve)
                    elif isinstance(t, ast.Name) and (ann := self._assign_comment(node)) is not None:
                        self.defs.setdefault(t.id, []).append(("annotation", ann))  # ``x = []  # type: List[T]``
                    else:
                        self._bind(t, "value", v)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                self.defs.setdefault(node.target.id, []).append(("annotation", node.annotation))
            elif isinstance(node, (ast.For, ast.AsyncFor)) and (ann := self._for_comment(node)) is not None:
                for name, t in ann:  # ``for x in …:  # type: T``, ``for a, b in …:  # type: A, B``
                    self.defs.setdefault(name, []).append(("annotation", t))
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                self._bind(node.target, "iter", node.iter)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if item.optional_vars is not None:
                        self._bind(item.optional_vars, "enter", item.context_expr)
            elif isinstance(node, ast.NamedExpr):
                self._bind(node.target, "value", node.value)
            elif isinstance(node, (ast.AugAssign,)) and isinstance(node.target, ast.Name):
                self.defs.setdefault(node.target.id, []).append(("other", node))
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                for n in node.names:
                    self.defs.setdefault(n, []).append(("other", node))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.defs.setdefault(node.name, []).append(("other", node))
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for al in node.names:
                    self.defs.setdefault((al.asname or al.name).split(".")[0], []).append(("other", node))
            elif isinstance(node, ast.ExceptHandler) and node.name:
                self.defs.setdefault(node.name, []).append(("other", node))
            elif isinstance(node, ast.Delete):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        self.defs.setdefault(t.id, []).append(("other", t))
            elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
                self.defs.setdefault(node.name, []).append(("other", node))
            elif isinstance(node, ast.MatchMapping) and node.rest:
                self.defs.setdefault(node.rest, []).append(("other", node))

    def _for_comment(self, node: ast.For | ast.AsyncFor) -> list[tuple[str, ast.expr]] | None:
        """The names a ``for`` binds with the types its PEP 484 type comment gives them (at the end
        of the header's line: ``for x in xs:  # type: T``; a tuple of names takes a tuple of as many
        types, ``# type: A, B`` or ``(A, B)``). None when there is no such comment or it does not
        match the target (then the loop types its names as any other)."""
        end = node.iter.end_lineno or node.lineno
        if self.lines is None or not node.body or node.body[0].lineno <= end or end > len(self.lines):
            return None  # ``for x in xs: body  # type: …`` is the body's comment
        line = self.lines[end - 1]
        m = _TYPE_COMMENT.search(line)
        ann = _comment_expr(line[m.end():].split("#", 1)[0]) if m is not None else None
        if ann is None:
            return None
        target = node.target
        if isinstance(target, ast.Name):
            return [(target.id, ann)]
        if (isinstance(target, (ast.Tuple, ast.List)) and isinstance(ann, ast.Tuple) and len(ann.elts) == len(target.elts)
                and all(isinstance(e, ast.Name) for e in target.elts)):
            return [(e.id, t) for e, t in zip(target.elts, ann.elts)]
        return None

    def _assign_comment(self, node: ast.Assign) -> ast.expr | None:
        """The PEP 484 type comment at the end of an assignment's last line, if any."""
        if self.lines is None or not node.end_lineno or node.end_lineno > len(self.lines):
            return None
        line = self.lines[node.end_lineno - 1]
        m = _TYPE_COMMENT.search(line)
        return _comment_expr(line[m.end():].split("#", 1)[0]) if m is not None else None

    # -- types ------------------------------------------------------------------------------

    def name(self, n: str) -> Type:
        """The type of local name ``n`` over the whole function; None when it is not local or
        not upstream's; REBOUND when its assignments disagree."""
        if n in self.memo:
            return self.memo[n]
        defs = self.defs.get(n)
        if not defs and self.parent is not None:
            return self.parent.name(n)  # a closure's name: the enclosing function's, over all of it
        if not defs or n in self.busy:
            return None
        self.busy.add(n)
        kinds = []
        for how, what in defs:
            kinds.append(self._def_type(how, what))
        self.busy.discard(n)
        found: Type = None
        typed = [k for k in kinds if k is not None]
        if typed:
            found = typed[0] if all(k == typed[0] for k in kinds) else rebound(typed)
        self.memo[n] = found
        return found

    def _def_type(self, how: str, what: ast.AST) -> Type:
        base, _, unpack = how.partition("+")
        if base == "param":
            t = annotation_type(what.annotation or self.comments.get(what.arg), self.bound, self.modules)
            seeded = self.seeds.get(what.arg)
            if t is None and seeded is not None and what.arg not in self.classes_only:
                t = seeded[0]
            elif t is None and what.annotation is None and what.arg not in self.comments and what.arg in self.hooked:
                t = self.hooked[what.arg]
        elif base == "annotation":
            t = annotation_type(what, self.bound, self.modules)
        elif base == "value":
            t = self.expr(what)
        elif base == "iter":
            t = self._iterated(what)
        elif base == "enter":
            t = then(self.expr(what), "enter", self.modules)
        else:
            return None
        return then(t, unpack, self.modules) if unpack else t

    def _iterated(self, it: ast.expr) -> Type:
        """The type of an element of ``it`` (``enumerate(x)`` gives pairs whose second is ``x``'s)."""
        if (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate"
                and it.func.id not in self.defs and len(it.args) == 1 and not it.keywords):
            inner = then(self.expr(it.args[0]), "iter", self.modules)
            return Enumerated(inner) if inner is not None else None
        return then(self.expr(it), "iter", self.modules)

    def expr(self, e: ast.expr) -> Type:
        """The type of the object expression ``e`` gives."""
        if isinstance(e, ast.Name):
            return self.forced[id(e)] if id(e) in self.forced else self.name(e.id)
        if isinstance(e, ast.Call):
            func = e.func
            spelled = dotted(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
            if (spelled in self.copies and spelled.split(".")[0] not in self.defs and len(e.args) == 1
                    and not e.keywords and not isinstance(e.args[0], ast.Starred)):
                return self.expr(e.args[0])  # ``copy.copy(x)``: typeshed's ``def copy(x: _T) -> _T``
            path = resolve(func, self.bound) if isinstance(func, (ast.Name, ast.Attribute)) else None
            if path is not None and (not isinstance(func, ast.Name) or func.id not in self.defs):
                return Up(path, ("call",)) if _inside(path, self.modules) else None
            if (isinstance(func, ast.Attribute) and func.attr == "get_plugin" and len(e.args) == 1 and not e.keywords
                    and isinstance(e.args[0], ast.Constant) and isinstance(e.args[0].value, str)):
                return then(self.expr(func.value), f"plugin:{e.args[0].value}", self.modules)  # pluggy's registry by name
            if isinstance(func, ast.Attribute):
                owner = self._self_scope(func.value.id) if isinstance(func.value, ast.Name) else None
                held = owner.selfs(func.attr) if owner is not None else None
                if isinstance(held, ClassOf):  # ``self.x()`` where the project declares ``x: type[pkg.Cls]``
                    return held.of
                return then(self.expr(func.value), f"m:{func.attr}", self.modules)
            if isinstance(func, ast.Name) and func.id not in self.defs:
                return self.returns(func)
            if isinstance(func, ast.Name):  # a local name holding a class object (``type[pkg.Cls]``)
                held = self.expr(func)
                return held.of if isinstance(held, ClassOf) else None
            return None
        if isinstance(e, ast.Attribute):
            if resolve(e, self.bound) is not None:
                return None  # an upstream name (a class, a function), not an object of one
            if isinstance(e.value, ast.Name):
                owner = self._self_scope(e.value.id)
                if owner is not None:
                    return owner.selfs(e.attr)
            return then(self.expr(e.value), f"a:{e.attr}", self.modules)
        if isinstance(e, ast.Subscript):
            s = e.slice
            n = s.value if isinstance(s, ast.Constant) and type(s.value) is int else None
            return then(self.expr(e.value), f"i:{n}" if n is not None and 0 <= n < 8 else "item", self.modules)
        if isinstance(e, ast.IfExp):
            return self._conditional(e)
        if isinstance(e, (ast.Await,)):
            return None
        return None

    def _conditional(self, e: ast.IfExp) -> Type:
        """``a if isinstance(x, pkg.C) else b``: ``x`` is a ``C`` in ``a`` and, in ``b``, one of the
        other arms of its union (``type[C] | C`` -> ``type[C]``; nothing left: unknown); any other
        test narrows nothing. The expression's type is the arms' type when they agree, else unknown."""
        got = self._isinstance(e.test)
        if got is None:
            body, orelse = self.expr(e.body), self.expr(e.orelse)
        else:
            name, cls = got
            was = self.expr(ast.Name(id=name, ctx=ast.Load()))
            arms = was.arms if isinstance(was, Choice) else was.members if isinstance(was, Either) else (was,)
            rest = [a for a in arms if a is not None and a != Up(cls)]
            body = self._forcing(e.body, name, Up(cls))
            orelse = self._forcing(e.orelse, name, _joined(rest) if rest and not is_rebound(was) else None)
        return body if body is not None and body == orelse else None

    def _forcing(self, e: ast.expr, name: str, t: Type) -> Type:
        """The type of ``e`` with each read of ``name`` in it typed ``t``."""
        ids = [id(n) for n in walk(e) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
        for i in ids:
            self.forced[i] = t
        try:
            return self.expr(e)
        finally:
            for i in ids:
                self.forced.pop(i, None)

    def enclosing_selfs(self):
        """The ``selfs`` of this method, or of the method enclosing this closure; else None."""
        sc: Scope | None = self
        while sc is not None and sc.selfs is None:
            sc = sc.parent
        return None if sc is None else sc.selfs

    def _self_scope(self, n: str) -> Scope | None:
        """The scope whose ``self`` the name ``n`` is (this method's, or an enclosing one's for a
        closure), when that name is bound nowhere else in it; else None."""
        if n == self.me and selfs_only_param(self.defs.get(n, [])):
            return self
        if n not in self.defs and self.parent is not None:
            return self.parent._self_scope(n)
        return None

    # -- narrowing --------------------------------------------------------------------------

    def narrowed(self) -> dict[int, tuple[Up, str]]:
        """id(Name node) -> (its class, how) for each ``x`` read where ``isinstance(x, pkg.Cls)``
        holds: the ``if`` body (and the rest of an ``and`` test), unless the body assigns ``x``."""
        out: dict[int, tuple[Up, str]] = self._narrowed_after()
        for node in self.nodes:  # outer ``if`` first: an inner one's narrowing wins
            if not isinstance(node, ast.If):
                continue
            tests = node.test.values if isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.And) else [node.test]
            for i, t in enumerate(tests):
                got = self._isinstance(t)
                if got is None:
                    continue
                name, cls = got
                stored = any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
                             for s in node.body for n in walk(s))
                if stored:
                    continue
                region = [*tests[i + 1:], *node.body]
                how = f"`{name}` narrowed by `isinstance({name}, {cls})` in `{self.fn.name}`"
                for r in region:
                    for n in walk(r):
                        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
                            out[id(n)] = (Up(cls), how)
        return out

    def _narrowed_after(self) -> dict[int, tuple[Up, str]]:
        """id(Name node) -> (its class, how) for each ``x`` read after ``assert isinstance(x, pkg.Cls)``, or
        after ``if not isinstance(x, pkg.Cls): return`` (a body that ends in ``return``, ``raise``,
        ``continue`` or ``break``, no ``else``), in the statements that follow in the same block, up to
        one that assigns ``x``."""
        out: dict[int, tuple[Up, str]] = {}
        for block in self._blocks():
            for i, stmt in enumerate(block):
                for name, cls, shown in self._holds_after(stmt):
                    how = f"`{name}` narrowed by `{shown}` in `{self.fn.name}`"
                    for later in block[i + 1:]:
                        if any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) for n in walk(later)):
                            break
                        for n in walk(later):
                            if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
                                out[id(n)] = (Up(cls), how)
        return out

    def _blocks(self) -> Iterator[list[ast.stmt]]:
        """The statement lists of this function's own body (nested functions' bodies left out)."""
        if isinstance(getattr(self.fn, "body", None), list):
            yield self.fn.body
        for node in self.nodes:
            if isinstance(node, _SCOPES):
                continue
            for field in ("body", "orelse", "finalbody"):
                block = getattr(node, field, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    yield block

    def _holds_after(self, stmt: ast.stmt) -> list[tuple[str, str, str]]:
        """(name, class, the test as shown) for each ``isinstance(name, pkg.Cls)`` that holds once ``stmt`` ran
        and the block goes on: an ``assert`` of it (alone or in an ``and``), or an ``if`` of its negation (alone
        or in an ``or``) whose body always leaves the block."""
        if isinstance(stmt, ast.Assert):
            tests = stmt.test.values if isinstance(stmt.test, ast.BoolOp) and isinstance(stmt.test.op, ast.And) else [stmt.test]
            got = [self._isinstance(t) for t in tests]
            return [(g[0], g[1], f"assert isinstance({g[0]}, {g[1]})") for g in got if g is not None]
        if not (isinstance(stmt, ast.If) and not stmt.orelse and stmt.body
                and isinstance(stmt.body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))):
            return []
        tests = stmt.test.values if isinstance(stmt.test, ast.BoolOp) and isinstance(stmt.test.op, ast.Or) else [stmt.test]
        got = [self._isinstance(t.operand) for t in tests if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not)]
        exit_ = type(stmt.body[-1]).__name__.lower()
        return [(g[0], g[1], f"if not isinstance({g[0]}, {g[1]}): {exit_}") for g in got if g is not None]

    def _isinstance(self, t: ast.expr) -> tuple[str, str] | None:
        if not (isinstance(t, ast.Call) and isinstance(t.func, ast.Name) and t.func.id == "isinstance"
                and "isinstance" not in self.defs and len(t.args) == 2 and isinstance(t.args[0], ast.Name)):
            return None
        cls = t.args[1]
        path = resolve(cls, self.bound) if isinstance(cls, (ast.Name, ast.Attribute)) else None
        return (t.args[0].id, path) if path is not None and _inside(path, self.modules) else None


def hook_params(fn: ast.FunctionDef | ast.AsyncFunctionDef, hook: tuple[str, str, bool] | None) -> dict[str, Up]:
    """The parameters of hook implementation ``fn`` the spec types: pluggy passes, by the spec's names,
    the positional parameters without a default (``self`` left out of a method); those the project
    annotates keep the project's annotation."""
    if hook is None:
        return {}
    start, name, method = hook
    a = fn.args
    positional = a.posonlyargs + a.args
    positional = positional[: len(positional) - len(a.defaults)]
    if method:
        positional = positional[1:]
    return {p.arg: Up(start, (f"hook:{name}", f"p:{p.arg}")) for p in positional if p.annotation is None}


def selfs_only_param(defs: list) -> bool:
    return len(defs) == 1 and defs[0][0] == "param"


def describe(t: Up) -> str:
    """How the code reached the object, as text: ``pkg.f()``, ``pkg.Cls.m()`` iterated, ..."""
    prefix = hook_prefix(t.steps)
    if prefix:  # from the parameter itself (who gave it is said by ``_why``)
        return describe(Up(prefix[1][2:], t.steps[2:]))
    text = f"`{t.start}`"
    for step in t.steps:
        if step == "call":
            text = text[:-1] + "()`"
        elif step.startswith("m:"):
            text = text[:-1] + f".{step[2:]}()`"
        elif step.startswith("a:"):
            text = text[:-1] + f".{step[2:]}`"
        elif step == "iter":
            text = f"an element of {text}"
        elif step == "item":
            text = f"an item of {text}"
        elif step.startswith("i:"):
            text = text[:-1] + f"[{step[2:]}]`"
        elif step in ("u0", "u1"):
            text = f"{'the first' if step == 'u0' else 'the second'} of {text}"
        elif step == "enter":
            text = f"`with {text[1:-1]}`"
        elif step.startswith("plugin:"):
            text = text[:-1] + f".get_plugin({step[7:]!r})`"
    return text


def receivers(scope: Scope) -> list[Receiver]:
    """Each member read or called on a receiver typed from upstream in the function's own body
    (``x.m(...)``, ``x.a``, also ``pkg.f().m()`` and ``x.a.m()``), with its type (``Up``; its
    steps ``(REBOUND,)`` for a name assigned more than one kind of value)."""
    bound = scope.bound
    narrowed = scope.narrowed()
    calls = {id(n.func): n for n in scope.nodes if isinstance(n, ast.Call)}
    out: list[Receiver] = []
    for node in scope.nodes:
        if not (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)):
            continue
        value = node.value
        if node.attr == "__class__" and isinstance(value, ast.Name):
            continue  # the class object: no member of it is used yet
        inst = _class_of(scope, value)
        if inst is not None:
            call = calls.get(id(node))
            if call is None or not call.args or not (isinstance(call.args[0], ast.Name) and call.args[0].id == inst.id):
                continue  # a member of the class object read, or called without the instance first: not followed
            t, why = _instance_type(scope, inst, narrowed)
            if t is not None:
                out.append(Receiver(node, call, t, f"{why}; called through its class, `{inst.id}` as `self`", unbound=True))
            continue
        if isinstance(value, ast.Name) and id(value) in narrowed:
            t, why = narrowed[id(value)]
        else:
            if isinstance(value, (ast.Name, ast.Attribute)) and resolve(value, bound) is not None:
                continue  # ``pkg.mod.f``: a name of the package, not a receiver
            t = scope.expr(value)
            if isinstance(t, Either):
                for m in t.members:
                    out.append(Receiver(node, calls.get(id(node)), m, _why(scope, value, m, t),
                                        arms=tuple(x.start for x in t.members)))
                continue
            if not isinstance(t, Up):
                continue
            why = _why(scope, value, t)
        out.append(Receiver(node, calls.get(id(node)), t, why))
    return out + _getattr_reads(scope, narrowed)


def _getattr_reads(scope: Scope, narrowed: dict) -> list[Receiver]:
    """``getattr(x, "a")`` on a typed receiver: a read of ``a`` on ``x`` (as ``x.a``); the name may be a
    parameter every caller gives a constant (``Scope.consts``: a read of each). ``getattr`` with a
    default and ``hasattr`` are guarded reads (``Receiver.guarded``): the code handles the absence."""
    out: list[Receiver] = []
    for call in scope.nodes:
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in ("getattr", "hasattr")
                and call.func.id not in scope.defs and not call.keywords and len(call.args) in ((2, 3) if call.func.id == "getattr" else (2,))
                and not any(isinstance(a, ast.Starred) for a in call.args)):
            continue
        value, name = call.args[0], call.args[1]
        how = ""
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            names = [name.value]
        elif isinstance(name, ast.Name) and name.id in scope.consts and selfs_only_param(scope.defs.get(name.id, [])):
            got, how = scope.consts[name.id]
            names = sorted(got)
        else:
            continue
        if not all(n.isidentifier() for n in names):
            continue
        if isinstance(value, ast.Name) and id(value) in narrowed:
            t, why = narrowed[id(value)]
            types = [(t, why)]
        else:
            if isinstance(value, (ast.Name, ast.Attribute)) and resolve(value, scope.bound) is not None:
                continue
            t = scope.expr(value)
            if isinstance(t, Either):
                types = [(m, _why(scope, value, m, t)) for m in t.members]
            elif isinstance(t, Up):
                types = [(t, _why(scope, value, t))]
            else:
                continue
        guarded = call.func.id == "hasattr" or len(call.args) == 3
        spelled = ast.unparse(call)
        for n in names:
            node = ast.Attribute(value=value, attr=n, ctx=ast.Load())
            ast.copy_location(node, call)
            for t, why in types:
                said = f"{why}; read as `{spelled}`" + (f" ({how})" if how else "")
                out.append(Receiver(node, None, t, said, guarded=guarded))
    return out


def _class_of(scope: Scope, value: ast.expr) -> ast.Name | None:
    """``x`` of ``x.__class__`` / ``type(x)`` (``type`` the builtin), else None."""
    if isinstance(value, ast.Attribute) and value.attr == "__class__" and isinstance(value.value, ast.Name):
        return value.value
    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "type"
            and "type" not in scope.defs and len(value.args) == 1 and not value.keywords and isinstance(value.args[0], ast.Name)):
        return value.args[0]
    return None


def _instance_type(scope: Scope, name: ast.Name, narrowed: dict) -> tuple[Up | None, str]:
    """The type of the instance ``name`` (a seeded ``self`` of a class patch too), and why."""
    if id(name) in narrowed:
        return narrowed[id(name)]
    t = scope.expr(name)
    if isinstance(t, Up) and not is_rebound(t):
        return t, _why(scope, name, t)
    seeded = scope.seeds.get(name.id)
    if t is None and seeded is not None and [h for h, _w in scope.defs.get(name.id, [])] == ["param"]:
        return seeded
    return None, ""


def _why(scope: Scope, value: ast.expr, t: Up, either: Either | None = None) -> str:
    fn = scope.fn.name
    if either is not None and isinstance(value, ast.Name) and not t.steps:
        return f"`{value.id}` annotated `{' | '.join(m.start for m in either.members)}` in `{fn}`: a `{t.start}`"
    if is_rebound(t):
        shown = value.id if isinstance(value, ast.Name) else ast.unparse(value)
        root = value
        while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
            root = root.func if isinstance(root, ast.Call) else root.value
        held = scope.seeds.get(root.id) if isinstance(root, ast.Name) else None
        if any(s.startswith(CALLERS) for s in t.steps) and held is not None:
            return f"`{shown}` in `{fn}` ({held[1]})"  # a parameter its callers do not type (``callsites.py``)
        return f"`{shown}` is assigned more than one kind of value in `{fn}`"
    prefix = hook_prefix(t.steps)
    root = value
    while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
        root = root.func if isinstance(root, ast.Call) else root.value
    seeded = scope.seeds.get(root.id) if isinstance(root, ast.Name) and root.id not in scope.classes_only else None
    if seeded is not None and [h for h, _w in scope.defs.get(root.id, [])] == ["param"] and seeded[1].startswith(f"`{root.id}`"):
        if root is value and seeded[0] == t:
            return seeded[1]
        shown = ast.unparse(value)
        head = f"`{shown}`" if len(shown) > 60 else f"`{shown}` is {describe(t)}"
        return f"{head} in `{fn}` ({seeded[1]})"  # a parameter typed by its callers (``callsites.py``)
    if prefix:
        hook, param = prefix[0][5:], prefix[1][2:]
        shown, inner = ast.unparse(value), describe(t)
        head = f"`{shown}`" if inner == f"`{shown}`" or len(shown) > 60 else f"`{shown}` is {inner}"
        return f"{head} in `{fn}` (`{param}`: a parameter of hook `{hook}`, typed by upstream's spec)"
    if isinstance(value, ast.Name):
        seeded = scope.seeds.get(value.id)
        if seeded is not None and seeded[0] == t and scope.defs.get(value.id, [])[:1] and scope.name(value.id) == t:
            return seeded[1]
        if not t.steps:
            owner: Scope | None = scope
            while owner is not None and value.id not in owner.defs:
                owner = owner.parent  # a closure's name: the enclosing function's
            defs = owner.defs.get(value.id) or [] if owner is not None else []
            if any(how == "annotation" or how == "param" and what.annotation is not None for how, what in defs):
                return f"`{value.id}` annotated `{t.start}` in `{fn}`"
            if owner is not None and any(how == "param" and what.arg in owner.comments for how, what in defs):
                return f"`{value.id}` typed `{t.start}` by its type comment in `{fn}`"
            return f"`{value.id}` is a `{t.start}` in `{fn}`"  # an element of a project generic, a project function's return
        return f"`{value.id}` is {describe(t)} in `{fn}`"
    shown = ast.unparse(value)
    return f"`{shown}` is {describe(t)} in `{fn}`" if len(shown) <= 60 else f"{describe(t)} in `{fn}`"
