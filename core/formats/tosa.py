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
_FILE_LINE_COL = re.compile(r"^:(?P<line>\d+)(?::(?P<col>\d+))?(?:\s+to\s+.*)?$")
_MAX_LOC_DEPTH = 32
_HEX = "0123456789abcdefABCDEF"


def _string_literal(text: str, start: int) -> tuple[str, int] | None:
    """The MLIR string literal opening at ``text[start]`` (unescaped) and the index after it."""
    out = bytearray()
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == '"':
            return out.decode("utf-8", errors="replace"), index + 1
        if char == "\\" and index + 1 < len(text):
            following = text[index + 1]
            pair = text[index + 1 : index + 3]
            if len(pair) == 2 and all(c in _HEX for c in pair):
                out.append(int(pair, 16))
                index += 3
                continue
            out += {"n": b"\n", "t": b"\t"}.get(following, following.encode("utf-8"))
            index += 2
            continue
        out += char.encode("utf-8")
        index += 1
    return None


def _closing(text: str, start: int, opening: str, closing: str) -> int | None:
    """Index of the bracket closing ``text[start]`` (strings skipped), or ``None``."""
    depth = 0
    index = start
    while index < len(text):
        char = text[index]
        if char == '"':
            literal = _string_literal(text, index)
            if literal is None:
                return None
            index = literal[1]
            continue
        if char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return None


def _trailing_loc(line: str) -> str | None:
    """The body of the ``loc(...)`` that ends an operation line, outside string literals."""
    index = 0
    found: str | None = None
    while index < len(line):
        if line[index] == '"':
            literal = _string_literal(line, index)
            if literal is None:
                return None
            index = literal[1]
            continue
        if line.startswith("loc(", index):
            end = _closing(line, index + 3, "(", ")")
            if end is None:
                return None
            found = line[index + 4 : end] if not line[end + 1 :].strip() else found
            index = end + 1
            continue
        index += 1
    return found


def _split_top_level(text: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current = 0
    index = 0
    while index < len(text):
        char = text[index]
        if char == '"':
            literal = _string_literal(text, index)
            if literal is None:
                break
            index = literal[1]
            continue
        if char in "([<":
            depth += 1
        elif char in ")]>":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[current:index])
            current = index + 1
        index += 1
    parts.append(text[current:])
    return [part.strip() for part in parts if part.strip()]


Resolved = tuple[str | None, tuple[SourceFrame, ...]]


def _resolve_location(body: str, definitions: dict[str, str], depth: int = 0) -> Resolved:
    """Location text and source frames of one MLIR location (``#locN`` resolved).

    ``"file":line:col`` gives a frame (line 0 = none); ``"name"(child)`` gives the name as text
    and the child's frames; ``fused[...]`` and ``callsite(callee at caller)`` combine their
    parts (caller frames first); ``unknown`` gives nothing.
    """
    body = body.strip()
    frames: tuple[SourceFrame, ...] = ()
    if depth > _MAX_LOC_DEPTH or not body or body == "unknown":
        return None, ()
    if body.startswith("#"):
        target = definitions.get(body[1:])
        return _resolve_location(target, definitions, depth + 1) if target else (None, ())
    if body.startswith('"'):
        literal = _string_literal(body, 0)
        if literal is None:
            return body, ()
        name, after = literal
        rest = body[after:].strip()
        match = _FILE_LINE_COL.match(rest)
        if match:
            line = int(match["line"])
            frames = (SourceFrame(name, line),) if line > 0 else ()
            return f"{name}:{rest[1:]}", frames
        if rest.startswith("(") and rest.endswith(")"):
            _, frames = _resolve_location(rest[1:-1], definitions, depth + 1)
            return name, frames
        return name, ()
    if body.startswith("callsite(") and body.endswith(")"):
        inner = body[len("callsite(") : -1]
        callee, separator, caller = inner.partition(" at ")
        if separator:
            callee_text, callee_frames = _resolve_location(callee, definitions, depth + 1)
            caller_text, caller_frames = _resolve_location(caller, definitions, depth + 1)
            return callee_text or caller_text, caller_frames + callee_frames
    if body.startswith("fused") and body.endswith("]"):
        opening = body.find("[")
        texts: list[str] = []
        for part in _split_top_level(body[opening + 1 : -1]):
            part_text, part_frames = _resolve_location(part, definitions, depth + 1)
            if part_text:
                texts.append(part_text)
            frames += part_frames
        return (texts[0] if texts else None), frames
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
        loc_body = _trailing_loc(line)
        if loc_body is not None:
            location_text, frames = _resolve_location(loc_body, definitions)
            location_text = location_text or None
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


def tosa_tensors(data: bytes, source: str) -> dict[str, tuple[tuple[int, ...], int]]:
    """Every tensor of a TOSA flatbuffer by name: its shape and ``DType`` code
    (``TosaBasicBlock`` slot 2 ``tensors`` -> ``TosaTensor`` 0 name, 1 shape, 2 type)."""
    root = root_table(data, source, "TosaGraph", TOSA_IDENTIFIER)
    tensors: dict[str, tuple[tuple[int, ...], int]] = {}
    for region in root.tables(1, "regions"):
        for block in region.tables(1, "blocks"):
            for table in block.tables(2, "tensors"):
                name = table.string(0, "name") or ""
                tensors[name] = (table.scalars(1, "i32", "shape"), table.scalar(2, "u32", "type"))
    return tensors


def tosa_pool_kernels(data: bytes, source: str) -> dict[int, tuple[int, ...]]:
    """The ``kernel`` of each pooling operator by operator id (TOSA 1.0 ``PoolAttribute``:
    0 kernel, 1 stride, 2 pad)."""
    root = root_table(data, source, "TosaGraph", TOSA_IDENTIFIER)
    kernels: dict[int, tuple[int, ...]] = {}
    index = 0
    for region in root.tables(1, "regions"):
        for block in region.tables(1, "blocks"):
            for table in block.tables(1, "operators"):
                code = table.scalar(0, "u32", "op")
                name = TOSA_OPS[code] if code < len(TOSA_OPS) else ""
                if name in ("AVG_POOL2D", "MAX_POOL2D"):
                    attribute = table.table(2, "attribute")
                    if attribute is not None:
                        kernels[index] = attribute.scalars(0, "i32", "kernel")
                index += 1
    return kernels
