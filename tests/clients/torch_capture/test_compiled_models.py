"""``perfline profile`` of a ``torch.compile``d model measures the program the script runs.

The capture's step hooks (global module hooks) run inside every submodule call; traced by
TorchDynamo, their own code broke the compiled graph at each submodule call, so the capture
ran the model as a chain of small graphs (``torch_dynamo_resume_in_forward_at_N`` frames in
the trace) where the script alone runs one. The hooks now return at once while Dynamo traces.
The compiled graph's statements leave no Python frame: its time sits on the compiled
function's line, and the result says so. TorchDynamo's ``eager`` backend keeps the test free
of a C++ compiler; graph breaks are Dynamo's, whatever the backend.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.torch_python import TORCH_PYTHON, needs_torch
from tests.support.torch_traces import line_figures

MODEL = """\
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(64)
        self.up = nn.Linear(64, 256)
        self.down = nn.Linear(256, 64)

    def forward(self, x):
        h = self.norm(x)  # NORM
        h = self.up(h)
        return x + self.down(torch.relu(h))


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([Block() for _ in range(3)])

    def forward(self, x):  # FORWARD
        for block in self.blocks:
            x = block(x)
        return x


torch.manual_seed(0)
net = torch.compile(Net(), backend="eager")
x = torch.randn(32, 64)
with torch.no_grad():
    for _ in range(12):
        net(x)  # CALL
"""


def _line(marker: str) -> int:
    return next(n for n, text in enumerate(MODEL.splitlines(), 1) if text.endswith(f"# {marker}"))


def _profile(folder: Path) -> subprocess.CompletedProcess[str]:
    assert TORCH_PYTHON is not None
    command = [sys.executable, "-m", "perfline", "profile", "--python", TORCH_PYTHON]
    command += ["--steps", "3", "--warmup", "2", "compiled.py"]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=folder)


@needs_torch
def test_a_compiled_model_runs_as_one_graph_and_its_time_is_on_its_line(tmp_path: Path) -> None:
    (tmp_path / "compiled.py").write_text(MODEL)
    done = _profile(tmp_path)
    assert done.returncode == 0, done.stderr
    # torch warns that global module hooks fire again for the compiled wrapper; those hooks
    # are perfline's own and count the wrapper's call once, so the user is not told of them
    assert "global hooks" not in done.stderr
    (run,) = (tmp_path / ".perfline" / "runs").iterdir()
    events = json.loads((run / "compiled.pt.trace.json").read_bytes())["traceEvents"]
    frames = {e["name"] for e in events if e.get("cat") == "python_function"}
    assert not [name for name in frames if "torch_dynamo_resume_in" in name]
    steps = [e for e in events if str(e.get("name", "")).startswith("ProfilerStep#")]
    assert len(steps) == 3  # the compiled module's outermost call still marks each step
    regions = [e for e in events if str(e.get("name", "")).startswith("Torch-Compiled Region")]
    assert regions

    written = tmp_path / "mlia-output" / "mlia-output.json"
    document = json.loads(written.read_bytes())
    result = document["results"][0]
    figures = line_figures(document, "compiled.py")
    assert figures.get(_line("FORWARD"), 0) > 0
    assert figures.get(_line("CALL"), 0) >= figures[_line("FORWARD")]
    assert _line("NORM") not in figures  # compiled: no frame of its own
    (said,) = [text for text in result["warnings"] if "torch.compile" in text]
    assert f"{len(regions)} runs of torch.compile graphs" in said
    assert "TORCH_COMPILE_DISABLE=1" in said
