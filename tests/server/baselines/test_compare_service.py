"""The daemon's baseline comparisons in-process (``server.baselines``): where baselines come
from and are kept, what a bad baseline gives, line mapping after source edits, that a
query never waits for a comparison, and that the engine's loop alone drives the service,
with the typed events of its closed union."""

from __future__ import annotations

import json
import os
import shutil
import threading
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from perfline.core.compare.deltas import CompareSettings
from perfline.server.baselines import baseline_store, job_baselines
from perfline.server.baselines.compare_service import CompareService
from perfline.server.baselines.comparison_state import ComparisonState
from perfline.server.engine import Engine, EngineEvent
from perfline.server.scheduler import events
from perfline.server.scheduler.loop import Scheduler
from perfline.server.watcher import Watcher
from perfline.server.workspace import is_ignored, scan_files
from tests.support.compare_data import (
    FIRST_INSPECTOR,
    INTERLEAVED_A,
    ORT_MODEL,
    RERUN,
    inspector_inclusive_runs,
)
from tests.support.server_helpers import INPUT_DOC, copy_kws, load, wait_for, with_value

pytestmark = pytest.mark.timeout(120)

JOB = "dscnn-measured"
SETTINGS = CompareSettings()


def _engine(root: Path) -> Engine:
    engine = Engine(root, debounce=0.02, settle=0.1)
    engine.start()
    assert engine.wait_idle(60)
    return engine


@pytest.fixture
def kws(tmp_path: Path) -> Iterator[tuple[Engine, CompareService]]:
    engine = _engine(copy_kws(tmp_path))
    service = engine.comparisons
    try:
        yield engine, service
    finally:
        engine.close()


def _posted_events(engine: Engine) -> list[events.InboxEvent]:
    """Every event posted to ``engine``'s loop from now on (recorded as it is posted)."""
    seen: list[events.InboxEvent] = []
    scheduler: Scheduler = engine._scheduler
    post = scheduler.post

    def recording(event: events.InboxEvent) -> None:
        seen.append(event)
        post(event)

    scheduler.post = recording  # type: ignore[method-assign]
    return seen


def _settled(engine: Engine, service: CompareService) -> None:
    assert engine.wait_idle(60)
    assert service.wait_idle(60)


def _ready(engine: Engine, service: CompareService, job: str = JOB) -> Any:
    _settled(engine, service)
    good = engine.result(job)
    assert good is not None
    service.comparison(job, good.generation, SETTINGS)
    assert service.wait_idle(60)
    return service.comparison(job, good.generation, SETTINGS)


def _processed(root: Path, job: str = JOB) -> dict[str, Any]:
    engine = _engine(root)
    try:
        good = engine.result(job)
        assert good is not None
        return json.loads(json.dumps(good.document))
    finally:
        engine.close()


def _rerun_document(tmp_path: Path) -> dict[str, Any]:
    other = copy_kws(tmp_path / "rerun")
    shutil.copyfile(RERUN, other / "dscnn_portable.etdump")
    return _processed(other)


def _with_baseline_key(root: Path, path: str) -> int:
    """Adds ``baseline = path`` to the job of ``perfline.toml``; returns that line."""
    config = root / "perfline.toml"
    lines = config.read_text().rstrip("\n").split("\n")
    lines.append(f'baseline = "{path}"')
    config.write_text("\n".join(lines) + "\n")
    return len(lines)


def _reload(engine: Engine, service: CompareService) -> None:
    engine.notify_changed([engine.root / "perfline.toml"], finished=True)
    _settled(engine, service)


# --------------------------------------------------------------- where baselines live


def test_the_stored_baseline_is_never_an_input(tmp_path: Path) -> None:
    """A convention workspace (a standardized document): the stored baseline, itself an
    ``mlia-output.json``, is neither scanned, nor watched, nor discovered as a job."""
    (tmp_path / "cap.mlia.json").write_text(json.dumps(with_value(load(INPUT_DOC), 1)))
    engine = _engine(tmp_path)
    published: list[EngineEvent] = []
    engine.subscribe(published.append)
    seen = _posted_events(engine)
    watcher = Watcher(engine)
    watcher.start()
    try:
        service = engine.comparisons
        generation = engine.result("cap").generation  # type: ignore[union-attr]
        ticket = service.set_baseline("cap")
        assert ticket.wait(30) and ticket.error is None
        assert ticket.path == ".perfline/baselines/cap/mlia-output.json"
        stored = tmp_path / ticket.path
        assert stored.is_file() and (stored.parent / "baseline.json").is_file()
        assert service.wait_idle(30)
        # written again from outside: still nothing for the engine (nor the service)
        stored.write_text(stored.read_text())
        _settled(engine, service)
        assert wait_for(lambda: engine.wait_idle(0.01), timeout=5)
        assert engine.job_names() == ["cap"]
        assert engine.result("cap").generation == generation  # type: ignore[union-attr]
        assert not [e for e in published if e.kind in ("jobs", "result", "started")]
        changed = [e.paths for e in seen if isinstance(e, events.FileChanged)]
        assert not [paths for paths in changed if any(p.startswith(".perfline") for p in paths)]
        assert scan_files(tmp_path) == ["cap.mlia.json"]
        assert is_ignored(".perfline/baselines/cap/mlia-output.json")
        state, baseline, problem = service.describe("cap")
        assert state == "ready" and problem is None and baseline is not None, (state, problem)
        assert baseline.origin == "command" and baseline.path == ticket.path
    finally:
        watcher.stop()
        engine.close()


def test_job_names_become_safe_folder_names(tmp_path: Path) -> None:
    assert baseline_store.job_folder_name("dscnn-measured") == "dscnn-measured"
    for name in ("../escape", "a/b", ".hidden", "configured", "x" * 200, "ü"):
        folder = baseline_store.job_folder_name(name)
        assert "/" not in folder and not folder.startswith(".") and folder != "configured"
        assert (tmp_path / folder).resolve().parent == tmp_path.resolve()
    assert baseline_store.job_folder_name("a/b") != baseline_store.job_folder_name("a_b")


def test_a_baseline_folder_linked_out_of_the_workspace_is_refused(
    kws: tuple[Engine, CompareService], tmp_path: Path
) -> None:
    engine, service = kws
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, engine.root / ".perfline")
    ticket = service.set_baseline(JOB)
    assert ticket.wait(30)
    assert ticket.path is None and ticket.error is not None
    assert ".perfline is a symbolic link" in ticket.error
    assert list(outside.iterdir()) == []


# ----------------------------------------------------------- bad configured baselines


def _write(root: Path, name: str, content: str | bytes) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)


BAD_BASELINES = {
    "missing": (None, "does not exist"),
    "not-json": ("{not json", "is not JSON"),
    "not-standardized": ('{"results": 3}', "is not a standardized-output document"),
    "invalid-document": (
        '{"schema_version": "1.2.0", "results": [{"kind": "performance"}]}',
        "baselines/main.json",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_BASELINES))
def test_a_bad_configured_baseline_is_a_diagnostic_on_its_line(
    kws: tuple[Engine, CompareService], case: str
) -> None:
    engine, service = kws
    content, expected = BAD_BASELINES[case]
    if content is not None:
        _write(engine.root, "baselines/main.json", content)
    line = _with_baseline_key(engine.root, "baselines/main.json")
    _reload(engine, service)
    (problem,) = service.problems()
    assert problem.file == str(engine.root / "perfline.toml") and problem.line == line
    assert "baselines/main.json" in problem.message and expected in problem.message
    assert service.describe(JOB)[0] == "error"
    good = engine.result(JOB)
    assert good is not None and engine.job(JOB).error is None  # type: ignore[union-attr]
    assert service.comparison(JOB, good.generation, SETTINGS) is None


def test_a_baseline_of_another_model_or_runtime_is_a_diagnostic(
    kws: tuple[Engine, CompareService], tmp_path: Path
) -> None:
    engine, service = kws
    ort = tmp_path / "ort"
    ort.mkdir()
    shutil.copyfile(ORT_MODEL, ort / "dscnn.onnx")
    shutil.copyfile(INTERLEAVED_A, ort / "dscnn_noopt.json")
    document = _processed(ort, "dscnn_noopt")
    _write(engine.root, "baselines/ort.json", json.dumps(document))
    line = _with_baseline_key(engine.root, "baselines/ort.json")
    _reload(engine, service)
    (problem,) = service.problems()
    assert problem.line == line
    assert "cannot be compared with this job" in problem.message
    assert "different producers or modes" in problem.message


@pytest.mark.parametrize("kind", ["outside", "fifo"])
def test_a_baseline_that_is_not_a_file_of_the_workspace_is_never_read(
    kws: tuple[Engine, CompareService], tmp_path: Path, kind: str
) -> None:
    engine, service = kws
    target = engine.root / "baselines" / "main.json"
    target.parent.mkdir()
    if kind == "outside":
        secret = tmp_path / "secret.json"
        secret.write_text(json.dumps(_processed_kws_copy(tmp_path)))
        os.symlink(secret, target)
        expected = "resolves outside the workspace"
    else:
        os.mkfifo(target)  # reading it would block for ever
        expected = "named pipe"
    line = _with_baseline_key(engine.root, "baselines/main.json")
    _reload(engine, service)
    (problem,) = service.problems()
    assert problem.line == line and expected in problem.message, problem


def _processed_kws_copy(tmp_path: Path) -> dict[str, Any]:
    return _processed(copy_kws(tmp_path / "copy"))


# ------------------------------------------------------------ configured baselines


def test_a_configured_baseline_is_compared_and_its_sources_kept(
    kws: tuple[Engine, CompareService], tmp_path: Path
) -> None:
    engine, service = kws
    _write(engine.root, "baselines/rerun.json", json.dumps(_rerun_document(tmp_path)))
    line = _with_baseline_key(engine.root, "baselines/rerun.json")
    _reload(engine, service)
    found = _ready(engine, service)
    assert found is not None and not service.problems()
    assert found.baseline.origin == "perfline.toml" and found.baseline.line == line
    (result,) = found.comparison.results
    verdicts = {e.new_line: e.metric("duration_avg").verdict for e in result.lines()}
    # the rerun (slower) is the baseline now: the example's run is the faster one
    assert verdicts[26] == "improvement" and verdicts[40] == "improvement"
    assert verdicts[42] == "regression"
    kept = engine.root / ".perfline" / "baselines" / "configured" / found.baseline.digest[:16]
    assert (kept / "sources" / "dscnn.py").read_text() == (engine.root / "dscnn.py").read_text()
    manifest = json.loads((kept / "baseline.json").read_text())
    assert manifest["sources"] == {"/home/dev/kws/dscnn.py": "dscnn.py"}
    # the baseline file rewritten (the engine's file events): compared again
    (engine.root / "baselines" / "rerun.json").write_text(json.dumps(_processed_kws_copy(tmp_path)))
    engine.notify_changed([engine.root / "baselines" / "rerun.json"], finished=True)
    again = _ready(engine, service)
    assert again is not None and again.baseline.digest != found.baseline.digest
    assert {e.metric("duration_avg").verdict for e in again.comparison.results[0].lines()} == {
        "unchanged"
    }


def test_clearing_the_stored_baseline_falls_back_to_perfline_toml(
    kws: tuple[Engine, CompareService], tmp_path: Path
) -> None:
    engine, service = kws
    _write(engine.root, "baselines/rerun.json", json.dumps(_rerun_document(tmp_path)))
    _with_baseline_key(engine.root, "baselines/rerun.json")
    _reload(engine, service)
    assert service.set_baseline(JOB).wait(30)
    stored = _ready(engine, service)
    assert stored is not None and stored.baseline.origin == "command"
    ticket = service.clear_baseline(JOB)
    assert ticket.wait(30) and ticket.error is None
    assert not (engine.root / ".perfline" / "baselines" / JOB).exists()
    configured = _ready(engine, service)
    assert configured is not None and configured.baseline.origin == "perfline.toml"


# ------------------------------------------------------------------- line mapping


def _shifted(document: dict[str, Any], by: int) -> dict[str, Any]:
    """The document as recorded from a source with ``by`` lines inserted at the top."""
    copy = json.loads(json.dumps(document))
    for result in copy["results"]:
        for entity in result["entities"]:
            attributes = entity.get("attributes") or {}
            if entity["kind"] in ("code_line", "code_stack") and "line" in attributes:
                attributes["line"] += by
    return copy


def test_lines_are_mapped_from_the_baselines_version_of_the_source(tmp_path: Path) -> None:
    document = _processed(copy_kws(tmp_path / "analysed"))
    root = tmp_path / "ws"
    root.mkdir()
    source = (copy_kws(tmp_path / "src") / "dscnn.py").read_text()
    (root / "dscnn.py").write_text(source)
    (root / "run.json").write_text(json.dumps(document))
    (root / "perfline.toml").write_text(
        '[[path_map]]\nfrom = "/home/dev/kws/"\nto = "."\n\n'
        '[[jobs]]\nname = "doc"\nbackend = "standardized"\ninputs = ["run.json"]\n'
    )
    engine = _engine(root)
    try:
        service = engine.comparisons
        assert service.set_baseline("doc").wait(30)
        _settled(engine, service)
        # Three lines inserted at the top, and the new run recorded against that text.
        (root / "dscnn.py").write_text("# one\n# two\n# three\n" + source)
        (root / "run.json").write_text(json.dumps(_shifted(document, 3)))
        engine.notify_changed([root / "dscnn.py", root / "run.json"], finished=True)
        found = _ready(engine, service, "doc")
        assert found is not None and found.baseline.mapped_files == ("dscnn.py",)
        (result,) = found.comparison.results
        lines = {e.new_line: e for e in result.lines()}
        # every line with a figure (each line some operator's stack passes through in the
        # Inspector's reading of the example's ETDump, call line 41 included), 3 lines down
        assert sorted(lines) == sorted(n + 3 for n in inspector_inclusive_runs(FIRST_INSPECTOR))
        assert sorted(lines) == [27, 28, 29, 30, 43, 44, 45, 47]
        for line, delta in lines.items():
            assert delta.status == "common" and delta.base_line == line - 3, delta
            assert {m.verdict for m in delta.metrics} == {"unchanged"}
    finally:
        engine.close()


# ---------------------------------------------------------------- off the request path


def test_a_query_never_waits_for_a_comparison(
    kws: tuple[Engine, CompareService], monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, service = kws
    real = job_baselines.compare_documents
    entered, release = threading.Event(), threading.Event()

    def held(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        assert release.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(job_baselines, "compare_documents", held)
    assert service.set_baseline(JOB).wait(30)
    assert entered.wait(30)  # the service's thread is inside a comparison now
    good = engine.result(JOB)
    assert good is not None
    # Answered at once (the comparison would never end without the release below).
    assert service.comparison(JOB, good.generation, SETTINGS) is None
    assert service.describe(JOB)[0] == "computing"
    release.set()
    assert service.wait_idle(60)
    assert service.comparison(JOB, good.generation, SETTINGS) is not None


# ---------------------------------------------------------------- the engine's events


def _taken(engine: Engine) -> list[events.CompareInput]:
    """Every input the loop hands the comparison service from now on."""
    seen: list[events.CompareInput] = []
    service = engine.comparisons
    take = service.take

    def recording(event: events.CompareInput) -> None:
        seen.append(event)
        take(event)

    service.take = recording  # type: ignore[method-assign]
    return seen


def test_the_engine_owns_one_service_and_the_loop_alone_drives_it(
    kws: tuple[Engine, CompareService], tmp_path: Path
) -> None:
    """Commands and wants are posted to the engine's loop as typed events of its closed
    union and handed to the service by it; a result installed, a configured baseline file
    rewritten and a changed ``perfline.toml`` are told by the loop; no registry, no path
    callbacks, no string sentinels."""
    engine, service = kws
    assert engine.comparisons is service
    assert not hasattr(engine, "watch_paths")
    from perfline.server.baselines import compare_service

    assert not hasattr(compare_service, "service_for")
    posted, taken = _posted_events(engine), _taken(engine)
    # a command: posted as a BaselineSet, then handed over by the loop
    ticket = service.set_baseline(JOB)
    assert ticket.wait(30) and ticket.error is None
    (command,) = [e for e in posted if isinstance(e, events.BaselineSet)]
    assert command.job == JOB and command.ticket is ticket
    assert command in taken
    # settings not computed yet: asked for once, as a ComparisonWanted
    other = CompareSettings(level=0.01)
    good = engine.result(JOB)
    assert good is not None
    assert service.comparison(JOB, good.generation, other) is None
    assert service.comparison(JOB, good.generation, other) is None
    assert [e for e in posted if isinstance(e, events.ComparisonWanted)] == [
        events.ComparisonWanted(other)
    ]
    assert service.wait_idle(60)
    assert service.comparison(JOB, good.generation, other) is not None
    # a configured baseline file rewritten: the loop tells which job's baseline changed
    _write(engine.root, "baselines/rerun.json", json.dumps(_rerun_document(tmp_path)))
    assert service.clear_baseline(JOB).wait(30)
    _with_baseline_key(engine.root, "baselines/rerun.json")
    taken.clear()
    _reload(engine, service)
    assert events.JobsReplanned() in taken  # perfline.toml changed: every job
    taken.clear()
    (engine.root / "baselines" / "rerun.json").write_text(json.dumps(_processed_kws_copy(tmp_path)))
    engine.notify_changed([engine.root / "baselines" / "rerun.json"], finished=True)
    _settled(engine, service)
    assert taken == [events.BaselineFileChanged((JOB,))]
    # a new result: ResultInstalled, from the loop
    taken.clear()
    engine.reanalyze(JOB)
    _settled(engine, service)
    assert events.ResultInstalled(JOB) in taken
    assert all(isinstance(e, typing.get_args(events.CompareInput)) for e in taken)


def test_the_states_are_the_literal_ones(kws: tuple[Engine, CompareService]) -> None:
    engine, service = kws
    _settled(engine, service)
    states = set(typing.get_args(ComparisonState))
    assert states == {"no-baseline", "no-result", "computing", "ready", "error"}
    assert service.describe(JOB)[0] in states
    assert service.describe("no such job")[0] == "no-baseline"


def test_a_closed_engine_refuses_commands(tmp_path: Path) -> None:
    engine = _engine(copy_kws(tmp_path))
    service = engine.comparisons
    engine.close()
    ticket = service.clear_baseline(JOB)
    assert ticket.wait(5) and ticket.error == "the workspace is closed"
    assert service.wait_idle(5)
