"""Static cost on the real DS-CNN and attention exports: hand formulas, routes that agree."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from perfline.core.backends.settings import RooflineTarget
from perfline.core.backends.source_model.inputs import InputFile
from perfline.core.backends.static_cost.document import analyze_static
from perfline.core.backends.static_cost.onnx_cost import onnx_costs
from perfline.core.formats.onnx_graph import read_onnx_graph
from perfline.core.pipeline import postprocess
from tests.support.locations import DATA

DSCNN = DATA / "formats" / "dscnn"
ATTENTION = DATA / "onnxruntime"


def _document(path: Path, target: RooflineTarget | None = None) -> dict[str, Any]:
    return analyze_static(
        InputFile(str(path), path.read_bytes()), timestamp="2026-01-01T00:00:00Z", target=target
    )


def _macs_by_name(path: Path) -> dict[str, int]:
    result = _document(path)["results"][0]
    names = {e["id"]: e["name"] for e in result["entities"] if e["kind"] == "source_operator"}
    return {
        names[b["entity_id"]]: next(m["value"] for m in b["metrics"] if m["name"] == "macs")
        for b in result["breakdowns"]
    }


def test_dscnn_conv_and_gemm_macs_equal_hand_formulas() -> None:
    # conv1: 64 x 25 x 5 outputs, window 10 x 4 over 1 channel; depthwise: 3 x 3 over 1 channel
    # of its group; pointwise: 1 x 1 over 64 channels; Gemm: 12 outputs of 64-long dot products.
    outputs = 64 * 25 * 5
    expected = {"node_Conv_137": outputs * 10 * 4 * 1, "node_linear": 12 * 64}
    for block in range(4):
        expected[f"node_Conv_{139 + 4 * block}"] = outputs * 3 * 3
        expected[f"node_Conv_{141 + 4 * block}"] = outputs * 64
    macs = _macs_by_name(DSCNN / "dscnn.onnx")
    assert {name: macs[name] for name in expected} == expected
    assert all(v == 0 for name, v in macs.items() if name not in expected)
    tosa = _document(DSCNN / "dscnn_int.tosa")["results"][0]["metrics"]
    assert next(m["value"] for m in tosa if m["name"] == "macs") == sum(expected.values())


def _per_line(path: Path, metric: str = "macs") -> dict[int, float]:
    result = postprocess(_document(path))["results"][0]
    lines = {
        e["id"]: e["attributes"]["line"] for e in result["entities"] if e["kind"] == "code_line"
    }
    figures: dict[int, float] = {}
    for breakdown in result["breakdowns"]:
        if breakdown["entity_id"] in lines:
            figures[lines[breakdown["entity_id"]]] = next(
                m["value"] for m in breakdown["metrics"] if m["name"] == metric
            )
    return figures


def test_pt2_and_onnx_routes_agree_on_macs_per_source_line() -> None:
    onnx = _per_line(ATTENTION / "attention.onnx")
    pt2 = _per_line(ATTENTION / "attention.pt2")
    assert onnx == pt2
    hidden, tokens, width, heads = 256, 16, 64, 4
    assert onnx[29] == tokens * width * 3 * width  # qkv linear
    assert onnx[33] == heads * tokens * tokens * (width // heads)  # Q K^T
    assert onnx[36] == heads * tokens * tokens * (width // heads)  # weights V
    assert onnx[40] == onnx[41] == tokens * width * hidden  # MLP
    # DS-CNN: ONNX puts each folded conv on its BatchNorm's line (fixture quirk 1: 24 -> 25,
    # 26 -> 27); with that, the two routes agree line by line.
    dscnn_pt2: dict[int, float] = defaultdict(float)
    for line, value in _per_line(DSCNN / "dscnn.pt2").items():
        dscnn_pt2[{24: 25, 26: 27}.get(line, line)] += value
    assert _per_line(DSCNN / "dscnn.onnx") == dict(dscnn_pt2)
    # The core-ATen export and the TOSA lowering of the same model agree too (the TOSA file has
    # no operator on line 43: the flatten view is folded away, fixture README section 1).
    pre_dispatch = _per_line(DSCNN / "dscnn.pt2")
    assert _per_line(DSCNN / "dscnn_core_aten.pt2") == pre_dispatch
    assert _per_line(DSCNN / "dscnn_fp.tosa") == {k: v for k, v in pre_dispatch.items() if k != 43}


def test_inferred_shapes_equal_the_exporters_value_info() -> None:
    for path in (DSCNN / "dscnn.onnx", ATTENTION / "attention.onnx"):
        graph = read_onnx_graph(path.read_bytes(), str(path))
        bare = dataclasses.replace(
            graph,
            value_info={i.name: i for i in (*graph.inputs, *graph.outputs)},
        )
        with_info = [c.cost for c in onnx_costs(graph)]
        inferred = [c.cost for c in onnx_costs(bare)]
        assert inferred == with_info
        assert all(cost is not None for cost in inferred)


def test_roofline_time_is_the_larger_bound() -> None:
    target = RooflineTarget(macs_per_second=1e9, bytes_per_second=4e9, name="test target")
    result = _document(DSCNN / "dscnn.onnx", target)["results"][0]
    entities = {e["id"]: e for e in result["entities"]}
    total = 0.0
    for breakdown in result["breakdowns"]:
        values = {m["name"]: m["value"] for m in breakdown["metrics"]}
        moved = values["parameter_bytes"] + values["input_bytes"] + values["output_bytes"]
        compute, memory = values["macs"] / 1e9 * 1000, moved / 4e9 * 1000
        assert values["predicted_time"] == pytest.approx(max(compute, memory))
        bound = entities[breakdown["entity_id"]]["attributes"]["roofline_bound"]
        assert bound == ("compute" if compute >= memory else "memory")
        total += values["predicted_time"]
    metrics = {m["name"]: m for m in result["metrics"]}
    assert metrics["inference_time"]["value"] == pytest.approx(total)


def test_unknown_shapes_and_missing_stacks_are_listed_without_numbers() -> None:
    model = DATA / "formats" / "onnx-third-party" / "ch_ppocr_mobile_v2.0_cls_infer.onnx"
    result = _document(model)["results"][0]
    warning = next(w for w in result["warnings"] if "have no cost" in w)
    assert "Conv Conv@0 (shape of 'x' unknown (not inferable))" in warning
    assert result["status"] == "partial"
    costed = {b["entity_id"] for b in result["breakdowns"]}
    convs = [
        e for e in result["entities"] if e.get("attributes", {}).get("operator_types") == ["Conv"]
    ]
    assert convs and not any(e["id"] in costed for e in convs)
    legacy = _document(DSCNN / "dscnn_legacy.onnx")["results"][0]
    assert any("record no source stack trace" in w for w in legacy["warnings"])


def test_hints_show_macs_by_default() -> None:
    from perfline.core import dominant_metric

    line = [
        {"name": name, "unit": unit, "value": 1, "aggregation": "sum"}
        for name, unit in (
            ("flops", "FLOP"),
            ("input_bytes", "bytes"),
            ("macs", "MAC"),
            ("predicted_time", "ms"),
        )
    ]
    assert dominant_metric.choose_metric([line, line]) == dominant_metric.MetricKey("macs", "MAC")
