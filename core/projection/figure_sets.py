"""Figure sets: canonical metrics, origin records' figures and arithmetic (§6.1, §6.2).

A *figure set* is what a record would print on a target: one group per distinct
breakdown-qualifier object (groups sorted by canonical qualifier JSON), each
holding metrics de-duplicated by identity (name, unit, canonical qualifiers) and
sorted by it. Two figure sets are equal iff their canonical key (sorted-key,
compact JSON, written by ``figure_keys``) is equal, so ``5`` and ``5.0`` differ.

Decides: whether an authoritative entity's breakdowns form a usable figure set,
and what a combination of several records gives (only explicit ``sum`` metrics
present in every part survive; a copy is never filtered). Every figure set is
made by one builder (``build_group`` for each group, ``build_figures`` for the
set), whatever asks for it: an origin's breakdowns (through the plain-shape fast
path of ``OriginShapes`` or the general path) or a combination (added position by
position, as columns of plain values, or identity by identity). ``OriginSums`` is
the arithmetic of one projection run: every combination the stages ask for goes
through it. Cost: linear in the number of metrics involved; keys are built once
per figure set.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final, cast

from perfline.core.document_canonical import METRIC_KEY_ORDER
from perfline.core.mypyc_idioms import int_objects
from perfline.core.projection.exact_sums import Partials, exact_total
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
        "addend_partials",
        "addend_prefixes",
        "addends",
        "metrics",
        "plain",
        "qualifier_key",
        "qualifiers",
    )

    def __init__(
        self,
        qualifier_key: str,
        qualifiers: Mapping[str, Any],
        metrics: tuple[Mapping[str, Any], ...],
        addends: dict[Identity, Mapping[str, Any]],
        addend_prefixes: tuple[str, ...],
        addend_partials: tuple[Partials | None, ...] | None = None,
    ) -> None:
        self.qualifier_key = qualifier_key
        self.qualifiers = qualifiers
        self.metrics = metrics
        """The metrics, sorted by identity."""
        self.addends: Mapping[Identity, Mapping[str, Any]] = addends
        self.addend_order = tuple(addends)
        """The addends' identities in sorted order (``metrics`` order)."""
        self.addend_metrics = tuple(addends.values())
        """The addends in that order."""
        self.addend_prefixes = addend_prefixes
        """Their ``figure_keys.value_prefix`` in that order ("" where there is none)."""
        self.plain = all(addend_prefixes)
        """Every addend is plain (has a value prefix: a number, no samples or qualifiers)."""
        self.addend_partials = addend_partials
        """Exact sums only (``exact_sums``): each addend's exact value where its printed
        value rounds it (``None`` where the value is exact; ``None`` for the whole group
        when every value is)."""


class FigureSet:  # a value: never mutated (see records.py)
    """A canonical figure set with its comparison key."""

    __slots__ = ("by_qualifier", "exact", "groups", "key")

    def __init__(
        self, groups: tuple[Group, ...], key: str, by_qualifier: Mapping[str, Group], exact: bool
    ) -> None:
        self.groups = groups
        self.key = key
        self.by_qualifier = by_qualifier
        self.exact = exact
        """True when sums of these figures do not depend on the order of addition: with
        exact sums always; in the reference's arithmetic when every summable value is
        exact in binary floating point under any order (integers are; floats are when
        integral and small, < 2**40, so a sum of up to 2**13 of them is exact)."""

    def rounded(self, always_new: bool = False) -> FigureSet:
        """These figures taken at their printed values (exact values dropped): what a
        contributor merged from several records with these figures stands for. The
        same object when nothing is dropped, unless ``always_new``."""
        if not always_new and all(group.addend_partials is None for group in self.groups):
            return self
        groups = tuple(
            [
                Group(g.qualifier_key, g.qualifiers, g.metrics, dict(g.addends), g.addend_prefixes)
                for g in self.groups
            ]
        )
        return FigureSet(groups, self.key, {g.qualifier_key: g for g in groups}, self.exact)


GroupTexts = tuple[Group, tuple[str, ...]]
"""A group with each of its metrics' canonical JSON text (``figure_keys.metric_text``),
in order: what ``build_figures`` writes the figure key from. A figure set keeps only the
key: kept, the texts would add about a tenth to the projection's memory."""


def build_group(
    qualifier_key: str,
    qualifiers: Mapping[str, Any],
    identities: list[Identity],
    metrics: list[Mapping[str, Any]],
    prefixes: list[str | None] | None = None,
    sums: list[bool] | None = None,
    prefix_memo: dict[tuple[str, str, str], str] | None = None,
    partials: list[Partials | None] | None = None,
) -> GroupTexts:
    """A group with its addends and texts worked out (``metrics`` sorted by identity,
    ``identities`` theirs).

    What the caller already knows is taken as it is: ``prefixes``, the metrics'
    ``value_prefix`` (a metric with a prefix is written from it and is an addend iff
    its aggregation is ``sum``); ``sums``, whether each metric is an addend (with
    ``prefixes`` that are all strings). Otherwise each prefix is written, through
    ``prefix_memo`` (prefixes already written, by (aggregation, name, unit)).
    ``partials``: each metric's exact value where its value rounds it (exact sums).
    """
    addends: dict[Identity, Mapping[str, Any]] = {}
    addend_prefixes: list[str] = []
    exact_values: list[Partials | None] = []
    texts: list[str] = []
    for position in range(len(metrics)):
        metric = metrics[position]
        prefix = value_prefix(metric, prefix_memo) if prefixes is None else prefixes[position]
        if prefix is None:
            texts.append(metric_text(metric))
            addend = _addend(metric)
        else:
            texts.append(prefix + repr(metric["value"]) + "}")
            # a plain metric (a number, no samples or availability) adds iff it is a sum
            addend = metric["aggregation"] == "sum" if sums is None else sums[position]
        if addend:
            addends[identities[position]] = metric
            addend_prefixes.append("" if prefix is None else prefix)
            if partials is not None:
                exact_values.append(partials[position])
    kept_partials: tuple[Partials | None, ...] | None = None
    if any(value is not None for value in exact_values):
        kept_partials = tuple(exact_values)
    group = Group(
        qualifier_key, qualifiers, tuple(metrics), addends, tuple(addend_prefixes), kept_partials
    )
    return group, tuple(texts)


def _qualifier_key_of(group: GroupTexts) -> str:
    return group[0].qualifier_key


def build_figures(groups: Sequence[GroupTexts], exact_sums: bool = False) -> FigureSet:
    """The figure set of ``groups`` (distinct qualifier keys): sorted, with its key
    (``exact_sums``: the run adds exactly, so every figure set is order-free)."""
    ordered = sorted(groups, key=_qualifier_key_of) if len(groups) > 1 else groups
    kept = tuple([group for group, _ in ordered])
    exact = exact_sums or all(_exact(metric) for group in kept for metric in group.addends.values())
    return FigureSet(
        kept,
        figures_key((group.qualifier_key, texts) for group, texts in ordered),
        {group.qualifier_key: group for group in kept},
        exact,
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


_SUM_VIEW_SHAPE: Final[tuple[str, ...]] = ("name", "unit", "value", "aggregation")
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


def _exact(metric: Mapping[str, Any]) -> bool:
    value = metric["value"]
    return not isinstance(value, float) or (value.is_integer() and abs(value) < 2**40)


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


ORIGIN_NODE: Final = 0
COMBINED_NODE: Final = 1
ROUNDED_NODE: Final = 2


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
