"""A minimal ONNX writer for adversarial models (no exporter makes them): tensors of
thousands of dimensions, initializers of hundreds of MB of packed ``float_data`` or
``int64_data``. Writes the protobuf wire format of ``ModelProto`` directly (the fields
``core/formats/onnx_graph.py`` documents), so no ``onnx`` package is needed.

``model(nodes, inputs, outputs, initializers)`` returns the file's bytes; ``tensor_info``
and ``initializer`` build the parts. Used by ``tests/product/hardening/test_numbers.py`` and
``benchmarks/onnx_tensors.py``.
"""

from __future__ import annotations

import array
import struct
from collections.abc import Iterable, Sequence


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _int(number: int, value: int) -> bytes:
    return _key(number, 0) + _varint(value)


def _bytes(number: int, payload: bytes) -> bytes:
    return _key(number, 2) + _varint(len(payload)) + payload


def _text(number: int, text: str) -> bytes:
    return _bytes(number, text.encode("utf-8"))


def tensor_info(name: str, elem_type: int, dims: Sequence[int]) -> bytes:
    """A ``ValueInfoProto``: a tensor of ``elem_type`` (1 float, 7 int64) and ``dims``."""
    shape = b"".join(_bytes(1, _int(1, dim)) for dim in dims)
    tensor_type = _int(1, elem_type) + _bytes(2, shape)
    return _text(1, name) + _bytes(2, _bytes(1, tensor_type))


def initializer(
    name: str,
    dims: Sequence[int],
    *,
    floats: array.array[float] | None = None,
    int64s: Iterable[int] | None = None,
) -> bytes:
    """A ``TensorProto`` with packed ``float_data`` (field 4) or ``int64_data`` (field 7)."""
    parts = [_bytes(1, b"".join(_varint(d) for d in dims))]
    if floats is not None:
        parts += [_int(2, 1), _bytes(4, floats.tobytes())]
    if int64s is not None:
        parts += [_int(2, 7), _bytes(7, b"".join(_varint(v) for v in int64s))]
    parts.append(_text(8, name))
    return b"".join(parts)


def node(op_type: str, inputs: Sequence[str], outputs: Sequence[str], name: str) -> bytes:
    """A ``NodeProto``."""
    fields = [_text(1, i) for i in inputs] + [_text(2, o) for o in outputs]
    return b"".join([*fields, _text(3, name), _text(4, op_type)])


def model(
    nodes: Sequence[bytes],
    inputs: Sequence[bytes],
    outputs: Sequence[bytes],
    initializers: Sequence[bytes] = (),
) -> bytes:
    """A ``ModelProto`` (IR 8, opset 17) of one graph."""
    graph = b"".join(
        [
            *(_bytes(1, n) for n in nodes),
            _text(2, "adversarial"),
            *(_bytes(5, i) for i in initializers),
            *(_bytes(11, i) for i in inputs),
            *(_bytes(12, o) for o in outputs),
        ]
    )
    opset = _text(1, "") + _int(2, 17)
    return _int(1, 8) + _text(2, "perfline-tests") + _bytes(7, graph) + _bytes(8, opset)


def packed_floats(count: int) -> array.array[float]:
    """``count`` float32 values (0.5 each)."""
    return array.array("f", struct.pack("<f", 0.5)) * count
