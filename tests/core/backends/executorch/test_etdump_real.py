"""The ETRecord/ETDump backend on the real DS-CNN pairs, against the ExecuTorch Inspector."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.clients.cli.analyze_measured import run_measured
from perfline.server.ingest.executorch import load_etdump_document
from tests.support.measured_data import MODEL_SOURCE, inspector, pair

TOLERANCE_MS = 1e-9


def _document(backend: str) -> dict[str, Any]:
    record, dump = pair(backend)
    return load_etdump_document(record, dump)


def _execute_events(backend: str) -> list[dict[str, Any]]:
    data = json.loads(inspector(backend).read_text())
    (block,) = [b for b in data["event_blocks"] if b["name"] == "Execute"]
    events: list[dict[str, Any]] = block["events"]
    return events


def _metric(breakdown: dict[str, Any], name: str) -> dict[str, Any]:
    (metric,) = [m for m in breakdown["metrics"] if m["name"] == name]
    assert isinstance(metric, dict)
    return metric


def _breakdowns_by_entity(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {b["entity_id"]: b for b in result["breakdowns"]}


def _assert_same_statistics(breakdown: dict[str, Any], event: dict[str, Any]) -> None:
    for ours, theirs in (
        ("duration_avg", "avg"),
        ("duration_p50", "p50"),
        ("duration_p90", "p90"),
        ("duration_min", "min"),
        ("duration_max", "max"),
    ):
        metric = _metric(breakdown, ours)
        assert metric["value"] == pytest.approx(event["perf_ms"][theirs], abs=TOLERANCE_MS), ours
        assert metric["samples"] == event["num_samples"]
    durations = [m["value"] for m in breakdown["metrics"] if m["name"] == "duration"]
    assert durations == pytest.approx(event["raw_ms"], abs=TOLERANCE_MS)
    assert _metric(breakdown, "execution_count")["value"] == event["num_samples"]


def _cli_document(backend: str, tmp_path: Path) -> dict[str, Any]:
    record, dump = pair(backend)
    outcome = CliRunner().invoke(
        cli, ["analyze", str(record), str(dump), "--json", "--output-dir", str(tmp_path)]
    )
    assert outcome.exit_code == 0, outcome.output
    document: dict[str, Any] = json.loads(outcome.stdout)
    return document


def test_portable_operator_statistics_equal_the_inspector(tmp_path: Path) -> None:
    """``perfline analyze X.etrecord X.etdump --json``: every operator as the Inspector reads it."""
    result = _cli_document("portable", tmp_path)["results"][0]
    breakdowns = _breakdowns_by_entity(result)
    by_instruction: dict[int, str] = {}
    for entity in result["entities"]:
        instruction = entity.get("attributes", {}).get("instruction_id")
        if instruction is not None and entity["id"] in breakdowns:
            assert instruction not in by_instruction
            by_instruction[instruction] = entity["id"]
    operator_calls = [e for e in _execute_events("portable") if e["name"] == "OPERATOR_CALL"]
    assert len(operator_calls) == 30
    for event in operator_calls:
        entity_id = by_instruction[event["instruction_id"]]
        _assert_same_statistics(breakdowns[entity_id], event)
    # Instructions 0..27 are one source operator each; 28 and 29 (permute_copy, addmm) share
    # debug handle 30 = `linear`, so each is a partial observation on a backend_operator.
    assert by_instruction[0] == "source_operator/conv2d"
    assert by_instruction[28].startswith("backend_operator/")
    assert _metric(breakdowns[by_instruction[28]], "duration_avg")["qualifiers"] == {
        "confidence": "partial"
    }


def test_portable_counts_each_operator_once_and_says_which_event() -> None:
    document = _document("portable")
    result = document["results"][0]
    configuration = document["backends"][0]["configuration"]
    assert configuration["operator_event"] == "OPERATOR_CALL"
    assert configuration["nested_kernel_events_skipped"] == 300  # 30 operators x 10 runs
    assert any("OPERATOR_CALL" in warning for warning in result["warnings"])
    source_breakdowns = [
        b for b in result["breakdowns"] if b["entity_id"].startswith("source_operator/")
    ]
    # 28 single-instruction operators + linear (sum of its two instructions); flatten has no kernel.
    assert len(source_breakdowns) == 29
    assert len({b["entity_id"] for b in source_breakdowns}) == 29
    for entity in result["entities"]:
        assert "native_call" not in str(entity.get("attributes", {}).get("runtime_event", ""))


def test_portable_linear_is_the_per_execution_sum_of_its_instructions() -> None:
    result = _document("portable")["results"][0]
    breakdowns = _breakdowns_by_entity(result)
    events = {
        e["instruction_id"]: e for e in _execute_events("portable") if e["name"] == "OPERATOR_CALL"
    }
    expected = [a + b for a, b in zip(events[28]["raw_ms"], events[29]["raw_ms"], strict=True)]
    linear = breakdowns["source_operator/linear"]
    durations = [m["value"] for m in linear["metrics"] if m["name"] == "duration"]
    assert durations == pytest.approx(expected, abs=TOLERANCE_MS)
    average = _metric(linear, "duration_avg")
    assert average["aggregation"] == "sum"
    assert average["qualifiers"] == {"confidence": "exact"}
    assert average["value"] == pytest.approx(
        events[28]["perf_ms"]["avg"] + events[29]["perf_ms"]["avg"], abs=TOLERANCE_MS
    )


def test_only_exact_averages_are_additive() -> None:
    for backend in ("portable", "xnnpack"):
        for breakdown in _document(backend)["results"][0]["breakdowns"]:
            for metric in breakdown["metrics"]:
                confidence = metric["qualifiers"]["confidence"]
                assert confidence in {"exact", "shared", "partial", "unmapped"}
                additive = metric["name"] == "duration_avg" and confidence == "exact"
                assert ("aggregation" in metric) == additive, (breakdown["entity_id"], metric)


def test_model_inference_time_is_the_method_execute_statistics() -> None:
    for backend in ("portable", "xnnpack"):
        metrics = {m["name"]: m for m in _document(backend)["results"][0]["metrics"]}
        (execute,) = [e for e in _execute_events(backend) if e["name"] == "Method::execute"]
        assert metrics["inference_time"]["value"] == pytest.approx(
            execute["perf_ms"]["avg"], abs=TOLERANCE_MS
        )
        assert metrics["inference_time_p50"]["value"] == pytest.approx(
            execute["perf_ms"]["p50"], abs=TOLERANCE_MS
        )
        assert metrics["inference_time"]["samples"] == 10
        assert metrics["total_cycles"]["availability"] == "unavailable"
        assert metrics["total_cycles"]["reason"]


def test_xnnpack_delegate_call_is_shared_and_not_divided() -> None:
    document = _document("xnnpack")
    result = document["results"][0]
    breakdowns = _breakdowns_by_entity(result)
    entities = {e["id"]: e for e in result["entities"]}
    (delegate_event,) = [e for e in _execute_events("xnnpack") if e["name"] == "DELEGATE_CALL"]
    delegate_id = "backend_operator/forward/delegate_0"
    delegate = entities[delegate_id]
    assert delegate["kind"] == "backend_operator"
    assert len(delegate["child_ids"]) == 30
    assert all(child.startswith("source_operator/") for child in delegate["child_ids"])
    _assert_same_statistics(breakdowns[delegate_id], delegate_event)
    average = _metric(breakdowns[delegate_id], "duration_avg")
    assert average["qualifiers"] == {"confidence": "shared"}
    assert "aggregation" not in average
    # Nothing is split onto the operators the delegate covers.
    assert not [b for b in result["breakdowns"] if b["entity_id"].startswith("source_operator/")]
    # The 14 XNNPACK-internal events: own entities, unmapped, equal to the Inspector's figures.
    internal = [e for e in _execute_events("xnnpack") if e["is_delegated_op"]]
    assert len(internal) == 14
    for event in internal:
        entity_id = f"{delegate_id}/{event['delegate_debug_identifier']}"
        _assert_same_statistics(breakdowns[entity_id], event)
        assert _metric(breakdowns[entity_id], "duration_avg")["qualifiers"] == {
            "confidence": "unmapped"
        }
        assert "child_ids" not in entities[entity_id]


def test_xnnpack_shared_timing_reaches_no_source_line() -> None:
    processed = run_measured([str(path) for path in pair("xnnpack")])
    result = processed["results"][0]
    figured = {b["entity_id"] for b in result["breakdowns"]}
    lines = [e for e in result["entities"] if e["kind"] == "code_line"]
    assert lines
    assert not [line for line in lines if line["id"] in figured]


def _local_line(file: str, line: int) -> str:
    """Map the recorded absolute path onto the local copy by its file name."""
    assert Path(file).name == MODEL_SOURCE.name
    return MODEL_SOURCE.read_text().splitlines()[line - 1].strip()


def test_portable_figures_land_on_the_model_source_lines() -> None:
    processed = run_measured([str(path) for path in pair("portable")])
    result = processed["results"][0]
    figured = {b["entity_id"]: b for b in result["breakdowns"]}
    lines = {
        e["attributes"]["line"]: e
        for e in result["entities"]
        if e["kind"] == "code_line" and e["attributes"]["file"] == "/home/dev/kws/dscnn.py"
    }
    expected_code = {
        24: "x = self.depthwise(x)",
        25: "x = F.relu(self.bn_dw(x))",
        26: "x = self.pointwise(x)",
        27: "x = F.relu(self.bn_pw(x))",
        40: "x = F.relu(self.bn1(self.conv1(x)))",
    }
    for number, code in expected_code.items():
        entity = lines[number]
        assert _local_line(entity["attributes"]["file"], number) == code
        assert entity["id"] in figured, f"line {number} has no figures"
        average = _metric(figured[entity["id"]], "duration_avg")
        assert average["unit"] == "ms"
        assert average["value"] > 0


def test_line_40_adds_conv_bn_and_relu_averages() -> None:
    """conv1, bn1 and the ReLU share line 40: its average is the sum of the three."""
    raw = _document("portable")["results"][0]
    own = _breakdowns_by_entity(raw)
    expected = sum(
        _metric(own[f"source_operator/{name}"], "duration_avg")["value"]
        for name in ("conv2d", "batch_norm", "relu")
    )
    processed = run_measured([str(path) for path in pair("portable")])["results"][0]
    (line_40,) = [
        e
        for e in processed["entities"]
        if e["kind"] == "code_line" and e["attributes"]["line"] == 40
    ]
    (breakdown,) = [b for b in processed["breakdowns"] if b["entity_id"] == line_40["id"]]
    assert _metric(breakdown, "duration_avg")["value"] == pytest.approx(expected, abs=1e-12)


def test_cli_json_output(tmp_path: Path) -> None:
    record, dump = pair("portable")
    outcome = CliRunner().invoke(
        cli,
        [
            "analyze",
            str(record),
            "--profiling-data",
            str(dump),
            "--json",
            "--output-dir",
            str(tmp_path),
        ],
    )
    assert outcome.exit_code == 0, outcome.output
    document = json.loads(outcome.stdout)
    assert document["results"][0]["mode"] == "measured"
    assert document["results"][0]["producer"] == "neural-technology-profiling-data"
    assert (tmp_path / "mlia-output" / "mlia-output.json").is_file()


def test_same_inputs_give_the_same_document() -> None:
    assert _document("portable") == _document("portable")


def test_perfline_analyze_dispatches_etrecord_etdump(tmp_path: Path) -> None:
    record, dump = pair("portable")
    outcome = CliRunner().invoke(
        cli, ["analyze", str(record), str(dump), "--json", "--output-dir", str(tmp_path)]
    )
    assert outcome.exit_code == 0, outcome.output
    result = json.loads(outcome.stdout)["results"][0]
    assert result["mode"] == "measured"
    assert any(entity["kind"] == "code_line" for entity in result["entities"])
