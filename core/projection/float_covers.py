"""Covers of a pool whose float values can round differently by order (§6.5 levels 4/6).

When every value adds exactly, a cover's figures depend only on which records
it uses (``derivations`` then decides by closed forms and components). With
inexact floats, ``(a + b) + c`` and ``a + (b + c)`` can differ in the last bit,
and two covers of one target that differ only by rounding are a conflict. The
answer then depends on the order in which each cover is added up, so this
module adds them up in the reference's order, which is a property of its
search:

* the required units are taken in order of (how many pool members cover the
  unit, unit id), then the required origins missing from a complete coverage
  in order of (how many members hold the origin, origin id);
* a selection grows one member at a time: a member covering the first unit
  (or origin) not yet reached, whose origins are disjoint from the
  selection's; its figures are added to the running total (``running + member``);
* the same set of members reached in two different orders is two covers, each
  with its own running total (equal unless rounding differs);
* a complete selection from which one member could be removed is not a cover.

Integer ids of the index follow sorted id order, so sorting units and origins
by their integers is sorting by id. Cost: exponential in the worst case, like
the reference; at most ``SEARCH_BUDGET`` states are expanded, and what was
found by then is returned. Only pools with inexact float values come here.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from perfline.core.mypyc_idioms import int_objects
from perfline.core.projection.contributors import Contributor
from perfline.core.projection.figure_sets import FigureSet
from perfline.core.projection.records import Record
from perfline.core.projection.scopes import Goal
from perfline.core.projection.searches import SEARCH_BUDGET


class _State:
    """A selection under way. Sets are bit masks: units by their rank in the search
    order, origins likewise (required ones first), members by their (coverage,
    origins) class; ``chain`` is the selection as a linked list, newest first."""

    __slots__ = ("chain", "covered", "extras", "faithful", "figures", "origins", "sealed")

    def __init__(
        self,
        covered: int,
        origins: int,
        figures: FigureSet | None,
        extras: frozenset[int],
        sealed: bool,
        faithful: bool,
        chain: _Link | None,
    ) -> None:
        self.covered = covered
        self.origins = origins
        self.figures = figures
        self.extras = extras
        self.sealed = sealed
        self.faithful = faithful
        self.chain = chain


class _Link:
    __slots__ = ("coverage", "origins", "previous", "selected")

    def __init__(self, member: int, coverage: int, origins: int, previous: _Link | None) -> None:
        self.coverage = coverage
        self.origins = origins
        self.previous = previous
        self.selected: int = (0 if previous is None else previous.selected) | (1 << member)


class _Member:
    __slots__ = ("contributor", "coverage", "index", "origins")

    def __init__(self, index: int, coverage: int, origins: int, contributor: Contributor) -> None:
        self.index = index
        self.coverage = coverage
        self.origins = origins
        self.contributor = contributor


def float_covers(
    pool: Sequence[Contributor], goal: Goal, *, need_extra: bool
) -> Iterator[tuple[Record, int]]:
    """Every cover of ``required`` (carrying ``required_origins``) by >= 2 members of
    ``pool``, each once per distinct (figures, origins, sealed flag, extras), with or
    without extras as ``need_extra`` says, in the reference's search order: its record
    and how many extra units it has."""
    sums = goal.sums
    plan = _plan(pool, goal.required, goal.required_origins)
    if plan is None:
        return
    unit_options, origin_options, origin_ids = plan
    all_units = (1 << len(unit_options)) - 1
    all_required_origins = (1 << len(origin_options)) - 1
    start = _State(0, 0, None, frozenset(), True, True, None)
    states = [start]
    seen: set[tuple[int, int, str, frozenset[int], bool, int]] = set()
    yielded: set[tuple[str, int, bool, frozenset[int]]] = set()
    totals: dict[tuple[str, str], FigureSet | None] = {}
    steps = 0
    while states and steps < SEARCH_BUDGET:
        steps += 1
        state = states.pop()
        covered = state.covered
        if covered == all_units and state.origins & all_required_origins == all_required_origins:
            figures = state.figures
            chain = state.chain
            if (
                figures is None
                or chain is None
                or chain.previous is None  # single copies are levels 3 and 5
                or bool(state.extras) != need_extra
                or _redundant(chain, all_units, all_required_origins)
            ):
                continue
            cover_key = (figures.key, state.origins, state.sealed, state.extras)
            if cover_key not in yielded:
                yielded.add(cover_key)
                origins = frozenset(_bits(state.origins, origin_ids))
                yield Record(figures, origins, state.sealed, state.faithful), len(state.extras)
            continue
        if covered != all_units:
            options = unit_options[_lowest_clear_bit(covered)]
        else:
            options = origin_options[_lowest_clear_bit(state.origins & all_required_origins)]
        for member in options:
            if state.origins & member.origins:
                continue
            contributor = member.contributor
            if state.figures is None:
                figures = contributor.figures
            else:
                pair = (state.figures.key, contributor.figures.key)
                if pair not in totals:
                    totals[pair] = sums.combine([state.figures, contributor.figures])
                total = totals[pair]
                if total is None:
                    continue
                figures = total
            link = _Link(member.index, member.coverage, member.origins, state.chain)
            following = _State(
                covered | member.coverage,
                state.origins | member.origins,
                figures,
                state.extras | contributor.extras,
                state.sealed and contributor.sealed,
                state.faithful and contributor.faithful,
                link,
            )
            key = (
                following.covered,
                following.origins,
                figures.key,
                following.extras,
                following.sealed,
                link.selected,
            )
            if key in seen:
                continue
            seen.add(key)
            states.append(following)


def _plan(
    pool: Sequence[Contributor], required: frozenset[int], required_origins: frozenset[int]
) -> tuple[list[list[_Member]], list[list[_Member]], list[int]] | None:
    """The members reaching each required unit, then each required origin, in pool
    order, units and origins ranked by (number of members, id); and the origin ids
    by rank. ``None`` when some unit or required origin is reached by no member."""
    unit_count: dict[int, int] = dict.fromkeys(required, 0)
    origin_count: dict[int, int] = dict.fromkeys(required_origins, 0)
    for contributor in pool:
        for unit in int_objects(contributor.covered):
            if unit in unit_count:
                unit_count[unit] += 1
        for origin in int_objects(contributor.origins):
            if origin in origin_count:
                origin_count[origin] += 1
    if 0 in unit_count.values() or 0 in origin_count.values():
        return None
    by_units = sorted([(unit_count[unit], unit) for unit in required])
    unit_rank = {unit: rank for rank, (_, unit) in enumerate(by_units)}
    ranked = [origin for _, origin in sorted([(origin_count[o], o) for o in required_origins])]
    others = sorted({o for c in pool for o in c.origins} - required_origins)
    origin_ids = ranked + others
    origin_rank = {o: r for r, o in enumerate(origin_ids)}
    classes: dict[tuple[int, int], int] = {}
    unit_options: list[list[_Member]] = [[] for _ in unit_rank]
    origin_options: list[list[_Member]] = [[] for _ in ranked]
    for contributor in pool:
        coverage = 0
        for unit in int_objects(contributor.covered):
            rank = unit_rank.get(unit)
            if rank is not None:
                coverage |= 1 << rank
        origins = 0
        for origin in int_objects(contributor.origins):
            origins |= 1 << origin_rank[origin]
        index = classes.setdefault((coverage, origins), len(classes))
        member = _Member(index, coverage, origins, contributor)
        for rank in _bits(coverage, range(len(unit_rank))):
            unit_options[rank].append(member)
        for rank in _bits(origins & ((1 << len(ranked)) - 1), range(len(ranked))):
            origin_options[rank].append(member)
    return unit_options, origin_options, origin_ids


def _lowest_clear_bit(mask: int) -> int:
    return ((~mask) & (mask + 1)).bit_length() - 1


def _bits(mask: int, values: Sequence[int]) -> list[int]:
    """The ``values`` at the positions of ``mask``'s set bits, in position order."""
    found: list[int] = []
    while mask:
        low = mask & -mask
        position = low.bit_length() - 1
        found.append(values[position])
        mask ^= low
    return found


def _redundant(chain: _Link, all_units: int, all_required_origins: int) -> bool:
    """Could one member be left out with every required unit and origin still reached?"""
    members: list[_Link] = []
    link: _Link | None = chain
    while link is not None:
        members.append(link)
        link = link.previous
    after_units = [0] * (len(members) + 1)
    after_origins = [0] * (len(members) + 1)
    for position in range(len(members) - 1, -1, -1):
        after_units[position] = after_units[position + 1] | members[position].coverage
        after_origins[position] = after_origins[position + 1] | members[position].origins
    before_units = 0
    before_origins = 0
    for position, member in enumerate(members):
        units = before_units | after_units[position + 1]
        origins = before_origins | after_origins[position + 1]
        if units == all_units and origins & all_required_origins == all_required_origins:
            return True
        before_units |= member.coverage
        before_origins |= member.origins
    return False
