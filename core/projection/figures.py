"""Figure sets: canonical metrics, origin records' figures and arithmetic (§6.1, §6.2).

A *figure set* is what a record would print on a target: one group per distinct
breakdown-qualifier object (groups sorted by canonical qualifier JSON), each
holding metrics de-duplicated by identity (name, unit, canonical qualifiers) and
sorted by it. Two figure sets are equal iff their canonical key (sorted-key,
compact JSON) is equal, so ``5`` and ``5.0`` differ.

Decides: whether an authoritative entity's breakdowns form a usable figure set,
and what a combination of several records gives (only explicit ``sum`` metrics
present in every part survive; a copy is never filtered). Cost: linear in the
number of metrics involved; keys are built once per figure set.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfline.core.document_canonical import METRIC_KEY_ORDER

MAX_SAFE_INTEGER = 2**53 - 1


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _refuse(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _one_shot_encoder() -> Callable[[Any], str]:
    """The C encoder that ``JSONEncoder.encode`` would build for ``_CANONICAL`` on every
    call, built once (same text: same encoder, same settings, no cycle check on values
    that cannot hold cycles); ``_CANONICAL.encode`` where the C accelerator is missing."""
    make = getattr(json.encoder, "c_make_encoder", None)
    quote = getattr(json.encoder, "c_encode_basestring", None)
    if make is None or quote is None:
        return _CANONICAL.encode
    chunks = make(None, _refuse, quote, None, ":", ",", True, False, True)

    def encode(value: Any) -> str:
        if isinstance(value, str):
            return str(quote(value))
        return "".join(chunks(value, 0))

    return encode


_ENCODE = _one_shot_encoder()


def canonical_json(value: Any) -> str:
    """Sorted-key compact JSON: the comparison text of figures and qualifiers."""
    return _ENCODE(value)


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


def metric_identity(metric: Mapping[str, Any]) -> tuple[str, str, str]:
    """(name, unit, canonical qualifiers): the correspondence key of a metric."""
    qualifiers = metric.get("qualifiers")
    text = canonical_json(qualifiers) if qualifiers else "{}"
    return (str(metric.get("name")), str(metric.get("unit")), text)


Identity = tuple[str, str, str]


@dataclass(slots=True)  # a value: never mutated (see records.py)
class Group:
    """One breakdown-qualifier group of a figure set.

    ``addends`` holds the metrics that may take part in a sum on their own
    (numeric, available, ``sum`` aggregation, valid ``samples``), by identity.
    """

    qualifier_key: str
    qualifiers: Mapping[str, Any]
    metrics: tuple[tuple[Identity, Mapping[str, Any]], ...]
    addends: Mapping[Identity, Mapping[str, Any]]


@dataclass(slots=True)  # a value: never mutated (see records.py)
class Figures:
    """A canonical figure set with its comparison key."""

    groups: tuple[Group, ...]
    key: str
    by_qualifier: Mapping[str, Group]
    exact: bool


def make_group(
    qualifier_key: str,
    qualifiers: Mapping[str, Any],
    metrics: tuple[tuple[Identity, Mapping[str, Any]], ...],
) -> Group:
    """A group with its addends worked out."""
    addends = {identity: metric for identity, metric in metrics if _addend(metric)}
    return Group(qualifier_key, qualifiers, metrics, addends)


def make_figures(groups: Sequence[Group]) -> Figures:
    """Sort the groups and compute the canonical key."""
    ordered = tuple(sorted(groups, key=lambda group: group.qualifier_key))
    payload = [
        {"qualifiers": dict(group.qualifiers), "metrics": [m for _, m in group.metrics]}
        for group in ordered
    ]
    exact = all(_exact(metric) for group in ordered for metric in group.addends.values())
    return Figures(
        ordered,
        canonical_json(payload),
        {group.qualifier_key: group for group in ordered},
        exact,
    )


def _canonical_metrics(
    metrics: Sequence[Any],
) -> tuple[tuple[tuple[str, str, str], Mapping[str, Any]], ...] | None:
    by_identity: dict[tuple[str, str, str], dict[str, Any]] = {}
    for metric in metrics:
        if not isinstance(metric, Mapping):
            return None
        view = metric_view(metric)
        identity = metric_identity(view)
        known = by_identity.get(identity)
        if known is None:
            by_identity[identity] = view
        elif canonical_json(known) != canonical_json(view):
            return None
    return tuple(sorted(by_identity.items(), key=lambda item: item[0]))


def origin_figures(breakdowns: Sequence[Mapping[str, Any]]) -> Figures | None:
    """The figure set of one authoritative entity, or ``None`` when it is unusable.

    Unusable: a breakdown without metrics, two metrics with one identity but
    different fields, or two breakdowns with equal qualifiers but different figures.
    """
    groups: dict[str, Group] = {}
    for breakdown in breakdowns:
        metrics = breakdown.get("metrics")
        if not isinstance(metrics, list) or not metrics:
            return None
        canonical = _canonical_metrics(metrics)
        if canonical is None:
            return None
        qualifiers = breakdown.get("qualifiers") or {}
        qualifier_key = canonical_json(qualifiers)
        group = make_group(qualifier_key, qualifiers, canonical)
        known = groups.get(qualifier_key)
        if known is None:
            groups[qualifier_key] = group
        elif canonical_json([m for _, m in known.metrics]) != canonical_json(
            [m for _, m in canonical]
        ):
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
    their total safe) or all absent; the total must be finite.
    """
    common = set(parts[0].by_qualifier)
    for part in parts[1:]:
        common &= part.by_qualifier.keys()
    groups: list[Group] = []
    for qualifier_key in sorted(common):
        members = [part.by_qualifier[qualifier_key] for part in parts]
        identities = set(members[0].addends)
        for member in members[1:]:
            identities &= member.addends.keys()
        summed: list[tuple[Identity, Mapping[str, Any]]] = []
        for identity in sorted(identities):
            metrics = [member.addends[identity] for member in members]
            first = metrics[0]
            with_samples = "samples" in first
            samples_total = 0
            if any(("samples" in m) != with_samples for m in metrics):
                continue
            if with_samples:
                samples_total = sum(int(m["samples"]) for m in metrics)
                if samples_total > MAX_SAFE_INTEGER:
                    continue
            total: int | float = 0
            for metric in metrics:
                total = total + metric["value"]
            if isinstance(total, float) and not math.isfinite(total):
                continue
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
            summed.append((identity, result))
        if summed:
            groups.append(make_group(qualifier_key, members[0].qualifiers, tuple(summed)))
    if not groups:
        return None
    return make_figures(groups)


def _exact(metric: Mapping[str, Any]) -> bool:
    value = metric["value"]
    return not isinstance(value, float) or (value.is_integer() and abs(value) < 2**40)


def exact_values(figures: Figures) -> bool:
    """True when every summable value is exact in binary floating point under any order.

    Integers are; floats are when they are integral and small (< 2**40), so a
    sum of up to 2**13 of them is exact whatever the order.
    """
    return figures.exact


class OriginSums(dict[int, Figures]):
    """The usable origins' figure sets, plus memoized exact totals of origin sets.

    ``total(origins)`` is the combination of the origins' own figures in
    sorted order; callers use it only when every value adds exactly, so the
    order does not matter and any cover of those origins gives this total.
    """

    def __init__(self, figures: Mapping[int, Figures]) -> None:
        super().__init__(figures)
        self._totals: dict[frozenset[int], Figures | None] = {}

    def total(self, origins: frozenset[int]) -> Figures | None:
        """Exact combination of ``origins`` (a copy for a single origin)."""
        known = self._totals.get(origins, self)
        if known is not self:
            return known  # type: ignore[return-value]
        if len(origins) == 1:
            (only,) = origins
            value: Figures | None = self[only]
        else:
            value = combine([self[o] for o in sorted(origins)])
        self._totals[origins] = value
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
        known = self._totals.get(union, self)
        if known is not self:
            return known  # type: ignore[return-value]
        totals = [self.total(part) for part in sorted(parts, key=min)]
        value: Figures | None = None
        if all(total is not None for total in totals):
            value = combine([total for total in totals if total is not None])
        self._totals[union] = value
        return value
