"""VGF container reader and the canonical VGF identity ``source_operator/segment_<i>/spirv-<id>``.

A VGF file (ML SDK for Vulkan) is a 128-byte header — magic ``VGF1``, ``VK_HEADER_VERSION``
(u16 at 4), format version (3 bytes at 8), then (offset, size) u64 pairs of four sections at 16:
modules, model sequence, model resources, constants — followed by the sections. The first three
are FlatBuffers (schema ``vgf.fbs`` of the VGF library: ``ModuleTable``, ``ModelSequenceTable``,
``ModelResourceTable``); the constants section is either the raw ``CONST00`` layout (24-byte
metadata records) or the legacy ``ConstantSection`` FlatBuffer. Only metadata is decoded here;
constant payloads are never copied.

Identity (seed 001): ``source_operator/segment_<i>/spirv-<result-id>`` where ``i`` is the
segment's position in the model-sequence table and ``result-id`` the SPIR-V result id of a
``TOSA.*`` ``OpExtInst`` in that segment's module (see ``spirv``). Stability and limits:

* ids are only meaningful with the exact VGF file: converting the same TOSA file with and without
  ``--emit-debug-info`` renumbers result ids (``spirv-126`` vs ``spirv-141`` for the first INT
  DS-CNN operator); regenerating a debug VGF may change them as well;
* only *Graph* segments with SPIR-V code have operations; *Compute* segments (shaders) get no
  source operators, and a module shared by two segments yields the same result ids under two
  different segment prefixes;
* source locations exist only when the converter emitted debug info whose names are ExecuTorch
  JSON labels (``NonSemantic.Graph.DebugInfo.1``); other debug names (e.g. TFLite layer names) are
  kept as labels without frames.

Everything is pure: ``read_vgf(data, source)`` takes the file's bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from perfline.core.errors import InputError, Problem
from perfline.core.formats._flatbuf import FlatTable, root_table
from perfline.core.formats.identity import (
    SourceOperator,
    parse_json_label,
    source_operator_id,
)
from perfline.core.formats.spirv import SpirvModule, SpirvOperation, parse_module

VGF_MAGIC = b"VGF1"
HEADER_SIZE = 128
SECTION_NAMES = ("modules", "model_sequence", "resources", "constants")
MODULE_TYPES = ("COMPUTE", "GRAPH")
RESOURCE_CATEGORIES = ("INPUT", "OUTPUT", "INTERMEDIATE", "CONSTANT")
CODE_KINDS = ("NONE", "SPIRV", "GLSL", "HLSL")
RAW_CONSTANTS_MAGIC = b"CONST00\0"

_SECTION = struct.Struct("<QQ")


@dataclass(frozen=True)
class Section:
    """Where one section lies in the file."""

    name: str
    offset: int
    size: int


@dataclass(frozen=True)
class VgfModule:
    """One module of the module table; ``spirv`` holds its words as little-endian bytes."""

    index: int
    type: str
    name: str
    entry_point: str
    code_kind: str
    spirv: bytes | None = None
    spirv_offset: int | None = None
    code_text: str | None = None

    @property
    def spirv_words(self) -> tuple[int, ...]:
        """The SPIR-V word array (empty for non-SPIR-V modules)."""
        if not self.spirv:
            return ()
        return struct.unpack_from(f"<{len(self.spirv) // 4}I", self.spirv)


@dataclass(frozen=True)
class BindingSlot:
    """A binding number and the model-resource-table index it refers to."""

    binding: int
    mrt_index: int


@dataclass(frozen=True)
class DescriptorSet:
    """One descriptor set of a segment; an unset index falls back to its position in the list."""

    set_index: int
    bindings: tuple[BindingSlot, ...]


@dataclass(frozen=True)
class PushConstantRange:
    """A push-constant range of a segment."""

    stage_flags: int
    offset: int
    size: int


@dataclass(frozen=True)
class VgfSegment:
    """One entry of the model-sequence table (index = its position)."""

    index: int
    type: str
    name: str
    module_index: int
    descriptor_sets: tuple[DescriptorSet, ...]
    inputs: tuple[BindingSlot, ...]
    outputs: tuple[BindingSlot, ...]
    constants: tuple[int, ...]
    dispatch_shape: tuple[int, ...]
    push_constant_ranges: tuple[PushConstantRange, ...]


@dataclass(frozen=True)
class VgfResource:
    """One model-resource-table entry (``shape`` ``None`` when the file has no description).

    ``vk_descriptor_type`` is ``None`` for "no descriptor" (stored as ``UINT32_MAX``, constants);
    a negative dimension in ``shape`` is a dynamic one (-1, or ``INT64_MIN`` in some models).
    """

    index: int
    category: str
    vk_descriptor_type: int | None
    vk_format: int
    shape: tuple[int, ...] | None
    strides: tuple[int, ...] | None


@dataclass(frozen=True)
class VgfConstant:
    """Metadata of one constant (the payload is not read)."""

    index: int
    mrt_index: int
    sparsity_dimension: int
    size: int


@dataclass(frozen=True)
class VgfFile:
    """A decoded VGF container."""

    version: tuple[int, int, int]
    vk_header_version: int
    sections: tuple[Section, ...]
    modules: tuple[VgfModule, ...]
    segments: tuple[VgfSegment, ...]
    inputs: tuple[BindingSlot, ...]
    outputs: tuple[BindingSlot, ...]
    input_names: tuple[str, ...]
    output_names: tuple[str, ...]
    resources: tuple[VgfResource, ...]
    constants: tuple[VgfConstant, ...]


@dataclass(frozen=True)
class SegmentOperation:
    """One graph operation of a segment, with its canonical id and debug name."""

    id: str
    result_id: int
    opcode: int
    op_name: str
    debug_name: str | None


@dataclass(frozen=True)
class SegmentGraph:
    """What the NX estimator needs per segment: identity, module bytes and SPIR-V walk.

    ``spirv`` is ``None`` for segments whose module carries no SPIR-V (e.g. GLSL compute).
    """

    index: int
    type: str
    name: str
    module: VgfModule
    spirv: SpirvModule | None

    @property
    def is_graph(self) -> bool:
        """Whether this is a Graph segment (the only kind the estimator runs)."""
        return self.type == "GRAPH"

    @property
    def spirv_bytes(self) -> bytes:
        """The exact SPIR-V bytes of the segment's module (empty when it has none)."""
        return self.module.spirv or b""

    @property
    def debug_names(self) -> Mapping[int, str]:
        """Result id -> debug name (empty without debug info)."""
        return self.spirv.debug_names if self.spirv else MappingProxyType({})

    @property
    def operation_ids(self) -> tuple[int, ...]:
        """Result ids of the TOSA operations, first-seen order."""
        return self.spirv.operation_ids if self.spirv else ()

    def structural_ids(self) -> tuple[int, ...]:
        """TOSA operation ids, then any other debug-named ids, first-seen order."""
        return self.spirv.structural_ids() if self.spirv else ()

    def ids_named(self) -> dict[str, tuple[int, ...]]:
        """Debug name -> the result ids carrying it."""
        return self.spirv.ids_named() if self.spirv else {}

    def operator_id(self, result_id: int) -> str:
        """``source_operator/segment_<i>/spirv-<result_id>``."""
        return vgf_operator_id(self.index, result_id)

    def operations(self) -> tuple[SegmentOperation, ...]:
        """The TOSA operations with canonical ids, op names and debug names."""
        if self.spirv is None:
            return ()
        names = self.spirv.debug_names
        return tuple(
            SegmentOperation(
                id=self.operator_id(op.result_id),
                result_id=op.result_id,
                opcode=op.opcode,
                op_name=op.op_name,
                debug_name=names.get(op.result_id),
            )
            for op in self.spirv.operations
        )


def vgf_operator_id(segment_index: int, result_id: int) -> str:
    """The canonical VGF source-operator id."""
    return source_operator_id(f"segment_{segment_index}/spirv-{result_id}")


def _fail(source: str, offset: int, where: str, message: str) -> InputError:
    return InputError(source, Problem(f"byte {offset} ({where})", message))


def _header(data: bytes, source: str) -> tuple[tuple[int, int, int], int, tuple[Section, ...]]:
    if len(data) < 4 or data[:4] != VGF_MAGIC:
        found = bytes(data[:4])
        raise _fail(source, 0, "header", f"expected the VGF magic b'VGF1', found {found!r}")
    if len(data) < HEADER_SIZE:
        raise _fail(
            source,
            len(data),
            "header",
            f"expected a {HEADER_SIZE}-byte header, the file has {len(data)} bytes",
        )
    vk_header = struct.unpack_from("<H", data, 4)[0]
    version = (data[8], data[9], data[10])
    sections: list[Section] = []
    for number, name in enumerate(SECTION_NAMES):
        offset, size = _SECTION.unpack_from(data, 16 + 16 * number)
        if offset < HEADER_SIZE and size:
            raise _fail(
                source,
                16 + 16 * number,
                f"header.{name}",
                f"section offset {offset} lies inside the header",
            )
        if offset + size > len(data):
            raise _fail(
                source,
                16 + 16 * number,
                f"header.{name}",
                f"section [{offset}, {offset + size}) ends past the end of the "
                f"{len(data)}-byte file; the file is truncated",
            )
        sections.append(Section(name, offset, size))
    return version, vk_header, tuple(sections)


def _section_root(data: bytes, section: Section, source: str, root_name: str) -> FlatTable | None:
    if section.size == 0:
        return None
    buf = bytes(data[section.offset : section.offset + section.size])
    return root_table(buf, source, root_name, base=section.offset)


def _slots(table: FlatTable, slot: int, name: str) -> tuple[BindingSlot, ...]:
    return tuple(
        BindingSlot(item.scalar(0, "u32", "binding"), item.scalar(1, "u32", "mrt_index"))
        for item in table.tables(slot, name)
    )


def _enum(table: FlatTable, slot: int, name: str, values: tuple[str, ...], default: int = 0) -> str:
    raw = table.scalar(slot, "u8", name, default)
    if raw >= len(values):
        table.fail(
            table.position,
            f"field '{name}': expected one of {', '.join(values)}, found value {raw}",
        )
    return values[raw]


def _modules(data: bytes, section: Section, source: str) -> tuple[VgfModule, ...]:
    root = _section_root(data, section, source, "ModuleTable")
    if root is None:
        return ()
    modules: list[VgfModule] = []
    for index, table in enumerate(root.tables(0, "modules")):
        code_kind_raw = table.scalar(3, "u8", "code_type")
        code_kind = (
            CODE_KINDS[code_kind_raw] if code_kind_raw < len(CODE_KINDS) else f"#{code_kind_raw}"
        )
        spirv: bytes | None = None
        spirv_offset: int | None = None
        code_text: str | None = None
        code = table.table(4, "code") if code_kind != "NONE" else None
        if code is not None and code_kind == "SPIRV":
            start, spirv = code.raw_vector(0, 4, "words")
            spirv_offset = section.offset + start
        elif code is not None and code_kind in ("GLSL", "HLSL"):
            code_text = code.string(0, "code")
        modules.append(
            VgfModule(
                index=index,
                type=_enum(table, 0, "type", MODULE_TYPES),
                name=table.string(1, "name") or "",
                entry_point=table.string(2, "entry_point") or "",
                code_kind=code_kind,
                spirv=spirv,
                spirv_offset=spirv_offset,
                code_text=code_text,
            )
        )
    return tuple(modules)


_UNSET = 0xFFFFFFFF


def _set_index(value: int, position: int) -> int:
    return position if value == _UNSET else value


def _sequence(
    data: bytes, section: Section, source: str
) -> tuple[
    tuple[VgfSegment, ...],
    tuple[BindingSlot, ...],
    tuple[BindingSlot, ...],
    tuple[str, ...],
    tuple[str, ...],
]:
    root = _section_root(data, section, source, "ModelSequenceTable")
    if root is None:
        return (), (), (), (), ()
    segments: list[VgfSegment] = []
    for index, table in enumerate(root.tables(0, "segments")):
        sets = tuple(
            DescriptorSet(
                set_index=_set_index(info.scalar(1, "u32", "set_index", _UNSET), position),
                bindings=_slots(info, 0, "bindings"),
            )
            for position, info in enumerate(table.tables(3, "set_infos"))
        )
        segments.append(
            VgfSegment(
                index=index,
                type=_enum(table, 0, "type", MODULE_TYPES),
                name=table.string(1, "name") or "",
                module_index=table.scalar(2, "u32", "module_index"),
                descriptor_sets=sets,
                inputs=_slots(table, 4, "inputs"),
                outputs=_slots(table, 5, "outputs"),
                constants=table.scalars(6, "u32", "constants"),
                dispatch_shape=table.scalars(7, "u32", "dispatch_shape"),
                push_constant_ranges=tuple(
                    PushConstantRange(
                        r.scalar(0, "u32", "stage_flags"),
                        r.scalar(1, "u32", "offset"),
                        r.scalar(2, "u32", "size"),
                    )
                    for r in table.tables(8, "push_constant_ranges")
                ),
            )
        )
    return (
        tuple(segments),
        _slots(root, 1, "inputs"),
        _slots(root, 2, "outputs"),
        root.strings(3, "input_names"),
        root.strings(4, "output_names"),
    )


def _resources(data: bytes, section: Section, source: str) -> tuple[VgfResource, ...]:
    root = _section_root(data, section, source, "ModelResourceTable")
    if root is None:
        return ()
    resources: list[VgfResource] = []
    for index, entry in enumerate(root.tables(0, "mrt_entry")):
        description = entry.table(3, "description")
        resources.append(
            VgfResource(
                index=index,
                category=_enum(entry, 2, "category", RESOURCE_CATEGORIES),
                vk_descriptor_type=(
                    None
                    if (kind := entry.scalar(0, "u32", "vk_descriptor_type")) == _UNSET
                    else kind
                ),
                vk_format=entry.scalar(1, "u32", "vk_format"),
                shape=description.scalars(0, "i64", "shape") if description else None,
                strides=description.scalars(1, "i64", "strides") if description else None,
            )
        )
    return tuple(resources)


def _constants(data: bytes, section: Section, source: str) -> tuple[VgfConstant, ...]:
    if section.size == 0:
        return ()
    start = section.offset
    if data[start : start + 8] == RAW_CONSTANTS_MAGIC:
        if section.size < 16:
            raise _fail(source, start, "constants", "expected a 16-byte CONST00 header")
        count = struct.unpack_from("<Q", data, start + 8)[0]
        if 16 + 24 * count > section.size:
            raise _fail(
                source,
                start + 8,
                "constants.count",
                f"{count} metadata records of 24 bytes do not fit the {section.size}-byte section",
            )
        constants = []
        payload = section.size - 16 - 24 * count
        for index in range(count):
            mrt, sparsity, size, offset = struct.unpack_from("<IiQQ", data, start + 16 + 24 * index)
            if offset + size > payload:
                raise _fail(
                    source,
                    start + 16 + 24 * index,
                    f"constants.metadata[{index}]",
                    f"payload [{offset}, {offset + size}) lies outside the "
                    f"{payload}-byte payload region",
                )
            constants.append(VgfConstant(index, mrt, sparsity, size))
        return tuple(constants)
    root = _section_root(data, section, source, "ConstantSection")
    if root is None:
        return ()
    return tuple(
        VgfConstant(
            index,
            item.scalar(0, "u32", "mrt_index"),
            item.scalar(1, "i64", "sparsity_dimension"),
            item.vector_length(2, "raw"),
        )
        for index, item in enumerate(root.tables(0, "data"))
    )


def read_vgf(data: bytes, source: str) -> VgfFile:
    """Decode a VGF file's header, module table, model sequence, resources and constant metadata."""
    version, vk_header, sections = _header(data, source)
    by_name = {section.name: section for section in sections}
    modules = _modules(data, by_name["modules"], source)
    segments, inputs, outputs, input_names, output_names = _sequence(
        data, by_name["model_sequence"], source
    )
    for segment in segments:
        if segment.module_index >= len(modules):
            raise _fail(
                source,
                by_name["model_sequence"].offset,
                f"ModelSequenceTable.segments[{segment.index}].module_index",
                f"module {segment.module_index} does not exist "
                f"(the file has {len(modules)} modules)",
            )
    return VgfFile(
        version=version,
        vk_header_version=vk_header,
        sections=sections,
        modules=modules,
        segments=segments,
        inputs=inputs,
        outputs=outputs,
        input_names=input_names,
        output_names=output_names,
        resources=_resources(data, by_name["resources"], source),
        constants=_constants(data, by_name["constants"], source),
    )


def segment_graphs(vgf: VgfFile, source: str) -> tuple[SegmentGraph, ...]:
    """Per segment (sequence-table order): type, name, module and its SPIR-V walk."""
    graphs: list[SegmentGraph] = []
    for segment in vgf.segments:
        module = vgf.modules[segment.module_index]
        spirv = None
        if module.spirv:
            spirv = parse_module(
                module.spirv,
                source,
                module.spirv_offset or 0,
                f"module {module.index} '{module.name}' SPIR-V",
            )
        graphs.append(SegmentGraph(segment.index, segment.type, segment.name, module, spirv))
    return tuple(graphs)


def read_segments(data: bytes, source: str) -> tuple[SegmentGraph, ...]:
    """``segment_graphs(read_vgf(data, source), source)``."""
    return segment_graphs(read_vgf(data, source), source)


def _operator(segment: SegmentGraph, operation: SpirvOperation) -> SourceOperator:
    label = segment.debug_names.get(operation.result_id)
    provenance = parse_json_label(label)
    name = (
        ((provenance.node_name or provenance.operator_name) if provenance else None)
        or label
        or operation.op_name
    )
    return SourceOperator(
        id=segment.operator_id(operation.result_id),
        op_type=operation.op_name,
        name=name,
        locations=provenance.frames if provenance else (),
        nn_module_stack=provenance.modules if provenance else (),
        label=label,
    )


def segment_operators(segments: tuple[SegmentGraph, ...]) -> tuple[SourceOperator, ...]:
    """The canonical source operators of the given segments, segment by segment."""
    operators: list[SourceOperator] = []
    for segment in segments:
        if segment.spirv is not None:
            operators.extend(_operator(segment, op) for op in segment.spirv.operations)
    return tuple(operators)


def vgf_operators(data: bytes, source: str) -> tuple[SourceOperator, ...]:
    """The canonical source operators of every segment, segment by segment, first-seen order.

    Only ``TOSA.*`` operations are listed (not the extra debug-named ids such as graph inputs).
    The name is the ExecuTorch label's ``aten_info.node_name`` (else its ``operator_name``),
    else the raw debug name, else the TOSA operator name.
    """
    return segment_operators(read_segments(data, source))
