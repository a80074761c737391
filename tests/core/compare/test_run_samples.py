"""Per-run values: persisted by the ExecuTorch backend, kept by the pipeline, derived per line.

The reference values are the ExecuTorch Inspector's own ``raw_ms`` of the same ETDumps.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.core.compare.run_samples import (
    derive_run_samples,
    read_result_run_samples,
    read_run_samples,
)
from perfline.core.errors import InputError
from perfline.core.pipeline import postprocess
from perfline.server.ingest.executorch import load_etdump_document
from tests.support.compare_paths import et_pair, inspector

STATISTICS = ("duration_avg", "duration_min", "duration_max", "duration_p50", "duration_p90")
USER_LINE = re.compile(r'File "/home/dev/kws/dscnn\.py", line (\d+)')


def _events(backend: str) -> list[dict[str, Any]]:
    data = json.loads(inspector(backend).read_text())
    (block,) = [b for b in data["event_blocks"] if b["name"] == "Execute"]
    events: list[dict[str, Any]] = block["events"]
    return events


def _raw(backend: str) -> dict[str, Any]:
    record, dump = et_pair(backend)
    return load_etdump_document(record, dump)


def _by_instruction(result: dict[str, Any]) -> dict[int, str]:
    figured = {b["entity_id"] for b in result["breakdowns"]}
    found: dict[int, str] = {}
    for entity in result["entities"]:
        instruction = entity.get("attributes", {}).get("instruction_id")
        if instruction is not None and entity["id"] in figured:
            found.setdefault(instruction, entity["id"])
    return found


def test_portable_document_keeps_every_operators_runs() -> None:
    document = _raw("portable")
    (samples,) = read_run_samples(document, "portable")
    by_instruction = _by_instruction(document["results"][0])
    calls = [e for e in _events("portable") if e["name"] == "OPERATOR_CALL"]
    assert len(calls) == 30
    for event in calls:
        entity = by_instruction[event["instruction_id"]]
        for statistic in STATISTICS:
            assert samples[entity][statistic] == pytest.approx(event["raw_ms"], abs=1e-9)
    # linear = permute_copy (instruction 28) + addmm (29), run by run.
    addmm = {e["instruction_id"]: e["raw_ms"] for e in calls if e["instruction_id"] in (28, 29)}
    summed = [a + b for a, b in zip(addmm[28], addmm[29], strict=True)]
    assert samples["source_operator/linear"]["duration_avg"] == pytest.approx(summed, abs=1e-9)
    (model,) = read_result_run_samples(document, "portable")
    (execute,) = [e for e in _events("portable") if e["name"] == "Method::execute"]
    assert model["inference_time"] == pytest.approx(execute["raw_ms"], abs=1e-9)
    assert model["inferences_per_second"] == pytest.approx([1000 / v for v in execute["raw_ms"]])
    metrics = {m["name"]: m.get("value") for m in document["results"][0]["metrics"]}
    harmonic = len(execute["raw_ms"]) / sum(1 / (1000 / v) for v in execute["raw_ms"])
    assert metrics["inferences_per_second"] == pytest.approx(harmonic)


def test_xnnpack_document_keeps_the_delegate_events_runs() -> None:
    document = _raw("xnnpack")
    (samples,) = read_run_samples(document, "xnnpack")
    events = [e for e in _events("xnnpack") if e["name"] != "Method::execute"]
    assert len(samples) == len(events) == 15
    names = {e["name"]: e["raw_ms"] for e in events}
    entities = {e["id"]: e for e in document["results"][0]["entities"]}
    for entity_id, statistics in samples.items():
        name = entities[entity_id]["name"]
        key = "DELEGATE_CALL" if name.startswith("XnnpackBackend") else name
        assert statistics["duration_avg"] == pytest.approx(names[key], abs=1e-9)


def test_the_pipeline_keeps_the_samples_and_its_mark() -> None:
    raw = _raw("portable")
    processed = postprocess(raw)
    own = processed["extensions"]["perfline"]
    assert own["postprocessed"] is True
    assert own["run_samples"] == raw["extensions"]["perfline"]["run_samples"]
    assert own["result_run_samples"] == raw["extensions"]["perfline"]["result_run_samples"]


def _expected_line_runs(backend: str) -> dict[int, list[float]]:
    """Line -> per-run sum of the operator events whose user frames include the line."""
    lines: dict[int, list[float]] = {}
    for event in _events(backend):
        if event["name"] != "OPERATOR_CALL":
            continue
        traces = " ".join(event["stack_traces"].values())
        for line in {int(n) for n in USER_LINE.findall(traces)}:
            runs = lines.setdefault(line, [0.0] * len(event["raw_ms"]))
            for run, value in enumerate(event["raw_ms"]):
                runs[run] += value
    return lines


def test_a_lines_runs_are_the_run_by_run_sums_of_its_operators() -> None:
    processed = postprocess(_raw("portable"))
    result = processed["results"][0]
    (samples,) = read_run_samples(processed, "portable")
    derived = derive_run_samples(result, samples)
    expected = _expected_line_runs("portable")
    lines = {
        e["id"]: e["attributes"]["line"] for e in result["entities"] if e["kind"] == "code_line"
    }
    figured = {b["entity_id"] for b in result["breakdowns"]}
    derived_lines = {lines[i]: derived[i] for i in lines if i in derived}
    assert set(derived_lines) == {lines[i] for i in lines if i in figured}
    # Every line the Inspector's traces name with a kernel below it, the call line 41 (whose
    # figure includes lines 24-27) too: its runs are the sums of its 24 events' runs.
    assert set(derived_lines) == set(expected) == {24, 25, 26, 27, 40, 41, 42, 44}
    for line, statistics in derived_lines.items():
        assert statistics["duration_avg"] == pytest.approx(expected[line], abs=1e-9), line
        figure = next(
            m["value"]
            for b in result["breakdowns"]
            if b["entity_id"] in lines and lines[b["entity_id"]] == line
            for m in b["metrics"]
            if m["name"] == "duration_avg"
        )
        assert sum(statistics["duration_avg"]) / 10 == pytest.approx(figure, rel=1e-12)
    # Single-operator lines also carry the operator's other statistics, with the same runs.
    assert derived_lines[42]["duration_p50"] == derived_lines[42]["duration_avg"]


def test_xnnpack_lines_have_no_runs_because_they_have_no_figures() -> None:
    processed = postprocess(_raw("xnnpack"))
    result = processed["results"][0]
    (samples,) = read_run_samples(processed, "xnnpack")
    derived = derive_run_samples(result, samples)
    kinds = {e["id"]: e["kind"] for e in result["entities"]}
    assert not [i for i in derived if kinds[i] == "code_line"]
    assert (
        derived["nn_module/<root>"]["duration_avg"]
        == samples["backend_operator/forward/delegate_0"]["duration_avg"]
    )


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ({"x": {}}, "extensions.perfline.run_samples"),
        ([{"source_operator/relu": {"duration_avg": []}}], "duration_avg"),
        ([{"source_operator/relu": {"duration_avg": ["fast"]}}], "duration_avg"),
        ([{"source_operator/relu": [1.0]}], "'source_operator/relu'"),
    ],
)
def test_malformed_samples_are_bad_input_naming_the_place(value: Any, where: str) -> None:
    document = _raw("portable")
    document["extensions"]["perfline"]["run_samples"] = value
    with pytest.raises(InputError) as raised:
        read_run_samples(document, "doc.json")
    assert where in raised.value.render()
    assert "doc.json" in raised.value.render()


def test_malformed_samples_exit_2_from_the_cli(tmp_path: Any) -> None:
    document = _raw("portable")
    document["extensions"]["perfline"]["run_samples"] = [{"source_operator/relu": {"d": [True]}}]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    outcome = CliRunner().invoke(cli, ["compare", str(path), str(path)])
    assert outcome.exit_code == 2, outcome.output
    assert "bad.json" in outcome.output and "run_samples[0]" in outcome.output
