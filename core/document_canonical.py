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

Nested free-form objects (attributes, qualifiers, details) are shared with
the input, not copied: every stage treats its input as immutable.
"""

from __future__ import annotations

import math
from typing import Any

_RESULT_KINDS = frozenset({"compatibility", "performance"})
_STATUSES = frozenset({"ok", "partial", "incompatible", "failed", "skipped"})
_MODES = frozenset({"measured", "simulated", "predicted"})
_CHECK_STATUSES = frozenset({"pass", "fail", "partial"})
_CATEGORIES = frozenset({"compatibility", "performance", "optimization"})
_SEVERITIES = frozenset({"info", "warning", "error"})
_LEGACY = frozenset({"locations", "parent_id", "scope", "subgraph_kind"})


class _Unsure(Exception):
    """The value is not plainly valid: let the models decide."""


def canonical_result(raw: Any) -> dict[str, Any] | None:
    """The canonical form of a plainly valid result, else ``None``."""
    try:
        return _result(raw)
    except _Unsure:
        return None


def _result(raw: Any) -> dict[str, Any]:
    if type(raw) is not dict:
        raise _Unsure
    if not (_member(raw.get("kind"), _RESULT_KINDS) and _member(raw.get("status"), _STATUSES)):
        raise _Unsure
    out: dict[str, Any] = {"kind": raw["kind"], "status": raw["status"]}
    out["producer"] = _string(raw.get("producer"))
    _put_list(out, raw, "warnings", _string)
    _put_list(out, raw, "errors", _string)
    _put_list(out, raw, "metrics", _metric)
    _put_list(out, raw, "breakdowns", _breakdown)
    mode = raw.get("mode")
    if mode is not None:
        if type(mode) is not str or mode not in _MODES:
            raise _Unsure
        out["mode"] = mode
    _put_list(out, raw, "checks", _check)
    _put_list(out, raw, "entities", _entity)
    _put_list(out, raw, "entity_kinds", _entity_kind)
    _put_list(out, raw, "advice", _advice)
    return out


def _member(value: Any, allowed: frozenset[str]) -> bool:
    return type(value) is str and value in allowed


def _put_list(out: dict[str, Any], raw: dict[str, Any], key: str, item: Any) -> None:
    if key not in raw:
        return
    values = raw[key]
    if type(values) is not list:
        raise _Unsure
    if values:
        out[key] = [item(value) for value in values]


def _string(value: Any) -> str:
    if type(value) is not str:
        raise _Unsure
    return value


def _strings(raw: dict[str, Any], key: str) -> list[str] | None:
    values = raw.get(key, ())
    if values == ():
        return None
    if type(values) is not list or any(type(v) is not str for v in values):
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
    out: dict[str, Any] = {
        "entity_id": _string(raw.get("entity_id")),
        "metrics": [_metric(metric) for metric in raw["metrics"]],
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
    return out


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
    return out


def _entity(raw: Any) -> dict[str, Any]:
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
    return out
