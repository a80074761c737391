"""The JSON Schema of a standardized-output document, generated from the
document model (``perfline.core.document``) and completed with what the
model's validators express in code: the two metric shapes (numeric, or
unavailable with a reason and without value, aggregation or samples), each
forbidding the keys only the other has (``document_shapes``). Imports the
pydantic models: only ``perfline schema`` needs it.
"""

from __future__ import annotations

from typing import Any

from perfline.core.document import Document
from perfline.core.document_shapes import (
    NUMERIC_METRIC_KEYS,
    UNAVAILABLE,
    UNAVAILABLE_METRIC_KEYS,
)

SCHEMA_ID = "https://perfline.dev/schemas/standardized-output-1.2.0.json"


def _only_in(keys: tuple[str, ...], other: tuple[str, ...]) -> list[str]:
    return [key for key in keys if key not in other]


def _forbidding(keys: list[str]) -> dict[str, Any]:
    return {"anyOf": [{"required": [key]} for key in keys]}


_NUMERIC_ONLY = _only_in(NUMERIC_METRIC_KEYS, UNAVAILABLE_METRIC_KEYS)
_UNAVAILABLE_ONLY = _only_in(UNAVAILABLE_METRIC_KEYS, NUMERIC_METRIC_KEYS)
_METRIC_SHAPES: list[dict[str, Any]] = [
    {
        "title": "numeric metric",
        "required": ["value"],
        "properties": {"value": {"type": ["number", "boolean"]}},
        "not": _forbidding(_UNAVAILABLE_ONLY),
    },
    {
        "title": "unavailable metric",
        "required": _UNAVAILABLE_ONLY,
        "properties": {
            "availability": {"const": UNAVAILABLE},
            "reason": {"type": "string", "minLength": 1},
        },
        "not": _forbidding(_NUMERIC_ONLY),
    },
]


def document_json_schema() -> dict[str, Any]:
    """The schema (draft 2020-12) as a JSON object."""
    schema = Document.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = SCHEMA_ID
    schema["title"] = "Standardized output (schema 1.2.0)"
    metric = schema["$defs"]["Metric"]
    metric["oneOf"] = _METRIC_SHAPES
    return schema
