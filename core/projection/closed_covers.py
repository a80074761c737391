"""Covers in closed form: pools whose every cover uses every origin (§6.5 levels 4/6).

Applies to a pool of *faithful* contributors (figures = exact total of their
origins) whose origins all have figures. Contributors with one origin set form
a *slot* (same coverage, extras and figures; they differ at most in the sealed
flag). When every cover must use all the pool's origins, every cover has the
same origins, figures and extras, and only two facts remain to decide: does a
partition of the origins into >= 2 slots exist whose slots can all be sealed,
and one with a slot that can be unsealed.

Two shapes are recognized, both common in real results, each in one pass:

* **disjoint slots**: slots with pairwise disjoint origins and pairwise
  disjoint required coverage (a module over whole chains): the only cover is
  all the slots;
* **nested slots**: slot origin sets form a laminar family (any two are
  disjoint or nested: chains inside block sums inside a segment sum) and every
  origin is *forced* (a required origin, or held by every contributor covering
  some required unit). A set is then partitioned either by itself or by its
  children in the family, so the two facts follow bottom-up over the family.

Slots that alone cover U and hold RO are left out first: they are copies, and
a cover of >= 2 members using one would have removable members. Anything
else returns ``None`` and the caller searches. Cost: O(total size of
the slots' origin and coverage sets).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from perfline.core.mypyc_idioms import int_objects
from perfline.core.projection.contributors import Contributor
from perfline.core.projection.scopes import Goal


class ClosedCover:  # a value: never mutated (see records.py)
    """What every cover of the pool shares, and which sealed flags are reachable."""

    __slots__ = ("extra_count", "origins", "parts", "sealed", "unsealed")

    def __init__(
        self,
        origins: frozenset[int],
        extra_count: int,
        sealed: bool,
        unsealed: bool,
        parts: tuple[frozenset[int], ...] = (),
    ) -> None:
        self.origins = origins
        self.extra_count = extra_count
        self.sealed = sealed
        """A partition into >= 2 slots that can all be sealed exists."""
        self.unsealed = unsealed
        """A partition with a slot that can be unsealed exists."""
        self.parts = parts
        """Disjoint origin sets whose union is ``origins`` (to add their totals)."""


NO_COVER: Final = ClosedCover(frozenset(), 0, False, False)
"""No cover of >= 2 members exists."""


class _Slot:
    """The contributors of a pool with one origin set (filled in while they are read)."""

    __slots__ = ("covered", "extras", "origins", "sealed", "unsealed")

    def __init__(
        self,
        origins: frozenset[int],
        covered: frozenset[int],
        extras: frozenset[int],
        sealed: bool = False,
        unsealed: bool = False,
    ) -> None:
        self.origins = origins
        self.covered = covered
        self.extras = extras
        self.sealed = sealed
        self.unsealed = unsealed


def closed_cover(pool: Sequence[Contributor], goal: Goal) -> ClosedCover | None:
    """The shared cover of ``pool``, or ``None`` when its shape is not recognized."""
    required = goal.required
    required_origins = goal.required_origins
    slots: dict[frozenset[int], _Slot] = {}
    for contributor in pool:
        if not contributor.faithful:
            return None
        slot = slots.get(contributor.origins)
        if slot is None:
            covered = contributor.covered
            if not covered <= required:
                covered = covered & required
            slot = slots[contributor.origins] = _Slot(
                contributor.origins, covered, contributor.extras
            )
        if contributor.sealed:
            slot.sealed = True
        else:
            slot.unsealed = True
    # a slot that alone covers U and holds RO is a copy: in a cover of >= 2 it
    # would make every other member removable, so no cover uses it
    ordered = [
        slot
        for slot in slots.values()
        if len(slot.covered) != len(required) or not slot.origins >= required_origins
    ]
    if len(ordered) < 2:
        return NO_COVER
    origins: set[int] = set()
    units: set[int] = set()
    extras: set[int] = set()
    origin_count = unit_count = 0
    for slot in ordered:
        origin_count += len(slot.origins)
        unit_count += len(slot.covered)
        origins |= slot.origins
        units |= slot.covered
        extras |= slot.extras
    if len(units) != len(required) or not required_origins <= origins:
        # without the copies the slots cannot cover U and RO, and no cover of
        # >= 2 members uses a copy
        return NO_COVER
    union = frozenset(origins)
    if not goal.sums.has_all(union):
        return None
    if len(origins) == origin_count and len(units) == unit_count:
        sealed = all(slot.sealed for slot in ordered)
        unsealed = any(slot.unsealed for slot in ordered)
        parts = tuple(slot.origins for slot in ordered)
        return ClosedCover(union, len(extras), sealed, unsealed, parts)
    nested = _nested_flags(ordered, union, required_origins)
    if nested is None:
        return None
    return ClosedCover(union, len(extras), *nested)


def _nested_flags(
    slots: list[_Slot], available: frozenset[int], required_origins: frozenset[int]
) -> tuple[bool, bool, tuple[frozenset[int], ...]] | None:
    """(sealed, unsealed) partitions into >= 2 slots of a laminar, all-forced pool,
    and the origin sets of the family's widest slots."""
    if not _all_forced(slots, available, required_origins):
        return None
    # laminar check and forest: widest first, each slot's parent is the owner
    # (smallest slot seen so far) shared by all its origins
    ordered = sorted(range(len(slots)), key=[-len(slot.origins) for slot in slots].__getitem__)
    owner: dict[int, int] = {}
    children: list[list[int]] = [[] for _ in slots]
    tops: list[int] = []
    for position in ordered:
        members = slots[position].origins
        parents = {owner.get(origin, -1) for origin in members}
        if len(parents) != 1:
            return None
        (parent,) = parents
        if parent == -1:
            tops.append(position)
        else:
            children[parent].append(position)
        for origin in members:
            owner[origin] = position
    sealed_ok = [False] * len(slots)
    unsealed_ok = [False] * len(slots)
    for position in reversed(ordered):  # narrowest first: children before parents
        slot = slots[position]
        kids = children[position]
        split = bool(kids) and sum(len(slots[k].origins) for k in kids) == len(slot.origins)
        sealed_ok[position] = slot.sealed or (split and all(sealed_ok[k] for k in kids))
        unsealed_ok[position] = slot.unsealed or (split and any(unsealed_ok[k] for k in kids))
    parts = tuple(slots[top].origins for top in tops)
    if len(tops) >= 2:
        return all(sealed_ok[t] for t in tops), any(unsealed_ok[t] for t in tops), parts
    (top,) = tops
    kids = children[top]
    if not kids or sum(len(slots[k].origins) for k in kids) != len(available):
        return False, False, parts
    return all(sealed_ok[k] for k in kids), any(unsealed_ok[k] for k in kids), parts


def _all_forced(
    slots: list[_Slot], available: frozenset[int], required_origins: frozenset[int]
) -> bool:
    """Is every origin required, or held by every slot covering some required unit?"""
    holders: dict[int, frozenset[int]] = {}
    for slot in slots:
        origins = slot.origins
        for unit in int_objects(slot.covered):
            known = holders.get(unit)
            if known is None:
                holders[unit] = origins
            elif not known <= origins:
                holders[unit] = known & origins
    forced: set[int] = set(required_origins & available)
    for held in holders.values():
        forced |= held
        if len(forced) == len(available):
            return True
    return len(forced) == len(available)
