"""Reader of the estimator's network performance summary (``*_network_performance_summary.json``).

Every figure is an object ``{"unit": ..., "value": ...}``; input units are
ignored (the result uses its own). Required: ``compiled_size`` and, under
``network_performance``, ``compute_cycles``, ``dram_footprint``,
``inference_time``, ``infs_per_sec``, ``total_cycles``. The groups ``cache1``
and ``dram`` (members ``cycles``, ``read_bytes``, ``write_bytes``) are
optional: a missing member counts as 0, a ``null`` value as unavailable.
Counts must be integers (an integral float is accepted); the time and rate
may be any number; booleans and strings are rejected. Errors give the JSON
path and what was expected.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

from perfline.core.backends.nx_common.records import Number
from perfline.core.backends.nx_common.totals import ModelTotals
from perfline.core.errors import InputError, Problem
from perfline.core.finite_numbers import read_number

_COUNTS = ("compute_cycles", "dram_footprint", "total_cycles")
_RATES = ("inference_time", "infs_per_sec")
_GROUPS = {"cache1": "cache", "dram": "dram"}
_MEMBERS = ("cycles", "read_bytes", "write_bytes")


def read_summary(source: str, data: bytes) -> ModelTotals:
    """Parse a network performance summary into model totals (``None`` = unavailable)."""
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        raise InputError(
            source, Problem(f"byte offset {error.start}", "expected UTF-8 JSON")
        ) from None
    except json.JSONDecodeError as error:
        raise InputError(
            source,
            Problem(f"line {error.lineno}, column {error.colno}", f"invalid JSON: {error.msg}"),
        ) from None
    except RecursionError:
        raise InputError(source, Problem("$", "JSON nested too deeply")) from None
    root = _object(source, document, "$")
    performance = _object(
        source, _required(source, root, "network_performance", "$"), "$.network_performance"
    )
    values: dict[str, Number | None] = {
        "compiled_size": _figure(
            source, _required(source, root, "compiled_size", "$"), "$.compiled_size", integral=True
        ),
    }
    for name in (*_COUNTS, *_RATES):
        path = f"$.network_performance.{name}"
        figure = _required(source, performance, name, "$.network_performance")
        values[name] = _figure(source, figure, path, integral=name in _COUNTS)
    for group, prefix in _GROUPS.items():
        group_path = f"$.network_performance.{group}"
        members: Mapping[str, object] = {}
        if group in performance:
            members = _object(source, performance[group], group_path)
        for member in _MEMBERS:
            if member in members:
                value = _figure(source, members[member], f"{group_path}.{member}", integral=True)
            else:
                value = 0
            values[f"{prefix}_{member}"] = value
    return ModelTotals(**values)


def _required(source: str, parent: Mapping[str, object], key: str, path: str) -> object:
    if key not in parent:
        raise InputError(source, Problem(path, f"expected the key {key!r}"))
    return parent[key]


def _object(source: str, value: object, path: str) -> Mapping[str, object]:
    if not isinstance(value, dict):
        raise InputError(source, Problem(path, f"expected an object, got {_type_name(value)}"))
    return value


def _figure(source: str, value: object, path: str, *, integral: bool) -> Number | None:
    figure = _object(source, value, path)
    if "value" not in figure:
        raise InputError(source, Problem(path, "expected the key 'value'"))
    raw = figure["value"]
    where = f"{path}.value"
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        expected = "an integer" if integral else "a number"
        raise InputError(
            source, Problem(where, f"expected {expected} or null, got {_type_name(raw)} {raw!r}")
        )
    if isinstance(raw, float) and not math.isfinite(raw):
        raise InputError(source, Problem(where, f"expected a finite number, got {raw!r}"))
    if integral:
        if isinstance(raw, float):
            if not raw.is_integer():
                raise InputError(source, Problem(where, f"expected an integer, got {raw!r}"))
            return int(raw)
        return raw
    return read_number(raw, source, where)


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
