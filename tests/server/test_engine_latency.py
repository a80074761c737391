"""The engine's latency mechanisms: finished writes skip the long debounce, the collector
is paused during runs only, final documents are not hoarded by the memo, and each run
records its phases."""

from __future__ import annotations

import gc
import json
import time
import weakref
from pathlib import Path

import pytest

from perfline.core.pipeline import postprocess
from perfline.server.engine import Engine, EngineEvent
from perfline.server.jobs.stage_memo import StageMemo
from tests.support.server_helpers import INPUT_DOC, load, wait_for, with_value

pytestmark = pytest.mark.timeout(60)

#: Long enough that a flush before it can only come from the ``quick`` path.
LONG_DEBOUNCE = 30.0


def _engine(root: Path, **kwargs: float) -> Engine:
    engine = Engine(root, settle=0.1, **kwargs)  # type: ignore[arg-type]
    engine.start()
    assert engine.wait_idle(30)
    return engine


def _write(path: Path, value: float) -> None:
    path.write_text(json.dumps(with_value(load(INPUT_DOC), value)))


def test_finished_write_is_flushed_without_the_debounce(tmp_path: Path) -> None:
    target = tmp_path / "a.mlia.json"
    _write(target, 1)
    engine = _engine(tmp_path, debounce=LONG_DEBOUNCE)
    try:
        _write(target, 2)
        engine.notify_changed([target])  # a write in progress: the full debounce
        assert not engine.wait_idle(0.3)
        assert engine.backend_runs["a"] == 1
        engine.notify_changed([target], finished=True)  # ... and now closed
        assert engine.wait_idle(20)
        assert engine.backend_runs["a"] == 2
    finally:
        engine.close()


def test_another_file_still_being_written_keeps_the_debounce(tmp_path: Path) -> None:
    first, second = tmp_path / "a.mlia.json", tmp_path / "b.mlia.json"
    _write(first, 1)
    _write(second, 1)
    engine = _engine(tmp_path, debounce=LONG_DEBOUNCE)
    try:
        _write(first, 2)
        _write(second, 2)
        engine.notify_changed([second])  # second: still being written
        engine.notify_changed([first], finished=True)
        assert not engine.wait_idle(0.3)
        assert engine.backend_runs == {"a": 1, "b": 1}
        engine.notify_changed([second], finished=True)
        assert engine.wait_idle(20)
        assert engine.backend_runs == {"a": 2, "b": 2}
    finally:
        engine.close()


def test_run_phases_are_recorded_in_order(tmp_path: Path) -> None:
    target = tmp_path / "a.mlia.json"
    _write(target, 1)
    engine = _engine(tmp_path, debounce=0.02)
    try:
        before = time.monotonic()
        _write(target, 2)
        engine.notify_changed([target], finished=True)
        assert engine.wait_idle(20)
        good = engine.result("a")
        assert good is not None and good.timing is not None
        timing = good.timing
        assert timing.event is not None and timing.flushed is not None
        marks = [timing.event, timing.flushed, timing.started, timing.read, timing.backend]
        assert before <= marks[0] and marks == sorted(marks) and marks[-1] <= timing.indexed
        assert "event=" in timing.render() and "index=" in timing.render()
    finally:
        engine.close()


def test_collector_paused_during_runs_only(tmp_path: Path) -> None:
    target = tmp_path / "a.mlia.json"
    _write(target, 1)
    assert gc.isenabled()
    seen: list[bool] = []
    engine = Engine(tmp_path, debounce=0.02, settle=0.1, housekeeping=0.05)
    engine.subscribe(lambda event: seen.append(gc.isenabled()) if event.kind == "started" else None)
    engine.start()
    try:
        assert engine.wait_idle(30)
        assert seen == [False]  # paused while the run was in flight
        assert gc.isenabled()
    finally:
        engine.close()
        gc.unfreeze()
    assert gc.isenabled()


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_garbage_frozen_at_the_end_of_a_run_is_collected_by_housekeeping(
    tmp_path: Path,
) -> None:
    target = tmp_path / "a.mlia.json"
    _write(target, 1)
    refs: list[weakref.ref[_Cycle]] = []

    def on_event(event: EngineEvent) -> None:
        if event.kind == "started":  # the collector is paused: this cycle outlives the run
            refs.append(weakref.ref(_Cycle()))

    engine = Engine(tmp_path, debounce=0.02, settle=0.1, housekeeping=0.05)
    engine.subscribe(on_event)
    engine.start()
    try:
        assert engine.wait_idle(30)
        assert refs and wait_for(lambda: all(ref() is None for ref in refs), timeout=10)
    finally:
        engine.close()
        gc.unfreeze()


def test_memo_keeps_few_final_documents_per_stage() -> None:
    memo = StageMemo(capacity=100)
    for version in range(10):
        memo.get_or_compute("final", (version,), lambda v=version: v, keep=3)
        memo.get_or_compute("model", (version,), lambda v=version: v)
    calls: list[int] = []

    def compute(version: int) -> int:
        calls.append(version)
        return version

    for version in (9, 8, 7, 6):
        memo.get_or_compute("final", (version,), lambda v=version: compute(v), keep=3)
    assert calls == [6]  # only the three most recent finals were kept
    assert memo.misses["model"] == 10
    memo.get_or_compute("model", (0,), lambda: pytest.fail("model stage entries were evicted"))


def test_content_change_of_known_files_skips_the_workspace_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from perfline.server.scheduler import ground

    walks: list[Path] = []
    real_scan = ground.scan_files

    def counting_scan(root: Path, ignore: object = (), on_bad_link: object = None) -> list[str]:
        walks.append(root)
        return real_scan(root, ignore, on_bad_link)  # type: ignore[arg-type]

    monkeypatch.setattr(ground, "scan_files", counting_scan)
    target = tmp_path / "a.mlia.json"
    _write(target, 1)
    engine = _engine(tmp_path, debounce=0.02)
    try:
        assert len(walks) == 1  # the start
        _write(target, 2)
        engine.notify_changed([target], finished=True)
        assert engine.wait_idle(20)
        assert len(walks) == 1 and engine.backend_runs["a"] == 2
        _write(tmp_path / "b.mlia.json", 3)  # a new file: the list changes
        engine.notify_changed([tmp_path / "b.mlia.json"], finished=True)
        assert engine.wait_idle(20)
        assert len(walks) == 2 and engine.job_names() == ["a", "b"]
    finally:
        engine.close()


def test_a_values_only_change_reuses_the_graph_work(tmp_path: Path) -> None:
    target = tmp_path / "a.mlia.json"
    _write(target, 1)
    engine = _engine(tmp_path, debounce=0.05)
    try:
        structure = engine.memos.pipeline("a")  # the job's pipeline memo (observed here)
        first = structure.computed
        assert first > 0 and structure.recalled == 0
        _write(target, 2)
        engine.notify_changed([target], finished=True)
        assert wait_for(lambda: engine.backend_runs["a"] == 2)
        assert engine.wait_idle(20)
        assert structure.computed == first  # nothing graph-derived computed again
        assert structure.recalled > 0
        result = engine.result("a")
        assert result is not None
        fresh = postprocess(with_value(load(INPUT_DOC), 2))
        assert json.dumps(result.document, sort_keys=True) == json.dumps(fresh, sort_keys=True)
    finally:
        engine.close()
