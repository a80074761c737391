"""Paths of the ONNX Runtime test data and independent readings of the raw profiles."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support import locations

DATA = locations.DATA / "onnxruntime"
DSCNN = DATA.parent / "formats" / "dscnn"
DSCNN_ONNX = DSCNN / "dscnn.onnx"
ATTENTION_ONNX = DATA / "attention.onnx"


def raw_runs(path: Path, warmup: int = 1) -> tuple[list[float], dict[str, list[float]]]:
    """(run durations ms, node name -> per-run durations ms) straight from the events."""
    events: list[dict[str, Any]] = json.loads(path.read_text())
    runs = sorted((e["ts"], e["ts"] + e["dur"]) for e in events if e.get("name") == "model_run")
    per_node: dict[str, dict[int, float]] = {}
    for event in events:
        if event.get("cat") != "Node" or not event["name"].endswith("_kernel_time"):
            continue
        run = next(i for i, (start, end) in enumerate(runs) if start <= event["ts"] <= end)
        if run < warmup:
            continue
        node = per_node.setdefault(event["name"][: -len("_kernel_time")], {})
        node[run] = node.get(run, 0.0) + event["dur"] / 1000
    durations = [(end - start) / 1000 for start, end in runs[warmup:]]
    return durations, {name: [v for _, v in sorted(d.items())] for name, d in per_node.items()}


def percentile(values: list[float], q: float) -> float:
    """Linearly interpolated percentile, written out."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
