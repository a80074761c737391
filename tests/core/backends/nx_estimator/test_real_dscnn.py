"""``perfline analyze`` on the real DS-CNN estimator databases (no summary JSON, no VGF)."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.core.backends.nx_common.metrics import ALL_METRIC_NAMES
from perfline.core.json_schema import document_json_schema
from tests.support.nx_estimator_data import DATA, DEBUG_DB, DSCNN, PERFORMANCE_DB

#: The seed's model-level metric table (seed 000), written out independently of the code.
SEED_MODEL_METRICS = {
    "total_cycles": "cycles",
    "compute_cycles": "cycles",
    "cache_cycles": "cycles",
    "dram_cycles": "cycles",
    "inference_time": "ms",
    "infs_per_sec": "inferences/s",
    "inferences_per_second": "inferences/s",
    "target_utilization": "%",
    "compiled_size": "bytes",
    "cache_read_bytes": "bytes",
    "cache_write_bytes": "bytes",
    "dram_read_bytes": "bytes",
    "dram_write_bytes": "bytes",
    "dram_footprint": "bytes",
    "accelerator_operator_percentage": "%",
    "cpu_utilization": "%",
    "model_weight_memory": "bytes",
    "peak_activation_memory": "bytes",
    "average_memory": "bytes",
}

#: The seed's layer breakdown metric table.
SEED_LAYER_METRICS = {
    "op_cycles",
    "total_cycles",
    *(
        f"{m}_{f}"
        for m in ("l1", "l2", "system_cache", "dram")
        for f in ("read_bytes", "write_bytes", "traffic_cycles")
    ),
    *(
        f"{s}_cycles"
        for s in (
            "input_reader",
            "convolution_engine",
            "vector_engine",
            "transform_unit",
            "weight_decoder",
            "output_writer",
        )
    ),
}


def _cdata_csv(path: Path, table: str) -> list[dict[str, str]]:
    """An independent reading: the CDATA of ``table`` through the csv module."""
    text = path.read_text()
    start = text.index(f'<table name="{table}">')
    body = text[text.index("<![CDATA[", start) + 9 : text.index("]]>", start)]
    reader = csv.reader(io.StringIO(body.strip()), skipinitialspace=True)
    rows = [[cell.strip().strip('"') for cell in row] for row in reader if row]
    header = rows[0]
    return [dict(zip(header, row, strict=False)) for row in rows[1:]]


def _expected_sums() -> tuple[dict[str, dict[str, int]], dict[str, dict[str, int]]]:
    chain_of = {r["id"]: r["op_id"] for r in _cdata_csv(DEBUG_DB, "stripe_op_id")}
    cascade_of = {r["id"]: r["cascade_op_id"] for r in _cdata_csv(DEBUG_DB, "stripe_op_id")}
    chains: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    cascades: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in _cdata_csv(PERFORMANCE_DB, "performance"):
        figures: dict[str, int] = {
            "op_cycles": int(row["opCycles"]),
            "total_cycles": int(row["totalCycles"]),
        }
        memory = row["memoryName;readBytes;writeBytes;trafficCycles"].strip(";").split(";")
        for i in range(0, len(memory), 4):
            name = {"L1": "l1", "L2": "l2", "SystemCache": "system_cache", "DRAM": "dram"}.get(
                memory[i]
            )
            if name:
                figures[f"{name}_read_bytes"] = int(memory[i + 1])
                figures[f"{name}_write_bytes"] = int(memory[i + 2])
                figures[f"{name}_traffic_cycles"] = int(memory[i + 3])
        sections = row["sectionName;cycles"].strip(";").split(";")
        for i in range(0, len(sections), 2):
            snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in sections[i]).lstrip("_")
            figures[f"{snake}_cycles"] = int(sections[i + 1])
        for key, value in figures.items():
            chains[f"chain/segment_0/{chain_of[row['id']]}"][key] += value
            cascades[f"cascade/segment_0/{cascade_of[row['id']]}"][key] += value
    return chains, cascades


@pytest.fixture(scope="module")
def analyzed(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    output = tmp_path_factory.mktemp("out")
    result = CliRunner().invoke(
        cli, ["analyze", str(PERFORMANCE_DB), str(DEBUG_DB), "--output-dir", str(output), "--json"]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), output


def _metrics(metrics: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {metric["name"]: metric for metric in metrics}


def test_document_is_valid_and_written(analyzed: tuple[dict[str, Any], Path]) -> None:
    document, output = analyzed
    jsonschema.validate(document, document_json_schema())
    written = json.loads((output / "mlia-output" / "mlia-output.json").read_text())
    assert written == document
    statistics = json.loads((output / "nx_performance_statistics.json").read_text())
    assert statistics["chain/segment_0/656"]["stripe_ids"] == ["1", "0"]
    utilization = statistics["chain/segment_0/656"]["utilization"][0]
    assert utilization == {"sectionName": "InputReader", "cycles": "5473", "percentage": "57.2%"}
    operators = statistics["chain/segment_0/690"]["operators"]
    assert [o["operator_types"] for o in operators] == [["LUT"], ["LUT"], ["SHL"], ["SHL"], ["Add"]]
    assert all(o["source_operator_ids"] == [] for o in operators)  # no VGF: no source ids


def test_chain_and_cascade_breakdowns_equal_the_csv_sums(
    analyzed: tuple[dict[str, Any], Path],
) -> None:
    document, _ = analyzed
    result = document["results"][0]
    chains, cascades = _expected_sums()
    breakdowns = {b["entity_id"]: _metrics(b["metrics"]) for b in result["breakdowns"]}
    # Core projects the chains' figures onto the segment (complete coverage).
    assert set(chains) | set(cascades) | {"segment/0"} == set(breakdowns)
    assert breakdowns["segment/0"]["op_cycles"]["value"] == sum(
        c["op_cycles"] for c in chains.values()
    )
    assert len(chains) == 27 and len(cascades) == 27
    for entity_id, expected in {**chains, **cascades}.items():
        metrics = breakdowns[entity_id]
        assert set(metrics) == SEED_LAYER_METRICS
        for name, value in expected.items():
            assert metrics[name]["value"] == value, (entity_id, name)
            assert metrics[name]["aggregation"] == "sum"
    assert breakdowns["chain/segment_0/656"]["op_cycles"]["value"] == 8862


def test_every_seed_metric_present_or_unavailable_with_reason(
    analyzed: tuple[dict[str, Any], Path],
) -> None:
    document, _ = analyzed
    result = document["results"][0]
    metrics = _metrics(result["metrics"])
    assert set(SEED_MODEL_METRICS) == set(metrics) == set(ALL_METRIC_NAMES)
    summary = f"{DSCNN}_network_performance_summary.json"
    for name, unit in SEED_MODEL_METRICS.items():
        metric = metrics[name]
        assert metric["unit"] == unit
        if "value" not in metric:
            assert metric["availability"] == "unavailable"
            assert metric["reason"]
    for name in ("total_cycles", "inference_time", "inferences_per_second", "target_utilization"):
        assert summary in metrics[name]["reason"]
    assert metrics["accelerator_operator_percentage"]["value"] == 100
    assert any(summary in warning for warning in result["warnings"])


def test_entities_and_declared_kinds(analyzed: tuple[dict[str, Any], Path]) -> None:
    document, _ = analyzed
    result = document["results"][0]
    entities = {entity["id"]: entity for entity in result["entities"]}
    chain = entities["chain/segment_0/656"]
    assert chain["name"] == "segment_0/Chain 656"
    assert chain["placement"] == "NX"
    assert chain["parent_ids"] == ["cascade/segment_0/2823"]
    assert entities["cascade/segment_0/2823"]["parent_ids"] == ["segment/0"]
    assert {e["kind"] for e in entities.values()} == {"chain", "cascade", "segment"}
    declared = {kind["id"] for kind in result["entity_kinds"]}
    assert declared == {"segment", "cascade", "chain", "performance_group", "nn_module"}
    assert "mode" not in result


def test_folder_input_gives_the_same_result(
    analyzed: tuple[dict[str, Any], Path], tmp_path: Path
) -> None:
    document, _ = analyzed
    result = CliRunner().invoke(
        cli, ["analyze", str(DATA), "--output-dir", str(tmp_path), "--json"]
    )
    assert result.exit_code == 0, result.output
    again = json.loads(result.stdout)
    assert again["results"] == document["results"]
    assert again["run_id"] == document["run_id"]
    assert again["timestamp"] == document["timestamp"]
