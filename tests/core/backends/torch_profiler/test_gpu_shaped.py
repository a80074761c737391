"""GPU parsing on traces in the exact shape torch writes for CUDA (made from the real CPU
traces by tests/data/torch_profiler_gpu/make_gpu_traces.py; no GPU ran): kernels, copies and
sets on the lines of the ops that launched them, backward GPU and CPU time on the forward
lines, whatever join the trace allows; expectations computed from the JSON."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.locations import DATA
from tests.support.torch_independent import Nesting, memory_def_line_totals, peak_allocated
from tests.support.torch_traces import MODELS, line_figures, processed

GPU = DATA / "torch_profiler_gpu"
DEVICE = ("kernel", "gpu_memcpy", "gpu_memset")


def _frame_lines(nesting: Nesting, index: int, file: str) -> set[int]:
    """The lines of the frames of ``file`` enclosing slice ``index`` (a def line's figure
    includes what the functions it calls ran)."""
    lines = set()
    up = nesting.parent.get(index)
    while up is not None:
        name = nesting.slices[up]["name"]
        if nesting.slices[up]["cat"] == "python_function" and name.startswith(
            file.rpartition("/")[2] + "("
        ):
            lines.add(int(name.split("(")[1].split(")")[0]))
        up = nesting.parent.get(up)
    return lines


def _statement_lines(trace: Path, file: str) -> Callable[[Nesting, int], set[int]]:
    """Lines of ``file`` in the sidecar stack of the op at a slice (statement level)."""
    sidecar = json.loads(Path(f"{trace}.perfline.json").read_bytes())
    files, stacks = sidecar["files"], sidecar["stacks"]
    by_external = {entry[0]: stacks[entry[1]] for entry in sidecar["ops"]}

    def lines(nesting: Nesting, index: int) -> set[int]:
        stack = by_external.get(nesting.slices[index]["args"].get("External id"), [])
        return {line for at, line, *_ in stack if files[at].endswith("/" + file)}

    return lines


def _expected(
    trace: Path, file: str, lines_of: Callable[[Nesting, int], set[int]] | None = None
) -> tuple[dict[int, float], dict[int, float], float]:
    """(line -> GPU ms per step launched below it outside backward, line -> backward GPU ms
    per step of the forward ops below it, all GPU ms per step); lines are the def lines of the
    frames enclosing the op, or ``lines_of``'s."""
    events: list[dict[str, Any]] = json.loads(trace.read_bytes())["traceEvents"]
    nesting = Nesting(trace)
    lines_of = lines_of or (lambda n, i: _frame_lines(n, i, file))
    steps = nesting.steps()
    position = {id(e): i for i, e in enumerate(nesting.slices)}
    ops = [e for e in nesting.slices if e["cat"] == "cpu_op"]
    by_external = {e["args"]["External id"]: e for e in ops if "External id" in e["args"]}
    by_start = {(e["tid"], e["ts"]): e for e in ops}
    flows: dict[int, dict[str, Any]] = defaultdict(dict)
    for event in events:
        if event.get("cat") == "fwdbwd":
            flows[event["id"]][event["ph"]] = event
    forward_of: dict[int, dict[str, Any]] = {}  # backward node slice -> forward op
    for pair in flows.values():
        if "s" in pair and "f" in pair:
            node = by_start[(pair["f"]["tid"], pair["f"]["ts"])]
            forward_of[position[id(node)]] = by_start[(pair["s"]["tid"], pair["s"]["ts"])]
    gpu: dict[int, float] = defaultdict(float)
    backward: dict[int, float] = defaultdict(float)
    total = 0.0
    for activity in (e for e in events if e.get("cat") in DEVICE):
        op = by_external[activity["args"]["External id"]]
        if not nesting.in_steps(op["ts"]):
            continue
        total += activity["dur"]
        index = position[id(op)]
        node = index
        while node is not None and node not in forward_of:
            node = nesting.parent.get(node)
        if node is None:
            for line in lines_of(nesting, index):
                gpu[line] += activity["dur"] / 1000
        else:
            for line in lines_of(nesting, position[id(forward_of[node])]):
                backward[line] += activity["dur"] / 1000
    return (
        {k: v / steps for k, v in gpu.items()},
        {k: v / steps for k, v in backward.items()},
        total / 1000 / steps,
    )


def _metric(document: dict[str, Any], name: str) -> float:
    return next(m["value"] for m in document["results"][0]["metrics"] if m["name"] == name)


@pytest.mark.parametrize("name", ["train_step", "custom_function"])
def test_gpu_time_on_the_launching_lines_and_backward_on_the_forward_lines(name: str) -> None:
    trace = GPU / f"{name}.cuda.pt.trace.json"
    file = f"{MODELS}/{name}.py"
    document = processed(trace, statements=False)
    gpu, backward, total = _expected(trace, file)
    assert gpu and backward
    found_gpu = line_figures(document, file, "gpu_time")
    found_backward = line_figures(document, file, "gpu_time_backward")
    for line, value in gpu.items():
        assert math.isclose(found_gpu[line], value, rel_tol=1e-9), line
    for line, value in backward.items():
        assert math.isclose(found_backward[line], value, rel_tol=1e-9), line
    everything = _metric(document, "gpu_time") + _metric(document, "gpu_time_backward")
    assert math.isclose(everything, total, rel_tol=1e-9)
    result = document["results"][0]
    assert not any("GPU activities" in w for w in result["warnings"])
    kinds = {c["type"] for c in document["target"]["components"]}
    assert kinds == {"cpu", "gpu"}


@pytest.mark.parametrize("name", ["train_step", "custom_function"])
def test_statement_level_gpu_time_on_the_statements(name: str) -> None:
    trace = GPU / f"{name}.cuda.pt.trace.json"
    file = f"{MODELS}/{name}.py"
    document = processed(trace, statements=True)
    gpu, backward, _ = _expected(trace, f"{name}.py", _statement_lines(trace, f"{name}.py"))
    assert gpu and backward
    found_gpu = line_figures(document, file, "gpu_time")
    found_backward = line_figures(document, file, "gpu_time_backward")
    for line, value in gpu.items():
        assert math.isclose(found_gpu[line], value, rel_tol=1e-9), line
    for line, value in backward.items():
        assert math.isclose(found_backward[line], value, rel_tol=1e-9), line
    assert document["backends"][0]["configuration"]["attribution_level"] == ["statement"]


@pytest.mark.parametrize("variant", ["cuda_correlation_only", "cuda_flows_only"])
def test_every_join_gives_the_same_figures(variant: str) -> None:
    file = f"{MODELS}/custom_function.py"
    full = processed(GPU / "custom_function.cuda.pt.trace.json", statements=False)
    other = processed(GPU / f"custom_function.{variant}.pt.trace.json", statements=False)
    for metric in ("gpu_time", "gpu_time_backward", "cpu_time"):
        expected = line_figures(full, file, metric)
        found = line_figures(other, file, metric)
        assert found.keys() == expected.keys()
        for line, value in expected.items():
            assert math.isclose(found[line], value, rel_tol=1e-9), (metric, line)


def test_torchs_python_exporter_layout_reads_the_same() -> None:
    trace = GPU / "transformer_block.cuda_python_export.pt.trace.json"
    assert trace.read_text().count("\n") > 1000  # one event per line
    document = processed(trace, statements=False)
    file = f"{MODELS}/transformer_block.py"
    gpu, _, total = _expected(trace, file)
    found = line_figures(document, file, "gpu_time")
    for line, value in gpu.items():
        assert math.isclose(found[line], value, rel_tol=1e-9), line
    assert math.isclose(_metric(document, "gpu_time"), total, rel_tol=1e-9)


@pytest.mark.parametrize("name", ["train_step", "custom_function"])
def test_device_allocations_on_the_def_lines_and_the_device_peak(name: str) -> None:
    """Allocations of device memory (``Device Type`` 1) are ``gpu_allocated_bytes``, host
    ones ``allocated_bytes``: each on the def lines of the frames that made them, per step."""
    trace = GPU / f"{name}.cuda.pt.trace.json"
    file = f"{MODELS}/{name}.py"
    document = processed(trace, statements=False)
    for metric, device in (("allocated_bytes", 0), ("gpu_allocated_bytes", 1)):
        expected = memory_def_line_totals(trace, file, device)
        assert expected and max(expected.values()) > 0
        found = line_figures(document, file, metric)
        assert {line: value for line, value in found.items() if value} == pytest.approx(expected)
    assert _metric(document, "peak_gpu_allocated_bytes") == peak_allocated(trace, 1)
    assert _metric(document, "peak_allocated_bytes") == peak_allocated(trace, 0)
