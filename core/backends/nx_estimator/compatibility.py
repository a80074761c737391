"""The NX compatibility result (``perfline analyze --compatibility``).

One passing check ``nx_support_<n>`` per placement record (records sorted by
key), each with ``details.reasons: []``: the debug database reports where an
operation runs (NX, EE or both), never why an operation was rejected, so
there is no reason to give. A record whose label names exactly one SPIR-V
operation checks that ``source_operator`` (placed ``NX``, ``EE`` or ``NX/EE``
over all its records); any other record checks a ``converted_operator`` entity
for its lowered operation (it cannot be attributed to one source operator).
``accelerator_operator_percentage`` = NX records / all records x 100.
Databases of another model than the VGF are rejected, and partly matching ones
warned about (``nx_common.database_match``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from perfline.core.backends.nx_common.associations import debug_name_of
from perfline.core.backends.nx_common.database_match import check_matches, segment_matches
from perfline.core.backends.nx_common.metrics import unavailable
from perfline.core.backends.nx_common.provenance import display_name
from perfline.core.backends.nx_common.records import SegmentInput, SegmentSpirv
from perfline.core.backends.nx_estimator import PRODUCER
from perfline.core.backends.nx_estimator.placement import (
    PlacementRecord,
    accelerator_percentage,
    merged_placement,
    placement_records,
)
from perfline.core.backends.result_builder import ResultBuilder
from perfline.core.document_shapes import ResultJson

CONVERTED_OPERATOR = "converted_operator"
_LEVELS = {"NX": "TOSA", "EE": "Shader", "NX/EE": "TOSA/Shader"}


def build_compatibility_result(
    segments: Sequence[SegmentInput], *, warnings: Sequence[str] = ()
) -> ResultJson:
    """The compatibility result of the analysed segments."""
    mismatch = check_matches(segment_matches(segments), "estimator chains")
    records = placement_records(segments)
    by_entity: dict[str, list[PlacementRecord]] = {}
    for record in records:
        by_entity.setdefault(_entity_id(record), []).append(record)
    spirv_of = {segment.index: segment.spirv for segment in segments}
    entities = [
        _entity(entity_id, group, spirv_of.get(group[0].segment_index))
        for entity_id, group in by_entity.items()
    ]
    checks = [
        {
            "id": f"nx_support_{number}",
            "status": "pass",
            "entity_id": _entity_id(record),
            "details": {"reasons": []},
        }
        for number, record in enumerate(records)
    ]
    percentage = accelerator_percentage(records)
    metric: dict[str, Any]
    if percentage is None:
        metric = unavailable(
            "accelerator_operator_percentage",
            "%",
            "Accelerator operator placement data is not available.",
        )
    else:
        metric = {"name": "accelerator_operator_percentage", "unit": "%", "value": percentage}
    result = ResultBuilder("compatibility", PRODUCER)
    result.warn(*warnings, *([mismatch] if mismatch else []))
    result.add_metric(metric)
    result.add_checks(checks)
    result.add_entities(entities)
    if any(entity["kind"] == CONVERTED_OPERATOR for entity in entities):
        result.declare_kinds([{"id": CONVERTED_OPERATOR}])
    return result.finish()


def _entity_id(record: PlacementRecord) -> str:
    if record.source_id is not None:
        return record.source_id
    return f"{CONVERTED_OPERATOR}/segment_{record.segment_index}/{record.op_id}"


def _entity(
    entity_id: str, records: list[PlacementRecord], spirv: SegmentSpirv | None
) -> dict[str, Any]:
    first = records[0]
    placement = merged_placement([record.placement for record in records])
    op_types = list(dict.fromkeys(r.op_type for r in records if r.op_type))
    name: str | None = None
    if first.result_id is not None:
        debug_name = debug_name_of(spirv, first.result_id)
        name = display_name(debug_name) if debug_name else None
    if name is None:
        name = "/".join(op_types) if op_types else display_name(first.label)
    attributes: dict[str, Any] = {
        "compat_level": _LEVELS[placement],
        "display_label": first.label,
    }
    if op_types:
        attributes["op_type"] = "/".join(op_types)
    return {
        "id": entity_id,
        "kind": "source_operator" if first.source_id is not None else CONVERTED_OPERATOR,
        "name": name,
        "placement": placement,
        "attributes": attributes,
    }
