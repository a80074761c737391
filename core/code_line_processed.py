"""Recognizing a result whose code lines were already derived.

The reference refuses any input holding ``code_line`` entities, so it cannot
read its own persisted output again. perfline accepts such a result when its
code lines are exactly what derivation would produce from its code stacks:
the same ids, each with the derived name and ``attributes`` ``{file, line}``,
no parents, and as children exactly the stacks at that location (so every
such stack already has its line as a parent). Anything else is rejected with
the reference's message. Cost: linear in the entities plus the plan.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from perfline.core.code_line_plan import PlannedLine
from perfline.core.graph import EntityGraph


def already_processed(
    entities: Sequence[Any],
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
    by_id = {
        entity["id"]: entity
        for entity in entities
        if isinstance(entity, Mapping) and entity.get("id") in planned
    }
    for entity_id, item in planned.items():
        entity = by_id[entity_id]
        expected = item.entity()
        if entity.get("name") != expected["name"]:
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
