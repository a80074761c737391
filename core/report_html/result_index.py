"""What the HTML report reads off one processed result, computed once.

The entity graph (``core.graph``), each entity's metrics (all its breakdowns), the dominant
metric and each entity's figure of it, the model total, the operators, and each operator's
*units*: the entities whose figures its cost is measured in. An operator's units are its nearest
non-view ancestors that carry the dominant metric (a chain, a performance group, a backend
operator); an operator with no such ancestor is its own unit when it carries the figure. A unit
that is an ancestor of another unit of the same operator is dropped (a segment over a chain).
Linear in entities plus edges (the ancestor check walks only above units).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfline.core.graph import EntityGraph, build_graph
from perfline.core.report_html.labels import (
    VIEW_KINDS,
    Metric,
    choose_metric,
    model_total,
    numeric,
)

OPERATOR_KIND = "source_operator"


@dataclass(frozen=True)
class ResultIndex:
    """One result as the report sees it."""

    position: int
    result: Mapping[str, Any]
    graph: EntityGraph
    entities: Mapping[str, Mapping[str, Any]]
    metrics: Mapping[str, Sequence[Mapping[str, Any]]]
    metric: Metric | None
    values: Mapping[str, float]
    total: float | None
    operators: tuple[str, ...]
    units: Mapping[str, tuple[str, ...]]

    def kind(self, entity_id: str) -> str:
        return self.graph.kinds.get(entity_id, "")

    def name(self, entity_id: str) -> str:
        entity = self.entities.get(entity_id)
        name = entity.get("name") if entity is not None else None
        return name if isinstance(name, str) and name else entity_id

    def attributes(self, entity_id: str) -> Mapping[str, Any]:
        entity = self.entities.get(entity_id)
        attributes = entity.get("attributes") if entity is not None else None
        return attributes if isinstance(attributes, Mapping) else {}

    def parents_of_kind(self, entity_id: str, kind: str) -> list[str]:
        return [p for p in self.graph.parents.get(entity_id, ()) if self.kind(p) == kind]


def _metric_lists(result: Mapping[str, Any]) -> dict[str, list[Mapping[str, Any]]]:
    found: dict[str, list[Mapping[str, Any]]] = {}
    breakdowns = result.get("breakdowns")
    for breakdown in breakdowns if isinstance(breakdowns, list) else ():
        if not isinstance(breakdown, Mapping):
            continue
        entity_id = breakdown.get("entity_id")
        metrics = breakdown.get("metrics")
        if isinstance(entity_id, str) and isinstance(metrics, list):
            found.setdefault(entity_id, []).extend(m for m in metrics if isinstance(m, Mapping))
    return found


def _values(metrics: Mapping[str, Sequence[Mapping[str, Any]]], metric: Metric) -> dict[str, float]:
    values: dict[str, float] = {}
    for entity_id, items in metrics.items():
        for item in items:
            if item.get("name") == metric.name and item.get("unit") == metric.unit:
                value = numeric(item)
                if value is not None:
                    values[entity_id] = value
                    break
    return values


def index_result(
    result: Mapping[str, Any], position: int, configured_metric: str | None = None
) -> ResultIndex:
    """Index one result of a processed document (any result: figures may be absent)."""
    raw = result.get("entities")
    entity_list = [e for e in raw if isinstance(e, Mapping)] if isinstance(raw, list) else []
    graph = build_graph(entity_list)
    entities = {e["id"]: e for e in entity_list if isinstance(e.get("id"), str)}
    metrics = _metric_lists(result)
    line_metrics = [m for e, m in metrics.items() if graph.kinds.get(e) == "code_line"]
    metric = choose_metric(line_metrics, configured_metric)
    if metric is None:
        carriers = [m for e, m in metrics.items() if graph.kinds.get(e) not in VIEW_KINDS]
        metric = choose_metric(carriers, configured_metric)
    values = _values(metrics, metric) if metric is not None else {}
    total = (
        model_total(result, metric, graph.kinds, values, graph.children)
        if metric is not None
        else None
    )
    operators = tuple(e for e in graph.ids if graph.kinds[e] == OPERATOR_KIND)
    if not operators:
        operators = tuple(
            e
            for e in graph.ids
            if graph.kinds[e] not in VIEW_KINDS and e in values and not graph.children[e]
        )
    units = {o: _units(graph, values, o) for o in operators}
    return ResultIndex(
        position, result, graph, entities, metrics, metric, values, total, operators, units
    )


def _execution_parents(graph: EntityGraph, entity_id: str) -> list[str]:
    return [p for p in graph.parents.get(entity_id, ()) if graph.kinds.get(p) not in VIEW_KINDS]


def _units(graph: EntityGraph, values: Mapping[str, float], operator: str) -> tuple[str, ...]:
    found: list[str] = []
    seen: set[str] = set()
    stack = _execution_parents(graph, operator)
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        if current in values:
            found.append(current)
        else:
            stack.extend(_execution_parents(graph, current))
    if not found:
        return (operator,) if operator in values else ()
    if len(found) > 1:
        found = [u for u in found if not _is_ancestor_of_any(graph, u, found)]
    return tuple(found)


def _is_ancestor_of_any(graph: EntityGraph, candidate: str, units: list[str]) -> bool:
    others = [u for u in units if u != candidate]
    stack = list(others)
    seen: set[str] = set()
    while stack:
        current = stack.pop()
        for parent in _execution_parents(graph, current):
            if parent == candidate:
                return True
            if parent not in seen:
                seen.add(parent)
                stack.append(parent)
    return False


def index_document(
    document: Mapping[str, Any], configured_metric: str | None = None
) -> list[ResultIndex]:
    """Every result of the document, indexed (results that are not objects are left out)."""
    results = document.get("results")
    return [
        index_result(result, position, configured_metric)
        for position, result in enumerate(results if isinstance(results, list) else ())
        if isinstance(result, Mapping)
    ]
