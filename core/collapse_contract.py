"""Contracted links of the entities a collapse retains.

For a retained entity, its new ``parent_ids`` (``child_ids``) are its nearest
retained ancestors (descendants) reached through chains of collapsed
entities: a breadth-first search that starts from its direct normalized
neighbours in sorted id order, expands only collapsed nodes (their
neighbours again in sorted order), and lists retained nodes in the order they
leave the queue, without duplicates and never the entity itself. Both lists
are produced for every retained entity, so one-sided links come out
two-sided and sorted.

Cost: per retained entity, its degree plus the collapsed regions next to it;
sorted neighbour tuples are computed once per node and cached.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

from perfline.core.graph import EntityGraph


def contracted_links(
    graph: EntityGraph, collapsed: frozenset[str]
) -> dict[str, tuple[list[str], list[str]]]:
    """Retained id -> (new parent ids, new child ids)."""
    sorted_parents: dict[str, tuple[str, ...]] = {}
    sorted_children: dict[str, tuple[str, ...]] = {}
    links: dict[str, tuple[list[str], list[str]]] = {}
    for node in graph.ids:
        if node in collapsed:
            continue
        links[node] = (
            _nearest_retained(node, graph.parents, sorted_parents, collapsed),
            _nearest_retained(node, graph.children, sorted_children, collapsed),
        )
    return links


def _sorted(
    node: str, adjacency: Mapping[str, tuple[str, ...]], cache: dict[str, tuple[str, ...]]
) -> tuple[str, ...]:
    found = cache.get(node)
    if found is None:
        found = tuple(sorted(adjacency[node]))
        cache[node] = found
    return found


def _nearest_retained(
    start: str,
    adjacency: Mapping[str, tuple[str, ...]],
    cache: dict[str, tuple[str, ...]],
    collapsed: frozenset[str],
) -> list[str]:
    direct = _sorted(start, adjacency, cache)
    if collapsed.isdisjoint(direct):
        return [node for node in direct if node != start]
    found: list[str] = []
    seen: set[str] = {start}
    queue: deque[str] = deque(direct)
    while queue:
        node = queue.popleft()
        if node in seen:
            continue
        seen.add(node)
        if node in collapsed:
            queue.extend(_sorted(node, adjacency, cache))
        else:
            found.append(node)
    return found
