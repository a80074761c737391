"""Summary statistics of one observation's per-run samples (pure, numpy).

Mean, minimum, maximum and linearly interpolated 50th/90th percentiles (numpy's default, as the
ExecuTorch Inspector computes them). Cost: O(k log k) for k samples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Statistics:
    """Summary of one observation's samples."""

    count: int
    avg: float
    min: float
    max: float
    p50: float
    p90: float


def statistics(durations: tuple[float, ...]) -> Statistics:
    """Mean, extremes and percentiles of ``durations`` (non-empty)."""
    values = np.asarray(durations, dtype=np.float64)
    return Statistics(
        count=len(durations),
        avg=float(np.mean(values)),
        min=float(np.min(values)),
        max=float(np.max(values)),
        p50=float(np.percentile(values, 50)),
        p90=float(np.percentile(values, 90)),
    )
