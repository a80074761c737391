"""Model-level metrics of an NX performance result.

Emits the seed's table in a fixed order: the backend-native figures, then the
derived ``inferences_per_second`` (1000 / ``inference_time``, only when that
is non-zero) and ``target_utilization`` (``compute_cycles / total_cycles *
100``, 0.0 when the total is 0), then the standardized metrics the backend
cannot give. A missing figure is an unavailable entry with a reason, never a
made-up number; callers may give a specific reason per metric.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from perfline.core.backends.nx_common.records import Number
from perfline.core.backends.nx_common.totals import ModelTotals

NO_VALUE = "Backend output did not provide a numeric value for this metric."

#: (metric name = ModelTotals field, unit) of the figures copied from the totals.
NATIVE_METRICS: tuple[tuple[str, str], ...] = (
    ("inference_time", "ms"),
    ("infs_per_sec", "inferences/s"),
    ("total_cycles", "cycles"),
    ("compute_cycles", "cycles"),
    ("cache_cycles", "cycles"),
    ("dram_cycles", "cycles"),
    ("compiled_size", "bytes"),
    ("cache_read_bytes", "bytes"),
    ("cache_write_bytes", "bytes"),
    ("dram_read_bytes", "bytes"),
    ("dram_write_bytes", "bytes"),
    ("dram_footprint", "bytes"),
)

#: Standardized metrics with their unit and default reason when unavailable.
STANDARD_METRICS: tuple[tuple[str, str, str], ...] = (
    ("inferences_per_second", "inferences/s", "Inference throughput data is not available."),
    ("target_utilization", "%", "Target utilization data is not available."),
    (
        "accelerator_operator_percentage",
        "%",
        "Accelerator operator placement data is not available.",
    ),
    ("cpu_utilization", "%", "CPU utilization data is not available."),
    ("model_weight_memory", "bytes", "Model weight memory data is not available."),
    ("peak_activation_memory", "bytes", "Peak activation memory data is not available."),
    ("average_memory", "bytes", "Average memory data is not available."),
)

#: Every metric name the NX performance result carries (for tests and docs).
ALL_METRIC_NAMES: tuple[str, ...] = tuple(n for n, _ in NATIVE_METRICS) + tuple(
    n for n, _, _ in STANDARD_METRICS
)


def model_metrics(
    totals: ModelTotals,
    *,
    accelerator_operator_percentage: Number | None = None,
    reasons: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The model-level metric list; ``reasons`` overrides the reason of unavailable metrics."""
    reasons = reasons or {}
    metrics: list[dict[str, Any]] = []
    for name, unit in NATIVE_METRICS:
        value = getattr(totals, name)
        metrics.append(_metric(name, unit, value, reasons.get(name, NO_VALUE)))
    derived: dict[str, Number | None] = {
        "inferences_per_second": 1000 / totals.inference_time if totals.inference_time else None,
        "target_utilization": _utilization(totals),
        "accelerator_operator_percentage": accelerator_operator_percentage,
    }
    for name, unit, default_reason in STANDARD_METRICS:
        reason = reasons.get(name, default_reason)
        metrics.append(_metric(name, unit, derived.get(name), reason))
    return metrics


def unavailable(name: str, unit: str, reason: str) -> dict[str, Any]:
    """An unavailable metric entry."""
    return {"name": name, "unit": unit, "availability": "unavailable", "reason": reason}


def _utilization(totals: ModelTotals) -> Number | None:
    if totals.compute_cycles is None or totals.total_cycles is None:
        return None
    if totals.total_cycles == 0:
        return 0.0
    return totals.compute_cycles / totals.total_cycles * 100


def _metric(name: str, unit: str, value: Number | None, reason: str) -> dict[str, Any]:
    if value is None:
        return unavailable(name, unit, reason)
    return {"name": name, "unit": unit, "value": value}
