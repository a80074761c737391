"""Per-line and per-node figures computed straight from onnxruntime profiles (test oracle).

Independent of perfline: lines come from the model's node records
(``dscnn.onnx.nodes.json``: each node's ``pkg.torch.onnx.stack_trace``), fused ORT kernels
from the records' inputs and outputs, durations from the profile's raw events.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.support.compare_paths import ONNX_NODES

USER_LINE = re.compile(r'dscnn\.py", line (\d+)')


def node_lines() -> dict[int, set[int]]:
    nodes = json.loads(ONNX_NODES.read_text())
    return {
        node["index"]: {
            int(n)
            for n in USER_LINE.findall(node["metadata_props"].get("pkg.torch.onnx.stack_trace", ""))
        }
        for node in nodes
    }


def fused_members() -> dict[str, list[int]]:
    """``X_nchwc`` -> [the Conv feeding the Relu that outputs X, that Relu] (node records)."""
    nodes = json.loads(ONNX_NODES.read_text())
    producer = {output: node for node in nodes for output in node["outputs"]}
    fused: dict[str, list[int]] = {}
    for node in nodes:
        if node["op_type"] == "Relu":
            conv = producer[node["inputs"][0]]
            fused[f"{node['outputs'][0]}_nchwc"] = [conv["index"], node["index"]]
    return fused


def raw_line_runs(profile: Path, warmup: int = 1) -> dict[int, list[float]]:
    """Line -> per-run (``warmup`` runs left out) ms of the node events covering it."""
    events = json.loads(profile.read_text())
    spans = _spans(events, warmup)
    lines_of = node_lines()
    fused = fused_members()
    names = {node["name"]: node["index"] for node in json.loads(ONNX_NODES.read_text())}
    lines: dict[int, list[float]] = {}
    for run, span in enumerate(spans):
        for event in events:
            if (
                event.get("cat") != "Node"
                or not span["ts"] <= event["ts"] <= span["ts"] + span["dur"]
            ):
                continue
            name = event["name"].removesuffix("_kernel_time")
            members = fused.get(name) or ([names[name]] if name in names else [])
            covered = set().union(*(lines_of[m] for m in members)) if members else set()
            for line in covered:
                lines.setdefault(line, [0.0] * len(spans))[run] += event["dur"] / 1000
    return lines


def raw_node_runs(profile: Path) -> dict[str, list[float]]:
    """Node name (without ``_kernel_time``) -> per-run (warm-up left out) ms."""
    events = json.loads(profile.read_text())
    spans = _spans(events)
    nodes: dict[str, list[float]] = {}
    for run, span in enumerate(spans):
        for event in events:
            if _inside(event, span):
                name = event["name"].removesuffix("_kernel_time")
                nodes.setdefault(name, [0.0] * len(spans))[run] += event["dur"] / 1000
    return nodes


def _spans(events: list[dict[str, Any]], warmup: int = 1) -> list[dict[str, Any]]:
    """The Execute spans in time order, the first ``warmup`` left out."""
    spans = [e for e in events if e.get("name") == "SequentialExecutor::Execute"]
    return sorted(spans, key=lambda e: e["ts"])[warmup:]


def _inside(event: dict[str, Any], span: dict[str, Any]) -> bool:
    if event.get("cat") != "Node":
        return False
    start: int = span["ts"]
    return start <= event["ts"] <= start + span["dur"]
