"""Where the statements of a catalog snippet are in the code: matching on Python's ``ast``.

A snippet is read as code, not text. It is split into *units*, one per statement (a
compound statement gives its header, and its body gives units of its own), and each
unit may sit anywhere in any file the entry names. A unit matches a statement of the
file when what it documents is still there:

- call names, attribute names, imported names, keyword names and literal values;
- the keyword set of each call (unless the snippet elides arguments with ``...``);
- not: comments, blank lines, wrapping, formatter parentheses, trailing commas, quote
  style (none of them survive parsing), nor lower-case local or placeholder names
  (``peft_config_dict`` for ``peft_config``), which match any expression.

``...`` (alone on a line, or as an argument or value) matches anything. The answers are
plain lists, ints and strings, remembered in the scan cache by each file's stat, so
that a warm run reads no source file.
"""

from __future__ import annotations

import ast
import bisect
import os
import re
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from upgrade_checklists.core.astwalk import walk
from upgrade_checklists.core.files import Skipped, file_stat, read_file
from upgrade_checklists.project.cache import ScanCache
from upgrade_checklists.core.files import Outside, glob_files

if TYPE_CHECKING:  # a guard is read through its fields: the checklist reader is not loaded for it
    from upgrade_checklists.core.checklist import Guard

_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")
_COMPOUND = (ast.If, ast.While, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.Try,
             ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ()) \
    + ((ast.Match,) if hasattr(ast, "Match") else ())
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_SKIP = (ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal)
_MAX_PLACES = 40


# --- reading a snippet -----------------------------------------------------------


def _is_ellipsis(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _elided(body: list[ast.stmt]) -> bool:
    """A body that shows nothing: ``...``, ``pass`` or a docstring only."""
    return all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)) for s in body)


def _parse_piecewise(text: str) -> list[ast.stmt]:
    """The statements of a snippet that does not parse whole: the longest parseable run
    of lines from each line on; a header line (``def f(...):``) gets an elided body."""
    lines = text.split("\n")
    out: list[ast.stmt] = []
    i = 0
    while i < len(lines):
        s = lines[i].strip()
        if not s or s.startswith("#"):
            i += 1
            continue
        for j in range(len(lines), i, -1):
            chunk = textwrap.dedent("\n".join(lines[i:j]))
            tries = [chunk]
            if chunk.rstrip().endswith(":"):
                tries.append(chunk + "\n    ...")
            body = None
            for t in tries:
                try:
                    body = ast.parse(t).body
                    break
                except (SyntaxError, ValueError, MemoryError, RecursionError):  # not Python, or nested past the parser's limits
                    continue
            if body is not None:
                out += body
                i = j
                break
        else:
            i += 1  # a line that is no Python (a placeholder, prose): skipped
    return out


_ELIDING_COMMENT = re.compile(r"#.*(?:\.\.\.|\u2026)")


@lru_cache(maxsize=512)
def _snippet_statements(code: str) -> tuple[ast.stmt, ...]:
    text = textwrap.dedent(code.replace("\u2026", "...")).strip("\n")
    body: list[ast.stmt] | None = None
    for attempt, shift in ((text, 0), ("{\n" + text + "\n}", 1)):  # the snippet whole; dict items
        try:
            body = ast.parse(attempt).body
            break
        except (SyntaxError, ValueError, MemoryError, RecursionError):  # not Python, or nested past the parser's limits
            continue
    if body is None:
        body, shift = _parse_piecewise(text), 0
    # a "# ... more fields" comment inside a call, dict or list elides the rest of it
    eliding = [i + 1 + shift for i, line in enumerate(text.split("\n")) if _ELIDING_COMMENT.search(line)]
    if eliding and body:
        for node in (n for st in body for n in walk(st)):
            if isinstance(node, (ast.Call, ast.Dict, ast.List, ast.Tuple, ast.Set)) and hasattr(node, "end_lineno") and any(
                    node.lineno <= c <= node.end_lineno for c in eliding):
                node.elided = True
    return tuple(body)


@dataclass
class Unit:
    node: ast.AST
    kind: str  # "import", "def", "assign" or "expr"
    keys: list[ast.expr]  # for "expr": the expressions that must be found
    full: bool  # the match covers the whole statement (its body is not shown)
    anchors: frozenset[str]
    callee: str | None = None  # the name of the call the unit is about, if it is about one


def _units_of(stmts, out: list[Unit]) -> None:
    for s in stmts:
        if isinstance(s, _SKIP) or (isinstance(s, ast.Expr) and _is_ellipsis(s.value)):
            continue
        bodies = [getattr(s, f, None) or [] for f in ("body", "orelse", "finalbody")]
        elided = all(_elided(b) for b in bodies)
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            out.append(_unit(s, "import", []))
        elif isinstance(s, _DEFS):
            out.append(_unit(s, "def", [], elided))
        elif isinstance(s, (ast.Assign, ast.AugAssign)) or (isinstance(s, ast.AnnAssign) and s.value is not None):
            out.append(_unit(s, "assign", []))
        elif isinstance(s, ast.AnnAssign):
            out.append(_unit(s, "expr", [s.annotation]))
        elif isinstance(s, (ast.If, ast.While)):
            out.append(_unit(s, "expr", [s.test], elided))
        elif isinstance(s, (ast.For, ast.AsyncFor)):
            out.append(_unit(s, "expr", [s.iter], elided))
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            out.append(_unit(s, "expr", [i.context_expr for i in s.items], elided))
        elif isinstance(s, _COMPOUND):  # try, match
            subject = getattr(s, "subject", None)
            if subject is not None:
                out.append(_unit(s, "expr", [subject], elided))
        else:
            out.append(_unit(s, "expr", [c for c in ast.iter_child_nodes(s) if isinstance(c, ast.expr)]))
        if not elided or not isinstance(s, _DEFS):
            for f in ("body", "orelse", "finalbody"):
                _units_of(getattr(s, f, None) or [], out)
            for h in getattr(s, "handlers", None) or []:
                if h.type is not None:
                    out.append(_unit(h, "expr", [h.type], _elided(h.body)))
                _units_of(h.body, out)
            for c in getattr(s, "cases", None) or []:
                _units_of(c.body, out)
    out[:] = [u for u in out if u.anchors]


def _unit(node: ast.AST, kind: str, keys: list[ast.expr], full: bool = True) -> Unit:
    main = node.value if kind == "assign" else keys[0] if len(keys) == 1 else None
    callee = _callee(main.func) if isinstance(main, ast.Call) and isinstance(main.func, (ast.Name, ast.Attribute)) else None
    return Unit(node, kind, keys, full, frozenset(_anchors(node, kind, keys)), callee)


def _anchors(node: ast.AST, kind: str, keys: list[ast.expr]) -> set[str]:
    """The names a matching statement must contain at least one of."""
    if kind == "import":
        return {a.name.rsplit(".", 1)[-1] for a in node.names}
    if kind == "def":
        return {node.name}
    roots = keys if kind == "expr" else [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)]
    names: set[str] = set()
    strings: set[str] = set()
    for r in roots:
        for n in walk(r):
            if isinstance(n, ast.Attribute):
                names.add(n.attr)
            elif isinstance(n, ast.Name) and not _free(n.id):
                names.add(n.id)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
                names.add(n.func.id)
            elif isinstance(n, ast.keyword) and n.arg:
                names.add(n.arg)
            elif isinstance(n, ast.Constant) and isinstance(n.value, str) and 0 < len(n.value) <= 200:
                strings.add(n.value)
    return names or strings


def snippet_units(code: str) -> list[Unit]:
    out: list[Unit] = []
    _units_of(_snippet_statements(code), out)
    return out


# --- comparing a unit with the code ---------------------------------------------------


def _free(name: str) -> bool:
    """A lower-case local or placeholder name: matches any expression."""
    return name[:1].islower() or name[:1] == "_"


#: operators, which ``ast.unparse`` shows as nothing (a message read "`` is now ``")
_OPERATORS = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Is: "is",
    ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in", ast.Add: "+", ast.Sub: "-", ast.Mult: "*",
    ast.MatMult: "@", ast.Div: "/", ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>",
    ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&", ast.FloorDiv: "//", ast.And: "and", ast.Or: "or",
    ast.Invert: "~", ast.Not: "not", ast.UAdd: "+", ast.USub: "-",
}


def _show(node: ast.AST) -> str:
    if type(node) in _OPERATORS:
        return _OPERATORS[type(node)]
    try:
        s = ast.unparse(node)
    except Exception:  # noqa: BLE001 - an odd node must not stop the check
        s = type(node).__name__
    s = " ".join(s.split())
    return s if len(s) <= 60 else s[:57] + "..."


class _Diff:
    """One difference, put in words only if it is shown (most are counted and dropped: the
    nearest of many candidate statements is the one reported). ``args``: text as is,
    nodes shown as code."""

    __slots__ = ("template", "args")

    def __init__(self, template: str, *args: str | ast.AST) -> None:
        self.template, self.args = template, args

    def __str__(self) -> str:
        return self.template.format(*(a if type(a) is str else _show(a) for a in self.args))


def _callee(func: ast.AST) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else _show(func)


def _cmp(p: ast.AST, n: ast.AST, out: list[str]) -> None:
    if _is_ellipsis(p):
        return
    if isinstance(n, ast.Name) and _free(n.id) and not isinstance(p, (ast.Name, ast.Constant)):
        return  # the code keeps the shown expression in a local variable first
    if isinstance(p, ast.IfExp) and not isinstance(n, ast.IfExp):
        # the code spells the shown conditional expression as an if statement
        for branch in (p.body, p.orelse):
            d: list[str] = []
            _cmp(branch, n, d)
            if not d:
                return
        out.append(_Diff("`{}` is now `{}`", p, n))
        return
    if isinstance(p, ast.Name):
        if _free(p.id) or (isinstance(n, ast.Name) and n.id == p.id) or (isinstance(n, ast.Attribute) and n.attr == p.id):
            return
        out.append(_Diff("`{}` is now `{}`", p.id, n))
        return
    if type(p) is not type(n):
        out.append(_Diff("`{}` is now `{}`", p, n))
        return
    if isinstance(p, ast.Attribute):
        if p.attr != n.attr:
            out.append(_Diff("`{}` is now `{}`", p, n))
        else:
            _cmp(p.value, n.value, out)
        return
    if isinstance(p, ast.Call):
        _cmp_call(p, n, out)
        return
    if isinstance(p, ast.Constant):
        if p.value != n.value or type(p.value) is not type(n.value):
            out.append(_Diff("`{}` is now `{}`", p, n))
        return
    if isinstance(p, ast.Dict):
        _cmp_dict(p, n, out)
        return
    if _operators(p) != _operators(n):  # `v < 2` is now `v >= 2`: the whole expression says it
        out.append(_Diff("`{}` is now `{}`", p, n))
        return
    for f in p._fields:
        if f in ("ctx", "type_comment", "kind"):
            continue
        pv, nv = getattr(p, f, None), getattr(n, f, None)
        if isinstance(pv, list):
            _cmp_seq(pv, nv or [], out, p, "items", getattr(p, "elided", False))
        elif isinstance(pv, ast.AST):
            if nv is None:
                out.append(_Diff("`{}` is now `{}`", p, n))
            else:
                _cmp(pv, nv, out)
        elif pv != nv:
            out.append(_Diff("`{}` is now `{}`", p, n))
            return


def _operators(node: ast.AST) -> list[type] | None:
    """The operator(s) of a comparison or an operation (None for other nodes)."""
    if isinstance(node, ast.Compare):
        return [type(op) for op in node.ops]
    if isinstance(node, (ast.BinOp, ast.BoolOp, ast.UnaryOp)):
        return [type(node.op)]
    return None


def _cmp_seq(ps: list, ns: list, out: list[str], where: str | ast.AST, what: str, elided: bool = False) -> None:
    """``where``: the text naming the sequence's owner, or the owner (shown only if they differ)."""
    if elided and not any(_is_ellipsis(x) for x in ps):
        ps = ps + [ast.Constant(value=Ellipsis)]
    if any(_is_ellipsis(x) for x in ps):
        first = next(i for i, x in enumerate(ps) if _is_ellipsis(x))
        last = max(i for i, x in enumerate(ps) if _is_ellipsis(x))
        head, tail = ps[:first], ps[last + 1 :]
        if len(head) + len(tail) > len(ns):
            out.append(_Diff("`{}` now has {} {}", where, str(len(ns)), what))
            return
        pairs = list(zip(head, ns)) + list(zip(tail, ns[len(ns) - len(tail) :]))
    else:
        if len(ps) != len(ns):
            out.append(_Diff("`{}` now has {} {} (the snippet shows {})", where, str(len(ns)), what, str(len(ps))))
        pairs = list(zip(ps, ns))
    for a, b in pairs:
        _cmp(a, b, out)


def _cmp_call(p: ast.Call, n: ast.Call, out: list[str]) -> None:
    if _callee(p.func) != _callee(n.func):
        out.append(_Diff("call `{}(...)` is now `{}(...)`", p.func, n.func))
        return
    if isinstance(p.func, ast.Attribute) and isinstance(n.func, ast.Attribute):
        _cmp(p.func.value, n.func.value, out)
    name = _callee(p.func)
    elided = any(_is_ellipsis(a) for a in p.args) or getattr(p, "elided", False)
    _cmp_seq(p.args, n.args, out, f"{name}(...)", "positional arguments", getattr(p, "elided", False))
    pk = {k.arg: k.value for k in p.keywords if k.arg}
    nk = {k.arg: k.value for k in n.keywords if k.arg}
    for k, v in pk.items():
        if k not in nk:
            out.append(f"keyword `{k}` is gone from `{name}(...)`")
        elif isinstance(v, ast.Constant) and not _is_ellipsis(v) and (
            not isinstance(nk[k], ast.Constant) or nk[k].value != v.value or type(nk[k].value) is not type(v.value)
        ):
            out.append(_Diff("`{}={}` is now `{}={}`", k, v, k, nk[k]))
        else:
            _cmp(v, nk[k], out)
    open_ended = elided or any(k.arg is None for k in p.keywords)
    if not open_ended:
        extra = sorted(set(nk) - set(pk))
        if extra:
            out.append(f"`{name}(...)` now also passes " + ", ".join(f"`{k}`" for k in extra))
        if any(k.arg is None for k in n.keywords):
            out.append(f"`{name}(...)` now also passes `**{_show(next(k.value for k in n.keywords if k.arg is None))}`")


def _cmp_dict(p: ast.Dict, n: ast.Dict, out: list[str]) -> None:
    for k, v in zip(p.keys, p.values):
        if k is None or _is_ellipsis(k):
            continue
        at = next((i for i, nkey in enumerate(n.keys) if nkey is not None and _same(k, nkey)), None)
        if at is None:
            out.append(_Diff("key `{}` is gone from the dict", k))
        else:
            _cmp(v, n.values[at], out)


def _same(a: ast.AST, b: ast.AST) -> bool:
    out: list[str] = []
    _cmp(a, b, out)
    return not out


def _same_target(t: ast.AST, h: ast.AST) -> bool:
    """An assignment target: attributes and subscripts must be there, local names need not."""
    if isinstance(t, ast.Name):
        return _free(t.id) or (isinstance(h, ast.Name) and h.id == t.id)
    if isinstance(t, ast.Attribute):
        return isinstance(h, ast.Attribute) and h.attr == t.attr and _same_target(t.value, h.value)
    if isinstance(t, ast.Subscript):
        return isinstance(h, ast.Subscript) and _same(t.slice, h.slice) and _same_target(t.value, h.value)
    if isinstance(t, (ast.Tuple, ast.List)):
        return isinstance(h, (ast.Tuple, ast.List)) and len(t.elts) == len(h.elts) and all(
            _same_target(a, b) for a, b in zip(t.elts, h.elts))
    return _same(t, h)


def _cmp_import(p: ast.stmt, n: ast.stmt, out: list[str]) -> None:
    if type(p) is not type(n):
        out.append(_Diff("`{}` is now `{}`", p, n))
        return
    if isinstance(p, ast.ImportFrom) and (p.module != n.module or p.level != n.level):
        out.append(_Diff("`{}` is now `{}`", p, n))
        return
    have = {a.name: a.asname for a in n.names}
    prefix = f"{p.module}." if isinstance(p, ast.ImportFrom) else ""
    for a in p.names:
        if a.name not in have:
            out.append(f"`{prefix}{a.name}` is no longer imported there")
        elif a.asname and have[a.name] != a.asname:
            out.append(f"`{prefix}{a.name}` is now imported as `{have[a.name] or a.name}` (not `{a.asname}`)")


def _params(args: ast.arguments) -> list[str]:
    names = [a.arg for a in args.posonlyargs + args.args]
    names += ["*" + args.vararg.arg] if args.vararg else []
    names += [a.arg for a in args.kwonlyargs]
    names += ["**" + args.kwarg.arg] if args.kwarg else []
    return names


def _cmp_def(p: ast.stmt, n: ast.stmt, out: list[str]) -> None:
    if isinstance(p, ast.ClassDef) != isinstance(n, ast.ClassDef) or p.name != n.name:
        out.append(f"`{p.name}` is now `{getattr(n, 'name', _show(n))}`")
        return
    if type(p) is not type(n):
        out.append(f"`{p.name}` is now {'async ' if isinstance(n, ast.AsyncFunctionDef) else ''}{type(n).__name__}")
    for d in p.decorator_list:
        if not any(_same(d, e) for e in n.decorator_list):
            out.append(f"decorator `@{_show(d)}` is gone from `{p.name}`")
    if isinstance(p, ast.ClassDef):
        for b in p.bases:
            if not any(_same(b, c) for c in n.bases):
                out.append(f"base `{_show(b)}` is gone from `{p.name}`")
    elif _params(p.args) != _params(n.args):
        out.append(f"`{p.name}` now takes ({', '.join(_params(n.args))}) (the snippet shows ({', '.join(_params(p.args))}))")


# --- a source file, indexed -----------------------------------------------------------------


def _header(s: ast.AST) -> list[ast.AST]:
    """The parts of a statement that are not its nested statements."""
    out: list[ast.AST] = []
    for f, v in ast.iter_fields(s):
        if f in _BODIES:
            continue
        if isinstance(v, list):
            out += [x for x in v if isinstance(x, ast.AST)]
        elif isinstance(v, ast.AST):
            out.append(v)
    return out


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


class SourceIndex:
    """A parsed source file: which statement's header covers each line, so that the
    statements naming a word are found by searching the text (only statements are
    walked, never every expression)."""

    def __init__(self, text: str, tree: ast.Module | None = None) -> None:
        """``tree``: ``text`` parsed already (see :func:`same_tree`)."""
        self.text = text
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.line_count = len(text.splitlines())
        self.tree = tree if tree is not None else ast.parse(text)
        self.parent: dict[int, ast.AST] = {}
        self.at_line: dict[int, list[ast.AST]] = {}
        self.defs: dict[str, list[ast.AST]] = {}
        self._found: dict[str, list[ast.AST]] = {}
        self._header_nodes: dict[int, list[ast.AST]] = {}
        stack: list[ast.AST] = [self.tree]
        while stack:
            node = stack.pop()
            for f in _BODIES:
                for child in getattr(node, f, None) or []:
                    if isinstance(child, (ast.stmt, ast.ExceptHandler)):
                        self.parent[id(child)] = node
                        stack.append(child)
                        body = getattr(child, "body", None)
                        last = child.end_lineno or child.lineno
                        if body and isinstance(body, list) and isinstance(body[0], ast.AST):
                            last = max(child.lineno, body[0].lineno - 1)
                        for line in range(self.start(child), last + 1):
                            self.at_line.setdefault(line, []).append(child)
                        if isinstance(child, _DEFS):
                            self.defs.setdefault(child.name, []).append(child)

    def header_nodes(self, s: ast.AST) -> list[ast.AST]:
        """Every node of a statement's header (:func:`_header`), in ``ast.walk``'s order;
        remembered (each unit of each snippet compares with it)."""
        out = self._header_nodes.get(id(s))
        if out is None:
            out = self._header_nodes[id(s)] = [n for h in _header(s) for n in walk(h)]
        return out

    def naming(self, word: str) -> list[ast.AST]:
        """The statements whose header has ``word`` in its text (as a whole word)."""
        if word not in self._found:
            seen: dict[int, ast.AST] = {}
            text, starts, at_line = self.text, self.line_starts, self.at_line
            whole = word.isidentifier()
            size = len(word)
            at = text.find(word) if word else -1
            last_line = -1
            while at != -1:
                # str.find, then the word boundaries by hand: a pattern that starts with a
                # look-behind makes the regular expression engine try every position
                if not whole or not ((at and _is_word(text[at - 1])) or (at + size < len(text) and _is_word(text[at + size]))):
                    line = bisect.bisect_right(starts, at)
                    if line != last_line:
                        last_line = line
                        for s in at_line.get(line, ()):
                            seen[id(s)] = s
                at = text.find(word, at + 1)
            self._found[word] = list(seen.values())
        return self._found[word]

    @staticmethod
    def start(s: ast.AST) -> int:
        return min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", None) or []])

    def span(self, s: ast.AST, full: bool, expr: ast.AST | None = None) -> list:
        """[start, end, starts of enclosing statements, ends of enclosing statements,
        start of the enclosing function or class (0: module level)]. For an expression
        matched inside a simple statement, [start, end] are the expression's lines and
        the statement counts as enclosing."""
        start, end = self.start(s), s.end_lineno or s.lineno
        body = getattr(s, "body", None)
        starts, ends = [], []
        if not full and isinstance(s, _COMPOUND + (ast.ExceptHandler,)) and body:
            end = max(s.lineno, body[0].lineno - 1 if body[0].lineno > s.lineno else s.lineno)
        elif expr is not None and not isinstance(s, _COMPOUND + (ast.ExceptHandler,)) and hasattr(expr, "lineno"):
            starts.append(start)
            ends.append(end)
            start, end = expr.lineno, expr.end_lineno or expr.lineno
        scope = 0
        p = self.parent.get(id(s))
        while p is not None and not isinstance(p, ast.Module):
            starts.append(self.start(p))
            ends.append(p.end_lineno or p.lineno)
            if not scope and isinstance(p, _DEFS):
                scope = self.start(p)
            p = self.parent.get(id(p))
        return [start, end, starts, ends, scope]

    def def_span(self, qualname: str) -> list | None:
        parts = [q for q in qualname.split(".") if q]
        if not parts:
            return None
        for node in self.defs.get(parts[-1], []):
            chain, p = [], self.parent.get(id(node))
            while p is not None and not isinstance(p, ast.Module):
                if isinstance(p, _DEFS):
                    chain.append(p.name)
                p = self.parent.get(id(p))
            if list(reversed(chain))[-(len(parts) - 1) :] == parts[:-1] or len(parts) == 1:
                return self.span(node, True)
        return None



    def match(self, unit: Unit) -> dict:
        """``{"at": [span, ...]}`` where the unit is, else ``{"near": [line, diffs] | None}``."""
        candidates: dict[int, ast.AST] = {}
        shared: dict[int, int] = {}
        for t in unit.anchors:
            for s in self.naming(t):
                candidates[id(s)] = s
                shared[id(s)] = shared.get(id(s), 0) + 1
        places, best, rank = [], None, None
        calling = {id(s) for s in self.naming(unit.callee)} if unit.callee else None
        for s in sorted(candidates.values(), key=lambda s: s.lineno):
            found = self._diff(unit, s)
            if found is None:
                continue
            diffs, expr = found
            if not diffs:
                if len(places) < _MAX_PLACES:
                    places.append(self.span(s, unit.full, expr))
                continue
            if calling is not None and (id(s) not in calling or not self._makes_call(unit, s)):
                continue  # a near match must at least make the same call
            # the nearest match: the statement sharing most of the unit's names, then fewest differences
            r = (-shared[id(s)], len(diffs))
            if rank is None or r < rank:
                best, rank = [s.lineno, diffs], r
        if places:
            return {"at": places}
        return {"near": best and [best[0], [str(d) for d in best[1]]]}

    def _makes_call(self, unit: Unit, s: ast.AST) -> bool:
        """Whether ``s`` makes the unit's call, where a difference would be about that call.
        An assignment is compared by its value: another statement's value that only wraps
        the call (``total = pad([ones(n) for n in ns])`` for ``mask = ones(shape)``) is not
        the documented statement changed, unless it assigns the same target as written."""
        if unit.kind == "assign" and isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign)) \
                and getattr(s, "value", None) is not None:
            value = s.value
            if isinstance(value, ast.Call) and _callee(value.func) == unit.callee:
                return True
            p = unit.node
            targets = p.targets if isinstance(p, ast.Assign) else [p.target]
            have = s.targets if isinstance(s, ast.Assign) else [s.target]
            return any(ast.dump(t) == ast.dump(h) for t in targets for h in have)
        return any(isinstance(n, ast.Call) and _callee(n.func) == unit.callee for n in self.header_nodes(s))

    def _diff(self, unit: Unit, s: ast.AST) -> tuple[list[str], ast.AST | None] | None:
        """The differences between a unit and a statement, and the expression matched
        inside it (if one); None: not comparable."""
        out: list[str] = []
        p = unit.node
        if unit.kind == "import":
            if not isinstance(s, (ast.Import, ast.ImportFrom)):
                return None
            _cmp_import(p, s, out)
            return out, None
        if unit.kind == "def":
            if not isinstance(s, _DEFS):
                return None
            _cmp_def(p, s, out)
            return out, None
        if unit.kind == "assign":
            if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and getattr(s, "value", None) is not None:
                _cmp(p.value, s.value, out)
                targets = p.targets if isinstance(p, ast.Assign) else [p.target]
                have = s.targets if isinstance(s, ast.Assign) else [s.target]
                for t in targets:
                    if not any(_same_target(t, h) for h in have):
                        out.append(f"assignment to `{_show(t)}` is now to `{', '.join(_show(h) for h in have)}`")
                if isinstance(p, ast.AugAssign) and (not isinstance(s, ast.AugAssign) or type(p.op) is not type(s.op)):
                    out.append(_Diff("`{}` is now `{}`", p, s))
                return out, None
            keys = [p.value]
        else:
            keys = unit.keys
        nodes = self.header_nodes(s)
        matched = None
        for k in keys:
            if _is_ellipsis(k) or (isinstance(k, ast.Name) and _free(k.id)):
                continue
            kinds = (ast.Name, ast.Attribute) if isinstance(k, ast.Name) else (type(k),)
            best, at = None, None
            for n in nodes:
                if isinstance(n, kinds):
                    d: list[str] = []
                    _cmp(k, n, d)
                    if best is None or len(d) < len(best):
                        best, at = d, n
                    if not d:
                        break
            if best is None:
                return None
            out += best
            matched = at if matched is None and len(keys) == 1 else matched
        return out, matched


# --- the quick answer: the snippet verbatim (whitespace aside) ------------------------------------


_ELISION_LINE = re.compile(r"^\s*(?:\.\.\.|\u2026)\s*$")


def squeezed(text: str) -> tuple[str, list[int]]:
    """The text without whitespace, and where each line starts in it."""
    parts, starts, pos = [], [], 0
    for line in text.split("\n"):
        sq = "".join(line.split())
        starts.append(pos)
        parts.append(sq)
        pos += len(sq)
    return "".join(parts), starts


def verbatim_places(text: str | tuple[str, list[int]], snippet: str) -> list[list[int]]:
    """[start, end] lines of each place the snippet occurs with only whitespace changed
    (``...`` lines skip anything). Cheap; when it finds the snippet, no parsing is needed.
    ``text`` may be given :func:`squeezed` already (a file searched for many snippets)."""
    flat, starts = squeezed(text) if isinstance(text, str) else text
    chunks, cur = [], []
    for line in snippet.split("\n"):
        if _ELISION_LINE.match(line):
            chunks.append("".join(cur))
            cur = []
        else:
            cur.append("".join(line.split()))
    chunks = [c for c in chunks + ["".join(cur)] if c]
    if not chunks:
        return []

    def line_at(offset: int) -> int:
        return bisect.bisect_right(starts, offset)

    out = []
    at = flat.find(chunks[0])
    while at != -1 and len(out) < _MAX_PLACES:
        end = at + len(chunks[0])
        for c in chunks[1:]:
            nxt = flat.find(c, end)
            if nxt == -1:
                return out
            end = nxt + len(c)
        out.append([line_at(at), line_at(end - 1)])
        at = flat.find(chunks[0], at + 1)
    return out


_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=]", re.M)


def same_tree(data: bytes) -> bool:
    """Whether ``ast.parse(data)`` (what the scan parses) is the tree of the text this
    module reads (``data`` decoded as UTF-8): valid UTF-8 without a byte order mark, and
    no coding declaration that could decode it otherwise."""
    return _text_of_tree(data) is not None


def _text_of_tree(data: bytes) -> str | None:
    """``data`` decoded, when :func:`same_tree`; else None."""
    if data.startswith(b"\xef\xbb\xbf"):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if data.isascii() or not _COOKIE.search(data, 0, _second_line_end(data)) else None


def _second_line_end(data: bytes) -> int:
    first = data.find(b"\n")
    second = data.find(b"\n", first + 1) if first != -1 else -1
    return len(data) if second == -1 else second


# --- the cached answers ---------------------------------------------------------------------


@dataclass
class _Source:
    rel: str
    st: os.stat_result
    answers: dict  # key -> JSON-able answer
    index: SourceIndex | None = None  # parsed only when an answer is not cached
    text: str | None = None  # read only when an answer is not cached
    flat: tuple[str, list[int]] | None = None  # squeezed(text), for verbatim look-ups
    failed: bool = False
    new: bool = False


class Snippets:
    """Answers about source files (where a snippet's statements are, how long a file is,
    where a function is), remembered in the scan cache by each file's stat, so that a
    warm run reads no source file. Answers are plain lists, ints and strings."""

    def __init__(self, root: Path, cache: ScanCache) -> None:
        self.root = root
        self.cache = cache
        self.files: dict[str, _Source | None] = {}
        self._globs: dict[str, list[str]] = {}
        #: the paths asked about that lead out of the repository (symlinks), and why: never read
        self.outside: dict[str, str] = {}
        #: per file, the highest line number a caller compared with its line count: a
        #: count at or past it reads the same to the catalog (``cutoff.py``)
        self.ceilings: dict[str, int] = {}
        #: when a set: every path asked about since it was set (which files one catalog's
        #: findings depend on, ``cutoff.py``)
        self.touched: set[str] | None = None

    def _source(self, rel: str) -> _Source | None:
        if self.touched is not None:
            self.touched.add(rel)
        if rel not in self.files:
            try:
                st = file_stat(self.root, rel)
            except Outside as exc:
                st, self.outside[rel] = None, str(exc)
            except (Skipped, OSError):
                st = None  # absent, or not a file to read (a FIFO, a huge file...)
            if st is None:
                self.files[rel] = None
            else:
                hit, known = self.cache.get("snippets:" + rel, st)
                self.files[rel] = _Source(rel, st, _answers_from_plain(known) if hit else {})
        return self.files[rel]

    def _answer(self, rel: str, key: str, compute):
        src = self._source(rel)
        if src is None:
            return None
        if key not in src.answers:
            if src.index is None and not src.failed:
                text = self._text(src)
                try:
                    src.index = SourceIndex(text)
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    src.failed = True
                    src.answers["#lines"] = len(text.splitlines())
            src.answers[key] = compute(src.index) if src.index is not None else None
            src.new = True
        return src.answers[key]

    def unanswered(self, rel: str, keys: list[str]) -> list[str]:
        """The questions among ``keys`` (see :meth:`ask`) not answered yet for ``rel``."""
        src = self._source(rel)
        return [] if src is None else [k for k in keys if k not in src.answers]

    def ask(self, rel: str, key: str) -> None:
        """Answer a question by its key: ``m:`` + a snippet (:meth:`match`) or ``d:`` + a
        qualified name (:meth:`def_span`)."""
        if key.startswith("m:"):
            self.match(rel, key[2:])
        elif key.startswith("d:"):
            self.def_span(rel, key[2:])
        else:
            raise ValueError(f"not a question: {key[:20]!r}")

    def adopt(self, rel: str, data: bytes, tree: ast.Module | None) -> None:
        """The file's bytes, and the tree the scan parsed from them (None if it could
        not), read and parsed once for both: taken only where the text parses the same."""
        src = self._source(rel)
        if src is None or src.index is not None or src.failed or src.st.st_size != len(data):
            return
        text = _text_of_tree(data)  # decoded once, for the text and the check
        if src.text is None:
            src.text = text if text is not None else data.decode("utf-8", errors="replace")
        if tree is not None and text is not None:
            src.index = SourceIndex(src.text, tree)

    def _text(self, src: _Source) -> str:
        """The file's text, read once (a regular file inside the repository, never blocking)."""
        if src.text is None:
            try:
                data = read_file(self.root, src.rel, src.st)
            except (Skipped, OSError):
                data = b""
            src.text = data.decode("utf-8", errors="replace")
        return src.text

    def size(self, rel: str) -> int:
        """The file's size in bytes (0 when it does not exist)."""
        src = self._source(rel)
        return src.st.st_size if src is not None else 0

    def exists(self, rel: str) -> bool:
        return self._source(rel) is not None

    def line_count(self, rel: str, against: Iterable[int | None] = ()) -> int | None:
        """The file's number of lines (None: it does not exist). ``against``: the line
        numbers the caller compares it with (remembered in :attr:`ceilings`)."""
        top = max((n for n in against if n is not None), default=0)
        if top > self.ceilings.get(rel, 0):
            self.ceilings[rel] = top
        src = self._source(rel)
        if src is None:
            return None
        if "#lines" not in src.answers:
            src.answers["#lines"] = len(self._text(src).splitlines())
            src.new = True
        return src.answers["#lines"]

    def verbatim(self, rel: str, code: str) -> list | None:
        """[start, end] of each verbatim occurrence (see :func:`verbatim_places`)."""
        src = self._source(rel)
        if src is None:
            return None
        key = "v:" + code
        if key not in src.answers:
            if src.flat is None:
                src.flat = squeezed(self._text(src))
            src.answers[key] = verbatim_places(src.flat, code)
            src.new = True
        return src.answers[key]

    def match(self, rel: str, code: str) -> list | None:
        """Per unit of the snippet: None (nothing to check), ``{"at": [...]}`` or
        ``{"near": ...}``. None when the file does not exist or does not parse."""
        return self._answer(rel, "m:" + code, lambda ix: [ix.match(u) for u in snippet_units(code)])

    def def_span(self, rel: str, qualname: str) -> list | None:
        return self._answer(rel, "d:" + qualname, lambda ix: ix.def_span(qualname))

    def glob(self, pattern: str) -> list[str]:
        if pattern not in self._globs:
            self._globs[pattern] = glob_files(self.root, pattern)  # none through a symlink leading out
        return self._globs[pattern]

    def take_new(self) -> list:
        """``[[rel, [[key, answer], ...]], ...]``: the answers learnt since the last call
        (what a child process of ``parallel.share`` sends back)."""
        out = []
        for src in self.files.values():
            if src is not None and src.new:
                out.append([src.rel, [[k, v] for k, v in src.answers.items()]])
                src.new = False
        return out

    def learn(self, learnt: object) -> None:
        """Answers another process computed (:meth:`take_new`), checked for their shape."""
        if type(learnt) is not list:
            raise ValueError("not a list of answers")
        for item in learnt:
            if type(item) is not list or len(item) != 2 or type(item[0]) is not str:
                raise ValueError("not [path, answers]")
            answers = _answers_from_plain(item[1])
            src = self._source(item[0])
            if src is not None:
                for key, value in answers.items():
                    if key not in src.answers:
                        src.answers[key] = value
                        src.new = True

    def save(self) -> None:
        for src in self.files.values():
            if src is not None and src.new:
                self.cache.put("snippets:" + src.rel, src.st, [[k, v] for k, v in src.answers.items()])


def _is_span(v: object) -> bool:
    return (type(v) is list and len(v) == 5 and type(v[0]) is int and type(v[1]) is int and type(v[4]) is int
            and all(type(x) is list and all(type(i) is int for i in x) for x in v[2:4]))


def _is_unit_answer(v: object) -> bool:
    if type(v) is not dict or len(v) != 1:
        return False
    if "at" in v:
        return type(v["at"]) is list and all(_is_span(s) for s in v["at"])
    near = v.get("near", 0)
    return near is None or (type(near) is list and len(near) == 2 and type(near[0]) is int
                            and type(near[1]) is list and all(type(d) is str for d in near[1]))


def _answers_from_plain(data: object) -> dict:
    """Cached answers, ``[[key, answer], ...]``, each checked for its shape; {} if any is not right."""
    out: dict = {}
    if type(data) is not list:
        return {}
    for item in data:
        if type(item) is not list or len(item) != 2 or type(item[0]) is not str:
            return {}
        key, value = item
        if key == "#lines":
            ok = type(value) is int
        elif key.startswith("m:"):
            ok = value is None or (type(value) is list and all(_is_unit_answer(u) for u in value))
        elif key.startswith("v:"):
            ok = type(value) is list and all(type(p) is list and len(p) == 2 and all(type(i) is int for i in p) for p in value)
        elif key.startswith("d:"):
            ok = value is None or _is_span(value)
        else:
            ok = False
        if not ok:
            return {}
        out[key] = value
    return out


def units_count(code: str) -> int:
    return len(snippet_units(code))


_GLOB_CHARS = re.compile(r"[*?\[]")


def is_glob(path: str) -> bool:
    return bool(_GLOB_CHARS.search(path))


# --- version guards: their quoted code, and where it stands -----------------------------

_GUARD_NODES = (ast.Call, ast.Compare, ast.If, ast.Try, ast.Import, ast.ImportFrom, ast.BoolOp, ast.UnaryOp)


def quoted_code(code: str) -> str | None:
    """Quoted code that is a call, a comparison or a statement (``hasattr(Cls, "name")``,
    ``if ...: raise ...``, ``from x import y``), not a bare name."""
    text = code.replace("\u2026", "...")
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):  # not Python, or nested past the parser's limits
        return None
    if any(isinstance(n, _GUARD_NODES) for n in walk(tree)) and snippet_units(text):
        return text
    return None


def guard_code(g: Guard) -> str | None:
    """The guard's quoted expression: the first quoted code after the path that is a
    call, a comparison or a statement."""
    return next(filter(None, (quoted_code(c) for c in g.codes)), None)


def located_guard_line(source: str, g: Guard) -> int | None:
    """Where the guard's quoted expression is in ``source`` (the statement nearest to
    the recorded line); the recorded line when nothing is quoted or nothing matches."""
    code = guard_code(g)
    if code is None:
        return g.line
    try:
        index = SourceIndex(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return g.line
    units = snippet_units(code)
    places = index.match(units[0]).get("at") if units else None
    if not places:
        return g.line
    near = g.line or 0
    return min(places, key=lambda sp: distance(sp, near, near))[0]


def distance(span: list, a: int, b: int) -> int:
    """How many lines lie between ``span`` and the range ``a``..``b`` (0 when they overlap)."""
    start, stop = span[0], span[1]
    return 0 if start <= b and a <= stop else min(abs(start - b), abs(a - stop))
