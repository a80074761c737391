"""The torch-profiler job type: discovery (traces by name, the latest perfline profile run
under .perfline/runs), the engine serving its figures on the model's lines, a new run
replacing them, bad input keeping the last good result; ``perfline annotate``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from perfline.core.workspace_config import WorkspaceConfig
from perfline.server.engine import Engine
from perfline.server.jobs.registry import default_registry
from perfline.server.view.code_blocks import lenses_of
from perfline.server.view.hint_settings import HintSettings
from perfline.server.view.hover_text import HoverFacts, hover_markdown
from perfline.server.workspace import plan_jobs, scan_files
from tests.support.torch_traces import DATA, TRACES

REGISTRY = default_registry()
RUNS = ".perfline/runs"


def test_discovery() -> None:
    files = [
        "a/step.pt.trace.json",
        "a/step.pt.trace.json.perfline.json",
        "b/x.pt.trace.json.gz",
        "trace.json",
        f"{RUNS}/20260101-000000-aa/run.pt.trace.json",
        f"{RUNS}/20260101-000000-aa/run.pt.trace.json.perfline.json",
        f"{RUNS}/20260102-000000-bb/run.pt.trace.json",
        f"{RUNS}/20260102-000000-bb/run.pt.trace.json.perfline.json",
        f"{RUNS}/20260102-000000-bb/perfline-profile.json",
        f"{RUNS}/20260101-000000-aa/capture.json",  # as an older perfline named it
    ]
    jobs = {job.name: job.inputs for job in REGISTRY["torch-profiler"].discover(files)}
    assert jobs == {
        "a/step": ("a/step.pt.trace.json", "a/step.pt.trace.json.perfline.json"),
        "b/x": ("b/x.pt.trace.json.gz",),
        "perfline profile": (
            f"{RUNS}/20260102-000000-bb/run.pt.trace.json",
            f"{RUNS}/20260102-000000-bb/run.pt.trace.json.perfline.json",
        ),
    }
    # a profile run's report (capture.json in older runs) is no NX structured capture
    planned = plan_jobs(WorkspaceConfig(), files, REGISTRY)
    assert {job.backend for job in planned} == {"torch-profiler"}


def test_the_scan_reads_profile_runs_and_nothing_else_of_dot_perfline(tmp_path: Path) -> None:
    for rel in (f"{RUNS}/r1/t.pt.trace.json", ".perfline/baselines/b.json", "m.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}")
    assert scan_files(tmp_path) == [f"{RUNS}/r1/t.pt.trace.json", "m.py"]


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "models").mkdir(parents=True)
    shutil.copy(DATA / "models" / "cnn.py", root / "models" / "cnn.py")
    (root / "traces").mkdir()
    for name in ("cnn.pt.trace.json", "cnn.pt.trace.json.perfline.json"):
        shutil.copy(TRACES / name, root / "traces" / name)
    return root


def _labelled(engine: Engine, path: Path, job: str) -> set[int]:
    entries = engine.line_entries(path)
    return {
        line
        for line, found in entries.items()
        if any(e.facts.job == job and e.label for e in found)
    }


def test_engine_serves_the_trace_and_the_latest_profile_run(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    model = root / "models" / "cnn.py"
    engine = Engine(root, debounce=0.02, settle=0.1)
    engine.start()
    try:
        assert engine.wait_idle(60)
        assert engine.job_names() == ["traces/cnn"]
        info = engine.job("traces/cnn")
        assert info is not None and info.state == "ok", info
        assert {19, 20, 21, 22, 31} <= _labelled(engine, model, "traces/cnn")
        # perfline profile writes a run folder: a job of its own appears
        run = root / RUNS / "20260101-000000-aaaa"
        run.mkdir(parents=True)
        for name in ("cnn.pt.trace.json", "cnn.pt.trace.json.perfline.json"):
            shutil.copy(TRACES / name, run / name)
        engine.notify_changed([run / "cnn.pt.trace.json"], finished=True)
        assert engine.wait_idle(60)
        assert engine.job_names() == ["perfline profile", "traces/cnn"]
        assert {19, 20, 21, 22} <= _labelled(engine, model, "perfline profile")
        first = engine.result("perfline profile")
        assert first is not None
        # a later run replaces it (a function-level capture: no sidecar this time)
        later = root / RUNS / "20260101-000100-bbbb"
        later.mkdir()
        shutil.copy(TRACES / "cnn.pt.trace.json", later / "cnn.pt.trace.json")
        engine.notify_changed([later / "cnn.pt.trace.json"], finished=True)
        assert engine.wait_idle(60)
        second = engine.result("perfline profile")
        assert second is not None and second.document is not first.document
        warnings = second.document["results"][0]["warnings"]
        assert any(w.startswith("function level") for w in warnings)
        assert 18 in _labelled(engine, model, "perfline profile")  # def forward
        # bad input: an error, and the last good result stays
        (later / "cnn.pt.trace.json").write_text('{"traceEvents": [')
        engine.notify_changed([later / "cnn.pt.trace.json"], finished=True)
        assert engine.wait_idle(60)
        info = engine.job("perfline profile")
        assert info is not None and info.error is not None and info.has_result and info.stale
        assert "truncated" in str(info.error)
    finally:
        engine.close()


def test_a_plain_trace_is_declared_in_perfline_toml(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    shutil.copy(DATA / "models" / "transformer_block.py", root / "transformer_block.py")
    shutil.copy(TRACES / "transformer_block_export.json", root / "trace.json")
    (root / "perfline.toml").write_text(
        '[[jobs]]\nname = "block"\nbackend = "torch-profiler"\ninputs = ["trace.json"]\n'
    )
    engine = Engine(root, debounce=0.02, settle=0.1)
    engine.start()
    try:
        assert engine.wait_idle(60)
        info = engine.job("block")
        assert info is not None and info.state == "ok", info
        assert _labelled(engine, root / "transformer_block.py", "block")
    finally:
        engine.close()


def test_annotate_prints_the_trace_figures(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "perfline",
            "annotate",
            "--workspace",
            str(root),
            str(root / "models" / "cnn.py"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=root,
    )
    assert completed.returncode == 0, completed.stderr
    line = next(t for t in completed.stdout.splitlines() if "x = torch.flatten(x, 1)" in t)
    assert " ms" in line


def test_the_editor_shows_each_functions_calls_per_step_and_hints_stay_times(
    tmp_path: Path,
) -> None:
    """A def line's entries per step reach the hover (``*Calls*: 1 call/step``) and the lens
    of its function; the hints and the lens total are still the time."""
    root = _workspace(tmp_path)
    model = root / "models" / "cnn.py"
    engine = Engine(root, debounce=0.02, settle=0.1)
    engine.start()
    try:
        assert engine.wait_idle(60)
        by_line = engine.line_entries(model)
    finally:
        engine.close()
    (entry,) = by_line[18]  # def forward: called once per step
    assert entry.facts.calls_per_step == 1.0
    assert all(e.metric is not None and e.metric.name == "cpu_time" for e in by_line[19])
    assert by_line[19][0].facts.calls_per_step is None  # a statement: no count
    hover = hover_markdown([HoverFacts(entry, str(model), (), "run")])
    assert "*Calls*: 1 call/step" in hover
    blocks = lenses_of(
        model.read_text(), str(model), by_line, HintSettings(), lambda e, k: None, lambda f, n: n
    )
    (forward,) = [b for b in blocks if b.name == "SmallCNN.forward"]
    assert " ms total" in forward.title and "1 call/step" in forward.title
