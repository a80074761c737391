"""code_line derivation: one ``code_line`` per exact (file, line) of the
retained ``code_stack`` entities (spec core.md §5).

Decisions:

* A result that already holds ``code_line`` entities is returned unchanged
  when they are exactly what derivation would produce (a persisted, already
  processed document; see ``code_line_processed``); otherwise it is rejected
  with the reference's message ``Backend output must not define core-derived
  code_line entities: <sorted ids>``.
* Each new line (``code_line_plan``, ids from ``code_line_ids``) lists its
  stacks, sorted, as children; a derived id equal to an existing entity id is
  an error. Every contributing stack's ``parent_ids`` becomes its normalized
  parents, sorted, followed by its line. New lines are appended after all
  existing entities in (file, line) order; nothing else changes.

Cost: linear in entities and references, plus sorting.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from perfline.core.code_line_plan import plan_code_lines
from perfline.core.code_line_processed import already_processed
from perfline.core.errors import StageError
from perfline.core.graph import build_graph
from perfline.core.kinds import CODE_LINE


def derive_code_lines(result: Mapping[str, Any]) -> dict[str, Any]:
    """Derive one code_line per exact (file, line) of retained code_stack entities."""
    entities = result.get("entities")
    if not isinstance(entities, list):
        return dict(result)
    plan = plan_code_lines(entities)
    line_ids = [
        entity["id"]
        for entity in entities
        if isinstance(entity, Mapping)
        and entity.get("kind") == CODE_LINE
        and isinstance(entity.get("id"), str)
    ]
    graph = build_graph(entities) if plan or line_ids else None
    if line_ids:
        assert graph is not None
        if already_processed(entities, graph, plan, line_ids):
            return dict(result)
        raise StageError(
            "Backend output must not define core-derived code_line entities: "
            + ", ".join(sorted(line_ids))
        )
    if not plan:
        return dict(result)
    assert graph is not None
    taken = set(graph.ids)
    line_of_stack: dict[str, str] = {}
    new_lines: list[dict[str, Any]] = []
    for item in plan:
        line_id = item.entity_id
        if line_id in taken:
            raise StageError(
                f"Derived code_line entity id '{line_id}' conflicts with an existing entity id."
            )
        taken.add(line_id)
        new_lines.append(item.entity())
        for stack_id in item.stack_ids:
            line_of_stack[stack_id] = line_id
    rewritten: list[Any] = []
    for entity in entities:
        entity_id = entity.get("id") if isinstance(entity, Mapping) else None
        if isinstance(entity_id, str) and entity_id in line_of_stack:
            parents = sorted(graph.parents[entity_id])
            rewritten.append({**entity, "parent_ids": [*parents, line_of_stack[entity_id]]})
        else:
            rewritten.append(entity)
    output = dict(result)
    output["entities"] = rewritten + new_lines
    return output
