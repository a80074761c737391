"""Call lines: the code lines whose figure includes other lines' (``x = self.blocks(x)``).

A code line is the parent of its code stacks (one per call path that ends at the line);
a stack's child stacks are the frames one call deeper (the lines of the function the line
calls) and its source operators the operators that run at that frame. The lines a code
line *calls* are the (file, line) of every stack below its own stacks, at any depth, its
own (file, line) left out (recursion). A code line that calls lines is a *call line*: its
figure, the sum over every operator below its stacks, includes the figures of the lines
it calls. This module is the one place that decides it; the editor's line index
(``server/line_index.py``), the text report (``report_rows``), the HTML report
(``report_html``) and ``compare`` ask it, so they agree on which lines are inclusive.

``line_calls(entities, graph)``: per code line with a usable (file, line), its stacks, the
source operators below them and the lines it calls. ``calls_text`` writes the called
lines as the reports and the editor show them (``24-27, other.py:3``), ``calls_marker``
the reports' marker of a call line (``(calls 24-27)``, ``(calls 7 lines)`` for a long list).

Pure. Cost: one post-order walk over the code stacks; each stack's operators and deeper
frames are gathered once, from its children's (a stack below several stacks is walked
once, a stack on a cycle -- invalid input -- is left out where it closes the cycle): linear
in the stacks and their edges plus the sizes of those sets (each line's operators and
called lines, the answer).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, Final, TypeVar

from perfline.core.graph import EntityGraph, build_graph

CODE_LINE: Final = "code_line"
CODE_STACK: Final = "code_stack"
SOURCE_OPERATOR: Final = "source_operator"

Frame = tuple[str, int]
"""A recorded (file, line)."""

_T = TypeVar("_T")

_NO_IDS: frozenset[str] = frozenset()
_NO_FRAMES: frozenset[Frame] = frozenset()


@dataclass(frozen=True, slots=True)
class LineCalls:
    """One code line's place in the stack tree."""

    entity_id: str
    file: str
    """The recorded file (the line's ``file`` attribute)."""
    line: int
    stacks: tuple[str, ...]
    """Its code stacks, by id."""
    operators: tuple[str, ...]
    """The source operators below its stacks, by id."""
    calls: tuple[Frame, ...]
    """The (recorded file, line) of the lines it calls, sorted; empty for most lines."""

    @property
    def is_call_line(self) -> bool:
        """Whether the line calls lines (its figure then includes theirs)."""
        return bool(self.calls)


def frame_of(entity: object) -> Frame | None:
    """The (file, line) attributes of a code line or stack, when usable."""
    if type(entity) is not dict and not isinstance(entity, Mapping):
        return None
    attributes = entity.get("attributes")
    if type(attributes) is not dict and not isinstance(attributes, Mapping):
        return None
    file, line = attributes.get("file"), attributes.get("line")
    if not isinstance(file, str) or type(line) is not int or line < 1:
        return None
    return (file, line)


def line_calls(
    entities: Sequence[Any],
    graph: EntityGraph | None = None,
    by_id: Mapping[str, Any] | None = None,
) -> dict[str, LineCalls]:
    """Code line id -> its ``LineCalls``, in document order (``graph``: the entities' graph,
    ``by_id``: the entities by id, when the caller has them)."""
    if graph is None:
        graph = build_graph(entities)
    if by_id is None:
        by_id = _by_id(entities)
    kinds, children = graph.kinds, graph.children
    below = _StacksBelow(graph, by_id)
    found: dict[str, LineCalls] = {}
    for entity_id in graph.ids:
        if kinds[entity_id] != CODE_LINE:
            continue
        own = frame_of(by_id.get(entity_id))
        if own is None:
            continue
        stacks = sorted(c for c in children[entity_id] if kinds[c] == CODE_STACK)
        operators: frozenset[str] | set[str] = _NO_IDS
        frames: frozenset[Frame] | set[Frame] = _NO_FRAMES
        if len(stacks) == 1:  # the common case: one call path ends at the line
            operators, frames = below.of(stacks[0])
        elif stacks:
            operators, frames = set(), set()
            for stack in stacks:
                stack_operators, stack_frames = below.of(stack)
                operators |= stack_operators
                frames |= stack_frames
        if own in frames:  # recursion: the line's own frame deeper down
            frames = set(frames) - {own}
        found[entity_id] = LineCalls(
            entity_id,
            own[0],
            own[1],
            tuple(stacks),
            tuple(sorted(operators)),
            tuple(sorted(frames)) if frames else (),
        )
    return found


def _by_id(entities: Sequence[Any]) -> dict[str, Any]:
    by_id: dict[str, Any] = {}
    for entity in entities:
        if type(entity) is dict or isinstance(entity, Mapping):
            entity_id = entity.get("id")
            if type(entity_id) is str and entity_id not in by_id:
                by_id[entity_id] = entity
    return by_id


class _StacksBelow:
    """Each code stack's (source operators, frames of the stacks) below it, made once."""

    __slots__ = ("_by_id", "_done", "_graph")

    def __init__(self, graph: EntityGraph, by_id: Mapping[str, Any]) -> None:
        self._graph = graph
        self._by_id = by_id
        self._done: dict[str, tuple[frozenset[str], frozenset[Frame]]] = {}

    def of(self, stack: str) -> tuple[frozenset[str], frozenset[Frame]]:
        known = self._done.get(stack)
        if known is None:
            self._walk(stack)
            known = self._done[stack]
        return known

    def _walk(self, start: str) -> None:
        """Post-order from ``start`` over the stacks not yet done (iterative: any depth)."""
        kinds, children, done = self._graph.kinds, self._graph.children, self._done
        path = [start]
        expanded: set[str] = set()
        while path:
            node = path[-1]
            if node in done:
                path.pop()
                continue
            if node not in expanded:
                expanded.add(node)
                deeper = [
                    c
                    for c in children[node]
                    if kinds[c] == CODE_STACK and c not in done and c not in expanded
                ]
                if deeper:
                    path.extend(deeper)
                    continue
            path.pop()
            done[node] = self._gather(node)

    def _gather(self, node: str) -> tuple[frozenset[str], frozenset[Frame]]:
        graph, done = self._graph, self._done
        operators: list[str] = []
        frames: list[Frame] = []
        operator_parts: list[frozenset[str]] = []
        frame_parts: list[frozenset[Frame]] = []
        for child in graph.children[node]:
            kind = graph.kinds[child]
            if kind == SOURCE_OPERATOR:
                operators.append(child)
            elif kind == CODE_STACK and child in done:  # not done: it closes a cycle
                child_operators, child_frames = done[child]
                if child_operators:
                    operator_parts.append(child_operators)
                if child_frames:
                    frame_parts.append(child_frames)
                frame = frame_of(self._by_id.get(child))
                if frame is not None:
                    frames.append(frame)
        return _union(operator_parts, operators, _NO_IDS), _union(frame_parts, frames, _NO_FRAMES)


def _union(parts: list[frozenset[_T]], extra: list[_T], empty: frozenset[_T]) -> frozenset[_T]:
    """The union of ``parts`` and ``extra``, sharing a part when it is the whole union."""
    if not extra:
        if not parts:
            return empty
        if len(parts) == 1:
            return parts[0]
    union: set[_T] = set(extra)
    for part in parts:
        union |= part
    return frozenset(union)


def calls_text(calls: Iterable[Frame], file: str) -> str:
    """The called lines as shown: ``24-27`` in ``file``, ``other.py:3`` in other files
    (by file name), ranges of consecutive lines joined."""
    here: list[int] = []
    elsewhere: dict[str, list[int]] = {}
    for called_file, number in calls:
        if called_file == file:
            here.append(number)
        else:
            elsewhere.setdefault(called_file, []).append(number)
    parts = [line_ranges(sorted(here))] if here else []
    parts += [
        f"{PurePath(called).name}:{line_ranges(sorted(numbers))}"
        for called, numbers in sorted(elsewhere.items())
    ]
    return ", ".join(parts)


MARKER_ROOM: Final = 16
"""The widest a call line's marker is written in full (``(calls 24-27)``)."""


def calls_marker(calls: Sequence[Frame], file: str, room: int = MARKER_ROOM) -> str:
    """A call line's marker in the reports: ``(calls 24-27)``, or ``(calls 7 lines)`` when
    the list would be longer than ``room`` characters; empty for other lines."""
    if not calls:
        return ""
    listed = f"(calls {calls_text(calls, file)})"
    if len(listed) <= room:
        return listed
    return f"(calls {len(calls)} line{'' if len(calls) == 1 else 's'})"


def line_ranges(numbers: Sequence[int]) -> str:
    """``24-27, 30`` (``numbers`` sorted)."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        elif not runs or number != runs[-1][-1]:
            runs.append([number])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)
