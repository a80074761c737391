"""The standardized metrics the measured runtime backends (ExecuTorch, ONNX Runtime) state from
per-run samples: the one place their shape and order are written.

* ``observation_summary``: one observation's ``duration_avg``, ``duration_min``,
  ``duration_max``, ``duration_p50``, ``duration_p90`` (ms, ``samples`` = runs) and
  ``execution_count``, each with the qualifier ``confidence``; only an ``additive`` average has
  ``aggregation: "sum"`` (averages over the same runs add up; percentiles, extremes and counts
  never do). The caller decides what is additive, and whether the average carries the
  qualifier too (``qualify_average``; ONNX Runtime's does not, see its ``result`` module).
* ``inference_metrics``: the model level, ``inference_time`` (mean run) with
  ``_min``/``_max``/``_p50``/``_p90`` companions (all with ``samples``), ``total_cycles``
  unavailable (the caller's reason), then the standardized NX metric list with
  ``inferences_per_second`` = 1000 / the mean where the mean is positive and every other one
  unavailable with the shared NX reasons. No durations: ``inference_time`` is unavailable too.
* ``model_run_samples``: the per-run values behind those model-level statistics (for
  ``extensions.perfline.result_run_samples``, so a comparison judges them on the runs): each
  ``inference_time*`` statistic maps to the runs' durations, ``inferences_per_second`` to
  1000 / each duration when every one is positive.

Pure; cost: the statistics of the samples (O(k log k) for k samples).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from perfline.core.backends.nx_common.metrics import STANDARD_METRICS, unavailable
from perfline.core.backends.runtime_common.statistics import statistics

UNIT_MS = "ms"


def observation_summary(
    durations_ms: Sequence[float],
    confidence: str,
    *,
    additive: bool,
    qualify_average: bool = True,
) -> list[dict[str, Any]]:
    """The summary metrics of one observation (see the module docstring)."""
    stats = statistics(tuple(durations_ms))
    average: dict[str, Any] = {"name": "duration_avg", "unit": UNIT_MS, "value": stats.avg}
    if additive:
        average["aggregation"] = "sum"
    average["samples"] = stats.count
    if qualify_average:
        average["qualifiers"] = {"confidence": confidence}
    metrics = [average]
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
                "qualifiers": {"confidence": confidence},
            }
        )
    metrics.append(
        {
            "name": "execution_count",
            "unit": "executions",
            "value": stats.count,
            "qualifiers": {"confidence": confidence},
        }
    )
    return metrics


def inference_metrics(
    durations_ms: Sequence[float] | None, *, no_cycles: str, no_durations: str = ""
) -> list[dict[str, Any]]:
    """The model-level metrics of the runs' durations (``None``: none recorded, the reason is
    ``no_durations``); see the module docstring."""
    metrics: list[dict[str, Any]] = []
    throughput: dict[str, Any] | None = None
    if durations_ms is None:
        metrics.append(unavailable("inference_time", UNIT_MS, no_durations))
    else:
        stats = statistics(tuple(durations_ms))
        metrics.append(_ms("inference_time", stats.avg, stats.count))
        for suffix, value in (
            ("min", stats.min),
            ("max", stats.max),
            ("p50", stats.p50),
            ("p90", stats.p90),
        ):
            metrics.append(_ms(f"inference_time_{suffix}", value, stats.count))
        if stats.avg > 0:
            throughput = {
                "name": "inferences_per_second",
                "unit": "inferences/s",
                "value": 1000.0 / stats.avg,
                "samples": stats.count,
            }
    metrics.append(unavailable("total_cycles", "cycles", no_cycles))
    for name, unit, reason in STANDARD_METRICS:
        if name == "inferences_per_second" and throughput is not None:
            metrics.append(throughput)
        else:
            metrics.append(unavailable(name, unit, reason))
    return metrics


#: The model-level statistics computed from the runs' durations (``model_run_samples``).
SAMPLED_MODEL_STATISTICS = (
    "inference_time",
    "inference_time_min",
    "inference_time_max",
    "inference_time_p50",
    "inference_time_p90",
)


def model_run_samples(durations_ms: Sequence[float]) -> dict[str, list[float]]:
    """Per-run values of the model-level statistics (see the module docstring)."""
    durations = list(durations_ms)
    if not durations:
        return {}
    samples = {name: durations for name in SAMPLED_MODEL_STATISTICS}
    if all(duration > 0 for duration in durations):
        samples["inferences_per_second"] = [1000.0 / duration for duration in durations]
    return samples


def _ms(name: str, value: float, samples: int) -> dict[str, Any]:
    return {"name": name, "unit": UNIT_MS, "value": value, "samples": samples}
