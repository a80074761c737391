"""The onnxruntime and static job types through the engine and ``perfline annotate``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from perfline.server.engine import Engine
from perfline.server.jobtypes import REGISTRY

REPO = Path(__file__).resolve().parents[2]
DSCNN = REPO / "tests" / "data" / "formats" / "dscnn"
ORT = REPO / "tests" / "data" / "onnxruntime"
TOML = """[[path_map]]
from = "/home/dev/kws/"
to = "."

[static]
discover = true
"""


def _workspace(tmp_path: Path, toml: str = TOML) -> Path:
    root = tmp_path / "kws"
    root.mkdir()
    for source in (DSCNN / "dscnn.py", DSCNN / "dscnn.onnx", ORT / "dscnn_noopt.json"):
        shutil.copy(source, root / source.name)
    (root / "perfline.toml").write_text(toml)
    return root


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

    assert {p.backend for p in plan_jobs(WorkspaceConfig(), files)} == {"onnxruntime"}


def test_engine_serves_ort_and_static_figures_on_the_same_lines(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
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
            jobs = {entry.job for entry in entries[line] if entry.label}
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
    root = _workspace(tmp_path)
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
