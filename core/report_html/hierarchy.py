"""The icicle chart's tree: model -> modules -> functions -> lines -> operators -> units.

Each operator is placed on one path: its first ``nn_module`` parent and that module's first-parent
chain up to the top (a single top-level module is the model node itself), then the function and
the code line of its innermost frame (the first ``code_stack`` parent's ``code_line``; the
function is the qualified name the source text gives that line, else the frame's ``function``
attribute, else the file name), then the operator. The sized leaves are the operators' *units*
(``result_index``): a unit that belongs to one operator hangs below it (or is the operator
itself); a unit shared by several operators (a chain over two operators) hangs below the deepest
node all of them share, so its figure is drawn once and never split by guesswork. A node's size
is the sum of the units below it; its own figure from the document is shown beside. Nodes that
hold no positive figure are left out. Output is flat, in pre-order, children largest first;
sizes go through the view's scale of figures (their labels), and each node's share of its
parent is a text (``figure_text.format_share``) in a list of distinct shares. Linear in
operators plus path lengths.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from perfline.core.figure_text import format_share
from perfline.core.report_html.entity_table import EntityTable
from perfline.core.report_html.page_texts import Scale, Texts
from perfline.core.report_html.result_index import ResultIndex

MODULE_KIND = "nn_module"
NODE_KINDS = ("model", "module", "function", "line", "operator", "unit")
_MAX_SPAN_LISTED = 50


@dataclass(frozen=True)
class LineRef:
    """The source line of an operator's innermost frame."""

    code_line: str
    file: str
    line: int
    frame_function: str | None


@dataclass
class _Node:
    parent: int
    kind: str
    entity: str | None
    label: str | None
    depth: int
    size: float = 0.0
    spans: list[str] = field(default_factory=list)


def operator_line(index: ResultIndex, operator: str) -> LineRef | None:
    """The code line of ``operator``'s innermost recorded frame, if any."""
    for frame in index.parents_of_kind(operator, "code_stack"):
        for line in index.parents_of_kind(frame, "code_line"):
            return _line_ref(index, line, index.attributes(frame).get("function"))
    for line in index.parents_of_kind(operator, "code_line"):
        return _line_ref(index, line, None)
    return None


def _line_ref(index: ResultIndex, code_line: str, function: object) -> LineRef | None:
    attributes = index.attributes(code_line)
    file, line = attributes.get("file"), attributes.get("line")
    if not isinstance(file, str) or isinstance(line, bool) or not isinstance(line, int):
        return None
    return LineRef(code_line, file, line, function if isinstance(function, str) else None)


def operator_module(index: ResultIndex, operator: str) -> str | None:
    """The operator's first ``nn_module`` parent."""
    modules = index.parents_of_kind(operator, MODULE_KIND)
    return modules[0] if modules else None


class _Builder:
    def __init__(
        self,
        index: ResultIndex,
        model_name: str,
        function_of: Callable[[str, int], str | None],
    ) -> None:
        self.index = index
        self.function_of = function_of
        self.nodes: list[_Node] = []
        self.keys: dict[tuple[Any, ...], int] = {}
        tops = [
            e
            for e in index.graph.ids
            if index.kind(e) == MODULE_KIND and not index.parents_of_kind(e, MODULE_KIND)
        ]
        self.root_module = tops[0] if len(tops) == 1 else None
        self.nodes.append(_Node(-1, "model", self.root_module, model_name, 0))

    def node(
        self, key: tuple[Any, ...], parent: int, kind: str, entity: str | None, label: str | None
    ) -> int:
        found = self.keys.get(key)
        if found is None:
            found = len(self.nodes)
            self.keys[key] = found
            self.nodes.append(_Node(parent, kind, entity, label, self.nodes[parent].depth + 1))
        return found

    def module_node(self, module: str | None) -> int:
        chain: list[str] = []
        seen: set[str] = set()
        current = module
        while current is not None and current not in seen and current != self.root_module:
            if ("m", current) in self.keys:
                break
            seen.add(current)
            chain.append(current)
            ups = self.index.parents_of_kind(current, MODULE_KIND)
            current = ups[0] if ups else None
        parent = (
            0
            if current is None or current == self.root_module or current in seen
            else (self.keys[("m", current)])
        )
        for entity in reversed(chain):
            parent = self.node(("m", entity), parent, "module", entity, None)
        return parent

    def container(self, operator: str) -> int:
        """The node an operator hangs below: its line (or its module without a line)."""
        parent = self.module_node(operator_module(self.index, operator))
        where = operator_line(self.index, operator)
        if where is None:
            return parent
        function = self.function_of(where.file, where.line) or where.frame_function
        label = function or where.file.replace("\\", "/").rsplit("/", 1)[-1]
        parent = self.node(("f", parent, where.file, label), parent, "function", None, label)
        return self.node(("l", parent, where.code_line), parent, "line", where.code_line, None)

    def common_ancestor(self, nodes: list[int]) -> int:
        best = nodes[0]
        for other in nodes[1:]:
            a, b = best, other
            while self.nodes[a].depth > self.nodes[b].depth:
                a = self.nodes[a].parent
            while self.nodes[b].depth > self.nodes[a].depth:
                b = self.nodes[b].parent
            while a != b:
                a, b = self.nodes[a].parent, self.nodes[b].parent
            best = a
        return best

    def place(self) -> None:
        values = self.index.values
        owners: dict[str, list[str]] = {}
        for operator in self.index.operators:
            for unit in self.index.units.get(operator, ()):
                owners.setdefault(unit, []).append(operator)
        containers: dict[str, int] = {}
        for operator in self.index.operators:
            if self.index.units.get(operator):
                containers[operator] = self.container(operator)
        for unit, operators in owners.items():
            value = values.get(unit, 0.0)
            if value <= 0:
                continue
            if len(operators) == 1:
                operator = operators[0]
                parent = containers[operator]
                node = self.node(("o", parent, operator), parent, "operator", operator, None)
                if unit != operator:
                    node = self.node(("u", node, unit), node, "unit", unit, None)
            else:
                parent = self.common_ancestor([containers[o] for o in operators])
                node = self.node(("u", parent, unit), parent, "unit", unit, None)
                self.nodes[node].spans = operators
            self.nodes[node].size += value
        for position in range(len(self.nodes) - 1, 0, -1):
            self.nodes[self.nodes[position].parent].size += self.nodes[position].size


def build_hierarchy(
    index: ResultIndex,
    entities: EntityTable,
    model_name: str,
    function_of: Callable[[str, int], str | None],
    figures: Scale,
) -> dict[str, Any]:
    """The chart's tree as parallel arrays (pre-order, children by size, largest first):
    ``size`` through ``figures``, ``of_parent`` the node's share of its parent (a position
    in ``shares``; ``-1`` for the root)."""
    builder = _Builder(index, model_name, function_of)
    builder.place()
    nodes = builder.nodes
    children: list[list[int]] = [[] for _ in nodes]
    for position in range(1, len(nodes)):
        if nodes[position].size > 0:
            children[nodes[position].parent].append(position)
    for kids in children:
        kids.sort(key=lambda k: -nodes[k].size)
    parent_out: list[int] = []
    kind_out: list[int] = []
    entity_out: list[int] = []
    label_out: list[str | None] = []
    size_out: list[float | int | None] = []
    of_parent: list[int] = []
    shares = Texts()
    spans: dict[str, list[int]] = {}
    span_counts: dict[str, int] = {}
    stack: list[tuple[int, int]] = [(0, -1)]
    while stack:
        position, parent = stack.pop()
        node = nodes[position]
        here = len(parent_out)
        parent_out.append(parent)
        kind_out.append(NODE_KINDS.index(node.kind))
        entity_out.append(entities.ref(node.entity) if node.entity is not None else -1)
        label_out.append(node.label)
        size_out.append(figures.add(node.size))
        above = nodes[node.parent].size if node.parent >= 0 else 0.0
        of_parent.append(shares.ref(format_share(node.size, above) if above > 0 else None))
        if node.spans:
            spans[str(here)] = [entities.ref(o) for o in node.spans[:_MAX_SPAN_LISTED]]
            span_counts[str(here)] = len(node.spans)
        stack.extend((child, here) for child in reversed(children[position]))
    return {
        "kinds": list(NODE_KINDS),
        "parent": parent_out,
        "kind": kind_out,
        "entity": entity_out,
        "label": label_out,
        "size": size_out,
        "of_parent": of_parent,
        "shares": shares.payload(),
        "spans": spans,
        "span_counts": span_counts,
    }
