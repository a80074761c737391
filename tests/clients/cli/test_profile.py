"""``perfline profile`` end to end, as users run it: perfline's own Python (no torch) runs the
capture helper with a Python that has torch (``PERFLINE_TORCH_PYTHON``, which
``scripts/test.sh`` sets from ``scripts/torch-venv.sh``), on a model written only for these
tests; the trace and the sidecar it leaves are checked against torch's own per-op timings."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from perfline.core.backends.torch_profiler.sidecar import Sidecar, read_sidecar
from tests.support.torch_python import TORCH_PYTHON, needs_torch

# A model nobody wrote before these tests. Markers in comments name the statements.
MODEL = """\
import sys

import torch
from torch import nn

import sibling


class Inner(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.randn(768, 768))

    def forward(self, x):
        # a comment: no code, no figure
        y = x @ self.w  # HEAVY

        return y.relu()  # LIGHT


class Outer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.inner = Inner()

    def forward(self, x):
        h = self.inner(x)  # CALL
        s = h.sum(dim=0, keepdim=True)  # SUM
        return h - s  # SUB


def main() -> None:
    print("argv", sys.argv[1:], __name__, sibling.NAME)
    torch.manual_seed(0)
    model = Outer()
    x = torch.randn(512, 768)
    with torch.no_grad():
        for _ in range(int(sys.argv[1])):
            out = model(x)  # TOP
    print("done", tuple(out.shape))


main()
"""


def _line(marker: str) -> int:
    for number, text in enumerate(MODEL.splitlines(), start=1):
        if text.endswith(f"# {marker}"):
            return number
    raise AssertionError(marker)


def _profile(
    folder: Path, *arguments: str, python: str | None = None
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "perfline", "profile"]
    if python is not None:
        command += ["--python", python]
    return subprocess.run(
        [*command, *arguments], capture_output=True, text=True, timeout=300, cwd=folder
    )


def _workspace(tmp_path: Path) -> Path:
    (tmp_path / "mixer.py").write_text(MODEL)
    (tmp_path / "sibling.py").write_text('NAME = "sibling imported"\n')
    return tmp_path


def _run_files(folder: Path) -> tuple[Path, Sidecar]:
    runs = list((folder / ".perfline" / "runs").iterdir())
    assert len(runs) == 1
    trace = runs[0] / "mixer.pt.trace.json"
    sidecar_file = Path(str(trace) + ".perfline.json")
    return trace, read_sidecar(sidecar_file.read_bytes(), str(sidecar_file))


def _line_figures(document: dict[str, Any], metric: str) -> dict[int, float]:
    """mixer.py line -> its figure of ``metric`` in the document's first result."""
    result = document["results"][0]
    lines = {
        entity["id"]: entity["attributes"]["line"]
        for entity in result["entities"]
        if entity["kind"] == "code_line" and entity["attributes"]["file"].endswith("mixer.py")
    }
    found = {}
    for breakdown in result["breakdowns"]:
        if breakdown["entity_id"] in lines:
            for figure in breakdown["metrics"]:
                if figure["name"] == metric:
                    found[lines[breakdown["entity_id"]]] = figure["value"]
    return found


def _top_level_ops(trace: Path) -> list[dict[str, Any]]:
    """The trace's cpu_op events not nested in another op of their thread (torch's own
    timings: nested ops' time is inside their parent's)."""
    events = json.loads(trace.read_bytes())["traceEvents"]
    by_thread: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for event in events:
        if event.get("cat") == "cpu_op":
            by_thread[(event["pid"], event["tid"])].append(event)
    top = []
    for ops in by_thread.values():
        ops.sort(key=lambda event: (event["ts"], -event["dur"]))
        end = float("-inf")
        for event in ops:
            if event["ts"] >= end:
                top.append(event)
                end = event["ts"] + event["dur"]
    return top


@pytest.fixture(scope="module")
def profiled(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """One `perfline profile` run of the fresh model (shared: a capture takes seconds)."""
    if not TORCH_PYTHON:
        pytest.skip("PERFLINE_TORCH_PYTHON is not set")
    folder = _workspace(tmp_path_factory.mktemp("mixer"))
    done = _profile(folder, "--steps", "3", "--warmup", "1", "mixer.py", "8", python=TORCH_PYTHON)
    assert done.returncode == 0, done.stderr
    return folder, done


def _in_steps(events: list[dict[str, Any]]) -> list[tuple[float, float]]:
    return [
        (event["ts"], event["ts"] + event["dur"])
        for event in events
        if event.get("cat") == "user_annotation" and event["name"].startswith("ProfilerStep#")
    ]


@needs_torch
def test_profile_records_memory_on_each_statement(
    profiled: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    """The capture keeps torch's allocation events (``profile_memory``): each statement's
    ``allocated_bytes`` per step equals the positive ``[memory]`` bytes inside its ops, summed
    here from the trace's own events, and the peak is the trace's highest total."""
    folder, _ = profiled
    trace, sidecar = _run_files(folder)
    events = json.loads(trace.read_bytes())["traceEvents"]
    memory = [event for event in events if event.get("name") == "[memory]"]
    assert memory, "the trace holds no [memory] events"
    windows = _in_steps(events)
    ops = [event for event in events if event.get("cat") == "cpu_op"]
    per_line: dict[int, float] = defaultdict(float)
    for event in memory:
        at, nbytes = event["ts"], event["args"]["Bytes"]
        if nbytes <= 0 or not any(start <= at < end for start, end in windows):
            continue
        holders = [
            op for op in ops if op["tid"] == event["tid"] and op["ts"] <= at < op["ts"] + op["dur"]
        ]
        stacks = [sidecar.stacks_by_external_id.get(op["args"]["External id"]) for op in holders]
        ours = [f for stack in stacks if stack for f in stack if f.file.endswith("mixer.py")]
        if ours:
            per_line[ours[-1].line] += nbytes
    steps = len(windows)
    document = json.loads((folder / "mlia-output" / "mlia-output.json").read_bytes())
    figures = _line_figures(document, "allocated_bytes")
    for marker in ("HEAVY", "LIGHT", "SUM", "SUB"):
        line = _line(marker)
        assert figures[line] == per_line[line] / steps, marker
    assert figures[_line("HEAVY")] >= 512 * 768 * 4  # the matmul's output, each step
    metrics = {m["name"]: m.get("value") for m in document["results"][0]["metrics"]}
    assert metrics["peak_allocated_bytes"] == max(e["args"]["Total Allocated"] for e in memory)


@needs_torch
def test_profile_puts_each_op_on_its_statement_in_a_fresh_model(
    profiled: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    folder, done = profiled
    # the script ran as `python mixer.py 8`: argv, __main__, its folder first on sys.path;
    # its stdout passes through; it was stopped after the recorded steps
    assert "argv ['8'] __main__ sibling imported" in done.stdout
    assert "done" not in done.stdout
    assert "recorded 3 step(s) (a step: module)" in done.stderr
    assert "statement level" in done.stderr
    trace, sidecar = _run_files(folder)
    # what the helper did, under a name of its own (a folder with capture.json is NX's)
    report = json.loads((trace.parent / "perfline-profile.json").read_bytes())
    assert report["trace"] == str(trace) and report["recorded"] == 3
    assert not (trace.parent / "capture.json").exists()
    assert f"wrote {trace}: the torch.profiler trace" in done.stderr
    assert "wrote mlia-output/mlia-output.json" in done.stderr
    assert "Source lines: heaviest first" in done.stdout
    assert sidecar.level == "statement" and sidecar.steps["recorded"] == 3
    assert any(name.endswith("torch_capture/session.py") for name in sidecar.capture_files)

    per_statement: dict[int, float] = defaultdict(float)
    for event in _top_level_ops(trace):
        stack = sidecar.stacks_by_external_id.get(event["args"]["External id"])
        ours = [frame for frame in stack or () if frame.file.endswith("mixer.py")]
        if ours:
            assert not ours[-1].entry
            per_statement[ours[-1].line] += event["dur"]
    statements = {_line(m) for m in ("HEAVY", "LIGHT", "SUM", "SUB")}
    # every statement that calls tensor work has time; lines without code have none
    assert statements <= set(per_statement)
    code = {n for n, text in enumerate(MODEL.splitlines(), 1) if text.strip()}
    assert set(per_statement) <= code
    assert not set(per_statement) & {
        n for n, text in enumerate(MODEL.splitlines(), 1) if text.strip().startswith(("#", "def "))
    }
    # the heaviest statement by torch's own op timings is the 512x768x768 matmul (about 40x
    # the work of any other statement: room for a light op preempted on a busy machine)
    heaviest = max(per_statement, key=per_statement.__getitem__)
    assert heaviest == _line("HEAVY"), dict(per_statement)

    # the call line `h = self.inner(x)` is in the stack of exactly the ops of Inner's lines
    call = _line("CALL")
    under_call = set()
    for stack in sidecar.stacks_by_external_id.values():
        ours = [frame for frame in stack if frame.file.endswith("mixer.py")]
        if any(frame.line == call for frame in ours):
            under_call.add(ours[-1].line)
    assert under_call == {_line("HEAVY"), _line("LIGHT")}

    # the figures perfline wrote (mlia-output.json, per step) say the same on the lines
    document = json.loads((folder / "mlia-output" / "mlia-output.json").read_bytes())
    # the capture's own frames (its operator mode, its step hooks) are no operator or frame
    result = document["results"][0]
    assert not [e for e in result["entities"] if "torch_capture" in json.dumps(e)]
    assert not [e for e in result["entities"] if "__torch_function__" in e.get("name", "")]
    assert any("frames of perfline's capture" in w for w in result["warnings"])
    figures = _line_figures(document, "cpu_time")
    assert statements <= set(figures)
    blank_or_comment = {
        n
        for n, text in enumerate(MODEL.splitlines(), 1)
        if not text.strip() or text.strip().startswith("#")
    }
    assert not set(figures) & blank_or_comment
    calls = {_line("CALL"), _line("TOP"), len(MODEL.splitlines())}
    plain = {line: value for line, value in figures.items() if line not in calls}
    assert max(plain, key=plain.__getitem__) == _line("HEAVY")
    steps = sidecar.steps["recorded"]
    ops_per_step = per_statement[_line("HEAVY")] / 1000 / steps
    assert 0.999 * ops_per_step <= figures[_line("HEAVY")] <= 1.5 * ops_per_step
    # a call line carries its callees' total
    assert figures[_line("CALL")] >= figures[_line("HEAVY")] + figures[_line("LIGHT")]


LIMIT = ("--max-regression", "5%")
SLOWED = """\
import sys

import torch
from torch import nn

REPEAT = int(sys.argv[1])
torch.set_num_threads(1)


class Inner(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.randn(256, 256))

    def forward(self, x):
        y = sum(x @ self.w for _ in range(REPEAT))  # SLOWED
        return y.relu()  # SAME


torch.manual_seed(0)
model, x = Inner(), torch.randn(256, 256)
with torch.no_grad():
    for _ in range(14):
        model(x)
"""


@needs_torch
def test_compare_and_check_between_two_profile_runs_judge_each_line_by_its_steps(
    tmp_path: Path,
) -> None:
    """Two `perfline profile` runs of one script, the second with one statement doing thirty
    times the work (a margin for a busy machine, whose load changes between the runs):
    compare and check name that line, judged on its per-step values."""
    (tmp_path / "slowed.py").write_text(SLOWED)
    assert TORCH_PYTHON is not None
    for side, repeat in (("base", "1"), ("new", "30")):
        done = _profile(
            tmp_path, "--steps", "8", "--output-dir", side, "slowed.py", repeat, python=TORCH_PYTHON
        )
        assert done.returncode == 0, done.stderr
    slowed = next(n for n, text in enumerate(SLOWED.splitlines(), 1) if text.endswith("# SLOWED"))
    compared = subprocess.run(
        [sys.executable, "-m", "perfline", "compare", "base", "new", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert compared.returncode == 0, compared.stderr
    (result,) = json.loads(compared.stdout)["results"]
    lines = {
        entity["new_line"]: metric
        for entity in result["entities"]
        if entity["kind"] == "code_line"
        for metric in entity["metrics"]
        if metric["name"] == "cpu_time"
    }
    judged = lines[slowed]
    assert judged["name"] == "cpu_time" and judged["method"] == "samples"
    assert (judged["base_runs"], judged["new_runs"]) == (8, 8)  # one value per recorded step
    assert judged["verdict"] == "regression" and judged["significant"], str(judged)
    assert judged["ratio"] > 5
    assert lines[slowed + 1]["ratio"] < judged["ratio"]  # the unchanged statement, changed less
    checked = subprocess.run(
        [sys.executable, "-m", "perfline", "check", "--baseline", "base", "new", *LIMIT],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert checked.returncode == 1, checked.stdout + checked.stderr
    report = checked.stdout + checked.stderr
    assert f"slowed.py:{slowed}: cpu_time" in report and "over 8 and 8 runs" in report


ACCUMULATING = """\
import torch
from torch import nn

model = nn.Linear(32, 32)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(8):
    for _ in range(2):  # gradient accumulation: two forwards per optimizer step
        model(torch.randn(4, 32)).sum().backward()
    optimizer.step()
    optimizer.zero_grad()
"""


@needs_torch
def test_optimizer_steps_win_over_module_calls_counted_before_them(tmp_path: Path) -> None:
    """The module calls before the first optimizer step looked like steps; once the optimizer
    steps, the capture starts again, and each recorded step is one optimizer step."""
    (tmp_path / "accumulate.py").write_text(ACCUMULATING)
    assert TORCH_PYTHON is not None
    done = _profile(tmp_path, "--steps", "2", "accumulate.py", python=TORCH_PYTHON)
    assert done.returncode == 0, done.stderr
    assert "recorded 2 step(s) (a step: optimizer)" in done.stderr
    trace = next((tmp_path / ".perfline" / "runs").glob("*/accumulate.pt.trace.json"))
    events = json.loads(trace.read_bytes())["traceEvents"]
    names = [event["name"] for event in events if event.get("cat") in ("cpu_op", "user_annotation")]
    assert names.count("aten::linear") == 4
    assert sum(name.startswith("Optimizer.step#SGD") for name in names) == 2
    assert sorted(n for n in names if n.startswith("ProfilerStep#")) == [
        "ProfilerStep#1",
        "ProfilerStep#2",
    ]


THREADED = """\
import threading
import time

import torch
from torch import nn


def worker():
    a = torch.randn(64, 64)
    while True:
        a @ a  # WORKER
        time.sleep(0.001)


threading.Thread(target=worker, daemon=True).start()
model, x = nn.Linear(64, 64), torch.randn(8, 64)
with torch.no_grad():
    for _ in range(6):
        model(x)
        time.sleep(0.01)
"""


@needs_torch
def test_all_threads_records_other_threads_ops_and_torch_then_records_no_memory(
    tmp_path: Path,
) -> None:
    """By default the capture records the script's thread with its allocations; with
    ``--all-threads`` it records the ops of every thread, and torch records no allocation
    (the result says so)."""
    (tmp_path / "threads.py").write_text(THREADED)
    assert TORCH_PYTHON is not None
    seen = {}
    for side, flags in (("default", ()), ("all", ("--all-threads",))):
        done = _profile(tmp_path, "--output-dir", side, *flags, "threads.py", python=TORCH_PYTHON)
        assert done.returncode == 0, done.stderr
        (trace,) = (tmp_path / side / ".perfline" / "runs").glob("*/threads.pt.trace.json")
        events = json.loads(trace.read_bytes())["traceEvents"]
        sidecar_file = Path(str(trace) + ".perfline.json")
        sidecar = json.loads(sidecar_file.read_bytes())
        warnings = json.loads((tmp_path / side / "mlia-output" / "mlia-output.json").read_bytes())[
            "results"
        ][0]["warnings"]
        # the default --steps (10) is more than the script's 6 module calls: after the 1
        # warm-up step, the 5 it ran are kept
        assert sidecar["steps"]["recorded"] == 5 and sidecar["steps"]["active"] == 10
        seen[side] = (
            {e["tid"] for e in events if e.get("cat") == "cpu_op" and e["name"] == "aten::mm"},
            {e["tid"] for e in events if e.get("cat") == "cpu_op" and e["name"] == "aten::linear"},
            sum(e.get("name") == "[memory]" for e in events),
            sidecar["threads"],
            any("holds no allocation" in w for w in warnings),
        )
    mm, linear, allocations, threads, warned = seen["default"]
    assert not mm and linear and allocations > 0 and threads == "capturing" and not warned
    mm, linear, allocations, threads, warned = seen["all"]
    assert mm and not mm & linear and allocations == 0 and threads == "all" and warned


@needs_torch
def test_a_failing_script_is_reported_with_its_exit_status(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("import sys\nprint('before')\nsys.exit(7)\n")
    (tmp_path / "raises.py").write_text("raise ValueError('bad shape')\n")
    assert TORCH_PYTHON is not None
    done = _profile(tmp_path, "broken.py", python=TORCH_PYTHON)
    assert done.returncode == 1
    assert "before" in done.stdout
    assert "broken.py failed with exit status 7" in done.stderr
    done = _profile(tmp_path, "raises.py", python=TORCH_PYTHON)
    assert done.returncode == 1
    # the script's own traceback, from its first frame (not the helper's)
    assert 'File "' in done.stderr and "raises.py" in done.stderr
    assert "ValueError: bad shape" in done.stderr and "runpy" not in done.stderr
    assert "raises.py failed with exit status 1" in done.stderr


@needs_torch
def test_cuda_without_a_cuda_device_is_refused_before_the_script_runs(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("print('never runs')\n")
    assert TORCH_PYTHON is not None
    done = _profile(tmp_path, "--cuda", "train.py", python=TORCH_PYTHON)
    assert done.returncode == 2, done.stderr
    assert "error: perfline profile: --cuda: torch 2.13.0" in done.stderr
    assert "sees no CUDA device" in done.stderr and "never runs" not in done.stdout


@needs_torch
def test_too_few_steps_is_one_clear_line(tmp_path: Path) -> None:
    folder = _workspace(tmp_path)
    assert TORCH_PYTHON is not None
    done = _profile(folder, "--warmup", "2", "mixer.py", "1", python=TORCH_PYTHON)
    assert done.returncode == 2
    assert "no trace: the script ended after 1 step(s)" in done.stderr
    assert "--warmup 2" in done.stderr and "Traceback" not in done.stderr


@needs_torch
def test_an_unchecked_torch_version_falls_back_to_function_level(tmp_path: Path) -> None:
    """The private event-tree API is gated on the torch version: a torch outside the checked
    range gets a function-level sidecar that says why (here torch claims to be 9.0)."""
    folder = _workspace(tmp_path)
    from perfline.clients.cli.profile import capture_helper

    launcher = tmp_path / "launcher.py"
    launcher.write_text(
        "import runpy, sys, torch\n"
        "torch.__version__ = '9.0.0'\n"
        f"sys.argv = [{str(capture_helper())!r}, *sys.argv[1:]]\n"
        "runpy.run_path(sys.argv[0], run_name='__main__')\n"
    )
    assert TORCH_PYTHON is not None
    command = [TORCH_PYTHON, str(launcher), "--out", str(tmp_path / "run"), "--", "mixer.py", "6"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=folder)
    assert done.returncode == 0, done.stderr
    sidecar_file = tmp_path / "run" / "mixer.pt.trace.json.perfline.json"
    sidecar = read_sidecar(sidecar_file.read_bytes(), str(sidecar_file))
    assert sidecar.level == "function" and not sidecar.stacks_by_external_id
    assert sidecar.reason is not None and "torch 9.0.0 is outside" in sidecar.reason
    assert (tmp_path / "run" / "mixer.pt.trace.json").stat().st_size > 0


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="this Python has torch")
def test_without_torch_here_the_error_names_the_python_option(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("print('never runs')\n")
    done = _profile(tmp_path, "train.py")
    assert done.returncode == 2
    assert done.stderr.startswith("error: perfline profile: --python: this Python (")
    assert "has no torch" in done.stderr and "never runs" not in done.stdout
    assert not (tmp_path / ".perfline").exists()
    done = _profile(tmp_path, "train.py", python=str(tmp_path / "no-such-python"))
    assert done.returncode == 2 and "no-such-python: no such program" in done.stderr


def test_a_run_folder_of_an_older_perfline_is_still_read(tmp_path: Path) -> None:
    """Run folders written before the helper's report was renamed hold ``capture.json``."""
    from perfline.clients.cli.profile import read_capture

    assert read_capture(tmp_path) == {}
    (tmp_path / "capture.json").write_text('{"script_status": 0, "recorded": 2}')
    assert read_capture(tmp_path)["recorded"] == 2
    (tmp_path / "perfline-profile.json").write_text('{"script_status": 0, "recorded": 3}')
    assert read_capture(tmp_path)["recorded"] == 3
