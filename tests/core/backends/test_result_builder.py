"""The one way backends assemble a result (``core/backends/result_builder.py``): keys in the
schema's order, which fields are always written and which only once something was added,
record ids on breakdowns, kind declarations once per id, and the aggregate's empty-free form.
"""

from __future__ import annotations

from perfline.core.backends.result_builder import ResultBuilder
from perfline.core.document_shapes import RESULT_KEY_ORDER


def _metric(name: str, value: float) -> dict[str, object]:
    return {"name": name, "unit": "ms", "value": value}


def test_a_bare_result_has_the_always_written_fields_in_schema_order() -> None:
    result = ResultBuilder("compatibility", "producer-x").finish()
    assert list(result) == [
        "kind",
        "status",
        "producer",
        "warnings",
        "errors",
        "metrics",
        "entities",
    ]
    assert result["status"] == "ok" and "mode" not in result and "breakdowns" not in result


def test_a_performance_result_always_has_its_breakdowns_even_none() -> None:
    # a static-cost model whose every operator lacks a cost still writes "breakdowns": []
    result = ResultBuilder("performance", "p", mode="predicted").finish()
    assert result["breakdowns"] == []
    assert list(result) == [key for key in RESULT_KEY_ORDER if key in result]


def test_everything_added_comes_out_in_the_schemas_key_order() -> None:
    builder = ResultBuilder("performance", "p", mode="measured")
    # added in an order unlike the schema's
    builder.add_advice([{"id": "a", "title": "t", "message": "m"}])
    builder.declare_kinds([{"id": "chain"}])
    builder.add_entity({"id": "chain/1", "kind": "chain", "name": "Chain 1"})
    builder.add_checks([{"id": "c", "status": "pass"}])
    builder.add_breakdown("chain/1", [_metric("t", 1.0)])
    builder.add_metric(_metric("inference_time", 2.0))
    builder.warn("first", "second")
    result = builder.finish()
    order = [key for key in RESULT_KEY_ORDER if key in result]
    assert list(result) == order
    assert set(result) == set(RESULT_KEY_ORDER)
    assert result["warnings"] == ["first", "second"]
    assert result["mode"] == "measured"


def test_a_breakdown_carries_its_entity_id_as_its_record_id_unless_told_not_to() -> None:
    builder = ResultBuilder("performance", "p")
    metrics = [_metric("t", 1.0)]
    builder.add_breakdown("op/1", metrics)
    builder.add_breakdown("op/2", metrics, with_record_id=False)
    first, second = builder.finish()["breakdowns"]
    assert list(first) == ["entity_id", "metrics", "id"] and first["id"] == "op/1"
    assert list(second) == ["entity_id", "metrics"]
    assert first["metrics"] is metrics  # the backend's own values, not copies


def test_fields_appear_once_touched_even_when_empty() -> None:
    builder = ResultBuilder("compatibility", "p")
    builder.declare_kinds([])
    builder.add_advice([])
    result = builder.finish()
    assert result["entity_kinds"] == [] and result["advice"] == []
    assert "breakdowns" not in result and "checks" not in result


def test_a_kind_is_declared_once_first_declaration_kept() -> None:
    builder = ResultBuilder("performance", "p")
    builder.declare_kinds([{"id": "backend_operator", "child_kinds": ["source_operator"]}])
    builder.declare_kinds([{"id": "backend_operator"}, {"id": "nn_module"}])
    assert builder.finish()["entity_kinds"] == [
        {"id": "backend_operator", "child_kinds": ["source_operator"]},
        {"id": "nn_module"},
    ]


def test_status_can_be_lowered_after_the_fact() -> None:
    builder = ResultBuilder("performance", "p", mode="predicted")
    builder.set_status("partial")
    assert builder.finish()["status"] == "partial"


def test_omit_empty_leaves_out_every_empty_list() -> None:
    builder = ResultBuilder("performance", "p", mode="measured")
    builder.add_entity({"id": "e", "kind": "k", "name": "e"})
    builder.declare_kinds([])
    result = builder.finish(omit_empty=True)
    assert list(result) == ["kind", "status", "producer", "mode", "entities"]
