"""Contracted links of the entities a collapse retains.

For a retained entity, its new ``parent_ids`` (``child_ids``) are its nearest
retained ancestors (descendants) reached through chains of collapsed
entities: a breadth-first search that starts from its direct normalized
neighbours in sorted id order, expands only collapsed nodes (their
neighbours again in sorted order), and lists retained nodes in the order they
leave the queue, without duplicates and never the entity itself. Both lists
are produced for every retained entity, so one-sided links come out
two-sided and sorted.

Works on the graph by node number (``graph.NumberedGraph``), ids only where they
are compared (sorting) or written. Cost: per retained entity, sorting its
neighbours' ids; only an entity next to a collapsed one (``next_to_collapsed``)
searches, through the collapsed regions next to it.
"""

from __future__ import annotations

from collections import deque

from perfline.core.graph import NumberedGraph
from perfline.core.mypyc_idioms import int_objects

#: Each node's parents and children sorted by id, filled as a contraction needs them.
SortedCaches = tuple[dict[int, tuple[int, ...]], dict[int, tuple[int, ...]]]


def next_to_collapsed(graph: NumberedGraph, collapsed: frozenset[int]) -> frozenset[int]:
    """Retained nodes with a collapsed parent or child: the only ones whose links
    need a search; every other one keeps its own links, sorted."""
    near: set[int] = set()
    for node in int_objects(collapsed):
        near.update(graph.parents[node])
        near.update(graph.children[node])
    return frozenset(near - collapsed)


def retained_links(
    graph: NumberedGraph,
    collapsed: frozenset[int],
    near: frozenset[int],
    node: int,
    caches: SortedCaches,
) -> tuple[list[str], list[str]]:
    """(new parent ids, new child ids) of the retained ``node``; ``near`` is
    ``next_to_collapsed(graph, collapsed)``, ``caches`` two dicts (sorted
    parents, sorted children) shared by the calls of one contraction."""
    ids = graph.ids
    if node not in near:
        above = graph.parents[node]
        parents = _sorted_ids(above, ids)
        children = _sorted_ids(graph.children[node], ids)
        if node in above:  # a self-reference is never listed
            own = ids[node]
            parents.remove(own)
            children.remove(own)
        return parents, children
    return (
        _nearest_retained(node, graph.parents, ids, caches[0], collapsed),
        _nearest_retained(node, graph.children, ids, caches[1], collapsed),
    )


def _sorted_ids(links: list[int], ids: list[str]) -> list[str]:
    names = [ids[other] for other in links]
    if len(names) > 1:
        names.sort()
    return names


def _sorted(
    node: int, adjacency: list[list[int]], ids: list[str], cache: dict[int, tuple[int, ...]]
) -> tuple[int, ...]:
    found = cache.get(node)
    if found is None:
        found = tuple(sorted(adjacency[node], key=ids.__getitem__))
        cache[node] = found
    return found


def _nearest_retained(
    start: int,
    adjacency: list[list[int]],
    ids: list[str],
    cache: dict[int, tuple[int, ...]],
    collapsed: frozenset[int],
) -> list[str]:
    direct = _sorted(start, adjacency, ids, cache)
    if collapsed.isdisjoint(direct):
        return [ids[node] for node in direct if node != start]
    found: list[str] = []
    seen: set[int] = {start}
    queue: deque[int] = deque(direct)
    while queue:
        node = queue.popleft()
        if node in seen:
            continue
        seen.add(node)
        if node in collapsed:
            queue.extend(_sorted(node, adjacency, ids, cache))
        else:
            found.append(ids[node])
    return found
