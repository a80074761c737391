"""Recognizing a result whose code lines were already derived.

The reference refuses any input holding ``code_line`` entities, so it cannot
read its own persisted output again. perfline accepts such a result when its
code lines are exactly what derivation would produce from its code stacks:
the same ids, each with the derived name and ``attributes`` ``{file, line}``,
no parents, and as children exactly the stacks at that location (so every
such stack already has its line as a parent). Anything else is rejected with
the reference's message. Such a result is served as it is: collapse leaves it
alone too (its stacks were collapsed, or not, when it was produced; collapsing
now would orphan its code lines). Cost: linear in the entities plus the plan.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from perfline.core.code_line_plan import PlannedLine, plan_code_lines
from perfline.core.document_shapes import EntityJson, ResultJson
from perfline.core.graph import EntityGraph, build_graph
from perfline.core.kinds import CODE_LINE


def existing_code_lines(entities: Sequence[EntityJson]) -> list[str]:
    """Ids of the ``code_line`` entities already in a result."""
    found: list[str] = []
    for entity in entities:
        if entity["kind"] == CODE_LINE:
            found.append(entity["id"])
    return found


def result_already_processed(result: ResultJson) -> bool:
    """Whether ``result`` holds code lines that are exactly its own derivation."""
    entities = result.get("entities")
    if entities is None:
        return False
    line_ids = existing_code_lines(entities)
    if not line_ids:
        return False
    return already_processed(entities, build_graph(entities), plan_code_lines(entities), line_ids)


def already_processed(
    entities: Sequence[EntityJson],
    graph: EntityGraph,
    plan: Sequence[PlannedLine],
    line_ids: Sequence[str],
) -> bool:
    """Whether the existing ``line_ids`` are exactly the derivation of ``plan``."""
    if len(set(line_ids)) != len(line_ids):
        return False
    planned = {item.entity_id: item for item in plan}
    if set(line_ids) != set(planned):
        return False
    by_id = {entity["id"]: entity for entity in entities if entity["id"] in planned}
    for entity_id, item in planned.items():
        entity = by_id[entity_id]
        expected = item.entity()
        if entity["name"] != expected["name"]:
            return False
        if _canonical(entity.get("attributes")) != _canonical(expected["attributes"]):
            return False
        if graph.parents[entity_id]:
            return False
        if set(graph.children[entity_id]) != set(item.stack_ids):
            return False
    return True


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))
