"""A one-line model and torch.profiler traces of it, each run's ReLU time drawn around a given
mean (seeded), for the ``perfline mcp`` tests that re-profile a model. Costs a few kilobytes
per trace."""

from __future__ import annotations

import random

from tests.support.torch_build import Trace, frame, op, step

MODEL = """import torch


def forward(x):
    return torch.relu(x)
"""


def relu_trace(seed: int, relu_us: float) -> bytes:
    """Eight profiler steps of ``forward``, its ReLU ``relu_us`` microseconds +-3%."""
    draw = random.Random(seed)
    events = []
    for number in range(1, 9):
        start = number * 1000.0
        relu = relu_us * draw.uniform(0.97, 1.03)
        events += [
            step(number, start, 900.0),
            frame("model.py(4): forward", start + 10, relu + 20),
            op("aten::relu", start + 15, relu, external=number),
        ]
    return Trace(events).data()
