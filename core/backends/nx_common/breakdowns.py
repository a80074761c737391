"""Breakdown metrics of a chain or cascade, from summed stripe figures.

Order: ``total_cycles``, ``op_cycles``, then per memory path (table order)
``<m>_read_bytes``, ``<m>_write_bytes``, ``<m>_traffic_cycles``, then per
section ``<s>_cycles``; names in lowercase snake case; every metric carries
``aggregation: "sum"`` because stripe figures are additive.
"""

from __future__ import annotations

from typing import Any

from perfline.core.backends.nx_common.aggregate import StripeTotals
from perfline.core.backends.nx_common.naming import snake_case
from perfline.core.backends.nx_common.records import Number


def breakdown_metrics(totals: StripeTotals) -> list[dict[str, Any]]:
    """The metric list of one chain or cascade breakdown."""
    metrics = [_metric("total_cycles", totals.total_cycles, "cycles")]
    metrics.append(_metric("op_cycles", totals.op_cycles, "cycles"))
    for traffic in totals.memory:
        prefix = snake_case(traffic.name)
        metrics.append(_metric(f"{prefix}_read_bytes", traffic.read_bytes, "bytes"))
        metrics.append(_metric(f"{prefix}_write_bytes", traffic.write_bytes, "bytes"))
        metrics.append(_metric(f"{prefix}_traffic_cycles", traffic.traffic_cycles, "cycles"))
    for section in totals.sections:
        metrics.append(_metric(f"{snake_case(section.name)}_cycles", section.cycles, "cycles"))
    return metrics


def breakdown(entity_id: str, totals: StripeTotals) -> dict[str, Any]:
    """An authoritative breakdown for ``entity_id`` (its record id is the entity id)."""
    return {"entity_id": entity_id, "metrics": breakdown_metrics(totals), "id": entity_id}


def _metric(name: str, value: Number, unit: str) -> dict[str, Any]:
    return {"name": name, "unit": unit, "value": value, "aggregation": "sum"}
