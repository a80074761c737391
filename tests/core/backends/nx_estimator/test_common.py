"""The shared NX construction: labels, names, totals, groups, placement, advice, warnings."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies

from perfline.core.backends.nx_common.labels import placeholder_result_id, split_labels
from perfline.core.backends.nx_common.naming import snake_case
from perfline.core.backends.nx_common.records import (
    DebugLinks,
    MemoryTraffic,
    SegmentInput,
    SegmentSpirv,
    StripeRow,
    TosaOperation,
)
from perfline.core.backends.nx_common.segment_warnings import compute_segments_warning
from perfline.core.backends.nx_common.totals import ModelTotals, combine_totals
from perfline.core.backends.nx_common.view import build_segments_view
from perfline.core.backends.nx_estimator.advice import (
    CONVOLUTION,
    DEPTHWISE,
    Convolution,
    depthwise_advice,
)
from perfline.core.backends.nx_estimator.spirv_convolutions import segment_convolutions
from perfline.core.errors import InputError
from perfline.core.formats.vgf import read_segments
from tests.support.nx_estimator_data import DSCNN_VGF


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("SystemCache", "system_cache"),
        ("DRAM", "dram"),
        ("L1", "l1"),
        ("InputReader", "input_reader"),
        ("ConvolutionEngine", "convolution_engine"),
        ("nx_active", "nx_active"),
        ("Weird Name-2", "weird_name_2"),
    ],
)
def test_snake_case(name: str, expected: str) -> None:
    assert snake_case(name) == expected


def test_label_recovery_keeps_known_names_and_json_whole() -> None:
    tf_name = "FusedBatchNormV3;BiasAdd/ReadVariableOp;BiasAdd"
    json_label = json.dumps({"aten_info": {"node_name": "a;b"}})
    text = f"{tf_name};{json_label}; plain ;TOSACONV2D_spirv_id_60;"
    assert split_labels(text, [tf_name]) == (tf_name, json_label, "plain", "TOSACONV2D_spirv_id_60")
    assert split_labels(text) == (
        "FusedBatchNormV3",
        "BiasAdd/ReadVariableOp",
        "BiasAdd",
        json_label,
        "plain",
        "TOSACONV2D_spirv_id_60",
    )
    assert placeholder_result_id("TOSACONV2D_spirv_id_60") == 60
    assert placeholder_result_id("conv") is None


def _segment(
    labels: dict[str, str], spirv: SegmentSpirv | None, ee: dict[str, str] | None = None
) -> SegmentInput:
    links = DebugLinks(
        stripe_chain={"0": "7", "1": "7", "2": "8"},
        stripe_cascade={"0": "9", "1": "9", "2": "9"},
        chain_fused={"7": ("70",), "8": ("80", "81")},
        fused_tosa={"70": ("1",), "80": ("2",), "81": ("3",)},
        nx_operations={
            op: TosaOperation(op, "Conv2D" if op == "1" else "Add", text)
            for op, text in labels.items()
        },
        ee_operations={op: TosaOperation(op, None, text) for op, text in (ee or {}).items()},
    )
    stripes = (StripeRow("0", 5, 9), StripeRow("1", 6, 10), StripeRow("2", 1, 2))
    return SegmentInput(0, "seg", stripes, links, spirv, "debug.dat")


def test_one_label_on_several_operations_makes_a_performance_group() -> None:
    spirv = SegmentSpirv((11, 12, 13, 14), {11: "conv", 12: "shared", 13: "shared"})
    segment = _segment({"1": "conv;", "2": "shared;", "3": "shared;"}, spirv, ee={"5": "conv;"})
    view = build_segments_view([segment])
    entities = {e["id"]: e for e in view.entities}
    group = entities["performance_group/segment_0/chain_8/0"]
    assert group["parent_ids"] == ["chain/segment_0/8"]
    assert group["attributes"]["operator_types"] == ["Add"]
    for member in (12, 13):
        source = entities[f"source_operator/segment_0/spirv-{member}"]
        assert source["parent_ids"] == [group["id"]]
        assert "placement" not in source
    assert entities["source_operator/segment_0/spirv-11"]["placement"] == "NX/EE"
    assert entities["source_operator/segment_0/spirv-14"]["parent_ids"] == ["segment/0"]
    chain_7 = next(b for b in view.breakdowns if b["entity_id"] == "chain/segment_0/7")
    assert {m["name"]: m["value"] for m in chain_7["metrics"]} == {
        "total_cycles": 19,
        "op_cycles": 11,
    }
    cascade = entities["cascade/segment_0/9"]
    assert cascade["attributes"]["stripe_ids"] == ["0", "1", "2"]
    assert entities["chain/segment_0/8"]["parent_ids"] == ["cascade/segment_0/9"]


def test_a_stripe_without_debug_links_is_an_error() -> None:
    segment = _segment({"1": "conv;"}, None)
    broken = SegmentInput(
        0, "seg", (*segment.stripes, StripeRow("99", 1, 1)), segment.links, None, "debug.dat"
    )
    with pytest.raises(InputError) as caught:
        build_segments_view([broken])
    assert caught.value.render() == (
        "debug.dat: table stripe_op_id: stripe 99 of the performance data has no chain and "
        "cascade (expected a row with this id)"
    )


def test_combining_segment_totals() -> None:
    first = ModelTotals(total_cycles=10, inference_time=0.5, dram_footprint=100, cache_cycles=None)
    second = ModelTotals(total_cycles=5, inference_time=1.5, dram_footprint=300, cache_cycles=4)
    combined = combine_totals([first, second])
    assert combined.total_cycles == 15
    assert combined.inference_time == 2.0
    assert combined.infs_per_sec == 500.0
    assert combined.dram_footprint == 300
    assert combined.cache_cycles is None


def test_compute_segment_warning_lists_five_then_counts() -> None:
    names = [f"c{i}" for i in range(7)]
    warning = compute_segments_warning(names)
    assert warning == (
        "VGF compute segment(s) c0, c1, c2, c3, c4, ... (2 more omitted) will not be estimated "
        "by the NX Performance Estimator and will not contribute to performance totals."
    )
    assert compute_segments_warning([]) is None


def test_depthwise_advice_rule() -> None:
    convolutions = [
        Convolution("a", DEPTHWISE, (3, 3), None),
        Convolution("b", CONVOLUTION, (1, 1), 32),
        Convolution("c", DEPTHWISE, (3, 3), None),
        Convolution("d", CONVOLUTION, (1, 1), 64),
        Convolution("e", DEPTHWISE, (5, 5), None),
        Convolution("f", CONVOLUTION, (1, 1), 8),
        Convolution("g", DEPTHWISE, (3, 3), None),
        Convolution("h", CONVOLUTION, (1, 1), None),
    ]
    (advice,) = depthwise_advice(convolutions)
    assert advice["affected_entity_ids"] == ["a", "b"]
    assert advice["category"] == "optimization"
    assert "32 output channels" in advice["message"]


def test_real_vgf_convolution_shapes_give_no_advice() -> None:
    (segment,) = read_segments(DSCNN_VGF.read_bytes(), str(DSCNN_VGF))
    assert segment.spirv is not None
    convolutions = segment_convolutions(0, segment.module.spirv_words, segment.spirv.operations)
    # dscnn.py: conv1 10x4 (1 input channel, lowered as depthwise), 4 x (depthwise 3x3,
    # pointwise 1x1 to 64 channels), FC 64 -> 12 as a 1x1 convolution.
    assert [(c.kind, c.kernel, c.output_channels) for c in convolutions] == [
        (DEPTHWISE, (10, 4), None),
        *[(DEPTHWISE, (3, 3), None), (CONVOLUTION, (1, 1), 64)] * 4,
        (CONVOLUTION, (1, 1), 12),
    ]
    assert depthwise_advice(convolutions) == []


@settings(max_examples=60, deadline=None)
@given(
    strategies.lists(
        strategies.tuples(
            strategies.integers(0, 5),
            strategies.integers(0, 3),
            strategies.integers(0, 1000),
            strategies.integers(0, 1000),
        ),
        min_size=1,
        max_size=40,
    )
)
def test_stripe_figures_are_conserved(rows: list[tuple[int, int, int, int]]) -> None:
    """Every stripe is counted once per level: chains, cascades and the segment agree."""
    stripes = tuple(
        StripeRow(str(n), op, total, (MemoryTraffic("DRAM", op, total, 1),))
        for n, (_, _, op, total) in enumerate(rows)
    )
    links = DebugLinks(
        stripe_chain={str(n): str(chain) for n, (chain, _, _, _) in enumerate(rows)},
        stripe_cascade={str(n): str(cascade) for n, (_, cascade, _, _) in enumerate(rows)},
        chain_fused={},
        fused_tosa={},
        nx_operations={},
    )
    view = build_segments_view([SegmentInput(0, "s", stripes, links)])
    sums: dict[str, dict[str, float]] = {"chain": {}, "cascade": {}}
    for item in view.breakdowns:
        kind = item["entity_id"].split("/")[0]
        for metric in item["metrics"]:
            sums[kind][metric["name"]] = sums[kind].get(metric["name"], 0) + metric["value"]
    expected = {
        "total_cycles": sum(r[3] for r in rows),
        "op_cycles": sum(r[2] for r in rows),
        "dram_read_bytes": sum(r[2] for r in rows),
        "dram_write_bytes": sum(r[3] for r in rows),
        "dram_traffic_cycles": len(rows),
    }
    assert sums["chain"] == expected
    assert sums["cascade"] == expected
    (totals,) = view.segment_totals
    assert (totals.op_cycles, totals.total_cycles) == (
        expected["op_cycles"],
        expected["total_cycles"],
    )
    chains = [e for e in view.entities if e["kind"] == "chain"]
    assert sorted(len(e["attributes"]["stripe_ids"]) for e in chains) == sorted(
        sum(1 for r in rows if r[0] == chain) for chain in {r[0] for r in rows}
    )
