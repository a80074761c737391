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

Takes and gives normalized results (``document_shapes.ResultJson``). Cost:
linear in entities and references, plus sorting.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from perfline.core.code_line_ids import CODE_LINE_PREFIX
from perfline.core.code_line_plan import plan_code_lines
from perfline.core.code_line_processed import already_processed, existing_code_lines
from perfline.core.document_shapes import EntityJson, ResultJson
from perfline.core.errors import StageError
from perfline.core.graph import build_graph


def derive_code_lines(result: ResultJson) -> ResultJson:
    """Derive one code_line per exact (file, line) of retained code_stack entities."""
    output = result.copy()
    entities = result.get("entities")
    if entities is not None:
        derived = code_line_entities(entities)
        if derived is not None:
            output["entities"] = derived
    return output


def code_line_entities(entities: list[EntityJson]) -> list[EntityJson] | None:
    """The entity list with its code lines derived; ``None`` when it stays as it is.

    Raises ``StageError`` for backend-defined code lines and for id conflicts.
    """
    plan = plan_code_lines(entities)
    line_ids = existing_code_lines(entities)
    if line_ids:
        if already_processed(entities, build_graph(entities), plan, line_ids):
            return None
        raise StageError(
            "Backend output must not define core-derived code_line entities: "
            + ", ".join(sorted(line_ids))
        )
    if not plan:
        return None
    taken = _code_line_ids(entities)
    line_of_stack: dict[str, str] = {}
    new_lines: list[EntityJson] = []
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
    parents = normalized_parents(entities, line_of_stack)
    rewritten: list[EntityJson] = []
    for entity in entities:
        entity_id = entity["id"]
        if entity_id in line_of_stack:
            ordered = sorted(parents[entity_id])
            rewritten.append({**entity, "parent_ids": [*ordered, line_of_stack[entity_id]]})
        else:
            rewritten.append(entity)
    return rewritten + new_lines


def _code_line_ids(entities: Sequence[EntityJson]) -> set[str]:
    """The ids of the entities that a derived code line's id could equal: those that
    begin as every derived id does (``code_line_ids.CODE_LINE_PREFIX``)."""
    ids: set[str] = set()
    for entity in entities:
        entity_id = entity["id"]
        if entity_id.startswith(CODE_LINE_PREFIX):
            ids.add(entity_id)
    return ids


def normalized_parents(
    entities: Sequence[EntityJson], targets: Mapping[str, str]
) -> dict[str, set[str]]:
    """Parents of each id in ``targets`` from both sides of the links (one linear pass,
    cheaper than building the whole graph; references are known to resolve)."""
    parents: dict[str, set[str]] = {target: set() for target in targets}
    for entity in entities:
        entity_id = entity["id"]
        if entity_id in parents:
            parent_ids = entity.get("parent_ids")
            if parent_ids is not None:
                parents[entity_id].update(parent_ids)
        children = entity.get("child_ids")
        if children is None:
            continue
        for child in children:
            if child in parents:
                parents[child].add(entity_id)
    return parents
