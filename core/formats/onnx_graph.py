"""The tensors of an ONNX model: shapes, element types, initializers and node attributes.

What the static cost and the ONNX Runtime mapping need beyond ``onnx.read_onnx`` (which reads
only node identities and metadata). Reads the protobuf wire format with ``_protobuf``:

* ``GraphProto``: 1 node, 5 initializer, 11 input, 12 output, 13 value_info;
* ``TensorProto``: 1 dims, 2 data_type, 4 float_data, 5 int32_data, 7 int64_data, 8 name,
  9 raw_data, 13 external_data (``location`` = the file), 14 data_location (1 = external);
* ``ValueInfoProto`` 1 name, 2 type -> ``TypeProto`` 1 tensor_type -> 1 elem_type, 2 shape ->
  ``TensorShapeProto`` 1 dim -> 1 dim_value, 2 dim_param;
* ``AttributeProto``: 1 name, 2 f, 3 i, 4 s, 5 t, 7 floats, 8 ints (packed or not).

Only the top-level graph (nodes of subgraphs have no canonical identity). The values of small
integer tensors (at most ``MAX_VALUE_ELEMENTS``: shapes, axes, splits) are decoded; every other
tensor payload is jumped over, counted but never decoded (``_Stored``: packed ``float_data``
or ``int64_data`` of millions of values costs no Python object per value), and attribute
lists over ``_MAX_ATTRIBUTE_BYTES`` are left out. A dimension is an ``int`` when the file
fixes it, else its ``dim_param`` name (or ``None``). Cost: linear in the file's bytes.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from perfline.core.errors import InputError, Problem
from perfline.core.formats._protobuf import LENGTH_DELIMITED, VARINT, Field, fields
from perfline.core.formats.onnx import OnnxModel, read_onnx

MAX_VALUE_ELEMENTS = 64
#: The most payload bytes of a tensor's values decoded (10 per varint of the values used);
#: an attribute list longer than this is not decoded either (no formula uses one).
_MAX_STORED_BYTES = 10 * MAX_VALUE_ELEMENTS
_MAX_ATTRIBUTE_BYTES = 64 * 1024
Dim = int | str | None

#: ``TensorProto.DataType`` -> bytes per element (4-bit types count as 0.5).
ELEMENT_BYTES: dict[int, float] = {
    1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4, 13: 8, 14: 8,
    15: 16, 16: 2, 17: 1, 18: 1, 19: 1, 20: 1, 21: 0.5, 22: 0.5, 23: 0.5,
}  # fmt: skip
ELEMENT_NAMES: dict[int, str] = {
    1: "float", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
    8: "string", 9: "bool", 10: "float16", 11: "double", 12: "uint32", 13: "uint64",
    14: "complex64", 15: "complex128", 16: "bfloat16",
}  # fmt: skip


@dataclass(frozen=True)
class TensorInfo:
    """What the file says of one tensor: element type (0 = unknown) and shape (``None`` = unknown
    rank)."""

    name: str
    elem_type: int
    shape: tuple[Dim, ...] | None


@dataclass(frozen=True)
class Initializer:
    """A stored tensor (weights, constants): its dims, type, where its bytes are, small values."""

    name: str
    elem_type: int
    dims: tuple[int, ...]
    external_location: str | None = None
    values: tuple[float, ...] | None = None


@dataclass(frozen=True)
class NodeAttributes:
    """The scalar and list attributes of one node, by name (tensors only as ``Initializer``)."""

    ints: dict[str, tuple[int, ...]] = field(default_factory=dict)
    floats: dict[str, tuple[float, ...]] = field(default_factory=dict)
    strings: dict[str, str] = field(default_factory=dict)
    tensors: dict[str, Initializer] = field(default_factory=dict)

    def integer(self, name: str, default: int) -> int:
        """An integer attribute (the first value of a list), or ``default``."""
        values = self.ints.get(name)
        return values[0] if values else default

    def int_list(self, name: str) -> tuple[int, ...] | None:
        """An integer-list attribute, or ``None`` when absent."""
        return self.ints.get(name)


@dataclass(frozen=True)
class OnnxGraph:
    """The model's nodes (as ``read_onnx``) with their attributes and every tensor's facts."""

    model: OnnxModel
    attributes: tuple[NodeAttributes, ...]
    inputs: tuple[TensorInfo, ...]
    outputs: tuple[TensorInfo, ...]
    value_info: dict[str, TensorInfo]
    initializers: dict[str, Initializer]


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _packed_varints(payload: memoryview) -> list[int]:
    values: list[int] = []
    result = shift = 0
    for byte in payload:
        result |= (byte & 0x7F) << shift
        if byte & 0x80:
            shift += 7
            continue
        values.append(_signed(result))
        result = shift = 0
    return values


def _ints(item: Field, source: str, where: str) -> list[int]:
    if item.wire_type == LENGTH_DELIMITED:
        return _packed_varints(item.as_bytes(source, where))
    return [_signed(item.as_int(source, where))]


def _floats(item: Field, source: str, where: str) -> list[float]:
    if item.wire_type == LENGTH_DELIMITED:
        raw = bytes(item.as_bytes(source, where))
        return list(struct.unpack(f"<{len(raw) // 4}f", raw[: len(raw) // 4 * 4]))
    value = item.value
    if isinstance(value, memoryview):
        return []
    return [struct.unpack("<f", value.to_bytes(4, "little"))[0]]


def _small(item: Field, kept: int) -> bool:
    """Whether an attribute's list field is small enough to decode."""
    size = len(item.value) if isinstance(item.value, memoryview) else 1
    return kept + size <= _MAX_ATTRIBUTE_BYTES


def _tensor(field_: Field, source: str, where: str) -> Initializer:
    payload = field_.as_bytes(source, where)
    dims: list[int] = []
    elem_type = 0
    name = ""
    location: str | None = None
    external = False
    raw: bytes | None = None
    stored: _Stored = _Stored()
    for item in fields(payload, field_.value_offset, source, where):
        if item.number == 1:
            dims.extend(_ints(item, source, f"{where}.dims"))
        elif item.number == 2:
            elem_type = item.as_int(source, f"{where}.data_type")
        elif item.number == 8:
            name = item.as_text(source, f"{where}.name")
        elif item.number == 9:
            data = item.as_bytes(source, f"{where}.raw_data")
            if len(data) <= 8 * MAX_VALUE_ELEMENTS:
                raw = bytes(data)
        elif item.number in (4, 5, 7):
            stored.add(item)
        elif item.number == 13:
            entry_where = f"{where}.external_data"
            key = value = ""
            entry = item.as_bytes(source, entry_where)
            for part in fields(entry, item.value_offset, source, entry_where):
                if part.number == 1:
                    key = part.as_text(source, entry_where)
                elif part.number == 2:
                    value = part.as_text(source, entry_where)
            if key == "location":
                location = value
        elif item.number == 14:
            external = item.as_int(source, f"{where}.data_location") == 1
    count = 1
    for dim in dims:
        count *= dim
    values: tuple[float, ...] | None = None
    if count <= MAX_VALUE_ELEMENTS:
        if raw is not None and elem_type in (6, 7, 1):
            code = {6: "i", 7: "q", 1: "f"}[elem_type]
            size = struct.calcsize(code)
            if len(raw) == count * size:
                values = tuple(struct.unpack(f"<{count}{code}", raw))
        else:
            values = stored.values(count, elem_type, source, where)
    return Initializer(name, elem_type, tuple(dims), location if external else None, values)


class _Stored:
    """A tensor's ``float_data``/``int32_data``/``int64_data`` fields, kept as they are (a
    view of the file) and decoded only when the tensor is small enough to be used, and only
    when they are small too: a tensor of millions of packed values is never turned into
    millions of Python numbers."""

    __slots__ = ("items", "size")

    def __init__(self) -> None:
        self.items: list[Field] = []
        self.size = 0  # payload bytes (or values) seen, counted past what is kept

    def add(self, item: Field) -> None:
        self.size += len(item.value) if isinstance(item.value, memoryview) else 1
        if self.size <= _MAX_STORED_BYTES:
            self.items.append(item)

    def values(
        self, count: int, elem_type: int, source: str, where: str
    ) -> tuple[float, ...] | None:
        """The ``count`` values, or ``None`` (absent, too large, or not ``count`` of them)."""
        if not self.items or self.size > _MAX_STORED_BYTES:
            return None
        floats = [item for item in self.items if item.number == 4]
        if floats:
            decoded = [v for item in floats for v in _floats(item, source, f"{where}.float_data")]
            return tuple(decoded) if len(decoded) == count else None
        ints = [v for item in self.items for v in _ints(item, source, f"{where}.int_data")]
        if len(ints) != count:
            return None
        return tuple(float(v) if elem_type == 1 else v for v in ints)


def _value_info(field_: Field, source: str, where: str) -> TensorInfo:
    payload = field_.as_bytes(source, where)
    name = ""
    elem_type = 0
    shape: tuple[Dim, ...] | None = None
    for item in fields(payload, field_.value_offset, source, where):
        if item.number == 1:
            name = item.as_text(source, f"{where}.name")
        elif item.number == 2:
            type_payload = item.as_bytes(source, f"{where}.type")
            for kind in fields(type_payload, item.value_offset, source, f"{where}.type"):
                if kind.number != 1:
                    continue
                tensor_where = f"{where}.type.tensor_type"
                tensor = kind.as_bytes(source, tensor_where)
                for part in fields(tensor, kind.value_offset, source, tensor_where):
                    if part.number == 1:
                        elem_type = part.as_int(source, f"{tensor_where}.elem_type")
                    elif part.number == 2:
                        shape = _shape(part, source, f"{tensor_where}.shape")
    return TensorInfo(name, elem_type, shape)


def _shape(field_: Field, source: str, where: str) -> tuple[Dim, ...]:
    dims: list[Dim] = []
    for item in fields(field_.as_bytes(source, where), field_.value_offset, source, where):
        if item.number != 1:
            continue
        value: Dim = None
        for part in fields(item.as_bytes(source, where), item.value_offset, source, where):
            if part.number == 1 and part.wire_type == VARINT:
                value = _signed(part.as_int(source, f"{where}.dim_value"))
            elif part.number == 2:
                value = part.as_text(source, f"{where}.dim_param") or None
        dims.append(value)
    return tuple(dims)


def _attributes(node_field: Field, source: str, where: str) -> NodeAttributes:
    attributes = NodeAttributes()
    payload = node_field.as_bytes(source, where)
    for item in fields(payload, node_field.value_offset, source, where):
        if item.number != 5:
            continue
        at = f"{where}.attribute"
        name = ""
        ints: list[int] = []
        floats: list[float] = []
        text: str | None = None
        tensor: Initializer | None = None
        for part in fields(item.as_bytes(source, at), item.value_offset, source, at):
            if part.number == 1:
                name = part.as_text(source, f"{at}.name")
            elif part.number in (3, 8) and _small(part, len(ints)):
                ints.extend(_ints(part, source, f"{at}.ints"))
            elif part.number in (2, 7) and _small(part, len(floats)):
                floats.extend(_floats(part, source, f"{at}.floats"))
            elif part.number == 4:
                text = bytes(part.as_bytes(source, f"{at}.s")).decode("utf-8", "replace")
            elif part.number == 5:
                tensor = _tensor(part, source, f"{at}.t")
        if ints:
            attributes.ints[name] = tuple(ints)
        if floats:
            attributes.floats[name] = tuple(floats)
        if text is not None:
            attributes.strings[name] = text
        if tensor is not None:
            attributes.tensors[name] = tensor
    return attributes


def read_onnx_graph(data: bytes, source: str) -> OnnxGraph:
    """The top-level graph's nodes, attributes, inputs, outputs, value_info and initializers."""
    model = read_onnx(data, source)
    view = memoryview(data)
    graph: Field | None = None
    for item in fields(view, 0, source, "ModelProto"):
        if item.number == 7:
            graph = item
    if graph is None:  # read_onnx has already rejected such a file
        raise InputError(source, Problem("ModelProto", "expected a graph (field 7)"))
    attributes: list[NodeAttributes] = []
    inputs: list[TensorInfo] = []
    outputs: list[TensorInfo] = []
    value_info: dict[str, TensorInfo] = {}
    initializers: dict[str, Initializer] = {}
    payload = graph.as_bytes(source, "graph")
    for item in fields(payload, graph.value_offset, source, "graph"):
        if item.number == 1:
            attributes.append(_attributes(item, source, f"graph.node[{len(attributes)}]"))
        elif item.number == 5:
            tensor = _tensor(item, source, f"graph.initializer[{len(initializers)}]")
            initializers[tensor.name] = tensor
        elif item.number in (11, 12, 13):
            info = _value_info(item, source, "graph.value_info")
            if item.number == 11:
                inputs.append(info)
            elif item.number == 12:
                outputs.append(info)
            value_info[info.name] = info
    return OnnxGraph(
        model=model,
        attributes=tuple(attributes),
        inputs=tuple(inputs),
        outputs=tuple(outputs),
        value_info=value_info,
        initializers=initializers,
    )


def external_data_locations(data: bytes, source: str) -> dict[str, str]:
    """Initializer name -> the file holding its data, for initializers stored outside the model
    (only the graph's initializers are decoded: cheaper than ``read_onnx_graph``)."""
    found: dict[str, str] = {}
    for item in fields(memoryview(data), 0, source, "ModelProto"):
        if item.number != 7:
            continue
        graph = item.as_bytes(source, "graph")
        for part in fields(graph, item.value_offset, source, "graph"):
            if part.number == 5:
                tensor = _tensor(part, source, f"graph.initializer[{len(found)}]")
                if tensor.external_location is not None:
                    found[tensor.name] = tensor.external_location
    return found
