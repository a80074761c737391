"""What the text report's tables show of a result: its dominant metric, the model total a
share is of, the per-source-line rows, and the order of the rows.

The dominant metric and the total a share is of follow the editor's rules
(``core.dominant_metric``): the metric on the most code lines (else on the most breakdowns),
ties broken by cycles, MACs, a p50/median time, any time, first seen; the total is a
result-level metric of the same name and unit if the result has one, else the sum over the
top-most non-view entities carrying the metric. A source line's top operator is the
heaviest operator under it (a descendant that is not a view: not a code line, stack, module
or model). A call line (``core.call_lines``: its code stacks continue into other lines')
is labelled with the lines it calls, ``dscnn.py:41`` over ``(calls 24-27)`` (``(calls 7
lines)`` for a long list, ``(incl.)`` where that does not fit): its figure includes
theirs; rows stay in the order of their figures. Pure; linear in the result (the walks
visit each entity and edge once).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfline.core.call_lines import calls_marker, line_calls
from perfline.core.dominant_metric import VIEW_KINDS, choose_metric, numeric, top_most_total

Metric = tuple[str, str]
"""A metric's identity in the report: (name, unit)."""


def number(value: object) -> float | None:
    """A finite number (booleans are not numbers here)."""
    return numeric({"value": value})


def figures(breakdown: Mapping[str, Any]) -> dict[Metric, Any]:
    """The available numeric values of a breakdown, by metric (the first of each)."""
    found: dict[Metric, Any] = {}
    for metric in breakdown.get("metrics") or ():
        if isinstance(metric, Mapping) and number(metric.get("value")) is not None:
            key = (str(metric.get("name")), str(metric.get("unit") or ""))
            found.setdefault(key, metric["value"])
    return found


def breakdown_metrics(result: Mapping[str, Any]) -> list[Metric]:
    """Every metric of the result's breakdowns, in the order they first appear."""
    order: dict[Metric, None] = {}
    for breakdown in _breakdowns(result):
        for metric in breakdown.get("metrics") or ():
            if isinstance(metric, Mapping):
                order.setdefault((str(metric.get("name")), str(metric.get("unit") or "")), None)
    return list(order)


def _breakdowns(result: Mapping[str, Any]) -> Iterable[Mapping[str, Any]]:
    return (b for b in result.get("breakdowns") or () if isinstance(b, Mapping))


def dominant_metric(result: Mapping[str, Any]) -> Metric | None:
    """The editor's dominant metric (``core.dominant_metric.choose_metric``) over the result's
    code lines, else over all its breakdowns (a result without code lines)."""
    entities = {
        e["id"]: e.get("kind")
        for e in result.get("entities") or ()
        if isinstance(e, Mapping) and isinstance(e.get("id"), str)
    }
    lines: list[list[Mapping[str, Any]]] = []
    others: list[list[Mapping[str, Any]]] = []
    for breakdown in _breakdowns(result):
        metrics = [m for m in breakdown.get("metrics") or () if isinstance(m, Mapping)]
        is_line = entities.get(breakdown.get("entity_id")) == "code_line"
        (lines if is_line else others).append(metrics)
    key = choose_metric(lines) or choose_metric(others)
    return None if key is None else (key.name, key.unit)


def sorted_by(items: Sequence[Any], value: Mapping[int, float]) -> list[Any]:
    """``items`` heaviest first by ``value`` (by position); those without one keep their
    order after the others."""
    weighed = sorted((i for i in range(len(items)) if i in value), key=lambda i: -value[i])
    rest = [i for i in range(len(items)) if i not in value]
    return [items[i] for i in (*weighed, *rest)]


@dataclass(frozen=True)
class Graph:
    """The result's entities by id and their children (edges given on either side)."""

    entities: Mapping[str, Mapping[str, Any]]
    children: Mapping[str, Sequence[str]]
    parents: Mapping[str, Sequence[str]]


def graph_of(result: Mapping[str, Any]) -> Graph:
    entities: dict[str, Mapping[str, Any]] = {}
    for entity in result.get("entities") or ():
        if isinstance(entity, Mapping) and isinstance(entity.get("id"), str):
            entities.setdefault(entity["id"], entity)
    children: dict[str, dict[str, None]] = {key: {} for key in entities}
    parents: dict[str, dict[str, None]] = {key: {} for key in entities}
    for key, entity in entities.items():
        for child in entity.get("child_ids") or ():
            if child in entities:
                children[key][child] = None
                parents[child][key] = None
        for parent in entity.get("parent_ids") or ():
            if parent in entities:
                children[parent][key] = None
                parents[key][parent] = None
    return Graph(
        entities,
        {key: list(value) for key, value in children.items()},
        {key: list(value) for key, value in parents.items()},
    )


def values_by_entity(result: Mapping[str, Any], key: Metric) -> dict[str, float]:
    """The value of ``key`` on each entity with a breakdown carrying it (first wins)."""
    found: dict[str, float] = {}
    for breakdown in _breakdowns(result):
        entity_id = breakdown.get("entity_id")
        value = figures(breakdown).get(key)
        if isinstance(entity_id, str) and value is not None:
            found.setdefault(entity_id, float(value))
    return found


def model_total(
    result: Mapping[str, Any], key: Metric, graph: Graph, values: Mapping[str, float]
) -> float | None:
    """What a share of ``key`` is a share of (see the module's docstring)."""
    for metric in result.get("metrics") or ():
        if isinstance(metric, Mapping) and (metric.get("name"), metric.get("unit") or "") == key:
            value = number(metric.get("value"))
            if value is not None and value > 0:
                return value
    carrying = {
        entity_id: value
        for entity_id, value in values.items()
        if graph.entities.get(entity_id, {}).get("kind") not in VIEW_KINDS
    }
    return top_most_total(carrying, graph.children)


@dataclass(frozen=True)
class LineRow:
    """One source line of the per-line table."""

    where: str  # file:line
    value: float | None
    share: float | None
    top: str | None  # the heaviest operator under the line: "name (type)"
    top_value: float | None
    top_name: str | None = None  # its name alone
    calls: tuple[tuple[str, int], ...] = ()  # a call line's called lines: its figure
    file: str = ""  # includes theirs; the recorded file the line is in

    def label(self, room: int) -> str:
        """``where``, and for a call line a second line, its marker (``core.call_lines``:
        ``(calls 24-27)``, ``(calls 7 lines)`` when the list is longer than ``room``)."""
        if not self.calls:
            return self.where
        return f"{self.where}\n{calls_marker(self.calls, self.file, room)}"

    @property
    def short_label(self) -> str:
        """``label`` where the called lines do not fit: ``(incl.)`` in their place."""
        return f"{self.where}\n(incl.)" if self.calls else self.where


def code_line_rows(result: Mapping[str, Any], key: Metric | None) -> list[LineRow]:
    """The result's code lines with their figure of ``key``, heaviest first."""
    graph = graph_of(result)
    lines = [e for e in graph.entities.values() if e.get("kind") == "code_line"]
    if not lines:
        return []
    values = values_by_entity(result, key) if key is not None else {}
    total = model_total(result, key, graph, values) if key is not None else None
    structure = line_calls(result.get("entities") or ())
    rows = []
    for line in lines:
        value = values.get(str(line["id"]))
        top, top_value = _top_operator(str(line["id"]), graph, values)
        share = value / total if value is not None and total else None
        name = top.rsplit(" (", 1)[0] if top else None
        found = structure.get(str(line["id"]))
        calls, file = (found.calls, found.file) if found is not None else ((), "")
        rows.append(LineRow(_where(line), value, share, top, top_value, name, calls, file))
    weights = {i: row.value for i, row in enumerate(rows) if row.value is not None}
    return sorted_by(rows, weights)


def _where(line: Mapping[str, Any]) -> str:
    attributes = line.get("attributes")
    if isinstance(attributes, Mapping) and attributes.get("file") and attributes.get("line"):
        return f"{str(attributes['file']).rsplit('/', 1)[-1]}:{attributes['line']}"
    return str(line.get("name") or line.get("id"))


def _top_operator(
    start: str, graph: Graph, values: Mapping[str, float]
) -> tuple[str | None, float | None]:
    best: tuple[float, str] | None = None
    seen = {start}
    stack = list(graph.children.get(start, ()))
    while stack:
        entity_id = stack.pop()
        if entity_id in seen:
            continue
        seen.add(entity_id)
        stack.extend(graph.children.get(entity_id, ()))
        entity = graph.entities[entity_id]
        value = values.get(entity_id)
        if entity.get("kind") in VIEW_KINDS or value is None:
            continue
        if best is None or value > best[0]:
            best = (value, entity_id)
    if best is None:
        return None, None
    entity = graph.entities[best[1]]
    return f"{entity.get('name') or entity.get('id')}{_operator_type(entity)}", best[0]


def _operator_type(entity: Mapping[str, Any]) -> str:
    attributes = entity.get("attributes")
    if not isinstance(attributes, Mapping):
        return ""
    types = attributes.get("operator_types") or attributes.get("operator_type")
    first = types[0] if isinstance(types, list) and types else types
    if not isinstance(first, str) or not first:
        return ""
    short = first.removeprefix("torch.ops.").removesuffix(".default")
    return f" ({short})"


def has_float_sums(result: Mapping[str, Any]) -> bool:
    """Whether figures of the result are sums of float values (the float-sums mode then
    decides their last bits)."""
    for breakdown in _breakdowns(result):
        for metric in breakdown.get("metrics") or ():
            if (
                isinstance(metric, Mapping)
                and type(metric.get("value")) is float
                and metric.get("aggregation") == "sum"
            ):
                return True
    return False
