"""``build_graph`` keeps every edge once, in first-seen order on both ends (the
order projection and collapse rely on), whatever the shape of the references."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings, strategies

from perfline.core.graph import build_graph

_reference = strategies.sampled_from(["a", "b", "c", "d", "missing", 4, None])
_entity = strategies.fixed_dictionaries(
    {
        "id": strategies.sampled_from(["a", "b", "c", "d", 9]),
        "kind": strategies.sampled_from(["k", "j", 1]),
    },
    optional={
        "parent_ids": strategies.lists(_reference, max_size=4) | strategies.just("x"),
        "child_ids": strategies.lists(_reference, max_size=4),
    },
)


def _spec(entities: list[Any]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """The adjacency by its definition: edges in discovery order, each once."""
    known = [e["id"] for e in entities if isinstance(e, dict) and isinstance(e.get("id"), str)]
    parents: dict[str, list[str]] = {node: [] for node in known}
    children: dict[str, list[str]] = {node: [] for node in known}
    seen: set[tuple[str, str]] = set()
    for entity in entities:
        if not isinstance(entity, dict) or not isinstance(entity.get("id"), str):
            continue
        node = entity["id"]
        for field in ("parent_ids", "child_ids"):
            references = entity.get(field)
            for other in references if isinstance(references, list) else []:
                if not isinstance(other, str) or other not in parents:
                    continue
                edge = (other, node) if field == "parent_ids" else (node, other)
                if edge not in seen:
                    seen.add(edge)
                    parents[edge[1]].append(edge[0])
                    children[edge[0]].append(edge[1])
    return parents, children


@settings(max_examples=500, deadline=None)
@given(strategies.lists(_entity | strategies.just("junk"), max_size=8))
def test_adjacency_matches_its_definition(entities: list[Any]) -> None:
    graph = build_graph(entities)
    parents, children = _spec(entities)
    assert {node: list(links) for node, links in graph.parents.items()} == parents
    assert {node: list(links) for node, links in graph.children.items()} == children
    assert list(graph.ids) == list(parents)
