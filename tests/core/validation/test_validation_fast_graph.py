"""Validation decides acyclicity and edge kinds in one linear pass first; it must
agree exactly with the precise graph checks it stands in for."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings, strategies

from perfline.core.errors import Problem
from perfline.core.graph import numbered_graph
from perfline.core.kinds import allowed_kind_pairs
from perfline.core.validation import (
    _check_graph,
    _graph_problems,
    _plainly_sound,
    _resolved_links,
    validate_result,
)

_IDS = ["a", "b", "c", "d", "e", "f"]
_KINDS = ["code_stack", "source_operator", "code_line", "model", "custom", 1]
_reference = strategies.sampled_from([*_IDS, "missing", 7, None])
_entity = strategies.fixed_dictionaries(
    {
        "id": strategies.sampled_from([*_IDS, 3]),
        "kind": strategies.sampled_from(_KINDS),
        "name": strategies.just("n"),
    },
    optional={
        "parent_ids": strategies.lists(_reference, max_size=3) | strategies.just("not a list"),
        "child_ids": strategies.lists(_reference, max_size=3),
    },
)
_declaration = strategies.fixed_dictionaries(
    {"id": strategies.just("custom")},
    optional={
        "parent_kinds": strategies.lists(
            strategies.sampled_from(["model", "custom"]), max_size=2, unique=True
        ),
        "child_kinds": strategies.lists(
            strategies.sampled_from(["source_operator", "custom"]), max_size=2, unique=True
        ),
    },
)
_result = strategies.fixed_dictionaries(
    {
        "kind": strategies.just("performance"),
        "status": strategies.just("ok"),
        "producer": strategies.just("p"),
        "entities": strategies.lists(_entity | strategies.just("junk"), max_size=7),
    },
    optional={"entity_kinds": strategies.lists(_declaration, max_size=1)},
)


def _kinds(entities: list[Any]) -> list[str]:
    return [
        entity["kind"] if isinstance(entity, dict) and type(entity.get("kind")) is str else ""
        for entity in entities
    ]


def _ids(entities: list[Any]) -> tuple[dict[str, int], bool]:
    ids: dict[str, int] = {}
    unique = True
    for position, entity in enumerate(entities):
        if isinstance(entity, dict) and isinstance(entity.get("id"), str):
            if entity["id"] in ids:
                unique = False
            else:
                ids[entity["id"]] = position
    return ids, unique


@settings(max_examples=400, deadline=None)
@given(_result)
def test_the_linear_pass_agrees_with_the_precise_checks(result: dict[str, Any]) -> None:
    entities = result["entities"]
    ids, unique = _ids(entities)
    reported: list[Problem] = []
    links = _resolved_links(entities, 0, "results[0]", ids, reported, unique)
    if links is None:
        return
    precise: list[Problem] = []
    _check_graph(entities, result, 0, "results[0]", ids, precise)
    assert _plainly_sound(links, _kinds(entities), allowed_kind_pairs(result)) == (not precise)


def test_a_cycle_and_an_undeclared_edge_are_still_reported_in_order() -> None:
    cycle = {
        "kind": "performance",
        "status": "ok",
        "producer": "p",
        "entities": [
            {"id": "a", "kind": "code_stack", "name": "a", "child_ids": ["b"]},
            {"id": "b", "kind": "code_stack", "name": "b", "child_ids": ["a"]},
        ],
    }
    messages = [problem.message for problem in validate_result(cycle, 0)]
    assert messages == ["Entity graph in result 0 contains a directed cycle: 'a' -> 'b' -> 'a'"]
    undeclared = {
        **cycle,
        "entities": [
            {"id": "s", "kind": "code_stack", "name": "s", "parent_ids": ["c"]},
            {"id": "c", "kind": "source_operator", "name": "c"},
        ],
    }
    problems = validate_result(undeclared, 0)
    assert [problem.location for problem in problems] == ["results[0].entities[1]"]
    assert "'c' (source_operator) -> 's' (code_stack) is not covered" in problems[0].message


@settings(max_examples=600, deadline=None)
@given(result=_result)
def test_a_known_numbered_graph_gives_exactly_the_problems_of_the_full_checks(
    result: dict[str, Any],
) -> None:
    # The pipeline hands the output's validation the numbered graph it built the
    # projection's index from; with it or without it, the same problems in the same order
    # and the same ids (duplicates, junk, unresolved and non-string references,
    # undeclared kinds, cycles: the graph is not complete or not sound, and the full
    # checks run).
    entities = result["entities"]
    known = (entities, numbered_graph(entities))
    assert validate_result(result, 0, known=known) == validate_result(result, 0)
    elsewhere = ([*entities], known[1])  # a graph of another list is never taken
    assert validate_result(result, 0, known=elsewhere) == validate_result(result, 0)


def test_a_complete_sound_graph_is_taken_and_ids_are_positions() -> None:
    entities: list[Any] = [
        {"id": "a", "kind": "code_line", "name": "n", "child_ids": ["b"]},
        {"id": "b", "kind": "code_stack", "name": "n", "parent_ids": ["a"]},
    ]
    result = {"kind": "performance", "status": "ok", "producer": "p", "entities": entities}
    graph = numbered_graph(entities)
    assert graph.complete
    problems, ids = _graph_problems(result, 0, (entities, graph))
    assert problems == () and ids is graph.number and ids == {"a": 0, "b": 1}
    cyclic = [{**entities[0], "parent_ids": ["b"]}, {**entities[1], "child_ids": ["a"]}]
    result = {**result, "entities": cyclic}
    graph = numbered_graph(cyclic)
    assert graph.complete  # complete, but not sound: the full checks say why
    found = _graph_problems(result, 0, (cyclic, graph))
    assert found == _graph_problems(result, 0) and "cycle" in found[0][0].message
