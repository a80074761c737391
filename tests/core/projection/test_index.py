"""The projection index against its definitions, on random acyclic graphs.

``build_graph_index`` works on node numbers and takes shortcuts (a parent of the same
kind stands for its child in ``kind_leaves``); each field is recomputed here
the slow way, from the entity list alone.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from perfline.core.graph import SCAN_LIMIT, build_graph, numbered_graph
from perfline.core.projection.index import build_graph_index

KINDS = ("nn_module", "chain", "segment", "source_operator")


def _random_entities(rng: random.Random, count: int) -> list[dict[str, Any]]:
    """A random DAG: edges go from a lower to a higher creation number, each named
    by its parent, its child or both; entities listed in shuffled order."""
    names = [f"{rng.choice(KINDS)}/{rng.randrange(10**6):06d}-{n}" for n in range(count)]
    entities: list[dict[str, Any]] = [
        {"id": name, "kind": name.split("/")[0], "parent_ids": [], "child_ids": []}
        for name in names
    ]
    for child in range(1, count):
        for parent in rng.sample(range(child), min(child, rng.choice((0, 1, 1, 1, 2, 3)))):
            side = rng.randrange(3)
            if side != 1:
                entities[parent]["child_ids"].append(names[child])
            if side != 0:
                entities[child]["parent_ids"].append(names[parent])
    rng.shuffle(entities)
    return entities


def _edges_in_order(entities: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Every (parent, child) edge once, in the order the document first names it
    (entities in order, each one's ``parent_ids`` before its ``child_ids``)."""
    edges: list[tuple[str, str]] = []
    for entity in entities:
        named = [(parent, entity["id"]) for parent in entity["parent_ids"]]
        named += [(entity["id"], child) for child in entity["child_ids"]]
        edges += [edge for edge in named if edge not in edges]
    return edges


def _edges(entities: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return set(_edges_in_order(entities))


@pytest.mark.parametrize("seed", range(40))
def test_index_matches_its_definitions(seed: int) -> None:
    rng = random.Random(seed)
    entities = _random_entities(rng, rng.randint(1, 60))
    index = build_graph_index(entities)
    edges = _edges(entities)
    ids = sorted(entity["id"] for entity in entities)
    kind_of = {entity["id"]: entity["kind"] for entity in entities}
    children = {name: {c for p, c in edges if p == name} for name in ids}
    parents = {name: {p for p, c in edges if c == name} for name in ids}

    def below(name: str) -> set[str]:
        found = {name}
        for child in children[name]:
            found |= below(child)
        return found

    def above(name: str) -> set[str]:
        found = {name}
        for parent in parents[name]:
            found |= above(parent)
        return found

    def numbers(names: set[str]) -> frozenset[int]:
        return frozenset(ids.index(name) for name in names)

    assert list(index.ids) == ids
    assert dict(index.position) == {name: n for n, name in enumerate(ids)}
    assert list(index.kinds) == [kind_of[name] for name in ids]
    for n, name in enumerate(ids):
        assert index.children[n] == tuple(sorted(numbers(children[name])))
        assert index.parents[n] == tuple(sorted(numbers(parents[name])))
        assert index.leaves[n] == numbers({x for x in below(name) if not children[x]})
        assert index.roots[n] == numbers({x for x in above(name) if not parents[x]})
    expected_kind_leaves = {
        kind: numbers(
            {x for name in ids if kind_of[name] == kind for x in below(name) if not children[x]}
        )
        for kind in set(kind_of.values())
    }
    assert dict(index.kind_leaves) == expected_kind_leaves


def test_a_node_with_many_parents_lists_each_once_in_first_seen_order() -> None:
    # more parents than numbered_graph reads through one by one (SCAN_LIMIT), each
    # named from both sides and again, in an order unrelated to their ids
    count = 3 * SCAN_LIMIT
    names = [f"p{(index * 7) % count:03d}" for index in range(count)]
    entities: list[dict[str, Any]] = [{"id": "c", "kind": "k", "parent_ids": names[::2]}]
    for position, name in enumerate(names):
        entity: dict[str, Any] = {"id": name, "kind": "k", "child_ids": ["c"]}
        if position % 3 == 0:
            entity["child_ids"] = ["c", "c"]
        entities.append(entity)
    entities[0]["parent_ids"] += names[: SCAN_LIMIT + 2]
    numbered = numbered_graph(entities)
    expected = names[::2] + [name for name in names if name not in names[::2]]
    assert [numbered.ids[p] for p in numbered.parents[0]] == expected
    for node in range(1, len(entities)):
        assert numbered.children[node] == [0]
    assert numbered.number == {name: node for node, name in enumerate(numbered.ids)}


@pytest.mark.parametrize("seed", range(20))
def test_graphs_list_every_edge_once_in_first_seen_order(seed: int) -> None:
    """``numbered_graph`` and ``build_graph`` (its ids for its numbers) against the
    document: nodes in order of appearance, each edge once, in the order first named."""
    rng = random.Random(1000 + seed)
    entities = _random_entities(rng, rng.randint(1, 60))
    edges = _edges_in_order(entities)
    ids = [entity["id"] for entity in entities]
    expected_parents = {name: [p for p, c in edges if c == name] for name in ids}
    expected_children = {name: [c for p, c in edges if p == name] for name in ids}
    numbered = numbered_graph(entities)
    named = build_graph(entities)
    assert numbered.ids == ids
    assert list(named.ids) == ids
    for node, name in enumerate(ids):
        assert numbered.kinds[node] == named.kinds[name] == entities[node]["kind"]
        assert [ids[p] for p in numbered.parents[node]] == expected_parents[name]
        assert [ids[c] for c in numbered.children[node]] == expected_children[name]
        assert list(named.parents[name]) == expected_parents[name]
        assert list(named.children[name]) == expected_children[name]
