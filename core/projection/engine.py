"""Projection of one result: Stage A -> B -> C -> final resolution (§6.3-§6.6).

Orchestrates the pieces; returns, per projected target, the record whose
figures it receives. Targets are visited in sorted id order (integer order of
the index). Contributors are memoized per target for the stages that use the
initial population.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from perfline.core.kinds import declared_kind_pairs
from perfline.core.projection.authority import Authority, find_authority
from perfline.core.projection.contributors import Contributor, ContributorCache
from perfline.core.projection.derivations import resolve
from perfline.core.projection.figures import OriginSums
from perfline.core.projection.frontiers import resolve_frontiers
from perfline.core.projection.index import GraphIndex, build_index
from perfline.core.projection.recipes import peer_exposures, run_fixed_point, select_producers
from perfline.core.projection.records import Population, Record
from perfline.core.projection.scopes import (
    Scope,
    authoritative_units,
    blocked_unit_index,
    scope_of,
)


def project(
    result: Mapping[str, Any], index: GraphIndex | None = None
) -> tuple[Authority, GraphIndex, dict[int, Record]]:
    """Decide what each target receives (``index``: the result's entities, indexed)."""
    entities = result.get("entities") or []
    breakdowns = result.get("breakdowns") or []
    declared = declared_kind_pairs(result)
    if index is None:
        index = build_index(entities)
    authority = find_authority(breakdowns, index, declared)
    origins = authority.authoritative - authority.shadowed
    origin_figures = OriginSums({o: f for o, f in authority.figures.items() if o in origins})
    targets = [t for t in range(len(index.ids)) if t not in authority.authoritative]
    frontiers = resolve_frontiers(index, targets, origins, origin_figures.figures, declared)

    population = Population(index)
    for origin in sorted(origin_figures.figures):
        population.expose(
            Record(origin_figures.figures[origin], frozenset((origin,)), False), origin
        )
    for target in sorted(frontiers.sealed):
        population.expose(frontiers.sealed[target], target)

    auth_units = authoritative_units(index, origins)
    blocked_by_unit = blocked_unit_index(index, frontiers.blocked)
    scopes: dict[int, Scope] = {
        target: scope_of(index, target, auth_units, frontiers.blocked, blocked_by_unit)
        for target in targets
        if not frontiers.is_frontier(target)
    }

    cache = ContributorCache(index, population)

    def initial_contributors(target: int) -> list[Contributor]:
        return cache.get(target)[0]

    producers = select_producers(index, scopes, initial_contributors)
    peers = peer_exposures(scopes, initial_contributors, origin_figures)
    for record, member in peers:
        population.expose(record, member)
    memos = run_fixed_point(population, producers, scopes, origin_figures, cache)

    decided: dict[int, Record] = dict(frontiers.sealed)
    for target in sorted(scopes):
        scope = scopes[target]
        if scope.vetoed or not scope.required:
            continue
        found = cache.get(target)[0]
        cache.forget(target)
        memo = memos.pop(target, None)
        outcome = resolve(found, scope.required, scope.required_origins, origin_figures, memo)
        if isinstance(outcome, Record):
            decided[target] = outcome
    return authority, index, decided


def projected_breakdowns(index: GraphIndex, decided: Mapping[int, Record]) -> list[dict[str, Any]]:
    """Output breakdowns for the decided targets, sorted by target id (§6.7)."""
    out: list[dict[str, Any]] = []
    for target in sorted(decided):
        for group in decided[target].figures.groups:
            breakdown: dict[str, Any] = {
                "entity_id": index.ids[target],
                "metrics": [_copy_metric(metric) for metric in group.metrics],
            }
            if group.qualifiers:
                breakdown["qualifiers"] = _deep_copy(group.qualifiers)
            out.append(breakdown)
    return out


def _copy_metric(metric: Mapping[str, Any]) -> dict[str, Any]:
    """A fresh metric dict; only ``qualifiers`` can hold nested values."""
    copied = dict(metric)
    if "qualifiers" not in copied:
        return copied
    qualifiers = copied["qualifiers"]
    if qualifiers is not None:
        copied["qualifiers"] = _deep_copy(qualifiers)
    return copied


def _deep_copy(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {key: _deep_copy(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return [_deep_copy(item) for item in value]
    if kind in _SCALARS:
        return value
    if isinstance(value, Mapping):
        return {key: _deep_copy(item) for key, item in value.items()}
    return value


_SCALARS: Final = frozenset({str, int, float, bool, type(None)})
