"""GPU work joined to the CPU op that launched it.

kineto writes each GPU activity (``kernel``, ``gpu_memcpy``, ``gpu_memset``) on
``pid`` = device, ``tid`` = stream, with ``args.correlation`` (the CUPTI correlation id) and,
when the launch happened inside a profiled op, ``args["External id"]`` = that op's own
``External id`` (``output_json.cpp``: the linked activity's correlation id). The launch call
(``cuda_runtime``/``cuda_driver``, on the CPU thread) carries the same ``correlation`` and an
``ac2g`` flow from the launch (``s``) to the GPU activity (``f``), ``id`` = the correlation.
A GPU activity's launching op is found by, in order:

1. its ``External id``, when an op of the trace has it;
2. its ``correlation``: the launch call with that correlation, then that call's ``External
   id``, else the innermost op open on the launch's thread when it started;
3. the ``ac2g`` flow ending at the activity (same device, stream and start), from its start
   end: the innermost op open on that thread at that time.

The launching op's leaf (the user-level op that ran it, ``timeline``) gets the activity's
duration in the op's step, unless the op is inside a backward node op: then ``backward``
decides where it goes. Activities found by none of these are counted (``unlinked``), with
their time. Pure; cost: dictionary lookups per activity.
"""

from __future__ import annotations

from typing import Final

from perfline.core.backends.torch_profiler.timeline import Timeline
from perfline.core.backends.torch_profiler.trace_table import NONE, TraceTable

_BY_EXTERNAL: Final = "External id"
_BY_CORRELATION: Final = "correlation"
_BY_FLOW: Final = "ac2g flow"


class DeviceLinks:
    """Each GPU activity's launching slice (an op, as a timeline slice index) or ``NONE``."""

    __slots__ = ("launcher", "linked_by", "unlinked", "unlinked_us")

    def __init__(self, count: int) -> None:
        self.launcher = [NONE] * count
        #: How many activities each rule linked.
        self.linked_by: dict[str, int] = {}
        self.unlinked = 0
        self.unlinked_us = 0.0


def op_slices_by_external(table: TraceTable, timeline: Timeline) -> dict[int, int]:
    """``External id`` -> the op's slice index."""
    found: dict[int, int] = {}
    base = timeline.frame_count
    for position, external in enumerate(table.ops.external):
        if external != NONE:
            found[external] = base + position
    return found


def innermost_op(timeline: Timeline, thread: int, time: float) -> int:
    """The innermost op open on ``thread`` at ``time`` (a slice index), or ``NONE``."""
    index = timeline.innermost(thread, time)
    while index != NONE and index < timeline.frame_count:
        index = timeline.parent[index]
    return index


def link_device_work(
    table: TraceTable, timeline: Timeline, by_external: dict[int, int]
) -> DeviceLinks:
    """The launching op of every GPU activity (see the module docstring)."""
    device = table.device
    links = DeviceLinks(len(device))
    if not len(device):
        return links
    launches = table.launches
    launch_by_correlation: dict[int, int] = {}
    for position, correlation in enumerate(launches.correlation):
        if correlation != NONE:
            launch_by_correlation[correlation] = position
    flow_starts: dict[int, tuple[int, float]] = {}
    flow_ends: dict[tuple[int, int, float], int] = {}
    ac2g = table.ac2g
    for position in range(len(ac2g)):
        if ac2g.is_start[position]:
            flow_starts[ac2g.flow_id[position]] = (ac2g.thread[position], ac2g.time[position])
        else:
            pid, tid = table.threads[ac2g.thread[position]]
            if type(pid) is int and type(tid) is int:
                flow_ends[(pid, tid, ac2g.time[position])] = ac2g.flow_id[position]
    counts = links.linked_by
    for activity in range(len(device)):
        launcher = by_external.get(device.external[activity], NONE)
        rule = _BY_EXTERNAL
        if launcher == NONE:
            rule = _BY_CORRELATION
            launch = launch_by_correlation.get(device.correlation[activity], NONE)
            if launch != NONE:
                launcher = by_external.get(launches.external[launch], NONE)
                if launcher == NONE:
                    launcher = innermost_op(
                        timeline, launches.thread[launch], launches.start[launch]
                    )
        if launcher == NONE:
            rule = _BY_FLOW
            flow = flow_ends.get(
                (device.device[activity], device.stream[activity], device.start[activity])
            )
            start = flow_starts.get(flow) if flow is not None else None
            if start is not None:
                launcher = innermost_op(timeline, start[0], start[1])
        if launcher == NONE:
            links.unlinked += 1
            links.unlinked_us += device.duration[activity]
            continue
        links.launcher[activity] = launcher
        counts[rule] = counts.get(rule, 0) + 1
    return links
