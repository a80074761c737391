"""A standardized NX document of three chains on ``model.py`` lines 1-3, with cycles and
MAC counts whose shares are round (60/30/10%): the hints and lenses the LSP and view tests
expect are written from these figures. Builds data only."""

from __future__ import annotations

from typing import Any

from tests.support.documents import CHAIN_KINDS, envelope, model_file, nx_backend, nx_target

#: (op_cycles, mac_count) of the chains behind model.py lines 1, 2 and 3.
FIGURES = ((600, 10), (300, 30), (100, 60))


def three_chain_document() -> dict[str, Any]:
    entities: list[dict[str, Any]] = []
    breakdowns: list[dict[str, Any]] = []
    for i, (cycles, macs) in enumerate(FIGURES):
        op = f"source_operator/segment_0/op{i}"
        entities += [
            {"id": f"chain/{i}", "kind": "chain", "name": f"chain {i}", "child_ids": [op]},
            {"id": op, "kind": "source_operator", "name": f"op{i}", "placement": "NX"},
            {
                "id": f"code_stack/{i}",
                "kind": "code_stack",
                "name": f"model.py:{i + 1}",
                "child_ids": [op],
                "attributes": {"file": "/home/dev/proj/model.py", "line": i + 1},
            },
        ]
        breakdowns.append(
            {
                "entity_id": f"chain/{i}",
                "id": f"chain/{i}",
                "metrics": [
                    {"name": "op_cycles", "unit": "cycles", "value": cycles, "aggregation": "sum"},
                    {"name": "mac_count", "unit": "count", "value": macs, "aggregation": "sum"},
                ],
            }
        )
    result = {
        "kind": "performance",
        "status": "ok",
        "producer": "nx-performance-estimator",
        "breakdowns": breakdowns,
        "entities": entities,
        "entity_kinds": CHAIN_KINDS,
    }
    return envelope(
        [result],
        model=model_file("m.vgf", "a" * 64),
        target=nx_target("test", component={"type": "gpu", "family": "mali", "model": "nx"}),
        backends=[nx_backend(version="unknown")],
        run_id="a953f09a-1b6b-4725-8819-56e9ad0b1eb4",
    )
