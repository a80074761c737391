"""The view layer's compare decisions, without a daemon: hint changes, the hover's rows,
lens totals, regression warnings, settings, the side-by-side table and the change text.

The comparisons are real: the example's processed DS-CNN result against the processed
result of the second real ETDump of the same program (``compare_documents``), handed to a
``ConnectionView`` through a stand-in comparison source; the expected changes come from
the Inspector's readings (``compare_data``)."""

from __future__ import annotations

import copy
import dataclasses
import shutil
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from perfline.core import figure_text
from perfline.core.compare import compare_documents
from perfline.core.compare.deltas import CompareSettings, MetricDelta
from perfline.server.baselines.compare_service import Baseline, BaselineProblem, JobComparison
from perfline.server.engine import Engine
from perfline.server.line_index import build_line_index
from perfline.server.view.compare_options import CompareOptions, read_compare_options
from perfline.server.view.connection import ConnectionView
from perfline.server.view.engine_surface import EngineSurface
from perfline.server.view.line_deltas import change
from perfline.server.view.line_labels import LabelFigure, fill, with_delta_slot
from perfline.server.view.runtime_columns import Column, runtime_table
from tests.server.view.stub_engine import StubEngine, StubJob, StubResult
from tests.support.compare_data import (
    FIRST_INSPECTOR,
    RERUN,
    RERUN_INSPECTOR,
    inspector_calls,
    inspector_inclusive_runs,
    inspector_line_runs,
    mean,
    percent_of,
    significant_lines,
)
from tests.support.server_helpers import KWS_FIGURE_LINES, copy_kws

JOB = "dscnn-measured"


def _processed(root: Path) -> dict[str, Any]:
    engine = Engine(root, debounce=0.0, settle=0.0)
    engine.start()
    try:
        assert engine.wait_idle(120)
        good = engine.result(JOB)
        assert good is not None
        return copy.deepcopy(dict(good.document))
    finally:
        engine.close()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Any, Any]]:
    """The example workspace, its processed result, and the rerun's."""
    root = copy_kws(tmp_path_factory.mktemp("kws"))
    other = copy_kws(tmp_path_factory.mktemp("rerun"))
    shutil.copyfile(RERUN, other / "dscnn_portable.etdump")
    yield root, _processed(root), _processed(other)


class _Source:
    """A comparison source with fixed answers."""

    def __init__(
        self, found: JobComparison | None, problems: Sequence[BaselineProblem] = ()
    ) -> None:
        self.found = found
        self._problems = list(problems)
        self.version = 1
        self.asked: list[CompareSettings] = []

    def comparison(
        self, job: str, generation: int, settings: CompareSettings
    ) -> JobComparison | None:
        self.asked.append(settings)
        if self.found is None or self.found.generation != generation:
            return None
        return self.found

    def problems(self) -> list[BaselineProblem]:
        return self._problems


BASELINE = Baseline("command", ".perfline/baselines/dscnn-measured/mlia-output.json", "ab" * 32)


def _view(
    root: Path, base: Mapping[str, Any], new: Mapping[str, Any], generation: int = 1
) -> tuple[ConnectionView, str, _Source]:
    source = root / "dscnn.py"

    def resolve(recorded: str) -> Path | None:
        return source if recorded.endswith("dscnn.py") else None

    index = build_line_index(JOB, new, resolve)
    engine: EngineSurface = StubEngine(root, {JOB: StubResult(new, index)}, {JOB: StubJob(JOB)})
    found = JobComparison(
        JOB, generation, CompareSettings(), BASELINE, compare_documents(base, new)
    )
    comparisons = _Source(found)
    view = ConnectionView(lambda: engine, lambda: comparisons)
    view.open(str(source), source.read_text())
    return view, str(source), comparisons


def test_hints_show_the_significant_changes_only(runs: tuple[Path, Any, Any]) -> None:
    root, first, rerun = runs
    view, file, _ = _view(root, first, rerun)
    labels = {h.line: h.label for h in view.hints(file, 1, 100).visible()}
    assert sorted(labels) == KWS_FIGURE_LINES
    before, after = inspector_line_runs(FIRST_INSPECTOR), inspector_line_runs(RERUN_INSPECTOR)
    changed = significant_lines(before, after)
    for line, label in labels.items():
        shown = percent_of(label)
        assert (shown is not None) == (line in changed), (line, label)
        if shown is not None:
            relative = mean(after[line]) / mean(before[line]) - 1
            assert shown[0] == ("▲" if relative > 0 else "▼")
            assert abs(shown[1] - abs(relative) * 100) <= 0.5 + 1e-9


def test_no_comparison_ready_means_no_change_shown(runs: tuple[Path, Any, Any]) -> None:
    """A comparison of another result generation (the new one is being compared) is not
    shown: the hint never mixes a new figure with an old delta."""
    root, first, rerun = runs
    view, file, source = _view(root, first, rerun, generation=7)
    labels = [h.label for h in view.hints(file, 1, 100).visible()]
    assert labels and not any(percent_of(label) for label in labels)
    assert source.asked  # it asked (the real service would schedule the computation)
    hover = view.hover(file, 26)
    assert hover is not None and "Against the baseline" not in hover.markdown


def test_the_same_result_as_baseline_shows_nothing(runs: tuple[Path, Any, Any]) -> None:
    root, first, _ = runs
    view, file, _ = _view(root, first, first)
    assert not any(percent_of(h.label) for h in view.hints(file, 1, 100).visible())
    assert all(" ▲" not in lens.title and " ▼" not in lens.title for lens in view.lenses(file))
    assert not [d for ds in view.diagnostics().files.values() for d in ds if d.code == "regression"]


def test_hint_formats_place_the_change(runs: tuple[Path, Any, Any]) -> None:
    root, first, rerun = runs
    view, file, _ = _view(root, first, rerun)
    view.apply_settings({"perfline": {"hints": {"format": "{marker} {value} · {share}"}}})
    label = {h.line: h.label for h in view.hints(file, 1, 100).visible()}[26]
    assert label.startswith("▮▮▮ 24.3 ms ▲152% · "), label
    view.apply_settings({"perfline": {"hints": {"format": "{value} [{delta}]"}}})
    labels = {h.line: h.label for h in view.hints(file, 1, 100).visible()}
    assert labels[26] == "24.3 ms [▲152%]" and labels[24] == "4.23 ms", labels


def test_regression_warnings_follow_the_threshold(runs: tuple[Path, Any, Any]) -> None:
    root, first, rerun = runs
    view, file, _ = _view(root, first, rerun)

    def warned() -> dict[int, str]:
        found = view.diagnostics().files.get(file, ())
        return {d.line: d.message for d in found if d.code == "regression"}

    warnings = warned()
    assert sorted(warnings) == [26, 40]  # 42 improved; the others are noise
    assert warnings[26].startswith("dscnn.py:26 regressed against the baseline: 24.3 ms avg, ")
    assert "was 9.63 ms (beyond the 5% regression threshold)" in warnings[26]
    assert "p = 7.6e-05 < 0.05" in warnings[26]
    change = view.apply_settings({"perfline": {"compare": {"regressionThreshold": 200}}})
    assert change.changed and not change.problems
    assert sorted(warned()) == [40]  # +288% only
    view.apply_settings({"perfline": {"compare": {"regressionThreshold": 1000}}})
    assert warned() == {}


def test_baseline_problems_are_diagnostics(runs: tuple[Path, Any, Any]) -> None:
    root, first, rerun = runs
    view, _, source = _view(root, first, rerun)
    config = str(root / "perfline.toml")
    source._problems = [BaselineProblem(JOB, config, 12, "the baseline b.json does not exist")]
    (diagnostic,) = view.diagnostics().files[config]
    assert (diagnostic.line, diagnostic.severity, diagnostic.code) == (12, "error", "baseline")
    assert diagnostic.message == "the baseline b.json does not exist"


def _total_and_change(lines: Sequence[int]) -> tuple[str, str]:
    """The written total of ``lines`` in the rerun and its change (the Inspector's per-line
    runs, a call line's with the lines it calls), for a block all of whose lines changed
    significantly together."""
    before = inspector_inclusive_runs(FIRST_INSPECTOR)
    after = inspector_inclusive_runs(RERUN_INSPECTOR)
    base = sum(mean(before[n]) for n in lines)
    new = sum(mean(after[n]) for n in lines)
    return figure_text.format_value(new, "ms"), figure_text.format_change(new / base - 1)


def test_lens_totals_carry_their_change(runs: tuple[Path, Any, Any]) -> None:
    root, first, rerun = runs
    view, file, _ = _view(root, first, rerun)
    titles = {lens.line: lens.title for lens in view.lenses(file)}
    total, change = _total_and_change([24, 25, 26, 27])
    assert total == "28.6 ms"
    assert titles[23].startswith(f"DSBlock.forward: {total} total {change} · "), titles[23]
    # The caller's total holds call line 41 (its figure: lines 24-27's), and its change is
    # that total's; the own lines follow, unjudged.
    assert inspector_calls(FIRST_INSPECTOR) == {41: {24, 25, 26, 27}}
    total, change = _total_and_change([40, 41, 42, 44])
    own = figure_text.format_value(
        sum(mean(inspector_line_runs(RERUN_INSPECTOR)[n]) for n in (40, 42, 44)), "ms"
    )
    assert titles[39].startswith(f"DSCNN.forward: {total} total {change} · own lines {own} · ")
    assert titles[31] == titles[39].replace("DSCNN.forward", "nn.Module DSCNN", 1)


def test_a_block_total_adds_a_call_line_or_its_callees_once(
    runs: tuple[Path, Any, Any], tmp_path: Path
) -> None:
    """DSCNN's methods made DSBlock's (line 31 a comment): one block holds call line 41 and
    the lines 24-27 it calls; its total adds line 41 once and never its callees again."""
    root, first, rerun = runs
    merged = tmp_path / "merged"
    shutil.copytree(root, merged)
    lines = (merged / "dscnn.py").read_text().split("\n")
    assert lines[30] == "class DSCNN(nn.Module):"
    lines[30] = "    # (DSCNN's methods, here DSBlock's)"
    (merged / "dscnn.py").write_text("\n".join(lines))
    view, file, _ = _view(merged, first, rerun)
    titles = {lens.line: lens.title for lens in view.lenses(file)}
    assert 31 not in titles
    total, change = _total_and_change([40, 41, 42, 44])  # 24-27 are inside line 41's figure
    assert total != _total_and_change([24, 25, 26, 27, 40, 41, 42, 44])[0]
    # every line 41 calls is in the block: its own lines are its total, said once
    assert titles[12].startswith(f"nn.Module DSBlock: {total} total {change} · 100% of the model")
    assert titles[39].startswith(f"DSBlock.forward: {total} total {change} · own lines ")


def test_hover_rows_for_a_line_in_one_run_only(runs: tuple[Path, Any, Any]) -> None:
    """A line with a figure only in the new run: the hover says so, the hint shows none."""
    root, first, rerun = runs
    base = copy.deepcopy(first)
    result = base["results"][0]
    gone = {
        e["id"]
        for e in result["entities"]
        if e["kind"] == "code_line" and e["attributes"]["line"] == 42
    }
    result["breakdowns"] = [b for b in result["breakdowns"] if b["entity_id"] not in gone]
    view, file, _ = _view(root, base, rerun)
    hover = view.hover(file, 42)
    assert hover is not None
    assert "this line has no figure in the baseline" in hover.markdown
    label = {h.line: h.label for h in view.hints(file, 1, 100).visible()}[42]
    assert percent_of(label) is None


# ------------------------------------------------------------------ small parts


@pytest.mark.parametrize(
    ("relative", "text"),
    [(0.12, "▲12%"), (-0.08, "▼8%"), (0.004, "▲<1%"), (-0.0049, "▼<1%"), (1.5208, "▲152%")],
)
def test_format_change(relative: float, text: str) -> None:
    assert figure_text.format_change(relative) == text


def _delta(base: float, new: float, significant: bool, verdict: str) -> MetricDelta:
    return MetricDelta("duration_avg", "", "ms", base, new, "samples", verdict, significant)


def test_only_a_significant_change_is_a_mark() -> None:
    assert change(_delta(9.63, 10.8, True, "regression")) == "▲12%"
    assert change(_delta(9.63, 10.8, False, "noise")) == ""  # within the runs' spread
    assert change(_delta(9.63, 9.63, False, "unchanged")) == ""
    assert change(None) == ""


def test_the_delta_slot() -> None:
    assert (
        with_delta_slot("{value} {statistic} · {share}") == "{value} {statistic} {delta} · {share}"
    )
    assert with_delta_slot("{value} ({share})") == "{value} {delta} ({share})"
    assert with_delta_slot("[{delta}] {value}") == "[{delta}] {value}"
    figure = LabelFigure(9.63, "ms", "duration_avg", 0.81, "avg")
    assert fill("{value} {statistic} · {share}", figure) == "9.63 ms avg · 81%"
    assert fill("{value} {statistic} · {share}", figure, "▲12%") == "9.63 ms avg ▲12% · 81%"
    assert fill("{value} ({delta})", figure) == "9.63 ms"


def test_compare_options() -> None:
    assert read_compare_options(None) == (CompareOptions(), ())
    options, problems = read_compare_options(
        {"compare": {"regressionThreshold": 10, "level": 0.01, "correction": "bh"}}
    )
    assert problems == ()
    assert options.regression_threshold == pytest.approx(0.10)
    assert options.settings == CompareSettings(0.01, "bh", 0.0)
    options, problems = read_compare_options(
        {"compare": {"regressionThreshold": "5%", "level": 0, "correction": "x", "no": 1}}
    )
    assert options == CompareOptions()
    assert len(problems) == 3 and problems[0].startswith("perfline.compare.regressionThreshold")
    assert read_compare_options({"compare": []})[1] == (
        "perfline.compare: expected an object; ignored",
    )


def test_runtime_table_needs_two_jobs_and_converts_times(runs: tuple[Path, Any, Any]) -> None:
    root, first, _ = runs
    index = build_line_index(JOB, first, lambda recorded: root / "dscnn.py")
    (entry,) = index.lines[str(root / "dscnn.py")][42]
    assert runtime_table([Column(entry, "portable")]) is None
    micro = dataclasses.replace(
        entry,
        facts=dataclasses.replace(entry.facts, job="other"),
        metrics=tuple(
            {**m, "value": m["value"] * 1000, "unit": "us"} if m.get("unit") == "ms" else m
            for m in entry.metrics
        ),
    )
    table = runtime_table([Column(entry, "portable"), Column(micro, "other run")])
    assert table is not None
    (avg,) = [row for row in table.splitlines() if row.startswith("| duration avg (ms) |")]
    cells = [c.strip() for c in avg.strip("|").split("|")]
    assert cells[1] == cells[2]  # the microseconds shown in the first job's milliseconds


def test_the_api_document_describes_every_method_and_the_version() -> None:
    from perfline.server import api
    from tests.support.server_helpers import REPO

    text = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    for method in api.METHODS:
        assert f"### `{method}`" in text, method
    assert f'"apiVersion": "{api.API_VERSION}"' in text
    assert f"(version {api.API_VERSION})" in text
