"""Bounded exact-cover searches of the cover derivation (§6.5 levels 4/6).

* ``partitions``: can the origins of a component be split into >= 2
  contributors with pairwise disjoint origins (all sealed / with an unsealed
  member)? Single-origin contributors decide it at once in real results; else
  an iterative depth-first search over the lowest remaining origin, dead
  states memoized, at most ``PARTITION_BUDGET`` steps (``None`` beyond).
* ``search_selections``: every minimal origin-disjoint selection covering the
  required units and origins, depth-first over the lowest uncovered element,
  at most ``SEARCH_BUDGET`` steps (what was found by then is returned).

Both use explicit stacks: a selection or partition can be deeper than
Python's recursion limit.
"""

from __future__ import annotations

from typing import Final

from perfline.core.projection.contributors import Contributor

SEARCH_BUDGET: Final = 200_000
PARTITION_BUDGET: Final = 200_000


def partitions(pool: list[Contributor], available: frozenset[int]) -> list[bool] | None:
    """Sealed flags of partitions of ``available`` into >= 2 contributors (None: budget).

    Answered at once when single-origin contributors decide it (the usual case:
    every chain has its own record); otherwise by an iterative depth-first
    search over the lowest remaining origin, dead states memoized, at most
    ``PARTITION_BUDGET`` steps.
    """
    by_origin: dict[int, list[Contributor]] = {}
    for contributor in pool:
        if contributor.origins == available:
            continue
        for origin in contributor.origins:
            by_origin.setdefault(origin, []).append(contributor)
    for options in by_origin.values():
        options.sort(key=_sealed_and_narrow_first)
    quick = _single_origin_flags(by_origin, available)
    sealed_flag = quick[0]
    unsealed_flag = quick[1]
    dead: set[tuple[frozenset[int], bool, bool]] = set()
    steps = 0
    try:
        if sealed_flag is None:
            sealed_flag, steps = _partition_search(by_origin, available, True, False, dead, steps)
        if unsealed_flag is None:
            unsealed_flag, steps = _partition_search(by_origin, available, False, True, dead, steps)
    except _BudgetExceeded:
        return None
    flags: list[bool] = []
    if sealed_flag:
        flags.append(True)
    if unsealed_flag:
        flags.append(False)
    return flags


def _sealed_and_narrow_first(contributor: Contributor) -> tuple[bool, int]:
    """Sort key of a partition's options: sealed ones first, then fewer origins."""
    return (not contributor.sealed, len(contributor.origins))


def _single_origin_flags(
    by_origin: dict[int, list[Contributor]], available: frozenset[int]
) -> tuple[bool | None, bool | None]:
    """What single-origin contributors alone decide: (sealed, unsealed), None = search.

    Every origin with a one-origin contributor: the partition into those exists
    (>= 2 members, as contributors holding all of ``available`` are left out),
    so a sealed one exists when each origin has a sealed single, and one with an
    unsealed member when any origin has an unsealed single. An origin that no
    sealed contributor holds rules out every sealed partition.
    """
    sealed_singles = unsealed_singles = 0
    any_unsealed_single = False
    no_sealed_holder = False
    for origin in available:
        options = by_origin.get(origin)
        if not options:
            return False, False  # an origin nobody else holds: no partition at all
        sealed_single = unsealed_single = sealed_holder = False
        for option in options:
            if option.sealed:
                sealed_holder = True
            if len(option.origins) == 1:
                if option.sealed:
                    sealed_single = True
                else:
                    unsealed_single = True
        sealed_singles += sealed_single
        unsealed_singles += sealed_single or unsealed_single
        any_unsealed_single = any_unsealed_single or unsealed_single
        no_sealed_holder = no_sealed_holder or not sealed_holder
    everyone = len(available)
    sealed: bool | None = None
    if no_sealed_holder:
        sealed = False
    elif sealed_singles == everyone:
        sealed = True
    unsealed: bool | None = None
    if unsealed_singles == everyone and any_unsealed_single:
        unsealed = True
    return sealed, unsealed


class _Frame:
    """One level of the partition search: what is left and the next option to try."""

    __slots__ = ("need_unsealed", "options", "position", "remaining")

    def __init__(
        self,
        remaining: frozenset[int],
        need_unsealed: bool,
        options: list[Contributor],
        position: int = 0,
    ) -> None:
        self.remaining = remaining
        self.need_unsealed = need_unsealed
        self.options = options
        self.position = position


def _partition_search(
    by_origin: dict[int, list[Contributor]],
    available: frozenset[int],
    only_sealed: bool,
    need_unsealed: bool,
    dead: set[tuple[frozenset[int], bool, bool]],
    steps: int,
) -> tuple[bool, int]:
    """Is there a partition of ``available`` (all sealed / with an unsealed member)?

    Depth-first over the lowest remaining origin with an explicit stack (no
    recursion limit); returns the answer and the steps used so far.
    """
    search = _PartitionSearch(by_origin, only_sealed, dead, steps)
    outcome = search.enter(available, need_unsealed)
    if outcome is not None:
        return outcome, search.steps
    frames = search.frames
    while frames:
        frame = frames[-1]
        if frame.position >= len(frame.options):
            dead.add((frame.remaining, only_sealed, frame.need_unsealed))
            frames.pop()
            continue
        option = frame.options[frame.position]
        frame.position += 1
        if only_sealed and not option.sealed:
            continue
        if not option.origins <= frame.remaining:
            continue
        if search.enter(frame.remaining - option.origins, frame.need_unsealed and option.sealed):
            return True, search.steps
    return False, search.steps


class _PartitionSearch:
    """State of one ``_partition_search`` (a plain object, see ``_SelectionSearch``)."""

    __slots__ = ("by_origin", "dead", "frames", "only_sealed", "steps")

    def __init__(
        self,
        by_origin: dict[int, list[Contributor]],
        only_sealed: bool,
        dead: set[tuple[frozenset[int], bool, bool]],
        steps: int,
    ) -> None:
        self.by_origin = by_origin
        self.only_sealed = only_sealed
        self.dead = dead
        self.steps = steps
        self.frames: list[_Frame] = []

    def enter(self, remaining: frozenset[int], need: bool) -> bool | None:
        """True/False when decided at once, None when a frame was pushed."""
        if not remaining:
            return not need
        if (remaining, self.only_sealed, need) in self.dead:
            return False
        self.steps += 1
        if self.steps > PARTITION_BUDGET:
            raise _BudgetExceeded
        self.frames.append(_Frame(remaining, need, self.by_origin.get(min(remaining), [])))
        return None


class _BudgetExceeded(Exception):
    pass


def search_selections(
    pool: list[Contributor],
    required: frozenset[int],
    required_origins: frozenset[int],
) -> list[list[Contributor]]:
    """Every minimal origin-disjoint selection covering ``required`` and ``required_origins``.

    Depth-first over the lowest uncovered unit (then required origin); each
    selection once. Stops after ``SEARCH_BUDGET`` steps.
    """
    elements: list[tuple[int, int]] = [(0, u) for u in sorted(required)]
    elements += [(1, o) for o in sorted(required_origins)]
    options: dict[tuple[int, int], list[int]] = {element: [] for element in elements}
    for position, contributor in enumerate(pool):
        for unit in contributor.covered & required:
            options[(0, unit)].append(position)
        for origin in contributor.origins & required_origins:
            options[(1, origin)].append(position)
    if any(not found for found in options.values()):
        return []
    return _SelectionSearch(pool, required, required_origins, elements, options).run()


class _SelectionSearch:
    """State of one ``search_selections`` run.

    A plain object rather than nested functions: closures that refer to each
    other form reference cycles, which only the cyclic collector frees, and
    the post-processing runs with that collector paused.
    """

    __slots__ = (
        "chosen",
        "elements",
        "options",
        "pool",
        "required",
        "required_origins",
        "results",
        "seen",
        "steps",
    )

    def __init__(
        self,
        pool: list[Contributor],
        required: frozenset[int],
        required_origins: frozenset[int],
        elements: list[tuple[int, int]],
        options: dict[tuple[int, int], list[int]],
    ) -> None:
        self.pool = pool
        self.required = required
        self.required_origins = required_origins
        self.elements = elements
        self.options = options
        self.results: list[list[Contributor]] = []
        self.seen: set[frozenset[int]] = set()
        self.steps = 0
        self.chosen: list[int] = []
        """The pool positions of the selection being built."""

    def run(self) -> list[list[Contributor]]:
        """Depth-first with an explicit stack (a selection can be deeper than
        Python's recursion limit); frame k was entered with ``chosen[:k]``."""
        pool = self.pool
        chosen = self.chosen
        frames: list[_Selection] = []
        first = self._enter(frozenset(), frozenset())
        if first is not None:
            frames.append(_Selection(frozenset(), frozenset(), first))
        while frames:
            frame = frames[-1]
            if frame.position >= len(frame.options):
                frames.pop()
                if frames:
                    chosen.pop()
                continue
            position = frame.options[frame.position]
            frame.position += 1
            option = pool[position]
            if not option.origins.isdisjoint(frame.used):
                continue
            chosen.append(position)
            covered = frame.covered | option.covered
            used = frame.used | option.origins
            found = self._enter(covered, used)
            if found is None:
                chosen.pop()
            else:
                frames.append(_Selection(covered, used, found))
        return self.results

    def _enter(self, covered: frozenset[int], used: frozenset[int]) -> list[int] | None:
        """The options for the next element, or None (a complete selection, or budget)."""
        self.steps += 1
        if self.steps > SEARCH_BUDGET:
            return None
        element = next(
            (
                e
                for e in self.elements
                if (e[0] == 0 and e[1] not in covered) or (e[0] == 1 and e[1] not in used)
            ),
            None,
        )
        if element is None:
            key = frozenset(self.chosen)
            if key not in self.seen:
                self.seen.add(key)
                if self._minimal(self.chosen):
                    self.results.append([self.pool[p] for p in self.chosen])
            return None
        return self.options[element]

    def _minimal(self, selection: list[int]) -> bool:
        """Does leaving out any one member of ``selection`` lose coverage?"""
        for skip in selection:
            units: set[int] = set()
            origins: set[int] = set()
            for position in selection:
                if position != skip:
                    units |= self.pool[position].covered
                    origins |= self.pool[position].origins
            if self.required <= units and self.required_origins <= origins:
                return False
        return True


class _Selection:
    """One level of the selection search: what is covered and the next option."""

    __slots__ = ("covered", "options", "position", "used")

    def __init__(
        self, covered: frozenset[int], used: frozenset[int], options: list[int], position: int = 0
    ) -> None:
        self.covered = covered
        self.used = used
        self.options = options
        self.position = position
