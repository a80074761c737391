"""VGF reader and SPIR-V walk on the real DS-CNN VGF files, checked against vgfpy's own reading."""

from __future__ import annotations

import struct
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import flatbuffers.table
import pytest

from perfline.core.errors import InputError
from perfline.core.formats import vgf
from perfline.core.formats._flatbuf import root_table
from perfline.core.formats.identity import SourceOperator
from perfline.core.formats.spirv import parse_module, scan_modules
from tests.support.format_data import DSCNN, SYNTHETIC, model_line, read_bytes, read_json

INT_DBG = DSCNN / "dscnn_int_dbg.vgf"
INT_PLAIN = DSCNN / "dscnn_int.vgf"
FP_DBG = DSCNN / "dscnn_fp_dbg.vgf"


def _user_lines(operators: Sequence[SourceOperator]) -> set[int]:
    lines: set[int] = set()
    for operator in operators:
        lines.update(f.line for f in operator.locations if f.file.endswith("kws/dscnn.py"))
    return lines


def test_container_matches_vgf_dump() -> None:
    decoded = vgf.read_vgf(read_bytes(INT_DBG), str(INT_DBG))
    dump = read_json(DSCNN / "dscnn_int_dbg.vgf_dump.json")
    assert decoded.version == (
        dump["header"]["major"],
        dump["header"]["minor"],
        dump["header"]["patch"],
    )
    assert [(m.name, m.entry_point, m.type) for m in decoded.modules] == [
        (m["name"], m["entry_point"], m["type"]) for m in dump["modules"]
    ]
    [segment] = decoded.segments
    [expected] = dump["model_sequence"]["segments"]
    assert (segment.name, segment.type, segment.module_index) == (
        expected["name"],
        expected["type"],
        expected["module_index"],
    )
    assert list(segment.constants) == expected["constants"]
    assert list(segment.dispatch_shape) == expected["dispatch_shape"]
    assert [(s.binding, s.mrt_index) for s in segment.inputs] == [
        (s["binding"], s["mrt_index"]) for s in expected["inputs"]
    ]
    assert [d.set_index for d in segment.descriptor_sets] == [
        d["set_index"] for d in expected["descriptor_set_infos"]
    ]
    assert [(r.category, list(r.shape or ())) for r in decoded.resources] == [
        (r["category"], r["shape"]) for r in dump["resources"]
    ]
    assert [(c.mrt_index, c.sparsity_dimension) for c in decoded.constants] == [
        (c["mrt_index"], c["sparsity_dimension"]) for c in dump["constants"]
    ]
    assert decoded.input_names == ("input_0",)
    assert decoded.output_names == ("output_0",)


@pytest.mark.parametrize("path", [INT_DBG, INT_PLAIN], ids=["debug", "plain"])
def test_operations_match_vgfpy_walk(path: Path) -> None:
    data = read_bytes(path)
    expected = read_json(path.with_suffix(".ops.json"))
    [segment_json] = expected["segments"]
    [segment] = vgf.read_segments(data, str(path))
    assert segment.is_graph and segment.name == segment_json["name"]
    operations = segment.operations()
    assert [op.id for op in operations] == [op["id"] for op in segment_json["operations"]]
    assert [op.opcode for op in operations] == [
        op["tosa_ext_opcode"] for op in segment_json["operations"]
    ]
    assert [op.debug_name for op in operations] == [
        op.get("debug") for op in segment_json["operations"]
    ]
    # The module bytes are the exact words the container stores.
    assert parse_module(segment.spirv_bytes, "x").operation_ids == segment.operation_ids


def test_int_debug_operators_and_source_lines() -> None:
    operators = vgf.vgf_operators(read_bytes(INT_DBG), str(INT_DBG))
    assert len(operators) == 23
    assert Counter(op.op_type for op in operators) == {
        "DEPTHWISE_CONV2D": 5,
        "CONV2D": 5,
        "RESCALE": 10,
        "RESHAPE": 2,
        "AVG_POOL2D": 1,
    }
    by_id = {op.id: op for op in operators}
    conv1 = by_id["source_operator/segment_0/spirv-147"]
    assert conv1.op_type == "DEPTHWISE_CONV2D"
    assert conv1.name == "tosa_depthwise_conv2d_default"
    [user] = conv1.user_frames()
    assert (user.line, user.function) == (40, "forward")
    assert "self.conv1(x)" in model_line(user.line)
    assert [m.path for m in conv1.nn_module_stack] == ["", "conv1"]
    # Every operator resolves to a source line; the INT model folds BN/ReLU (no 25/27, no 43).
    assert all(op.user_frames() for op in operators)
    assert _user_lines(operators) == {24, 26, 40, 41, 42, 44}


def test_block_operator_has_two_user_frames() -> None:
    operators = vgf.vgf_operators(read_bytes(INT_DBG), str(INT_DBG))
    pointwise = next(op for op in operators if op.op_type == "CONV2D")
    lines = [f.line for f in pointwise.user_frames()]
    assert lines == [41, 26]
    assert model_line(41).strip() == "x = self.blocks(x)"
    assert model_line(26).strip() == "x = self.pointwise(x)"
    assert pointwise.nn_module_stack[-1].path == "blocks.0.pointwise"


def test_plain_vgf_has_ids_but_no_locations() -> None:
    operators = vgf.vgf_operators(read_bytes(INT_PLAIN), str(INT_PLAIN))
    assert len(operators) == 23
    assert operators[0].id == "source_operator/segment_0/spirv-126"
    assert all(not op.locations and op.label is None for op in operators)
    [segment] = vgf.read_segments(read_bytes(INT_PLAIN), str(INT_PLAIN))
    assert not segment.spirv or not segment.spirv.has_debug_info
    assert dict(segment.debug_names) == {}


def test_fp_debug_operator_mix_and_lines() -> None:
    operators = vgf.vgf_operators(read_bytes(FP_DBG), str(FP_DBG))
    assert len(operators) == 24
    assert operators[0].id == "source_operator/segment_0/spirv-109"
    assert Counter(op.op_type for op in operators) == {
        "DEPTHWISE_CONV2D": 5,
        "CONV2D": 5,
        "CLAMP": 9,
        "RESHAPE": 2,
        "REDUCE_SUM": 2,
        "MUL": 1,
    }
    assert _user_lines(operators) == {24, 25, 26, 27, 40, 41, 42, 44}


def test_debug_name_helpers() -> None:
    [segment] = vgf.read_segments(read_bytes(INT_DBG), str(INT_DBG))
    structural = segment.structural_ids()
    assert structural[: len(segment.operation_ids)] == segment.operation_ids
    # The debug strings name exactly the TOSA operations (one name each) in this file.
    assert set(segment.debug_names) == set(segment.operation_ids)
    named = segment.ids_named()
    assert sorted(i for ids in named.values() for i in ids) == sorted(segment.operation_ids)
    assert segment.operator_id(147) == "source_operator/segment_0/spirv-147"


# --- malformed input ---------------------------------------------------------------------------


def _single_problem(error: pytest.ExceptionInfo[InputError], source: str) -> str:
    assert error.value.source == source
    assert len(error.value.problems) == 1
    return str(error.value.problems[0])


def test_bad_magic() -> None:
    data = b"XGF1" + read_bytes(INT_DBG)[4:]
    with pytest.raises(InputError) as error:
        vgf.read_vgf(data, "bad.vgf")
    text = _single_problem(error, "bad.vgf")
    assert "byte 0" in text and "VGF1" in text


def test_truncated_header() -> None:
    with pytest.raises(InputError) as error:
        vgf.read_vgf(read_bytes(INT_DBG)[:100], "short.vgf")
    assert "128-byte header" in _single_problem(error, "short.vgf")


def test_truncated_file() -> None:
    data = read_bytes(INT_DBG)
    with pytest.raises(InputError) as error:
        vgf.read_vgf(data[: len(data) // 2], "half.vgf")
    text = _single_problem(error, "half.vgf")
    assert "truncated" in text and "header." in text


def test_corrupt_flatbuffer_offset() -> None:
    data = bytearray(read_bytes(INT_DBG))
    module_section = struct.unpack_from("<Q", data, 16)[0]
    struct.pack_into("<I", data, module_section, 0x7FFFFFF0)  # root offset far past the section
    with pytest.raises(InputError) as error:
        vgf.read_vgf(bytes(data), "corrupt.vgf")
    text = _single_problem(error, "corrupt.vgf")
    assert f"byte {module_section + 0x7FFFFFF0}" in text and "ModuleTable" in text


def test_corrupt_spirv_word_count() -> None:
    data = bytearray(read_bytes(INT_DBG))
    decoded = vgf.read_vgf(bytes(data), "x")
    start = decoded.modules[0].spirv_offset
    assert start is not None
    first_instruction = start + 20
    opcode = struct.unpack_from("<I", data, first_instruction)[0] & 0xFFFF
    struct.pack_into("<I", data, first_instruction, (0xFFFF << 16) | opcode)
    with pytest.raises(InputError) as error:
        vgf.read_segments(bytes(data), "words.vgf")
    text = _single_problem(error, "words.vgf")
    assert f"byte {first_instruction}" in text and "SPIR-V" in text and "truncated" in text


def test_scan_raw_spirv_module() -> None:
    [segment] = vgf.read_segments(read_bytes(INT_DBG), str(INT_DBG))
    [module] = scan_modules(segment.spirv_bytes, "raw.spv")
    assert module.operation_ids == segment.operation_ids
    assert dict(module.debug_names) == dict(segment.debug_names)
    assert module.imports[27] == "NonSemantic.Graph.DebugInfo.1"


def test_spirv_errors() -> None:
    with pytest.raises(InputError, match="magic"):
        parse_module(b"\x00" * 20, "x.spv")
    with pytest.raises(InputError, match="whole number of 32-bit words"):
        parse_module(b"\x03\x02\x23\x07\x00", "x.spv")
    with pytest.raises(InputError, match="none found"):
        scan_modules(b"not spir-v at all", "x.spv")


MULTI = SYNTHETIC / "multi_segment.vgf"


def test_multi_segment_file_written_by_the_vgf_library() -> None:
    """Graph + Compute + Graph segments, encoded by vgfpy (see make_multi_segment.py)."""
    data = read_bytes(MULTI)
    decoded = vgf.read_vgf(data, str(MULTI))
    dump = read_json(SYNTHETIC / "multi_segment.vgf_dump.json")
    assert [(s.index, s.type, s.name, s.module_index) for s in decoded.segments] == [
        (s["index"], s["type"], s["name"], s["module_index"])
        for s in dump["model_sequence"]["segments"]
    ]
    assert [list(s.dispatch_shape) for s in decoded.segments] == [
        s["dispatch_shape"] for s in dump["model_sequence"]["segments"]
    ]
    assert [(m.name, m.type) for m in decoded.modules] == [
        (m["name"], m["type"]) for m in dump["modules"]
    ]
    assert decoded.modules[1].code_kind == "GLSL" and decoded.modules[1].spirv is None
    assert decoded.segments[1].push_constant_ranges == (vgf.PushConstantRange(32, 0, 16),)
    assert [list(r.shape or ()) for r in decoded.resources] == [
        r["shape"] for r in dump["resources"]
    ]
    assert decoded.resources[0].shape == (1, -1, 10)
    assert decoded.resources[3].vk_descriptor_type is None
    assert (decoded.input_names, decoded.output_names) == (("features",), ("logits",))
    assert [(c.mrt_index, c.size) for c in decoded.constants] == [(3, 4)]

    segments = vgf.segment_graphs(decoded, str(MULTI))
    assert [s.is_graph for s in segments] == [True, False, True]
    assert segments[1].spirv is None and segments[1].operations() == ()
    operators = vgf.segment_operators(segments)
    assert len(operators) == 46
    assert operators[0].id == "source_operator/segment_0/spirv-141"
    assert operators[0].locations  # from the debug module
    assert operators[23].id == "source_operator/segment_2/spirv-126"
    assert not operators[23].locations  # the plain module has no debug info


def test_unknown_segment_type() -> None:
    data = bytearray(read_bytes(INT_DBG))
    section = vgf.read_vgf(bytes(data), "x").sections[1]
    buffer = bytes(data[section.offset : section.offset + section.size])
    segment = root_table(buffer, "x", "ModelSequenceTable").tables(0, "segments")[0]
    type_field = segment.position + flatbuffers.table.Table(buffer, segment.position).Offset(4)
    assert type_field > segment.position  # the type is stored (GRAPH = 1, not the default)
    data[section.offset + type_field] = 7
    with pytest.raises(InputError) as error:
        vgf.read_vgf(bytes(data), "type.vgf")
    text = _single_problem(error, "type.vgf")
    assert "segments[0]" in text and "expected one of COMPUTE, GRAPH, found value 7" in text
