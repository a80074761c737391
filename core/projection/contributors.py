"""Eligible contributors of one target (§6.5, steps 1-5).

From the population entries touching the target's leaves: skip what only the
target itself exposes; split each record's units into *covered* (inside the
target) and *extras* (outside); skip it when an extra is contested (see
``GraphIndex.any_contested``); merge entries with equal figures, coverage,
extras and sealed flag (origins unioned, figures not added); finally hide a
contributor when a sealed one with the same coverage and extras has a strictly
larger origin set (a sealed frontier hides the raw records it was built from).

Cost: O(sum of units of the touching entries) plus a grouping pass; the hiding
step compares only contributors that share (covered, extras).
"""

from __future__ import annotations

from dataclasses import dataclass

from perfline.core.projection.figures import Figures
from perfline.core.projection.index import GraphIndex
from perfline.core.projection.records import Entry, Population, Record


@dataclass(frozen=True, slots=True)
class Contributor:
    """A record as seen from one target."""

    figures: Figures
    origins: frozenset[int]
    sealed: bool
    faithful: bool
    covered: frozenset[int]
    extras: frozenset[int]

    def record(self) -> Record:
        """The record this contributor stands for."""
        return Record(self.figures, self.origins, self.sealed, self.faithful)


def eligible_contributors(
    target: int,
    index: GraphIndex,
    population: Population,
    entries: list[Entry] | None = None,
) -> list[Contributor]:
    """The contributors of ``target`` against ``population`` (or the given entries)."""
    leaves = index.leaves[target]
    touching = population.touching(leaves) if entries is None else entries
    merged: dict[tuple[str, frozenset[int], frozenset[int], bool], list[Record]] = {}
    extras_cache: dict[frozenset[int], bool] = {}
    for entry in touching:
        if entry.exposers == {target}:
            continue
        units = entry.units
        covered = units & leaves
        if not covered:
            continue
        extras = units - covered
        if extras:
            contested = extras_cache.get(extras)
            if contested is None:
                contested = index.any_contested(target, extras)
                extras_cache[extras] = contested
            if contested:
                continue
        record = entry.record
        merged.setdefault((record.figures.key, covered, extras, record.sealed), []).append(record)
    contributors: list[Contributor] = []
    for (_, covered, extras, sealed), records in merged.items():
        first = records[0]
        if len(records) == 1:
            origins = first.origins
            faithful = first.faithful
        else:
            origins = frozenset().union(*(r.origins for r in records))
            faithful = False
        contributors.append(Contributor(first.figures, origins, sealed, faithful, covered, extras))
    return _hide_sealed_sources(contributors)


def _hide_sealed_sources(contributors: list[Contributor]) -> list[Contributor]:
    by_scope: dict[tuple[frozenset[int], frozenset[int]], list[Contributor]] = {}
    for contributor in contributors:
        by_scope.setdefault((contributor.covered, contributor.extras), []).append(contributor)
    hidden: set[int] = set()
    for group in by_scope.values():
        sealed = [c for c in group if c.sealed]
        if not sealed or len(group) < 2:
            continue
        for contributor in group:
            if any(contributor.origins < other.origins for other in sealed):
                hidden.add(id(contributor))
    if not hidden:
        return contributors
    return [c for c in contributors if id(c) not in hidden]


class ContributorCache:
    """Contributors per target, recomputed only when an entry touching the
    target's leaves appeared or changed since the last computation.

    ``get`` returns the contributors and whether they were recomputed.
    """

    def __init__(self, index: GraphIndex, population: Population) -> None:
        self._index = index
        self._population = population
        self._known: dict[int, tuple[int, list[Contributor]]] = {}

    def get(self, target: int) -> tuple[list[Contributor], bool]:
        """The target's contributors against the current population."""
        population = self._population
        known = self._known.get(target)
        if known is not None and not population.changed_since(self._index.leaves[target], known[0]):
            return known[1], False
        found = eligible_contributors(target, self._index, population)
        self._known[target] = (population.version, found)
        return found, True
