"""Runtime observations as standardized breakdown metrics.

Every observation becomes the summary of ``runtime_common.metrics.observation_summary``
(``duration_avg``, ``_min``, ``_max``, ``_p50``, ``_p90``, ``execution_count``, qualifier
``confidence``) followed by one ``duration`` per execution (qualifier ``execution`` = its
0-based number, ``samples`` 1). Only the average of an ``exact`` observation present in every
recorded execution is additive (``aggregation: "sum"``): averages over the same executions add
up (the mean of a sum is the sum of the means); a shared or partial average must not be added
to the figures of the operators it overlaps.
"""

from __future__ import annotations

from typing import Any

from perfline.core.backends.executorch.mapping import EXACT
from perfline.core.backends.runtime_common.metrics import UNIT_MS, observation_summary


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
    metrics = observation_summary(
        durations_ms, confidence, additive=confidence == EXACT and all_executions
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
