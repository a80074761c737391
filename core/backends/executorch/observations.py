"""Runtime observations as standardized breakdown metrics.

Every observation becomes: ``duration_avg``, ``duration_min``,
``duration_max``, ``duration_p50``, ``duration_p90`` (ms, ``samples`` = number
of executions), ``execution_count`` and one ``duration`` per execution
(qualifier ``execution`` = its 0-based number, ``samples`` 1). Every metric
carries the mapping qualifier ``confidence``. Only the average of an
``exact`` observation present in every recorded execution has
``aggregation: "sum"``: averages over the same executions add up (the mean
of a sum is the sum of the means); percentiles, extremes and counts never
do, and a shared or partial average must not be added to the figures of the
operators it overlaps.
"""

from __future__ import annotations

from typing import Any

from perfline.core.backends.executorch.mapping import EXACT
from perfline.core.backends.runtime_common.statistics import Statistics, statistics

UNIT_MS = "ms"


def observation_metrics(
    durations_ms: tuple[float, ...],
    executions: tuple[int, ...],
    confidence: str,
    *,
    all_executions: bool = True,
) -> list[dict[str, Any]]:
    """The metric list of one observation (see the module docstring).

    ``all_executions`` says whether the observation occurred in every recorded
    execution; an average over only some of them is not additive either.
    """
    stats = statistics(durations_ms)
    qualifiers = {"confidence": confidence}
    metrics = [
        _average(stats, additive=confidence == EXACT and all_executions, confidence=confidence)
    ]
    for name, value in (
        ("duration_min", stats.min),
        ("duration_max", stats.max),
        ("duration_p50", stats.p50),
        ("duration_p90", stats.p90),
    ):
        metrics.append(
            {
                "name": name,
                "unit": UNIT_MS,
                "value": value,
                "samples": stats.count,
                "qualifiers": dict(qualifiers),
            }
        )
    metrics.append(
        {
            "name": "execution_count",
            "unit": "executions",
            "value": stats.count,
            "qualifiers": dict(qualifiers),
        }
    )
    for execution, duration in zip(executions, durations_ms, strict=True):
        metrics.append(
            {
                "name": "duration",
                "unit": UNIT_MS,
                "value": duration,
                "samples": 1,
                "qualifiers": {"confidence": confidence, "execution": execution},
            }
        )
    return metrics


def _average(stats: Statistics, *, additive: bool, confidence: str) -> dict[str, Any]:
    metric: dict[str, Any] = {"name": "duration_avg", "unit": UNIT_MS, "value": stats.avg}
    if additive:
        metric["aggregation"] = "sum"
    metric["samples"] = stats.count
    metric["qualifiers"] = {"confidence": confidence}
    return metric


def summed_per_execution(
    parts: list[tuple[tuple[int, ...], tuple[float, ...]]],
) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """Per-execution sums of several sequential observations, over the executions all share."""
    common = set(parts[0][0])
    for executions, _ in parts[1:]:
        common &= set(executions)
    ordered = tuple(sorted(common))
    totals = []
    for execution in ordered:
        total = 0.0
        for executions, durations in parts:
            total += durations[executions.index(execution)]
        totals.append(total)
    return ordered, tuple(totals)
