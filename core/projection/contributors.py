"""Eligible contributors of one target (§6.5, steps 1-5).

From the population entries touching the target's leaves: skip what only the
target itself exposes; split each record's units into *covered* (inside the
target) and *extras* (outside); skip it when an extra is contested (see
``GraphIndex.any_contested``); merge entries with equal figures, coverage,
extras and sealed flag (origins unioned, figures not added); finally hide a
contributor when a sealed one with the same coverage and extras has a strictly
larger origin set (a sealed frontier hides the raw records it was built from).

``ContributorCache`` keeps, per target, the entries already classified; when
the population grows it classifies only the entries added since (found from
the end of the append-only per-unit lists) and re-checks the few entries it
skipped because only the target itself exposed them. Cost per target: the new
entries touching it, plus a merge over its accepted entries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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


@dataclass(slots=True)
class _Seen:
    """What a target already knows about the population."""

    version: int
    size: int
    accepted: list[tuple[Entry, frozenset[int], frozenset[int]]] = field(default_factory=list)
    own: list[Entry] = field(default_factory=list)
    contributors: list[Contributor] = field(default_factory=list)


def _classify(
    target: int,
    index: GraphIndex,
    entries: list[Entry],
    seen: _Seen,
    cache: dict[frozenset[int], bool],
) -> None:
    leaves = index.leaves[target]
    for entry in entries:
        units = entry.units
        covered = units & leaves
        if not covered:
            continue
        extras = units - covered
        if extras:
            contested = cache.get(extras)
            if contested is None:
                contested = index.any_contested(target, extras)
                cache[extras] = contested
            if contested:
                continue
        if entry.exposers == {target}:
            seen.own.append(entry)
            continue
        seen.accepted.append((entry, covered, extras))


def _merge(accepted: list[tuple[Entry, frozenset[int], frozenset[int]]]) -> list[Contributor]:
    ordered = sorted(accepted, key=lambda item: item[0].serial)
    merged: dict[tuple[str, frozenset[int], frozenset[int], bool], list[Record]] = {}
    for entry, covered, extras in ordered:
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
        if len(group) < 2:
            continue
        sealed = [c for c in group if c.sealed]
        if not sealed:
            continue
        for contributor in group:
            if any(contributor.origins < other.origins for other in sealed):
                hidden.add(id(contributor))
    if not hidden:
        return contributors
    return [c for c in contributors if id(c) not in hidden]


def eligible_contributors(
    target: int, index: GraphIndex, population: Population
) -> list[Contributor]:
    """The contributors of ``target`` against ``population`` (no memory)."""
    seen = _Seen(population.version, len(population))
    _classify(target, index, population.touching(index.leaves[target]), seen, {})
    return _merge(seen.accepted)


class ContributorCache:
    """Contributors per target, brought up to date incrementally.

    ``get`` returns the contributors and whether they changed.
    """

    def __init__(self, index: GraphIndex, population: Population) -> None:
        self._index = index
        self._population = population
        self._known: dict[int, _Seen] = {}

    def forget(self, target: int) -> None:
        """Drop what is known about ``target`` (after its last use)."""
        self._known.pop(target, None)

    def get(self, target: int) -> tuple[list[Contributor], bool]:
        """The target's contributors against the current population."""
        population = self._population
        leaves = self._index.leaves[target]
        seen = self._known.get(target)
        if seen is None:
            seen = _Seen(population.version, len(population))
            _classify(target, self._index, population.touching(leaves), seen, {})
            seen.contributors = _merge(seen.accepted)
            self._known[target] = seen
            return seen.contributors, True
        if not population.changed_since(leaves, seen.version):
            return seen.contributors, False
        before = len(seen.accepted)
        fresh = population.added_since(leaves, seen.size)
        own = seen.own
        seen.own = []
        _classify(target, self._index, own + fresh, seen, {})
        seen.version = population.version
        seen.size = len(population)
        if len(seen.accepted) == before:
            return seen.contributors, False
        seen.contributors = _merge(seen.accepted)
        return seen.contributors, True
