"""The post-processing leaves no cyclic garbage, and pausing the collector
around it does not cost a young-generation scan of its output afterwards.

``core.collection`` relies on both: the cyclic collector is off while the
stages run, so anything they left in a reference cycle would stay allocated
until some later full collection (in the compiled build, nested functions that
refer to each other used to form such cycles on every bounded cover search).
"""

from __future__ import annotations

import contextlib
import gc
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from perfline.core.collection import collection_paused
from perfline.core.errors import InputError
from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.core.projection.searches import search_selections
from tests.support.cases import CASES
from tests.support.projection_builders import faithful_contributor, origin_sums


def _inputs() -> list[Path]:
    return sorted(
        path
        for folder in ("worked", "probes", "random")
        for path in (CASES / folder).glob("*.json")
        if not path.name.endswith(".expected.json")
    )


@pytest.fixture
def collector_state() -> Iterator[None]:
    enabled = gc.isenabled()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
        else:
            gc.disable()


@pytest.mark.usefixtures("collector_state")
@pytest.mark.parametrize("case", _inputs(), ids=lambda path: path.name)
def test_postprocessing_leaves_no_cyclic_garbage(case: Path) -> None:
    document = json.loads(case.read_text())
    gc.collect()
    gc.disable()
    # rejected inputs too: what the stages built before the error must be freed
    with contextlib.suppress(InputError):
        postprocess(document, PipelineSettings(use_backend_defaults=True))
    found = gc.collect()
    assert found == 0, f"{case.name}: {found} objects were only reachable through cycles"


@pytest.mark.usefixtures("collector_state")
def test_the_bounded_cover_search_leaves_no_cyclic_garbage() -> None:
    """The search that used to leave a cycle per call, called directly (so the test
    does not depend on which cases happen to reach it)."""
    sums = origin_sums(range(4))
    pool = [
        faithful_contributor(sums, {0}, {0}),
        faithful_contributor(sums, {1}, {1}),
        faithful_contributor(sums, {0, 1}, {0, 1}),
        faithful_contributor(sums, {2, 3}, {2, 3}),
        faithful_contributor(sums, {2}, {2}),
        faithful_contributor(sums, {3}, {3}),
    ]
    gc.collect()
    gc.disable()
    selections = search_selections(pool, frozenset(range(4)), frozenset())
    assert len(selections) == 4  # {0,1} whole or split, times {2,3} whole or split
    del selections
    found = gc.collect()
    assert found == 0, f"{found} objects were only reachable through cycles"


@pytest.mark.usefixtures("collector_state")
def test_leaving_the_pause_does_not_start_a_young_collection() -> None:
    # objects frozen by earlier tests (the daemon's engine freezes what its runs
    # allocated) would turn the promotion off: see the next test for that case
    gc.unfreeze()
    gc.collect()
    gc.enable()
    started: list[int] = []

    def record(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started.append(info["generation"])

    gc.callbacks.append(record)
    try:
        with collection_paused():
            kept = [[index] for index in range(50_000)]
        assert gc.isenabled()
        also = [[index] for index in range(100)]  # well under the young threshold
    finally:
        gc.callbacks.remove(record)
    assert started == [], "what the pause allocated was scanned again on leaving it"
    assert any(item is kept for item in gc.get_objects(generation=2))
    del kept, also


@pytest.mark.usefixtures("collector_state")
def test_objects_frozen_by_the_process_stay_frozen() -> None:
    gc.collect()
    gc.enable()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        with collection_paused():
            kept = [[index] for index in range(1_000)]
        assert gc.get_freeze_count() == frozen
        assert gc.isenabled()
    finally:
        gc.unfreeze()
    del kept


@pytest.mark.usefixtures("collector_state")
def test_a_nested_pause_leaves_the_collector_off() -> None:
    gc.disable()
    with collection_paused():
        pass
    assert not gc.isenabled()
