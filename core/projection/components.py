"""Independent components of a cover pool, and the outcomes of covering each (§6.5).

Contributors that share no origin and no required unit are independent: each component
is covered on its own (``derivations`` multiplies the components' distinct outcomes into
records). An ``Outcome`` is one way a component can be covered, up to what matters for
its records. Inside a component: a single contributor is its own outcome; when every
origin is *forced* (``_atom_outcomes``, see ``derivations``' docstring) only whether a
partition exists is searched; otherwise every minimal selection is enumerated within a
budget (``searches.search_selections``). ``OutcomeMemo`` keeps a target's component
outcomes from one derivation to the next. Cost: see ``searches``; the memo, one
dictionary look-up per component.
"""

from __future__ import annotations

from perfline.core.mypyc_idioms import int_objects
from perfline.core.projection.contributors import Contributor
from perfline.core.projection.figure_arithmetic import OriginSums
from perfline.core.projection.figure_sets import FigureSet
from perfline.core.projection.scopes import Goal
from perfline.core.projection.searches import partitions, search_selections


class OutcomeMemo:
    """Component outcomes of one target, kept from one derivation to the next.

    A component's outcomes depend only on its members (contributors are
    immutable values, and the contributor cache hands back the same objects for
    what did not change), the target's U and RO, and the origin figures; so a
    component made of the very same objects reuses its outcomes. The members
    are kept referenced, so their identities cannot be reused. ``begin`` starts
    a derivation, ``end`` drops what it did not use. Use one memo per target only.
    """

    __slots__ = ("_current", "_previous")

    def __init__(self) -> None:
        self._current: dict[tuple[int, ...], tuple[list[Contributor], list[Outcome]]] = {}
        self._previous: dict[tuple[int, ...], tuple[list[Contributor], list[Outcome]]] = {}

    def begin(self) -> None:
        """Start a derivation (keep only what the previous one used)."""
        self._previous = self._current
        self._current = {}

    def end(self) -> None:
        """Finish a derivation (forget what it did not use)."""
        self._previous = {}

    def outcomes(self, component: list[Contributor], goal: Goal) -> list[Outcome]:
        """``component_outcomes`` of ``component``, reused when already known."""
        key = tuple(map(id, component))
        known = self._current.get(key) or self._previous.get(key)
        if known is None:
            known = (component, component_outcomes(component, goal))
        self._current[key] = known
        return known[1]


class Outcome:  # a value: never mutated (see records.py)
    """One way a component can be covered, up to what matters for its records."""

    __slots__ = ("extras", "faithful", "figures", "origins", "sealed", "single")

    def __init__(
        self,
        figures: FigureSet,
        origins: frozenset[int],
        extras: frozenset[int],
        sealed: bool,
        single: bool,
        faithful: bool = True,
    ) -> None:
        self.figures = figures
        self.origins = origins
        self.extras = extras
        self.sealed = sealed
        self.single = single
        """The outcome is one contributor (a copy, unless other components join it)."""
        self.faithful = faithful


def components_of(pool: list[Contributor], required: frozenset[int]) -> list[list[Contributor]]:
    """Contributors linked by a shared origin or a shared required unit (union-find).

    Components are listed by their first member, members in pool order.
    """
    if len(pool) == 1:
        return [pool]
    parent = list(range(len(pool)))
    unit_owner: dict[int, int] = {}
    origin_owner: dict[int, int] = {}
    for position, contributor in enumerate(pool):
        covered = contributor.covered
        for unit in int_objects(covered if covered <= required else covered & required):
            owner = unit_owner.get(unit)
            if owner is None:
                unit_owner[unit] = position
            else:
                _join(parent, owner, position)
        for origin in int_objects(contributor.origins):
            owner = origin_owner.get(origin)
            if owner is None:
                origin_owner[origin] = position
            else:
                _join(parent, owner, position)
    groups: dict[int, list[Contributor]] = {}
    for position, contributor in enumerate(pool):
        root = _root(parent, position)
        members = groups.get(root)
        if members is None:
            groups[root] = [contributor]
        else:
            members.append(contributor)
    return list(groups.values())


def _root(parent: list[int], node: int) -> int:
    """Union-find root of ``node`` (halving the path on the way)."""
    while parent[node] != node:
        parent[node] = parent[parent[node]]
        node = parent[node]
    return node


def _join(parent: list[int], first: int, second: int) -> None:
    """Merge the sets of ``first`` and ``second``."""
    first_root = _root(parent, first)
    second_root = _root(parent, second)
    if first_root != second_root:
        parent[first_root] = second_root


def component_outcomes(component: list[Contributor], goal: Goal) -> list[Outcome]:
    if len(component) == 1:
        (only,) = component
        return [Outcome(only.figures, only.origins, only.extras, only.sealed, True, only.faithful)]
    sums = goal.sums
    units: frozenset[int] = frozenset().union(*(c.covered for c in component)) & goal.required
    origins: frozenset[int] = frozenset().union(*(c.origins for c in component))
    needed = origins & goal.required_origins
    fast = _atom_outcomes(component, units, needed, origins, sums)
    if fast is not None:
        return fast
    # faithful contributors that differ only in their sealed flag are one slot
    representatives, flags = _sealed_slots(component)
    if len(representatives) == 1:
        (only,) = representatives
        return [
            Outcome(only.figures, only.origins, only.extras, sealed, True, only.faithful)
            for sealed in sorted(flags[id(only)], reverse=True)
        ]
    found: dict[tuple[str, frozenset[int], frozenset[int], bool, bool], Outcome] = {}
    for parts in search_selections(representatives, units, needed):
        union: frozenset[int] = frozenset().union(*(c.origins for c in parts))
        if len(parts) == 1:
            figures: FigureSet | None = parts[0].figures
        elif all(c.faithful for c in parts) and sums.has_all(union):
            figures = sums.total(union)
        else:
            figures = sums.combine([c.figures for c in parts])
        if figures is None:
            continue
        extras: frozenset[int] = frozenset().union(*(c.extras for c in parts))
        variants: set[bool] = set()
        if all(True in flags[id(c)] for c in parts):
            variants.add(True)
        if any(False in flags[id(c)] for c in parts):
            variants.add(False)
        for sealed in sorted(variants, reverse=True):
            faithful = all(c.faithful for c in parts)
            outcome = Outcome(figures, union, extras, sealed, len(parts) == 1, faithful)
            key = (figures.key, union, extras, sealed, outcome.single)
            found.setdefault(key, outcome)
    return list(found.values())


def _sealed_slots(
    members: list[Contributor],
) -> tuple[list[Contributor], dict[int, set[bool]]]:
    """Faithful members with equal origins, coverage and extras (they differ only in
    their sealed flag) become one representative; ``flags[id(rep)]`` holds the flags
    it stands for."""
    slots: dict[tuple[frozenset[int], frozenset[int], frozenset[int]], Contributor] = {}
    flags: dict[int, set[bool]] = {}
    representatives: list[Contributor] = []
    for contributor in members:
        if contributor.faithful:
            key = (contributor.origins, contributor.covered, contributor.extras)
            known = slots.get(key)
            if known is not None:
                flags[id(known)].add(contributor.sealed)
                continue
            slots[key] = contributor
        flags[id(contributor)] = {contributor.sealed}
        representatives.append(contributor)
    return representatives, flags


def _atom_outcomes(
    component: list[Contributor],
    units: frozenset[int],
    needed: frozenset[int],
    available: frozenset[int],
    sums: OriginSums,
) -> list[Outcome] | None:
    """Outcomes when every origin of the component is forced (see module docstring)."""
    if len(component) < 3 or not all(c.faithful for c in component):
        return None
    if not sums.has_all(available):
        return None
    holders: dict[int, frozenset[int]] = {}
    for contributor in component:
        covered = contributor.covered
        origins = contributor.origins
        for unit in covered if covered <= units else covered & units:
            known = holders.get(unit)
            if known is None:
                holders[unit] = origins
            elif not known <= origins:
                holders[unit] = known & origins
    forced: set[int] = set(needed)
    for held in holders.values():
        forced |= held
    if forced != available:
        return None
    flags = partitions(component, available)
    if flags is None:
        return None
    extras: frozenset[int] = frozenset().union(*(c.extras for c in component))
    outcomes: list[Outcome] = []
    if flags:
        figures = sums.total(available)
        if figures is None:
            return []
        outcomes = [Outcome(figures, available, extras, sealed, False) for sealed in flags]
    for contributor in component:
        if contributor.origins == available:
            outcomes.append(
                Outcome(contributor.figures, available, extras, contributor.sealed, True)
            )
    return outcomes
