"""``perfline compare`` and ``check`` between two torch.profiler traces of one program: each
ProfilerStep is a run sample, so a line slowed in every step is a significant regression and
the others are not; traces go in as files, as a perfline profile run folder, or gzipped."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

from click.testing import CliRunner, Result

from perfline.clients.cli import cli
from tests.support.torch_build import Trace, frame, op, step

MODEL = """import torch


def forward(x):
    y = torch.relu(x)
    return y.sum()
"""


def _trace(seed: int, slow_relu: float) -> Trace:
    """Eight steps of ``model.py(4): forward`` running aten::relu and aten::sum, each op's
    time drawn around its mean (relu's mean times ``slow_relu``)."""
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
            op("aten::sum", start + 20 + relu, total, external=number * 10 + 1),
        ]
        start += 400.0
    return Trace(events)


def _invoke(*arguments: str) -> Result:
    return CliRunner().invoke(cli, list(arguments))


def _workspace(tmp_path: Path) -> Path:
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "perfline.toml").write_text("")
    (tmp_path / "base.pt.trace.json").write_bytes(_trace(1, 1.0).data())
    run = tmp_path / ".perfline" / "runs" / "20260101-000000-ab"
    run.mkdir(parents=True)
    (run / "new.pt.trace.json").write_bytes(_trace(2, 1.3).data())
    return tmp_path


def test_compare_finds_the_slowed_line_by_its_steps(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    run = root / ".perfline" / "runs" / "20260101-000000-ab"
    outcome = _invoke(
        "compare", str(root / "base.pt.trace.json"), str(run), "--json", "--source-root", str(root)
    )
    assert outcome.exit_code == 0, outcome.output
    report = json.loads(outcome.stdout)
    entities = report["results"][0]["entities"]

    def cpu(kind: str, name: str) -> dict[str, object]:
        entity = next(e for e in entities if e["kind"] == kind and e["name"] == name)
        return {m["name"]: m for m in entity["metrics"]}["cpu_time"]

    relu = cpu("source_operator", "aten::relu")
    assert relu["verdict"] == "regression" and relu["significant"] is True
    assert (relu["base_runs"], relu["new_runs"]) == (8, 8)
    assert cpu("source_operator", "aten::sum")["verdict"] in ("noise", "unchanged")
    assert cpu("code_line", "model.py:4")["verdict"] == "regression"


def test_check_fails_on_the_regression_and_passes_on_itself(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    new = root / ".perfline" / "runs" / "20260101-000000-ab" / "new.pt.trace.json"
    base = root / "base.pt.trace.json"
    failed = _invoke("check", "--baseline", str(base), str(new), "--source-root", str(root))
    assert failed.exit_code == 1, failed.output
    assert "model.py:5" in failed.output or "model.py:4" in failed.output
    zipped = root / "base.pt.trace.json.gz"
    zipped.write_bytes(gzip.compress(base.read_bytes()))
    passed = _invoke("check", "--baseline", str(zipped), str(base), "--source-root", str(root))
    assert passed.exit_code == 0, passed.output
