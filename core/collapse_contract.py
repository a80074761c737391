"""Contracted links of the entities a collapse retains.

For a retained entity, its new ``parent_ids`` (``child_ids``) are its nearest
retained ancestors (descendants) reached through chains of collapsed
entities: a breadth-first search that starts from its direct normalized
neighbours in sorted id order, expands only collapsed nodes (their
neighbours again in sorted order), and lists retained nodes in the order they
leave the queue, without duplicates and never the entity itself. Both lists
are produced for every retained entity, so one-sided links come out
two-sided and sorted.

Cost: per retained entity, sorting its neighbours; only an entity next to a
collapsed one (``next_to_collapsed``) searches, through the collapsed regions
next to it.
"""

from __future__ import annotations

from collections import deque

from perfline.core.graph import EntityGraph

#: Sorted parents and sorted children by node, filled as a contraction needs them.
SortedCaches = tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]


def contracted_links(
    graph: EntityGraph, collapsed: frozenset[str]
) -> dict[str, tuple[list[str], list[str]]]:
    """Retained id -> (new parent ids, new child ids)."""
    near = next_to_collapsed(graph, collapsed)
    caches: SortedCaches = ({}, {})
    return {
        node: retained_links(graph, collapsed, near, node, caches)
        for node in graph.ids
        if node not in collapsed
    }


def next_to_collapsed(graph: EntityGraph, collapsed: frozenset[str]) -> frozenset[str]:
    """Retained ids with a collapsed parent or child: the only ones whose links
    need a search; every other one keeps its own links, sorted."""
    near: set[str] = set()
    for node in collapsed:
        near.update(graph.parents[node])
        near.update(graph.children[node])
    return frozenset(near - collapsed)


def retained_links(
    graph: EntityGraph,
    collapsed: frozenset[str],
    near: frozenset[str],
    node: str,
    caches: SortedCaches,
) -> tuple[list[str], list[str]]:
    """(new parent ids, new child ids) of the retained ``node``; ``near`` is
    ``next_to_collapsed(graph, collapsed)``, ``caches`` two dicts (sorted
    parents, sorted children) shared by the calls of one contraction."""
    if node not in near:
        parents = _sorted_list(graph.parents[node])
        children = _sorted_list(graph.children[node])
        if node in parents:  # a self-reference is never listed
            parents.remove(node)
            children.remove(node)
        return parents, children
    return (
        _nearest_retained(node, graph.parents, caches[0], collapsed),
        _nearest_retained(node, graph.children, caches[1], collapsed),
    )


def _sorted_list(links: tuple[str, ...]) -> list[str]:
    return list(links) if len(links) < 2 else sorted(links)


def _sorted(
    node: str, adjacency: dict[str, tuple[str, ...]], cache: dict[str, tuple[str, ...]]
) -> tuple[str, ...]:
    found = cache.get(node)
    if found is None:
        found = tuple(sorted(adjacency[node]))
        cache[node] = found
    return found


def _nearest_retained(
    start: str,
    adjacency: dict[str, tuple[str, ...]],
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
