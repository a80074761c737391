"""The document model: every case loads, validates and re-serializes; the JSON
Schema accepts every case; model -> JSON -> model is the identity."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings, strategies

from perfline.core.document import (
    Advice,
    Breakdown,
    Check,
    Entity,
    EntityKind,
    Metric,
    Result,
    normalize_result,
    parse_document,
    parse_result,
)
from perfline.core.json_schema import document_json_schema
from perfline.core.validation import validate_document
from tests.support.cases import CASES

DOCUMENTS = sorted(p for p in CASES.rglob("*.json") if "error_type" not in p.read_text()[:200])


@pytest.fixture(scope="module")
def schema_validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(document_json_schema())


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(CASES)))
def test_case_loads_validates_and_reserializes(
    path: Path, schema_validator: jsonschema.Draft202012Validator
) -> None:
    document = json.loads(path.read_text())
    if path.name.startswith("P10_"):
        return  # an input that only the post-processing rejects
    assert validate_document(document) == []
    typed = parse_document(document)
    for raw, result in zip(document["results"], typed.results, strict=True):
        again = result.to_json()
        assert parse_result(again) == result
        assert normalize_result(again) == again
        assert set(again) <= set(raw) | {"warnings"}
    errors = [f"{list(e.path)}: {e.message}" for e in schema_validator.iter_errors(document)]
    assert errors == []


def test_schema_rejects_a_metric_with_both_shapes(
    schema_validator: jsonschema.Draft202012Validator,
) -> None:
    document = json.loads((CASES / "worked" / "01_two_resize_chains_sum.json").read_text())
    document["results"][0]["metrics"][0]["availability"] = "unavailable"
    document["results"][0]["metrics"][0]["reason"] = "no"
    assert list(schema_validator.iter_errors(document))


def test_numbers_keep_their_type() -> None:
    metric = Metric.model_validate({"name": "x", "unit": "u", "value": 5})
    assert metric.to_json()["value"] == 5 and isinstance(metric.to_json()["value"], int)
    metric = Metric.model_validate({"name": "x", "unit": "u", "value": 5.0})
    assert isinstance(metric.to_json()["value"], float)


def test_reserialization_order_and_omission() -> None:
    raw: dict[str, Any] = {
        "advice": [],
        "entities": [{"name": "n", "kind": "k", "id": "i", "stack_trace": ""}],
        "producer": "p",
        "status": "ok",
        "kind": "performance",
        "warnings": [],
        "x": 1,
    }
    assert list(normalize_result(raw)) == ["kind", "status", "producer", "entities"]
    assert normalize_result(raw)["entities"] == [{"id": "i", "kind": "k", "name": "n"}]


_text = strategies.text(alphabet="abcdefgh/_:.", min_size=1, max_size=8)
_json_scalar = strategies.one_of(
    strategies.integers(-(10**6), 10**6),
    strategies.booleans(),
    _text,
    strategies.floats(allow_nan=False, allow_infinity=False),
)
_json_object = strategies.dictionaries(_text, _json_scalar, max_size=3)

_metric = strategies.one_of(
    strategies.builds(
        Metric,
        name=_text,
        unit=_text,
        value=strategies.one_of(
            strategies.integers(-(10**9), 10**9),
            strategies.floats(allow_nan=False, allow_infinity=False),
        ),
        aggregation=strategies.none() | strategies.sampled_from(["sum", "max", "mean"]),
        samples=strategies.none() | strategies.integers(0, 100),
        qualifiers=strategies.none() | _json_object,
    ),
    strategies.builds(
        Metric,
        name=_text,
        unit=_text,
        availability=strategies.just("unavailable"),
        reason=_text,
        qualifiers=strategies.none() | _json_object,
    ),
)
_ids = strategies.lists(_text, max_size=3, unique=True).map(tuple)
_result = strategies.builds(
    Result,
    kind=strategies.sampled_from(["compatibility", "performance"]),
    status=strategies.sampled_from(["ok", "partial", "incompatible", "failed", "skipped"]),
    producer=_text,
    warnings=strategies.lists(_text, max_size=2).map(tuple),
    metrics=strategies.lists(_metric, max_size=3).map(tuple),
    breakdowns=strategies.lists(
        strategies.builds(
            Breakdown,
            entity_id=_text,
            metrics=strategies.lists(_metric, min_size=1, max_size=3).map(tuple),
            id=strategies.none() | _text,
            qualifiers=_json_object,
        ),
        max_size=3,
    ).map(tuple),
    mode=strategies.none() | strategies.sampled_from(["measured", "simulated", "predicted"]),
    checks=strategies.lists(
        strategies.builds(
            Check,
            id=_text,
            status=strategies.sampled_from(["pass", "fail"]),
            entity_id=strategies.none() | _text,
            details=strategies.none() | strategies.just({"reasons": []}),
        ),
        max_size=2,
    ).map(tuple),
    entities=strategies.lists(
        strategies.builds(
            Entity,
            id=_text,
            kind=_text,
            name=_text,
            placement=strategies.none() | strategies.sampled_from(["NX", "EE"]),
            parent_ids=_ids,
            child_ids=_ids,
            attributes=_json_object,
        ),
        max_size=4,
    ).map(tuple),
    entity_kinds=strategies.lists(
        strategies.builds(EntityKind, id=_text, parent_kinds=_ids, child_kinds=_ids), max_size=2
    ).map(tuple),
    advice=strategies.lists(
        strategies.builds(
            Advice,
            id=_text,
            category=strategies.just("performance"),
            severity=strategies.just("info"),
            message=_text,
            affected_entity_ids=_ids,
        ),
        max_size=2,
    ).map(tuple),
)


@settings(max_examples=60, deadline=None)
@given(_result)
def test_round_trip_is_identity(result: Result) -> None:
    text = json.dumps(result.to_json())
    assert parse_result(json.loads(text)) == result
