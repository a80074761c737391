"""The leaves of one trace as records that outlive its timeline: where each leaf sits (its
code frames, outermost first, and its module calls), what it is, and its per-step values.

A frame's file is the recorded name (``model.py``, ``torch/nn/modules/linear.py``) mapped
through the caller's resolution (``resolved``: recorded name -> workspace path, or ``None``
when the file is not in the workspace); ``in_workspace`` says which. A leaf's ``key`` is its
identity across traces and runs: the frames as ``file:line:function`` lines, the module
calls and the name; two traces' leaves with one key are one leaf. Pure; cost: linear in the
leaves and their depth.
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
    frame_memo: dict[int, LeafFrame] = {}
    statement_memo: dict[StatementFrame, LeafFrame] = {}
    statements = attribution.statements
    leaves: list[Leaf] = []
    for number, context in enumerate(timeline.leaf_context):
        values = {
            metric: rows[number]
            for metric, rows in attribution.values.items()
            if number in rows and any(rows[number])
        }
        if not values:
            continue
        stack = contexts.context_stack[context]
        chain = contexts.context_chain[context]
        statement = timeline.leaf_statement[number]
        if statement != NONE and statements is not None:
            frames = tuple(
                _statement_frame(frame, resolved, statement_memo)
                for frame in statements.stacks[statement]
            )
        else:
            frames = tuple(
                _leaf_frame(frame_id, contexts.frames[frame_id], resolved, frame_memo)
                for frame_id in _frame_ids(contexts.stack_parent, contexts.stack_frame, stack)
            )
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
