"""Comparisons of real runs, checked against values computed from the raw events.

* the DS-CNN onnxruntime profiles without and with graph optimisation, through the real
  backend (``tests/support/ort_runs.py``);
* the portable and XNNPACK ExecuTorch runs of the same source, through the real backend.

The expected per-line figures come from the raw events and the model's own node records
(``dscnn.onnx.nodes.json``, the ExecuTorch Inspector's reading), not from perfline.
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.core.compare import compare_documents
from perfline.core.compare.comparison import ResultComparison
from perfline.core.compare.run_samples import derive_run_samples, read_run_samples
from perfline.core.pipeline import postprocess
from tests.support.compare_paths import ONNX_MODEL, ORT_NOOPT, ORT_OPT, et_pair, inspector
from tests.support.ort_runs import ort_run
from tests.support.raw_events import fused_members, node_lines, raw_line_runs


def _ort(profile: Path) -> dict[str, Any]:
    return postprocess(ort_run(ONNX_MODEL, profile))


def _lines(result: ResultComparison) -> dict[int, Any]:
    return {entity.new_line: entity for entity in result.lines()}


def test_onnxruntime_without_and_with_optimisation_per_line_deltas() -> None:
    base, new = _ort(ORT_NOOPT), _ort(ORT_OPT)
    comparison = compare_documents(base, new, base_source="noopt", new_source="opt")
    (result,) = comparison.results
    expected_base, expected_new = raw_line_runs(ORT_NOOPT), raw_line_runs(ORT_OPT)
    lines = _lines(result)
    assert {25, 27, 40, 42, 43, 44} <= set(lines) <= set(expected_base)
    for line, entity in lines.items():
        delta = entity.metric("duration_avg")
        assert delta is not None and entity.status == "common"
        base_mean = statistics.fmean(expected_base[line])
        new_mean = statistics.fmean(expected_new[line])
        assert delta.base == pytest.approx(base_mean, rel=1e-12), line
        assert delta.new == pytest.approx(new_mean, rel=1e-12), line
        assert delta.delta == pytest.approx(new_mean - base_mean, rel=1e-9, abs=1e-15)
        assert delta.ratio == pytest.approx(new_mean / base_mean, rel=1e-12)
        assert delta.method == "samples" and delta.base_runs == delta.new_runs == 9
    # The per-run values the test ran on are the raw per-run sums of each line's nodes.
    (samples,) = read_run_samples(new, "opt")
    derived = derive_run_samples(new["results"][0], samples)
    for line, entity in lines.items():
        assert derived[entity.new_id]["duration_avg"] == pytest.approx(
            expected_new[line], abs=1e-12
        )
    # Fusing Conv+Relu into NCHWc kernels makes the block convolutions (line 25, the depthwise
    # convs that carry the BatchNorm's trace) clearly faster: every run of opt is below every
    # run of noopt, significant after Holm over the lines.
    fast = lines[25].metric("duration_avg")
    assert fast is not None
    assert max(expected_new[25]) < min(expected_base[25])
    assert fast.significant and fast.verdict == "improvement" and fast.p_adjusted is not None
    assert result.model.metric("inference_time") is not None
    assert result.model.metric("inference_time").verdict == "improvement"  # type: ignore[union-attr]
    # ORT's fused kernels and its ReorderOutput exist only in the optimised run.
    added = {
        e.new_id for e in result.entities if e.status == "added" and e.kind == "backend_operator"
    }
    kernels = [*fused_members(), "ReorderOutput"]
    assert added == {f"backend_operator/onnxruntime/{name}" for name in kernels}
    assert any("partial overlap: 21 operator(s) in both runs" in w for w in comparison.warnings)


def _inspector_line_runs(backend: str) -> dict[int, list[float]]:
    data = json.loads(inspector(backend).read_text())
    (block,) = [b for b in data["event_blocks"] if b["name"] == "Execute"]
    lines: dict[int, list[float]] = {}
    for event in block["events"]:
        if event["name"] != "OPERATOR_CALL":
            continue
        traces = " ".join(event["stack_traces"].values())
        for line in {int(n) for n in re.findall(r'kws/dscnn\.py", line (\d+)', traces)}:
            runs = lines.setdefault(line, [0.0] * len(event["raw_ms"]))
            for run, value in enumerate(event["raw_ms"]):
                runs[run] += value
    return lines


def _execute_runs(backend: str) -> list[float]:
    data = json.loads(inspector(backend).read_text())
    (block,) = [b for b in data["event_blocks"] if b["name"] == "Execute"]
    (event,) = [e for e in block["events"] if e["name"] == "Method::execute"]
    runs: list[float] = event["raw_ms"]
    return runs


def _event_averages(backend: str, name: str) -> float:
    """The summed Inspector averages of the ``name`` events of the Execute block."""
    data = json.loads(inspector(backend).read_text())
    (block,) = [b for b in data["event_blocks"] if b["name"] == "Execute"]
    return sum(float(e["perf_ms"]["avg"]) for e in block["events"] if e["name"] == name)


def _et_json(tmp_path: Path, *extra: str) -> dict[str, Any]:
    portable, xnnpack = et_pair("portable"), et_pair("xnnpack")
    outcome = CliRunner().invoke(
        cli,
        [
            "compare",
            ",".join(str(p) for p in portable),
            ",".join(str(p) for p in xnnpack),
            "--json",
            "--source-root",
            str(tmp_path),
            *extra,
        ],
    )
    assert outcome.exit_code == 0, outcome.output
    data: dict[str, Any] = json.loads(outcome.stdout)
    return data


def test_portable_against_xnnpack_through_the_cli(tmp_path: Path) -> None:
    data = _et_json(tmp_path)
    (result,) = data["results"]
    assert result["producer"] == "neural-technology-profiling-data"
    expected = _inspector_line_runs("portable")
    lines = {e["new_line"]: e for e in result["entities"] if e["kind"] == "code_line"}
    # Every line the Inspector's traces name with a kernel below it; line 41 (the call
    # line ``x = self.blocks(x)``) with its inclusive figure, the sum over its 24 events.
    assert set(lines) == set(expected) == {24, 25, 26, 27, 40, 41, 42, 44}
    assert [(c["line"]) for c in lines[41]["calls"]] == [24, 25, 26, 27]
    assert all("calls" not in e for n, e in lines.items() if n != 41)
    for line, entity in lines.items():
        (delta,) = [m for m in entity["metrics"] if m["name"] == "duration_avg"]
        assert entity["status"] == "common"
        # XNNPACK runs the whole graph in one delegate call: no figure is on a line.
        assert delta["verdict"] == "removed" and "new" not in delta
        assert delta["base"] == pytest.approx(statistics.fmean(expected[line]), rel=1e-12)
    model = {m["name"]: m for m in result["model"]}
    base_mean = statistics.fmean(_execute_runs("portable"))
    new_mean = statistics.fmean(_execute_runs("xnnpack"))
    time = model["inference_time"]
    assert time["base"] == pytest.approx(base_mean) and time["new"] == pytest.approx(new_mean)
    assert time["delta"] == pytest.approx(new_mean - base_mean)
    assert time["ratio"] == pytest.approx(new_mean / base_mean)
    assert time["method"] == "samples" and time["base_runs"] == time["new_runs"] == 10
    assert max(_execute_runs("xnnpack")) < min(_execute_runs("portable"))
    assert time["significant"] and time["verdict"] == "improvement"
    assert model["inferences_per_second"]["verdict"] == "improvement"
    # The module root holds every operator: in portable the sum of the OPERATOR_CALL events
    # (exact float sums give it its figure), in XNNPACK the one delegate call.
    (root,) = [e for e in result["entities"] if e.get("new_id") == "nn_module/<root>"]
    (whole,) = [m for m in root["metrics"] if m["name"] == "duration_avg"]
    assert whole["base"] == pytest.approx(_event_averages("portable", "OPERATOR_CALL"), rel=1e-12)
    assert whole["new"] == pytest.approx(_event_averages("xnnpack", "DELEGATE_CALL"), rel=1e-12)
    assert whole["verdict"] == "improvement" and whole["significant"]
    counts = result["counts"]["backend_operator"]
    assert counts == {"common": 0, "added": 15, "removed": 2}


def test_the_view_layer_asks_per_file_and_line_and_per_entity() -> None:
    base, new = _ort(ORT_NOOPT), _ort(ORT_OPT)
    comparison = compare_documents(base, new)
    (found,) = comparison.line("/home/dev/kws/dscnn.py", 25)
    assert found.kind == "code_line" and found.new_line == 25
    # Line 41 (``x = self.blocks(x)``): the inclusive figure of the nodes whose traces hold
    # it, which the lines it calls (25 and 27 in this export) account for.
    (call,) = comparison.line("/home/dev/kws/dscnn.py", 41)
    below = set().union(*(lines for lines in node_lines().values() if 41 in lines)) - {41}
    assert [n for _, n in call.calls] == sorted(below) == [25, 27]
    delta = call.metric("duration_avg")
    assert delta is not None and delta.explained and not found.metric("duration_avg").explained  # type: ignore[union-attr]
    assert delta.base == pytest.approx(statistics.fmean(raw_line_runs(ORT_NOOPT)[41]), rel=1e-12)
    assert delta.new == pytest.approx(statistics.fmean(raw_line_runs(ORT_OPT)[41]), rel=1e-12)
    (result,) = comparison.results
    assert found.new_id is not None and result.entity(found.new_id) is found
    operator = result.entity("source_operator/20")
    assert operator is not None and operator.metric("duration_avg") is not None
    assert result.entity("no such entity") is None
