"""Several traces of one program (the ranks of a distributed run) are one result whose runs
are all their steps; allocations land on the slice that made them, host and device apart;
``compare --jobs`` puts a statement-level and a function-level job side by side."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.core.backends.torch_profiler.document import analyze_traces
from perfline.core.errors import InputError
from tests.support.torch_analysis import leaves_by_place, read
from tests.support.torch_build import Trace, frame, memory, op, step
from tests.support.torch_traces import DATA, TRACES


def _rank(scale: float, rank: int) -> Trace:
    trace = Trace(
        [
            step(1, 0.0, 100.0),
            step(2, 100.0, 100.0),
            frame("model.py(3): forward", 1.0, 50.0 * scale),
            op("aten::mm", 2.0, 40.0 * scale, external=1),
            frame("model.py(3): forward", 101.0, 50.0 * scale),
            op("aten::mm", 102.0, 40.0 * scale, external=2),
        ]
    )
    trace.header["distributedInfo"] = {"backend": "gloo", "rank": rank, "world_size": 2}
    return trace


def test_ranks_are_one_result_with_every_step_a_run() -> None:
    document = analyze_traces(
        [read(_rank(1.0, 0)), read(_rank(2.0, 1))],
        {"model.py": "model.py"},
        timestamp="2026-01-01T00:00:00Z",
        workspace="ws",
    )
    samples = document["extensions"]["perfline"]["run_samples"][0]
    mm = next(values for key, values in samples.items() if "aten::mm" in key)
    assert mm["cpu_time"] == [0.04, 0.04, 0.08, 0.08]
    assert document["context"]["runtime_configuration"]["profiler"]["ranks"] == ["0", "1"]
    steps = document["extensions"]["perfline"]["result_run_samples"][0]["inference_time"]
    assert steps == [0.1, 0.1, 0.1, 0.1]


def test_allocations_on_the_slice_that_made_them() -> None:
    trace = Trace(
        [
            step(1, 0.0, 100.0),
            frame("model.py(3): forward", 1.0, 50.0),
            op("aten::empty", 2.0, 5.0, external=1),
            memory(3.0, 4096, 4096),  # inside aten::empty
            memory(10.0, 512, 4608),  # in forward's own Python
            memory(11.0, -512, 4096),  # a free: not counted
            memory(12.0, 1 << 20, 1 << 21, device_type=1),  # device memory, in forward
        ]
    )
    done = read(trace)
    leaves = leaves_by_place(done.attribution, done)
    assert leaves["model.py:3||aten::empty"].values["allocated_bytes"].tolist() == [4096]
    python = leaves["model.py:3||Python: forward"].values
    assert python["allocated_bytes"].tolist() == [512]
    assert python["gpu_allocated_bytes"].tolist() == [1 << 20]
    assert done.attribution.allocations.peak_host == 4608
    assert done.attribution.allocations.peak_device == 1 << 21


def test_compare_jobs_puts_both_levels_side_by_side(tmp_path: Path) -> None:
    shutil.copy(DATA / "models" / "cnn.py", tmp_path / "cnn.py")
    (tmp_path / "traces").mkdir()
    for name in ("cnn.pt.trace.json", "cnn.pt.trace.json.perfline.json"):
        shutil.copy(TRACES / name, tmp_path / "traces" / name)
    (zipped,) = (TRACES / "cnn_tensorboard").glob("*.gz")
    shutil.copy(zipped, tmp_path / "traces" / zipped.name)
    outcome = CliRunner().invoke(
        cli, ["compare", "--jobs", "-w", str(tmp_path), "--file", str(tmp_path / "cnn.py")]
    )
    assert outcome.exit_code == 0, outcome.output
    rows = {line.split()[0]: line for line in outcome.stdout.splitlines()[2:] if line.strip()}
    assert "ms" in rows["19"] and "ms" in rows["18"]  # a statement; the def line of both


def _program(function: str, file: str = "model.py") -> Trace:
    return Trace(
        [
            step(1, 0.0, 100.0),
            frame(f"{file}(3): {function}", 1.0, 50.0),
            op("aten::mm", 2.0, 40.0, external=1),
        ]
    )


def test_traces_of_two_programs_are_not_one_result() -> None:
    """Several traces are the ranks or captures of one program: a trace with no frame in
    the workspace among others, or traces that share no workspace frame, are refused (qa
    T7: the text model's trace and TinyGPT's were one result, "7 step(s) from 2 trace(s)")."""
    resolved: dict[str, str | None] = {"model.py": "model.py", "gpt.py": None}

    def analyzed(*traces: Trace) -> Any:
        reads = [read(trace) for trace in traces]
        for number, done in enumerate(reads):
            done.source = f"t{number}.json"
        return analyze_traces(reads, resolved, timestamp="2026-01-01T00:00:00Z", workspace="ws")

    with pytest.raises(InputError, match=r"^t1\.json: .*of another program"):
        analyzed(_program("forward"), _program("forward", file="gpt.py"))
    with pytest.raises(InputError, match=r"^t0\.json, t1\.json: .*share no frame"):
        analyzed(_program("forward"), _program("generate"))
    assert analyzed(_program("forward"), _program("forward"))["results"]
