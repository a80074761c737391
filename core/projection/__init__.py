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
``recipes`` (Stage C), ``engine`` (orchestration, output).

Cost on NX-shaped results: near-linear in entities (a few hundred microseconds
per chain); no search is unbounded (see ``derivations`` for the budgets).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from perfline.core.projection.engine import project, projected_breakdowns


def project_breakdowns(result: Mapping[str, Any]) -> dict[str, Any]:
    """Project missing breakdowns across the entity graph of one result."""
    output = dict(result)
    if not result.get("entities"):
        return output
    with _collection_paused():
        authority, index, decided = project(result)
    if not decided and not authority.duplicates_removed:
        return output
    output["breakdowns"] = [*authority.kept_breakdowns, *projected_breakdowns(index, decided)]
    return output


@contextmanager
def _collection_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while projecting.

    Projection allocates many small long-lived containers (leaf sets, records)
    and creates no reference cycles (the recursive searches in ``derivations``
    break their closures' self-reference), so nothing is left for the
    collector; generation-2 collections over them cost about a third of the run
    on large results. The previous state is restored.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
