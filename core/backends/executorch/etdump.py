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

Work is bounded by the file's size: vectors may point at shared tables, so a few
bytes could otherwise name millions of events (k runs sharing one table of m
events decode k x m events from about 4(k + m) bytes). Every event takes at least
a 4-byte vector slot of its own in a file that does not share tables, so a file of
n bytes decodes at most n / 4 events in all, and the strings and metadata of its
events (which could all point at one long string) at most ``BYTES_FACTOR`` x n bytes;
more is refused as an ``InputError``.
Long decodes call ``core.cancellation.checkpoint`` every few thousand events.
"""

from __future__ import annotations

from dataclasses import dataclass

from flatbuffers import number_types

from perfline.core.backends.executorch.flatbuffer import Buffer, CheckedTable, root_table
from perfline.core.cancellation import checkpoint
from perfline.core.errors import InputError, Problem

FILE_IDENTIFIER = b"ED00"
#: Bytes of file per decoded event, at least (one vector slot).
BYTES_PER_EVENT = 4
#: Decoded bytes of event strings and metadata per byte of file, at most (real dumps
#: decode about a third of their size).
BYTES_FACTOR = 4
#: Events between two cancellation checkpoints.
CHECKPOINT_EVERY = 4096


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
    version = root.scalar(0, number_types.Uint32Flags, 0, "version")
    budget = _Budget(len(buffer.data))
    runs = tuple(
        _run(index, table, budget) for index, table in enumerate(root.tables(1, "run_data"))
    )
    return ETDump(version=version, runs=runs)


class _Budget:
    """How many more events the file's size allows."""

    def __init__(self, size: int) -> None:
        self.total = size // BYTES_PER_EVENT
        self.left = self.total
        self.bytes_left = BYTES_FACTOR * size

    def take(self, count: int, table: CheckedTable) -> None:
        if count > self.left:
            raise InputError(
                table.buffer.source,
                Problem(
                    f"byte {table.position} ({table.where}.events)",
                    f"the event vectors name more events than a file of "
                    f"{len(table.buffer.data)} bytes can hold (at most {self.total}): "
                    "they share tables, which an ETDump writer never does",
                ),
            )
        self.left -= count

    def take_bytes(self, count: int, table: CheckedTable) -> None:
        self.bytes_left -= count
        if self.bytes_left < 0:
            raise InputError(
                table.buffer.source,
                Problem(
                    f"byte {table.position} ({table.where})",
                    f"the events' strings add up to more than {BYTES_FACTOR} times the file's "
                    f"{len(table.buffer.data)} bytes: they share one string, which an ETDump "
                    "writer never does",
                ),
            )


def _run(index: int, table: CheckedTable, budget: _Budget) -> RunData:
    events: list[ProfileEvent] = []
    debug_events = 0
    allocation_events = 0
    items = table.tables(3, "events")
    budget.take(len(items), table)
    for event_index, event in enumerate(items):
        if event_index % CHECKPOINT_EVERY == CHECKPOINT_EVERY - 1:
            checkpoint()
        profile = event.table(0, "profile_event")
        if profile is not None:
            events.append(_profile_event(event_index, profile, budget))
        if event.has(1):
            allocation_events += 1
        if event.has(2):
            debug_events += 1
    return RunData(
        index=index,
        name=table.string(0, "name"),
        bundled_input_index=table.scalar(1, number_types.Int32Flags, -1, "bundled_input_index"),
        profile_events=tuple(events),
        debug_event_count=debug_events,
        allocation_event_count=allocation_events,
    )


def _profile_event(index: int, table: CheckedTable, budget: _Budget) -> ProfileEvent:
    start = table.scalar(6, number_types.Uint64Flags, 0, "start_time")
    end = table.scalar(7, number_types.Uint64Flags, 0, "end_time")
    if end < start:
        raise InputError(
            table.buffer.source,
            Problem(
                f"byte {table.position} ({table.where})",
                f"end_time {end} is before start_time {start}",
            ),
        )
    name = table.string(0, "name")
    debug_id = table.string(4, "delegate_debug_id_str")
    metadata = table.bytes_vector(5, "delegate_debug_metadata") or b""
    budget.take_bytes(len(name or "") + len(debug_id or "") + len(metadata), table)
    return ProfileEvent(
        index=index,
        name=name,
        chain_index=table.scalar(1, number_types.Int32Flags, 0, "chain_index"),
        instruction_id=table.scalar(2, number_types.Int32Flags, -1, "instruction_id"),
        delegate_debug_id_int=table.scalar(3, number_types.Int32Flags, -1, "delegate_debug_id_int"),
        delegate_debug_id_str=debug_id,
        delegate_debug_metadata=metadata,
        start_time=start,
        end_time=end,
    )
