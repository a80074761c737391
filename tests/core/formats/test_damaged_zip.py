"""Zip archives damaged where ``zipfile`` raises more than ``BadZipFile``
(``core/formats/zip_archive.py``): a ``.pt2`` model and an ETRecord give an ``InputError``
naming the file, never another exception."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from perfline.core.backends.executorch.etrecord import read_etrecord
from perfline.core.errors import InputError
from perfline.core.formats.pt2 import pt2_operators
from tests.support.format_data import DSCNN, read_bytes
from tests.support.measured_data import pair

CENTRAL = b"PK\x01\x02"  # central directory header: version needed at +6, method at +10
LOCAL = b"PK\x03\x04"  # local file header: method at +8


def _patched(data: bytes, signature: bytes, offset: int, value: int) -> bytes:
    """``data`` with the 2-byte field at ``offset`` of each ``signature`` header
    set to ``value``."""
    out = bytearray(data)
    start = out.find(signature)
    assert start != -1, "the fixture has no such header"
    while start != -1:
        out[start + offset : start + offset + 2] = value.to_bytes(2, "little")
        start = out.find(signature, start + len(signature))
    return bytes(out)


DAMAGES: dict[str, Callable[[bytes], bytes]] = {
    # zipfile refuses to open: NotImplementedError("zip file version 6.4")
    "version needed 6.4": lambda data: _patched(data, CENTRAL, 6, 64),
    # opens, then reading a member fails: NotImplementedError("That compression method ...")
    "compression method 99": lambda data: _patched(_patched(data, CENTRAL, 10, 99), LOCAL, 8, 99),
}
READERS: dict[str, tuple[Callable[[bytes, str], Any], bytes]] = {
    "pt2": (pt2_operators, read_bytes(DSCNN / "dscnn.pt2")),
    "etrecord": (read_etrecord, pair("portable")[0].read_bytes()),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
@pytest.mark.parametrize("reader", sorted(READERS))
def test_unsupported_zip_fields_are_bad_input(reader: str, damage: str) -> None:
    read, data = READERS[reader]
    with pytest.raises(InputError) as raised:
        read(DAMAGES[damage](data), "damaged.zip")
    assert raised.value.source == "damaged.zip"
    assert raised.value.problems
