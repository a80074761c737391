"""Memory allocations (``profile_memory=True``) put on the slice that made them.

torch records each allocation and free as a ``[memory]`` instant on the allocating thread,
with ``Bytes`` (positive: allocated, negative: freed), ``Total Allocated`` (the allocator's
total after it) and ``Device Type`` (``c10::DeviceType``: 0 CPU, 1 CUDA). An allocation
belongs to the innermost slice open on its thread at its time (an op, else the Python frame
running), so to that slice's leaf and step; bytes allocated are summed per leaf and step,
separately for host and device memory. The peak of ``Total Allocated`` is kept per device
type. Allocations outside every slice are counted, with their bytes. Pure; cost: one
binary search per instant.
"""

from __future__ import annotations

from array import array
from typing import Final

from perfline.core.backends.torch_profiler.timeline import Timeline
from perfline.core.backends.torch_profiler.trace_table import NONE, TraceTable

CPU_DEVICE: Final = 0
CUDA_DEVICE: Final = 1


class Allocations:
    """Bytes allocated per leaf and step, host and device, and the peaks."""

    __slots__ = ("device", "host", "outside", "outside_bytes", "peak_device", "peak_host")

    def __init__(self) -> None:
        #: leaf -> per-step bytes allocated (host memory, and device memory).
        self.host: dict[int, array[float]] = {}
        self.device: dict[int, array[float]] = {}
        self.peak_host: int | None = None
        self.peak_device: int | None = None
        self.outside = 0
        self.outside_bytes = 0


def attribute_allocations(table: TraceTable, timeline: Timeline, steps: int) -> Allocations:
    """Every allocation on the leaf and step of the slice that made it."""
    found = Allocations()
    memory = table.memory
    for position in range(len(memory)):
        device_type = memory.device_type[position]
        total = memory.total[position]
        if total != NONE:
            if device_type == CUDA_DEVICE:
                if found.peak_device is None or total > found.peak_device:
                    found.peak_device = total
            elif found.peak_host is None or total > found.peak_host:
                found.peak_host = total
        nbytes = memory.nbytes[position]
        if nbytes <= 0:
            continue
        index = timeline.innermost(memory.thread[position], memory.time[position])
        step = timeline.step[index] if index != NONE else NONE
        if index == NONE or step == NONE:
            found.outside += 1
            found.outside_bytes += nbytes
            continue
        per_leaf = found.device if device_type == CUDA_DEVICE else found.host
        leaf = timeline.leaf[index]
        values = per_leaf.get(leaf)
        if values is None:
            values = per_leaf[leaf] = array("d", bytes(8 * steps))
        values[step] += nbytes
    return found
