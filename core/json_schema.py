"""The JSON Schema of a standardized-output document, generated from the
document model (``perfline.core.document``) and completed with what the
model's validators express in code: the two metric shapes (numeric, or
unavailable with a reason and without value, aggregation or samples).
"""

from __future__ import annotations

from typing import Any

from perfline.core.document import Document

SCHEMA_ID = "https://perfline.dev/schemas/standardized-output-1.2.0.json"

_METRIC_SHAPES: list[dict[str, Any]] = [
    {
        "title": "numeric metric",
        "required": ["value"],
        "properties": {"value": {"type": ["number", "boolean"]}},
        "not": {"anyOf": [{"required": ["availability"]}, {"required": ["reason"]}]},
    },
    {
        "title": "unavailable metric",
        "required": ["availability", "reason"],
        "properties": {
            "availability": {"const": "unavailable"},
            "reason": {"type": "string", "minLength": 1},
        },
        "not": {
            "anyOf": [
                {"required": ["value"]},
                {"required": ["aggregation"]},
                {"required": ["samples"]},
            ]
        },
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
