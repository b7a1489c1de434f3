"""The audit's first stage: every use of a package in the code, as plain data.

A use is reached through a file's imports of the package (any alias):

- ``import``: an import of the package (``typing_only`` under ``if TYPE_CHECKING:``,
  ``fallback`` inside ``try/except ImportError``);
- ``call``: a call of an API (``mpu.initialize(tp=2)`` through
  ``from pkg import parallel_state as mpu``), also a keyword a project caller
  forwards through a subclass's ``**kwargs`` into the upstream ``__init__``;
- ``result``: a method called on what an API call returned
  (``b = X.make(); b.save(...)``);
- ``member``: an attribute or method of an upstream class used through a project
  object: ``self.x`` / ``self.m(...)`` / ``super().m(...)`` in a project class that
  subclasses it (any depth, across files), a method called on an instance of such
  a class, and ``self.…`` in a function patched onto the class;
- ``attribute``: a ``pkg.name`` read (a name a module ``__getattr__`` may serve with a warning);
- ``patch``: a function assigned onto an upstream class (``Cls.m = f``,
  ``setattr(Cls, "m", f)``), with its parameters.

Nothing here knows the upstream source: ``bind.py`` binds the uses to it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from upgrade_checklists.core.astwalk import imports, statements, walk
from upgrade_checklists.project.calls import Call, _inside, bindings, dotted, find_calls, find_method_calls, make_call, resolve, statement_calls
from upgrade_checklists.project.values import assignments_onto

IMPORT, CALL, RESULT, MEMBER, PATCH, ATTRIBUTE = "import", "call", "result", "member", "patch", "attribute"

_PARAM_KINDS = ("positional-only", "positional or keyword", "variadic positional", "keyword-only", "variadic keyword")


@dataclass(frozen=True)
class Use:
    file: str
    line: int
    kind: str  # IMPORT, CALL, RESULT, MEMBER, PATCH
    target: str  # the upstream dotted path the code reaches (callee, import, class)
    member: str | None = None  # RESULT / MEMBER / PATCH: the attribute used on the target's object
    call: Call | None = field(default=None, compare=False, repr=False)
    via: str = ""  # how the code reaches it: "subclass `Foo`", "patch `f`", "forwarded by `Foo.__init__`"
    patch: bool = False  # MEMBER: inside a function patched onto the class
    write: bool = False  # MEMBER: ``self.x = ...``
    typing_only: bool = False  # IMPORT
    fallback: bool = False  # IMPORT
    params: tuple[tuple[str, str], ...] = ()  # PATCH: the function's parameters (name, griffe kind)
    function_line: int = 0  # PATCH: where the function is defined
    function_file: str = ""  # PATCH: ... and in which file
    guarded: bool = False  # PATCH: under a ``hasattr(Cls, "m")`` test (applied only where upstream lacks it)
    guard_line: int | None = None  # PATCH and its MEMBER uses: the ``if`` around the assignment


def module_name(rel: str) -> str:
    """``app/engine/core.py`` -> ``app.engine.core`` (``__init__`` is its package)."""
    mod = rel.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    return mod.removeprefix("src.")


class Sources(Mapping):
    """The project's Python files by path: each text given (or read by ``read`` when first
    asked for), each tree parsed when first asked for and kept (a file that does not parse is
    absent). ``find_uses`` parses only the files a use can be in, so an audit holds a few
    trees, not the whole project's; an audit that finds its uses in the cache reads no text
    but the few it shows."""

    def __init__(self, texts, trees: dict[str, ast.Module] | None = None, read: Callable[[str], str] | None = None) -> None:
        """``texts``: path -> text; with ``read``, the paths alone (``read(path)`` gives a text)."""
        self.paths = sorted(texts)
        self._known = frozenset(self.paths)
        self._texts: dict[str, str] = dict(texts) if read is None else {}
        self._read = read
        self._trees: dict[str, ast.Module | None] = dict(trees or {})

    @classmethod
    def of(cls, parsed) -> Sources:
        """``parsed`` (path -> (text, tree)) as Sources; Sources as they are."""
        if isinstance(parsed, Sources):
            return parsed
        return cls({rel: text for rel, (text, _tree) in parsed.items()}, {rel: tree for rel, (_text, tree) in parsed.items()})

    def text(self, rel: str) -> str:
        text = self._texts.get(rel)
        if text is None:
            if self._read is None or rel not in self._known:
                raise KeyError(rel)
            text = self._texts[rel] = self._read(rel)
        return text

    def tree(self, rel: str) -> ast.Module | None:
        """The parsed file (kept), or None when it does not parse."""
        if rel not in self._trees:
            self._trees[rel] = self._parse(rel)
        return self._trees[rel]

    def peek(self, rel: str) -> ast.Module | None:
        """The parsed file, not kept unless it already was."""
        return self._trees[rel] if rel in self._trees else self._parse(rel)

    def _parse(self, rel: str) -> ast.Module | None:
        try:
            return ast.parse(self.text(rel))
        except SyntaxError:
            return None

    def __getitem__(self, rel: str) -> tuple[str, ast.Module]:
        tree = self.tree(rel) if rel in self._known else None
        if tree is None:
            raise KeyError(rel)
        return self._texts[rel], tree

    def __iter__(self):
        return (rel for rel in self.paths if self.tree(rel) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _mentions(text: str, words) -> bool:
    return any(w in text for w in words)


def find_uses(sources, modules: list[str]) -> list[Use]:
    """Every use of ``modules`` in the project files ``sources`` (rel -> (text, tree), or :class:`Sources`)."""
    sources = Sources.of(sources)
    out: list[Use] = []
    project = _Project(sources, modules)
    tops = {m.split(".")[0] for m in modules}  # an import of a module (what ``bindings`` finds) names its package
    for rel in sources.paths:
        text = sources.text(rel)
        if not _mentions(text, tops):
            continue
        tree = sources.tree(rel)
        if tree is None:
            continue
        bound = bindings(tree, modules)
        if bound:
            out += _imports(rel, tree, modules)
            out += _attributes(rel, tree, bound)
            for c in find_calls(text, tree, modules):
                out.append(Use(rel, c.line, CALL, c.api, call=c))
                if c.assigned_to:
                    for mc in find_method_calls(text, tree, c.assigned_to, None):
                        out.append(Use(rel, mc.line, RESULT, c.api, mc.api, call=mc, via=f"the result of `{c.api}`"))
        if bound or any(m in text for m in modules):  # a patch may reach the class through strings
            out += project.patches(rel)
    out += project.subclass_uses()
    return out


def subclasses(sources, modules: list[str]) -> list[tuple[str, str, str, int]]:
    """``(upstream base, project class, file, line)`` for each project class that subclasses an
    upstream class of ``modules`` (at any depth, across files)."""
    project = _Project(Sources.of(sources), modules)
    out = []
    for name, cls in sorted(project.classes.items()):
        up = project.upstream_base(name)
        if up is not None:
            out.append((up[0], name, cls.file, project.node(cls).lineno))
    return out


# -- imports -----------------------------------------------------------------------------


def _imports(rel: str, tree: ast.Module, modules: list[str]) -> list[Use]:
    typing_lines, fallback_lines = _typing_only_lines(tree), _fallback_import_lines(tree)
    out = []
    for node in imports(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            paths = [f"{node.module}.{a.name}" for a in node.names if a.name != "*"]
        elif isinstance(node, ast.Import):
            paths = [a.name for a in node.names]
        else:
            continue
        for path in paths:
            if _inside(path, modules):
                out.append(Use(rel, node.lineno, IMPORT, path, typing_only=node.lineno in typing_lines,
                               fallback=node.lineno in fallback_lines))
    return out


def _attributes(rel: str, tree: ast.Module, bound: dict[str, str]) -> list[Use]:
    """Each ``pkg.name`` read (``pkg.__version__``, the ``pkg.f`` of ``pkg.f()``), once a line."""
    out, seen = [], set()
    for node in walk(tree):
        if isinstance(node, ast.Attribute):
            path = resolve(node, bound)
            if path is not None and (node.lineno, path) not in seen:
                seen.add((node.lineno, path))
                out.append(Use(rel, node.lineno, ATTRIBUTE, path))
    return out


def _is_type_checking(test: ast.AST) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _typing_only_lines(tree: ast.Module) -> set[int]:
    """Lines of imports under ``if TYPE_CHECKING:`` (never run)."""
    out = set()
    for node in statements(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for s in node.body:
                for n in imports(s):
                    if isinstance(n, (ast.Import, ast.ImportFrom)):
                        out.add(n.lineno)
    return out


def _fallback_import_lines(tree: ast.Module) -> set[int]:
    """Lines of imports inside ``try/except ImportError`` (either branch)."""
    out = set()
    for node in statements(tree):
        if isinstance(node, ast.Try) and catches_import_error(node):
            for part in [node.body, *(h.body for h in node.handlers)]:
                for s in part:
                    for n in imports(s):
                        if isinstance(n, (ast.Import, ast.ImportFrom)):
                            out.add(n.lineno)
    return out


# -- patches -------------------------------------------------------------------------------


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[tuple[str, str], ...]:
    a = fn.args
    out = [(p.arg, _PARAM_KINDS[0]) for p in a.posonlyargs] + [(p.arg, _PARAM_KINDS[1]) for p in a.args]
    if a.vararg:
        out.append((a.vararg.arg, _PARAM_KINDS[2]))
    out += [(p.arg, _PARAM_KINDS[3]) for p in a.kwonlyargs]
    if a.kwarg:
        out.append((a.kwarg.arg, _PARAM_KINDS[4]))
    return tuple(out)


def _scope(tree: ast.Module, stmt: ast.stmt) -> ast.AST:
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


def _guard(tree: ast.Module, stmt: ast.stmt, name: str) -> tuple[ast.If | None, bool]:
    """The ``if`` guarding a patch assignment, and whether it tests ``hasattr(…, name)``: an ``if``
    around it, or an ``if hasattr(…, name): return`` before it in the same function."""
    scope = _scope(tree, stmt)
    around = None
    for node in statements(scope):
        if not isinstance(node, ast.If) or _scope(tree, node) is not scope:
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


def _self_uses(rel: str, text: str, fn, target: str, via: str, own: set[str], parents_own: set[str]) -> list[Use]:
    """``self.x`` reads and writes, ``self.m(...)`` and ``super().m(...)`` in one method body.
    ``own``: names the project classes define (skipped); ``parents_own``: what ``super()`` reaches
    in a project parent first (skipped)."""
    args = fn.args.posonlyargs + fn.args.args
    if not args or any(_decorator(d) == "staticmethod" for d in fn.decorator_list):
        return []
    me = args[0].arg
    lines = text.splitlines()
    written = {n.attr for n in walk(fn) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
               and isinstance(n.value, ast.Name) and n.value.id == me}
    out: list[Use] = []
    called: set[int] = set()
    for stmt, node, where in statement_calls(fn):
        f = node.func
        if not isinstance(f, ast.Attribute):
            continue
        if isinstance(f.value, ast.Name) and f.value.id == me:
            if f.attr in own or f.attr in written:
                continue
            how = via
        elif (isinstance(f.value, ast.Call) and isinstance(f.value.func, ast.Name) and f.value.func.id == "super"):
            if f.attr in parents_own:
                continue
            how = f"{via}, through `super()`"
        else:
            continue
        called.add(id(f))
        c = make_call(f.attr, where, node, stmt, lines)
        out.append(Use(rel, c.line, MEMBER, target, f.attr, call=c, via=how))
    for node in walk(fn):
        if (isinstance(node, ast.Attribute) and id(node) not in called and isinstance(node.value, ast.Name)
                and node.value.id == me and node.attr not in own):
            write = isinstance(node.ctx, ast.Store)
            if not write and node.attr in written:
                continue
            out.append(Use(rel, node.lineno, MEMBER, target, node.attr, via=via, write=write))
    return out


def _decorator(d: ast.AST) -> str | None:
    name = dotted(d.func if isinstance(d, ast.Call) else d)
    return name.rsplit(".", 1)[-1] if name else None


# -- subclasses --------------------------------------------------------------------------------


@dataclass
class _Class:
    name: str  # qualified: app.models.MyModel
    file: str
    at: int  # its statement's index in the file's body (the node is parsed again when needed)
    bases: list[str]  # qualified names of the bases (project or upstream)


class _Project:
    """Project classes and the names each file binds, to follow subclasses across files."""

    def __init__(self, sources: Sources, modules: list[str]) -> None:
        self.sources = sources
        self.modules = modules
        self.classes: dict[str, _Class] = {}
        self._names: dict[str, dict[str, str]] = {}  # rel -> local name -> qualified
        self.files: dict[str, list[str]] = {}  # module -> its files, in order (the last that parses is it)
        for rel in sources.paths:
            mod = module_name(rel)
            self.files.setdefault(mod, []).append(rel)
            if "class" not in sources.text(rel):  # no class statement: no class, and its names are read when asked
                continue
            tree = sources.peek(rel)  # not kept: a class's node is parsed again when it is needed
            if tree is None:
                continue
            names = self._bind(rel, tree)
            for at, node in enumerate(tree.body):
                if isinstance(node, ast.ClassDef):
                    bases = [q for q in (resolve(b, names) for b in node.bases) if q]
                    self.classes[f"{mod}.{node.name}"] = _Class(f"{mod}.{node.name}", rel, at, bases)
        self._upstream: dict[str, tuple[str, list[str]] | None] = {}

    def _bind(self, rel: str, tree: ast.Module) -> dict[str, str]:
        """The names ``rel`` binds at module level (imports, classes, runtime aliases), qualified."""
        mod = module_name(rel)
        names = _all_bindings(tree, mod, rel.endswith("__init__.py"))
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                names.setdefault(node.name, f"{mod}.{node.name}")
        for target, value in _runtime_aliases(tree.body):  # Client = _Client (else-branch of TYPE_CHECKING)
            q = resolve(value, names)
            if q is not None:
                names[target] = q
        self._names[rel] = names
        return names

    def names(self, rel: str) -> dict[str, str]:
        if rel not in self._names:
            self._bind(rel, self.sources.tree(rel))
        return self._names[rel]

    def node(self, cls: _Class) -> ast.ClassDef:
        return self.sources.tree(cls.file).body[cls.at]

    def upstream_base(self, name: str, seen: frozenset = frozenset()) -> tuple[str, list[str]] | None:
        """(upstream base path, [project classes from ``name`` up]) or None."""
        if name in self._upstream:
            return self._upstream[name]
        cls = self.classes.get(name)
        found = None
        if cls is not None and name not in seen:
            for b in cls.bases:
                if _inside(b, self.modules):
                    found = (b, [name])
                    break
                up = self.upstream_base(b, seen | {name})
                if up is not None:
                    found = (up[0], [name, *up[1]])
                    break
        self._upstream[name] = found
        return found

    def _defined(self, chain: list[str]) -> set[str]:
        """Methods and class attributes the project classes of ``chain`` define."""
        out: set[str] = set()
        for name in chain:
            for s in self.node(self.classes[name]).body:
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out.add(s.name)
                elif isinstance(s, ast.Assign):
                    out |= {t.id for t in s.targets if isinstance(t, ast.Name)}
                elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
                    out.add(s.target.id)
        return out

    def _written(self, chain: list[str]) -> set[str]:
        """``self.x = ...`` anywhere in the project classes of ``chain``."""
        out: set[str] = set()
        for name in chain:
            for fn in self.node(self.classes[name]).body:
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and (fn.args.posonlyargs + fn.args.args):
                    me = (fn.args.posonlyargs + fn.args.args)[0].arg
                    out |= {n.attr for n in walk(fn) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
                            and isinstance(n.value, ast.Name) and n.value.id == me}
        return out

    def function(self, rel: str, path: str) -> tuple[str, ast.FunctionDef | ast.AsyncFunctionDef] | None:
        """The project function ``path`` names (``<local>.f``: defined in ``rel``)."""
        mod, _, name = path.rpartition(".")
        where = rel if mod == "<local>" else next((r for r in reversed(self.files.get(mod, [])) if self.sources.tree(r) is not None), None)
        if where is None:
            return None
        tree = self.sources.tree(where)
        nodes = tree.body if mod != "<local>" else statements(tree)
        fn = next((n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name), None)
        return (where, fn) if fn is not None else None

    def patches(self, rel: str) -> list[Use]:
        """Functions assigned onto upstream classes in ``rel``: each a PATCH use, and the
        ``self`` uses of its body (in the function's own file) as MEMBER uses of the class."""
        tree = self.sources.tree(rel)
        out = []
        for cls, name, fpath, stmt in assignments_onto(tree, self.names(rel)):
            if not _inside(cls, self.modules):
                continue
            found = self.function(rel, fpath)
            if found is None:
                continue
            frel, fn = found
            guard, guarded = _guard(tree, stmt, name)
            gl = guard.lineno if guard is not None else None
            short = cls.rsplit(".", 1)[-1]
            out.append(Use(rel, stmt.lineno, PATCH, cls, name, via=f"patch `{fn.name}`", params=_params(fn),
                           function_line=fn.lineno, guarded=guarded, guard_line=gl,
                           function_file=frel))
            for u in _self_uses(frel, self.sources.text(frel), fn, cls, f"patch `{fn.name}` of `{short}.{name}`", set(), set()):
                out.append(Use(u.file, u.line, u.kind, u.target, u.member, u.call, u.via, patch=True, write=u.write,
                               guard_line=gl if frel == rel else None))
        return out

    def subclass_uses(self) -> list[Use]:
        out: list[Use] = []
        forwards: dict[str, tuple[str, set[str], str]] = {}  # class -> (base, its own parameters, kwargs name)
        for name, cls in sorted(self.classes.items()):
            up = self.upstream_base(name)
            if up is None:
                continue
            base, chain = up
            text = self.sources.text(cls.file)
            own = self._defined(chain) | self._written(chain)
            parents_own = self._defined(chain[1:])
            short = name.rsplit(".", 1)[-1]
            for fn in self.node(cls).body:
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out += _self_uses(cls.file, text, fn, base, f"subclass `{short}`", own, parents_own)
                    if fn.name == "__init__" and fn.args.kwarg and _forwards(fn, fn.args.kwarg.arg):
                        mine = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
                        forwards[name] = (base, mine, fn.args.kwarg.arg)
        out += self._callers(forwards)
        return out

    def _own_init_chain(self, name: str, forwards: dict) -> str | None:
        """The forwarding class whose ``__init__`` a call of ``name`` runs."""
        seen = set()
        while name not in seen:
            seen.add(name)
            if name in forwards:
                return name
            cls = self.classes.get(name)
            if cls is None or any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__" for s in self.node(cls).body):
                return None
            project = [b for b in cls.bases if b in self.classes]
            if not project:
                return None
            name = project[0]
        return None

    def _callers(self, forwards: dict[str, tuple[str, set[str], str]]) -> list[Use]:
        """Calls of the project subclasses elsewhere in the project, and what they use on the instance."""
        out: list[Use] = []
        subclasses = {n for n in self.classes if self.upstream_base(n) is not None}
        if not subclasses:
            return out
        shorts = {n.rsplit(".", 1)[-1] for n in subclasses}  # a call that resolves to a class names it in the file
        for rel in self.sources.paths:
            text = self.sources.text(rel)
            if not _mentions(text, shorts):
                continue
            tree = self.sources.tree(rel)
            if tree is None:
                continue
            names = self.names(rel)
            lines = text.splitlines()
            for stmt, node, where in statement_calls(tree):
                q = resolve(node.func, names)
                if q not in subclasses:
                    continue
                base, chain = self.upstream_base(q)
                short = q.rsplit(".", 1)[-1]
                c = make_call(q, where, node, stmt, lines)
                fwd = self._own_init_chain(q, forwards)
                if fwd is not None:
                    _base, mine, kw = forwards[fwd]
                    passed = [k for k in c.keywords if k not in mine]
                    if passed:
                        fc = Call(base, c.line, c.end_line, c.snippet, keywords=passed, star_kwargs=True, used=False, node=node)
                        out.append(Use(rel, c.line, CALL, base, call=fc,
                                       via=f"forwarded by `{fwd.rsplit('.', 1)[-1]}.__init__` (`**{kw}`)"))
                if c.assigned_to:
                    own = self._defined(chain) | self._written(chain)
                    for mc in find_method_calls(text, tree, c.assigned_to, None):
                        if mc.api not in own:
                            out.append(Use(rel, mc.line, MEMBER, base, mc.api, call=mc, via=f"a `{short}` instance"))
        return out


def _runtime_aliases(body: list[ast.stmt]):
    """``Name = other.name`` at module level, as run: the body of ``if TYPE_CHECKING:`` is not."""
    for stmt in body:
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, (ast.Name, ast.Attribute))):
            yield stmt.targets[0].id, stmt.value
        elif isinstance(stmt, ast.If):
            if not _is_type_checking(stmt.test):
                yield from _runtime_aliases(stmt.body)
            yield from _runtime_aliases(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            for part in (stmt.body, *(h.body for h in stmt.handlers), stmt.orelse):
                yield from _runtime_aliases(part)


def _forwards(fn: ast.FunctionDef, kw: str) -> bool:
    """``super().__init__(..., **kw)`` (or ``Base.__init__(self, **kw)``) in the body."""
    for n in walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "__init__":
            if any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kw for k in n.keywords):
                return True
    return False



def _all_bindings(tree: ast.Module, mod: str, is_package: bool) -> dict[str, str]:
    """Bound name -> qualified target for every import of the file (relative ones resolved)."""
    out: dict[str, str] = {}
    for node in imports(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = mod.split(".")
                keep = len(parts) - node.level + (1 if is_package else 0)
                if keep < 0:
                    continue
                base = ".".join(parts[:keep] + ([node.module] if node.module else []))
            for a in node.names:
                if a.name != "*":
                    out[a.asname or a.name] = f"{base}.{a.name}" if base else a.name
    return out


def catches_import_error(node: ast.Try) -> bool:
    """``except ImportError`` / ``ModuleNotFoundError`` (alone or in a tuple, any prefix)."""
    for h in node.handlers:
        types = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
        for t in types:
            name = t.attr if isinstance(t, ast.Attribute) else getattr(t, "id", None)
            if name in ("ImportError", "ModuleNotFoundError"):
                return True
    return False
