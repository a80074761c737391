"""Every figure of a trace on its leaf, step by step.

Joins the timeline's self times (``timeline``), the GPU work and the op that launched it
(``gpu``), the backward nodes and their forward ops (``backward``) and the allocations
(``memory``) into per-leaf, per-step values of each metric:

* ``cpu_time``: self time of the leaf's slices (ms);
* ``gpu_time``: GPU activities launched by the leaf's ops outside backward nodes (ms);
* ``cpu_time_backward``: duration of the backward nodes the leaf's forward ops caused (ms),
  on the forward leaf, in the node's step;
* ``gpu_time_backward``: GPU activities launched inside those nodes (ms);
* ``allocated_bytes``, ``gpu_allocated_bytes``: bytes allocated (host, device).

A metric appears only when the trace has what it measures (no GPU metric for a CPU trace);
then every leaf has it (zero where it has none), so the figures add up on every line. The
step durations (``ProfilerStep#N``; else the span of the traced slices, one step) and the
counts the warnings need are kept too. Pure; cost: linear in the events.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from typing import Final

from perfline.core.backends.torch_profiler.backward import (
    BackwardLinks,
    backward_roots,
    link_backward,
)
from perfline.core.backends.torch_profiler.gpu import (
    DeviceLinks,
    link_device_work,
    op_slices_by_external,
)
from perfline.core.backends.torch_profiler.memory import Allocations, attribute_allocations
from perfline.core.backends.torch_profiler.statements import (
    StackFrameLike,
    StatementStacks,
    apply_statements,
)
from perfline.core.backends.torch_profiler.timeline import StepWindows, Timeline, build_timeline
from perfline.core.backends.torch_profiler.trace_table import NONE, TraceTable

CPU_TIME: Final = "cpu_time"
GPU_TIME: Final = "gpu_time"
BACKWARD_CPU_TIME: Final = "cpu_time_backward"
BACKWARD_GPU_TIME: Final = "gpu_time_backward"
ALLOCATED_BYTES: Final = "allocated_bytes"
GPU_ALLOCATED_BYTES: Final = "gpu_allocated_bytes"
TIME_METRICS: Final = (CPU_TIME, GPU_TIME, BACKWARD_CPU_TIME, BACKWARD_GPU_TIME)
US_PER_MS: Final = 1000.0


def zeros(steps: int) -> array[float]:
    """A row of ``steps`` zeros."""
    return array("d", bytes(8 * steps))


class Attribution:
    """Per metric, per leaf, the values of each step (time in ms, memory in bytes)."""

    __slots__ = (
        "allocations",
        "backward",
        "device",
        "outside_steps",
        "outside_steps_us",
        "statements",
        "step_ms",
        "step_numbers",
        "timeline",
        "values",
    )

    def __init__(
        self,
        timeline: Timeline,
        step_ms: list[float],
        step_numbers: list[int],
        device: DeviceLinks,
        backward: BackwardLinks,
        allocations: Allocations,
    ) -> None:
        self.timeline = timeline
        self.step_ms = step_ms
        self.step_numbers = step_numbers
        self.device = device
        self.backward = backward
        self.allocations = allocations
        #: The statement stacks, at statement level (``None``: function level).
        self.statements: StatementStacks | None = None
        #: metric -> leaf -> per-step values; metrics in the order above.
        self.values: dict[str, dict[int, array[float]]] = {}
        #: CPU slices that start outside every step window, and their self time (µs).
        self.outside_steps = 0
        self.outside_steps_us = 0.0

    @property
    def steps(self) -> int:
        return len(self.step_ms)


def _step_durations(table: TraceTable, windows: StepWindows) -> tuple[list[float], list[int]]:
    if windows.starts:
        ends = windows.ends
        return [
            (end - start) / US_PER_MS for start, end in zip(windows.starts, ends, strict=True)
        ], list(windows.numbers)
    starts = [*table.frames.start, *table.ops.start]
    ends = [
        *(s + d for s, d in zip(table.frames.start, table.frames.duration, strict=True)),
        *(s + d for s, d in zip(table.ops.start, table.ops.duration, strict=True)),
    ]
    if not starts:
        return [0.0], [0]
    return [(max(ends) - min(starts)) / US_PER_MS], [0]


def attribute(
    table: TraceTable,
    statements: Mapping[int, Sequence[StackFrameLike]] | None = None,
    dropped_files: frozenset[str] = frozenset(),
) -> Attribution:
    """Build the timeline and every metric's per-leaf, per-step values; with ``statements``
    (a sidecar's stacks by ``External id``), at statement level; the frames of
    ``dropped_files`` (the capture's own, a sidecar's ``capture_files``) dropped."""
    windows = StepWindows(table)
    step_ms, numbers = _step_durations(table, windows)
    steps = len(step_ms)
    timeline = build_timeline(table, windows, dropped_files)
    stacks = apply_statements(table, timeline, statements) if statements is not None else None
    by_external = op_slices_by_external(table, timeline)
    device = link_device_work(table, timeline, by_external)
    backward = link_backward(table, timeline)
    allocations = attribute_allocations(table, timeline, steps)
    found = Attribution(timeline, step_ms, numbers, device, backward, allocations)
    found.statements = stacks
    cpu = _per_leaf(len(timeline.leaf_context), steps)
    leaf = timeline.leaf
    step_of = timeline.step
    self_us = timeline.self_us
    for index in range(len(leaf)):
        slot = step_of[index]
        if slot == NONE:
            found.outside_steps += 1
            found.outside_steps_us += self_us[index]
            continue
        cpu[leaf[index]][slot] += self_us[index] / US_PER_MS
    values = found.values
    values[CPU_TIME] = {number: row for number, row in enumerate(cpu)}
    below = backward_roots(timeline, backward) if backward.forward_of else None
    if len(table.device):
        gpu: dict[int, array[float]] = {}
        backward_gpu: dict[int, array[float]] = {}
        durations = table.device.duration
        for activity, launcher in enumerate(device.launcher):
            if launcher == NONE:
                continue
            slot = step_of[launcher]
            if slot == NONE:
                continue
            forward = below[launcher] if below is not None else NONE
            if forward == NONE:
                _add(gpu, leaf[launcher], slot, durations[activity] / US_PER_MS, steps)
            else:
                _add(backward_gpu, leaf[forward], slot, durations[activity] / US_PER_MS, steps)
        values[GPU_TIME] = gpu
        if backward.forward_of:
            values[BACKWARD_GPU_TIME] = backward_gpu
    if backward.forward_of:
        backward_cpu: dict[int, array[float]] = {}
        ops = table.ops
        base = timeline.frame_count
        for node, forward in backward.forward_of.items():
            slot = step_of[node]
            if slot == NONE:
                continue
            duration = timeline.end_us[node] - ops.start[node - base]
            _add(backward_cpu, leaf[forward], slot, duration / US_PER_MS, steps)
        values[BACKWARD_CPU_TIME] = backward_cpu
    if allocations.host or allocations.peak_host is not None:
        values[ALLOCATED_BYTES] = allocations.host
    if allocations.device or allocations.peak_device is not None:
        values[GPU_ALLOCATED_BYTES] = allocations.device
    ordered = [
        name
        for name in (
            CPU_TIME,
            GPU_TIME,
            BACKWARD_CPU_TIME,
            BACKWARD_GPU_TIME,
            ALLOCATED_BYTES,
            GPU_ALLOCATED_BYTES,
        )
        if name in values
    ]
    found.values = {name: values[name] for name in ordered}
    return found


def _per_leaf(leaves: int, steps: int) -> list[array[float]]:
    return [zeros(steps) for _ in range(leaves)]


def _add(table: dict[int, array[float]], leaf: int, slot: int, value: float, steps: int) -> None:
    row = table.get(leaf)
    if row is None:
        row = table[leaf] = zeros(steps)
    row[slot] += value
