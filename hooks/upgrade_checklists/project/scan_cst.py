"""The libcst path of the scanner, for files the running ``ast`` cannot parse.

libcst's parser carries its own grammar, so a hook running on Python 3.10 still
reads a file written with 3.12 syntax. Slower than ``ast``: used only on failure.
"""

from __future__ import annotations

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import MetadataWrapper, PositionProvider

from upgrade_checklists.project.scan import Facts, Import


class _Visitor(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, facts: Facts, full: bool) -> None:
        super().__init__()
        self.facts = facts
        self.full = full
        self.chains: list[tuple[str, int]] = []

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def visit_Import(self, node: cst.Import) -> None:
        for a in node.names:
            name = get_full_name_for_node(a.name) or ""
            asname = a.asname.name.value if a.asname and isinstance(a.asname.name, cst.Name) else None
            head = name.split(".")[0]
            if asname:
                imp = Import(name, asname, name, self._line(node), name)
            else:
                imp = Import(name, head, name, self._line(node), head)
            self.facts.imports.append(imp)
            self.facts.names.add(imp.bound)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None:
            return
        module = get_full_name_for_node(node.module) or ""
        if isinstance(node.names, cst.ImportStar):
            self.facts.imports.append(Import(module, "*", "*", self._line(node), module))
            return
        for a in node.names:
            name = get_full_name_for_node(a.name) or ""
            asname = a.asname.name.value if a.asname and isinstance(a.asname.name, cst.Name) else None
            q = f"{module}.{name}"
            self.facts.imports.append(Import(q, asname or name, name, self._line(node), q))
            self.facts.names.add(asname or name)

    def visit_Expr(self, node: cst.Expr) -> bool:
        # docstrings and bare strings are comments
        return not isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString))

    def visit_Name(self, node: cst.Name) -> None:
        if self.full:
            self.facts.names.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self.full:
            full = get_full_name_for_node(node)
            if full:
                self.chains.append((full, self._line(node)))

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if self.full:
            value = node.evaluated_value
            if isinstance(value, str):
                self.facts.strings.add(value)


def scan(rel: str, source: str, full: bool) -> Facts:
    facts = Facts(rel, full=full)
    visitor = _Visitor(facts, full)
    MetadataWrapper(cst.parse_module(source)).visit(visitor)
    if full:
        bound = {imp.bound: imp.target for imp in facts.imports}
        for dotted, line in visitor.chains:
            head, _, rest = dotted.partition(".")
            if head in bound:
                facts.attributes.setdefault(f"{bound[head]}.{rest}", line)
    return facts
