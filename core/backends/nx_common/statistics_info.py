"""Binary framing and the neural statistics info (the ordered stripe ids).

Framing (``debug_database.bin`` and ``neural_statistics_info.bin``): an
optional 12-byte little-endian header ``{magic, version, payload size}``;
magic ``0x1122FFEE`` for the debug database, ``0x2211EEFF`` for the statistics
info; version must be 1 and the size must equal the remaining bytes. A file
that does not start with the magic (or is shorter than 12 bytes) is all
payload.

Statistics info: u32 little-endian stripe ids (binary), or text: unsigned
decimal or ``0x`` hex integers separated by blanks, ``,`` or ``;``, trailing
NULs ignored, each at most ``0xFFFFFFFF``. Duplicates are an error.
"""

from __future__ import annotations

import re
import struct

from perfline.core.errors import InputError, Problem

DEBUG_DATABASE_MAGIC = 0x1122FFEE
STATISTICS_INFO_MAGIC = 0x2211EEFF
_HEADER = struct.Struct("<III")
_SEPARATORS = re.compile(r"[\s,;]+")
_MAX_U32 = 0xFFFFFFFF


def unframe(data: bytes, magic: int, source: str) -> bytes:
    """The payload of a possibly framed file."""
    if len(data) < _HEADER.size:
        return data
    first, version, size = _HEADER.unpack_from(data)
    if first != magic:
        return data
    if version != 1:
        raise InputError(source, Problem("byte 4", f"header version {version}, expected 1"))
    remaining = len(data) - _HEADER.size
    if size != remaining:
        raise InputError(
            source,
            Problem("byte 8", f"header payload size {size} but {remaining} bytes follow"),
        )
    return data[_HEADER.size :]


def read_statistics_info(data: bytes, source: str, *, is_text: bool) -> tuple[int, ...]:
    """The stripe ids, in order."""
    payload = unframe(data, STATISTICS_INFO_MAGIC, source)
    ids = _text_ids(payload, source) if is_text else _binary_ids(payload, source)
    seen: dict[int, int] = {}
    for position, stripe in enumerate(ids):
        if stripe in seen:
            raise InputError(
                source,
                Problem(
                    f"entry {position}",
                    f"stripe id {stripe} is listed twice (first at entry {seen[stripe]})",
                ),
            )
        seen[stripe] = position
    return ids


def _binary_ids(payload: bytes, source: str) -> tuple[int, ...]:
    if len(payload) % 4:
        raise InputError(
            source,
            Problem(f"byte {len(payload)}", f"length {len(payload)} is not a multiple of 4"),
        )
    return tuple(value for (value,) in struct.iter_unpack("<I", payload))


def _text_ids(payload: bytes, source: str) -> tuple[int, ...]:
    try:
        text = payload.rstrip(b"\0").decode("ascii")
    except UnicodeDecodeError as error:
        raise InputError(source, Problem(f"byte {error.start}", "not ASCII text")) from None
    ids: list[int] = []
    for position, token in enumerate(t for t in _SEPARATORS.split(text) if t):
        try:
            value = int(token, 16) if token.lower().startswith("0x") else int(token, 10)
        except ValueError:
            value = -1
        if not token.lower().startswith("0x") and not token.isdigit():
            value = -1
        if value < 0 or value > _MAX_U32:
            raise InputError(
                source,
                Problem(f"entry {position}", f"{token!r} is not an unsigned 32-bit integer"),
            )
        ids.append(value)
    return tuple(ids)
