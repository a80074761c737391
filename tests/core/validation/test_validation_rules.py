"""One minimal bad document per validation rule: the problem's JSON path and message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from perfline.core.errors import InputError
from perfline.core.pipeline import postprocess
from perfline.core.validation import validate_document
from tests.support.documents import minimal_document

Doc = dict[str, Any]


def _result(doc: Doc) -> Doc:
    result: Doc = doc["results"][0]
    return result


def _set(path: str, value: Any) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        *parents, last = path.split(".")
        target: Any = doc
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        if value is _DELETE:
            del target[last]
        else:
            target[int(last) if last.isdigit() else last] = value

    return change


_DELETE = object()

RULES: list[tuple[str, Callable[[Doc], None], str, str]] = [
    ("missing field", _set("run_id", _DELETE), "run_id", "Missing required field: run_id"),
    (
        "semver",
        _set("schema_version", "1.2"),
        "schema_version",
        "Field 'schema_version' must be in semver format",
    ),
    (
        "schema_version type",
        _set("schema_version", 1),
        "schema_version",
        "Field 'schema_version' must be a string",
    ),
    ("uuid", _set("run_id", "not-a-uuid"), "run_id", "Field 'run_id' must be a valid UUID"),
    (
        "timestamp",
        _set("timestamp", "yesterday"),
        "timestamp",
        "Field 'timestamp' must be in ISO 8601 format",
    ),
    ("tool object", _set("tool", "perfline"), "tool", "Field 'tool' must be an object"),
    (
        "tool.version",
        _set("tool.version", _DELETE),
        "tool.version",
        "Missing required field: tool.version",
    ),
    (
        "target components",
        _set("target.components", []),
        "target.components",
        "Field 'target.components' must have at least one item",
    ),
    (
        "target field",
        _set("target.profile_name", _DELETE),
        "target.profile_name",
        "Missing required field: target.profile_name",
    ),
    (
        "model hash",
        _set("model.hash", "abc"),
        "model.hash",
        "Field 'model.hash' must be a valid SHA-256 hash",
    ),
    ("model string", _set("model.name", 3), "model.name", "Field 'model.name' must be a string"),
    (
        "backends empty",
        _set("backends", []),
        "backends",
        "Field 'backends' must have at least one item",
    ),
    ("results array", _set("results", {}), "results", "Field 'results' must be an array"),
    (
        "undeclared kind",
        _set("results.0.entities.0.kind", "stripe"),
        "results[0].entities[0].kind",
        "Entity kind 'stripe' at results[0].entities[0].kind is neither well-known nor declared",
    ),
    (
        "blank kind",
        _set("results.0.entities.0.kind", " "),
        "results[0].entities[0].kind",
        "must be a non-empty string",
    ),
    (
        "duplicate id",
        _set("results.0.entities.1.id", "chain/0"),
        "results[0].entities[1].id",
        "Entity id 'chain/0' must be unique within result 0",
    ),
    (
        "unresolved reference",
        _set("results.0.entities.0.child_ids", ["nowhere"]),
        "results[0].entities[0].child_ids[0]",
        "Entity reference 'nowhere' at results[0].entities[0].child_ids[0] does not resolve",
    ),
    (
        "cycle",
        _set("results.0.entities.1.child_ids", ["chain/0"]),
        "results[0].entities",
        "contains a directed cycle: 'chain/0' -> 'source_operator/a' -> 'chain/0'",
    ),
    (
        "undeclared edge",
        _set("results.0.entity_kinds.2.child_kinds", []),
        "results[0].entities[0]",
        "entity relationship 'chain/0' (chain) -> 'source_operator/a' (source_operator) is not "
        "covered",
    ),
    (
        "well-known declared",
        _set("results.0.entity_kinds.0.id", "code_line"),
        "results[0].entity_kinds[0].id",
        "Well-known entity kind 'code_line' must not be declared",
    ),
    (
        "duplicate kind",
        _set("results.0.entity_kinds.1.id", "segment"),
        "results[0].entity_kinds[1].id",
        "Entity kind id 'segment' must be unique within result 0",
    ),
    (
        "unknown kind reference",
        _set("results.0.entity_kinds.0.child_kinds", ["nothing"]),
        "results[0].entity_kinds[0].child_kinds[0]",
        "Entity kind reference 'nothing' at results[0].entity_kinds[0].child_kinds[0] does not "
        "resolve",
    ),
    (
        "duplicated kind in list",
        _set("results.0.entity_kinds.0.child_kinds", ["cascade", "cascade"]),
        "results[0].entity_kinds[0].child_kinds[1]",
        "Entity kind id 'cascade' is duplicated in results[0].entity_kinds[0].child_kinds",
    ),
    (
        "entities array",
        _set("results.0.entities", {}),
        "results[0].entities",
        "Field 'results[0].entities' must be an array",
    ),
    (
        "entity object",
        _set("results.0.entities.1", "a"),
        "results[0].entities[1]",
        "Field 'results[0].entities[1]' must be an object",
    ),
    (
        "breakdown reference",
        _set("results.0.breakdowns.0.entity_id", "gone"),
        "results[0].breakdowns[0].entity_id",
        "Entity reference 'gone' at results[0].breakdowns[0].entity_id does not resolve",
    ),
    (
        "check reference",
        _set("results.0.checks", [{"id": "c", "status": "pass", "entity_id": "gone"}]),
        "results[0].checks[0].entity_id",
        "Entity reference 'gone' at results[0].checks[0]",
    ),
    (
        "advice reference",
        _set(
            "results.0.advice",
            [
                {
                    "id": "a",
                    "category": "performance",
                    "severity": "info",
                    "message": "m",
                    "affected_entity_ids": ["chain/0", "gone"],
                }
            ],
        ),
        "results[0].advice[0].affected_entity_ids[1]",
        "Entity reference 'gone' at results[0].advice[0].affected_entity_ids[1]",
    ),
]


@pytest.mark.parametrize(
    ("change", "path", "message"), [r[1:] for r in RULES], ids=[r[0] for r in RULES]
)
def test_rule(change: Callable[[Doc], None], path: str, message: str) -> None:
    document = minimal_document()
    change(document)
    problems = validate_document(document)
    matching = [p for p in problems if p.location == path and message in p.message]
    assert matching, f"expected {path}: {message!r}, got {[str(p) for p in problems]}"


def test_minimal_document_is_valid() -> None:
    assert validate_document(minimal_document()) == []


def test_all_problems_reported_together() -> None:
    document = minimal_document()
    del document["run_id"]
    document["timestamp"] = "soon"
    _result(document)["breakdowns"][0]["entity_id"] = "gone"
    with pytest.raises(InputError) as caught:
        postprocess(document, source="doc.json")
    rendered = caught.value.render()
    assert rendered.startswith("doc.json: 3 problems:")
    assert "run_id: Missing required field: run_id" in rendered
    assert "results[0].breakdowns[0].entity_id" in rendered


TYPED_RULES: list[tuple[str, Callable[[Doc], None], str, str]] = [
    (
        "bad status",
        _set("results.0.status", "great"),
        "results[0].status",
        "'great' is not one of the allowed values",
    ),
    (
        "missing name",
        _set("results.0.entities.0.name", _DELETE),
        "results[0].entities[0]",
        "missing required field 'name'",
    ),
    (
        "metric both shapes",
        _set("results.0.metrics.0.availability", "unavailable"),
        "results[0].metrics[0]",
        "Metric cannot combine a numeric value with availability fields.",
    ),
    (
        "metric no value",
        _set("results.0.metrics.0.value", _DELETE),
        "results[0].metrics[0]",
        "Metric must include a value or availability.",
    ),
    (
        "metric string value",
        _set("results.0.metrics.0.value", "12"),
        "results[0].metrics[0].value",
        "Input should be",
    ),
    (
        "metric not finite",
        _set("results.0.metrics.0.value", float("inf")),
        "results[0].metrics[0]",
        "Metric value must be finite.",
    ),
    (
        "legacy field",
        _set("results.0.entities.0.parent_id", "x"),
        "results[0].entities[0]",
        "Entity uses unsupported legacy field 'parent_id'.",
    ),
    (
        "locations field",
        _set("results.0.entities.0.locations", []),
        "results[0].entities[0]",
        "Entity uses unsupported field 'locations'.",
    ),
]


@pytest.mark.parametrize(
    ("change", "path", "message"), [r[1:] for r in TYPED_RULES], ids=[r[0] for r in TYPED_RULES]
)
def test_typed_rule(change: Callable[[Doc], None], path: str, message: str) -> None:
    document = minimal_document()
    change(document)
    with pytest.raises(InputError) as caught:
        postprocess(document, source="doc.json")
    matching = [p for p in caught.value.problems if p.location == path and message in p.message]
    assert matching, [str(p) for p in caught.value.problems]
    assert caught.value.source == "doc.json"
