"""Stage C: recipe producers, peer exposure and the recipe fixed point (§6.6).

*Producers* are dynamic targets whose derivations another view could copy
instead of re-adding raw origins: t is one iff some other dynamic c with a
different U meets reach(t) (the units of t's contributors, when they cover
U(t)) and sees no contested unit among U(t) - leaves(c). A strict dynamic
ancestor of t with a different U qualifies at once; otherwise the candidates
are the ancestors of reach(t), walked upwards once with early exit.

*Peers* (dynamic targets with identical U) whose contributors are partly sealed
expose what they resolve from their sealed contributors alone.

The *fixed point* lets every producer expose all its complete derivations,
pass after pass on a snapshot of the population, until a pass adds nothing
(at most max(1, #producers) passes). A producer is re-derived only when an
entry touching its leaves was added or changed since its last derivation, so
a pass costs in proportion to what changed; inside a re-derivation, cover
components made of unchanged contributors reuse their outcomes (``OutcomeMemo``),
and the memo serves the producer's final resolution too. Producers with the
same U and RO that see equal contributors (a code line and its stack) share
one derivation. Cost per derivation: see ``derivations``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from perfline.core.mypyc_idioms import int_objects
from perfline.core.projection.components import OutcomeMemo
from perfline.core.projection.contributors import (
    Contributor,
    ContributorCache,
    same_contributors,
)
from perfline.core.projection.derivations import all_derivations, resolve
from perfline.core.projection.figure_arithmetic import OriginSums
from perfline.core.projection.index import GraphIndex
from perfline.core.projection.records import Population, Record
from perfline.core.projection.scopes import Scope


def select_producers(
    index: GraphIndex, scopes: Mapping[int, Scope], cache: ContributorCache
) -> list[int]:
    """Dynamic targets that may expose recipes (sorted)."""
    producers: list[int] = []
    for target in sorted(scopes):
        scope = scopes[target]
        if not scope.required:
            continue
        found = cache.get(target)[0]
        covered: set[int] = set()
        for contributor in found:
            covered |= contributor.covered
        if not scope.required <= covered:
            continue
        reach: set[int] = set(covered)
        for contributor in found:
            reach |= contributor.extras
        if _has_consumer(index, target, scope, frozenset(reach), scopes):
            producers.append(target)
    return producers


def _has_consumer(
    index: GraphIndex,
    target: int,
    scope: Scope,
    reach: frozenset[int],
    scopes: Mapping[int, Scope],
) -> bool:
    required = scope.required
    # strict ancestors of the target contain all of U(t)
    seen: set[int] = {target}
    # nodes stay int objects: they are only looked up (see mypyc_idioms.int_objects)
    stack: list[Any] = list(index.parents[target])
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        other = scopes.get(node)
        if other is not None and other.required != required:
            return True
        stack.extend(index.parents[node])
    # any other entity whose leaves meet reach(t): ancestors-or-self of reach units
    # (U(t) walked as a tuple: iterating a large sparse frozenset from its start
    # costs in proportion to its hash table, once per visited node)
    units = tuple(required)
    visited: set[int] = {target}
    stack = list(reach)
    while stack:
        node = stack.pop()
        if node in visited:
            continue
        visited.add(node)
        stack.extend(index.parents[node])
        other = scopes.get(node)
        if other is None or other.required == required or node in seen:
            continue
        if not index.any_contested_outside(node, units):
            return True
    return False


def peer_exposures(
    scopes: Mapping[int, Scope], cache: ContributorCache, sums: OriginSums
) -> list[tuple[Record, int]]:
    """Records exposed by members of groups of dynamic targets with identical U."""
    groups: dict[frozenset[int], list[int]] = {}
    for target in sorted(scopes):
        required = scopes[target].required
        if required:
            groups.setdefault(required, []).append(target)
    exposed: list[tuple[Record, int]] = []
    for members in groups.values():
        if len(members) < 2:
            continue
        for member in members:
            scope = scopes[member]
            if scope.vetoed:
                continue
            found = cache.get(member)[0]
            sealed = [c for c in found if c.sealed]
            if not sealed or len(sealed) == len(found):
                continue
            outcome = resolve(sealed, scope.goal(sums))
            if isinstance(outcome, Record):
                exposed.append((outcome, member))
    return exposed


def run_fixed_point(
    population: Population,
    producers: list[int],
    scopes: Mapping[int, Scope],
    sums: OriginSums,
    cache: ContributorCache,
) -> dict[int, OutcomeMemo]:
    """Let producers expose their derivations until nothing new appears.

    Returns each derived producer's component-outcome memo (for its final
    resolution).
    """
    # producers stay int objects: they are looked up and stored (see mypyc_idioms.int_objects)
    active: list[Any] = [p for p in int_objects(producers) if not scopes[p].vetoed]
    memos: dict[int, OutcomeMemo] = {}
    shared: dict[tuple[frozenset[int], frozenset[int]], tuple[list[Contributor], list[Record]]] = {}
    for _ in range(max(1, len(producers))):
        pending: list[tuple[Record, Any]] = []
        for producer in active:
            found, recomputed = cache.get(producer)
            memo = memos.get(producer)
            if memo is not None and not recomputed:
                continue
            if memo is None:
                memo = memos[producer] = OutcomeMemo()
            scope = scopes[producer]
            # peers (a code line and its stack, a module and its frame) often
            # see the very same contributors: derive once per (U, RO, contributors)
            key = (scope.required, scope.required_origins)
            known = shared.get(key)
            if known is not None and same_contributors(known[0], found):
                records = known[1]
            else:
                records = all_derivations(found, scope.goal(sums), memo=memo)
                shared[key] = (found, records)
            for record in records:
                pending.append((record, producer))
        added = False
        for record, producer in pending:
            new = population.expose(record, producer)
            added = added or new
        if not added:
            break
    return memos
