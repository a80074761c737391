"""ONNX reader (hand-written protobuf walk) on the DS-CNN exports and two third-party models."""

from __future__ import annotations

import warnings

import pytest

from perfline.core.errors import InputError
from perfline.core.formats import onnx
from tests.support.format_data import DSCNN, THIRD_PARTY, model_line, read_bytes, read_json

DYNAMO = DSCNN / "dscnn.onnx"
LEGACY = DSCNN / "dscnn_legacy.onnx"
PPOCR = THIRD_PARTY / "ch_ppocr_mobile_v2.0_cls_infer.onnx"
SILERO = THIRD_PARTY / "silero_vad_op18_ifless.onnx"


def test_dynamo_export_matches_onnx_package_reading() -> None:
    model = onnx.read_onnx(read_bytes(DYNAMO), str(DYNAMO))
    expected = read_json(DSCNN / "dscnn.onnx.nodes.json")  # written with the onnx package
    assert (model.ir_version, model.opsets) == (10, (("", 20),))
    assert len(model.nodes) == len(expected) == 21
    for node, reference in zip(model.nodes, expected, strict=True):
        assert node.index == reference["index"]
        assert (node.name, node.op_type) == (reference["name"], reference["op_type"])
        assert (list(node.inputs), list(node.outputs)) == (
            reference["inputs"],
            reference["outputs"],
        )
        assert dict(node.metadata) == reference["metadata_props"]


def test_dynamo_operators_and_lines() -> None:
    operators = onnx.onnx_operators(read_bytes(DYNAMO), str(DYNAMO))
    assert [op.id for op in operators] == [f"source_operator/{i}" for i in range(21)]
    types = [op.op_type for op in operators]
    assert (types.count("Conv"), types.count("Relu")) == (9, 9)
    assert types[-3:] == ["ReduceMean", "Reshape", "Gemm"]
    lines = {f.line for op in operators for f in op.user_frames() if f.file.endswith("dscnn.py")}
    assert lines == {25, 27, 40, 41, 42, 43, 44}  # quirk 1: fused Convs carry the BN line
    block_conv = operators[2]
    assert block_conv.name == "node_Conv_139"
    assert [f.line for f in block_conv.user_frames()] == [41, 25]
    assert model_line(25).strip() == "x = F.relu(self.bn_dw(x))"
    assert [m.path for m in block_conv.nn_module_stack] == [
        "",
        "blocks",
        "blocks.0",
        "blocks.0.bn_dw",
    ]
    assert block_conv.nn_module_stack[-1].type == "torch.nn.modules.batchnorm.BatchNorm2d"


def test_legacy_export_has_no_locations() -> None:
    operators = onnx.onnx_operators(read_bytes(LEGACY), str(LEGACY))
    assert len(operators) == 21
    assert operators[0].name == "/conv1/Conv"
    assert all(not op.locations and op.label is None for op in operators)


def test_third_party_paddle_classifier() -> None:
    model = onnx.read_onnx(read_bytes(PPOCR), str(PPOCR))
    assert (model.producer_name, model.ir_version, model.opsets) == ("PaddlePaddle", 7, (("", 11),))
    assert len(model.nodes) == 566
    assert sum(1 for n in model.nodes if n.op_type == "Constant") == 308
    assert sum(1 for n in model.nodes if n.name) == 258
    assert not model.nested


def test_silero_subgraphs_have_no_canonical_ids() -> None:
    data = read_bytes(SILERO)
    operators = onnx.onnx_operators(data, str(SILERO))
    assert [op.op_type for op in operators] == ["Reshape", "Gather", "Equal", "If"]
    nested = onnx.onnx_nested_nodes(data, str(SILERO))
    then_nodes = [n for n in nested if n.path.startswith("graph.node[3].then_branch.")]
    else_nodes = [n for n in nested if n.path.startswith("graph.node[3].else_branch.")]
    assert len(then_nodes) == len(else_nodes) == 43
    assert sum(1 for n in nested if onnx.node_frames(n)) == 82
    files = {f.file for op in operators for f in op.locations}
    assert "<ipython-input-6181-3806684016>" in files


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (b"", "not an ONNX model"),
        (b'{"not": "onnx"}', "wire type"),
        (b"\x08\x0a", "not an ONNX model"),  # ir_version only, no graph
    ],
    ids=["empty", "json", "no-graph"],
)
def test_not_onnx(data: bytes, needle: str) -> None:
    with pytest.raises(InputError) as error:
        onnx.read_onnx(data, "x.onnx")
    [problem] = error.value.problems
    assert error.value.source == "x.onnx" and needle in problem.message


def test_truncated_model() -> None:
    data = read_bytes(DYNAMO)
    with pytest.raises(InputError) as error:
        onnx.read_onnx(data[: len(data) - 1000], "cut.onnx")
    [problem] = error.value.problems
    assert problem.location.startswith("byte ") and "truncated" in problem.message


def test_a_damaged_name_scope_literal_says_nothing_on_stderr() -> None:
    """The exporter's name scopes are a Python literal read with ``ast.literal_eval``; one with
    an invalid escape (a flipped byte) is read as Python reads it, and the compiler's warning
    about it is not printed over perfline's output."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert onnx._literal_list("['a\\_b', 'c']") == ["a\\_b", "c"]
    assert [str(w.message) for w in caught] == []
