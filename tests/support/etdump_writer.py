"""A small ETDump writer for tests (flatbuffers ``Builder``, ExecuTorch's public schema).

Writes size-prefixed ``ED00`` buffers holding profile events only, so tests can
build dumps with chosen instruction ids, delegate ids and delegate metadata
(e.g. a ``VGF_NEURAL_STATISTICS`` payload, which no real dump here has).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import flatbuffers


@dataclass(frozen=True)
class Event:
    name: str | None
    start: int
    end: int
    instruction_id: int = -1
    chain_index: int = 0
    delegate_id_int: int = -1
    delegate_id_str: str | None = None
    metadata: bytes | None = None


def write_etdump(
    runs: Sequence[tuple[str, Sequence[Event]]], *, size_prefixed: bool = True
) -> bytes:
    builder = flatbuffers.Builder(1024)
    run_offsets = []
    for run_name, events in runs:
        event_offsets = []
        for event in events:
            name = builder.CreateString(event.name) if event.name is not None else None
            ident = (
                builder.CreateString(event.delegate_id_str)
                if event.delegate_id_str is not None
                else None
            )
            metadata = (
                builder.CreateByteVector(event.metadata) if event.metadata is not None else None
            )
            builder.StartObject(8)
            if name is not None:
                builder.PrependUOffsetTRelativeSlot(0, name, 0)
            builder.PrependInt32Slot(1, event.chain_index, 0)
            builder.PrependInt32Slot(2, event.instruction_id, -1)
            builder.PrependInt32Slot(3, event.delegate_id_int, -1)
            if ident is not None:
                builder.PrependUOffsetTRelativeSlot(4, ident, 0)
            if metadata is not None:
                builder.PrependUOffsetTRelativeSlot(5, metadata, 0)
            builder.PrependUint64Slot(6, event.start, 0)
            builder.PrependUint64Slot(7, event.end, 0)
            profile = builder.EndObject()
            builder.StartObject(3)
            builder.PrependUOffsetTRelativeSlot(0, profile, 0)
            event_offsets.append(builder.EndObject())
        builder.StartVector(4, len(event_offsets), 4)
        for offset in reversed(event_offsets):
            builder.PrependUOffsetTRelative(offset)
        events_vector = builder.EndVector()
        run_name_offset = builder.CreateString(run_name)
        builder.StartObject(4)
        builder.PrependUOffsetTRelativeSlot(0, run_name_offset, 0)
        builder.PrependInt32Slot(1, -1, -1)
        builder.PrependUOffsetTRelativeSlot(3, events_vector, 0)
        run_offsets.append(builder.EndObject())
    builder.StartVector(4, len(run_offsets), 4)
    for offset in reversed(run_offsets):
        builder.PrependUOffsetTRelative(offset)
    runs_vector = builder.EndVector()
    builder.StartObject(2)
    builder.PrependUint32Slot(0, 0, 0)
    builder.PrependUOffsetTRelativeSlot(1, runs_vector, 0)
    root = builder.EndObject()
    if size_prefixed:
        builder.FinishSizePrefixed(root, file_identifier=b"ED00")
    else:
        builder.Finish(root, file_identifier=b"ED00")
    return bytes(builder.Output())
