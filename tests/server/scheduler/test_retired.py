"""What a run or an install drops on its way to a refresh (the raw parse, the stage
memo's evictions, the replaced result) is parked and freed after the result is out
(``server.scheduler.retired``): parked while the result is published, freed soon after,
never leaked."""

from __future__ import annotations

import gc
import json
import weakref
from pathlib import Path
from typing import Any

import pytest

from perfline.core.pipeline import PipelineSettings
from perfline.server.engine import Engine
from perfline.server.jobs.context import JobContext, JobInput
from perfline.server.jobs.stage_memo import StageMemo
from perfline.server.jobs.standardized_job import StandardizedOutputJob
from perfline.server.scheduler import loop
from perfline.server.scheduler.retired import RELEASE_AT_MOST, Retired
from tests.support.server_helpers import INPUT_DOC, load, wait_for, with_value

pytestmark = pytest.mark.timeout(60)


class _Marker:
    """A weakly referenceable object a job retires, to watch when it is freed."""


class _RetiringJob(StandardizedOutputJob):
    """The standardized job, retiring one marker per run as well (seen by ``markers``)."""

    def __init__(self) -> None:
        self.markers: list[weakref.ref[_Marker]] = []

    def run(self, context: JobContext) -> dict[str, Any]:
        marker = _Marker()
        self.markers.append(weakref.ref(marker))
        context.retire(marker)
        return super().run(context)


def test_parked_objects_wait_for_an_idle_moment_or_the_limit() -> None:
    retired = Retired()
    assert not retired.due(0.0, busy=False)  # nothing parked
    marker = _Marker()
    seen = weakref.ref(marker)
    retired.park((marker,), 10.0)
    retired.park((), 10.0)  # nothing: not counted
    del marker
    assert len(retired) == 1 and seen() is not None
    assert retired.due(10.0, busy=False)
    assert not retired.due(10.0 + RELEASE_AT_MOST / 2, busy=True)
    assert retired.due(10.0 + RELEASE_AT_MOST, busy=True)
    assert not retired.release()
    assert seen() is None and len(retired) == 0 and not retired.due(99.0, busy=False)


def _document(markers: list[_Marker]) -> dict[str, Any]:
    """A document-shaped tree over ``markers``: its breakdowns list is large."""
    breakdowns = [{"entity_id": str(i), "metrics": [{"m": m}]} for i, m in enumerate(markers)]
    return {"results": [{"breakdowns": breakdowns, "entities": [{"id": "x"}]}]}


def test_release_goes_in_steps_and_frees_everything() -> None:
    markers = [_Marker() for _ in range(10_000)]
    seen = [weakref.ref(m) for m in markers]
    retired = Retired()
    retired.park((_document(markers),), 0.0)
    del markers
    alive: list[int] = []
    while retired.release(step=1000):
        alive.append(sum(s() is not None for s in seen))
    # a slice at a time: after each step part of the tree is still there, less and less
    assert len(alive) >= 5 and alive[0] > 5000 and alive == sorted(alive, reverse=True)
    assert alive[-1] < alive[0] and all(s() is None for s in seen) and len(retired) == 0


def test_what_something_else_holds_is_only_dropped() -> None:
    markers = [_Marker() for _ in range(3000)]
    seen = [weakref.ref(m) for m in markers]
    document = _document(markers)
    retired = Retired()
    retired.park((document,), 0.0)
    while retired.release(step=100):
        pass
    assert all(s() is not None for s in seen)  # the document is still ours
    assert len(document["results"][0]["breakdowns"]) == 3000  # and untouched
    retired.park(document, 0.0)
    del document, markers
    while retired.release():
        pass
    assert all(s() is None for s in seen)


def test_the_standardized_job_retires_its_raw_parse_not_its_result() -> None:
    data = json.dumps(load(INPUT_DOC)).encode()
    context = JobContext(
        (JobInput("a.mlia.json", data, "digest"),), {}, PipelineSettings(), StageMemo()
    )
    processed = StandardizedOutputJob().run(context)
    assert len(context.retired) == 1
    raw = context.retired[0]
    assert raw == load(INPUT_DOC) and raw is not processed


def test_a_deferring_memo_hands_over_what_it_evicts() -> None:
    memo, plain = StageMemo(defer_evictions=True), StageMemo()
    values = [_Marker() for _ in range(3)]
    seen = [weakref.ref(v) for v in values]
    for i, value in enumerate(values):
        memo.get_or_compute("s", (i,), lambda v=value: v, keep=1)
        plain.get_or_compute("s", (i,), lambda v=value: v, keep=1)
    del values, value
    gc.collect()
    assert [s() is not None for s in seen] == [True, True, True]  # two parked, one kept
    evicted = memo.take_evicted()
    assert [id(v) for v in evicted] == [id(seen[0]()), id(seen[1]())]
    assert memo.take_evicted() == []
    del evicted
    plain.take_evicted()  # a plain memo keeps nothing back
    del memo
    gc.collect()
    assert [s() is None for s in seen] == [True, True, False]  # the plain memo keeps the last


def _started(root: Path) -> tuple[Path, _RetiringJob, Engine]:
    """A started engine over one standardized document, with the retiring job type."""
    target = root / "a.mlia.json"
    target.write_text(json.dumps(with_value(load(INPUT_DOC), 1)))
    job = _RetiringJob()
    engine = Engine(root, debounce=0.02, settle=0.1, registry={"standardized": job})
    engine.start()
    assert engine.wait_idle(30)
    return target, job, engine


def _first_result(engine: Engine) -> weakref.ref[Any]:
    """A weak reference to the result served now (no strong one kept here)."""
    first = engine.result("a")
    assert first is not None
    return weakref.ref(first)


def _changed(engine: Engine, target: Path, value: int) -> None:
    target.write_text(json.dumps(with_value(load(INPUT_DOC), value)))
    engine.notify_changed([target], finished=True)
    assert engine.wait_idle(30)


def test_a_runs_garbage_and_the_replaced_result_stay_parked_until_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loop, "RELEASE_DELAY", 600.0)  # no release in this test
    target, job, engine = _started(tmp_path)
    try:
        replaced = _first_result(engine)
        _changed(engine, target, 2)
        assert engine.result("a") is not None and engine.result("a") is not replaced()
        gc.collect()
        assert len(job.markers) == 2 and all(m() is not None for m in job.markers)
        assert replaced() is not None  # parked, not freed on the way to the refresh
    finally:
        engine.close()


def test_parked_objects_are_freed_once_the_result_is_out(tmp_path: Path) -> None:
    target, job, engine = _started(tmp_path)
    try:
        replaced = _first_result(engine)
        for value in range(2, 12):  # ten changes: the stage memo evicts some documents too
            _changed(engine, target, value)
        assert wait_for(lambda: all(m() is None for m in job.markers) and replaced() is None)
        assert len(job.markers) == 11
    finally:
        engine.close()
