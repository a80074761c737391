"""Model-level metrics of an ETDump result.

``inference_time`` is the mean ``Method::execute`` duration (with ``_min``,
``_max``, ``_p50``, ``_p90`` companions, all with ``samples``) and
``inferences_per_second`` = 1000 / that mean. Cycles come only from VGF
neural statistics (``total_cycles`` and ``compute_cycles`` = summed stripe
cycles, ``target_utilization`` = compute / total x 100); every other
standardized metric is unavailable with the shared NX reasons.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from perfline.core.backends.executorch.events import Observation
from perfline.core.backends.nx_common.metrics import STANDARD_METRICS, unavailable
from perfline.core.backends.runtime_common.statistics import statistics

NO_CYCLES = "ETDump timing events carry no cycle counts."
NO_EXECUTE = "The ETDump has no Method::execute events."


def model_metrics(method_observations: Sequence[Observation]) -> list[dict[str, Any]]:
    """The model-level metrics from the ``Method::execute`` observations."""
    metrics: list[dict[str, Any]] = []
    first = next((o for o in method_observations if o.key.occurrence == 0), None)
    derived: dict[str, dict[str, Any]] = {}
    if first is None:
        metrics.append(unavailable("inference_time", "ms", NO_EXECUTE))
    else:
        stats = statistics(first.durations_ms)
        metrics.append(_ms("inference_time", stats.avg, stats.count))
        for suffix, value in (
            ("min", stats.min),
            ("max", stats.max),
            ("p50", stats.p50),
            ("p90", stats.p90),
        ):
            metrics.append(_ms(f"inference_time_{suffix}", value, stats.count))
        if stats.avg > 0:
            derived["inferences_per_second"] = {
                "name": "inferences_per_second",
                "unit": "inferences/s",
                "value": 1000.0 / stats.avg,
                "samples": stats.count,
            }
    metrics.append(unavailable("total_cycles", "cycles", NO_CYCLES))
    for name, unit, reason in STANDARD_METRICS:
        metrics.append(derived.get(name) or unavailable(name, unit, reason))
    return metrics


def with_cycles(
    metrics: Sequence[dict[str, Any]],
    total_cycles: int | float | None,
    compute_cycles: int | float | None,
) -> list[dict[str, Any]]:
    """The metrics with the measured NX cycle figures filled in where known."""
    updated: list[dict[str, Any]] = []
    for metric in metrics:
        name = metric["name"]
        if name == "total_cycles" and total_cycles is not None:
            updated.append({"name": name, "unit": "cycles", "value": total_cycles})
            if compute_cycles is not None:
                updated.append(
                    {"name": "compute_cycles", "unit": "cycles", "value": compute_cycles}
                )
        elif name == "target_utilization" and total_cycles and compute_cycles is not None:
            updated.append(
                {"name": name, "unit": "%", "value": compute_cycles / total_cycles * 100}
            )
        else:
            updated.append(dict(metric))
    return updated


def _ms(name: str, value: float, samples: int) -> dict[str, Any]:
    return {"name": name, "unit": "ms", "value": value, "samples": samples}
