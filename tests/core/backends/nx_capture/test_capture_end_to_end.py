"""Structured captures end to end: strict reading, selection, aggregation into NX entities."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from perfline.clients.cli.analyze_measured import raw_measured_document, run_measured
from perfline.core.errors import InputError
from perfline.core.formats.vgf import read_segments
from tests.support.capture_writer import (
    DispatchSpec,
    PipelineSpec,
    Task,
    mode1,
    statistics_bytes,
    write_capture,
)
from tests.support.measured_data import DATA

VGF = DATA / "vgf" / "dscnn_int_dbg.vgf"


def _spirv() -> bytes:
    return read_segments(VGF.read_bytes(), str(VGF))[0].spirv_bytes


def _mode1_capture(root: Path, *, generation: str = "Mali-G2", dispatches: int = 1) -> Path:
    stats = statistics_bytes(
        1,
        generation,
        3,
        [
            mode1(0, 0, core=0, nx_active=100, rd_ll_stall=5),
            mode1(0, 1, core=1, nx_active=70, rd_ll_stall=9),
            mode1(1, 0, core=2, nx_active=30, rd_ll_stall=1),
        ],
    )
    name = "Mali-G2-Pro-NX MC1" if generation == "Mali-G2" else "Mali-G1 MP4"
    specs = [DispatchSpec(stats, executed_index=i) for i in range(dispatches)]
    return write_capture(
        root,
        [PipelineSpec(spirv=_spirv(), info=b"1, 0;2\0\0", dispatches=specs)],
        mode=1,
        device_name=name,
        warnings=["layer warning: demo"],
    )


def _breakdown(result: dict[str, Any], entity_id: str) -> dict[str, Any]:
    (found,) = [b for b in result["breakdowns"] if b["entity_id"] == entity_id]
    return {m["name"]: m["value"] for m in found["metrics"]}


@pytest.mark.parametrize("generation", ["Mali-G1", "Mali-G2"])
def test_capture_only_mode1(tmp_path: Path, generation: str) -> None:
    root = _mode1_capture(tmp_path / "capture", generation=generation)
    document = raw_measured_document([], profiling_data=[str(root)])
    result = document["results"][0]
    assert result["mode"] == "measured"
    assert result["producer"] == "neural-technology-profiling-data"
    assert "layer warning: demo" in result["warnings"]
    metrics = {m["name"]: m for m in result["metrics"]}
    # stripe 0: max(core 0: 100, core 1: 70) = 100; stripe 1: 30; stripe 2: listed, all zero.
    assert metrics["total_cycles"]["value"] == 130
    assert metrics["compute_cycles"]["value"] == 130
    assert metrics["target_utilization"]["value"] == 100
    assert metrics["inference_time"]["availability"] == "unavailable"
    chain = _breakdown(result, "chain/segment_0/30")  # stripes 0 and 1 (debug database)
    assert chain["op_cycles"] == chain["total_cycles"] == chain["nx_active_cycles"] == 130
    assert chain["rd_ll_stall_cycles"] == 9 + 1  # core 1 in stripe 0, plus stripe 1
    synthetic = _breakdown(result, "chain/segment_0/chain_2")  # stripe 2 has no debug links
    assert synthetic["op_cycles"] == 0
    entities = {e["id"]: e for e in result["entities"]}
    assert entities["chain/segment_0/chain_2"]["name"].endswith("/Chain 2")
    assert entities["segment/0"]["name"] == "graph_partition_0"
    configuration = document["backends"][0]["configuration"]
    assert configuration["profiling_device"] == generation
    assert configuration["mode"] == 1
    assert configuration["statistics_files"][0].endswith("dispatch_000000/statistics_mode1.bin")
    assert configuration["debug_database_files"][0].endswith("pipeline_000000/debug_database.bin")
    assert document["model"]["format"] == "spv"
    assert document["context"]["runtime_configuration"]["profiling_data"] == [
        str(root.resolve() / "pipeline_000000/session_000000/dispatch_000000")
    ]


def test_mode0_capture_with_vgf(tmp_path: Path) -> None:
    stats = statistics_bytes(
        0, "Mali-G1", 2, [Task(0, 0, {0: 10, 3: 5}), Task(0, 9, {3: 1}), Task(1, 0, {15: 4})]
    )
    root = write_capture(
        tmp_path / "capture",
        [PipelineSpec(spirv=_spirv(), info=b"0 1", dispatches=[DispatchSpec(stats)])],
        mode=0,
        device_name="Mali-G1",
    )
    processed = run_measured([str(VGF)], profiling_data=[str(root)])
    result = processed["results"][0]
    chain = _breakdown(result, "chain/segment_0/30")
    assert chain["total_cycles"] == 10 + 5 + 1 + 4
    assert chain["section_3_cycles"] == 6
    assert chain["section_15_cycles"] == 4
    entities = {e["id"]: e for e in result["entities"]}
    assert entities["segment/0"]["name"] == "graph_segment_0"
    assert entities["source_operator/segment_0/spirv-147"]["parent_ids"] == ["chain/segment_0/30"]
    assert processed["model"]["format"] == "vgf"


def test_dispatch_folder_input_and_ambiguous_root(tmp_path: Path) -> None:
    root = _mode1_capture(tmp_path / "capture", dispatches=2)
    with pytest.raises(InputError, match="holds 2 dispatches"):
        raw_measured_document([], profiling_data=[str(root)])
    dispatch = root / "pipeline_000000" / "session_000000" / "dispatch_000001"
    document = raw_measured_document([], profiling_data=[str(dispatch)])
    assert document["context"]["runtime_configuration"]["profiling_data"] == [
        str(dispatch.resolve())
    ]
    # With the VGF and one anchor dispatch, the anchor is used.
    document = raw_measured_document([str(VGF)], profiling_data=[str(dispatch)])
    assert document["backends"][0]["configuration"]["selected_dispatches"] == [
        str(dispatch.resolve())
    ]


def test_vgf_whose_spirv_matches_no_pipeline(tmp_path: Path) -> None:
    stats = statistics_bytes(1, "Mali-G2", 1, [mode1(0, 0, core=0, nx_active=1)])
    root = write_capture(
        tmp_path / "capture",
        [
            PipelineSpec(
                spirv=_spirv()[:-4] + b"\0\0\0\0", info=b"0", dispatches=[DispatchSpec(stats)]
            )
        ],
    )
    with pytest.raises(InputError, match=r"segment 0 \(graph_segment_0\): matches 0 captured"):
        raw_measured_document([str(VGF)], profiling_data=[str(root)])


def _edit(path: Path, change: Any) -> None:
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))


def test_missing_key(tmp_path: Path) -> None:
    root = _mode1_capture(tmp_path / "c")
    _edit(root / "capture.json", lambda d: d["capture"].pop("dispatch_filter"))
    with pytest.raises(InputError) as caught:
        raw_measured_document([], profiling_data=[str(root)])
    assert str(caught.value) == (
        f"{root / 'capture.json'}: $.capture: missing key(s) 'dispatch_filter'"
    )


def test_extra_key(tmp_path: Path) -> None:
    root = _mode1_capture(tmp_path / "c")
    path = root / "pipeline_000000" / "session_000000" / "session.json"
    _edit(path, lambda d: d.update(comment="hi"))
    with pytest.raises(InputError, match=r"session\.json: \$: unexpected key\(s\) 'comment'"):
        raw_measured_document([], profiling_data=[str(root)])


def test_wrong_schema_version_and_status(tmp_path: Path) -> None:
    root = _mode1_capture(tmp_path / "c")
    _edit(root / "capture.json", lambda d: d.update(schema_version=3))
    with pytest.raises(InputError, match=r"capture\.json: \$\.schema_version: expected 2, got 3"):
        raw_measured_document([], profiling_data=[str(root)])
    _edit(root / "capture.json", lambda d: d.update(schema_version=2, status="partial"))
    with pytest.raises(InputError, match=r"\$\.status: expected 'complete'"):
        raw_measured_document([], profiling_data=[str(root)])


def test_wrong_declared_size(tmp_path: Path) -> None:
    root = _mode1_capture(tmp_path / "c")
    path = root / "pipeline_000000" / "pipeline.json"
    _edit(path, lambda d: d["artifacts"][1].update(size=3))
    with pytest.raises(InputError) as caught:
        raw_measured_document([], profiling_data=[str(root)])
    message = str(caught.value)
    assert message.startswith(f"{path}: $.artifacts[1]: declares size 3")
    assert "neural_statistics_info.txt" in message


def test_non_canonical_reference_path(tmp_path: Path) -> None:
    root = _mode1_capture(tmp_path / "c")
    _edit(
        root / "capture.json",
        lambda d: d["pipelines"][0].update(path="./pipeline_000000/pipeline.json"),
    )
    with pytest.raises(InputError, match=r"\$\.pipelines\[0\]\.path: expected the canonical path"):
        raw_measured_document([], profiling_data=[str(root)])


def test_symlink_inside_the_capture(tmp_path: Path) -> None:
    root = _mode1_capture(tmp_path / "c")
    os.symlink(root / "capture.json", root / "pipeline_000000" / "link.json")
    with pytest.raises(InputError) as caught:
        raw_measured_document([], profiling_data=[str(root)])
    assert "link.json" in str(caught.value)
    assert "symlinks are not allowed inside a capture" in str(caught.value)


def test_statistics_length_not_a_multiple_of_the_task_size(tmp_path: Path) -> None:
    root = _mode1_capture(tmp_path / "c")
    dispatch = root / "pipeline_000000" / "session_000000" / "dispatch_000000"
    statistics = dispatch / "statistics_mode1.bin"
    statistics.write_bytes(statistics.read_bytes() + bytes(64))  # 16 words: not a 64-word task
    _edit(
        dispatch / "dispatch.json",
        lambda d: d["artifacts"][0].update(size=statistics.stat().st_size),
    )
    with pytest.raises(InputError) as caught:
        raw_measured_document([], profiling_data=[str(root)])
    message = str(caught.value)
    assert message.startswith(f"{statistics}: byte ")
    assert "not a multiple of the task size (64 words" in message


def test_wrong_statistics_file_name_for_the_mode(tmp_path: Path) -> None:
    root = _mode1_capture(tmp_path / "c")
    _edit(root / "capture.json", lambda d: d["capture"].update(statistics_mode=0))
    with pytest.raises(
        InputError,
        match=r"dispatch\.json: \$\.artifacts\[0\]\.path: expected 'statistics_mode0\.bin'",
    ):
        raw_measured_document([], profiling_data=[str(root)])


def test_non_arm_device(tmp_path: Path) -> None:
    root = _mode1_capture(tmp_path / "c")
    _edit(root / "capture.json", lambda d: d["devices"][0].update(vendor_id=0x10DE))
    with pytest.raises(InputError, match="is not Arm"):
        raw_measured_document([], profiling_data=[str(root)])
    _edit(
        root / "capture.json", lambda d: d["devices"][0].update(vendor_id=0x13B5, name="Mali-G710")
    )
    with pytest.raises(InputError, match="not a Mali-G1 or Mali-G2"):
        raw_measured_document([], profiling_data=[str(root)])


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    root = _mode1_capture(tmp_path / "c")
    (root / "capture.json").write_text('{"schema_version": 2,,}')
    with pytest.raises(InputError, match=r"capture\.json: line 1, column 22: invalid JSON"):
        raw_measured_document([], profiling_data=[str(root)])


def test_debug_database_with_too_few_sections(tmp_path: Path) -> None:
    stats = statistics_bytes(1, "Mali-G2", 1, [mode1(0, 0, core=0, nx_active=1)])
    root = write_capture(
        tmp_path / "c",
        [
            PipelineSpec(
                spirv=_spirv(),
                info=b"0",
                debug_database=b"id\ttosa_op\tapi_labels\n----\nid\tapi_label\n",
                dispatches=[DispatchSpec(stats)],
            )
        ],
    )
    with pytest.raises(InputError, match=r"debug_database\.bin: sections: expected 7 sections"):
        raw_measured_document([], profiling_data=[str(root)])


def test_binary_info_with_framing_header(tmp_path: Path) -> None:
    import struct

    payload = struct.pack("<3I", 1, 0, 2)
    framed = struct.pack("<3I", 0x2211EEFF, 1, len(payload)) + payload
    stats = statistics_bytes(1, "Mali-G2", 3, [mode1(0, 0, core=0, nx_active=4)])
    root = write_capture(
        tmp_path / "c",
        [
            PipelineSpec(
                spirv=_spirv(), info=framed, info_text=False, dispatches=[DispatchSpec(stats)]
            )
        ],
    )
    result = raw_measured_document([], profiling_data=[str(root)])["results"][0]
    totals = {m["name"]: m.get("value") for m in result["metrics"]}
    assert totals["total_cycles"] == 4
    bad = struct.pack("<3I", 0x2211EEFF, 1, 99) + payload
    info = root / "pipeline_000000" / "neural_statistics_info.bin"
    info.write_bytes(bad)
    _edit(
        root / "pipeline_000000" / "pipeline.json",
        lambda d: d["artifacts"][1].update(size=len(bad)),
    )
    with pytest.raises(
        InputError, match=r"neural_statistics_info\.bin: byte 8: header payload size 99"
    ):
        raw_measured_document([], profiling_data=[str(root)])
