"""The measured performance result of an ETRecord/ETDump pair.

Where each observation goes (confidence rules in ``mapping``):

* an operator instruction that is the only observation of exactly one source
  operator -> that ``source_operator`` (``exact``);
* several operator instructions of one source operator (e.g. ``linear`` ->
  ``permute_copy`` + ``addmm``) -> each on its own ``backend_operator``
  (``partial``), and the source operator gets their per-execution sums
  (``exact``: sequential instructions of the same executions);
* an instruction covering several source operators, or only partly mapped ->
  a ``backend_operator`` parenting what it covers (``shared`` / ``partial``),
  never divided among them;
* a delegate call (``DELEGATE_CALL``) -> a ``backend_operator`` for the
  delegate (``shared`` when it covers several operators); each
  delegate-internal event -> its own ``backend_operator`` (mapped through the
  ETRecord's per-delegate map when it has one, else ``unmapped``);
* ``Method::execute`` -> the model-level ``inference_time`` statistics;
* an observation that does not belong to the ETRecord's program
  (``program_match``) -> its own ``backend_operator`` with confidence
  ``unmapped`` (an ETDump of another program altogether is rejected).

Per-run values (``extensions.perfline.run_samples``, ``docs/results.md``):
every observation present in all recorded executions keeps its durations, in
execution order, as the samples of its ``duration_avg``, ``_min``, ``_max``,
``_p50`` and ``_p90`` (one list for the five); an operator whose instructions
are summed keeps the per-execution sums. The first ``Method::execute``
observation gives the samples of ``inference_time`` and its siblings, and
``1000 / duration`` per run those of ``inferences_per_second`` (its value,
1000 / the mean, is the harmonic mean of those). An observation missing from
some executions keeps none: its values could not be added run by run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfline.core.backends.executorch.etrecord import ETRecord
from perfline.core.backends.executorch.events import (
    OPERATOR_CALL,
    ROLE_DELEGATE,
    ROLE_DELEGATE_INTERNAL,
    ROLE_METHOD,
    ROLE_OPERATOR,
    Observation,
    Timeline,
)
from perfline.core.backends.executorch.mapping import (
    EXACT,
    PARTIAL,
    UNMAPPED,
    HandleIndex,
    Resolution,
    build_handle_index,
    resolve,
)
from perfline.core.backends.executorch.observations import (
    observation_metrics,
    summed_per_execution,
)
from perfline.core.backends.executorch.program_match import match_program
from perfline.core.backends.executorch.provenance import provenance_entities
from perfline.core.backends.executorch.runtime_metrics import model_metrics, with_cycles
from perfline.core.backends.executorch.vgf_view import VgfView
from perfline.core.backends.executorch.what_ran import WhatRan, what_ran
from perfline.core.backends.result_builder import ResultBuilder
from perfline.core.backends.runtime_common.metrics import model_run_samples
from perfline.core.document_shapes import ResultJson
from perfline.core.errors import InputError, Problem
from perfline.core.formats.identity import source_operator_id

PRODUCER = "neural-technology-profiling-data"
BACKEND_OPERATOR = "backend_operator"
#: The statistics of one observation that are computed from its per-run durations.
SAMPLED_STATISTICS = (
    "duration_avg",
    "duration_min",
    "duration_max",
    "duration_p50",
    "duration_p90",
)


@dataclass(frozen=True)
class RuntimeResult:
    """The result dict, facts the document metadata records, and the per-run values."""

    result: ResultJson
    configuration: dict[str, Any]
    run_samples: dict[str, dict[str, list[float]]]
    """entity id -> statistic name -> per-execution durations (ms)."""
    result_run_samples: dict[str, list[float]]
    """result-level metric name -> per-execution values."""
    ran: WhatRan
    """The delegates and CPU kernels that executed the method."""


def select_method(record: ETRecord, requested: str | None, source: str) -> str:
    """The method to analyse: the requested one, else the only one."""
    methods = record.methods
    if requested is not None:
        if requested not in methods:
            raise InputError(
                source,
                Problem(
                    "--method",
                    f"method {requested!r} is not in the ETRecord; its methods: "
                    + ", ".join(methods),
                ),
            )
        return requested
    if len(methods) != 1:
        raise InputError(
            source,
            Problem(
                "methods",
                "the ETRecord holds several methods; choose one with --method: "
                + ", ".join(methods),
            ),
        )
    return methods[0]


def build_runtime_result(
    record: ETRecord,
    timeline: Timeline,
    method: str,
    *,
    etdump_source: str,
    etrecord_source: str = "the ETRecord",
    extra_warnings: Sequence[str] = (),
    vgf: VgfView | None = None,
    vgf_configuration: Mapping[str, Any] | None = None,
) -> RuntimeResult:
    """Entities, breakdowns and model metrics of ``method``'s recorded executions."""
    if not timeline.execution_runs:
        raise InputError(
            etdump_source,
            Problem("run_data", "the ETDump records no method execution (only load events)"),
        )
    program = match_program(
        record, timeline, method, etdump_source=etdump_source, etrecord_source=etrecord_source
    )
    index = build_handle_index(record, method)
    builder = _Builder(method, timeline.execution_count)
    operators = [o for o in timeline.observations if o.key.role == ROLE_OPERATOR]
    _place_operators(
        builder, record, index, method, [o for o in operators if o.key not in program.unmatched]
    )
    for observation in timeline.observations:
        if observation.key in program.unmatched:
            _place_unmatched(builder, method, observation)
        elif observation.key.role == ROLE_DELEGATE:
            _place_delegate(builder, record, index, method, observation)
        elif observation.key.role == ROLE_DELEGATE_INTERNAL:
            _place_internal(builder, record, index, method, observation)
    method_observations = [o for o in timeline.observations if o.key.role == ROLE_METHOD]
    warnings = list(extra_warnings)
    if program.warning:
        warnings.append(program.warning)
    if timeline.nested_kernel_events:
        warnings.append(
            f"Portable-runtime dump: {timeline.nested_kernel_events} 'native_call_*' kernel "
            f"events are nested inside the OPERATOR_CALL event of the same instruction; each "
            f"operator is counted once, from its OPERATOR_CALL event."
        )
    incomplete = [o for o in timeline.observations if len(o.executions) < timeline.execution_count]
    if incomplete:
        warnings.append(
            f"{len(incomplete)} runtime event(s) occur in only some of the "
            f"{timeline.execution_count} executions; their statistics cover the executions in "
            f"which they occur (see each metric's samples)."
        )
    if builder.unmapped:
        warnings.append(
            f"{builder.unmapped} runtime observation(s) could not be mapped to source "
            f"operators; they are reported on backend_operator entities with confidence "
            f"'unmapped'."
        )
    entities = provenance_entities(record.exported_nodes)
    _attach_runtime_attributes(entities, builder.source_events)
    entities.extend(builder.entities)
    result = builder.result
    result.warn(*warnings)
    result.declare_kinds(
        [
            {"id": BACKEND_OPERATOR, "child_kinds": ["source_operator"]},
            {
                "id": "nn_module",
                "parent_kinds": ["nn_module"],
                "child_kinds": ["nn_module", "source_operator"],
            },
        ]
    )
    metrics = model_metrics(method_observations)
    if vgf is not None:
        entities = merge_entities([*entities, *vgf.entities])
        result.declare_kinds(vgf.entity_kinds)
        result.add_breakdowns(vgf.breakdowns)
        metrics = with_cycles(metrics, vgf.total_cycles, vgf.compute_cycles)
    result.add_metrics(metrics)
    result.add_entities(entities)
    configuration = {
        "method": method,
        "executions": timeline.execution_count,
        "time_unit": "ns (ExecuTorch default tick), reported in ms",
        "operator_event": OPERATOR_CALL if timeline.nested_kernel_events else "per instruction",
        "nested_kernel_events_skipped": timeline.nested_kernel_events,
        "nested_kernel_event_names": list(timeline.nested_kernel_names),
        "ignored_runtime_events": list(timeline.ignored_runtime_events),
        "confidence_counts": dict(sorted(builder.confidence_counts.items())),
    }
    if vgf_configuration is not None:
        configuration["vgf_neural_statistics"] = dict(vgf_configuration)
    return RuntimeResult(
        result=result.finish(),
        configuration=configuration,
        run_samples=builder.run_samples,
        result_run_samples=_model_samples(method_observations, timeline.execution_count),
        ran=what_ran(record, timeline, method, program.unmatched),
    )


def _model_samples(
    method_observations: Sequence[Observation], execution_count: int
) -> dict[str, list[float]]:
    """Per-execution values of the model-level statistics (see the module docstring)."""
    first = next((o for o in method_observations if o.key.occurrence == 0), None)
    if first is None or len(first.executions) != execution_count:
        return {}
    return model_run_samples(first.durations_ms)


class _Builder:
    def __init__(self, method: str, execution_count: int) -> None:
        self.method = method
        self.execution_count = execution_count
        self.entities: list[dict[str, Any]] = []
        self.result = ResultBuilder("performance", PRODUCER, mode="measured")
        self.source_events: dict[str, dict[str, Any]] = {}
        self.confidence_counts: dict[str, int] = {}
        self.unmapped = 0
        self.run_samples: dict[str, dict[str, list[float]]] = {}
        self._ids: set[str] = set()

    def observe(
        self,
        entity_id: str,
        durations: tuple[float, ...],
        executions: tuple[int, ...],
        confidence: str,
    ) -> None:
        self.confidence_counts[confidence] = self.confidence_counts.get(confidence, 0) + 1
        if confidence == UNMAPPED:
            self.unmapped += 1
        if len(executions) == self.execution_count:
            runs = list(durations)
            self.run_samples[entity_id] = {name: runs for name in SAMPLED_STATISTICS}
        self.result.add_breakdown(
            entity_id,
            observation_metrics(
                durations,
                executions,
                confidence,
                all_executions=len(executions) == self.execution_count,
            ),
        )

    def backend_operator(
        self,
        entity_id: str,
        name: str,
        children: Sequence[str],
        attributes: Mapping[str, Any],
    ) -> str:
        unique = entity_id
        suffix = 1
        while unique in self._ids:
            suffix += 1
            unique = f"{entity_id}#{suffix}"
        self._ids.add(unique)
        entity: dict[str, Any] = {"id": unique, "kind": BACKEND_OPERATOR, "name": name}
        if children:
            entity["child_ids"] = list(children)
        entity["attributes"] = dict(attributes)
        self.entities.append(entity)
        return unique


def _place_operators(
    builder: _Builder,
    record: ETRecord,
    index: HandleIndex,
    method: str,
    observations: Sequence[Observation],
) -> None:
    handle_map = record.debug_handle_map.get(method, {})
    resolved = [(o, resolve(index, handle_map.get(o.key.instruction_id, ()))) for o in observations]
    single: dict[str, list[Observation]] = {}
    for observation, resolution in resolved:
        if resolution.confidence() == EXACT:
            single.setdefault(resolution.sources[0], []).append(observation)
    for observation, resolution in resolved:
        confidence = resolution.confidence()
        if confidence == EXACT and len(single[resolution.sources[0]]) == 1:
            source = resolution.sources[0]
            builder.source_events[source_operator_id(source)] = _event_attributes(
                observation, resolution
            )
            builder.observe(
                source_operator_id(source),
                observation.durations_ms,
                observation.executions,
                EXACT,
            )
            continue
        if confidence == EXACT:
            confidence = PARTIAL
        entity_id = builder.backend_operator(
            f"{BACKEND_OPERATOR}/{method}/instruction_{observation.key.instruction_id}",
            f"instruction {observation.key.instruction_id} ({observation.key.name})",
            [source_operator_id(name) for name in resolution.sources],
            {**_event_attributes(observation, resolution), "confidence": confidence},
        )
        builder.observe(entity_id, observation.durations_ms, observation.executions, confidence)
    for source, parts in single.items():
        if len(parts) < 2:
            continue
        executions, totals = summed_per_execution(
            [(part.executions, part.durations_ms) for part in parts]
        )
        if not executions:
            continue
        builder.source_events[source_operator_id(source)] = {
            "runtime_event": parts[0].key.name,
            "instruction_ids": [part.key.instruction_id for part in parts],
            "combined": "per-execution sum of sequential instructions",
        }
        builder.observe(source_operator_id(source), totals, executions, EXACT)


def _place_unmatched(builder: _Builder, method: str, observation: Observation) -> None:
    """An event the ETRecord does not account for: on its own, attributed to nothing."""
    key = observation.key
    label = key.name or key.delegate_debug_id_str or str(key.delegate_debug_id_int)
    suffix = f"@{key.occurrence}" if key.occurrence else ""
    entity_id = builder.backend_operator(
        f"{BACKEND_OPERATOR}/{method}/unmatched_{key.instruction_id}/{label}{suffix}",
        f"{label} (instruction {key.instruction_id}, not in the ETRecord's program)",
        [],
        {"runtime_event": label, "instruction_id": key.instruction_id, "confidence": UNMAPPED},
    )
    builder.observe(entity_id, observation.durations_ms, observation.executions, UNMAPPED)


def _place_delegate(
    builder: _Builder,
    record: ETRecord,
    index: HandleIndex,
    method: str,
    observation: Observation,
) -> None:
    instruction = observation.key.instruction_id
    delegate = record.delegate_map.get(method, {}).get(instruction)
    backend = delegate.backend if delegate is not None else "delegate"
    resolution = resolve(index, record.debug_handle_map.get(method, {}).get(instruction, ()))
    confidence = resolution.confidence()
    entity_id = builder.backend_operator(
        f"{BACKEND_OPERATOR}/{method}/delegate_{instruction}",
        f"{backend} (instruction {instruction})",
        [source_operator_id(name) for name in resolution.sources],
        {
            "backend": backend,
            **_event_attributes(observation, resolution),
            "confidence": confidence,
        },
    )
    builder.observe(entity_id, observation.durations_ms, observation.executions, confidence)


def _place_internal(
    builder: _Builder,
    record: ETRecord,
    index: HandleIndex,
    method: str,
    observation: Observation,
) -> None:
    key = observation.key
    delegate = record.delegate_map.get(method, {}).get(key.instruction_id)
    identifier = key.delegate_debug_id_str or str(key.delegate_debug_id_int)
    handles: tuple[int, ...] = ()
    if delegate is not None:
        handles = delegate.debug_ids.get(identifier, ())
    resolution = resolve(index, handles)
    confidence = resolution.confidence()
    backend = delegate.backend if delegate is not None else "delegate"
    suffix = f"@{key.occurrence}" if key.occurrence else ""
    entity_id = builder.backend_operator(
        f"{BACKEND_OPERATOR}/{method}/delegate_{key.instruction_id}/{identifier}{suffix}",
        identifier,
        [source_operator_id(name) for name in resolution.sources],
        {
            "backend": backend,
            "delegate_debug_identifier": identifier,
            "delegate_call": f"{BACKEND_OPERATOR}/{method}/delegate_{key.instruction_id}",
            **_event_attributes(observation, resolution),
            "confidence": confidence,
        },
    )
    builder.observe(entity_id, observation.durations_ms, observation.executions, confidence)


def _event_attributes(observation: Observation, resolution: Resolution) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "runtime_event": observation.key.name or None,
        "instruction_id": observation.key.instruction_id,
        "debug_handles": list(resolution.handles),
    }
    if resolution.missing_handles:
        attributes["unresolved_debug_handles"] = list(resolution.missing_handles)
    return {key: value for key, value in attributes.items() if value is not None}


def _attach_runtime_attributes(
    entities: list[dict[str, Any]], events: Mapping[str, Mapping[str, Any]]
) -> None:
    for position, entity in enumerate(entities):
        extra = events.get(entity["id"])
        if extra is None:
            continue
        updated = dict(entity)
        updated["attributes"] = {**entity.get("attributes", {}), **extra}
        entities[position] = updated


def merge_entities(entities: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Entities with duplicate ids merged: first-seen fields, parent and child ids unioned."""
    merged: dict[str, dict[str, Any]] = {}
    for entity in entities:
        existing = merged.get(entity["id"])
        if existing is None:
            merged[entity["id"]] = dict(entity)
            continue
        for key in ("parent_ids", "child_ids"):
            values = list(existing.get(key, []))
            values.extend(v for v in entity.get(key, []) if v not in values)
            if values:
                existing[key] = values
    return list(merged.values())
