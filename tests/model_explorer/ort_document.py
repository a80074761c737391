"""A standardized-output document from a real ONNX Runtime profile, for the overlay tests.

ONNX Runtime's profiler (Chrome trace JSON) records one ``Node`` event per operator run, named
after the node (``<node name>_kernel_time``), with its duration in microseconds. Its
``args.node_index`` is ONNX Runtime's own numbering, which matches the file's only when no node
was dropped at load (the DS-CNN's; PaddleOCR's 308 ``Constant`` nodes become initializers and
shift it), so events are matched to the file's top-level nodes by name, which must be unique. The
document has one ``source_operator/<position in the file>`` (perfline's canonical ONNX id) per
profiled node, named as the node, with its average duration over the runs in ms. This is a test
fixture builder, not the ONNX Runtime backend.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from perfline.core.formats.onnx import read_onnx


def ort_document(profile: Path, model: Path) -> dict[str, Any]:
    """The document of the profile ``profile`` (``.json`` or ``.json.gz``) of ``model``."""
    with gzip.open(profile, "rt", encoding="utf-8") as handle:
        events = json.load(handle)
    positions: dict[str, int] = {}
    for node in read_onnx(model.read_bytes(), str(model)).nodes:
        if node.name:
            assert node.name not in positions, f"{model}: node name {node.name!r} is not unique"
            positions[node.name] = node.index
    durations: dict[int, list[float]] = {}
    names: dict[int, str] = {}
    for event in events:
        if event.get("cat") != "Node":
            continue
        name = str(event["name"]).removesuffix("_kernel_time")
        index = positions[name]
        durations.setdefault(index, []).append(event["dur"] / 1000.0)
        names[index] = name
    entities = [
        {"id": f"source_operator/{index}", "kind": "source_operator", "name": names[index]}
        for index in sorted(durations)
    ]
    breakdowns = [
        {
            "entity_id": f"source_operator/{index}",
            "metrics": [
                {
                    "name": "duration_avg",
                    "unit": "ms",
                    "value": sum(values) / len(values),
                    "aggregation": "sum",
                    "samples": len(values),
                }
            ],
        }
        for index, values in sorted(durations.items())
    ]
    return {
        "schema_version": "1.2.0",
        "run_id": "00000000-0000-4000-8000-000000000001",
        "timestamp": "2026-11-29T00:00:00Z",
        "tool": {"name": "perfline-tests", "version": "0"},
        "target": {
            "profile_name": "cpu",
            "target_type": "cpu",
            "components": [{"type": "cpu", "family": "onnxruntime"}],
            "configuration": {},
        },
        "model": {"name": model.name, "format": "onnx", "hash": "0" * 64},
        "context": {},
        "backends": [
            {
                "id": "onnxruntime-profile",
                "name": "ONNX Runtime profile",
                "version": "1.32.0",
                "configuration": {},
            }
        ],
        "results": [
            {
                "kind": "performance",
                "status": "ok",
                "producer": "onnxruntime-profile",
                "mode": "measured",
                "metrics": [],
                "breakdowns": breakdowns,
                "entities": entities,
            }
        ],
    }
