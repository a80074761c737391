"""The estimator database and summary readers: real files, and one clear error per malformation."""

from __future__ import annotations

import json

import pytest

from perfline.core.backends.nx_estimator.debug_db import read_debug_database
from perfline.core.backends.nx_estimator.performance_db import read_performance_database
from perfline.core.backends.nx_estimator.summary import read_summary
from perfline.core.errors import InputError
from tests.support.nx_estimator_data import (
    DEBUG_DB,
    PERFORMANCE_DB,
    PERFORMANCE_HEADER,
    container,
    performance_row,
)


def _debug_tables(stripe_rows: list[str]) -> str:
    return container(
        "debug_database",
        [
            ("tosa_op_id", ['"id", "tosa_op", "api_labels"', "1, Conv2D, conv;"]),
            ("shader_op_id", ['"id", "api_labels"']),
            ("fused_op_id", ['"id", "tosa_op_ids"', "10, 1;"]),
            ("chain_op_id", ['"id", "fused_op_ids"', "20, 10;", "21, 10;"]),
            ("cascade_op_id", ['"id", "op_ids"', "30, 20;"]),
            ("stripe_op_id", ['"id", "op_id", "cascade_op_id"', *stripe_rows]),
        ],
    )


def test_real_performance_database_keeps_file_order_and_packed_cells() -> None:
    database = read_performance_database(str(PERFORMANCE_DB), PERFORMANCE_DB.read_bytes())
    assert len(database.stripes) == 38
    first = database.stripes[0]
    assert (first.stripe_id, first.op_cycles, first.total_cycles) == ("37", 18, 235)
    assert [m.name for m in first.memory] == ["Internal", "L1", "L2", "SystemCache", "DRAM"]
    dram = first.memory[-1]
    assert (dram.read_bytes, dram.write_bytes, dram.traffic_cycles) == (320, 12, 10)
    assert [(s.name, s.cycles) for s in first.sections][:2] == [
        ("InputReader", 32),
        ("ConvolutionEngine", 0),
    ]


def test_real_debug_database_links() -> None:
    links = read_debug_database(str(DEBUG_DB), DEBUG_DB.read_bytes()).links
    assert links.stripe_chain["28"] == "690"
    assert links.stripe_cascade["28"] == "2791"
    assert links.chain_fused["690"] == ("642", "644", "562", "564", "568")
    assert [links.fused_tosa[f] for f in links.chain_fused["690"]] == [
        ("408",),
        ("409",),
        ("412",),
        ("413",),
        ("416",),
    ]
    assert links.nx_operations["408"].op_type == "LUT"
    assert links.ee_operations == {}


def _line(text: str, row: str) -> int:
    """The 1-based line of ``row`` in ``text`` (counted independently of the reader)."""
    return text.splitlines().index(row) + 1


def _error(reader: object, text: str, name: str = "x.dat") -> InputError:
    assert callable(reader)
    with pytest.raises(InputError) as caught:
        reader(name, text.encode())
    error = caught.value
    assert error.source == name
    assert len(error.problems) == 1
    return error


def test_truncated_performance_database_names_the_unclosed_block() -> None:
    text = PERFORMANCE_DB.read_text()
    truncated = text[: text.index("]]>") - 40]
    error = _error(read_performance_database, truncated)
    assert f"table performance (line {_line(text, '<![CDATA[')})" in error.render()
    assert "not closed" in error.render()


def test_truncated_debug_database_after_a_table_names_the_root() -> None:
    text = DEBUG_DB.read_text()
    truncated = text[: text.rindex("</table>")]
    error = _error(read_debug_database, truncated)
    assert "</table>" in error.render() or "</debug_database>" in error.render()
    assert "truncated" in error.render()


def test_row_with_a_missing_cell_names_row_line_and_column() -> None:
    row = performance_row(0, 10, 20).rsplit(",", 1)[0]
    text = container("performance_database", [("performance", [PERFORMANCE_HEADER, row])])
    error = _error(read_performance_database, text)
    assert error.render() == (
        f"x.dat: table performance, row 1 (line {_line(text, row)}): expected 5 cells, found 4 "
        "(missing 'sectionName;cycles')"
    )


def test_non_numeric_cycle_count_names_the_column() -> None:
    row = performance_row(0, 10, 20).replace(" 10, 20,", " 10, many,", 1)
    text = container("performance_database", [("performance", [PERFORMANCE_HEADER, row])])
    error = _error(read_performance_database, text)
    assert error.render() == (
        f"x.dat: table performance, row 1 (line {_line(text, row)}), column totalCycles: "
        "expected an integer, got 'many'"
    )


def test_incomplete_memory_group_is_an_error() -> None:
    row = performance_row(0, 10, 20).replace("DRAM;0;0;0;", "DRAM;0;0;")
    text = container("performance_database", [("performance", [PERFORMANCE_HEADER, row])])
    error = _error(read_performance_database, text)
    assert "column memoryName;readBytes;writeBytes;trafficCycles" in error.render()
    assert "groups of 4" in error.render()


def test_stripe_mapped_to_two_chains_in_one_cell() -> None:
    text = _debug_tables(["0, 20;21, 30"])
    error = _error(read_debug_database, text)
    assert error.render() == (
        f"x.dat: table stripe_op_id, row 1 (line {_line(text, '0, 20;21, 30')}), column op_id: "
        "stripe 0 must map to exactly one chain, found 20, 21"
    )


def test_stripe_mapped_to_two_chains_in_two_rows() -> None:
    text = _debug_tables(["0, 20, 30", "0, 21, 30"])
    error = _error(read_debug_database, text)
    line = _line(text, "0, 21, 30")
    assert f"table stripe_op_id, row 2 (line {line}), column op_id" in error.render()
    assert "maps to 20 (row 1) and 21" in error.render()


def test_debug_row_with_a_missing_cell() -> None:
    text = _debug_tables(["0, 20"])
    error = _error(read_debug_database, text)
    assert error.render() == (
        f"x.dat: table stripe_op_id, row 1 (line {_line(text, '0, 20')}): "
        "expected 3 cells, found 2 (missing 'cascade_op_id')"
    )


def test_commas_in_the_last_debug_column_belong_to_it() -> None:
    text = _debug_tables(["0, 20, 30"]).replace("1, Conv2D, conv;", '1, Conv2D, {"a": 1, "b": 2};')
    links = read_debug_database("x.dat", text.encode()).links
    assert links.nx_operations["1"].raw_labels == '{"a": 1, "b": 2};'


_SUMMARY = {
    "compiled_size": {"unit": "bytes", "value": 17180},
    "network_performance": {
        "cache1": {
            "cycles": {"unit": "cc", "value": 2},
            "read_bytes": {"unit": "bytes", "value": 0},
            "write_bytes": {"unit": "bytes", "value": 512},
        },
        "compute_cycles": {"unit": "cc", "value": 5520},
        "dram": {
            "cycles": {"unit": "cc", "value": 7838},
            "read_bytes": {"unit": "bytes", "value": 302428},
        },
        "dram_footprint": {"unit": "bytes", "value": 14784},
        "inference_time": {"unit": "ms", "value": 0.008937333710491657},
        "infs_per_sec": {"unit": "inf/s", "value": None},
        "total_cycles": {"unit": "cc", "value": 13406.0},
    },
}


def test_summary_values_missing_members_and_nulls() -> None:
    totals = read_summary("s.json", json.dumps(_SUMMARY).encode())
    assert totals.total_cycles == 13406 and isinstance(totals.total_cycles, int)
    assert totals.cache_write_bytes == 512
    assert totals.dram_write_bytes == 0  # a missing member counts as 0
    assert totals.infs_per_sec is None  # null = unavailable
    assert totals.inference_time == pytest.approx(0.008937333710491657)


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("compiled_size",), "17180", "$.compiled_size.value: expected an integer or null"),
        (("network_performance", "total_cycles"), True, "total_cycles.value: expected an integer"),
        (
            ("network_performance", "compute_cycles"),
            1.5,
            "compute_cycles.value: expected an integer, got 1.5",
        ),
        (("network_performance", "inference_time"), [1], "inference_time.value: expected a number"),
    ],
)
def test_summary_value_of_the_wrong_type(
    path: tuple[str, ...], value: object, message: str
) -> None:
    document = json.loads(json.dumps(_SUMMARY))
    target = document
    for key in path:
        target = target[key]
    target["value"] = value
    error = _error(read_summary, json.dumps(document), "s.json")
    assert message in error.render()


def test_summary_missing_required_key() -> None:
    document = json.loads(json.dumps(_SUMMARY))
    del document["network_performance"]["dram_footprint"]
    error = _error(read_summary, json.dumps(document), "s.json")
    assert error.render() == "s.json: $.network_performance: expected the key 'dram_footprint'"
