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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard


@dataclass(frozen=True)
class EntityGraph:
    """Normalized adjacency of a result's entities."""

    ids: tuple[str, ...]
    kinds: Mapping[str, str]
    parents: Mapping[str, tuple[str, ...]]
    children: Mapping[str, tuple[str, ...]]

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


def topological_positions(children: Sequence[Sequence[int]]) -> list[int]:
    """Some topological order of a graph given by integer adjacency (any order
    among ready nodes; repeated edges count once per occurrence on both ends).

    Nodes on or below a cycle are left out, so the order is complete exactly
    when the graph is acyclic. Cost: O(nodes + edges).
    """
    waiting = [0] * len(children)
    for below in children:
        for child in below:
            waiting[child] += 1
    order = [node for node, count in enumerate(waiting) if count == 0]
    for node in order:  # the list grows while it is walked
        for child in children[node]:
            waiting[child] -= 1
            if waiting[child] == 0:
                order.append(child)
    return order


def is_mapping(value: object) -> TypeGuard[Mapping[str, Any]]:
    """``isinstance(value, Mapping)``, answered without the ABC machinery for a
    plain ``dict`` (the JSON case, checked once per entity by every stage)."""
    return type(value) is dict or isinstance(value, Mapping)


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
    kinds: dict[str, str] = {}
    for entity in entities:
        if type(entity) is dict:
            entity_id = entity.get("id")
            if type(entity_id) is str:
                kind = entity.get("kind")
                if entity_id not in kinds or type(kind) is str:
                    kinds[entity_id] = kind if type(kind) is str else ""
    # Insertion-ordered dicts used as sets: an edge (p, c) has been seen exactly
    # when p is already among c's parents (both ends are always added together).
    parents: dict[str, dict[str, None]] = {node: {} for node in kinds}
    children: dict[str, dict[str, None]] = {node: {} for node in kinds}
    for entity in entities:
        if type(entity) is not dict:
            continue
        node = entity.get("id")
        if type(node) is not str:
            continue
        references = entity.get("parent_ids")
        if type(references) is list:
            above = parents[node]
            for other in references:
                if type(other) is str and other in kinds and other not in above:
                    above[other] = None
                    children[other][node] = None
        references = entity.get("child_ids")
        if type(references) is list:
            below = children[node]
            for other in references:
                if type(other) is str and other in kinds and other not in below:
                    below[other] = None
                    parents[other][node] = None
    return EntityGraph(
        ids=tuple(kinds),
        kinds=kinds,
        parents={node: tuple(p) for node, p in parents.items()},
        children={node: tuple(c) for node, c in children.items()},
    )
