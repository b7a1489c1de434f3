"""Scan the code for facts: imports, bound names, attribute uses, string literals.

The stdlib ``ast`` does the work on every commit (it is several times faster
than libcst). A byte-level pre-filter keeps files that cannot import a focused
package from being parsed at all. libcst is the fallback for files that ``ast``
of the running interpreter cannot parse (newer syntax than the hook's Python):
its parser does not depend on the interpreter's grammar.
"""

from __future__ import annotations

import ast
import codecs
import io
import os
import re
import tokenize
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

from upgrade_checklists.core import gitfiles
from upgrade_checklists.core.findings import Finding
from upgrade_checklists.core.plain import PlainError, from_plain, to_plain

SKIP_DIRS = {"__pycache__", "node_modules", "site-packages"}


@dataclass(frozen=True)
class Import:
    """One import binding. ``qualname`` is what it refers to, fully qualified."""

    qualname: str  # megatron.core.distributed.DistributedDataParallel
    bound: str  # DDP  (for ``import a.b`` the bound name is ``a``)
    original: str  # DistributedDataParallel (``a.b`` for ``import a.b``)
    line: int
    target: str  # what ``bound`` refers to: megatron.core.distributed.DistributedDataParallel, or ``a``
    dynamic: bool = False  # ``importlib.import_module("a.b")`` and the like


@dataclass
class Facts:
    """What one source file says, as far as the checks need it."""

    path: str
    imports: list[Import] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    attributes: dict[str, int] = field(default_factory=dict)  # qualified use -> first line
    strings: set[str] = field(default_factory=set)
    full: bool = False  # names/strings collected (not only imports)

    def uses_below(self, prefix: str) -> list[str]:
        """The attribute uses that start with ``prefix`` (``megatron.core.``), in order;
        remembered (a row's tokens ask the same of every import, once per token)."""
        memo = self.__dict__.setdefault("_below", {})
        out = memo.get(prefix)
        if out is None:
            out = memo[prefix] = [a for a in self.attributes if a.startswith(prefix)]
        return out

    def imports_of(self, modules: list[str]) -> list[Import]:
        """The imports that refer to one of ``modules`` or something inside them."""
        out = []
        for imp in self.imports:
            q = imp.qualname
            for m in modules:
                if q == m or q.startswith(m + "."):
                    out.append(imp)
                    break
                if m.startswith(q + ".") and any(a == m or a.startswith(m + ".") for a in self.attributes):
                    out.append(imp)  # ``import megatron`` then ``megatron.core.x``
                    break
        return out


def iter_sources(root: Path, roots: list[str], exclude: list[str], listing: list[str] | None = None) -> list[str]:
    """Repository-relative paths of the ``*.py`` files below ``roots``, sorted.

    In a git work tree, the files git tracks or would track (``git ls-files``: what
    ``.gitignore`` excludes is not the project's code); elsewhere, a walk of the file system.
    Either way hidden, ``__pycache__``, ``node_modules``, ``site-packages`` and ``*.egg-info``
    directories are skipped, and ``exclude`` globs apply. ``listing``: what
    ``gitfiles.project_files(root, ["."])`` said already in this run (one git call less).
    """
    listed = gitfiles.project_files(root, roots) if listing is None else gitfiles.below(listing, roots)
    if listed is None:
        return _walk_sources(root, roots, exclude)
    out = []
    for rel in listed:
        if not rel.endswith(".py"):
            continue
        parts = rel.split("/")
        if any(d.startswith(".") or d in SKIP_DIRS or d.endswith(".egg-info") for d in parts[:-1]):
            continue
        if exclude and any(fnmatch(rel, pat) for pat in exclude):
            continue
        out.append(rel)
    out.sort()
    return out


def _walk_sources(root: Path, roots: list[str], exclude: list[str]) -> list[str]:
    """``iter_sources`` outside git: plain strings and ``os.scandir`` (this runs on every
    commit, over every file)."""
    out: list[str] = []
    seen: set[str] = set()
    prefix = len(os.path.join(str(root), ""))
    sep = os.sep
    for r in roots:
        base = os.path.join(str(root), r)
        if os.path.isfile(base):
            if base.endswith(".py") and r not in seen:
                seen.add(r)
                out.append(r)
            continue
        stack = [base]
        while stack:
            try:
                it = os.scandir(stack.pop())
            except OSError:
                continue
            with it:
                for e in it:
                    name = e.name
                    if e.is_dir(follow_symlinks=False):
                        if not (name.startswith(".") or name in SKIP_DIRS or name.endswith(".egg-info")):
                            stack.append(e.path)
                    elif name.endswith(".py"):
                        rel = e.path[prefix:].replace(sep, "/")
                        if rel not in seen and not any(fnmatch(rel, pat) for pat in exclude):
                            seen.add(rel)
                            out.append(rel)
    out.sort()
    return out


class Prefilter:
    """Cheap bytes test that every file importing one of ``modules`` passes.

    A literal search for the top-level names, then a look at the start of each
    matching line: it must be an ``import``/``from`` statement (or follow a ``;``).
    Files that only mention the package in prose or strings mostly fail here and
    are never parsed.
    """

    _STMT = re.compile(rb"[ \t]*(?:from|import)[ \t]")

    def __init__(self, modules: list[str]) -> None:
        heads = sorted({m.split(".")[0] for m in modules})
        self._heads = [h.encode() for h in heads]
        alt = b"|".join(re.escape(h) for h in self._heads)
        self._names = re.compile(rb"\b(?:" + alt + rb")\b") if heads else None

    def __call__(self, data: bytes) -> bool:
        if self._names is None or not any(h in data for h in self._heads):
            return False  # a plain substring search first: most files name no focused package
        stmt = self._STMT
        dynamic = None
        for m in self._names.finditer(data):
            if dynamic is None:
                dynamic = has_dynamic_import(data)
            if dynamic:  # the name may be the argument of a dynamic import, on any line
                return True
            start = data.rfind(b"\n", 0, m.start()) + 1
            if stmt.match(data, start) or b";" in data[start : m.start()]:
                return True
        return False


_DYNAMIC = (b"import_module", b"importorskip", b"__import__")


def has_dynamic_import(data: bytes) -> bool:
    """Whether the bytes may hold a dynamic import (checked before walking expressions)."""
    return any(d in data for d in _DYNAMIC)


def scan_file(rel: str, data: bytes, full: bool) -> Facts | Finding:
    """Facts of one file, or a ``PARSE`` finding if it cannot be read."""
    return scan_tree(rel, data, full)[0]


def scan_tree(rel: str, data: bytes, full: bool) -> tuple[Facts | Finding, ast.Module | None]:
    """:func:`scan_file`, and the tree it parsed (None when ``ast`` could not), for
    whoever needs the same file parsed (the catalog's snippets)."""
    try:
        tree = ast.parse(data, filename=rel)
    except (RecursionError, MemoryError):  # 3,000 chained attributes, 10,000 unary minus, a 1 MB expression
        return _too_deep(rel), None
    except Exception as exc:  # SyntaxError, ValueError (NUL), and whatever a coding cookie's codec raises
        return _fallback(rel, data, full, exc), None
    facts = _facts_of(rel, data, tree, full)
    return facts, tree if isinstance(facts, Facts) else None


def full_facts(rel: str, data: bytes, tree: ast.Module | None) -> Facts | Finding:
    """The full facts of a file :func:`scan_tree` scanned for its imports only, from the
    tree it parsed (parsed again only when ``ast`` could not and libcst did)."""
    if tree is None:
        return scan_file(rel, data, True)
    return _facts_of(rel, data, tree, True)


def _facts_of(rel: str, data: bytes, tree: ast.Module, full: bool) -> Facts | Finding:
    facts = Facts(rel, full=full)
    try:
        nodes = None
        if has_dynamic_import(data):  # first: attribute uses through their bound names count
            nodes = _nodes(tree)
            _collect_dynamic(nodes, facts)
        _collect(tree, facts, full, nodes)
    except (RecursionError, MemoryError):
        return _too_deep(rel)
    return facts


def _too_deep(rel: str) -> Finding:
    return Finding(None, None, "PARSE", f"cannot parse {rel}: nested too deeply or too large; file skipped", rel, 1)


# --- dynamic imports ---------------------------------------------------------------

_DYNAMIC_FUNCS = {"import_module", "importorskip", "__import__"}
_MODULE_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$")


def _collect_dynamic(nodes: list[ast.AST], facts: Facts) -> None:
    """``importlib.import_module("pkg.x")``, ``pytest.importorskip("pkg.x")``,
    ``__import__("pkg")`` are imports of their argument; an f-string argument imports
    the module its literal prefix names (``f"pkg.models.{name}"`` -> ``pkg.models``).
    An argument computed at run time (``import_module(path)``) imports the modules
    that the file's dotted string literals name (``"pkg.models.x"``), at their lines."""
    found: list[Import] = []
    computed = False
    assigned: dict[int, str] = {}
    modules: list[tuple[str, int]] = []
    Call, Assign, Name, Attribute, Constant, JoinedStr, Expr = (
        ast.Call, ast.Assign, ast.Name, ast.Attribute, ast.Constant, ast.JoinedStr, ast.Expr,
    )
    docstrings: set[int] = set()
    for node in nodes:  # breadth first: an assignment before its value, a statement before its string
        t = type(node)
        if t is Assign and len(node.targets) == 1 and type(node.targets[0]) is Name:
            assigned[id(node.value)] = node.targets[0].id
        elif t is Expr and type(node.value) is Constant:
            docstrings.add(id(node.value))
        elif t is Constant and type(node.value) is str and id(node) not in docstrings:
            if _MODULE_RE.match(node.value):
                modules.append((node.value, node.lineno))
        elif t is Call and node.args:
            f = node.func
            name = f.id if type(f) is Name else f.attr if type(f) is Attribute else None
            if name not in _DYNAMIC_FUNCS:
                continue
            arg = node.args[0]
            module = None
            if type(arg) is Constant and type(arg.value) is str:
                module = arg.value.strip()
            elif type(arg) is JoinedStr:
                head = arg.values[0] if arg.values else None
                prefix = head.value if type(head) is Constant and type(head.value) is str else ""
                module = prefix[: prefix.rfind(".")] if "." in prefix else ""
            else:
                computed = True
            if module and _MODULE_RE.match(module) or module and module.isidentifier():
                bound = assigned.get(id(node), module)
                found.append(Import(module, bound, module, node.lineno, module, True))
    if computed:
        seen = {i.qualname for i in found}
        for module, line in modules:
            if module not in seen:
                seen.add(module)
                found.append(Import(module, module, module, line, module, True))
    if found:
        facts.imports += found
        facts.imports.sort(key=lambda i: i.line)
        if facts.full:
            facts.names.update(i.bound for i in found if i.bound.isidentifier())


def _collect_imports(tree: ast.Module, facts: Facts) -> None:
    """Imports only: walk statements (imports are statements), not expressions."""
    imports = facts.imports
    stack = list(tree.body)
    Import_, ImportFrom = ast.Import, ast.ImportFrom
    while stack:
        node = stack.pop()
        t = type(node)
        if t is Import_ or t is ImportFrom:
            imports += _imports(node)
        else:
            for attr in ("body", "orelse", "finalbody", "handlers", "cases"):
                sub = getattr(node, attr, None)
                if sub:
                    stack.extend(sub)
    imports.sort(key=lambda i: i.line)


def _imports(node: ast.Import | ast.ImportFrom) -> list[Import]:
    """The bindings one import statement makes (relative imports are not the package's)."""
    line = node.lineno
    if type(node) is ast.Import:
        out = []
        for a in node.names:
            if a.asname:  # ``import a.b as c``: the original name is the module path
                out.append(Import(a.name, a.asname, a.name, line, a.name))
            else:
                head = a.name.split(".")[0]
                out.append(Import(a.name, head, a.name, line, head))
        return out
    if node.level or not node.module:
        return []
    return [Import(node.module if a.name == "*" else f"{node.module}.{a.name}", a.asname or a.name, a.name, line,
                   node.module if a.name == "*" else f"{node.module}.{a.name}") for a in node.names]


#: nodes without children that the scan never looks at (Load, Add, Not, Eq, And...)
_LEAVES = frozenset(c for base in (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
                    for c in base.__subclasses__())


#: fields that hold no node (names, flags, operators, contexts), by node class: the walk
#: below does not look into them. A class not named here is walked field by field.
_SCALAR_FIELDS = {
    "Name": ("id", "ctx"), "Attribute": ("attr", "ctx"), "Constant": ("value", "kind"),
    "Subscript": ("ctx",), "Starred": ("ctx",), "List": ("ctx",), "Tuple": ("ctx",),
    "FunctionDef": ("name", "type_comment"), "AsyncFunctionDef": ("name", "type_comment"), "ClassDef": ("name",),
    "ImportFrom": ("module", "level"), "alias": ("name", "asname"), "arg": ("arg", "type_comment"),
    "keyword": ("arg",), "Assign": ("type_comment",), "For": ("type_comment",), "AsyncFor": ("type_comment",),
    "With": ("type_comment",), "AsyncWith": ("type_comment",), "AnnAssign": ("simple",), "AugAssign": ("op",),
    "BinOp": ("op",), "UnaryOp": ("op",), "BoolOp": ("op",), "Compare": ("ops",), "FormattedValue": ("conversion",),
    "comprehension": ("is_async",), "ExceptHandler": ("name",), "Global": ("names",), "Nonlocal": ("names",),
    "MatchAs": ("name",), "MatchStar": ("name",), "MatchSingleton": ("value",), "MatchClass": ("kwd_attrs",),
    "MatchMapping": ("rest",),
}
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(t: type) -> tuple[str, ...]:
    """The fields of node class ``t`` that may hold nodes."""
    scalar = _SCALAR_FIELDS.get(t.__name__, ()) if getattr(ast, t.__name__, None) is t else ()
    out = _CHILD_FIELDS[t] = tuple(f for f in t._fields if f not in scalar)
    return out


def _nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of the tree (itself first) but operators and contexts, breadth first as
    ``ast.walk`` yields them; a list built in place, looking only at the fields that may
    hold nodes: this is the cold path."""
    todo = [tree]
    push = todo.append
    child_fields = _CHILD_FIELDS
    AST, leaves = ast.AST, _LEAVES
    for node in todo:  # the list grows as it is read
        t = type(node)
        fields = child_fields.get(t)
        for field in fields if fields is not None else _child_fields(t):
            v = getattr(node, field, None)
            if type(v) is list:
                for x in v:
                    if isinstance(x, AST) and type(x) not in leaves:
                        push(x)
            elif isinstance(v, AST) and type(v) not in leaves:
                push(v)
    return todo


def _collect(tree: ast.AST, facts: Facts, full: bool, nodes: list[ast.AST] | None = None) -> None:
    """``nodes``: :func:`_nodes` of the tree, when a caller has it already."""
    if not full:
        _collect_imports(tree, facts)
        return
    imports = facts.imports
    skip: set[int] = set()
    names = facts.names
    strings = facts.strings
    chains: list[ast.Attribute] = []
    Import_, ImportFrom, Name, Attribute, Constant, Expr = (
        ast.Import, ast.ImportFrom, ast.Name, ast.Attribute, ast.Constant, ast.Expr,
    )
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for node in nodes if nodes is not None else _nodes(tree):
        t = type(node)
        if t is Import_ or t is ImportFrom:
            found = _imports(node)
            imports += found
            names.update(i.bound for i in found)
        elif t is Name:
            names.add(node.id)
        elif t is Attribute:
            names.add(node.attr)
            chains.append(node)
        elif t is Constant:
            if type(node.value) is str and id(node) not in skip:
                strings.add(node.value)
        elif t is Expr:
            if type(node.value) is Constant and type(node.value.value) is str:
                skip.add(id(node.value))  # docstrings and bare strings are comments
        elif t in defs:
            names.add(node.name)
        elif t is ast.arg:
            names.add(node.arg)
        elif t is ast.keyword:
            if node.arg:
                names.add(node.arg)
    imports.sort(key=lambda i: i.line)
    if chains and imports:
        bound = {imp.bound: imp.target for imp in imports}
        attrs = facts.attributes
        for node in chains:
            parts = []
            cur: ast.AST = node
            while type(cur) is Attribute:
                parts.append(cur.attr)
                cur = cur.value
            if type(cur) is Name and cur.id in bound:
                q = bound[cur.id] + "." + ".".join(reversed(parts))
                attrs.setdefault(q, node.lineno)


# --- errors and the libcst fallback ----------------------------------------------


#: The libcst fallback is native code: past this bracket depth (Python's own parser
#: stops at 200) or this many chained subscripts/calls it can crash the process or
#: take minutes, so such a file is reported as PARSE without being handed to it.
MAX_NESTING = 100
_CHAIN_RE = re.compile(rb"(?:[\])][ \t\r\n\\]*[\[(][^\[\]()]{0,80}){%d}" % MAX_NESTING)
_BRACKETS_RE = re.compile(rb"[\[\](){}]|\\\r?\n|\r\n|\r|\n")
MAX_FALLBACK_BYTES = 2 * 1024 * 1024
#: Nesting without brackets (8,200 unary minus in a row crash libcst's parser with a stack
#: overflow; 3,000 chained ``.b`` take it seconds) needs at least a byte a level, all in one
#: logical line: a longer logical line (backslash continuations and bracketed lines joined)
#: is not handed to it.
MAX_FALLBACK_LINE = 4_000


def nesting_too_deep(data: bytes) -> bool:
    """A cheap, conservative look at the bytes: brackets nested past :data:`MAX_NESTING`
    (strings and comments count too), a logical line over :data:`MAX_FALLBACK_LINE` bytes,
    a very long chain of calls/subscripts, a huge file."""
    if len(data) > MAX_FALLBACK_BYTES:
        return True
    depth = start = 0
    for m in _BRACKETS_RE.finditer(data):
        c = m.group()
        if c in b"([{":
            depth += 1
            if depth > MAX_NESTING:
                return True
        elif c in b")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and c[0] != 0x5C:  # a line break outside brackets, not escaped by a backslash
            if m.start() - start > MAX_FALLBACK_LINE:
                return True
            start = m.end()
    if len(data) - start > MAX_FALLBACK_LINE:
        return True
    return _CHAIN_RE.search(data) is not None


def _fallback(rel: str, data: bytes, full: bool, exc: Exception) -> Facts | Finding:
    decode_error = _decode_problem(data)
    if decode_error is not None:
        line, why = decode_error
        return Finding(None, None, "PARSE", f"cannot decode {rel}: {why}; file skipped", rel, line)
    line = getattr(exc, "lineno", None) or 1
    msg = " ".join(str(getattr(exc, "msg", None) or exc).split())[:200] or type(exc).__name__
    if not isinstance(line, int) or line < 1:
        line = 1
    if nesting_too_deep(data):
        return Finding(None, None, "PARSE", f"syntax error in {rel}: {msg}; file skipped", rel, line)
    try:
        from upgrade_checklists.project import scan_cst
        return scan_cst.scan(rel, data.decode(_encoding(data)), full)
    except Exception:  # libcst could not parse it either (RecursionError, MemoryError included): report ast's error
        return Finding(None, None, "PARSE", f"syntax error in {rel}: {msg}; file skipped", rel, line)


def _encoding(data: bytes) -> str:
    try:
        return tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except (SyntaxError, LookupError):
        return "utf-8"


def _decode_problem(data: bytes) -> tuple[int, str] | None:
    try:
        enc = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError as exc:
        return getattr(exc, "lineno", None) or 1, " ".join(str(exc).split())[:200]
    try:
        info = codecs.lookup(enc)
    except LookupError:
        return 1, f"unknown encoding {enc[:80]!r}"
    if not getattr(info, "_is_text_encoding", True):  # rot13, hex, base64, zlib, uu...
        return 1, f"the coding cookie names {enc!r}, which is not a text encoding"
    try:
        codecs.decode(data, enc)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return line, f"not valid {enc} (byte 0x{data[exc.start]:02x} at line {line})"
    except Exception as exc:  # a codec that fails another way (punycode: UnicodeError, ...)
        return 1, f"cannot be decoded as {enc} ({type(exc).__name__})"
    return None


# --- a file's scan result in the cache ------------------------------------------------
# {"facts": Facts} | {"finding": Finding (PARSE)} | {"skip": id}: the pre-filter's
# "cannot import" answer, which holds for the module set ``id`` names only.


def scan_to_plain(out: Facts | Finding | str) -> dict:
    if isinstance(out, Facts):
        return {"facts": facts_to_plain(out)}
    if isinstance(out, Finding):
        return {"finding": to_plain(out)}
    return {"skip": out}


def scan_from_plain(data: object) -> Facts | Finding | str | None:
    """The cached scan result, or None when the data is not one."""
    if type(data) is not dict or len(data) != 1:
        return None
    try:
        if "facts" in data:
            return facts_from_plain(data["facts"])
        if "finding" in data:
            return from_plain(Finding, data["finding"])
    except PlainError:
        return None
    skip = data.get("skip")
    return skip if type(skip) is str else None


def facts_to_plain(f: Facts) -> dict:
    """A file's facts as plain data (what the cache keeps and the second core sends): an
    import a list ``[qualname, bound, original, line, target]`` (``true`` appended for a
    dynamic one), ``bound`` empty when it is ``original``, ``target`` when it is
    ``qualname``: the imports were two thirds of a cache, most of it their keys."""
    return {"path": f.path,
            "imports": [[i.qualname, "" if i.bound == i.original else i.bound, i.original, i.line,
                         "" if i.target == i.qualname else i.target, True][: 6 if i.dynamic else 5] for i in f.imports],
            "names": sorted(f.names), "attributes": dict(f.attributes), "strings": sorted(f.strings), "full": f.full}


def facts_from_plain(d: object) -> Facts:
    """The facts :func:`facts_to_plain` made, every value's type checked (a cache is read
    from disk: anything else raises PlainError)."""
    if type(d) is not dict or type(d.get("path")) is not str:
        raise PlainError("not the facts of a file")
    if type(d.get("imports", [])) is not list:
        raise PlainError("imports is not a list")
    imports = []
    for i in d.get("imports", []):
        if (type(i) is not list or len(i) not in (5, 6) or type(i[3]) is not int
                or type(i[0]) is not str or type(i[1]) is not str or type(i[2]) is not str or type(i[4]) is not str
                or len(i) == 6 and i[5] is not True):
            raise PlainError("not an import")
        q, bound, original, line, target = i[0], i[1], i[2], i[3], i[4]
        imports.append(Import(q, bound or original, original, line, target or q, len(i) == 6))
    names, strings, attributes = d.get("names", []), d.get("strings", []), d.get("attributes", {})
    full = d.get("full", False)
    if (type(names) is not list or type(strings) is not list or type(attributes) is not dict or type(full) is not bool
            or any(type(n) is not str for n in names) or any(type(s) is not str for s in strings)
            or any(type(v) is not int for v in attributes.values())):
        raise PlainError("facts of the wrong shape")
    return Facts(d["path"], imports, set(names), dict(attributes), set(strings), full)
