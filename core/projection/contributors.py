"""Eligible contributors of one target (§6.5, steps 1-5).

From the population entries touching the target's leaves: skip what only the
target itself exposes; split each record's units into *covered* (inside the
target) and *extras* (outside); skip it when an extra is contested (see
``GraphIndex.any_contested_outside``); merge entries with equal figures, coverage,
extras and sealed flag (origins unioned, figures not added); finally hide a
contributor when a sealed one with the same coverage and extras has a strictly
larger origin set (a sealed frontier hides the raw records it was built from).

``ContributorCache`` keeps, per target, the entries already classified; when
the population grows it classifies only the entries added since (found from
the end of the append-only per-unit lists) and re-checks the few entries it
skipped because only the target itself exposed them. The merge is kept too:
new entries (higher serials) join their merge group or open a new one at the
end, and only the contributors of groups that gained an entry are rebuilt; an
entry older than the merged ones (one only the target exposed before) forces a
full re-merge. Cost per target: the new entries touching it, plus one pass over
its contributors (sealed-source hiding).
"""

from __future__ import annotations

from perfline.core.projection.figure_arithmetic import OriginSums
from perfline.core.projection.figure_sets import FigureSet
from perfline.core.projection.index import NO_NODES, GraphIndex
from perfline.core.projection.records import Entry, Population, Record


class Contributor:  # a value: never mutated (see records.py)
    """A record as seen from one target."""

    __slots__ = ("covered", "extras", "faithful", "figures", "origins", "sealed")

    def __init__(
        self,
        figures: FigureSet,
        origins: frozenset[int],
        sealed: bool,
        faithful: bool,
        covered: frozenset[int],
        extras: frozenset[int],
    ) -> None:
        self.figures = figures
        self.origins = origins
        self.sealed = sealed
        self.faithful = faithful
        self.covered = covered
        """The record's units inside the target."""
        self.extras = extras
        """The record's units outside the target (none of them contested)."""

    def record(self) -> Record:
        """The record this contributor stands for."""
        return Record(self.figures, self.origins, self.sealed, self.faithful)


def same_contributors(first: list[Contributor], second: list[Contributor]) -> bool:
    """Do two contributor lists hold the same records alike (figures compared by key)?

    Targets with equal U, RO and the same contributors derive the same records.
    """
    if len(first) != len(second):
        return False
    for a, b in zip(first, second, strict=True):
        if a is b:
            continue
        if (
            a.figures.key != b.figures.key
            or a.origins != b.origins
            or a.sealed != b.sealed
            or a.faithful != b.faithful
            or a.covered != b.covered
            or a.extras != b.extras
        ):
            return False
    return True


class _Seen:
    """What a target already knows about the population."""

    __slots__ = ("contributors", "merged", "own", "size", "version")

    def __init__(
        self,
        version: int,
        size: int,
        own: list[Entry] | None = None,
        contributors: list[Contributor] | None = None,
        merged: _Merged | None = None,
    ) -> None:
        self.version = version
        """The population version last seen."""
        self.size = size
        """The population size last seen (entries with a higher serial are new)."""
        self.own: list[Entry] = list() if own is None else own
        """Entries only the target exposed (skipped, re-checked when they gain exposers)."""
        self.contributors: list[Contributor] = list() if contributors is None else contributors
        self.merged = merged


def _classify(
    target: int,
    index: GraphIndex,
    entries: list[Entry],
    seen: _Seen,
) -> list[tuple[Entry, frozenset[int], frozenset[int]]]:
    """The entries ``target`` accepts (what only it exposes goes to ``seen.own``)."""
    accepted: list[tuple[Entry, frozenset[int], frozenset[int]]] = []
    leaves = index.leaves[target]
    for entry in entries:
        units = entry.units
        if units <= leaves:
            # the common case: the record lies inside the target (keeps the
            # units' frozenset, whose hash is already known, as the coverage)
            covered = units
            extras = NO_NODES
        else:
            # walks the units in order and stops at the first contested extra:
            # a wide record (one over many views) is usually rejected at once
            if index.any_contested_outside(target, entry.unit_order):
                continue
            covered = units & leaves
            if not covered:
                continue
            extras = units - covered
        if entry.sole == target:
            seen.own.append(entry)
            continue
        accepted.append((entry, covered, extras))
    return accepted


_MergeKey = tuple[str, frozenset[int], frozenset[int], bool]


class _Group:
    """Accepted entries with one merge key, and their contributor once built.

    Most groups hold one entry: it is kept in ``first`` and a list is made only
    for a second one (a list per group would cost memory for every group)."""

    __slots__ = ("contributor", "first", "more")

    def __init__(self, first: Entry) -> None:
        self.first = first
        self.more: list[Entry] | None = None
        """The entries after ``first``, in serial order (``None`` while there are none)."""
        self.contributor: Contributor | None = None

    def add(self, entry: Entry) -> None:
        """Add a later entry; the contributor is rebuilt when next asked for."""
        if self.more is None:
            self.more = [entry]
        else:
            self.more.append(entry)
        self.contributor = None

    def entries(self) -> list[Entry]:
        """Every entry, in serial order."""
        if self.more is None:
            return [self.first]
        return [self.first, *self.more]


class _Merged:
    """Accepted entries grouped by merge key, in order of each key's first serial."""

    __slots__ = ("groups", "last_serial")

    def __init__(
        self, groups: dict[_MergeKey, _Group] | None = None, last_serial: int = -1
    ) -> None:
        self.groups: dict[_MergeKey, _Group] = dict() if groups is None else groups
        self.last_serial = last_serial

    def add(self, items: list[tuple[Entry, frozenset[int], frozenset[int]]]) -> None:
        """Add accepted items whose serials all exceed ``last_serial``.

        ``_classify`` hands them over in serial order already (population order);
        only a full re-merge needs sorting.
        """
        groups = self.groups
        for entry, covered, extras in items:
            record = entry.record
            key = (record.figures.key, covered, extras, record.sealed)
            group = groups.get(key)
            if group is None:
                groups[key] = _Group(entry)
            else:
                group.add(entry)
            self.last_serial = entry.serial

    def items(self) -> list[tuple[Entry, frozenset[int], frozenset[int]]]:
        """Every accepted item (for a full re-merge)."""
        return [
            (entry, key[1], key[2])
            for key, group in self.groups.items()
            for entry in group.entries()
        ]

    def contributors(self, sums: OriginSums) -> list[Contributor]:
        """One contributor per key (origins unioned), sealed sources hidden."""
        contributors: list[Contributor] = []
        for key, group in self.groups.items():
            contributor = group.contributor
            if contributor is None:
                _, covered, extras, sealed = key
                first = group.first.record
                if group.more is None:
                    origins = first.origins
                    faithful = first.faithful
                    figures = first.figures
                else:
                    origins = frozenset().union(*(e.record.origins for e in group.entries()))
                    faithful = False
                    # records with equal figures stand for one copy of their printed figures
                    figures = sums.rounded(first.figures)
                contributor = Contributor(figures, origins, sealed, faithful, covered, extras)
                group.contributor = contributor
            contributors.append(contributor)
        return _hide_sealed_sources(contributors)


def _hide_sealed_sources(contributors: list[Contributor]) -> list[Contributor]:
    """``contributors`` without those a sealed one with the same coverage and extras
    and a strictly larger origin set stands for (found by coverage, whose hash the
    frozenset keeps, then compared on extras)."""
    sealed_by_coverage: dict[frozenset[int], list[Contributor]] = {}
    for contributor in contributors:
        if contributor.sealed:
            same = sealed_by_coverage.get(contributor.covered)
            if same is None:
                sealed_by_coverage[contributor.covered] = [contributor]
            else:
                same.append(contributor)
    if not sealed_by_coverage:
        return contributors
    kept: list[Contributor] = []
    hidden = False
    for contributor in contributors:
        wider = sealed_by_coverage.get(contributor.covered)
        if wider is not None and _stands_for(wider, contributor):
            hidden = True
            continue
        kept.append(contributor)
    return kept if hidden else contributors


def _stands_for(sealed: list[Contributor], contributor: Contributor) -> bool:
    """Does one of ``sealed`` (same coverage) have ``contributor``'s extras and a
    strictly larger origin set?"""
    for other in sealed:
        if other.extras == contributor.extras and contributor.origins < other.origins:
            return True
    return False


def _serial_of(item: tuple[Entry, frozenset[int], frozenset[int]]) -> int:
    return item[0].serial


class ContributorCache:
    """Contributors per target, brought up to date incrementally.

    ``get`` returns the contributors and whether they changed.
    """

    def __init__(self, index: GraphIndex, population: Population, sums: OriginSums) -> None:
        self._index = index
        self._population = population
        self._sums = sums
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
            first = _Merged()
            first.add(_classify(target, self._index, population.touching(leaves), seen))
            seen.merged = first
            seen.contributors = first.contributors(self._sums)
            self._known[target] = seen
            return seen.contributors, True
        if not population.changed_since(target, leaves, seen.version):
            return seen.contributors, False
        fresh = population.added_since(leaves, seen.size)
        own = seen.own
        seen.own = []
        added = _classify(target, self._index, own + fresh, seen)
        seen.version = population.version
        seen.size = len(population)
        if not added:
            return seen.contributors, False
        merged = seen.merged
        assert merged is not None
        if min(item[0].serial for item in added) <= merged.last_serial:
            # an entry older than the merged ones (one only the target exposed before)
            rebuilt = _Merged()
            rebuilt.add(sorted(merged.items() + added, key=_serial_of))
            seen.merged = merged = rebuilt
        else:
            merged.add(added)
        seen.contributors = merged.contributors(self._sums)
        return seen.contributors, True
