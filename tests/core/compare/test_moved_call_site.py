"""Two torch.profiler traces of one model whose script gained a line above the model's call:
every operator's stack (and so its id) differs, the model's lines do not. ``check`` judges
those lines (found by qa with two ``perfline profile`` runs: exit 2, "a different model from
the baseline: none of its 236 operator(s) is among the baseline's 232")."""

from __future__ import annotations

import random
from pathlib import Path

from click.testing import CliRunner

from perfline.clients.cli import cli
from tests.support.torch_build import Trace, frame, op, step

MODEL = """import torch


def forward(x):
    return torch.relu(x)
"""


def _trace(seed: int, call_line: int, relu_us: float) -> Trace:
    draw = random.Random(seed)
    events = []
    for number in range(1, 9):
        start = number * 1000.0
        relu = relu_us * draw.uniform(0.97, 1.03)
        events += [
            step(number, start, 900.0),
            frame(f"run.py({call_line}): <module>", start + 5, relu + 40),
            frame("model.py(4): forward", start + 10, relu + 20),
            op("aten::relu", start + 15, relu, external=number),
        ]
    return Trace(events)


def test_check_judges_the_model_lines_when_the_call_site_moved(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "run.py").write_text("import model\n\n\n\nmodel.forward(None)\n")
    (tmp_path / "perfline.toml").write_text("")
    base, new = tmp_path / "base.pt.trace.json", tmp_path / "new.pt.trace.json"
    base.write_bytes(_trace(1, 3, 100.0).data())
    new.write_bytes(_trace(2, 4, 150.0).data())  # one more line above the call; relu slower
    outcome = CliRunner().invoke(
        cli, ["check", "--baseline", str(base), str(new), "--source-root", str(tmp_path)]
    )
    assert outcome.exit_code == 1, outcome.output
    assert "little aligns (runs of one model?)" in outcome.stderr
    (regressing,) = [line for line in outcome.stdout.splitlines() if line.startswith("  ")]
    assert regressing.startswith("  model.py:4: cpu_time")
