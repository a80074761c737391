"""Estimator outputs for the real DS-CNN VGF (real SPIR-V ids, ExecuTorch JSON labels).

The test writes the estimator's three files in the documented format for
``dscnn_int_dbg.vgf``: one chain per convolution (with its rescale) or other
operation, two stripes per chain, labels = the VGF's own debug names (one as a
``TOSA<OP>_spirv_id_<N>`` placeholder), one operation also on the Execution
Engine, and the final reshape left out as the estimator may do.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.core.json_schema import document_json_schema
from tests.support.estimator_outputs import (
    NAME,
    ON_EE,
    SKIPPED,
    write_outputs,
)
from tests.support.nx_estimator_data import DSCNN_VGF


@pytest.fixture(scope="module")
def processed(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    run = tmp_path_factory.mktemp("run")
    expected = write_outputs(run)
    output = tmp_path_factory.mktemp("out")
    result = CliRunner().invoke(
        cli, ["analyze", str(DSCNN_VGF), str(run), "--output-dir", str(output), "--json"]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), expected


def _by_id(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entity["id"]: entity for entity in result["entities"]}


def test_valid_document_with_summary_metrics(
    processed: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    document, _ = processed
    jsonschema.validate(document, document_json_schema())
    assert document["model"]["name"] == "dscnn_int_dbg.vgf"
    assert document["model"]["format"] == "vgf"
    metrics = {m["name"]: m for m in document["results"][0]["metrics"]}
    assert metrics["total_cycles"]["value"] == 20000
    assert metrics["inferences_per_second"]["value"] == pytest.approx(1000 / 0.02)
    assert metrics["infs_per_sec"]["value"] == 49999.5
    assert metrics["target_utilization"]["value"] == pytest.approx(15000 / 20000 * 100)
    assert metrics["cache_cycles"]["value"] == 5
    assert metrics["cache_read_bytes"]["value"] == 0  # missing member counts as 0
    assert metrics["dram_cycles"]["value"] == 0
    assert metrics["model_weight_memory"]["availability"] == "unavailable"


def test_chains_link_source_operators_with_real_spirv_ids(
    processed: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    document, expected = processed
    result = document["results"][0]
    entities = _by_id(result)
    breakdowns = {b["entity_id"]: b for b in result["breakdowns"]}
    for chain_id, op_cycles in expected["op_cycles"].items():
        metrics = {m["name"]: m["value"] for m in breakdowns[chain_id]["metrics"]}
        assert metrics["op_cycles"] == op_cycles
    first_conv = entities["source_operator/segment_0/spirv-147"]
    assert first_conv["name"] == "tosa.DEPTHWISE_CONV2D.default"
    assert first_conv["placement"] == "NX"
    assert first_conv["attributes"]["operator_types"] == ["DepthwiseConv2D"]
    assert "chain/segment_0/3001" in first_conv["parent_ids"]
    # The placeholder label resolved to its SPIR-V id.
    assert "chain/segment_0/3000" in entities["source_operator/segment_0/spirv-141"]["parent_ids"]
    # On NX (in a chain) and on the Execution Engine.
    assert entities[f"source_operator/segment_0/spirv-{ON_EE}"]["placement"] == "NX/EE"
    # The operation the estimator skipped is still there, under its segment, unplaced.
    skipped = entities[f"source_operator/segment_0/spirv-{SKIPPED}"]
    assert skipped["parent_ids"] == ["segment/0"]
    assert "placement" not in skipped
    assert entities["segment/0"]["name"] == "graph_segment_0"


def test_code_lines_of_the_model_source_carry_projected_figures(
    processed: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    document, _ = processed
    result = document["results"][0]
    entities = _by_id(result)
    # Default collapse removed torch/executorch frames; user frames stay.
    stacks = [e for e in entities.values() if e["kind"] == "code_stack"]
    assert stacks
    assert all("/site-packages/" not in e["attributes"]["file"] for e in stacks)
    lines = {
        e["attributes"]["line"]: e["id"]
        for e in entities.values()
        if e["kind"] == "code_line" and e["attributes"]["file"] == "/home/dev/kws/dscnn.py"
    }
    assert {24, 26, 40, 41, 42, 44} <= set(lines)
    assert any(e["kind"] == "nn_module" for e in entities.values())
    breakdowns = {b["entity_id"]: b for b in result["breakdowns"]}
    for line in (24, 26, 40, 42):
        figures = {m["name"]: m for m in breakdowns[lines[line]]["metrics"]}
        assert figures["op_cycles"]["value"] > 0
        assert figures["op_cycles"]["aggregation"] == "sum"


def test_compatibility_result(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    write_outputs(run)
    result = CliRunner().invoke(
        cli,
        [
            "analyze",
            str(DSCNN_VGF),
            str(run),
            "--compatibility",
            "--output-dir",
            str(tmp_path),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    (compat,) = document["results"]
    assert compat["kind"] == "compatibility"
    assert compat["status"] == "ok"
    checks = compat["checks"]
    assert [c["id"] for c in checks] == [f"nx_support_{n}" for n in range(len(checks))]
    assert all(c["status"] == "pass" and c["details"] == {"reasons": []} for c in checks)
    entities = _by_id(compat)
    assert entities[f"source_operator/segment_0/spirv-{ON_EE}"]["placement"] == "NX/EE"
    # 22 NX records + 1 EE record.
    (metric,) = compat["metrics"]
    assert metric["name"] == "accelerator_operator_percentage"
    assert metric["value"] == pytest.approx(22 / 23 * 100)
    text = CliRunner().invoke(
        cli, ["analyze", str(DSCNN_VGF), str(run), "--compatibility", "--output-dir", str(tmp_path)]
    )
    assert text.exit_code == 0, text.output
    assert "Placement" in text.stdout and "Reason" not in text.stdout


def test_placeholder_for_an_unknown_spirv_id_names_the_place(tmp_path: Path) -> None:
    write_outputs(tmp_path)
    debug = tmp_path / f"{NAME}_debug_database.dat"
    debug.write_text(debug.read_text().replace("spirv_id_141", "spirv_id_99999"))
    result = CliRunner().invoke(
        cli, ["analyze", str(DSCNN_VGF), str(tmp_path), "--output-dir", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert str(debug) in result.output
    assert "table tosa_op_id, id 1141, column api_labels" in result.output
    assert "99999" in result.output


def test_collapse_options_reach_the_pipeline(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    write_outputs(run)

    def stacks(*options: str) -> list[str]:
        result = CliRunner().invoke(
            cli,
            [
                "analyze",
                str(DSCNN_VGF),
                str(run),
                "--output-dir",
                str(tmp_path),
                "--json",
                *options,
            ],
        )
        assert result.exit_code == 0, result.output
        entities = json.loads(result.stdout)["results"][0]["entities"]
        return [e["attributes"]["file"] for e in entities if e["kind"] == "code_stack"]

    assert any("/site-packages/torch/" in f for f in stacks("--no-default-collapse"))
    user_only = stacks("--no-default-collapse", "--collapse", "code_stack:file:**/site-packages/**")
    assert user_only and all(f == "/home/dev/kws/dscnn.py" for f in user_only)
