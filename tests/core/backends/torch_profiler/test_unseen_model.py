"""The issue's "done when" for traces: ``perfline analyze TRACE`` on a trace nobody here had
seen puts each function's inclusive time on its ``def`` line, equal to that frame's events
summed per step, with no configuration when the source sits in the folder. The model below
is written for this test only; torch (``PERFLINE_TORCH_PYTHON``, set by scripts/test.sh)
profiles it into a fresh trace, and ``perfline analyze`` runs as a user runs it."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from tests.support.torch_python import TORCH_PYTHON, needs_torch

MODEL = """import torch
from torch import nn


def gate(x, w):
    scores = torch.sigmoid(x @ w)
    return x * scores


class Mixer(nn.Module):
    def __init__(self, width=48, depth=3):
        super().__init__()
        self.weights = nn.ParameterList(
            nn.Parameter(torch.randn(width, width) / width) for _ in range(depth)
        )
        self.head = nn.Linear(width, 5)

    def mix(self, x):
        for w in self.weights:
            x = x + gate(x, w)
        return x

    def forward(self, x):
        x = self.mix(x)
        x = torch.tanh(x).cumsum(dim=-1)
        return self.head(x).softmax(dim=-1)
"""

DRIVER = """import torch
from torch.profiler import ProfilerActivity, profile, schedule

from unseen import Mixer

torch.manual_seed(3)
model = Mixer()
batch = torch.randn(32, 48)


def export(prof):
    prof.export_chrome_trace("unseen.pt.trace.json")


with profile(
    activities=[ProfilerActivity.CPU],
    with_stack=True,
    profile_memory=True,
    schedule=schedule(wait=0, warmup=1, active=5),
    on_trace_ready=export,
) as prof:
    for _ in range(6):
        with torch.no_grad():
            model(batch)
        prof.step()
"""

_FRAME = re.compile(r"^unseen\.py\((\d+)\): (.+)$")


def _frames_summed(trace: Path) -> dict[int, float]:
    """(def line) -> the durations of that function's events summed, per step (ms), for
    the functions whose every event lies inside one ProfilerStep window."""
    events = json.loads(trace.read_text())["traceEvents"]
    windows = sorted(
        (e["ts"], e["ts"] + e["dur"])
        for e in events
        if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")
    )
    totals: dict[int, float] = defaultdict(float)
    whole: dict[int, bool] = defaultdict(lambda: True)
    for event in events:
        match = (
            _FRAME.match(event.get("name", "")) if event.get("cat") == "python_function" else None
        )
        if match is None:
            continue
        line = int(match[1])
        inside = any(s <= event["ts"] and event["ts"] + event["dur"] <= e for s, e in windows)
        whole[line] = whole[line] and inside
        totals[line] += event["dur"] / 1000
    return {line: total / len(windows) for line, total in totals.items() if whole[line]}


def _allocated_in(trace: Path, line: int) -> float:
    """Bytes allocated per step while the function of ``line`` ran (its thread, its spans)."""
    events = json.loads(trace.read_text())["traceEvents"]
    steps = sum(
        1
        for e in events
        if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")
    )
    spans = [
        (e["tid"], e["ts"], e["ts"] + e["dur"])
        for e in events
        if e.get("cat") == "python_function" and e["name"] == f"unseen.py({line}): gate"
    ]
    total = 0
    for event in events:
        if event.get("name") != "[memory]" or event["args"]["Bytes"] <= 0:
            continue
        if any(t == event["tid"] and s <= event["ts"] < e for t, s, e in spans):
            total += event["args"]["Bytes"]
    return total / steps


@needs_torch
def test_def_lines_carry_their_frames_summed_with_no_configuration(tmp_path: Path) -> None:
    assert TORCH_PYTHON is not None
    (tmp_path / "unseen.py").write_text(MODEL)
    (tmp_path / "drive.py").write_text(DRIVER)
    made = subprocess.run(
        [TORCH_PYTHON, "drive.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert made.returncode == 0, made.stderr
    trace = tmp_path / "unseen.pt.trace.json"
    analysed = subprocess.run(
        [sys.executable, "-m", "perfline", "analyze", trace.name, "--output-dir", "out"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert analysed.returncode == 0, analysed.stderr
    document = json.loads((tmp_path / "out" / "mlia-output" / "mlia-output.json").read_text())
    result = document["results"][0]
    lines = {
        e["id"]: e["attributes"]["line"]
        for e in result["entities"]
        if e["kind"] == "code_line" and e["attributes"]["file"] == "unseen.py"
    }
    figures = {
        lines[b["entity_id"]]: {m["name"]: m["value"] for m in b["metrics"]}
        for b in result["breakdowns"]
        if b["entity_id"] in lines
    }
    expected = _frames_summed(trace)
    # gate (5), mix (18), forward (23): every function of the model that ran
    assert {5, 18, 23} <= set(expected)
    for line, value in expected.items():
        assert math.isclose(figures[line]["cpu_time"], value, rel_tol=1e-6, abs_tol=1e-4), line
    # a def line includes its callees (mix calls gate), and memory is on the lines too
    assert figures[18]["cpu_time"] > figures[5]["cpu_time"]
    assert figures[5]["allocated_bytes"] == pytest.approx(_allocated_in(trace, 5))
    assert figures[5]["allocated_bytes"] > 0
    peak = {m["name"]: m.get("value") for m in result["metrics"]}["peak_allocated_bytes"]
    events = json.loads(trace.read_text())["traceEvents"]
    assert peak == max(e["args"]["Total Allocated"] for e in events if e.get("name") == "[memory]")
    assert any(w.startswith("function level") for w in result["warnings"])
