"""TOSA readers (flatbuffer ``.tosa`` and MLIR text) and the identity ``source_operator/<id>``.

Flatbuffer (schema ``tosa.fbs`` of the TOSA serialization library, file identifier ``TOSA``):
``TosaGraph`` (0 version, 1 regions, 2 software_version) -> ``TosaRegion`` (0 name, 1 blocks) ->
``TosaBasicBlock`` (0 name, 1 operators) -> ``TosaOperator`` (0 op, 1 attribute_type,
2 attribute, 3 inputs, 4 outputs, 5 location -> ``OpLocation`` 0 text). The operator id is its
position in region/block/operator traversal order, counted from 0 over the whole file and
**including** ``CONST``/``CONST_SHAPE`` operators (the DS-CNN's first ``DEPTHWISE_CONV2D`` is 25
while its ExecuTorch ``event_id`` is 1).

MLIR text (``.tosa.mlir``/``.tosamlir``): an operator is a line ``%<n> = <op> ... loc(...)``;
its id is the numeric SSA result ``n`` (a non-numeric or repeated result name is an error, so
files with several functions, whose numbering restarts, are rejected). ``loc(#locN)`` is resolved
through ``#locN = loc(...)`` definitions; a ``"file":line:col`` location gives a source frame.

Identity (seed 001): ``source_operator/<operator-id>``. Stable for one file only: the flatbuffer
index shifts when constants are added or removed, and the SSA numbering of MLIR text changes
whenever the printer renumbers. The two forms of one model do **not** share ids. Location text is
what the producer wrote; the ExecuTorch Arm backend (debug mode TOSA) writes a JSON object with
``aten_info`` and ``torch_info.stack_trace``/``nn_module_stack``, from which frames and the module
stack are read. ``tosa-opt`` deserialisation drops the location text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfline.core.errors import InputError, Problem
from perfline.core.formats._flatbuf import root_table
from perfline.core.formats.identity import (
    SourceFrame,
    SourceOperator,
    parse_json_label,
    source_operator_id,
)

TOSA_IDENTIFIER = b"TOSA"
MLIR_BYTECODE_MAGIC = b"ML\xefR"

#: ``tosa.fbs`` ``enum Op`` (tosa-tools 2026.8), index = value.
TOSA_OPS: tuple[str, ...] = (
    "UNKNOWN", "ARGMAX", "AVG_POOL2D", "CONV2D", "CONV3D", "DEPTHWISE_CONV2D", "FFT2D",
    "MATMUL", "MAX_POOL2D", "RFFT2D", "TRANSPOSE_CONV2D", "CLAMP", "ERF", "SIGMOID", "TANH",
    "ADD", "ARITHMETIC_RIGHT_SHIFT", "BITWISE_AND", "BITWISE_OR", "BITWISE_XOR", "INTDIV",
    "LOGICAL_AND", "LOGICAL_LEFT_SHIFT", "LOGICAL_RIGHT_SHIFT", "LOGICAL_OR", "LOGICAL_XOR",
    "MAXIMUM", "MINIMUM", "MUL", "POW", "SUB", "TABLE", "ABS", "BITWISE_NOT", "CEIL", "CLZ",
    "COS", "EXP", "FLOOR", "LOG", "LOGICAL_NOT", "NEGATE", "RECIPROCAL", "RSQRT", "SIN",
    "SELECT", "EQUAL", "GREATER", "GREATER_EQUAL", "REDUCE_ALL", "REDUCE_ANY", "REDUCE_MAX",
    "REDUCE_MIN", "REDUCE_PRODUCT", "REDUCE_SUM", "CONCAT", "PAD", "RESHAPE", "REVERSE",
    "SLICE", "TILE", "TRANSPOSE", "GATHER", "SCATTER", "RESIZE", "CAST", "RESCALE", "CONST",
    "IDENTITY", "CUSTOM", "COND_IF", "WHILE_LOOP", "VARIABLE", "VARIABLE_WRITE",
    "VARIABLE_READ", "CONST_SHAPE", "MATMUL_T_BLOCK_SCALED", "CAST_FROM_BLOCK_SCALED",
    "CAST_TO_BLOCK_SCALED", "DIM", "CONCAT_SHAPE", "ADD_SHAPE", "SUB_SHAPE", "MUL_SHAPE",
    "SLICE_SHAPE", "EXP2_SHAPE", "LOG2_CEIL_SHAPE", "LOG2_FLOOR_SHAPE", "MAX_SHAPE",
    "MIN_SHAPE", "MOD_SHAPE", "DIV_CEIL_SHAPE", "DIV_FLOOR_SHAPE", "ASSERT_EQUAL_SHAPE",
    "CONV2D_BLOCK_SCALED", "MAX_POOL2D_ADAPTIVE", "AVG_POOL2D_ADAPTIVE", "RESHAPE_BLOCK_SCALED",
    "ROW_GATHER_BLOCK_SCALED", "ROW_GATHER", "MATMUL_T",
)  # fmt: skip


@dataclass(frozen=True)
class TosaOperator:
    """One operator with its id, place (region/block) and recorded location text."""

    id: int
    op_type: str
    region: str
    block: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    location: str | None
    frames_hint: tuple[SourceFrame, ...] = ()


@dataclass(frozen=True)
class TosaModel:
    """A TOSA file's version and operators (``software_version`` only for flatbuffers)."""

    format: str
    version: tuple[int, int, int] | None
    software_version: str | None
    operators: tuple[TosaOperator, ...]


def read_tosa_flatbuffer(data: bytes, source: str) -> TosaModel:
    """Decode a ``.tosa`` flatbuffer's regions, blocks and operators."""
    root = root_table(data, source, "TosaGraph", TOSA_IDENTIFIER)
    version_table = root.table(0, "version")
    version = None
    if version_table is not None:
        version = tuple(
            version_table.scalar(i, "i32", n, -1)
            for i, n in enumerate(("_major", "_minor", "_patch"))
        )
    software = root.table(2, "software_version")
    software_text = None
    if software is not None:
        parts = [
            software.scalar(i, "i32", n, -1) for i, n in enumerate(("_major", "_minor", "_micro"))
        ]
        modifier = software.string(3, "_modifier")
        software_text = ".".join(str(p) for p in parts) + (f"-{modifier}" if modifier else "")
    operators: list[TosaOperator] = []
    for region in root.tables(1, "regions"):
        region_name = region.string(0, "name") or ""
        for block in region.tables(1, "blocks"):
            block_name = block.string(0, "name") or ""
            for table in block.tables(1, "operators"):
                code = table.scalar(0, "u32", "op")
                location = table.table(5, "location")
                operators.append(
                    TosaOperator(
                        id=len(operators),
                        op_type=TOSA_OPS[code] if code < len(TOSA_OPS) else f"OP_{code}",
                        region=region_name,
                        block=block_name,
                        inputs=table.strings(3, "inputs"),
                        outputs=table.strings(4, "outputs"),
                        location=(location.string(0, "text") or None)
                        if location is not None
                        else None,
                    )
                )
    return TosaModel(
        format="flatbuffer",
        version=(version[0], version[1], version[2]) if version else None,
        software_version=software_text,
        operators=tuple(operators),
    )


_OP_LINE = re.compile(r"^\s*%(?P<result>[^\s:=]+)(?::\d+)?\s*=\s*(?P<rest>.*)$")
_OP_NAME = re.compile(r'^(?:"(?P<quoted>[\w.$]+)"|(?P<bare>[A-Za-z_][\w.$]*))')
_LOC_DEF = re.compile(r"^\s*#(?P<name>loc\d*)\s*=\s*loc\((?P<body>.*)\)\s*$")
_LOC_USE = re.compile(r"loc\((?P<body>(?:[^()\"]|\"(?:[^\"\\]|\\.)*\")*)\)\s*$")
_STRING = re.compile(r'^"(?P<text>(?:[^"\\]|\\.)*)"(?::(?P<line>\d+)(?::(?P<col>\d+))?)?$')


def _unescape(text: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            following = text[index + 1]
            hex_pair = text[index + 1 : index + 3]
            if following in "\\\"'":
                out.append(following)
                index += 2
                continue
            if following == "n":
                out.append("\n")
                index += 2
                continue
            if len(hex_pair) == 2 and all(c in "0123456789abcdefABCDEF" for c in hex_pair):
                out.append(chr(int(hex_pair, 16)))
                index += 3
                continue
        out.append(char)
        index += 1
    return "".join(out)


def _resolve_location(
    body: str, definitions: dict[str, str], depth: int = 0
) -> tuple[str | None, tuple[SourceFrame, ...]]:
    body = body.strip()
    if depth > 16 or not body or body == "unknown":
        return None, ()
    if body.startswith("#"):
        target = definitions.get(body[1:])
        return _resolve_location(target, definitions, depth + 1) if target else (None, ())
    match = _STRING.match(body)
    if match:
        text = _unescape(match["text"])
        if match["line"]:
            return text, (SourceFrame(text, int(match["line"])),)
        return text, ()
    return body, ()


def read_tosa_mlir(text: str, source: str) -> TosaModel:
    """Read operators (numeric SSA results) and their locations from TOSA MLIR text."""
    definitions: dict[str, str] = {}
    lines = text.splitlines()
    for line in lines:
        match = _LOC_DEF.match(line)
        if match:
            definitions[match["name"]] = match["body"]
    operators: list[TosaOperator] = []
    seen: dict[int, int] = {}
    for number, line in enumerate(lines, start=1):
        match = _OP_LINE.match(line)
        if not match:
            continue
        result = match["result"]
        if not result.isdigit():
            raise InputError(
                source,
                Problem(
                    f"line {number}", f"expected a numeric SSA result such as %12, found %{result}"
                ),
            )
        identity = int(result)
        if identity in seen:
            raise InputError(
                source,
                Problem(
                    f"line {number}",
                    f"SSA result %{identity} is defined again (first at line {seen[identity]}); "
                    "operator ids must be unique (one function per file)",
                ),
            )
        seen[identity] = number
        name_match = _OP_NAME.match(match["rest"].strip())
        op_name = (name_match["quoted"] or name_match["bare"]) if name_match else "unknown"
        op_type = op_name[5:].upper() if op_name.startswith("tosa.") else op_name
        location_text: str | None = None
        frames: tuple[SourceFrame, ...] = ()
        use = _LOC_USE.search(line)
        if use:
            location_text, frames = _resolve_location(use["body"], definitions)
        operators.append(
            TosaOperator(identity, op_type, "", "", (), (f"%{identity}",), location_text, frames)
        )
    if not operators:
        raise InputError(
            source,
            Problem("line 1", "expected TOSA MLIR operators ('%<n> = tosa.<op> ...'); none found"),
        )
    return TosaModel(format="mlir", version=None, software_version=None, operators=tuple(operators))


def read_tosa(data: bytes, source: str) -> TosaModel:
    """Read a flatbuffer or MLIR-text TOSA file, recognised by its content."""
    if data[4:8] == TOSA_IDENTIFIER:
        return read_tosa_flatbuffer(data, source)
    if data[:4] == MLIR_BYTECODE_MAGIC:
        raise InputError(
            source,
            Problem("byte 0", "MLIR bytecode is not read; give the TOSA flatbuffer or MLIR text"),
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(
            source,
            Problem(
                "byte 4",
                "expected the TOSA file identifier b'TOSA' at byte 4 or MLIR text, "
                f"found {bytes(data[4:8])!r}",
            ),
        ) from None
    return read_tosa_mlir(text, source)


def _operator(operator: TosaOperator) -> SourceOperator:
    provenance = parse_json_label(operator.location)
    if provenance is not None:
        name = provenance.node_name or provenance.operator_name or operator.op_type
        frames = provenance.frames
        modules = provenance.modules
    else:
        name = operator.outputs[0] if operator.outputs else operator.op_type
        frames = operator.frames_hint
        modules = ()
    return SourceOperator(
        id=source_operator_id(str(operator.id)),
        op_type=operator.op_type,
        name=name,
        locations=frames,
        nn_module_stack=modules,
        label=operator.location,
    )


def tosa_operators(data: bytes, source: str) -> tuple[SourceOperator, ...]:
    """The canonical source operators of a TOSA file (flatbuffer or MLIR text), in id order."""
    return tuple(_operator(operator) for operator in read_tosa(data, source).operators)
