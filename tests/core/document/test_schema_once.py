"""The schema written once: the pydantic models (``document``), the shapes
(``document_shapes``) and the canonical forms of the fast path
(``document_canonical``) agree field by field.

* every model states exactly its shape's fields, in the same order, required the
  same way, with the same value kinds (strings, numbers, objects, lists of which
  records, which enum values);
* a record of every shape with every field filled goes through the fast path and
  through the models to the same canonical form holding every field, whether its
  keys come in canonical order, reversed, or reversed with an unknown key (which
  makes the fast path build each record field by field);
* what validation, the envelope and the metric view take from the shapes agrees
  with the models;
* the modules that read document records read only the schema's keys.

A field added to a model, a shape or the fast path alone fails one of these.
"""

from __future__ import annotations

import ast
import json
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest
from pydantic import BaseModel

import perfline.core.document
from perfline.core import document_shapes
from perfline.core.document import Document, Metric, parse_document, parse_result
from perfline.core.document_canonical import canonical_result, metric_view
from perfline.core.envelope import build_document, model_info
from perfline.core.validation import REQUIRED_TOP_LEVEL, validate_document
from tests.support.locations import REPO

MODEL_OF_SHAPE = {shape: name for name, shape in document_shapes.SHAPES.items()}


def _model(name: str) -> type[BaseModel]:
    model = getattr(perfline.core.document, name)
    assert isinstance(model, type) and issubclass(model, BaseModel)
    return model


def _kinds(annotation: Any) -> frozenset[Any]:
    """What JSON values a type admits, as comparable tokens (``None`` left out:
    whether a field may be absent is compared as required-ness)."""
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        return _kinds(get_args(annotation)[0])
    if annotation is type(None):
        return frozenset()
    if annotation is Any:
        return frozenset({"any"})
    if origin is Literal:
        return frozenset({("enum", frozenset(get_args(annotation)))})
    if origin is Union or origin is types.UnionType:
        return frozenset().union(*(_kinds(arg) for arg in get_args(annotation)))
    if origin is list or origin is tuple:
        return frozenset({("list", _kinds(get_args(annotation)[0]))})
    if origin is dict or annotation is dict:
        return frozenset({"object"})
    if is_typeddict(annotation):
        return frozenset({("record", MODEL_OF_SHAPE[annotation])})
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return frozenset({("record", annotation.__name__)})
    if annotation is int:
        return frozenset({"int", "bool"})  # a bool is an int to Python and to JSON numbers
    if annotation in (str, float, bool):
        return frozenset({annotation.__name__})
    raise AssertionError(f"no JSON kind for {annotation!r}")


@pytest.mark.parametrize("name", sorted(document_shapes.SHAPES))
def test_each_model_states_its_shapes_fields_in_order(name: str) -> None:
    shape = document_shapes.SHAPES[name]
    model = _model(name)
    assert tuple(model.model_fields) == document_shapes.key_order(shape)
    required = {field for field, info in model.model_fields.items() if info.is_required()}
    assert required == set(document_shapes.required_keys(shape)) == shape.__required_keys__


@pytest.mark.parametrize("name", sorted(document_shapes.SHAPES))
def test_each_field_admits_the_same_values_in_model_and_shape(name: str) -> None:
    hints = get_type_hints(document_shapes.SHAPES[name])
    for field, info in _model(name).model_fields.items():
        assert _kinds(info.annotation) == _kinds(hints[field]), f"{name}.{field}"


def _sample(
    annotation: Any, shape_keys: dict[type, tuple[str, ...]], within: tuple[type, ...] = ()
) -> Any:
    """A valid value of ``annotation``: records with every field (those of ``shape_keys``
    where it names the record), a list of one item (none where a record would hold itself)."""
    origin = get_origin(annotation)
    if origin is Literal:
        return get_args(annotation)[-1]
    if origin is Union or origin is types.UnionType:
        return _sample(get_args(annotation)[0], shape_keys, within)
    if origin is list:
        item = get_args(annotation)[0]
        return [] if item in within else [_sample(item, shape_keys, within)]
    if origin is dict:
        return {"k": [1, "v"]}
    if is_typeddict(annotation):
        hints = get_type_hints(annotation)
        keys = shape_keys.get(annotation, document_shapes.key_order(annotation))
        inner = (*within, annotation)
        return {key: _sample(hints[key], shape_keys, inner) for key in keys}
    return {str: "text", int: 7, float: 2.5, bool: True}[annotation]


def _full_result(metric_keys: tuple[str, ...]) -> dict[str, Any]:
    """A result with every field of every record filled, its metrics of one shape."""
    return dict(_sample(document_shapes.ResultJson, {document_shapes.MetricJson: metric_keys}))


def _reversed(value: Any, extra: bool) -> Any:
    """``value`` with the keys of every object reversed (and an unknown key added)."""
    if isinstance(value, list):
        return [_reversed(item, extra) for item in value]
    if not isinstance(value, dict) or "k" in value:  # free-form objects stay as they are
        return value
    out = {key: _reversed(value[key], extra) for key in reversed(list(value))}
    if extra:
        out["x_vendor"] = 1
    return out


def _record_keys(result: dict[str, Any]) -> dict[str, list[tuple[str, ...]]]:
    """The key tuples of the records of a canonical result, by result field."""
    found: dict[str, list[tuple[str, ...]]] = {"result": [tuple(result)]}
    for field in ("metrics", "breakdowns", "checks", "entities", "entity_kinds", "advice"):
        found[field] = [tuple(record) for record in result[field]]
    found["breakdown metrics"] = [tuple(m) for b in result["breakdowns"] for m in b["metrics"]]
    return found


@pytest.mark.parametrize(
    "metric_keys", [document_shapes.NUMERIC_METRIC_KEYS, document_shapes.UNAVAILABLE_METRIC_KEYS]
)
@pytest.mark.parametrize("form", ["canonical", "reversed", "reversed with an unknown key"])
def test_every_field_reaches_the_canonical_form_by_both_routes(
    metric_keys: tuple[str, ...], form: str
) -> None:
    full = _full_result(metric_keys)
    raw = full if form == "canonical" else _reversed(full, extra=form != "reversed")
    by_models = parse_result(raw).to_json()
    fast = canonical_result(raw)
    assert fast is not None
    assert json.dumps(fast) == json.dumps(by_models)
    assert fast == full  # nothing dropped, nothing added, every value kept
    keys = _record_keys(fast)
    assert keys["result"] == [document_shapes.RESULT_KEY_ORDER]
    assert keys["metrics"] == keys["breakdown metrics"] == [metric_keys]
    assert keys["breakdowns"] == [document_shapes.BREAKDOWN_KEY_ORDER]
    assert keys["checks"] == [document_shapes.CHECK_KEY_ORDER]
    assert keys["entities"] == [document_shapes.ENTITY_KEY_ORDER]
    assert keys["entity_kinds"] == [document_shapes.ENTITY_KIND_KEY_ORDER]
    assert keys["advice"] == [document_shapes.ADVICE_KEY_ORDER]


def test_the_two_metric_shapes_cover_the_metric() -> None:
    numeric, unavailable = (
        set(document_shapes.NUMERIC_METRIC_KEYS),
        set(document_shapes.UNAVAILABLE_METRIC_KEYS),
    )
    assert numeric | unavailable == set(document_shapes.METRIC_KEY_ORDER)
    assert numeric & unavailable == set(document_shapes.METRIC_REQUIRED_KEYS) | {"qualifiers"}
    assert document_shapes.SUM_METRIC_KEYS == ("name", "unit", "value", "aggregation")


@pytest.mark.parametrize(
    "metric_keys", [document_shapes.NUMERIC_METRIC_KEYS, document_shapes.UNAVAILABLE_METRIC_KEYS]
)
def test_the_metric_view_is_the_models_form(metric_keys: tuple[str, ...]) -> None:
    metric = _sample(document_shapes.MetricJson, {document_shapes.MetricJson: metric_keys})
    assert list(metric_view(_reversed(metric, extra=True))) == list(metric_keys)
    assert metric_view(metric) == Metric.model_validate(metric).to_json()
    emptied = {**metric, "aggregation": "", "qualifiers": {}, "samples": None}
    assert metric_view(emptied) == {
        key: value for key, value in metric.items() if key not in emptied or emptied[key]
    }


def test_the_enum_sets_are_the_literal_values() -> None:
    assert {"compatibility", "performance"} == document_shapes.RESULT_KINDS
    assert {"ok", "partial", "incompatible", "failed", "skipped"} == document_shapes.STATUSES
    assert {"measured", "simulated", "predicted"} == document_shapes.MODES
    assert {"pass", "fail", "partial"} == document_shapes.CHECK_STATUSES
    assert {"compatibility", "performance", "optimization"} == document_shapes.ADVICE_CATEGORIES
    assert {"info", "warning", "error"} == document_shapes.ADVICE_SEVERITIES
    assert {
        "source_operator",
        "model",
        "code_stack",
        "code_line",
    } == document_shapes.WELL_KNOWN_KINDS
    assert document_shapes.LEGACY_ENTITY_FIELDS == (
        "locations",
        "parent_id",
        "scope",
        "subgraph_kind",
    )


def test_validation_reports_exactly_the_documents_required_fields() -> None:
    required = {f for f, info in Document.model_fields.items() if info.is_required()}
    assert sorted(REQUIRED_TOP_LEVEL) == sorted(required)
    assert [p.location for p in validate_document({})] == list(REQUIRED_TOP_LEVEL)


def test_the_envelope_writes_the_documents_fields_in_shape_order() -> None:
    document = build_document(
        results=[],
        model=model_info("m.vgf", "vgf", b"model"),
        target=_sample(document_shapes.TargetJson, {}),
        backends=[_sample(document_shapes.BackendJson, {})],
        timestamp="2026-01-01T00:00:00Z",
        run_id="938db8c9-f82c-4cb5-8d3f-3ef4fd250036",
        extensions={"perfline": {}},
    )
    assert tuple(document) == document_shapes.DOCUMENT_KEY_ORDER
    assert tuple(document["model"]) == document_shapes.key_order(document_shapes.ModelJson)
    assert validate_document(document) == []
    parse_document(document)


#: Modules that read document records, and the record keys they may read besides the
#: shapes' own: the conventional location attributes and the keys inside ``extensions``.
READERS = (
    "core/validation.py",
    "core/document_canonical.py",
    "core/kinds.py",
    "core/collapse.py",
    "core/collapse_match.py",
    "core/code_lines.py",
    "core/code_line_plan.py",
    "core/code_line_processed.py",
    "core/pipeline.py",
    "core/envelope.py",
)


def _schema_keys() -> set[str]:
    keys = {
        key for shape in document_shapes.SHAPES.values() for key in document_shapes.key_order(shape)
    }
    keys.update(document_shapes.key_order(document_shapes.CodeLocationJson))
    keys.update(document_shapes.key_order(document_shapes.PerflineExtensionJson))
    return keys


def _read_keys(tree: ast.AST) -> set[tuple[str, int]]:
    """String constants used as record keys: ``x["k"]``, ``x.get("k")`` (and ``pop``,
    ``setdefault``), ``"k" in x``, ``{"k": ...}`` and the items of a literal tuple looped over."""
    found: set[tuple[str, int]] = set()

    def keep(node: ast.AST | None) -> None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.add((node.value, node.lineno))

    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            keep(node.slice)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("get", "pop", "setdefault") and node.args:
                keep(node.args[0])
        elif isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.In | ast.NotIn):
            keep(node.left)
        elif isinstance(node, ast.Dict):
            for key in node.keys:
                keep(key)
        elif isinstance(node, ast.For) and isinstance(node.iter, ast.Tuple):
            for item in node.iter.elts:
                keep(item)
    return found


@pytest.mark.parametrize("path", READERS)
def test_readers_of_records_read_only_schema_keys(path: str) -> None:
    tree = ast.parse((REPO / path).read_text(encoding="utf-8"))
    unknown = sorted((line, key) for key, line in _read_keys(tree) if key not in _schema_keys())
    assert unknown == []


def test_the_key_check_finds_a_misspelled_key() -> None:
    tree = ast.parse('entity.get("parent_id")\nresult["entites"]\n"kinds" in x\n')
    unknown = {key for key, _ in _read_keys(tree)} - _schema_keys()
    assert unknown == {"parent_id", "entites", "kinds"}
