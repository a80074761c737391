"""Minimal valid documents to break one rule at a time."""

from __future__ import annotations

import copy
from typing import Any

NX_KINDS: list[dict[str, Any]] = [
    {"id": "segment", "child_kinds": ["cascade", "source_operator"]},
    {"id": "cascade", "parent_kinds": ["segment"], "child_kinds": ["chain"]},
    {"id": "chain", "parent_kinds": ["cascade"], "child_kinds": ["source_operator"]},
]


def minimal_document() -> dict[str, Any]:
    """A valid schema-1.2.0 document with one result: a chain over one source operator."""
    return copy.deepcopy(
        {
            "schema_version": "1.2.0",
            "timestamp": "2026-01-01T00:00:00Z",
            "tool": {"name": "perfline", "version": "0.1.0"},
            "run_id": "938db8c9-f82c-4cb5-8d3f-3ef4fd250036",
            "context": {},
            "model": {"name": "m.vgf", "format": "vgf", "hash": "ab" * 32},
            "target": {
                "profile_name": "nx",
                "target_type": "neural-accelerator",
                "components": [{"type": "gpu", "family": "mali"}],
                "configuration": {},
            },
            "backends": [{"id": "b", "name": "B", "version": "1", "configuration": {}}],
            "results": [
                {
                    "kind": "performance",
                    "status": "ok",
                    "producer": "test-producer",
                    "metrics": [{"name": "total_cycles", "value": 10, "unit": "cycles"}],
                    "breakdowns": [
                        {
                            "entity_id": "chain/0",
                            "metrics": [
                                {
                                    "name": "op_cycles",
                                    "value": 4,
                                    "unit": "cycles",
                                    "aggregation": "sum",
                                }
                            ],
                        }
                    ],
                    "entities": [
                        {
                            "id": "chain/0",
                            "kind": "chain",
                            "name": "Chain 0",
                            "child_ids": ["source_operator/a"],
                        },
                        {"id": "source_operator/a", "kind": "source_operator", "name": "a"},
                    ],
                    "entity_kinds": copy.deepcopy(NX_KINDS),
                }
            ],
        }
    )
