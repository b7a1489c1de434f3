"""The audit's first stage: every use of a package in the code, as plain data (the kinds of use
are described in ``use.py``; keywords handed on through ``**kwargs`` are followed in ``forwarding.py``).

Nothing here knows the upstream source: ``bind.py`` binds the uses to it.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, replace

from upgrade_checklists.core.astwalk import BLOCKS, imports, module_level, own_nodes, star_base, statements, stored_on, walk
from upgrade_checklists.project import callsites
from upgrade_checklists.project.calls import (NOT_METHODS, STAR_BOUND, Call, Scopes, _inside, bindings, decorator_name, dotted,
                                             dynamic_imports, find_calls, find_method_calls, make_call, resolve, statement_calls)
from upgrade_checklists.project.forwarding import Forwarding
from upgrade_checklists.project.patchbody import (factory_product, original_names, partial_params, patch_guard, returned_use, scope_of,
                                                unpartial, wrapped_results)
from upgrade_checklists.project.flags import Flags, branch_conditions
from upgrade_checklists.project.receivers import (REBOUND, Scope, Up, annotation_type, describe, hook_params, is_rebound, qualified_annotation, rebound,
                                                receivers, type_comments)
from upgrade_checklists.project.testpatches import MAY_PATCH, helper_patches
from upgrade_checklists.project.use import (ANNOTATED, ATTRIBUTE, CALL, HOOK, IMPORT, INIT_SKIPPED, MEMBER, OVERRIDE, PARAM_KINDS,
                                           PATCH, RESULT, TYPED, WRAPPED, Sources, Use, mentions, module_name)
from upgrade_checklists.project.values import assignments_onto, assigned_once

#: methods whose override is not checked against the base: constructors (upstream calls them through the class)
_NOT_OVERRIDES = frozenset({"__init__", "__new__", "__init_subclass__", "__class_getitem__"})
_STAR_IMPORT = re.compile(r"\bimport[ \t]*\(?[ \t]*\*")


def find_uses(sources, modules: list[str], hooks: bool | Collection[str] = False) -> list[Use]:
    """Every use of ``modules`` in the project files ``sources`` (rel -> (text, tree), or :class:`Sources`).
    ``hooks``: also the possible hook implementations (HOOK uses, and ANNOTATED uses on their parameters
    with ``hook:`` steps): uses only where upstream has a spec of that name, which the binding stage
    decides (``bind.hook_uses``); the audit asks for them, ``new`` does not. A collection of hook names
    (upstream's specs, when the caller knows them) keeps only the functions implementing one of those."""
    sources = Sources.of(sources)
    out: list[Use] = []
    project = _Project(sources, modules)
    tops = {m.split(".")[0] for m in modules}  # an import of a module (what ``bindings`` finds) names its package
    for rel in sources.paths:
        text = sources.text(rel)
        star = project.star_bindings(rel) if _STAR_IMPORT.search(text) else {}
        if not star and not mentions(text, tops) and not (hooks and (_IMPL_MARKER in text or project.names_impl_marker(rel, text))):
            continue
        tree = sources.tree(rel)
        if tree is None:
            continue
        guesses: dict[str, str] = {}
        if _STAR_IMPORT.search(text):
            own = _own_names(tree)
            star = {k: v for k, v in star.items() if k not in own}
            guesses = _upstream_star_names(tree, modules, own | set(star))
            star.update(guesses)
        if star:
            tree.__dict__.setdefault(STAR_BOUND, {})[tuple(modules)] = star
        start = len(out)
        bound = bindings(tree, modules)
        impls = _hooks(tree, bool(bound), project.impl_marker_names(rel, text), None if hooks is True else hooks) if hooks else {}
        if impls and not bound:  # a hook implementation in a file that does not import the package
            scopes, _owner = _scopes(rel, tree, bound, modules, project, impls)
            out += _receivers(rel, text, scopes, set())
            out += _hook_uses(rel, impls, modules)
        class_patches = project.patches(rel) if bound or any(m in text for m in modules) else []  # (through strings too)
        if (bound or any(m in text for m in modules)) and MAY_PATCH.search(text):
            class_patches += project.helper_patches(rel)
        if bound:
            out += _hook_uses(rel, impls, modules)
            out += _imports(rel, tree, modules)
            python_scopes = Scopes(tree, modules)  # a name a function binds otherwise is not the package's there
            out += _attributes(rel, tree, bound, python_scopes, modules)
            covered: set[int] = set()
            scopes, owner = _scopes(rel, tree, bound, modules, project, impls)
            inst, seeds = project.instance_patches(rel, tree, scopes)
            out += inst
            seeds += _class_patch_seeds(rel, class_patches)
            if seeds:
                scopes, owner = _seeded(rel, tree, bound, modules, project, scopes, owner, seeds, impls)
            scopes, owner = _callers_typed(rel, tree, bound, modules, project, scopes, owner, seeds, impls)
            chained, at_once = _chained_calls(tree), []
            for c in find_calls(text, tree, modules):
                if c.node is not None and python_scopes.shadowed(c.node, (dotted(c.node.func) or "").partition(".")[0]):
                    continue
                out.append(Use(rel, c.line, CALL, c.api, call=c))
                if c.assigned_to:
                    for mc in find_method_calls(text, tree, c.assigned_to, None):
                        if _result_holds(c, mc, owner):
                            out.append(Use(rel, mc.line, RESULT, c.api, mc.api, call=mc, via=f"the result of `{c.api}`"))
                            covered.add(id(mc.node))
                if c.node is not None and id(c.node) in chained:  # ``Api(...).method(...)``: on the result, at once
                    at_once.append((c, *chained[id(c.node)]))
            typed = _receivers(rel, text, scopes, covered)
            out += typed
            typed_calls = {id(u.call.node) for u in typed if u.call is not None and u.call.node is not None}
            for c, stmt, node, where in at_once:  # where no receiver type says it already (module level, say)
                if id(node) not in typed_calls:
                    mc = make_call(node.func.attr, where, node, stmt, text.splitlines())
                    out.append(Use(rel, mc.line, RESULT, c.api, mc.api, call=mc, via=f"the result of `{c.api}`"))
        for i in range(start, len(out)) if guesses else ():
            u = out[i]
            head = next((q for q in guesses.values() if u.target == q or u.target.startswith(q + ".")), None)
            if head is not None:
                out[i] = replace(u, star=head)
        out += class_patches
    out += _foreign_seeded(sources, modules, project)
    out += project.subclass_uses()
    return _flagged(out, project.flags)


def _foreign_seeded(sources, modules: list[str], project: _Project) -> list[Use]:
    """The uses a patch function of another file gains once its instance parameter is typed: a
    function imported and installed on an instance (``obj.m = partial(f, obj)`` in another file,
    ``project.foreign_seeds``) is typed as an in-file one is; only what the seed adds (the uses its
    file gave without it are there already)."""
    out: list[Use] = []
    for frel, seeds in sorted(project.foreign_seeds.items()):
        tree = sources.tree(frel)
        if tree is None:
            continue
        text = sources.text(frel)
        bound = bindings(tree, modules)
        scopes, owner = _scopes(frel, tree, bound, modules, project, also={line for line, *_r in seeds})

        def key(u: Use):
            return (u.line, u.kind, u.target, u.member, u.steps)
        before = {key(u) for u in _receivers(frel, text, scopes, set())}
        scopes, owner = _seeded(frel, tree, bound, modules, project, scopes, owner, seeds)
        out += [u for u in _receivers(frel, text, scopes, set()) if key(u) not in before]
    return out


def _flagged(uses: list[Use], flags: Flags) -> list[Use]:
    """``uses`` with the flag of the version-flag branches around each (``Use.flag``)."""
    files = {u.file for u in uses if u.file}
    found = {rel: branch_conditions(rel, flags) for rel in files}
    ranges = {rel: blocks for rel, (blocks, _arms) in found.items()}
    arms = {rel: arms_ for rel, (_blocks, arms_) in found.items()}
    out = []
    for u in uses:
        conds = [c for start, end, c in ranges.get(u.file, ()) if start <= u.line <= end]
        node = u.call.node if u.call is not None else None
        if isinstance(node, ast.AST) and hasattr(node, "col_offset"):  # ``old() if FLAG else new()``: by column too
            at = (node.lineno, node.col_offset)
            conds += [c for start, end, c in arms.get(u.file, ()) if start <= at < end]
        out.append(replace(u, flag=" and ".join(f"({c})" for c in conds)) if conds else u)
    return out


def _chained_calls(tree: ast.Module) -> dict[int, tuple]:
    """``id(inner call) -> (stmt, call, where)`` of each call ``<call>.method(...)`` made directly on
    the result of another call (``TestClient(app).get(url)``)."""
    out = {}
    for stmt, node, where in statement_calls(tree):
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Call):
            out[id(f.value)] = (stmt, node, where)
    return out


def subclasses(sources, modules: list[str]) -> list[tuple[str, str, str, int]]:
    """``(upstream base, project class, file, line)`` for each project class that subclasses an
    upstream class of ``modules`` (at any depth, across files)."""
    project = _Project(Sources.of(sources), modules)
    out = []
    for name, cls in sorted(project.classes.items()):
        up = project.upstream_base(name) if not cls.path else None
        if up is not None:
            out.append((up[0], name, cls.file, project.node(cls).lineno))
    return out


# -- imports -----------------------------------------------------------------------------


def _imports(rel: str, tree: ast.Module, modules: list[str]) -> list[Use]:
    typing_lines = _typing_only_lines(tree)
    fallback_lines, last_resort = _fallback_import_lines(tree, modules)
    out = []
    for node in imports(tree):
        for path in _import_paths(node):
            if _inside(path, modules):
                out.append(Use(rel, node.lineno, IMPORT, path, typing_only=node.lineno in typing_lines,
                               fallback=node.lineno in fallback_lines, last_resort=node.lineno in last_resort,
                               tried=last_resort.get(node.lineno, ())))
    return out


def _import_paths(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The dotted names an absolute import binds (``from m import a`` -> ``m.a``; ``*`` left out)."""
    if isinstance(node, ast.ImportFrom):
        return [f"{node.module}.{a.name}" for a in node.names if a.name != "*"] if node.module and not node.level else []
    return [a.name for a in node.names]


def _attributes(rel: str, tree: ast.Module, bound: dict[str, str], python_scopes: Scopes, modules: list[str]) -> list[Use]:
    """Each ``pkg.name`` read (``pkg.__version__``, the ``pkg.f`` of ``pkg.f()``; not ``pkg.name = v``, which
    neither needs the name nor asks a module ``__getattr__``), once a line;
    a read Python never evaluates (see :func:`unevaluated_nodes`) says why, unless the same
    line also reads the name where it runs. Not where a function binds the name otherwise
    (``def f(pkg): pkg.x``, ``forms = []; forms.append(f)``: ``Scopes.shadowed``). A read through a parent
    package of an import name (``import requests`` for ``requests.packages.urllib3``) is one only inside it."""
    out: list[Use] = []
    at: dict[tuple[int, str], int] = {}
    never = unevaluated_nodes(tree)
    aliased = _local_module_aliases(tree, bound, python_scopes)
    for node in walk(tree):
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Store):  # ``pkg.X = v`` sets, reads nothing
            local = aliased.get(id(node))
            if local is not None:
                path = resolve(node, local)
            else:
                path = resolve(node, bound)
                if path is None or python_scopes.shadowed(node, (dotted(node) or "").partition(".")[0]):
                    continue
            if path is None or not _inside(path, modules):
                continue
            why = never.get(id(node), "")
            i = at.get((node.lineno, path))
            if i is None:
                at[(node.lineno, path)] = len(out)
                out.append(Use(rel, node.lineno, ATTRIBUTE, path, unevaluated=why))
            elif out[i].unevaluated and not why:
                out[i] = Use(rel, node.lineno, ATTRIBUTE, path)
    return out


def _local_module_aliases(tree: ast.Module, bound: dict[str, str], python_scopes: Scopes) -> dict[int, dict[str, str]]:
    """id(attribute node) -> the names it may read through: ``cpool = urllib3.connectionpool`` assigned once in a
    function (a plain name, nothing else binds it there: no parameter, ``global``, loop or second assignment) makes
    ``cpool.X`` in that function's own body a read of ``urllib3.connectionpool.X``."""
    out: dict[int, dict[str, str]] = {}
    if not bound:
        return out
    for fn in statements(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        nodes = list(own_nodes(fn))
        stores: dict[str, int] = {}
        for n in nodes:
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                stores[n.id] = stores.get(n.id, 0) + 1
            elif isinstance(n, (ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom)):
                for a in n.names:
                    stores[a if isinstance(a, str) else (a.asname or a.name.split(".")[0])] = 2
        a = fn.args
        params = {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if x is not None}
        aliases = {}
        for n in nodes:
            if (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                    and isinstance(n.value, ast.Attribute) and stores.get(n.targets[0].id) == 1
                    and n.targets[0].id not in params and not python_scopes.shadowed(n.value, (dotted(n.value) or "").partition(".")[0])):
                path = resolve(n.value, bound)
                if path is not None:
                    aliases[n.targets[0].id] = path
        if aliases:
            local = {**bound, **aliases}
            for n in nodes:
                if isinstance(n, ast.Attribute) and (dotted(n) or "").partition(".")[0] in aliases:
                    out[id(n)] = local
    return out


#: why an expression is never evaluated at run time
LOCAL_ANNOTATION = "the annotation of a local variable, which Python never evaluates (PEP 526)"
FUTURE_ANNOTATION = "an annotation under `from __future__ import annotations`, which Python never evaluates (PEP 563)"
TYPE_CHECKING_ONLY = "code under `if TYPE_CHECKING:`, which never runs"


def unevaluated_nodes(tree: ast.Module) -> dict[int, str]:
    """``id(node)`` -> why, for every expression node Python never evaluates when it runs the
    module: the annotation of a variable inside a function (PEP 526), every annotation of a
    module with ``from __future__ import annotations`` (PEP 563), and the body of ``if
    TYPE_CHECKING:``. Annotations at module or class level and those of parameters and
    returns are evaluated (without the future import); a quoted annotation is a string, so
    it holds no name to find."""
    future = any(isinstance(s, ast.ImportFrom) and s.module == "__future__" and any(a.name == "annotations" for a in s.names)
                 for s in tree.body)
    out: dict[int, str] = {}

    def mark(node: ast.AST | None, why: str) -> None:
        if node is not None:
            for n in ast.walk(node):
                out.setdefault(id(n), why)

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.AnnAssign) and (future or in_function):
                mark(child.annotation, FUTURE_ANNOTATION if future else LOCAL_ANNOTATION)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if future:
                    a = child.args
                    for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                        mark(p.annotation if p is not None else None, FUTURE_ANNOTATION)
                    mark(child.returns, FUTURE_ANNOTATION)
                visit(child, True)
                continue
            elif isinstance(child, ast.Lambda):
                visit(child, True)
                continue
            elif isinstance(child, ast.ClassDef):  # a class body runs when the class is made
                visit(child, False)
                continue
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for s in child.body:
                    mark(s, TYPE_CHECKING_ONLY)
            visit(child, in_function)

    visit(tree, False)
    return out


def _scopes(rel: str, tree: ast.Module, bound: dict[str, str], modules: list[str], project: _Project,
            hooks: dict[int, tuple[ast.FunctionDef | ast.AsyncFunctionDef, str, str, bool, bool]] | None = None,
            also: frozenset[int] | set[int] = frozenset()):
    """Each function's :class:`receivers.Scope`, and the scope owning each node (id -> Scope; a
    node at module level or in a class body has none). ``hooks``: the possible hook
    implementations (``_hooks``), whose parameters the hook's spec may type; ``also``: the lines
    of functions kept whatever they name (patches whose instance parameter is typed). A method of
    a project subclass of an upstream class types ``self.x`` (:class:`_SelfAttrs`)."""
    hooks = hooks or {}
    returns = _Returns(project, rel, modules)
    scopes, owner = [], {}
    lines = project.sources.text(rel).splitlines()
    methods = project.methods_of_subclasses(rel, tree)
    words = copies = None
    kept: list[tuple[int, int]] = []  # the line ranges of the functions kept: what they enclose is kept too
    for fn in sorted((n for n in statements(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))),
                     key=lambda n: n.lineno):
        end = fn.end_lineno or fn.lineno
        hook = hooks.get(id(fn))
        hook = None if hook is None else (modules[0], hook[1], hook[3])
        selfs = methods.get(id(fn))
        if selfs is None and not any(a <= fn.lineno <= b for a, b in kept) and fn.lineno not in also:
            words = words if words is not None else {*bound, "isinstance", *returns.upstream_typed()}
            if not hook_params(fn, hook) and not mentions("\n".join(lines[fn.lineno - 1: end]), words):
                continue  # names nothing that can give an upstream receiver, and no enclosing function does
        if selfs is not None or (not any(a <= fn.lineno <= b for a, b in kept) and fn.lineno not in also):
            kept.append((fn.lineno, end))
        sc = Scope(fn, bound, modules, returns, lines, selfs, hook)
        sc.copies = copies = copies if copies is not None else _copy_names(tree)
        scopes.append(sc)
        for n in sc.nodes:
            owner[id(n)] = sc
    for sc in scopes:  # a nested function reads the names it does not bind from the enclosing one
        parent = owner.get(id(sc.fn))
        if parent is not None:
            sc.link(parent)
    return scopes, owner


def _copy_names(tree: ast.Module) -> frozenset[str]:
    """How ``tree`` spells the standard library's ``copy.copy`` / ``copy.deepcopy`` (``import copy``,
    ``from copy import copy as c``)."""
    out = set()
    for node in imports(tree):
        if isinstance(node, ast.Import):
            out |= {f"{a.asname or 'copy'}.{f}" for a in node.names if a.name == "copy" for f in ("copy", "deepcopy")}
        elif node.module == "copy" and not node.level:
            out |= {a.asname or a.name for a in node.names if a.name in ("copy", "deepcopy")}
    return frozenset(out)


def _class_patch_seeds(rel: str, uses: list[Use]) -> list[tuple[int, str, Up, str, bool]]:
    """``self`` of each function of ``rel`` patched onto an upstream class: typed that class, for
    ``self.__class__.m(self, ...)`` / ``type(self).m(self, ...)`` only (its other uses are the
    patch's MEMBER uses)."""
    out = []
    for u in uses:
        if u.kind == PATCH and u.function_file == rel and u.params and u.params[0][1] in PARAM_KINDS[:2]:
            out.append((u.function_line, u.params[0][0], Up(u.target),
                        f"`{u.params[0][0]}` receives the `{u.target}` the patch is installed on", True))
    return out


def _seeded(rel, tree, bound, modules, project, scopes, owner, seeds, hooks=None):
    """The scopes with each seed applied (``(function line, parameter, type, how, classes only)``);
    a seeded function the first pass left out (it names nothing of the package) is added.
    ``hooks``: the possible hook implementations, as the first pass had them."""
    have = {sc.fn.lineno for sc in scopes}
    if any(line not in have for line, *_r in seeds):
        scopes, owner = _scopes(rel, tree, bound, modules, project, hooks, also={line for line, *_r in seeds})
    by_line = {sc.fn.lineno: sc for sc in scopes}
    for line, param, t, how, classes_only in seeds:
        sc = by_line.get(line)
        if sc is not None:
            sc.seed(param, t, how, classes_only)
    return scopes, owner


def _callers_typed(rel, tree, bound, modules, project, scopes, owner, seeds, impls):
    """The scopes with the parameters their callers type (``callsites.py``): the functions holding a
    call site of a callee are added to the scopes (what they pass is read there)."""
    mod = module_name(rel)

    def outside(cls: ast.ClassDef) -> bool:
        known = project.classes.get(f"{mod}.{cls.name}")
        if not cls.bases and not cls.keywords:
            return False
        return known is None or len(known.bases) != len(cls.bases) or any(b not in project.classes for b in known.bases)

    items = callsites.callees(tree, outside, lambda n: project.elsewhere(n, rel), set())
    if not items:
        return scopes, owner
    need = {c.fn.lineno for c in items}
    spans = [(fn.lineno, fn.end_lineno or fn.lineno) for fn in statements(tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for c in items:
        for call in c.sites:
            need |= {a for a, b in spans if a <= call.lineno <= b}
    have = {sc.fn.lineno for sc in scopes}
    if need - have:
        scopes, owner = _scopes(rel, tree, bound, modules, project, impls, also=need | {line for line, *_r in seeds} | have)
        by_line = {sc.fn.lineno: sc for sc in scopes}
        for line, param, t, how, classes_only in seeds:
            if line in by_line:
                by_line[line].seed(param, t, how, classes_only)
    callsites.CallerTypes(items, project.inferred, lambda n: f"{mod}.{n}").run(scopes, owner)
    return scopes, owner


def _result_holds(c: Call, mc: Call, owner: dict) -> bool:
    """A method called on ``x`` after ``x = api(...)`` (``c``) is called on what ``api`` returned:
    in the function that assigns ``x`` (the name not assigned anything else there), or anywhere
    that does not assign ``x`` itself after a module-level assignment. An attribute target
    (``self.x = api()``) is not a local name: kept as it was."""
    name = c.assigned_to
    if not name or "." in name or c.node is None or mc.node is None:
        return True
    where, assigned = owner.get(id(mc.node)), owner.get(id(c.node))
    if assigned is None:
        return where is None or name not in where.defs
    return where is assigned and where.name(name) == Up(c.api, ("call",))


def _receivers(rel: str, text: str, scopes, covered: set[int]) -> list[Use]:
    """Members read or called on receivers typed from upstream in each function (``receivers.py``):
    an annotated parameter, an upstream call's result, an element iterated, ``with … as``,
    ``isinstance`` narrowing. ``covered``: ids of the calls a RESULT use binds already."""
    out: list[Use] = []
    lines = None
    for sc in scopes:
        found = receivers(sc)
        if not found:
            continue
        lines = lines if lines is not None else text.splitlines()
        where = {id(node): (stmt, w) for stmt, node, w in statement_calls(sc.fn)}
        for r in found:
            if r.call is not None and id(r.call) in covered:
                continue
            v = r.node.value
            attr = ""
            selfs = sc.enclosing_selfs()
            if selfs is not None:
                if (isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and sc._self_scope(v.value.id) is not None
                        and selfs.typed_use(v.attr)):
                    continue  # ``self.x.m()`` / ``self.x.y`` on an attribute the project never writes: a TYPED use
                head = [x for x in r.type.steps[:2] if x != REBOUND][:1]
                if r.type.start == selfs.base and head and head[0].startswith("a:"):
                    attr = head[0][2:]  # ``self.x…``: not a use when upstream has no ``x`` (the project's own)
            c = None
            if r.call is not None and id(r.call) in where:
                stmt, w = where[id(r.call)]
                c = make_call(r.node.attr, w, r.call, stmt, lines)
            out.append(Use(rel, c.line if c is not None else r.node.lineno, ANNOTATED, r.type.start, r.node.attr,
                           call=c, via=r.why, steps=r.type.steps, attr=attr, through_class=r.unbound, arms=r.arms,
                           guarded=r.guarded))
    return out


_IMPL_MARKER = "HookimplMarker"


def _hooks(tree: ast.Module, imports_package: bool, imported: Callable[[ast.expr], bool] | None = None,
           names: Collection[str] | None = None) -> dict[int, tuple]:
    """id(def) -> ``(def, hook name, shown, method, optional)`` of each function of ``tree`` that may
    implement one of upstream's hooks: a module-level function or a method of a module-level class,
    in a file that imports the package (``imports_package``) or decorated with a name the file binds
    to ``HookimplMarker(...)``, or to a marker imported from another project module (``imported(expr)``:
    ``from .plugin import hookimpl``, ``@plugin.hookimpl``). Which of them do is upstream's to say
    (``bind.py``: a spec of that name); ``names``, when given, says it already (the others are left out)."""
    markers = set()
    for stmt in module_level(tree.body):
        value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
        if isinstance(value, ast.Call) and (dotted(value.func) or "").rsplit(".", 1)[-1].endswith(_IMPL_MARKER):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            markers |= {t.id for t in targets if isinstance(t, ast.Name)}
    if not imports_package and not markers and imported is None:
        return {}
    out: dict[int, tuple] = {}

    def add(fn, cls: str | None) -> None:
        marked = [d for d in fn.decorator_list if dotted(d.func if isinstance(d, ast.Call) else d) in markers
                  or (imported is not None and imported(d.func if isinstance(d, ast.Call) else d))]
        if not imports_package and not marked:
            return
        name, optional = fn.name, False
        for d in fn.decorator_list:  # ``@hookimpl(specname="…", optionalhook=True)``: pluggy's own keywords
            if isinstance(d, ast.Call):
                for k in d.keywords:
                    if k.arg == "specname" and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str):
                        name = k.value.value
                    elif k.arg == "optionalhook" and isinstance(k.value, ast.Constant) and k.value.value is True:
                        optional = True
        if names is not None and name not in names:
            return
        decorators = {decorator_name(d) for d in fn.decorator_list}
        method = cls is not None and "staticmethod" not in decorators
        if decorators & NOT_METHODS:
            return
        out[id(fn)] = (fn, name, f"{cls}.{fn.name}" if cls else fn.name, method, optional)

    for stmt in module_level(tree.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            add(stmt, None)
        elif isinstance(stmt, ast.ClassDef):
            for fn in stmt.body:
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and not fn.name.startswith("__"):
                    add(fn, stmt.name)
    return out


def _hook_uses(rel: str, hooks: dict[int, tuple], modules: list[str]) -> list[Use]:
    """A HOOK use per possible hook implementation (``_hooks``)."""
    out = []
    for fn, name, shown, method, optional in hooks.values():
        params = _params(fn)
        if method:
            if not params or params[0][1] not in PARAM_KINDS[:2]:
                continue  # no ``self``: not a method we can read
            params = params[1:]
        with_default = _with_default(fn)
        out.append(Use(rel, fn.lineno, HOOK, modules[0], name, via=f"hook implementation `{shown}`", params=params,
                       function_line=fn.lineno, function_file=rel, optional=optional,
                       defaults=tuple(n for n, _k in params if n in with_default)))
    return out


class _SelfAttrs:
    """The type of ``self.x`` in the methods of project class ``name`` (a subclass of upstream class
    ``base``), as mypy reads it: an attribute the project classes of the chain never assign is
    upstream's (``Up(base, ("a:x",))``: the model reads the declaration); one they assign only
    without annotation and with values of no known type (``[]``, ``None`` alone, a parameter) keeps
    upstream's declared type too; one they assign only upstream objects of one type is that type; a
    method of theirs, an annotated assignment, a project object, or values of more than one kind:
    not typed (``rebound`` when an upstream type is among them: counted unknown)."""

    def __init__(self, project: _Project, name: str, base: str, chain: list[str]) -> None:
        self.p, self.name, self.base, self.chain = project, name, base, chain
        self.memo: dict[str, object] = {}
        self.busy: set[str] = set()
        self._writes: dict[str, list] | None = None
        self._methods: set[str] = set()
        self._scopes: dict[int, Scope] = {}  # id(method) -> its scope, for the values it assigns

    def _collect(self) -> dict[str, list]:
        if self._writes is not None:
            return self._writes
        writes: dict[str, list] = {}
        for cname in self.chain:
            cls = self.p.classes[cname]
            node = self.p.node(cls)
            tree = self.p.sources.tree(cls.file)
            bound = bindings(tree, self.p.modules)
            for s in node.body:
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self._methods.add(s.name)
                    args = s.args.posonlyargs + s.args.args
                    if not args or "staticmethod" in {decorator_name(d) for d in s.decorator_list}:
                        continue
                    me = args[0].arg  # ``self``, or a class method's ``cls`` (``cls.x = …`` sets the class's)
                    for n in walk(s):
                        if isinstance(n, ast.Assign):
                            for t in n.targets:
                                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me:
                                    writes.setdefault(t.attr, []).append((cls.file, bound, s, n.value))
                                else:
                                    for x in walk(t):
                                        if (isinstance(x, ast.Attribute) and isinstance(x.ctx, ast.Store)
                                                and isinstance(x.value, ast.Name) and x.value.id == me):
                                            writes.setdefault(x.attr, []).append(None)  # unpacked into: not known
                        elif (isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Attribute)
                              and isinstance(n.target.value, ast.Name) and n.target.value.id == me):
                            writes.setdefault(n.target.attr, []).append("plain")  # ``self.n += 1``: its type kept
                        elif (isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Attribute)
                              and isinstance(n.target.value, ast.Name) and n.target.value.id == me):
                            writes.setdefault(n.target.attr, []).append(("declared", bound, n.annotation))
                        elif isinstance(n, (ast.AnnAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith,
                                            ast.NamedExpr, ast.comprehension)):
                            for x in walk(n.target if not isinstance(n, (ast.With, ast.AsyncWith)) else n):
                                if (isinstance(x, ast.Attribute) and isinstance(x.ctx, ast.Store)
                                        and isinstance(x.value, ast.Name) and x.value.id == me):
                                    writes.setdefault(x.attr, []).append(None)
                elif isinstance(s, ast.ClassDef):
                    self._methods.add(s.name)
                elif isinstance(s, ast.Assign):
                    for t in s.targets:
                        for x in walk(t):
                            if isinstance(x, ast.Name):
                                plain = isinstance(s.value, (ast.Constant, ast.List, ast.Dict, ast.Tuple, ast.Set))
                                writes.setdefault(x.id, []).append("plain" if plain else None)
                elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
                    writes.setdefault(s.target.id, []).append(("declared", bound, s.annotation))
        self._writes = writes
        return writes

    def typed_use(self, attr: str) -> bool:
        """``self.<attr>.m()`` / ``self.<attr>.y`` is a TYPED use already (the project classes neither
        define nor assign ``attr``)."""
        writes = self._collect()
        return attr not in writes and attr not in self._methods

    def __call__(self, attr: str):
        if attr in self.memo:
            return self.memo[attr]
        writes = self._collect()
        if attr in self._methods or attr in self.busy:
            return None
        declared = [w for w in writes.get(attr, []) if isinstance(w, tuple) and w[0] == "declared"]
        if declared:  # the project declares ``x: T``: its declaration wins (over upstream's and over the values)
            types = [annotation_type(_unwrap_classvar(ann), bound, self.p.modules) for _d, bound, ann in declared]
            found = types[0] if all(t == types[0] for t in types) else None
            self.memo[attr] = found
            return found
        self.busy.add(attr)
        kinds = []
        for w in writes.get(attr, []):
            if w is None:
                kinds.append("other")
            elif w == "plain":
                kinds.append("plain")
            else:
                kinds.append(self._value(*w))
        self.busy.discard(attr)
        typed = [k for k in kinds if isinstance(k, Up)]
        if not kinds or all(k == "plain" for k in kinds):
            found = Up(self.base, (f"a:{attr}",))
        elif typed and len(typed) == len(kinds) and all(k == typed[0] for k in typed):
            found = typed[0]
        elif typed:
            found = rebound(typed)
        else:
            found = None
        self.memo[attr] = found
        return found

    def _value(self, rel: str, bound: dict[str, str], fn, value: ast.expr):
        """What one ``self.x = value`` gives: an upstream type, ``plain`` (no known type), or ``other``."""
        if isinstance(value, ast.Constant) or isinstance(value, (ast.List, ast.Dict, ast.Set, ast.Tuple)) and not (
                getattr(value, "elts", None) or getattr(value, "keys", None)):
            return "plain"  # ``[]``, ``{}``, ``None``, a number: what upstream declares it holds
        sc = self._scopes.get(id(fn))
        if sc is None:
            sc = self._scopes[id(fn)] = Scope(fn, bound, self.p.modules, _Returns(self.p, rel, self.p.modules),
                                              self.p.sources.text(rel).splitlines(), self)
        t = sc.expr(value)
        if isinstance(t, Up):
            return t
        if t is not None:
            return "other"  # a project generic
        if isinstance(value, ast.Name) and any(how == "annotation" or how == "param" and what.annotation is not None
                                               for how, what in sc.defs.get(value.id, [])):
            return "other"  # annotated by the project with a class of its own (or a builtin): its members
        func = value.func if isinstance(value, ast.Call) else None
        if func is not None and isinstance(func, (ast.Name, ast.Attribute)):
            q = resolve(func, self.p.names(rel))
            if q is not None and q in self.p.classes:
                return "other"  # a project object (a duck type of upstream's): its own members
        if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.Tuple, ast.ListComp, ast.DictComp, ast.SetComp,
                              ast.Lambda, ast.JoinedStr, ast.BinOp)):
            return "other"
        return "plain"


def _unwrap_classvar(ann: ast.expr) -> ast.expr:
    """``T`` of ``ClassVar[T]`` / ``Final[T]``; else ``ann``."""
    if isinstance(ann, ast.Subscript) and (dotted(ann.value) or "").rsplit(".", 1)[-1] in ("ClassVar", "Final"):
        return ann.slice
    return ann


class _Returns:
    """What a call of a project function gives, by its annotated return (``def make() -> pkg.Cls``,
    ``-> list[pkg.Cls]``), read with the bindings of the file that defines it."""

    def __init__(self, project: _Project, rel: str, modules: list[str]) -> None:
        self.p, self.rel, self.modules = project, rel, modules
        self.names: dict[str, str] | None = None

    def upstream_typed(self) -> set[str]:
        """The names this file binds to a project function whose return is annotated with an upstream
        class (or a generic of one): the only project calls that give a receiver."""
        self._names()
        return {n for n in self.names if self(ast.Name(n)) is not None}

    def _names(self) -> None:
        if self.names is None:
            tree = self.p.sources.tree(self.rel)
            names = dict(self.p.names(self.rel))
            mod = module_name(self.rel)
            for n in tree.body:
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.setdefault(n.name, f"{mod}.{n.name}")
            self.names = names
            self.memo: dict[str, object] = {}

    def __call__(self, func: ast.expr):
        self._names()
        q = resolve(func, self.names)
        if q is None:
            return None
        if q in self.p.inferred:  # an unannotated function typed by its returns (``callsites.py``)
            return self.p.inferred[q]
        if q not in self.memo:
            self.memo[q] = self._returns(q)
        return self.memo[q]

    def _returns(self, q: str):
        if _inside(q, self.modules) or q.rpartition(".")[0] not in self.p.files:
            return None
        found = self.p.function(self.rel, q)
        if found is None:
            return None
        frel, fn = found
        returns = fn.returns
        if returns is None:  # ``# type: (...) -> pkg.T``
            returns = type_comments(fn, self.p.sources.text(frel).splitlines())[1]
        if returns is None:
            return None
        return annotation_type(returns, bindings(self.p.sources.tree(frel), self.modules), self.modules)


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


def _fallback_import_lines(tree: ast.Module, modules: list[str]) -> tuple[set[int], dict[int, tuple[str, ...]]]:
    """Lines of imports inside ``try/except ImportError`` (either branch), and, of those in an ``except``
    block that no ``try`` block catching ``ImportError`` holds (the last resort: its own ``ImportError``
    propagates), the package's names the ``try`` block imports first (the block runs when those fail)."""
    out: set[int] = set()
    tried: set[int] = set()
    handled: dict[int, tuple[str, ...]] = {}
    for node in statements(tree):
        if isinstance(node, ast.Try) and catches_import_error(node):
            first = [n for s in node.body for n in imports(s)]
            out.update(n.lineno for n in first)
            tried.update(n.lineno for n in first)
            names = tuple(dict.fromkeys(p for n in first for p in _import_paths(n) if _inside(p, modules)))
            for h in node.handlers:
                for s in h.body:
                    for n in imports(s):
                        out.add(n.lineno)
                        handled.setdefault(n.lineno, names)
    return out, {line: names for line, names in handled.items() if line not in tried}


# -- patches -------------------------------------------------------------------------------


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[tuple[str, str], ...]:
    a = fn.args
    out = [(p.arg, PARAM_KINDS[0]) for p in a.posonlyargs] + [(p.arg, PARAM_KINDS[1]) for p in a.args]
    if a.vararg:
        out.append((a.vararg.arg, PARAM_KINDS[2]))
    out += [(p.arg, PARAM_KINDS[3]) for p in a.kwonlyargs]
    if a.kwarg:
        out.append((a.kwarg.arg, PARAM_KINDS[4]))
    return tuple(out)


def _self_uses(rel: str, text: str, fn, target: str, via: str, own: set[str], parents_own: set[str]) -> list[Use]:
    """``self.x`` reads and writes, ``self.m(...)`` and ``super().m(...)`` in one method body.
    ``own``: names the project classes define (skipped); ``parents_own``: what ``super()`` reaches
    in a project parent first (skipped)."""
    args = fn.args.posonlyargs + fn.args.args
    if not args or any(decorator_name(d) == "staticmethod" for d in fn.decorator_list):
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
        if (isinstance(f.value, ast.Attribute) and isinstance(f.value.value, ast.Name) and f.value.value.id == me
                and f.value.attr == "__class__"):
            continue  # ``self.__class__.m(self, ...)``: a call through the class (``receivers.py`` binds it)
        if (isinstance(f.value, ast.Attribute) and isinstance(f.value.value, ast.Name) and f.value.value.id == me
                and f.value.attr not in own and f.value.attr not in written):
            c = make_call(f.attr, where, node, stmt, lines)
            out.append(Use(rel, c.line, TYPED, target, f.attr, call=c, via=f"{via}, through `{me}.{f.value.attr}`",
                           attr=f.value.attr))
            called.add(id(f))
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
        inner = node.value if isinstance(node, ast.Attribute) else None
        if (isinstance(inner, ast.Attribute) and id(node) not in called and isinstance(node.ctx, ast.Load)
                and isinstance(inner.value, ast.Name) and inner.value.id == me and inner.attr not in own
                and inner.attr != "__class__"
                and inner.attr not in written):  # ``self.x.y`` read: an attribute of the class upstream declares x as
            out.append(Use(rel, node.lineno, TYPED, target, node.attr, via=f"{via}, through `{me}.{inner.attr}`", attr=inner.attr))
        if (isinstance(node, ast.Attribute) and id(node) not in called and isinstance(node.value, ast.Name)
                and node.value.id == me and node.attr not in own and node.attr != "__class__"):
            write = isinstance(node.ctx, ast.Store)
            if not write and node.attr in written:
                continue
            out.append(Use(rel, node.lineno, MEMBER, target, node.attr, via=via, write=write))
    return out


# -- subclasses --------------------------------------------------------------------------------


@dataclass
class _Class:
    name: str  # qualified: app.models.MyModel
    file: str
    at: int  # its statement's index in the file's body (the node is parsed again when needed)
    bases: list[str]  # qualified names of the bases (project or upstream)
    #: a class defined in a function or class body: the (field, index) steps from the module to it
    path: tuple[tuple[str, int], ...] = ()


def nested_classes(tree: ast.Module) -> list[tuple[tuple[tuple[str, int], ...], str, ast.ClassDef, dict[str, str]]]:
    """``(path, qualname, node, siblings)`` of each class defined inside a module-level function or class
    (at any depth, through ``if`` / ``with`` / ``try`` blocks): ``path`` the (field, index) steps from the module
    to it, ``qualname`` as Python's ``__qualname__`` (``test_x.<locals>.MySchema``, ``TestUsers.UserSchema``),
    ``siblings`` the classes defined earlier in the same function or class body (local name -> qualname)."""
    out = []

    def visit(node: ast.AST, path: tuple, qual: str, local: dict[str, str]) -> None:
        for fld in BLOCKS:
            for i, x in enumerate(getattr(node, fld, None) or ()):
                step = (*path, (fld, i))
                if isinstance(x, ast.ClassDef):
                    if path:  # not a module-level class
                        out.append((step, qual + x.name, x, dict(local)))
                        local[x.name] = qual + x.name
                    visit(x, step, f"{qual}{x.name}.", {})
                elif isinstance(x, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    visit(x, step, f"{qual}{x.name}.<locals>.", {})
                elif isinstance(x, ast.AST):
                    visit(x, step, qual, local)

    visit(tree, (), "", {})
    return out


_BUILTIN_NAMES = frozenset(dir(builtins))


def _upstream_star_names(tree: ast.Module, modules: list[str], bound: set[str]) -> dict[str, str]:
    """``from pkg.mod import *`` (of an upstream module) at module level: each bare public name the file reads
    and binds in no other way (nor a builtin, nor a name bound in any scope of the file) may come from it:
    name -> ``pkg.mod.name`` (the last such import wins, as at run time). Only guesses: the binding stage keeps
    those the old version's ``pkg.mod`` has."""
    stars = [n.module for n in module_level(tree.body) if isinstance(n, ast.ImportFrom) and not n.level and n.module
             and _inside(n.module, modules) and any(a.name == "*" for a in n.names)]
    if not stars:
        return {}
    stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stored.add(n.name)
        elif isinstance(n, ast.arg):
            stored.add(n.arg)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            stored |= {(a.asname or a.name).split(".")[0] for a in n.names if a.name != "*"}
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    free = {n for n in read - stored - bound - _BUILTIN_NAMES if not n.startswith("_")}
    return {n: f"{stars[-1]}.{n}" for n in sorted(free)}


def _own_names(tree: ast.Module) -> set[str]:
    """The names a module binds itself at module level (imports, definitions, assignments): a ``*``
    import does not decide what they are."""
    out: set[str] = set()
    for node in module_level(tree.body):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                out |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
    return out


def _literal_all(tree: ast.Module) -> set[str] | None:
    """A module's ``__all__`` when it is one literal list / tuple of strings, else None (then its public names)."""
    for node in tree.body:
        if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
                and isinstance(node.value, (ast.List, ast.Tuple))
                and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.value.elts)):
            return {e.value for e in node.value.elts}
    return None


class _Project:
    """Project classes and the names each file binds, to follow subclasses across files."""

    def __init__(self, sources: Sources, modules: list[str]) -> None:
        self.sources = sources
        self.modules = modules
        self.flags = Flags(self)  # the project's version flags, read when a patch's returns ask
        self._markers: dict[str, set[str]] | None = None  # module -> its names bound to ``HookimplMarker(...)``
        #: file -> seeds for its functions that another file installs on a typed instance (``instance_patches``)
        self.foreign_seeds: dict[str, list] = {}
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
            for path, qual, node, siblings in nested_classes(tree):
                bases = [f"{mod}.{siblings[b.id]}" if isinstance(b, ast.Name) and b.id in siblings else resolve(b, names)
                         for b in node.bases]
                self.classes[f"{mod}.{qual}"] = _Class(f"{mod}.{qual}", rel, path[0][1], [q for q in bases if q], path)
        self._upstream: dict[str, tuple[str, list[str]] | None] = {}
        self._stars: dict[str, dict[str, str]] = {}
        #: project class -> (method, line, file) called on its instances elsewhere (``_callers``)
        self._instance_calls: dict[str, list[tuple[str, int, str]]] = {}
        #: unannotated project functions whose every ``return`` gives one upstream type (``callsites.py``)
        self.inferred: dict[str, object] = {}
        self._named: dict[str, frozenset[str]] = {}

    def elsewhere(self, name: str, rel: str) -> bool:
        """A project file other than ``rel`` names ``name`` (as a word)."""
        if name not in self._named:
            pat = re.compile(rf"\b{re.escape(name)}\b")
            self._named[name] = frozenset(r for r in self.sources.paths
                                          if name in (t := self.sources.text(r)) and pat.search(t))
        return bool(self._named[name] - {rel})

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

    def star_bindings(self, rel: str, _seen: frozenset = frozenset()) -> dict[str, str]:
        """The upstream names (of ``modules``) that ``rel``'s module-level ``from M import *`` of a project
        module M binds: what M binds at module level by import (and by its own ``*`` imports), filtered by
        M's ``__all__`` when it spells one, else its public names. An import in ``rel`` itself wins."""
        if rel in self._stars:
            return self._stars[rel]
        out: dict[str, str] = {}
        tree = self.sources.tree(rel) if rel not in _seen else None
        pkg = module_name(rel) if rel.endswith("__init__.py") else module_name(rel).rpartition(".")[0]
        for node in module_level(tree.body) if tree is not None else ():
            if not (isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)):
                continue
            base = star_base(node, pkg)
            target = self.files.get(base)
            if not target or _inside(base, self.modules):
                continue  # not a project module (an upstream * import is not followed here)
            trel = target[-1]
            ttree = self.sources.tree(trel)
            if ttree is None:
                continue
            top = ast.Module(body=[n for n in module_level(ttree.body) if isinstance(n, (ast.Import, ast.ImportFrom))], type_ignores=[])
            names = {**self.star_bindings(trel, _seen | {rel}), **bindings(top, self.modules)}
            exported = _literal_all(ttree)
            out.update({k: v for k, v in names.items() if (k in exported if exported is not None else not k.startswith("_"))})
        if not _seen:
            self._stars[rel] = out
        return out

    def names(self, rel: str) -> dict[str, str]:
        if rel not in self._names:
            self._bind(rel, self.sources.tree(rel))
        return self._names[rel]

    def node(self, cls: _Class) -> ast.ClassDef:
        if not cls.path:
            return self.sources.tree(cls.file).body[cls.at]
        node = self.sources.tree(cls.file)
        for fld, i in cls.path:
            node = getattr(node, fld)[i]
        return node

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

    def self_attrs(self, name: str) -> _SelfAttrs | None:
        """How ``self.x`` is typed in the methods of project class ``name`` (None: no upstream base)."""
        memo = self.__dict__.setdefault("_self_attrs", {})
        if name not in memo:
            up = self.upstream_base(name)
            memo[name] = _SelfAttrs(self, name, up[0], up[1]) if up is not None else None
        return memo[name]

    def methods_of_subclasses(self, rel: str, tree: ast.Module) -> dict[int, _SelfAttrs]:
        """id(def) -> its class's :class:`_SelfAttrs`, for each method (not static) of each project
        subclass of an upstream class that ``rel`` defines at module level: ``self.x`` in a method,
        ``cls.x`` in a class method, typed the same way."""
        mod = module_name(rel)
        out: dict[int, _SelfAttrs] = {}
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            selfs = self.self_attrs(f"{mod}.{node.name}") if f"{mod}.{node.name}" in self.classes else None
            if selfs is None:
                continue
            for f in node.body:
                if (isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and (f.args.posonlyargs + f.args.args)
                        and "staticmethod" not in {decorator_name(d) for d in f.decorator_list}):
                    out[id(f)] = selfs
        return out

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
                    out |= set(stored_on(fn, (fn.args.posonlyargs + fn.args.args)[0].arg, nested=True, setattrs=False))
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

    def _argument(self, rel: str, call: ast.Call, index: int | None, keyword: str | None) -> str | None:
        """``"f(param): annotation"``: the parameter of the project function ``call`` calls (by name,
        defined in ``rel`` or imported there) that its argument ``index`` (or ``keyword``) meets, and
        that parameter's annotation, its names qualified by ``rel``'s imports; None when not known."""
        if not isinstance(call.func, ast.Name):
            return None
        name = call.func.id
        found = self._named_function(rel, self.sources.tree(rel), call.func, self.names(rel))
        if found is None:
            return None
        frel, fn = found
        a = fn.args
        if keyword is not None:
            param = next((p for p in a.args + a.kwonlyargs if p.arg == keyword), None)
        else:
            positional = a.posonlyargs + a.args
            param = positional[index] if index is not None and index < len(positional) else None
        if param is None or param.annotation is None:
            return None
        text = qualified_annotation(param.annotation, self.names(frel))
        return None if text is None else f"{name}({param.arg}): {text}"

    def patches(self, rel: str) -> list[Use]:
        """Functions assigned onto upstream classes in ``rel``: each a PATCH use, and the
        ``self`` uses of its body (in the function's own file) as MEMBER uses of the class."""
        tree = self.sources.tree(rel)
        out = []
        for cls, name, fpath, stmt in assignments_onto(tree, self.names(rel)):
            if not _inside(cls, self.modules):
                continue
            factory = fpath.endswith("()")
            found = self.function(rel, fpath.removesuffix("()"))
            if found is None:
                continue
            frel, fn = found
            originals: set[str] = set()  # names the original method is reached by in the patch's body
            if factory:
                fn, originals = factory_product(fn, stmt, name, tree, cls, self.names(rel))
                if fn is None:
                    continue
            else:
                originals = original_names(self.sources.tree(frel), frel == rel and scope_of(tree, stmt), stmt, name, cls,
                                            self.names(frel))
            guard, guarded = patch_guard(tree, stmt, name)
            gl = guard.lineno if guard is not None else None
            short = cls.rsplit(".", 1)[-1]
            params = _params(fn)
            with_default = _with_default(fn)
            out.append(Use(rel, stmt.lineno, PATCH, cls, name, via=f"patch `{fn.name}`", params=params,
                           function_line=fn.lineno, guarded=guarded, guard_line=gl,
                           function_file=frel, defaults=tuple(n for n, _k in params if n in with_default)))
            returned = returned_use(frel, fn, cls, name, f"patch `{fn.name}` of `{short}.{name}`", self.flags)
            if returned is not None:
                out.append(returned)
            for line, results in wrapped_results(fn, originals, lambda c, i, k, frel=frel: self._argument(frel, c, i, k)):
                out.append(Use(frel, line, WRAPPED, cls, name, via=f"wrapper `{fn.name}`", function_line=fn.lineno,
                               function_file=frel, results=results))
            for u in _self_uses(frel, self.sources.text(frel), fn, cls, f"patch `{fn.name}` of `{short}.{name}`", set(), set()):
                out.append(Use(u.file, u.line, u.kind, u.target, u.member, u.call, u.via, patch=True, write=u.write,
                               guard_line=gl if frel == rel else None))
        return out

    def helper_patches(self, rel: str) -> list[Use]:
        """The names test helpers patch or delete in ``rel`` (``testpatches.py``) that are upstream's: an
        ATTRIBUTE use each (unless a missing one is fine), and a PATCH use for a replacement the project
        defines (a function, ``functools.partial`` of one, a ``lambda``)."""
        tree = self.sources.tree(rel)
        names = self.names(rel)
        out: list[Use] = []
        for hp in helper_patches(tree, names):
            path = f"{hp.owner}.{hp.name}"
            if not _inside(path, self.modules):
                continue
            if not hp.lenient:
                out.append(Use(rel, hp.line, ATTRIBUTE, path, via=f"`{hp.helper}` looks it up when the patch starts",
                               helper=hp.helper))
            got = self._replacement(rel, tree, hp.scope, hp.value, names) if hp.value is not None else None
            if got is None:
                continue
            frel, fn, shown, args, keywords = got
            params, defaults = _params(fn), _with_default(fn)
            partial = "partial" in shown
            if partial:
                filled = partial_params(params, defaults, len(args), keywords)
                if filled is None:
                    continue
                params, defaults = filled
            out.append(Use(rel, hp.line, PATCH, hp.owner, hp.name, via=f"patch `{shown}` through `{hp.helper}`", params=params,
                           function_line=getattr(fn, "lineno", hp.line), function_file=frel, on_instance=partial,
                           defaults=tuple(n for n, _k in params if n in defaults), helper=hp.helper))
        return out

    def _replacement(self, rel: str, tree: ast.Module, scope, value: ast.expr, names: dict[str, str]):
        """What a helper puts in the patched name's place: ``(file, function node, shown, partial's
        positional arguments, partial's keywords)``, or None (a mock, a constant, a value not followed).
        A name the scope assigns once is its value."""
        if isinstance(value, ast.Name) and scope is not tree:
            once = assigned_once(scope, value.id)
            value = once if once is not None else value
        if isinstance(value, ast.Lambda):
            return rel, value, "lambda", [], set()
        parts = unpartial(value, names)
        if parts is None:
            return None
        func, args, keywords = parts
        nested = [n for n in ast.iter_child_nodes(scope) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                  and n.name == func.id] if scope is not tree else []
        found = (rel, nested[-1]) if nested else self._named_function(rel, tree, func, names)
        if found is None:
            return None
        shown = func.id if func is value else f"partial({func.id}, …)"
        return found[0], found[1], shown, args, keywords

    def _named_function(self, rel: str, tree: ast.Module, func: ast.Name, names: dict[str, str]):
        """``(file, def)`` of the project function ``func`` names: the file's own, or one it imports."""
        if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == func.id for n in tree.body):
            return self.function(rel, f"<local>.{func.id}")
        q = resolve(func, names)
        return self.function(rel, q) if q is not None and not _inside(q, self.modules) else None

    def instance_patches(self, rel: str, tree: ast.Module, scopes) -> tuple[list[Use], list]:
        """Functions installed on an instance of an upstream class in ``rel``'s functions
        (``obj.m = f`` / ``functools.partial(f, obj, ...)`` / ``lambda``, ``obj`` a receiver typed
        from upstream): a PATCH use each (``on_instance``) and a RETURNED one, and the seeds that
        type the parameter ``partial`` binds ``obj`` to: ``(function line, parameter, type, how,
        False)`` for the functions of ``rel``."""
        names = self.names(rel)
        out: list[Use] = []
        seeds: list = []
        for sc in [*scopes, *self._module_scope(rel, tree)]:
            for stmt in sc.nodes:
                if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Attribute)):
                    continue
                obj, member = stmt.targets[0].value, stmt.targets[0].attr
                if isinstance(obj, (ast.Name, ast.Attribute)) and resolve(obj, sc.bound) is not None:
                    continue  # ``pkg.Cls.m = f``: a class patch (``assignments_onto``)
                t = sc.expr(obj)
                if not isinstance(t, Up) or is_rebound(t):
                    continue
                got = self._installed(rel, tree, sc, stmt.value, names)
                if got is None:
                    continue
                frel, fn, shown, args, keywords = got
                params = _params(fn)
                defaults = _with_default(fn)
                filled = partial_params(params, defaults, len(args), keywords)
                if filled is None:
                    continue  # ``partial`` itself fails (more arguments than parameters): not followed
                params, defaults = filled
                where = describe(t) if t.steps else f"a `{t.start}`"
                via = f"patch `{shown}` installed on `{ast.unparse(obj)}` ({where})"
                guard, guarded = patch_guard(tree, stmt, member)
                line = getattr(fn, "lineno", stmt.lineno)
                out.append(Use(rel, stmt.lineno, PATCH, t.start, member, via=via, params=params, function_line=line,
                               function_file=frel, guarded=guarded, guard_line=guard.lineno if guard is not None else None,
                               defaults=tuple(n for n, _k in params if n in defaults), steps=t.steps, on_instance=True))
                returned = returned_use(frel, fn, t.start, member, via, self.flags)
                if returned is not None:
                    out.append(replace(returned, steps=t.steps, on_instance=True))
                first = (fn.args.posonlyargs + fn.args.args)[:1]
                if (args and first and isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
                        and (ast.dump(args[0]) == ast.dump(obj) or sc.expr(args[0]) == t)):
                    at = f"line {stmt.lineno}" if frel == rel else f"{rel}:{stmt.lineno}"
                    seed = (fn.lineno, first[0].arg, t, f"`{first[0].arg}` is what `partial` binds it to at {at}: {where}", False)
                    if frel == rel:
                        seeds.append(seed)
                    else:  # a function imported from another project file: typed there (``_foreign_seeded``)
                        self.foreign_seeds.setdefault(frel, []).append(seed)
        return out, seeds

    def _module_scope(self, rel: str, tree: ast.Module) -> list[Scope]:
        """The module's own statements as one scope (its names typed as a function's are: ``SESSION =
        pkg.Session()``), for instance patches at module level; its imports are the file's bindings,
        not names of the scope. Empty when the module has no statement."""
        if not tree.body:
            return []
        body = [s for s in tree.body]
        fn = ast.FunctionDef(name="<module>", args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                                                 kw_defaults=[], kwarg=None, defaults=[]),
                             body=body, decorator_list=[], returns=None, type_comment=None, type_params=[],
                             lineno=body[0].lineno, col_offset=0, end_lineno=body[-1].end_lineno, end_col_offset=0)
        sc = Scope(fn, bindings(tree, self.modules), self.modules, _Returns(self, rel, self.modules), None)
        for name in [n for n, defs in sc.defs.items() if all(isinstance(w, (ast.Import, ast.ImportFrom)) for _h, w in defs)]:
            del sc.defs[name]
        return [sc]

    def _installed(self, rel: str, tree: ast.Module, sc, value: ast.expr, names: dict[str, str]):
        """What ``obj.m = value`` installs: ``(file, function node, shown, partial's positional
        arguments, partial's keywords)``, or None (a value not followed)."""
        if isinstance(value, ast.Lambda):
            return rel, value, "lambda", [], set()
        parts = unpartial(value, names)
        if parts is None:
            return None
        func, args, keywords = parts
        local = sc.defs.get(func.id)
        if local:
            fn = local[0][1] if len(local) == 1 else None
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return None  # a local name holding something else
            found = (rel, fn)
        else:
            found = self._named_function(rel, tree, func, names)
        if found is None:
            return None
        shown = func.id if isinstance(value, ast.Name) else f"partial({func.id}, …)"
        return found[0], found[1], shown, args, keywords

    def subclass_uses(self) -> list[Use]:
        out: list[Use] = []
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
                    over = _override(cls.file, fn, base, short)
                    if over is not None:
                        out.append(over)
        out += self._mixin_super_uses()
        out += self._callers()
        out += self.skipped_inits()
        out += self.forwarded_uses()
        return out

    def _mixin_super_uses(self) -> list[Use]:
        """``super().m(...)`` in a method of a project mixin (a class of no base but ``object``, listed before
        another base by project classes) reaches, for each such class, the base that follows the mixin there: an
        upstream class, or a project subclass of one (less what that subclass's project chain defines). Bound
        against each distinct upstream class so reached (``class ChoiceField(ChoiceMixin, forms.ChoiceField)``:
        ``super()._set_choices(v)`` in ``ChoiceMixin`` is ``forms.ChoiceField._set_choices``). Only ``super()``:
        what ``self`` is in a mixin depends on the whole class."""
        reached: dict[str, dict[str, tuple[str, frozenset[str]]]] = {}  # mixin -> upstream class -> (user, parents' own)
        for name, cls in sorted(self.classes.items()):
            for b, nxt in zip(cls.bases, cls.bases[1:]):
                mixin = self.classes.get(b)
                if mixin is None or any(x != "object" for x in mixin.bases):
                    continue
                if _inside(nxt, self.modules):
                    target, own = nxt, frozenset()
                else:
                    up = self.upstream_base(nxt)
                    if up is None:
                        continue
                    target, own = up[0], frozenset(self._defined(up[1]))
                reached.setdefault(b, {}).setdefault(target, (name, own))
        out: list[Use] = []
        for b, targets in sorted(reached.items()):
            mixin = self.classes[b]
            text = self.sources.text(mixin.file)
            short = b.rsplit(".", 1)[-1]
            for fn in self.node(mixin).body:
                if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                arms = tuple(sorted(targets)) if len(targets) > 1 else ()
                for target, (user, own) in sorted(targets.items()):
                    via = f"mixin `{short}` before `{target.rsplit('.', 1)[-1]}` in `{user.rsplit('.', 1)[-1]}`"
                    out += [replace(u, arms=arms) for u in _self_uses(mixin.file, text, fn, target, via, set(), set(own))
                            if u.kind == MEMBER and u.via.endswith("through `super()`")]
        return out

    def _impl_markers(self) -> dict[str, set[str]]:
        """module -> the module-level names its file binds to ``HookimplMarker(...)`` (files naming it only)."""
        if self._markers is None:
            self._markers = {}
            for rel in self.sources.paths:
                if _IMPL_MARKER not in self.sources.text(rel):
                    continue
                tree = self.sources.tree(rel)
                for stmt in module_level(tree.body) if tree is not None else ():
                    value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
                    if isinstance(value, ast.Call) and (dotted(value.func) or "").rsplit(".", 1)[-1].endswith(_IMPL_MARKER):
                        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                        self._markers.setdefault(module_name(rel), set()).update(t.id for t in targets if isinstance(t, ast.Name))
        return self._markers

    def is_impl_marker(self, q: str, hops: int = 3) -> bool:
        """``q`` (a qualified project name) is a name a project module binds to ``HookimplMarker(...)``,
        or imports from one that does (followed ``hops`` re-exports)."""
        mod, _, name = q.rpartition(".")
        if name in self._impl_markers().get(mod, ()):
            return True
        files = self.files.get(mod)
        if hops <= 0 or not files or not self._impl_markers() or self.sources.tree(files[-1]) is None:
            return False
        nxt = self.names(files[-1]).get(name)
        return nxt is not None and nxt != q and self.is_impl_marker(nxt, hops - 1)

    def names_impl_marker(self, rel: str, text: str) -> bool:
        """``rel`` may import a hook implementation marker of another project module (cheap: by text)."""
        return any(n in text for names in self._impl_markers().values() for n in names) and bool(self.impl_marker_names(rel, text))

    def impl_marker_names(self, rel: str, text: str) -> Callable[[ast.expr], bool] | None:
        """A test of a decorator expression of ``rel``: it names a marker imported from another project
        module; None when ``rel`` imports none."""
        markers = self._impl_markers()
        if not markers or not any(n in text for names in markers.values() for n in names):
            return None
        names = self.names(rel)
        if not any(q in markers or self.is_impl_marker(q) for q in names.values()):
            return None  # imports no marker, nor a module holding one (``@plugin.hookimpl``)

        def test(expr: ast.expr) -> bool:
            q = resolve(expr, names)
            return q is not None and not _inside(q, self.modules) and self.is_impl_marker(q)
        return test

    def _ctor_owner(self, name: str) -> str | None:
        """The project class whose ``def __init__`` an instance of ``name`` runs (None: an upstream one)."""
        for q in self.upstream_base(name)[1]:
            if any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"
                   for s in self.node(self.classes[q]).body):
                return q
        return None

    def _naming(self, words: set[str]) -> Iterator[tuple[str, ast.Module]]:
        """``(rel, tree)`` of each project file whose text names one of ``words`` (and parses)."""
        for rel in self.sources.paths:
            if mentions(self.sources.text(rel), words):
                tree = self.sources.tree(rel)
                if tree is not None:
                    yield rel, tree

    def _annotated_calls(self, classes: set[str]) -> dict[str, list[tuple[str, int, str]]]:
        """Methods called on a parameter the project annotates with one of ``classes`` (``def f(m: Sub):
        m.run()``; ``Optional[Sub]`` / ``Sub | None`` too, and a quoted annotation): class -> (method, line, file)."""
        out: dict[str, list[tuple[str, int, str]]] = {}
        shorts = {q.rsplit(".", 1)[-1] for q in classes}
        for rel, tree in self._naming(shorts):
            names = {**self.names(rel), **{n.name: f"{module_name(rel)}.{n.name}" for n in tree.body
                                           if isinstance(n, ast.ClassDef)}}
            for fn in walk(tree):
                if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                a = fn.args
                typed = {}
                for arg in a.posonlyargs + a.args + a.kwonlyargs:
                    q = _annotated_class(arg.annotation, names, classes)
                    if q is not None:
                        typed[arg.arg] = q
                if not typed:
                    continue
                assigned = {n.id for n in walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                for _stmt, node, _where in statement_calls(fn):
                    f = node.func
                    if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in typed
                            and f.value.id not in assigned):
                        out.setdefault(typed[f.value.id], []).append((f.attr, node.lineno, rel))
        return out

    def _single_line(self, classes: list[str], base: str) -> bool:
        """Every base of ``classes`` is one of them, the upstream ``base``, ``object`` or a ``Generic[...]``
        / ``Protocol``: a mixin or a second base could set or define anything (no INIT_SKIPPED use)."""
        for q in classes:
            c = self.classes[q]
            names = self.names(c.file)
            for b in self.node(c).bases:
                expr = b.value if isinstance(b, ast.Subscript) else b
                r = resolve(expr, names)
                if r in classes or r == base or (isinstance(expr, ast.Name) and expr.id == "object" and r is None):
                    continue
                if r is not None and r.rsplit(".", 1)[-1] in ("Generic", "Protocol") and r.split(".")[0] in ("typing", "typing_extensions"):
                    continue
                return False
        return True

    def _stored_elsewhere(self, classes: list[str]) -> set[str]:
        """Attributes stored on an object other than a method's own instance (``x.attr = ...``,
        ``setattr(x, "attr", ...)``) in the files that name one of ``classes``: the project may set them on an
        instance from outside (said for none). What a method of a class sets on its own ``self`` is that
        class's (``_written``)."""
        shorts = {q.rsplit(".", 1)[-1] for q in classes}
        out: set[str] = set()
        for rel, tree in self._naming(shorts):
            on_self = set()
            for k in walk(tree):
                for fn in k.body if isinstance(k, ast.ClassDef) else ():
                    args = fn.args.posonlyargs + fn.args.args if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
                    if args:
                        on_self |= {id(n) for n in walk(fn) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                                    and n.value.id == args[0].arg}
            for n in walk(tree):
                if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and id(n) not in on_self:
                    out.add(n.attr)
                elif (isinstance(n, ast.Call) and (dotted(n.func) or "").rsplit(".", 1)[-1] in ("setattr", "__setattr__")
                      and len(n.args) >= 2 and isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str)):
                    out.add(n.args[1].value)
        return out

    def skipped_inits(self) -> list[Use]:
        """An INIT_SKIPPED use per project subclass of an upstream class whose ``def __init__`` runs no
        base constructor: no method of the project classes from it up to the upstream base reaches any
        ``__init__`` but its own, none sets attributes by computed names (``setattr(self, name, v)``,
        ``self.__dict__``, ``vars(self)``), and none defines ``__new__``, ``__getattr__``,
        ``__getattribute__``, ``__setstate__`` or ``__slots__``. The methods reached on its instances: those
        its classes' methods call on ``self`` (also ``super().m(...)``, ``Cls.m(self, ...)``), and those
        called on instances made elsewhere (``_callers``), of it or of a project subclass running its
        ``__init__``."""
        out: list[Use] = []
        groups: dict[str, list[str]] = {}  # the class whose __init__ runs -> the classes whose instances run it
        for name in sorted(self.classes):
            if self.upstream_base(name) is not None:
                owner = self._ctor_owner(name)
                if owner is not None:
                    groups.setdefault(owner, []).append(name)
        for owner, members in groups.items():
            base, chain = self.upstream_base(owner)
            cls = self.classes[owner]
            init = next(s for s in self.node(cls).body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                        and s.name == "__init__")
            # the classes whose methods may run on such an instance: its own, its project parents', and those of
            # the project subclasses that run its __init__ (what one of them sets counts: said for none)
            classes = list(dict.fromkeys([*chain, *members]))
            if selfreads_blocked(self, classes, init):
                continue
            if not self._single_line(classes, base):
                continue
            own = self._defined(classes) | self._written(classes) | self._stored_elsewhere(classes)
            for q in classes:
                for fn in self.node(self.classes[q]).body:
                    if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and (fn.args.posonlyargs + fn.args.args):
                        me = (fn.args.posonlyargs + fn.args.args)[0].arg
                        own |= set(_constant_setattrs(fn, me))
            reached: dict[str, tuple[str, int, str]] = {}
            for q in classes:
                c = self.classes[q]
                for fn in self.node(c).body:
                    if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        for m, line in _called_on_self(fn, self.names(c.file), set(chain), self.modules):
                            reached.setdefault(m, (m, line, c.file))
            annotated = self._annotated_calls(set(members))
            for q in members:
                for m, line, rel in [*self._instance_calls.get(q, ()), *annotated.get(q, ())]:
                    reached.setdefault(m, (m, line, rel))
            short = owner.rsplit(".", 1)[-1]
            out.append(Use(cls.file, init.lineno, INIT_SKIPPED, base, "__init__", via=f"subclass `{short}`",
                           function_line=init.lineno, function_file=cls.file, names=tuple(sorted(own)),
                           reached=tuple(sorted(reached.values(), key=lambda r: (r[2], r[1], r[0])))))
        return out

    def forwarded_uses(self) -> list[Use]:
        """Keywords (and positions) a caller passes to a project callable that hands its ``**kwargs``
        (``*args``) on to an upstream call, as CALL uses of that upstream callable at the caller's line,
        followed through up to ``forwarding.FORWARD_DEPTH`` project callables. A keyword the callable takes itself
        (a named parameter, ``kw.pop("x")``) is not passed on; a call whose target is not known is left out."""
        fw = Forwarding(self)
        fw.collect()
        if not fw.table:
            return []
        shorts = {k.rsplit(".", 1)[-1] for k in fw.table} | {k.split(".")[-2] for k in fw.table if k not in self.classes}
        shorts |= {n.rsplit(".", 1)[-1] for n in self.classes if fw.runs(n) in fw.table}
        out: list[Use] = []
        for rel, tree in self._naming(shorts):
            names = fw.local_names(rel, tree)
            text = self.sources.text(rel)
            lines = text.splitlines()
            mod = module_name(rel)
            selfs: dict[int, str] = {}  # ``self.m(...)`` in a method of a project class: id(call) -> Cls.m
            for n in tree.body:
                if isinstance(n, ast.ClassDef) and f"{mod}.{n.name}" in fw.methods:
                    cname = f"{mod}.{n.name}"
                    for f in n.body:
                        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and (f.args.posonlyargs + f.args.args):
                            me = (f.args.posonlyargs + f.args.args)[0].arg
                            for _s, node, _w in statement_calls(f):
                                if (isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
                                        and node.func.value.id == me and f"{cname}.{node.func.attr}" in fw.table):
                                    selfs[id(node)] = f"{cname}.{node.func.attr}"
            instances: dict[str, str] = {}  # ``x = Cls(...)``: x -> Cls
            for stmt, node, where in statement_calls(tree):
                q = selfs.get(id(node))
                if q is None:
                    q = resolve(node.func, names) if isinstance(node.func, (ast.Name, ast.Attribute)) else None
                    if q is not None and q in self.classes:
                        c0 = make_call(q, where, node, stmt, lines)
                        if c0.assigned_to:
                            instances[c0.assigned_to] = q
                    if (q is None or q not in fw.table and q not in self.classes) and isinstance(node.func, ast.Attribute):
                        owner = dotted(node.func.value)
                        cls = instances.get(owner) if owner else None
                        q = f"{cls}.{node.func.attr}" if cls is not None and f"{cls}.{node.func.attr}" in fw.table else None
                if q is None or not (q in fw.table or q in self.classes):
                    continue
                c = make_call(q, where, node, stmt, lines)
                if not c.keywords and not c.positional:
                    continue
                positional = 0 if c.star_args else c.positional
                for target, kws, pos, chain in fw.follow(q, c.keywords, positional):
                    fc = Call(target, c.line, c.end_line, c.snippet, positional=pos, keywords=kws,
                              star_args=True, star_kwargs=True, used=False, node=None)
                    out.append(Use(rel, c.line, CALL, target, call=fc, via="forwarded by " + ", then ".join(chain),
                                   forwarded=True))
        return out

    def inherited_constructor(self, name: str) -> str | None:
        """The upstream class whose constructor a call of project class ``name`` runs, when no project class
        on the way takes part: each defines no ``__init__`` / ``__new__`` (nor any way of building an instance
        the source does not spell: ``_INIT_BLOCKERS``), has no decorator (``@dataclass`` writes an
        ``__init__``) and no class keyword (``metaclass=``), and its bases are one upstream or project class,
        beside project mixins of no base of their own that are as plain. None otherwise."""
        seen: set[str] = set()
        q = name
        while q in self.classes and q not in seen:
            seen.add(q)
            cls = self.classes[q]
            node = self.node(cls)
            if (node.decorator_list or node.keywords
                    or ({"__init__"} | _INIT_BLOCKERS) & self._defined([q])):
                return None
            main = [b for b in cls.bases if not self._plain_mixin(b)]
            if len(main) != 1:
                return None
            if _inside(main[0], self.modules):
                return main[0]
            q = main[0]
        return None

    def _plain_mixin(self, name: str) -> bool:
        """A project class of no base that defines no constructor and has no decorator nor class keyword."""
        cls = self.classes.get(name)
        if cls is None or cls.bases:
            return False
        node = self.node(cls)
        return (not node.bases and not node.decorator_list and not node.keywords
                and not ({"__init__"} | _INIT_BLOCKERS) & self._defined([name]))

    def _nested_callees(self, tree: ast.Module, wanted: list[str]) -> dict[int, str]:
        """id(call) -> the class of ``wanted`` (classes ``tree``'s file defines in a function or class body)
        that the call makes: its name called in the function defining it (and in the functions nested there),
        ``self.X(...)`` / ``cls.X(...)`` / ``Outer.X(...)`` in the methods of the class whose body defines it;
        not where the function binds the name otherwise."""
        found = [(self.classes[q].path, q) for q in wanted]
        out: dict[int, str] = {}
        for path, q in found:
            holder: ast.AST = tree  # the function or class whose body holds the class (through its blocks)
            node: ast.AST = tree
            for fld, i in path[:-1]:
                node = getattr(node, fld)[i]
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    holder = node
            short = q.rsplit(".", 1)[-1]
            if isinstance(holder, (ast.FunctionDef, ast.AsyncFunctionDef)):
                stores = {n.id for n in walk(holder) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                if short in stores:
                    continue
                for _stmt, call, _w in statement_calls(holder):
                    if isinstance(call.func, ast.Name) and call.func.id == short:
                        out.setdefault(id(call), q)
            elif isinstance(holder, ast.ClassDef):
                for fn in holder.body:
                    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not (fn.args.posonlyargs + fn.args.args):
                        continue
                    me = (fn.args.posonlyargs + fn.args.args)[0].arg
                    for _stmt, call, _w in statement_calls(fn):
                        f = call.func
                        if (isinstance(f, ast.Attribute) and f.attr == short and isinstance(f.value, ast.Name)
                                and f.value.id in (me, holder.name)):
                            out.setdefault(id(call), q)
        return out

    def _callers(self) -> list[Use]:
        """Calls of the project subclasses elsewhere in the project, and what they use on the instance."""
        out: list[Use] = []
        self._instance_calls = {}
        subclasses = {n for n in self.classes if self.upstream_base(n) is not None}
        if not subclasses:
            return out
        shorts = {n.rsplit(".", 1)[-1] for n in subclasses}  # a call that resolves to a class names it in the file
        nested: dict[str, list[str]] = {}  # file -> the subclasses defined in a function or class body there
        for n in sorted(subclasses):
            if self.classes[n].path:
                nested.setdefault(self.classes[n].file, []).append(n)
        for rel, tree in self._naming(shorts):
            names = self.names(rel)
            text = self.sources.text(rel)
            lines = text.splitlines()
            local = self._nested_callees(tree, nested.get(rel, []))
            for stmt, node, where in statement_calls(tree):
                q = local.get(id(node)) or resolve(node.func, names)
                if q not in subclasses:
                    continue
                base, chain = self.upstream_base(q)
                short = q.rsplit(".", 1)[-1]
                c = make_call(q, where, node, stmt, lines)
                runs = self.inherited_constructor(q)
                if runs is not None and (c.keywords or c.positional or c.star_args or c.star_kwargs):
                    # ``Sub(a, key=v)`` runs the upstream base's constructor: its arguments are that call's
                    ctor = replace(make_call(runs, where, node, stmt, lines), used=False, assigned_to=None, unpacked=False,
                                   members_only=False, targets=0)
                    out.append(Use(rel, c.line, CALL, runs, call=ctor, via=f"`{short}(...)`: the constructor it inherits"))
                if c.assigned_to:
                    own = self._defined(chain) | self._written(chain)
                    for mc in find_method_calls(text, tree, c.assigned_to, None):
                        self._instance_calls.setdefault(q, []).append((mc.api, mc.line, rel))
                        if mc.api not in own:
                            out.append(Use(rel, mc.line, MEMBER, base, mc.api, call=mc, via=f"a `{short}` instance"))
        return out


#: a project class defining one of these may build or serve its instance's attributes in ways not read here
_INIT_BLOCKERS = frozenset({"__new__", "__getattr__", "__getattribute__", "__setstate__", "__slots__"})


def selfreads_blocked(project: _Project, classes: list[str], init) -> bool:
    """The project classes ``classes`` (``init``: the ``__init__`` that runs) may run a base constructor or
    set attributes in ways the source does not spell: no INIT_SKIPPED use."""
    if _INIT_BLOCKERS & project._defined(classes):
        return True
    for q in classes:
        for fn in project.node(project.classes[q]).body:
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if fn.name == "__init__" and fn is not init:
                continue  # a project parent's constructor the one that runs does not call
            if any(isinstance(n, ast.Attribute) and n.attr in ("__init__", "__dict__", "__setstate__") for n in walk(fn)):
                return True
            args = fn.args.posonlyargs + fn.args.args
            if args and _dynamic_setattr(fn, args[0].arg):
                return True
    return False


def _setattr_calls(fn, me: str):
    for n in walk(fn):
        if (isinstance(n, ast.Call) and (dotted(n.func) or "").rsplit(".", 1)[-1] in ("setattr", "__setattr__")
                and len(n.args) >= 2 and isinstance(n.args[0], ast.Name) and n.args[0].id == me):
            yield n


def _dynamic_setattr(fn, me: str) -> bool:
    if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "vars" and n.args
           and isinstance(n.args[0], ast.Name) and n.args[0].id == me for n in walk(fn)):
        return True
    return any(not (isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str)) for n in _setattr_calls(fn, me))


def _constant_setattrs(fn, me: str) -> list[str]:
    return [n.args[1].value for n in _setattr_calls(fn, me)
            if isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str)]


def _annotated_class(ann: ast.AST | None, names: dict[str, str], classes: set[str]) -> str | None:
    """The one of ``classes`` an annotation names (``Sub``, ``mod.Sub``, ``"Sub"``, ``Optional[Sub]``, ``Sub | None``)."""
    if ann is None:
        return None
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            ann = ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        sides = [x for x in (ann.left, ann.right) if not (isinstance(x, ast.Constant) and x.value is None)]
        return _annotated_class(sides[0], names, classes) if len(sides) == 1 else None
    if isinstance(ann, ast.Subscript) and (dotted(ann.value) or "").rsplit(".", 1)[-1] == "Optional":
        return _annotated_class(ann.slice, names, classes)
    q = resolve(ann, names)
    return q if q in classes else None


def _called_on_self(fn, names: dict[str, str], classes: set[str], modules: list[str]) -> list[tuple[str, int]]:
    """Methods a method calls on its instance: ``self.m(...)``, ``super().m(...)``, ``Cls.m(self, ...)``
    (``Cls``: one of ``classes``, or an upstream name spelled as a class is, through the file's ``names``: a
    module's function ``pkg.f(self)`` is no method of the instance)."""
    args = fn.args.posonlyargs + fn.args.args
    if not args or any(decorator_name(d) in ("staticmethod", "classmethod") for d in fn.decorator_list):
        return []
    me = args[0].arg
    out = []
    for n in walk(fn):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)):
            continue
        v = n.func.value
        if ((isinstance(v, ast.Name) and v.id == me)
                or (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "super")
                or (n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == me
                    and ((q := resolve(v, names)) in classes or (q is not None and _inside(q, modules) and q.rsplit(".", 1)[-1][:1].isupper())))):
            out.append((n.func.attr, n.lineno))
    return out


def _override(rel: str, fn, base: str, short: str) -> Use | None:
    """The ``def`` of a method in project class ``short`` (subclassing ``base``) as an OVERRIDE use."""
    if fn.name in _NOT_OVERRIDES:
        return None
    decorators = {decorator_name(d) for d in fn.decorator_list}
    if decorators & NOT_METHODS:
        return None
    params = _params(fn)
    if "staticmethod" not in decorators:
        if not params or params[0][1] not in PARAM_KINDS[:2]:
            return None  # no ``self`` to bind the instance to: not a method we can read
        params = params[1:]
    with_default = _with_default(fn)
    return Use(rel, fn.lineno, OVERRIDE, base, fn.name, via=f"subclass `{short}`", params=params,
               function_line=fn.lineno, function_file=rel,
               defaults=tuple(n for n, _k in params if n in with_default),
               binding=next((d for d in ("classmethod", "staticmethod") if d in decorators), ""))


def _with_default(fn) -> set[str]:
    """The parameters of ``fn`` that have a default value."""
    a = fn.args
    positional = a.posonlyargs + a.args
    with_default = {p.arg for p in positional[len(positional) - len(a.defaults):]} if a.defaults else set()
    return with_default | {p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None}


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





def _all_bindings(tree: ast.Module, mod: str, is_package: bool) -> dict[str, str]:
    """Bound name -> qualified target for every import of the file (relative ones resolved)."""
    out: dict[str, str] = dict(dynamic_imports(tree))  # ``x = pytest.importorskip("pkg")``
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
