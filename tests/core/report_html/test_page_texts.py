"""One renderer (issue 40): every number the page shows is ``core.figure_text``'s text.

The page's script formats nothing (``test_page.test_the_script_formats_no_number``); these
tests hold the page data's texts to ``figure_text``'s output for the same values, and a line's
label on the page to its label in the CLI (``perfline annotate --json`` on the example
workspace) and in the editor (the daemon's line index and the view's hint label, against the
same baseline as the compare view).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.core import figure_text
from perfline.core.compare import compare_documents
from perfline.core.report_html.labels import label
from perfline.core.report_html.page_texts import Scale, Texts, rounded, text_at
from perfline.core.report_html.payload import build_payload
from perfline.core.report_html.result_index import index_result
from perfline.core.report_html.source_text import SourceText
from perfline.server.line_index import build_line_index
from perfline.server.view import line_labels
from perfline.server.view.hint_settings import HintSettings
from perfline.server.view.line_deltas import DeltaLookup
from tests.support.html_documents import (
    RECORDED,
    SOURCE,
    example_document,
    example_pair,
    nx_processed,
)
from tests.support.locations import REPO

EXAMPLE = REPO / "examples" / "kws"


def test_a_scale_gives_each_value_held_its_own_text() -> None:
    scale = Scale(lambda v: figure_text.format_value(v, "cycles"))
    values = [0, 5, 999, 1000, 1049, 1051, 9949, 9951, 10_000, 2_446_140, 12.3456789, -3]
    held = [scale.add(v) for v in values]
    assert scale.add(None) is None
    payload = scale.payload()
    assert payload["from"] == sorted(payload["from"])
    assert len(payload["text"]) < len(values)  # values written alike share a run
    for value, key in zip(values, held, strict=True):
        assert key == rounded(value)
        assert text_at(payload, key) == figure_text.format_value(value, "cycles")
    texts = Texts()
    assert [texts.ref("a"), texts.ref("b"), texts.ref("a"), texts.ref(None)] == [0, 1, 0, -1]
    assert texts.payload() == ["a", "b"]


def test_figure_text_writes_differences_and_p_values() -> None:
    assert figure_text.format_difference(1.234, "ms") == "+1.23 ms"
    assert figure_text.format_difference(-2446.0, "cycles") == "-2.4k cycles"
    assert figure_text.format_difference(0, "ms") == "0 ms"
    assert figure_text.format_signed_number(-0.0123, "ms") == "-0.012"
    assert figure_text.format_relative(0.123) == "+12%"
    assert figure_text.format_relative(-0.004) == "-<1%"
    assert figure_text.format_relative(0.0) == "0%"
    assert figure_text.format_change(-0.004) == "▼<1%"  # the same percentage, marked
    assert figure_text.format_p_value(0.01234) == "0.012"
    assert figure_text.format_p_value(7.56e-5) == "7.6e-05"
    assert figure_text.format_count(1234567, "bytes") == "1,234,567 bytes"
    metric = SimpleNamespace(unit="ms")
    assert figure_text.label(9.634, metric, "avg", 11.94, change="▲12%") == "9.63 ms avg ▲12% · 81%"


@pytest.mark.parametrize("which", ["example", "nx-200"])
def test_every_text_of_the_payload_is_figure_texts(which: str) -> None:
    document = example_document() if which == "example" else nx_processed(200)
    index = index_result(document["results"][0], 0)
    assert index.metric is not None
    (view,) = build_payload(document, {})["views"]
    figures = view["metric"]["figures"]
    entities = view["entities"]
    # each entity's figure: its label of the value in the document
    checked = 0
    for ref, entity_id in enumerate(entities["ids"]):
        held = entities["value"][ref]
        if held is None:
            assert entity_id not in index.values
            continue
        expected = label(index.values[entity_id], index.metric, index.total)
        assert text_at(figures, held) == expected
        checked += 1
    assert checked > 20
    # the chart: each node's size and share of its parent
    tree = view["tree"]
    for node, size in enumerate(tree["size"]):
        assert text_at(figures, size) == label(size, index.metric, index.total)
        parent = tree["parent"][node]
        if parent >= 0:
            share = figure_text.format_share(size, tree["size"][parent])
            assert tree["shares"][tree["of_parent"][node]] == share
        else:
            assert tree["of_parent"][node] == -1
    # the operator table: each cell and each share
    table = view["table"]
    cells = 0
    for row in table["rows"]:
        for column, value in zip(table["columns"], row[5:], strict=True):
            if value is not None:
                text = figure_text.format_number(value, column["unit"])
                assert text_at(column["texts"], value) == text
                cells += 1
        first = row[5] if table["columns"] else None
        if first is not None:
            share = figure_text.format_share(first, index.total)
            assert text_at(table["share"], first) == share
    assert cells > 20
    # the code lines: their labels
    for file in view["files"]:
        for line in file["lines"]:
            entity_id = entities["ids"][line[1]]
            if entity_id in index.values:
                expected = label(index.values[entity_id], index.metric, index.total)
                assert view["labels"][line[3]] == expected
            else:
                assert line[3] == -1


def _page_labels(view: dict[str, Any]) -> dict[int, str]:
    """Line number -> the page's label of that line (one file)."""
    (file,) = view["files"]
    return {line[0]: view["labels"][line[3]] for line in file["lines"] if line[3] >= 0}


def test_the_cli_and_the_page_label_the_example_workspaces_lines_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``perfline annotate --json`` and ``perfline report --html`` on the example workspace
    (examples/kws: the DS-CNN measured with ExecuTorch): every line reads the same."""
    workspace = tmp_path / "kws"
    shutil.copytree(EXAMPLE, workspace)
    runner = CliRunner()
    monkeypatch.chdir(tmp_path)  # a fresh copy, no daemon: annotate analyses it in-process
    annotated = runner.invoke(
        cli, ["annotate", "--json", "-w", str(workspace), str(workspace / "dscnn.py")]
    )
    assert annotated.exit_code == 0, annotated.output
    expected = {
        line["line"]: line["label"]
        for line in json.loads(annotated.stdout)["lines"]
        if line["label"]
    }
    document = tmp_path / "document.json"
    analysed = runner.invoke(
        cli,
        [
            "analyze",
            str(workspace / "dscnn_portable.etrecord"),
            str(workspace / "dscnn_portable.etdump"),
            "--output-dir",
            str(tmp_path / "out"),
            "--json",
        ],
    )
    assert analysed.exit_code == 0, analysed.output
    document.write_text(analysed.stdout)
    page = tmp_path / "report.html"
    reported = runner.invoke(
        cli,
        [
            "report",
            str(document),
            "--html",
            str(page),
            "--config",
            str(workspace / "perfline.toml"),
            "--output-dir",
            str(tmp_path / "out"),
        ],
    )
    assert reported.exit_code == 0, reported.output
    data = page.read_text().split('id="perfline-data">', 1)[1].split("</script>", 1)[0]
    (view,) = json.loads(data.replace("\\u003c", "<"))["views"]
    assert _page_labels(view) == expected
    assert len(expected) >= 8 and expected[26] == "9.63 ms avg · 81%"


class _Job:
    """The editor's comparison of a job's result (``compare_surface.JobComparisonView``)."""

    def __init__(self, comparison: Any) -> None:
        self.comparison = comparison
        self.settings = comparison.settings

    def result(self, new_index: int) -> Any:
        return next((r for r in self.comparison.results if r.new_index == new_index), None)


class _Source:
    """The engine's comparisons, as the view asks for them (``ComparisonSource``)."""

    def __init__(self, job: _Job) -> None:
        self._job = job

    def comparison(self, job: str, generation: int, settings: Any) -> _Job:
        return self._job


class _Engine:
    """The engine's last good result of the job (``EngineSurface.result``)."""

    def result(self, name: str) -> Any:
        return SimpleNamespace(generation=1)


def test_the_editor_and_the_compare_view_label_lines_alike() -> None:
    """Against one baseline (the generated pair: dscnn.py:26 25% slower), the editor's hint
    of each line (its label with ``▲12%`` when the change is significant) is the compare
    view's label of that line."""
    base, new = example_pair()
    comparison = compare_documents(base, new)
    sources = {RECORDED: SourceText("dscnn.py", SOURCE.read_text())}
    (view,) = build_payload(new, sources, comparison=comparison)["views"]
    page = _page_labels(view)
    index = build_line_index("job", new, lambda path: Path(path))
    lookup = DeltaLookup(_Source(_Job(comparison)), _Engine(), comparison.settings)
    editor = {}
    for number, entries in index.lines[RECORDED].items():
        text = line_labels.line_label(entries, HintSettings(), lambda *_: None, lookup)
        if text is not None:
            editor[number] = text
    assert page == editor
    assert "▲" in page[26]  # the regression, as the hint shows it
    assert sum("▲" in text or "▼" in text for text in page.values()) == 1
