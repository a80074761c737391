"""Reading an ExecuTorch ETDump (``.etdump`` / ``.etdp``) without ExecuTorch.

An ETDump is a (usually size-prefixed) flatbuffer with file identifier
``ED00``, written from ExecuTorch's public schema
``devtools/etdump/etdump_schema_flatcc.fbs``:
``ETDump{version, run_data:[RunData]}``,
``RunData{name, bundled_input_index, allocators, events:[Event]}``,
``Event{profile_event, allocation_event, debug_event}`` and
``ProfileEvent{name, chain_index, instruction_id, delegate_debug_id_int,
delegate_debug_id_str, delegate_debug_metadata:[ubyte], start_time, end_time}``.
Only profile events are kept; allocation and debug events are counted.
The field slots below follow that schema's declaration order.
"""

from __future__ import annotations

from dataclasses import dataclass

from flatbuffers import number_types as fb

from perfline.core.backends.executorch.flatbuffer import Buffer, CheckedTable, root_table
from perfline.core.errors import InputError, Problem

FILE_IDENTIFIER = b"ED00"


@dataclass(frozen=True)
class ProfileEvent:
    """One timed runtime event; times are the runtime's ticks (nanoseconds by default)."""

    index: int
    name: str | None
    chain_index: int
    instruction_id: int
    delegate_debug_id_int: int
    delegate_debug_id_str: str | None
    delegate_debug_metadata: bytes
    start_time: int
    end_time: int

    @property
    def is_delegate_internal(self) -> bool:
        """Whether the event was emitted inside a delegate (it carries a delegate id)."""
        return self.delegate_debug_id_int != -1 or self.delegate_debug_id_str is not None


@dataclass(frozen=True)
class RunData:
    """One block of events (ExecuTorch writes one per method load and per execution)."""

    index: int
    name: str | None
    bundled_input_index: int
    profile_events: tuple[ProfileEvent, ...]
    debug_event_count: int
    allocation_event_count: int


@dataclass(frozen=True)
class ETDump:
    """The decoded dump."""

    version: int
    runs: tuple[RunData, ...]


def read_etdump(data: bytes, source: str) -> ETDump:
    """Decode ``data``; any malformed part raises ``InputError`` naming ``source`` and the byte."""
    buffer = Buffer(bytes(data), source)
    root = root_table(buffer, FILE_IDENTIFIER, "ETDump")
    version = root.scalar(0, fb.Uint32Flags, 0, "version")
    runs = tuple(_run(index, table) for index, table in enumerate(root.tables(1, "run_data")))
    return ETDump(version=version, runs=runs)


def _run(index: int, table: CheckedTable) -> RunData:
    events: list[ProfileEvent] = []
    debug_events = 0
    allocation_events = 0
    for event_index, event in enumerate(table.tables(3, "events")):
        profile = event.table(0, "profile_event")
        if profile is not None:
            events.append(_profile_event(event_index, profile))
        if event.has(1):
            allocation_events += 1
        if event.has(2):
            debug_events += 1
    return RunData(
        index=index,
        name=table.string(0, "name"),
        bundled_input_index=table.scalar(1, fb.Int32Flags, -1, "bundled_input_index"),
        profile_events=tuple(events),
        debug_event_count=debug_events,
        allocation_event_count=allocation_events,
    )


def _profile_event(index: int, table: CheckedTable) -> ProfileEvent:
    start = table.scalar(6, fb.Uint64Flags, 0, "start_time")
    end = table.scalar(7, fb.Uint64Flags, 0, "end_time")
    if end < start:
        raise InputError(
            table.buffer.source,
            Problem(
                f"byte {table.position} ({table.where})",
                f"end_time {end} is before start_time {start}",
            ),
        )
    return ProfileEvent(
        index=index,
        name=table.string(0, "name"),
        chain_index=table.scalar(1, fb.Int32Flags, 0, "chain_index"),
        instruction_id=table.scalar(2, fb.Int32Flags, -1, "instruction_id"),
        delegate_debug_id_int=table.scalar(3, fb.Int32Flags, -1, "delegate_debug_id_int"),
        delegate_debug_id_str=table.string(4, "delegate_debug_id_str"),
        delegate_debug_metadata=table.bytes_vector(5, "delegate_debug_metadata") or b"",
        start_time=start,
        end_time=end,
    )
