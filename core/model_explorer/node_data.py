"""Model Explorer node data from a processed document: operator figures keyed by node id.

The overlay carries one metric (the report's dominant metric unless one is named) of one result
(the first with source operators that are nodes of the model, unless one is named): each source
operator of the document that carries the metric and is a node of the model's graph gets
``{"value": <figure>}`` under its node id, in the graph it belongs to. The file is Model
Explorer's model node data (graph id -> ``{"name", "results", "gradient"}``); the gradient runs
from pale (the smallest figure) to red (the largest). Operators whose cost is only known together
with others (one chain over two operators) have no figure of their own and are left out, as are
document operators that are not nodes of this model (another model's, or not placed by the
adapter); ``Overlay`` counts both so the caller can say so. Pure; linear in the document.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from perfline.core.errors import InputError, Problem
from perfline.core.model_explorer.graph_ids import ExplorerGraph
from perfline.core.report_html.labels import format_value
from perfline.core.report_html.page_texts import rounded
from perfline.core.report_html.result_index import OPERATOR_KIND, ResultIndex, index_document

GRADIENT: tuple[dict[str, Any], ...] = (
    {"stop": 0, "bgColor": "#fff3d6"},
    {"stop": 0.5, "bgColor": "#f5a05a"},
    {"stop": 1, "bgColor": "#c62828"},
)


@dataclass
class Overlay:
    """The node data and what could not be put on the graph."""

    data: dict[str, Any]
    result: int
    metric: str
    unit: str
    placed: int = 0
    without_figure: list[str] = field(default_factory=list)
    not_in_model: list[str] = field(default_factory=list)
    unplaced: dict[str, str] = field(default_factory=dict)


def _operators(index: ResultIndex) -> list[str]:
    return [e for e in index.graph.ids if index.kind(e) == OPERATOR_KIND]


def _pick(
    indexes: list[ResultIndex], graph: ExplorerGraph, result: int | None, source: str
) -> ResultIndex:
    if result is not None:
        for index in indexes:
            if index.position == result:
                return index
        raise InputError(
            "--result", Problem(str(result), f"the document has {len(indexes)} result(s)")
        )
    for index in indexes:
        if index.metric is not None and any(o in graph.nodes for o in _operators(index)):
            return index
    raise InputError(
        source,
        "none of its results has source operators of this model with figures (expected a "
        "document measured or estimated on this model: its source_operator ids are the "
        "model's canonical ids, see `perfline operators MODEL`)",
    )


def build_node_data(
    document: Mapping[str, Any],
    graph: ExplorerGraph,
    *,
    metric: str | None = None,
    result: int | None = None,
    source: str = "document",
) -> Overlay:
    """The Model Explorer node data of one result's operator figures on ``graph``.

    ``source`` names the document in error messages.
    """
    index = _pick(index_document(document, metric), graph, result, source)
    chosen = index.metric
    if chosen is None or (metric is not None and chosen.name != metric):
        raise InputError(
            "--metric",
            Problem(metric or "", f"result {index.position + 1} has no such figure"),
        )
    name = f"{chosen.name} ({chosen.unit})" if chosen.unit else chosen.name
    overlay = Overlay({}, index.position, chosen.name, chosen.unit)
    for operator in _operators(index):
        ref = graph.nodes.get(operator)
        if ref is None:
            if operator in graph.unplaced:
                overlay.unplaced[operator] = graph.unplaced[operator]
            elif operator in index.values:
                overlay.not_in_model.append(operator)
            continue
        value = index.values.get(operator)
        if value is None:
            overlay.without_figure.append(operator)
            continue
        graph_data = overlay.data.setdefault(
            ref.graph, {"name": name, "results": {}, "gradient": [dict(g) for g in GRADIENT]}
        )
        graph_data["results"][ref.node] = {"value": rounded(value)}
        overlay.placed += 1
    return overlay


def describe(overlay: Overlay, model: str) -> str:
    """One line for the user: what went onto which graph, and what did not."""
    graphs = ", ".join(repr(g) for g in overlay.data) or "no graph"
    total = sum(
        value["value"] for graph in overlay.data.values() for value in graph["results"].values()
    )
    text = (
        f"{overlay.placed} operator figure(s) of {overlay.metric} (result {overlay.result + 1}, "
        f"together {format_value(total, overlay.unit)}) on {graphs} of {model}"
    )
    if overlay.without_figure:
        text += f"; {len(overlay.without_figure)} operator(s) have no figure of their own"
    if overlay.not_in_model:
        sample = ", ".join(overlay.not_in_model[:3])
        text += f"; {len(overlay.not_in_model)} operator(s) are not nodes of this model ({sample})"
    if overlay.unplaced:
        text += f"; {len(overlay.unplaced)} not shown by Model Explorer's adapter"
    return text
