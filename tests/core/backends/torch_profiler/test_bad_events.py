"""Events the backend cannot use are left out with a warning that counts them and says how
much time they held: missing times, negative durations, a thread whose clock runs off the
steps, slices whose edges cross, GPU work and backward ops with nothing to join."""

from __future__ import annotations

from perfline.core.backends.torch_profiler.document import analyze_traces
from tests.support.torch_analysis import read
from tests.support.torch_build import Trace, frame, kernel, memory, op, step


def _warnings(trace: Trace) -> list[str]:
    done = read(trace)
    document = analyze_traces(
        [done], {"model.py": "model.py"}, timestamp="2026-01-01T00:00:00Z", workspace="ws"
    )
    return list(document["results"][0]["warnings"])


def _base() -> list[dict[str, object]]:
    return [step(1, 0.0, 100.0), frame("model.py(3): f", 1.0, 50.0), op("aten::mm", 2.0, 10.0)]


def test_missing_and_negative_times_are_counted() -> None:
    events = _base()
    events.append({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 100, "tid": 100})
    events.append(op("aten::mul", 20.0, -3.0))
    warning = next(w for w in _warnings(Trace(events)) if "no usable time" in w)
    assert "2 events" in warning and "2 cpu_op" in warning


def test_a_thread_whose_clock_is_off_the_steps_is_counted() -> None:
    events = _base()
    events += [frame("model.py(3): f", 5000.0, 40.0, tid=7), op("aten::mm", 5001.0, 30.0, tid=7)]
    warning = next(w for w in _warnings(Trace(events)) if "outside every ProfilerStep" in w)
    assert "2 slices" in warning and "0.04 ms" in warning


def test_crossing_slices_are_counted_with_the_time_cut() -> None:
    events = _base()
    events.append(op("aten::late", 45.0, 7.0))  # ends 1 µs after f
    warning = next(w for w in _warnings(Trace(events)) if "end after the slice" in w)
    assert warning.split(": ")[1].startswith("1 slices") and "0.001 ms" in warning


def test_gpu_work_and_backward_ops_with_nothing_to_join() -> None:
    events = _base()
    events.append(kernel("k", 60.0, 4.0, correlation=99))
    events.append(op("MmBackward0", 70.0, 5.0, sequence=12345, forward_thread=1))
    warnings = _warnings(Trace(events))
    assert any("1 GPU activities (0.004 ms) have no launching op" in w for w in warnings)
    assert any("1 backward ops (0.005 ms) have no forward op" in w for w in warnings)


def test_profile_memory_without_allocations_says_no_line_has_memory() -> None:
    """torch records no allocation in its all-threads mode, though the header says
    ``profile_memory``: the result says why no line has a memory figure."""
    warned = [w for w in _warnings(Trace(_base())) if "holds no allocation" in w]
    assert len(warned) == 1 and "profile_all_threads" in warned[0]
    with_memory = Trace([*_base(), memory(3.0, 64, 64)])
    assert not [w for w in _warnings(with_memory) if "holds no allocation" in w]
    plain = Trace(_base())
    plain.header["profile_memory"] = 0
    assert not [w for w in _warnings(plain) if "holds no allocation" in w]


def test_several_threads_say_what_cpu_time_and_its_shares_add_up() -> None:
    """A second thread (here one waiting in Python) adds its slices' wall time: the result
    says so, with the total a line's share is of."""
    assert not [w for w in _warnings(Trace(_base())) if "slices on" in w]
    waiting = Trace([*_base(), frame("loader.py(5): loader", 0.0, 90.0, tid=7)])
    (warning,) = [w for w in _warnings(waiting) if "slices on 2 threads" in w]
    assert "wall time" in warning and "waiting in Python" in warning
    assert "0.14 ms per step, 1.4x the step time" in warning


def test_compiled_graphs_are_counted_with_their_time_and_the_way_to_see_their_lines() -> None:
    """A ``torch.compile`` graph's statements leave no frame: its runs are counted, with the
    time they held, and the result names how to see the statements."""
    events = _base()
    events.append(op("Torch-Compiled Region: 0/0", 3.0, 6.0))
    events.append(op("Torch-Compiled Region: 1/0", 14.0, 2.5))
    events.append(op("Torch-Compiled Region-like but not one", 30.0, 1.0))
    (warning,) = [w for w in _warnings(Trace(events)) if "torch.compile" in w]
    assert "2 runs of torch.compile graphs (0.0085 ms in all)" in warning
    assert "TORCH_COMPILE_DISABLE=1" in warning
    assert not [w for w in _warnings(Trace(_base())) if "torch.compile" in w]
