"""Hint settings: reading (nesting, validation, fallbacks) and label rendering."""

from __future__ import annotations

from perfline.core.dominant_metric import MetricKey
from perfline.server.line_entries import LineEntry, LineFacts
from perfline.server.view.hint_settings import (
    DEFAULT_FORMAT,
    HintSettings,
    read_settings,
    section_of,
)
from perfline.server.view.line_labels import LabelFigure, fill, lens_figure, line_label


def _entry(value: float, total: float, metrics: list[dict[str, object]]) -> LineEntry:
    facts = LineFacts(
        job="j",
        result_index=0,
        entity_id="code_line/x",
        name="model.py:1",
        recorded_file="/m.py",
        line=1,
        stacks=(),
        source_operators=(),
        behind=(),
        placements=(),
        producer="p",
        mode=None,
        kind="performance",
        file="/m.py",
    )
    return LineEntry(
        facts,
        metrics=tuple(metrics),
        value=value,
        statistic=None,
        metric=MetricKey("op_cycles", "cycles"),
        total=total,
    )


def test_section_is_found_however_it_is_nested() -> None:
    hints = {"hints": {"metric": "m"}}
    assert section_of({"settings": {"perfline": hints}}) == hints
    assert section_of({"perfline": hints}) == hints
    assert section_of(hints) == hints
    assert section_of({"other": {}}) is None
    assert section_of(None) is None
    assert section_of([1]) is None


def test_valid_settings_are_read() -> None:
    hints = {"metric": "npu", "format": "{value} {share}", "minShare": 5}
    readout = read_settings({"hints": hints})
    assert readout.settings == HintSettings("npu", "{value} {share}", 5.0)
    assert readout.problems == ()
    assert read_settings({"hints": {"metric": "auto"}}).settings.is_default
    assert read_settings(None).settings == HintSettings()


def test_invalid_values_fall_back_with_a_problem_each() -> None:
    readout = read_settings(
        {"hints": {"metric": 3, "format": "{value} {bogus}", "minShare": 250, "extra": 1}}
    )
    assert readout.settings == HintSettings(None, DEFAULT_FORMAT, 100.0)
    assert len(readout.problems) == 3
    assert any("{bogus}" in p for p in readout.problems)
    assert any("outside 0-100" in p for p in readout.problems)
    no_value = read_settings({"hints": {"format": "{share}", "minShare": True}})
    assert no_value.settings == HintSettings()
    assert len(no_value.problems) == 2
    assert read_settings({"hints": "x"}).problems


def test_template_drops_separators_of_an_unknown_share() -> None:
    figure = LabelFigure(1800.0, "cycles", "op_cycles", None)
    assert fill("{value} · {share}", figure) == "1.8k cycles"
    assert fill("{metric}: {value} ({share})", figure) == "op_cycles: 1.8k cycles"
    assert fill("{value} [{share}]", LabelFigure(5.0, "ms", "t p50", 0.25)) == "5.00 ms [25%]"


def test_labels_and_lens_figures_follow_the_settings() -> None:
    entry = _entry(600, 1000, [{"name": "op_cycles", "unit": "cycles", "value": 600}])
    other = _entry(
        100,
        1000,
        [
            {"name": "op_cycles", "unit": "cycles", "value": 100},
            {"name": "macs", "unit": "count", "value": 7},
        ],
    )
    totals = {MetricKey("macs", "count"): 70.0}

    def total_of(_: LineEntry, key: MetricKey) -> float | None:
        return totals.get(key)

    assert line_label([entry], HintSettings(), total_of) == "600 cycles · 60%"
    macs = HintSettings(metric="macs")
    assert line_label([entry], macs, total_of) is None  # the line has no such metric
    assert line_label([other], macs, total_of) == "7 count · 10%"
    assert line_label([other], HintSettings(min_share=20), total_of) is None
    assert line_label([entry], HintSettings(min_share=20), total_of) == "600 cycles · 60%"
    assert lens_figure([other], macs, total_of) == (7.0, MetricKey("macs", "count"), 70.0)
    assert lens_figure([entry], HintSettings(), total_of) == (
        600,
        MetricKey("op_cycles", "cycles"),
        1000,
    )
