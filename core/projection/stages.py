"""Projection of one result: Stage A -> B -> C -> final resolution (§6.3-§6.6).

Orchestrates the pieces; returns, per projected target, the record whose
figures it receives, and writes the output breakdowns of those records (§6.7).
Targets are visited in sorted id order (integer order of the index).
Contributors are memoized per target for the stages that use the initial
population. Cost: see the pieces; this module adds one pass over the targets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from perfline.core.kinds import declared_kind_pairs
from perfline.core.projection.authority import Authority, find_authority
from perfline.core.projection.contributors import ContributorCache
from perfline.core.projection.derivations import resolve
from perfline.core.projection.figure_arithmetic import OriginSums
from perfline.core.projection.figure_ledger import FigureSetLedger
from perfline.core.projection.frontiers import resolve_frontiers
from perfline.core.projection.index import GraphIndex, build_graph_index
from perfline.core.projection.recipes import peer_exposures, run_fixed_point, select_producers
from perfline.core.projection.records import Population, Record
from perfline.core.projection.scopes import (
    Scope,
    authoritative_units,
    blocked_unit_index,
    scope_of,
)
from perfline.core.projection.value_refresh import ProjectionMemo, usable_figures


def project(
    result: Mapping[str, Any],
    index: GraphIndex | None = None,
    exact_sums: bool = True,
    memo: ProjectionMemo | None = None,
) -> tuple[tuple[Any, ...], bool, list[dict[str, Any]]]:
    """The kept authoritative breakdowns (exact duplicates removed), whether any was
    removed, and the projected breakdowns (``index``: the result's entities, indexed;
    ``exact_sums``: add floats exactly, deviation D6, else as the reference does;
    ``memo``: the last run on this graph, replayed when only values changed)."""
    entities = result.get("entities") or []
    breakdowns = result.get("breakdowns") or []
    declared = declared_kind_pairs(result)
    if index is None:
        index = build_graph_index(entities)
    if memo is not None:
        rows = memo.replay_rows(index, declared, exact_sums, breakdowns)
        if rows is not None:
            return tuple(breakdowns), False, rows
    authority = find_authority(breakdowns, index, declared, exact_sums)
    if memo is None:
        decided = _decide(index, authority, declared, exact_sums, None)
    else:
        replayed = memo.replay(index, declared, exact_sums, authority)
        if replayed is None:
            ledger = FigureSetLedger()
            decided = _decide(index, authority, declared, exact_sums, ledger)
            memo.keep(index, declared, exact_sums, authority, ledger, decided, breakdowns)
        else:
            decided = replayed
    projected = projected_breakdowns(index, decided)
    return authority.kept_breakdowns, authority.duplicates_removed, projected


def _decide(
    index: GraphIndex,
    authority: Authority,
    declared: frozenset[tuple[str, str]],
    exact_sums: bool,
    ledger: FigureSetLedger | None,
) -> dict[int, Record]:
    """Stages A, B, C and the final resolution (``ledger``: records the figure sets)."""
    origins = authority.authoritative - authority.shadowed
    sums = OriginSums(usable_figures(authority), exact_sums, ledger)
    targets = [t for t in range(len(index.ids)) if t not in authority.authoritative]
    frontiers = resolve_frontiers(index, targets, origins, sums, declared)

    population = Population(index)
    for origin in sorted(sums.figures):
        population.expose(Record(sums.figures[origin], frozenset((origin,)), False), origin)
    for target in sorted(frontiers.sealed):
        population.expose(frontiers.sealed[target], target)

    auth_units = authoritative_units(index, origins)
    blocked_by_unit = blocked_unit_index(index, frontiers.blocked)
    scopes: dict[int, Scope] = {
        target: scope_of(index, target, auth_units, frontiers.blocked, blocked_by_unit)
        for target in targets
        if not frontiers.is_frontier(target)
    }

    cache = ContributorCache(index, population, sums)
    producers = select_producers(index, scopes, cache)
    for record, member in peer_exposures(scopes, cache, sums):
        population.expose(record, member)
    memos = run_fixed_point(population, producers, scopes, sums, cache)

    decided: dict[int, Record] = dict(frontiers.sealed)
    for target in sorted(scopes):
        scope = scopes[target]
        if scope.vetoed or not scope.required:
            continue
        found = cache.get(target)[0]
        cache.forget(target)
        memo = memos.pop(target, None)
        outcome = resolve(found, scope.goal(sums), memo=memo)
        if isinstance(outcome, Record):
            decided[target] = outcome
    return decided


def projected_breakdowns(index: GraphIndex, decided: Mapping[int, Record]) -> list[dict[str, Any]]:
    """Output breakdowns for the decided targets, sorted by target id (§6.7).

    A breakdown's metrics are its figure set's own metric objects: the views of an
    origin's breakdown (for a copy; canonical, the input's own objects when they are
    already in canonical form) or the sums a combination made. Targets that receive
    one figure set share them: the output is a value nobody mutates (invariant 3), as
    the authoritative breakdowns it passes through are the input's own objects; a copy
    per target would add a dict per metric."""
    out: list[dict[str, Any]] = []
    for target in sorted(decided):
        for group in decided[target].figures.groups:
            breakdown: dict[str, Any] = {
                "entity_id": index.ids[target],
                "metrics": list(group.metrics),
            }
            if group.qualifiers:
                breakdown["qualifiers"] = group.qualifiers
            out.append(breakdown)
    return out
