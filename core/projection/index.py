"""Integer-indexed view of a result's entity graph for projection (§2, §6.1).

Entities are numbered in sorted id order, so "sorted id order" is integer order.
Computed once per result, bottom-up / top-down over one topological order:

* ``leaves[x]``: terminal descendants ("units") as a frozenset of indices;
* ``roots[x]``: root ancestors (x itself when it has no parent);
* ``kind_leaves[k]``: union of the leaves of every entity of kind k.

Competition (§6.1) is answered from these without scanning entities: for a
unit u outside leaves(t), u is *contested* for t iff u lies under another
entity of t's kind (``kind_leaves``) or u and t share a root ancestor (every
entity sharing an ancestor with t sits under one of t's roots, and a root's
leaves are the union of its descendants' leaves). Cost: O(E + edges) plus the
total size of the leaf sets (entities x depth for tree-like hierarchies);
identical root sets are interned.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from perfline.core.graph import NumberedGraph, numbered_graph, topological_positions
from perfline.core.mypyc_idioms import int_objects

NO_NODES: Final[frozenset[int]] = frozenset()
"""The empty node set, one object shared wherever an empty set is kept."""


class GraphIndex:  # a value: never mutated
    """Projection's read-only graph facts, by entity index."""

    __slots__ = (
        "children",
        "ids",
        "kind_leaves",
        "kinds",
        "leaves",
        "parents",
        "position",
        "roots",
    )

    def __init__(
        self,
        ids: tuple[str, ...],
        position: dict[str, int],
        kinds: tuple[str, ...],
        parents: tuple[tuple[int, ...], ...],
        children: tuple[tuple[int, ...], ...],
        leaves: tuple[frozenset[int], ...],
        roots: tuple[frozenset[int], ...],
        kind_leaves: dict[str, frozenset[int]],
    ) -> None:
        self.ids = ids
        """Entity ids in sorted order: an entity's index is its rank."""
        self.position = position
        """Entity id -> index."""
        self.kinds = kinds
        self.parents = parents
        self.children = children
        self.leaves = leaves
        """Each entity's terminal descendants (itself when childless)."""
        self.roots = roots
        """Each entity's root ancestors (itself when it has no parent)."""
        self.kind_leaves = kind_leaves
        """Kind -> union of the leaves of every entity of that kind."""

    def contested(self, target: int, unit: int) -> bool:
        """Is ``unit`` (outside leaves(target)) claimed by a competitor of ``target``?"""
        if unit in self.kind_leaves[self.kinds[target]]:
            return True
        return not self.roots[unit].isdisjoint(self.roots[target])

    def any_contested(self, target: int, units: Iterable[int]) -> bool:
        """Is any of ``units`` (all outside leaves(target)) contested for ``target``?"""
        same_kind = self.kind_leaves[self.kinds[target]]
        target_roots = self.roots[target]
        roots = self.roots
        return any(u in same_kind or not roots[u].isdisjoint(target_roots) for u in units)

    def any_contested_outside(self, target: int, units: Iterable[int]) -> bool:
        """Is any of ``units`` that lies outside leaves(target) contested for ``target``?

        Walks ``units`` lazily and stops at the first contested one, so a wide
        ``units`` costs little when the answer is yes (the common case).
        """
        own = self.leaves[target]
        same_kind = self.kind_leaves[self.kinds[target]]
        target_roots = self.roots[target]
        roots = self.roots
        for unit in int_objects(units):
            if unit in own:
                continue
            if unit in same_kind or not roots[unit].isdisjoint(target_roots):
                return True
        return False


def build_graph_index(entities: Sequence[Mapping[str, Any]]) -> GraphIndex:
    """Index a validated, acyclic entity list."""
    return index_of_graph(numbered_graph(entities))


def index_of_graph(graph: NumberedGraph) -> GraphIndex:
    """``build_graph_index`` of the entities ``graph`` is the ``numbered_graph`` of (a caller
    that needs the graph too, the pipeline's output validation, builds it once)."""
    names = graph.ids
    count = len(names)
    # One int object per index, made in a row: every set, tuple and dict of the index
    # (and what projection builds from them) holds these very objects, so they lie
    # together in memory (32 bytes each) and are found by identity, instead of being
    # boxed anew, scattered among the other objects, by every loop that stores an index.
    nodes: list[Any] = list(range(count))
    by_id = sorted(range(count), key=names.__getitem__)  # ids are unique
    rank: list[Any] = [0] * count
    for index in range(count):
        rank[by_id[index]] = nodes[index]
    ids = tuple([names[node] for node in by_id])
    position = {entity_id: nodes[index] for index, entity_id in enumerate(ids)}
    kinds = tuple([graph.kinds[node] for node in by_id])
    parents = _ranked_links(by_id, graph.parents, rank)
    children = _ranked_links(by_id, graph.children, rank)
    order = topological_positions(children)

    leaves: list[frozenset[int]] = [frozenset()] * count
    for node in reversed(order):
        kids = children[node]
        if not kids:
            leaves[node] = frozenset((nodes[node],))
        elif len(kids) == 1:
            leaves[node] = leaves[kids[0]]
        else:
            acc: set[int] = set()
            for kid in kids:
                acc |= leaves[kid]
            leaves[node] = frozenset(acc)

    interned: dict[frozenset[int], frozenset[int]] = {}
    roots: list[frozenset[int]] = [frozenset()] * count
    for node in order:
        ups = parents[node]
        if not ups:
            value = frozenset((nodes[node],))
        elif len(ups) == 1:
            value = roots[ups[0]]
        else:
            gathered: set[int] = set()
            for up in ups:
                gathered |= roots[up]
            value = frozenset(gathered)
        roots[node] = interned.setdefault(value, value)

    by_kind: dict[str, set[int]] = {}
    for node in range(count):
        kind = kinds[node]
        # a parent of the same kind already brings these leaves (it holds them all)
        if any(kinds[up] == kind for up in parents[node]):
            continue
        by_kind.setdefault(kind, set()).update(leaves[node])
    kind_leaves = {kind: frozenset(units) for kind, units in by_kind.items()}
    return GraphIndex(
        ids, position, kinds, parents, children, tuple(leaves), tuple(roots), kind_leaves
    )


def _ranked_links(
    by_id: list[int], links: list[list[int]], rank: list[Any]
) -> tuple[tuple[int, ...], ...]:
    """The ``links`` of each node in ``by_id`` order as ranks (``rank``'s own int
    objects), each tuple sorted."""
    found: list[tuple[int, ...]] = []
    for node in by_id:
        linked = links[node]
        if len(linked) < 2:
            found.append((rank[linked[0]],) if linked else ())
        else:
            ranks = [rank[other] for other in linked]
            ranks.sort()
            found.append(tuple(ranks))
    return tuple(found)
