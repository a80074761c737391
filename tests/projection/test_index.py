"""The projection index against its definitions, on random acyclic graphs.

``build_index`` works on node numbers and takes shortcuts (a parent of the same
kind stands for its child in ``kind_leaves``); each field is recomputed here
the slow way, from the entity list alone.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from perfline.core.graph import build_graph, numbered_graph
from perfline.core.projection.index import build_index

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


def _edges(entities: list[dict[str, Any]]) -> set[tuple[str, str]]:
    edges: set[tuple[str, str]] = set()
    for entity in entities:
        edges.update((entity["id"], child) for child in entity["child_ids"])
        edges.update((parent, entity["id"]) for parent in entity["parent_ids"])
    return edges


@pytest.mark.parametrize("seed", range(40))
def test_index_matches_its_definitions(seed: int) -> None:
    rng = random.Random(seed)
    entities = _random_entities(rng, rng.randint(1, 60))
    index = build_index(entities)
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
        kind: frozenset().union(
            *(index.leaves[n] for n in range(len(ids)) if index.kinds[n] == kind)
        )
        for kind in set(index.kinds)
    }
    assert dict(index.kind_leaves) == expected_kind_leaves


@pytest.mark.parametrize("seed", range(20))
def test_named_graph_is_the_numbered_graph_by_id(seed: int) -> None:
    """``build_graph`` is ``numbered_graph`` with numbers turned back into ids,
    every edge once, in first-seen order."""
    rng = random.Random(1000 + seed)
    entities = _random_entities(rng, rng.randint(1, 60))
    numbered = numbered_graph(entities)
    named = build_graph(entities)
    assert list(named.ids) == numbered.ids
    for node, name in enumerate(numbered.ids):
        assert named.kinds[name] == numbered.kinds[node]
        assert list(named.parents[name]) == [numbered.ids[p] for p in numbered.parents[node]]
        assert list(named.children[name]) == [numbered.ids[c] for c in numbered.children[node]]
    assert {(p, c) for p in named.ids for c in named.children[p]} == _edges(entities)
