"""Bounds-checked reading of FlatBuffers tables (TOSA files, VGF sections).

The ``flatbuffers`` runtime reads a buffer trustingly: a corrupt offset makes it read past the
end, from a negative position, or loop over a vector of four billion elements. ``FlatTable``
wraps ``flatbuffers.table.Table`` and checks every position it follows before the runtime reads
it, so a malformed file gives one ``InputError`` naming the byte offset and the schema path
(``TosaGraph.regions[0].blocks[0].operators[25].location``) instead of a traceback or a hang.

Slots are the zero-based field numbers of the schema (vtable entry ``4 + 2 * slot``). Cost: one
check per access; vectors are read lazily per element.
"""

from __future__ import annotations

import struct
from typing import NoReturn

# The package first: ``import flatbuffers.table`` alone takes the submodule's import lock
# before the package's, and deadlocks (a partially initialized module, ImportError) with a
# thread importing the package at the same moment (two daemon jobs starting together).
import flatbuffers
import flatbuffers.table

from perfline.core.errors import InputError, Problem

_U8 = struct.Struct("<B")
_U16 = struct.Struct("<H")
_I32 = struct.Struct("<i")
_U32 = struct.Struct("<I")
_I64 = struct.Struct("<q")
_U64 = struct.Struct("<Q")

SCALARS: dict[str, struct.Struct] = {
    "u8": _U8,
    "u16": _U16,
    "i32": _I32,
    "u32": _U32,
    "i64": _I64,
    "u64": _U64,
}


class FlatTable:
    """One table of a FlatBuffer, read with bounds checks.

    ``base`` is added to positions in error messages (the offset of the buffer inside its file).
    """

    __slots__ = ("_base", "_buf", "_end", "_object_end", "_pos", "_source", "_tab", "path")

    def __init__(self, buf: bytes, pos: int, source: str, path: str, base: int = 0) -> None:
        self._buf = buf
        self._source = source
        self._base = base
        self.path = path
        self._end = len(buf)
        self._pos = pos
        self._need(pos, 4, "a table")
        vtable = pos - _I32.unpack_from(buf, pos)[0]
        self._need(vtable, 4, "a vtable")
        vtable_size = _U16.unpack_from(buf, vtable)[0]
        object_size = _U16.unpack_from(buf, vtable + 2)[0]
        if vtable_size < 4 or vtable_size % 2:
            self.fail(vtable, f"expected a vtable size >= 4 and even, found {vtable_size}")
        self._need(vtable, vtable_size, "a vtable")
        self._need(pos, max(object_size, 4), "the table's inline fields")
        self._object_end = pos + object_size
        self._tab = flatbuffers.table.Table(buf, pos)

    # -- errors -----------------------------------------------------------------------------
    @property
    def position(self) -> int:
        """Where this table starts in its buffer."""
        return self._pos

    def fail(self, position: int, message: str, path: str | None = None) -> NoReturn:
        """Raise an ``InputError`` at ``position`` of this buffer."""
        raise InputError(
            self._source,
            Problem(f"byte {self._base + position} ({path or self.path})", message),
        )

    def _need(self, position: int, size: int, what: str, path: str | None = None) -> None:
        if position < 0 or size < 0 or position + size > self._end:
            self.fail(
                max(position, 0),
                f"expected {what} ({size} bytes) inside the {self._end}-byte buffer; "
                "the file is truncated or an offset is corrupt",
                path,
            )

    # -- fields -----------------------------------------------------------------------------
    def _field(self, slot: int, size: int, name: str) -> int | None:
        offset = int(self._tab.Offset(4 + 2 * slot))
        if offset == 0:
            return None
        position = self._pos + offset
        if position + size > self._object_end:
            self.fail(position, f"field '{name}' lies outside its table", f"{self.path}.{name}")
        self._need(position, size, f"field '{name}'", f"{self.path}.{name}")
        return position

    def scalar(self, slot: int, kind: str, name: str, default: int = 0) -> int:
        """An integer field of the given kind (``u8``, ``u16``, ``i32``, ``u32``, ``i64``)."""
        packer = SCALARS[kind]
        position = self._field(slot, packer.size, name)
        if position is None:
            return default
        return int(packer.unpack_from(self._buf, position)[0])

    def _target(self, slot: int, name: str) -> int | None:
        position = self._field(slot, 4, name)
        if position is None:
            return None
        target = position + int(_U32.unpack_from(self._buf, position)[0])
        self._need(target, 4, f"the data of '{name}'", f"{self.path}.{name}")
        return target

    def table(self, slot: int, name: str) -> FlatTable | None:
        """A sub-table field, or ``None`` when absent."""
        target = self._target(slot, name)
        if target is None:
            return None
        return FlatTable(self._buf, target, self._source, f"{self.path}.{name}", self._base)

    def string(self, slot: int, name: str) -> str | None:
        """A string field (UTF-8), or ``None`` when absent."""
        target = self._target(slot, name)
        if target is None:
            return None
        return self._string_at(target, f"{self.path}.{name}")

    def _string_at(self, target: int, path: str) -> str:
        length = _U32.unpack_from(self._buf, target)[0]
        self._need(target + 4, length, "string bytes", path)
        raw = self._buf[target + 4 : target + 4 + length]
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as error:
            self.fail(target + 4 + error.start, "expected UTF-8 text", path)

    def _vector(self, slot: int, element_size: int, name: str) -> tuple[int, int]:
        target = self._target(slot, name)
        if target is None:
            return (0, 0)
        count = _U32.unpack_from(self._buf, target)[0]
        self._need(
            target + 4, count * element_size, f"{count} vector elements", f"{self.path}.{name}"
        )
        return (target + 4, count)

    def vector_length(self, slot: int, name: str, element_size: int = 1) -> int:
        """The element count of a vector field (0 when absent)."""
        return self._vector(slot, element_size, name)[1]

    def tables(self, slot: int, name: str) -> tuple[FlatTable, ...]:
        """A vector of tables."""
        start, count = self._vector(slot, 4, name)
        items: list[FlatTable] = []
        for index in range(count):
            position = start + 4 * index
            target = position + _U32.unpack_from(self._buf, position)[0]
            items.append(
                FlatTable(
                    self._buf, target, self._source, f"{self.path}.{name}[{index}]", self._base
                )
            )
        return tuple(items)

    def strings(self, slot: int, name: str) -> tuple[str, ...]:
        """A vector of strings."""
        start, count = self._vector(slot, 4, name)
        items: list[str] = []
        for index in range(count):
            position = start + 4 * index
            target = position + _U32.unpack_from(self._buf, position)[0]
            path = f"{self.path}.{name}[{index}]"
            self._need(target, 4, "a string", path)
            items.append(self._string_at(target, path))
        return tuple(items)

    def scalars(self, slot: int, kind: str, name: str) -> tuple[int, ...]:
        """A vector of integers of the given kind."""
        packer = SCALARS[kind]
        start, count = self._vector(slot, packer.size, name)
        return tuple(
            int(packer.unpack_from(self._buf, start + packer.size * index)[0])
            for index in range(count)
        )

    def raw_vector(self, slot: int, element_size: int, name: str) -> tuple[int, bytes]:
        """A vector's absolute start position and its bytes (``element_size`` * count)."""
        start, count = self._vector(slot, element_size, name)
        return (start, bytes(self._buf[start : start + count * element_size]))


def root_table(
    buf: bytes, source: str, root_name: str, identifier: bytes | None = None, base: int = 0
) -> FlatTable:
    """The root table of a FlatBuffer, checking the optional 4-byte file identifier."""
    header = 8 if identifier is not None else 4
    if len(buf) < header:
        raise InputError(
            source,
            Problem(
                f"byte {base} ({root_name})",
                f"expected a FlatBuffer of at least {header} bytes, found {len(buf)}",
            ),
        )
    if identifier is not None and buf[4:8] != identifier:
        raise InputError(
            source,
            Problem(
                f"byte {base + 4} (file identifier)",
                f"expected the identifier {identifier.decode('ascii')!r}, "
                f"found {bytes(buf[4:8])!r}",
            ),
        )
    root = _U32.unpack_from(buf, 0)[0]
    return FlatTable(buf, root, source, root_name, base)
