"""The normalized entity graph of one result.

An edge P -> C exists when C is in P's ``child_ids`` or P is in C's
``parent_ids``; duplicates merge, non-string items are ignored and a
non-list field counts as empty. Nodes are the entities with a string id, in
document order. The graph is an immutable value: adjacency as tuples in
first-seen order, plus helpers every stage needs (sorted topological order,
cycle finding). Cost: O(entities + references) to build.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from typing import Any, Final, cast

from perfline.core.mypyc_idioms import int_objects


class EntityGraph:  # a value: never mutated
    """Normalized adjacency of a result's entities."""

    __slots__ = ("children", "ids", "kinds", "parents")

    def __init__(
        self,
        ids: tuple[str, ...],
        kinds: dict[str, str],
        parents: dict[str, tuple[str, ...]],
        children: dict[str, tuple[str, ...]],
    ) -> None:
        self.ids = ids
        self.kinds = kinds
        self.parents = parents
        self.children = children

    def edges(self) -> Iterable[tuple[str, str]]:
        """Every (parent, child) edge once, parents in document order."""
        for parent in self.ids:
            for child in self.children[parent]:
                yield parent, child

    def topological_order(self) -> list[str]:
        """Kahn's algorithm, always taking the lexicographically smallest ready id.

        Nodes on a cycle are left out; callers validate acyclicity first.
        """
        indegree = {node: len(self.parents[node]) for node in self.ids}
        ready = [node for node, degree in indegree.items() if degree == 0]
        heapq.heapify(ready)
        order: list[str] = []
        while ready:
            node = heapq.heappop(ready)
            order.append(node)
            for child in self.children[node]:
                indegree[child] -= 1
                if indegree[child] == 0:
                    heapq.heappush(ready, child)
        return order

    def find_cycle(self) -> list[str] | None:
        """One directed cycle as ``[a, b, ..., a]``, or ``None``.

        Deterministic: depth-first from the roots in sorted id order (then from
        any unvisited node in sorted order), children in sorted order. An
        acyclic graph is recognized first by Kahn's algorithm (no search).
        """
        if len(self.topological_order()) == len(self.ids):
            return None
        white, grey, black = 0, 1, 2
        colour = dict.fromkeys(self.ids, white)
        sorted_children = {node: sorted(self.children[node]) for node in self.ids}
        roots = sorted(node for node in self.ids if not self.parents[node])
        starts = roots + sorted(node for node in self.ids if self.parents[node])
        for start in starts:
            if colour[start] != white:
                continue
            stack: list[tuple[str, int]] = [(start, 0)]
            path: list[str] = [start]
            colour[start] = grey
            while stack:
                node, index = stack[-1]
                children = sorted_children[node]
                if index < len(children):
                    stack[-1] = (node, index + 1)
                    child = children[index]
                    if colour[child] == grey:
                        return [*path[path.index(child) :], child]
                    if colour[child] == white:
                        colour[child] = grey
                        stack.append((child, 0))
                        path.append(child)
                else:
                    colour[node] = black
                    stack.pop()
                    path.pop()
        return None


def topological_positions(children: tuple[tuple[int, ...], ...]) -> list[int]:
    """Some topological order of a graph given by integer adjacency (any order
    among ready nodes; repeated edges count once per occurrence on both ends).

    Nodes on or below a cycle are left out, so the order is complete exactly
    when the graph is acyclic. Cost: O(nodes + edges).
    """
    waiting = [0] * len(children)
    for below in children:
        for child in below:
            waiting[child] = waiting[child] + 1
    return kahn_order(children, waiting)


def kahn_order(children: Sequence[Sequence[int]], waiting: list[int]) -> list[int]:
    """Kahn's algorithm given each node's count of incoming edges (``waiting``,
    consumed): nodes in an order where every node follows its parents; nodes on
    or below a cycle are left out."""
    order = [node for node in range(len(waiting)) if waiting[node] == 0]
    for node in order:  # the list grows while it is walked
        for child in int_objects(children[node]):
            position = cast(int, child)
            left = waiting[position] - 1
            waiting[position] = left
            if left == 0:
                order.append(child)
    return order


def string_items(value: object) -> list[str]:
    """The string items of a JSON list, or nothing for a non-list."""
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, str)]


def build_graph(entities: Sequence[Any]) -> EntityGraph:
    """Normalize the parent/child references of ``entities``.

    Entities without a string id are skipped; references to unknown ids are
    dropped (validation reports them separately).
    """
    numbered = numbered_graph(entities)
    ids = numbered.ids
    return EntityGraph(
        ids=tuple(ids),
        kinds={ids[index]: numbered.kinds[index] for index in range(len(ids))},
        parents={
            ids[index]: tuple([ids[other] for other in numbered.parents[index]])
            for index in range(len(ids))
        },
        children={
            ids[index]: tuple([ids[other] for other in numbered.children[index]])
            for index in range(len(ids))
        },
    )


class NumberedGraph:
    """The graph of ``build_graph`` with nodes numbered in first-appearance order:
    what a stage that works on integers needs, without a lookup by id per edge."""

    __slots__ = ("children", "complete", "ids", "kinds", "number", "parents")

    def __init__(
        self,
        ids: list[str],
        kinds: list[str],
        parents: list[list[int]],
        children: list[list[int]],
        number: dict[str, int],
        complete: bool = False,
    ) -> None:
        self.ids = ids
        """Each node's id."""
        self.number = number
        """Each id's node (``ids`` inverted)."""
        self.complete = complete
        """Every entity is a dict with a string id of its own (so its node is its
        position) and every string reference resolves: the graph validation would
        resolve, by position."""
        self.kinds = kinds
        """Each node's kind (a later string kind wins, ``""`` when there is none)."""
        self.parents = parents
        """Each node's parents, in first-seen order, each edge once."""
        self.children = children
        """Each node's children, in first-seen order, each edge once."""


def numbered_graph(entities: Sequence[Any]) -> NumberedGraph:
    """``build_graph`` by node number (see ``NumberedGraph``)."""
    number, kinds, nodes, records = _nodes(entities)
    edges = _links(number, nodes, records)
    complete = len(number) == len(entities) and edges.unresolved == 0
    return NumberedGraph(list(number), kinds, edges.parents, edges.children, number, complete)


def _nodes(
    entities: Sequence[Any],
) -> tuple[dict[str, int], list[str], list[int], list[dict[str, Any]]]:
    """Each id's node number (in first appearance order), the kind of each node
    (a later string kind wins, ``""`` when there is none) and, in document
    order, every dict entity with a string id next to its node number."""
    number: dict[str, int] = {}
    kinds: list[str] = []
    nodes: list[int] = []
    records: list[dict[str, Any]] = []
    for entity in entities:
        if type(entity) is not dict:
            continue
        record = cast(dict[str, Any], entity)
        entity_id = record.get("id")
        if type(entity_id) is not str:
            continue
        kind = record.get("kind")
        node = number.get(entity_id)
        if node is None:
            node = len(kinds)
            number[entity_id] = node
            kinds.append(kind if type(kind) is str else "")
        elif type(kind) is str:
            kinds[node] = kind
        nodes.append(node)
        records.append(record)
    return number, kinds, nodes, records


def _links(number: dict[str, int], nodes: list[int], records: list[dict[str, Any]]) -> _Edges:
    """Parents and children of every node in first-seen order, each edge once
    (an edge is usually mentioned by both of its ends)."""
    count = len(number)
    edges = _Edges(count)
    for index in range(len(nodes)):
        node = nodes[index]
        record = records[index]
        edges.add_references(record.get("parent_ids"), number, node, upward=True)
        edges.add_references(record.get("child_ids"), number, node, upward=False)
    return edges


SCAN_LIMIT: Final = 12
"""Parents of a node looked through one by one, before a set of them is kept."""


class _Edges:
    """Adjacency lists being filled in, each edge kept once.

    An edge is known when its parent is among its child's parents: a short list, read
    through (no set of every edge, whose entries cost a large integer each and whose
    table outgrows the caches); a node with more than ``SCAN_LIMIT`` parents also keeps
    them as a set."""

    __slots__ = ("children", "parents", "unresolved", "wide")

    def __init__(self, count: int) -> None:
        self.parents: list[list[int]] = [[] for _ in range(count)]
        self.children: list[list[int]] = [[] for _ in range(count)]
        self.wide: dict[int, set[int]] = {}
        """The parents of each node that has ``SCAN_LIMIT`` or more, as a set."""
        self.unresolved = 0
        """String references to no entity (dropped)."""

    def add_references(
        self, references: object, number: dict[str, int], node: int, upward: bool
    ) -> None:
        """Add the edges ``node`` names in a reference list: to each known string id,
        from it when ``upward`` (a ``parent_ids`` list); a non-list names none."""
        if type(references) is not list:
            return
        for other in cast(list[object], references):
            if type(other) is str:
                known = number.get(other)
                if known is None:
                    self.unresolved += 1
                elif upward:
                    self.add(known, node)
                else:
                    self.add(node, known)

    def add(self, parent: int, child: int) -> None:
        above = self.parents[child]
        if len(above) < SCAN_LIMIT:
            for known in above:
                if known == parent:
                    return
            if len(above) == SCAN_LIMIT - 1:
                wide = set(above)
                wide.add(parent)
                self.wide[child] = wide
        else:
            wide = self.wide[child]
            if parent in wide:
                return
            wide.add(parent)
        above.append(parent)
        self.children[parent].append(child)
