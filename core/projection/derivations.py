"""Derivations of one target from its contributors: the six priority levels (§6.5).

Levels 3 and 5 are single copies (without / with uncontested extras), filtered
as the reference does (sealed first, else fewest origins, when nothing is
required; otherwise every copy that carries all required origins). Levels 4
and 6 are *covers*: sets of contributors with pairwise disjoint origins that
jointly cover the required units U and carry the required origins RO, with no
removable member, whose figures combine (§6.2). At a level only the covers
with the fewest extra units count; different figure sets there are a conflict.

The number of covers can be exponential (every tiling of a row by overlapping
views). When every value adds exactly (integers, small integral floats), the
figures of a cover depend only on which records it uses, so:

* **Closed form** first (``closed_covers``): when every cover must use every
  origin of the pool (disjoint or nested slots of whole chains, the shape of
  real results), one pass decides the record and its sealed variants.

* **Components**: contributors that share no origin and no required unit are
  independent; each component is covered on its own and the records of the
  whole are the products of the components' distinct outcomes (outcomes that
  differ only in the sealed flag are one class). Raw and sealed copies of one
  origin are one slot.
* **Origin atoms**: inside a component whose contributors are *faithful*
  (figures = exact total of their origins) and whose every origin is *forced*
  (some required unit is covered only by contributors holding it), every cover
  uses all the origins, so all covers have the same figures and extras; only
  whether a partition of the origins into >= 2 contributors exists (all sealed /
  not all sealed) is searched (``searches.partitions``; beyond its budget: the
  bounded search below).
* **Bounded search** otherwise (``searches.search_selections``: every minimal
  selection, each once, within a step budget); products stop at
  ``PRODUCT_BUDGET`` combinations, recipes at ``RECIPE_BUDGET`` per
  derivation. NX-shaped results stay far below these.

A target derived again (recipe passes, then its final resolution) may pass an
``OutcomeMemo``: components made of the very same contributor objects as last
time reuse their outcomes instead of being searched again.

When float values could round differently by order, the covers are searched
as the reference searches them and each is added up in the order that search
picks its members (``float_covers``), so rounding-only conflicts are the
reference's.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Final

from perfline.core.projection.closed_covers import ClosedCover, closed_cover
from perfline.core.projection.components import (
    Outcome,
    OutcomeMemo,
    component_outcomes,
    components_of,
)
from perfline.core.projection.contributors import Contributor
from perfline.core.projection.figure_arithmetic import OriginSums
from perfline.core.projection.figure_sets import FigureSet
from perfline.core.projection.float_covers import float_covers
from perfline.core.projection.records import Record
from perfline.core.projection.scopes import Goal

PRODUCT_BUDGET: Final = 10_000
RECIPE_BUDGET: Final = 256
"""At most this many recipes from one derivation of a producer (see ``all_derivations``)."""


class Derivation:  # a value: never mutated (see records.py)
    """A candidate record for a target, with the size of its extras."""

    __slots__ = ("extra_count", "record")

    def __init__(self, record: Record, extra_count: int) -> None:
        self.record = record
        self.extra_count = extra_count


class Conflict:
    """Marker: the best level holds different figure sets."""


CONFLICT: Final = Conflict()


def single_copies(
    contributors: Sequence[Contributor], required: frozenset[int], *, with_extras: bool
) -> list[Contributor]:
    """Every contributor (without / with extras) that covers ``required`` on its own."""
    return [c for c in contributors if bool(c.extras) == with_extras and c.covered >= required]


def filter_copies(copies: list[Contributor], required_origins: frozenset[int]) -> list[Contributor]:
    """Levels 3/5 selection among complete single copies."""
    if required_origins:
        return [c for c in copies if c.origins >= required_origins]
    sealed = [c for c in copies if c.sealed]
    if sealed:
        return sealed
    if not copies:
        return copies
    fewest = min(len(c.origins) for c in copies)
    return [c for c in copies if len(c.origins) == fewest]


def _copy(contributor: Contributor) -> Derivation:
    return Derivation(contributor.record(), len(contributor.extras))


def covers(
    contributors: Sequence[Contributor],
    goal: Goal,
    *,
    need_extra: bool,
    decide_only: bool = False,
    memo: OutcomeMemo | None = None,
    limit: int | None = None,
) -> list[Derivation]:
    """Every distinct arithmetic derivation (levels 4/6) over ``contributors``.

    ``need_extra``: only covers with extras (level 6), else only covers without (4).
    ``decide_only``: the caller only needs to know the figures or that they conflict.
    ``memo``: component outcomes of the same target's previous derivations.
    ``limit``: stop after this many derivations (in enumeration order); no limit by default.
    """
    required = goal.required
    required_origins = goal.required_origins
    pool: list[Contributor] = []
    exact = True
    for contributor in contributors:
        covered = contributor.covered
        # (a covered set inside U meets U: the common case, without a method call)
        if not ((covered and covered <= required) or not covered.isdisjoint(required)) and (
            not required_origins or contributor.origins.isdisjoint(required_origins)
        ):
            continue
        pool.append(contributor)
        exact = exact and contributor.figures.exact
    if len(pool) < 2:
        return []
    first_origins = pool[0].origins
    if all(c.origins == first_origins for c in pool):
        return []  # any two members would share origins
    if exact:
        closed = closed_cover(pool, goal)
        if closed is not None:
            return _closed_derivations(closed, goal.sums, need_extra=need_extra)
    if not _reachable(pool, required, required_origins):
        return []
    if not exact:
        return _search_covers(
            pool, goal, need_extra=need_extra, decide_only=decide_only, limit=limit
        )
    outcomes: list[list[Outcome]] = []
    for component in components_of(pool, required):
        if memo is None:
            found = component_outcomes(component, goal)
        else:
            found = memo.outcomes(component, goal)
        if not found:
            return []
        outcomes.append(found)
    return _products(
        outcomes, goal.sums, need_extra=need_extra, decide_only=decide_only, limit=limit
    )


def _reachable(
    pool: list[Contributor], required: frozenset[int], required_origins: frozenset[int]
) -> bool:
    """Do the pool's members together reach every required unit and origin?"""
    units: set[int] = set()
    origins: set[int] = set()
    for contributor in pool:
        units |= contributor.covered
        origins |= contributor.origins
    return required <= units and required_origins <= origins


def _closed_derivations(
    closed: ClosedCover, sums: OriginSums, *, need_extra: bool
) -> list[Derivation]:
    """The records of a pool whose covers all use every origin (sealed variant first)."""
    if (need_extra and not closed.extra_count) or not (closed.sealed or closed.unsealed):
        return []
    figures = sums.total_of_parts(closed.parts)
    if figures is None:
        return []
    derivations: list[Derivation] = []
    for sealed, possible in ((True, closed.sealed), (False, closed.unsealed)):
        if possible:
            record = Record(figures, closed.origins, sealed)
            derivations.append(Derivation(record, closed.extra_count))
    return derivations


def _products(
    outcomes: list[list[Outcome]],
    sums: OriginSums,
    *,
    need_extra: bool,
    decide_only: bool,
    limit: int | None,
) -> list[Derivation]:
    """Combine one outcome per component; each distinct record once.

    Outcomes that differ only in their sealed flag are one class; a product is
    sealed-capable iff each chosen class is, and unsealed-capable iff any is.
    Components with a single class are folded once (their exact total is
    computed once); only components with alternatives are multiplied, at most
    ``PRODUCT_BUDGET`` combinations. With ``decide_only`` (resolution without
    extras) the walk stops at the second distinct figure set: a conflict.
    """
    classes: list[list[tuple[Outcome, bool, bool]]] = []
    for options in outcomes:
        merged: dict[tuple[str, frozenset[int], frozenset[int], bool, bool], list[Outcome]] = {}
        for option in options:
            # with several components no product has a single member, so the
            # ``single`` flag cannot matter; faithfulness is kept conservatively
            key = (
                option.figures.key,
                option.origins,
                option.extras,
                option.single and len(outcomes) == 1,
                option.faithful,
            )
            merged.setdefault(key, []).append(option)
        classes.append(
            [
                (group[0], any(o.sealed for o in group), any(not o.sealed for o in group))
                for group in merged.values()
            ]
        )
    fixed = [group[0] for group in classes if len(group) == 1]
    varying = [group for group in classes if len(group) > 1]
    base = [outcome for outcome, _, _ in fixed]
    base_origins: frozenset[int] = frozenset().union(*(o.origins for o in base))
    base_extras: frozenset[int] = frozenset().union(*(o.extras for o in base))
    base_seal = all(sealed_ok for _, sealed_ok, _ in fixed)
    base_unseal = any(unsealed_ok for _, _, unsealed_ok in fixed)
    base_faithful = all(o.faithful for o in base)
    base_figures: FigureSet | None = None
    if len(base) == 1:
        base_figures = base[0].figures
    elif base:
        if base_faithful and sums.has_all(base_origins):
            base_figures = sums.total_of_parts([o.origins for o in base])
        else:
            base_figures = sums.combine([o.figures for o in base])
        if base_figures is None:
            return []
    results: dict[tuple[str, frozenset[int], bool], Derivation] = {}
    keys: set[str] = set()
    for count, choice in enumerate(itertools.product(*varying)):
        if count >= PRODUCT_BUDGET:
            break
        chosen = [option for option, _, _ in choice]
        if len(base) + len(chosen) == 1 and (base or chosen)[0].single:
            continue
        extras = base_extras.union(*(o.extras for o in chosen)) if chosen else base_extras
        if need_extra and not extras:
            continue
        if not chosen:
            figures = base_figures
        elif base_figures is None and len(chosen) == 1:
            figures = chosen[0].figures
        else:
            parts = [o.figures for o in chosen]
            figures = sums.combine(parts if base_figures is None else [base_figures, *parts])
        if figures is None:
            continue
        origins = base_origins.union(*(o.origins for o in chosen)) if chosen else base_origins
        faithful = base_faithful and all(o.faithful for o in chosen)
        can_seal = base_seal and all(sealed_ok for _, sealed_ok, _ in choice)
        can_unseal = base_unseal or any(unsealed_ok for _, _, unsealed_ok in choice)
        for sealed, possible in ((True, can_seal), (False, can_unseal)):
            if possible:
                record = Record(figures, origins, sealed, faithful)
                results.setdefault(record.identity, Derivation(record, len(extras)))
        keys.add(figures.key)
        if decide_only and not need_extra and len(keys) > 1:
            break
        if limit is not None and len(results) >= limit:
            break
    return list(results.values())[:limit]


def _search_covers(
    pool: list[Contributor],
    goal: Goal,
    *,
    need_extra: bool,
    decide_only: bool,
    limit: int | None,
) -> list[Derivation]:
    """Covers of >= 2 members when float values could round differently by order,
    each added up in the reference's order (``float_covers``); at most ``limit``.

    ``decide_only`` (covers without extras, all of one level): the search stops at
    the second distinct figure set, which already makes the level a conflict, as the
    reference stops there too; a level whose covers all agree is searched whole.
    """
    results: list[Derivation] = []
    first_key: str | None = None
    for record, extra_count in float_covers(pool, goal, need_extra=need_extra):
        results.append(Derivation(record, extra_count))
        if limit is not None and len(results) >= limit:
            break
        if decide_only and not need_extra:
            if first_key is None:
                first_key = record.figures.key
            elif record.figures.key != first_key:
                break
    return results


def resolve(
    contributors: Sequence[Contributor], goal: Goal, *, memo: OutcomeMemo | None = None
) -> Record | Conflict | None:
    """Levels 3-6 for one target: the winning record, a conflict, or nothing."""
    if memo is not None:
        memo.begin()
    required = goal.required
    required_origins = goal.required_origins
    extra_free = [c for c in contributors if not c.extras]
    level3 = filter_copies(single_copies(extra_free, required, with_extras=False), required_origins)
    if level3:
        return _decide([_copy(c) for c in level3])
    level4 = covers(extra_free, goal, need_extra=False, decide_only=True, memo=memo)
    if level4:
        return _decide(level4)
    level5 = filter_copies(
        single_copies(contributors, required, with_extras=True), required_origins
    )
    if level5:
        return _decide([_copy(c) for c in level5])
    level6 = (
        covers(contributors, goal, need_extra=True, memo=memo)
        if len(extra_free) < len(contributors)
        else []
    )
    if level6:
        return _decide(level6)
    return None


def _decide(derivations: list[Derivation]) -> Record | Conflict:
    fewest = min(d.extra_count for d in derivations)
    best = [d for d in derivations if d.extra_count == fewest]
    key = best[0].record.figures.key
    if any(d.record.figures.key != key for d in best[1:]):
        return CONFLICT
    return best[0].record


def all_derivations(
    contributors: Sequence[Contributor], goal: Goal, *, memo: OutcomeMemo | None = None
) -> list[Record]:
    """Every complete derivation at levels 3-6 carrying ``required_origins`` (recipes).

    Bounded: at most ``RECIPE_BUDGET`` records, the first in enumeration order
    (copies, then covers without extras, then covers with extras). A producer
    whose views overlap in many independent ways has exponentially many covers
    with extras (each component covered by its own records or by a wider one);
    the reference enumerates them all and does not finish, and exposing
    thousands of wide recipes makes every target over their units classify
    them. No document of the differential corpus comes near the budget (at most
    116 records per derivation over 2,000 documents).
    """
    if memo is not None:
        memo.begin()
    required = goal.required
    required_origins = goal.required_origins
    records: list[Record] = []
    for contributor in contributors:
        if contributor.covered >= required and contributor.origins >= required_origins:
            records.append(contributor.record())
    extra_free = [c for c in contributors if not c.extras]
    levels: list[tuple[Sequence[Contributor], bool]] = [(extra_free, False)]
    if len(extra_free) < len(contributors):
        levels.append((contributors, True))
    for pool, need_extra in levels:
        if len(records) >= RECIPE_BUDGET:
            break
        limit = RECIPE_BUDGET - len(records)
        for derivation in covers(pool, goal, need_extra=need_extra, memo=memo, limit=limit):
            records.append(derivation.record)
    if memo is not None:
        memo.end()
    return records[:RECIPE_BUDGET]
