"""An origin's figure set from its breakdowns (§6.1): the plain-shape fast path and the
general path.

An authoritative entity's breakdowns form a usable figure set, or none (a breakdown
without metrics, two metrics with one identity but different fields, two breakdowns
with equal qualifiers but different figures). Breakdowns of one backend list the same
*plain* metrics (each its own sum view: ``name``, ``unit``, a number, an
``aggregation``, in that order) in the same order, so ``OriginShapes`` keeps what a
result's origins share (the value prefixes, the sorted order of each identity
sequence, the last plain shape) and reads only the values of a breakdown of a known
shape. Both paths build with ``figure_sets.build_group``/``build_figures``: the same
figure set. Cost: linear in the metrics; a known shape costs one pass over them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, cast

from perfline.core.document_canonical import metric_view
from perfline.core.document_shapes import SUM_METRIC_KEYS
from perfline.core.projection.figure_keys import canonical_json, finite_number, value_prefix
from perfline.core.projection.figure_sets import (
    FigureSet,
    GroupTexts,
    Identity,
    build_figures,
    build_group,
    metric_identity,
)

_SUM_VIEW_SHAPE: Final[tuple[str, ...]] = SUM_METRIC_KEYS
"""Typed of any length so that the compiled build keeps it one tuple object (see ``Identity``)."""


def in_sum_view_order(metric: dict[str, Any]) -> bool:
    """Are the keys of ``metric`` exactly ``_SUM_VIEW_SHAPE``, in that order?

    Walks the keys in place: ``tuple(metric)`` would build a tuple through the
    generic iteration protocol for each metric of every origin breakdown."""
    if len(metric) != 4:
        return False
    for position, key in enumerate(metric):  # noqa: SIM110
        if key != _SUM_VIEW_SHAPE[position]:
            return False
    return True


def sum_view_value(metric: Any, name: str, unit: str, aggregation: str) -> Any:
    """The value of ``metric`` when it is a dict with the keys of ``_SUM_VIEW_SHAPE`` in
    that order and exactly this ``name``, ``unit`` and ``aggregation`` (all of type
    ``str``); ``None`` otherwise (callers reject a ``None`` value anyway).

    The check a breakdown of a known plain shape passes, up to its value: for a
    non-empty ``aggregation`` it is ``_is_plain_sum_view`` but the value's type."""
    if type(metric) is not dict or not in_sum_view_order(metric):
        return None
    fields = cast(dict[str, Any], metric)
    given_name = fields["name"]
    given_unit = fields["unit"]
    given_aggregation = fields["aggregation"]
    if (
        type(given_name) is not str
        or given_name != name
        or type(given_unit) is not str
        or given_unit != unit
        or type(given_aggregation) is not str
        or given_aggregation != aggregation
    ):
        return None
    return fields["value"]


def plain_sum_view(metric: Any) -> bool:
    """Is ``metric`` a plain sum view (see ``_is_plain_sum_view``)?"""
    return _is_plain_sum_view(metric)


def _is_plain_sum_view(metric: Any) -> bool:
    """Is ``metric`` a dict equal to its own ``metric_view`` with the plain sum keys
    (in that order, string name and unit, a number, a non-empty aggregation)?"""
    if type(metric) is not dict or not in_sum_view_order(metric):
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


class _PlainShape:  # a value: never mutated (see records.py)
    """The metric list of a plain breakdown up to its values: every metric its own
    plain sum view (``_is_plain_sum_view``) with a finite value, identities unique."""

    __slots__ = (
        "aggregations",
        "identities",
        "order",
        "prefixes",
        "sorted_identities",
        "sorted_prefixes",
        "sorted_sums",
    )

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
        sums = [aggregation == "sum" for aggregation in aggregations]
        # the group's lists, in sorted identity order (as ``build_group`` takes them)
        self.sorted_identities = [identities[position] for position in order]
        self.sorted_prefixes: list[str | None] = [prefixes[position] for position in order]
        self.sorted_sums = [sums[position] for position in order]
        """Whether each metric is an addend (``aggregations``, read once per shape)."""

    def fits(self, metrics: list[Any]) -> bool:
        """Do ``metrics`` have this shape (same fields but the values, finite values)?"""
        if len(metrics) != len(self.identities):
            return False
        for position in range(len(metrics)):
            identity = self.identities[position]
            value = sum_view_value(
                metrics[position], identity[0], identity[1], self.aggregations[position]
            )
            if value is None or not finite_number(value):
                return False
        return True


class OriginShapes:
    """What the origin figure sets of one result share, worked out once: the text
    prefix of each plain metric by (aggregation, name, unit) (see
    ``figure_keys.value_prefix``), the sorted order of each sequence of metric
    identities (breakdowns of one backend list the same metrics in the same order),
    and the last plain breakdown shape (``plain_figures``)."""

    __slots__ = ("_plain", "exact_sums", "orders", "prefixes")

    def __init__(self, exact_sums: bool = False) -> None:
        self.exact_sums = exact_sums
        """The run adds exactly (its figure sets are all order-free)."""
        self.prefixes: dict[tuple[str, str, str], str] = {}
        self.orders: dict[tuple[Identity, ...], tuple[int, ...] | None] = {}
        self._plain: _PlainShape | None = None

    def plain_figures(self, metrics: list[Any]) -> FigureSet | None:
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
        ordered = [metrics[position] for position in shape.order]
        group = build_group(
            "{}", {}, shape.sorted_identities, ordered, shape.sorted_prefixes, shape.sorted_sums
        )
        return build_figures([group], self.exact_sums)

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
) -> tuple[list[Identity], list[Mapping[str, Any]]] | None:
    """The metrics' identities and views sorted by identity, each identity once;
    ``None`` when one identity has different views."""
    views: list[Mapping[str, Any]] = []
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
            return [identities[p] for p in order], [views[p] for p in order]
    by_identity: dict[Identity, Mapping[str, Any]] = {}
    for identity, seen in zip(identities, views, strict=True):
        known = by_identity.get(identity)
        if known is None:
            by_identity[identity] = seen
        elif canonical_json(known) != canonical_json(seen):
            return None
    # identities are unique, so they alone give the order
    ordered = sorted(by_identity)
    return ordered, [by_identity[identity] for identity in ordered]


def origin_figures(
    breakdowns: Sequence[Mapping[str, Any]], shapes: OriginShapes | None = None
) -> FigureSet | None:
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
    prefixes = None if shapes is None else shapes.prefixes
    for breakdown in breakdowns:
        metrics = breakdown.get("metrics")
        if not isinstance(metrics, list) or not metrics:
            return None
        canonical = _canonical_metrics(metrics, shapes)
        if canonical is None:
            return None
        identities, views = canonical
        qualifiers = breakdown.get("qualifiers") or {}
        qualifier_key = canonical_json(qualifiers)
        group = build_group(qualifier_key, qualifiers, identities, views, prefix_memo=prefixes)
        known = groups.get(qualifier_key)
        if known is None:
            groups[qualifier_key] = group
        elif known[1] != group[1]:  # the metrics' texts: their canonical JSON
            return None
    return build_figures(list(groups.values()), shapes is not None and shapes.exact_sums)
