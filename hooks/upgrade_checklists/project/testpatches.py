"""Patches written through test helpers, whose target is a string or an object and a name:

    mock.patch("pkg.mod.Cls.meth", new)             # decorator, ``with``, or ``.start()``
    mock.patch.object(Cls, "meth", new)
    mock.patch.dict("pkg.mod.TABLE", {...})
    mocker.patch(...) / mocker.patch.object(...)     # pytest-mock's fixture
    monkeypatch.setattr("pkg.mod.Cls.meth", f) / monkeypatch.setattr(Cls, "meth", f)
    monkeypatch.delattr("pkg.mod.name") / monkeypatch.delattr(Cls, "name")

Each names an attribute the helper looks up when the patch starts: a name that is gone raises
(``AttributeError``, ``ImportError``), unless the helper is told a missing one is fine
(``create=True``, ``raising=False``). A replacement given as a value (``new``, the value of
``setattr``) is a function in the attribute's place while the patch holds.

The helpers are recognised by what they resolve to (``unittest.mock.patch``, the ``mock``
backport), or by the fixture names pytest gives them (``mocker``, ``monkeypatch``, and a name
bound by ``with …MonkeyPatch.context() as mp``). Strings are followed as ``values.Values``
follows them (a constant, a name assigned one, a ``for`` loop's table, an f-string of known
parts); a string or object that cannot be followed is no patch. Nothing is executed.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from upgrade_checklists.core.astwalk import own_nodes, statements
from upgrade_checklists.project.calls import dotted, resolve
from upgrade_checklists.project.values import Qual, Values

_MOCKS = ("unittest.mock", "mock")
_PATCH, _OBJECT, _DICT, _SETATTR, _DELATTR = "patch", "patch.object", "patch.dict", "setattr", "delattr"
#: keywords that make the mock build the replacement itself (``autospec`` copies the real signature)
_MOCK_MADE = ("new_callable", "autospec", "spec", "spec_set")
_FIXTURES = frozenset({"monkeypatch"})
_MOCKERS = frozenset({"mocker"})


#: a file without these words calls none of the helpers (``patch`` as a word: imported or an attribute,
#: even under another name; ``monkeypatch``; ``mp.setattr(`` ...): ``dispatch`` is none of them
MAY_PATCH = re.compile(r"\bpatch\b|monkeypatch|\.(?:set|del)attr\(")


@dataclass(frozen=True)
class HelperPatch:
    line: int
    owner: str  # the dotted path of the object the attribute is on (a module or a class)
    name: str  # the attribute
    helper: str  # how it is written: ``mock.patch``, ``monkeypatch.setattr``, ...
    lenient: bool  # ``create=True`` / ``raising=False`` (or a value not known): a missing attribute is fine
    value: ast.expr | None = None  # the replacement given (None: a mock, a dict update, a deletion)
    scope: ast.AST | None = None  # the function (or module) the call is in


def _helper(call: ast.Call, names: dict[str, str], fixtures: set[str]) -> str | None:
    """Which helper ``call`` is (``_PATCH`` ... ``_DELATTR``), or None."""
    f = call.func
    q = resolve(f, names)
    if q is not None:
        for m in _MOCKS:
            for kind in (_PATCH, _OBJECT, _DICT):
                if q == f"{m}.{kind}":
                    return kind
    text = dotted(f)
    if text is None or "." not in text:
        return None
    head, _, rest = text.partition(".")
    if head in names:  # an import of that name: not the fixture
        return None
    if head in _MOCKERS and rest in (_PATCH, _OBJECT, _DICT):
        return rest
    if (head in _FIXTURES or head in fixtures) and rest in (_SETATTR, _DELATTR):
        return rest
    return None


def _context_names(tree: ast.Module, names: dict[str, str]) -> set[str]:
    """Names bound by ``with pytest.MonkeyPatch.context() as mp`` or ``mp = pytest.MonkeyPatch()``."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                c = item.context_expr
                if (isinstance(c, ast.Call) and isinstance(item.optional_vars, ast.Name)
                        and (resolve(c.func, names) or "").endswith("MonkeyPatch.context")):
                    out.add(item.optional_vars.id)
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
              and isinstance(node.value, ast.Call) and (resolve(node.value.func, names) or "").endswith("MonkeyPatch")):
            out.add(node.targets[0].id)
    return out


def _calls(scope: ast.AST):
    """The calls of ``scope`` outside nested functions; a nested ``def``'s decorators are the scope's
    (``@mock.patch(...)`` runs where the function is defined), and so is a class body (a ``TestCase``'s
    decorated methods)."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack.extend(node.decorator_list)
            continue
        if isinstance(node, ast.ClassDef):  # its body runs here too (the decorators of its methods, say)
            stack.extend([*node.decorator_list, *node.bases, *node.keywords, *node.body])
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Call):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _arg(call: ast.Call, at: int | None, keyword: str | None) -> ast.expr | None:
    if keyword is not None:
        for k in call.keywords:
            if k.arg == keyword:
                return k.value
    if at is not None and at < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:at + 1]):
        return call.args[at]
    return None


def _given(call: ast.Call, keyword: str) -> bool:
    """The keyword is passed, with anything but a constant ``None`` / ``False``."""
    v = _arg(call, None, keyword)
    return v is not None and not (isinstance(v, ast.Constant) and v.value in (None, False))


def _lenient(call: ast.Call, keyword: str, default: bool, at: int | None = None) -> bool:
    """A missing attribute is fine: ``keyword`` (``create`` / ``raising``, or the argument at position ``at``)
    is passed, and not as the constant that makes it an error (a value not known statically counts as lenient)."""
    if any(isinstance(a, ast.Starred) for a in call.args):
        return True  # ``*args`` may fill it
    v = _arg(call, at, keyword)
    if v is None:
        return False
    return not (isinstance(v, ast.Constant) and bool(v.value) is default)


class _Eval:
    """The strings and objects one scope's expressions hold, under each of its choices."""

    def __init__(self, scope: ast.AST, tree: ast.Module, names: dict[str, str], imported_here: set[str] = frozenset()) -> None:
        """``imported_here``: names the function imports itself (local names: the module's of that name are not seen)."""
        self.values = Values(scope, tree, names)
        for name in imported_here:
            self.values.globals.pop(name, None)
        self.envs = self.values.choices()

    def all(self, node: ast.expr) -> list:
        out: list = []
        for env in self.envs:
            out += [v for v in self.values.eval(node, env, 0) if v not in out]
        return out

    def strings(self, node: ast.expr) -> list[str]:
        return [v for v in self.all(node) if isinstance(v, str)]

    def objects(self, node: ast.expr) -> list[str]:
        return [v.path for v in self.all(node) if isinstance(v, Qual)]


def helper_patches(tree: ast.Module, names: dict[str, str]):
    """Each :class:`HelperPatch` of ``tree`` (``names``: what the file's names are bound to)."""
    fixtures = _context_names(tree, names)
    scopes = [tree] + [n for n in statements(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    seen = set()
    for scope in scopes:
        evs: dict[tuple, _Eval] = {}
        own = [] if scope is tree else _own_imports(scope)
        for call in _calls(scope):
            before = tuple(b for b in own if b[0] < call.lineno)  # the imports above the call win
            here = {**names, **{name: target for _line, name, target in before}} if before else names
            kind = _helper(call, here, fixtures)
            if kind is None or any(k.arg is None for k in call.keywords):
                continue
            ev = evs.get(before)
            if ev is None:
                ev = evs[before] = _Eval(scope, tree, here, {name for _line, name, _target in before})
            head = dotted(call.func).split(".")[0]
            shown = f"{head}.{kind}" if head in _MOCKERS | _FIXTURES | fixtures else f"mock.{kind}"
            for owner, name, lenient, value in _parts(call, kind, ev):
                key = (call.lineno, owner, name)
                if key in seen:
                    continue
                seen.add(key)
                yield HelperPatch(call.lineno, owner, name, shown, lenient, value, scope)


def _own_imports(fn) -> list[tuple[int, str, str]]:
    """``(line, name, module)`` of what a function's own (absolute) imports bind, outside nested functions, in
    source order: the file's flat bindings give a name imported differently in different places (``import
    urllib3.connectionpool as cpool`` in one ``try``, another package's ``connectionpool`` in the next) the
    last import's module; a call is read with the imports above it."""
    out: list[tuple[int, str, str]] = []
    for node in own_nodes(fn):
        if isinstance(node, ast.Import):
            for a in node.names:
                out.append((node.lineno, a.asname or a.name.split(".")[0], a.name if a.asname else a.name.split(".")[0]))
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for a in node.names:
                if a.name != "*":
                    out.append((node.lineno, a.asname or a.name, f"{node.module}.{a.name}"))
    return sorted(out)


def _parts(call: ast.Call, kind: str, ev: _Eval):
    """(owner, name, lenient, value) for each target the call may name."""
    if kind in (_PATCH, _DICT):
        target = _arg(call, 0, "target" if kind == _PATCH else "in_dict")
        lenient = _lenient(call, "create", False, 3) if kind == _PATCH else False  # patch(target, new, spec, create)
        # a replacement only when ``new`` is given and the mock is not asked to build one
        value = _arg(call, 1, "new") if kind == _PATCH else None
        if kind == _PATCH and any(_given(call, k) for k in _MOCK_MADE):
            value = None
        for s in ev.strings(target) if target is not None else ():
            owner, _, name = s.rpartition(".")
            if owner and name:
                yield owner, name, lenient, value
        return
    if kind == _OBJECT:
        obj, attr, value = _arg(call, 0, "target"), _arg(call, 1, "attribute"), _arg(call, 2, "new")
        lenient = _lenient(call, "create", False, 4)  # patch.object(target, attribute, new, spec, create)
        if any(_given(call, k) for k in _MOCK_MADE):
            value = None
    else:  # monkeypatch: ``setattr("pkg.mod.name", value)`` or ``setattr(obj, "name", value)``
        lenient = _lenient(call, "raising", True)
        first = _arg(call, 0, "target")
        if first is None:
            return
        dotted_form = isinstance(first, (ast.Constant, ast.JoinedStr)) or (
            ev.strings(first) and not ev.objects(first))
        if dotted_form:
            value = _arg(call, 1, "name") if kind == _SETATTR else None
            for s in ev.strings(first):
                owner, _, name = s.rpartition(".")
                if owner and name:
                    yield owner, name, lenient, value
            return
        obj, attr = first, _arg(call, 1, "name")
        value = _arg(call, 2, "value") if kind == _SETATTR else None
        # setattr(target, name, value, raising) / delattr(target, name, raising)
        lenient = _lenient(call, "raising", True, 3 if kind == _SETATTR else 2)
    if obj is None or attr is None:
        return
    for owner in ev.objects(obj):
        for name in ev.strings(attr):
            yield owner, name, lenient, value
