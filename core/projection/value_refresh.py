"""Value-only refresh: the last projection of a result replayed on new values.

When a capture or an estimate changes and the model does not, a result comes back
with the very same entity graph (the structure memo hands back the same objects)
and new values in its breakdowns. Every decision of the projection then depends on
the values only through its figure sets: which ones exist, their shapes (qualifier
groups, which metrics can be added, number types) and which of them are equal (a
population entry is one per figures key, contributors merge on equal keys, a level
conflicts on different keys). A ``ProjectionMemo`` keeps, from one run, its ledger
of figure sets (``figure_ledger.FigureSetLedger``: each origin's own, each combination and
its parts, each rounded copy, in the order they were made) and what each target
received. The next run with the same graph, kind declarations and arithmetic:

1. finds the authoritative side again (duplicates, usable origins: values decide
   those) and requires the same authoritative, shadowed and usable entities;
2. replays the ledger on the new origin figures: every combination again, from
   the new figures of its parts;
3. requires every figure set to keep its shape, every combination that gave
   nothing to give nothing still, and the same figure sets to be equal as before
   (old keys and new keys in one-to-one correspondence);
4. then every decision is the one a full projection would take, and each target
   receives the new figures of the figure set it received before.

A plain result (the NX backends' kind: one unqualified breakdown per entity, the
same ``sum`` metrics everywhere) takes a shorter path first, ``value_rows``: the
same replay on rows of numbers, without building figure sets or the authority.

Anything else (a conflict that became a tie, a sum that became infinite, a new
usable origin) runs the whole projection, which records a new ledger. So the memo
changes time, never answers (``tests/core/pipeline/test_structure_memo.py``). Cost: the
authoritative side plus one combination per recorded node, O(breakdowns) arithmetic
on the NX-shaped results (about a tenth of a full projection); the row path, one pass
over the metrics and one addition per (part, metric).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from perfline.core.projection.authority import Authority
from perfline.core.projection.figure_arithmetic import combine
from perfline.core.projection.figure_ledger import ORIGIN_NODE, ROUNDED_NODE, FigureSetLedger
from perfline.core.projection.figure_sets import FigureSet
from perfline.core.projection.index import GraphIndex
from perfline.core.projection.records import Record
from perfline.core.projection.value_rows import BreakdownLayout, RowPlan, refresh, row_plan


class ProjectionMemo:
    """What the last projection of one result decided, to replay on new values.

    Held by the caller with the structure memo (one per job and result).
    ``projected`` and ``replayed`` count the runs of each kind (what tests observe)."""

    __slots__ = (
        "_context",
        "_plan",
        "_rows",
        "_written",
        "projected",
        "replayed",
        "rows_replayed",
    )

    def __init__(self) -> None:
        self._context: tuple[GraphIndex, frozenset[tuple[str, str]], bool] | None = None
        """(index, declared kind pairs, exact sums) of the run kept."""
        self._plan: _Plan | None = None
        self._rows: RowPlan | None = None
        """The run as rows, for a plain result; then ``_plan`` is not kept (a change the
        rows cannot follow is one the figure sets could not follow either, but for a
        number type changing: that runs in full), which saves the ledger's figure sets
        (the larger part of the memo's memory)."""
        self._written: RowPlan | None = None
        """The row plan the last projection's breakdowns were written by or for (its
        layout is theirs: see ``layout``)."""
        self.projected = 0
        self.replayed = 0
        self.rows_replayed = 0
        """Replays that took the plain-row path (``value_rows``)."""

    def layout(self) -> BreakdownLayout | None:
        """How the last projection's output breakdowns are laid out (which breakdown, on
        which entity, with which metric names, units and aggregations, in which order),
        as data: the row plan's layout when the last projection was written by or for a
        row plan (a full run that made one, or a replay by it); ``None`` when it went by
        figure sets (then nothing is said)."""
        written = self._written
        return written.layout if written is not None else None

    def replay_rows(
        self,
        index: GraphIndex,
        declared: frozenset[tuple[str, str]],
        exact_sums: bool,
        breakdowns: Sequence[Any],
    ) -> list[dict[str, Any]] | None:
        """The projected breakdowns of a plain result whose values alone changed
        (``value_rows``), or ``None`` (then ``replay``, or project in full)."""
        rows = self._rows
        context = self._context
        self._written = None
        if (
            rows is None
            or context is None
            or context[0] is not index
            or context[1] != declared
            or context[2] != exact_sums
        ):
            return None
        projected = refresh(rows, breakdowns)
        if projected is not None:
            self.replayed += 1
            self.rows_replayed += 1
            self._written = rows
        return projected

    def replay(
        self,
        index: GraphIndex,
        declared: frozenset[tuple[str, str]],
        exact_sums: bool,
        authority: Authority,
    ) -> dict[int, Record] | None:
        """The records the last run's targets receive with ``authority``'s values, or
        ``None`` when the last run cannot answer for them (then project in full)."""
        plan = self._plan
        self._written = None
        if (
            plan is None
            or plan.index is not index
            or plan.exact_sums != exact_sums
            or plan.declared != declared
            or plan.authoritative != authority.authoritative
            or plan.shadowed != authority.shadowed
        ):
            return None
        usable = usable_figures(authority)
        if usable.keys() != plan.usable:
            return None
        fresh = _replayed(plan.ledger, usable, exact_sums)
        if fresh is None:
            return None
        decided: dict[int, Record] = {}
        for target, (node, record) in plan.decided.items():
            figures = fresh[node]
            assert figures is not None  # a received figure set is one that existed
            decided[target] = Record(figures, record.origins, record.sealed, record.faithful)
        self.replayed += 1
        return decided

    def keep(
        self,
        index: GraphIndex,
        declared: frozenset[tuple[str, str]],
        exact_sums: bool,
        authority: Authority,
        ledger: FigureSetLedger,
        decided: dict[int, Record],
        breakdowns: Sequence[Any],
    ) -> None:
        """Remember a full run of ``breakdowns`` (nothing when its ledger missed a
        figure set)."""
        self.projected += 1
        self._context = None
        self._plan = None
        self._rows = None
        self._written = None
        if not ledger.complete:
            return
        self._context = (index, declared, exact_sums)
        self._rows = row_plan(index, breakdowns, ledger, decided, exact_sums)
        self._written = self._rows
        if self._rows is not None:
            return
        nodes: dict[int, tuple[int, Record]] = {}
        for target, record in decided.items():
            node = ledger.numbers.get(id(record.figures))
            if node is None:
                return
            nodes[target] = (node, record)
        self._plan = _Plan(
            index,
            declared,
            exact_sums,
            authority.authoritative,
            authority.shadowed,
            frozenset(usable_figures(authority)),
            ledger,
            nodes,
        )


def usable_figures(authority: Authority) -> dict[int, FigureSet]:
    """The figure sets of the usable origins (authoritative, not shadowed)."""
    shadowed = authority.shadowed
    return {o: f for o, f in authority.figures.items() if o not in shadowed}


class _Plan:
    """One full run, as ``ProjectionMemo.replay`` needs it."""

    __slots__ = (
        "authoritative",
        "decided",
        "declared",
        "exact_sums",
        "index",
        "ledger",
        "shadowed",
        "usable",
    )

    def __init__(
        self,
        index: GraphIndex,
        declared: frozenset[tuple[str, str]],
        exact_sums: bool,
        authoritative: frozenset[int],
        shadowed: frozenset[int],
        usable: frozenset[int],
        ledger: FigureSetLedger,
        decided: dict[int, tuple[int, Record]],
    ) -> None:
        self.index = index
        self.declared = declared
        self.exact_sums = exact_sums
        self.authoritative = authoritative
        self.shadowed = shadowed
        self.usable = usable
        self.ledger = ledger
        self.decided = decided
        """Target -> (the ledger node of the figure set it received, its record)."""


def _replayed(
    ledger: FigureSetLedger, usable: dict[int, FigureSet], exact_sums: bool
) -> list[FigureSet | None] | None:
    """Every node's figure set with the new origin figures, or ``None`` when a shape, an
    empty combination or an equality between figure sets is not what it was."""
    fresh: list[FigureSet | None] = []
    old_to_new: dict[str, str] = {}
    new_to_old: dict[str, str] = {}
    kinds = ledger.kinds
    parents = ledger.parents
    recorded = ledger.figures
    for node in range(len(recorded)):
        kind = kinds[node]
        new: FigureSet | None
        if kind == ORIGIN_NODE:
            new = usable[ledger.origins[node]]
        else:
            parts: list[FigureSet] = []
            for parent in parents[node]:
                part = fresh[parent]
                assert part is not None  # only figure sets are parts
                parts.append(part)
            if kind == ROUNDED_NODE:
                new = parts[0].rounded(always_new=True)
            else:
                new = combine(parts, exact_sums)
        old = recorded[node]
        if old is None or new is None:
            if old is not new:
                return None
            fresh.append(None)
            continue
        if not _same_shape(old, new):
            return None
        known = old_to_new.get(old.key)
        if known is None:
            if new.key in new_to_old:
                return None  # two figure sets that differed are now equal
            old_to_new[old.key] = new.key
            new_to_old[new.key] = old.key
        elif known != new.key:
            return None  # two figure sets that were equal now differ
        fresh.append(new)
    return fresh


def _same_shape(old: FigureSet, new: FigureSet) -> bool:
    """Do two figure sets agree in everything but their values' texts: order-freedom,
    qualifier groups, and in each group the addends, their plain prefixes (name, unit,
    aggregation, a finite number) and which of them carry samples?"""
    if old.exact != new.exact or len(old.groups) != len(new.groups):
        return False
    for position in range(len(old.groups)):
        before = old.groups[position]
        after = new.groups[position]
        if (
            before.qualifier_key != after.qualifier_key
            or before.addend_order != after.addend_order
            or before.addend_prefixes != after.addend_prefixes
        ):
            return False
        if not before.plain:
            for slot in range(len(before.addend_metrics)):
                had = "samples" in before.addend_metrics[slot]
                if had != ("samples" in after.addend_metrics[slot]):
                    return False
    return True
