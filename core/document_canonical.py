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
from typing import Any, Final

_RESULT_KINDS: Final = frozenset({"compatibility", "performance"})
_STATUSES: Final = frozenset({"ok", "partial", "incompatible", "failed", "skipped"})
_MODES: Final = frozenset({"measured", "simulated", "predicted"})
_CHECK_STATUSES: Final = frozenset({"pass", "fail", "partial"})
_CATEGORIES: Final = frozenset({"compatibility", "performance", "optimization"})
_SEVERITIES: Final = frozenset({"info", "warning", "error"})
_LEGACY: Final = frozenset({"locations", "parent_id", "scope", "subgraph_kind"})


class _Unsure(Exception):
    """The value is not plainly valid: let the models decide."""


_RESULT_ORDER = (
    "kind",
    "status",
    "producer",
    "warnings",
    "errors",
    "metrics",
    "breakdowns",
    "mode",
    "checks",
    "entities",
    "entity_kinds",
    "advice",
)
METRIC_KEY_ORDER: Final[tuple[str, ...]] = (
    "name",
    "unit",
    "value",
    "aggregation",
    "samples",
    "qualifiers",
    "availability",
    "reason",
)
_SUM_SHAPE: Final[tuple[str, ...]] = ("name", "unit", "value", "aggregation")
_BREAKDOWN_ORDER: Final[tuple[str, ...]] = ("entity_id", "metrics", "id", "qualifiers")
_ENTITY_ORDER: Final[tuple[str, ...]] = (
    "id",
    "kind",
    "name",
    "placement",
    "parent_ids",
    "child_ids",
    "attributes",
    "stack_trace",
)


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
    canonical_before: dict[str, Any] | None = None,
    known_lists: KnownLists | None = None,
) -> dict[str, Any] | None:
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
    raw: Any, before: dict[str, Any] | None, known_lists: KnownLists | None = None
) -> dict[str, Any]:
    if type(raw) is not dict:
        raise _Unsure
    if not (_member(raw.get("kind"), _RESULT_KINDS) and _member(raw.get("status"), _STATUSES)):
        raise _Unsure
    out: dict[str, Any] = {"kind": raw["kind"], "status": raw["status"]}
    out["producer"] = _string(raw.get("producer"))
    _put_list(out, raw, "warnings", _string, before)
    _put_list(out, raw, "errors", _string, before)
    _put_list(out, raw, "metrics", _metric, before)
    _put_list(out, raw, "breakdowns", _breakdown, before)
    mode = raw.get("mode")
    if mode is not None:
        if type(mode) is not str or mode not in _MODES:
            raise _Unsure
        out["mode"] = mode
    _put_list(out, raw, "checks", _check, before)
    _put_list(out, raw, "entities", _entity, before, known_lists)
    _put_list(out, raw, "entity_kinds", _entity_kind, before, known_lists)
    _put_list(out, raw, "advice", _advice, before)
    if (
        len(out) == len(raw)
        and all(out[key] is raw[key] for key in out)
        and tuple(raw) == tuple(out)
    ):
        return raw
    return out


def _member(value: Any, allowed: frozenset[str]) -> bool:
    return type(value) is str and value in allowed


def _put_list(
    out: dict[str, Any],
    raw: dict[str, Any],
    key: str,
    item: Any,
    before: dict[str, Any] | None,
    known_lists: KnownLists | None = None,
) -> None:
    if key not in raw:
        return
    values = raw[key]
    if type(values) is not list:
        raise _Unsure
    if not values:
        return
    if known_lists is not None:
        worked_out = known_lists.get(key)
        if worked_out is not None and worked_out[0] is values:
            out[key] = worked_out[1]
            return
    known = before.get(key) if before is not None else None
    if known is values:
        out[key] = values
        return
    if type(known) is list and known:
        taken = {id(value) for value in known}
        items = [value if id(value) in taken else item(value) for value in values]
    else:
        items = [item(value) for value in values]
    out[key] = values if _same_items(items, values) else items


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


def _metrics(values: list[Any]) -> list[Any]:
    """The canonical form of a list of metrics: ``values`` itself when every metric
    is canonical as it is, else a new list."""
    changed: list[Any] | None = None
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


def _metric(raw: Any) -> dict[str, Any]:
    if type(raw) is dict:
        if len(raw) == 4:  # by far the most common: the sum shape, maybe reordered
            name = raw.get("name")
            unit = raw.get("unit")
            value = raw.get("value")
            aggregation = raw.get("aggregation")
            if _plain_sum(name, unit, value, aggregation):
                if _keys_are(raw, _SUM_SHAPE):
                    return raw
                return {"name": name, "unit": unit, "value": value, "aggregation": aggregation}
        if _metric_as_is(raw):
            return raw
        reordered = _reordered(raw, METRIC_KEY_ORDER)
        if reordered is not None and _metric_as_is(reordered):
            return reordered
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
        rank = _rank_from(METRIC_KEY_ORDER, rank, key) + 1
        if rank > len(METRIC_KEY_ORDER):
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
        elif key == "availability" and value != "unavailable":
            return False
    if "value" in raw:
        return "availability" not in raw and "reason" not in raw
    return (
        "availability" in raw
        and "reason" in raw
        and "aggregation" not in raw
        and "samples" not in raw
    )


def _metric_built(raw: Any) -> dict[str, Any]:
    if type(raw) is not dict:
        raise _Unsure
    out: dict[str, Any] = {"name": _string(raw.get("name")), "unit": _string(raw.get("unit"))}
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
    elif availability != "unavailable" or not reason or aggregation or samples is not None:
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


def _breakdown(raw: Any) -> dict[str, Any]:
    if type(raw) is not dict or type(raw.get("metrics")) is not list:
        raise _Unsure
    metrics = _metrics(raw["metrics"])
    if _breakdown_as_is(raw):
        if metrics is raw["metrics"] and _in_order(raw, _BREAKDOWN_ORDER):
            return raw
        reordered = _reordered(raw, _BREAKDOWN_ORDER)
        if reordered is not None:
            reordered["metrics"] = metrics
            return reordered
    out: dict[str, Any] = {
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


def _check(raw: Any) -> dict[str, Any]:
    if type(raw) is not dict or not _member(raw.get("status"), _CHECK_STATUSES):
        raise _Unsure
    out: dict[str, Any] = {"id": _string(raw.get("id")), "status": raw["status"]}
    entity_id = _optional_string(raw, "entity_id")
    if entity_id is not None:
        out["entity_id"] = entity_id
    details = _optional_object(raw, "details")
    if details is not None:
        out["details"] = details
    return _as_given(out, raw)


def _advice(raw: Any) -> dict[str, Any]:
    if type(raw) is not dict:
        raise _Unsure
    if not (
        _member(raw.get("category"), _CATEGORIES) and _member(raw.get("severity"), _SEVERITIES)
    ):
        raise _Unsure
    out: dict[str, Any] = {
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
    return _as_given(out, raw)


def _entity(raw: Any) -> dict[str, Any]:
    if type(raw) is dict:
        if _entity_as_is(raw):
            return raw
        reordered = _reordered(raw, _ENTITY_ORDER)
        if reordered is not None and _entity_as_is(reordered):
            return reordered
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


def _entity_built(raw: Any) -> dict[str, Any]:
    if type(raw) is not dict or not _LEGACY.isdisjoint(raw):
        raise _Unsure
    out: dict[str, Any] = {
        "id": _string(raw.get("id")),
        "kind": _string(raw.get("kind")),
        "name": _string(raw.get("name")),
    }
    placement = _optional_string(raw, "placement")
    if placement is not None:
        out["placement"] = placement
    for key in ("parent_ids", "child_ids"):
        values = _strings(raw, key)
        if values is not None:
            out[key] = values
    attributes = raw.get("attributes", {})
    if type(attributes) is not dict:
        raise _Unsure
    if attributes:
        out["attributes"] = attributes
    stack_trace = _optional_string(raw, "stack_trace")
    if stack_trace is not None:
        out["stack_trace"] = stack_trace
    return out


def _entity_kind(raw: Any) -> dict[str, Any]:
    if type(raw) is not dict:
        raise _Unsure
    out: dict[str, Any] = {"id": _string(raw.get("id"))}
    for key in ("parent_kinds", "child_kinds"):
        values = _strings(raw, key)
        if values is not None:
            out[key] = values
    return _as_given(out, raw)
