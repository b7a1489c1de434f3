"""A use of a package in the project's code, as plain data: what the audit's first stage
(``uses.find_uses``) finds and its binding stage (``audit/bind.py``) binds.

A use is reached through a file's imports of the package (any alias):

- ``import``: an import of the package (``typing_only`` under ``if TYPE_CHECKING:``,
  ``fallback`` inside ``try/except ImportError``, ``last_resort`` in an ``except`` block whose own
  ``ImportError`` nothing catches);
- ``call``: a call of an API (``mpu.initialize(tp=2)`` through
  ``from pkg import parallel_state as mpu``), also the keywords (and positions) a
  project caller passes to a project function, method or subclass ``__init__`` that
  hands its ``**kwargs`` (``*args``) on to an upstream call, up to ``FORWARD_DEPTH``
  callables deep (``forwarding.py``);
- ``result``: a method called on what an API call returned
  (``b = X.make(); b.save(...)``);
- ``member``: an attribute or method of an upstream class used through a project
  object: ``self.x`` / ``self.m(...)`` / ``super().m(...)`` in a project class that
  subclasses it (any depth, across files), a method called on an instance of such
  a class, and ``self.…`` in a function patched onto the class;
- ``attribute``: a ``pkg.name`` read (a name a module ``__getattr__`` may serve with a warning);
- ``attribute`` with ``helper``: a name a test helper patches or deletes, written as a string
  (``mock.patch("pkg.mod.Cls.m")``, ``monkeypatch.setattr("pkg.mod.f", g)``) or as an object and a
  name (``mock.patch.object(Cls, "m")``, ``monkeypatch.delattr(Cls, "m")``): looked up when the patch
  starts (none where ``create=True`` / ``raising=False`` make a missing one fine; ``testpatches.py``);
- ``patch`` with ``helper``: the function, ``functools.partial`` or ``lambda`` such a helper puts in the
  name's place (``target`` the module or class it is on, decided when binding): a ``partial`` binds no
  instance (``on_instance``: what a caller passes reaches it as it is);
- ``patch``: a function assigned onto an upstream class (``Cls.m = f``,
  ``setattr(Cls, "m", f)``, or ``Cls.m = make(Cls.m)``: the ``def`` a factory of the
  file returns), with its parameters;
  also a function installed on an INSTANCE of an upstream class (``obj.m = f``,
  ``obj.m = functools.partial(f, obj, ...)``, ``obj.m = lambda ...``, ``obj`` a receiver typed
  from upstream, see below): ``on_instance``, ``params`` what a caller of ``obj.m`` meets (no
  ``self`` is bound; the positions and keywords ``partial`` fills are left out), ``target`` and
  ``steps`` the receiver's type; the parameter ``partial`` binds ``obj`` to is a receiver of that
  type inside the function;
- ``returned``: the ``return`` statements of such a patch (``Use.returns``: each one's line and the
  length of the tuple it returns, -1 for anything but a tuple display), checked against how
  upstream's own ``self.m(...)`` calls unpack the method's result;
- ``wrapped``: a call of the original method inside such a patch (``orig(self, ...)``,
  ``orig = Cls.m`` in the module, or the factory's parameter the call passes ``Cls.m`` to),
  with how the patch uses its result (``Use.results``);
- ``override``: a method a project subclass of an upstream class defines (``def m``),
  with its parameters (``self`` left out) and which of them have defaults: ``bind.py``
  checks it against the upstream base's ``m`` and against upstream's own ``self.m(...)``
  calls (constructors, ``__init__`` / ``__new__`` / ``__init_subclass__``, are not
  overrides in that sense: upstream calls them through the class, with the project's
  own arguments);
- ``init_skipped``: a project subclass's ``def __init__`` that runs no base constructor (no
  ``super().__init__``, ``Base.__init__(self)``, nor any other ``__init__`` reached from its class's methods),
  with what the project sets on ``self`` itself and the methods it calls on such an instance (in the
  project classes' own methods: ``self.m(...)``, ``super().m(...)``, ``Cls.m(self, ...)``; on an instance
  made elsewhere: ``x = Sub(...); x.m(...)``); ``bind.py`` asks which attributes the upstream constructor
  sets that those methods read;
- ``typed``: a method called on an attribute of ``self`` that the upstream base declares
  (``self.kind.g(self)``): its class is what upstream declares the attribute as;
- ``annotated``: a member read or called on a receiver typed from upstream inside a function
  (``receivers.py``): a parameter the project annotates with an upstream class
  (``def f(arg: click.Argument): arg.make_metavar()``; ``Optional[X]`` / ``X | None`` are
  ``X``), the result of an upstream call or of a project function whose return is annotated,
  an element iterated, ``with … as x``, ``isinstance`` narrowing; ``steps`` say how the
  receiver was reached from ``target`` (the model reads each from upstream's annotations).
  A name the function assigns more than one kind of value is not typed (``steps`` is
  ``("rebound",)``: counted unknown). In a method of a project subclass of an upstream class,
  ``self.x`` is typed from upstream's declaration of ``x`` (``_SelfAttrs``; ``steps`` start
  ``a:x``, ``attr`` is ``x``: no use at all where no version of the base has ``x``); PEP 484 type
  comments type parameters, returns and assignments that have no annotation. An unannotated
  parameter of a hook implementation is typed by upstream's hook specification of that name
  (``steps`` ``("hook:NAME", "p:PARAM", …)``); an unannotated parameter of a project function by what
  every caller gives it (``callsites.py``; ``steps`` ``("rebound", "callers:…")`` where they do not
  agree or the function escapes: counted unknown); ``getattr(x, "a")`` is a read of ``a`` (``guarded``
  with a default, and for ``hasattr``);
- ``hook``: a function that may implement one of upstream's hooks (``_hooks``): a module-level
  function, or a method of a module-level class, in a file that imports the package, or one
  decorated with a name the file binds to ``HookimplMarker(...)`` or imports from the project
  module that binds it (``from .plugin import hookimpl``, ``@plugin.hookimpl``); ``member`` the hook's name
  (``@hookimpl(specname="…")`` wins over the function's), ``params`` its parameters (``self``
  left out), ``defaults`` those with a default; ``optional`` when declared ``optionalhook=True``.
  ``bind.py`` checks it against the spec of that name, if upstream has one (else it is no use).

Nothing here knows the upstream source: ``bind.py`` binds the uses to it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from upgrade_checklists.project.calls import Call

IMPORT, CALL, RESULT, MEMBER, PATCH, ATTRIBUTE = "import", "call", "result", "member", "patch", "attribute"
OVERRIDE = "override"
TYPED = "typed"  # ``self.x.m(...)``: a method of the class upstream declares attribute ``x`` of (``Use.attr``)
ANNOTATED = "annotated"  # ``p.m(...)`` where the project annotates ``p: pkg.Cls``: a method of that class
HOOK = "hook"  # a function named like one of upstream's hook specifications: pluggy calls it with the spec's parameters
RETURNED = "returned"  # a patch's ``return`` statements (the tuples they give), against upstream's unpacking of ``self.m()``
WRAPPED = "wrapped"  # a call of the original method inside a patch that wraps it (``orig(self, ...)``)
#: a project subclass's ``__init__`` that runs no base constructor (``Use.names``: what the project sets on
#: ``self`` itself; ``Use.reached``: the upstream methods it calls on such an instance)
INIT_SKIPPED = "init_skipped"
#: how a wrapper uses the original method's result: ``out[i]``, ``out.x``, ``a, b = out``, ``for x in out``,
#: ``return out`` (handed on as it is), anything else (passed to a function, compared, ...)
RESULT_HOWS = ("index", "attribute", "unpack", "iterate", "return", "other")
PARAM_KINDS = ("positional-only", "positional or keyword", "variadic positional", "keyword-only", "variadic keyword")


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
    #: IMPORT in an ``except ImportError`` block no enclosing ``try`` catches, and the package's names its
    #: ``try`` block imports first (``()``: none of the package's)
    last_resort: bool = False
    tried: tuple[str, ...] = ()
    params: tuple[tuple[str, str], ...] = ()  # PATCH: the function's parameters (name, griffe kind)
    function_line: int = 0  # PATCH: where the function is defined
    function_file: str = ""  # PATCH: ... and in which file
    #: PATCH: under a ``hasattr(Cls, "m")`` test (applied only where upstream lacks it); ANNOTATED: read through
    #: ``getattr`` with a default or ``hasattr`` (its absence handled)
    guarded: bool = False
    guard_line: int | None = None  # PATCH and its MEMBER uses: the ``if`` around the assignment
    defaults: tuple[str, ...] = ()  # OVERRIDE (``params`` leaves ``self`` out) and PATCH: the parameters with a default
    #: OVERRIDE: ``"classmethod"`` / ``"staticmethod"`` for a method so decorated, ``""`` for a plain method
    binding: str = ""
    attr: str = ""  # TYPED: the attribute of ``self`` the method is called on (its class: the upstream declaration's)
    #: ANNOTATED: the steps from ``target`` to the receiver (``receivers.STEPS``; ``()``: ``target`` is its class)
    steps: tuple[str, ...] = ()
    #: WRAPPED: what the wrapper does with the wrapped method's result: (line, how, attribute) per use,
    #: ``how`` one of ``RESULT_HOWS``
    results: tuple[tuple[int, str, str], ...] = ()
    unevaluated: str = ""  # ATTRIBUTE: why the read never runs (an annotation Python does not evaluate, ``TYPE_CHECKING``)
    #: a bare name a ``from <upstream module> import *`` may bind (``pkg.mod.name``): a use only if the old
    #: version's ``pkg.mod`` has that name (the binding stage asks the model; the code alone cannot say)
    star: str = ""
    #: INIT_SKIPPED: the attributes and methods the project classes set or define on the instance themselves
    names: tuple[str, ...] = ()
    #: INIT_SKIPPED: the methods the project calls on such an instance: (method, line, file) of the first call each
    reached: tuple[tuple[str, int, str], ...] = ()
    #: CALL: what a caller passes to a project callable that hands it on (``**kwargs``, ``*args``) to
    #: ``target``; the project's own call of ``target`` is a use of its own, at the callable's line
    forwarded: bool = False
    #: PATCH: installed on an instance (``obj.m = f``): ``params`` are what a caller meets (no ``self`` bound)
    on_instance: bool = False
    #: RETURNED: ``(line, length)`` of each ``return`` of the patch (-1: not a tuple display)
    returns: tuple[tuple[int, int], ...] = ()
    #: RETURNED: ``(line, flag)`` of each ``return`` under ``if`` tests on the package's version
    #: (``flags.return_conditions``): the audit leaves out the ones the flag makes dead at the new version
    return_flags: tuple[tuple[int, str], ...] = ()
    #: ANNOTATED: called through the receiver's class with the receiver first (``type(x).m(x, ...)``)
    through_class: bool = False
    optional: bool = False  # HOOK: ``@hookimpl(optionalhook=True)``: no spec of that name is no error
    #: the ``if`` branches on the project's version flags around the use (``flags.Flags``), as one flag
    #: expression: the audit says a use in a branch the flag makes dead at the new version as ``info``
    flag: str = ""
    #: ANNOTATED: a use on one arm of a union of upstream classes: every arm (the audit says a problem the
    #: same call has on several arms once, naming them)
    arms: tuple[str, ...] = ()
    #: ATTRIBUTE and PATCH: written through a test helper (``mock.patch``, ``monkeypatch.setattr``, ...;
    #: ``testpatches.py``): the helper looks the name up when the patch starts, and undoes the patch after
    helper: str = ""


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


def mentions(text: str, words) -> bool:
    """Whether ``text`` holds one of ``words`` (a substring test: a prefilter before parsing)."""
    return any(w in text for w in words)
