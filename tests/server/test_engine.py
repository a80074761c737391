"""The engine without any watcher: file events are reported by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.server.engine import Engine, EngineEvent
from perfline.server.scheduler.engine_facade import QUICK_FLUSH
from tests.support.server_helpers import INPUT_DOC, PROCESSED_DOC, load, wait_for, with_value

pytestmark = pytest.mark.timeout(60)


def _engine(root: Path, **kwargs: float) -> Engine:
    engine = Engine(
        root,
        debounce=kwargs.get("debounce", 0.02),
        settle=kwargs.get("settle", 0.1),
        quick=kwargs.get("quick", QUICK_FLUSH),
    )
    engine.start()
    assert engine.wait_idle(30)
    return engine


def _write(path: Path, document: object) -> None:
    path.write_text(json.dumps(document, indent=1))


def test_convention_jobs_and_processing(tmp_path: Path) -> None:
    _write(tmp_path / "a.mlia.json", load(INPUT_DOC))
    (tmp_path / "runs").mkdir()
    _write(tmp_path / "runs" / "mlia-output.json", load(INPUT_DOC))
    engine = _engine(tmp_path)
    try:
        assert engine.job_names() == ["a", "runs/mlia-output"]
        good = engine.result("a")
        assert good is not None
        expected = postprocess(load(INPUT_DOC), PipelineSettings(), source="a.mlia.json")
        assert good.document == expected
    finally:
        engine.close()


def test_persisted_processed_document_is_served_unchanged(tmp_path: Path) -> None:
    (tmp_path / "done.mlia.json").write_bytes(PROCESSED_DOC.read_bytes())
    engine = _engine(tmp_path)
    try:
        good = engine.result("done")
        assert good is not None
        assert good.document == load(PROCESSED_DOC)
        entries = engine.line_entries("/home/dev/proj/model.py")
        assert sorted(entries) == [12, 40]
        assert entries[12][0].label == "15 cycles · 100%"
    finally:
        engine.close()


def test_one_changed_input_reruns_one_job(tmp_path: Path) -> None:
    for name in ("a", "b", "c"):
        _write(tmp_path / f"{name}.mlia.json", load(INPUT_DOC))
    engine = _engine(tmp_path)
    try:
        assert engine.backend_runs == {"a": 1, "b": 1, "c": 1}
        # Identical content: parsed and processed once, memoized by content hash.
        assert engine.memo.misses == {"standardized": 1}
        events: list[EngineEvent] = []
        engine.subscribe(events.append)
        _write(tmp_path / "b.mlia.json", with_value(load(INPUT_DOC), 7))
        engine.notify_changed([tmp_path / "b.mlia.json"])
        assert engine.wait_idle(10)
        assert engine.backend_runs == {"a": 1, "b": 2, "c": 1}
        assert engine.memo.misses == {"standardized": 2}
        assert [e.job for e in events if e.kind == "result"] == ["b"]
        # Touching a file without changing its content reruns nothing.
        (tmp_path / "a.mlia.json").write_bytes((tmp_path / "a.mlia.json").read_bytes())
        engine.notify_changed([tmp_path / "a.mlia.json"])
        assert engine.wait_idle(10)
        assert engine.backend_runs == {"a": 1, "b": 2, "c": 1}
    finally:
        engine.close()


def test_burst_of_events_is_debounced_into_one_run(tmp_path: Path) -> None:
    target = tmp_path / "a.mlia.json"
    _write(target, load(INPUT_DOC))
    # the watcher reports each write as finished: with the quick flush (2 ms) a busy host
    # could flush between two writes of the burst (seen in CI: 3 runs); the burst is
    # held together by the debounce alone here
    engine = _engine(tmp_path, debounce=0.2, quick=0.2)
    try:
        for value in range(1, 6):
            _write(target, with_value(load(INPUT_DOC), value))
            engine.notify_changed([target])
        assert engine.wait_idle(10)
        assert engine.backend_runs["a"] == 2
        good = engine.result("a")
        assert good is not None
        expected = postprocess(with_value(load(INPUT_DOC), 5), PipelineSettings(), source="x")
        assert good.document == expected
    finally:
        engine.close()


def test_bad_input_keeps_last_good_marked_stale(tmp_path: Path) -> None:
    target = tmp_path / "a.mlia.json"
    _write(target, load(INPUT_DOC))
    engine = _engine(tmp_path)
    try:
        first = engine.result("a")
        assert first is not None
        target.write_text('{"schema_version": "1.2.0", ')
        engine.notify_changed([target])
        assert engine.wait_idle(10)
        info = engine.job("a")
        assert info is not None and info.state == "error" and info.stale
        assert info.error is not None
        assert info.error.file == "a.mlia.json" and info.error.line == 1
        assert "invalid JSON" in info.error.message
        assert engine.result("a") == first  # the last good result is still served
        _write(target, with_value(load(INPUT_DOC), 3))
        engine.notify_changed([target])
        assert engine.wait_idle(10)
        info = engine.job("a")
        assert info is not None and info.state == "ok" and not info.stale and info.error is None
    finally:
        engine.close()


def test_error_from_a_write_in_progress_never_sticks(tmp_path: Path) -> None:
    target = tmp_path / "a.mlia.json"
    _write(target, load(INPUT_DOC))
    engine = _engine(tmp_path, settle=0.5)
    events: list[EngineEvent] = []
    engine.subscribe(events.append)
    try:
        text = json.dumps(with_value(load(INPUT_DOC), 9))
        target.write_text(text[: len(text) // 2])  # first half of a write...
        engine.notify_changed([target])
        assert wait_for(lambda: engine.backend_runs["a"] == 2)
        target.write_text(text)  # ... then the rest, within the settle time
        engine.notify_changed([target])
        assert engine.wait_idle(10)
        info = engine.job("a")
        assert info is not None and info.error is None and info.state == "ok"
        assert not [e for e in events if e.kind == "result" and e.error]
    finally:
        engine.close()


def test_semantic_error_is_reported_with_the_pipeline_message(tmp_path: Path) -> None:
    document = load(INPUT_DOC)
    document["results"][0]["entities"][0]["kind"] = "no_such_kind"
    _write(tmp_path / "a.mlia.json", document)
    engine = _engine(tmp_path)
    try:
        info = engine.job("a")
        assert info is not None and info.state == "error" and not info.has_result
        assert info.error is not None and "results[0].entities[0]" in info.error.message
    finally:
        engine.close()


def test_config_jobs_path_map_and_config_errors(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "model.py").write_text("\n".join(f"x{i} = {i}" for i in range(50)))
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "run.json").write_bytes(PROCESSED_DOC.read_bytes())
    config = tmp_path / "perfline.toml"
    config.write_text(
        '[[path_map]]\nfrom = "/home/dev/proj"\nto = "src"\n\n'
        '[[jobs]]\nname = "est"\nbackend = "standardized"\ninputs = ["data/*.json"]\n'
    )
    engine = _engine(tmp_path)
    try:
        assert engine.job_names() == ["est"]
        model = tmp_path / "src" / "model.py"
        assert sorted(engine.line_entries(model)) == [12, 40]
        config.write_text(config.read_text().replace('"standardized"', '"nope"'))
        engine.notify_changed([config])
        assert engine.wait_idle(10)
        error = engine.config_error
        assert error is not None
        assert [p.line for p in error.config_problems] == [7]
        # The last valid config stays in force.
        assert engine.job_names() == ["est"]
        assert sorted(engine.line_entries(model)) == [12, 40]
    finally:
        engine.close()


def test_reanalyze_forces_a_run(tmp_path: Path) -> None:
    _write(tmp_path / "a.mlia.json", load(INPUT_DOC))
    engine = _engine(tmp_path)
    try:
        assert engine.memo.misses == {"standardized": 1}
        assert engine.reanalyze("a") == ["a"]
        assert engine.wait_idle(10)
        assert engine.backend_runs["a"] == 2
        assert engine.memo.misses == {"standardized": 2}  # recomputed, not served from memo
        with pytest.raises(KeyError):
            engine.reanalyze("zzz")
    finally:
        engine.close()


def test_kws_example_measured_lines(tmp_path: Path) -> None:
    from tests.support.server_helpers import KWS_FIGURE_LINES, copy_kws

    root = copy_kws(tmp_path)
    engine = _engine(root)
    try:
        info = engine.job("dscnn-measured")
        assert info is not None and info.state == "ok", info
        entries = engine.line_entries(root / "dscnn.py")
        with_figures = sorted(n for n, e in entries.items() if any(x.label for x in e))
        assert with_figures == KWS_FIGURE_LINES
        label = entries[26][0].label
        assert label is not None and label.startswith("9.6") and " ms " in label and "%" in label
    finally:
        engine.close()


def test_advice_and_failed_checks_land_on_lines(tmp_path: Path) -> None:
    document = load(PROCESSED_DOC)
    result = document["results"][0]
    result["advice"] = [
        {
            "id": "depthwise",
            "category": "performance",
            "severity": "warning",
            "message": "Use a depthwise convolution here.",
            "affected_entity_ids": ["source_operator/segment_0/conv"],
        }
    ]
    result["checks"] = [
        {
            "id": "resize-supported",
            "status": "fail",
            "entity_id": "source_operator/segment_0/resize",
            "details": {"reasons": [{"description": "align_corners is not supported"}]},
        },
        {"id": "conv-supported", "status": "pass", "entity_id": "source_operator/segment_0/conv"},
    ]
    _write(tmp_path / "done.mlia.json", document)
    (tmp_path / "model.py").write_text("\n".join(f"x{i} = {i}" for i in range(50)))
    engine = _engine(tmp_path)
    try:
        found = sorted(
            (d.line, d.severity, d.code, d.message)
            for d in engine.line_diagnostics(tmp_path / "model.py")
        )
        # The stacks of both operators are at line 12, called from line 40.
        assert found == [
            (
                12,
                "error",
                "resize-supported",
                "check resize-supported fail: align_corners is not supported",
            ),
            (12, "warning", "depthwise", "Use a depthwise convolution here."),
            (
                40,
                "error",
                "resize-supported",
                "check resize-supported fail: align_corners is not supported",
            ),
            (40, "warning", "depthwise", "Use a depthwise convolution here."),
        ]
    finally:
        engine.close()


def test_estimator_outputs_are_a_job_by_convention(tmp_path: Path) -> None:
    from tests.support.server_helpers import REPO

    source = REPO / "tests" / "data" / "nx_estimator"
    for kind in ("performance", "debug"):
        name = f"ds_cnn_large_fully_quantized_int8_{kind}_database.dat"
        (tmp_path / name).write_bytes((source / name).read_bytes())
    engine = _engine(tmp_path)
    try:
        (info,) = engine.jobs()
        assert (info.name, info.backend, info.state) == (
            "ds_cnn_large_fully_quantized_int8",
            "nx-estimator",
            "ok",
        )
        good = engine.result(info.name)
        assert good is not None
        assert good.document["results"][0]["producer"] == "nx-performance-estimator"
    finally:
        engine.close()


def test_changing_one_capture_reruns_only_its_measured_job(tmp_path: Path) -> None:
    from tests.support.server_helpers import copy_kws

    root = copy_kws(tmp_path)
    second = root / "second.etdump"
    second.write_bytes((root / "dscnn_portable.etdump").read_bytes())
    (root / "perfline.toml").write_text(
        '[[path_map]]\nfrom = "/home/dev/kws/"\nto = "."\n\n'
        '[[jobs]]\nname = "first"\nbackend = "executorch"\n'
        'inputs = ["dscnn_portable.etrecord", "dscnn_portable.etdump"]\n\n'
        '[[jobs]]\nname = "second"\nbackend = "executorch"\n'
        'inputs = ["dscnn_portable.etrecord", "second.etdump"]\n'
    )
    engine = _engine(root)
    try:
        assert engine.backend_runs == {"first": 1, "second": 1}
        assert engine.memo.misses["executorch.raw"] == 2
        data = second.read_bytes()
        second.write_bytes(data[: len(data) // 2])
        engine.notify_changed([second])
        assert engine.wait_idle(20)
        assert engine.backend_runs == {"first": 1, "second": 2}
        assert engine.memo.misses["executorch.raw"] == 2  # a failed parse is not memoized
        first, failed = engine.job("first"), engine.job("second")
        assert first is not None and first.state == "ok" and not first.stale
        assert failed is not None and failed.state == "error" and failed.stale
        second.write_bytes(data)
        engine.notify_changed([second])
        assert engine.wait_idle(20)
        assert engine.backend_runs == {"first": 1, "second": 3}
        assert engine.result("second") is not None and engine.job("second").state == "ok"  # type: ignore[union-attr]
    finally:
        engine.close()


def test_reanalyze_after_an_unreported_change_runs_the_new_bytes_once(tmp_path: Path) -> None:
    """No watcher and no ``notify_changed``: ``reanalyze`` reads the input as it is now and
    installs that run (qa found the loop kept the old hashes and reran without end)."""
    _write(tmp_path / "a.mlia.json", load(INPUT_DOC))
    engine = _engine(tmp_path)
    try:
        _write(tmp_path / "a.mlia.json", with_value(load(INPUT_DOC), 7))
        assert engine.reanalyze("a") == ["a"]
        assert engine.wait_idle(10)
        assert engine.backend_runs["a"] == 2
        info = engine.job("a")
        assert info is not None and (info.state, info.stale) == ("ok", False)
        good = engine.result("a")
        assert good is not None
        changed = with_value(load(INPUT_DOC), 7)
        assert good.document == postprocess(changed, PipelineSettings(), source="a.mlia.json")
    finally:
        engine.close()


def test_reanalyze_without_a_watcher_sees_new_files(tmp_path: Path) -> None:
    """``reanalyze`` looks at the workspace as it is now: a job whose file appeared since the
    last look is planned and analysed too."""
    _write(tmp_path / "a.mlia.json", load(INPUT_DOC))
    engine = _engine(tmp_path)
    try:
        _write(tmp_path / "b.mlia.json", load(INPUT_DOC))
        engine.reanalyze()
        assert engine.wait_idle(10)
        assert engine.job_names() == ["a", "b"]
        assert engine.backend_runs == {"a": 2, "b": 1}
    finally:
        engine.close()


def test_a_run_that_read_newer_bytes_than_were_hashed_is_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The input changes between the loop's look (its hash cached, so the run reads the file
    itself) and the run's read, and no file event comes: the loop looks at the input again
    before discarding the run, sees the run read what is there, installs it, once."""
    from perfline.server.scheduler import content_hashes, runner

    path = tmp_path / "a.mlia.json"
    _write(path, load(INPUT_DOC))
    monkeypatch.setattr(content_hashes, "RACY_SECONDS", -1.0)  # trust the cached hash
    engine = _engine(tmp_path)
    real_read = runner.read_input
    writes = []

    def read_after_a_write(*args: Any, **kwargs: Any) -> Any:
        if not writes:  # another tool rewrites the file just before the run reads it
            writes.append(1)
            _write(path, with_value(load(INPUT_DOC), 7))
        return real_read(*args, **kwargs)

    try:
        monkeypatch.setattr(runner, "read_input", read_after_a_write)
        engine.reanalyze("a")
        assert engine.wait_idle(10)
        assert writes == [1]
        assert engine.backend_runs["a"] == 2
        info = engine.job("a")
        assert info is not None and (info.state, info.stale) == ("ok", False)
    finally:
        engine.close()


def test_reanalyze_without_a_watcher_reloads_a_changed_config(tmp_path: Path) -> None:
    _write(tmp_path / "a.mlia.json", load(INPUT_DOC))
    engine = _engine(tmp_path)
    try:
        assert engine.config_error is None
        config = '[[jobs]]\nname = "x"\nbackend = "nope"\ninputs = ["a.mlia.json"]\n'
        (tmp_path / "perfline.toml").write_text(config)
        engine.reanalyze("a")
        assert engine.wait_idle(10)
        error = engine.config_error
        assert error is not None and [p.line for p in error.config_problems] == [3]
        assert engine.backend_runs["a"] == 2  # the last valid config stays in force
    finally:
        engine.close()
