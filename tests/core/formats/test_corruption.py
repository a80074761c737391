"""Corrupted and truncated model files give an ``InputError`` or a result, never another exception.

Hypothesis flips bytes and cuts files at random places in each real fixture; the readers must
either decode something or raise ``InputError`` (which the CLI and the daemon report cleanly).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings, strategies

from perfline.core.errors import InputError
from perfline.core.formats import onnx, pt2, tosa, vgf
from perfline.core.formats.identity import SourceOperator
from tests.support.format_data import DSCNN, read_bytes

Reader = Callable[[bytes, str], tuple[SourceOperator, ...]]

CASES: list[tuple[str, Reader]] = [
    ("dscnn_int_dbg.vgf", vgf.vgf_operators),
    ("dscnn_int.tosa", tosa.tosa_operators),
    ("dscnn.onnx", onnx.onnx_operators),
    ("dscnn.pt2", pt2.pt2_operators),
]
FILES = {name: read_bytes(DSCNN / name) for name, _ in CASES}


def _check(reader: Reader, data: bytes) -> None:
    try:
        reader(data, "fuzzed")
    except InputError as error:
        assert error.source == "fuzzed"
        assert error.problems


@pytest.mark.parametrize(("name", "reader"), CASES, ids=[name for name, _ in CASES])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=strategies.data())
def test_flipped_bytes(name: str, reader: Reader, data: strategies.DataObject) -> None:
    original = bytearray(FILES[name])
    # Flips concentrated near the start (headers, root tables) and anywhere in the file.
    for _ in range(data.draw(strategies.integers(1, 8))):
        limit = data.draw(strategies.sampled_from([256, 4096, len(original)]))
        position = data.draw(strategies.integers(0, min(limit, len(original)) - 1))
        original[position] = data.draw(strategies.integers(0, 255))
    _check(reader, bytes(original))


@pytest.mark.parametrize(("name", "reader"), CASES, ids=[name for name, _ in CASES])
@settings(max_examples=40, deadline=None)
@given(fraction=strategies.floats(0.0, 0.999))
def test_truncated(name: str, reader: Reader, fraction: float) -> None:
    original = FILES[name]
    cut = original[: int(len(original) * fraction)]
    if name.endswith(".onnx"):
        # Protobuf has no length header: a cut after the graph field still reads as a model.
        _check(reader, cut)
        return
    with pytest.raises(InputError):
        reader(cut, "fuzzed")
