"""TOSA flatbuffer and MLIR-text readers on the real DS-CNN files and on small MLIR samples."""

from __future__ import annotations

import gzip
from collections import Counter

import pytest

from perfline.core.errors import InputError
from perfline.core.formats import tosa, vgf
from perfline.core.formats.identity import parse_json_label
from tests.support.format_data import DSCNN, model_line, read_bytes, read_json

INT = DSCNN / "dscnn_int.tosa"
FP = DSCNN / "dscnn_fp.tosa"


def test_int_flatbuffer_matches_tosa_package_dump() -> None:
    model = tosa.read_tosa(read_bytes(INT), str(INT))
    dump = read_json(DSCNN / "dscnn_int.tosa.json")
    assert model.format == "flatbuffer"
    assert model.version == tuple(dump["version"][:3])
    assert model.software_version == ".".join(str(p) for p in dump["software_version"][:3])
    [region] = dump["regions"]
    [block] = region["blocks"]
    expected = block["operators"]
    assert len(model.operators) == len(expected) == 106
    for operator, reference in zip(model.operators, expected, strict=True):
        assert operator.id == reference["index"]
        assert operator.op_type == reference["op"]
        assert list(operator.inputs) == reference["inputs"]
        assert list(operator.outputs) == reference["outputs"]
        assert operator.location == reference["location_text"]
        assert (operator.region, operator.block) == (region["name"], block["name"])


def test_int_operators_ids_and_lines() -> None:
    operators = tosa.tosa_operators(read_bytes(INT), str(INT))
    assert [op.id for op in operators] == [f"source_operator/{i}" for i in range(106)]
    compute = [op for op in operators if op.op_type not in ("CONST", "CONST_SHAPE")]
    assert len(compute) == 23
    assert all(op.label is None and not op.locations for op in operators if op not in compute)
    first_dw = operators[25]
    assert first_dw.op_type == "DEPTHWISE_CONV2D"
    provenance = parse_json_label(first_dw.label)
    assert provenance is not None and provenance.event_id == 1  # quirk 7: event_id != index
    assert [f.line for f in first_dw.user_frames()] == [40]
    assert "self.conv1(x)" in model_line(40)
    lines = {f.line for op in compute for f in op.user_frames() if f.file.endswith("kws/dscnn.py")}
    assert lines == {24, 26, 40, 41, 42, 44}


def test_fp_operator_mix_and_lines() -> None:
    operators = tosa.tosa_operators(read_bytes(FP), str(FP))
    assert len(operators) == 68
    counts = Counter(op.op_type for op in operators)
    assert counts["CONST"] + counts["CONST_SHAPE"] == 44
    assert {k: v for k, v in counts.items() if k not in ("CONST", "CONST_SHAPE")} == {
        "DEPTHWISE_CONV2D": 5,
        "CONV2D": 5,
        "CLAMP": 9,
        "RESHAPE": 2,
        "REDUCE_SUM": 2,
        "MUL": 1,
    }
    lines = {f.line for op in operators for f in op.user_frames() if f.file.endswith("dscnn.py")}
    assert lines == {24, 25, 26, 27, 40, 41, 42, 44}


def test_tosa_locations_are_the_vgf_debug_names() -> None:
    """dscnn_int_dbg.vgf was converted from dscnn_int.tosa: same operators and labels, in order."""
    tosa_ops = [op for op in tosa.tosa_operators(read_bytes(INT), str(INT)) if op.label is not None]
    vgf_path = DSCNN / "dscnn_int_dbg.vgf"
    vgf_ops = vgf.vgf_operators(read_bytes(vgf_path), str(vgf_path))
    assert [(op.op_type, op.label) for op in tosa_ops] == [(op.op_type, op.label) for op in vgf_ops]


MLIR = """\
#loc1 = loc("/home/dev/kws/dscnn.py":40:12)
#loc2 = loc("{\\"aten_info\\": {\\"node_name\\": \\"relu\\"}}")
module {
  func.func @main(%arg0: tensor<1x8xf32> loc(unknown)) -> tensor<1x8xf32> {
    %0 = "tosa.const"() <{values = dense<0.0> : tensor<8xf32>}> : () -> tensor<8xf32> loc(#loc1)
    %1 = tosa.clamp %arg0 {max_val = 6.0 : f32} : (tensor<1x8xf32>) -> tensor<1x8xf32> loc(#loc2)
    %2 = tosa.add %1, %0 : (tensor<1x8xf32>, tensor<8xf32>) -> tensor<1x8xf32> loc("inline")
    return %2 : tensor<1x8xf32>
  }
}
"""


def test_mlir_text_ids_and_locations() -> None:
    operators = tosa.tosa_operators(MLIR.encode(), "m.tosa.mlir")
    assert [(op.id, op.op_type) for op in operators] == [
        ("source_operator/0", "CONST"),
        ("source_operator/1", "CLAMP"),
        ("source_operator/2", "ADD"),
    ]
    assert operators[0].locations[0].file == "/home/dev/kws/dscnn.py"
    assert operators[0].locations[0].line == 40
    assert operators[1].name == "relu"
    assert operators[2].label == "inline"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (MLIR.replace("%1 = tosa.clamp", "%x = tosa.clamp"), "found %x"),
        (MLIR.replace("%2 = tosa.add", "%1 = tosa.add"), "defined again"),
    ],
)
def test_mlir_text_errors(text: str, needle: str) -> None:
    with pytest.raises(InputError) as error:
        tosa.tosa_operators(text.encode(), "m.mlir")
    [problem] = error.value.problems
    assert error.value.source == "m.mlir"
    assert problem.location.startswith("line ") and needle in problem.message


def test_bad_identifier() -> None:
    data = bytearray(read_bytes(INT))
    data[4:8] = b"XOSA"
    with pytest.raises(InputError) as error:
        tosa.read_tosa(bytes(data), "bad.tosa")
    [problem] = error.value.problems
    assert problem.location == "byte 4" and "TOSA" in problem.message


def test_truncated_flatbuffer() -> None:
    data = read_bytes(INT)
    with pytest.raises(InputError) as error:
        tosa.read_tosa(data[: len(data) // 3], "cut.tosa")
    [problem] = error.value.problems
    assert error.value.source == "cut.tosa"
    assert problem.location.startswith("byte ") and "TosaGraph" in problem.location
    assert "truncated" in problem.message


def test_mlir_bytecode_rejected() -> None:
    with pytest.raises(InputError, match="MLIR bytecode"):
        tosa.read_tosa(b"ML\xefR\x00\x01rest", "m.mlirbc")


def test_mlir_text_from_tosa_opt_matches_the_flatbuffer() -> None:
    """``tosa-opt --tosa-deserialize --mlir-print-debuginfo`` of dscnn_int.tosa (the official
    deserialiser; constant payloads shortened): same ids, types, labels, frames and modules."""
    text = gzip.decompress(read_bytes(DSCNN / "dscnn_int_dbg.tosa.mlir.gz"))
    from_mlir = tosa.tosa_operators(text, "dscnn_int_dbg.tosa.mlir")
    from_flatbuffer = tosa.tosa_operators(read_bytes(INT), str(INT))
    assert tosa.read_tosa(text, "m").format == "mlir"
    assert len(from_mlir) == 106
    for mlir_op, fb_op in zip(from_mlir, from_flatbuffer, strict=True):
        assert (mlir_op.id, mlir_op.op_type, mlir_op.label) == (
            fb_op.id,
            fb_op.op_type,
            fb_op.label,
        )
        assert mlir_op.locations == fb_op.locations
        assert mlir_op.nn_module_stack == fb_op.nn_module_stack
        if fb_op.label:
            assert mlir_op.name == fb_op.name


LOCATIONS = """\
#loc1 = loc("model.py":12:3)
#loc2 = loc("layers.py":40:1)
#loc3 = loc(callsite(#loc2 at #loc1))
#loc4 = loc(fused[#loc1, "extra"])
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.abs %arg0 : (tensor<4xf32>) -> tensor<4xf32> loc(#loc3)
  %1 = tosa.negate %0 : (tensor<4xf32>) -> tensor<4xf32> loc(#loc4)
  %2 = tosa.exp %1 : (tensor<4xf32>) -> tensor<4xf32> loc("has loc( inside"("x.py":0:0))
  %3 = tosa.log %2 : (tensor<4xf32>) -> tensor<4xf32> loc(unknown)
  return %3 : tensor<4xf32>
}
"""


def test_mlir_location_forms() -> None:
    operators = tosa.tosa_operators(LOCATIONS.encode(), "l.mlir")
    assert [(f.file, f.line) for f in operators[0].locations] == [
        ("model.py", 12),
        ("layers.py", 40),
    ]
    assert operators[0].label == "layers.py:40:1"
    assert [(f.file, f.line) for f in operators[1].locations] == [("model.py", 12)]
    assert operators[2].label == "has loc( inside" and not operators[2].locations
    assert operators[3].label is None
