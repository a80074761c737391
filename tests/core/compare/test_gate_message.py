"""The gate's message for a regressing line names the medians it judged. The figures of a
measured line are means, the ratio the gate judges is of the runs' medians (one preempted
run does not make a line slower); without the medians a message read ``0.4546 ms -> 0.578 ms
(+27.1%; +111.6% against the model-wide +9.1%)`` (qa, ONNX Runtime beside busy processes),
two changes that do not reconcile. Here a baseline with one preempted step: its mean is
close to the new run's although every other step is a third faster."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from perfline.clients.cli import cli
from tests.support.torch_build import Trace, frame, op, step

MODEL = """import torch


def forward(x):
    return torch.relu(x)
"""


def _trace(relu_us: list[float]) -> Trace:
    events = []
    start = 0.0
    for number, relu in enumerate(relu_us, start=1):
        events += [
            step(number, start, 6000.0),
            frame("model.py(4): forward", start + 10, relu + 20),
            op("aten::relu", start + 15, relu, external=number),
        ]
        start += 6000.0
    return Trace(events)


def test_the_message_names_the_run_medians_it_judged(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "perfline.toml").write_text("")
    base, new = tmp_path / "base.pt.trace.json", tmp_path / "new.pt.trace.json"
    base.write_bytes(_trace([100.0, 101.0, 99.0, 100.5, 400.0, 99.5, 100.2, 100.8]).data())
    new.write_bytes(_trace([150.0, 151.0, 149.0, 150.5, 149.5, 150.2, 150.8, 150.4]).data())
    outcome = CliRunner().invoke(
        cli, ["check", "--baseline", str(base), str(new), "--source-root", str(tmp_path)]
    )
    assert outcome.exit_code == 1, outcome.output
    (message,) = [line for line in outcome.stdout.splitlines() if "model.py:4: cpu_time" in line]
    # the means rose by 8% (the preempted step lifts the base's), the medians by 41%:
    # both are said
    assert "cpu_time 0.1576 ms -> 0.1702 ms (+8.0%; " in message
    assert "run medians 0.1204 ms -> 0.1703 ms, +41.5%" in message
