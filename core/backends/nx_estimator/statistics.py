"""Content of ``nx_performance_statistics.json`` (a diagnostic, not a contract).

Keyed by chain entity id: the chain's stripe ids, summed op and total cycles,
memory traffic per path (``Internal`` left out), section utilisation (cycles
as strings, percentage of the chain's total cycles to one decimal, ``0.0%``
when the total is 0) and one entry per TOSA operation of the chain with the
source operator ids its labels name and its operator type.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from perfline.core.backends.nx_common.associations import (
    chain_operations,
    resolve_labels,
    source_operator_id,
)
from perfline.core.backends.nx_common.records import SegmentInput
from perfline.core.backends.nx_common.view import SegmentsView


def performance_statistics(
    view: SegmentsView,
    segments: Sequence[SegmentInput],
    renames: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The statistics document of a built view (source ids renamed by ``renames``)."""
    renames = renames or {}
    by_index = {segment.index: segment for segment in segments}
    statistics: dict[str, Any] = {}
    for chain in view.chains:
        totals = chain.totals
        total = totals.total_cycles
        statistics[chain.entity_id] = {
            "stripe_ids": list(totals.stripe_ids),
            "op_cycles": totals.op_cycles,
            "total_cycles": total,
            "memory": {
                traffic.name: {
                    "readBytes": traffic.read_bytes,
                    "writeBytes": traffic.write_bytes,
                    "trafficCycles": traffic.traffic_cycles,
                }
                for traffic in totals.memory
            },
            "utilization": [
                {
                    "sectionName": section.name,
                    "cycles": str(section.cycles),
                    "percentage": f"{(section.cycles / total * 100) if total else 0.0:.1f}%",
                }
                for section in totals.sections
            ],
            "operators": _operators(by_index[chain.segment_index], chain.chain_id, renames),
        }
    return statistics


def _operators(
    segment: SegmentInput, chain_id: str, renames: Mapping[str, str]
) -> list[dict[str, Any]]:
    operators = []
    for operation in chain_operations(segment, chain_id):
        ids, _ = resolve_labels(segment, operation, "tosa_op_id")
        source_ids = [source_operator_id(segment.index, result_id) for result_id in ids]
        operators.append(
            {
                "source_operator_ids": [renames.get(sid, sid) for sid in source_ids],
                "operator_types": [operation.op_type] if operation.op_type else [],
            }
        )
    return operators
