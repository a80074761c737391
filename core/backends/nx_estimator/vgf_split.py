"""Single-segment VGF files for the estimator, which accepts only one segment per file.

For graph segment ``i`` of a VGF, the new file keeps the original header
(with the section table rewritten), the model-resource table and the
constants section byte for byte -- so resource and constant indexes keep
their meaning -- and writes a new module table holding only the segment's
module and a new model-sequence table holding only the segment (module index
0, same bindings, constants, dispatch shape, push-constant ranges). The
sequence's model inputs/outputs are the segment's, named after the original
model input/output of the same resource, else ``input_<k>``/``output_<k>``.

FlatBuffer layout (``vgf.fbs`` of the ML SDK VGF library, as read by
``perfline.core.formats.vgf``): ``ModuleTable{modules}``, ``Module{type,
name, entry_point, code (union: SPIRV{words} | GLSL{code} | HLSL{code})}``,
``ModelSequenceTable{segments, inputs, outputs, input_names, output_names}``,
``SegmentInfo{type, name, module_index, set_infos, inputs, outputs, constants,
dispatch_shape, push_constant_ranges, constant_bindings}`` (the last, field 9,
a vector of two-u32 tables, is copied slot by slot when present). Sections
are 16-byte aligned.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

import flatbuffers

from perfline.core.formats._flatbuf import root_table
from perfline.core.formats.vgf import (
    CODE_KINDS,
    HEADER_SIZE,
    MODULE_TYPES,
    BindingSlot,
    VgfFile,
    VgfModule,
    VgfSegment,
)

_ALIGNMENT = 16


def single_segment_vgf(data: bytes, vgf: VgfFile, segment_index: int, source: str) -> bytes:
    """A VGF holding only segment ``segment_index`` of ``vgf`` (decoded from ``data``)."""
    segment = vgf.segments[segment_index]
    module = vgf.modules[segment.module_index]
    by_name = {section.name: section for section in vgf.sections}
    payloads = [
        _module_table(module),
        _sequence_table(vgf, segment, _constant_bindings(data, vgf, segment_index, source)),
        _slice(data, by_name["resources"].offset, by_name["resources"].size),
        _slice(data, by_name["constants"].offset, by_name["constants"].size),
    ]
    header = bytearray(data[:HEADER_SIZE])
    body = bytearray()
    offset = HEADER_SIZE
    for number, payload in enumerate(payloads):
        padding = (-offset) % _ALIGNMENT
        body += b"\0" * padding
        offset += padding
        struct.pack_into("<QQ", header, 16 + 16 * number, offset if payload else 0, len(payload))
        body += payload
        offset += len(payload)
    return bytes(header + body)


def _slice(data: bytes, offset: int, size: int) -> bytes:
    return bytes(data[offset : offset + size]) if size else b""


def _module_table(module: VgfModule) -> bytes:
    builder = flatbuffers.Builder(len(module.spirv or b"") + 256)
    builder.ForceDefaults(True)
    name = builder.CreateString(module.name)
    entry = builder.CreateString(module.entry_point)
    code_kind = module.code_kind if module.code_kind in CODE_KINDS else "NONE"
    code = 0
    if code_kind == "SPIRV" and module.spirv:
        words = _u32_vector(builder, module.spirv_words)
        builder.StartObject(1)
        builder.PrependUOffsetTRelativeSlot(0, words, 0)
        code = builder.EndObject()
    elif code_kind in ("GLSL", "HLSL") and module.code_text is not None:
        text = builder.CreateString(module.code_text)
        builder.StartObject(1)
        builder.PrependUOffsetTRelativeSlot(0, text, 0)
        code = builder.EndObject()
    builder.StartObject(5)
    builder.PrependUint8Slot(0, MODULE_TYPES.index(module.type), 0)
    builder.PrependUOffsetTRelativeSlot(1, name, 0)
    builder.PrependUOffsetTRelativeSlot(2, entry, 0)
    builder.PrependUint8Slot(3, CODE_KINDS.index(code_kind) if code else 0, 0)
    if code:
        builder.PrependUOffsetTRelativeSlot(4, code, 0)
    table = builder.EndObject()
    modules = _offset_vector(builder, [table])
    builder.StartObject(1)
    builder.PrependUOffsetTRelativeSlot(0, modules, 0)
    builder.Finish(builder.EndObject())
    return bytes(builder.Output())


def _constant_bindings(
    data: bytes, vgf: VgfFile, segment_index: int, source: str
) -> list[tuple[int, int]] | None:
    """The segment's graph-constant bindings (``SegmentInfo`` field 9: tables of two u32,
    copied slot by slot), or ``None`` when the file has none."""
    section = next(s for s in vgf.sections if s.name == "model_sequence")
    if not section.size:
        return None
    buffer = bytes(data[section.offset : section.offset + section.size])
    root = root_table(buffer, source, "ModelSequenceTable", base=section.offset)
    table = root.tables(0, "segments")[segment_index]
    # An offset field is never 0 when present, so its raw value tells presence.
    if table.scalar(9, "u32", "constant_bindings") == 0:
        return None
    return [
        (item.scalar(0, "u32", "binding field 0"), item.scalar(1, "u32", "binding field 1"))
        for item in table.tables(9, "constant_bindings")
    ]


def _sequence_table(
    vgf: VgfFile, segment: VgfSegment, constant_bindings: list[tuple[int, int]] | None
) -> bytes:
    builder = flatbuffers.Builder(1024)
    builder.ForceDefaults(True)
    binding_vector = 0
    if constant_bindings is not None:
        binding_tables = []
        for first, second in constant_bindings:
            builder.StartObject(2)
            builder.PrependUint32Slot(0, first, 0)
            builder.PrependUint32Slot(1, second, 0)
            binding_tables.append(builder.EndObject())
        binding_vector = _offset_vector(builder, binding_tables)
    set_infos = []
    for descriptor_set in segment.descriptor_sets:
        bindings = _slots(builder, descriptor_set.bindings)
        builder.StartObject(2)
        builder.PrependUOffsetTRelativeSlot(0, bindings, 0)
        if descriptor_set.set_index is not None:
            builder.PrependUint32Slot(1, descriptor_set.set_index, 0)
        set_infos.append(builder.EndObject())
    ranges = []
    for push in segment.push_constant_ranges:
        builder.StartObject(3)
        builder.PrependUint32Slot(0, push.stage_flags, 0)
        builder.PrependUint32Slot(1, push.offset, 0)
        builder.PrependUint32Slot(2, push.size, 0)
        ranges.append(builder.EndObject())
    name = builder.CreateString(segment.name)
    set_vector = _offset_vector(builder, set_infos)
    inputs = _slots(builder, segment.inputs)
    outputs = _slots(builder, segment.outputs)
    constants = _u32_vector(builder, segment.constants)
    dispatch = _u32_vector(builder, segment.dispatch_shape)
    range_vector = _offset_vector(builder, ranges)
    builder.StartObject(10)
    builder.PrependUint8Slot(0, MODULE_TYPES.index(segment.type), 0)
    builder.PrependUOffsetTRelativeSlot(1, name, 0)
    builder.PrependUint32Slot(2, 0, 0)
    builder.PrependUOffsetTRelativeSlot(3, set_vector, 0)
    builder.PrependUOffsetTRelativeSlot(4, inputs, 0)
    builder.PrependUOffsetTRelativeSlot(5, outputs, 0)
    builder.PrependUOffsetTRelativeSlot(6, constants, 0)
    builder.PrependUOffsetTRelativeSlot(7, dispatch, 0)
    builder.PrependUOffsetTRelativeSlot(8, range_vector, 0)
    if constant_bindings is not None:
        builder.PrependUOffsetTRelativeSlot(9, binding_vector, 0)
    segment_table = builder.EndObject()
    segments = _offset_vector(builder, [segment_table])
    model_inputs = _slots(builder, segment.inputs)
    model_outputs = _slots(builder, segment.outputs)
    input_names = _strings(builder, _names(vgf.inputs, vgf.input_names, segment.inputs, "input"))
    output_names = _strings(
        builder, _names(vgf.outputs, vgf.output_names, segment.outputs, "output")
    )
    builder.StartObject(5)
    builder.PrependUOffsetTRelativeSlot(0, segments, 0)
    builder.PrependUOffsetTRelativeSlot(1, model_inputs, 0)
    builder.PrependUOffsetTRelativeSlot(2, model_outputs, 0)
    builder.PrependUOffsetTRelativeSlot(3, input_names, 0)
    builder.PrependUOffsetTRelativeSlot(4, output_names, 0)
    builder.Finish(builder.EndObject())
    return bytes(builder.Output())


def _names(
    model_slots: Sequence[BindingSlot],
    model_names: Sequence[str],
    slots: Sequence[BindingSlot],
    prefix: str,
) -> list[str]:
    by_resource = {
        slot.mrt_index: model_names[number]
        for number, slot in enumerate(model_slots)
        if number < len(model_names)
    }
    return [by_resource.get(slot.mrt_index, f"{prefix}_{k}") for k, slot in enumerate(slots)]


def _slots(builder: flatbuffers.Builder, slots: Sequence[BindingSlot]) -> int:
    tables = []
    for slot in slots:
        builder.StartObject(2)
        builder.PrependUint32Slot(0, slot.binding, 0)
        builder.PrependUint32Slot(1, slot.mrt_index, 0)
        tables.append(builder.EndObject())
    return _offset_vector(builder, tables)


def _offset_vector(builder: flatbuffers.Builder, offsets: Sequence[int]) -> int:
    builder.StartVector(4, len(offsets), 4)
    for offset in reversed(offsets):
        builder.PrependUOffsetTRelative(offset)
    return int(builder.EndVector())


def _u32_vector(builder: flatbuffers.Builder, values: Sequence[int]) -> int:
    builder.StartVector(4, len(values), 4)
    for value in reversed(values):
        builder.PrependUint32(value)
    return int(builder.EndVector())


def _strings(builder: flatbuffers.Builder, values: Sequence[str]) -> int:
    offsets = [builder.CreateString(value) for value in values]
    return _offset_vector(builder, offsets)
