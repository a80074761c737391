"""The backward pass put back on the forward ops that caused it.

An autograd node created by a forward op (``AddmmBackward0`` for ``aten::addmm``) runs as a
``cpu_op`` of the backward pass whose ``args`` carry the forward op's ``Sequence number`` and
``Fwd thread id`` > 0. torch links each such node op to its forward op with an ``fwdbwd``
flow: ``s`` at the forward op's start on its thread, ``f`` (``bp: "e"``) at the node op's start
on its thread, the same ``id``. Each backward node is found by, in order:

1. the flow ending at its start: the innermost backward op open there, and the innermost op
   open where the flow starts (ops nested in one op of the same context are one leaf, so
   which of several ops starting together is taken makes no difference to the figures);
2. without flows: its sequence number, matched to the forward op of the same sequence number
   that started last (torch's own rule for which op created the node: the sequence number
   only moves on when a node is made), among ops of the trace that are not backward ops.

The node op's duration (its wall time on the backward thread, everything it ran included)
is the forward op's *backward CPU time*; GPU work launched inside it is its *backward GPU
time*. The ``autograd::engine::evaluate_function:`` wrapper around a node op is not a node
(its own extra time stays with the ``backward()`` call that ran it, where every backward op's
CPU time lies anyway). Pure; cost: dictionary lookups per op.
"""

from __future__ import annotations

from array import array
from typing import Final

from perfline.core.backends.torch_profiler.gpu import innermost_op
from perfline.core.backends.torch_profiler.timeline import Timeline
from perfline.core.backends.torch_profiler.trace_table import NONE, TraceTable

EVALUATE_PREFIX: Final = "autograd::engine::evaluate_function:"


class BackwardLinks:
    """Backward node ops (slice indices) -> their forward op (slice index)."""

    __slots__ = ("by_flow", "by_sequence", "forward_of", "unmatched", "unmatched_us")

    def __init__(self) -> None:
        self.forward_of: dict[int, int] = {}
        self.by_flow = 0
        self.by_sequence = 0
        #: Backward node ops whose forward op is not in the trace, and their time.
        self.unmatched = 0
        self.unmatched_us = 0.0


def link_backward(table: TraceTable, timeline: Timeline) -> BackwardLinks:
    """Every backward node op's forward op (see the module docstring)."""
    links = BackwardLinks()
    ops = table.ops
    base = timeline.frame_count
    names = table.names
    flows = table.fwdbwd
    if len(flows):
        begins: dict[int, int] = {}
        for position in range(len(flows)):
            if flows.is_start[position]:
                op = innermost_op(timeline, flows.thread[position], flows.time[position])
                if op != NONE:
                    begins[flows.flow_id[position]] = op
        for position in range(len(flows)):
            if flows.is_start[position]:
                continue
            forward = begins.get(flows.flow_id[position], NONE)
            node = innermost_op(timeline, flows.thread[position], flows.time[position])
            while node != NONE and (node < base or not ops.backward[node - base]):
                node = timeline.parent[node]
            if node != NONE and forward != NONE:
                links.forward_of[node] = forward
                links.by_flow += 1
    latest: dict[int, int] = {}
    for position in range(len(ops)):
        sequence = ops.sequence[position]
        if sequence == NONE or ops.backward[position]:
            continue
        found = latest.get(sequence, NONE)
        if found == NONE or ops.start[position] >= ops.start[found]:
            latest[sequence] = position
    linked = set(links.forward_of)
    for position in range(len(ops)):
        if not ops.backward[position] or ops.sequence[position] == NONE:
            continue
        if names[ops.name[position]].startswith(EVALUATE_PREFIX) or base + position in linked:
            continue
        forward = latest.get(ops.sequence[position], NONE)
        if forward == NONE:
            links.unmatched += 1
            links.unmatched_us += ops.duration[position]
            continue
        links.forward_of[base + position] = base + forward
        links.by_sequence += 1
    return links


def backward_roots(timeline: Timeline, links: BackwardLinks) -> array[int]:
    """Per slice: the forward op of the backward node op it is inside (the node included),
    ``NONE`` outside every node. Nodes nested in nodes belong to the innermost."""
    below = array("q", [NONE]) * len(timeline.leaf)
    forward_of = links.forward_of
    parent = timeline.parent
    for index in timeline.order:
        forward = forward_of.get(index)
        if forward is not None:
            below[index] = forward
            continue
        up = parent[index]
        if up != NONE:
            below[index] = below[up]
    return below
