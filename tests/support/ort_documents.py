"""ONNX Runtime-shaped standardized documents built by hand from real profiles: inputs for the
compare and hardening tests, written without the ONNX Runtime backend's code.

The backend (``core/backends/onnxruntime/``) is not used here on purpose: these documents'
figures follow from the raw Chrome-trace events by the few rules below, so a compare test
knows every expected figure independently of the backend, and ``ort_document`` can replace
a profile's per-run values with chosen ones (``runs``, ``execute``), which the backend cannot
be asked to do. The rules are this builder's; the backend's own reading of the same profiles
is checked against the raw events in ``tests/core/compare/test_onnxruntime_backend.py``. From the
events of ``onnxruntime`` profiles and the ONNX model's own records:

* a run is one ``SequentialExecutor::Execute`` span; the first ``warmup`` runs are left
  out; a node's duration in a run is the sum of its ``*_kernel_time`` events in the span;
* ``<onnx node name>_kernel_time`` -> ``source_operator/<node index>`` (the canonical ONNX
  identity, ``perfline operators``); ``X_nchwc_kernel_time`` (ORT's Conv+Relu fusion,
  named after the output X) -> ``backend_operator/X_nchwc`` parenting the Relu that
  produces X and the Conv that feeds it; any other node (``ReorderOutput``) ->
  ``backend_operator/<name>`` with no children;
* every figure: ``duration_avg`` (``aggregation: "sum"``), ``_min``, ``_max``, ``_p50``,
  ``_p90`` in ms; per-run values in ``extensions.perfline.run_samples``; the model's
  ``inference_time`` from the Execute spans, with its per-run values;
* code stacks from the model's user frames (library frames dropped), nn_modules from its
  module stacks.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy

from perfline.core.backends.nx_common.provenance import code_stack_entities, module_entities
from perfline.core.compare.run_samples import with_run_samples
from perfline.core.envelope import build_document, model_info
from perfline.core.formats.onnx import onnx_operators, read_onnx

PRODUCER = "onnxruntime-profile"
STATISTICS = ("duration_avg", "duration_min", "duration_max", "duration_p50", "duration_p90")
EXECUTE = "SequentialExecutor::Execute"
SUFFIX = "_kernel_time"
FUSED = "_nchwc"


def profile_runs(profile: Path, warmup: int = 1) -> list[dict[str, float]]:
    """Per run (warm-up left out): node name (without the suffix) -> duration in ms."""
    events = json.loads(profile.read_text())
    spans = sorted((e for e in events if e.get("name") == EXECUTE), key=lambda e: e["ts"])
    nodes = [e for e in events if e.get("cat") == "Node" and e["name"].endswith(SUFFIX)]
    runs: list[dict[str, float]] = []
    for span in spans[warmup:]:
        start, end = span["ts"], span["ts"] + span["dur"]
        durations: dict[str, float] = {}
        for event in nodes:
            if start <= event["ts"] <= end:
                name = event["name"].removesuffix(SUFFIX)
                durations[name] = durations.get(name, 0.0) + event["dur"] / 1000.0
        runs.append(durations)
    return runs


def execute_ms(profile: Path, warmup: int = 1) -> list[float]:
    """The Execute spans' durations in ms (warm-up left out)."""
    events = json.loads(profile.read_text())
    spans = sorted((e for e in events if e.get("name") == EXECUTE), key=lambda e: e["ts"])
    return [span["dur"] / 1000.0 for span in spans[warmup:]]


def _statistics(values: Sequence[float]) -> list[dict[str, Any]]:
    array = numpy.asarray(values, dtype=numpy.float64)
    figures = (
        ("duration_avg", float(numpy.mean(array))),
        ("duration_min", float(numpy.min(array))),
        ("duration_max", float(numpy.max(array))),
        ("duration_p50", float(numpy.percentile(array, 50))),
        ("duration_p90", float(numpy.percentile(array, 90))),
    )
    metrics: list[dict[str, Any]] = []
    for name, value in figures:
        metric: dict[str, Any] = {"name": name, "unit": "ms", "value": value}
        if name == "duration_avg":
            metric["aggregation"] = "sum"
        metric["samples"] = len(values)
        metrics.append(metric)
    return metrics


def ort_document(
    model: Path,
    profile: Path,
    *,
    warmup: int = 1,
    runs: list[dict[str, float]] | None = None,
    execute: list[float] | None = None,
) -> dict[str, Any]:
    """The (raw, not post-processed) document of one profile (module docstring).

    ``runs`` / ``execute`` replace the profile's own per-run values (generated pairs).
    """
    data = model.read_bytes()
    operators = onnx_operators(data, str(model))
    graph = read_onnx(data, str(model))
    by_name = {node.name: node.index for node in graph.nodes}
    producer_of = {output: node.index for node in graph.nodes for output in node.outputs}
    runs = runs if runs is not None else profile_runs(profile, warmup)
    execute = execute if execute is not None else execute_ms(profile, warmup)
    registry: dict[str, dict[str, Any]] = {}
    entities: list[dict[str, Any]] = []
    for operator in operators:
        parents = []
        for chain in (
            module_entities(operator.nn_module_stack),
            code_stack_entities(operator.user_frames()),
        ):
            for entity in chain:
                registry.setdefault(entity["id"], entity)
            if chain:
                parents.append(chain[-1]["id"])
        entity = {"id": operator.id, "kind": "source_operator", "name": operator.name}
        if parents:
            entity["parent_ids"] = parents
        entities.append(entity)
    names = list(dict.fromkeys(name for run in runs for name in run))
    backend: list[dict[str, Any]] = []
    breakdowns: list[dict[str, Any]] = []
    samples: dict[str, dict[str, list[float]]] = {}
    for name in names:
        values = [run[name] for run in runs if name in run]
        if len(values) != len(runs):
            continue
        if name in by_name:
            entity_id = f"source_operator/{by_name[name]}"
        else:
            entity_id = f"backend_operator/{name}"
            children: list[str] = []
            if name.endswith(FUSED):
                relu = producer_of[name.removesuffix(FUSED)]
                conv = producer_of[graph.nodes[relu].inputs[0]]
                children = [f"source_operator/{conv}", f"source_operator/{relu}"]
            entity: dict[str, Any] = {"id": entity_id, "kind": "backend_operator", "name": name}
            if children:
                entity["child_ids"] = children
            backend.append(entity)
        breakdowns.append({"entity_id": entity_id, "metrics": _statistics(values)})
        samples[entity_id] = {statistic: values for statistic in STATISTICS}
    model_metrics = [
        {
            "name": "inference_time",
            "unit": "ms",
            "value": float(numpy.mean(execute)),
            "samples": len(execute),
        }
    ]
    result = {
        "kind": "performance",
        "status": "ok",
        "producer": PRODUCER,
        "metrics": model_metrics,
        "breakdowns": breakdowns,
        "mode": "measured",
        "entities": [*registry.values(), *entities, *backend],
        "entity_kinds": [
            {"id": "backend_operator", "child_kinds": ["source_operator"]},
            {
                "id": "nn_module",
                "parent_kinds": ["nn_module"],
                "child_kinds": ["nn_module", "source_operator"],
            },
        ],
    }
    document = build_document(
        results=[result],
        model=model_info(model.name, "onnx", data),
        target={
            "profile_name": "cpu",
            "target_type": "cpu",
            "components": [{"type": "cpu", "family": "onnxruntime"}],
            "configuration": {},
        },
        backends=[
            {"id": PRODUCER, "name": "ONNX Runtime profile", "version": "test", "configuration": {}}
        ],
        timestamp="2026-12-01T00:00:00Z",
        run_id="00000000-0000-4000-8000-000000000001",
    )
    return with_run_samples(document, [samples], [{"inference_time": execute}])
