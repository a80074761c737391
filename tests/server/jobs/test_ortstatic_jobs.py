"""The onnxruntime and static job types through the engine and ``perfline annotate``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from perfline.server.engine import Engine
from perfline.server.jobs.registry import default_registry
from tests.support.ort_static_workspace import ORT, ort_static_workspace

REGISTRY = default_registry()


def test_discovery_needs_the_static_opt_in() -> None:
    files = ["m/a.onnx", "m/a_noopt.json", "m/a_opt.json", "m/a_opt.optimized.onnx", "b.pt2"]
    ort = REGISTRY["onnxruntime"].discover(files)
    assert [(j.name, j.inputs) for j in ort] == [
        ("m/a_noopt", ("m/a.onnx", "m/a_noopt.json")),
        ("m/a_opt", ("m/a.onnx", "m/a_opt.json", "m/a_opt.optimized.onnx")),
    ]
    static = REGISTRY["static"].discover(files)
    assert [j.inputs for j in static] == [("m/a.onnx",), ("b.pt2",)]
    from perfline.core.workspace_config import WorkspaceConfig
    from perfline.server.workspace import plan_jobs

    assert {p.backend for p in plan_jobs(WorkspaceConfig(), files, REGISTRY)} == {"onnxruntime"}


def test_engine_serves_ort_and_static_figures_on_the_same_lines(tmp_path: Path) -> None:
    root = ort_static_workspace(tmp_path)
    engine = Engine(root, debounce=0.02, settle=0.1)
    engine.start()
    try:
        assert engine.wait_idle(60)
        assert engine.job_names() == ["dscnn.onnx.static", "dscnn_noopt"]
        for name in engine.job_names():
            info = engine.job(name)
            assert info is not None and info.state == "ok", info
        entries = engine.line_entries(root / "dscnn.py")
        for line in (25, 27, 40, 44):
            jobs = {entry.facts.job for entry in entries[line] if entry.label}
            assert jobs == {"dscnn.onnx.static", "dscnn_noopt"}, (line, entries[line])
        (root / "dscnn_noopt.json").write_text("[")
        engine.notify_changed([root / "dscnn_noopt.json"], finished=True)
        assert engine.wait_idle(30)
        info = engine.job("dscnn_noopt")
        assert info is not None and info.error is not None and info.has_result and info.stale
        assert "dscnn_noopt.json" in str(info.error)
    finally:
        engine.close()


def test_annotate_prints_both_jobs(tmp_path: Path) -> None:
    root = ort_static_workspace(tmp_path)
    completed = subprocess.run(
        [sys.executable, "-m", "perfline", "annotate", str(root / "dscnn.py")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=root,
    )
    assert completed.returncode == 0, completed.stderr
    line = next(t for t in completed.stdout.splitlines() if "x = F.relu(self.bn_pw(x))" in t)
    assert " MAC · " in line and " ms avg" in line


def test_static_job_warns_of_missing_external_data(tmp_path: Path) -> None:
    root = tmp_path / "ext"
    root.mkdir()
    shutil.copy(ORT / "dscnn_external.onnx", root / "dscnn_external.onnx")
    (root / "perfline.toml").write_text("[static]\ndiscover = true\n")
    engine = Engine(root, debounce=0.02, settle=0.1)
    engine.start()
    try:
        assert engine.wait_idle(60)
        assert engine.job_names() == ["dscnn_external.onnx.static"]
        result = engine.result("dscnn_external.onnx.static")
        assert result is not None
        warnings = result.document["results"][0]["warnings"]
        assert any("'dscnn_external.weights', which is missing" in w for w in warnings)
    finally:
        engine.close()


def test_configured_jobs_with_backend_settings(tmp_path: Path) -> None:
    toml = """[[path_map]]
from = "/home/dev/kws/"
to = "."

[onnxruntime]
warmup_runs = 2

[static.target]
name = "test target"
bytes_per_second = 1.0e9

[[jobs]]
name = "measured"
backend = "onnxruntime"
inputs = ["dscnn.onnx", "dscnn_noopt.json"]

[[jobs]]
name = "measured-all-runs"
backend = "onnxruntime"
inputs = ["dscnn.onnx", "dscnn_noopt.json"]
options = { warmup_runs = 0 }

[[jobs]]
name = "cost"
backend = "static"
inputs = ["dscnn.onnx"]
"""
    root = ort_static_workspace(tmp_path, toml)
    engine = Engine(root, debounce=0.02, settle=0.1)
    engine.start()
    try:
        assert engine.wait_idle(60)
        used = {}
        for name in ("measured", "measured-all-runs"):
            result = engine.result(name)
            assert result is not None, engine.job(name)
            used[name] = result.document["backends"][0]["configuration"]["runs_used"]
        assert used == {"measured": 8, "measured-all-runs": 10}
        cost = engine.result("cost")
        assert cost is not None
        metrics = {m["name"]: m for m in cost.document["results"][0]["metrics"]}
        assert metrics["inference_time"]["value"] > 0
        assert cost.document["target"]["profile_name"] == "test target"
        (root / "perfline.toml").write_text(toml.replace("warmup_runs = 2", "warmup_runs = -1"))
        engine.notify_changed([root / "perfline.toml"], finished=True)
        assert engine.wait_idle(30)
        error = engine.config_error
        assert error is not None and "onnxruntime.warmup_runs" in str(error)
        assert "line 6" in str(error)
    finally:
        engine.close()
