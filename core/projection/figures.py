"""Figure sets: canonical metrics, origin records' figures and arithmetic (§6.1, §6.2).

A *figure set* is what a record would print on a target: one group per distinct
breakdown-qualifier object (groups sorted by canonical qualifier JSON), each
holding metrics de-duplicated by identity (name, unit, canonical qualifiers) and
sorted by it. Two figure sets are equal iff their canonical key (sorted-key,
compact JSON, written by ``figure_keys``) is equal, so ``5`` and ``5.0`` differ.

Decides: whether an authoritative entity's breakdowns form a usable figure set,
and what a combination of several records gives (only explicit ``sum`` metrics
present in every part survive; a copy is never filtered). Cost: linear in the
number of metrics involved; keys are built once per figure set.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

from perfline.core.document_canonical import METRIC_KEY_ORDER
from perfline.core.graph import int_objects
from perfline.core.projection.figure_keys import (
    canonical_json,
    figures_key,
    finite_number,
    metric_text,
    value_prefix,
)

MAX_SAFE_INTEGER: Final = 2**53 - 1


def metric_view(metric: Mapping[str, Any]) -> dict[str, Any]:
    """The re-serialized form of a metric: schema key order, absent/empty fields left out."""
    view: dict[str, Any] = {}
    for key in METRIC_KEY_ORDER:
        if key not in metric:
            continue
        value = metric[key]
        if value is None or (
            isinstance(value, (dict, list, str)) and not value and key != "name" and key != "unit"
        ):
            continue
        view[key] = value
    return view


Identity = tuple[str, ...]
"""(name, unit, canonical qualifiers): the correspondence key of a metric. Typed
as a tuple of any length on purpose: mypyc holds a fixed-length tuple in a C
struct and builds a new tuple object each time one is stored in a container or
used as a dict key, while identities are only stored, looked up and compared."""


def metric_identity(metric: Mapping[str, Any]) -> Identity:
    """(name, unit, canonical qualifiers): the correspondence key of a metric."""
    qualifiers = metric.get("qualifiers")
    text = canonical_json(qualifiers) if qualifiers else "{}"
    return (str(metric.get("name")), str(metric.get("unit")), text)


class Group:  # a value: never mutated (see records.py)
    """One breakdown-qualifier group of a figure set.

    ``addends`` holds the metrics that may take part in a sum on their own
    (numeric, available, ``sum`` aggregation, valid ``samples``), by identity.
    """

    __slots__ = (
        "addend_metrics",
        "addend_order",
        "addend_prefixes",
        "addends",
        "metrics",
        "plain",
        "qualifier_key",
        "qualifiers",
    )

    qualifier_key: str
    qualifiers: Mapping[str, Any]
    metrics: tuple[Mapping[str, Any], ...]
    """The metrics, sorted by identity."""
    addends: Mapping[Identity, Mapping[str, Any]]
    addend_order: tuple[Identity, ...]
    """The addends' identities in sorted order (``metrics`` order)."""
    addend_metrics: tuple[Mapping[str, Any], ...]
    """The addends in that order."""
    addend_prefixes: tuple[str, ...]
    """Their ``figure_keys.value_prefix`` in that order ("" where there is none)."""
    plain: bool
    """Every addend is plain (has a value prefix: a number, no samples or qualifiers)."""

    def __init__(
        self,
        qualifier_key: str,
        qualifiers: Mapping[str, Any],
        metrics: tuple[Mapping[str, Any], ...],
        addends: dict[Identity, Mapping[str, Any]],
        addend_prefixes: tuple[str, ...],
    ) -> None:
        self.qualifier_key = qualifier_key
        self.qualifiers = qualifiers
        self.metrics = metrics
        self.addends = addends
        self.addend_order = tuple(addends)
        self.addend_metrics = tuple(addends.values())
        self.addend_prefixes = addend_prefixes
        self.plain = all(addend_prefixes)


class Figures:  # a value: never mutated (see records.py)
    """A canonical figure set with its comparison key."""

    __slots__ = ("by_qualifier", "exact", "groups", "key")

    groups: tuple[Group, ...]
    key: str
    by_qualifier: Mapping[str, Group]
    exact: bool
    """True when every summable value is exact in binary floating point under any
    order: integers are; floats are when integral and small (< 2**40), so a sum of
    up to 2**13 of them is exact whatever the order."""

    def __init__(
        self, groups: tuple[Group, ...], key: str, by_qualifier: Mapping[str, Group], exact: bool
    ) -> None:
        self.groups = groups
        self.key = key
        self.by_qualifier = by_qualifier
        self.exact = exact


GroupTexts = tuple[Group, tuple[str, ...]]
"""A group with each of its metrics' canonical JSON text (``figure_keys.metric_text``),
in order: what ``make_figures`` writes the figure key from. A figure set keeps only the
key: kept, the texts would add about a tenth to the projection's memory."""


def make_group(
    qualifier_key: str,
    qualifiers: Mapping[str, Any],
    metrics: tuple[tuple[Identity, Mapping[str, Any]], ...],
    known_prefixes: Sequence[str | None] | None = None,
    prefix_memo: dict[tuple[str, str, str], str] | None = None,
) -> GroupTexts:
    """A group with its addends and texts worked out (``metrics`` sorted by identity).

    ``known_prefixes``: the metrics' ``value_prefix`` when the caller has them;
    ``prefix_memo``: prefixes already written, by (aggregation, name, unit).
    """
    addends: dict[Identity, Mapping[str, Any]] = {}
    prefixes: list[str] = []
    texts: list[str] = []
    for position, (identity, metric) in enumerate(metrics):
        if known_prefixes is None:
            prefix = value_prefix(metric, prefix_memo)
        else:
            prefix = known_prefixes[position]
        if prefix is None:
            texts.append(metric_text(metric))
            addend = _addend(metric)
        else:
            texts.append(prefix + repr(metric["value"]) + "}")
            # a plain metric (a number, no samples or availability) adds iff it is a sum
            addend = metric["aggregation"] == "sum"
        if addend:
            addends[identity] = metric
            prefixes.append("" if prefix is None else prefix)
    group = Group(
        qualifier_key, qualifiers, tuple([m for _, m in metrics]), addends, tuple(prefixes)
    )
    return group, tuple(texts)


def make_figures(groups: Sequence[GroupTexts]) -> Figures:
    """Sort the groups and compute the canonical key."""
    ordered = sorted(groups, key=lambda item: item[0].qualifier_key)
    kept = tuple([group for group, _ in ordered])
    exact = all(_exact(metric) for group in kept for metric in group.addends.values())
    return Figures(
        kept,
        figures_key((group.qualifier_key, texts) for group, texts in ordered),
        {group.qualifier_key: group for group in kept},
        exact,
    )


class _PlainShape:  # a value: never mutated (see records.py)
    """The metric list of a plain breakdown up to its values: every metric its own
    plain sum view (``_is_plain_sum_view``) with a finite value, identities unique."""

    __slots__ = ("aggregations", "identities", "order", "prefixes", "sums")

    def __init__(
        self,
        identities: tuple[Identity, ...],
        aggregations: tuple[str, ...],
        order: tuple[int, ...],
        prefixes: tuple[str, ...],
    ) -> None:
        self.identities = identities
        """Each metric's (name, unit, "{}"), by position."""
        self.aggregations = aggregations
        self.order = order
        """Positions in sorted identity order."""
        self.prefixes = prefixes
        """Each metric's ``value_prefix``, by position."""
        self.sums = tuple([aggregation == "sum" for aggregation in aggregations])
        """Whether each metric is an addend (``aggregations``, read once per shape)."""

    def fits(self, metrics: list[Any]) -> bool:
        """Do ``metrics`` have this shape (same fields but the values, finite values)?"""
        if len(metrics) != len(self.identities):
            return False
        for position in range(len(metrics)):
            metric = metrics[position]
            if type(metric) is not dict or not _in_sum_view_order(metric):
                return False
            name = metric["name"]
            unit = metric["unit"]
            aggregation = metric["aggregation"]
            identity = self.identities[position]
            if not (
                type(name) is str
                and type(unit) is str
                and type(aggregation) is str
                and name == identity[0]
                and unit == identity[1]
                and aggregation == self.aggregations[position]
                and finite_number(metric["value"])
            ):
                return False
        return True


class OriginShapes:
    """What the origin figure sets of one result share, worked out once: the text
    prefix of each plain metric by (aggregation, name, unit) (see
    ``figure_keys.value_prefix``), the sorted order of each sequence of metric
    identities (breakdowns of one backend list the same metrics in the same order),
    and the last plain breakdown shape (``plain_figures``)."""

    __slots__ = ("_plain", "orders", "prefixes")

    def __init__(self) -> None:
        self.prefixes: dict[tuple[str, str, str], str] = {}
        self.orders: dict[tuple[Identity, ...], tuple[int, ...] | None] = {}
        self._plain: _PlainShape | None = None

    def plain_figures(self, metrics: list[Any]) -> Figures | None:
        """The figure set of a lone unqualified breakdown with these ``metrics``
        when they are plain (see ``_PlainShape``); ``None`` otherwise.

        The same figure set as ``origin_figures``' general path: only the values
        are read from a breakdown of the last plain shape seen."""
        shape = self._plain
        if shape is None or not shape.fits(metrics):
            shape = self._plain_shape(metrics)
            if shape is None:
                return None
            self._plain = shape
        identities = shape.identities
        prefixes = shape.prefixes
        sums = shape.sums
        ordered: list[Mapping[str, Any]] = []
        texts: list[str] = []
        addends: dict[Identity, Mapping[str, Any]] = {}
        addend_prefixes: list[str] = []
        for position in shape.order:
            metric = metrics[position]
            identity = identities[position]
            prefix = prefixes[position]
            ordered.append(metric)
            texts.append(prefix + repr(metric["value"]) + "}")
            if sums[position]:
                addends[identity] = metric
                addend_prefixes.append(prefix)
        group = Group("{}", {}, tuple(ordered), addends, tuple(addend_prefixes))
        return make_figures([(group, tuple(texts))])

    def _plain_shape(self, metrics: list[Any]) -> _PlainShape | None:
        if not all(_is_plain_sum_view(m) for m in metrics):
            return None
        identities: list[Identity] = [(m["name"], m["unit"], "{}") for m in metrics]
        order = self.sorted_order(identities)
        if order is None:
            return None
        prefixes: list[str] = []
        for metric in metrics:
            prefix = value_prefix(metric, self.prefixes)
            if prefix is None:  # a value that is not finite
                return None
            prefixes.append(prefix)
        return _PlainShape(
            tuple(identities), tuple([m["aggregation"] for m in metrics]), order, tuple(prefixes)
        )

    def sorted_order(self, identities: list[Identity]) -> tuple[int, ...] | None:
        """Positions of ``identities`` in sorted order; ``None`` when one repeats."""
        key = tuple(identities)
        if key in self.orders:
            return self.orders[key]
        order: tuple[int, ...] | None = None
        if len(set(identities)) == len(identities):
            order = tuple(sorted(range(len(identities)), key=identities.__getitem__))
        self.orders[key] = order
        return order


def _canonical_metrics(
    metrics: Sequence[Any], shapes: OriginShapes | None = None
) -> tuple[tuple[Identity, Mapping[str, Any]], ...] | None:
    """The metrics' views sorted by identity, each identity once; ``None`` when
    one identity has different views."""
    views: list[dict[str, Any]] = []
    identities: list[Identity] = []
    for metric in metrics:
        if _is_plain_sum_view(metric):
            # already its own view (the normalized input's common shape): no copy
            views.append(metric)
            identities.append((metric["name"], metric["unit"], "{}"))
        elif isinstance(metric, Mapping):
            view = metric_view(metric)
            views.append(view)
            identities.append(metric_identity(view))
        else:
            return None
    if shapes is not None:
        order = shapes.sorted_order(identities)
        if order is not None:
            return tuple([(identities[position], views[position]) for position in order])
    by_identity: dict[Identity, dict[str, Any]] = {}
    for identity, view in zip(identities, views, strict=True):
        known = by_identity.get(identity)
        if known is None:
            by_identity[identity] = view
        elif canonical_json(known) != canonical_json(view):
            return None
    # identities are unique, so the items sort by identity alone
    return tuple(sorted(by_identity.items()))


_SUM_VIEW_SHAPE: Final[tuple[str, ...]] = ("name", "unit", "value", "aggregation")
"""Typed of any length so that the compiled build keeps it one tuple object (see ``Identity``)."""


def _in_sum_view_order(metric: dict[str, Any]) -> bool:
    """Are the keys of ``metric`` exactly ``_SUM_VIEW_SHAPE``, in that order?

    Walks the keys in place: ``tuple(metric)`` would build a tuple through the
    generic iteration protocol for each metric of every origin breakdown."""
    if len(metric) != 4:
        return False
    return all(key == _SUM_VIEW_SHAPE[position] for position, key in enumerate(metric))


def _is_plain_sum_view(metric: Any) -> bool:
    """Is ``metric`` a dict equal to its own ``metric_view`` with the plain sum keys
    (in that order, string name and unit, a number, a non-empty aggregation)?"""
    if type(metric) is not dict or not _in_sum_view_order(metric):
        return False
    value = metric["value"]
    aggregation = metric["aggregation"]
    return (
        type(metric["name"]) is str
        and type(metric["unit"]) is str
        and (type(value) is int or type(value) is float)
        and type(aggregation) is str
        and aggregation != ""
    )


def origin_figures(
    breakdowns: Sequence[Mapping[str, Any]], shapes: OriginShapes | None = None
) -> Figures | None:
    """The figure set of one authoritative entity, or ``None`` when it is unusable
    (``shapes``: what the caller's origins share, see ``OriginShapes``).

    Unusable: a breakdown without metrics, two metrics with one identity but
    different fields, or two breakdowns with equal qualifiers but different figures.
    """
    if shapes is not None and len(breakdowns) == 1:
        only = breakdowns[0]
        metrics = only.get("metrics")
        if type(metrics) is list and metrics and not only.get("qualifiers"):
            plain = shapes.plain_figures(metrics)
            if plain is not None:
                return plain
    groups: dict[str, GroupTexts] = {}
    for breakdown in breakdowns:
        metrics = breakdown.get("metrics")
        if not isinstance(metrics, list) or not metrics:
            return None
        canonical = _canonical_metrics(metrics, shapes)
        if canonical is None:
            return None
        qualifiers = breakdown.get("qualifiers") or {}
        qualifier_key = canonical_json(qualifiers)
        prefixes = None if shapes is None else shapes.prefixes
        group = make_group(qualifier_key, qualifiers, canonical, prefix_memo=prefixes)
        known = groups.get(qualifier_key)
        if known is None:
            groups[qualifier_key] = group
        elif canonical_json(list(known[0].metrics)) != canonical_json([m for _, m in canonical]):
            return None
    return make_figures(list(groups.values()))


def _addend(metric: Mapping[str, Any]) -> bool:
    value = metric.get("value")
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    if "availability" in metric or "reason" in metric or metric.get("aggregation") != "sum":
        return False
    if "samples" in metric:
        samples = metric["samples"]
        if not isinstance(samples, int) or isinstance(samples, bool):
            return False
        if samples < 0 or samples > MAX_SAFE_INTEGER:
            return False
    return True


def combine(parts: Sequence[Figures]) -> Figures | None:
    """Add figure sets in the given order (§6.2); ``None`` when nothing survives.

    Only qualifier groups present in every part, and in them only metric
    identities every part can add, survive; samples must be all present (and
    their total safe) or all absent; the total must be finite. Groups whose
    addends have one identity list (the usual case) are added position by
    position, without looking identities up; plain ones (numbers only) as
    columns of values.
    """
    common = set(parts[0].by_qualifier)
    for part in parts[1:]:
        common &= part.by_qualifier.keys()
    groups: list[GroupTexts] = []
    for qualifier_key in sorted(common):
        members = [part.by_qualifier[qualifier_key] for part in parts]
        order = members[0].addend_order
        summed: list[tuple[Identity, Mapping[str, Any]]] = []
        known: list[str | None] | None = None
        if all(member.addend_order == order for member in members):
            known = []
            prefixes = members[0].addend_prefixes
            if all(member.plain for member in members):
                for position, plain_total in _plain_sums(members):
                    summed.append((order[position], plain_total))
                    known.append(prefixes[position])
            else:
                for position, identity in enumerate(order):
                    total = _summed([member.addend_metrics[position] for member in members])
                    if total is not None:
                        summed.append((identity, total))
                        # a plain sum keeps the first addend's name, unit and "sum"
                        prefix = prefixes[position]
                        known.append(prefix if prefix and len(total) == 4 else value_prefix(total))
        else:
            identities = set(order)
            for member in members[1:]:
                identities &= member.addends.keys()
            for identity in sorted(identities):
                total = _summed([member.addends[identity] for member in members])
                if total is not None:
                    summed.append((identity, total))
        if summed:
            groups.append(make_group(qualifier_key, members[0].qualifiers, tuple(summed), known))
    if not groups:
        return None
    return make_figures(groups)


def _plain_sums(members: list[Group]) -> list[tuple[int, Mapping[str, Any]]]:
    """``_summed`` for plain groups with one addend order (numbers only, no samples,
    no qualifiers): (position, sum) for each finite total, values added in order
    starting from integer 0."""
    first = members[0].addend_metrics
    totals: list[int | float] = [0 + metric["value"] for metric in first]
    for member in members[1:]:
        for position, metric in enumerate(member.addend_metrics):
            totals[position] = totals[position] + metric["value"]
    sums: list[tuple[int, Mapping[str, Any]]] = []
    for position, total in enumerate(totals):
        if type(total) is float and not math.isfinite(total):
            continue
        metric = first[position]
        sums.append(
            (
                position,
                {
                    "name": metric["name"],
                    "unit": metric["unit"],
                    "value": total,
                    "aggregation": "sum",
                },
            )
        )
    return sums


def _summed(metrics: list[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The sum of addends with one identity, in order; ``None`` when it is not allowed."""
    first = metrics[0]
    with_samples = "samples" in first
    samples_total = 0
    if any(("samples" in m) != with_samples for m in metrics):
        return None
    if with_samples:
        samples_total = sum(int(m["samples"]) for m in metrics)
        if samples_total > MAX_SAFE_INTEGER:
            return None
    total: int | float = 0
    for metric in metrics:
        total = total + metric["value"]
    if isinstance(total, float) and not math.isfinite(total):
        return None
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
    return result


def _exact(metric: Mapping[str, Any]) -> bool:
    value = metric["value"]
    return not isinstance(value, float) or (value.is_integer() and abs(value) < 2**40)


class OriginSums:
    """The usable origins' figure sets, plus memoized exact totals of origin sets.

    ``total(origins)`` is the combination of the origins' own figures in
    sorted order; callers use it only when every value adds exactly, so the
    order does not matter and any cover of those origins gives this total.
    """

    __slots__ = ("_totals", "figures")

    def __init__(self, figures: Mapping[int, Figures]) -> None:
        self.figures: dict[int, Figures] = dict(figures)
        """Origin -> its own figure set (the usable origins only)."""
        self._totals: dict[frozenset[int], Figures | None] = {}

    def has_all(self, origins: frozenset[int]) -> bool:
        """Is every one of ``origins`` a usable origin?"""
        figures = self.figures
        return all(origin in figures for origin in int_objects(origins))

    def total(self, origins: frozenset[int]) -> Figures | None:
        """Exact combination of ``origins`` (a copy for a single origin)."""
        totals = self._totals
        if origins in totals:
            return totals[origins]
        if len(origins) == 1:
            (only,) = origins
            value: Figures | None = self.figures[only]
        else:
            figures = self.figures
            value = combine([figures[o] for o in sorted(origins)])
        totals[origins] = value
        return value

    def total_of_parts(self, parts: Sequence[frozenset[int]]) -> Figures | None:
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
        value: Figures | None = None
        if all(total is not None for total in totals):
            value = combine([total for total in totals if total is not None])
        self._totals[union] = value
        return value
