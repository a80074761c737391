"""Issue 17's presentation items on the real DS-CNN measurement (examples/kws), in the view
layer: inclusive call lines and block lenses (total and own lines), why a line has no
figure, the hover's statistics and operator rows, what ran, the breakdown, the status-bar
summary, one rounding rule and the share marker.

Two states of line 41 (``x = self.blocks(x)``, which calls the DSBlock lines 24-27), each
as the daemon serves it: exact float sums (the default, deviation D6) give it its inclusive
figure, the sum of the four lines' figures (their operators partition its operators); with
``float_sums = "reference"`` in perfline.toml the projection gives it none (mlia 0.12.3's
float sums in different orders conflict), and the view says why."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from perfline.core import figure_text
from perfline.server.engine import Engine
from perfline.server.line_index import build_line_index
from perfline.server.view.connection import ConnectionView
from perfline.server.view.engine_surface import EngineSurface
from perfline.server.view.hint_settings import DEFAULT_FORMAT, HintSettings, read_settings
from perfline.server.view.line_labels import chosen_figure, fill
from perfline.server.view.run_description import describe_run
from tests.server.view.stub_engine import StubEngine, StubJob, StubResult
from tests.support.server_helpers import copy_kws

JOB = "dscnn-measured"


def _served(root: Path) -> dict[str, Any]:
    """The job's processed document as the daemon serves it for the workspace ``root``."""
    engine = Engine(root, debounce=0.0, settle=0.0)
    engine.start()
    assert engine.wait_idle(120)
    good = engine.result(JOB)
    assert good is not None
    document = copy.deepcopy(dict(good.document))
    engine.close()
    return document


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, Any]]]:
    """The example workspace and its processed document (exact float sums, the default)."""
    root = copy_kws(tmp_path_factory.mktemp("kws"))
    yield root, _served(root)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, Any]]]:
    """The same workspace with ``float_sums = "reference"``: line 41 without a figure."""
    root = copy_kws(tmp_path_factory.mktemp("kws-reference"))
    config = root / "perfline.toml"
    config.write_text('float_sums = "reference"\n' + config.read_text())
    yield root, _served(root)


def _view(root: Path, document: Mapping[str, Any]) -> tuple[ConnectionView, str]:
    source = root / "dscnn.py"

    def resolve(recorded: str) -> Path | None:
        return source if recorded.endswith("dscnn.py") else None

    index = build_line_index(JOB, document, resolve)
    engine: EngineSurface = StubEngine(
        root, {JOB: StubResult(document, index)}, {JOB: StubJob(JOB)}
    )
    view = ConnectionView(lambda: engine)
    view.open(str(source), source.read_text())
    return view, str(source)


def _line_value(result: Mapping[str, Any], line: int) -> float:
    ids = {
        e["id"]
        for e in result["entities"]
        if e["kind"] == "code_line" and e["attributes"]["line"] == line
    }
    (metric,) = [
        m
        for b in result["breakdowns"]
        if b["entity_id"] in ids
        for m in b["metrics"]
        if m["name"] == "duration_avg"
    ]
    return float(metric["value"])


def _lens(view: ConnectionView, file: str, line: int) -> str:
    return next(lens.title for lens in view.lenses(file) if lens.line == line)


def test_a_call_line_with_a_figure_is_inclusive_and_the_block_states_total_and_own(
    measured: tuple[Path, dict[str, Any]],
) -> None:
    root, document = measured
    view, file = _view(root, document)
    result = document["results"][0]
    # Exact float sums: line 41's figure is the sum of the lines it calls (a partition of
    # its operators), correctly rounded.
    called = _line_value(result, 41)
    assert called == pytest.approx(sum(_line_value(result, n) for n in (24, 25, 26, 27)), rel=1e-15)
    own = [_line_value(result, n) for n in (40, 42, 44)]
    total = sum(own) + called
    unit = "ms"
    expected = (
        f"DSCNN.forward: {figure_text.format_value(total, unit)} total · "
        f"own lines {figure_text.format_value(sum(own), unit)} · 100% of the model · "
        "no figure on line 43 (no sample)"
    )
    assert _lens(view, file, 39) == expected
    assert _lens(view, file, 31) == expected.replace("DSCNN.forward", "nn.Module DSCNN")
    # A block without call lines: its total is its own lines', and said once.
    assert " own lines " not in _lens(view, file, 23)
    hover = view.hover(file, 41)
    assert hover is not None
    assert "*Inclusive*: this line calls lines 24-27; its figure includes theirs." in hover.markdown
    assert (
        f"**dscnn.py:41** · {figure_text.format_value(called, unit)} avg · 90% of the model"
        in hover.markdown
    )
    hint = [h.label for h in view.hints(file, 41, 41).visible()]
    assert hint == [f"{figure_text.format_value(called, unit)} avg · 90%"]


def test_a_call_line_without_a_figure_says_why(
    reference: tuple[Path, dict[str, Any]], measured: tuple[Path, dict[str, Any]]
) -> None:
    root, document = reference
    assert _figured_lines(document) == {24, 25, 26, 27, 40, 42, 44}
    view, file = _view(root, document)
    title = _lens(view, file, 39)
    assert title == (
        "DSCNN.forward: 1.17 ms on the lines with figures · "
        "no figure on lines 41 (conflicting figures), 43 (no sample)"
    )
    hover = view.hover(file, 41)
    assert hover is not None
    text = hover.markdown
    assert "No figure: conflicting figures. All 24 operators under this line carry figures" in text
    assert "It calls lines 24-27." in text
    result = document["results"][0]
    ops = sum(
        float(m["value"])
        for b in result["breakdowns"]
        if b["entity_id"].startswith(
            ("source_operator/conv2d_", "source_operator/relu_", "source_operator/batch_norm_")
        )
        for m in b["metrics"]
        if m["name"] == "duration_avg"
    )
    assert (
        f"The avg figures of its 24 operators add up to {figure_text.format_value(ops, 'ms')}."
        in text
    )
    assert not view.hints(file, 41, 41).visible()  # no figure: no hint
    flatten = view.hover(file, 43)
    assert flatten is not None and "No figure: no sample." in flatten.markdown
    # Exact float sums (the default): line 41 has its figure; only line 43 has none.
    root, document = measured
    assert _figured_lines(document) == {24, 25, 26, 27, 40, 41, 42, 44}
    view, file = _view(root, document)
    exact = view.hover(file, 41)
    assert exact is not None and "No figure" not in exact.markdown
    assert (
        f"The avg figures of its 24 operators add up to {figure_text.format_value(ops, 'ms')}."
        not in exact.markdown
    )
    assert _lens(view, file, 39).endswith("no figure on line 43 (no sample)")
    assert view.hints(file, 41, 41).visible()


def _figured_lines(document: Mapping[str, Any]) -> set[int]:
    result = document["results"][0]
    lines = {
        e["id"]: e["attributes"]["line"] for e in result["entities"] if e["kind"] == "code_line"
    }
    return {lines[b["entity_id"]] for b in result["breakdowns"] if b["entity_id"] in lines}


def _without_relu_1(document: Mapping[str, Any]) -> dict[str, Any]:
    changed = copy.deepcopy(dict(document))
    result = changed["results"][0]
    result["breakdowns"] = [
        b for b in result["breakdowns"] if b["entity_id"] != "source_operator/relu_1"
    ]
    return changed


def test_partial_coverage_is_named(
    reference: tuple[Path, dict[str, Any]], measured: tuple[Path, dict[str, Any]]
) -> None:
    """Line 41 without a figure (reference float sums) and one of its operators' figures
    removed: some measured, some not."""
    root, document = reference
    view, file = _view(root, _without_relu_1(document))
    hover = view.hover(file, 41)
    assert hover is not None
    assert (
        "No figure: partial coverage. 23 of the 24 operators under this line carry figures"
        in hover.markdown
    )
    assert "41 (partial coverage)" in _lens(view, file, 39)
    # Exact float sums: the line has its figure whatever its operators' own breakdowns say
    # (the view shows the document's figure, inclusive, and counts no coverage for it).
    root, document = measured
    view, file = _view(root, _without_relu_1(document))
    exact = view.hover(file, 41)
    assert exact is not None and "partial coverage" not in exact.markdown
    assert "*Inclusive*: this line calls lines 24-27" in exact.markdown
    assert "41 (" not in _lens(view, file, 39)


def test_the_hover_holds_every_statistic_then_operators_then_what_ran(
    measured: tuple[Path, dict[str, Any]],
) -> None:
    root, document = measured
    view, file = _view(root, document)
    hover = view.hover(file, 42)
    assert hover is not None
    text = hover.markdown
    result = document["results"][0]
    (line_42,) = [
        e for e in result["entities"] if e["kind"] == "code_line" and e["attributes"]["line"] == 42
    ]
    metrics = {
        m["name"]: m["value"]
        for b in result["breakdowns"]
        if b["entity_id"] == line_42["id"]
        for m in b["metrics"]
        if "execution" not in m.get("qualifiers", {})
    }
    cells = [
        figure_text.format_number(metrics[f"duration_{s}"], "ms")
        for s in ("avg", "p50", "p90", "min", "max")
    ]
    assert "| measure | avg | p50 | p90 | min | max | runs |" in text
    assert f"| duration (ms) | {' | '.join(cells)} | {metrics['execution_count']} |" in text
    assert "n/a" not in text and " ms |" not in text  # the unit once, in the row's name
    assert "| aten.adaptive_avg_pool2d | adaptive_avg_pool2d |" in text
    assert (
        text.index("| measure |")
        < text.index("Operators under this line")
        < text.index("ExecuTorch CPU")
    )
    assert "ExecuTorch CPU kernels (no delegate), measured, 10 runs" in text
    assert "neural-technology" not in text
    line_26 = view.hover(file, 26)
    assert line_26 is not None
    shares = [int(s) for s in re.findall(r"\| (\d+)% \|$", line_26.markdown, re.M)]
    assert len(shares) == 4 and shares == sorted(shares, reverse=True)


def test_run_descriptions_never_say_neural_technology() -> None:
    portable = {
        "target": {
            "target_type": "neural-technology",
            "components": [{"type": "cpu", "family": "executorch"}],
        },
        "backends": [
            {
                "id": "neural-technology-profiling-data",
                "name": "Neural Technology Profiling Data",
                "configuration": {"executions": 10},
            }
        ],
    }
    result: dict[str, Any] = {
        "producer": "neural-technology-profiling-data",
        "mode": "measured",
        "entities": [],
    }
    assert (
        describe_run(portable, result) == "ExecuTorch CPU kernels (no delegate), measured, 10 runs"
    )
    stated = copy.deepcopy(portable)
    stated["backends"][0]["configuration"]["runtime"] = {
        "name": "ExecuTorch",
        "version": "1.5",
        "kernels": "portable",
    }
    assert describe_run(stated, result) == "ExecuTorch 1.5 portable CPU kernels, measured, 10 runs"
    delegated = {
        **result,
        "entities": [{"kind": "backend_operator", "attributes": {"backend": "XnnpackBackend"}}],
    }
    assert describe_run(portable, delegated) == "ExecuTorch XNNPACK delegate, measured, 10 runs"
    estimate = {"backends": [{"id": "nx-performance-estimator", "name": "NX"}]}
    assert (
        describe_run(estimate, {"producer": "nx-performance-estimator"})
        == "NX performance estimator"
    )


def test_breakdown_and_summary_are_rendered_by_the_server(
    measured: tuple[Path, dict[str, Any]], reference: tuple[Path, dict[str, Any]]
) -> None:
    root, document = measured
    view, file = _view(root, document)
    block = view.request("perfline/breakdown", {"file": file, "startLine": 23, "endLine": 28})
    assert block["title"] == "Breakdown of DSBlock.forward (dscnn.py:23-28)"
    assert block["lines"] == [24, 25, 26, 27]
    markdown = block["markdown"]
    assert "n/a" not in markdown
    assert "| inference_time | 12.0 ms |" in markdown  # the unit once
    assert "Not available: total_cycles (ETDump timing events carry no cycle counts)" in markdown
    model = view.request("perfline/breakdown", {})
    # Exact float sums: line 41's inclusive figure is a row; only line 43 has none.
    called = figure_text.format_value(_line_value(document["results"][0], 41), "ms")
    assert model["title"] == "Model breakdown"
    assert f"| dscnn.py:41 | {called} avg (inclusive) | 90% |" in model["markdown"]
    assert "No figure on line 43 (no sample)." in model["markdown"]
    reference_view, _ = _view(*reference)
    reference_model = reference_view.request("perfline/breakdown", {})
    assert (
        "No figure on line 41 (conflicting figures), 43 (no sample)." in reference_model["markdown"]
    )
    assert "| dscnn.py:41 |" not in reference_model["markdown"]
    summary = view.request("perfline/summary", {"job": JOB})
    assert summary["headline"] == ["12.0 ms", "83.5 inferences/s"]
    assert "inference_time: 12.0 ms" in summary["metrics"]
    assert summary["run"] == "ExecuTorch CPU kernels (no delegate), measured, 10 runs"
    lenses = view.request("perfline/codeLenses", {"file": file})["lenses"]
    assert [(x["line"], x["endLine"]) for x in lenses] == [(12, 28), (23, 28), (31, 44), (39, 44)]


def test_one_rounding_rule_and_the_share_marker() -> None:
    assert [figure_text.format_value(v, "ms") for v in (0.0131, 0.42, 9.634, 11.97, 123.4)] == [
        "0.013 ms",
        "0.42 ms",
        "9.63 ms",
        "12.0 ms",
        "123 ms",
    ]
    assert (
        figure_text.format_number(0.0131, "ms") == "0.013"
        and figure_text.format_number(1834, "cycles") == "1.8k"
    )
    assert [figure_text.share_marker(s) for s in (None, 0.01, 0.05, 0.2, 0.81)] == [
        "",
        "",
        "▮",
        "▮▮",
        "▮▮▮",
    ]


def test_the_format_gains_statistic_and_marker(measured: tuple[Path, dict[str, Any]]) -> None:
    root, document = measured
    view, file = _view(root, document)
    entries = [e for n in (24, 26, 42) for e in view.entries(file, n)]
    for entry in entries:  # the default template renders exactly the index's labels
        figure = chosen_figure(entry, HintSettings(), lambda e, k: None)
        assert figure is not None and fill(DEFAULT_FORMAT, figure) == entry.label
    marked = read_settings({"hints": {"format": "{marker} {value} {statistic} · {share}"}})
    assert marked.problems == ()
    view.apply_settings({"hints": {"format": "{marker} {value} {statistic} · {share}"}})
    labels = {h.line: h.label for h in view.hints(file, 1, 100).visible()}
    assert labels[26] == "▮▮▮ 9.63 ms avg · 81%" and labels[24] == "▮ 0.95 ms avg · 8%"
    assert labels[25] == "0.09 ms avg · <1%"  # no marker on a cold line, nothing dangling
