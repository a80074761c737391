"""Comparison keys of figure sets: their canonical JSON text, written directly.

A figure set's key is the sorted-key, compact JSON of its groups
(``[{"metrics":[...],"qualifiers":{...}}, ...]``), so ``5``, ``5.0`` and
``true`` stay apart. ``json`` with ``sort_keys`` sorts the items of every
metric dict on every call; the metrics here hold only the schema's metric
keys, whose sorted order is known, so each metric is written field by field
in that order, each value by the encoder's own rule for its type (strings
quoted by the encoder, ``repr`` for ints and finite floats, ``NaN``/``Infinity``
for the others). Anything else (another key, a nested value) goes through the
encoder whole. Only the public ``json.JSONEncoder`` is used (one instance, built
once). The text is the one ``json.dumps(..., sort_keys=True, separators=(",", ":"),
ensure_ascii=False)`` gives (``tests/core/projection/test_figure_keys.py``).
Cost: one pass over the metrics' fields, about a third of the general encoder's.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any, Final, cast

from perfline.core.document_canonical import METRIC_KEY_ORDER

_CANONICAL: Final = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, check_circular=False
)
"""Values written here are JSON documents' own values: they cannot hold cycles."""


def canonical_json(value: Any) -> str:
    """Sorted-key compact JSON: the comparison text of figures and qualifiers."""
    if type(value) is dict and not value:
        return "{}"  # the qualifiers of almost every breakdown
    return _CANONICAL.encode(value)


def quoted(text: str) -> str:
    """``text`` as a JSON string (``JSONEncoder.encode`` of a str quotes it)."""
    return _CANONICAL.encode(text)


_FIELD_PREFIXES: Final[tuple[tuple[str, str], ...]] = tuple(
    (key, quoted(key) + ":") for key in sorted(METRIC_KEY_ORDER)
)


def value_text(value: Any) -> str:
    """``canonical_json(value)``, with the common scalar types written directly."""
    kind = type(value)
    if kind is str:
        return quoted(value)
    if kind is int:
        return repr(value)
    if kind is float:
        if math.isfinite(value):
            return repr(value)
        if value != value:
            return "NaN"
        return "Infinity" if value > 0 else "-Infinity"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    return _CANONICAL.encode(value)


def value_prefix(
    metric: Mapping[str, Any], memo: dict[tuple[str, str, str], str] | None = None
) -> str | None:
    """The text of a plain summable metric up to its value, or ``None``.

    Plain: exactly ``name``, ``unit``, ``value`` and ``aggregation``, three strings
    and an int or finite float. Its text is the prefix, ``repr(value)`` and ``}``;
    a sum of such metrics with the same prefix is written from it directly.
    ``memo`` (owned by the caller) keeps prefixes by (aggregation, name, unit):
    the few metric names of a result are quoted once.
    """
    if len(metric) != 4:
        return None
    fields = cast("dict[str, Any]", metric) if type(metric) is dict else dict(metric)
    name = fields.get("name")
    unit = fields.get("unit")
    aggregation = fields.get("aggregation")
    value = fields.get("value")
    if (
        type(name) is str
        and type(unit) is str
        and type(aggregation) is str
        and finite_number(value)
    ):
        if memo is None:
            return _prefix(aggregation, name, unit)
        key = (aggregation, name, unit)
        known = memo.get(key)
        if known is None:
            known = memo[key] = _prefix(aggregation, name, unit)
        return known
    return None


def finite_number(value: Any) -> bool:
    """An int (not a bool) or a finite float: a value written with ``repr``."""
    return type(value) is int or (type(value) is float and math.isfinite(value))


def _prefix(aggregation: str, name: str, unit: str) -> str:
    return "".join(
        (
            '{"aggregation":',
            quoted(aggregation),
            ',"name":',
            quoted(name),
            ',"unit":',
            quoted(unit),
            ',"value":',
        )
    )


def metric_text(metric: Mapping[str, Any]) -> str:
    """``canonical_json(metric)`` for a metric dict."""
    prefix = value_prefix(metric)
    if prefix is not None:
        return prefix + repr(metric["value"]) + "}"
    fields: list[str] = []
    for key, field_prefix in _FIELD_PREFIXES:
        if key in metric:
            fields.append(field_prefix + value_text(metric[key]))
    if len(fields) != len(metric):
        return _CANONICAL.encode(dict(metric))  # a key outside the schema's metric keys
    return "{" + ",".join(fields) + "}"


def figures_key(groups: Iterable[tuple[str, Iterable[str]]]) -> str:
    """``canonical_json`` of ``[{"qualifiers": q, "metrics": [...]}, ...]``, given each
    group's qualifier text (``canonical_json(q)``) and metric texts, in group order."""
    texts = [
        '{"metrics":[' + ",".join(metric_texts) + '],"qualifiers":' + qualifier_key + "}"
        for qualifier_key, metric_texts in groups
    ]
    return "[" + ",".join(texts) + "]"
