"""Content of ``nx_performance_statistics.json`` (a diagnostic, not a contract).

Keyed by chain entity id: the chain's stripe ids, summed op and total cycles,
memory traffic per path (``Internal`` left out), section utilisation (cycles
as strings, percentage of the chain's total cycles to one decimal, ``0.0%``
when the total is 0) and one entry per source association with its source
operator ids and operator types.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from perfline.core.backends.nx_common.associations import source_operator_id
from perfline.core.backends.nx_common.view import SegmentsView


def performance_statistics(
    view: SegmentsView, renames: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The statistics document of a built view (source ids renamed by ``renames``)."""
    renames = renames or {}
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
            "operators": [
                {
                    "source_operator_ids": [
                        renames.get(sid, sid)
                        for sid in (
                            source_operator_id(chain.segment_index, result_id)
                            for result_id in association.result_ids
                        )
                    ],
                    "operator_types": list(association.operator_types),
                }
                for association in chain.associations
            ],
        }
    return statistics
