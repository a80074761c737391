"""The ledger of one projection run: every figure set it made, and from what, so that the
run can be replayed on new values (``value_refresh``). Cost: one list entry per figure
set made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from perfline.core.projection.figure_sets import FigureSet

ORIGIN_NODE: Final = 0
COMBINED_NODE: Final = 1
ROUNDED_NODE: Final = 2


class FigureSetLedger:
    """Every figure set one projection run made, and from what: each usable origin's
    own, each combination (its parts, or that it gave nothing) and each rounded copy,
    as numbered nodes in the order they were made. Replaying the nodes on new origin
    figures gives what the run would have computed from them (``value_refresh``).
    A figure set the ledger did not see being made marks it incomplete."""

    __slots__ = ("complete", "figures", "kinds", "numbers", "origins", "parents")

    def __init__(self) -> None:
        self.figures: list[FigureSet | None] = []
        """Each node's figure set (``None``: a combination that gave nothing)."""
        self.kinds: list[int] = []
        """Each node's kind: ``ORIGIN_NODE``, ``COMBINED_NODE`` or ``ROUNDED_NODE``."""
        self.parents: list[list[int]] = []
        """Each node's parts (the rounded node's one part; none for an origin)."""
        self.origins: list[int] = []
        """Each origin node's origin (-1 for other nodes)."""
        self.numbers: dict[int, int] = {}
        """``id`` of each figure set the ledger holds -> its node (the ledger keeps
        them referenced, so ids are not reused)."""
        self.complete = True

    def origin(self, origin: int, figures: FigureSet) -> None:
        """Record an origin's own figure set."""
        self._add(ORIGIN_NODE, [], origin, figures)

    def combined(self, parts: Sequence[FigureSet], result: FigureSet | None) -> None:
        """Record a combination of ``parts`` and what it gave."""
        self._add(COMBINED_NODE, self._numbers_of(parts), -1, result)

    def rounded(self, part: FigureSet, result: FigureSet) -> None:
        """Record ``part.rounded()`` (when it made a new figure set)."""
        self._add(ROUNDED_NODE, self._numbers_of([part]), -1, result)

    def _numbers_of(self, parts: Sequence[FigureSet]) -> list[int]:
        numbers: list[int] = []
        for part in parts:
            number = self.numbers.get(id(part))
            if number is None:
                self.complete = False
                number = -1
            numbers.append(number)
        return numbers

    def _add(self, kind: int, parents: list[int], origin: int, figures: FigureSet | None) -> None:
        if figures is not None:
            self.numbers[id(figures)] = len(self.figures)
        self.figures.append(figures)
        self.kinds.append(kind)
        self.parents.append(parents)
        self.origins.append(origin)
