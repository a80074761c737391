"""The graph part of a result's line index: what it takes from the entity graph, the
result's labels and the path resolver alone, and so may keep while those are unchanged
(``server.index_memo``).

``Skeleton``: entities by id, edges, the code lines and what is behind each (its stacks,
source operators, the non-view entities above those, placements and the lines it calls,
from ``core.call_lines``). ``LineLayout``: each placed line's ``LineFacts`` under one
resolver, and where each code line is shown. Cost: linear in the entities (the skeleton),
then one small object per code line (the layout).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfline.core import dominant_metric
from perfline.core.call_lines import line_calls
from perfline.core.graph import build_graph
from perfline.server.line_entries import LineFacts
from perfline.server.line_figures import LineGraph


@dataclass(frozen=True, slots=True)
class PlacedLine:
    """A code_line with a usable (file, line) and what its graph puts behind it."""

    entity: Mapping[str, Any]
    #: Its place among the result's code lines.
    slot: int
    recorded: str
    number: int
    stacks: tuple[str, ...]
    operators: tuple[Mapping[str, Any], ...]
    behind: tuple[tuple[str, str], ...]
    placements: tuple[str, ...]
    #: (recorded file, line) of the frames below this line's (the lines it calls).
    called: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class Skeleton:
    """What the index takes from a result's entity graph alone."""

    entities: dict[str, Mapping[str, Any]]
    children: Mapping[str, tuple[str, ...]]
    parents: Mapping[str, tuple[str, ...]]
    code_lines: tuple[Mapping[str, Any], ...]
    #: Code line slots, non-view entities and children, as the figures need them.
    graph: LineGraph
    placed: tuple[PlacedLine, ...]


class ResultLabels:
    """A result's job, place and labels, as every entry of it repeats them."""

    __slots__ = ("job", "kind", "mode", "producer", "result_index")

    def __init__(self, job: str, result_index: int, result: Mapping[str, Any]) -> None:
        self.job = job
        self.result_index = result_index
        self.producer = str(result.get("producer", ""))
        mode = result.get("mode")
        self.mode: str | None = mode if isinstance(mode, str) else None
        self.kind = str(result.get("kind", ""))

    def same(self, other: ResultLabels) -> bool:
        return (
            self.job == other.job
            and self.result_index == other.result_index
            and self.producer == other.producer
            and self.mode == other.mode
            and self.kind == other.kind
        )


def _calls_per_step(
    entities: Mapping[str, Mapping[str, Any]], stacks: tuple[str, ...]
) -> float | None:
    """The sum of the stacks' ``calls_per_step`` attribute (``None``: none has one)."""
    found: float | None = None
    for identity in stacks:
        attributes = entities.get(identity, {}).get("attributes")
        value = attributes.get("calls_per_step") if isinstance(attributes, Mapping) else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            found = (found or 0.0) + float(value)
    return found


class LineLayout:
    """A result's ``LineFacts`` under one resolver, and where each code line is shown."""

    __slots__ = ("facts", "labels", "line_of", "resolve", "skeleton")

    def __init__(
        self,
        skeleton: Skeleton,
        labels: ResultLabels,
        resolve: Callable[[str], Path | None],
    ) -> None:
        self.skeleton = skeleton
        self.labels = labels
        self.resolve = resolve
        resolved: dict[str, str] = {}

        def file_key(recorded: str) -> str:
            key = resolved.get(recorded)
            if key is None:
                found = resolve(recorded)
                key = resolved[recorded] = str(found) if found is not None else recorded
            return key

        facts = []
        for line in skeleton.placed:
            where = file_key(line.recorded)
            calls: tuple[tuple[str, int], ...] = ()
            if line.called:  # a call line (rare): the lines it calls, as files of the workspace
                mapped = {(file_key(f), n) for f, n in line.called} - {(where, line.number)}
                calls = tuple(sorted(mapped))
            facts.append(
                LineFacts(
                    labels.job,
                    labels.result_index,
                    line.entity["id"],
                    str(line.entity.get("name", "")),
                    line.recorded,
                    line.number,
                    line.stacks,
                    line.operators,
                    line.behind,
                    line.placements,
                    labels.producer,
                    labels.mode,
                    labels.kind,
                    calls,
                    where,
                    line.slot,
                    _calls_per_step(skeleton.entities, line.stacks),
                )
            )
        self.facts = tuple(facts)
        self.line_of = {f.entity_id: (f.file, f.line) for f in self.facts}

    def fits(
        self, skeleton: Skeleton, labels: ResultLabels, resolve: Callable[[str], Path | None]
    ) -> bool:
        return (
            self.skeleton is skeleton
            and self.labels.same(labels)
            and (self.resolve is resolve or self.resolve == resolve)
        )


def skeleton_of(listed: Any) -> Skeleton:
    """The skeleton of a result's entity list."""
    entities: dict[str, Mapping[str, Any]] = {}
    for e in listed or ():
        if type(e) is dict or isinstance(e, Mapping):
            entity_id = e.get("id")
            if type(entity_id) is str:
                entities[entity_id] = e
    graph = build_graph(listed or [])
    children, parents = graph.children, graph.parents
    code_lines = tuple(e for e in entities.values() if e.get("kind") == "code_line")
    slots = {e["id"]: slot for slot, e in enumerate(code_lines)}
    non_view = frozenset(i for i, e in entities.items() if not is_view(e))
    structure = line_calls(listed or [], graph, entities)
    placed: list[PlacedLine] = []
    for slot, entity in enumerate(code_lines):
        found = structure.get(entity["id"])
        if found is None:  # no usable (file, line)
            continue
        operators = tuple(entities[o] for o in found.operators)
        behind = sorted(
            {
                (str(entities[p].get("kind")), str(entities[p].get("name", p)))
                for o in found.operators
                for p in parents.get(o, ())
                if not is_view(entities[p])
            }
        )
        placements = tuple(
            sorted({str(o.get("placement")) for o in operators if o.get("placement")})
        )
        placed.append(
            PlacedLine(
                entity,
                slot,
                found.file,
                found.line,
                found.stacks,
                operators,
                tuple(behind),
                placements,
                found.calls,
            )
        )
    graph_part = LineGraph(slots, non_view, children)
    return Skeleton(entities, children, parents, code_lines, graph_part, tuple(placed))


def is_view(entity: Mapping[str, Any]) -> bool:
    kind = entity.get("kind")
    return type(kind) is str and kind in dominant_metric.VIEW_KINDS
