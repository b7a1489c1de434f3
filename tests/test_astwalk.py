"""``astwalk``: the same nodes as ``ast.walk``, in the same order; ``statements`` only the
blocks (every statement, none missed, in ``ast.walk``'s relative order)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from upgrade_checklists.core.astwalk import imports, statements, walk
from upgrade_checklists.project.calls import statement_calls

SOURCE = textwrap.dedent('''
    import a, b.c as d
    from e import (f, g as h)

    @decorate(x())
    class C(Base, metaclass=M):
        import inside_class
        def m(self, x=default()):
            if x:
                from .rel import y
                return [lambda: (yield_ := z()) for z in y()]
            elif other():
                while w():
                    for i in range(3):
                        try:
                            import j
                        except (ImportError, KeyError) as exc:
                            import k
                        else:
                            pass
                        finally:
                            del i
            else:
                with open(p()) as fh, ctx():
                    async def inner():
                        async with lock():
                            async for q in aiter():
                                await q.run()
            match x:
                case [1, *rest] if guard():
                    import in_case
                case {"k": v}:
                    print(v)
                case _:
                    raise ValueError(message())

    try:
        import late
    except* OSError:
        import also_late
    global_call(nested(deep()))
    ''')


@pytest.fixture
def tree() -> ast.Module:
    return ast.parse(SOURCE)


def test_walk_is_ast_walk(tree: ast.Module) -> None:
    assert list(walk(tree)) == list(ast.walk(tree))


def test_statements_are_ast_walks_statements_in_its_order(tree: ast.Module) -> None:
    kinds = (ast.stmt, ast.excepthandler, ast.match_case)
    assert [n for n in statements(tree)][1:] == [n for n in ast.walk(tree) if isinstance(n, kinds)]
    fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    assert [n for n in statements(fn)] == [n for n in ast.walk(fn) if n is fn or isinstance(n, kinds)]


def test_imports_in_ast_walks_order_and_kept(tree: ast.Module) -> None:
    got = imports(tree)
    names = [a.name for n in got for a in n.names]
    # breadth first: by depth (class body 2, except body 3, if body 4, case body 5, ... try in a loop 8)
    assert names == ["a", "b.c", "f", "g", "inside_class", "late", "also_late", "y", "in_case", "j", "k"]
    assert got == [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert imports(tree) is got  # computed once


def test_statement_calls_as_a_statement_by_statement_walk(tree: ast.Module) -> None:
    """Each statement's calls: all of a simple one, only a compound one's header."""
    want = []
    for stmt in ast.walk(tree):
        if not isinstance(stmt, ast.stmt):
            continue
        simple = isinstance(stmt, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Raise, ast.Assert, ast.Delete))
        roots = [stmt] if simple else [x for f in ("test", "iter", "items", "subject", "value", "decorator_list")
                                         for r in [getattr(stmt, f, None)] if r for x in (r if isinstance(r, list) else [r])]
        want += [(stmt, n, stmt if simple else n) for r in roots for n in ast.walk(r) if isinstance(n, ast.Call)]
    got = statement_calls(tree)
    assert got == want
    assert {ast.unparse(c.func) for _s, c, _w in got} >= {"decorate", "x", "other", "w", "range", "open", "p", "ctx", "q.run",
                                                          "print", "ValueError", "message", "global_call", "deep", "z", "y"}
    assert "guard" not in {ast.unparse(c.func) for _s, c, _w in got}  # a case's guard is no statement's header
    assert statement_calls(tree) is got  # computed once
