"""Receivers typed from upstream (issue 25, items 2 and 6a): the type of a local name comes
from what the code assigns it (an upstream call with an annotated return, a project function
with one, an element iterated, ``with … as``, ``isinstance``), and reads of instance
attributes and properties an upstream class lost are REMOVED_API.

The fixture upstream ``fakepkg-shop`` (a local git repository, two tagged releases): between
them ``Item.ship`` gains a required ``carrier``; ``Item.__init__`` no longer sets ``price``;
``Basket.__init__`` no longer sets ``discount``; the ``Basket.total`` property is gone; and
``Base.__init__`` (which ``Store.__init__`` reaches through ``super().__init__``) no longer
sets ``region``."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from conftest import Repo
from upstream import audited_project, project_pyproject, tagged_upstream
from upgrade_checklists.audit.api import UpstreamModel
from upgrade_checklists.project.uses import ANNOTATED, RESULT, find_uses

SHOP_V1 = {
    "fakepkg/shop/__init__.py": "from fakepkg.shop.base import Base, Basket, Item, Store, checkout, open_basket, untyped_basket\n",
    "fakepkg/shop/base.py": '''
        from contextlib import contextmanager
        from typing import Iterator, Optional


        class Item:
            def __init__(self, name):
                self.name = name
                self.price = 0

            def ship(self, to):
                return to

            def label(self) -> str:
                return self.name


        class Basket:
            def __init__(self, owner):
                self.owner = owner
                self.discount = 0

            def items(self) -> "list[Item]":
                return []

            def by_name(self) -> dict[str, Item]:
                return {}

            def first(self) -> Optional[Item]:
                return None

            def untyped(self):
                return None

            @property
            def total(self) -> int:
                return 0

            def __enter__(self) -> "Basket":
                return self

            def __exit__(self, *exc):
                return False


        class Base:
            def __init__(self, region):
                self.region = region


        class Store(Base):
            def __init__(self):
                super().__init__("north")
                self.open = True


        def open_basket(owner) -> Basket:
            return Basket(owner)


        def untyped_basket(owner):
            return Basket(owner)


        @contextmanager
        def checkout(basket: Basket) -> Iterator[Item]:
            yield Item("x")


        LIMIT = 3
        ''',
}

SHOP_V2 = {
    **SHOP_V1,
    "fakepkg/shop/base.py": '''
        from contextlib import contextmanager
        from typing import Iterator, Optional


        class Item:
            def __init__(self, name):
                self.name = name

            def ship(self, to, carrier):
                return to

            def label(self) -> str:
                return self.name


        class Basket:
            def __init__(self, owner):
                self.owner = owner

            def items(self) -> "list[Item]":
                return []

            def by_name(self) -> dict[str, Item]:
                return {}

            def first(self) -> Optional[Item]:
                return None

            def untyped(self):
                return None

            def __enter__(self) -> "Basket":
                return self

            def __exit__(self, *exc):
                return False


        class Base:
            def __init__(self, region=None):
                pass


        class Store(Base):
            def __init__(self):
                super().__init__("north")
                self.open = True


        def open_basket(owner) -> Basket:
            return Basket(owner)


        def untyped_basket(owner):
            return Basket(owner)


        @contextmanager
        def checkout(basket: Basket) -> Iterator[Item]:
            yield Item("x")
        ''',
}

# Each function holds one receiver form; the comment on a line says what the audit must say there.
SHOP_PY = '''\
import fakepkg.shop as shop
from fakepkg.shop import Basket, Item, checkout, open_basket, untyped_basket


def make() -> Basket:
    return open_basket("me")


def make_items() -> "list[shop.Item]":
    return []


def from_call():
    b = open_basket("me")
    return b.total  # 15: REMOVED_API (property)


def from_project():
    b = make()
    return b.discount  # 20: REMOVED_API (instance attribute)


def chained():
    return open_basket("me").first().ship("a")  # 24: NEW_REQUIRED_PARAM (Optional[Item])


def loops(items: "list[Item]"):
    for it in open_basket("me").items():
        it.ship("b")  # 29: NEW_REQUIRED_PARAM
    for key, it2 in open_basket("me").by_name().items():
        it2.ship("c")  # 31: NEW_REQUIRED_PARAM
    for it3 in open_basket("me").by_name().values():
        it3.label()  # 33: binds, no finding
    for n, it4 in enumerate(items):
        it4.price  # 35: REMOVED_API (instance attribute)
    return [x.ship("d") for x in make_items()]  # 36: NEW_REQUIRED_PARAM


def with_forms():
    with open_basket("me") as b:
        b.discount  # 41: REMOVED_API
    with checkout(b) as it:
        it.ship("e")  # 43: NEW_REQUIRED_PARAM


def narrowing(x, y):
    if isinstance(x, Item):
        x.ship("f")  # 48: NEW_REQUIRED_PARAM
    x.ship("g")  # 49: not typed: no use
    if isinstance(y, (Item, Basket)):
        y.ship("h")  # 51: a union: no use
    if isinstance(y, Item):
        y = Item("z")
        y.ship("i")  # 54: assigned in the body: not narrowed (and y is rebound: counted)


def inherited(store: shop.Store):
    return store.region, store.open  # 58: REMOVED_API (set by Base.__init__ through super().__init__)


def rebound():
    it = open_basket("me").first()
    it = "text"
    it.ship("j")  # 64: rebound: counted unknown, never typed by the first assignment


def unknowns():
    untyped_basket("me").discount  # 68: no return annotation: counted unknown
    open_basket("me").untyped().ship("k")  # 69: counted unknown
    for key in open_basket("me").by_name():
        key.ship("l")  # 71: a str (the dict's key) at both versions, which has no ``ship``: already broken
    c = open_basket("me")
    c.untyped()  # 73: a RESULT use (``c = api()``) already: not a second use
'''

CHECKLIST = (
    "---\npackage: fakepkg-shop\ngithub: example/fakepkg-shop\nbranch_template: v${VERSION}\n"
    "upstream_paths:\n  - fakepkg/shop/\nimport_names:\n  - fakepkg.shop\n---\n\n"
    "## Affected Files\n\n### Primary\n\n| File | Imports / Usage |\n| --- | --- |\n"
    "| `app/shop.py` | `Basket` |\n\n"
    "### Secondary\n\n_None._\n\n### Tertiary\n\n_None._\n\n## API Usage Catalog\n\n_None._\n\n"
    "## Version-Guarded Code\n\n_None._\n"
)


def _uses(src: str, modules=("fakepkg.shop",)):
    return find_uses({"app/shop.py": (src, ast.parse(src))}, list(modules))


def test_each_receiver_form_is_a_use_with_its_steps() -> None:
    got = sorted((u.line, u.target, u.member, u.steps) for u in _uses(SHOP_PY) if u.kind == ANNOTATED)
    base = "fakepkg.shop.open_basket"
    assert got == [
        (15, base, "total", ("call",)),  # b = open_basket(...): an upstream call
        (20, "fakepkg.shop.Basket", "discount", ()),  # b = make(): the project function's annotated return
        (24, base, "first", ("call",)),
        (24, base, "ship", ("call", "m:first")),
        (28, base, "items", ("call",)),
        (29, base, "ship", ("call", "m:items", "iter")),
        (30, base, "by_name", ("call",)),
        (30, base, "items", ("call", "m:by_name")),
        (31, base, "ship", ("call", "m:by_name", "m:items", "iter", "u1")),
        (32, base, "by_name", ("call",)),
        (32, base, "values", ("call", "m:by_name")),
        (33, base, "label", ("call", "m:by_name", "m:values", "iter")),
        (35, "fakepkg.shop.Item", "price", ()),  # enumerate(items: list[Item]): the project generic, stepped here
        (36, "fakepkg.shop.Item", "ship", ()),  # make_items() -> list[shop.Item], iterated
        (41, base, "discount", ("call", "enter")),
        (43, "fakepkg.shop.checkout", "ship", ("call", "enter")),
        (48, "fakepkg.shop.Item", "ship", ()),  # narrowed by isinstance
        (51, "fakepkg.shop.Item", "ship", ("rebound",)),  # y: a parameter without annotation, and an Item
        (54, "fakepkg.shop.Item", "ship", ("rebound",)),
        (58, "fakepkg.shop.Store", "open", ()),
        (58, "fakepkg.shop.Store", "region", ()),
        (62, base, "first", ("call",)),
        (64, base, "ship", ("rebound",)),
        (68, "fakepkg.shop.untyped_basket", "discount", ("call",)),
        (69, base, "ship", ("call", "m:untyped")),
        (69, base, "untyped", ("call",)),
        (70, base, "by_name", ("call",)),
        (71, base, "ship", ("call", "m:by_name", "iter")),
    ]
    # ``c = open_basket(...); c.untyped()`` stays the RESULT use it was, once; ``y = Item("z")`` in
    # ``narrowing`` no longer makes every ``y.m()`` of the file (51: y may be a Basket) a RESULT use
    assert [(u.line, u.member) for u in _uses(SHOP_PY) if u.kind == RESULT] == [(73, "untyped")]


@pytest.mark.parametrize("src", [
    # assigned an upstream object and something else: not typed by the first assignment
    "from pkg import make\n\ndef f():\n    x = make()\n    x = 3\n    return x.size\n",
    "from pkg import make\n\ndef f(x):\n    x = make()\n    return x.size\n",  # a parameter without annotation
    "from pkg import make\n\ndef f():\n    x = make()\n    x += 1\n    return x.size\n",
    "from pkg import make\n\ndef f():\n    for x in make().all():\n        pass\n    x = None\n    return x.size\n",
    # assigned in a closure (``nonlocal``)
    "import pkg\n\ndef f(x: pkg.Thing):\n    def g():\n        nonlocal x\n        x = 1\n    g()\n    return x.size\n",
])
def test_a_name_rebound_in_the_function_is_counted_not_typed(src: str) -> None:
    got = [(u.member, u.steps) for u in _uses(src, ["pkg"]) if u.kind == ANNOTATED and u.member == "size"]
    assert got == [("size", ("rebound",))]


@pytest.mark.parametrize("src", [
    "import pkg\n\ndef f(x: int):\n    return x.size\n",  # annotated, not upstream's
    "import pkg\n\ndef f(x):\n    return x.size\n",  # not annotated
    "import pkg\n\ndef f():\n    x = other()\n    return x.size\n",  # neither upstream nor a project function
    "import pkg\n\ndef make():\n    return pkg.Thing()\n\ndef f():\n    return make().size\n",  # no return annotation
    "import pkg\n\ndef f(x):\n    if isinstance(x, int):\n        return x.size\n",  # narrowed to a builtin
    "import pkg\n\ndef f(x):\n    if not isinstance(x, pkg.Thing):\n        return x.size\n",  # negated
    "import pkg\n\ndef f(x):\n    if isinstance(x, pkg.Thing):\n        pass\n    else:\n        return x.size\n",
    "import pkg\n\ndef f(x: pkg.Thing):\n    def g(x):\n        return x.size\n    return g\n",  # g's own x
    "import pkg\n\ndef f():\n    return pkg.mod.size\n",  # a name of the package, not a receiver
])
def test_no_receiver_type_where_the_code_does_not_give_one(src: str) -> None:
    assert [u for u in _uses(src, ["pkg"]) if u.kind == ANNOTATED and u.member == "size"] == []


def test_a_closure_reads_the_type_of_the_enclosing_functions_name() -> None:
    src = "import pkg\n\ndef f(x: pkg.Thing):\n    def g():\n        return x.size\n    return g\n"
    assert [(u.line, u.target, u.member, u.steps) for u in _uses(src, ["pkg"]) if u.kind == ANNOTATED] == [
        (5, "pkg.Thing", "size", ())]


def test_the_steps_of_a_use_survive_the_use_cache() -> None:
    from upgrade_checklists.project.usecache import from_record, to_record

    uses = [u for u in _uses(SHOP_PY) if u.kind == ANNOTATED]
    back = from_record(to_record(uses))
    assert [(u.line, u.target, u.member, u.steps, u.via) for u in back] == [
        (u.line, u.target, u.member, u.steps, u.via) for u in uses]
    record = to_record(uses[:1])
    record[0]["steps"] = "call"  # not a tuple of strings: not read back
    assert from_record(record) is None


def test_a_decorator_on_a_nested_function_runs_in_the_enclosing_function() -> None:
    src = ("import pkg\n\ndef add(cli: pkg.Group):\n    @cli.command(name='x')\n    def go(cli=cli.default):\n"
           "        return cli.size\n    return go\n")
    got = [(u.line, u.member) for u in _uses(src, ["pkg"]) if u.kind == ANNOTATED]
    assert got == [(4, "command"), (5, "default")]  # the body's ``cli`` is another name (a parameter of ``go``)


def test_a_project_function_defined_in_another_file_gives_its_annotated_return() -> None:
    maker = "from pkg import Thing\n\ndef make() -> Thing:\n    return Thing()\n"
    user = "import pkg\nfrom app.maker import make\n\ndef f():\n    return make().size\n"
    uses = find_uses({"app/maker.py": (maker, ast.parse(maker)), "app/user.py": (user, ast.parse(user))}, ["pkg"])
    assert [(u.file, u.target, u.member, u.steps) for u in uses if u.kind == ANNOTATED] == [
        ("app/user.py", "pkg.Thing", "size", ())]


# -- the model: each step read from upstream's annotations ------------------------------------


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> tuple[UpstreamModel, UpstreamModel]:
    out = []
    for files in (SHOP_V1, SHOP_V2):
        root = tmp_path_factory.mktemp("shop")
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(textwrap.dedent(text).lstrip("\n"))
        out.append(UpstreamModel([root], ["fakepkg.shop"]))
    return out[0], out[1]


@pytest.mark.parametrize("start, steps, cls", [
    ("fakepkg.shop.open_basket", ("call",), "fakepkg.shop.base.Basket"),
    ("fakepkg.shop.Basket", ("call",), "fakepkg.shop.base.Basket"),  # a class called: its instance
    ("fakepkg.shop.Basket", (), "fakepkg.shop.base.Basket"),  # a class as an annotation names it
    ("fakepkg.shop.open_basket", ("call", "m:first"), "fakepkg.shop.base.Item"),  # Optional[Item]
    ("fakepkg.shop.open_basket", ("call", "m:items", "iter"), "fakepkg.shop.base.Item"),  # "list[Item]", as text
    ("fakepkg.shop.open_basket", ("call", "m:items", "item"), "fakepkg.shop.base.Item"),
    ("fakepkg.shop.open_basket", ("call", "m:by_name", "m:values", "iter"), "fakepkg.shop.base.Item"),
    ("fakepkg.shop.open_basket", ("call", "m:by_name", "m:items", "iter", "u1"), "fakepkg.shop.base.Item"),
    ("fakepkg.shop.open_basket", ("call", "m:by_name", "item"), "fakepkg.shop.base.Item"),
    ("fakepkg.shop.open_basket", ("call", "enter"), "fakepkg.shop.base.Basket"),  # __enter__ -> "Basket"
    ("fakepkg.shop.checkout", ("call", "enter"), "fakepkg.shop.base.Item"),  # a context manager's Iterator[Item]
    ("fakepkg.shop.Item", ("call", "enter"), None),  # no __enter__
    ("fakepkg.shop.untyped_basket", ("call", "enter"), None),  # not known what it returns
    ("fakepkg.shop.Item", ("call", "m:label"), "builtins.str"),  # a builtin: no use of upstream
    # what a builtin's method gives is some builtin, which one not said (``str.split`` gives a list)
    ("fakepkg.shop.Item", ("call", "m:label", "m:upper", "m:strip"), "builtins.object"),
    ("fakepkg.shop.open_basket", ("call", "m:by_name", "iter"), "builtins.str"),  # the keys
    ("fakepkg.shop.open_basket", ("call", "m:by_name", "m:keys", "iter"), "builtins.str"),
    ("fakepkg.shop.open_basket", ("call", "m:by_name", "m:items", "iter", "u0"), "builtins.str"),
    ("fakepkg.shop.open_basket", ("call", "m:by_name", "m:get"), "fakepkg.shop.base.Item"),  # a dict's value
    ("fakepkg.shop.open_basket", ("call", "m:items", "m:pop"), "fakepkg.shop.base.Item"),  # a list's element
    ("fakepkg.shop.open_basket", ("call", "m:items", "m:copy"), "builtins.object"),
    ("fakepkg.shop.untyped_basket", ("call",), None),  # no return annotation
    ("fakepkg.shop.open_basket", ("call", "m:untyped"), None),
    ("fakepkg.shop.open_basket", ("call", "m:nothing"), None),  # no such method
    ("fakepkg.shop.open_basket", ("call", "m:items"), "builtins.list"),  # a builtin container: not upstream's
    ("fakepkg.shop.open_basket", ("call", "m:by_name", "m:items"), "builtins.object"),  # a view of a dict, not a dict
    ("fakepkg.shop.open_basket", ("call", "iter"), None),  # a Basket has no __iter__
    ("fakepkg.shop.open_basket", ("call", "m:total"), None),  # a property is read, not called
    ("fakepkg.shop.open_basket", ("call", "call"), None),
    ("fakepkg.shop.base.LIMIT", ("call", "m:first"), None),  # an attribute called: not known (it crashed)
])
def test_receiver_class_reads_each_step_from_upstream(models, start, steps, cls) -> None:
    got = models[0].receiver_class(start, steps)
    assert (got.path if got is not None else None) == cls


def test_instance_attributes_and_properties_are_members(models) -> None:
    old, new = models
    basket_old, basket_new = old.lookup("fakepkg.shop.Basket"), new.lookup("fakepkg.shop.Basket")
    assert old.member(basket_old, "discount") is not None and new.member(basket_new, "discount") is None
    assert old.member(basket_old, "total") is not None and new.member(basket_new, "total") is None
    store_old, store_new = old.lookup("fakepkg.shop.Store"), new.lookup("fakepkg.shop.Store")
    assert old.member(store_old, "region") is not None and new.member(store_new, "region") is None  # through super().__init__
    assert new.member(store_new, "open") is not None
    # where the old version set it: Basket.__init__'s ``self.discount = 0``, Base.__init__'s ``self.region = region``
    assert old.defined_at("fakepkg.shop.base.Basket.discount") == "fakepkg/shop/base.py:20"
    assert old.defined_at("fakepkg.shop.base.Base.region") == "fakepkg/shop/base.py:47"


# -- the audit, end to end ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tagged_upstream(tmp_path_factory.mktemp("shop-upstream"), "fakepkg-shop", [("1.0.0", SHOP_V1), ("2.0.0", SHOP_V2)])


@pytest.fixture
def project(tmp_path: Path, capsys, upstreams: Path) -> Repo:
    return audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/shop.py": SHOP_PY, "checklists/fakepkg-shop.md": CHECKLIST,
        "pyproject.toml": project_pyproject("fakepkg-shop", upstreams, "1.0.0")})


def test_the_audit_binds_uses_on_typed_receivers(project: Repo, upstreams: Path) -> None:
    project.write("pyproject.toml", project_pyproject("fakepkg-shop", upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert r.code == 1
    got = {}
    for line in r.lines:
        if line.startswith("app/shop.py:"):
            where, code, msg = line.split(" ", 2)
            got.setdefault(int(where.split(":")[1]), []).append((code, msg.rsplit(" (checklists/", 1)[0]))
    ship = ("NEW_REQUIRED_PARAM", "`fakepkg.shop.base.Item.ship`: `carrier` is required at 2.0.0 and this call does not pass it")
    req = {line: [c for c, _m in got.get(line, [])] for line in (24, 29, 31, 36, 43, 48)}
    assert req == {line: ["NEW_REQUIRED_PARAM"] for line in (24, 29, 31, 36, 43, 48)}
    assert got[29][0][1].startswith(ship[1] + " (`it` is an element of `fakepkg.shop.open_basket().items()` in `loops`: "
                                    "a `fakepkg.shop.base.Item`)")
    removed = {line: [m for c, m in got.get(line, []) if c == "REMOVED_API"] for line in (15, 20, 35, 41, 58)}
    assert removed == {
        15: ["`fakepkg.shop.base.Basket.total` (defined at fakepkg/shop/base.py:35) was removed at 2.0.0 "
             "(`b` is `fakepkg.shop.open_basket()` in `from_call`: a `fakepkg.shop.base.Basket`)"],
        20: ["`fakepkg.shop.base.Basket.discount` (defined at fakepkg/shop/base.py:20) was removed at 2.0.0 "
             "(`b` is a `fakepkg.shop.Basket` in `from_project`)"],
        35: ["`fakepkg.shop.base.Item.price` (defined at fakepkg/shop/base.py:8) was removed at 2.0.0 "
             "(`it4` is a `fakepkg.shop.Item` in `loops`)"],
        41: ["`fakepkg.shop.base.Basket.discount` (defined at fakepkg/shop/base.py:20) was removed at 2.0.0 "
             "(`b` is `with fakepkg.shop.open_basket()` in `with_forms`: a `fakepkg.shop.base.Basket`)"],
        58: ["`fakepkg.shop.base.Store.region` (defined at fakepkg/shop/base.py:47) was removed at 2.0.0 "
             "(`store` annotated `fakepkg.shop.Store` in `inherited`)"],
    }
    # the negative cases say nothing: not narrowed, a union, rebound, not annotated, a str
    assert not any(line in got for line in (33, 49, 51, 54, 64, 68, 69, 73))
    # ``key.ship()`` on a str (the dict's key at both versions): a str has no `ship`, but neither had the old one
    assert got[71] == [("REMOVED_API", "[info] `ship`(): a `str` has no attribute `ship` (`key` is an element of "
                        "`fakepkg.shop.open_basket().by_name()` in `unknowns`: a `str` at 2.0.0; a `str` at the old "
                        "version: already broken, not a change of this upgrade)")]
    # ... and are counted: 51, 54 and 64 (rebound), 68 and 69 (no annotation); the ``.items()`` / ``.values()``
    # of the dict ``by_name()`` returns (30, 32) are no uses of upstream
    cov = next(line for line in r.lines if "uses found" in line)
    assert "3 a receiver the function assigns more than one kind of value" in cov
    assert "2 the class of a receiver reached from upstream is not known" in cov
    # a second audit takes the model's answers (receiver_class, defined_at) from its cache: the same report
    again = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert (again.code, again.lines) == (r.code, r.lines)


# a parameter annotated with a union of upstream classes: a use on each (what one lacks is counted unknown)
EITHER_PY = '''\
from typing import Optional, Union

from fakepkg.shop import Basket, Item


class Mine:
    pass


def either(x: Union[Item, Basket], y: "Item | Basket | None", z: Union[Item, Mine], w: Optional[Union[Item, Item]]):
    x.ship("m")  # 11: NEW_REQUIRED_PARAM on the Item arm; a Basket has no ship: counted unknown
    y.owner  # 12: binds on the Basket arm; an Item has no owner: counted unknown
    z.ship("n")  # 13: a union with a project class: no use
    w.ship("o")  # 14: Item twice is Item: NEW_REQUIRED_PARAM
    return x.first().label()  # 15: a step through each arm
'''


def test_a_union_of_upstream_classes_is_a_use_on_each_arm() -> None:
    got = sorted((u.line, u.target, u.member, u.steps, u.via) for u in _uses(EITHER_PY) if u.kind == ANNOTATED)
    either = "`{}` annotated `fakepkg.shop.Item | fakepkg.shop.Basket` in `either`: a `fakepkg.shop.{}`"
    assert got == [
        (11, "fakepkg.shop.Basket", "ship", (), either.format("x", "Basket")),
        (11, "fakepkg.shop.Item", "ship", (), either.format("x", "Item")),
        (12, "fakepkg.shop.Basket", "owner", (), either.format("y", "Basket")),
        (12, "fakepkg.shop.Item", "owner", (), either.format("y", "Item")),
        (14, "fakepkg.shop.Item", "ship", (), "`w` annotated `fakepkg.shop.Item` in `either`"),
        (15, "fakepkg.shop.Basket", "first", (), either.format("x", "Basket")),
        (15, "fakepkg.shop.Basket", "label", ("m:first",), "`x.first()` is `fakepkg.shop.Basket.first()` in `either`"),
        (15, "fakepkg.shop.Item", "first", (), either.format("x", "Item")),
        (15, "fakepkg.shop.Item", "label", ("m:first",), "`x.first()` is `fakepkg.shop.Item.first()` in `either`"),
    ]


def test_the_audit_checks_each_arm_of_a_union(tmp_path: Path, capsys, upstreams: Path) -> None:
    project = audited_project(tmp_path / "project", capsys, {
        "app/__init__.py": "", "app/either.py": EITHER_PY, "checklists/fakepkg-shop.md": CHECKLIST,
        "pyproject.toml": project_pyproject("fakepkg-shop", upstreams, "1.0.0")})
    project.write("pyproject.toml", project_pyproject("fakepkg-shop", upstreams, "2.0.0"))
    r = project.run("audit", "--cache-dir", str(project.cache), "-v")
    assert r.code == 1
    got = sorted(line.rsplit(" (checklists/", 1)[0] for line in r.lines if line.startswith("app/either.py:"))
    carrier = "NEW_REQUIRED_PARAM `fakepkg.shop.base.Item.ship`: `carrier` is required at 2.0.0 and this call does not pass it"
    assert got == [
        f"app/either.py:11:1: {carrier} (`x` annotated `fakepkg.shop.Item | fakepkg.shop.Basket` in `either`: "
        "a `fakepkg.shop.Item`)",
        f"app/either.py:14:1: {carrier} (`w` annotated `fakepkg.shop.Item` in `either`)",
    ]
    # Basket.ship (11), Item.owner (12), Basket.first (15) are not upstream's; so the class of what
    # Basket.first() gives (15, its label) is not known: all counted
    cov = next(line for line in r.lines if "uses found" in line)
    assert "4 unknown (3 not found in the loaded upstream source, 1 the class of a receiver reached from upstream is not known)" in cov


EARLY_PY = '''\
from fakepkg.shop import Item


def asserted(x):
    assert isinstance(x, Item)
    x.ship("a")  # 6: narrowed by the assert


def early(x, y):
    if not isinstance(x, Item):
        return None
    x.ship("b")  # 12: narrowed: the if leaves the function otherwise
    if not isinstance(y, Item) or not y:
        raise TypeError(y)
    y.ship("c")  # 15: narrowed by one arm of the `or`
    x = None
    x.ship("d")  # 17: assigned since: not narrowed any more


def not_leaving(x):
    if not isinstance(x, Item):
        print(x)
    x.ship("e")  # 23: the body does not leave: not narrowed


def in_loop(xs):
    for x in xs:
        if not isinstance(x, Item):
            continue
        x.ship("f")  # 30: narrowed for the rest of the loop body
    x.ship("g")  # 31: after the loop: not narrowed
'''


def test_a_test_that_leaves_or_an_assert_narrows_what_follows() -> None:
    got = sorted((u.line, u.target, u.member, u.via) for u in _uses(EARLY_PY) if u.kind == ANNOTATED)
    assert [(line, target, member) for line, target, member, _via in got] == [
        (6, "fakepkg.shop.Item", "ship"), (12, "fakepkg.shop.Item", "ship"), (15, "fakepkg.shop.Item", "ship"),
        (30, "fakepkg.shop.Item", "ship")]
    assert got[0][3] == "`x` narrowed by `assert isinstance(x, fakepkg.shop.Item)` in `asserted`"
    assert got[1][3] == "`x` narrowed by `if not isinstance(x, fakepkg.shop.Item): return` in `early`"
