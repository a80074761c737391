"""The measured performance result of ONNX Runtime profiles of one ONNX model.

Entities: every top-level node of the model is ``source_operator/<node-index>`` (the canonical
ONNX identity) with its op type, name, ``code_stack`` (from ``pkg.torch.onnx.stack_trace``) and
``nn_module`` (from ``name_scopes`` / ``class_hierarchy``) parents. Where each executed node's
timing goes (confidence rules in ``mapping``; the confidence is the entity's
``attributes.confidence``):

* ``exact`` and the only observation of its model node -> that ``source_operator``;
* anything else (``fused``, ``inferred``, ``unmapped``, or a second observation of a node) -> a
  ``backend_operator`` named after the executed node, parenting the model nodes it stands for.

Whether the profiles are of this model at all is decided first, node by node, on what the
profile records (``node_evidence``: op type, name, output and input shapes, parameter sizes)
by ``run_match``: no judged node agreeing -> ``InputError`` naming the first mismatches; an
``exact`` node whose recorded shapes contradict the model is made ``unmapped`` (its time left
unattributed, named in the warning with the counts and the total), so figures are only where
the evidence agrees.

Statistics are the measured backends' shared ones (``runtime_common.metrics``): per observation
``duration_avg``, ``duration_min``, ``duration_max``, ``duration_p50``, ``duration_p90`` (ms,
``samples`` = runs) and ``execution_count``. The average of every mapped observation (exact,
fused or inferred) present in every kept run has ``aggregation: "sum"``: averages over the same
runs add up, and a fused or inserted node's time is real time of the model nodes it stands for.
The projection counts a record only toward a target that holds all its origins, so a fused
node whose originals lie on one line lands whole on that line (and on everything enclosing
it), and one whose originals span lines lands on their common parent and on none of those
lines: one figure, never split by a made-up ratio. Unmapped observations stay out of every sum
(the warning gives their total). Percentiles, extremes, counts and averages of nodes missing
from some runs are copied only.

The qualifier ``confidence`` is on the copy-only statistics and not on the average. Qualifiers
are part of a metric's identity in the projection: a line whose operators mix exact and fused
observations would hold two partial averages (``confidence: exact`` and ``fused``) and get no
figure ("conflicting figures"). The confidence stays visible on the entities
(``attributes.confidence``, ``configuration.confidence_counts``) and on the copied statistics of
each observation. (Issue 18 asked to record the mapping confidence as a qualifier; that holds
for the copy-only statistics only, and a fused node spanning two lines lands on their parent
rather than on both lines, which would count its time twice.)
The per-run values behind every statistic are returned for ``extensions.perfline.run_samples``.
Model level: ``inference_time`` (mean ``model_run``) with ``_min``/``_max``/``_p50``/``_p90`` and
``inferences_per_second``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfline.core.backends.onnxruntime.mapping import (
    CONFIDENCES,
    EXACT,
    UNMAPPED,
    ExecutedNode,
    NodeMapping,
    map_executed,
)
from perfline.core.backends.onnxruntime.node_evidence import node_evidence
from perfline.core.backends.onnxruntime.runs import NodeRuns, RecordedRuns
from perfline.core.backends.result_builder import ResultBuilder
from perfline.core.backends.run_match import Wording, judge_run
from perfline.core.backends.runtime_common.metrics import inference_metrics, observation_summary
from perfline.core.backends.source_model.provenance import (
    ENTITY_KINDS,
    operators_without_stack,
    provenance_entities,
)
from perfline.core.document_shapes import ResultJson
from perfline.core.formats.identity import SourceOperator, source_operator_id
from perfline.core.formats.onnx import OnnxModel
from perfline.core.formats.onnx_graph import OnnxGraph

PRODUCER = "onnxruntime"
BACKEND_OPERATOR = "backend_operator"
STATISTIC_NAMES = ("duration_avg", "duration_min", "duration_max", "duration_p50", "duration_p90")
NO_CYCLES = "ONNX Runtime profiles carry no cycle counts."


@dataclass(frozen=True)
class OrtResult:
    """The result, its per-run samples and facts for the document metadata."""

    result: ResultJson
    run_samples: dict[str, dict[str, list[float]]]
    configuration: dict[str, Any]


def build_ort_result(
    graph: OnnxGraph,
    operators: Sequence[SourceOperator],
    runs: RecordedRuns,
    *,
    model_source: str,
    profile_sources: Sequence[str] = (),
    optimized: OnnxModel | None = None,
    extra_warnings: Sequence[str] = (),
) -> OrtResult:
    """Entities, breakdowns and metrics of the kept runs (see the module docstring).

    Whether the profiles are of this model is ``run_match``'s verdict on ``node_evidence``:
    none of the judged nodes agreeing raises ``InputError``; the nodes that disagree keep their
    timing on ``unmapped`` backend operators (left out of every sum) and the warning says so.
    """
    model = graph.model
    executed = [ExecutedNode(n.name, n.op_name, n.node_index) for n in runs.nodes]
    mappings = map_executed(model, executed, optimized)
    kept = len(runs.run_durations_ms)
    evidence = node_evidence(runs.nodes, mappings, graph, kept)
    verdict = judge_run(
        evidence,
        Wording(
            run=", ".join(profile_sources) or model_source,
            items="profile nodes",
            model=f"a node of {model_source} (name, operator type, shapes)",
            conclusion="the profile is of another model (or of another size or version of it)",
            unit="ms per run on average",
            item_unit="ms",
        ),
    )
    for position in verdict.disagreeing:
        node = runs.nodes[position]
        known = mappings[node.name]
        if known.confidence != UNMAPPED:
            reason = evidence[position].mismatch or ""
            mappings[node.name] = NodeMapping((), UNMAPPED, f"{known.evidence}, but {reason}")
    total_events = sum(node.events for node in runs.nodes)
    mapped = [node for node in runs.nodes if mappings[node.name].confidence != UNMAPPED]
    warnings = list(extra_warnings)
    if verdict.warning is not None:
        warnings.append(verdict.warning)
    if runs.outside_runs:
        warnings.append(
            f"{runs.outside_runs} node events lie outside every model_run and are not counted."
        )
    missing = operators_without_stack(operators)
    if missing:
        warnings.append(
            f"{missing} of {len(operators)} nodes of {model_source} carry no source stack trace "
            "(pkg.torch.onnx.stack_trace): their figures stay on the nodes, with no code line."
        )
    observed: dict[int, int] = {}
    for node in runs.nodes:
        for original in mappings[node.name].originals:
            observed[original] = observed.get(original, 0) + 1
    entities = provenance_entities(operators)
    node_attributes: dict[str, dict[str, Any]] = {}
    result = ResultBuilder("performance", PRODUCER, mode="measured")
    result.warn(*warnings)
    backend_entities: list[dict[str, Any]] = []
    samples: dict[str, dict[str, list[float]]] = {}
    counts = dict.fromkeys(CONFIDENCES, 0)
    for node in runs.nodes:
        mapping = mappings[node.name]
        counts[mapping.confidence] += 1
        sole = mapping.confidence == EXACT and observed.get(mapping.originals[0], 0) == 1
        if sole:
            entity_id = source_operator_id(str(mapping.originals[0]))
            node_attributes[entity_id] = _event_attributes(node, mapping)
        else:
            entity_id = f"{BACKEND_OPERATOR}/{PRODUCER}/{node.name}"
            backend_entities.append(_backend_operator(entity_id, node, mapping))
        additive = mapping.confidence != UNMAPPED and len(node.runs) == kept
        result.add_breakdown(
            entity_id,
            observation_summary(
                node.durations_ms, mapping.confidence, additive=additive, qualify_average=False
            ),
        )
        values = list(node.durations_ms)
        samples[entity_id] = {name: values for name in STATISTIC_NAMES}
    result.add_metrics(inference_metrics(runs.run_durations_ms, no_cycles=NO_CYCLES))
    result.add_entities(_with_attributes(entity, node_attributes) for entity in entities)
    result.add_entities(backend_entities)
    result.declare_kinds([{"id": BACKEND_OPERATOR, "child_kinds": ["source_operator"]}])
    result.declare_kinds(ENTITY_KINDS)
    configuration = {
        "runs_used": kept,
        "warmup_runs": runs.warmup_runs,
        "warmup_runs_left_out": runs.left_out_runs,
        "node_events": total_events,
        "node_events_mapped": sum(node.events for node in mapped),
        "executed_nodes": len(runs.nodes),
        "confidence_counts": {k: v for k, v in counts.items() if v},
        "time_unit": "µs in the trace, reported in ms",
        "providers": sorted({node.provider for node in runs.nodes if node.provider}),
    }
    return OrtResult(result.finish(), samples, configuration)


def _event_attributes(node: NodeRuns, mapping: NodeMapping) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "runtime_event": f"{node.name}_kernel_time",
        "provider": node.provider,
        "confidence": mapping.confidence,
    }
    if node.node_index is not None:
        attributes["node_index"] = node.node_index
    return attributes


def _backend_operator(entity_id: str, node: NodeRuns, mapping: NodeMapping) -> dict[str, Any]:
    entity: dict[str, Any] = {"id": entity_id, "kind": BACKEND_OPERATOR, "name": node.name}
    if mapping.originals:
        entity["child_ids"] = [source_operator_id(str(i)) for i in mapping.originals]
    entity["attributes"] = {
        "operator_types": [node.op_name],
        **_event_attributes(node, mapping),
        "mapping_evidence": mapping.evidence,
    }
    return entity


def _with_attributes(
    entity: dict[str, Any], extra: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    added = extra.get(entity["id"])
    if added is None:
        return entity
    return {**entity, "attributes": {**entity.get("attributes", {}), **added}}
