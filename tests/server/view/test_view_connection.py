"""The view layer without a daemon or a client: a ``ConnectionView`` over a stand-in engine
that serves a real line index (``build_index`` of a standardized document)."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.core.workspace_config import ConfigProblem, WorkspaceConfigError
from perfline.server.line_index import build_line_index
from perfline.server.view.connection import ConnectionView
from perfline.server.view.engine_surface import EngineSurface
from perfline.server.view.hint_settings import HintSettings, chosen_section
from perfline.server.view.shapes import LINE_END
from perfline.server.view.staleness import stale
from tests.server.view.stub_engine import StubEngine, StubError, StubJob, StubResult
from tests.support.three_chain_document import three_chain_document

SOURCE = "class Net(nn.Module):\n    def forward(self, x):\n        return conv(x)\n"


@pytest.fixture
def setup(tmp_path: Path) -> tuple[StubEngine, ConnectionView, str]:
    model = tmp_path / "model.py"
    model.write_text(SOURCE)
    document = postprocess(three_chain_document(), PipelineSettings(), source="run.mlia.json")
    index = build_line_index(
        "run", document, lambda recorded: model if "model.py" in recorded else None
    )
    engine = StubEngine(tmp_path, {"run": StubResult(document, index)}, {"run": StubJob("run")})
    surface: EngineSurface = engine
    return engine, ConnectionView(lambda: surface), str(model)


def _labels(view: ConnectionView, file: str) -> list[tuple[int, str]]:
    return [(hint.line, hint.label) for hint in view.hints(file, 1, 100).visible()]


def test_hints_follow_edits_and_the_requested_range(
    setup: tuple[StubEngine, ConnectionView, str],
) -> None:
    _, view, file = setup
    # Not open: the file as on disk (as the shell served it through pygls before).
    assert [h.line for h in view.hints(file, 1, 100).rows] == [1, 2, 3]
    view.open(file, SOURCE)
    assert _labels(view, file) == [
        (1, "600 cycles · 60%"),
        (2, "300 cycles · 30%"),
        (3, "100 cycles · 10%"),
    ]
    page = view.hints(file, 2, 2)
    assert [h.line for h in page.visible()] == [2]
    assert page.rows is view.hints(file, 1, 1).rows  # one cached tuple per file state
    assert page.rows[2].column == len("        return conv(x)")
    view.edit(file, (1, 0), (1, 0), "# a\n", "# a\n" + SOURCE)
    assert _labels(view, file) == [
        (2, "600 cycles · 60% (stale)"),
        (3, "300 cycles · 30% (stale)"),
        (4, "100 cycles · 10% (stale)"),
    ]
    view.result_changed("run")  # a new analysis: the lines are as analysed again
    assert [label for _, label in _labels(view, file)] == [
        "600 cycles · 60%",
        "300 cycles · 30%",
        "100 cycles · 10%",
    ]


def test_hints_hovers_and_lenses_read_one_staleness_rule(
    setup: tuple[StubEngine, ConnectionView, str],
) -> None:
    """A failing job (last good result served, marked stale) marks every view stale; lenses
    used to look only at the edits."""
    engine, view, file = setup
    view.open(file, SOURCE)
    assert not any(lens.title.endswith(" (stale)") for lens in view.lenses(file))
    engine.infos["run"] = replace(engine.infos["run"], stale=True, error=StubError("broken"))
    engine.version += 1
    assert all(label.endswith(" (stale)") for _, label in _labels(view, file))
    hover = view.hover(file, 1)
    assert hover is not None and "may be out of date" in hover.markdown
    lenses = view.lenses(file)
    assert lenses and all(lens.title.endswith(" (stale)") for lens in lenses)
    entries = list(engine.line_entries(file)[1])
    assert stale(False, entries, engine.job) and stale(True, [], engine.job)
    engine.infos["run"] = replace(engine.infos["run"], stale=False)
    assert not stale(False, entries, engine.job)


def test_lenses_carry_the_block_range_found_by_ast(
    setup: tuple[StubEngine, ConnectionView, str],
) -> None:
    _, view, file = setup
    view.open(file, SOURCE)
    tree = ast.parse(SOURCE)
    blocks = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef | ast.FunctionDef)]
    expected = sorted((n.lineno, n.end_lineno) for n in blocks)
    assert sorted((lens.line, lens.end_line) for lens in view.lenses(file)) == expected


def test_diagnostics_place_config_and_job_errors_and_clear_old_ones(
    setup: tuple[StubEngine, ConnectionView, str],
) -> None:
    engine, view, file = setup
    root = engine.root
    first = view.diagnostics()
    assert dict(first.files) == {file: ()} and first.cleared == ()
    engine.config_error = WorkspaceConfigError(
        "perfline.toml", [ConfigProblem(9, "jobs", "unknown table", 3)]
    )
    engine.infos["run"] = replace(
        engine.infos["run"], error=StubError("bad byte", "run.mlia.json", 4), stale=True
    )
    update = view.diagnostics()
    (config,) = update.files[str(root / "perfline.toml")]
    assert (config.line, config.column, config.end_column) == (9, 2, 3)
    assert config.message == "jobs: unknown table" and config.code == "config"
    (job,) = update.files[str(root / "run.mlia.json")]
    assert (job.line, job.column, job.end_column) == (4, 0, LINE_END)
    assert job.message == "job run: bad byte (serving the last good result)"
    engine.config_error = None
    engine.infos["run"] = replace(engine.infos["run"], error=None)
    cleared = view.diagnostics()
    assert set(cleared.cleared) == {str(root / "perfline.toml"), str(root / "run.mlia.json")}


def test_line_annotations_answer_with_this_connections_lines(
    setup: tuple[StubEngine, ConnectionView, str],
) -> None:
    _, view, file = setup
    view.open(file, SOURCE)
    view.edit(file, (1, 0), (1, 0), "# a\n# b\n", "# a\n# b\n" + SOURCE)
    answer = view.request("perfline/lineAnnotations", {"file": file})
    assert [(item["line"], item["currentLine"]) for item in answer["lines"]] == [
        (1, 3),
        (2, 4),
        (3, 5),
    ]


def test_settings_come_from_the_first_source_that_holds_them(
    setup: tuple[StubEngine, ConnectionView, str],
) -> None:
    _, view, file = setup
    pushed = {"perfline": {"hints": {"format": "{value}"}}}
    assert chosen_section({}, pushed) == {"hints": {"format": "{value}"}}
    assert chosen_section(None, pushed) == {"hints": {"format": "{value}"}}
    assert chosen_section({"hints": {"minShare": 5}}, pushed) == {"hints": {"minShare": 5}}
    assert chosen_section({"perfline": {"hints": {}}}) == {"hints": {}}  # a whole-store answer
    assert chosen_section({}, {"python": {}}) is None
    change = view.apply_settings({}, pushed)
    assert change.changed and view.settings == HintSettings(format="{value}")
    assert not view.apply_settings(None, {"other": 1}).changed
    assert view.settings == HintSettings(format="{value}")
    view.open(file, SOURCE)
    assert [label for _, label in _labels(view, file)] == ["600 cycles", "300 cycles", "100 cycles"]
    problems = view.apply_settings({"hints": {"minShare": "x"}}).problems
    assert problems and "minShare" in problems[0]
