"""Stage A: declared authoritative frontiers (§6.3).

A target's frontier is its direct parents that are usable-or-not authoritative,
unshadowed origins across a kind pair the result declares. A target with a
frontier is decided here and only here: every frontier parent must have a usable
record whose extras (its leaves outside the target) are uncontested; one parent
is copied, several are added in sorted id order. Success gives a *sealed* record
whose origins are the frontier; failure *blocks* the target, which then never
receives figures and imposes its frontier on wider views (Stage B).
Cost: O(parents) per target plus the parents' leaf sets.
"""

from __future__ import annotations

from perfline.core.projection.figure_arithmetic import OriginSums
from perfline.core.projection.figure_sets import FigureSet
from perfline.core.projection.index import GraphIndex
from perfline.core.projection.records import Record


class Frontiers:  # a value: never mutated (see records.py)
    """Outcome of Stage A."""

    __slots__ = ("blocked", "sealed")

    def __init__(self, sealed: dict[int, Record], blocked: dict[int, frozenset[int]]) -> None:
        self.sealed = sealed
        """Frontier target -> its sealed record."""
        self.blocked = blocked
        """Blocked frontier target -> its frontier (the origins it would need)."""

    def is_frontier(self, target: int) -> bool:
        """Was ``target`` decided by its declared frontier?"""
        return target in self.sealed or target in self.blocked


def resolve_frontiers(
    index: GraphIndex,
    targets: list[int],
    origins: frozenset[int],
    sums: OriginSums,
    declared: frozenset[tuple[str, str]],
) -> Frontiers:
    """Decide every frontier target (``origins`` = authoritative minus shadowed)."""
    sealed: dict[int, Record] = {}
    blocked: dict[int, frozenset[int]] = {}
    kinds = index.kinds
    for target in targets:
        frontier = [
            parent
            for parent in index.parents[target]
            if parent in origins and (kinds[parent], kinds[target]) in declared
        ]
        if not frontier:
            continue
        frontier_set = frozenset(frontier)
        record = _frontier_record(index, target, frontier, sums)
        if record is None:
            blocked[target] = frontier_set
        else:
            sealed[target] = Record(record, frontier_set, True, True)
    return Frontiers(sealed, blocked)


def _frontier_record(
    index: GraphIndex, target: int, frontier: list[int], sums: OriginSums
) -> FigureSet | None:
    inside = index.leaves[target]
    figures = sums.figures
    parts: list[FigureSet] = []
    for parent in frontier:
        figure_set = figures.get(parent)
        if figure_set is None:
            return None
        extras = index.leaves[parent] - inside
        if extras and index.any_contested(target, extras):
            return None
        parts.append(figure_set)
    if len(parts) == 1:
        return parts[0]
    return sums.combine(parts)
