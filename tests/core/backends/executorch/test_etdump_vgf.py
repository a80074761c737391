"""VGF neural statistics inside an ETDump, decoded with the capture decoders."""

from __future__ import annotations

import json
from typing import Any

import pytest

from perfline.core.backends.executorch.document import analyze_etdump
from perfline.core.backends.source_model.inputs import InputFile
from perfline.core.errors import InputError
from perfline.core.pipeline import postprocess
from tests.core.backends.executorch.vgf_etdumps import PTE, RECORD, dump, operation_ids, payload


def _analyze(payload: bytes, *, companion: bool = True) -> dict[str, Any]:
    return analyze_etdump(
        InputFile(str(RECORD), RECORD.read_bytes()),
        InputFile("run.etdump", dump(payload)),
        timestamp="2026-01-01T00:00:00Z",
        companion_model=InputFile(str(PTE), PTE.read_bytes()) if companion else None,
    )


def _values(result: dict[str, Any], entity_id: str) -> dict[str, Any]:
    (found,) = [b for b in result["breakdowns"] if b["entity_id"] == entity_id]
    return {m["name"]: m["value"] for m in found["metrics"]}


def test_schema2_payload_becomes_nx_entities_with_cycles() -> None:
    document = _analyze(payload(2))
    result = document["results"][0]
    metrics = {m["name"]: m for m in result["metrics"]}
    # stripe 0: max(100, 80) = 100 nx_active; stripe 1: 40.
    assert metrics["total_cycles"]["value"] == 140
    assert metrics["compute_cycles"]["value"] == 140
    assert _values(result, "chain/segment_0/30")["nx_active_cycles"] == 100
    assert _values(result, "chain/segment_0/30")["ce_active_cycles"] == 75  # core 1's sum
    assert _values(result, "cascade/segment_0/40")["op_cycles"] == 140
    assert _values(result, "stripe/segment_0/1")["op_cycles"] == 40
    entities = {e["id"]: e for e in result["entities"]}
    assert entities["stripe/segment_0/0"]["attributes"]["chain_id"] == "chain/segment_0/30"
    first = operation_ids()[0]
    assert entities[f"source_operator/segment_0/spirv-{first}"]["parent_ids"] == [
        "chain/segment_0/30"
    ]
    assert entities["segment/0"]["name"] == "graph_segment_0"
    delegate = _values(result, "backend_operator/forward/delegate_1")
    assert delegate["execution_count"] == 3
    settings = document["backends"][0]["configuration"]["vgf_neural_statistics"]
    assert settings["mode"] == 1 and settings["profiling_device"] == "Mali-G2"
    assert settings["counter_layout"] == "arm.mali-g2.neural-statistics.mode1"
    assert settings["fallback_assumptions"] == []
    assert settings["payload_events"] == 3
    assert settings["leading_block_count_applied"] is False
    assert any("first" in warning for warning in result["warnings"])
    processed = postprocess(document)
    assert processed["results"][0]["mode"] == "measured"


def test_schema1_payload_records_the_fallback_assumptions() -> None:
    document = _analyze(payload(1))
    settings = document["backends"][0]["configuration"]["vgf_neural_statistics"]
    assert settings["schema_version"] == 1
    assert settings["mode"] == 1 and settings["profiling_device"] == "Mali-G2"
    assert len(settings["fallback_assumptions"]) == 2
    assert "assumed mode 1" in settings["fallback_assumptions"][0]
    metrics = {m["name"]: m for m in document["results"][0]["metrics"]}
    assert metrics["total_cycles"]["value"] == 140


def test_without_companion_operators_keep_only_their_tosa_types() -> None:
    """Placeholder labels still give SPIR-V ids, but no debug names or structural operators."""
    first = operation_ids()[0]
    plain = _analyze(payload(2), companion=False)["results"][0]
    named = _analyze(payload(2))["results"][0]
    plain_ops = {e["id"]: e for e in plain["entities"] if e["kind"] == "source_operator"}
    named_ops = {e["id"]: e for e in named["entities"] if e["kind"] == "source_operator"}
    key = f"source_operator/segment_0/spirv-{first}"
    assert plain_ops[key]["name"] == "DepthwiseConv2D"
    assert named_ops[key]["name"] != "DepthwiseConv2D"
    segment_ops = [k for k in plain_ops if k.startswith("source_operator/segment_")]
    assert len(segment_ops) == 2
    assert len([k for k in named_ops if k.startswith("source_operator/segment_")]) > 2
    assert _values(plain, "chain/segment_0/30")["op_cycles"] == 100


def test_unavailable_statistics_are_a_warning() -> None:
    document = _analyze(payload(2, available=False))
    result = document["results"][0]
    assert any("VK_ARM_data_graph not supported" in w for w in result["warnings"])
    assert not [e for e in result["entities"] if e["kind"] == "chain"]
    metrics = {m["name"]: m for m in result["metrics"]}
    assert metrics["total_cycles"]["availability"] == "unavailable"


def test_bad_payload_names_the_event() -> None:
    with pytest.raises(InputError) as caught:
        _analyze(b'{"schema": "something else"}')
    assert str(caught.value).startswith(
        "run.etdump: run_data[0].events[1].delegate_debug_metadata $.schema"
    )
    broken = json.loads(payload(2))
    broken["segments"][0]["statistics_memory"]["size"] = 12
    with pytest.raises(InputError, match=r"statistics_memory\.size: declares 12 bytes"):
        _analyze(json.dumps(broken).encode())
