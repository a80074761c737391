"""``perfline.torch.profile`` in a Python that has both perfline and torch: this test's Python
with the torch of ``PERFLINE_TORCH_PYTHON`` on its path (as a user who installed perfline into
their PyTorch environment), running a script in a child process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from perfline.core.backends.torch_profiler.sidecar import read_sidecar
from tests.support.torch_python import needs_torch, torch_path

SCRIPT = """\
import sys

import torch
from torch import nn

import perfline.torch

assert "torch" in sys.modules
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 8))
x = torch.randn(32, 64)
perfline.torch.step()  # outside a capture: nothing
with perfline.torch.profile(steps=2, warmup=1, output_dir=sys.argv[1], name="loop") as run:
    for _ in range(5):
        y = model(x) * 2  # FORWARD
        perfline.torch.step() if sys.argv[2] == "module" else run.step()
print(run.trace, run.sidecar, run.recorded)
"""


def with_torch(*command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ, PYTHONPATH=torch_path())
    return subprocess.run(
        [sys.executable, *command],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env=environment,
    )


@needs_torch
@pytest.mark.parametrize("marker", ["run", "module"])
def test_profile_block_records_its_marked_steps_on_statements(tmp_path: Path, marker: str) -> None:
    (tmp_path / "loop.py").write_text(SCRIPT)
    done = with_torch("loop.py", str(tmp_path / "out"), marker, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    trace_name, sidecar_name, recorded = done.stdout.split()
    trace, sidecar_file = Path(trace_name), Path(sidecar_name)
    assert trace.parent.parent == tmp_path / "out" / ".perfline" / "runs"
    assert trace.name == "loop.pt.trace.json" and recorded == "2"
    events = json.loads(trace.read_bytes())["traceEvents"]
    steps = sorted(e["name"] for e in events if e["name"].startswith("ProfilerStep#"))
    assert steps == ["ProfilerStep#1", "ProfilerStep#2"]  # no empty step after the last
    sidecar = read_sidecar(sidecar_file.read_bytes(), sidecar_name)
    assert sidecar.level == "statement" and sidecar.steps["step_on"] == "api"
    forward = next(n for n, text in enumerate(SCRIPT.splitlines(), 1) if "# FORWARD" in text)
    ours = [
        [frame for frame in stack if frame.file == str(tmp_path / "loop.py")]
        for stack in sidecar.stacks_by_external_id.values()
    ]
    # the script's own frame is the outermost: the block's statements are the user's lines
    assert all(frames and frames[0].function == "<module>" for frames in ours)
    lines = {frames[-1].line for frames in ours}
    assert forward in lines
    mul = [
        stack[-1]
        for key, stack in sidecar.stacks_by_external_id.items()
        if sidecar.op_names[key] == "aten::mul"
    ]
    assert mul and {(frame.line, frame.entry) for frame in mul} == {(forward, False)}


@needs_torch
def test_a_block_without_steps_is_one_step_and_too_few_steps_say_so(tmp_path: Path) -> None:
    script = (
        "import sys, torch, perfline.torch\n"
        "with perfline.torch.profile(output_dir=sys.argv[1]) as run:\n"
        "    torch.randn(64, 64) @ torch.randn(64, 64)\n"
        "print(run.recorded)\n"
        "with perfline.torch.profile(warmup=2, output_dir=sys.argv[1]) as run:\n"
        "    run.step()\n"
    )
    (tmp_path / "once.py").write_text(script)
    done = with_torch("once.py", str(tmp_path), cwd=tmp_path)
    assert done.stdout.strip() == "1"
    assert done.returncode == 1
    # one step marked; what runs after the last mark is not a step
    assert "nothing recorded: the block marked 1 step(s) and warmup=2" in done.stderr
    assert "Warning" not in done.stderr


@needs_torch
def test_perfline_torch_step_marks_the_steps_of_perfline_profile(tmp_path: Path) -> None:
    """Under ``perfline profile``, a script's ``perfline.torch.step()`` marks its steps (the
    helper's capture, loaded under its own package name), in place of the module calls."""
    script = (
        "import torch, perfline.torch\n"
        "from torch import nn\n"
        "model = nn.Linear(32, 32)\n"
        "for _ in range(6):\n"
        "    for _ in range(3):\n"
        "        model(torch.randn(4, 32))\n"
        "    perfline.torch.step()\n"
    )
    (tmp_path / "marked.py").write_text(script)
    done = with_torch(
        "-m",
        "perfline",
        "profile",
        "--python",
        sys.executable,
        "--steps",
        "3",
        "marked.py",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "recorded 3 step(s) (a step: api)" in done.stderr
    trace = next((tmp_path / ".perfline" / "runs").glob("*/marked.pt.trace.json"))
    events = json.loads(trace.read_bytes())["traceEvents"]
    # each recorded step holds the three module calls between two marks
    linears = [e for e in events if e["name"] == "aten::linear"]
    assert len(linears) == 9


@needs_torch
def test_the_guides_snippet_runs(tmp_path: Path) -> None:
    """``docs/guide.md``'s ``perfline.torch`` block, as printed, in a Python with both."""
    from tests.support.markdown_blocks import DOCS, blocks

    (block,) = [b for b in blocks(DOCS / "guide.md") if b.marker[:1] == ("torch-api",)]
    (tmp_path / "snippet.py").write_text(block.text)
    done = with_torch("snippet.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    trace, sidecar, recorded = done.stdout.split()
    assert Path(trace).is_file() and Path(sidecar).is_file() and recorded == "3"
    assert Path(trace).is_relative_to(tmp_path / ".perfline" / "runs")
