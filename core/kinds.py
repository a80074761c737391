"""Entity kinds: the well-known kinds and their schema-owned relationships,
and the kind relationships a result declares.

A parent-to-child kind pair ``(P, C)`` is *declared* when ``C`` is in P's
``child_kinds`` or ``P`` is in C's ``parent_kinds`` (one side is enough).
An entity edge is *allowed* when its kind pair is declared or schema-owned.
Projection's declared frontiers use only declared pairs; collapse and
validation use allowed pairs.

The declarations are read as unchecked JSON (validation asks before it has
checked them): a result is any ``Mapping[str, object]``, a normalized
``ResultJson`` included, and whatever is not a list of objects with string
ids and string lists is skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from perfline.core import document_shapes
from perfline.core.document_shapes import WellKnownKind

SOURCE_OPERATOR: Final[WellKnownKind] = "source_operator"
MODEL: Final[WellKnownKind] = "model"
CODE_STACK: Final[WellKnownKind] = "code_stack"
CODE_LINE: Final[WellKnownKind] = "code_line"

WELL_KNOWN_KINDS: Final[frozenset[str]] = document_shapes.WELL_KNOWN_KINDS

#: Schema-owned parent -> child kind pairs.
WELL_KNOWN_EDGES: frozenset[tuple[str, str]] = frozenset(
    {
        (CODE_LINE, CODE_STACK),
        (CODE_STACK, CODE_STACK),
        (CODE_STACK, SOURCE_OPERATOR),
    }
)

KindPair = tuple[str, str]


def declared_kind_pairs(result: Mapping[str, object]) -> frozenset[KindPair]:
    """Kind pairs declared by the result's ``entity_kinds`` (well-known pairs excluded)."""
    pairs: set[KindPair] = set()
    declarations = result.get("entity_kinds")
    if not isinstance(declarations, list):
        return frozenset()
    for declaration in declarations:
        if not isinstance(declaration, Mapping):
            continue
        kind_id = declaration.get("id")
        if not isinstance(kind_id, str):
            continue
        for child in _string_items(declaration.get("child_kinds")):
            pairs.add((kind_id, child))
        for parent in _string_items(declaration.get("parent_kinds")):
            pairs.add((parent, kind_id))
    return frozenset(pairs)


def allowed_kind_pairs(result: Mapping[str, object]) -> frozenset[KindPair]:
    """Declared pairs plus the schema-owned ones."""
    return declared_kind_pairs(result) | WELL_KNOWN_EDGES


def declared_kind_ids(result: Mapping[str, object]) -> frozenset[str]:
    """Ids of the kinds the result declares."""
    declarations = result.get("entity_kinds")
    if not isinstance(declarations, list):
        return frozenset()
    return frozenset(
        d["id"] for d in declarations if isinstance(d, Mapping) and isinstance(d.get("id"), str)
    )


def _string_items(value: object) -> list[str]:
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, str)]
