"""A minimal protobuf wire-format walker (varints and length-delimited fields), bounds-checked.

Enough to read a few fields of ONNX messages without the ``onnx``/``protobuf`` packages. A message
is a sequence of ``(tag, value)`` pairs; the tag is a varint ``field_number << 3 | wire_type``
with wire types 0 (varint), 1 (8 bytes), 2 (length-delimited), 5 (4 bytes). Groups (3, 4) and
unknown wire types are malformed input here. Positions in errors are absolute byte offsets of the
file. Length-delimited values are returned as ``memoryview`` slices: no copy of large tensors.
Cost: linear in the bytes of the messages walked (skipped fields are jumped over, not decoded).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from perfline.core.errors import InputError, Problem

VARINT = 0
FIXED64 = 1
LENGTH_DELIMITED = 2
FIXED32 = 5
_WIRE_NAMES = {
    VARINT: "varint",
    FIXED64: "64-bit",
    LENGTH_DELIMITED: "length-delimited",
    FIXED32: "32-bit",
}


class Field(NamedTuple):
    """One field occurrence: number, wire type, value and the absolute offset of its tag."""

    number: int
    wire_type: int
    value: int | memoryview
    offset: int
    value_offset: int

    def as_bytes(self, source: str, where: str) -> memoryview:
        """The payload of a length-delimited field (anything else is malformed)."""
        if not isinstance(self.value, memoryview):
            raise InputError(
                source,
                Problem(
                    f"byte {self.offset} ({where})",
                    f"expected a length-delimited field, found wire type "
                    f"{_WIRE_NAMES.get(self.wire_type, self.wire_type)}",
                ),
            )
        return self.value

    def as_text(self, source: str, where: str) -> str:
        """The payload decoded as UTF-8."""
        raw = self.as_bytes(source, where)
        try:
            return bytes(raw).decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputError(
                source,
                Problem(f"byte {self.value_offset + error.start} ({where})", "expected UTF-8 text"),
            ) from None

    def as_int(self, source: str, where: str) -> int:
        """The value of a varint field."""
        if isinstance(self.value, memoryview) or self.wire_type != VARINT:
            raise InputError(
                source,
                Problem(
                    f"byte {self.offset} ({where})",
                    f"expected a varint field, found wire type "
                    f"{_WIRE_NAMES.get(self.wire_type, self.wire_type)}",
                ),
            )
        return self.value


def _varint(buf: memoryview, position: int, base: int, source: str, where: str) -> tuple[int, int]:
    if position < len(buf) and buf[position] < 0x80:  # fast path: one-byte varint
        return buf[position], position + 1
    result = 0
    shift = 0
    end = len(buf)
    while True:
        if position >= end:
            raise InputError(
                source,
                Problem(
                    f"byte {base + position} ({where})",
                    "varint runs past the end of the message; "
                    "the file is truncated or not protobuf",
                ),
            )
        byte = buf[position]
        position += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, position
        shift += 7
        if shift >= 70:
            raise InputError(
                source,
                Problem(f"byte {base + position} ({where})", "varint longer than 10 bytes"),
            )


def fields(buf: memoryview, base: int, source: str, where: str) -> Iterator[Field]:
    """The fields of one message, in wire order. ``base`` = absolute offset of ``buf[0]``."""
    position = 0
    end = len(buf)
    while position < end:
        start = position
        tag, position = _varint(buf, position, base, source, where)
        number, wire_type = tag >> 3, tag & 7
        if number == 0:
            raise InputError(
                source,
                Problem(
                    f"byte {base + start} ({where})", "field number 0 is invalid; not protobuf"
                ),
            )
        if wire_type == VARINT:
            value, position = _varint(buf, position, base, source, where)
            yield Field(number, wire_type, value, base + start, base + start)
        elif wire_type == LENGTH_DELIMITED:
            length, position = _varint(buf, position, base, source, where)
            if position + length > end:
                raise InputError(
                    source,
                    Problem(
                        f"byte {base + start} ({where}, field {number})",
                        f"field of {length} bytes runs past the end of its "
                        f"{end}-byte message; the file is truncated",
                    ),
                )
            yield Field(
                number, wire_type, buf[position : position + length], base + start, base + position
            )
            position += length
        elif wire_type in (FIXED64, FIXED32):
            size = 8 if wire_type == FIXED64 else 4
            if position + size > end:
                raise InputError(
                    source,
                    Problem(
                        f"byte {base + start} ({where}, field {number})",
                        "fixed-size field is truncated",
                    ),
                )
            value = int.from_bytes(buf[position : position + size], "little")
            yield Field(number, wire_type, value, base + start, base + position)
            position += size
        else:
            raise InputError(
                source,
                Problem(
                    f"byte {base + start} ({where})",
                    f"unsupported wire type {wire_type} (field {number}); not a protobuf message",
                ),
            )
