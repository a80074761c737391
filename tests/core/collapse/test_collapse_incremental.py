"""The incremental acceptance equals the reference's definition: for each
candidate in sorted order, contract the whole graph through the accepted set
plus the candidate and keep the candidate only if every contracted edge is an
allowed kind pair. Checked on seeded random DAGs against that naive rule."""

from __future__ import annotations

import random
from typing import Any

import pytest

from perfline.core.collapse import accept_candidates
from perfline.core.graph import EntityGraph, build_graph, numbered_graph

KINDS = ("A", "B", "C", "D", "E")


def random_case(seed: int) -> tuple[list[dict[str, Any]], list[str], frozenset[tuple[str, str]]]:
    rng = random.Random(seed)
    count = rng.randint(2, 16)
    ids = [f"n{index:02d}" for index in range(count)]
    rng.shuffle(ids)  # topological position unrelated to id order
    entities: list[dict[str, Any]] = [
        {"id": node, "kind": rng.choice(KINDS), "name": node} for node in ids
    ]
    for low in range(count):
        for high in range(low + 1, count):
            if rng.random() < 0.25:
                side = "child_ids" if rng.random() < 0.5 else "parent_ids"
                owner, other = (low, high) if side == "child_ids" else (high, low)
                entities[owner].setdefault(side, []).append(ids[other])
    pairs = frozenset((p, c) for p in KINDS for c in KINDS if rng.random() < 0.15)
    graph = build_graph(entities)
    pairs = pairs | frozenset((graph.kinds[p], graph.kinds[c]) for p, c in graph.edges())
    candidates = sorted(rng.sample(ids, rng.randint(1, count)))
    return entities, candidates, pairs


def contracted_edges(graph: EntityGraph, collapsed: set[str]) -> set[tuple[str, str]]:
    edges: set[tuple[str, str]] = set()
    for node in graph.ids:
        if node in collapsed:
            continue
        stack = list(graph.children[node])
        seen: set[str] = set()
        while stack:
            child = stack.pop()
            if child in seen:
                continue
            seen.add(child)
            if child in collapsed:
                stack.extend(graph.children[child])
            else:
                edges.add((node, child))
    return edges


def naive_accept(
    graph: EntityGraph, candidates: list[str], allowed: frozenset[tuple[str, str]]
) -> tuple[set[str], list[str]]:
    collapsed: set[str] = set()
    retained: list[str] = []
    for candidate in candidates:
        trial = collapsed | {candidate}
        edges = contracted_edges(graph, trial)
        if all((graph.kinds[p], graph.kinds[c]) in allowed for p, c in edges):
            collapsed = trial
        else:
            retained.append(candidate)
    return collapsed, retained


@pytest.mark.parametrize("block", range(4))
def test_incremental_acceptance_matches_full_recontraction(block: int) -> None:
    disagreements = []
    retained_seen = 0
    for seed in range(block * 100, block * 100 + 100):
        entities, candidates, allowed = random_case(seed)
        graph = build_graph(entities)
        numbered = numbered_graph(entities)
        nodes = [numbered.number[candidate] for candidate in candidates]
        collapsed, retained = accept_candidates(numbered, nodes, allowed)
        ours = ({numbered.ids[node] for node in collapsed}, [numbered.ids[n] for n in retained])
        expected = naive_accept(graph, candidates, allowed)
        retained_seen += len(expected[1])
        if ours != expected:
            disagreements.append(seed)
    assert disagreements == []
    assert retained_seen > 0  # the random cases do exercise retention
