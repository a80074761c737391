"""Real file operations under a watchdog observer: the served result after the last
write equals a fresh analysis of the final files, and the last good result is
served in between."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.server.engine import Engine, EngineEvent
from perfline.server.watcher import Watcher
from tests.support.server_helpers import INPUT_DOC, load, wait_for, with_value

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def watched(tmp_path: Path) -> Iterator[tuple[Engine, Path, list[EngineEvent]]]:
    target = tmp_path / "cap.mlia.json"
    target.write_text(json.dumps(with_value(load(INPUT_DOC), 1)))
    (tmp_path / ".git").mkdir()
    engine = Engine(tmp_path, debounce=0.05, settle=0.3)
    events: list[EngineEvent] = []
    engine.subscribe(events.append)
    engine.start()
    assert engine.wait_idle(20)
    watcher = Watcher(engine)
    watcher.start()
    try:
        yield engine, target, events
    finally:
        watcher.stop()
        engine.close()


def _fresh(document: dict[str, object]) -> dict[str, object]:
    return postprocess(document, PipelineSettings(), source="fresh")


def _served(engine: Engine) -> object:
    good = engine.result("cap")
    return good.document if good is not None else None


def _settled(engine: Engine, expected: object) -> bool:
    return wait_for(lambda: _served(engine) == expected and engine.wait_idle(0.01), timeout=15)


def test_atomic_replace(watched: tuple[Engine, Path, list[EngineEvent]]) -> None:
    engine, target, _ = watched
    final = with_value(load(INPUT_DOC), 2)
    tmp = target.with_name(".cap.mlia.json.tmp")
    tmp.write_text(json.dumps(final))
    os.replace(tmp, target)
    assert _settled(engine, _fresh(final))
    info = engine.job("cap")
    assert info is not None and info.error is None
    assert engine.job_names() == ["cap"]


def test_written_in_pieces(watched: tuple[Engine, Path, list[EngineEvent]]) -> None:
    engine, target, events = watched
    before = _served(engine)
    final = with_value(load(INPUT_DOC), 3)
    data = json.dumps(final, indent=2).encode()
    with target.open("wb") as handle:
        for start in range(0, len(data), len(data) // 4 + 1):
            handle.write(data[start : start + len(data) // 4 + 1])
            handle.flush()
            os.fsync(handle.fileno())
            # While the write is in progress the last good result stays served.
            assert _served(engine) in (before, _fresh(final))
            time.sleep(0.03)
    assert _settled(engine, _fresh(final))
    assert not [e for e in events if e.kind == "result" and e.error]


def test_deleted_then_restored(watched: tuple[Engine, Path, list[EngineEvent]]) -> None:
    engine, target, _events = watched
    content = target.read_bytes()
    before = _served(engine)
    target.unlink()
    time.sleep(0.15)  # past the debounce: the deletion has been seen
    assert engine.job("cap") is not None
    assert _served(engine) == before
    target.write_bytes(content)
    assert _settled(engine, before)
    info = engine.job("cap")
    assert info is not None and info.error is None


def test_deleted_for_good_removes_the_job(
    watched: tuple[Engine, Path, list[EngineEvent]],
) -> None:
    engine, target, _ = watched
    target.unlink()
    assert wait_for(lambda: engine.job("cap") is None, timeout=15)


def test_bad_then_good(watched: tuple[Engine, Path, list[EngineEvent]]) -> None:
    engine, target, _events = watched
    before = _served(engine)
    target.write_text('{"results": [ this is not json')
    assert wait_for(lambda: (engine.job("cap") or _none()).state == "error", timeout=15)
    info = engine.job("cap")
    assert info is not None and info.stale and info.error is not None
    assert _served(engine) == before  # the last good result is served in between
    final = with_value(load(INPUT_DOC), 4)
    target.write_text(json.dumps(final))
    assert _settled(engine, _fresh(final))
    info = engine.job("cap")
    assert info is not None and info.error is None and not info.stale


def test_ignored_folders_trigger_nothing(watched: tuple[Engine, Path, list[EngineEvent]]) -> None:
    engine, target, _events = watched
    runs = dict(engine.backend_runs)
    git = target.parent / ".git"
    (git / "x.mlia.json").write_bytes(target.read_bytes())
    venv = target.parent / "venv"
    venv.mkdir()
    (venv / "y.mlia.json").write_bytes(target.read_bytes())
    time.sleep(0.4)
    assert engine.wait_idle(10)
    assert engine.job_names() == ["cap"]
    assert engine.backend_runs == runs


class _None:
    state = "missing"


def _none() -> _None:
    return _None()
