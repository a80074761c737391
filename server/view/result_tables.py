"""Look-up tables of one job result that hovers and breakdowns read (operators' figures,
the entities above them, what ran), built on first use and kept until the engine's state
changes.

Built lazily per (job, result index): one pass over the result's breakdowns and entities
(linear), so a hover costs a dictionary look-up per operator once a table exists; served
results are never scanned ahead of a hover or breakdown that needs them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfline.core.graph import build_graph
from perfline.server.line_index import breakdowns_by_entity
from perfline.server.view.engine_surface import EngineSource, ResultView
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


class ResultTableCache:
    """``ResultTables`` per (job, result index), dropped when the engine's version moves."""

    def __init__(self, engine: EngineSource) -> None:
        self._engine = engine
        self._version = -1
        self._tables: dict[tuple[str, int], ResultTables | None] = {}

    def get(self, job: str, result_index: int) -> ResultTables | None:
        engine = self._engine()
        if engine.version != self._version:
            self._tables = {}
            self._version = engine.version
        key = (job, result_index)
        if key not in self._tables:
            self._tables[key] = _tables(engine.result(job), result_index)
        return self._tables[key]


def _tables(good: ResultView | None, result_index: int) -> ResultTables | None:
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
