"""Where CPU time goes: self times of nested frames and ops, each on the innermost Python
frame that holds it, nothing counted twice; crossing edges; steps."""

from __future__ import annotations

import math

from tests.support.torch_analysis import leaves_by_place, read
from tests.support.torch_build import Trace, frame, op, step


def _trace() -> Trace:
    # run.py(10): train_step [0, 100) in step 1 [0, 200)
    #   nn.Module: Net_0 [5, 60)
    #     model.py(20): forward [6, 59)
    #       aten::linear [10, 30) > aten::addmm [12, 28)
    #       <built-in method relu> [31, 40) > aten::relu [32, 38)
    #       model.py(40): helper [41, 55) > aten::add [42, 50)
    #   aten::sum [70, 80)
    # step 2 [200, 300): train_step again [200, 250) > aten::sum [210, 220)
    return Trace(
        [
            step(1, 0.0, 200.0),
            step(2, 200.0, 100.0),
            frame("run.py(10): train_step", 0.0, 100.0),
            frame("nn.Module: Net_0", 5.0, 55.0),
            frame("model.py(20): forward", 6.0, 53.0),
            op("aten::linear", 10.0, 20.0, external=1),
            op("aten::addmm", 12.0, 16.0, external=2),
            frame("<built-in method relu of type object at 0x7f>", 31.0, 9.0),
            op("aten::relu", 32.0, 6.0, external=3),
            frame("model.py(40): helper", 41.0, 14.0),
            op("aten::add", 42.0, 8.0, external=4),
            op("aten::sum", 70.0, 10.0, external=5),
            frame("run.py(10): train_step", 200.0, 50.0),
            op("aten::sum", 210.0, 10.0, external=6),
        ]
    )


def test_self_time_goes_to_the_innermost_frame_and_adds_up() -> None:
    done = read(_trace())
    leaves = leaves_by_place(done.attribution, done)
    cpu = {key: list(leaf.values["cpu_time"]) for key, leaf in leaves.items()}
    # an op with the ops nested in it is one leaf, in the frame that called it (ms per step)
    assert cpu["run.py:10>model.py:20|Net_0|aten::linear"] == [0.020, 0.0]
    # a call into C adds no frame: its own time is the enclosing frame's Python time
    assert cpu["run.py:10>model.py:20|Net_0|aten::relu"] == [0.006, 0.0]
    assert math.isclose(
        cpu["run.py:10>model.py:20|Net_0|Python: forward"][0], 0.053 - 0.020 - 0.006 - 0.014
    )
    assert cpu["run.py:10>model.py:20>model.py:40|Net_0|aten::add"] == [0.008, 0.0]
    assert cpu["run.py:10||aten::sum"] == [0.010, 0.010]
    # the module call's own time is Python time of the caller's stack under the module
    assert math.isclose(cpu["run.py:10|Net_0|Python: train_step"][0], 0.055 - 0.053)
    # every leaf below a frame adds up to the frame's duration, step by step
    below = [sum(v[0] for k, v in cpu.items() if k.startswith("run.py:10"))]
    assert math.isclose(below[0], 0.100)
    assert math.isclose(sum(v[1] for k, v in cpu.items() if k.startswith("run.py:10")), 0.050)
    assert done.attribution.step_ms == [0.2, 0.1]
    assert done.attribution.timeline.crossings == 0


def test_crossing_edges_cut_or_close() -> None:
    trace = Trace(
        [
            frame("a.py(1): f", 0.0, 10.0),
            op("aten::mostly_inside", 8.0, 2.5),  # ends 0.5 after f: cut at f's end
            op("aten::mostly_after", 9.5, 4.0),  # 0.5 of 4 inside f: a sibling after f
        ]
    )
    done = read(trace)
    timeline = done.attribution.timeline
    assert timeline.crossings == 2
    assert math.isclose(timeline.cut_us, 0.5)
    leaves = leaves_by_place(done.attribution, done)
    assert leaves["a.py:1||aten::mostly_inside"].values["cpu_time"].tolist() == [0.002]
    assert leaves["||aten::mostly_after"].values["cpu_time"].tolist() == [0.004]


def test_slices_outside_every_step_are_counted_not_figured() -> None:
    trace = Trace([step(1, 10.0, 10.0), frame("a.py(1): f", 0.0, 5.0), op("aten::x", 12.0, 3.0)])
    done = read(trace)
    assert done.attribution.outside_steps == 1
    assert math.isclose(done.attribution.outside_steps_us, 5.0)
    leaves = leaves_by_place(done.attribution, done)
    assert set(leaves) == {"||aten::x"}


def test_without_steps_the_trace_is_one_run() -> None:
    done = read(Trace([frame("a.py(1): f", 5.0, 10.0), op("aten::x", 6.0, 3.0)]))
    assert done.attribution.step_ms == [0.010]
