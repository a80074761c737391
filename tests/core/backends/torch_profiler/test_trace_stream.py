"""Decoding traces in pieces: the events are json.loads's, whatever the chunking; every
kind of bad input is one clear error with its byte offset."""

from __future__ import annotations

import gzip
import json

import pytest

from perfline.core.backends.torch_profiler.compressed import trace_chunks
from perfline.core.backends.torch_profiler.trace_stream import TraceStream
from perfline.core.errors import InputError
from tests.support.torch_build import Trace, frame, memory, op, step


def _pieces(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def _decode(data: bytes, size: int = 1 << 20, **kwargs: int) -> tuple[TraceStream, list]:
    stream = TraceStream("t.json", **kwargs)
    events = [
        e for batch in stream.batches(trace_chunks(_pieces(data, size), "t.json")) for e in batch
    ]
    return stream, events


def _tricky() -> Trace:
    # names holding event boundaries and nested objects, as Python frame names may
    return Trace(
        [
            step(1, 0.0, 100.0),
            frame('weird.py(3): f},{"ph": "X"', 1.0, 50.0),
            op("aten::mm", 2.0, 10.0, external=7, sequence=3),
            {
                "ph": "X",
                "cat": "cpu_op",
                "name": "n",
                "pid": 1,
                "tid": 1,
                "ts": 3.0,
                "dur": 1.0,
                "args": {"Input Dims": [[1, 2], [3]], "x": [{"a": 1}, {"b": "},"}]},
            },
            memory(4.0, 64, 128),
        ]
    )


@pytest.mark.parametrize("size", [1, 3, 7, 64, 1 << 20])
def test_events_whatever_the_chunking(size: int) -> None:
    trace = _tricky()
    stream, events = _decode(trace.data(), size)
    expected = json.loads(trace.text())["traceEvents"]
    assert [(e.ph, e.cat, e.name, e.ts, e.dur) for e in events] == [
        (x["ph"], x.get("cat", ""), x["name"], x["ts"], x.get("dur")) for x in expected
    ]
    assert stream.header.base_time_ns == 1790857026000000000
    assert stream.header.with_stack == 1
    assert stream.tail.trace_name == "t.json"
    assert stream.events_read == len(expected)
    assert events[2].args is not None and events[2].args.external_id == 7


def test_a_bare_array_of_events() -> None:
    text = json.dumps([op("aten::add", 1.0, 2.0, external=1), op("aten::mul", 4.0, 1.0)])
    _, events = _decode(text.encode(), 5)
    assert [e.name for e in events] == ["aten::add", "aten::mul"]


def test_truncated_names_the_byte_offset() -> None:
    data = _tricky().data()
    cut = data[: len(data) - 80]
    with pytest.raises(InputError) as raised:
        _decode(cut, 16)
    assert f"byte {len(cut)}" in str(raised.value)
    assert "truncated" in str(raised.value)


def test_nan_is_refused_where_it_stands() -> None:
    text = _tricky().text().replace('"dur": 10.0', '"dur": NaN')
    with pytest.raises(InputError) as raised:
        _decode(text.encode(), 11)
    assert f"byte {text.index('NaN')}" in str(raised.value)
    assert "NaN" in str(raised.value) and "non-finite" in str(raised.value)


def test_a_number_out_of_range_names_the_event_and_field() -> None:
    text = _tricky().text().replace('"dur": 10.0', '"dur": 1e400')
    with pytest.raises(InputError) as raised:
        _decode(text.encode())
    message = str(raised.value)
    assert "event 2" in message and "'dur'" in message and "out of range" in message


def test_a_field_of_the_wrong_type_names_the_event() -> None:
    text = _tricky().text().replace('"ts": 2.0', '"ts": "soon"')
    with pytest.raises(InputError) as raised:
        _decode(text.encode(), 9)
    assert "event 2" in str(raised.value) and "'ts'" in str(raised.value)


def test_malformed_json_names_the_byte() -> None:
    text = _tricky().text()
    broken = text.replace('"cat": "cpu_op"', '"cat" "cpu_op"', 1)
    with pytest.raises(InputError) as raised:
        _decode(broken.encode(), 13)
    position = broken.index('"cat" "cpu_op"') + len('"cat" ')
    assert f"byte {position}" in str(raised.value)


def test_an_endless_event_is_refused_with_bounded_memory() -> None:
    data = b'{"traceEvents": [{"name": "' + b"x" * 5000
    with pytest.raises(InputError) as raised:
        _decode(data, 100, max_event_bytes=1000)
    assert "no event boundary" in str(raised.value)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"", "empty"),
        (b"   \n", "empty"),
        (b'{"schema_version": "1.2.0", "results": []}', "no 'traceEvents'"),
        (b"hello", "expected a JSON object"),
        (b'{"traceEvents": 3}', "not a list"),
    ],
)
def test_what_is_not_a_trace(data: bytes, words: str) -> None:
    with pytest.raises(InputError) as raised:
        _decode(data, 4)
    assert words in str(raised.value)


def test_gzip_members_are_read_in_turn() -> None:
    text = _tricky().data()
    half = len(text) // 2
    data = gzip.compress(text[:half]) + gzip.compress(text[half:])
    _, events = _decode(data, 10)
    assert len(events) == 5


def test_a_gzip_bomb_stops_at_the_limit() -> None:
    bomb = gzip.compress(b"[" + b" " * 10_000_000)
    assert len(bomb) < 20_000
    chunks = trace_chunks([bomb], "b.json.gz", limit=1_000_000)
    with pytest.raises(InputError) as raised:
        for _ in chunks:
            pass
    assert "more than 1,000,000 bytes" in str(raised.value)


def test_a_truncated_or_damaged_gzip_stream() -> None:
    data = gzip.compress(_tricky().data())
    with pytest.raises(InputError, match="truncated"):
        list(trace_chunks(_pieces(data[:-20], 50), "t.json.gz"))
    damaged = data[:30] + bytes(b ^ 0xFF for b in data[30:60]) + data[60:]
    with pytest.raises(InputError, match="damaged"):
        list(trace_chunks([damaged], "t.json.gz"))
