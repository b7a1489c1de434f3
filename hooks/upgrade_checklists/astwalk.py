"""``ast.walk`` without its nested generators: the same nodes in the same order
(breadth first), about three times faster. The scanners walk every node of every
file they parse, so this is on the check's cold path."""

from __future__ import annotations

import ast
from collections import deque
from typing import Iterator

_AST = ast.AST


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node below ``node`` (itself first), in ``ast.walk``'s order."""
    todo = deque([node])
    pop, push = todo.popleft, todo.append
    while todo:
        node = pop()
        for name in node._fields:
            v = getattr(node, name, None)
            if type(v) is list:
                for x in v:
                    if isinstance(x, _AST):
                        push(x)
            elif isinstance(v, _AST):
                push(v)
        yield node
