"""Statement level: the leaves put on the statements the sidecar of ``perfline profile`` names.

The sidecar maps an op's ``External id`` to its statement-level stack (outermost frame first,
each frame the statement running in it; ``sidecar``). With it, every op leaf of the timeline
is split by statement: an op slice with a stack goes to the leaf (its context's module chain,
its op name, that stack); an op nested in it, or a call into C inside it, follows it (one leaf
per user-level op, as at function level); an op without a stack keeps its function-level
leaf (counted for a warning).

A function's own Python time has no statement (the tracer records the function, not the
line), so it goes on the function's ``def`` line *below the statement that called it*: the
call site comes from aligning, from the inner end, each op's function-level frames with its
statement frames (same function, same file), which gives the statement stack of each aligned
frame's call; a frame no op aligned with takes its nearest aligned caller's, its own frames
then as ``def`` lines. The own time of a module call (``nn.Module: Linear_0``), of a call
into C or of a dropped frame of the capture (``timeline``) made by a function goes on the
statement of that function that made it (the one the ops below it ran at). So a call line
(``x = block(x)``) carries everything its callee ran, Python time included, and no time
lands on a line without code. Pure; cost: one pass over
the slices and the op stacks' depth.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from typing import Final, Protocol

from perfline.core.backends.torch_profiler.frames import CodeFrame, parse_frame
from perfline.core.backends.torch_profiler.timeline import PYTHON_NAME, Timeline
from perfline.core.backends.torch_profiler.trace_table import NONE, TraceTable

#: A statement-level frame: (file as the sidecar names it, line, function, line kind).
StatementFrame = tuple[str, int, str, str]
STATEMENT: Final = "statement"
ENTRY: Final = "def"
_CODE: Final = 1
#: Statement frames with no function-level frame that alignment steps over, at most, in a row.
_SKIPPABLE: Final = 2


class StackFrameLike(Protocol):
    """What ``statements`` reads of a sidecar frame (``sidecar.SidecarFrame`` has it)."""

    @property
    def file(self) -> str: ...

    @property
    def line(self) -> int: ...

    @property
    def function(self) -> str: ...

    @property
    def entry(self) -> bool: ...


class StatementStacks:
    """Interned statement stacks (tuples of ``StatementFrame``), and how many ops had one."""

    __slots__ = ("_ids", "ops_with", "ops_without", "ops_without_us", "stacks")

    def __init__(self) -> None:
        self.stacks: list[tuple[StatementFrame, ...]] = []
        self._ids: dict[tuple[StatementFrame, ...], int] = {}
        self.ops_with = 0
        self.ops_without = 0
        self.ops_without_us = 0.0

    def intern(self, stack: tuple[StatementFrame, ...]) -> int:
        found = self._ids.get(stack)
        if found is None:
            found = self._ids[stack] = len(self.stacks)
            self.stacks.append(stack)
        return found


def _same_function(frame: CodeFrame, statement: StatementFrame) -> bool:
    file = statement[0]
    return frame.function == statement[2] and (
        file == frame.file or file.endswith("/" + frame.file)
    )


def apply_statements(
    table: TraceTable,
    timeline: Timeline,
    stacks_by_external_id: Mapping[int, Sequence[StackFrameLike]],
) -> StatementStacks:
    """Rewrite ``timeline.leaf`` at statement level (see the module docstring)."""
    found = StatementStacks()
    converted: dict[int, int] = {}  # id of the sidecar's tuple -> interned stack
    base = timeline.frame_count
    ops = table.ops
    old = array("q", timeline.leaf)
    statement_of = [NONE] * len(ops)
    for position in range(len(ops)):
        stack = stacks_by_external_id.get(ops.external[position])
        if stack is None:
            continue
        key = id(stack)
        interned = converted.get(key)
        if interned is None:
            frames = tuple(
                (f.file, f.line, f.function, ENTRY if f.entry else STATEMENT) for f in stack
            )
            interned = converted[key] = found.intern(frames)
        statement_of[position] = interned
    below = _op_below(timeline, statement_of)
    kinds = _slice_kinds(table, timeline.dropped_names)
    sites = _CallSites(timeline, old, statement_of, found)
    leaf = timeline.leaf
    parent = timeline.parent
    contexts = timeline.contexts
    place_of = [NONE] * base  # a Python function's slice -> the place of its own time
    for index in timeline.order:
        previous = old[index]
        up = parent[index]
        follows = up != NONE and old[up] == previous
        context = timeline.leaf_context[previous]
        name = timeline.leaf_name[previous]
        if index >= base:
            if follows:
                leaf[index] = leaf[up]
                continue
            statement = statement_of[index - base]
            if statement == NONE:
                found.ops_without += 1
                found.ops_without_us += timeline.self_us[index]
                continue
            found.ops_with += 1
            leaf[index] = timeline.leaf_of(context, name, statement)
            continue
        if name != PYTHON_NAME:
            leaf[index] = leaf[up]  # a call into C inside an op: the op's leaf
            continue
        code_stack = contexts.context_stack[context]
        op = below[index]
        place = NONE
        if kinds[table.frames.name[index]] == _CODE:
            site = sites.site(op, code_stack) if op != NONE else NONE
            frame = contexts.frames[contexts.stack_frame[code_stack]]
            own = ((frame.file, frame.line, frame.function, ENTRY),)
            if site != NONE:
                place = found.intern(found.stacks[site] + own)
            elif op != NONE:  # a frame the statements skip: below its caller's statement
                place = sites.through_caller(op, code_stack)
            if place == NONE:  # no op below: the def line below its caller's place
                caller = _code_ancestor(timeline, kinds, table, index)
                if caller != NONE and place_of[caller] != NONE:
                    place = found.intern(found.stacks[place_of[caller]] + own)
            place_of[index] = place
        elif op != NONE:  # a module call or a call into C: the caller's statement
            site = sites.site(op, code_stack)
            frames = found.stacks[statement_of[op - base]]
            if site != NONE and len(frames) > len(found.stacks[site]):
                place = found.intern(frames[: len(found.stacks[site]) + 1])
        if place == NONE and follows:
            leaf[index] = leaf[up]
        elif place != NONE:
            leaf[index] = timeline.leaf_of(context, name, place)
    return found


class _CallSites:
    """Per op (its context and statement stack): the statement stack of the call of each of
    its function-level frames, by aligning both from the inner end (cached per pair)."""

    __slots__ = ("_cache", "_found", "_old", "_statement_of", "_timeline")

    def __init__(
        self,
        timeline: Timeline,
        old: Sequence[int],
        statement_of: Sequence[int],
        found: StatementStacks,
    ) -> None:
        self._timeline = timeline
        self._old = old
        self._statement_of = statement_of
        self._found = found
        self._cache: dict[tuple[int, int], dict[int, int]] = {}

    def site(self, op: int, stack: int) -> int:
        """The statement stack of the call of the frame whose function-level stack is
        ``stack``, as the op slice ``op`` below it ran (``NONE``: not aligned)."""
        timeline = self._timeline
        context = timeline.leaf_context[self._old[op]]
        statement = self._statement_of[op - timeline.frame_count]
        key = (timeline.contexts.context_stack[context], statement)
        sites = self._cache.get(key)
        if sites is None:
            sites = self._cache[key] = _align(
                timeline, key[0], self._found.stacks[statement], self._found
            )
        return sites.get(stack, NONE)

    def through_caller(self, op: int, stack: int) -> int:
        """For a frame the statements skip (the capture's own), with the op slice ``op``
        below it: the statement of its nearest aligned caller, then the ``def`` lines of the
        skipped frames down to it (``NONE``: no aligned caller)."""
        timeline = self._timeline
        contexts = timeline.contexts
        skipped: list[StatementFrame] = []
        caller = stack
        site = NONE
        while caller > 0:
            frame = contexts.frames[contexts.stack_frame[caller]]
            skipped.append((frame.file, frame.line, frame.function, ENTRY))
            caller = contexts.stack_parent[caller]
            site = self.site(op, caller) if caller > 0 else NONE
            if site != NONE:
                break
        if site == NONE:
            return NONE
        statement = self._found.stacks[self._statement_of[op - timeline.frame_count]]
        depth = len(self._found.stacks[site]) + 1
        if len(statement) < depth:
            return NONE
        skipped.reverse()
        return self._found.intern(statement[:depth] + tuple(skipped))


def _op_below(timeline: Timeline, statement_of: Sequence[int]) -> list[int]:
    """Per slice, an op slice at or below it that has a statement stack (``NONE``: none)."""
    base = timeline.frame_count
    parent = timeline.parent
    first = [NONE] * len(timeline.leaf)
    for index in reversed(timeline.order):
        if index >= base and statement_of[index - base] != NONE:
            first[index] = index
        found = first[index]
        up = parent[index]
        if found != NONE and up != NONE and first[up] == NONE:
            first[up] = found
    return first


def _code_ancestor(
    timeline: Timeline, kinds: Mapping[int, int], table: TraceTable, index: int
) -> int:
    """The nearest enclosing slice that is a Python function's frame (``NONE``: none)."""
    up = timeline.parent[index]
    while up != NONE and (up >= timeline.frame_count or kinds[table.frames.name[up]] != _CODE):
        up = timeline.parent[up]
    return up


def _slice_kinds(table: TraceTable, dropped: frozenset[int]) -> dict[int, int]:
    """Per Python frame name id: ``_CODE`` for a function's frame, else 0 (also the capture's
    own frames, which the timeline made as transparent as a call into C)."""
    return {
        name: _CODE
        if name not in dropped and isinstance(parse_frame(table.names[name]), CodeFrame)
        else 0
        for name in set(table.frames.name)
    }


def _align(
    timeline: Timeline,
    stack: int,
    statements: tuple[StatementFrame, ...],
    found: StatementStacks,
) -> dict[int, int]:
    """Function-level stack -> statement stack of its innermost frame's call, for the frames
    of ``stack`` that line up with ``statements`` from the inner end. A few frames in a row
    may be on one side only (torch's tracer writes ``nn.Module: Linear_0`` for the module's
    ``_wrapped_call_impl`` frame; the capture leaves its own frames out of the statements):
    they are stepped over."""
    contexts = timeline.contexts
    sites: dict[int, int] = {}
    depth = len(statements)
    skipped = 0
    while stack > 0 and depth > 0:
        frame = contexts.frames[contexts.stack_frame[stack]]
        lowest = max(depth - 1 - _SKIPPABLE, 0)
        at = depth - 1
        while at >= lowest and not _same_function(frame, statements[at]):
            at -= 1
        if at < lowest:
            skipped += 1  # a frame the statements do not hold (the capture's own)
            if skipped > _SKIPPABLE:
                break
        else:
            skipped = 0
            depth = at
            sites[stack] = found.intern(statements[:depth])
        stack = contexts.stack_parent[stack]
    return sites
