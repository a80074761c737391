"""Which metric lines are judged by when none is asked for (``core.compare.selection``): a
time before any other figure, whatever order the lines list their metrics in (a
torch.profiler result puts ``allocated_bytes`` and ``cpu_time`` on every line; the
post-processed lines list them by name)."""

from __future__ import annotations

from typing import Any

from perfline.core.compare.comparison import compare_results
from perfline.core.compare.deltas import CompareSettings
from perfline.core.compare.selection import line_metrics


def _result(scale: float) -> dict[str, Any]:
    entities: list[dict[str, Any]] = []
    breakdowns: list[dict[str, Any]] = []
    for line in (3, 4):
        entities.append(
            {
                "id": f"line/{line}",
                "kind": "code_line",
                "name": f"m.py:{line}",
                "attributes": {"file": "m.py", "line": line},
                "child_ids": [f"op{line}"],
            }
        )
        entities.append({"id": f"op{line}", "kind": "source_operator", "name": f"op{line}"})
        metrics = [
            {"name": "allocated_bytes", "unit": "bytes", "value": 4096.0, "aggregation": "sum"},
            {"name": "calls", "unit": "calls", "value": 2.0, "aggregation": "sum"},
            {"name": "cpu_time", "unit": "ms", "value": scale * line, "aggregation": "sum"},
        ]
        breakdowns += [
            {"entity_id": f"line/{line}", "metrics": metrics},
            {"entity_id": f"op{line}", "metrics": metrics},
        ]
    return {
        "kind": "performance",
        "producer": "test",
        "mode": "measured",
        "entities": entities,
        "breakdowns": breakdowns,
    }


def test_lines_are_judged_by_their_time_before_bytes_or_counts() -> None:
    compared = compare_results(_result(1.0), _result(2.0), CompareSettings())
    assert line_metrics(compared) == ["cpu_time"]
    assert line_metrics(compared, ["allocated_bytes"]) == ["allocated_bytes"]
