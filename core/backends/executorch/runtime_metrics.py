"""Model-level metrics of an ETDump result.

``inference_time`` is the mean ``Method::execute`` duration (with ``_min``,
``_max``, ``_p50``, ``_p90`` companions, all with ``samples``) and
``inferences_per_second`` = 1000 / that mean, as ``runtime_common.metrics``
states them. Cycles come only from VGF neural statistics (``total_cycles`` and
``compute_cycles`` = summed stripe cycles, ``target_utilization`` = compute /
total x 100); every other standardized metric is unavailable with the shared
NX reasons.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from perfline.core.backends.executorch.events import Observation
from perfline.core.backends.runtime_common.metrics import inference_metrics

NO_CYCLES = "ETDump timing events carry no cycle counts."
NO_EXECUTE = "The ETDump has no Method::execute events."


def model_metrics(method_observations: Sequence[Observation]) -> list[dict[str, Any]]:
    """The model-level metrics from the ``Method::execute`` observations."""
    first = next((o for o in method_observations if o.key.occurrence == 0), None)
    return inference_metrics(
        None if first is None else first.durations_ms, no_cycles=NO_CYCLES, no_durations=NO_EXECUTE
    )


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
