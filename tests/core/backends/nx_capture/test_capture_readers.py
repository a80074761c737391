"""Unit tests of the capture readers: statistics info, debug database links, selection."""

from __future__ import annotations

import struct

import pytest

from perfline.core.backends.nx_capture.selection import (
    CapturedDispatch,
    CapturedPipeline,
    GraphSegment,
    select_dispatches,
)
from perfline.core.backends.nx_common.debug_database import debug_links
from perfline.core.backends.nx_common.statistics_info import read_statistics_info
from perfline.core.errors import InputError
from tests.support.capture_writer import DEBUG_DATABASE


def test_text_info_accepts_decimal_hex_and_separators() -> None:
    assert read_statistics_info(b"3, 0x1;2\n 0\0\0", "i.txt", is_text=True) == (3, 1, 2, 0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"1 2 1", r"i\.txt: entry 2: stripe id 1 is listed twice \(first at entry 0\)"),
        (b"1 -2", r"i\.txt: entry 1: '-2' is not an unsigned 32-bit integer"),
        (b"0x100000000", "is not an unsigned 32-bit integer"),
        (b"1 two", "'two' is not an unsigned"),
    ],
)
def test_bad_text_info(text: bytes, message: str) -> None:
    with pytest.raises(InputError, match=message):
        read_statistics_info(text, "i.txt", is_text=True)


def test_binary_info_plain_and_bad_length() -> None:
    assert read_statistics_info(struct.pack("<3I", 5, 0, 9), "i.bin", is_text=False) == (5, 0, 9)
    with pytest.raises(InputError, match=r"i\.bin: byte 5: length 5 is not a multiple of 4"):
        read_statistics_info(b"\1\0\0\0\2", "i.bin", is_text=False)
    framed = struct.pack("<3I", 0x2211EEFF, 2, 4) + b"\0\0\0\0"
    with pytest.raises(InputError, match=r"byte 4: header version 2, expected 1"):
        read_statistics_info(framed, "i.bin", is_text=False)


def test_debug_links_follow_the_tables_and_fill_synthetic_ids() -> None:
    payload = DEBUG_DATABASE.encode() + b"\0\0"
    framed = struct.pack("<3I", 0x1122FFEE, 1, len(payload)) + payload
    links = debug_links(framed, ["1", "0", "5"], "db.bin")
    assert links.stripe_chain == {"1": "30", "0": "30", "5": "chain_5"}
    assert links.stripe_cascade == {"1": "40", "0": "40", "5": "cascade_5"}
    assert links.chain_fused == {"30": ("20",), "chain_5": ("fused_5",)}
    assert links.fused_tosa == {"20": ("10", "11"), "fused_5": ("tosa_5",)}
    assert links.nx_operations["10"].op_type == "Conv2D"
    assert links.nx_operations["10"].raw_labels == "TOSACONV2D_spirv_id_141;"
    synthetic = links.nx_operations["tosa_5"]
    assert (synthetic.op_type, synthetic.raw_labels) == ("NeuralOp", "profiling-stripe/5")


def test_stripe_op_indexs_column_maps_indexes_to_themselves() -> None:
    text = DEBUG_DATABASE.replace("id\tstripe_op_id\n0\t0\n1\t1", "id\tstripe_op_indexs\n0\t0;1;")
    links = debug_links(text.encode(), ["0", "1"], "db.bin")
    assert links.stripe_chain == {"0": "30", "1": "30"}


def test_debug_database_row_with_wrong_cell_count() -> None:
    text = DEBUG_DATABASE.replace("20\t10;11;", "20\t10;11;\textra")
    with pytest.raises(InputError, match=r"db\.bin: line 9 \(section fused_ops\): expected 2"):
        debug_links(text.encode(), ["0"], "db.bin")


def _pipeline(pid: int, spirv: bytes, *executed: int, device: int = 0) -> CapturedPipeline:
    dispatches = tuple(
        CapturedDispatch(
            pid * 10 + i, f"pipeline_{pid:06d}/session_{pid:06d}/dispatch_{pid * 10 + i:06d}", e
        )
        for i, e in enumerate(executed)
    )
    return CapturedPipeline(pid, f"pipeline_{pid:06d}", f"p{pid}", device, spirv, dispatches)


SEGMENTS = [GraphSegment(0, "s0", b"A"), GraphSegment(2, "s2", b"B")]


def test_root_input_matches_segments_by_spirv() -> None:
    pipelines = [_pipeline(0, b"B", 0), _pipeline(1, b"A", 0)]
    chosen = select_dispatches(pipelines, None, SEGMENTS, "cap")
    assert [(s.segment_index, s.pipeline.id) for s in chosen] == [(0, 1), (2, 0)]


def test_anchor_dispatch_picks_the_same_executed_index() -> None:
    pipelines = [_pipeline(0, b"A", 0, 1, 2), _pipeline(1, b"B", 0, 1, 2)]
    anchor = pipelines[0].dispatches[1].folder
    chosen = select_dispatches(pipelines, [anchor], SEGMENTS, "cap")
    assert [s.dispatch.executed_index for s in chosen] == [1, 1]
    assert chosen[1].pipeline.id == 1


def test_several_dispatches_follow_vgf_order() -> None:
    pipelines = [_pipeline(0, b"A", 0), _pipeline(1, b"B", 0)]
    folders = [pipelines[0].dispatches[0].folder, pipelines[1].dispatches[0].folder]
    assert len(select_dispatches(pipelines, folders, SEGMENTS, "cap")) == 2
    with pytest.raises(InputError, match="its SPIR-V differs from VGF segment 0"):
        select_dispatches(pipelines, list(reversed(folders)), SEGMENTS, "cap")
    with pytest.raises(InputError, match="the same dispatch folder is given twice"):
        select_dispatches(pipelines, [folders[0], folders[0]], SEGMENTS, "cap")


def test_selection_errors() -> None:
    with pytest.raises(InputError, match="has the same SPIR-V as segment 0"):
        select_dispatches(
            [_pipeline(0, b"A", 0)],
            None,
            [GraphSegment(0, "a", b"A"), GraphSegment(1, "b", b"A")],
            "cap",
        )
    with pytest.raises(InputError, match="has 2 dispatches"):
        select_dispatches([_pipeline(0, b"A", 0, 1), _pipeline(1, b"B", 0)], None, SEGMENTS, "cap")
    with pytest.raises(InputError, match="run on different devices"):
        select_dispatches(
            [_pipeline(0, b"A", 0), _pipeline(1, b"B", 0, device=1)], None, SEGMENTS, "cap"
        )
    pipelines = [_pipeline(0, b"A", 0, 1), _pipeline(1, b"B", 0)]
    with pytest.raises(InputError, match="dispatches with executed_index 1"):
        select_dispatches(pipelines, [pipelines[0].dispatches[1].folder], SEGMENTS, "cap")
    many = [_pipeline(0, b"A", 0, 1, 2, 3)]
    with pytest.raises(InputError, match=r"holds 4 dispatches \(.*\(and 1 more\)\)"):
        select_dispatches(many, None, None, "cap")
