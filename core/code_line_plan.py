"""Which code lines a result's retained ``code_stack`` entities call for.

A ``code_stack`` contributes a location when ``attributes.file`` is a
non-empty string and ``attributes.line`` an ``int`` (not ``bool``) above 0.
Stacks are grouped by exact (file, line); groups come out in sorted
(file, line) order, each with its stack ids sorted. Cost: one pass over the
entities plus sorting.
"""

from __future__ import annotations

from collections.abc import Sequence

from perfline.core.code_line_ids import code_line_id, code_line_name
from perfline.core.document_shapes import EntityJson
from perfline.core.kinds import CODE_LINE, CODE_STACK


class PlannedLine:  # a value: never mutated
    """One code_line derivation would create (its name and id worked out once)."""

    __slots__ = ("entity_id", "file", "line", "name", "stack_ids")

    file: str
    line: int
    stack_ids: tuple[str, ...]
    name: str
    entity_id: str

    def __init__(self, file: str, line: int, stack_ids: tuple[str, ...]) -> None:
        self.file = file
        self.line = line
        self.stack_ids = stack_ids
        self.name = code_line_name(file, line)
        self.entity_id = code_line_id(file, line, self.name)

    def entity(self) -> EntityJson:
        """The derived entity: no parents, no placement."""
        return {
            "id": self.entity_id,
            "kind": CODE_LINE,
            "name": self.name,
            "child_ids": list(self.stack_ids),
            "attributes": {"file": self.file, "line": self.line},
        }


def stack_location(entity: EntityJson) -> tuple[str, int] | None:
    """The exact (file, line) a code_stack entity contributes, if any (its free-form
    ``attributes`` are read as unchecked JSON)."""
    if entity["kind"] != CODE_STACK:
        return None
    attributes = entity.get("attributes")
    if attributes is None:
        return None
    file = attributes.get("file")
    line = attributes.get("line")
    if not isinstance(file, str) or not file:
        return None
    if not isinstance(line, int) or isinstance(line, bool) or line <= 0:
        return None
    return file, line


def plan_code_lines(entities: Sequence[EntityJson]) -> list[PlannedLine]:
    """The code lines to derive, in (file, line) order."""
    groups: dict[tuple[str, int], list[str]] = {}
    for entity in entities:
        location = stack_location(entity)
        if location is not None:
            groups.setdefault(location, []).append(entity["id"])
    return [
        PlannedLine(file, line, tuple(sorted(ids))) for (file, line), ids in sorted(groups.items())
    ]
