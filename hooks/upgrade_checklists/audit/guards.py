"""Version-guarded code (section 6 step 5), checked against the new upstream.

Each verdict says what to do: the guard is "still needed", or "can be removed".

- ``hasattr(Cls, "name")``: can be removed once upstream has ``name``; then the
  native signature must match the monkey-patch's, parameter by parameter (names,
  order and kind); each difference is named.
- a version comparison whose threshold is at or below the new version can be removed.
- a ``try`` import fallback whose primary import now resolves can be removed.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from upgrade_checklists.audit.api import UpstreamModel
from upgrade_checklists.audit.vendored import real_path, vendored_names
from upgrade_checklists.project.calls import bindings, resolve
from upgrade_checklists.project.flags import version_text
from upgrade_checklists.project.uses import catches_import_error


@dataclass
class GuardResult:
    code: str  # GUARD_DEAD, GUARD_MISMATCH, GUARD_NEEDED, GUARD_UNKNOWN
    severity: str
    message: str
    #: what the verdict is about (``hasattr:pkg.Cls.name``, ``version:7.1``, ``import:pkg.mod``): the
    #: same guard judged at the old version has the same subject
    subject: str = ""


def check_guard(source: str, line: int, model: UpstreamModel, modules: list[str], version: str,
                code: str | None = None) -> list[GuardResult]:
    """The verdicts on the guard at ``line``; ``code``: the expression the checklist quotes for it
    (in a decorator's arguments, the part judged)."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return [GuardResult("GUARD_UNKNOWN", "warning", f"cannot parse the file: {exc.msg}")]
    stmt = _innermost(tree, line)
    if stmt is None:
        return [GuardResult("GUARD_UNKNOWN", "warning", f"no statement at line {line}")]
    bound = bindings(tree, modules)
    out: list[GuardResult] = []
    header = _header(stmt, line, code)
    for node in (n for h in header for n in ast.walk(h)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hasattr" and len(node.args) == 2:
            out += _hasattr(tree, node, bound, model)
        elif isinstance(node, ast.Compare):
            out += _version_compare(node, version)
    tried = _try_for(tree, stmt, line)
    if tried is not None:
        out += _try_import(tried, model, modules)
    return out or [GuardResult("GUARD_UNKNOWN", "info", f"line {line}: no hasattr guard, version comparison or try-import fallback recognised")]


def already_dead(new: list[GuardResult], old: list[GuardResult]) -> list[GuardResult]:
    """The ``GUARD_DEAD`` verdicts of ``new`` that the same guard had at the old version too (a
    version check at or below the old version, an import that resolved then, an attribute
    upstream had then): not news of this upgrade."""
    dead_before = {r.subject for r in old if r.code == "GUARD_DEAD" and r.subject}
    return [r for r in new if r.code == "GUARD_DEAD" and r.subject in dead_before]


def _span(node: ast.stmt) -> tuple[int, int]:
    """A statement's first and last lines; a decorated ``def`` / ``class`` starts at its first decorator."""
    start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
    return start, node.end_lineno or node.lineno


def _innermost(tree: ast.Module, line: int) -> ast.stmt | None:
    best, size = None, 0
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            start, end = _span(node)
            if start <= line <= end and (best is None or end - start <= size):
                best, size = node, end - start
    return best


def _header(stmt: ast.stmt, line: int, code: str | None = None) -> list[ast.AST]:
    """The part of a statement at its first line: an ``if``'s test, a simple statement whole. Of a
    decorated ``def`` / ``class`` at a line before the ``def``: the expressions in its decorators
    that are the quoted ``code`` (``@pytest.mark.skipif(v < parse("8.1"), ...)`` among others),
    else the decorator at ``line``."""
    decorators = getattr(stmt, "decorator_list", [])
    if decorators and line < stmt.lineno:
        quoted = _same_as(decorators, code)
        return quoted or [d for d in decorators if d.lineno <= line <= (d.end_lineno or d.lineno)] or decorators
    for f in ("test", "iter", "items", "subject"):
        v = getattr(stmt, f, None)
        if v is not None:
            return v if isinstance(v, list) else [v]
    if isinstance(stmt, (ast.Try, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.With, ast.For)):
        return []
    return [stmt]


def _same_as(nodes: list[ast.expr], code: str | None) -> list[ast.AST]:
    """The expressions inside ``nodes`` that are ``code`` (compared as syntax trees)."""
    if not code:
        return []
    try:
        want = ast.dump(ast.parse(code.strip(), mode="eval").body)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return [n for d in nodes for n in ast.walk(d) if isinstance(n, ast.expr) and ast.dump(n) == want]


def _hasattr(tree: ast.Module, call: ast.Call, bound: dict[str, str], model: UpstreamModel) -> list[GuardResult]:
    obj, attr = call.args
    if not (isinstance(attr, ast.Constant) and isinstance(attr.value, str)):
        return []
    name = attr.value
    qual = resolve(obj, bound)
    if qual is None:
        return [GuardResult("GUARD_UNKNOWN", "info", f"`hasattr(…, {name!r})` on an object no import of the package explains")]
    cls = model.lookup(qual)
    if cls is None:
        return [GuardResult("GUARD_UNKNOWN", "warning", f"`{qual}` not found upstream; cannot tell whether `{name}` exists")]
    native = model.member(cls, name) if cls.kind == "class" else model.lookup(f"{qual}.{name}")
    if native is None:
        return [GuardResult("GUARD_NEEDED", "info", f"`{qual}` still lacks `{name}`: the guard (and its patch) is still needed")]
    patch = _patch_function(tree, ast.unparse(obj), name)
    diffs: list[str] = []
    if patch is not None and native.signature is not None:
        mine = _patch_params(patch)
        theirs = list(native.parameters or ()) if native.kind == "function" else []
        diffs = param_differences(mine, theirs)
        if diffs:
            shown_mine = ", ".join(n for n, _ in mine)
            shown_theirs = ", ".join(n for n, _ in theirs)
            return [
                GuardResult("GUARD_DEAD", "warning", f"`{qual}` now has `{name}`: the `hasattr` guard can be removed, "
                            "once callers follow the native signature", f"hasattr:{qual}.{name}"),
                GuardResult("GUARD_MISMATCH", "error",
                            f"native `{qual}.{name}({shown_theirs})` differs from the patch `{patch.name}({shown_mine})` "
                            f"(line {patch.lineno}): {'; '.join(diffs)}; names and order must match exactly"),
            ]
    same = " with the patch's parameters" if patch is not None and native.signature is not None else ""
    return [GuardResult("GUARD_DEAD", "warning", f"`{qual}` now has `{name}`{same}: the `hasattr` guard (and its patch) can be removed",
                        f"hasattr:{qual}.{name}")]


def _patch_params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, str]]:
    a = fn.args
    out = [(x.arg, "positional-only") for x in a.posonlyargs] + [(x.arg, "positional or keyword") for x in a.args]
    if a.vararg is not None:
        out.append((a.vararg.arg, "variadic positional"))
    out += [(x.arg, "keyword-only") for x in a.kwonlyargs]
    if a.kwarg is not None:
        out.append((a.kwarg.arg, "variadic keyword"))
    return out


def param_differences(mine: list[tuple[str, str]], theirs: list[tuple[str, str]]) -> list[str]:
    """Each difference between a patch's parameters and the native ones, in words."""
    out: list[str] = []
    names_mine, names_theirs = [n for n, _ in mine], [n for n, _ in theirs]
    only_mine = [n for n in names_mine if n not in names_theirs]
    only_theirs = [n for n in names_theirs if n not in names_mine]
    if only_mine:
        out.append(f"only in the patch: {', '.join(f'`{n}`' for n in only_mine)}")
    if only_theirs:
        out.append(f"only native: {', '.join(f'`{n}`' for n in only_theirs)}")
    common_mine = [n for n in names_mine if n in names_theirs]
    common_theirs = [n for n in names_theirs if n in names_mine]
    if common_mine != common_theirs:
        moved = [n for i, n in enumerate(common_mine) if common_theirs[i] != n]
        out.append(f"order differs for {', '.join(f'`{n}`' for n in moved)}")
    kinds_theirs = dict(theirs)
    for n, kind in mine:
        if n in kinds_theirs and kinds_theirs[n] != kind:
            out.append(f"`{n}` is {kinds_theirs[n]} natively, {kind} in the patch")
    return out


def _patch_function(tree: ast.Module, target: str, name: str) -> ast.FunctionDef | None:
    """The function assigned as ``target.name = f`` or ``setattr(target, "name", f)``."""
    fname = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            t = node.targets[0]
            if isinstance(t, ast.Attribute) and t.attr == name and isinstance(node.value, ast.Name):
                fname = node.value.id
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" and len(node.args) == 3:
            a = node.args[1]
            if isinstance(a, ast.Constant) and a.value == name and isinstance(node.args[2], ast.Name):
                fname = node.args[2].id
    if fname is None:
        return None
    return next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == fname), None)


def _version_compare(node: ast.Compare, version: str) -> list[GuardResult]:
    out = []
    for side in [node.left, *node.comparators]:
        threshold = _version_literal(side)
        if threshold is None:
            continue
        try:
            new = Version(version)
        except InvalidVersion:
            return [GuardResult("GUARD_UNKNOWN", "warning", f"new version {version!r} is not PEP 440; cannot compare with {threshold}")]
        if threshold <= new:
            out.append(GuardResult("GUARD_DEAD", "warning", f"version comparison with {threshold}: at or below the new version {version}, the guard can be removed",
                                   f"version:{threshold}"))
        else:
            out.append(GuardResult("GUARD_NEEDED", "info", f"version comparison with {threshold}: above the new version {version}, the guard is still needed"))
    return out


def _version_literal(node: ast.AST) -> Version | None:
    text = version_text(node)  # "0.5", Version("0.5"), parse("0.5")
    if text is None:
        return None
    try:
        return Version(text)
    except InvalidVersion:
        return None


def flag_value(flag: str, version: str, has: Callable[[str], bool | None] | None = None) -> bool | None:
    """A project flag (``flags.Flags``: an expression over ``V``, ``S``, ``T``, ``R``, ``P``, ``H('dotted')``,
    string, int and tuple literals and ``U``) at ``version``: True, False, or None (a part not known, a
    version not PEP 440, a text whose dotted parts are not all numbers for ``T``, as ``int()`` would
    refuse). ``has`` answers ``H``: whether upstream at ``version`` has that member (None: not known; no
    ``has``: every ``H`` is not known). Read, never run."""
    try:
        tree = ast.parse(flag, mode="eval").body
    except SyntaxError:
        return None
    return _flag(tree, version, has)


def _flag(node: ast.AST, at: str, has: Callable[[str], bool | None] | None = None) -> bool | None:
    if isinstance(node, ast.BoolOp):
        values = [_flag(v, at, has) for v in node.values]
        if isinstance(node.op, ast.And):
            return False if False in values else (None if None in values else True)
        return True if True in values else (None if None in values else False)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _flag(node.operand, at, has)
        return None if inner is None else not inner
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "H" and len(node.args) == 1 \
            and not node.keywords and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return has(node.args[0].value) if has is not None else None
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
        numbers = _numbers(node.left, at)
        if numbers is not None:
            try:
                literal = ast.literal_eval(node.comparators[0])
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return None
            if type(literal) is not type(numbers) or (isinstance(literal, tuple) and not all(type(x) is int for x in literal)):
                return None
            if _own_tail(node.left) and isinstance(literal, tuple) and len(literal) >= len(numbers) \
                    and literal[:len(numbers)] == numbers and type(node.ops[0]) not in (ast.Lt, ast.GtE):
                return None  # ``django.VERSION > (5, 0, 0)``: what follows the numbers there (``'final', 0``) decides
            return _COMPARE[type(node.ops[0])](numbers, literal)
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE
            and isinstance(node.left, ast.Name) and node.left.id in ("V", "S")
            and isinstance(node.comparators[0], ast.Constant) and isinstance(node.comparators[0].value, str)):
        return None
    compare, literal = _COMPARE[type(node.ops[0])], node.comparators[0].value
    if node.left.id == "S":
        return compare(at, literal)  # the text against a string: as Python compares them
    try:
        return compare(Version(at), Version(literal))
    except InvalidVersion:
        return None


def _numbers(node: ast.AST, at: str) -> tuple[int, ...] | int | None:
    """``T`` / ``R`` / ``P`` (``[:n]``, ``[i]``) at version ``at``: the text's dotted parts ``int``-ed, the
    parsed version's release, or the version tuple the package exports (the release's numbers padded
    to three, ``5.0`` -> ``(5, 0, 0)``: what may follow them, a release level, is not known: a cut
    reaching past them has no value); None when it is not one of those or has no value there."""
    cut = None
    if isinstance(node, ast.Subscript):
        cut, node = node.slice, node.value
    if not (isinstance(node, ast.Name) and node.id in ("T", "R", "P")):
        return None
    try:
        whole = tuple(int(x) for x in at.split(".")) if node.id == "T" else Version(at).release
    except (ValueError, InvalidVersion):
        return None  # ``int("0rc1")`` raises: the project's own line fails there, not known
    if node.id == "P":
        whole = (whole + (0, 0, 0))[:max(3, len(whole))]
    if cut is None:
        return whole
    if isinstance(cut, ast.Constant) and type(cut.value) is int:
        return whole[cut.value] if 0 <= cut.value < len(whole) else None
    if isinstance(cut, ast.Slice) and cut.lower is None and cut.step is None and isinstance(cut.upper, ast.Constant) \
            and type(cut.upper.value) is int:
        return whole[:cut.upper.value] if node.id != "P" or 0 <= cut.upper.value <= len(whole) else None
    return None


def _own_tail(node: ast.AST) -> bool:
    """``P`` whole: the package's version tuple, whose numbers a release level may follow."""
    return isinstance(node, ast.Name) and node.id == "P"


_COMPARE = {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b,
            ast.GtE: lambda a, b: a >= b, ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b}


def _try_for(tree: ast.Module, stmt: ast.stmt, line: int) -> ast.Try | None:
    if isinstance(stmt, ast.Try):
        return stmt
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(s.lineno <= line <= (s.end_lineno or s.lineno) for s in node.body):
            return node
    return None


def _try_import(node: ast.Try, model: UpstreamModel, modules: list[str]) -> list[GuardResult]:
    if not catches_import_error(node):
        return []
    out = []
    aliases = vendored_names(modules, model)  # ``requests.packages.urllib3.fields`` is ``urllib3.fields``
    for stmt in node.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
            paths = [f"{stmt.module}.{a.name}" for a in stmt.names]
        elif isinstance(stmt, ast.Import):
            paths = [a.name for a in stmt.names]
        else:
            continue
        for path in paths:
            if not any(path == m or path.startswith(m + ".") for m in modules):
                continue
            real = real_path(path, aliases)
            shown = f"`{path}`" + (f" (`{real}` re-exported)" if real != path else "")
            if model.resolves(real):
                out.append(GuardResult("GUARD_DEAD", "warning", f"the primary import {shown} now resolves: the ImportError fallback can be removed",
                                       f"import:{real}"))
            else:
                out.append(GuardResult("GUARD_NEEDED", "info", f"the primary import {shown} still does not resolve: the fallback is still needed"))
    return out
