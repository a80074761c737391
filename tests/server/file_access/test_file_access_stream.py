"""``perfline.server.file_access.open_stream``: bounded raw bytes, gzip decompressed on
the fly with its own bound, every refusal of ``read_file``."""

from __future__ import annotations

import gzip
import io
import os
import zlib
from pathlib import Path

import pytest

from perfline.core.errors import InputError
from perfline.server.file_access import Limits, Root, open_stream


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def test_plain_bytes_come_as_they_are(ws: Path) -> None:
    data = os.urandom(3 * 1024 * 1024 + 7)
    (ws / "t.json").write_bytes(data)
    with open_stream("t.json", root=Root(ws)) as stream:
        assert not stream.compressed
        assert stream.read(5) == data[:5]
        assert stream.read() == data[5:]
        assert stream.raw_bytes == len(data)


def test_gzip_members_and_padding_are_decompressed(ws: Path) -> None:
    first, second = b'{"traceEvents": [' * 1000, b"]}"
    (ws / "t.json.gz").write_bytes(gzip.compress(first) + gzip.compress(second) + b"\0\0")
    with open_stream("t.json.gz", root=Root(ws)) as stream:
        assert stream.compressed
        text = io.TextIOWrapper(io.BufferedReader(stream), encoding="utf-8").read()
    assert text == (first + second).decode()


def test_decompressed_bytes_are_bounded(ws: Path) -> None:
    (ws / "bomb.json.gz").write_bytes(gzip.compress(b"\0" * 10_000_000))
    assert (ws / "bomb.json.gz").stat().st_size < 20_000
    limits = Limits.with_overrides({"expanded": 1_000_000})
    with (
        pytest.raises(InputError, match="expands past the limit of 1000000 bytes"),
        open_stream("bomb.json.gz", root=Root(ws), limits=limits) as stream,
    ):
        while stream.read(65536):
            pass


def test_raw_bytes_are_bounded_by_what_is_read(ws: Path) -> None:
    status = "/proc/self/status"  # claims size 0
    limits = Limits.with_overrides({"other": 16})
    with (
        pytest.raises(InputError, match="grew past the limit of 16 bytes"),
        open_stream(status, root=Root.user_given(), limits=limits, gzip=False) as stream,
    ):
        stream.read()


def test_truncated_and_damaged_gzip_are_errors(ws: Path) -> None:
    whole = gzip.compress(os.urandom(100_000))
    (ws / "cut.json.gz").write_bytes(whole[: len(whole) // 2])
    (ws / "bad.json.gz").write_bytes(b"\x1f\x8b" + b"garbage" * 10)
    for name, message in (("cut.json.gz", "ends early"), ("bad.json.gz", "not valid gzip")):
        with (
            pytest.raises(InputError, match=message),
            open_stream(name, root=Root(ws)) as stream,
        ):
            stream.read()


def test_refusals_are_those_of_reads(ws: Path) -> None:
    os.mkfifo(ws / "pipe.json.gz")
    os.symlink("/dev/zero", ws / "zero.json.gz")
    with pytest.raises(InputError, match="named pipe"):
        open_stream("pipe.json.gz", root=Root(ws))
    with pytest.raises(InputError, match="outside the workspace"):
        open_stream("zero.json.gz", root=Root(ws))
    with pytest.raises(InputError, match="character device"):
        open_stream("/dev/zero", root=Root.user_given())


def test_raw_deflate_is_not_taken_for_gzip(ws: Path) -> None:
    (ws / "z.bin").write_bytes(zlib.compress(b"abc"))
    with open_stream("z.bin", root=Root(ws)) as stream:
        assert not stream.compressed and stream.read() == zlib.compress(b"abc")
