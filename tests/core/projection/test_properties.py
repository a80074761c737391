"""Properties of the projection (hypothesis over seeded small NX-shaped results)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from hypothesis import given, settings, strategies

from perfline.core.projection import project_breakdowns
from tests.support import cases
from tests.support.cases import canonical
from tests.support.projection_builders import small_result

DATA = cases.DATA / "projection"
SEEDS = strategies.integers(min_value=0, max_value=10**6)


def _projected(original: dict[str, Any], output: dict[str, Any]) -> list[Any]:
    breakdowns: list[Any] = output.get("breakdowns", [])
    return breakdowns[len(original.get("breakdowns", [])) :]


def _reshuffled(result: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Same result with entities, breakdowns and link lists reordered, and each
    link declared on the parent side, the child side or both."""
    entities = copy.deepcopy(result["entities"])
    edges = [(e["id"], c) for e in entities for c in e.get("child_ids", [])]
    by_id = {e["id"]: e for e in entities}
    for entity in entities:
        entity.pop("child_ids", None)
        entity.pop("parent_ids", None)
    for parent, child in edges:
        side = rng.choice(("parent", "child", "both"))
        if side in ("parent", "both"):
            by_id[parent].setdefault("child_ids", []).append(child)
        if side in ("child", "both"):
            by_id[child].setdefault("parent_ids", []).append(parent)
    for entity in entities:
        for key in ("child_ids", "parent_ids"):
            if key in entity:
                rng.shuffle(entity[key])
    rng.shuffle(entities)
    breakdowns = copy.deepcopy(result["breakdowns"])
    rng.shuffle(breakdowns)
    return {**result, "entities": entities, "breakdowns": breakdowns}


@settings(max_examples=60, deadline=None)
@given(SEEDS, SEEDS)
def test_output_does_not_depend_on_order(seed: int, shuffle_seed: int) -> None:
    result = small_result(seed)
    other = _reshuffled(result, random.Random(shuffle_seed))
    assert canonical(_projected(result, project_breakdowns(result))) == canonical(
        _projected(other, project_breakdowns(other))
    )


@settings(max_examples=60, deadline=None)
@given(SEEDS)
def test_existing_breakdowns_are_kept_and_never_replaced(seed: int) -> None:
    result = small_result(seed)
    before = copy.deepcopy(result)
    output = project_breakdowns(result)
    assert result == before
    assert output["breakdowns"][: len(result["breakdowns"])] == result["breakdowns"]
    owners = {b["entity_id"] for b in result["breakdowns"]}
    assert not owners & {b["entity_id"] for b in _projected(result, output)}


@settings(max_examples=60, deadline=None)
@given(SEEDS)
def test_no_origin_is_counted_twice(seed: int) -> None:
    result = small_result(seed)
    for breakdown in _projected(result, project_breakdowns(result)):
        for metric in breakdown["metrics"]:
            value = metric["value"]
            while value:
                assert value % 4 in (0, 1), breakdown
                value //= 4


@settings(max_examples=60, deadline=None)
@given(SEEDS)
def test_projecting_again_keeps_every_breakdown(seed: int) -> None:
    """A second pass keeps all breakdowns of the first and projects only onto
    entities that had none. (It may add some: the reference is not idempotent,
    see ``test_second_pass_matches_reference``.)"""
    once = project_breakdowns(small_result(seed))
    twice = project_breakdowns(once)
    assert twice["breakdowns"][: len(once["breakdowns"])] == once["breakdowns"]
    owners = {b["entity_id"] for b in once["breakdowns"]}
    assert not owners & {b["entity_id"] for b in twice["breakdowns"][len(once["breakdowns"]) :]}


def test_second_pass_matches_reference() -> None:
    document = json.loads((DATA / "reprojection_once.json").read_text())
    expected = json.loads((DATA / "reprojection_once.expected.json").read_text())
    result = document["results"][0]
    again = project_breakdowns(result)
    assert len(again["breakdowns"]) == len(result["breakdowns"]) + 1
    assert canonical(again["breakdowns"]) == canonical(expected["results"][0]["breakdowns"])
