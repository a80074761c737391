"""Issue 38 N8: packed ``float_data``/``int64_data`` of an ONNX model cost about 15x the
file in memory (every value became a Python number before the tensor was found too large
to use). Now a tensor's values are counted first and decoded only when they are used
(``onnx_graph._Stored``); ``benchmarks/onnx_tensors.py`` measures the CLI and the daemon
on a 100 MB model."""

from __future__ import annotations

import tracemalloc

from perfline.core.formats.onnx_graph import read_onnx_graph
from tests.support.onnx_writer import initializer, model, node, packed_floats, tensor_info

COUNT = 1_000_000


def _model() -> bytes:
    return model(
        [node("Add", ["x", "w"], ["y"], "add0"), node("Add", ["y", "k"], ["z"], "add1")],
        [tensor_info("x", 1, [COUNT])],
        [tensor_info("z", 1, [COUNT])],
        [
            initializer("w", [COUNT], floats=packed_floats(COUNT)),
            initializer("k", [COUNT], int64s=range(1 << 40, (1 << 40) + COUNT)),
            initializer("shape", [2], int64s=[3, 4]),
        ],
    )


def test_large_packed_tensors_are_not_decoded() -> None:
    data = _model()
    tracemalloc.start()
    try:
        graph = read_onnx_graph(data, "packed.onnx")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < len(data) // 4, f"reading a {len(data)}-byte model peaked at {peak} bytes"
    assert graph.initializers["w"].dims == (COUNT,) and graph.initializers["w"].values is None
    assert graph.initializers["k"].values is None
    assert graph.initializers["shape"].values == (3, 4)  # small ones are still decoded
