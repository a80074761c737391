"""Stage B: required units, blocked scopes and required origins (§6.1, §6.4).

For a dynamic target t: its required units U(t) are its leaves that lie under
some unshadowed authoritative entity. Every blocked frontier target b that
overlaps t either vetoes t (b reaches outside t, or b has exactly t's leaves
and several frontier parents) or makes t account for all of b's frontier
origins (the required origins RO(t)). Cost: O(|leaves(t)|) per target plus the
blocked targets found through a unit index.
"""

from __future__ import annotations

from collections.abc import Mapping

from perfline.core.projection.figure_arithmetic import OriginSums
from perfline.core.projection.index import NO_NODES, GraphIndex


class Scope:  # a value: never mutated (see records.py)
    """What a dynamic target must account for."""

    __slots__ = ("required", "required_origins", "vetoed")

    def __init__(
        self, required: frozenset[int], required_origins: frozenset[int], vetoed: bool
    ) -> None:
        self.required = required
        """U(t): the target's leaves under an unshadowed authoritative entity."""
        self.required_origins = required_origins
        """RO(t): the frontier origins of the blocked targets inside it."""
        self.vetoed = vetoed
        """A blocked target reaches outside it (or has its leaves and several origins)."""

    def goal(self, sums: OriginSums) -> Goal:
        """What a derivation of this target must achieve, adding up with ``sums``."""
        return Goal(self.required, self.required_origins, sums)


class Goal:  # a value: never mutated (see records.py)
    """What a derivation of one target must achieve: cover the ``required`` units
    and carry the ``required_origins`` (its U and RO), adding figure sets with
    ``sums`` (the run's arithmetic)."""

    __slots__ = ("required", "required_origins", "sums")

    def __init__(
        self, required: frozenset[int], required_origins: frozenset[int], sums: OriginSums
    ) -> None:
        self.required = required
        self.required_origins = required_origins
        self.sums = sums


def authoritative_units(index: GraphIndex, origins: frozenset[int]) -> frozenset[int]:
    """Union of the leaves of the unshadowed authoritative entities."""
    gathered: set[int] = set()
    for origin in origins:
        gathered |= index.leaves[origin]
    return frozenset(gathered)


def scope_of(
    index: GraphIndex,
    target: int,
    auth_units: frozenset[int],
    blocked: Mapping[int, frozenset[int]],
    blocked_by_unit: Mapping[int, tuple[int, ...]],
) -> Scope:
    """The required units, required origins and veto of one dynamic target."""
    leaves = index.leaves[target]
    # usually every leaf is required: the target's own leaf set is then shared
    required = leaves if leaves <= auth_units else leaves & auth_units
    required_origins: set[int] = set()
    vetoed = False
    if blocked:
        seen: set[int] = set()
        for unit in leaves:
            for frontier_target in blocked_by_unit.get(unit, ()):
                if frontier_target in seen:
                    continue
                seen.add(frontier_target)
                scope = index.leaves[frontier_target]
                frontier = blocked[frontier_target]
                if not scope <= leaves or (scope == leaves and len(frontier) > 1):
                    vetoed = True
                    break
                required_origins |= frontier
            if vetoed:
                break
    return Scope(required, frozenset(required_origins) if required_origins else NO_NODES, vetoed)


def blocked_unit_index(
    index: GraphIndex, blocked: Mapping[int, frozenset[int]]
) -> dict[int, tuple[int, ...]]:
    """unit -> blocked frontier targets whose leaves contain it."""
    by_unit: dict[int, list[int]] = {}
    for frontier_target in sorted(blocked):
        for unit in index.leaves[frontier_target]:
            by_unit.setdefault(unit, []).append(frontier_target)
    return {unit: tuple(found) for unit, found in by_unit.items()}
