"""Breakdown projection (seed 001 "Entity breakdown projection"; core.md §6).

Entry point: ``project_breakdowns(result)``. The result has been validated,
collapsed and augmented with code lines. The returned result's breakdowns are
the authoritative ones (exact duplicates removed, first-seen order) followed by
the projected ones (targets in sorted id order); everything else is unchanged.
When nothing is projected and no duplicate removed, the returned dict equals
the input. The input is never mutated.

Pieces (one concept each): ``index`` (integer graph, leaves, roots,
competition), ``figures`` (canonical figures, arithmetic, exact origin totals),
``authority`` (origins, duplicates, shadowing), ``frontiers`` (Stage A),
``scopes`` (Stage B), ``records`` (population), ``contributors`` (eligibility,
incremental per target), ``derivations`` (priority levels, cover search),
``recipes`` (Stage C), ``stages`` (orchestration, output), ``exact_sums`` (the
default float arithmetic), ``value_refresh`` (a run whose values alone changed).

Cost on NX-shaped results: near-linear in entities (a few hundred microseconds
per chain); no search is unbounded (see ``derivations`` for the budgets).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from perfline.core.collection import collection_paused
from perfline.core.projection.exact_sums import FloatSums
from perfline.core.projection.index import GraphIndex, build_graph_index
from perfline.core.projection.stages import project
from perfline.core.projection.value_refresh import ProjectionMemo
from perfline.core.projection.value_rows import BreakdownLayout

__all__ = [
    "BreakdownLayout",
    "FloatSums",
    "GraphIndex",
    "ProjectionMemo",
    "build_graph_index",
    "project_breakdowns",
]


def project_breakdowns(
    result: Mapping[str, Any],
    index: GraphIndex | None = None,
    *,
    float_sums: FloatSums = "exact",
    memo: ProjectionMemo | None = None,
) -> dict[str, Any]:
    """Project missing breakdowns across the entity graph of one result.

    ``index``, when given, is ``build_graph_index`` of the result's entities (a caller
    that keeps it between runs of an unchanged graph saves building it again).
    ``float_sums``: ``"exact"`` (deviation D6) or ``"reference"`` (see ``FloatSums``).
    ``memo``: the caller's ``ProjectionMemo`` of this result, kept between runs with
    ``index`` (a run whose values alone changed replays the last one's decisions;
    the output is the same with or without it).
    """
    output = dict(result)
    if not result.get("entities"):
        return output
    with collection_paused():
        kept, removed, projected = project(result, index, float_sums == "exact", memo)
    if not projected and not removed:
        return output
    output["breakdowns"] = [*kept, *projected]
    return output
