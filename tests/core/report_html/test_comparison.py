"""The compare view's data: every delta against the two documents' own figures.

The expected figures are read straight off the processed documents (each code line's and
operator's breakdown), never from the compare core; the significances are held against what
is known about the runs: the generated pair (``compare_pair.py``) slows the operators of one
line only, so that line must be the only one coloured, and with 3 runs a side no change can be
significant at all. A call line (``x = self.blocks(x)``: its figure holds the lines it calls)
changes with them; where they account for its operators its change is counted there, so it
is shown unchanged with an "inclusive" note. Call lines and the lines they call are found
here by walking the documents' code stacks (``_documents.walk_lines``), the DS-CNN's also
from ExecuTorch's Inspector reading of the stack traces.
"""

from __future__ import annotations

import gc
import json
import random
from collections.abc import Mapping
from typing import Any

import pytest

from perfline.core import figure_text
from perfline.core.compare import CompareSettings, compare_documents
from perfline.core.compare.deltas import MetricDelta
from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.core.report_html import render_report_html
from perfline.core.report_html.comparison import SIGNIFICANCES, judge
from perfline.core.report_html.payload import build_payload
from perfline.core.report_html.source_text import SourceText
from tests.support.documents import nx_document
from tests.support.html_documents import (
    RECORDED,
    SOURCE,
    WalkedLine,
    accounted_for,
    example_pair,
    inspector_stack_lines,
    walk_lines,
)

SLOWER_LINE = 26


def _figures(document: Mapping[str, Any], name: str, unit: str) -> dict[str, float]:
    """entity id -> its first figure ``name`` [unit] without identifying qualifiers."""
    found: dict[str, float] = {}
    for breakdown in document["results"][0]["breakdowns"]:
        for metric in breakdown["metrics"]:
            qualifiers = {
                k: v for k, v in (metric.get("qualifiers") or {}).items() if k != "confidence"
            }
            if metric["name"] == name and metric["unit"] == unit and not qualifiers:
                if isinstance(metric.get("value"), int | float):
                    found.setdefault(breakdown["entity_id"], float(metric["value"]))
                break
    return found


def _lines(document: Mapping[str, Any]) -> dict[tuple[str, int], str]:
    """(file, line) -> code line id."""
    return {
        (e["attributes"]["file"], e["attributes"]["line"]): e["id"]
        for e in document["results"][0]["entities"]
        if e["kind"] == "code_line"
    }


def _view(payload: Mapping[str, Any]) -> dict[str, Any]:
    (view,) = payload["views"]
    result: dict[str, Any] = view
    return result


def _rows(view: Mapping[str, Any]) -> dict[str, list[Any]]:
    """entity id -> its delta row."""
    ids = view["entities"]["ids"]
    return {ids[row[0]]: row for row in view["comparison"]["deltas"]}


def _significance(row: list[Any]) -> str:
    return SIGNIFICANCES[row[4]]


@pytest.fixture(scope="module")
def pair() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    base, new = example_pair()
    comparison = compare_documents(base, new, base_source="base", new_source="new")
    sources = {RECORDED: SourceText("dscnn.py", SOURCE.read_text())}
    return base, new, build_payload(new, sources, comparison=comparison)


def test_line_deltas_are_the_documents_figures(
    pair: tuple[dict[str, Any], dict[str, Any], dict[str, Any]],
) -> None:
    base, new, payload = pair
    view = _view(payload)
    assert view["metric"]["name"] == "duration_avg" and view["metric"]["unit"] == "ms"
    base_values = _figures(base, "duration_avg", "ms")
    new_values = _figures(new, "duration_avg", "ms")
    base_lines, new_lines = _lines(base), _lines(new)
    rows = _rows(view)
    checked = 0
    for place, new_id in new_lines.items():
        if new_id not in new_values:
            assert new_id not in rows or rows[new_id][1] is None or rows[new_id][2] is None
            continue
        expected_base = base_values[base_lines[place]]
        expected_new = new_values[new_id]
        row = rows[new_id]
        assert row[1] == pytest.approx(expected_base, rel=1e-6)
        assert row[2] == pytest.approx(expected_new, rel=1e-6)
        assert row[3] == pytest.approx(expected_new - expected_base, rel=1e-5, abs=1e-9)
        checked += 1
    # every line some operator's stack passes through (the Inspector's reading), line 41's
    # inclusive figure among them
    assert checked == len(inspector_stack_lines()) == 8


def test_only_the_slowed_line_is_coloured(
    pair: tuple[dict[str, Any], dict[str, Any], dict[str, Any]],
) -> None:
    base, new, payload = pair
    view = _view(payload)
    rows = _rows(view)
    by_line = {line: rows[i] for (_, line), i in _lines(new).items() if i in rows}
    assert _significance(by_line.pop(SLOWER_LINE)) == "regressed"
    # The call line holds line 26: it changed as much, and is shown unchanged, "inclusive".
    calls = {line: called for line, called in inspector_stack_lines().items() if called}
    assert calls == {41: {24, 25, 26, 27}}
    notes = view["comparison"]["strings"]
    base_values = _figures(base, "duration_avg", "ms")
    new_values = _figures(new, "duration_avg", "ms")
    walked = {side: walk_lines(document) for side, document in (("base", base), ("new", new))}
    for line, called in calls.items():
        for side, values in (("base", base_values), ("new", new_values)):
            lines = walked[side]
            assert lines[(RECORDED, line)].calls == {(RECORDED, n) for n in called}
            assert accounted_for(lines[(RECORDED, line)], lines, set(values))
        row = by_line.pop(line)
        callee_delta = sum(
            new_values[walked["new"][(RECORDED, n)].entity_id]
            - base_values[walked["base"][(RECORDED, n)].entity_id]
            for n in called
        )
        assert row[3] == pytest.approx(callee_delta, rel=1e-5)
        assert row[3] > 0.2 * row[1]  # line 26's regression moves it as much
        assert _significance(row) == "unchanged"
        assert notes[row[5]] == "inclusive: the lines this line calls account for the change"
    # Every other line changed (new draws of the same durations), within the noise.
    assert all(row[3] != 0 for row in by_line.values())
    assert {_significance(row) for row in by_line.values()} == {"unchanged"}
    assert view["comparison"]["lines"] == {
        "improved": 0,
        "regressed": 1,
        "unchanged": len(by_line) + len(calls),
        "inconclusive": 0,
    }
    assert len(by_line) + len(calls) == len(inspector_stack_lines()) - 1
    # Operators: exactly the ones the page lists under line 26 regressed, nothing improved.
    ids, names = view["entities"]["ids"], view["entities"]["names"]
    (file,) = view["files"]
    (line_26,) = [line for line in file["lines"] if line[0] == SLOWER_LINE]
    under = {ids[ref] for ref in line_26[5]}
    operators = {
        entity: row
        for entity, row in rows.items()
        if view["entities"]["kinds"][view["entities"]["kind"][row[0]]] == "source_operator"
    }
    regressed = {e for e, row in operators.items() if _significance(row) == "regressed"}
    assert regressed == under and len(under) == 4
    assert all(names[rows[e][0]] is None or "conv2d" in str(names[rows[e][0]]) for e in under)
    assert not [row for row in operators.values() if _significance(row) == "improved"]


def test_model_metrics(pair: tuple[dict[str, Any], dict[str, Any], dict[str, Any]]) -> None:
    base, new, payload = pair
    model = {row[0]: row for row in _view(payload)["comparison"]["model"]}

    def metric(document: Mapping[str, Any], name: str) -> float:
        (value,) = [m["value"] for m in document["results"][0]["metrics"] if m["name"] == name]
        return float(value)

    # [name, unit, base, new, change, significance, note, p]: the figures as figure_text
    # writes them
    row = model["inference_time"]
    assert row[1] == "ms"
    base_time, new_time = metric(base, "inference_time"), metric(new, "inference_time")
    assert row[2] == figure_text.format_value(base_time, "ms")
    assert row[3] == figure_text.format_value(new_time, "ms")
    relative = figure_text.format_relative((new_time - base_time) / base_time)
    difference = figure_text.format_difference(new_time - base_time, "ms")
    assert row[4] == f"▲ {difference} ({relative})"
    # 1.25x on the line that holds 80% of the time: a slower model, 30 runs a side.
    assert SIGNIFICANCES[row[5]] == "regressed" and 0.1 < new_time / base_time - 1 < 0.3
    (compared,) = compare_documents(base, new).results
    (time_delta,) = [d for d in compared.model.metrics if d.name == "inference_time"]
    assert time_delta.p_adjusted is not None
    assert row[7] == figure_text.format_p_value(time_delta.p_adjusted)
    per_second = model["inferences_per_second"]
    assert per_second[4].startswith("▼ -")  # fewer is worse: a regression, marked ▼
    assert SIGNIFICANCES[per_second[5]] == "regressed"
    assert "total_cycles" not in model  # no value in either run: nothing to compare


def test_three_runs_cannot_call_anything() -> None:
    """3 runs a side: the rank test's smallest p-value is 0.1, so even the 25% slower line
    stays uncoloured, and what changed is inconclusive, never 'unchanged'."""
    base, new = example_pair(runs=3)
    comparison = compare_documents(base, new)
    view = _view(build_payload(new, {}, comparison=comparison))
    rows = _rows(view)
    lines = _lines(new)
    line_26 = rows[lines[(RECORDED, SLOWER_LINE)]]
    assert line_26[2] > line_26[1] * 1.1
    significances = {_significance(rows[i]) for i in lines.values() if i in rows}
    assert significances <= {"inconclusive", "unchanged"} and _significance(line_26) == (
        "inconclusive"
    )
    notes = view["comparison"]["strings"]
    assert notes[line_26[5]].startswith("too few runs to tell (Mann-Whitney U over 3 and 3 runs")
    assert view["comparison"]["lines"]["regressed"] == view["comparison"]["lines"]["improved"] == 0


def _nx_pair(chains: int, extra: int) -> tuple[dict[str, Any], dict[str, Any]]:
    base = postprocess(nx_document(chains), PipelineSettings())
    new = postprocess(nx_document(chains + extra), PipelineSettings())
    return base, new


def _with_figures(document: Mapping[str, Any]) -> set[tuple[Any, ...]]:
    """Alignment keys (code lines by place, other entities by id) of entities with a figure
    (code stacks left out: the page never mentions them)."""
    result = document["results"][0]
    carrying = {b["entity_id"] for b in result["breakdowns"] if b["metrics"]}
    keys: set[tuple[Any, ...]] = set()
    for entity in result["entities"]:
        if entity["id"] not in carrying or entity["kind"] == "code_stack":
            continue
        if entity["kind"] == "code_line":
            keys.add(("line", entity["attributes"]["file"], entity["attributes"]["line"]))
        else:
            keys.add(("id", entity["id"]))
    return keys


def _other(status: str) -> str:
    return {"added": "removed", "removed": "added"}[status]


def test_added_and_removed_entities_are_listed() -> None:
    base, new = _nx_pair(200, 10)
    for old, current, status in ((base, new, "added"), (new, base, "removed")):
        comparison = compare_documents(old, current)
        view = _view(build_payload(current, {}, comparison=comparison))
        listed = view["comparison"]
        expected = _with_figures(new) - _with_figures(base)
        assert expected, "ten more chains bring new entities with figures"
        shown = {
            ("line", row[2], row[3]) if listed["strings"][row[0]] == "code_line" else row[1]
            for row in listed[status]
        }
        lines = {key for key in expected if key[0] == "line"}
        assert lines and lines <= shown
        assert listed["counts"]["chain"] == {"common": 200, status: 10, _other(status): 0}
        other = _other(status)
        assert listed[f"{other}_count"] == 0 and listed[other] == []
        # Code stacks are aligned too but never shown: the count holds what the page lists.
        assert listed[f"{status}_count"] == len(expected) + sum(
            1 for row in listed[status] if listed["strings"][row[0]] == "code_stack"
        )
        if status == "added":  # shown on the page as new: no baseline figure, not coloured
            rows = _rows(view)
            new_lines = _lines(current)
            for _, file, line in lines:
                row = rows[new_lines[(file, line)]]
                assert row[1] is None and SIGNIFICANCES[row[4]] == "inconclusive"


def _scaled(document: dict[str, Any], chains: set[str], factor: float) -> dict[str, Any]:
    copy: dict[str, Any] = json.loads(json.dumps(document))
    for breakdown in copy["results"][0]["breakdowns"]:
        if breakdown["entity_id"] in chains:
            for metric in breakdown["metrics"]:
                metric["value"] = round(metric["value"] * factor)
    return copy


def test_estimates_exactly() -> None:
    """Estimates: every change is the comparison's call (threshold 0), so slowed chains make
    their lines regress, sped-up ones improve, and untouched lines stay uncoloured."""
    raw = nx_document(300)
    chains = [b["entity_id"] for b in raw["results"][0]["breakdowns"] if "chain/" in b["entity_id"]]
    rng = random.Random(3)
    slower, faster = set(rng.sample(chains, 20)), set()
    faster = set(rng.sample([c for c in chains if c not in slower], 20))
    base = postprocess(raw, PipelineSettings())
    new = postprocess(_scaled(_scaled(raw, slower, 1.5), faster, 0.5), PipelineSettings())
    comparison = compare_documents(base, new, CompareSettings())
    view = _view(build_payload(new, {}, comparison=comparison))
    rows = _rows(view)
    base_values = _figures(base, "total_cycles", "cycles")
    new_values = _figures(new, "total_cycles", "cycles")
    base_lines = _lines(base)
    walked = walk_lines(base), walk_lines(new)
    coloured = inclusive = 0
    notes = view["comparison"]["strings"]
    for place, new_id in _lines(new).items():
        if new_id not in rows or new_id not in new_values:
            continue
        row = rows[new_id]
        expected_base, expected_new = base_values[base_lines[place]], new_values[new_id]
        assert (row[1], row[2]) == (expected_base, expected_new)
        expected = (
            "regressed"
            if expected_new > expected_base
            else "improved"
            if expected_new < expected_base
            else "unchanged"
        )
        if expected != "unchanged" and _explained(place, walked, (base_values, new_values)):
            # a call line whose callees account for it: its change is theirs, and exactly
            # their sum; counted there, shown unchanged here
            callees = [
                new_values[walked[1][c].entity_id] - base_values[walked[0][c].entity_id]
                for c in walked[1][place].calls
            ]
            assert expected_new - expected_base == sum(callees)
            assert any(callees)
            assert _significance(row) == "unchanged"
            assert notes[row[5]] == "inclusive: the lines this line calls account for the change"
            inclusive += 1
            continue
        assert _significance(row) == expected
        coloured += expected != "unchanged"
    assert coloured >= 10 and inclusive >= 10
    shown = [chain for chain in slower | faster if chain in rows]  # the chart's units
    assert len(shown) >= 20
    for chain in shown:
        assert _significance(rows[chain]) == ("regressed" if chain in slower else "improved")


def _explained(
    place: tuple[str, int],
    walked: tuple[dict[tuple[str, int], WalkedLine], dict[tuple[str, int], WalkedLine]],
    values: tuple[dict[str, float], dict[str, float]],
) -> bool:
    """Whether the code line at ``place`` is a call line whose callees account for it in
    both runs."""
    return all(
        place in lines and accounted_for(lines[place], lines, set(figures))
        for lines, figures in zip(walked, values, strict=True)
    )


def test_judge_names_what_it_cannot_tell() -> None:
    settings = CompareSettings()
    assert judge(
        MetricDelta("x", "", "ms", 1.0, None, "incomparable", "unchanged", False), 1, settings
    ) == ("inconclusive", "the runs state this figure in different units")
    assert judge(MetricDelta("x", "", "ms", None, 2.0, "one-sided", "added", False), 1, settings)[
        0
    ] == ("inconclusive")
    noise = MetricDelta("x", "", "ms", 1.0, 1.2, "samples", "noise", False, 0.2, 1.0, 10, 10)
    assert judge(noise, 7, settings)[0] == "unchanged"  # 10 + 10 runs could have told
    assert judge(noise._replace(base_runs=3, new_runs=3), 1, settings)[0] == "inconclusive"
    # 5 + 5 runs: smallest p 2/252 < 0.05 alone, but not over 7 lines with Holm.
    five = noise._replace(base_runs=5, new_runs=5)
    assert judge(five, 1, settings)[0] == "unchanged"
    assert judge(five, 7, settings)[0] == "inconclusive"
    assert judge(five, 7, CompareSettings(correction="bh"))[0] == "unchanged"
    equal = noise._replace(new=1.0, verdict="unchanged", base_runs=3, new_runs=3)
    assert judge(equal, 1, settings)[0] == "unchanged"  # the same figure: not 'cannot tell'
    # A call line's change its callees account for: counted there, unchanged here; within
    # the noise it is judged as any figure (no change to account for).
    called = noise._replace(verdict="regression", significant=True, explained=True)
    assert judge(called, 7, settings) == (
        "unchanged",
        "inclusive: the lines this line calls account for the change",
    )
    assert judge(noise._replace(explained=True), 7, settings) == judge(noise, 7, settings)
    assert judge(equal._replace(explained=True), 1, settings) == judge(equal, 1, settings)


def test_page_carries_the_comparison_and_no_cyclic_garbage(
    pair: tuple[dict[str, Any], dict[str, Any], dict[str, Any]],
) -> None:
    base, new, _ = pair
    was = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        comparison = compare_documents(base, new, base_source="main", new_source="branch")
        page = render_report_html(new, {}, comparison=comparison, nonce="abcdefgh12")
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()
    data = json.loads(
        page.split('id="perfline-data">', 1)[1].split("</script>", 1)[0].replace("\\u003c", "<")
    )
    assert data["comparison"]["baseline"] == "main" and data["comparison"]["current"] == "branch"
    assert data["comparison"]["significances"] == list(SIGNIFICANCES)
    assert "'nonce-abcdefgh12'" in page and "'unsafe-inline'" not in page
