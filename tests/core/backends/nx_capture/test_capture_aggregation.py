"""Mode 0 / mode 1 aggregation against hand-computed sums and maxima, both generations."""

from __future__ import annotations

import pytest

from perfline.core.backends.nx_common.counters import counter_layout
from perfline.core.backends.nx_common.records import StripeRow
from perfline.core.backends.nx_common.statistics_decoding import decode_statistics, stripe_rows
from perfline.core.errors import InputError
from tests.support.capture_writer import Task, mode1, statistics_bytes


def _rows(mode: int, generation: str, data: bytes, info: tuple[int, ...]) -> dict[str, StripeRow]:
    layout = counter_layout(generation, mode)
    decoded = decode_statistics(data, layout, "stats.bin")
    rows = stripe_rows(decoded, info, statistics_source="stats.bin", info_source="info.txt")
    assert [row.stripe_id for row in rows] == [str(i) for i in info]
    return {row.stripe_id: row for row in rows}


def _counters(row: StripeRow) -> dict[str, int]:
    return {section.name: int(section.cycles) for section in row.sections}


@pytest.mark.parametrize("generation", ["Mali-G1", "Mali-G2"])
def test_mode1_sums_per_core_then_takes_each_counters_maximum(generation: str) -> None:
    tasks = [
        # block 0: core 0 -> nx_active 100 + 20 = 120, rd_ll_stall 5 + 0 = 5
        #          core 1 -> nx_active 70, rd_ll_stall 9
        mode1(0, 0, core=0, nx_active=100, rd_ll_stall=5, ce_active=40),
        mode1(0, 3, core=1, nx_active=70, rd_ll_stall=9, ce_active=45),
        mode1(0, 200, core=0, nx_active=20, ce_active=10),
        # block 2: nx_active is zero but other counters are not
        mode1(2, 1, core=3, ce_active=50, ow_idx_stall=7),
        mode1(2, 2, core=4, ce_active=30, ow_idx_stall=8),
    ]
    data = statistics_bytes(1, generation, blocks=3, tasks=tasks)
    rows = _rows(1, generation, data, (2, 0, 1))
    block0 = _counters(rows["0"])
    assert block0["nx_active"] == 120  # core 0
    assert block0["rd_ll_stall"] == 9  # core 1: the maxima come from different cores
    assert block0["ce_active"] == 50  # core 0: 40 + 10 beats core 1's 45
    assert block0["dl_active"] == 0
    assert rows["0"].op_cycles == rows["0"].total_cycles == 120
    block2 = _counters(rows["2"])
    assert block2["ce_active"] == 50 and block2["ow_idx_stall"] == 8
    assert rows["2"].op_cycles == rows["2"].total_cycles == 0  # nx_active, even when zero
    # block 1 has only all-zero tasks: listed in the info, so a zero row with no counters
    assert rows["1"] == StripeRow("1", 0, 0)
    expected_names = 29 if generation == "Mali-G1" else 31
    assert len(block0) == expected_names


def test_mode1_g2_extra_stall_counters_and_ignored_words() -> None:
    tasks = [
        Task(0, 0, {1: 10, 30: 999, 31: 4, 32: 6, 40: 12345}, core=0),
        Task(0, 1, {1: 5, 31: 7, 32: 1}, core=1),
        Task(0, 2, {1: 3, 31: 2}, core=1),
    ]
    rows = _rows(1, "Mali-G2", statistics_bytes(1, "Mali-G2", 1, tasks), (0,))
    counters = _counters(rows["0"])
    assert counters["me_src0_stall"] == 9  # core 1: 7 + 2 beats core 0's 4
    assert counters["me_src1_stall"] == 6  # core 0
    assert counters["nx_active"] == 10  # core 0: 10 beats core 1's 5 + 3
    assert "reserved" not in counters and 999 not in counters.values()
    assert 12345 not in counters.values()


def test_mode1_g1_ignores_words_30_and_31() -> None:
    tasks = [Task(0, 0, {1: 10, 30: 999, 31: 888}, core=2)]
    rows = _rows(1, "Mali-G1", statistics_bytes(1, "Mali-G1", 1, tasks), (0,))
    assert set(_counters(rows["0"]).values()) == {0, 10}
    assert "me_src0_stall" not in _counters(rows["0"])


@pytest.mark.parametrize(("generation", "per_block"), [("Mali-G1", 512), ("Mali-G2", 1024)])
def test_mode0_sums_sections_over_the_blocks_tasks(generation: str, per_block: int) -> None:
    tasks = [
        Task(0, 0, {0: 10, 5: 3, 15: 1}),
        Task(0, per_block - 1, {0: 7, 5: 2}),
        Task(2, 10, {3: 100}),
    ]
    data = statistics_bytes(0, generation, blocks=3, tasks=tasks)
    rows = _rows(0, generation, data, (0, 1, 2))
    block0 = _counters(rows["0"])
    assert block0["section_0"] == 17 and block0["section_5"] == 5 and block0["section_15"] == 1
    assert sum(block0.values()) == 23
    assert rows["0"].op_cycles == rows["0"].total_cycles == 23
    assert rows["1"] == StripeRow("1", 0, 0)  # all-zero block listed in the info
    assert rows["2"].op_cycles == 100
    assert [name for name in block0] == [f"section_{k}" for k in range(16)]


def test_task_to_block_assignment_depends_on_the_generation() -> None:
    """Task 600 is in block 1 on G1 (512 tasks/block) but in block 0 on G2 (1024)."""
    g1 = statistics_bytes(0, "Mali-G1", 2, [Task(0, 0, {0: 1}), Task(1, 600 - 512, {0: 2})])
    rows = _rows(0, "Mali-G1", g1, (0, 1))
    assert rows["0"].op_cycles == 1 and rows["1"].op_cycles == 2
    rows = _rows(0, "Mali-G2", g1, (0,))
    assert rows["0"].op_cycles == 3


def test_zero_blocks_not_in_the_info_are_dropped() -> None:
    data = statistics_bytes(1, "Mali-G1", 3, [mode1(1, 0, core=0, nx_active=5)])
    rows = _rows(1, "Mali-G1", data, (1,))
    assert list(rows) == ["1"]


def test_nonzero_block_missing_from_the_info_is_an_error() -> None:
    data = statistics_bytes(1, "Mali-G1", 2, [mode1(1, 0, core=0, nx_active=5)])
    with pytest.raises(InputError, match=r"stats\.bin: block 1: has non-zero counters"):
        _rows(1, "Mali-G1", data, (0,))


def test_info_id_beyond_the_decoded_blocks_is_an_error() -> None:
    data = statistics_bytes(1, "Mali-G1", 2, [mode1(0, 0, core=0, nx_active=5)])
    with pytest.raises(InputError, match=r"info\.txt: entry 1: stripe 7 is beyond the 2 block"):
        _rows(1, "Mali-G1", data, (0, 7))


@pytest.mark.parametrize(
    ("cut", "message"),
    [
        (0, "empty"),
        (2, "not a multiple of the 4-byte word"),
        (4 * 20, "20 words is not a multiple of 16 words"),
        (4 * 48, "not a multiple of the task size"),
    ],
)
def test_bad_statistics_sizes(cut: int, message: str) -> None:
    data = statistics_bytes(1, "Mali-G1", 1, [mode1(0, 0, core=0, nx_active=5)])[:cut]
    with pytest.raises(InputError, match=message) as caught:
        decode_statistics(data, counter_layout("Mali-G1", 1), "stats.bin")
    assert str(caught.value).startswith("stats.bin: byte ")


def test_many_words_decode_quickly_enough_to_be_vectorised() -> None:
    """A 4-million-word mode-1 file (125k tasks) decodes; values checked on a sample."""
    tasks = [mode1(b, s, core=s % 4, nx_active=1) for b in range(0, 488, 61) for s in range(8)]
    data = statistics_bytes(1, "Mali-G1", 488, tasks)
    assert len(data) == 488 * 256 * 32 * 4
    layout = counter_layout("Mali-G1", 1)
    decoded = decode_statistics(data, layout, "big.bin")
    assert decoded.block_count == 488
    rows = stripe_rows(
        decoded, tuple(range(0, 488, 61)), statistics_source="big.bin", info_source="info"
    )
    # 8 tasks per listed block on cores 0..3 (two each): per-core sum 2, maximum 2.
    assert {row.op_cycles for row in rows} == {2}
