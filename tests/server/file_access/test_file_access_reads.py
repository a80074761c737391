"""``perfline.server.file_access`` reads: what a hostile workspace can put under a name
(FIFOs, device links, links out of the root, dangling links, link loops, files that
grow or claim no size, reads that never end) and what each read gives instead."""

from __future__ import annotations

import os
import threading
import time
import weakref
from pathlib import Path

import pytest

from perfline.core.errors import InputError
from perfline.server import file_access
from perfline.server.file_access import Limits, Root, read_bytes, read_file, read_text, roots
from perfline.server.file_access.timed import TimedWorkers

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_bytes(b"hello\n")
    (tmp_path / "secret.txt").write_text("outside\n")
    return root


def _error(path: str, root: Root, **options: object) -> str:
    with pytest.raises(InputError) as caught:
        read_bytes(path, root=root, **options)  # type: ignore[arg-type]
    assert caught.value.source == (options.get("source") or path)
    return str(caught.value)


def test_a_regular_file_and_a_link_that_stays_inside_are_read(ws: Path) -> None:
    os.symlink("a.txt", ws / "sub" / "link")
    os.symlink("../a.txt", ws / "sub" / "up")
    root = Root(ws)
    assert read_bytes("a.txt", root=root) == b"hello\n"
    assert read_bytes(ws / "sub" / "up", root=root) == b"hello\n"
    read = read_file("a.txt", root=root)
    assert read.key[2] == 6 and read.mtime == os.stat(ws / "a.txt").st_mtime


def test_a_fifo_is_refused_at_once(ws: Path) -> None:
    os.mkfifo(ws / "pipe")
    started = time.monotonic()
    assert "named pipe (FIFO)" in _error("pipe", Root(ws))
    assert time.monotonic() - started < 30  # never waits for a writer


def test_a_link_to_dev_zero_is_outside_and_dev_zero_itself_a_device(ws: Path) -> None:
    os.symlink("/dev/zero", ws / "zero.json")
    assert "outside the workspace (to /dev/zero)" in _error("zero.json", Root(ws))
    assert "character device" in _error("zero.json", Root(ws, ["/dev"]))
    assert "character device" in _error("/dev/zero", Root.user_given())


def test_links_out_of_the_root_are_refused_wherever_they_are(ws: Path) -> None:
    os.symlink(ws.parent / "secret.txt", ws / "direct.py")
    os.symlink(ws.parent, ws / "sub" / "up")
    root = Root(ws)
    assert "outside the workspace" in _error("direct.py", root)
    assert "outside the workspace" in _error("sub/up/secret.txt", root)
    assert "outside the workspace" in _error("../secret.txt", root)
    assert "outside the workspace" in _error(str(ws.parent / "secret.txt"), root)


def test_dangling_links_and_link_loops_say_so(ws: Path) -> None:
    os.symlink("gone", ws / "dangling")
    os.symlink("loop-b", ws / "loop-a")
    os.symlink("loop-a", ws / "loop-b")
    root = Root(ws)
    assert "dangling symbolic link" in _error("dangling", root)
    assert "symbolic link loop" in _error("loop-a", root)
    assert "does not exist" in _error("missing", root)
    assert "a directory" in _error("sub", root)


def test_a_link_swapped_in_after_resolution_is_not_followed(ws: Path) -> None:
    (ws / "d").mkdir()
    (ws / "d" / "f").write_text("inside")
    outside = ws.parent / "elsewhere"
    outside.mkdir()
    (outside / "f").write_text("outside")
    (ws / "d").rename(ws / "d-old")
    os.symlink(outside, ws / "d")  # the swap after realpath said ws/d/f
    with pytest.raises(OSError):
        roots.open_beneath(str(ws), ["d", "f"], roots.READ_FLAGS)
    os.unlink(ws / "d")
    os.symlink(outside / "f", ws / "f")
    with pytest.raises(OSError):
        roots.open_beneath(str(ws), ["f"], roots.READ_FLAGS)


def test_size_limits_count_the_bytes_read(ws: Path) -> None:
    (ws / "big.json").write_bytes(b"x" * 2000)
    small = Limits.with_overrides({"json": 1000})
    assert "over the limit of 1000 bytes for json inputs" in _error(
        "big.json", Root(ws), limits=small
    )
    # /proc files claim a size of 0: the bytes read are what counts
    status = Path("/proc/self/status")
    assert os.stat(status).st_size == 0
    tiny = Limits.with_overrides({"other": 10})
    message = _error(str(status), Root.user_given(), limits=tiny)
    assert "grew past the limit of 10 bytes" in message
    assert len(read_bytes(str(status), root=Root.user_given())) > 10


def test_a_pipe_that_keeps_growing_stops_at_the_limit() -> None:
    read, write = os.pipe()
    try:
        os.write(write, b"x" * 5000)
        with pytest.raises(InputError, match="grew past the limit of 100 bytes"):
            file_access.reads.read_bounded(read, "p", 100)
    finally:
        os.close(read)
        os.close(write)


def test_text_is_decoded_with_replacement_or_strictly(ws: Path) -> None:
    (ws / "bad.py").write_bytes(b"ok\xff\n")
    root = Root(ws)
    assert read_text("bad.py", root=root) == "ok\ufffd\n"
    with pytest.raises(InputError, match="byte 2: not UTF-8"):
        read_text("bad.py", root=root, errors="strict")


def test_kinds_name_their_limits() -> None:
    assert file_access.input_kind("x.etdump") == "etdump"
    assert file_access.input_kind("t.json.gz") == "trace"
    assert Limits().size_for("source") == 16 * 1024 * 1024
    with pytest.raises(ValueError, match="unknown input kind"):
        Limits.with_overrides({"nonsense": 1})


def test_a_read_that_never_ends_times_out_and_the_thread_is_free(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    real = file_access.reads.read_bounded

    def stalls(*args: object, **kwargs: object) -> bytes:
        release.wait(30)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(file_access.reads, "read_bounded", stalls)
    started = time.monotonic()
    message = _error("a.txt", Root(ws), limits=Limits().within(0.3))
    assert "took longer than 0.3 s" in message
    assert time.monotonic() - started < 20
    release.set()


def test_stuck_operations_refuse_new_ones_instead_of_queueing() -> None:
    workers = TimedWorkers(most_threads=4, most_stuck=2)
    release = threading.Event()

    def stuck(abandon: object) -> int:
        release.wait(30)
        return 1

    for _ in range(2):
        with pytest.raises(InputError, match="took longer"):
            workers.call(stuck, 0.1, "f")
    assert workers.stuck == 2
    with pytest.raises(InputError, match="2 earlier file operations have not ended"):
        workers.call(lambda abandon: 2, 5.0, "g")
    release.set()
    deadline = time.monotonic() + 20
    while workers.stuck and time.monotonic() < deadline:
        time.sleep(0.01)
    assert workers.stuck == 0
    assert workers.call(lambda abandon: 3, 5.0, "h") == 3


def test_worker_threads_are_daemon_threads(ws: Path) -> None:
    read_bytes("a.txt", root=Root(ws))
    names = [t for t in threading.enumerate() if t.name == "perfline-file"]
    assert names and all(t.daemon for t in names)


def test_errors_raised_by_the_work_reach_the_caller() -> None:
    workers = TimedWorkers()

    def fails(abandon: object) -> int:
        raise InputError("x", "bad")

    with pytest.raises(InputError, match="x: bad"):
        workers.call(fails, 5.0, "x")


def test_a_worker_keeps_nothing_of_what_it_read() -> None:
    class Read:
        pass

    workers = TimedWorkers()
    kept = weakref.ref(workers.call(lambda abandon: Read(), 5.0, "f"))
    time.sleep(0.05)  # the worker is back waiting for the next operation
    assert kept() is None
