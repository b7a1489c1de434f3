"""The project's version flags, read (never run): which branch of an ``if`` a flag picks.

    PYTEST_VERSION = Version(pytest.__version__)            # common.py
    PYTEST37_OR_GREATER = PYTEST_VERSION >= Version("3.7.0")
    from .common import PYTEST37_OR_GREATER                  # plugin.py
    if PYTEST37_OR_GREATER: return a, b, c
    else: return a, b

A *flag* is an ``if`` test built from comparisons of the audited package's version with a
version literal, ``hasattr(X, "name")`` of a module or class ``X`` of the package (a feature
test: decided by whether upstream has that member), ``not`` / ``and`` / ``or`` of such, and
module-level names bound to one
(in the same file, or imported from another project module: followed a few hops). The
package's version is ``pkg.__version__`` (``pkg`` one of the audited import names),
``Version(...)`` / ``parse(...)`` / ``parse_version(...)`` / ``LooseVersion(...)`` of it,
``importlib.metadata.version("pkg")`` (a distribution spelled as an import name), or a
module-level name bound to one of those. Its numbers too, compared with a tuple of ints (or an
int): ``tuple(int(x) for x in pkg.__version__.split("."))``, ``tuple(map(int, ….split(".")))``
(sliced or indexed: ``[:2]``, ``[0]``; ``int(….split(".")[0])``; a tuple of those in order,
``(_major, _minor)``) and a parsed version's
``.release`` / ``.major`` / ``.minor`` / ``.micro``, and the version tuple the package itself exports beside
``__version__`` (``django.VERSION``, ``sphinx.version_info``, ``pytest.version_tuple``,
``docutils.__version_info__``: a name of :data:`VERSION_TUPLES` read on the audited import name itself). A call of a project function whose body is one
``return`` of such an expression, with literal arguments (``def _ge(v): return Version(pkg.__version__)
>= Version(v)`` then ``GE8 = _ge("8")``), is that expression with the arguments in place of the
parameters. Anything else is unknown. A module-level name bound in a ``try`` and in its ``except``
blocks is the ``try``'s (or its ``else``'s) value. The branches are an ``if``'s blocks and a conditional
expression's arms (``a() if FLAG else b()``: by line and column, see :func:`branch_conditions`).

A flag is kept as text, a Python expression over ``V`` (the package's version, parsed),
``S`` (its text, compared with a string as Python compares strings), ``T`` (its text's numbers
``int``-ed, as a tuple; ``T[:2]``, ``T[0]``), ``R`` (the parsed version's ``release`` tuple; ``R[0]``
its major), ``P`` (the package's own version tuple: the release's numbers, three at least, that a
release level or more numbers may follow), ``H('pkg.mod.Cls.name')`` (``hasattr(Cls, "name")``: whether
upstream has that member), string, int and tuple literals and ``U`` (a part not known): ``V >= '3.7.0' and not (U)``,
``T >= (8, 0)``. The audit evaluates
it at a version (``audit/guards.flag_value``): this layer reads the project, the audit
judges.
"""

from __future__ import annotations

import ast
import copy

from upgrade_checklists.core.astwalk import module_level
from upgrade_checklists.project.calls import _inside, resolve

UNKNOWN = "U"
_PARSERS = {"Version", "parse", "parse_version", "LooseVersion", "StrictVersion"}
_OPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_HOPS = 3  # names followed from one module-level binding to the next
_PARTS = {"major": "[0]", "minor": "[1]", "micro": "[2]"}  # a parsed version's numbers, as ``R``'s items
#: the names under which a package exports its version as a tuple of numbers, read on the import name itself
VERSION_TUPLES = frozenset({"VERSION", "version_info", "__version_info__", "version_tuple"})


def version_text(node: ast.AST) -> str | None:
    """A version literal: ``"0.5"``, ``Version("0.5")``, ``parse("0.5")`` -> ``"0.5"`` (a string with a digit)."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and any(c.isdigit() for c in node.value):
        return node.value
    return None


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


class Flags:
    """Reads flags in the files of ``project`` (``sources``, ``names(rel)``, ``files``, ``modules``)."""

    def __init__(self, project) -> None:
        self.p = project
        self._assigned: dict[str, dict[str, ast.expr | None]] = {}

    def condition(self, rel: str, test: ast.expr, local: frozenset[str] = frozenset()) -> str | None:
        """``test`` (an ``if`` test in ``rel``) as a flag expression, or None when no part of it is known
        (or it reads a name of ``local``: the enclosing function's own, not the module's)."""
        if any(isinstance(n, ast.Name) and n.id in local for n in ast.walk(test)):
            return None
        text = self._cond(rel, test, 0)
        return None if text == UNKNOWN else text

    # -- conditions ---------------------------------------------------------------------------

    def _cond(self, rel: str, node: ast.expr, hops: int) -> str:
        if isinstance(node, ast.BoolOp):
            parts = [self._cond(rel, v, hops) for v in node.values]
            op = " and " if isinstance(node.op, ast.And) else " or "
            return op.join(f"({p})" for p in parts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = self._cond(rel, node.operand, hops)
            return UNKNOWN if inner == UNKNOWN else f"not ({inner})"
        if isinstance(node, ast.Compare):
            return self._compare(rel, node, hops)
        feature = self._feature(rel, node)
        if feature is not None:
            return feature
        there = self._followed(rel, node, hops)
        return UNKNOWN if there is None else self._cond(there[0], there[1], hops + 1)

    def _feature(self, rel: str, node: ast.expr) -> str | None:
        """``hasattr(X, "name")`` where ``X`` names a module or class of the audited package (through the
        file's imports): ``H('pkg.mod.X.name')``, whether upstream has that member at a version (the audit
        decides it from the model); None for any other expression."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hasattr"
                and "hasattr" not in self._module_names(rel) and len(node.args) == 2 and not node.keywords
                and _is_str(node.args[1]) and node.args[1].value.isidentifier()):
            return None
        q = resolve(node.args[0], self.p.names(rel))
        if q is None or not _inside(q, self.p.modules):
            return None
        return f"H({q + '.' + node.args[1].value!r})"

    def _followed(self, rel: str, node: ast.expr, hops: int):
        """``(file, expression)`` a name stands for (its binding) or a call of a project function gives
        (its inlined return), within the hop limit; else None."""
        if hops >= _HOPS:
            return None
        if isinstance(node, (ast.Name, ast.Attribute)):
            return self._binding(rel, node)
        if isinstance(node, ast.Call):
            return self._inline(rel, node)
        return None

    def _compare(self, rel: str, node: ast.Compare, hops: int) -> str:
        sides = [node.left, *node.comparators]
        out = []
        for (a, b), op in zip(zip(sides, sides[1:]), node.ops):
            sym = _OPS.get(type(op))
            text = None
            if sym is not None:
                left, right = self._version(rel, a, hops), self._version(rel, b, hops)
                if left and version_text(b) is not None and (left == "V" or _is_str(b)):
                    text = f"{left} {sym} {version_text(b)!r}"
                elif right and version_text(a) is not None and (right == "V" or _is_str(a)):
                    text = f"{right} {_FLIP[sym]} {version_text(a)!r}"
                else:
                    text = self._numbers_compare(rel, a, b, sym, hops)
            out.append(text or UNKNOWN)
        if all(t == UNKNOWN for t in out):
            return UNKNOWN
        return out[0] if len(out) == 1 else " and ".join(f"({t})" for t in out)

    def _numbers_compare(self, rel: str, a: ast.expr, b: ast.expr, sym: str, hops: int) -> str | None:
        """``T >= (8, 0)``: the version's numbers (a tuple, or one of them) against a literal of the
        same shape (a tuple of ints, an int); None when it is not that."""
        left, right = self._numbers(rel, a, hops), self._numbers(rel, b, hops)
        if left and _int_literal(b, tuple_=not left.endswith("]") or ":" in left) is not None:
            return f"{left} {sym} {_int_literal(b, tuple_=not left.endswith(']') or ':' in left)!r}"
        if right and _int_literal(a, tuple_=not right.endswith("]") or ":" in right) is not None:
            return f"{right} {_FLIP[sym]} {_int_literal(a, tuple_=not right.endswith(']') or ':' in right)!r}"
        return None

    def _numbers(self, rel: str, node: ast.expr, hops: int) -> str:
        """``"T"`` / ``"R"`` / ``"P"`` (sliced: ``"T[:2]"``, indexed: ``"T[0]"``): ``node`` is the version's
        numbers (``T``: its text split on dots, each ``int``-ed; ``R``: the parsed version's ``release``;
        ``P``: the version tuple the package exports); ``""``: not that."""
        if isinstance(node, ast.Subscript):
            inner = self._numbers(rel, node.value, hops)
            if inner in ("T", "R", "P"):
                cut = _cut(node.slice)
                return f"{inner}{cut}" if cut else ""
            return ""
        if isinstance(node, ast.Tuple) and node.elts and not any(isinstance(e, ast.Starred) for e in node.elts):
            items = [self._numbers(rel, e, hops) for e in node.elts]  # ``(major, minor)``, each a number of it
            for head in ("T", "R", "P"):
                if items == [f"{head}[{i}]" for i in range(len(items))]:
                    return f"{head}[:{len(items)}]"
            return ""
        if isinstance(node, (ast.Name, ast.Attribute)):
            q = resolve(node, self.p.names(rel))
            mod, _, attr = (q or "").rpartition(".")
            if attr in VERSION_TUPLES and mod in self.p.modules:
                return "P"  # ``django.VERSION``, ``from sphinx import version_info``
        if isinstance(node, ast.Attribute) and (node.attr == "release" or node.attr in _PARTS):
            if self._version(rel, node.value, hops) == "V":
                return "R" if node.attr == "release" else "R" + _PARTS[node.attr]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords and len(node.args) == 1:
            arg = node.args[0]
            if node.func.id == "tuple":
                if isinstance(arg, ast.GeneratorExp) or isinstance(arg, ast.ListComp):
                    split = _int_each(arg)
                elif isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == "map" \
                        and len(arg.args) == 2 and isinstance(arg.args[0], ast.Name) and arg.args[0].id == "int":
                    split = arg.args[1]
                else:
                    return ""
                return self._split(rel, split, hops, "")
            if node.func.id == "int" and isinstance(arg, ast.Subscript) and isinstance(_cut(arg.slice), str) \
                    and ":" not in _cut(arg.slice):
                return self._split(rel, arg.value, hops, _cut(arg.slice))  # ``int(v.split(".")[0])``
            return ""
        there = self._followed(rel, node, hops)
        return "" if there is None else self._numbers(there[0], there[1], hops + 1)

    def _split(self, rel: str, node: ast.expr, hops: int, index: str) -> str:
        """``"T"`` + ``index`` when ``node`` is the version's text split on dots (``….split(".")``,
        maybe sliced ``[:2]``, which ``index`` then applies within)."""
        cut = ""
        if isinstance(node, ast.Subscript):
            cut = _cut(node.slice) or "?"
            node = node.value
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split"
                and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Constant)
                and node.args[0].value == "." and self._version(rel, node.func.value, hops) == "S"):
            return ""
        if cut == "?" or (cut and index):
            return ""  # a slice then an index: not one we spell
        return "T" + (cut or index)

    # -- the package's version ----------------------------------------------------------------

    def _version(self, rel: str, node: ast.expr, hops: int) -> str:
        """``"V"``: ``node`` is the package's version parsed; ``"S"``: its text (compared as a string, as
        Python does); ``""``: neither."""
        modules = self.p.modules
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
            fname = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            arg = node.args[0]
            if fname in _PARSERS:
                return "V" if self._version(rel, arg, hops) else ""
            if fname == "version" and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                dist = arg.value.lower().replace("-", "_").replace(".", "_")
                return "S" if any(dist == m.split(".")[0].lower() for m in modules) else ""  # importlib.metadata.version("pkg")
            return self._version_call(rel, node, hops)
        if isinstance(node, ast.Call):
            return self._version_call(rel, node, hops)
        if isinstance(node, (ast.Name, ast.Attribute)):
            q = resolve(node, self.p.names(rel))
            if q is not None and q.endswith(".__version__") and _inside(q.rpartition(".")[0], modules):
                return "S"
            if hops < _HOPS:
                bound = self._binding(rel, node)
                if bound is not None:
                    return self._version(bound[0], bound[1], hops + 1)
        return ""

    def _version_call(self, rel: str, node: ast.Call, hops: int) -> str:
        inlined = self._inline(rel, node) if hops < _HOPS else None
        return self._version(inlined[0], inlined[1], hops + 1) if inlined is not None else ""

    # -- project functions --------------------------------------------------------------------

    def _inline(self, rel: str, call: ast.Call) -> tuple[str, ast.expr] | None:
        """A call of a project function whose body is one ``return EXPR`` (a docstring aside), with
        literal arguments: (the function's file, EXPR with each parameter replaced by its argument
        or its literal default). None for anything else (a name not bound once, ``*args``, an
        argument that is no literal, a parameter without a value)."""
        found = self._function(rel, call.func)
        if found is None:
            return None
        frel, fn = found
        a = fn.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or fn.decorator_list:
            return None
        body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
            return None
        names = [x.arg for x in a.args]
        values: dict[str, ast.expr] = dict(zip(names[len(names) - len(a.defaults):], a.defaults))
        if len(call.args) > len(names) or any(isinstance(x, ast.Starred) for x in call.args):
            return None
        values.update(zip(names, call.args))
        for k in call.keywords:
            if k.arg is None or k.arg not in names:
                return None
            values[k.arg] = k.value
        if set(values) != set(names) or not all(_literal(v) for v in values.values()):
            return None
        return frel, _Substitute(values).visit(copy.deepcopy(body[0].value))

    def _function(self, rel: str, node: ast.expr) -> tuple[str, ast.FunctionDef] | None:
        """The module-level ``def`` (bound once, nothing else binding its name) ``node`` names: in
        ``rel``, or imported from another project module."""
        if isinstance(node, ast.Name) and node.id in self._module_names(rel):
            return self._def(rel, node.id)
        q = resolve(node, self.p.names(rel))
        if q is None or _inside(q, self.p.modules):
            return None
        mod, _, name = q.rpartition(".")
        files = self.p.files.get(mod)
        return self._def(files[-1], name) if files else None

    def _def(self, rel: str, name: str) -> tuple[str, ast.FunctionDef] | None:
        tree = self.p.sources.tree(rel)
        if tree is None:
            return None
        found = []
        for stmt in module_level(tree.body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                binds = stmt.name == name
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                binds = any((x.asname or x.name.split(".")[0]) == name for x in stmt.names)
            else:
                heads = [t for t in (getattr(stmt, "targets", None) or [getattr(stmt, "target", None)]) if t is not None]
                heads += [i.optional_vars for i in getattr(stmt, "items", ()) if i.optional_vars is not None]
                binds = any(isinstance(n, ast.Name) and n.id == name for h in heads for n in ast.walk(h))
            if binds:
                found.append(stmt)
        if len(found) != 1 or not isinstance(found[0], ast.FunctionDef):
            return None
        return rel, found[0]

    # -- module-level names -------------------------------------------------------------------

    def _binding(self, rel: str, node: ast.expr) -> tuple[str, ast.expr] | None:
        """The value a module-level name (or an imported project module's name) is bound to once: (file, value)."""
        if isinstance(node, ast.Name):
            value = self._module_names(rel).get(node.id)
            if value is not None:
                return rel, value
            if node.id in self._module_names(rel):
                return None  # assigned more than once, or not by a plain ``=``
        q = resolve(node, self.p.names(rel))
        if q is None or _inside(q, self.p.modules):
            return None
        mod, _, name = q.rpartition(".")
        files = self.p.files.get(mod)
        if not files:
            return None
        target = files[-1]
        value = self._module_names(target).get(name)
        return (target, value) if value is not None else None

    def _module_names(self, rel: str) -> dict[str, ast.expr | None]:
        """Names assigned at module level: the value of a single ``NAME = value``, None for any other binding."""
        if rel in self._assigned:
            return self._assigned[rel]
        out: dict[str, ast.expr | None] = {}
        tree = self.p.sources.tree(rel)
        handled = _in_handlers(tree) if tree is not None else set()
        fallbacks: dict[str, ast.expr | None] = {}  # bound in an ``except`` block: used when nothing else binds it
        for stmt in module_level(tree.body) if tree is not None else ():
            if id(stmt) in handled:
                if not isinstance(stmt, (ast.If, ast.Try)):
                    _bind_names(stmt, fallbacks)
                continue
            _bind_names(stmt, out)
        for name, value in fallbacks.items():
            out.setdefault(name, value)
        for n in ast.walk(tree) if tree is not None else ():
            if isinstance(n, ast.Global):  # assigned in a function too: not one value
                out.update({g: None for g in n.names})
        self._assigned[rel] = out
        return out


def _in_handlers(tree: ast.Module) -> set[int]:
    """The module-level statements inside a ``try``'s ``except`` blocks (ids). The flag of a
    ``try: v = pkg.__version__`` / ``except …: FLAG = False`` / ``else: FLAG = <flag>`` is the value the
    version gives when reading it does not fail (as griffe prefers the no-exception case): the audit
    judges a version whose ``__version__`` it has read."""
    out: set[int] = set()
    for stmt in module_level(tree.body):
        if isinstance(stmt, ast.Try):
            for h in stmt.handlers:
                out.update(id(s) for s in module_level(h.body))
    return out


def _bind_names(stmt: ast.stmt, out: dict[str, ast.expr | None]) -> None:
    """What ``stmt`` binds at module level into ``out``: a single ``NAME = value``'s value, None for any
    other binding (or a second one)."""
    targets: list[ast.expr] = []
    value = None
    if isinstance(stmt, ast.Assign):
        targets, value = stmt.targets, stmt.value
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        targets, value = [stmt.target], (stmt.value if isinstance(stmt, ast.AnnAssign) else None)
    for t in targets:
        for n in ast.walk(t):
            if isinstance(n, ast.Name):
                single = isinstance(t, ast.Name) and len(targets) == 1 and n.id not in out
                out[n.id] = value if single else None
    if isinstance(stmt, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
        for n in ast.walk(stmt.target) if isinstance(stmt, (ast.For, ast.AsyncFor)) else [
                x for i in stmt.items if i.optional_vars is not None for x in ast.walk(i.optional_vars)]:
            if isinstance(n, ast.Name):
                out[n.id] = None
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        out[stmt.name] = None
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        for a in stmt.names:
            name = a.asname or a.name.split(".")[0]
            if name in out:
                out[name] = None  # rebound by an import after an assignment


class _Substitute(ast.NodeTransformer):
    """A function's parameters replaced by the literal values a call gives them."""

    def __init__(self, values: dict[str, ast.expr]) -> None:
        self.values = values

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return copy.deepcopy(self.values[node.id]) if node.id in self.values else node


def _literal(node: ast.expr) -> bool:
    """A string, number, bool or None, or a tuple of them."""
    if isinstance(node, ast.Tuple):
        return all(_literal(e) for e in node.elts)
    return isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (str, int, float)))


def _int_literal(node: ast.expr, tuple_: bool):
    """A tuple of ints (``tuple_``) or an int: its value; None for anything else."""
    if tuple_:
        if isinstance(node, ast.Tuple) and node.elts and all(_int_literal(e, False) is not None for e in node.elts):
            return tuple(e.value for e in node.elts)
        return None
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _cut(node: ast.expr) -> str | None:
    """``[0]`` / ``[:2]`` for an int index or a slice from the start to an int; None otherwise."""
    if isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 0:
        return f"[{node.value}]"
    if isinstance(node, ast.Slice) and node.lower is None and node.step is None and isinstance(node.upper, ast.Constant) \
            and type(node.upper.value) is int and node.upper.value >= 0:
        return f"[:{node.upper.value}]"
    return None


def _int_each(gen: ast.GeneratorExp | ast.ListComp) -> ast.expr | None:
    """``X`` of ``int(x) for x in X`` (one generator, no condition), else None."""
    if len(gen.generators) != 1:
        return None
    g = gen.generators[0]
    elt = gen.elt
    if g.ifs or g.is_async or not isinstance(g.target, ast.Name):
        return None
    if isinstance(elt, ast.Call) and isinstance(elt.func, ast.Name) and elt.func.id == "int" and len(elt.args) == 1 \
            and not elt.keywords and isinstance(elt.args[0], ast.Name) and elt.args[0].id == g.target.id:
        return g.iter
    return None


def return_conditions(fn: ast.AST, flags, rel: str) -> tuple[tuple[int, str], ...]:
    """``(line, flag expression)`` of each ``return`` in ``fn``'s own body under ``if`` tests of which
    one at least is a flag: the conjunction of the branches taken to reach it (``not`` for ``else``;
    after ``if FLAG: … return``, the statements that follow it in the block are under ``not FLAG``)."""
    if flags is None or isinstance(fn, ast.Lambda):
        return ()
    out = []
    local = _locals(fn)

    def walk(stmts, conds):
        for s in stmts:
            if isinstance(s, ast.Return) and conds:
                out.append((s.lineno, " and ".join(f"({c})" for c in conds)))
            elif isinstance(s, ast.If):
                c = flags.condition(rel, s.test, local)
                walk(s.body, conds + [c] if c is not None else conds)
                walk(s.orelse, conds + [f"not ({c})"] if c is not None else conds)
                if c is not None and _leaves(s.body) and not _leaves(s.orelse):  # ``if FLAG: return …`` then the rest
                    conds = conds + [f"not ({c})"]
                elif c is not None and _leaves(s.orelse) and not _leaves(s.body):
                    conds = conds + [c]
            elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            else:
                for block in ("body", "orelse", "finalbody"):
                    walk(getattr(s, block, None) or [], conds)
                for h in getattr(s, "handlers", None) or []:
                    walk(h.body, conds)
                for case in getattr(s, "cases", None) or []:
                    walk(case.body, conds)

    walk(fn.body, [])
    return tuple(out)


def branch_conditions(rel: str, flags):
    """The flag branches of ``rel``, from one walk: ``(first line, last line, flag)`` of each block of an ``if``
    on a flag (``not`` for the ``else``; an ``elif`` is an ``if`` inside it; nested ones listed on their own),
    and ``((line, column), (end line, end column), flag)`` of each arm of a conditional expression on a flag
    (``old() if FLAG else new()``: both arms often stand on one line, so a line says too little). A test
    function or class a skip decorator on a flag guards is such a block too (:func:`_skipped_bodies`)."""
    blocks, arms = list(_skipped_bodies(rel, flags)), []
    for node, c in _flag_tests(rel, flags, (ast.If, ast.IfExp)):
        if isinstance(node, ast.If):
            for block, cond in ((node.body, c), (node.orelse, f"not ({c})")):
                if block:
                    blocks.append((block[0].lineno, max(s.end_lineno or s.lineno for s in block), cond))
        else:
            arms += [((arm.lineno, arm.col_offset), (arm.end_lineno or arm.lineno, arm.end_col_offset or 0), cond)
                     for arm, cond in ((node.body, c), (node.orelse, f"not ({c})"))]
    return blocks, arms


#: skip decorators (qualified), and whether the body runs when their condition holds
_SKIPS = {"unittest.skipUnless": True, "unittest.case.skipUnless": True, "unittest.skipIf": False,
          "unittest.case.skipIf": False, "pytest.mark.skipif": False}


def _skipped_bodies(rel: str, flags):
    """``(first line, last line, flag)`` of the body of each module-level function or class (and method
    of a module-level class) decorated ``@unittest.skipUnless(FLAG, …)`` (the body runs when FLAG holds),
    ``@unittest.skipIf(FLAG, …)`` or ``@pytest.mark.skipif(FLAG, …)`` (when it does not): one condition,
    a flag of the module's names (the decorator is evaluated where the ``def`` stands)."""
    tree = flags.p.sources.tree(rel)
    text = flags.p.sources.text(rel) if tree is not None else ""
    if tree is None or not any(k.rpartition(".")[2] in text for k in _SKIPS):
        return
    names = flags.p.names(rel)
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.ClassDef):
            todo.extend(node.body)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or not node.body:
            continue
        for dec in node.decorator_list:
            if not (isinstance(dec, ast.Call) and dec.args and not any(isinstance(a, ast.Starred) for a in dec.args)):
                continue
            q = resolve(dec.func, names) or ""
            runs = _SKIPS.get(q)
            one = len(dec.args) == (1 if q.startswith("pytest.") else 2)  # (condition, reason) / one condition, reason=…
            c = flags.condition(rel, dec.args[0]) if runs is not None and one else None
            if c is not None:
                yield node.body[0].lineno, node.end_lineno or node.body[-1].lineno, c if runs else f"not ({c})"


def _flag_tests(rel: str, flags, kind):
    """``(node, flag)`` for each ``kind`` node (``ast.If`` / ``ast.IfExp``) of ``rel`` whose test is a flag."""
    tree = flags.p.sources.tree(rel)
    if tree is None or "if" not in flags.p.sources.text(rel):
        return
    todo: list[tuple[ast.AST, tuple]] = [(tree, ())]
    locals_: dict[int, frozenset[str]] = {}
    while todo:
        node, fns = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            fns = (*fns, node)
        todo.extend((c, fns) for c in ast.iter_child_nodes(node))
        if not isinstance(node, kind):
            continue
        if flags.condition(rel, node.test) is None:
            continue  # no flag in it (the enclosing functions' own names, read only for a flag, cannot make one)
        for fn in fns:
            if id(fn) not in locals_:
                locals_[id(fn)] = _locals(fn)
        c = flags.condition(rel, node.test, frozenset().union(*(locals_[id(fn)] for fn in fns)))
        if c is not None:
            yield node, c


def _leaves(block: list[ast.stmt]) -> bool:
    """The block always ends in a ``return`` or ``raise`` of its own."""
    return bool(block) and isinstance(block[-1], (ast.Return, ast.Raise))


def _locals(fn) -> frozenset[str]:
    """The names a function binds itself (parameters, assignments, imports, ``global`` aside: a name
    declared ``global`` is the module's)."""
    a = fn.args
    names = {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if x is not None}
    glob: set[str] = set()
    for n in ast.walk(fn) if not isinstance(fn, ast.Lambda) else ():
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            names.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            names.update((x.asname or x.name.split(".")[0]) for x in n.names)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            glob.update(n.names)
    return frozenset(names - glob)
