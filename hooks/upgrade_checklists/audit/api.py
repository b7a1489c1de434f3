"""The upstream API model: griffe loads the fetched source statically (no import of
the dependency) and follows re-exports, builds dataclass ``__init__`` from fields,
and sees inherited members. What griffe leaves out, we cover here:

- subfolders without ``__init__.py`` inside a package (implicit namespace
  subpackages, importable at run time) are loaded and grafted in;
- headings relative to a class (``LoRA.__call__``) are found through the entry's
  **Source:** file, the import names, or a unique class of that name; a dotted
  heading that does not resolve is tried in the **Source:** module by its last
  name (``pkg.Layout``), or last names (``pkg.Class.method``);
- a name a module keeps by a compatibility alias (a legacy alias table, a
  ``sys.modules`` alias, a module ``__getattr__``: ``aliases.py``) or by plain
  assignment (``Old = New``) still resolves, to what it names;
- a module ``__getattr__`` or lazy table is run statically for the name asked
  (``aliases.GetattrReader``): served, refused (``self.gone``, with upstream's message) or
  undecided; ``status`` says how a dotted path resolves (found / absent / removed / unknown),
  and a name that may come from what is not read (a compiled module without a stub, a
  ``*`` import not in the source) is unknown, never absent;
- where a name went, a real definition wins over a placeholder ("dummy") object;
- return annotations are compared as types (``annotations.py``); deprecations are
  read with their warning text (``deprecation.py``);
- the subclasses of a class within its package, and what each sets (``subclasses.py``): a read of an
  attribute the class does not define is judged by them;
- an API that cannot be resolved is *unresolved*, with a reason, never *removed*:
  every griffe error (an alias to a package that is not loaded, a cyclic alias)
  becomes ``Unresolved`` naming the alias and the package.
"""

from __future__ import annotations

import ast
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from upgrade_checklists.audit import annotations, selfreads, subclasses
from upgrade_checklists.core.astwalk import module_level, own_nodes, star_base
from upgrade_checklists.project.calls import unpacked_into
from upgrade_checklists.audit.aliases import GetattrReader, Gone, Served, SourceCache, StarExports, Undecided, served
from upgrade_checklists.audit.decorated import Definition, Found, category_test, decorator_deprecations
from upgrade_checklists.audit.deprecation import WHEN, _def_at, deprecation_of, forwarded_calls, keyword_warnings
from upgrade_checklists.audit.hookspecs import hook_specs, registered_plugins

_STAR_IMPORT = re.compile(rb"\bimport[ \t]*\(?[ \t]*\*")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")
#: ``Api.kind`` of a receiver that is a builtin container (``list[T]``, ``dict[K, V]``): not upstream's
BUILTIN = "builtin"
REQUIRED_KINDS = ("positional-only", "positional or keyword", "keyword-only")
POSITIONAL_KINDS = ("positional-only", "positional or keyword")


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # griffe ParameterKind values: "positional-only", "positional or keyword", ...
    default: str | None

    @property
    def required(self) -> bool:
        return self.default is None and self.kind in REQUIRED_KINDS


@dataclass
class Signature:
    params: list[Param]  # without self / cls
    returns: str | None
    #: declared with ``@overload``s: ``returns`` is the union of theirs, and which one a call takes depends on
    #: its arguments' types (not known statically)
    overloaded: bool = field(default=False, compare=False)

    def named(self) -> dict[str, Param]:
        return {p.name: p for p in self.params if p.kind not in ("variadic positional", "variadic keyword")}

    def positional(self) -> list[Param]:
        return [p for p in self.params if p.kind in POSITIONAL_KINDS]

    @property
    def var_args(self) -> bool:
        return any(p.kind == "variadic positional" for p in self.params)

    @property
    def var_kwargs(self) -> bool:
        return any(p.kind == "variadic keyword" for p in self.params)


@dataclass
class Api:
    """An upstream API as plain data (what the audit's stages take of it; cached as JSON by ``model_cache.py``)."""

    path: str  # canonical (where it is defined)
    kind: str  # "function", "class", "module", "attribute"
    signature: Signature | None
    #: a function's parameters as written (``self`` included): (name, kind) pairs; None for other kinds
    parameters: tuple[tuple[str, str], ...] | None = field(default=None, compare=False)
    #: a function defined in a class body (a method)
    method: bool = field(default=False, compare=False)
    #: the griffe object, while the model that made it is loaded (None for an API read from the cache)
    obj: object = field(default=None, repr=False, compare=False)


def normalize_annotation(text: str) -> str:
    """Spell an annotation given as text alike (no module context): ``typing.List[int]`` ==
    ``list[int]``, ``Optional[X]`` == ``X | None``, quotes dropped."""
    return annotations.normalize(text) or text


def _dataclass_transform(cls) -> bool:
    """A base class is decorated ``@dataclass_transform``: each subclass gets its own ``__init__`` from its fields."""
    try:
        bases = cls.mro()
    except Exception:  # a base outside the loaded source
        return False
    return any("dataclass_transform" in str(d.value) for b in bases for d in getattr(b, "decorators", []))


#: bases outside the loaded source that give a class no member (``abc.ABC`` only a metaclass and ``__slots__``)
_MEMBERLESS_BASES = frozenset({"object", "builtins.object", "typing.Generic", "typing.Protocol", "abc.ABC"})


class Unresolved(Exception):
    """Why an API could not be resolved statically (not the same as removed)."""


#: how many models were loaded with griffe in this process (a model served from the cache loads none)
LOADS = 0


def search_paths(roots: list[Path]) -> list[Path]:
    """Where a source tree's modules are: its root, ``src/`` and ``python/``."""
    search = []
    for r in roots:
        search += [p for p in (r, r / "src", r / "python") if p.is_dir()]
    return search


class ServedNames:
    """What a model (loaded, or answered from the model cache) says about names served by
    compatibility aliases: needs ``served`` and ``declared_deprecation``."""

    served: dict[str, Served]

    def declared_deprecation(self, api: Api) -> str | None:
        raise NotImplementedError

    def via(self, dotted: str) -> Served | None:
        """How ``dotted`` (or a module on its way) is served by a compatibility alias, if it is."""
        parts = dotted.split(".")
        for i in range(len(parts), 1, -1):
            how = self.served.get(".".join(parts[:i]))
            if how is not None:
                return how
        return None

    def deprecation(self, api: Api, dotted: str | None = None) -> str | None:
        """The deprecation warning reaching ``api`` (through ``dotted``), or None."""
        if dotted is not None:
            how = self.via(dotted)
            if how is not None and how.warning:
                return how.warning
        how = self.served.get(api.path)
        if how is not None and how.warning:
            return how.warning
        return self.declared_deprecation(api)


def overload_only(g, mod) -> dict[str, list]:
    """Name -> the ``@overload`` declarations of module ``mod`` (griffe's) and of the ``.pyi`` beside its ``.py``
    (visited on its own: griffe keeps overloads only on a function the module defines); none when that stub
    cannot be read (its overloads stay unknown)."""
    fp = mod.filepath
    if not isinstance(fp, Path):
        return {}
    out = {k: v for k, v in mod.overloads.items() if v}
    stub = fp.with_suffix(".pyi")
    if fp.suffix == ".py" and stub.is_file():
        try:
            text = stub.read_text(encoding="utf-8", errors="replace")
            if "overload" in text:
                visited = g.visit(mod.name, stub, text, parent=mod.parent)
                out.update({k: v for k, v in visited.overloads.items() if v})
        except (OSError, SyntaxError, ValueError, RecursionError, g.LoadingError):
            return {}
    return out


def star_imports(tree: ast.Module, module: str, is_package: bool) -> list[tuple[str, int, int]]:
    """``(imported module, line, end line)`` of each module-level ``from M import *`` of ``module``'s source, in
    order (``M`` made absolute; an import of the module itself left out)."""
    package = module if is_package else module.rpartition(".")[0]
    out = []
    for node in module_level(tree.body):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            base = star_base(node, package)
            if base and base != module:
                out.append((base, node.lineno, node.end_lineno))
    return out


def quiet_griffe() -> None:
    """Keep griffe's log off the user's terminal: what it cannot read in upstream's source (an annotation
    naming an alias to a package that is not loaded, logged at *error* level) is upstream's, not the user's,
    and the audit says what it could not bind in its own findings (UNRESOLVED, with the reason)."""
    logging.getLogger("griffe").setLevel(logging.CRITICAL + 1)


class UpstreamModel(ServedNames):
    """Every module of ``modules`` found below ``roots``, loaded together with griffe."""

    def __init__(self, roots: list[Path], modules: list[str]) -> None:
        global LOADS
        import griffe

        LOADS += 1

        quiet_griffe()
        self._griffe = griffe
        search = search_paths(roots)
        self.search = search
        self.loader = griffe.GriffeLoader(search_paths=search, allow_inspection=False, store_source=False)
        self.missing: list[str] = []
        for m in modules:
            if self._loaded_already(m):
                continue
            try:
                self.loader.load(m, try_relative_path=False)  # never a folder of the working directory
            except Exception as exc:  # ModuleNotFoundError, KeyError from griffe's post-load
                self.missing.append(f"{m} ({type(exc).__name__})")
        self.sources = SourceCache()
        #: dotted path -> how a module serves it (compatibility alias or __getattr__)
        self.served: dict[str, Served] = {}
        #: dotted path -> how a module's ``__getattr__`` refused it
        self.gone: dict[str, Gone] = {}
        #: the model of the other version: old annotations name classes by their new path when it still resolves
        #: (anything with ``canonical(path)``: an UpstreamModel or the cached model in front of one)
        self.peer = None
        #: module -> the modules it imports with ``*`` whose names are known only in part (more may come)
        self.open_stars: dict[str, list[str]] = {}
        #: a module file's ``__getattr__`` / lazy table reader (one per file: it keeps the tables it read)
        self._readers: dict[Path, GetattrReader] = {}
        #: (module, name) -> the upstream definition it names; (module, decorators) -> what they say (``decorated.py``)
        self._definitions: dict = {}
        self._decorators: dict = {}
        self._graft_namespace_dirs()
        self._stub_overloads()
        self._star_imports()
        try:
            self.loader.resolve_aliases(implicit=False, external=None)
        except Exception:  # resolution is retried lazily per lookup
            pass
        self.collection = self.loader.modules_collection

    def _loaded_already(self, module: str) -> bool:
        """``module`` is in the tree an earlier load gave: griffe loads a module's whole top-level
        package (``megatron.core`` loads every ``megatron.*`` of a namespace shared by family
        members), so loading it again would only build the same tree a second time."""
        if module.split(".")[0] not in self.loader.modules_collection.members:
            return False
        try:
            self.loader.modules_collection.get_member(module)
        except Exception:  # not there (or not reachable): load it as usual, with its error
            return False
        return True

    # -- loading gaps ---------------------------------------------------------------

    def _graft_namespace_dirs(self, stack: list | None = None) -> None:
        """Load the folders without ``__init__.py`` below the loaded modules (``stack``: all of them)."""
        stack = list(self.loader.modules_collection.members.values()) if stack is None else stack
        while stack:
            mod = stack.pop()
            if getattr(mod, "is_alias", False) or mod.kind.value != "module":
                continue
            stack += [m for m in mod.members.values() if not m.is_alias and m.kind.value == "module"]
            for d, sub in namespace_dirs(mod):
                if sub.name in mod.members:
                    continue
                new = self._graft(mod, d, sub)
                if new is not None:
                    stack.append(new)

    def _loaded_modules(self):
        """Every module griffe loaded (not aliases), each once, packages before their submodules' turn."""
        stack = list(self.loader.modules_collection.members.values())
        seen: set[int] = set()
        while stack:
            mod = stack.pop()
            if getattr(mod, "is_alias", False) or mod.kind.value != "module" or id(mod) in seen:
                continue
            seen.add(id(mod))
            stack += [m for m in mod.members.values() if not m.is_alias and m.kind.value == "module"]
            yield mod

    def _star_imports(self) -> None:
        """Bind what each ``from M import *`` binds at run time where griffe's expansion fell short
        (``aliases.StarExports``: a stub's ``__all__`` replacing the module's, ``__all__`` grown by calls):
        each name M exposes that the importing module lacks becomes an alias to ``M.name``, resolved
        when asked. A name the module binds itself is kept (griffe already ordered those)."""
        stars = StarExports(self._module_source)
        for mod in self._loaded_modules():
            fp = mod.filepath
            if not isinstance(fp, Path) or fp.suffix != ".py":
                continue
            try:
                if not _STAR_IMPORT.search(fp.read_bytes()):
                    continue
            except OSError:
                continue
            tree = self.sources.tree(fp)
            if tree is None:
                continue
            for base, lineno, endlineno in star_imports(tree, mod.path, fp.name == "__init__.py"):
                names = stars.exposed(base)
                if names is not None and base in stars.partial:
                    self.open_stars.setdefault(mod.path, []).append(base)
                for name in names or ():
                    if name in mod.members or not name.isidentifier():
                        continue
                    mod.set_member(name, self._griffe.Alias(name, f"{base}.{name}", lineno=lineno,
                                                            endlineno=endlineno, parent=mod, wildcard_imported=True))

    def _stub_overloads(self) -> None:
        """Functions a stub declares only by ``@overload`` (a compiled function: ``def empty(...)`` three times
        in ``multiarray.pyi``, none in ``multiarray.py``): griffe keeps overloads only on a function the module
        defines, so these are lost. Each becomes a function here, with ``overloads`` kept: its parameters are
        every overload's (in the first's order; required only where every overload requires it), its return
        the union of theirs."""
        g = self._griffe
        for mod in self._loaded_modules():
            for name, fns in overload_only(g, mod).items():
                if name in mod.members:
                    continue
                mod.set_member(name, _overloaded(g, name, fns, mod))

    def _module_source(self, dotted: str):
        """``(tree, is_package)`` of module ``dotted``'s source (its ``.py``, else its stub), or None."""
        rel = dotted.replace(".", "/")
        for s in self.search:
            for cand in (s / rel / "__init__.py", s / f"{rel}.py", s / rel / "__init__.pyi", s / f"{rel}.pyi"):
                if cand.is_file():
                    tree = self.sources.tree(cand)
                    return None if tree is None else (tree, cand.stem == "__init__")
        return None

    def _graft(self, mod, d: Path, sub: Path):
        """Load folder ``sub`` (in ``d``, without ``__init__.py``) as a namespace subpackage of ``mod``."""
        col = self.loader.modules_collection
        sub_loader = self._griffe.GriffeLoader(search_paths=[d], allow_inspection=False, store_source=False,
                                               modules_collection=col, lines_collection=self.loader.lines_collection)
        try:
            new = sub_loader.load(sub.name, try_relative_path=False)  # never a folder of the working directory
        except Exception:
            return None
        col.members.pop(sub.name, None)
        mod.set_member(sub.name, new)
        return new

    # -- lookups -----------------------------------------------------------------------

    def _final(self, obj):
        if getattr(obj, "is_alias", False):
            try:
                return obj.final_target
            except Exception as exc:
                target = getattr(obj, "target_path", "?")
                raise Unresolved(f"`{obj.path}` is an alias to `{target}` (package `{target.split('.')[0]}`), "
                                 f"which is not in the loaded source ({type(exc).__name__})") from None
        return obj

    def find(self, dotted: str, _depth: int = 0):
        """The griffe object at ``dotted`` (re-exports, inheritance, compatibility aliases and
        plain assignments followed), or None."""
        if _depth > 8:
            return None
        parts = dotted.split(".")
        obj = self.collection.members.get(parts[0])
        if obj is None:
            return None
        for i, part in enumerate(parts[1:], 1):
            obj = self._final(obj)
            if obj.kind.value == "attribute":  # ``mpu = parallel_state``: the module it names
                obj = self._assigned(obj, _depth)
                if obj.kind.value == "attribute":
                    raise Unresolved(f"`{obj.path}` is a value whose attributes are not known statically")
            try:
                members = obj.all_members if obj.kind.value == "class" else obj.members
            except Exception as exc:
                raise Unresolved(f"members of `{obj.path}` not known statically ({type(exc).__name__}: {exc})") from None
            nxt = members.get(part)
            if nxt is None and obj.kind.value == "module":
                nxt = self._served(obj, part, _depth)
            if nxt is None:
                return None
            obj = nxt
        return self._assigned(self._final(obj), _depth)

    def _served(self, mod, name: str, depth: int):
        """What module ``mod`` serves as ``name`` though it does not bind it: a compatibility alias, a
        lazy table or its ``__getattr__`` (run statically for ``name``). None when it certainly does
        not (a refusal is kept in ``self.gone``); Unresolved when that cannot be told (the name may
        come from a compiled module without a stub, a ``*`` import not read, an undecidable ``__getattr__``)."""
        fp = mod.filepath if not isinstance(mod.filepath, list) else None
        tree = self.sources.tree(fp)
        if tree is None:
            return None
        full = f"{mod.path}.{name}"
        is_package = fp is not None and fp.name.startswith("__init__.")
        self._unread_origins(mod, fp, tree, name, is_package)
        how = served(tree, mod.path, is_package, name)
        reader = self._readers.get(fp)
        if reader is None:
            stub = fp.with_suffix(".pyi")
            reader = self._readers[fp] = GetattrReader(tree, mod.path, is_package, self._module_tree,
                                                       self.sources.tree(stub) if stub.is_file() and fp.suffix == ".py" else None)
        undecided = None
        if reader.active:
            try:
                result = reader.run(name)
            except Undecided as exc:
                result, undecided = None, str(exc)
            if isinstance(result, Gone):
                if how is None or how.via == "module __getattr__":
                    self.gone[full] = result
                    return None
            elif isinstance(result, Served):
                keep = how.targets if how is not None and how.via != "module __getattr__" else ()
                how = Served(result.targets or keep, result.via, result.line, result.warning)
            elif how is None or how.via == "module __getattr__":
                raise Unresolved(f"`{full}`: {undecided}")
        if how is None:
            return None
        for target in how.targets:
            if target == full:
                continue
            found = self.find(target, depth + 1)
            if found is not None:
                self.served[full] = how
                return found
        if how.via == "lazy table":
            raise Unresolved(f"`{full}` is served lazily from `{how.targets[0]}`, which is not found")
        if how.via == "module __getattr__" or how.via == "sys.modules alias":
            self.served[full] = how
            return self._griffe.Attribute(name, lineno=how.line, parent=mod)  # served, what it is unknown
        return None

    def _module_tree(self, dotted: str):
        """The parsed source of module ``dotted`` (its ``.py``, else its stub), found below the roots."""
        rel = dotted.replace(".", "/")
        for s in self.search:
            for cand in (s / rel / "__init__.py", s / f"{rel}.py", s / rel / "__init__.pyi", s / f"{rel}.pyi"):
                if cand.is_file():
                    return self.sources.tree(cand)
        return None

    def _unread_origins(self, mod, fp, tree, name: str, is_package: bool) -> None:
        """Raise Unresolved when ``name`` may come into ``mod`` from what the model does not read: a
        compiled submodule without a stub, or a ``*`` import of a module not in the source."""
        folder = fp.parent if fp is not None else None
        if folder is not None and is_package and _compiled(folder, name):
            raise Unresolved(f"`{mod.path}.{name}` is a compiled extension module without a stub (.pyi)")
        for base in self.open_stars.get(mod.path, ()):
            raise Unresolved(f"`{mod.path}.{name}` may come from `from {base} import *`, whose `__all__` grows at run time "
                             "beyond what can be read statically")
        package = mod.path if is_package else mod.path.rpartition(".")[0]
        for node in module_level(tree.body):
            if not (isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)):
                continue
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:max(len(parts) - node.level + 1, 0)] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if self._module_tree(base) is not None:
                continue
            where = base.rpartition(".")
            parent_dir = self._module_dir(where[0]) if where[0] else None
            if parent_dir is not None and _compiled(parent_dir, where[2]):
                raise Unresolved(f"`{mod.path}.{name}` may come from `from {base} import *`, a compiled module without a stub")
            raise Unresolved(f"`{mod.path}.{name}` may come from `from {base} import *`, which is not in the loaded source")

    def _module_dir(self, dotted: str):
        rel = dotted.replace(".", "/")
        for s in self.search:
            if (s / rel).is_dir():
                return s / rel
        return None

    def status(self, dotted: str) -> str:
        """Whether ``dotted`` resolves as Python would resolve it: ``found``, ``absent``,
        ``removed:<upstream's message>`` (a module refuses it by name), ``gone:<message>`` (a module's
        ``__getattr__`` refuses any name it does not serve) or ``unknown:<why>``."""
        try:
            obj = self.find(dotted)
        except Unresolved as exc:
            return f"unknown:{exc}"
        if obj is not None:
            return "found"
        parts = dotted.split(".")
        for i in range(2, len(parts) + 1):
            refused = self.gone.get(".".join(parts[:i]))
            if refused is not None:
                return f"{'removed' if refused.removed else 'gone'}:{refused.message}"
        return "absent"

    def _assigned(self, obj, depth: int):
        """``Old = New`` at module or class level: the object ``New`` names."""
        value = getattr(obj, "value", None)
        if obj.kind.value != "attribute" or type(value).__name__ not in ("ExprName", "ExprAttribute"):
            return obj
        try:
            path = value.canonical_path
        except Exception:
            return obj
        if not path or path == obj.path:
            return obj
        found = self.find(path, depth + 1)
        return found if found is not None and found.kind.value in ("class", "function", "module") else obj

    def lookup(self, dotted: str) -> Api | None:
        obj = self.find(dotted)
        return None if obj is None else self.api(obj)


    def declared_deprecation(self, api: Api) -> str | None:
        """The deprecation warning ``api``'s own definition gives (decorator or body, an upstream
        decorator whose wrapper warns: ``decorated.py``), or None; one its body gives only under a
        condition on upstream's own state carries it (``deprecation.split_when``)."""
        obj = self._obj(api)
        if obj is None:
            return None
        fp = getattr(obj, "filepath", None)
        tree = self.sources.tree(fp if isinstance(fp, Path) else None)
        try:
            module = obj.module.path
            found = deprecation_of(obj, tree, category_test(module, self._definition))
            if found is None or WHEN in found:  # a decorator that always warns says more than a conditional warning
                found = self._decorated(obj, tree).message or found
            return found
        except (self._griffe.AliasResolutionError, self._griffe.CyclicAliasError, RecursionError):  # a decorator griffe cannot follow: no verdict
            return None

    def keyword_deprecations(self, api: Api) -> dict[str, str]:
        """Keyword -> the deprecation warning its being passed gives (``deprecation.keyword_warnings``,
        and an upstream decorator's wrapper warning when it is passed: ``decorated.py``)."""
        obj = self._obj(api)
        if obj is None:
            return {}
        fp = getattr(obj, "filepath", None)
        tree = self.sources.tree(fp if isinstance(fp, Path) else None)
        try:
            found = keyword_warnings(obj, tree, category_test(obj.module.path, self._definition))
            for kw, text in self._decorated(obj, tree).keywords.items():
                found.setdefault(kw, text)
            return found
        except (self._griffe.AliasResolutionError, self._griffe.CyclicAliasError, RecursionError):  # a decorator griffe cannot follow: no verdict
            return {}

    def _decorated(self, obj, tree):
        """What upstream's own decorators on ``obj`` say of it (``decorated.decorator_deprecations``)."""
        node = _def_at(tree, obj.name, obj.lineno) if tree is not None and obj.lineno is not None else None
        nodes = [node] if node is not None else []
        if isinstance(node, ast.ClassDef):  # a class is called through its ``__init__``: its decorators too
            nodes += [s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"]
        found = Found()
        memo = self._decorators  # the same decorators, as written in one module: one walk
        for n in nodes:
            if n.decorator_list:
                key = (obj.module.path, tuple(ast.dump(d) for d in n.decorator_list))
                if key not in memo:
                    memo[key] = decorator_deprecations(n, obj.module.path, self._definition)
                theirs = memo[key]
                found.message = found.message or theirs.message
                for kw, text in theirs.keywords.items():
                    found.keywords.setdefault(kw, text)
        return found

    def _definition(self, module: str, dotted: str) -> Definition | None:
        """The upstream function or class ``dotted`` names in module ``module`` (its imports followed), or None."""
        key = (module, dotted)
        if key not in self._definitions:
            self._definitions[key] = self._find_definition(module, dotted)
        return self._definitions[key]

    def _find_definition(self, module: str, dotted: str) -> Definition | None:
        try:
            mod = self.find(module)
            # a name the module does not bind (a builtin, a local) is not upstream's: not served by its
            # ``__getattr__`` either (running that reader for every ``len`` costs a tenth of a second)
            if mod is None or mod.kind.value != "module" or mod.members.get(dotted.split(".")[0]) is None:
                return None
            obj = self.find(f"{module}.{dotted}")
        except Unresolved:
            return None
        except (self._griffe.AliasResolutionError, self._griffe.CyclicAliasError):
            return None
        if obj is None or obj.kind.value not in ("function", "class") or obj.lineno is None:
            return None
        fp = getattr(obj, "filepath", None)
        tree = self.sources.tree(fp if isinstance(fp, Path) else None)
        node = _def_at(tree, obj.name, obj.lineno) if tree is not None else None
        if node is None:
            return None
        return Definition(node, tree, obj.module.path)

    def forwards(self, api: Api) -> list[dict]:
        """The calls method ``api`` makes of another method, ``super().m(...)`` or ``self.m(...)``,
        handing on what its caller passed (``deprecation.forwarded_calls``), each with where the
        called method is: ``target`` (its path in this source, "" when not here) and ``foreign``
        (the bases in another distribution to look it up in, in order)."""
        obj = self._obj(api)
        parent = getattr(obj, "parent", None)
        if obj is None or obj.kind.value != "function" or parent is None or parent.kind.value != "class":
            return []
        fp = getattr(obj, "filepath", None)
        tree = self.sources.tree(fp if isinstance(fp, Path) else None)
        node = _def_at(tree, obj.name, obj.lineno) if tree is not None and obj.lineno is not None else None
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return []
        out = []
        for call in forwarded_calls(node):
            target, foreign = "", []
            if call["how"] == "self":
                classes = [parent]
            else:
                classes = []
                for path, found in self._resolved_bases(parent):
                    if found is None or found.kind.value != "class":
                        if path not in ("object", "builtins.object", "typing.Generic", "typing.Protocol"):
                            foreign.append(path)
                        break
                    classes.append(found)
            for k in classes:
                hit = self._member_of(k, call["member"])
                if hit is not None:
                    target = hit.path if hit.kind.value == "function" else ""
                    break
                try:
                    foreign += self.foreign_bases(self.api(k))
                except Exception:  # griffe's alias errors: not known
                    continue
            if target or foreign:
                out.append({**call, "target": target, "foreign": list(dict.fromkeys(foreign)) if not target else []})
        return out

    def _obj(self, api: Api):
        """The griffe object behind ``api`` (found again by its path when ``api`` came from the cache)."""
        if api.obj is not None and self._owns(api.obj):
            return api.obj
        try:
            return self.find(api.path)
        except Unresolved:
            return None

    def _owns(self, obj) -> bool:
        """``obj`` is an object of this model (not of a lazy model given up for this one)."""
        try:
            return obj.modules_collection is self.collection
        except Exception:  # an object without a module above it
            return False

    def canonical(self, path: str) -> str | None:
        """Where the object ``path`` reaches is defined, or None (not found, or unresolvable)."""
        try:
            obj = self.find(path)
        except Unresolved:
            return None
        return None if obj is None else obj.path

    def exists(self, dotted: str) -> bool:
        """``dotted`` is found (raises Unresolved when that cannot be told)."""
        return self.find(dotted) is not None

    def file_of(self, dotted: str) -> str | None:
        """The file the object at ``dotted`` is defined in, relative to the fetched source's root."""
        obj = self.find(dotted)
        fp = getattr(obj, "filepath", None)
        if isinstance(fp, list):
            fp = fp[0] if fp else None
        for root in self.search if fp is not None else []:
            try:
                return Path(fp).relative_to(root).as_posix()
            except ValueError:
                continue
        return None

    def _canon(self, path: str) -> str:
        """A type's identity for comparing annotations: a type variable by its name and bound
        (``~T``, wherever it is defined); a class by its definition, reached by the public path,
        spelt without the leading underscores of its modules (``pkg._core.x.C`` is ``pkg.core.x.C``:
        a private module renamed is the same class)."""
        var = self._type_var(path)
        if var is not None:
            return var
        for model in (self.peer, self):
            if model is None:
                continue
            found = model.canonical(path)
            if found is not None:
                return _public(found)
        return _public(path)

    def _type_var(self, path: str) -> str | None:
        try:
            obj = self.find(path)
        except Unresolved:
            return None
        value = getattr(obj, "value", None) if obj is not None and obj.kind.value == "attribute" else None
        text = str(value) if value is not None else ""
        m = re.match(r"^(?:typing(?:_extensions)?\.)?TypeVar\(\s*['\"](\w+)['\"]", text)
        if m is None:
            return None
        bound = re.search(r"\bbound\s*=\s*(.+?)\s*(?:,\s*\w+\s*=|\)$)", text)
        return f"~{m.group(1)}" + (f"[bound={annotations.short(bound.group(1).strip(chr(39) + chr(34)))}]" if bound else "")

    def api(self, obj) -> Api:
        kind = obj.kind.value
        parameters = method = None
        if kind == "function":
            parameters = tuple((p.name, p.kind.value) for p in obj.parameters)
            parent = obj.parent
            method = parent is not None and parent.kind.value == "class"
        return Api(obj.path, kind, self._signature(obj), parameters, bool(method), obj)

    def _signature(self, obj) -> Signature | None:
        kind = obj.kind.value
        if kind == "function":
            params = [Param(p.name, p.kind.value, None if p.default is None else str(p.default)) for p in obj.parameters]
            parent = obj.parent
            if parent is not None and parent.kind.value == "class" and "staticmethod" not in obj.labels and params:
                params = params[1:]
            return Signature(params, annotations.normalize(obj.returns, self._canon), bool(getattr(obj, "overloads", None)))
        if kind == "class":
            init = obj.all_members.get("__init__")
            if init is None and "__new__" in obj.all_members and not (obj.decorators or _dataclass_transform(obj)):
                init = self._final(obj.all_members["__new__"])  # ``class Text(str)`` with ``__new__(cls, data)`` only
                if init.kind.value != "function":
                    return None
            if init is None:  # attrs, pydantic, metaclasses...: unknown, unless a plain class
                return Signature([], self._canon(obj.path)) if not (obj.bases or obj.decorators) else None
            if "__init__" not in obj.members and (obj.decorators or _dataclass_transform(obj)):
                return None  # a decorated class (``@strict``, a dataclass_transform base) inheriting __init__: its fields make it
            init = self._final(init)
            params = [Param(p.name, p.kind.value, None if p.default is None else str(p.default)) for p in init.parameters][1:]
            return Signature(params, self._canon(obj.path))
        return None

    def resolve_heading(self, heading: str, source: str | None, import_names: list[str]) -> Api:
        """The API a catalog heading names (``pkg.mod.func``, ``Class.method``, a module)."""
        name = heading.strip().strip("`").removesuffix("()").strip()
        if not _IDENT.match(name):
            raise Unresolved(f"`{heading}` is not a Python API name (HTTP surface or prose)")
        tried = []
        if any(name == n or name.startswith(n + ".") for n in import_names) or name.split(".")[0] in self.collection.members:
            tried.append(name)
        if source:
            mod = re.sub(r"(/__init__)?\.py$", "", source.strip("/")).replace("/", ".")
            mod = re.sub(r"^(src|python)\.", "", mod)
            tried.append(f"{mod}.{name}")
            parts = name.split(".")  # a path the API is not re-exported from: in its own module,
            tried += [f"{mod}.{'.'.join(parts[i:])}" for i in range(1, len(parts))]  # by its last name(s)
        tried += [f"{n}.{name}" for n in import_names]
        first_error: Unresolved | None = None
        head = name.split(".")[0]
        hits = self.by_name(head, kinds=("class", "function", "module"))
        if len(hits) == 1:
            tried.append(".".join([hits[0], *name.split(".")[1:]]))
        for cand in tried:
            try:
                api = self.lookup(cand)
            except Unresolved as exc:
                first_error = first_error or exc
                continue
            if api is not None:
                return api
        if first_error is not None:
            raise first_error
        if self.missing:
            raise Unresolved(f"`{name}` not found; could not load {', '.join(self.missing)}")
        raise Unresolved(f"`{name}` not found in the upstream source")

    def by_name(self, name: str, kinds: tuple[str, ...] = ("class", "function")) -> list[str]:
        """Canonical paths of every object called ``name`` (where a moved API went)."""
        out: list[str] = []
        stack = list(self.collection.members.values())
        seen = set()
        while stack:
            obj = stack.pop()
            if getattr(obj, "is_alias", False) or id(obj) in seen:
                continue
            seen.add(id(obj))
            if obj.name == name and obj.kind.value in kinds:
                out.append(obj.path)
            if obj.kind.value in ("module", "class"):
                stack += list(obj.members.values())
        return sorted(out, key=lambda p: (_placeholder(p), p))

    def returned_class(self, api: Api) -> Api | None:
        """The class of the object a call of ``api`` returns, when the source says."""
        if api.kind == "class":
            return api
        if api.kind != "function":
            return None
        obj = self._obj(api)
        if obj is None:
            return None
        ret = obj.returns
        parent = obj.parent
        if ret is None or str(ret) in ("Self", "typing.Self", "typing_extensions.Self"):
            if "classmethod" in obj.labels and parent is not None and parent.kind.value == "class":
                return self.api(parent)
            return None
        target = getattr(ret, "canonical_path", None) or str(ret)
        target = target.strip("'\"")
        for cand in (target, f"{obj.module.path}.{target}"):
            try:
                found = self.lookup(cand)
            except Unresolved:  # a guess at what the annotation names: try the next
                continue
            if found is not None and found.kind == "class":
                return found
        hits = [h for h in self.by_name(target.rsplit(".", 1)[-1], kinds=("class",)) if not _placeholder(h)]
        try:
            return self.lookup(hits[0]) if len(hits) == 1 else None
        except Unresolved:
            return None

    def member(self, cls: Api, name: str) -> Api | None:
        obj = self._member_obj(cls, name)
        return None if obj is None else self.api(obj)

    def _member_obj(self, cls: Api, name: str, classes_only: bool = False):
        """griffe's object for member ``name`` of ``cls`` (its own or inherited), alias followed."""
        owner = self._obj(cls)
        if owner is None or (classes_only and owner.kind.value != "class"):
            return None
        try:
            obj = owner.all_members.get(name)
        except Exception as exc:  # griffe's alias errors, on a base class outside the loaded source
            raise Unresolved(f"members of `{cls.path}` not known ({type(exc).__name__})") from None
        return None if obj is None else self._final(obj)

    def attribute_class(self, cls: Api, name: str) -> Api | None:
        """The class of attribute ``name`` of class ``cls`` (declared in it or a base: a class-level
        annotation, ``self.x: T`` or ``self.x = T(...)`` in a method, a property's return), when exactly one class of
        the loaded source is named (``Optional[T]`` / ``T | None`` are ``T``); else None."""
        obj = self._member_obj(cls, name, classes_only=True)
        if obj is not None and obj.kind.value == "function" and "property" in obj.labels:
            ann = obj.returns  # a property: what its getter returns
            return None if ann is None else self._annotated_class(ann, obj)
        if obj is None or obj.kind.value != "attribute":
            return None
        ann = getattr(obj, "annotation", None)
        if ann is not None:
            paths = _type_paths(ann)
        else:
            value = getattr(obj, "value", None)
            func = getattr(value, "function", None) if type(value).__name__ == "ExprCall" else None
            paths = _type_paths(func) if func is not None else []
        return self._classes_named(paths, obj)

    def _annotated_class(self, ann, obj) -> Api | None:
        return self._classes_named(_type_paths(ann), obj)

    def _classes_named(self, paths: list[str], obj) -> Api | None:
        """The one class of the loaded source that ``paths`` name (read in ``obj``'s module), else None."""
        found = []
        for path in dict.fromkeys(paths):
            for cand in (path, f"{obj.module.path}.{path}"):
                try:
                    api = self.lookup(cand)
                except Unresolved:
                    continue
                if api is not None and api.kind == "class":
                    found.append(api)
                    break
        return found[0] if len(found) == 1 else None

    def receiver_class(self, start: str, steps: tuple[str, ...]) -> Api | None:
        """The class of the object the project reaches from upstream path ``start`` through
        ``steps`` (``receivers.STEPS``: ``call``, ``m:NAME`` a method called, ``a:NAME`` an
        attribute or property read, ``iter`` an element, ``item`` ``x[i]``, ``i:N`` ``x[N]`` (the
        N-th of a ``tuple[A, B]``), ``u0`` / ``u1`` a pair unpacked, ``enter`` what ``with`` binds,
        ``plugin:NAME`` what ``get_plugin("NAME")`` of a pluggy ``PluginManager`` gives: an instance of
        the class upstream registers under that name (:meth:`plugins`);
        on an upstream class: its ``__iter__``, ``__getitem__``, ``__enter__``; ``p:NAME`` first: what
        a callable's parameter ``NAME`` is given, by its annotation), each read from upstream's
        annotations; None
        where an annotation is missing, names no class of the loaded source, or is a union of
        classes; an Api of kind ``BUILTIN`` where it is a builtin container (``list[T]``)."""
        state, _at = self._walk(start, steps)
        if state is not None and state[0] in ("type", "view", "pair", "builtin"):  # a builtin object: not upstream's
            if state[0] == "builtin":
                name = state[1]
            elif state[0] == "view":
                name = "object"  # ``d.items()``: a view, which builtin not said
            else:
                name = str(getattr(state[1], "left", "tuple")).rsplit(".", 1)[-1]
                name = _CONCRETE.get(name, name)
            return Api(f"builtins.{name}", BUILTIN, None)
        if state is None or state[0] not in ("class", "instance"):
            return None
        return self.api(state[1])

    def _walk(self, start: str, steps: tuple[str, ...]) -> tuple[tuple | None, int]:
        """The state :meth:`receiver_class` reaches, and how many steps it took (where it stopped)."""
        self._stuck = None
        obj = self.find(start)
        if obj is None:
            return None, 0
        state: tuple | None = ("class", obj) if obj.kind.value == "class" else ("callable", obj)
        for i, step in enumerate(steps):
            self._stuck = None
            state = self._step(state, step, first=i == 0)
            if state is None:
                return None, i
        return state, len(steps)

    def receiver_foreign(self, start: str, steps: tuple[str, ...]) -> dict | None:
        """Where :meth:`receiver_class` leaves the loaded source (None when it does not): ``{"at": i,
        "paths": [...], "roots": [...]}``: the object after ``steps[:at]`` is an instance of one of
        ``paths``, classes this source does not hold (an annotation naming a class of another
        distribution, ``-> httpx.Response``; or the bases in another distribution of a class whose
        member ``steps[at]`` is not in the source, then asked again of them); ``roots``: the
        import names of the other distributions the classes on the way inherit from (a base
        followed there anyway)."""
        self._visited: list | None = []
        try:
            state, at = self._walk(start, steps)
        finally:
            visited, self._visited = self._visited or [], None
        stuck = self._stuck
        if state is not None or stuck is None:
            return None
        roots: list[str] = []
        for cls in visited:
            try:
                roots += [p.split(".")[0] for p in self.foreign_bases(self.api(cls))]
            except Exception:  # griffe's alias errors: those bases are not known
                continue
        kind, what = stuck
        if kind == "bases":
            try:
                paths = self.foreign_bases(self.api(what))
            except Exception:
                paths = []
            roots += [p.split(".")[0] for p in paths]
        else:
            paths, at = [what], at + 1
        return {"at": at, "paths": list(dict.fromkeys(paths)), "roots": list(dict.fromkeys(roots))} if paths else None

    def _step(self, state: tuple, step: str, first: bool) -> tuple | None:
        """One step of :meth:`receiver_class`. States: ``("class", cls)`` (the class itself, as an
        annotation names it: its instance), ``("instance", cls)``, ``("callable", function)``,
        ``("type", expression, context)`` (a generic: ``list[T]``)."""
        kind = state[0]
        if step.startswith("p:"):  # what a parameter of the callable is given: its annotation (a hook spec's)
            fn = state[1]
            if kind != "callable" or not first or getattr(fn, "kind", None) is None or fn.kind.value != "function":
                return None
            param = next((p for p in fn.parameters if p.name == step[2:]), None)
            parent = fn.parent if fn.parent is not None and fn.parent.kind.value == "class" else None
            return None if param is None else self._type_state(param.annotation, fn, parent)
        if step == "call":
            if kind == "class" and first:
                return ("instance", state[1])
            if kind == "callable":
                fn = state[1]
                if getattr(fn, "kind", None) is None or fn.kind.value != "function":
                    return None  # an attribute called (``np.float_(x)``, a value bound to a callable): not known
                parent = fn.parent if fn.parent is not None and fn.parent.kind.value == "class" else None
                return self._type_state(fn.returns, fn, parent)
            return None
        # ``pm.get_plugin("name")`` on a PluginManager: an instance, or the start of the steps (a parameter
        # annotated with the manager's class; the class object's own attribute is read by its path, not here)
        if (kind == "instance" or kind == "class" and first) and step.startswith("plugin:"):
            if not self._plugin_manager(state[1]):
                return None
            path = self.plugins().get(step[7:])
            found = self.find(path) if path else None
            return ("instance", found) if found is not None and found.kind.value == "class" else None
        if kind in ("class", "instance"):
            cls = state[1]
            visited = getattr(self, "_visited", None)
            if visited is not None:
                visited.append(cls)
            if step.startswith(("m:", "a:")):
                member = self._member_of(cls, step[2:])
                if member is None:
                    self._stuck = ("bases", cls)  # inherited from a base this source does not hold, perhaps
                    return None
                if step.startswith("m:"):
                    if member.kind.value != "function" or "property" in member.labels:
                        return None
                    return self._type_state(member.returns, member, cls)
                if member.kind.value == "function" and "property" in member.labels:  # a property read: its return
                    return self._type_state(member.returns, member, cls)
                if member.kind.value != "attribute":
                    return None
                ann = getattr(member, "annotation", None)
                if ann is None:
                    value = getattr(member, "value", None)
                    if type(value).__name__ == "ExprName" and "instance-attribute" in member.labels:
                        return self._init_param_state(member, str(value))
                    func = getattr(value, "function", None) if type(value).__name__ == "ExprCall" else None
                    return self._type_state(func, member, cls) if func is not None else None
                return self._type_state(ann, member, cls)
            dunder = {"iter": "__iter__", "enter": "__enter__", "item": "__getitem__"}.get(
                "item" if step.startswith("i:") else step)
            if dunder is None:
                return None
            member = self._member_of(cls, dunder)
            if member is None:
                self._stuck = ("bases", cls)
                return None
            if member.kind.value != "function":
                return None
            got = self._type_state(member.returns, member, cls)
            return got if step != "iter" or got is None else self._step(got, "iter", False)  # ``__getitem__``: as it is
        if kind == "builtin":  # what a builtin object's methods and attributes give: not upstream's either (which builtin: not said)
            return ("builtin", "object") if step.startswith(("m:", "a:")) else None
        if kind == "type":
            return self._element(state[1], state[2], step)
        if kind == "view" and step == "iter":  # ``d.keys()`` / ``d.values()`` / ``d.items()`` iterated
            expr, context, which = state[1], state[2], state[3]
            if which == "items":
                items = list(expr.slice.elements)
                return ("pair", items, context)
            return self._element(expr, context, "key" if which == "keys" else "value")
        if kind == "pair" and step in ("u0", "u1", "i:0", "i:1"):
            return self._type_state(state[1][int(step[-1])], *state[2])
        return None

    def _init_param_state(self, member, name: str) -> tuple | None:
        """``self.x = x`` in ``__init__`` (griffe reads instance attributes there only), where
        ``x`` is an annotated parameter of that ``__init__``: the parameter's type."""
        owner = member.parent
        init = self._member_of(owner, "__init__") if owner is not None and owner.kind.value == "class" else None
        if init is None or init.kind.value != "function" or init.parent is not owner:
            return None
        param = next((p for p in init.parameters if p.name == name), None)
        if param is None or param.annotation is None:
            return None
        fp = getattr(init, "filepath", None)
        tree = self.sources.tree(fp if isinstance(fp, Path) else None)
        node = _def_at(tree, "__init__", init.lineno) if tree is not None and init.lineno is not None else None
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or _rebinds(node, name):
            return None
        return self._type_state(param.annotation, init, owner)

    def _member_of(self, cls, name: str):
        try:
            member = cls.all_members.get(name)
            return None if member is None else self._final(member)
        except Unresolved:
            return None
        except Exception:  # griffe's alias errors, on a base class outside the loaded source
            return None

    _ITERABLES = frozenset({"list", "List", "Sequence", "MutableSequence", "Iterable", "Iterator", "Generator",
                            "AsyncIterator", "AsyncIterable", "AsyncGenerator", "set", "Set", "frozenset", "FrozenSet",
                            "AbstractSet", "MutableSet", "Collection", "deque", "Deque", "KeysView", "ValuesView"})
    _MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict", "DefaultDict",
                           "Counter"})
    _MANAGERS = frozenset({"Iterator", "Generator", "ContextManager", "AbstractContextManager", "AsyncIterator",
                           "AsyncGenerator", "AsyncContextManager", "AbstractAsyncContextManager"})

    def _element(self, expr, context, step: str) -> tuple | None:
        """``iter`` (an element), ``item`` (``x[i]``), ``key`` / ``value``, ``m:keys`` / ``m:values`` /
        ``m:items`` (a mapping's views), ``u0`` / ``u1`` (unpacking a pair), ``enter`` of a generic
        type expression (``list[T]``, ``dict[K, V]``, ``tuple[T, ...]``, ``Iterator[T]``)."""
        name = str(getattr(expr, "left", "")).rsplit(".", 1)[-1]
        inner = getattr(expr, "slice", None)
        items = list(inner.elements) if type(inner).__name__ == "ExprTuple" else [inner]
        pair = len(items) == 2
        pick = None
        if step.startswith("i:"):  # ``x[N]``: the N-th of a fixed tuple, else an item
            n = int(step[2:])
            if name in ("tuple", "Tuple") and str(items[-1]) != "...":
                return self._type_state(items[n], *context) if n < len(items) else None
            step = "item"
        if step in ("iter", "item"):
            if name in self._ITERABLES or (name in self._MAPPINGS and step == "iter"):
                pick = items[0]
            elif name in self._MAPPINGS and pair:
                pick = items[1]
            elif name in ("tuple", "Tuple") and pair and str(items[1]) == "...":
                pick = items[0]
        elif step in ("key", "value") and name in self._MAPPINGS and pair:
            pick = items[0 if step == "key" else 1]
        elif step in ("m:keys", "m:values", "m:items") and name in self._MAPPINGS and pair:
            return ("view", expr, context, step[2:])
        elif step in ("m:pop", "m:get", "m:setdefault") and (name in self._MAPPINGS and pair or name in _POPPED):
            pick = items[1] if name in self._MAPPINGS else items[0]  # ``d.get(k)``: a value; ``seq.pop()``: an element
        elif step.startswith("m:") and step != "m:pop":
            return ("builtin", "object")  # ``seq.count(x)``, ``d.copy()``, ...: a builtin's method gives no upstream object
        elif step in ("u0", "u1") and name in ("tuple", "Tuple") and pair and str(items[1]) != "...":
            pick = items[int(step[1])]
        elif step == "enter" and name in self._MANAGERS:
            pick = items[0]
        return None if pick is None else self._type_state(pick, *context)

    def _type_state(self, ann, owner, cls) -> tuple | None:
        """What an annotation (a griffe expression, or text) on ``owner`` says an object is: an
        instance of one class of the loaded source, or a generic to take an element of; ``Self``
        is ``cls``; ``Optional[T]`` / ``T | None`` are ``T``; None when not known."""
        if ann is None:
            return None
        if isinstance(ann, str):
            return None
        kind = type(ann).__name__
        if kind == "ExprSubscript":
            left = str(ann.left).rsplit(".", 1)[-1]
            if left in ("Optional", "Union", "Annotated"):
                paths = _type_paths(ann)
                if len(paths) != 1:
                    return None
                if left == "Annotated":
                    return self._type_state(ann.slice.elements[0], owner, cls)
                kept = [x for x in (list(ann.slice.elements) if type(ann.slice).__name__ == "ExprTuple" else [ann.slice])
                        if str(x) != "None"]
                return self._type_state(kept[0], owner, cls) if len(kept) == 1 else None
            if left in self._ITERABLES or left in self._MAPPINGS or left in self._MANAGERS or left in ("tuple", "Tuple"):
                return ("type", ann, (owner, cls))
            return self._type_state(ann.left, owner, cls)  # ``Box[T]``: an instance of the generic class ``Box``
        if kind == "ExprBinOp":
            sides = [x for x in (ann.left, ann.right) if str(x) != "None"]
            return self._type_state(sides[0], owner, cls) if len(sides) == 1 else None
        if kind not in ("ExprName", "ExprAttribute"):
            return None
        if str(ann).rsplit(".", 1)[-1] == "Self":
            return ("instance", cls) if cls is not None else None
        if str(ann) in _BUILTINS:
            return ("builtin", str(ann))
        paths = _type_paths(ann)
        for path in paths:
            module = getattr(owner, "module", None)
            for cand in (path, f"{module.path}.{path}" if module is not None else path):
                try:
                    found = self.find(cand)
                except Unresolved:
                    continue
                if found is not None and found.kind.value == "class":
                    return ("instance", found)
        if len(paths) == 1 and "." in paths[0]:  # a class of another distribution, perhaps (``-> httpx.Response``)
            self._stuck = ("path", paths[0])
        return None

    def hook_specs(self) -> dict[str, str]:
        """Upstream's hook specifications (``hookspecs.py``: functions decorated with a ``HookspecMarker``
        of the loaded source): hook name -> the spec's dotted path, ``""`` for a name specified in
        several places (ambiguous). Found once per model, by text first."""
        if getattr(self, "_hook_specs", None) is None:
            self._hook_specs = {k: v or "" for k, v in hook_specs(self._source_files(), self._read_bytes).items()}
        return self._hook_specs

    def hook_spec(self, name: str) -> str | None:
        """The dotted path of the hook spec called ``name``; None when there is none, or several."""
        return self.hook_specs().get(name) or None

    def plugins(self) -> dict[str, str]:
        """The plugins upstream registers with pluggy by name (``hookspecs.registered_plugins``): name ->
        the dotted path of the object's class, ``""`` where not known (another object, two classes)."""
        if getattr(self, "_plugins", None) is None:
            self._plugins = {k: v or "" for k, v in registered_plugins(self._source_files(), self._read_bytes).items()}
        return self._plugins

    def _plugin_manager(self, cls, depth: int = 0) -> bool:
        """``cls`` is pluggy's ``PluginManager`` or inherits from it (a base spelled ``PluginManager``,
        ``pluggy.PluginManager``, in this source or not)."""
        if cls.name == "PluginManager":
            return True
        for base in getattr(cls, "bases", ()) or ():
            text = str(base)
            if text.rsplit(".", 1)[-1] == "PluginManager":
                return True
            if depth < 5:
                try:
                    found = self.find(text) or self.find(f"{cls.module.path}.{text}")
                except Exception:  # griffe's alias errors: a base not known
                    found = None
                if found is not None and found.kind.value == "class" and self._plugin_manager(found, depth + 1):
                    return True
        return False

    def _source_files(self) -> list[tuple[str, Path]]:
        """(dotted name, file) of each loaded module with a ``.py`` file."""
        return [(mod.path, mod.filepath) for mod in self._loaded_modules() if isinstance(mod.filepath, Path)]

    @staticmethod
    def _read_bytes(path: Path) -> bytes:
        try:
            return path.read_bytes()
        except OSError:
            return b""

    def defined_at(self, dotted: str) -> str | None:
        """``file:line`` where the object at ``dotted`` is defined (an instance attribute: where
        upstream's ``__init__`` sets it), relative to the fetched source's root; None if not known."""
        obj = self.find(dotted)
        where = self.file_of(dotted) if obj is not None else None
        line = getattr(obj, "lineno", None) if obj is not None else None
        return f"{where}:{line}" if where and line else where

    def self_calls(self, cls: Api, name: str) -> list[dict]:
        """Upstream's own calls ``self.<name>(...)`` in the methods of ``cls`` and of its bases in
        the loaded source: what a project override of ``name`` is called with. Each call as plain
        data: ``file`` (relative to the source's root), ``line``, ``caller`` (``Class.method``),
        ``positional``, ``keywords``, ``star_args``, ``star_kwargs``."""
        found = self._class_statements(cls)
        if found is None:
            return []
        out: list[dict] = []
        for node, rel in found[0]:
            out += self_calls_in(node, name, rel)
        return out

    def module_calls(self, module: Api, name: str) -> list[dict]:
        """Upstream's own calls ``<name>(...)`` in the file of ``module``: the calls that look ``name`` up among
        the module's globals, so meet whatever is put in place of ``module.<name>`` (``mock.patch``). Each as
        :meth:`self_calls` gives them; ``caller`` the function (``Class.method``) or ``<module>``."""
        owner = self._obj(module)
        if owner is None or owner.kind.value != "module":
            return []
        fp = getattr(self._final(owner), "filepath", None)
        tree = self.sources.tree(fp) if isinstance(fp, Path) else None
        return module_calls_in(tree, name, self._relative(fp)) if tree is not None else []

    def named_calls(self, cls: Api, name: str) -> list[dict]:
        """Upstream's own calls ``<anything>.<name>(...)`` in the package of ``cls`` (not on ``self``: those are
        :meth:`self_calls`): how upstream calls a method of that name on the objects it holds
        (``field._bind_to_schema(name, self)``), whatever their class. Each as :meth:`self_calls` gives them;
        ``caller`` the function (``Class.method``) or ``<module>``."""
        owner = self._obj(cls)
        if owner is None or not name.isidentifier():
            return []
        top = owner.path.split(".")[0]
        needle = f".{name}(".encode()
        out: list[dict] = []
        for dotted, fp in self._source_files():
            if dotted.split(".")[0] != top or fp.suffix != ".py" or needle not in self._read_bytes(fp):
                continue
            tree = self.sources.tree(fp)
            if tree is not None:
                out += attribute_calls_in(tree, name, self._relative(fp))
        return out

    def body_returns(self, api: Api) -> dict:
        """What the body of the function ``api`` returns, whatever its annotation says: ``classes``, the
        classes every ``return`` of its own body constructs (``return Out(...)``), by canonical path
        (empty where one ``return`` is anything else, or the function yields); ``decorators``, the names of
        its decorators (a decorator may hand a call something else)."""
        none = {"classes": [], "decorators": []}
        obj = self._obj(api)
        if obj is None or obj.kind.value != "function":
            return none
        fp = getattr(obj, "filepath", None)
        tree = self.sources.tree(fp) if isinstance(fp, Path) else None
        node = _class_node(tree, obj.name, obj.lineno, (ast.FunctionDef, ast.AsyncFunctionDef)) if tree is not None else None
        if node is None:
            return none
        decorators = [ast.unparse(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list]
        classes: list[str] = []
        own = list(own_nodes(node))
        if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own):
            return {"classes": [], "decorators": decorators}
        for ret in (n for n in own if isinstance(n, ast.Return)):
            called = ret.value.func if isinstance(ret.value, ast.Call) else None
            name = ast.unparse(called) if isinstance(called, (ast.Name, ast.Attribute)) else None
            try:
                found = self.find(f"{obj.module.path}.{name}") if name else None
            except Unresolved:
                found = None
            if found is None or getattr(found, "kind", None) is None or found.kind.value != "class":
                return {"classes": [], "decorators": decorators}
            if found.path not in classes:
                classes.append(found.path)
        return {"classes": classes, "decorators": decorators}

    def _class_statements(self, cls: Api) -> tuple[list[tuple[ast.ClassDef, str]], bool] | None:
        """The class statements of ``cls`` and of its bases in the loaded source, in MRO order, each
        with its file relative to the source's root; and whether every class of the MRO was found
        (a base outside the loaded source: the class alone). None: not a class of the source."""
        owner = self._obj(cls)
        if owner is None or owner.kind.value != "class":
            return None
        complete = True
        try:
            chain = [owner, *owner.mro()]
        except Exception:  # a base outside the loaded source: the class alone
            chain, complete = [owner], False
        out = []
        for k in chain:
            k = self._final(k)
            fp = getattr(k, "filepath", None)
            tree = self.sources.tree(fp) if isinstance(fp, Path) else None
            node = _class_node(tree, k.name, k.lineno) if tree is not None else None
            if node is None:
                complete = False
                continue
            out.append((node, self._relative(fp)))
        return out, complete

    def init_facts(self, cls: Api) -> dict | None:
        """What the constructor chain of ``cls`` sets on ``self`` and what the methods of its MRO read there
        (``selfreads.init_facts``), plus ``complete``: every class of the MRO is in the loaded source (a
        base from another distribution may set or serve anything). None: not a class of the source."""
        found = self._class_statements(cls)
        if found is None:
            return None
        mro, complete = found
        return {**selfreads.init_facts(mro), "complete": complete and not self.foreign_bases(cls)}

    def subclass_index(self, cls: Api) -> dict | None:
        """What the subclasses of ``cls`` in its package set (``subclasses.subclass_index``): built once per
        class and model, from the text of the package's files and the AST of those holding a subclass. None:
        not a class of the source."""
        found = self._class_statements(cls)
        owner = self._obj(cls)
        if found is None or owner is None:
            return None
        memo = self.__dict__.setdefault("_subclass_memo", {})
        if cls.path not in memo:
            top = owner.path.split(".")[0]
            graphs = self.__dict__.setdefault("_class_graphs", {})  # the text pass, once per package
            if top not in graphs:
                files = [(d, f) for d, f in self._source_files() if d.split(".")[0] == top and f.suffix == ".py"]
                graphs[top] = files, subclasses.class_graph(files, self._read_bytes)
            files, graph = graphs[top]
            fp = getattr(owner, "filepath", None)
            memo[cls.path] = subclasses.subclass_index(files, self._read_bytes, subclasses.parse, owner.path,
                                                       fp if isinstance(fp, Path) else None, [n for n, _ in found[0]], graph)
        return memo[cls.path]

    def _relative(self, fp: Path) -> str:
        for root in self.search:
            try:
                return Path(fp).relative_to(root).as_posix()
            except ValueError:
                continue
        return Path(fp).name

    def _resolved_bases(self, obj) -> list[tuple[str, object]]:
        """Each base of the class ``obj``: its path (canonical where griffe resolves it, else as written)
        and what that path names in the loaded source, or None."""
        out = []
        for base in obj.bases:
            path = getattr(base, "canonical_path", None) or str(base)
            try:
                found = self.find(path)
            except Unresolved:
                found = None
            out.append((path, found))
        return out

    def foreign_bases(self, cls: Api) -> list[str]:
        """The bases of class ``cls`` (at any depth) that are not in the loaded source (another
        distribution: ``torch.nn.Module``, ``httpx.Client``): its members inherited from them are unknown.
        Left out: ``object`` and the standard library's bases that bring a class no member of their own
        (``abc.ABC``, ``typing.Generic``, ``typing.Protocol``: data about Python)."""
        out: list[str] = []
        stack, seen = [self._obj(cls)], set()
        while stack:
            obj = stack.pop()
            if obj is None or id(obj) in seen or getattr(obj, "kind", None) is None or obj.kind.value != "class":
                continue
            seen.add(id(obj))
            for path, found in self._resolved_bases(obj):
                if found is None:
                    if path not in out and path not in _MEMBERLESS_BASES:
                        out.append(path)
                else:
                    stack.append(found)
        return out

    def ancestors(self, dotted: str) -> list[str]:
        """The classes the class ``dotted`` derives from, itself first, by their canonical paths; a base
        not in the loaded source by its path as written, marked ``?`` (``?collections.OrderedDict``),
        and not walked further. Empty: ``dotted`` is no class here."""
        try:
            found = self.find(dotted)
        except Unresolved:
            return []
        if found is None or getattr(found, "kind", None) is None or found.kind.value != "class":
            return []
        out: list[str] = []
        stack = [found]
        while stack:
            obj = stack.pop(0)
            path = obj.path
            if path in out:
                continue
            out.append(path)
            for where, up in self._resolved_bases(obj):
                if up is not None and getattr(up, "kind", None) is not None and up.kind.value == "class":
                    stack.append(up)
                elif f"?{where}" not in out:
                    out.append(f"?{where}")
        return out

    def resolves(self, dotted: str) -> bool:
        try:
            return self.find(dotted) is not None
        except Unresolved:
            return False


def _overloaded(g, name: str, fns: list, parent):
    """One function standing for overloads ``fns`` (see ``UpstreamModel._stub_overloads``)."""
    params: dict[str, object] = {}
    counts: dict[str, int] = {}
    for fn in fns:
        for p in fn.parameters:
            counts[p.name] = counts.get(p.name, 0) + (1 if p.required else 0)
            params.setdefault(p.name, p)
    merged = []
    for pname, p in params.items():
        optional = counts[pname] < len(fns) and p.kind.value in REQUIRED_KINDS
        merged.append(g.Parameter(pname, annotation=p.annotation, kind=p.kind,
                                  default=p.default if p.default is not None or not optional else "..."))
    returns = None
    shown: set[str] = set()
    for fn in fns:
        if fn.returns is None or str(fn.returns) in shown:
            continue
        shown.add(str(fn.returns))
        returns = fn.returns if returns is None else g.ExprBinOp(returns, "|", fn.returns)
    out = g.Function(name, lineno=fns[0].lineno, endlineno=fns[-1].endlineno, parameters=g.Parameters(*merged),
                     returns=returns, parent=parent)
    out.overloads = list(fns)
    return out


def namespace_dirs(mod, name: str | None = None):
    """The folders below module ``mod`` (called ``name``, if given) that hold Python files but no
    ``__init__.py`` (importable at run time as namespace subpackages; griffe skips them)."""
    paths = mod.filepath if isinstance(mod.filepath, list) else [mod.filepath]
    for fp in paths:
        if fp is None:
            continue
        d = fp if fp.is_dir() else fp.parent
        if fp.is_file() and fp.name != "__init__.py":
            continue
        subs = sorted(d.iterdir()) if name is None else [d / name]
        for sub in subs:
            if not sub.is_dir() or not sub.name.isidentifier():
                continue
            if (sub / "__init__.py").exists() or not any(sub.rglob("*.py")):
                continue
            yield d, sub


def _public(path: str) -> str:
    """``pkg._core.mod.Name`` as ``pkg.core.mod.Name`` (module parts without leading underscores)."""
    parts = path.split(".")
    return ".".join([p.lstrip("_") or p for p in parts[:-1]] + parts[-1:])


_COMPILED = (".so", ".pyd", ".pyx")


def _compiled(folder: Path, name: str) -> bool:
    """``folder`` holds a compiled module ``name`` (an extension, or Cython source in an sdist) and no
    Python source or stub for it."""
    if (folder / f"{name}.py").exists() or (folder / f"{name}.pyi").exists() or (folder / name).is_dir():
        return False
    try:
        return any(p.name.startswith(name + ".") and p.name.endswith(_COMPILED) and p.name.split(".")[0] == name
                   for p in folder.iterdir())
    except OSError:
        return False


def _placeholder(path: str) -> bool:
    """A placeholder defined for a missing optional backend (``utils/dummy_pt_objects.py``)."""
    return any(part.startswith("dummy") or part.endswith("_dummies") for part in path.split(".")[:-1])


def _class_node(tree, name: str, lineno: int | None, kinds: tuple = (ast.ClassDef,)):
    """The ``class name`` statement (or another of ``kinds``) griffe places at ``lineno`` (its first
    decorator's line, or its own)."""
    for node in ast.walk(tree):
        if isinstance(node, kinds) and node.name == name:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if lineno in (None, node.lineno, first):
                return node
    return None


def self_calls_in(node, name: str, rel: str) -> list[dict]:
    """``self.<name>(...)`` calls in the methods of the class statement ``node`` (``self``: each
    method's first parameter; static methods have none). ``unpacked``: how many names the call's
    result is unpacked into (``a, b = self.m()``: 2; 0 otherwise); ``through_class``: made in a
    class method, on its ``cls`` (a plain method found there is called unbound: no instance)."""
    out = []
    for fn in node.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        first = (fn.args.posonlyargs + fn.args.args)[:1]
        if not first or any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list):
            continue
        me = first[0].arg
        through_class = any(isinstance(d, ast.Name) and d.id == "classmethod" for d in fn.decorator_list)
        into = {id(n.value): unpacked_into(n, n.value) for n in ast.walk(fn) if isinstance(n, ast.Assign)}
        for call in ast.walk(fn):
            f = getattr(call, "func", None)
            if (isinstance(call, ast.Call) and isinstance(f, ast.Attribute) and f.attr == name
                    and isinstance(f.value, ast.Name) and f.value.id == me):
                out.append(_call_record(call, rel, f"{node.name}.{fn.name}", into, through_class))
    return out


def _call_record(call: ast.Call, rel: str, caller: str, into: dict[int, int], through_class: bool = False) -> dict:
    """An upstream call as the binding stage reads it (``model_cache._CALL_FIELDS``): where, by whom, what it
    passes, how many names its result is unpacked into (``into``: id of a call -> that count), and whether it
    is made on the class (``cls.m()`` in a class method) rather than on an instance."""
    return {"file": rel, "line": call.lineno, "caller": caller,
            "positional": sum(1 for a in call.args if not isinstance(a, ast.Starred)),
            "keywords": [k.arg for k in call.keywords if k.arg],
            "star_args": any(isinstance(a, ast.Starred) for a in call.args),
            "star_kwargs": any(k.arg is None for k in call.keywords),
            "unpacked": into.get(id(call), 0), "through_class": through_class}


def attribute_calls_in(tree: ast.Module, name: str, rel: str) -> list[dict]:
    """``<receiver>.<name>(...)`` calls in ``tree`` whose receiver is not the enclosing method's ``self``
    (its first parameter)."""
    out: list[dict] = []
    into = {id(n.value): unpacked_into(n, n.value) for n in ast.walk(tree) if isinstance(n, ast.Assign)}

    def visit(node, caller: str, prefix: str, me: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = (child.args.posonlyargs + child.args.args)[:1]
                visit(child, f"{prefix}{child.name}", f"{prefix}{child.name}.", first[0].arg if first and prefix else None)
                continue
            if isinstance(child, ast.ClassDef):
                visit(child, caller, f"{child.name}.", None)
                continue
            f = getattr(child, "func", None)
            if (isinstance(child, ast.Call) and isinstance(f, ast.Attribute) and f.attr == name
                    and not (isinstance(f.value, ast.Name) and f.value.id == me)):
                out.append(_call_record(child, rel, caller, into))
            visit(child, caller, prefix, me)

    visit(tree, "<module>", "", None)
    return out


def module_calls_in(tree: ast.Module, name: str, rel: str) -> list[dict]:
    """``<name>(...)`` calls in ``tree`` that read the module's global ``name``: at module level, and in
    functions (methods too) that do not bind ``name`` themselves."""
    out: list[dict] = []

    def visit(node, caller: str, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if not _rebinds(child, name) and name not in {a.arg for a in ast.walk(child.args) if isinstance(a, ast.arg)}:
                    visit(child, f"{prefix}{child.name}", f"{prefix}{child.name}.")
                continue
            if isinstance(child, ast.ClassDef):
                visit(child, caller, f"{child.name}.")
                continue
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id == name:
                out.append(_call_record(child, rel, caller, into))
            visit(child, caller, prefix)

    into = {id(n.value): unpacked_into(n, n.value) for n in ast.walk(tree) if isinstance(n, ast.Assign)}
    visit(tree, "<module>", "")
    return out


_WRAPPERS = ("Optional", "Union", "Annotated", "Final", "ClassVar")
#: builtin classes an annotation names (a receiver of one is no use of upstream)
_BUILTINS = frozenset({"str", "int", "float", "bool", "bytes", "bytearray", "complex", "list", "dict", "set",
                       "frozenset", "tuple", "object", "type"})
#: a generic's head -> the builtin class of its objects (``List[T]`` is a ``list``); an abstract one keeps its name
_CONCRETE = {"List": "list", "Dict": "dict", "Tuple": "tuple", "Set": "set", "FrozenSet": "frozenset",
             "DefaultDict": "dict", "OrderedDict": "dict", "defaultdict": "dict", "Counter": "dict", "Deque": "deque"}
#: sequences whose ``pop()`` gives an element
_POPPED = frozenset({"list", "List", "MutableSequence", "deque", "Deque", "set", "Set", "MutableSet"})


def _rebinds(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether ``fn``'s body binds ``name`` again (an assignment, a loop, ``with … as``, a walrus, an
    import, ``del``): then a read of it is no longer the parameter."""
    for node in ast.walk(fn):
        if isinstance(node, ast.alias) and (node.asname or node.name.split(".")[0]) == name:
            return True
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
            return True
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
    return False


def _type_paths(ann) -> list[str]:
    """The dotted names a type annotation (a griffe expression, or its text) can hold an object
    of: ``T`` of ``Optional[T]``, ``T | None``, ``Union[T, None]``; ``None`` left out."""
    kind = type(ann).__name__
    if isinstance(ann, str):
        text = ann.strip().strip("'\"")
        return [text] if _IDENT.match(text) and text != "None" else []
    if kind in ("ExprName", "ExprAttribute"):
        try:
            path = ann.canonical_path
        except Exception:  # a name griffe cannot follow
            path = str(ann)
        return [] if path in ("None", "builtins.None") else [path]
    if kind == "ExprBinOp" and getattr(ann, "operator", None) == "|":
        return _type_paths(ann.left) + _type_paths(ann.right)
    if kind == "ExprSubscript":
        left = str(getattr(ann, "left", "")).rsplit(".", 1)[-1]
        if left in _WRAPPERS:
            inner = ann.slice
            items = inner.elements if type(inner).__name__ == "ExprTuple" else [inner]
            return [p for x in (items[:1] if left in ("Annotated",) else items) for p in _type_paths(x)]
    return []
