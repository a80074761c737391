"""The report's figure labels: written out by hand, and the same as the editor's."""

from __future__ import annotations

from typing import Any

import pytest

from perfline.core import dominant_metric, figure_text
from perfline.core.report_html.labels import (
    Metric,
    compact,
    format_share,
    format_value,
    label,
)
from perfline.core.report_html.result_index import index_result
from tests.support.html_documents import example_document, nx_processed


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (9.634397, "ms", "9.63 ms"),
        (0.0027, "ms", "0.0027 ms"),
        (0.0899887, "ms", "0.09 ms"),
        (0.0991, "ms", "0.099 ms"),
        (0.029, "ms", "0.029 ms"),
        (123.4, "ms", "123 ms"),
        (12.34, "us", "12.3 us"),
        (0, "s", "0 s"),
        (1834, "cycles", "1.8k cycles"),
        (12000, "cycles", "12k cycles"),
        (2446140, "cycles", "2.4M cycles"),
        (950, "bytes", "950 bytes"),
        (0.5, "", "0.5"),
    ],
)
def test_format_value(value: float, unit: str, text: str) -> None:
    assert format_value(value, unit) == text


def test_compact_share_and_label() -> None:
    assert compact(3.4e6) == "3.4M"
    assert compact(7e9) == "7.0G"
    assert format_share(0.5, 100) == "<1%"
    assert format_share(81.2, 100) == "81%"
    assert format_share(1, 0) is None
    metric = Metric("duration_avg", "ms", "avg")
    assert label(9.634397, metric, 11.9393676) == "9.63 ms avg · 81%"
    assert label(5, Metric("op_cycles", "cycles"), None) == "5 cycles"


def _editor_labels(result: dict[str, Any]) -> dict[str, str]:
    entities = {e["id"]: e for e in result["entities"]}
    lines = [e["id"] for e in result["entities"] if e["kind"] == "code_line"]
    metrics = {b["entity_id"]: b["metrics"] for b in result["breakdowns"]}
    key = dominant_metric.choose_metric([metrics.get(line, []) for line in lines])
    assert key is not None
    total = dominant_metric.model_total(result, key, entities=entities)
    out = {}
    for line in lines:
        value, statistic = dominant_metric.value_of(metrics.get(line, []), key)
        if value is not None:
            out[line] = figure_text.label(value, key, statistic, total)
    return out


@pytest.mark.parametrize("which", ["example", "nx-200"])
def test_labels_agree_with_the_editor(which: str) -> None:
    document = example_document() if which == "example" else nx_processed(200)
    result = document["results"][0]
    index = index_result(result, 0)
    assert index.metric is not None
    ours = {
        line: label(index.values[line], index.metric, index.total)
        for line in index.graph.ids
        if index.kind(line) == "code_line" and line in index.values
    }
    assert ours == _editor_labels(result)
    assert len(ours) > 5
