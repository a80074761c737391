"""The real CPU traces of the test models (torch 2.13): every figure on a model line equals
what the trace's own events give, computed independently (``_independent``)."""

from __future__ import annotations

import math

import pytest

from tests.support.torch_independent import (
    def_line_totals,
    frame_lines,
    memory_def_line_totals,
    memory_statement_line_totals,
    peak_allocated,
    statement_line_totals,
)
from tests.support.torch_traces import (
    CAPTURED,
    DATA,
    MODELS,
    line_figures,
    processed,
    sidecar_path,
    trace_path,
)


@pytest.mark.parametrize("name", CAPTURED)
def test_function_level_def_lines_carry_their_frames_summed(name: str) -> None:
    document = processed(trace_path(name), statements=False)
    file = f"{MODELS}/{name}.py"
    found = line_figures(document, file)
    expected = def_line_totals(trace_path(name), file)
    assert expected and set(found) == set(expected)
    for line, value in expected.items():
        assert math.isclose(found[line], value, rel_tol=1e-6, abs_tol=1e-5), line
    warnings = document["results"][0]["warnings"]
    assert any(w.startswith("function level") for w in warnings)


@pytest.mark.parametrize("name", CAPTURED)
def test_statement_lines_carry_what_ran_at_them(name: str) -> None:
    document = processed(trace_path(name), statements=True)
    file = f"{MODELS}/{name}.py"
    found = line_figures(document, file)
    expected = statement_line_totals(trace_path(name), sidecar_path(name), file)
    frames = frame_lines(trace_path(name), file)
    for line, value in expected.items():
        if line in frames:  # a frame's line: also that frame's own Python time
            assert found[line] >= value * (1 - 1e-6), line
        else:
            assert math.isclose(found[line], value, rel_tol=1e-6, abs_tol=1e-5), line
    # the other lines are the frames' lines, with the functions' own Python time
    assert set(found) - set(expected) <= frames
    assert not any(w.startswith("function level") for w in document["results"][0]["warnings"])


@pytest.mark.parametrize("name", CAPTURED)
def test_both_levels_account_for_the_same_time(name: str) -> None:
    function = processed(trace_path(name), statements=False)["results"][0]["metrics"]
    statement = processed(trace_path(name), statements=True)["results"][0]["metrics"]
    total = {m["name"]: m["value"] for m in function if "value" in m}["cpu_time"]
    assert math.isclose(
        total, {m["name"]: m["value"] for m in statement if "value" in m}["cpu_time"]
    )
    steps = {m["name"]: m["value"] for m in function if "value" in m}["inference_time"]
    # each thread's slices add up to at most the step time (the threaded model runs its
    # inference on two threads while the main one waits for them)
    assert total <= steps * 1.0001 * (3 if name == "threaded" else 1)


@pytest.mark.parametrize("name", CAPTURED)
def test_lines_without_code_carry_nothing(name: str) -> None:
    document = processed(trace_path(name), statements=True)
    file = f"{MODELS}/{name}.py"
    source = (DATA / "models" / f"{name}.py").read_text().splitlines()
    for metric in ("cpu_time", "cpu_time_backward", "allocated_bytes"):
        for line in line_figures(document, file, metric):
            text = source[line - 1].strip()
            assert text and not text.startswith(("#", '"""', ")", "]")), (metric, line, text)


MEMORY = ("transformer_block", "cnn", "custom_function", "train_step")


@pytest.mark.parametrize("name", MEMORY)
def test_def_lines_carry_the_bytes_allocated_inside_their_frames(name: str) -> None:
    """``perfline profile`` traces hold torch's allocations: each function's ``def`` line
    carries the bytes allocated while it ran (per step), and the result the trace's peak."""
    document = processed(trace_path(name), statements=False)
    file = f"{MODELS}/{name}.py"
    expected = memory_def_line_totals(trace_path(name), file)
    assert expected and max(expected.values()) > 0
    found = line_figures(document, file, "allocated_bytes")
    assert {line: value for line, value in found.items() if value} == pytest.approx(expected)
    metrics = {m["name"]: m.get("value") for m in document["results"][0]["metrics"]}
    assert metrics["peak_allocated_bytes"] == peak_allocated(trace_path(name))


@pytest.mark.parametrize("name", MEMORY)
def test_statement_lines_carry_the_bytes_their_ops_allocated(name: str) -> None:
    document = processed(trace_path(name), statements=True)
    file = f"{MODELS}/{name}.py"
    expected = memory_statement_line_totals(trace_path(name), sidecar_path(name), file)
    assert expected
    found = line_figures(document, file, "allocated_bytes")
    frames = frame_lines(trace_path(name), file)
    for line, value in expected.items():
        if line in frames:  # a frame's line: also what its own Python allocated
            assert found[line] >= value, line
        else:
            assert found[line] == pytest.approx(value), line
    assert {line for line, value in found.items() if value} - set(expected) <= frames
