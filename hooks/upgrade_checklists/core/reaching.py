"""Which reads of a name an assignment may reach, in one function body, from its statements'
structure alone (no control-flow graph).

    x = first()            # A
    if cond:
        x = other()        # K: in another branch than R below -> A still reaches R
    use(x)                 # R: reached by A (and by K)
    x = third()            # K2: always runs before R2 -> A does not reach R2
    use(x)                 # R2

A read ``R`` is reached by the assignment ``A`` when ``R`` comes after ``A`` (a later statement
of a block holding both, or ``A``'s ``try`` body before its handlers, ``finally`` or ``else``, a
loop's body before its ``else``), or when both are in one loop (the next iteration), and no other
assignment of the name runs on every way from ``A`` to ``R``: one standing directly in a block
that holds ``R``, before ``R``'s statement there and after ``A``'s. Branches of one ``if`` (or
``match``) exclude each other. Reads inside nested functions, lambdas and classes are not
followed (they run at another time). What this says is "may": a reached read is one some run
can give ``A``'s value to.
"""

from __future__ import annotations

import ast

from upgrade_checklists.core.astwalk import BLOCKS

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
#: (statement, field): one step of a node's way down from the function (the field holding the next step)
Step = tuple[ast.AST, str, int]


def _ways(fn: ast.AST) -> dict[int, list[Step]]:
    """For each node of ``fn``'s own body (by ``id``): the steps from ``fn`` down to it, each
    ``(compound statement, block field, index in that block)``."""
    out: dict[int, list[Step]] = {}
    stack: list[tuple[ast.AST, list[Step]]] = [(fn, [])]
    while stack:
        node, way = stack.pop()
        for field, value in ast.iter_fields(node):
            if field in BLOCKS and type(value) is list:
                for i, child in enumerate(value):
                    step = [*way, (node, field, i)]
                    out[id(child)] = step
                    if isinstance(child, ast.ExceptHandler) or type(child).__name__ == "match_case":
                        stack.append((child, step))
                    elif not isinstance(child, _SCOPES):
                        stack.append((child, step))
                        for sub in ast.iter_child_nodes(child):
                            _expressions(sub, step, out)
    return out


def _expressions(node: ast.AST, way: list[Step], out: dict[int, list[Step]]) -> None:
    """The nodes of one statement's own expressions share the statement's way."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.stmt) or isinstance(n, ast.ExceptHandler) or type(n).__name__ == "match_case":
            continue  # a statement of a block: reached by ``_ways`` itself
        out[id(n)] = way
        if not isinstance(n, _SCOPES):
            stack.extend(ast.iter_child_nodes(n))


def _stores(fn: ast.AST, name: str) -> list[ast.stmt]:
    """The statements of ``fn``'s own body that bind ``name`` unconditionally when they run."""
    out = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and (node.value is not None or isinstance(node, ast.AugAssign)):
            targets = [node.target]
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == name for tgt in targets for t in ast.walk(tgt)):
            out.append(node)
    return out


def _after(a: list[Step], r: list[Step]) -> bool:
    """Whether the node at way ``r`` can run after the statement at way ``a`` (ignoring loops)."""
    for (sa, fa, ia), (sr, fr, ir) in zip(a, r):
        if sa is not sr:
            return False  # not reached: the ways cannot part below different statements
        if fa == fr:
            if ia != ir:
                return ir > ia
            continue
        if isinstance(sa, ast.Try) or type(sa).__name__ == "TryStar":
            order = {"body": 0, "handlers": 1, "orelse": 1, "finalbody": 2}
            if fa == "handlers" and fr == "orelse":
                return False
            return order.get(fr, 0) > order.get(fa, 0)
        if isinstance(sa, _LOOPS):
            return fa == "body" and fr == "orelse"
        return False  # two branches of one ``if`` / ``match``
    return False  # one inside the other: ``x = f(x)`` reads before it stores


def _in_one_loop(a: list[Step], r: list[Step]) -> bool:
    for (sa, fa, _ia), (sr, fr, _ir) in zip(a, r):
        if sa is not sr or fa != fr:
            return False
        if isinstance(sa, _LOOPS) and fa == "body":
            return True
    return False


def _same(x: Step, y: Step) -> bool:
    return x[0] is y[0] and x[1] == y[1] and x[2] == y[2]


def _kills(k: list[Step], a: list[Step], r: list[Step]) -> bool:
    """Whether the store at way ``k`` runs on every way from ``a`` to ``r``: it stands directly in
    a block that holds ``r``, before ``r``'s statement there, and after ``a``'s (or ``a`` is outside that block)."""
    if not k or len(k) > len(r):
        return False
    *above, (sk, fk, ik) = k
    if not all(_same(x, y) for x, y in zip(above, r)):
        return False
    sr, fr, ir = r[len(k) - 1]
    if sr is not sk or fr != fk or ir <= ik:
        return False  # ``r`` is not in ``k``'s block, or not after it
    if len(a) >= len(k) and all(_same(x, y) for x, y in zip(a, above)):
        sa, fa, ia = a[len(k) - 1]
        if sa is sk and fa == fk:
            return ia < ik  # ``a`` in that block too: ``k`` must come after it
    return True


def reached_reads(fn: ast.AST, assignment: ast.stmt, name: str) -> list[ast.Name]:
    """The reads of ``name`` in ``fn``'s own body that ``assignment`` (a statement of that body
    storing ``name``) may give its value to."""
    ways = _ways(fn)
    a = ways.get(id(assignment))
    if a is None:
        return []
    kills = [ways[id(s)] for s in _stores(fn, name) if s is not assignment and id(s) in ways]
    out = []
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        r = ways.get(id(node))
        if r is None:
            continue  # in a nested function, lambda or class
        if _after(a, r):
            if not any(_kills(k, a, r) for k in kills):
                out.append(node)
        elif _in_one_loop(a, r):
            out.append(node)
    return out
