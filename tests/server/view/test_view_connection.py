"""The view layer without a daemon or a client: a ``ConnectionView`` over a stand-in engine
that serves a real line index (``build_index`` of a standardized document)."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.core.workspace_config import ConfigProblem, WorkspaceConfigError
from perfline.server.line_entries import JobIndex, LineDiagnostic, LineEntry
from perfline.server.line_index import build_line_index
from perfline.server.scheduler.boundary import WorkspaceBoundary
from perfline.server.view.connection import ConnectionView
from perfline.server.view.engine_surface import EngineSurface
from perfline.server.view.hint_settings import HintSettings, chosen_section
from perfline.server.view.shapes import LINE_END
from perfline.server.view.staleness import stale
from tests.server.three_chain_document import three_chain_document

SOURCE = "class Net(nn.Module):\n    def forward(self, x):\n        return conv(x)\n"


@dataclass(frozen=True)
class _Error:
    message: str
    file: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class _Job:
    name: str
    backend: str = "mlia"
    inputs: tuple[str, ...] = ("run.mlia.json",)
    state: str = "ok"
    stale: bool = False
    error: _Error | None = None
    generation: int = 1
    runs: int = 1
    config_line: int | None = None
    has_result: bool = True


@dataclass(frozen=True)
class _Result:
    document: Mapping[str, Any]
    index: JobIndex
    generation: int = 1


@dataclass
class _Engine:
    """The query surface of ``server.engine.Engine``, over fixed answers."""

    root: Path
    results: dict[str, _Result] = field(default_factory=dict)
    infos: dict[str, _Job] = field(default_factory=dict)
    version: int = 0
    config_error: WorkspaceConfigError | None = None

    def jobs(self) -> Sequence[_Job]:
        return [self.infos[name] for name in sorted(self.infos)]

    def job(self, name: str) -> _Job | None:
        return self.infos.get(name)

    def job_names(self) -> Sequence[str]:
        return sorted(self.infos)

    def result(self, name: str) -> _Result | None:
        return self.results.get(name)

    def line_entries(self, path: Path | str) -> Mapping[int, Sequence[LineEntry]]:
        merged: dict[int, list[LineEntry]] = {}
        for result in self.results.values():
            for number, entries in result.index.lines.get(str(path), {}).items():
                merged.setdefault(number, []).extend(entries)
        return merged

    def line_diagnostics(self, path: Path | str) -> Sequence[LineDiagnostic]:
        return [d for r in self.results.values() for d in r.index.diagnostics.get(str(path), ())]

    def annotated_files(self) -> Sequence[str]:
        return sorted({f for r in self.results.values() for f in r.index.lines})

    def reanalyze(self, job: str | None = None) -> list[str]:
        return [job] if job else sorted(self.infos)

    @property
    def boundary(self) -> WorkspaceBoundary:
        return WorkspaceBoundary(self.root)

    def resolve_client_path(self, text: str) -> Path:
        return self.boundary.resolve_client_path(text)


@pytest.fixture
def setup(tmp_path: Path) -> tuple[_Engine, ConnectionView, str]:
    model = tmp_path / "model.py"
    model.write_text(SOURCE)
    document = postprocess(three_chain_document(), PipelineSettings(), source="run.mlia.json")
    index = build_line_index(
        "run", document, lambda recorded: model if "model.py" in recorded else None
    )
    engine = _Engine(tmp_path, {"run": _Result(document, index)}, {"run": _Job("run")})
    surface: EngineSurface = engine
    return engine, ConnectionView(lambda: surface), str(model)


def _labels(view: ConnectionView, file: str) -> list[tuple[int, str]]:
    return [(hint.line, hint.label) for hint in view.hints(file, 1, 100).visible()]


def test_hints_follow_edits_and_the_requested_range(
    setup: tuple[_Engine, ConnectionView, str],
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
    setup: tuple[_Engine, ConnectionView, str],
) -> None:
    """A failing job (last good result served, marked stale) marks every view stale; lenses
    used to look only at the edits."""
    engine, view, file = setup
    view.open(file, SOURCE)
    assert not any(lens.title.endswith(" (stale)") for lens in view.lenses(file))
    engine.infos["run"] = replace(engine.infos["run"], stale=True, error=_Error("broken"))
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
    setup: tuple[_Engine, ConnectionView, str],
) -> None:
    _, view, file = setup
    view.open(file, SOURCE)
    tree = ast.parse(SOURCE)
    blocks = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef | ast.FunctionDef)]
    expected = sorted((n.lineno, n.end_lineno) for n in blocks)
    assert sorted((lens.line, lens.end_line) for lens in view.lenses(file)) == expected


def test_diagnostics_place_config_and_job_errors_and_clear_old_ones(
    setup: tuple[_Engine, ConnectionView, str],
) -> None:
    engine, view, file = setup
    root = engine.root
    first = view.diagnostics()
    assert dict(first.files) == {file: ()} and first.cleared == ()
    engine.config_error = WorkspaceConfigError(
        "perfline.toml", [ConfigProblem(9, "jobs", "unknown table", 3)]
    )
    engine.infos["run"] = replace(
        engine.infos["run"], error=_Error("bad byte", "run.mlia.json", 4), stale=True
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
    setup: tuple[_Engine, ConnectionView, str],
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
    setup: tuple[_Engine, ConnectionView, str],
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
