"""Damaged estimator files give ``InputError`` (or parse), never another exception."""

from __future__ import annotations

import json

from hypothesis import given, settings, strategies

from perfline.core.backends.nx_common.records import SegmentInput
from perfline.core.backends.nx_common.view import build_segments_view
from perfline.core.backends.nx_estimator.debug_db import read_debug_database
from perfline.core.backends.nx_estimator.performance_db import read_performance_database
from perfline.core.backends.nx_estimator.summary import read_summary
from perfline.core.errors import InputError
from tests.support.nx_estimator_data import DEBUG_DB, PERFORMANCE_DB

PERFORMANCE = PERFORMANCE_DB.read_bytes()
DEBUG = DEBUG_DB.read_bytes()
SUMMARY = json.dumps(
    {
        "compiled_size": {"unit": "bytes", "value": 1},
        "network_performance": {
            name: {"unit": "cc", "value": 1}
            for name in (
                "compute_cycles",
                "dram_footprint",
                "inference_time",
                "infs_per_sec",
                "total_cycles",
            )
        },
    }
).encode()

_edits = strategies.lists(
    strategies.tuples(
        strategies.floats(0, 1), strategies.integers(0, 40), strategies.binary(max_size=6)
    ),
    min_size=1,
    max_size=4,
)


def _damage(data: bytes, edits: list[tuple[float, int, bytes]]) -> bytes:
    for where, cut, insert in edits:
        at = int(where * len(data))
        data = data[:at] + insert + data[at + cut :]
    return data


@settings(max_examples=80, deadline=None)
@given(_edits, _edits)
def test_damaged_databases(
    perf_edits: list[tuple[float, int, bytes]], debug_edits: list[tuple[float, int, bytes]]
) -> None:
    try:
        stripes = read_performance_database("p.dat", _damage(PERFORMANCE, perf_edits)).stripes
        links = read_debug_database("d.dat", _damage(DEBUG, debug_edits)).links
        build_segments_view([SegmentInput(0, "s", stripes, links, None, "d.dat")])
    except InputError as error:
        assert error.source in ("p.dat", "d.dat")
        assert error.problems


@settings(max_examples=80, deadline=None)
@given(_edits)
def test_damaged_summary(edits: list[tuple[float, int, bytes]]) -> None:
    try:
        read_summary("s.json", _damage(SUMMARY, edits))
    except InputError as error:
        assert error.source == "s.json"


def test_carriage_return_inside_a_row_names_the_row() -> None:
    # found by test_damaged_databases: the CSV reader refuses a bare CR in an unquoted cell
    lines = PERFORMANCE.split(b"\n")
    last_row = max(i for i, line in enumerate(lines) if line.count(b",") > 3)
    middle = len(lines[last_row]) // 2
    lines[last_row] = lines[last_row][:middle] + b"\r" + lines[last_row][middle:]
    damaged = b"\n".join(lines)
    try:
        read_performance_database("p.dat", damaged)
    except InputError as error:
        assert error.source == "p.dat"
        assert f"(line {last_row + 1})" in error.problems[0].location
        assert "CSV row" in error.problems[0].message
    else:
        raise AssertionError("a damaged row was read without complaint")


def test_deeply_nested_summary() -> None:
    try:
        read_summary("s.json", b"[" * 100000 + b"]" * 100000)
    except InputError as error:
        assert error.source == "s.json"


def test_deeply_nested_json_label_is_just_a_label() -> None:
    from perfline.core.backends.nx_common.labels import split_labels
    from perfline.core.backends.nx_common.provenance import display_name

    label = '{"a":' * 50000 + "1" + "}" * 50000
    assert split_labels(label + ";x")[-1] == "x"
    assert display_name(label) == label
