"""``perfline operators`` through click's CliRunner, and the format dispatcher."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from perfline.clients.cli.operators import command
from perfline.core.errors import InputError
from perfline.core.formats.models import detect_format, model_operators
from tests.support.format_data import DSCNN, THIRD_PARTY, read_bytes


def test_json_lists_vgf_operators_with_locations() -> None:
    path = DSCNN / "dscnn_int_dbg.vgf"
    result = CliRunner().invoke(command, [str(path), "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["format"] == "vgf"
    assert len(document["operators"]) == 23
    by_id = {op["id"]: op for op in document["operators"]}
    conv1 = by_id["source_operator/segment_0/spirv-147"]
    assert conv1["op_type"] == "DEPTHWISE_CONV2D"
    assert conv1["locations"][0] == {
        "file": "/home/dev/kws/dscnn.py",
        "line": 40,
        "function": "forward",
    }


def test_table_for_pt2() -> None:
    result = CliRunner().invoke(command, [str(DSCNN / "dscnn.pt2")])
    assert result.exit_code == 0, result.output
    assert "source_operator/conv2d_1" in result.output
    assert "aten.conv2d.default" in result.output
    assert "dscnn.py:41 > dscnn.py:24" in result.output


def test_notes_for_nested_onnx_and_plain_vgf() -> None:
    silero = model_operators(read_bytes(THIRD_PARTY / "silero_vad_op18_ifless.onnx"), "s.onnx")
    assert silero.format == "onnx" and len(silero.operators) == 4
    assert silero.notes and "86 node(s)" in silero.notes[0]
    plain = model_operators(read_bytes(DSCNN / "dscnn_int.vgf"), "p.vgf")
    assert plain.notes and "no debug info" in plain.notes[0]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("dscnn.onnx", "onnx"),
        ("dscnn.pt2", "pt2"),
        ("dscnn_int.tosa", "tosa"),
        ("dscnn_int.vgf", "vgf"),
    ],
)
def test_detect_format(name: str, expected: str) -> None:
    assert detect_format(read_bytes(DSCNN / name), name) == expected


def test_unknown_format_and_missing_file() -> None:
    with pytest.raises(InputError, match="expected a model file"):
        detect_format(b"hello", "notes.txt")
    result = CliRunner().invoke(command, ["/nonexistent/model.onnx"])
    assert result.exit_code == 2
    assert "no such file" in result.output


def test_bad_model_exit_status() -> None:
    result = CliRunner().invoke(command, [str(DSCNN / "dscnn.py")])
    assert result.exit_code == 2
    assert "expected a model file" in result.output


@pytest.mark.parametrize("name", ["dscnn.pt2", "dscnn.onnx", "dscnn_int_dbg.vgf"])
def test_the_table_names_the_recorded_source_paths(name: str) -> None:
    """Issue 37: the table shows locations by file name; the paths as recorded (what a
    ``[[path_map]]`` maps) follow it, with how many operators name each."""
    result = CliRunner().invoke(command, [str(DSCNN / name)], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    head = lines.index("source files as recorded (map them with [[path_map]] in perfline.toml):")
    listed = [line.strip() for line in lines[head + 1 :] if line.startswith("  ")]
    assert listed and listed[0].startswith("/home/dev/kws/dscnn.py (")
    assert not any("site-packages" in line for line in listed)  # library frames are not shown
