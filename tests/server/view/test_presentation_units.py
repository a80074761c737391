"""Figures, labels, path resolution, edit tracking and code blocks, without a daemon."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfline.core import dominant_metric, figure_text
from perfline.core.workspace_config import PathMap
from perfline.server.paths import PathResolver
from perfline.server.view.code_blocks import LensLine, code_blocks
from perfline.server.view.edit_tracking import LineTracker
from perfline.server.view.line_details import MissingFigure


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (1834, "cycles", "1.8k cycles"),
        (12_400, "cycles", "12k cycles"),
        (950, "cycles", "950 cycles"),
        (3_400_000, "cycles", "3.4M cycles"),
        (0.4213, "ms", "0.42 ms"),
        (12.34, "ms", "12.3 ms"),
        (0.004, "ms", "0.004 ms"),
    ],
)
def test_format_value(value: float, unit: str, text: str) -> None:
    assert figure_text.format_value(value, unit) == text


def test_labels_match_the_issue_examples() -> None:
    cycles = dominant_metric.MetricKey("op_cycles", "cycles")
    assert figure_text.label(1800, cycles, None, 13_846) == "1.8k cycles · 13%"
    ms = dominant_metric.MetricKey("latency", "ms")
    assert figure_text.label(0.42, ms, "p50", 2.0) == "0.42 ms p50 · 21%"
    assert figure_text.label(0.001, ms, None, 2.0) == "0.001 ms · <1%"
    assert figure_text.label(5, cycles, None, None) == "5 cycles"


def test_metric_choice_prefers_coverage_then_kind() -> None:
    avg = {"name": "duration_avg", "unit": "ms", "value": 1.0}
    p50 = {"name": "duration_p50", "unit": "ms", "value": 1.0}
    cycles = {"name": "op_cycles", "unit": "cycles", "value": 5}
    assert dominant_metric.choose_metric([[avg], [avg], [avg, p50]]) == dominant_metric.MetricKey(
        "duration_avg", "ms"
    )
    assert dominant_metric.choose_metric([[avg, p50], [avg, p50]]) == dominant_metric.MetricKey(
        "duration_p50", "ms"
    )
    assert dominant_metric.choose_metric([[avg, cycles]]) == dominant_metric.MetricKey(
        "op_cycles", "cycles"
    )
    assert dominant_metric.choose_metric(
        [[avg, cycles]], "duration_avg"
    ) == dominant_metric.MetricKey("duration_avg", "ms")
    unavailable = {"name": "x", "unit": "ms", "availability": "unavailable", "reason": "r"}
    assert dominant_metric.choose_metric([[unavailable]]) is None


def test_model_total_counts_top_entities_once() -> None:
    key = dominant_metric.MetricKey("op_cycles", "cycles")
    result = {
        "entities": [
            {"id": "cascade", "kind": "cascade", "name": "c", "child_ids": ["chain1", "chain2"]},
            {"id": "chain1", "kind": "chain", "name": "1"},
            {"id": "chain2", "kind": "chain", "name": "2"},
            {"id": "line", "kind": "code_line", "name": "l"},
        ],
        "breakdowns": [
            {
                "entity_id": "cascade",
                "metrics": [{"name": "op_cycles", "unit": "cycles", "value": 30}],
            },
            {
                "entity_id": "chain1",
                "metrics": [{"name": "op_cycles", "unit": "cycles", "value": 10}],
            },
            {
                "entity_id": "chain2",
                "metrics": [{"name": "op_cycles", "unit": "cycles", "value": 20}],
            },
            {
                "entity_id": "line",
                "metrics": [{"name": "op_cycles", "unit": "cycles", "value": 99}],
            },
        ],
    }
    assert dominant_metric.model_total(result, key) == 30
    with_model_metric = {
        **result,
        "metrics": [{"name": "op_cycles", "unit": "cycles", "value": 40}],
    }
    assert dominant_metric.model_total(with_model_metric, key) == 40


def test_model_total_skips_entities_below_a_carrying_one_at_any_depth() -> None:
    """Given the children or not: a chain under a carrying segment (through a cascade
    without the metric, linked by ``parent_ids``) is not counted."""
    from perfline.core.graph import build_graph

    key = dominant_metric.MetricKey("op_cycles", "cycles")
    entities = [
        {"id": "segment", "kind": "segment", "name": "s"},
        {"id": "cascade", "kind": "cascade", "name": "c", "parent_ids": ["segment"]},
        {"id": "chain", "kind": "chain", "name": "1", "parent_ids": ["cascade"]},
        {"id": "other", "kind": "chain", "name": "2"},
    ]
    cycles = [{"name": "op_cycles", "unit": "cycles", "value": 5}]
    result = {
        "entities": entities,
        "breakdowns": [
            {"entity_id": "segment", "metrics": [{**cycles[0], "value": 100}]},
            {"entity_id": "chain", "metrics": cycles},
            {"entity_id": "other", "metrics": cycles},
        ],
    }
    graph = build_graph(entities)
    assert dominant_metric.model_total(result, key) == 105
    assert dominant_metric.model_total(result, key, children=graph.children) == 105


def test_path_resolution(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    model = tmp_path / "src" / "pkg" / "model.py"
    model.write_text("x = 1\n")
    files = ["src/pkg/model.py"]
    mapped = PathResolver(tmp_path, [PathMap("/home/dev/proj/", "src")], ["."], files)
    assert mapped.resolve("/home/dev/proj/pkg/model.py") == model.resolve()
    rooted = PathResolver(tmp_path, [], ["src"], files)
    assert rooted.resolve("pkg/model.py") == model.resolve()
    by_suffix = PathResolver(tmp_path, [], ["."], files)
    assert by_suffix.resolve("/elsewhere/pkg/model.py") == model.resolve()
    assert by_suffix.resolve(str(model)) == model.resolve()
    assert by_suffix.resolve("/x/site-packages/pkg/model.py") is None
    assert by_suffix.resolve("/x/other.py") is None


def test_path_resolution_refuses_ambiguous_suffixes(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "model.py").write_text("")
    resolver = PathResolver(tmp_path, [], ["."], ["a/model.py", "b/model.py"])
    assert resolver.resolve("/far/away/model.py") is None
    assert resolver.resolve("/far/b/model.py") == (tmp_path / "b" / "model.py").resolve()


def test_line_tracker_ranges_and_full_text() -> None:
    text = "a\nb\nc\nd\n"
    tracker = LineTracker(text)
    tracker.apply_range((0, 0), (0, 0), "x\ny\n", "x\ny\na\nb\nc\nd\n")
    assert [tracker.current(i) for i in range(4)] == [2, 3, 4, 5]
    assert tracker.edited
    tracker.apply_range((3, 1), (4, 1), "", "x\ny\na\nbc\nd\n")  # join b and c
    assert [tracker.current(i) for i in range(4)] == [2, 3, None, 4]
    tracker.reset("x\ny\na\nbc\nd\n")
    assert tracker.current(3) == 3 and not tracker.edited
    full = LineTracker("one\ntwo\nthree\n")
    full.apply_full("zero\none\nthree\n")
    assert [full.current(i) for i in range(3)] == [1, None, 2]


def test_code_blocks_sum_function_lines_and_module_classes() -> None:
    source = (
        "import torch.nn as nn\n"  # 1
        "class Block(nn.Module):\n"  # 2
        "    def forward(self, x):\n"  # 3
        "        x = a(x)\n"  # 4
        "        return b(x)\n"  # 5
        "class Plain:\n"  # 6
        "    def f(self):\n"  # 7
        "        return c()\n"  # 8
    )
    key = dominant_metric.MetricKey("op_cycles", "cycles")
    values = {4: 100.0, 5: 50.0, 8: 10.0}

    def figure_at(line: int) -> LensLine | None:
        return LensLine(values[line], key, 1000.0) if line in values else None

    blocks = code_blocks(source, figure_at)
    assert [(b.kind, b.name, b.line, b.end_line, b.total) for b in blocks] == [
        ("class", "nn.Module Block", 2, 5, 150.0),
        ("function", "Block.forward", 3, 5, 150.0),
        ("function", "Plain.f", 7, 8, 10.0),
    ]
    assert blocks[0].title == "nn.Module Block: 150 cycles total · 15% of the model"
    assert code_blocks("def broken(:\n", figure_at) == []


def test_code_blocks_name_the_covered_lines_left_out_of_a_total() -> None:
    source = (
        "import torch.nn as nn\n"  # 1
        "class Net(nn.Module):\n"  # 2
        "    def forward(self, x):\n"  # 3
        "        x = a(x)\n"  # 4
        "        x = self.blocks(x)\n"  # 5: covered by the result, no figure (a conflict)
        "        return b(x)\n"  # 6
    )
    key = dominant_metric.MetricKey("op_cycles", "cycles")
    values = {4: 100.0, 6: 50.0}
    conflict = MissingFigure("conflict", "No figure: conflicting dominant_metric.")

    def figure_at(line: int) -> LensLine | None:
        if line == 5:
            return LensLine(None, key, None, missing=conflict)
        return LensLine(values[line], key, 1000.0) if line in values else None

    titles = {b.line: b.title for b in code_blocks(source, figure_at)}
    # Not a total: no share of the model is claimed for it.
    assert titles[3] == (
        "Net.forward: 150 cycles on the lines with figures · "
        "no figure on line 5 (conflicting figures)"
    )
    assert titles[2].endswith(" · no figure on line 5 (conflicting figures)")
