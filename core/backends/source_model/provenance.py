"""Entities of a model's canonical source operators, with their code and module provenance.

Each ``SourceOperator`` (from ``core.formats``: ONNX, PT2, TOSA) becomes a ``source_operator``
entity with its op type in ``operator_types``; its recorded stack gives ``code_stack`` entities
(one per frame prefix, outermost first, the leaf parenting the operator) and its module stack
``nn_module`` entities (root to leaf), built by the shared NX provenance code so that ids follow
one scheme across backends (``code_stack/<basename:line>-<12 hex>``, ``nn_module/<key>``). The
ONNX exporter's root scope ``''`` is the root module. Operators without a stack are plain
entities (``operators_without_stack`` counts them for a warning). Cost: O(operators x depth).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from perfline.core.backends.nx_common.provenance import (
    ROOT_MODULE,
    code_stack_entities,
    module_entities,
)
from perfline.core.formats.identity import ModuleFrame, SourceOperator


def operator_name(operator: SourceOperator) -> str:
    """The operator's display name: its own name, else its type and local id."""
    return operator.name or f"{operator.op_type} {operator.local_id}"


def provenance_entities(
    operators: Iterable[SourceOperator],
    attributes: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Modules, code stacks and source operators (parents before children).

    ``attributes`` adds attributes per operator id (kept after ``operator_types``).
    """
    extra = attributes or {}
    registry: dict[str, dict[str, Any]] = {}
    entities: list[dict[str, Any]] = []
    for operator in operators:
        parents: list[str] = []
        modules = tuple(
            ModuleFrame(ROOT_MODULE if not frame.key else frame.key, frame.path, frame.type)
            for frame in operator.nn_module_stack
        )
        for chain in (module_entities(modules), code_stack_entities(operator.locations)):
            for link in chain:
                registry.setdefault(link["id"], link)
            if chain:
                parents.append(chain[-1]["id"])
        entity: dict[str, Any] = {
            "id": operator.id,
            "kind": "source_operator",
            "name": operator_name(operator),
        }
        if parents:
            entity["parent_ids"] = parents
        entity["attributes"] = {"operator_types": [operator.op_type], **extra.get(operator.id, {})}
        entities.append(entity)
    return [*registry.values(), *entities]


def operators_without_stack(operators: Iterable[SourceOperator]) -> int:
    """How many operators record no stack frame (they get no code line)."""
    return sum(1 for operator in operators if not operator.locations)


ENTITY_KINDS: tuple[dict[str, Any], ...] = (
    {
        "id": "nn_module",
        "parent_kinds": ["nn_module"],
        "child_kinds": ["nn_module", "source_operator"],
    },
)
