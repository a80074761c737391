"""The leaves of one trace as records that outlive its timeline: where each leaf sits (its
code frames, outermost first, and its module calls), what it is, and its per-step values.

A frame's file is the recorded name (``model.py``, ``torch/nn/modules/linear.py``) mapped
through the caller's resolution (``resolved``: recorded name -> workspace path, or ``None``
when the file is not in the workspace); ``in_workspace`` says which. A leaf's ``key`` is its
identity across traces and runs: the frames as ``file:line:function`` lines, the module
calls and the name; two traces' leaves with one key are one leaf.

``frame_calls``: how often each Python function was entered in the steps, per call path (its
frames as code stack identities are written: one count per ``code_stack`` of a function's
``def`` line, whose own-time leaf the entry is; the frames of the capture itself are not
counted). Pure; cost: linear in the leaves and their depth, and the frames.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from typing import Final

from perfline.core.backends.torch_profiler.attribution import Attribution
from perfline.core.backends.torch_profiler.frames import (
    CodeFrame,
    ModuleCall,
    is_frozen,
    parse_frame,
)
from perfline.core.backends.torch_profiler.statements import STATEMENT, StatementFrame
from perfline.core.backends.torch_profiler.timeline import PYTHON_LEAF, PYTHON_NAME
from perfline.core.backends.torch_profiler.trace_table import NONE, TraceTable

#: What a frame's line is: a function's entry (``def``) line, or the statement running.
DEF_LINE: Final = "def"
STATEMENT_LINE: Final = "statement"


class LeafFrame:
    """One code frame of a leaf's stack."""

    __slots__ = ("file", "function", "in_workspace", "line", "line_kind", "recorded")

    def __init__(
        self,
        recorded: str,
        file: str,
        line: int,
        function: str,
        in_workspace: bool,
        line_kind: str,
    ) -> None:
        self.recorded = recorded
        self.file = file
        self.line = line
        self.function = function
        self.in_workspace = in_workspace
        self.line_kind = line_kind

    def text(self) -> str:
        """``file:line:function``, as code stack identities are written."""
        return f"{self.file}:{self.line}:{self.function}"


class Leaf:
    """One leaf: its place, its name, whether it is Python time or an op's, its values."""

    __slots__ = ("frames", "is_python", "key", "modules", "name", "values")

    def __init__(
        self,
        frames: tuple[LeafFrame, ...],
        modules: tuple[ModuleCall, ...],
        name: str,
        is_python: bool,
    ) -> None:
        self.frames = frames
        self.modules = modules
        self.name = name
        self.is_python = is_python
        self.key = "\n".join(
            [
                *(frame.text() for frame in frames),
                "#" + "/".join(module.instance for module in modules),
                "@" + name,
            ]
        )
        #: metric -> per-step values.
        self.values: dict[str, array[float]] = {}


def trace_leaves(
    table: TraceTable, attribution: Attribution, resolved: Mapping[str, str | None]
) -> list[Leaf]:
    """The leaves of one trace with their values (leaves with no value left out)."""
    timeline = attribution.timeline
    contexts = timeline.contexts
    frames_of = _LeafFrames(attribution, resolved)
    leaves: list[Leaf] = []
    for number, context in enumerate(timeline.leaf_context):
        values = {
            metric: rows[number]
            for metric, rows in attribution.values.items()
            if number in rows and any(rows[number])
        }
        if not values:
            continue
        chain = contexts.context_chain[context]
        frames = frames_of(number)
        name_id = timeline.leaf_name[number]
        is_python = name_id == PYTHON_NAME
        if is_python:
            name = f"{PYTHON_LEAF}: {frames[-1].function}" if frames else PYTHON_LEAF
        else:
            name = table.names[name_id]
        leaf = Leaf(frames, tuple(contexts.chain_modules(chain)), name, is_python)
        leaf.values = values
        leaves.append(leaf)
    return leaves


class _LeafFrames:
    """A leaf's frames (``LeafFrame``, outermost first): its statement stack at statement
    level, else its context's code stack."""

    def __init__(self, attribution: Attribution, resolved: Mapping[str, str | None]) -> None:
        self.timeline = attribution.timeline
        self.statements = attribution.statements
        self.resolved = resolved
        self.frame_memo: dict[int, LeafFrame] = {}
        self.statement_memo: dict[StatementFrame, LeafFrame] = {}

    def __call__(self, number: int) -> tuple[LeafFrame, ...]:
        timeline = self.timeline
        contexts = timeline.contexts
        statement = timeline.leaf_statement[number]
        if statement != NONE and self.statements is not None:
            return tuple(
                _statement_frame(frame, self.resolved, self.statement_memo)
                for frame in self.statements.stacks[statement]
            )
        stack = contexts.context_stack[timeline.leaf_context[number]]
        return tuple(
            _leaf_frame(frame_id, contexts.frames[frame_id], self.resolved, self.frame_memo)
            for frame_id in _frame_ids(contexts.stack_parent, contexts.stack_frame, stack)
        )


def frame_calls(
    table: TraceTable, attribution: Attribution, resolved: Mapping[str, str | None]
) -> dict[tuple[str, ...], int]:
    """Entries into each Python function in the steps, keyed by the function's frames
    (``file:line:function``, outermost first, its ``def`` frame last): one per slice of a
    function's frame that starts in a step (not a call into C, a module call or a frame of
    the capture)."""
    timeline = attribution.timeline
    names = table.frames.name
    functions = {
        name
        for name in set(names)
        if name not in timeline.dropped_names
        and isinstance(parse_frame(table.names[name]), CodeFrame)
    }
    per_leaf: dict[int, int] = {}
    for index in range(timeline.frame_count):
        if names[index] in functions and timeline.step[index] != NONE:
            leaf = timeline.leaf[index]
            per_leaf[leaf] = per_leaf.get(leaf, 0) + 1
    frames_of = _LeafFrames(attribution, resolved)
    found: dict[tuple[str, ...], int] = {}
    for leaf, count in per_leaf.items():
        key = tuple(frame.text() for frame in frames_of(leaf))
        if key:
            found[key] = found.get(key, 0) + count
    return found


def _frame_ids(parents: Sequence[int], frames: Sequence[int], stack: int) -> list[int]:
    found: list[int] = []
    while stack > 0:
        found.append(frames[stack])
        stack = parents[stack]
    found.reverse()
    return found


def _leaf_frame(
    frame_id: int,
    frame: CodeFrame,
    resolved: Mapping[str, str | None],
    memo: dict[int, LeafFrame],
) -> LeafFrame:
    found = memo.get(frame_id)
    if found is None:
        path = resolved.get(frame.file)
        found = memo[frame_id] = LeafFrame(
            frame.file,
            path if path is not None else frame.file,
            frame.line,
            frame.function,
            path is not None,
            DEF_LINE,
        )
    return found


def _statement_frame(
    frame: StatementFrame, resolved: Mapping[str, str | None], memo: dict[StatementFrame, LeafFrame]
) -> LeafFrame:
    found = memo.get(frame)
    if found is None:
        file, line, function, kind = frame
        path = resolved.get(file)
        found = memo[frame] = LeafFrame(
            file,
            path if path is not None else file,
            line,
            function,
            path is not None,
            STATEMENT_LINE if kind == STATEMENT else DEF_LINE,
        )
    return found


def recorded_files(traces: Sequence[tuple[TraceTable, Attribution]]) -> list[str]:
    """Every file the traces' Python frames and statement stacks name, sorted (what the
    caller resolves)."""
    files: set[str] = set()
    for table, attribution in traces:
        for name in set(table.frames.name):
            parsed = parse_frame(table.names[name])
            if isinstance(parsed, CodeFrame) and not is_frozen(parsed.file):
                files.add(parsed.file)
        if attribution.statements is not None:
            for stack in attribution.statements.stacks:
                files.update(frame[0] for frame in stack if not is_frozen(frame[0]))
    return sorted(files)
