"""What the subclasses of an upstream class set, within its own package (plain text and AST, nothing
imported): the facts behind a read of an attribute the class itself does not define.

A project that types a receiver by an upstream base (``config: PretrainedConfig``) and reads an attribute
the base does not define (``config.rope_theta``) relies on the concrete class chosen at run time: the
subclasses that set it. When a release takes it out of most of them, or moves it onto the base as a
property with other contents, the read breaks though the base's members did not change.

:func:`subclass_index` answers, for one class ``B`` of the loaded source, as plain data (``model_cache``
keeps it as JSON, one answer per class and version):

- ``classes``: the dotted path of each subclass of ``B`` (at any depth) defined in the package's files,
  and ``parents``: per subclass, the indices of its bases that are subclasses too (what it inherits);
- ``sets``: attribute name -> the indices of the subclasses that set it themselves: a class-level
  assignment or annotation, a ``def`` (method or property), ``self.x = …`` / ``self.x: T = …`` /
  ``setattr(self, "x", …)`` in one of its methods, or a key of its remap table (below);
- ``dynamic``: the subclasses that may serve any name (their own ``__getattr__`` / ``__getattribute__``,
  or a remap table that is not a literal dict): what they provide is not known;
- ``table`` / ``base_keys``: a ``__getattribute__`` (or ``__getattr__``) of ``B``'s MRO that only remaps
  names through a class-level dict (``if key in self.attribute_map: key = self.attribute_map[key]`` then the
  normal lookup) is read as such: its table's name (from that method's source), and the keys ``B``'s own
  table has; a subclass's literal table adds its keys to what it sets;
- ``base_dynamic``: ``B``'s MRO defines a ``__getattr__`` / ``__getattribute__`` that is not such a remap
  (``"Class.__getattr__"``; empty when none): any name may be served;
- ``base_defs``: each ``def`` of ``B``'s MRO, ``property`` or ``method`` (what a name became on ``B``).

Subclasses are found cheaply: a text pass over every file (``class Name(...)`` statements whose bases
mention a name already known to lead to ``B``, or a name one is imported as), then each file holding a candidate is parsed, and each
base is resolved through that module's imports (a name imported, a class of the same module, else the
one candidate of that name in the package). Attributes set under computed names
(``setattr(self, key, value)``) are not counted.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from pathlib import Path
from typing import Callable

from upgrade_checklists.core.astwalk import import_map, module_level, statements

_CLASS = re.compile(rb"^[ \t]*class[ \t]+([A-Za-z_]\w*)[ \t]*\(([^)]{0,4000})\)", re.M)  # bounded: a hostile file stays linear
_WORD = re.compile(rb"[A-Za-z_]\w*")
_IMPORTED = re.compile(rb"\bimport[ \t]*(\([^)]{0,4000}\)|[^\n]*)")
_AS = re.compile(rb"\b([A-Za-z_]\w*)[ \t]+as[ \t]+([A-Za-z_]\w*)")
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DYNAMIC = ("__getattr__", "__getattribute__")


def parse(path: Path) -> ast.Module | None:
    """A file's AST, not kept (the index parses hundreds of files once)."""
    try:
        return ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _dotted_text(expr: ast.AST) -> str | None:
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Subscript):  # ``Base[T]``: the generic class
        return _dotted_text(expr.value) if not parts else None
    if not isinstance(expr, ast.Name):
        return None
    parts.append(expr.id)
    return ".".join(reversed(parts))


def _table_ref(expr: ast.AST, selfname: str) -> str | None:
    """The name of the class-level table an expression reads: ``self.N``, ``type(self).N``,
    ``self.__class__.N``, ``super().__getattribute__("N")``, ``object.__getattribute__(self, "N")``,
    ``getattr(self, "N")``."""
    if isinstance(expr, ast.Attribute):
        v = expr.value
        if isinstance(v, ast.Name) and v.id == selfname:
            return expr.attr
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "type" and len(v.args) == 1 \
                and isinstance(v.args[0], ast.Name) and v.args[0].id == selfname:
            return expr.attr
        if isinstance(v, ast.Attribute) and v.attr == "__class__" and isinstance(v.value, ast.Name) and v.value.id == selfname:
            return expr.attr
        return None
    if isinstance(expr, ast.Call) and expr.args and isinstance(expr.args[-1], ast.Constant) and isinstance(expr.args[-1].value, str):
        f = expr.func
        name = expr.args[-1].value
        if isinstance(f, ast.Attribute) and f.attr == "__getattribute__":
            if isinstance(f.value, ast.Call) and isinstance(f.value.func, ast.Name) and f.value.func.id == "super" and len(expr.args) == 1:
                return name
            if isinstance(f.value, ast.Name) and f.value.id == "object" and len(expr.args) == 2:
                return name
        if isinstance(f, ast.Name) and f.id == "getattr" and len(expr.args) == 2 and isinstance(expr.args[0], ast.Name) \
                and expr.args[0].id == selfname:
            return name
    return None


def _normal_lookup(expr: ast.AST, selfname: str, key: str) -> bool:
    """``super().__getattribute__(key)`` / ``object.__getattribute__(self, key)``."""
    if not isinstance(expr, ast.Call) or not isinstance(expr.func, ast.Attribute) or expr.func.attr != "__getattribute__":
        return False
    args = expr.args
    if not args or not isinstance(args[-1], ast.Name) or args[-1].id != key or expr.keywords:
        return False
    v = expr.func.value
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "super":
        return len(args) == 1
    return isinstance(v, ast.Name) and v.id == "object" and len(args) == 2 and isinstance(args[0], ast.Name) and args[0].id == selfname


def remap_table(fn: ast.FunctionDef) -> str | None:
    """The table's name when ``fn`` (a ``__getattribute__`` or ``__getattr__``) only remaps names through a
    class-level dict: ``if key in T: key = T[key]`` then the normal lookup (``__getattribute__``), or ``if key
    in T: return getattr(self, T[key])`` then ``raise AttributeError`` (``__getattr__``); None otherwise."""
    params = fn.args.posonlyargs + fn.args.args
    if len(params) != 2 or fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs or fn.decorator_list:
        return None
    selfname, key = params[0].arg, params[1].arg
    body = list(fn.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        body = body[1:]  # a docstring
    if len(body) != 2 or not isinstance(body[0], ast.If) or body[0].orelse:
        return None
    test, inner = body[0].test, body[0].body
    tests = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    names = set()
    for t in tests:
        if isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.left, ast.Name) and t.left.id == key:
            if isinstance(t.ops[0], ast.In):
                names.add(_table_ref(t.comparators[0], selfname))
            elif not isinstance(t.ops[0], (ast.NotEq, ast.IsNot)) or not isinstance(t.comparators[0], ast.Constant):
                return None  # only ``key != "the table"`` may stand beside the membership test
        else:
            return None
    if len(inner) != 1:
        return None
    last = body[1]
    if fn.name == "__getattribute__":
        s = inner[0]
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and s.targets[0].id == key
                and isinstance(s.value, ast.Subscript) and isinstance(s.value.slice, ast.Name) and s.value.slice.id == key):
            return None
        names.add(_table_ref(s.value.value, selfname))
        if not (isinstance(last, ast.Return) and last.value is not None and _normal_lookup(last.value, selfname, key)):
            return None
    else:
        s = inner[0]
        if not (isinstance(s, ast.Return) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Name)
                and s.value.func.id == "getattr" and len(s.value.args) == 2 and isinstance(s.value.args[0], ast.Name)
                and s.value.args[0].id == selfname and isinstance(s.value.args[1], ast.Subscript)
                and isinstance(s.value.args[1].slice, ast.Name) and s.value.args[1].slice.id == key):
            return None
        names.add(_table_ref(s.value.args[1].value, selfname))
        if not isinstance(last, ast.Raise):
            return None
    return names.pop() if len(names) == 1 and None not in names else None


def _table_keys(node: ast.ClassDef, table: str) -> list[str] | None | bool:
    """The keys of ``table`` as the class body defines it: a list (a literal dict of string keys), None (defined
    otherwise), False (not defined by this class)."""
    for s in node.body:
        target = s.targets[0] if isinstance(s, ast.Assign) and len(s.targets) == 1 else getattr(s, "target", None)
        if isinstance(s, (ast.Assign, ast.AnnAssign)) and isinstance(target, ast.Name) and target.id == table:
            v = s.value
            if isinstance(v, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in v.keys):
                return [k.value for k in v.keys]
            return None
    return False


def _self_name(fn) -> str | None:
    if any(_dotted_text(d.func if isinstance(d, ast.Call) else d) in ("staticmethod", "classmethod") for d in fn.decorator_list):
        return None
    first = (fn.args.posonlyargs + fn.args.args)[:1]
    return first[0].arg if first else None


def _targets(t: ast.AST):
    if isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            yield from _targets(e)
    elif isinstance(t, ast.Starred):
        yield from _targets(t.value)
    else:
        yield t


def class_sets(node: ast.ClassDef) -> set[str]:
    """The attribute names a class statement sets itself (class level, ``def``, ``self.x`` in its methods)."""
    out: set[str] = set()
    for s in node.body:
        if isinstance(s, _FUNCS):
            out.add(s.name)
            me = _self_name(s)
            if me is None:
                continue
            for n in statements(s):  # statements only: what sets an attribute is one (a ``setattr`` call: its own)
                if isinstance(n, ast.Expr):
                    n = n.value
                if isinstance(n, ast.Assign):
                    targets = [t for x in n.targets for t in _targets(x)]
                elif isinstance(n, (ast.AnnAssign, ast.AugAssign)):
                    targets = [n.target]
                elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr" and len(n.args) >= 2
                      and isinstance(n.args[0], ast.Name) and n.args[0].id == me and isinstance(n.args[1], ast.Constant)
                      and isinstance(n.args[1].value, str)):
                    out.add(n.args[1].value)
                    continue
                else:
                    continue
                for t in targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me:
                        out.add(t.attr)
        elif isinstance(s, ast.Assign):
            out.update(t.id for x in s.targets for t in _targets(x) if isinstance(t, ast.Name))
        elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
            out.add(s.target.id)
        elif isinstance(s, ast.ClassDef):
            out.add(s.name)
    return out


def base_remap(mro: list[ast.ClassDef]) -> tuple[str, list[str], str]:
    """(table name, the base's own table keys, what may serve any name) for the class statements of a class's
    MRO (``mro[0]`` the class): see the module doc."""
    table, dynamic = "", ""
    for name in _DYNAMIC:
        fn = next((s for k in mro for s in k.body if isinstance(s, _FUNCS) and s.name == name), None)
        if fn is None:
            continue
        owner = next(k for k in mro if fn in k.body)
        t = remap_table(fn)
        if t is None or (table and t != table):
            dynamic = dynamic or f"{owner.name}.{name}"
        else:
            table = t
    keys: list[str] = []
    if table:
        for k in mro:
            got = _table_keys(k, table)
            if got is False:
                continue
            if got is None:
                dynamic = dynamic or f"{k.name}.{table}"
            else:
                keys = got
            break
    return table, keys, dynamic


_CLASS_NAME = re.compile(rb"^class[ \t]+([A-Za-z_]\w*)", re.M)
_TOP_IMPORT = re.compile(rb"^(?:from[ \t]+[\w.]+[ \t]+import[ \t]*(?:\([^)]{0,4000}\)|[^\n]*)|import[ \t]+[^\n]*)", re.M)
_INNER_IMPORT = re.compile(rb"^[ \t]+(?:from[ \t]+[\w.]+[ \t]+import[ \t]*(?:\([^)]{0,4000}\)|[^\n]*)|import[ \t]+[^\n]*)", re.M)


def _pieces(text: bytes, words: set[bytes]) -> tuple[ast.Module, list[ast.ClassDef]] | None:
    """The module-level imports of a file (one module of them) and its classes named in ``words``, each parsed
    from its own lines; None where that could differ from the whole file's parse (a class indented, an import
    in a block naming a word of a class's bases, a piece that does not parse: a line at column 0 inside a
    string or brackets ends a class's lines early, and then it does not): parse the whole file."""
    lines = text.split(b"\n")
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln) + 1)
    nodes: list[ast.ClassDef] = []
    inner = b"\n".join(m.group(0) for m in _INNER_IMPORT.finditer(text))
    for m in _CLASS.finditer(text):
        if m.group(1) not in words:
            continue
        if text[m.start():m.start() + 5] != b"class" or any(w in inner for w in set(_WORD.findall(m.group(2)))):
            return None
        first = bisect_right(starts, m.start()) - 1
        last = bisect_right(starts, m.end()) - 1  # the header's ``)``; its ``:`` follows on that line
        end = last + 1
        while end < len(lines):
            ln = lines[end]
            if ln.strip() and not ln.startswith((b" ", b"\t", b"#")):
                break
            end += 1
        try:
            piece = ast.parse(b"\n".join(lines[first:end]))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        if len(piece.body) != 1 or not isinstance(piece.body[0], ast.ClassDef):
            return None
        nodes.append(ast.increment_lineno(piece.body[0], first))
    try:
        imports = ast.parse(b"\n".join(m.group(0) for m in _TOP_IMPORT.finditer(text)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return imports, nodes


def class_graph(files: list[tuple[str, Path]], read: Callable[[Path], bytes]) -> tuple[dict, dict]:
    """The text pass over ``files`` (one per model, whatever the base asked): each word a ``class X(...)``
    statement's bases mention -> (X, the file's index); each name -> the names ``import ... as`` gives it."""
    by_word: dict[bytes, list[tuple[bytes, int]]] = {}
    renamed: dict[bytes, set[bytes]] = {}  # ``import X as Y``: a base may be spelled Y
    for i, (_dotted, path) in enumerate(files):
        text = read(path)
        if b"class" not in text:
            continue
        for m in _CLASS.finditer(text):
            for w in set(_WORD.findall(m.group(2))):
                by_word.setdefault(w, []).append((m.group(1), i))
        if b" as " in text:
            for imp in _IMPORTED.finditer(text):
                for m in _AS.finditer(imp.group(1)):
                    renamed.setdefault(m.group(1), set()).add(m.group(2))
    return by_word, renamed


def subclass_index(files: list[tuple[str, Path]], read: Callable[[Path], bytes], tree: Callable[[Path], ast.Module | None],
                   base_path: str, base_file: Path | None, mro: list[ast.ClassDef], graph: tuple | None = None) -> dict:
    """The subclasses of the class at ``base_path`` (defined in ``base_file``; ``mro``: the class statements of
    its MRO, itself first) among ``files`` ((dotted module, path) of each file of its package), and what each
    sets: see the module doc."""
    base_module, base_name = base_path.rsplit(".", 1)
    top = base_path.split(".")[0]
    table, base_keys, base_dynamic = base_remap(mro)
    # the names the base is known by in its module (``Old = New`` at module level)
    names = {base_name}
    base_tree = tree(base_file) if base_file is not None else None
    if base_tree is not None:
        for s in module_level(base_tree.body):
            if isinstance(s, ast.Assign) and isinstance(s.value, ast.Name) and s.value.id == base_name:
                names.update(t.id for t in s.targets if isinstance(t, ast.Name))
    known = {f"{base_module}.{n}": base_path for n in names}  # dotted path -> the class it is
    # 1. text: the class statements whose bases mention a name that leads to the base, to a fixpoint
    by_word, renamed = graph if graph is not None else class_graph(files, read)
    todo = [n.encode() for n in names]
    seen_words = set(todo)
    candidate_files: set[int] = set()
    while todo:
        word = todo.pop()
        for other in renamed.get(word, ()):
            if other not in seen_words:
                seen_words.add(other)
                todo.append(other)
        for cls_name, i in by_word.get(word, ()):
            candidate_files.add(i)
            if cls_name not in seen_words:
                seen_words.add(cls_name)
                todo.append(cls_name)
    # 2. AST: each candidate class's bases resolved through its module's imports
    stmts: dict[str, tuple[ast.ClassDef, list[str]]] = {}
    for i in sorted(candidate_files):
        dotted, path = files[i]
        text = read(path)
        got = _pieces(text, seen_words)  # the imports and the candidate classes alone: most of a file is other code
        if got is None:
            t = tree(path)
            if t is None:
                continue
            got = t, [s for s in module_level(t.body) if isinstance(s, ast.ClassDef)]
        t, nodes = got
        imports = import_map(t, dotted if path.name == "__init__.py" else dotted.rpartition(".")[0])
        local = {m.group(1).decode() for m in _CLASS_NAME.finditer(text)}
        for s in nodes:
            if s.name.encode() not in seen_words:
                continue
            bases = []
            for b in s.bases:
                text = _dotted_text(b)
                if text is None:
                    continue
                head, _, rest = text.partition(".")
                if head in imports:
                    full = imports[head] + (f".{rest}" if rest else "")
                elif head in local and not rest:
                    full = f"{dotted}.{head}"
                else:
                    full = text
                bases.append(full)
            stmts.setdefault(f"{dotted}.{s.name}", (s, bases))
    by_last: dict[str, set[str]] = {}
    for p in stmts:
        by_last.setdefault(p.rsplit(".", 1)[-1], set()).add(p)
    for n in names:
        by_last.setdefault(n, set()).add(base_path)

    def resolve(full: str) -> str | None:
        if full in known:
            return known[full]
        if full in stmts:
            return full
        if full.split(".")[0] != top:
            return None  # another distribution's class (or a name not bound by an import)
        got = by_last.get(full.rsplit(".", 1)[-1], set())  # re-exported: the one class of that name
        return next(iter(got)) if len(got) == 1 else None

    resolved = {p: [r for r in (resolve(b) for b in bases) if r is not None] for p, (_s, bases) in stmts.items()}
    subs: set[str] = set()
    changed = True
    while changed:
        changed = False
        for p, rs in resolved.items():
            if p not in subs and p != base_path and any(r == base_path or r in subs for r in rs):
                subs.add(p)
                changed = True
    classes = sorted(subs)
    index = {p: i for i, p in enumerate(classes)}
    sets: dict[str, list[int]] = {}
    dynamic: list[int] = []
    for p in classes:
        node = stmts[p][0]
        own = class_sets(node)
        if any(n in own for n in _DYNAMIC):
            dynamic.append(index[p])
        if table:
            keys = _table_keys(node, table)
            if keys is None:
                dynamic.append(index[p])
            elif keys:
                own.update(keys)
        for a in own:
            sets.setdefault(a, []).append(index[p])
    parents = [sorted(index[r] for r in resolved[p] if r in index) for p in classes]
    return {"classes": classes, "parents": parents, "sets": {k: sorted(v) for k, v in sorted(sets.items())},
            "dynamic": sorted(set(dynamic)), "table": table, "base_keys": base_keys, "base_dynamic": base_dynamic,
            "base_defs": base_defs(mro)}


def base_defs(mro: list[ast.ClassDef]) -> dict[str, str]:
    """Each ``def`` of the MRO's class statements (the first class defining it): ``property`` (decorated
    ``@property``, ``@cached_property``, ``@x.setter``, …) or ``method``."""
    out: dict[str, str] = {}
    for k in mro:
        for s in k.body:
            if isinstance(s, _FUNCS) and s.name not in out:
                decos = [(_dotted_text(d.func if isinstance(d, ast.Call) else d) or "") for d in s.decorator_list]
                prop = any(d.rsplit(".", 1)[-1] in ("property", "cached_property", "setter", "getter", "deleter") for d in decos)
                out[s.name] = "property" if prop else "method"
    return out


def providers(index: dict, attr: str) -> tuple[set[str], set[str]]:
    """(the subclasses that set ``attr``, themselves or through a base that is a subclass too; the subclasses
    that may serve any name, themselves or through such a base)."""
    classes, parents = index["classes"], index["parents"]
    own = set(index["sets"].get(attr, ()))
    dyn = set(index["dynamic"])
    sets_, dyns = set(), set()
    for i, p in enumerate(classes):
        line, todo = {i}, [i]  # the class and its bases that are subclasses too, at any depth
        while todo:
            for j in parents[todo.pop()]:
                if j not in line:
                    line.add(j)
                    todo.append(j)
        if line & own:
            sets_.add(p)
        if line & dyn:
            dyns.add(p)
    return sets_, dyns
