"""The capture's own frames (``perfline profile``'s operator mode and step hooks, whose files
the sidecar lists as ``capture_files``) are dropped from the trace's nesting, not shown: no
leaf is theirs, their children nest in their caller, and their own time counts once, where a
call into C's would (the caller's own time; at statement level, the calling statement)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from perfline.core.backends.torch_profiler.document import analyze_traces, read_trace
from perfline.core.backends.torch_profiler.leaves import trace_leaves
from perfline.core.backends.torch_profiler.sidecar import read_sidecar
from tests.support.torch_build import Trace, frame, memory, op, step

CAPTURE = "/opt/perfline/clients/torch_capture/session.py"


def _trace() -> Trace:
    return Trace(
        [
            step(1, 0.0, 100.0),
            frame("model.py(1): <module>", 0.0, 100.0),
            frame("model.py(3): forward", 1.0, 60.0),
            frame(f"{CAPTURE}(55): __torch_function__", 10.0, 20.0),
            op("aten::mm", 12.0, 10.0, external=1),
            memory(25.0, 256, 256),  # in the capture's frame, after the op
            frame(f"{CAPTURE}(200): _module_ends", 40.0, 5.0),
            frame("torch/profiler/profiler.py(800): step", 41.0, 3.0),
        ]
    )


def _sidecar(trace: bytes, level: str, capture_files: list[str]) -> Any:
    document: dict[str, Any] = {
        "perfline_torch_sidecar": 1,
        "trace": {"file": "t.json", "sha256": hashlib.sha256(trace).hexdigest(), "bytes": 1},
        "level": level,
        "files": ["/ws/model.py"] if level == "statement" else [],
        "stacks": [[[0, 9, "<module>"], [0, 4, "forward"]]] if level == "statement" else [],
        "ops": [[1, 0, "aten::mm"]] if level == "statement" else [],
        "capture_files": capture_files,
        "threads": "capturing",
    }
    if level == "function":
        document["reason"] = "a test"
    return read_sidecar(json.dumps(document).encode(), "t.json.perfline.json")


def _leaves(level: str, capture_files: list[str]) -> dict[str, dict[str, float]]:
    """leaf ``file:line>...|name`` -> {metric: value of the one step}."""
    data = _trace().data()
    done = read_trace([data], "t.json", sidecar=_sidecar(data, level, capture_files))
    return {
        ">".join(f"{f.file}:{f.line}" for f in leaf.frames) + "|" + leaf.name: {
            metric: values[0] for metric, values in leaf.values.items()
        }
        for leaf in trace_leaves(done.table, done.attribution, {})
    }


def test_function_level_drops_the_capture_frames_into_their_caller() -> None:
    leaves = _leaves("function", [CAPTURE])
    assert not [key for key in leaves if "torch_capture" in key]
    # forward's own time: 60 - 20 (the capture's frame) - 5 (the hook), plus the capture
    # frame's own 10 and the hook's own 2 (its torch child keeps its 3)
    forward = leaves["model.py:1>model.py:3|Python: forward"]
    assert forward["cpu_time"] == pytest.approx((60 - 20 - 5 + 10 + 2) / 1000)
    assert leaves["model.py:1>model.py:3|aten::mm"]["cpu_time"] == pytest.approx(10 / 1000)
    assert forward["allocated_bytes"] == 256  # made in the capture's frame: its caller's
    profiler = "model.py:1>model.py:3>torch/profiler/profiler.py:800|Python: step"
    assert leaves[profiler]["cpu_time"] == pytest.approx(3 / 1000)
    total = sum(values["cpu_time"] for values in leaves.values())
    assert total == pytest.approx(100 / 1000)


def test_without_the_list_the_frames_stay() -> None:
    leaves = _leaves("function", [])
    assert "model.py:1>model.py:3>" + CAPTURE + ":55|aten::mm" in leaves


def test_statement_level_puts_the_capture_frames_time_on_the_calling_statement() -> None:
    leaves = _leaves("statement", [CAPTURE])
    assert not [key for key in leaves if "torch_capture" in key]
    assert leaves["/ws/model.py:9>/ws/model.py:4|aten::mm"]["cpu_time"] == pytest.approx(0.01)
    # the operator mode's own 10 µs, on the statement whose op it wrapped
    glue = leaves["/ws/model.py:9>/ws/model.py:4|Python: forward"]["cpu_time"]
    assert glue == pytest.approx(0.01)
    total = sum(values["cpu_time"] for values in leaves.values())
    assert total == pytest.approx(0.1)


def test_the_dropped_frames_are_counted_in_a_warning() -> None:
    data = _trace().data()
    done = read_trace([data], "t.json", sidecar=_sidecar(data, "statement", [CAPTURE]))
    document = analyze_traces(
        [done], {"model.py": "model.py"}, timestamp="2026-01-01T00:00:00Z", workspace="ws"
    )
    (warning,) = [w for w in document["results"][0]["warnings"] if "perfline's capture" in w]
    assert "2 frames" in warning and "0.012 ms" in warning
