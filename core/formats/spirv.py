"""The small SPIR-V walk that finds graph operations and their debug names.

A VGF graph module is SPIR-V using ``SPV_ARM_graph``: every TOSA operation is an ``OpExtInst`` of
the ``TOSA.001000.1`` instruction set inside ``OpGraphARM``. With ``--emit-debug-info`` the module
also imports ``NonSemantic.Graph.DebugInfo.1``, whose instruction 2 ("debug operation") ties an
``OpString`` (the debug name, e.g. the ExecuTorch location JSON or a TFLite layer name) to one or
more result ids.

What is decided here (nx.md §2.6):

* a module is 5 header words (magic ``0x07230203`` little-endian, version, generator, bound,
  schema) followed by instructions whose first word holds the word count (high 16 bits) and the
  opcode (low 16 bits); a zero or overlong count is malformed input;
* ``OpString`` (7), ``OpExtInstImport`` (11) and ``OpExtInst`` (12) are the only opcodes read;
* every ``OpExtInst`` of an import set named ``TOSA.<version>`` is a graph operation, recorded
  with its result id in first-seen order — these ids make the canonical
  ``source_operator/segment_<i>/spirv-<result-id>``; the operation name comes from the
  ``TOSA.001000.1`` grammar (other versions keep the numeric opcode);
* ``NonSemantic.Graph.DebugInfo.1`` instruction 2 with at least 6 operands (result type counted
  as 0): the operand at position 5 is the ``OpString`` id of the name, every later operand that is
  not a string id is a result id covered by that name; the first name wins per result id. The
  older ``NonSemantic.MLGraph.DebugInfo.1`` instruction 4 is read the same way from its first
  string operand on.

Result ids are only stable within one module: converting the same TOSA file with and without
debug info renumbers them. Cost: one linear pass over the words.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from perfline.core.errors import InputError, Problem

SPIRV_MAGIC = 0x07230203
TOSA_SET_PREFIX = "TOSA."
GRAPH_DEBUG_SET = "NonSemantic.Graph.DebugInfo.1"
LEGACY_DEBUG_SET = "NonSemantic.MLGraph.DebugInfo.1"

OP_STRING = 7
OP_EXT_INST_IMPORT = 11
OP_EXT_INST = 12

#: ``TOSA.001000.1`` extended-instruction numbers -> TOSA operator names (SPIR-V grammar order).
TOSA_001000_OPS: tuple[str, ...] = (
    "ARGMAX", "AVG_POOL2D", "CONV2D", "CONV3D", "DEPTHWISE_CONV2D", "FFT2D", "MATMUL",
    "MAX_POOL2D", "RFFT2D", "TRANSPOSE_CONV2D", "CLAMP", "ERF", "SIGMOID", "TANH", "ADD",
    "ARITHMETIC_RIGHT_SHIFT", "BITWISE_AND", "BITWISE_OR", "BITWISE_XOR", "INTDIV",
    "LOGICAL_AND", "LOGICAL_LEFT_SHIFT", "LOGICAL_RIGHT_SHIFT", "LOGICAL_OR", "LOGICAL_XOR",
    "MAXIMUM", "MINIMUM", "MUL", "POW", "SUB", "TABLE", "ABS", "BITWISE_NOT", "CEIL", "CLZ",
    "COS", "EXP", "FLOOR", "LOG", "LOGICAL_NOT", "NEGATE", "RECIPROCAL", "RSQRT", "SIN",
    "SELECT", "EQUAL", "GREATER", "GREATER_EQUAL", "REDUCE_ALL", "REDUCE_ANY", "REDUCE_MAX",
    "REDUCE_MIN", "REDUCE_PRODUCT", "REDUCE_SUM", "CONCAT", "PAD", "RESHAPE", "REVERSE",
    "SLICE", "TILE", "TRANSPOSE", "GATHER", "SCATTER", "RESIZE", "CAST", "RESCALE",
)  # fmt: skip


@dataclass(frozen=True)
class SpirvOperation:
    """One graph operation: an ``OpExtInst`` of a ``TOSA.*`` import set."""

    result_id: int
    result_type: int
    opcode: int
    op_name: str
    instruction_set: str
    operands: tuple[int, ...]
    word_offset: int


@dataclass(frozen=True)
class SpirvModule:
    """What the walk found in one SPIR-V module.

    ``operations`` are in first-seen order; ``debug_names`` maps a result id to its debug name
    (first name wins); ``strings`` maps ``OpString`` ids to their text.
    """

    version: tuple[int, int]
    generator: int
    bound: int
    word_count: int
    imports: Mapping[int, str]
    strings: Mapping[int, str]
    operations: tuple[SpirvOperation, ...]
    debug_names: Mapping[int, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def operation_ids(self) -> tuple[int, ...]:
        """Result ids of the TOSA operations, first-seen order."""
        return tuple(operation.result_id for operation in self.operations)

    @property
    def has_debug_info(self) -> bool:
        """Whether a debug-info instruction set is imported."""
        return any(name in (GRAPH_DEBUG_SET, LEGACY_DEBUG_SET) for name in self.imports.values())

    def structural_ids(self) -> tuple[int, ...]:
        """Operation ids followed by any other debug-named ids, first-seen order."""
        seen = dict.fromkeys(self.operation_ids)
        for result_id in self.debug_names:
            seen.setdefault(result_id)
        return tuple(seen)

    def ids_named(self) -> dict[str, tuple[int, ...]]:
        """Debug name -> the result ids carrying it, in first-seen order."""
        names: dict[str, list[int]] = {}
        for result_id, name in self.debug_names.items():
            names.setdefault(name, []).append(result_id)
        return {name: tuple(ids) for name, ids in names.items()}

    def operation(self, result_id: int) -> SpirvOperation | None:
        """The operation with this result id, if it is one."""
        for operation in self.operations:
            if operation.result_id == result_id:
                return operation
        return None


def _literal_string(words: tuple[int, ...]) -> tuple[str, int] | None:
    """A NUL-terminated UTF-8 literal packed into words, and the words it used."""
    raw = bytearray()
    for used, word in enumerate(words, start=1):
        chunk = word.to_bytes(4, "little")
        end = chunk.find(b"\0")
        if end >= 0:
            raw += chunk[:end]
            try:
                return raw.decode("utf-8"), used
            except UnicodeDecodeError:
                return None
        raw += chunk
    return None


def parse_module(data: bytes, source: str, base: int = 0, where: str = "SPIR-V") -> SpirvModule:
    """Walk one SPIR-V module (``data`` = its little-endian words, ``base`` its file offset)."""

    def fail(word: int, message: str) -> InputError:
        raise InputError(source, Problem(f"byte {base + 4 * word} ({where}, word {word})", message))

    if len(data) % 4:
        raise InputError(
            source,
            Problem(
                f"byte {base} ({where})",
                f"expected a whole number of 32-bit words, found {len(data)} bytes",
            ),
        )
    count = len(data) // 4
    if count < 5:
        fail(0, f"expected a 5-word SPIR-V header, found {count} words")
    words = struct.unpack_from(f"<{count}I", data)
    if words[0] != SPIRV_MAGIC:
        fail(0, f"expected the SPIR-V magic 0x07230203, found 0x{words[0]:08x}")
    version = ((words[1] >> 16) & 0xFF, (words[1] >> 8) & 0xFF)
    imports: dict[int, str] = {}
    strings: dict[int, str] = {}
    operations: list[SpirvOperation] = []
    debug_names: dict[int, str] = {}
    position = 5
    while position < count:
        word_count, opcode = words[position] >> 16, words[position] & 0xFFFF
        if word_count == 0:
            fail(position, f"instruction (opcode {opcode}) declares a word count of 0")
        if position + word_count > count:
            fail(
                position,
                f"instruction (opcode {opcode}) declares {word_count} words but only "
                f"{count - position} remain; the module is truncated",
            )
        operands = words[position + 1 : position + word_count]
        if opcode in (OP_STRING, OP_EXT_INST_IMPORT) and len(operands) >= 2:
            literal = _literal_string(operands[1:])
            if literal is None:
                fail(position, "expected a NUL-terminated UTF-8 literal string")
            else:
                (strings if opcode == OP_STRING else imports)[operands[0]] = literal[0]
        elif opcode == OP_EXT_INST and len(operands) >= 4:
            result_type, result_id, set_id, number = operands[:4]
            set_name = imports.get(set_id, "")
            if set_name.startswith(TOSA_SET_PREFIX):
                known = set_name == "TOSA.001000.1" and number < len(TOSA_001000_OPS)
                operations.append(
                    SpirvOperation(
                        result_id=result_id,
                        result_type=result_type,
                        opcode=number,
                        op_name=TOSA_001000_OPS[number] if known else f"{set_name}#{number}",
                        instruction_set=set_name,
                        operands=tuple(operands[4:]),
                        word_offset=position,
                    )
                )
            elif (set_name == GRAPH_DEBUG_SET and number == 2) or (
                set_name == LEGACY_DEBUG_SET and number == 4
            ):
                _record_debug_names(set_name, operands, strings, debug_names)
        position += word_count
    return SpirvModule(
        version=version,
        generator=words[2],
        bound=words[3],
        word_count=count,
        imports=MappingProxyType(imports),
        strings=MappingProxyType(strings),
        operations=tuple(operations),
        debug_names=MappingProxyType(debug_names),
    )


def _record_debug_names(
    set_name: str, operands: tuple[int, ...], strings: dict[int, str], names: dict[int, str]
) -> None:
    # operands[0] is the result type: "position 5" of nx.md is operands[5].
    if set_name == GRAPH_DEBUG_SET:
        if len(operands) < 6 or operands[5] not in strings:
            return
        name_at = 5
    else:
        candidates = [i for i in range(4, len(operands)) if operands[i] in strings]
        if not candidates:
            return
        name_at = candidates[0]
    name = strings[operands[name_at]]
    for covered in operands[name_at + 1 :]:
        if covered not in strings:
            names.setdefault(covered, name)


def scan_modules(data: bytes, source: str) -> tuple[SpirvModule, ...]:
    """Every SPIR-V module found by scanning ``data`` for the magic word (raw ``.spv`` or VGF).

    A module runs from its magic to the next magic or the end of the data; used for raw files
    where no container says where modules end.
    """
    magic = struct.pack("<I", SPIRV_MAGIC)
    starts: list[int] = []
    position = data.find(magic)
    while position >= 0:
        if position % 4 == 0:
            starts.append(position)
        position = data.find(magic, position + 1)
    if not starts:
        raise InputError(
            source, Problem("byte 0", "expected a SPIR-V module (magic 0x07230203); none found")
        )
    modules = []
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(data) - (len(data) - start) % 4
        modules.append(
            parse_module(bytes(data[start:end]), source, start, f"SPIR-V module {index}")
        )
    return tuple(modules)
