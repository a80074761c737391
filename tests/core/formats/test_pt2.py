"""PT2 archive reader on the real DS-CNN exports (pre-dispatch and core-ATen IR)."""

from __future__ import annotations

import io
import zipfile

import pytest

from perfline.core.errors import InputError
from perfline.core.formats import pt2
from tests.support.format_data import DSCNN, model_line, read_bytes, read_json

PRE = DSCNN / "dscnn.pt2"
CORE = DSCNN / "dscnn_core_aten.pt2"


def test_pre_dispatch_nodes_match_torch_reading() -> None:
    operators = pt2.pt2_operators(read_bytes(PRE), str(PRE))
    # nodes.json was written by torch itself (torch.export.load + node.meta).
    expected = [n for n in read_json(DSCNN / "dscnn.pt2.nodes.json") if n["op"] == "call_function"]
    assert len(operators) == len(expected) == 30
    for operator, node in zip(operators, expected, strict=True):
        assert operator.id == f"source_operator/{node['name']}"
        assert operator.label == node["stack_trace"]
        assert [m.key for m in operator.nn_module_stack] == list(node["nn_module_stack"])
        assert [[m.path, m.type] for m in operator.nn_module_stack] == list(
            node["nn_module_stack"].values()
        )
    assert [op.local_id for op in operators[:4]] == ["conv2d", "batch_norm", "relu", "conv2d_1"]
    assert operators[0].op_type == "aten.conv2d.default"


def test_pre_dispatch_lines() -> None:
    operators = pt2.pt2_operators(read_bytes(PRE), str(PRE))
    lines = {f.line for op in operators for f in op.user_frames() if f.file.endswith("dscnn.py")}
    assert lines == {24, 25, 26, 27, 40, 41, 42, 43, 44}
    by_id = {op.local_id: op for op in operators}
    assert [f.line for f in by_id["conv2d_1"].user_frames()] == [41, 24]
    assert model_line(24).strip() == "x = self.depthwise(x)"
    assert [f.line for f in by_id["flatten"].user_frames()] == [43]
    assert model_line(43).strip() == "x = torch.flatten(x, 1)"


def test_core_aten_names_differ_and_getitems_are_rebuilt() -> None:
    operators = pt2.pt2_operators(read_bytes(CORE), str(CORE))
    expected = [
        n for n in read_json(DSCNN / "dscnn_core_aten.pt2.nodes.json") if n["op"] == "call_function"
    ]
    assert [op.local_id for op in operators] == [n["name"] for n in expected]
    assert len(operators) == 58
    names = {op.local_id for op in operators}
    assert "convolution_1" in names and "conv2d_1" not in names
    getitem = next(op for op in operators if op.local_id == "getitem")
    assert getitem.op_type == "getitem"
    assert getitem.label == next(n for n in expected if n["name"] == "getitem")["stack_trace"]


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("data", "location", "needle"),
    [
        (b"PK\x03\x04 not really a zip", "byte 0", "zip archive"),
        (b"\x00" * 10, "byte 0", "zip archive"),
        (_zip({"m/data/x": b"1"}), "archive", "models/model.json"),
        (
            _zip({"m/models/model.json": b'{"graph_module": {'}),
            "m/models/model.json line 1 column 19",
            "JSON",
        ),
        (
            _zip({"m/models/model.json": b'{"graph_module": {"graph": {"nodes": {}}}}'}),
            "m/models/model.json $.graph_module.graph.nodes",
            "a list",
        ),
        (
            _zip(
                {
                    "m/models/model.json": b'{"graph_module": {"graph": {"nodes": '
                    b'[{"name": "a", "target": "t"}, {"name": "a", "target": "t"}]}}}'
                }
            ),
            "m/models/model.json $.graph_module.graph.nodes[1]",
            "duplicate node name 'a'",
        ),
    ],
    ids=["bad-zip", "no-magic", "no-model", "bad-json", "wrong-type", "duplicate"],
)
def test_malformed_archives(data: bytes, location: str, needle: str) -> None:
    with pytest.raises(InputError) as error:
        pt2.read_pt2(data, "bad.pt2")
    [problem] = error.value.problems
    assert error.value.source == "bad.pt2"
    assert problem.location == location
    assert needle in problem.message


def test_truncated_archive() -> None:
    data = read_bytes(PRE)
    with pytest.raises(InputError) as error:
        pt2.read_pt2(data[: len(data) // 2], "cut.pt2")
    [problem] = error.value.problems
    assert problem.location == "byte 0" and "zip archive" in problem.message


def test_from_node_links_core_aten_names_to_pre_dispatch_names() -> None:
    core = pt2.read_pt2(read_bytes(CORE), str(CORE))
    expected = {
        n["name"]: n["from_node"]
        for n in read_json(DSCNN / "dscnn_core_aten.pt2.nodes.json")
        if n["op"] == "call_function"
    }
    for node in core.nodes:
        assert list(node.origin_names[:1]) == expected[node.name][:1]
    pre_dispatch = {op.local_id for op in pt2.pt2_operators(read_bytes(PRE), str(PRE))}
    by_name = {node.name: node for node in core.nodes}
    assert by_name["convolution_1"].origin_names[0] == "conv2d_1"
    assert all(node.origin_names[0] in pre_dispatch for node in core.nodes)
