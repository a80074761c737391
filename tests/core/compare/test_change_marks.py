"""Issue 37 item 4: ▲ and ▼ mean the same on every surface: the value went up or down
(``docs/results.md``); the verdict's word says whether that is worse.

A generated pair of the DS-CNN (``tests/support/compare_pair.py``: the operators of dscnn.py:26
25% slower, the rest redrawn from the measured spread) makes both kinds of regression: line 26's
time went up, the model's ``inferences_per_second`` went down. The CLI's table
(``core.compare.table``), the editor's hint and hover (``server.view.line_deltas``,
``delta_hover``) must mark each judged change alike; the HTML page's marks are checked in the
browser (``tests/core/report_html/browser/drive.mjs``: its model table and line 26).
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.clients.cli.compare import CompareRequest, compare_sides
from perfline.core.compare.deltas import IMPROVEMENT, REGRESSION, CompareSettings, MetricDelta
from perfline.core.figure_text import DOWN, UP
from perfline.server.view import delta_hover, line_deltas
from tests.support.compare_pair import write_pair
from tests.support.locations import REPO
from tests.support.server_helpers import KWS

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    return write_pair(tmp_path_factory.mktemp("pair"), runs=30)


def _request() -> CompareRequest:
    return CompareRequest(
        level=0.05,
        correction="holm",
        estimate_threshold="0%",
        metrics=(),
        source_root=str(KWS),
        base_rev=None,
        new_rev=None,
        base_source=None,
        config=None,
    )


def test_the_cli_marks_the_direction_of_the_value(pair: tuple[str, str]) -> None:
    result = CliRunner().invoke(cli, ["compare", *pair, "--source-root", str(KWS)])
    assert result.exit_code == 0, result.output
    rows = {line.split("│")[1].strip(): line for line in result.stdout.splitlines() if "│" in line}
    assert "▼ regression" in rows["inferences_per_second (inferences/s)"]  # a rate that fell
    assert "▲ regression" in rows["inference_time (ms)"]
    assert "▲ regression" in rows["dscnn.py:26"]


def test_cli_and_editor_marks_agree_on_every_judged_change(pair: tuple[str, str]) -> None:
    from perfline.core.compare.table import change_mark

    comparison, _, _ = compare_sides(*pair, _request())
    judged: list[MetricDelta] = []
    for result in comparison.results:
        judged.extend(result.model.metrics)
        for entity in result.entities:
            judged.extend(entity.metrics)
    judged = [d for d in judged if d.verdict in (REGRESSION, IMPROVEMENT) and d.delta]
    assert {d.name for d in judged} >= {"inferences_per_second", "inference_time"}
    settings = CompareSettings()
    for delta in judged:
        expected = UP if delta.delta > 0 else DOWN
        assert change_mark(delta) == expected, delta
        assert delta_hover.verdict_sentence(delta, settings).startswith(expected), delta
        hint = line_deltas.change(delta)
        assert hint == "" or hint.startswith(expected), (hint, delta)
    rate = next(d for d in judged if d.name == "inferences_per_second")
    assert rate.verdict == REGRESSION and change_mark(rate) == DOWN


def test_ascii_marks_follow_the_same_rule(pair: tuple[str, str]) -> None:
    from perfline.core.compare.table import change_mark

    comparison, _, _ = compare_sides(*pair, _request())
    rate = next(d for d in comparison.results[0].model.metrics if d.name == "inferences_per_second")
    assert change_mark(rate, ascii_only=True) == "v"


def test_the_rule_is_written_in_the_docs() -> None:
    text = (REPO / "docs" / "results.md").read_text()
    assert "**▲ and ▼ mean the same everywhere**" in text
