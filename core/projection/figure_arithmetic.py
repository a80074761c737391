"""The arithmetic of figure sets (§6.2): what a combination of several records gives.

Only qualifier groups present in every part, and in them only metric identities every
part can add (explicit ``sum`` metrics, ``figure_sets.Group.addends``), survive; a copy
is never filtered. Groups whose addends have one identity list (the usual case) are
added position by position, plain ones as columns of values, others identity by
identity; values in the given order, each total rounded as it grows (the reference's
arithmetic), or exactly (``exact_sums``, deviation D6). ``OriginSums`` is the arithmetic
of one projection run: every combination the stages ask for goes through it (and into
its ``FigureSetLedger`` when it keeps one). Cost: linear in the metrics added.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from perfline.core.mypyc_idioms import int_objects
from perfline.core.projection.exact_sums import Partials, exact_total
from perfline.core.projection.figure_keys import value_prefix
from perfline.core.projection.figure_ledger import FigureSetLedger
from perfline.core.projection.figure_sets import (
    MAX_SAFE_INTEGER,
    FigureSet,
    Group,
    GroupTexts,
    Identity,
    build_figures,
    build_group,
)


def combine(parts: Sequence[FigureSet], exact_sums: bool = False) -> FigureSet | None:
    """Add figure sets (§6.2); ``None`` when nothing survives.

    Only qualifier groups present in every part, and in them only metric
    identities every part can add, survive; samples must be all present (and
    their total safe) or all absent; the total must be finite. Groups whose
    addends have one identity list (the usual case) are added position by
    position, without looking identities up; plain ones (numbers only) as
    columns of values. Values are added in the given order, each total rounded
    as it grows (the reference's arithmetic), or with ``exact_sums`` exactly
    (``exact_sums``: the correctly rounded exact sum, whatever the order).
    """
    common = set(parts[0].by_qualifier)
    for part in parts[1:]:
        common &= part.by_qualifier.keys()
    groups: list[GroupTexts] = []
    for qualifier_key in sorted(common):
        members = [part.by_qualifier[qualifier_key] for part in parts]
        order = members[0].addend_order
        identities: list[Identity] = []
        totals: list[Mapping[str, Any]] = []
        known: list[str | None] | None = None
        exact_values: list[Partials | None] | None = [] if exact_sums else None
        if all(member.addend_order == order for member in members):
            known = []
            prefixes = members[0].addend_prefixes
            if all(member.plain for member in members):
                _plain_sums(members, identities, totals, known, exact_values)
            else:
                for position in range(len(order)):
                    addends = [member.addend_metrics[position] for member in members]
                    terms = None if exact_values is None else _terms(members, position)
                    total = _summed(addends, terms, exact_values)
                    if total is not None:
                        identities.append(order[position])
                        totals.append(total)
                        # a plain sum keeps the first addend's name, unit and "sum"
                        prefix = prefixes[position]
                        known.append(prefix if prefix and len(total) == 4 else value_prefix(total))
        else:
            common_identities = set(order)
            for member in members[1:]:
                common_identities &= member.addends.keys()
            for identity in sorted(common_identities):
                addends = [member.addends[identity] for member in members]
                terms = None
                if exact_values is not None:
                    terms = [_term(m, m.addend_order.index(identity)) for m in members]
                total = _summed(addends, terms, exact_values)
                if total is not None:
                    identities.append(identity)
                    totals.append(total)
        if totals:
            qualifiers = members[0].qualifiers
            groups.append(
                build_group(
                    qualifier_key, qualifiers, identities, totals, known, partials=exact_values
                )
            )
    if not groups:
        return None
    return build_figures(groups, exact_sums)


def _term(member: Group, position: int) -> Any:
    """The exact value of ``member``'s addend at ``position``: its partials, or its value."""
    partials = member.addend_partials
    if partials is not None:
        exact = partials[position]
        if exact is not None:
            return exact
    return member.addend_metrics[position]["value"]


def _terms(members: list[Group], position: int) -> list[Any]:
    return [_term(member, position) for member in members]


def _plain_sums(
    members: list[Group],
    identities: list[Identity],
    totals: list[Mapping[str, Any]],
    prefixes: list[str | None],
    exact_values: list[Partials | None] | None,
) -> None:
    """``_summed`` for plain groups with one addend order (numbers only, no samples,
    no qualifiers): each finite total, values added in order starting from integer 0,
    appended with its identity and value prefix. With exact sums (``exact_values``
    given) a column with a float in it is the correctly rounded exact sum of the
    members' exact values instead, its partials appended to ``exact_values``; an
    integer column is exact as it is."""
    first = members[0]
    metrics = first.addend_metrics
    values: list[int | float] = [0 + metric["value"] for metric in metrics]
    for member in members[1:]:
        for position, metric in enumerate(member.addend_metrics):
            values[position] = values[position] + metric["value"]
    for position in range(len(values)):
        value = values[position]
        partials: Partials | None = None
        if type(value) is float:
            if exact_values is not None:
                expansion: list[float] = []
                rounded = exact_total(_terms(members, position), expansion)
                if rounded is None:
                    continue
                value = rounded
                if len(expansion) > 1:
                    partials = tuple(expansion)
            elif not math.isfinite(value):
                continue
        metric = metrics[position]
        identities.append(first.addend_order[position])
        totals.append(
            {"name": metric["name"], "unit": metric["unit"], "value": value, "aggregation": "sum"}
        )
        prefixes.append(first.addend_prefixes[position])
        if exact_values is not None:
            exact_values.append(partials)


def _summed(
    metrics: list[Mapping[str, Any]],
    terms: list[Any] | None = None,
    exact_values: list[Partials | None] | None = None,
) -> dict[str, Any] | None:
    """The sum of addends with one identity, in order; ``None`` when it is not allowed.

    With exact sums, ``terms`` are the addends' exact values and the total's partials
    are appended to ``exact_values`` (when there is a total)."""
    first = metrics[0]
    with_samples = "samples" in first
    samples_total = 0
    if any(("samples" in m) != with_samples for m in metrics):
        return None
    if with_samples:
        samples_total = sum(int(m["samples"]) for m in metrics)
        if samples_total > MAX_SAFE_INTEGER:
            return None
    partials: Partials | None = None
    total: int | float = 0
    if terms is None or all(type(term) is int for term in terms):
        for metric in metrics:
            total = total + metric["value"]
        if isinstance(total, float) and not math.isfinite(total):
            return None
    else:
        expansion: list[float] = []
        rounded = exact_total(terms, expansion)
        if rounded is None:
            return None
        total = rounded
        if len(expansion) > 1:
            partials = tuple(expansion)
    result: dict[str, Any] = {
        "name": first["name"],
        "unit": first["unit"],
        "value": total,
        "aggregation": "sum",
    }
    if with_samples:
        result["samples"] = samples_total
    if first.get("qualifiers"):
        result["qualifiers"] = first["qualifiers"]
    if exact_values is not None:
        exact_values.append(partials)
    return result


class OriginSums:
    """The arithmetic of one projection run: the usable origins' figure sets, the
    combination of figure sets, and memoized exact totals of origin sets.

    ``total(origins)`` is the combination of the origins' own figures in
    sorted order; callers use it only when every value adds exactly, so the
    order does not matter and any cover of those origins gives this total.
    ``ledger``, when given, records every figure set the run makes.
    """

    __slots__ = ("_totals", "exact_sums", "figures", "ledger")

    def __init__(
        self,
        figures: Mapping[int, FigureSet],
        exact_sums: bool = False,
        ledger: FigureSetLedger | None = None,
    ) -> None:
        self.figures: dict[int, FigureSet] = dict(figures)
        """Origin -> its own figure set (the usable origins only)."""
        self.exact_sums = exact_sums
        """Float sums are exact (deviation D6), else added as the reference adds them."""
        self.ledger = ledger
        self._totals: dict[frozenset[int], FigureSet | None] = {}
        if ledger is not None:
            for origin in sorted(self.figures):
                ledger.origin(origin, self.figures[origin])

    def combine(self, parts: Sequence[FigureSet]) -> FigureSet | None:
        """``combine(parts)`` in the run's arithmetic: every combination of the
        run's stages comes here."""
        result = combine(parts, self.exact_sums)
        if self.ledger is not None:
            self.ledger.combined(parts, result)
        return result

    def rounded(self, figures: FigureSet) -> FigureSet:
        """``figures.rounded()``. Recorded as a new figure set when the ledger could see
        other values dropped on a replay (exact sums); the reference's arithmetic keeps
        no exact values, so there the figures themselves are the answer."""
        ledger = self.ledger
        if ledger is None or not self.exact_sums:
            return figures.rounded()
        result = figures.rounded(always_new=True)
        ledger.rounded(figures, result)
        return result

    def has_all(self, origins: frozenset[int]) -> bool:
        """Is every one of ``origins`` a usable origin?"""
        figures = self.figures
        return all(origin in figures for origin in int_objects(origins))

    def total(self, origins: frozenset[int]) -> FigureSet | None:
        """Exact combination of ``origins`` (a copy for a single origin)."""
        totals = self._totals
        if origins in totals:
            return totals[origins]
        if len(origins) == 1:
            (only,) = origins
            value: FigureSet | None = self.figures[only]
        else:
            figures = self.figures
            value = self.combine([figures[o] for o in sorted(origins)])
        totals[origins] = value
        return value

    def total_of_parts(self, parts: Sequence[frozenset[int]]) -> FigureSet | None:
        """``total`` of the union of pairwise disjoint ``parts``, from the parts' totals.

        The same figure set as ``total(union)``: the parts are added in the order
        of their lowest origin, so every metric's and group's first contributor is
        the union's lowest origin, and exact values add the same in any grouping.
        Costs one combination of len(parts) figure sets (plus the parts' own totals,
        memoized) instead of one over every origin.
        """
        if len(parts) == 1:
            return self.total(parts[0])
        union: frozenset[int] = frozenset().union(*parts)
        if union in self._totals:
            return self._totals[union]
        totals = [self.total(part) for part in sorted(parts, key=min)]
        value: FigureSet | None = None
        if all(total is not None for total in totals):
            value = self.combine([total for total in totals if total is not None])
        self._totals[union] = value
        return value
