"""The ONNX Runtime backend on real profiles: statistics, lines, optimised-graph mapping."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path
from typing import Any

import pytest

from perfline.core.backends.onnxruntime.document import analyze_profiles
from perfline.core.backends.source_model.inputs import InputFile
from perfline.core.errors import InputError
from perfline.core.pipeline import postprocess
from tests.support.onnxruntime_data import ATTENTION_ONNX, DATA, DSCNN_ONNX, percentile, raw_runs

NOOPT = DATA / "dscnn_noopt.json"
OPT = DATA / "dscnn_opt.json"


def _file(path: Path) -> InputFile:
    return InputFile(str(path), path.read_bytes())


def _analyze(model: Path, *profiles: Path, **options: Any) -> dict[str, Any]:
    return analyze_profiles(
        _file(model), [_file(p) for p in profiles], timestamp="2026-01-01T00:00:00Z", **options
    )


def _metric(breakdown: dict[str, Any], name: str) -> dict[str, Any]:
    return next(m for m in breakdown["metrics"] if m["name"] == name)


def _by_entity(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {b["entity_id"]: b for b in document["results"][0]["breakdowns"]}


def _nodes(model: Path) -> list[dict[str, Any]]:
    nodes: list[dict[str, Any]] = json.loads((DSCNN / "dscnn.onnx.nodes.json").read_text())
    return nodes


DSCNN = DSCNN_ONNX.parent


def test_every_node_statistic_equals_the_raw_events() -> None:
    document = _analyze(DSCNN_ONNX, NOOPT)
    _, per_node = raw_runs(NOOPT)
    names = {row["name"]: row["index"] for row in _nodes(DSCNN_ONNX)}
    breakdowns = _by_entity(document)
    assert len(per_node) == 21
    for name, values in per_node.items():
        breakdown = breakdowns[f"source_operator/{names[name]}"]
        assert _metric(breakdown, "duration_avg")["value"] == pytest.approx(
            statistics.fmean(values)
        )
        assert _metric(breakdown, "duration_avg")["aggregation"] == "sum"
        assert _metric(breakdown, "duration_min")["value"] == pytest.approx(min(values))
        assert _metric(breakdown, "duration_max")["value"] == pytest.approx(max(values))
        assert _metric(breakdown, "duration_p50")["value"] == pytest.approx(
            statistics.median(values)
        )
        assert _metric(breakdown, "duration_p90")["value"] == pytest.approx(percentile(values, 90))
        assert _metric(breakdown, "execution_count")["value"] == len(values) == 9
        # The additive average carries no qualifier (a line's figure must not split by
        # confidence); the copy-only statistics keep it.
        assert "qualifiers" not in _metric(breakdown, "duration_avg")
        for metric in breakdown["metrics"]:
            if metric["name"] != "duration_avg":
                assert metric["qualifiers"] == {"confidence": "exact"}
                assert "aggregation" not in metric
    samples = document["extensions"]["perfline"]["run_samples"][0]
    first = f"source_operator/{names['node_Conv_137']}"
    assert samples[first]["duration_avg"] == pytest.approx(per_node["node_Conv_137"])


def test_model_run_statistics_and_warmup_option() -> None:
    durations, _ = raw_runs(NOOPT)
    metrics = {m["name"]: m for m in _analyze(DSCNN_ONNX, NOOPT)["results"][0]["metrics"]}
    assert metrics["inference_time"]["value"] == pytest.approx(statistics.fmean(durations))
    assert metrics["inference_time"]["samples"] == 9
    assert metrics["inference_time_p90"]["value"] == pytest.approx(percentile(durations, 90))
    no_warmup = _analyze(DSCNN_ONNX, NOOPT, warmup_runs=0)
    assert no_warmup["backends"][0]["configuration"]["runs_used"] == 10
    all_runs, _ = raw_runs(NOOPT, warmup=0)
    first = {m["name"]: m for m in no_warmup["results"][0]["metrics"]}["inference_time"]
    assert first["value"] == pytest.approx(statistics.fmean(all_runs))


def test_the_lines_dscnn_onnx_carries_get_figures() -> None:
    processed = postprocess(_analyze(DSCNN_ONNX, NOOPT))
    result = processed["results"][0]
    lines = {
        e["id"]: e["attributes"]["line"] for e in result["entities"] if e["kind"] == "code_line"
    }
    figures = {
        lines[b["entity_id"]]: _metric(b, "duration_avg")["value"]
        for b in result["breakdowns"]
        if b["entity_id"] in lines
    }
    # Every line a node's stack trace names (issue 18: 25, 27, 40, 41, 42, 44, and 43: ORT
    # runs a kernel for the flatten), each the sum over the nodes whose traces hold it. Line
    # 41 (``x = self.blocks(x)``) is the call line: the projection's exact sums give it its
    # inclusive figure, the block nodes' (those of lines 25 and 27).
    _, per_node = raw_runs(NOOPT)
    named = {
        int(line)
        for row in _nodes(DSCNN_ONNX)
        for line in re.findall(
            r'dscnn\.py", line (\d+),', row["metadata_props"].get("pkg.torch.onnx.stack_trace", "")
        )
    }
    assert sorted(figures) == sorted(named) == [25, 27, 40, 41, 42, 43, 44]
    for line in (25, 41, 43):
        on_line = [
            row["name"]
            for row in _nodes(DSCNN_ONNX)
            if f"line {line}," in row["metadata_props"].get("pkg.torch.onnx.stack_trace", "")
            and row["name"] in per_node
        ]
        expected = sum(statistics.fmean(per_node[name]) for name in on_line)
        assert figures[line] == pytest.approx(expected, rel=1e-12), line
    assert figures[41] == pytest.approx(figures[25] + figures[27], rel=1e-12)


def test_optimised_profile_maps_fused_nodes_back_and_loses_no_time() -> None:
    document = _analyze(DSCNN_ONNX, OPT)
    result = document["results"][0]
    entities = {e["id"]: e for e in result["entities"]}
    indices = {row["name"]: row["index"] for row in _nodes(DSCNN_ONNX)}
    for k in range(9):
        fused = entities[f"backend_operator/onnxruntime/relu{'' if k == 0 else f'_{k}'}_nchwc"]
        assert fused["attributes"]["confidence"] == "fused"
        relu = "node_relu" if k == 0 else f"node_relu_{k}"
        expected = sorted([indices[relu] - 1, indices[relu]])
        assert fused["child_ids"] == [f"source_operator/{i}" for i in expected]
    _, per_node = raw_runs(OPT)
    total = sum(sum(values) for values in per_node.values())
    breakdowns = result["breakdowns"]
    attributed = sum(
        _metric(b, "duration_avg")["value"] * _metric(b, "execution_count")["value"]
        for b in breakdowns
    )
    assert attributed == pytest.approx(total)
    confidence = {
        b["entity_id"]: entities[b["entity_id"]]["attributes"]["confidence"] for b in breakdowns
    }
    unmapped = [b for b in breakdowns if confidence[b["entity_id"]] == "unmapped"]
    assert [b["entity_id"] for b in unmapped] == ["backend_operator/onnxruntime/ReorderOutput"]
    warning = next(w for w in result["warnings"] if "left unattributed" in w)
    per_run = sum(per_node["ReorderOutput"]) / 9
    assert warning.startswith(f"3 of 4 profile nodes matched a node of {DSCNN_ONNX} ")
    assert f"`ReorderOutput` (ReorderOutput) ({per_run:.4g} ms): no model node" in warning
    # Every mapped node ran in every kept run: its average adds up (fused ones included, on
    # the lines that hold all their originals); the unmapped one's stays out of every sum.
    for b in breakdowns:
        additive = confidence[b["entity_id"]] != "unmapped"
        assert ("aggregation" in _metric(b, "duration_avg")) is additive
        assert _metric(b, "duration_p90")["qualifiers"] == {
            "confidence": confidence[b["entity_id"]]
        }


def test_saved_optimized_model_attributes_inserted_nodes() -> None:
    optimized = _file(DATA / "attention_opt.optimized.onnx")
    document = _analyze(ATTENTION_ONNX, DATA / "attention_opt.json", optimized_model=optimized)
    entities = {e["id"]: e for e in document["results"][0]["entities"]}
    gemm = entities["backend_operator/onnxruntime/node_MatMul_1/MatMulAddFusion"]
    assert gemm["attributes"]["confidence"] == "fused"
    assert gemm["child_ids"] == ["source_operator/1", "source_operator/2"]  # MatMul + Add
    reshape = entities["backend_operator/onnxruntime/gemm_output_reshape"]
    assert reshape["attributes"]["confidence"] == "inferred"
    assert reshape["child_ids"] == ["source_operator/2"]
    scaled = entities["backend_operator/onnxruntime/node_matmul/MatMulScaleFusion/"]
    assert scaled["child_ids"] == ["source_operator/9", "source_operator/10"]  # MatMul + Div


def test_bad_profiles_name_the_file_and_place(tmp_path: Path) -> None:
    truncated = tmp_path / "cut.json"
    truncated.write_bytes(NOOPT.read_bytes()[:5000])
    with pytest.raises(InputError, match=r"cut.json: line \d+, column \d+: invalid JSON"):
        _analyze(DSCNN_ONNX, truncated)
    other = tmp_path / "other.json"
    other.write_text('{"results": []}')
    with pytest.raises(InputError, match="expected a Chrome trace"):
        _analyze(DSCNN_ONNX, other)
    events = json.loads(NOOPT.read_text())
    for event in events:
        if event["name"] == "node_relu_kernel_time":
            del event["args"]["node_index"]
    stripped = tmp_path / "noindex.json"
    stripped.write_text(json.dumps(events))
    warnings = _analyze(DSCNN_ONNX, stripped)["results"][0]["warnings"]
    assert any("10 node events carry no args.node_index ($[3]" in w for w in warnings)


def test_third_party_profile_without_metadata() -> None:
    model = DSCNN.parent / "onnx-third-party" / "ch_ppocr_mobile_v2.0_cls_infer.onnx"
    document = _analyze(model, DATA / "ppocr_cls_noopt.json")
    configuration = document["backends"][0]["configuration"]
    assert configuration["node_events"] == 1290 - 1290 // 5
    assert configuration["node_events_mapped"] == configuration["node_events"]
    assert any("carry no source stack trace" in w for w in document["results"][0]["warnings"])
