"""Placement records of the debug database: one per (operation, label).

Operations of ``tosa_op_id`` run on the NX accelerator, those of
``shader_op_id`` on the Execution Engine (EE, supported execution, not CPU
fallback). An operation without labels still gives one record, labelled
``unknown``. A record is attributed to a source operator when its label
resolves to exactly one SPIR-V result id of the segment; a source reached by
both NX and EE records is placed ``NX/EE``. Used by the compatibility result
and by ``accelerator_operator_percentage`` (NX records / all records x 100).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from perfline.core.backends.nx_common.associations import (
    known_labels,
    label_result_ids,
    source_operator_id,
)
from perfline.core.backends.nx_common.labels import split_labels
from perfline.core.backends.nx_common.records import SegmentInput, TosaOperation

NX = "NX"
EE = "EE"
UNKNOWN_LABEL = "unknown"


@dataclass(frozen=True)
class PlacementRecord:
    """One (operation, label) record with where it runs and what it names."""

    key: str
    segment_index: int
    op_id: str
    placement: str
    op_type: str | None
    label: str
    result_id: int | None

    @property
    def source_id(self) -> str | None:
        """The attributed source operator's id, if the label names exactly one operation."""
        if self.result_id is None:
            return None
        return source_operator_id(self.segment_index, self.result_id)


def placement_records(segments: Sequence[SegmentInput]) -> list[PlacementRecord]:
    """All records of the segments, sorted by key (then NX before EE)."""
    records: list[PlacementRecord] = []
    for segment in segments:
        links = segment.links
        for operation in links.nx_operations.values():
            records.extend(_records(segment, operation, NX))
        for operation in links.ee_operations.values():
            records.extend(_records(segment, operation, EE))
    return sorted(records, key=lambda record: (record.key, record.placement != NX))


def accelerator_percentage(records: Sequence[PlacementRecord]) -> float | None:
    """NX records as a percentage of all records; ``None`` without records."""
    if not records:
        return None
    on_nx = sum(1 for record in records if record.placement == NX)
    return on_nx / len(records) * 100


def merged_placement(placements: Sequence[str]) -> str:
    """``NX``, ``EE`` or ``NX/EE`` for a set of record placements."""
    present = set(placements)
    return "/".join(p for p in (NX, EE) if p in present)


def _records(
    segment: SegmentInput, operation: TosaOperation, placement: str
) -> list[PlacementRecord]:
    labels = split_labels(operation.raw_labels, known_labels(segment.spirv))
    prefix = f"segment_{segment.index}_op_id_{operation.op_id}"
    table = "tosa_op_id" if placement == NX else "shader_op_id"
    if not labels:
        return [
            PlacementRecord(
                f"{prefix}_{placement}_0",
                segment.index,
                operation.op_id,
                placement,
                operation.op_type,
                UNKNOWN_LABEL,
                None,
            )
        ]
    records: list[PlacementRecord] = []
    for index, label in enumerate(labels):
        ids = label_result_ids(segment, label, f"table {table}, id {operation.op_id}")
        records.append(
            PlacementRecord(
                f"{prefix}_{index}",
                segment.index,
                operation.op_id,
                placement,
                operation.op_type,
                label,
                ids[0] if len(ids) == 1 else None,
            )
        )
    return records
