"""Source operators of the exported program, with their code and module provenance.

Each exported-program node becomes ``source_operator/<fx node name>`` (the PT2
identity) named after the node, with ``operator_types`` = its target. Its
stack trace gives ``code_stack`` entities (one per frame prefix, outermost
caller first, the leaf frame parenting the operator) and its
``nn_module_stack`` gives ``nn_module`` entities (root to leaf, the leaf
parenting the operator). Both are built by the shared NX provenance code, so
ids follow the NX scheme ``code_stack/<basename:line>-<12 hex>`` and
``nn_module/<tracer key>``. Shared frames and modules are emitted once; an
entity reached from several operators keeps the first-seen fields.
Cost: O(nodes x stack depth).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from perfline.core.backends.executorch.etrecord import GraphNode
from perfline.core.backends.nx_common.provenance import code_stack_entities, module_entities
from perfline.core.formats.identity import source_operator_id


def provenance_entities(nodes: Iterable[GraphNode]) -> list[dict[str, Any]]:
    """Modules, code stacks and source operators for ``nodes``, parents before children."""
    registry: dict[str, dict[str, Any]] = {}
    operators: list[dict[str, Any]] = []
    for node in nodes:
        parents: list[str] = []
        for chain in (module_entities(node.module_stack), code_stack_entities(node.frames)):
            for entity in chain:
                registry.setdefault(entity["id"], entity)
            if chain:
                parents.append(chain[-1]["id"])
        operator: dict[str, Any] = {
            "id": source_operator_id(node.name),
            "kind": "source_operator",
            "name": node.name,
        }
        if parents:
            operator["parent_ids"] = parents
        operator["attributes"] = {"operator_types": [node.target]}
        operators.append(operator)
    return [*registry.values(), *operators]
