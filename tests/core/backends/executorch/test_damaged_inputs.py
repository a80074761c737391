"""Damaged real inputs: whatever the damage, the readers raise ``InputError`` or succeed."""

from __future__ import annotations

import io
import zipfile

from hypothesis import example, given, settings, strategies

from perfline.core.backends.executorch.document import analyze_etdump
from perfline.core.backends.executorch.etdump import read_etdump
from perfline.core.backends.source_model.inputs import InputFile
from perfline.core.errors import InputError
from tests.support.measured_data import pair

RECORD, DUMP = (path.read_bytes() for path in pair("portable"))


def _damage(data: bytes, edits: list[tuple[int, int]]) -> bytes:
    damaged = bytearray(data)
    for position, value in edits:
        damaged[position % len(damaged)] = value
    return bytes(damaged)


edits = strategies.lists(
    strategies.tuples(strategies.integers(0, 1 << 20), strategies.integers(0, 255)),
    min_size=1,
    max_size=8,
)


@settings(max_examples=80, deadline=None)
@given(edits)
def test_damaged_etdump_is_bad_input_or_readable(changes: list[tuple[int, int]]) -> None:
    try:
        read_etdump(_damage(DUMP, changes), "r.etdump")
    except InputError as error:
        assert str(error).startswith("r.etdump: ")


@settings(max_examples=25, deadline=None)
@given(edits)
def test_damaged_etdump_through_the_analysis(changes: list[tuple[int, int]]) -> None:
    try:
        analyze_etdump(
            InputFile("m.etrecord", RECORD),
            InputFile("r.etdump", _damage(DUMP, changes)),
            timestamp="2026-01-01T00:00:00Z",
        )
    except InputError as error:
        assert str(error).startswith(("r.etdump: ", "m.etrecord: "))


def _damaged_member(member: str, changes: list[tuple[int, int]]) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(RECORD))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            data = source.read(name)
            target.writestr(name, _damage(data, changes) if name == member and data else data)
    return out.getvalue()


@settings(max_examples=60, deadline=None)
@given(
    strategies.sampled_from(
        ["edge_dialect_exported_program/forward", "debug_handle_map", "delegate_map"]
    ),
    edits,
)
def test_damaged_etrecord_member_is_bad_input_or_readable(
    member: str, changes: list[tuple[int, int]]
) -> None:
    try:
        analyze_etdump(
            InputFile("m.etrecord", _damaged_member(member, changes)),
            InputFile("r.etdump", DUMP),
            timestamp="2026-01-01T00:00:00Z",
        )
    except InputError as error:
        assert str(error).startswith(("r.etdump: ", "m.etrecord: "))


@settings(max_examples=60, deadline=None)
@given(edits)
@example(changes=[(19204, 1)])  # a local header offset damaged into a negative seek
@example(changes=[(9331, 64)])  # "version needed to extract" 6.4: NotImplementedError on open
def test_damaged_zip_bytes(changes: list[tuple[int, int]]) -> None:
    try:
        analyze_etdump(
            InputFile("m.etrecord", _damage(RECORD, changes)),
            InputFile("r.etdump", DUMP),
            timestamp="2026-01-01T00:00:00Z",
        )
    except InputError as error:
        assert str(error).startswith("m.etrecord: ")
