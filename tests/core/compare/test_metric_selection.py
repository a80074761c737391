"""Which metric ``compare`` and ``check`` judge lines by when none is asked for
(``core/compare/selection.line_metrics``): the cycles or ONNX Runtime average when a result has
them, else the metric the editor shows. A torch.profiler result with ``profile_memory`` has
``allocated_bytes`` and ``cpu_time`` on every line: it is judged by its time, so a line that
got slower fails the gate although it allocates what it did (found by qa: the gate judged
``allocated_bytes``, the first name in order, and passed)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from click.testing import CliRunner, Result

from perfline.clients.cli import cli
from tests.support.torch_build import Trace, frame, memory, op, step

MODEL = """import torch


def forward(x):
    y = torch.relu(x)
    return y.sum()
"""


def _trace(seed: int, slow_relu: float) -> Trace:
    """Eight steps of ``model.py(4): forward``; aten::relu allocates 4 KiB in every step
    (the same bytes in both traces), its time drawn around 100 us x ``slow_relu``."""
    draw = random.Random(seed)
    events = []
    start = 0.0
    for number in range(1, 9):
        relu = 100.0 * slow_relu * draw.uniform(0.95, 1.05)
        total = 50.0 * draw.uniform(0.95, 1.05)
        events += [
            step(number, start, 400.0),
            frame("model.py(4): forward", start + 10, relu + total + 20),
            op("aten::relu", start + 15, relu, external=number * 10),
            memory(start + 16, 4096, 4096),
            op("aten::sum", start + 20 + relu, total, external=number * 10 + 1),
        ]
        start += 400.0
    return Trace(events)


def _workspace(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "perfline.toml").write_text("")
    base, new = tmp_path / "base.pt.trace.json", tmp_path / "new.pt.trace.json"
    base.write_bytes(_trace(1, 1.0).data())
    new.write_bytes(_trace(2, 1.5).data())
    return base, new


def _invoke(*arguments: str) -> Result:
    return CliRunner().invoke(cli, list(arguments))


def test_compare_judges_a_trace_by_its_time_not_its_bytes(tmp_path: Path) -> None:
    base, new = _workspace(tmp_path)
    outcome = _invoke("compare", str(base), str(new), "--source-root", str(tmp_path))
    assert outcome.exit_code == 0, outcome.output
    assert "Lines by cpu_time (ms)" in outcome.stdout
    assert "Lines by allocated_bytes" not in outcome.stdout
    as_json = _invoke("compare", str(base), str(new), "--json", "--source-root", str(tmp_path))
    report = json.loads(as_json.stdout)
    assert [m["metric"] for m in report["results"][0]["model_wide"]] == ["cpu_time"]


def test_check_fails_on_the_slower_line_that_allocates_the_same(tmp_path: Path) -> None:
    base, new = _workspace(tmp_path)
    failed = _invoke("check", "--baseline", str(base), str(new), "--source-root", str(tmp_path))
    assert failed.exit_code == 1, failed.output
    assert "model.py:4: cpu_time" in failed.output
    # asked for, the bytes are still what is judged: unchanged, so the gate passes
    passed = _invoke(
        "check",
        "--baseline",
        str(base),
        str(new),
        "--metric",
        "allocated_bytes",
        "--source-root",
        str(tmp_path),
    )
    assert passed.exit_code == 0, passed.output
