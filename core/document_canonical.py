"""The fast path of ``normalize_result``: the canonical JSON form of a valid result.

The pydantic models in ``perfline.core.document`` are the specification of a
result; parsing ~100k objects through them costs about a second, which the
daemon pays on every re-analysis. This module computes the same canonical
form (schema key order, empty optional values omitted, unknown keys dropped)
directly on the JSON values for results that are valid, and answers ``None``
for anything it is not certain about, so that the caller falls back to the
models (which then report the precise problem). A test checks that both
routes give identical output on every conformance case and on generated
results. Cost: one pass over the result, O(size).

An object that is already in canonical form (its keys a subsequence of the
schema order, every optional value present and non-empty, every value of the
right type) is returned as it is rather than rebuilt, and a list whose items
all come back as they are is kept too; only objects that need a change are
rebuilt. ``canonical_result(raw, canonical_before=...)`` also takes, without
looking at them, the list items of ``raw`` that are the very objects (``is``)
of a result already in canonical form: the post-processing stages never
mutate their input, so what they passed through unchanged is still canonical.

Nested free-form objects (attributes, qualifiers, details) and, when they are
canonical already, whole records are shared with the input, not copied: every
stage treats its input as immutable.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final, cast

from perfline.core.document_shapes import (
    ADVICE_CATEGORIES,
    ADVICE_SEVERITIES,
    BREAKDOWN_KEY_ORDER,
    CHECK_STATUSES,
    ENTITY_KEY_ORDER,
    LEGACY_ENTITY_FIELDS,
    METRIC_REQUIRED_KEYS,
    MODES,
    RESULT_KINDS,
    STATUSES,
    SUM_METRIC_KEYS,
    UNAVAILABLE,
    AdviceJson,
    BreakdownJson,
    CheckJson,
    EntityJson,
    EntityKindJson,
    MetricJson,
    ResultJson,
    ResultMode,
)
from perfline.core.document_shapes import METRIC_KEY_ORDER as METRIC_KEY_ORDER

# The shapes module is plain Python: its values are copied into this module's own
# ``Final`` names, which the compiled build holds as C statics.
_RESULT_KINDS: Final[frozenset[str]] = RESULT_KINDS
_STATUSES: Final[frozenset[str]] = STATUSES
_MODES: Final[frozenset[str]] = MODES
_CHECK_STATUSES: Final[frozenset[str]] = CHECK_STATUSES
_CATEGORIES: Final[frozenset[str]] = ADVICE_CATEGORIES
_SEVERITIES: Final[frozenset[str]] = ADVICE_SEVERITIES
_LEGACY: Final[frozenset[str]] = frozenset(LEGACY_ENTITY_FIELDS)
_UNAVAILABLE: Final[str] = UNAVAILABLE
_METRIC_ORDER: Final[tuple[str, ...]] = METRIC_KEY_ORDER
_METRIC_REQUIRED: Final[tuple[str, ...]] = METRIC_REQUIRED_KEYS
_SUM_SHAPE: Final[tuple[str, ...]] = SUM_METRIC_KEYS
_BREAKDOWN_ORDER: Final[tuple[str, ...]] = BREAKDOWN_KEY_ORDER
_ENTITY_ORDER: Final[tuple[str, ...]] = ENTITY_KEY_ORDER


class _Unsure(Exception):
    """The value is not plainly valid: let the models decide."""


def _rank_from(order: tuple[str, ...], start: int, key: str) -> int:
    """The position of ``key`` in ``order`` at or after ``start``, else ``len(order)``."""
    rank = start
    while rank < len(order) and order[rank] != key:
        rank += 1
    return rank


def _keys_are(raw: dict[str, Any], keys: tuple[str, ...]) -> bool:
    """Whether ``raw``, which has as many keys as ``keys``, has exactly those in that order."""
    for position, key in enumerate(raw):  # noqa: SIM110
        if key != keys[position]:
            return False
    return True


def _in_order(raw: dict[str, Any], order: tuple[str, ...]) -> bool:
    """Whether every key of ``raw`` is in ``order`` and they come in that order: the
    shape of a record in canonical form, whichever optional keys it leaves out."""
    rank = 0
    for key in raw:
        rank = _rank_from(order, rank, key) + 1
        if rank > len(order):
            return False
    return True


#: Per result key, a list object whose canonical form is already known, and that form.
KnownLists = Mapping[str, tuple[list[Any], list[Any]]]


def canonical_result(
    raw: Any,
    *,
    canonical_before: Mapping[str, Any] | None = None,
    known_lists: KnownLists | None = None,
) -> ResultJson | None:
    """The canonical form of a plainly valid result, else ``None``.

    ``canonical_before``, when given, is a result in canonical form whose list
    items, wherever ``raw`` holds the very same objects, are taken unchecked.
    ``known_lists`` gives, per key, a list whose canonical form was worked out
    before: when ``raw`` holds that very list object, the form is taken as it is.
    """
    try:
        return _result(raw, canonical_before, known_lists)
    except _Unsure:
        return None


def _result(
    raw: Any, before: Mapping[str, Any] | None, known_lists: KnownLists | None = None
) -> ResultJson:
    if type(raw) is not dict:
        raise _Unsure
    if not (_member(raw.get("kind"), _RESULT_KINDS) and _member(raw.get("status"), _STATUSES)):
        raise _Unsure
    out: ResultJson = {
        "kind": raw["kind"],
        "status": raw["status"],
        "producer": _string(raw.get("producer")),
    }
    if (warnings := _list(raw, "warnings", _string, before)) is not None:
        out["warnings"] = warnings
    if (errors := _list(raw, "errors", _string, before)) is not None:
        out["errors"] = errors
    if (metrics := _list(raw, "metrics", _metric, before)) is not None:
        out["metrics"] = metrics
    if (breakdowns := _list(raw, "breakdowns", _breakdown, before, known_lists)) is not None:
        out["breakdowns"] = breakdowns
    mode = raw.get("mode")
    if mode is not None:
        if type(mode) is not str or mode not in _MODES:
            raise _Unsure
        out["mode"] = cast(ResultMode, mode)
    if (checks := _list(raw, "checks", _check, before)) is not None:
        out["checks"] = checks
    if (entities := _list(raw, "entities", _entity, before, known_lists)) is not None:
        out["entities"] = entities
    kinds = _list(raw, "entity_kinds", _entity_kind, before, known_lists)
    if kinds is not None:
        out["entity_kinds"] = kinds
    if (advice := _list(raw, "advice", _advice, before)) is not None:
        out["advice"] = advice
    if len(out) == len(raw) and _values_are(out, raw) and tuple(raw) == tuple(out):
        return cast(ResultJson, raw)
    return out


def _values_are(out: ResultJson, raw: dict[str, Any]) -> bool:
    """Whether every value of ``out`` is the very object ``raw`` holds under its key."""
    for key, value in out.items():  # noqa: SIM110
        if value is not raw[key]:
            return False
    return True


def _member(value: Any, allowed: frozenset[str]) -> bool:
    return type(value) is str and value in allowed


def _list(
    raw: dict[str, Any],
    key: str,
    item: Any,
    before: Mapping[str, Any] | None,
    known_lists: KnownLists | None = None,
) -> list[Any] | None:
    """The canonical form of the list ``raw[key]`` (each item through ``item``), or
    ``None`` when it is absent or empty (omitted from the canonical form)."""
    if key not in raw:
        return None
    values = raw[key]
    if type(values) is not list:
        raise _Unsure
    if not values:
        return None
    if known_lists is not None:
        worked_out = known_lists.get(key)
        if worked_out is not None and worked_out[0] is values:
            return worked_out[1]
    known = before.get(key) if before is not None else None
    if known is values:
        return values
    if type(known) is list and known:
        taken = {id(value) for value in known}
        items = [value if id(value) in taken else item(value) for value in values]
    else:
        items = [item(value) for value in values]
    return values if _same_items(items, values) else items


def _as_given(out: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` itself when it already was its canonical form ``out`` (same keys in
    the same order, equal values built from its own), else ``out``."""
    return raw if tuple(out) == tuple(raw) and out == raw else out


def _same_items(items: list[Any], values: list[Any]) -> bool:
    """Whether every item came back as the very object it was."""
    # Plain loops here and below: about twice as fast as all() over a generator.
    for new, old in zip(items, values, strict=True):  # noqa: SIM110
        if new is not old:
            return False
    return True


def _all_strings(values: list[Any]) -> bool:
    for value in values:  # noqa: SIM110
        if type(value) is not str:
            return False
    return True


def _metrics(values: list[Any]) -> list[MetricJson]:
    """The canonical form of a list of metrics: ``values`` itself when every metric
    is canonical as it is, else a new list."""
    changed: list[MetricJson] | None = None
    for position, metric in enumerate(values):
        canonical = _metric(metric)
        if changed is not None:
            changed.append(canonical)
        elif canonical is not metric:
            changed = values[:position]
            changed.append(canonical)
    return values if changed is None else changed


def _plain_sum(name: Any, unit: Any, value: Any, aggregation: Any) -> bool:
    """Whether these are the values of a metric with exactly the keys name, unit,
    value and aggregation in their canonical types (a finite number, non-empty
    aggregation); a missing key's ``None`` never is."""
    kind = type(value)
    return (
        (kind is int or kind is bool or (kind is float and math.isfinite(value)))
        and type(name) is str
        and type(unit) is str
        and type(aggregation) is str
        and bool(aggregation)
    )


def _string(value: Any) -> str:
    if type(value) is not str:
        raise _Unsure
    return value


def _strings(raw: dict[str, Any], key: str) -> list[str] | None:
    values = raw.get(key, ())
    if values == ():
        return None
    if type(values) is not list or not _all_strings(values):
        raise _Unsure
    return list(values) if values else None


def _optional_string(raw: dict[str, Any], key: str) -> str | None:
    value = raw.get(key)
    if value is None:
        return None
    if type(value) is not str:
        raise _Unsure
    return value or None


def _optional_object(raw: dict[str, Any], key: str) -> dict[str, Any] | None:
    value = raw.get(key)
    if value is None:
        return None
    if type(value) is not dict:
        raise _Unsure
    return value or None


def metric_view(metric: Mapping[str, Any]) -> dict[str, Any]:
    """The re-serialized form of a metric without checking it: its keys in the
    schema's order, unknown keys dropped, absent, ``None`` and empty values left
    out (except the required name and unit). For a valid metric this is its
    canonical ``MetricJson``."""
    view: dict[str, Any] = {}
    for key in _METRIC_ORDER:
        if key not in metric:
            continue
        value = metric[key]
        if value is None or (
            isinstance(value, (dict, list, str)) and not value and key not in _METRIC_REQUIRED
        ):
            continue
        view[key] = value
    return view


def _metric(raw: Any) -> MetricJson:
    if type(raw) is dict:
        if len(raw) == 4:  # by far the most common: the sum shape, maybe reordered
            name: Any = raw.get("name")
            unit: Any = raw.get("unit")
            value: Any = raw.get("value")
            aggregation: Any = raw.get("aggregation")
            if _plain_sum(name, unit, value, aggregation):
                if _keys_are(raw, _SUM_SHAPE):
                    return cast(MetricJson, raw)
                return {"name": name, "unit": unit, "value": value, "aggregation": aggregation}
        if _metric_as_is(raw):
            return cast(MetricJson, raw)
        reordered = _reordered(raw, _METRIC_ORDER)
        if reordered is not None and _metric_as_is(reordered):
            return cast(MetricJson, reordered)
    return _metric_built(raw)


def _reordered(raw: dict[str, Any], order: tuple[str, ...]) -> dict[str, Any] | None:
    """``raw``'s items in canonical key order, or ``None`` if it has other keys."""
    reordered = {key: raw[key] for key in order if key in raw}
    return reordered if len(reordered) == len(raw) else None


def _metric_as_is(raw: dict[str, Any]) -> bool:
    """Whether a metric needs no change: its keys in canonical order, its values
    of their canonical types."""
    if type(raw.get("name")) is not str or type(raw.get("unit")) is not str:
        return False
    rank = 0
    for key, value in raw.items():
        rank = _rank_from(_METRIC_ORDER, rank, key) + 1
        if rank > len(_METRIC_ORDER):
            return False
        if key == "value":
            kind = type(value)
            if kind is float:
                if not math.isfinite(value):
                    return False
            elif kind is not int and kind is not bool:
                return False
        elif key == "aggregation" or key == "reason":
            if type(value) is not str or not value:
                return False
        elif key == "samples":
            if type(value) is not int:
                return False
        elif key == "qualifiers":
            if type(value) is not dict or not value:
                return False
        elif key == "availability" and value != _UNAVAILABLE:
            return False
    if "value" in raw:
        return "availability" not in raw and "reason" not in raw
    return (
        "availability" in raw
        and "reason" in raw
        and "aggregation" not in raw
        and "samples" not in raw
    )


def _metric_built(raw: Any) -> MetricJson:
    if type(raw) is not dict:
        raise _Unsure
    out: MetricJson = {"name": _string(raw.get("name")), "unit": _string(raw.get("unit"))}
    value = raw.get("value")
    aggregation = _optional_string(raw, "aggregation")
    samples = raw.get("samples")
    qualifiers = _optional_object(raw, "qualifiers")
    availability = raw.get("availability")
    reason = _optional_string(raw, "reason")
    if samples is not None and type(samples) is not int:
        raise _Unsure
    if value is not None:
        if type(value) not in (int, float, bool) or availability is not None or reason:
            raise _Unsure
        if type(value) is float and not math.isfinite(value):
            raise _Unsure
        out["value"] = value
    elif availability != _UNAVAILABLE or not reason or aggregation or samples is not None:
        raise _Unsure
    if aggregation is not None:
        out["aggregation"] = aggregation
    if samples is not None:
        out["samples"] = samples
    if qualifiers is not None:
        out["qualifiers"] = qualifiers
    if availability is not None:
        out["availability"] = availability
    if reason is not None:
        out["reason"] = reason
    return out


def _breakdown(raw: Any) -> BreakdownJson:
    if type(raw) is not dict or type(raw.get("metrics")) is not list:
        raise _Unsure
    metrics = _metrics(raw["metrics"])
    if _breakdown_as_is(raw):
        if metrics is raw["metrics"] and _in_order(raw, _BREAKDOWN_ORDER):
            return cast(BreakdownJson, raw)
        reordered = _reordered(raw, _BREAKDOWN_ORDER)
        if reordered is not None:
            reordered["metrics"] = metrics
            return cast(BreakdownJson, reordered)
    out: BreakdownJson = {
        "entity_id": _string(raw.get("entity_id")),
        "metrics": metrics,
    }
    record_id = _optional_string(raw, "id")
    if record_id is not None:
        out["id"] = record_id
    qualifiers = raw.get("qualifiers", {})
    if type(qualifiers) is not dict:
        raise _Unsure
    if qualifiers:
        out["qualifiers"] = qualifiers
    return out


def _breakdown_as_is(raw: dict[str, Any]) -> bool:
    """Whether a breakdown's own values (its metrics and key order aside) need no change."""
    if type(raw.get("entity_id")) is not str:
        return False
    if "id" in raw:
        record_id = raw["id"]
        if type(record_id) is not str or not record_id:
            return False
    if "qualifiers" in raw:
        qualifiers = raw["qualifiers"]
        if type(qualifiers) is not dict or not qualifiers:
            return False
    return True


def _check(raw: Any) -> CheckJson:
    if type(raw) is not dict or not _member(raw.get("status"), _CHECK_STATUSES):
        raise _Unsure
    out: CheckJson = {"id": _string(raw.get("id")), "status": raw["status"]}
    entity_id = _optional_string(raw, "entity_id")
    if entity_id is not None:
        out["entity_id"] = entity_id
    details = _optional_object(raw, "details")
    if details is not None:
        out["details"] = details
    return cast(CheckJson, _as_given(cast(dict[str, Any], out), raw))


def _advice(raw: Any) -> AdviceJson:
    if type(raw) is not dict:
        raise _Unsure
    if not (
        _member(raw.get("category"), _CATEGORIES) and _member(raw.get("severity"), _SEVERITIES)
    ):
        raise _Unsure
    out: AdviceJson = {
        "id": _string(raw.get("id")),
        "category": raw["category"],
        "severity": raw["severity"],
        "message": _string(raw.get("message")),
    }
    affected = _strings(raw, "affected_entity_ids")
    if affected is not None:
        out["affected_entity_ids"] = affected
    details = _optional_object(raw, "details")
    if details is not None:
        out["details"] = details
    return cast(AdviceJson, _as_given(cast(dict[str, Any], out), raw))


def _entity(raw: Any) -> EntityJson:
    if type(raw) is dict:
        if _entity_as_is(raw):
            return cast(EntityJson, raw)
        reordered = _reordered(raw, _ENTITY_ORDER)
        if reordered is not None and _entity_as_is(reordered):
            return cast(EntityJson, reordered)
    return _entity_built(raw)


def _entity_as_is(raw: dict[str, Any]) -> bool:
    """Whether an entity needs no change: its keys in canonical order, its values
    of their canonical types."""
    rank = 0
    required = 0
    for key, value in raw.items():
        rank = _rank_from(_ENTITY_ORDER, rank, key) + 1
        if rank > len(_ENTITY_ORDER):
            return False
        kind = type(value)
        if key == "id" or key == "kind" or key == "name":
            if kind is not str:
                return False
            required += 1
        elif key == "parent_ids" or key == "child_ids":
            if kind is not list or not value:
                return False
            if not _all_strings(value):
                return False
        elif key == "attributes":
            if kind is not dict or not value:
                return False
        elif kind is not str or not value:  # placement, stack_trace
            return False
    return required == 3  # id, kind and name


def _entity_built(raw: Any) -> EntityJson:
    if type(raw) is not dict or not _LEGACY.isdisjoint(raw):
        raise _Unsure
    out: EntityJson = {
        "id": _string(raw.get("id")),
        "kind": _string(raw.get("kind")),
        "name": _string(raw.get("name")),
    }
    placement = _optional_string(raw, "placement")
    if placement is not None:
        out["placement"] = placement
    parent_ids = _strings(raw, "parent_ids")
    if parent_ids is not None:
        out["parent_ids"] = parent_ids
    child_ids = _strings(raw, "child_ids")
    if child_ids is not None:
        out["child_ids"] = child_ids
    attributes = raw.get("attributes", {})
    if type(attributes) is not dict:
        raise _Unsure
    if attributes:
        out["attributes"] = attributes
    stack_trace = _optional_string(raw, "stack_trace")
    if stack_trace is not None:
        out["stack_trace"] = stack_trace
    return out


def _entity_kind(raw: Any) -> EntityKindJson:
    if type(raw) is not dict:
        raise _Unsure
    out: EntityKindJson = {"id": _string(raw.get("id"))}
    parent_kinds = _strings(raw, "parent_kinds")
    if parent_kinds is not None:
        out["parent_kinds"] = parent_kinds
    child_kinds = _strings(raw, "child_kinds")
    if child_kinds is not None:
        out["child_kinds"] = child_kinds
    return cast(EntityKindJson, _as_given(cast(dict[str, Any], out), raw))
