"""Bounds-checked access to a FlatBuffers buffer.

The ``flatbuffers`` runtime decodes scalars but trusts every offset it is
given: a truncated or corrupted file makes it read garbage, slice short
strings silently or raise bare ``struct`` errors. ``CheckedTable`` checks each
offset, vtable and vector against the buffer before reading, and reports a
bad one as an ``InputError`` naming the file, the byte offset and the schema
path being read (``run_data[3].events[7].profile_event.name``).
Cost: O(1) per field access.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flatbuffers import encode, number_types

from perfline.core.errors import InputError, Problem

_UOFFSET = number_types.UOffsetTFlags
_SOFFSET = number_types.SOffsetTFlags
_VOFFSET = number_types.VOffsetTFlags


@dataclass(frozen=True)
class Buffer:
    """The bytes of one flatbuffer and the name of the file they came from."""

    data: bytes
    source: str

    def fail(self, position: int, where: str, message: str) -> InputError:
        """An ``InputError`` at byte ``position`` while reading ``where``."""
        return InputError(self.source, Problem(f"byte {position} ({where})", message))

    def need(self, position: int, size: int, where: str) -> None:
        """Check that ``size`` bytes start at ``position`` inside the buffer."""
        if position < 0 or position + size > len(self.data):
            raise self.fail(
                position,
                where,
                f"needs {size} byte(s) at offset {position} but the file holds "
                f"{len(self.data)} bytes (truncated or corrupted flatbuffer)",
            )

    def get(self, flags: Any, position: int, where: str) -> int | float:
        """One scalar of type ``flags`` at ``position``."""
        self.need(position, flags.bytewidth, where)
        value: int | float = encode.Get(flags.packer_type, self.data, position)
        return value

    def uoffset(self, position: int, where: str) -> int:
        """The unsigned 32-bit offset stored at ``position``."""
        return int(self.get(_UOFFSET, position, where))


class CheckedTable:
    """A FlatBuffers table at ``position`` whose fields are read with bounds checks."""

    def __init__(self, buffer: Buffer, position: int, where: str) -> None:
        self.buffer = buffer
        self.position = position
        self.where = where
        soffset = int(buffer.get(_SOFFSET, position, where))
        vtable = position - soffset
        vtable_size = int(buffer.get(_VOFFSET, vtable, f"{where} vtable"))
        if vtable_size < 4 or vtable_size % 2:
            raise buffer.fail(vtable, f"{where} vtable", f"invalid vtable size {vtable_size}")
        buffer.need(vtable, vtable_size, f"{where} vtable")
        self._vtable = vtable
        self._vtable_size = vtable_size

    def _field(self, slot: int) -> int:
        """The field's offset from the table start, 0 when absent."""
        entry = 4 + 2 * slot
        if entry >= self._vtable_size:
            return 0
        return int(self.buffer.get(_VOFFSET, self._vtable + entry, f"{self.where} vtable"))

    def has(self, slot: int) -> bool:
        """Whether field ``slot`` is present."""
        return self._field(slot) != 0

    def scalar(self, slot: int, flags: Any, default: int, name: str) -> int:
        """An integer field (``default`` when absent)."""
        offset = self._field(slot)
        if not offset:
            return default
        return int(self.buffer.get(flags, self.position + offset, f"{self.where}.{name}"))

    def _target(self, slot: int, name: str) -> int | None:
        offset = self._field(slot)
        if not offset:
            return None
        at = self.position + offset
        return at + self.buffer.uoffset(at, f"{self.where}.{name}")

    def string(self, slot: int, name: str) -> str | None:
        """A UTF-8 string field, ``None`` when absent."""
        data = self.bytes_vector(slot, name)
        if data is None:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise self.buffer.fail(
                self.position, f"{self.where}.{name}", f"string is not valid UTF-8: {error}"
            ) from None

    def bytes_vector(self, slot: int, name: str) -> bytes | None:
        """A ``[ubyte]`` (or string) field's bytes, ``None`` when absent."""
        start = self._target(slot, name)
        if start is None:
            return None
        where = f"{self.where}.{name}"
        length = self.buffer.uoffset(start, where)
        self.buffer.need(start + 4, length, where)
        return self.buffer.data[start + 4 : start + 4 + length]

    def table(self, slot: int, name: str) -> CheckedTable | None:
        """A sub-table field, ``None`` when absent."""
        start = self._target(slot, name)
        if start is None:
            return None
        return CheckedTable(self.buffer, start, f"{self.where}.{name}")

    def tables(self, slot: int, name: str) -> list[CheckedTable]:
        """A vector of tables (empty when absent)."""
        start = self._target(slot, name)
        if start is None:
            return []
        where = f"{self.where}.{name}"
        count = self.buffer.uoffset(start, where)
        self.buffer.need(start + 4, 4 * count, where)
        items: list[CheckedTable] = []
        for index in range(count):
            at = start + 4 + 4 * index
            items.append(
                CheckedTable(self.buffer, at + self.buffer.uoffset(at, where), f"{where}[{index}]")
            )
        return items


def root_table(buffer: Buffer, identifier: bytes, root_name: str) -> CheckedTable:
    """The root table of a plain or size-prefixed buffer carrying ``identifier``.

    A size-prefixed buffer must hold exactly the number of bytes its prefix
    declares (a shorter file is truncated).
    """
    data = buffer.data
    if len(data) >= 8 and data[4:8] == identifier:
        return CheckedTable(buffer, buffer.uoffset(0, "root offset"), root_name)
    if len(data) >= 12 and data[8:12] == identifier:
        declared = buffer.uoffset(0, "size prefix")
        if declared > len(data) - 4:
            raise buffer.fail(
                0,
                "size prefix",
                f"declares {declared} bytes after the prefix but the file holds only "
                f"{len(data) - 4} (truncated)",
            )
        return CheckedTable(buffer, 4 + buffer.uoffset(4, "root offset"), root_name)
    raise buffer.fail(
        4,
        "file identifier",
        f"expected the flatbuffer identifier {identifier.decode('ascii')!r} at byte 4 or 8 "
        f"(file of {len(data)} bytes)",
    )
