"""A hostile workspace against the engine (issue 20, items 1, 2, 3, 5): what it holds can
neither make the engine serve what the files do not hold, nor hang it, nor make it read
outside the workspace. File events are reported by hand unless a test needs a watcher."""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.server.engine import Engine
from tests.support.server_helpers import INPUT_DOC, load, wait_for, with_value

pytestmark = pytest.mark.timeout(60)


def _doc(value: float) -> str:
    return json.dumps(with_value(load(INPUT_DOC), value))


def _processed(value: float) -> dict[str, Any]:
    return postprocess(with_value(load(INPUT_DOC), value), PipelineSettings(), source="x")


class _SlowStandardized:
    """A standardized-output job type that takes ``delay`` seconds on content ``slow``
    (``polite``: checking for cancellation while it waits)."""

    name = "standardized"
    description = "slowed for a test"

    def __init__(self, slow: bytes, delay: float, *, polite: bool) -> None:
        self.slow = slow
        self.delay = delay
        self.polite = polite
        self.cancelled = 0

    def run(self, context: Any) -> dict[str, Any]:
        (item,) = context.inputs
        if item.data == self.slow:
            deadline = time.monotonic() + self.delay
            while time.monotonic() < deadline:
                if self.polite and context.cancelled.is_set():
                    self.cancelled += 1
                    context.check_cancelled()
                time.sleep(0.01)
        result: dict[str, Any] = postprocess(
            json.loads(item.data), context.settings, source=item.path
        )
        return result

    def discover(self, files: Sequence[str]) -> list[Any]:
        found = []
        for path in files:
            if path.endswith(".mlia.json"):
                found.append(_Discovered(path[: -len(".mlia.json")], self.name, (path,)))
        return found


class _Discovered:
    def __init__(self, name: str, backend: str, inputs: tuple[str, ...]) -> None:
        self.name, self.backend, self.inputs = name, backend, inputs


def _started(root: Path, **kwargs: Any) -> Engine:
    engine = Engine(root, debounce=0.02, settle=0.1, **kwargs)
    engine.start()
    assert engine.wait_idle(30)
    return engine


# ------------------------------------------------------------------ item 5: A-B-A


@pytest.mark.parametrize("polite", [False, True], ids=["uncancellable", "cancellable"])
def test_a_b_a_race_ends_serving_what_the_disk_holds(tmp_path: Path, polite: bool) -> None:
    target = tmp_path / "a.mlia.json"
    first, second = _doc(1), _doc(2)
    target.write_text(first)
    slow = _SlowStandardized(second.encode(), 1.5, polite=polite)
    engine = _started(tmp_path, registry={"standardized": slow})
    try:
        assert engine.result("a") is not None
        target.write_text(second)  # B: its run starts and takes 1.5 s
        engine.notify_changed([target], finished=True)
        assert wait_for(lambda: engine.backend_runs.get("a") == 2)
        target.write_text(first)  # A again, while B's run is in flight
        engine.notify_changed([target], finished=True)
        assert engine.wait_idle(30)
        good, info = engine.result("a"), engine.job("a")
        assert good is not None and info is not None
        assert good.document == _processed(1)  # A's, not B's
        assert info.state == "ok" and not info.stale
        if polite:
            assert slow.cancelled == 1  # B's run was stopped, not waited for
    finally:
        engine.close()


def test_a_result_is_installed_only_if_its_inputs_are_still_on_disk(tmp_path: Path) -> None:
    """B's run finishes after A was written back but before that write was flushed: the
    finished run is checked against the disk, not only against the last flush."""
    target = tmp_path / "a.mlia.json"
    first, second = _doc(1), _doc(2)
    target.write_text(first)
    slow = _SlowStandardized(second.encode(), 0.5, polite=False)
    engine = Engine(tmp_path, debounce=3.0, settle=0.1, quick=0.01, registry={"standardized": slow})
    engine.start()
    assert engine.wait_idle(30)
    served: list[object] = []
    engine.subscribe(
        lambda event: served.append(engine.result("a")) if event.kind == "result" else None
    )
    try:
        target.write_text(second)
        engine.notify_changed([target], finished=True)
        assert wait_for(lambda: engine.backend_runs.get("a") == 2)
        target.write_text(first)
        engine.notify_changed([target])  # a write in progress: flushed only after 3 s
        assert wait_for(lambda: engine.backend_runs.get("a") == 3, timeout=20)
        assert engine.wait_idle(30)
        documents = [good.document for good in served if good is not None]  # type: ignore[attr-defined]
        assert _processed(2) not in documents  # B was never served
        good = engine.result("a")
        assert good is not None and good.document == _processed(1)
    finally:
        engine.close()


# ------------------------------------------------------- item 5: change detection


def test_same_size_content_with_the_old_mtime_restored_is_seen(tmp_path: Path) -> None:
    target = tmp_path / "a.mlia.json"
    first, second = _doc(1), _doc(2)
    assert len(first) == len(second)
    target.write_text(first)
    before = os.stat(target)
    engine = _started(tmp_path)
    try:
        target.write_text(second)  # what cp -p, rsync -t or tar do
        os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
        after = os.stat(target)
        assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
        engine.notify_changed([target], finished=True)
        assert engine.wait_idle(20)
        good = engine.result("a")
        assert good is not None and good.document == _processed(2)
    finally:
        engine.close()


# ------------------------------------------------------- item 1: only regular files


def _kws_record(root: Path) -> None:
    """An ETRecord ``x.etrecord`` beside whatever ``x.etdump`` the test makes."""
    from tests.support.server_helpers import KWS

    (root / "x.etrecord").write_bytes((KWS / "dscnn_portable.etrecord").read_bytes())


def test_a_fifo_input_is_refused_without_being_opened(tmp_path: Path) -> None:
    _kws_record(tmp_path)
    os.mkfifo(tmp_path / "x.etdump")
    (tmp_path / "b.mlia.json").write_text(_doc(1))
    engine = _started(tmp_path)
    try:
        info = engine.job("x")
        assert info is not None and info.state == "error" and info.error is not None
        assert "named pipe (FIFO)" in info.error.message
        assert engine.result("b") is not None  # the other job is served
    finally:
        engine.close()


def test_a_fifo_named_in_the_config_is_refused(tmp_path: Path) -> None:
    _kws_record(tmp_path)
    os.mkfifo(tmp_path / "pipe.etdump")
    (tmp_path / "perfline.toml").write_text(
        '[[jobs]]\nname = "m"\nbackend = "executorch"\ninputs = ["x.etrecord", "pipe.etdump"]\n'
    )
    engine = _started(tmp_path)
    try:
        info = engine.job("m")
        assert info is not None and info.error is not None
        assert "named pipe (FIFO)" in info.error.message
    finally:
        engine.close()


def test_a_device_inside_an_allowed_root_is_refused(tmp_path: Path) -> None:
    (tmp_path / "perfline.toml").write_text(
        '[[jobs]]\nname = "z"\nbackend = "standardized"\ninputs = ["/dev/zero"]\n'
    )
    engine = _started(tmp_path, allowed_roots=["/dev"])
    try:
        info = engine.job("z")
        assert info is not None and info.error is not None
        assert "character device" in info.error.message
    finally:
        engine.close()


def test_an_input_over_its_size_limit_is_refused(tmp_path: Path) -> None:
    from perfline.server.scheduler.bounded_reads import InputLimits

    (tmp_path / "a.mlia.json").write_text(_doc(1))
    engine = _started(tmp_path, limits=InputLimits.with_overrides({"json": 1000}))
    try:
        info = engine.job("a")
        assert info is not None and info.error is not None
        assert "over the limit of 1000 bytes for json inputs" in info.error.message
    finally:
        engine.close()


def test_bounded_read_stops_at_the_limit_on_a_growing_source() -> None:
    from perfline.core.errors import InputError
    from perfline.server.file_access import reads

    read, write = os.pipe()
    try:
        os.write(write, b"x" * 5000)
        with pytest.raises(InputError, match="grew past the limit of 100 bytes"):
            reads.read_bounded(read, "p", 100)
    finally:
        os.close(read)
        os.close(write)


def test_queries_answer_while_a_run_is_blocked(tmp_path: Path) -> None:
    release = threading.Event()

    class Blocked(_SlowStandardized):
        def run(self, context: Any) -> dict[str, Any]:
            release.wait(30)
            return super().run(context)

    (tmp_path / "a.mlia.json").write_text(_doc(1))
    engine = Engine(tmp_path, registry={"standardized": Blocked(b"", 0, polite=False)})
    engine.start()
    try:
        assert wait_for(lambda: engine.backend_runs.get("a") == 1)
        info = engine.job("a")  # answered while the backend is stuck
        assert info is not None and info.state == "running"
        assert [j.name for j in engine.jobs()] == ["a"] and engine.result("a") is None
    finally:
        release.set()
        assert engine.wait_idle(30)
        engine.close()


# -------------------------------------------------------------- item 2: symlinks


def test_symlink_loops_are_reported_once_and_never_kill_the_watcher(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from perfline.server.watcher import Watcher

    target = tmp_path / "cap.mlia.json"
    target.write_text(_doc(1))
    engine = _started(tmp_path)
    watcher = Watcher(engine)
    watcher.start()
    caplog.set_level(logging.WARNING)
    try:
        os.symlink("loopB.etdump", tmp_path / "loopA.etdump")
        os.symlink("loopA.etdump", tmp_path / "loopB.etdump")
        os.symlink("gone.etdump", tmp_path / "dangling.etdump")
        assert engine.relative(tmp_path / "loopA.etdump") == "loopA.etdump"
        time.sleep(0.3)
        (tmp_path / "new.mlia.json").write_text(_doc(3))  # a second rescan
        assert wait_for(lambda: engine.job_names() == ["cap", "new"], timeout=15)
        target.write_text(_doc(2))  # the watcher still sees changes
        assert wait_for(lambda: _served(engine, "cap") == _processed(2), timeout=15)
        assert "loopA.etdump" not in engine.files()
        assert "dangling.etdump" not in engine.files()
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert len([w for w in warnings if "loopA.etdump" in w]) == 1
        assert len([w for w in warnings if "dangling.etdump" in w]) == 1
    finally:
        watcher.stop()
        engine.close()


def _served(engine: Engine, name: str) -> object:
    good = engine.result(name)
    return good.document if good is not None else None


def test_a_symlink_loop_named_in_the_config_is_a_job_error(tmp_path: Path) -> None:
    os.symlink("loopB.mlia.json", tmp_path / "loopA.mlia.json")
    os.symlink("loopA.mlia.json", tmp_path / "loopB.mlia.json")
    (tmp_path / "perfline.toml").write_text(
        '[[jobs]]\nname = "l"\nbackend = "standardized"\ninputs = ["loopA.mlia.json"]\n'
    )
    engine = _started(tmp_path)
    try:
        info = engine.job("l")
        assert info is not None and info.error is not None
        assert "symbolic link loop" in info.error.message
    finally:
        engine.close()


# ------------------------------------------------------ item 3: the workspace boundary


@pytest.mark.parametrize("where", ["relative", "absolute", "symlink"])
def test_inputs_outside_the_workspace_are_not_read(tmp_path: Path, where: str) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    outside = tmp_path / "outside.mlia.json"
    outside.write_text(_doc(1))
    if where == "symlink":
        os.symlink(outside, root / "inside.mlia.json")
        config = None
    else:
        name = "../outside.mlia.json" if where == "relative" else str(outside)
        config = f'[[jobs]]\nname = "o"\nbackend = "standardized"\ninputs = ["{name}"]\n'
        (root / "perfline.toml").write_text(config)
    engine = _started(root)
    try:
        (info,) = engine.jobs()
        assert info.error is not None and "outside the workspace" in info.error.message
        assert info.error.file is None  # the diagnostic goes on the job's config line
        assert info.config_line == (1 if config else None)
        assert engine.result(info.name) is None
    finally:
        engine.close()
    allowed = _started(root, allowed_roots=[tmp_path])
    try:
        (info,) = allowed.jobs()
        assert info.state == "ok", info
    finally:
        allowed.close()


def test_a_path_map_outside_the_workspace_is_a_config_problem(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "perfline.toml").write_text(
        '[workspace]\nsource_roots = ["."]\n\n'
        '[[path_map]]\nfrom = "/home/dev/proj"\nto = "../elsewhere"\n'
    )
    engine = _started(root)
    try:
        error = engine.config_error
        assert error is not None
        assert [(p.line, p.key) for p in error.config_problems] == [(4, "to")]
        assert "outside the workspace" in error.config_problems[0].message
    finally:
        engine.close()


def test_client_paths_are_resolved_inside_the_workspace_or_refused(tmp_path: Path) -> None:
    from perfline.server.scheduler.boundary import PathRefused, WorkspaceBoundary

    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "model.py").write_text("x = 1\n")
    os.symlink("b", root / "a")
    os.symlink("a", root / "b")
    boundary = WorkspaceBoundary(root)
    assert boundary.resolve_client_path("src/model.py") == (root / "src" / "model.py").resolve()
    assert boundary.resolve_client_path(str(root / "src" / "model.py")).name == "model.py"
    for bad, reason in (
        ("../x.py", "outside the workspace"),
        ("/etc/passwd", "outside the workspace"),
        ("src/\x00.py", "NUL"),
        ("a/model.py", "symbolic link loop"),
        ("x" * 1_000_000, "longer than 4096"),
        ("/".join(["src"] * 200_000), "longer than 4096"),
    ):
        with pytest.raises(PathRefused, match=reason):
            boundary.resolve_client_path(bad)
    extra = WorkspaceBoundary(root, [tmp_path])
    (tmp_path / "shared.py").write_text("")
    assert extra.resolve_client_path("../shared.py") == (tmp_path / "shared.py").resolve()


# ------------------------------------------- item 5: decoders bound a file's work


def _etdump(runs: int, events: int, *, shared: bool, name: str = "op") -> bytes:
    """An ETDump of ``runs`` runs of ``events`` profile events each (schema slots as in
    ``core/backends/executorch/etdump.py``); ``shared``: every run vector entry points at
    one RunData and every event entry at one Event, as an attacker would write it."""
    import flatbuffers

    builder = flatbuffers.Builder(1024)

    def event() -> int:
        label = builder.CreateString(name)
        builder.StartObject(8)
        builder.PrependUOffsetTRelativeSlot(0, label, 0)
        builder.PrependUint64Slot(6, 10, 0)
        builder.PrependUint64Slot(7, 20, 0)
        profile = builder.EndObject()
        builder.StartObject(3)
        builder.PrependUOffsetTRelativeSlot(0, profile, 0)
        return int(builder.EndObject())

    def vector(items: list[int]) -> int:
        builder.StartVector(4, len(items), 4)
        for item in reversed(items):
            builder.PrependUOffsetTRelative(item)
        return int(builder.EndVector())

    def run() -> int:
        items = [event()] * events if shared else [event() for _ in range(events)]
        offsets = vector(items)
        builder.StartObject(4)
        builder.PrependUOffsetTRelativeSlot(3, offsets, 0)
        return int(builder.EndObject())

    run_offsets = vector([run()] * runs if shared else [run() for _ in range(runs)])
    builder.StartObject(2)
    builder.PrependUOffsetTRelativeSlot(1, run_offsets, 0)
    builder.Finish(builder.EndObject(), file_identifier=b"ED00")
    return bytes(builder.Output())


def test_an_etdump_whose_vectors_share_tables_is_refused_early() -> None:
    from perfline.core.backends.executorch.etdump import read_etdump
    from perfline.core.errors import InputError

    data = _etdump(300, 300, shared=True)  # 90,000 events named in about 2.4 KB
    assert len(data) < 4 * (300 + 300) + 200
    with pytest.raises(InputError, match="name more events than a file of"):
        read_etdump(data, "amplified.etdump")


def test_an_etdump_whose_events_share_one_long_string_is_refused() -> None:
    from perfline.core.backends.executorch.etdump import read_etdump
    from perfline.core.errors import InputError

    data = _etdump(1, 400, shared=True, name="n" * 4000)  # 1.6 MB of names from 6 KB
    with pytest.raises(InputError, match="strings add up to more than"):
        read_etdump(data, "long-names.etdump")


def test_an_etdump_of_distinct_tables_decodes_every_event() -> None:
    from perfline.core.backends.executorch.etdump import read_etdump

    dump = read_etdump(_etdump(3, 200, shared=False), "plain.etdump")
    assert [len(run.profile_events) for run in dump.runs] == [200, 200, 200]


def test_a_long_etdump_decode_stops_at_a_checkpoint_once_cancelled() -> None:
    from perfline.core.backends.executorch.etdump import CHECKPOINT_EVERY, read_etdump
    from perfline.core.cancellation import Cancelled, cancellable

    data = _etdump(1, 2 * CHECKPOINT_EVERY, shared=False)
    flag = threading.Event()
    flag.set()
    with cancellable(flag), pytest.raises(Cancelled):
        read_etdump(data, "long.etdump")
    assert len(read_etdump(data, "long.etdump").runs[0].profile_events) == 2 * CHECKPOINT_EVERY


# ------------------------------------------- the probes against the real daemon


def _daemon_workspace(root: Path, case: str) -> None:
    from tests.support.server_helpers import KWS

    _kws_record(root)
    if case == "fifo-convention":
        os.mkfifo(root / "x.etdump")
    elif case == "fifo-config":
        os.mkfifo(root / "pipe.etdump")
        (root / "perfline.toml").write_text(
            '[[jobs]]\nname = "x"\nbackend = "executorch"\ninputs = ["x.etrecord", "pipe.etdump"]\n'
        )
    elif case == "dev-zero-symlink":
        os.symlink("/dev/zero", root / "x.etdump")
    elif case == "dev-zero-config":
        (root / "perfline.toml").write_text(
            '[[jobs]]\nname = "x"\nbackend = "executorch"\ninputs = ["x.etrecord", "/dev/zero"]\n'
        )
    del KWS


@pytest.mark.timeout(90)
@pytest.mark.parametrize(
    "case", ["fifo-convention", "fifo-config", "dev-zero-symlink", "dev-zero-config"]
)
def test_the_daemon_answers_and_stops_whatever_an_input_is(tmp_path: Path, case: str) -> None:
    import signal
    import subprocess
    import sys

    from perfline.clients.rpc.client import Client
    from tests.support.server_helpers import KWS

    root = tmp_path / "ws"
    root.mkdir()
    _daemon_workspace(root, case)
    sock = tmp_path / "d.sock"
    daemon = subprocess.Popen(
        [sys.executable, "-m", "perfline", "serve", "--socket", str(sock), "-w", str(root)],
        cwd="/",
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert wait_for(sock.exists, timeout=30)

        def job_state() -> str | None:
            with Client.connect(socket_path=str(sock), timeout=10) as client:
                assert client.request("perfline/status")["workspace"] == root.as_posix()
                jobs = client.request("perfline/jobs")["jobs"]
                return str(jobs[0]["state"]) if jobs else None

        assert wait_for(lambda: job_state() == "error", timeout=30)
        if case == "fifo-convention":  # the good file replaces the pipe: analysed
            (root / "x.etdump").unlink()
            (root / "x.etdump").write_bytes((KWS / "dscnn_portable.etdump").read_bytes())
            assert wait_for(lambda: job_state() == "ok", timeout=30)
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(timeout=30) is not None
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()


# ------------------------------------- probes that held, kept as regression tests


@pytest.mark.parametrize("damage", ["empty", "truncated", "random"])
def test_a_damaged_etdump_keeps_the_last_good_result(tmp_path: Path, damage: str) -> None:
    import random

    from tests.support.server_helpers import copy_kws

    root = copy_kws(tmp_path)
    dump = root / "dscnn_portable.etdump"
    data = dump.read_bytes()
    engine = _started(root)
    try:
        (name,) = [j.name for j in engine.jobs() if j.backend == "executorch"]
        good = engine.result(name)
        assert good is not None
        damaged = {
            "empty": b"",
            "truncated": data[: len(data) // 3],
            "random": random.Random(7).randbytes(len(data)),
        }[damage]
        dump.write_bytes(damaged)
        engine.notify_changed([dump], finished=True)
        assert engine.wait_idle(30)
        info = engine.job(name)
        assert info is not None and info.state == "error" and info.stale
        assert info.error is not None and "dscnn_portable.etdump" in info.error.message
        assert engine.result(name) == good
    finally:
        engine.close()


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_metric_values_are_an_input_error(tmp_path: Path, token: str) -> None:
    target = tmp_path / "a.mlia.json"
    target.write_text(_doc(1))
    engine = _started(tmp_path)
    try:
        good = engine.result("a")
        text = _doc(123456789).replace("123456789", token, 1)
        assert token in text
        target.write_text(text)
        engine.notify_changed([target], finished=True)
        assert engine.wait_idle(30)
        info = engine.job("a")
        assert info is not None and info.state == "error" and info.error is not None
        assert not info.error.message.startswith("internal error")
        assert engine.result("a") == good
    finally:
        engine.close()


def test_two_hundred_rapid_rewrites_end_in_a_fresh_result(tmp_path: Path) -> None:
    from perfline.server.watcher import Watcher

    target = tmp_path / "a.mlia.json"
    target.write_text(_doc(1))
    engine = _started(tmp_path)
    watcher = Watcher(engine)
    watcher.start()
    try:
        for value in range(2, 202):
            target.write_text(_doc(value))
        assert wait_for(lambda: _served(engine, "a") == _processed(201), timeout=30)
        assert engine.wait_idle(30)
        info = engine.job("a")
        assert info is not None and info.state == "ok" and not info.stale
        assert _served(engine, "a") == _processed(201)
    finally:
        watcher.stop()
        engine.close()


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_config_file_that_is_not_a_regular_file_is_a_config_problem(
    tmp_path: Path, kind: str
) -> None:
    (tmp_path / "a.mlia.json").write_text(_doc(1))
    if kind == "fifo":
        os.mkfifo(tmp_path / "perfline.toml")
    else:
        os.symlink("/dev/zero", tmp_path / "perfline.toml")
    engine = _started(tmp_path)
    try:
        error = engine.config_error
        assert error is not None and [p.line for p in error.config_problems] == [1]
        what = "named pipe (FIFO)" if kind == "fifo" else "outside the workspace (to /dev/zero)"
        assert what in error.config_problems[0].message
        assert engine.result("a") is not None  # the defaults stay in force
    finally:
        engine.close()
