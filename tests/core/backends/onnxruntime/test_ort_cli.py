"""``perfline analyze`` for ONNX Runtime profiles and ``--static``: exit codes and messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli_process import analyze
from tests.support.onnxruntime_data import DATA, DSCNN_ONNX

THIRD_PARTY = DATA.parent / "formats" / "onnx-third-party"


def test_profiles_route_writes_the_measured_document(tmp_path: Path) -> None:
    completed = analyze(
        tmp_path, str(DSCNN_ONNX), str(DATA / "dscnn_noopt.json"), "--warmup-runs", "2", "--json"
    )
    assert completed.returncode == 0, completed.stderr
    document = json.loads(completed.stdout)
    assert document["results"][0]["producer"] == "onnxruntime"
    assert document["backends"][0]["configuration"]["runs_used"] == 8
    written = json.loads((tmp_path / "mlia-output" / "mlia-output.json").read_text())
    assert written == document


def test_profile_of_another_model_exits_2_with_counts(tmp_path: Path) -> None:
    profile = DATA / "ppocr_cls_noopt.json"
    completed = analyze(tmp_path, str(DSCNN_ONNX), str(profile))
    assert completed.returncode == 2
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        f"error: {profile}: 0 of 258 profile nodes matched a node of {DSCNN_ONNX} "
    )
    assert lines[0].endswith(
        "the profile is of another model (or of another size or version of it)"
    )


def test_static_route_and_missing_external_data(tmp_path: Path) -> None:
    completed = analyze(tmp_path, str(DATA / "dscnn_external.onnx"), "--static", "--json")
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)["results"][0]
    assert result["mode"] == "predicted" and result["producer"] == "perfline-static"
    missing = [w for w in result["warnings"] if "dscnn_external.weights" in w]
    assert missing and "initializer 'conv1.weight'" in missing[0]
    metrics = {m["name"]: m.get("value") for m in result["metrics"]}
    assert metrics["macs"] == 2656768  # shapes are in the model file


def test_static_target_from_perfline_toml(tmp_path: Path) -> None:
    model = tmp_path / "dscnn.onnx"
    model.write_bytes(DSCNN_ONNX.read_bytes())
    (tmp_path / "perfline.toml").write_text(
        '[static.target]\nname = "test"\nmacs_per_second = 1.0e9\n'
    )
    completed = analyze(tmp_path, str(model), "--static", "--json")
    assert completed.returncode == 0, completed.stderr
    metrics = {m["name"]: m for m in json.loads(completed.stdout)["results"][0]["metrics"]}
    assert metrics["inference_time"]["value"] == pytest.approx(2656768 / 1e9 * 1000)


def test_bad_inputs_exit_2(tmp_path: Path) -> None:
    vgf = DATA.parent / "formats" / "dscnn" / "dscnn_int.vgf"
    completed = analyze(tmp_path, str(vgf), "--static")
    assert completed.returncode == 2
    assert "static cost reads ONNX, PT2 and TOSA models, not VGF" in completed.stderr
    completed = analyze(tmp_path, str(DSCNN_ONNX), str(tmp_path / "missing.json"))
    assert completed.returncode == 2
    assert "missing.json: no such ONNX Runtime profile file" in completed.stderr


def test_options_of_other_routes_are_rejected(tmp_path: Path) -> None:
    completed = analyze(tmp_path, str(DSCNN_ONNX), "--static", "--warmup-runs", "2")
    assert completed.returncode == 2
    assert "--warmup-runs: does not apply to --static" in completed.stderr
    profile = str(DATA / "dscnn_noopt.json")
    completed = analyze(tmp_path, str(DSCNN_ONNX), profile, "--compatibility")
    assert completed.returncode == 2
    assert "--compatibility: does not apply to ONNX Runtime profiles" in completed.stderr
