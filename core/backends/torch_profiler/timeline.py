"""Where each CPU slice of a trace spends its time: the nesting of Python frames and ops on
each thread, each slice's self time, and the *leaf* that self time belongs to.

On one thread, ``python_function`` and ``cpu_op`` slices nest by time (a slice is inside the
innermost open one that holds its start). A slice's *self time* is its duration less its
children's, so the self times of every slice below a frame add up to that frame's duration:
nothing is counted twice, whatever the nesting (an op inside a Python function inside an op,
as a custom autograd function's ``backward`` runs). The self time goes to a leaf, one per
(context, what ran):

* a Python function's frame (``model.py(12): forward``) opens a new *code stack* (the chain
  of Python functions enclosing it, outermost first) and its own time is that stack's
  ``Python`` leaf; ``nn.Module: Linear_0`` extends the *module chain* the same way; a call
  into C (``<built-in method ...>``) adds nothing: its time is the enclosing leaf's;
* an op (``aten::linear``) is a leaf named after it in the enclosing context; ops nested in
  it in the same context (``aten::addmm`` inside ``aten::linear``) are the same leaf, so a
  leaf is a user-level op with everything it ran.

The frames of the capture itself (``perfline profile``'s operator mode and step hooks, whose
files its sidecar lists: ``dropped_files``) are not the program's: a frame of those files that
runs inside another slice is dropped, not collapsed: its children nest in its caller and its
own time counts as a call into C's does, the caller's own time (so nothing is counted twice
or lost; at statement level, the calling statement's); it is counted (``dropped_slices``).
Such a frame at the root of its thread (the helper that launches the script) stays, as an
ordinary frame.

A slice that starts inside an open one and ends after it (the Python tracer and the op
recorder read clocks separately, so their edges may cross) is a child cut at the parent's
end when most of it lies inside, else a sibling that closes the parent; both are counted
(``crossings``), with the time cut. Each slice belongs to the step whose window holds its
start (``step_of``). Pure; cost: one sort of the slices and one pass over them; memory: a
few typed arrays of one number per slice.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from typing import Final

from perfline.core.backends.torch_profiler.frames import CodeFrame, ModuleCall, parse_frame
from perfline.core.backends.torch_profiler.trace_table import NONE, TraceTable

#: The leaf name of a frame's own Python time.
PYTHON_LEAF: Final = "Python"
_CODE: Final = 1
_MODULE: Final = 2
_DROPPED: Final = 3


class Contexts:
    """Interned code stacks, module chains and contexts (a stack and a chain)."""

    __slots__ = (
        "_chains",
        "_contexts",
        "_frame_ids",
        "_module_ids",
        "_stacks",
        "chain_module",
        "chain_parent",
        "context_chain",
        "context_stack",
        "frames",
        "modules",
        "stack_frame",
        "stack_parent",
    )

    def __init__(self) -> None:
        self.frames: list[CodeFrame] = []
        self.modules: list[ModuleCall] = []
        # stack 0 and chain 0 are empty; context 0 is (0, 0)
        self.stack_parent: list[int] = [NONE]
        self.stack_frame: list[int] = [NONE]
        self.chain_parent: list[int] = [NONE]
        self.chain_module: list[int] = [NONE]
        self.context_stack: list[int] = [0]
        self.context_chain: list[int] = [0]
        self._frame_ids: dict[CodeFrame, int] = {}
        self._module_ids: dict[ModuleCall, int] = {}
        self._stacks: dict[tuple[int, int], int] = {}
        self._chains: dict[tuple[int, int], int] = {}
        self._contexts: dict[tuple[int, int], int] = {(0, 0): 0}

    def frame_id(self, frame: CodeFrame) -> int:
        found = self._frame_ids.get(frame)
        if found is None:
            found = self._frame_ids[frame] = len(self.frames)
            self.frames.append(frame)
        return found

    def module_id(self, module: ModuleCall) -> int:
        found = self._module_ids.get(module)
        if found is None:
            found = self._module_ids[module] = len(self.modules)
            self.modules.append(module)
        return found

    def context(self, stack: int, chain: int) -> int:
        key = (stack, chain)
        found = self._contexts.get(key)
        if found is None:
            found = self._contexts[key] = len(self.context_stack)
            self.context_stack.append(stack)
            self.context_chain.append(chain)
        return found

    def deeper_stack(self, context: int, frame: int) -> int:
        """The context one Python frame deeper."""
        stack = self.context_stack[context]
        key = (stack, frame)
        found = self._stacks.get(key)
        if found is None:
            found = self._stacks[key] = len(self.stack_parent)
            self.stack_parent.append(stack)
            self.stack_frame.append(frame)
        return self.context(found, self.context_chain[context])

    def deeper_chain(self, context: int, module: int) -> int:
        """The context one module call deeper."""
        chain = self.context_chain[context]
        key = (chain, module)
        found = self._chains.get(key)
        if found is None:
            found = self._chains[key] = len(self.chain_parent)
            self.chain_parent.append(chain)
            self.chain_module.append(module)
        return self.context(self.context_stack[context], found)

    def stack_frames(self, stack: int) -> list[CodeFrame]:
        """The frames of a stack, outermost first."""
        frames: list[CodeFrame] = []
        while stack > 0:
            frames.append(self.frames[self.stack_frame[stack]])
            stack = self.stack_parent[stack]
        frames.reverse()
        return frames

    def chain_modules(self, chain: int) -> list[ModuleCall]:
        """The module calls of a chain, outermost first."""
        modules: list[ModuleCall] = []
        while chain > 0:
            modules.append(self.modules[self.chain_module[chain]])
            chain = self.chain_parent[chain]
        modules.reverse()
        return modules


class Timeline:
    """The slices' nesting and attribution. Slice ``i`` is frame ``i`` of the table's
    ``frames`` for ``i < frame_count``, else op ``i - frame_count``."""

    __slots__ = (
        "_leaves",
        "contexts",
        "crossings",
        "cut_us",
        "dropped_names",
        "dropped_slices",
        "end_us",
        "frame_count",
        "leaf",
        "leaf_context",
        "leaf_name",
        "leaf_statement",
        "order",
        "order_starts",
        "parent",
        "self_us",
        "step",
        "thread_ranges",
    )

    def __init__(self, frame_count: int, op_count: int) -> None:
        total = frame_count + op_count
        self.frame_count = frame_count
        self.contexts = Contexts()
        self.leaf = array("q", bytes(8 * total))
        self.self_us = array("d", bytes(8 * total))
        self.parent = array("q", [NONE]) * total
        self.step = array("q", [NONE]) * total
        self.end_us = array("d", bytes(8 * total))
        #: The slices sorted by (thread, start), their starts, and each thread's range in it.
        self.order = array("q")
        self.order_starts = array("d")
        self.thread_ranges: dict[int, tuple[int, int]] = {}
        self.leaf_context: list[int] = []
        #: A leaf's name: ``PYTHON_NAME`` or the op's name id in the table.
        self.leaf_name: list[int] = []
        #: A leaf's statement stack (``statements.StatementStacks``), or ``NONE``: its
        #: context's code stack (function level).
        self.leaf_statement: list[int] = []
        self.crossings = 0
        self.cut_us = 0.0
        #: Name ids of the capture's own frames, and the slices of them dropped (module
        #: docstring): their self time is their caller's leaf's.
        self.dropped_names: frozenset[int] = frozenset()
        self.dropped_slices = array("q")
        self._leaves: dict[tuple[int, int, int], int] = {}

    def innermost(self, thread: int, time: float) -> int:
        """The innermost slice of ``thread`` open at ``time`` (its start <= time < its end),
        or ``NONE``."""
        found = self.thread_ranges.get(thread)
        if found is None:
            return NONE
        low, high = found
        position = bisect_right(self.order_starts, time, low, high) - 1
        if position < low:
            return NONE
        index = self.order[position]
        while index != NONE and self.end_us[index] <= time:
            index = self.parent[index]
        return index

    def leaf_of(self, context: int, name: int, statement: int = NONE) -> int:
        """The leaf of ``name`` in ``context`` (at ``statement``, when given)."""
        key = (context, name, statement)
        found = self._leaves.get(key)
        if found is None:
            found = self._leaves[key] = len(self.leaf_context)
            self.leaf_context.append(context)
            self.leaf_name.append(name)
            self.leaf_statement.append(statement)
        return found


#: ``leaf_name`` of a Python leaf (op names are non-negative name ids).
PYTHON_NAME: Final = -2


class StepWindows:
    """The ``ProfilerStep#N`` windows in time order (one window over everything when the
    trace has none)."""

    __slots__ = ("ends", "numbers", "starts")

    def __init__(self, table: TraceTable) -> None:
        steps = table.steps
        order = sorted(range(len(steps)), key=steps.start.__getitem__)
        self.starts = [steps.start[i] for i in order]
        self.ends = [steps.start[i] + steps.duration[i] for i in order]
        self.numbers = [steps.name[i] for i in order]

    def __len__(self) -> int:
        return max(len(self.starts), 1)

    def step_of(self, time: float) -> int:
        """The index of the window holding ``time``, or ``NONE``."""
        if not self.starts:
            return 0
        slot = bisect_right(self.starts, time) - 1
        if slot < 0 or time >= self.ends[slot]:
            return NONE
        return slot


def _frame_kinds(
    table: TraceTable, contexts: Contexts, dropped_files: frozenset[str]
) -> tuple[list[int], list[int]]:
    """Per name id: its kind (0 none, code, module, a frame of a dropped file) and frame or
    module id."""
    kinds = [0] * len(table.names)
    ids = [0] * len(table.names)
    for name in set(table.frames.name):
        parsed = parse_frame(table.names[name])
        if isinstance(parsed, CodeFrame):
            kinds[name] = _DROPPED if parsed.file in dropped_files else _CODE
            ids[name] = contexts.frame_id(parsed)
        elif isinstance(parsed, ModuleCall):
            kinds[name] = _MODULE
            ids[name] = contexts.module_id(parsed)
    return kinds, ids


def _slice_order(
    threads: array[int], starts: array[float], durations: array[float], frame_count: int
) -> array[int]:
    """Slice indices by thread, then start, longer first, Python frames before ops (a frame
    and an op starting together: the op runs in the frame). numpy's ``lexsort`` over the
    columns' own memory: 8 bytes a slice, where a key per slice would take ten times that."""
    import numpy

    count = len(starts)
    if not count:
        return array("q")
    is_op = numpy.zeros(count, dtype=numpy.int8)
    is_op[frame_count:] = 1
    order = numpy.lexsort(
        (
            is_op,
            -numpy.frombuffer(durations, dtype=numpy.float64),
            numpy.frombuffer(starts, dtype=numpy.float64),
            numpy.frombuffer(threads, dtype=numpy.int64),
        )
    )
    return array("q", order.astype(numpy.int64).tobytes())


def build_timeline(
    table: TraceTable, windows: StepWindows, dropped_files: frozenset[str] = frozenset()
) -> Timeline:
    """Nest every CPU slice of ``table`` and attribute its self time; frames of
    ``dropped_files`` (as the trace names files) are dropped (module docstring)."""
    frames = table.frames
    ops = table.ops
    count = len(frames)
    timeline = Timeline(count, len(ops))
    contexts = timeline.contexts
    kinds, ids = _frame_kinds(table, contexts, dropped_files)
    timeline.dropped_names = frozenset(n for n, kind in enumerate(kinds) if kind == _DROPPED)
    dropped = timeline.dropped_slices
    threads = frames.thread + ops.thread
    starts = frames.start + ops.start
    durations = frames.duration + ops.duration
    names = frames.name + ops.name
    order = _slice_order(threads, starts, durations, count)
    timeline.order = order
    timeline.order_starts = array("d", (starts[i] for i in order))
    ranges = timeline.thread_ranges
    for position, index in enumerate(order):
        found = ranges.get(threads[index])
        ranges[threads[index]] = (position if found is None else found[0], position + 1)
    end_us = timeline.end_us
    leaf = timeline.leaf
    self_us = timeline.self_us
    parent_of = timeline.parent
    step_of = timeline.step
    # the open slices: (end, slice, context, leaf, leaf is an op's)
    open_ends: list[float] = []
    open_slices: list[int] = []
    open_context: list[int] = []
    open_leaf: list[int] = []
    open_is_op: list[bool] = []
    thread = NONE
    python_leaf_of_context: dict[int, int] = {}
    for index in order:
        start = starts[index]
        duration = durations[index]
        end = start + duration
        if threads[index] != thread:
            thread = threads[index]
            open_ends.clear()
            open_slices.clear()
            open_context.clear()
            open_leaf.clear()
            open_is_op.clear()
        while open_ends and open_ends[-1] <= start:
            _close(open_ends, open_slices, open_context, open_leaf, open_is_op)
        crossed = False
        while open_ends and end > open_ends[-1]:
            inside = open_ends[-1] - start
            crossed = True
            if inside * 2 >= duration:
                timeline.cut_us += end - open_ends[-1]
                end = open_ends[-1]
                duration = inside
                break
            _close(open_ends, open_slices, open_context, open_leaf, open_is_op)
        if crossed:
            timeline.crossings += 1
        if open_ends:
            parent = open_slices[-1]
            parent_of[index] = parent
            self_us[parent] -= duration
            context = open_context[-1]
            parent_leaf = open_leaf[-1]
            parent_is_op = open_is_op[-1]
        else:
            context = 0
            parent_leaf = NONE
            parent_is_op = False
        self_us[index] += duration
        end_us[index] = end
        step_of[index] = windows.step_of(start)
        name = names[index]
        is_op = index >= count
        if is_op:
            own = parent_leaf if parent_is_op else timeline.leaf_of(context, name)
        else:
            kind = kinds[name]
            if kind == _DROPPED:
                if parent_leaf != NONE:  # inside the program: its caller's, transparently
                    dropped.append(index)
                    kind = 0
                else:
                    kind = _CODE
            if kind == _CODE:
                context = contexts.deeper_stack(context, ids[name])
            elif kind == _MODULE:
                context = contexts.deeper_chain(context, ids[name])
            if kind or parent_leaf == NONE:
                own = python_leaf_of_context.get(context, NONE)
                if own == NONE:
                    own = python_leaf_of_context[context] = timeline.leaf_of(context, PYTHON_NAME)
            else:
                own = parent_leaf  # a call into C: the enclosing leaf's time
                is_op = parent_is_op
        leaf[index] = own
        open_ends.append(end)
        open_slices.append(index)
        open_context.append(context)
        open_leaf.append(own)
        open_is_op.append(is_op)
    return timeline


def _close(
    ends: list[float],
    slices: list[int],
    contexts: list[int],
    leaves: list[int],
    is_op: list[bool],
) -> None:
    ends.pop()
    slices.pop()
    contexts.pop()
    leaves.pop()
    is_op.pop()
