"""The upstream API model, loading only the modules a question needs.

:class:`LazyModel` answers what :class:`~upgrade_checklists.audit.api.UpstreamModel` (every module
of the package loaded with griffe) answers, parsing only the top package's ``__init__`` and
then, one file at a time, the modules a question reaches: the module a dotted path names, the
module an import or a wildcard import points to, the modules a class's bases live in. It does
so by *settling* a module's name before griffe or we read it: a module's ``members`` is a dict
that, asked for ``X``,

- loads the submodule ``X`` (``X.py`` or ``X/__init__.py``) when there is one, as the whole
  load has it (a submodule replaces a member of its name, and no wildcard overwrites it), with
  every file griffe's whole load loads under that name in its order (``X.py``, ``X.pyi`` as the
  folder lists them, then ``X/__init__.py``, ``X/__init__.pyi``: griffe merges a stub into the
  module beside it; a stub alone, beside a compiled module left empty by the unpacking, is the
  module; the compiled file itself griffe does not load without inspection);
- else expands the module's wildcard imports for ``X`` alone, with griffe's rules (the binding
  lowest in the file wins; an alias to itself is dropped), after a text check that the
  imported module (or what it imports with ``*`` in turn) may bind ``X`` and expose it (its
  ``__all__``), so that a wildcard into a package of 400 subpackages loads the few that do;
- else grafts a folder ``X`` without ``__init__.py`` as the whole model does after its load;
- else, as the whole model does after griffe's load (``UpstreamModel._stub_overloads`` and
  ``_star_imports``), makes ``X`` a function where the module (or its stub) declares it only by
  ``@overload``, or binds what a ``from M import *`` binds at run time that griffe's expansion
  missed (a stub's ``__all__`` replacing the module's, ``__all__`` grown by calls).

Dataclasses get their ``__init__`` from their fields when their module is loaded (griffe's
own extension code; their bases settled first, folders without ``__init__.py`` unseen, as in
the whole load, which makes them before it grafts). While griffe visits a file it resolves a
few names (to label decorators, to tell ``Literal``): it then sees what the whole load's visit
sees (modules loaded by depth, no wildcard expanded yet). ``by_name`` (every object called
``NAME``) first finds the files that define ``NAME`` (``def``/``class``) or are called
``NAME`` (``.py`` and ``.pyi``), loads those and walks them as the whole model walks everything.

Where this could differ from the whole load, the model gives up (:class:`NeedFull`) and the
caller loads the whole package instead (``model_cache.CachedModel``): a top package's own stub
beside its ``__init__.py`` (griffe merges it after every submodule and a whole wildcard expansion),
a stub declaring a name its module imports from where the name may be bound (griffe resolves the
alias to merge them: what it finds depends on the whole load's order), a module file beside a
package folder of its name, ``.pth`` files, a package ``_<top>`` beside the top package (griffe would load it to resolve aliases),
a wildcard import across top packages or in a cycle, ``__all__`` built from other modules',
``InitVar`` fields (griffe's order of processing matters then), a dataclass with a base in
another top package or in an already grafted folder, a wildcard import in a folder without
``__init__.py``, a name needed while it is being settled, any error griffe raises on the way,
a listing of a module's members outside the loader. Correctness first: the whole load is the
reference, and ``bench/lazy_vs_whole.py`` compares the two on a real package.

The private griffe functions this needs are all named in :func:`griffe_private` (a test fails
loudly when griffe changes them).
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

from upgrade_checklists.audit import api
from upgrade_checklists.audit.aliases import SourceCache, StarExports
from upgrade_checklists.audit.api import _STAR_IMPORT, UpstreamModel, namespace_dirs, search_paths
from upgrade_checklists.core.astwalk import module_level, star_base


class NeedFull(BaseException):  # noqa: N818 (not an error: a signal no ``except Exception`` may swallow)
    """The lazy model cannot answer this exactly: load the whole package instead."""


def griffe_private():
    """griffe's private functions the lazy model uses (the whole load uses them the same way):
    ``GriffeLoader._load_module`` / ``_load_submodule`` (load one file as a (sub)module, with
    griffe's own rules for a submodule shadowing a member) and the dataclasses extension's
    ``_dataclass_decorator`` / ``_set_dataclass_init`` (a dataclass's ``__init__`` from its fields)."""
    import griffe
    from griffe._internal.extensions import dataclasses as dc

    return {
        "_load_module": griffe.GriffeLoader._load_module,
        "_load_submodule": griffe.GriffeLoader._load_submodule,
        "_dataclass_decorator": dc._dataclass_decorator,
        "_set_dataclass_init": dc._set_dataclass_init,
    }


_WILDCARD = re.compile(rb"from\s+(\.*)([\w.]*)\s+import\s*\(?\s*\*")
_DEFINES = re.compile(rb"\b(?:def|class)\s+([A-Za-z_]\w*)")
# What a module's source can bind as a member in griffe (a superset: griffe makes members of
# ``def``/``class``/``type`` statements, assignments to a plain name, and import names only):
_DEFS = re.compile(rb"\b(?:def|class|type)[ \t]+([A-Za-z_]\w*)")
_ASSIGNED = re.compile(rb"(?:^|(?<=[;=]))[ \t]*([A-Za-z_]\w*)[ \t]*(?::|=(?!=))", re.M)
_IMPORTED = re.compile(rb"\bimport[ \t]*\(([^)]*)\)|\bimport[ \t]+([^\n;]*(?:\\\r?\n[^\n;]*)*)")
_WORD = re.compile(rb"[A-Za-z_]\w*")
# ``__all__ = [...]`` of string literals only (the module's only mention of ``__all__``): what ``*`` exposes
_STATIC_ALL = re.compile(rb"__all__[ \t]*=[ \t]*[\[(]((?:\s|#[^\n]*|\"[^\"\\\n]*\"|'[^'\\\n]*'|,)*)[\])]")
_STRING = re.compile(rb"\"([^\"\\\n]*)\"|'([^'\\\n]*)'")


class _Members(dict):
    """A lazily loaded module's members: a name is settled before it is read."""

    __slots__ = ("model", "module")

    def __init__(self, data: dict, model: LazyModel, module) -> None:
        super().__init__(data)
        self.model = model
        self.module = module

    def __getitem__(self, key):
        self.model._look(self.module, key)
        return dict.__getitem__(self, key)

    def __contains__(self, key) -> bool:
        self.model._look(self.module, key)
        return dict.__contains__(self, key)

    def get(self, key, default=None):
        self.model._look(self.module, key)
        return dict.get(self, key, default)

    def _whole(self, what: str) -> None:
        if self.model.strict and not self.model._visiting:
            raise NeedFull(f"{what} of the members of `{self.module.path}`")

    def __iter__(self):
        self._whole("iterating")
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._whole("counting")
        return dict.__len__(self)

    def keys(self):
        self._whole("listing")
        return dict.keys(self)

    def values(self):
        self._whole("listing")
        return dict.values(self)

    def items(self):
        self._whole("listing")
        return dict.items(self)


def _raw(module) -> dict:
    """A module's members without settling (a plain dict view of the same mapping)."""
    return module.members


class LazyModel(UpstreamModel):
    """The model of ``modules`` below ``roots``, loading only what questions reach (see the module doc).
    Raises :class:`NeedFull` (at construction or from any question) where it cannot be exact."""

    def __init__(self, roots: list[Path], modules: list[str]) -> None:
        import griffe

        api.LOADS += 1
        api.quiet_griffe()
        self._griffe = griffe
        self._private = griffe_private()
        self.search = search_paths(roots)
        self.loader = griffe.GriffeLoader(search_paths=self.search, allow_inspection=False, store_source=False)
        self.collection = self.loader.modules_collection
        self.missing: list[str] = []
        self.sources = SourceCache()
        self.served = {}
        self.gone = {}
        self.open_stars: dict[str, list[str]] = {}
        self._readers = {}
        self._definitions = {}
        self._decorators = {}
        self.peer = None
        #: while False, griffe may list a module's members (loading); answering a question, it may not
        self.strict = False
        self._settled: set[tuple[int, str]] = set()
        self._expanding: list[tuple[int, str]] = []
        self._benign: set[tuple[int, str]] = set()
        #: griffe is visiting a file: a name it resolves (to label decorators, to tell ``Literal``) may be one
        #: being settled; it then sees it as the whole load's visit does (before any wildcard expansion)
        self._visiting: list[int] = []  # depths of the modules griffe is visiting
        self._loading: set[tuple[int, str]] = set()  # submodules being visited
        self._pending: list = []  # modules loaded during a visit, their dataclasses not made yet
        #: why this model gave up (then every question raises NeedFull)
        self.broken: str | None = None
        #: a namespace folder is being grafted (no other may be reached: the whole load grafts in its own order)
        self._grafting: str | None = None
        #: a dataclass's ``__init__`` is being made (the whole load does it before grafting: no folder is there)
        self._dataclass: str | None = None
        self._grafted: set[tuple[int, str]] = set()
        self._texts: dict[Path, bytes | None] = {}
        self._facts: dict[Path, tuple] = {}
        self._provides_memo: dict[tuple[str, str, bool], bool] = {}
        self._files_of: dict[str, list[Path]] = {}  # module -> its files (``_module_files``)
        self._index: dict[str, list[str]] | None = None  # name -> modules defining it (def/class)
        self._files: dict[str, list[Path]] = {}  # top package -> its .py and .pyi files
        #: a loaded module's file -> the files merged into it, in the order griffe loaded them (``x.py``, ``x.pyi``)
        self._merged: dict[Path, list[Path]] = {}
        self._overload_memo: dict[int, tuple] = {}  # id(module) -> (module, its functions declared by @overload only)
        self._made: set[int] = set()  # the functions made of those, and the aliases made by _star_bound
        self._star_memo: dict[int, tuple] = {}  # id(module) -> (module, the modules it imports with *)
        self._stars = StarExports(self._star_source)
        self._open_told: set[str] = set()  # the modules whose entry in ``open_stars`` is made
        self._partial_memo: dict[str, bool] = {}
        if any(p.suffix == ".pth" for s in self.search for p in _listdir(s)):
            raise NeedFull(".pth files in the source tree")
        for m in modules:
            top = m.split(".")[0]
            if top not in self.collection.members:
                self._load_top(m, top)
            if top not in self.collection.members:
                continue
            try:
                self.collection.get_member(m)
            except Exception as exc:  # the whole load's _post_load asks the same: KeyError when absent
                self.missing.append(f"{m} ({type(exc).__name__})")
        self.strict = True

    # -- loading ------------------------------------------------------------------------------

    def _load_top(self, m: str, top: str) -> None:
        from griffe import LoadingError, NamespacePackage

        try:
            _path, package = self.loader.finder.find_spec(m, try_relative_path=False, find_stubs_package=False)
        except ModuleNotFoundError:
            self.missing.append(f"{m} (ModuleNotFoundError)")
            return
        if package.name != top:
            raise NeedFull(f"`{m}` found as `{package.name}`")
        if not isinstance(package, NamespacePackage) and package.stubs:
            raise NeedFull(f"`{package.stubs}` beside `{package.path.name}`: the whole load merges the top package's "
                           "stub after loading every submodule and expanding every wildcard import")
        dirs = package.path if isinstance(package.path, list) else [package.path.parent if package.path.name.startswith("__init__.") else None]
        files: list[Path] = []
        for d in dirs:
            if d is None:
                continue
            for root, subdirs, names in os.walk(d, followlinks=True):
                subdirs[:] = [s for s in subdirs if s != "__pycache__"]
                files += [Path(root, n) for n in names if n.endswith((".py", ".pyi"))]
        init = package.path if isinstance(package.path, Path) else None
        if init is not None and b"declare_namespace" in (self._text(init) or b""):
            raise NeedFull(f"`{top}` declares a namespace at run time")
        for s in self.search:
            if (s / f"_{top}").exists() or (s / f"_{top}.py").exists():
                raise NeedFull(f"a package `_{top}` next to `{top}` (griffe loads it to resolve aliases)")
        self._files[top] = files
        self._visiting.append(1)
        try:
            module = self._private["_load_module"](self.loader, package.name, package.path, submodules=False)
        except LoadingError as exc:
            self.missing.append(f"{m} ({type(exc).__name__})")
            return
        finally:
            self._visiting.pop()
        self._adopt(module)

    def _adopt(self, module) -> None:
        """Give a freshly loaded module's dataclasses their ``__init__`` (its members are watched)."""
        if type(module.members) is dict:
            module.members = _Members(module.members, self, module)
        fp = module.filepath
        if isinstance(fp, Path):
            text = self._module_text(fp)
            if b"InitVar" in text:
                raise NeedFull(f"InitVar fields in `{module.path}`")
            if b"dataclass" in text:
                self._dataclasses(module)

    def _dataclasses(self, module) -> None:
        top = module.path.split(".")[0]
        stack = [m for m in dict.values(_raw(module)) if not m.is_alias and m.is_class]
        while stack:
            cls = stack.pop(0)
            stack += [m for m in cls.members.values() if not m.is_alias and m.is_class]
            if "__init__" in cls.members or not self._private["_dataclass_decorator"](cls.decorators):
                continue  # only labels differ for the others (the audit reads none)
            outer, self._dataclass = self._dataclass, f"by the bases of dataclass `{cls.path}`"
            try:  # the whole load makes dataclasses before it grafts namespace folders: they see none
                mro = cls.mro()
            except ValueError:
                mro = []
            finally:
                self._dataclass = outer
            if any(k.path.split(".")[0] != top for k in mro):
                raise NeedFull(f"dataclass `{cls.path}` has a base in another package")
            outer, self._dataclass = self._dataclass, f"by the bases of dataclass `{cls.path}`"
            try:
                self._private["_set_dataclass_init"](cls)
            finally:
                self._dataclass = outer

    def _look(self, module, name) -> None:
        """Before ``module``'s member ``name`` is read."""
        if self._visiting:
            self._visit_lookup(module, name)
            return
        self._settle(module, name)

    def _settle(self, module, name) -> None:
        """Make ``module``'s member ``name`` what the whole load has there."""
        if self.broken is not None:  # a settle gave up half-way: nothing of this model is exact any more
            raise NeedFull(self.broken)
        if not isinstance(name, str):
            return
        key = (id(module), name)
        if key in self._settled:
            if key in self._grafted and (self._grafting or self._dataclass):
                raise NeedFull(f"namespace folder `{module.path}.{name}` reached {self._grafting or self._dataclass}")
            if key in self._expanding and key not in self._benign:
                raise NeedFull(f"`{module.path}.{name}` needed while it is being settled")
            return
        self._settled.add(key)
        try:
            self._expanding.append(key)
            try:
                new = self._submodule(module, name)
                now = dict.get(_raw(module), name)
                if not (now is not None and not now.is_alias and now.is_module):
                    self._wildcards(module, name)
                    self._namespace(module, name)
                    self._overload_only(module, name)
                    self._star_bound(module, name)
                # else final: a wildcard never overwrites a submodule, a folder is grafted only where nothing is
            finally:
                self._expanding.pop()
            if new is not None:  # its dataclasses (their bases may be in that very module: it is final now)
                self._adopt(new)
            while self._pending and not self._visiting and not self._expanding:  # loaded while griffe visited
                self._adopt(self._pending.pop(0))
        except NeedFull as why:
            self.broken = str(why)
            raise

    def _namespace(self, module, name: str) -> None:
        """A folder without ``__init__.py`` called ``name``: grafted as the whole load does after
        loading (when no member of that name is there by then)."""
        for d, sub in namespace_dirs(module, name):
            if dict.__contains__(_raw(module), name):
                return
            if self._dataclass:  # not there yet for the whole load's dataclasses: grafted on a later question
                self._settled.discard((id(module), name))
                return
            if any(_WILDCARD.search(self._read_once(Path(r, n))) for r, _d, ns in os.walk(sub) for n in ns
                   if n.endswith((".py", ".pyi"))):
                raise NeedFull(f"wildcard import in namespace folder {sub}")
            if self._grafting:  # the whole load grafts in its own order
                raise NeedFull(f"namespace folder {sub} reached {self._grafting}")
            self._grafting = f"while loading namespace folder {sub}"
            self._benign.add((id(module), name))  # set_member tests the member's presence
            try:
                new = self._graft(module, d, sub)
                if new is None:
                    continue
                self._graft_namespace_dirs([new])
            finally:
                self._grafting = None
                self._benign.discard((id(module), name))
            self._grafted.add((id(module), name))
            stack = [new]
            while stack:
                mod = stack.pop()
                fp = mod.filepath
                if isinstance(fp, Path) and b"InitVar" in self._module_text(fp):
                    raise NeedFull(f"InitVar fields in `{mod.path}`")
                for k, fns in self._overloads_of(mod).items():  # loaded whole: as the whole model does after grafting
                    if k not in mod.members:
                        mod.set_member(k, api._overloaded(self._griffe, k, fns, mod))
                for m in mod.members.values():
                    if m.is_alias and m.name.endswith("/*"):
                        raise NeedFull(f"wildcard import left in namespace folder module `{mod.path}`")
                    if not m.is_alias and m.is_module:
                        stack.append(m)

    def _submodule_files(self, module, name) -> list[Path]:
        """The files of submodule ``name`` of ``module`` griffe's whole load loads, in its order: ``name.py``,
        ``name.pyi`` (as the folder lists them), then ``name/__init__.py``, ``name/__init__.pyi``; each loaded
        after the other is merged with it (a stub into its module, see :func:`merged_file`). A compiled
        file (``name.cpython-311-x86_64-linux-gnu.so``, left empty by the unpacking) is found too, but
        griffe without inspection does not load it: it leaves no trace."""
        fp = module.filepath
        if isinstance(fp, list):
            dirs = fp
        elif isinstance(fp, Path) and fp.name in ("__init__.py", "__init__.pyi"):
            dirs = [fp.parent]
        else:
            return []
        if not isinstance(name, str) or not name or "." in name or "/" in name:
            return []
        found = []
        for d in dirs:
            here = [p for p in _listdir(d) if _module_name(p.name) == name and p.suffix in (".py", ".pyi") and p.is_file()]
            inits = [p for p in _listdir(d / name)
                     if _module_name(p.name) == "__init__" and p.suffix in (".py", ".pyi") and p.is_file()]
            if here and inits:
                raise NeedFull(f"`{module.path}.{name}` is both a module file and a package: {here + inits}")
            if here or inits:
                found.append(here + inits)
        if len(found) > 1:
            raise NeedFull(f"`{module.path}.{name}` found twice: {found}")
        return found[0] if found else []

    def _submodule_file(self, module, name) -> Path | None:
        """The file submodule ``name`` of ``module`` has once loaded (its stubs merged in), if any."""
        files = self._submodule_files(module, name)
        return merged_file(files) if files else None

    def _submodule(self, module, name: str):
        """Load submodule ``name`` of ``module`` when there is one (the new module, or None)."""
        files = self._submodule_files(module, name)
        if not files:
            return None
        cur = dict.get(_raw(module), name)
        if cur is not None and not cur.is_alias and cur.is_module and cur.filepath in files:
            return None  # loaded already (while griffe visited a file)
        if (id(module), name) in self._loading:
            return None  # it is being visited (griffe sets it in its parent after the visit, in the whole load too)
        depth = module.path.count(".") + 2
        self._visiting.append(depth)
        self._loading.add((id(module), name))
        try:
            for i, f in enumerate(files):  # each set in ``module`` by griffe, merged with the one before (set_member)
                if i:
                    self._merge_is_fixed(module, name, files[i - 1], f)
                self._private["_load_submodule"](self.loader, module, (name,), f)
        except NeedFull:
            raise
        except Exception as exc:  # the whole load, in its order, did not stop there
            raise NeedFull(f"loading `{module.path}.{name}`: {type(exc).__name__}") from None
        finally:
            self._visiting.pop()
            self._loading.discard((id(module), name))
        new = dict.get(_raw(module), name)
        if new is not None and not new.is_alias and new.is_module and new.filepath in files and type(new.members) is dict:
            # (not ``path`` when griffe gave up the merge on an alias resolving nowhere: then the later file alone,
            # in the whole load too)
            self._merged[new.filepath] = files
            new.members = _Members(new.members, self, new)
            return new
        return None

    def _merge_is_fixed(self, module, name: str, before: Path, after: Path) -> None:
        """Before griffe merges ``after`` with ``before`` (loaded as ``module.name``): give up where the merge
        may follow an alias of the module's (a name its stub declares, the module imports from where it may
        be found): griffe resolves it then, and what it finds (or that it gives up the whole merge) depends
        on which modules are loaded by then, which the whole load's order decides. An import from outside
        the source, or of a name its module cannot bind, resolves in no order: the merge is the same."""
        if before.suffix == after.suffix:
            return  # two modules, or two stubs: the later replaces the earlier, nothing is resolved
        source, stub = (before, after) if before.suffix == ".py" else (after, before)
        text = self._read_once(stub)
        declared = {n.decode() for n in set(_DEFS.findall(text)) | set(_ASSIGNED.findall(text))}
        tree = self.sources.tree(source)
        if tree is None:
            return  # griffe cannot read it either: nothing is merged
        package = f"{module.path}.{name}" if source.name == "__init__.py" else module.path
        risky = set()
        for node in module_level(tree.body):
            if isinstance(node, ast.ImportFrom):
                base = star_base(node, package)
                bound = [(a.asname or a.name, f"{base}.{a.name}" if base else a.name) for a in node.names if a.name != "*"]
            elif isinstance(node, ast.Import):
                bound = [(a.asname, a.name) if a.asname else (a.name.split(".")[0],) * 2 for a in node.names]
            else:
                continue
            risky |= {local for local, target in bound if local in declared and self._may_resolve(target)}
        if risky:
            raise NeedFull(f"the stub of `{module.path}.{name}` declares what its module imports ({', '.join(sorted(risky)[:3])}): "
                           "griffe resolves those to merge them, as far as the whole load's order lets it")

    def _may_resolve(self, dotted: str) -> bool:
        """Whether an alias to ``dotted`` may resolve in the source, in some order of loading (text: a superset)."""
        if self._module_files(dotted) or self._is_folder(dotted):
            return True
        owner, _, attr = dotted.rpartition(".")
        if not owner:
            return False
        if self._module_files(owner) or self._is_folder(owner):
            return self._provides(owner, attr, exposed=False)
        return self._may_resolve(owner)  # an attribute of an attribute: as far as its owner may

    def _is_folder(self, dotted: str) -> bool:
        return any((s / dotted.replace(".", "/")).is_dir() for s in self.search)

    def _visit_lookup(self, module, name) -> None:
        """A name griffe resolves while it visits a file (to label decorators, to tell ``Literal``, ...):
        the whole load has then loaded the modules above the visited one in depth (it loads by depth),
        and expanded no wildcard nor grafted any folder yet. So: only a shallower submodule is loaded."""
        if (id(module), name) in self._settled:
            return
        path = self._submodule_file(module, name)
        if path is None or module.path.count(".") + 2 > self._visiting[-1]:
            return
        new = self._submodule(module, name)
        if new is not None:
            self._pending.append(new)

    def _overloads_of(self, module) -> dict[str, list]:
        """The functions ``module`` declares only by ``@overload`` (in its source, or in the stub griffe merged
        into it), which the whole model makes functions where no member of their name is
        (``UpstreamModel._stub_overloads``, read the same way here)."""
        found = self._overload_memo.get(id(module))
        if found is not None:
            return found[1]
        self._visiting.append(module.path.count(".") + 1)  # what a stub's visit looks up, it sees as griffe's visits do
        try:
            out = api.overload_only(self._griffe, module)
        finally:
            self._visiting.pop()
        self._overload_memo[id(module)] = (module, out)
        return out

    def _overload_only(self, module, name: str) -> None:
        """A function ``module`` declares only by ``@overload``, where nothing else is called ``name``."""
        if dict.__contains__(_raw(module), name):
            return
        fns = self._overloads_of(module).get(name)
        if not fns:
            return
        made = api._overloaded(self._griffe, name, fns, module)
        self._made.add(id(made))
        self._set(module, name, made)

    def _set(self, module, name: str, member) -> None:
        """``module.set_member(name, member)``, which tests the member's presence first: not a question to settle."""
        self._benign.add((id(module), name))
        try:
            module.set_member(name, member)
        finally:
            self._benign.discard((id(module), name))

    def _star_bases(self, module) -> list[tuple[str, int, int]]:
        """The modules ``module``'s source imports with ``*`` (each with the statement's lines), in its order."""
        found = self._star_memo.get(id(module))
        if found is not None:
            return found[1]
        out: list[tuple[str, int, int]] = []
        fp = module.filepath
        tree = None
        if isinstance(fp, Path) and fp.suffix == ".py" and _STAR_IMPORT.search(self._text(fp) or b""):
            tree = self.sources.tree(fp)
        if tree is not None:
            out = api.star_imports(tree, module.path, fp.name == "__init__.py")
        self._star_memo[id(module)] = (module, out)
        return out

    def _unread_origins(self, mod, fp, tree, name: str, is_package: bool) -> None:
        """As the whole model's, which knows by then which of ``mod``'s ``*`` imports bind names known only
        in part (``open_stars``, filled for every module by ``UpstreamModel._star_imports``): told here first."""
        if mod.path not in self._open_told:
            self._open_told.add(mod.path)
            for base, _line, _end in self._star_bases(mod):
                if self._may_be_partial(base) and self._stars.exposed(base) is not None and base in self._stars.partial:
                    self.open_stars.setdefault(mod.path, []).append(base)
        super()._unread_origins(mod, fp, tree, name, is_package)

    def _may_be_partial(self, dotted: str, seen: frozenset = frozenset()) -> bool:
        """Whether ``StarExports`` may know ``from dotted import *``'s names only in part, told from the text
        (a superset: its ``__all__`` is named more than once, or so may be that of a module it imports with ``*``)."""
        if dotted in self._partial_memo:
            return self._partial_memo[dotted]
        paths = self._module_files(dotted)
        texts = [self._read_once(p) for p in paths]
        result = any(t.count(b"__all__") > 1 for t in texts)
        if not result and paths:
            package = dotted if paths[0].stem == "__init__" else dotted.rpartition(".")[0]
            result = any(target not in seen and self._may_be_partial(target, seen | {dotted})
                         for t in texts for target in _star_targets(t, package, dotted))
        if not seen:
            self._partial_memo[dotted] = result
        return result

    def _may_expose(self, dotted: str, name: str, seen: frozenset = frozenset()) -> bool:
        """Whether ``from dotted import *`` may bind ``name`` as Python runs it (``StarExports.exposed``), told
        from the text first (a superset: the name is in its source, its ``__all__`` is named more than once, or a
        module it imports with ``*`` may), so that a package of 400 ``*`` imports is parsed for the few that may."""
        paths = self._module_files(dotted)
        if not paths:
            return False  # no source: ``exposed`` knows nothing of it either
        word = re.compile(rb"\b" + re.escape(name.encode()) + rb"\b")
        texts = [self._read_once(p) for p in paths]
        if any(word.search(t) or t.count(b"__all__") > 1 for t in texts):  # (``__all__`` grown from another module's)
            return True
        package = dotted if paths[0].stem == "__init__" else dotted.rpartition(".")[0]
        return any(target not in seen and self._may_expose(target, name, seen | {dotted})
                   for t in texts for target in _star_targets(t, package, dotted))

    def _star_bound(self, module, name: str) -> None:
        """What ``from M import *`` binds at run time where griffe's expansion fell short (a stub's ``__all__``
        replacing the module's, ``__all__`` grown by calls), for ``name``: as the whole model's
        ``_star_imports`` binds it after loading (the first such import exposing it)."""
        if dict.__contains__(_raw(module), name) or not name.isidentifier():
            return
        for base, lineno, endlineno in self._star_bases(module):
            if self._may_expose(base, name) and name in (self._stars.exposed(base) or ()):
                made = self._griffe.Alias(name, f"{base}.{name}", lineno=lineno, endlineno=endlineno, parent=module,
                                          wildcard_imported=True)
                self._made.add(id(made))
                self._set(module, name, made)
                return

    def _wildcards(self, module, name: str) -> None:
        """Expand ``module``'s wildcard imports for ``name`` as griffe's ``expand_wildcards`` does for all names."""
        members = _raw(module)
        wildcards = [m for m in dict.values(members) if m.is_alias and m.name.endswith("/*")]
        if not wildcards:
            return
        top = module.path.split(".")[0]
        candidates = []
        for w in wildcards:
            target = w.wildcard
            if target.split(".")[0] != top:
                if target.split(".")[0] in dict.keys(self.collection.members):
                    raise NeedFull(f"wildcard import across packages in `{module.path}`")
                continue  # an external package: the whole load leaves it unexpanded too
            if not self._provides(target, name):
                continue
            try:
                source = self.collection.get_member(target)
            except KeyError:
                continue  # not in the source: the whole load skips it too
            except Exception as exc:  # the whole load would stop on it
                raise NeedFull(f"wildcard import of `{target}` ({type(exc).__name__})") from None
            if source.is_alias or not source.is_module or not isinstance(source.members, _Members):
                raise NeedFull(f"wildcard import of `{target}` in `{module.path}`")
            if (id(source), name) in self._expanding:
                raise NeedFull(f"cyclic wildcard imports through `{module.path}`")
            self._settle(source, name)
            if source.exports is not None and not all(isinstance(e, str) for e in source.exports):
                raise NeedFull(f"`{source.path}.__all__` is built from other modules")
            member = dict.get(_raw(source), name)
            if member is not None and id(member) in self._made:
                continue  # made by the whole model after griffe's expansion: not seen by it (bound by _star_bound, or not)
            if member is not None and member.is_wildcard_exposed:
                candidates.append((member, w.alias_lineno, w.alias_endlineno))
        for new_member, lineno, endlineno in candidates:  # griffe's expand_wildcards, for one name
            present = dict.__contains__(members, name)
            overwrite = False
            self_alias = new_member.is_alias and new_member.target_path == f"{module.path}.{name}"
            if present:
                old = dict.__getitem__(members, name)
                old_lineno = old.alias_lineno if old.is_alias else old.lineno
                overwrite = (lineno or 0) > (old_lineno or 0)
            if self_alias or (present and not overwrite):
                continue
            alias = self._griffe.Alias(name, new_member, lineno=lineno, endlineno=endlineno, parent=module,
                                       wildcard_imported=True)
            if present:
                prev = dict.__getitem__(members, name)
                try:
                    if prev.is_module:
                        continue
                except (self._griffe.AliasResolutionError, self._griffe.CyclicAliasError):
                    pass
            self._set(module, name, alias)

    # -- source text ----------------------------------------------------------------------------

    def _text(self, path: Path) -> bytes | None:
        if path not in self._texts:
            try:
                self._texts[path] = path.read_bytes()
            except OSError:
                self._texts[path] = None
        return self._texts[path]

    def _module_text(self, fp: Path) -> bytes:
        """The text of a loaded module's file and of the stub griffe merged into it (one text: for searching)."""
        files = self._merged.get(fp)
        if files is None:  # loaded by griffe alone (the top package, a grafted folder): its stub beside it
            stub = fp.with_suffix(".pyi")
            files = [fp, stub] if fp.suffix == ".py" and stub.is_file() else [fp]
        return b"\n".join(self._text(f) or b"" for f in files)

    def _module_files(self, dotted: str) -> list[Path]:
        """The files of module ``dotted`` griffe's whole load reads (its ``.py`` and ``.pyi``, module or package);
        asked once a module (the source tree does not change during an audit; ``_provides`` asks it for every
        module a ``*`` import reaches, for every name)."""
        found = self._files_of.get(dotted)
        if found is None:
            rel = dotted.replace(".", "/")
            found = []
            for s in self.search:
                found = [c for c in (s / rel / "__init__.py", s / f"{rel}.py", s / rel / "__init__.pyi", s / f"{rel}.pyi")
                         if c.is_file()]
                if found:
                    break
            self._files_of[dotted] = found
        return found

    def _star_source(self, dotted: str):
        """``(tree, is_package)`` of module ``dotted``'s source (its ``.py``, else its stub) for ``StarExports``,
        as the whole model's ``_module_source``, the tree not kept: ``StarExports`` keeps what it reads of it,
        and a ``*`` import of a package of 400 subpackages reaches some 2,000 modules (transformers.models:
        their trees had doubled the audit's peak memory), few of which a question loads."""
        paths = self._module_files(dotted)
        if not paths:
            return None
        tree = self.sources.tree(paths[0], keep=False)
        return None if tree is None else (tree, paths[0].stem == "__init__")

    def _bound(self, path: Path) -> tuple[frozenset[str], list[tuple[bytes, bytes]], frozenset[str] | None]:
        """The names the module at ``path`` may bind (a superset), its wildcard imports (dots, module),
        and its ``__all__`` when it is a plain list of strings (else None)."""
        facts = self._facts.get(path)
        if facts is None:
            text = self._read_once(path)
            names = set(_DEFS.findall(text)) | set(_ASSIGNED.findall(text))
            for group in _IMPORTED.findall(text):
                for span in group:
                    names.update(_WORD.findall(span))
            exports = None
            static = _STATIC_ALL.search(text)
            if static is not None and text.count(b"__all__") == 1:
                exports = frozenset((a or b).decode() for a, b in _STRING.findall(static.group(1)))
            facts = self._facts[path] = (frozenset(n.decode() for n in names), _WILDCARD.findall(text), exports)
        return facts

    def _provides(self, dotted: str, name: str, seen: frozenset = frozenset(), exposed: bool = True) -> bool:
        """Whether module ``dotted`` could bind ``name``: its source may bind it, or a module it
        imports with ``*`` could (a sound over-approximation; the load decides); ``exposed``: and
        expose it to a ``*`` import of its own (its ``__all__``)."""
        key = (dotted, name, exposed)
        if key in self._provides_memo:
            return self._provides_memo[key]
        paths = self._module_files(dotted)
        if not paths:
            result = any((s / dotted.replace(".", "/")).is_dir() for s in self.search)  # a namespace package: let the load decide
        else:  # a module and its stub: griffe's ``*`` reads the stub's ``__all__``, the whole model's the module's too
            facts = [self._bound(p) for p in paths]
            result = any(name in bound for bound, _w, _e in facts)
            wildcards = [w for _b, ws, _e in facts for w in ws]
            if exposed and all(exports is not None and name not in exports for _b, _w, exports in facts):
                result = False  # not exposed to ``*`` whatever binds it
            elif not result:
                package = dotted if paths[0].stem == "__init__" else dotted.rpartition(".")[0]
                for dots, rest in wildcards:
                    base = package
                    for _ in range(len(dots) - 1):
                        base = base.rpartition(".")[0]
                    target = (f"{base}.{rest.decode()}" if base else rest.decode()) if dots else rest.decode()
                    target = target.strip(".")
                    if target and target not in seen and target != dotted and self._provides(target, name, seen | {dotted}):
                        result = True
                        break
        if not seen:
            self._provides_memo[key] = result
        return result

    # -- questions the text answers first -----------------------------------------------------------

    def by_name(self, name: str, kinds: tuple[str, ...] = ("class", "function")) -> list[str]:
        """As the whole model's walk over every module and class, over the modules whose source
        defines ``name`` (``def``/``class``) or that are called ``name``: no other can hold one."""
        if name.startswith("__"):
            raise NeedFull(f"by_name({name!r}): griffe makes some of these (a dataclass's __init__)")
        out: list[str] = []
        seen: set[int] = set()
        for dotted in self._defining(name):
            self._module_at(dotted)
            mod = self._reachable(dotted)
            if mod is None or id(mod) in seen:
                continue
            seen.add(id(mod))
            if mod.name == name and "module" in kinds:
                out.append(mod.path)
            if isinstance(mod.members, _Members):  # a direct member may yet be replaced by a submodule or a wildcard
                for k, v in list(dict.items(mod.members)):
                    if not v.is_alias:
                        self._settle(mod, k)
                for k in self._overloads_of(mod):  # a function declared by @overload only, where nothing else is
                    self._settle(mod, k)
            stack = [m for m in dict.values(mod.members) if not m.is_alias and not m.is_module]
            while stack:
                obj = stack.pop()
                if obj.is_alias or id(obj) in seen:
                    continue
                seen.add(id(obj))
                if obj.name == name and obj.kind.value in kinds:
                    out.append(obj.path)
                if obj.kind.value == "class":
                    stack += list(obj.members.values())
        return sorted(out, key=lambda p: (api._placeholder(p), p))

    def _source_files(self) -> list[tuple[str, Path]]:
        """(dotted name, file) of every ``.py`` file of the packages, and of each stub without one (a compiled
        module's: griffe loads it as the module; the hook specs are found by text first)."""
        out = []
        for files in self._files.values():
            dotted_files = [(self._dotted(f), f) for f in files]
            with_source = {d for d, f in dotted_files if f.suffix == ".py"}
            out += [(d, f) for d, f in dotted_files if d is not None and (f.suffix == ".py" or d not in with_source)]
        return out

    def _read_bytes(self, path: Path) -> bytes:
        return self._read_once(path)

    def _reachable(self, dotted: str):
        """The module at ``dotted`` when the whole model's walk reaches it (a chain of modules, no alias), else None."""
        parts = dotted.split(".")
        obj = dict.get(self.collection.members, parts[0])
        for part in parts[1:]:
            if obj is None or obj.is_alias or not obj.is_module:
                return None
            obj = dict.get(obj.members, part)
        return None if obj is None or obj.is_alias or not obj.is_module else obj

    def _defining(self, name: str) -> list[str]:
        if self._index is None:
            index: dict[str, set[str]] = {}
            for top, files in self._files.items():
                for f in files:
                    dotted = self._dotted(f)
                    if dotted is None:
                        continue
                    for defined in set(_DEFINES.findall(self._read_once(f))):
                        index.setdefault(defined.decode(), set()).add(dotted)
                    parts = dotted.split(".")
                    for i in range(1, len(parts) + 1):  # the module and the folders above it (with or without __init__.py)
                        index.setdefault(parts[i - 1], set()).add(".".join(parts[:i]))
            self._index = {k: sorted(v) for k, v in index.items()}
        return self._index.get(name, [])

    def _read_once(self, path: Path) -> bytes:
        if path in self._texts:
            return self._texts[path] or b""
        try:
            return path.read_bytes()
        except OSError:
            return b""

    def _dotted(self, path: Path) -> str | None:
        for s in self.search:
            try:
                rel = path.relative_to(s)
            except ValueError:
                continue
            parts = list(rel.parts)
            parts[-1] = _module_name(parts[-1]) or parts[-1]
            if parts[-1] == "__init__":
                parts.pop()
            return ".".join(parts)
        return None

    def _module_at(self, dotted: str) -> None:
        """Load the modules on the way to ``dotted`` (as the whole load has them, or not at all)."""
        parts = dotted.split(".")
        obj = dict.get(self.collection.members, parts[0])
        for part in parts[1:]:
            if obj is None or obj.is_alias or not obj.is_module or not isinstance(obj.members, _Members):
                return
            self._settle(obj, part)
            obj = dict.get(_raw(obj), part)


#: the files griffe's finder takes for modules (``ModuleFinder.extensions_set``); it loads ``.py`` and ``.pyi`` only
_MODULE_SUFFIXES = (".py", ".pyc", ".pyo", ".pyd", ".pyi", ".so")


def _module_name(filename: str) -> str | None:
    """The module name griffe's finder gives the file ``filename`` (``x.py``, ``x.pyi``,
    ``x.cpython-311-x86_64-linux-gnu.so`` are all ``x``), or None when it takes no such file."""
    stem, suffix = os.path.splitext(filename)
    if suffix not in _MODULE_SUFFIXES:
        return None
    return stem if suffix == ".py" else stem.split(".", 1)[0]


def _star_targets(text: bytes, package: str, dotted: str) -> list[str]:
    """The modules a source (of module ``dotted``, in ``package``) imports with ``*``, from its text."""
    out = []
    for dots, rest in _WILDCARD.findall(text):
        base = package
        for _ in range(len(dots) - 1):
            base = base.rpartition(".")[0]
        target = ((f"{base}.{rest.decode()}" if base else rest.decode()) if dots else rest.decode()).strip(".")
        if target and target != dotted:
            out.append(target)
    return out


def merged_file(files: list[Path]) -> Path:
    """The file of the module griffe keeps when it loads ``files`` in turn under one name: a stub is
    merged into the module beside it (whichever comes first), two modules or two stubs: the later one."""
    kept = None
    for f in files:
        if f.suffix not in (".py", ".pyi"):
            continue  # a compiled module: not loaded without inspection
        if kept is None or kept.suffix == ".pyi" or f.suffix != ".pyi":
            kept = f
    return kept


def _listdir(path: Path) -> list[Path]:
    try:
        return list(path.iterdir())
    except OSError:
        return []
