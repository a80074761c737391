"""Look-up tables of one job result that hovers and breakdowns read (operators' figures,
the entities above them, what ran).

Built on first use per (job, result index): one pass over the result's breakdowns and
entities (linear), so a hover costs a dictionary look-up per operator once a table
exists (the connection keeps them until the engine's state changes: ``ConnectionView``);
served results are never scanned ahead of a hover or breakdown that needs them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfline.core.graph import build_graph
from perfline.server.line_index import breakdowns_by_entity
from perfline.server.view.engine_surface import ResultView
from perfline.server.view.run_description import describe_run


@dataclass(frozen=True, slots=True)
class ResultTables:
    """A result's metrics by entity id, its entities by id, their parents, what ran."""

    breakdowns: Mapping[str, Sequence[Mapping[str, Any]]]
    entities: Mapping[str, Mapping[str, Any]]
    parents: Mapping[str, Sequence[str]]
    run: str
    result: Mapping[str, Any]
    document: Mapping[str, Any]


def result_tables(good: ResultView | None, result_index: int) -> ResultTables | None:
    """The tables of result ``result_index`` of ``good`` (``None``: no such result)."""
    if good is None:
        return None
    document = good.document
    results = document.get("results")
    if not isinstance(results, list) or not 0 <= result_index < len(results):
        return None
    result = results[result_index]
    if not isinstance(result, Mapping):
        return None
    listed = [e for e in result.get("entities") or () if isinstance(e, Mapping)]
    entities = {str(e.get("id")): e for e in listed}
    breakdowns = breakdowns_by_entity(result)
    parents = build_graph(listed).parents
    return ResultTables(
        breakdowns, entities, parents, describe_run(document, result), result, document
    )
