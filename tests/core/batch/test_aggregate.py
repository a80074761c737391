"""The aggregate document (``core.batch.aggregate``): valid, read as a run, judged by runs."""

from __future__ import annotations

import statistics
from typing import Any

import pytest

from perfline.core import dominant_metric
from perfline.core.batch.aggregate import (
    AGGREGATION,
    FigureStats,
    GroupFigures,
    Summary,
    aggregate_document,
)
from perfline.core.batch.structure import run_structure
from perfline.core.compare import CompareSettings, compare_documents
from perfline.core.figure_text import label
from perfline.core.pipeline import is_postprocessed, postprocess
from tests.support.batch_runs import PORTABLE, processed


@pytest.fixture(scope="module")
def structure() -> dict[str, Any]:
    return run_structure(processed(PORTABLE))


def _stats(entity: str | None, metric: str, values: list[float]) -> FigureStats:
    ordered = sorted(values)
    middle = statistics.median(values)
    return FigureStats(
        entity_id=entity,
        metric=metric,
        unit="ms",
        qualifiers='{"confidence":"exact"}' if entity else "",
        samples=len(values),
        median=middle,
        p10=ordered[0],
        p90=ordered[-1],
        minimum=ordered[0],
        maximum=ordered[-1],
        mad=statistics.median(abs(v - middle) for v in values),
        runs=tuple(values),
    )


def _document(structure: dict[str, Any], line: str, values: list[float]) -> dict[str, Any]:
    group = GroupFigures(
        key=(("runtime", "executorch"), ("result", 0)),
        result=0,
        structure=structure,
        runs=len(values),
        structure_runs=len(values),
        figures=[
            _stats(None, "inference_time", [v + 1 for v in values]),
            _stats(line, "duration_avg", values),
            _stats("source_operator/not-in-this-graph", "duration_avg", values),
        ],
    )
    summary = Summary(
        "6f0b7e2c-4f5b-5c1e-9a55-3d0f2c1d7a10",
        "2026-12-01T00:00:00Z",
        len(values),
        1000,
        "notes",
        ("batch",),
        None,
    )
    return aggregate_document([group], summary)


def _line_id(structure: dict[str, Any], line: int) -> str:
    (found,) = [
        e["id"]
        for e in structure["results"][0]["entities"]
        if e["kind"] == "code_line" and e["attributes"]["line"] == line
    ]
    return str(found)


def test_the_document_is_valid_and_final(structure: dict[str, Any]) -> None:
    line = _line_id(structure, 26)
    document = _document(structure, line, [9.0, 9.5, 11.0, 9.2, 10.0])
    assert is_postprocessed(document)
    assert postprocess(document, source="aggregate") == document  # validated, unchanged
    result = document["results"][0]
    assert result["mode"] == "measured"
    (breakdown,) = result["breakdowns"]
    (metric,) = breakdown["metrics"]
    assert metric == {
        "name": "duration_avg",
        "unit": "ms",
        "value": 9.5,
        "aggregation": AGGREGATION,
        "samples": 5,
        "qualifiers": {"confidence": "exact"},
    }
    assert result["metrics"][0]["value"] == 10.5
    # the unavailable result metrics of the runs stay, with their reasons
    assert any(m.get("availability") == "unavailable" for m in result["metrics"])
    assert result["warnings"] == [
        "1 figure(s) of entities that are not in this result's entity graph were left out"
    ]
    own = document["extensions"]["perfline"]
    assert own["run_samples"] == [{line: {"duration_avg": [9.0, 9.5, 11.0, 9.2, 10.0]}}]
    assert own["result_run_samples"] == [{"inference_time": [10.0, 10.5, 12.0, 10.2, 11.0]}]
    (distribution,) = own["distributions"][0][line]
    assert (distribution["count"], distribution["p50"], distribution["max"]) == (5, 9.5, 11.0)
    assert distribution["mad"] == 0.5


def test_editors_read_the_median_with_its_run_count(structure: dict[str, Any]) -> None:
    line = _line_id(structure, 26)
    document = _document(structure, line, [9.0, 9.5, 11.0])
    (breakdown,) = document["results"][0]["breakdowns"]
    key = dominant_metric.MetricKey("duration_avg", "ms")
    value, statistic = dominant_metric.value_of(breakdown["metrics"], key)
    runs = dominant_metric.runs_summarised(breakdown["metrics"], key)
    assert (value, statistic, runs) == (9.5, "p50", 3)
    assert label(9.5, key, statistic, 10.0, runs=runs) == "9.50 ms p50 n=3 · 95%"
    # a figure of one run (aggregation "sum", samples of its executions) shows no n
    single = {
        "name": "duration_avg",
        "unit": "ms",
        "value": 9.5,
        "aggregation": "sum",
        "samples": 40,
    }
    assert dominant_metric.runs_summarised([single], key) is None


def test_two_aggregates_compare_by_their_runs(structure: dict[str, Any]) -> None:
    line = _line_id(structure, 26)
    before = [9.0 + 0.01 * k for k in range(30)]
    slower = [v * 1.3 for v in before]
    comparison = compare_documents(
        _document(structure, line, before),
        _document(structure, line, slower),
        CompareSettings(),
        base_source="last week",
        new_source="this week",
    )
    (pair,) = comparison.results
    deltas = {entity.base_id: entity for entity in pair.entities}
    (delta,) = [m for m in deltas[line].metrics if m.name == "duration_avg"]
    assert delta.method == "samples" and (delta.base_runs, delta.new_runs) == (30, 30)
    assert delta.verdict == "regression" and delta.significant
    assert delta.base == statistics.median(before) and delta.new == statistics.median(slower)
    same = compare_documents(
        _document(structure, line, before),
        _document(structure, line, list(reversed(before))),
        CompareSettings(),
    )
    (pair,) = same.results
    assert not any(m.significant for e in pair.entities for m in e.metrics)
