"""Static optimisation advice of NX estimator results.

Rule (seed 000): a depthwise 3x3 convolution followed by a 1x1 convolution
whose output channels -- the first dimension of its weight shape -- are fewer
than 64 is usually faster on NX as one normal 3x3 convolution. "Followed by"
means the next convolution in graph order. Without weight shapes (the
estimator databases carry none) the rule cannot be decided and gives nothing.
Cost: linear in the number of convolutions.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

DEPTHWISE = "depthwise"
CONVOLUTION = "convolution"
CHANNEL_LIMIT = 64


@dataclass(frozen=True)
class Convolution:
    """One convolution of the model, in graph order.

    ``kernel`` is (height, width); ``output_channels`` the first dimension of a
    normal convolution's weight shape (``None`` when unknown).
    """

    entity_id: str
    kind: str
    kernel: tuple[int, int] | None
    output_channels: int | None


def depthwise_advice(convolutions: Sequence[Convolution]) -> list[dict[str, Any]]:
    """One advice item per depthwise 3x3 -> 1x1 (< 64 output channels) pair."""
    advice: list[dict[str, Any]] = []
    for first, second in itertools.pairwise(convolutions):
        if first.kind != DEPTHWISE or first.kernel != (3, 3):
            continue
        if second.kind != CONVOLUTION or second.kernel != (1, 1):
            continue
        if second.output_channels is None or second.output_channels >= CHANNEL_LIMIT:
            continue
        advice.append(
            {
                "id": f"nx_depthwise_3x3_pointwise_{len(advice)}",
                "category": "optimization",
                "severity": "info",
                "message": (
                    "A depthwise 3x3 convolution feeds a 1x1 convolution with "
                    f"{second.output_channels} output channels (fewer than {CHANNEL_LIMIT}). "
                    "On NX a normal 3x3 convolution producing those channels is usually "
                    "faster than this depthwise + pointwise pair; consider using one instead."
                ),
                "affected_entity_ids": [first.entity_id, second.entity_id],
                "details": {
                    "depthwise_kernel": list(first.kernel),
                    "pointwise_output_channels": second.output_channels,
                },
            }
        )
    return advice
