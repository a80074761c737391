"""Call counts: each ``code_stack`` of a function's ``def`` line says how often the function
was entered on that call path per step (``calls_per_step``); a count, not a metric, so
nothing sums it into call lines and the gate never judges it."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

from perfline.core.backends.torch_profiler.document import analyze_traces
from perfline.core.pipeline import PipelineSettings, postprocess
from tests.support.torch_analysis import read
from tests.support.torch_build import Trace, frame, op, step
from tests.support.torch_independent import Nesting
from tests.support.torch_traces import CAPTURED, MODELS, processed, trace_path


def _trace() -> Trace:
    events: list[dict[str, Any]] = []
    for number, start in ((1, 0.0), (2, 100.0)):
        events += [
            step(number, start, 100.0),
            frame("model.py(3): forward", start + 1, 80.0),
            frame("model.py(10): proj", start + 5, 10.0),
            op("aten::mm", start + 6, 8.0, external=10 * number),
            frame("model.py(10): proj", start + 20, 10.0),
            op("aten::mm", start + 21, 8.0, external=10 * number + 1),
            frame("model.py(20): rec", start + 40, 30.0),
            frame("model.py(20): rec", start + 45, 10.0),
            op("aten::relu", start + 46, 5.0, external=10 * number + 2),
        ]
    return Trace(events)


def _calls(document: dict[str, Any]) -> dict[tuple[int, ...], float]:
    """Each code stack's lines, outermost first -> its calls_per_step."""
    entities = {e["id"]: e for e in document["results"][0]["entities"]}
    found = {}
    for entity in entities.values():
        if entity["kind"] != "code_stack" or "calls_per_step" not in entity["attributes"]:
            continue
        lines = []
        current: dict[str, Any] | None = entity
        while current is not None:
            lines.append(current["attributes"]["line"])
            parents = [p for p in current.get("parent_ids", []) if p.startswith("code_stack/")]
            current = entities[parents[0]] if parents else None
        found[tuple(reversed(lines))] = entity["attributes"]["calls_per_step"]
    return found


def test_each_call_path_of_a_function_counts_its_entries_per_step() -> None:
    document = analyze_traces(
        [read(_trace())], {"model.py": "model.py"}, timestamp="2026-01-01T00:00:00Z", workspace="ws"
    )
    # proj twice per step, the recursive rec once on each of its two paths
    assert _calls(document) == {(3,): 1.0, (3, 10): 2.0, (3, 20): 1.0, (3, 20, 20): 1.0}
    processed_document = postprocess(document, PipelineSettings(), source="t")
    assert _calls(processed_document) == _calls(document)
    result = processed_document["results"][0]
    names = {m["name"] for b in result["breakdowns"] for m in b["metrics"]}
    assert not [name for name in names if "call" in name]  # no metric: the gate never sees it


@pytest.mark.parametrize("name", CAPTURED)
def test_real_traces_count_every_frame_of_a_def_line(name: str) -> None:
    """Summed over a def line's stacks, the counts are the frames of that line that start
    in a step, per step, counted from the trace's own events."""
    file = f"{MODELS}/{name}.py"
    nesting = Nesting(trace_path(name))
    expected: dict[int, float] = defaultdict(float)
    for index, match in nesting.frames_of(file):
        if nesting.in_steps(nesting.slices[index]["ts"]):
            expected[int(match[2])] += 1 / nesting.steps()
    assert expected
    for statements in (False, True):
        document = processed(trace_path(name), statements=statements)
        found: dict[int, float] = defaultdict(float)
        for entity in document["results"][0]["entities"]:
            attributes = entity.get("attributes", {})
            if entity["kind"] == "code_stack" and attributes.get("file") == file:
                found[attributes["line"]] += attributes.get("calls_per_step", 0.0)
        assert {k: v for k, v in found.items() if v} == pytest.approx(dict(expected))
