"""Snippet matching on Python's ast (snippets.py): one test per rule."""

from __future__ import annotations

import textwrap

import ast

import pytest

from upgrade_checklists.project.snippets import SourceIndex, same_tree, snippet_units, verbatim_places

SOURCE = textwrap.dedent('''\
    import os
    from shop.cart import Basket as Cart, price_of

    REGISTRY = {"name": "shop", "tax": 0.2, "zones": ["eu", "us"]}


    class Till:
        @staticmethod
        @cached(size=8)
        def total(items, *, currency="EUR"):
            """Sum."""
            # a comment the snippet does not have
            basket = Cart(
                items,
                currency=currency,
                rounding=True,  # trailing comma, wrapped by a formatter
            )
            return basket.sum(precision=2)

        def receipt(self, order):
            lines = order.lines.copy()
            if self.printer.ready():
                self.printer.write(lines, width=80)
            return price_of(order, tax=REGISTRY["tax"])
''')


def where(snippet: str, source: str = SOURCE) -> list:
    """Per unit of the snippet: the (start, end) lines it matches, or the differences."""
    index = SourceIndex(source)
    out = []
    for unit in snippet_units(snippet):
        answer = index.match(unit)
        if answer.get("at"):
            out.append([(s[0], s[1]) for s in answer["at"]])
        else:
            out.append(answer["near"][1] if answer["near"] else None)
    return out


def test_wrapping_parentheses_trailing_commas_and_quotes_do_not_matter() -> None:
    assert where("basket = Cart(items, currency=currency, rounding=True)") == [[(13, 17)]]
    assert where("REGISTRY = {'name': 'shop', 'tax': 0.2, 'zones': ['eu', 'us',],}") == [[(4, 4)]]


def test_comments_and_blank_lines_do_not_count() -> None:
    assert where("# the basket\n\nbasket = Cart(\n    items,  # positional\n\n    currency=currency, rounding=True)\n") == [[(13, 17)]]


def test_ellipsis_alone_or_inline_matches_anything() -> None:
    assert where("basket = Cart(...)\n...\nreturn basket.sum(precision=2)") == [[(13, 17)], [(18, 18)]]
    assert where("basket = Cart(items, ...)") == [[(13, 17)]]
    assert where("basket = Cart(\n    items,\n    # ... and more options\n)") == [[(13, 17)]]


def test_placeholder_local_names_need_not_match() -> None:
    # `things`/`money` for `items`/`currency`; the call, keywords and literal are what count
    assert where("b = Cart(things, currency=money, rounding=True)") == [[(13, 17)]]
    # the code keeps the shown expression in a local first
    assert where("self.printer.write(order.lines.copy(), width=80)") == [[(23, 23)]]


def test_identifier_boundaries() -> None:
    # `Car` is not `Cart`, `sum` is not `summary`
    assert where("basket = Car(items, currency=currency, rounding=True)") == [None]
    assert where("basket.summary(precision=2)") == [None]


def test_each_statement_may_sit_anywhere_in_the_file() -> None:
    # an import at the top joined to a call far below
    assert where("from shop.cart import price_of\nprice_of(order, tax=REGISTRY['tax'])") == [[(2, 2)], [(24, 24)]]


def test_decorated_function_header_and_elided_body() -> None:
    assert where("@staticmethod\n@cached(size=8)\ndef total(items, *, currency='EUR'):\n    ...") == [[(8, 18)]]


def test_a_literal_argument_changed() -> None:
    assert where("basket = Cart(items, currency=currency, rounding=False)") == [["`rounding=False` is now `rounding=True`"]]


def test_a_keyword_gone_or_added() -> None:
    assert where("basket = Cart(items, currency=currency, rounding=True, strict=True)") == [["keyword `strict` is gone from `Cart(...)`"]]
    assert where("basket = Cart(items, currency=currency)") == [["`Cart(...)` now also passes `rounding`"]]


def test_an_import_gone_or_renamed() -> None:
    assert where("from shop.cart import Basket as Cart, discount") == [["`shop.cart.discount` is no longer imported there"]]
    assert where("from shop.cart import Basket as Bag") == [["`shop.cart.Basket` is now imported as `Cart` (not `Bag`)"]]


def test_an_attribute_gone() -> None:
    assert where("self.printer.flush(lines, width=80)") == [None]
    assert where("if self.printer.busy():\n    pass") == [None]


def test_a_call_that_is_nowhere_has_no_near_match() -> None:
    # a statement that only mentions the name (here: in a string) is not a near match
    assert where("Wallet(items)", 'x = "Wallet"\nWallet.open()\n') == [None]


def test_an_assignment_gone_is_not_near_another_that_wraps_the_call() -> None:
    # the documented assignment was deleted; what is left passes the same call, inside
    # another call, to another name: a different statement, not "`Cart` is now `wrap`"
    source = "totals = wrap([Cart(x) for x in xs], currency='USD')\n"
    assert where("mask = Cart(items, currency='USD')", source) == [None]
    # the same assignment whose value now wraps the call is the documented one changed
    source = "mask = wrap(Cart(items, currency='USD'))\n"
    assert where("mask = Cart(items, currency='USD')", source) == [["call `Cart(...)` is now `wrap(...)`"]]
    # the call itself assigned elsewhere stays a near match (its differences are the call's)
    assert where("mask = Cart(items, currency='USD')", "total = Cart(items)\n") == [
        ["keyword `currency` is gone from `Cart(...)`"]]


def test_conditional_expression_spelled_as_an_if_statement() -> None:
    source = "if critic:\n    cls = Scorer\nelse:\n    cls = Writer\n"
    assert where("cls = Scorer if critic else Writer", source) == [[(2, 2), (4, 4)]]


def test_dict_items_fragment() -> None:
    assert where('"name": "shop",\n"tax": 0.2,') == [[(4, 4)]]
    assert where('"name": "shop",\n"tax": 0.3,') == [["`0.3` is now `0.2`"]]


def test_verbatim_places_are_whitespace_insensitive() -> None:
    assert verbatim_places(SOURCE, "return basket.sum( precision=2 )") == [[18, 18]]
    assert verbatim_places(SOURCE, "lines = order.lines.copy()\n...\nreturn price_of(order, tax=REGISTRY[\"tax\"])") == [[21, 24]]
    assert verbatim_places(SOURCE, "return basket.total()") == []


def test_snippet_that_is_not_python_gives_no_unit() -> None:
    assert snippet_units("# only a comment\n# and another") == []
    assert snippet_units("$ pip install shop") == []


@pytest.mark.parametrize(("data", "same"), [
    (b"x = 1\n", True),
    ("name = 'caf\u00e9'  # \u00e9t\u00e9\n\u00e9 = name\n".encode(), True),  # columns are UTF-8 bytes in both
    (b"a = 1\r\nb = (2,\r\n     3)\r\n\x0cc = 4\n", True),  # CRLF and a form feed
    (b"# -*- coding: latin-1 -*-\nx = 1\n", True),  # a cookie over ASCII decodes the same
    ("# -*- coding: latin-1 -*-\nx = '\u00e9'\n".encode("latin-1"), False),  # not UTF-8
    ("#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\nx = '\u00e9'\n".encode(), False),  # a cookie on line 2
    ("x = '\u00e9'\n".encode("utf-8-sig"), False),  # a byte order mark
    (b"x = '\xff'\n", False),  # not UTF-8 at all
])
def test_same_tree_says_when_the_scan_parse_is_the_text_parse(data: bytes, same: bool) -> None:
    assert same_tree(data) is same
    if same:  # the claim itself: parsing the bytes and the text give one tree, positions included
        dump = lambda t: ast.dump(t, include_attributes=True)  # noqa: E731
        assert dump(ast.parse(data)) == dump(ast.parse(data.decode("utf-8")))


def test_an_index_built_on_a_given_tree_answers_as_one_that_parses() -> None:
    text = "import pkg\n\n\ndef f(x):\n    return pkg.call(x,\n                    key=1)\n"
    unit = snippet_units("pkg.call(x, key=1)")[0]
    assert SourceIndex(text, ast.parse(text.encode())).match(unit) == SourceIndex(text).match(unit) == {"at": [[5, 6, [5, 4], [6, 6], 4]]}  # the call, in `return` (5-6), in `f` (4-6)
