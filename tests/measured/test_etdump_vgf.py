"""VGF neural statistics inside an ETDump, decoded with the capture decoders."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from perfline.core.backends.executorch.document import analyze_etdump
from perfline.core.backends.source_model.inputs import InputFile
from perfline.core.errors import InputError
from perfline.core.formats.vgf import read_segments
from perfline.core.pipeline import postprocess
from tests.support.capture_writer import mode1, statistics_bytes
from tests.support.etdump_writer import Event, write_etdump
from tests.support.measured_data import DATA

RECORD = DATA / "vgf" / "dscnn_vgf.etrecord"
PTE = DATA / "vgf" / "dscnn_vgf.pte"


def _operation_ids() -> tuple[int, ...]:
    data = PTE.read_bytes()
    start = data.find(b"VGF1")
    return read_segments(data[start:], str(PTE))[0].operation_ids


def _database(first: int, second: int) -> bytes:
    return "\n".join(
        [
            "id\ttosa_op\tapi_labels",
            f"10\tDepthwiseConv2D\tTOSADEPTHWISECONV2D_spirv_id_{first};",
            f"11\tRescale\tTOSARESCALE_spirv_id_{second};",
            "----",
            "id\tapi_label",
            "----",
            "id\ttosa_op_ids",
            "20\t10;",
            "21\t11;",
            "----",
            "id\tfused_op_ids",
            "30\t20;",
            "31\t21;",
            "----",
            "id\tcascade_op_ids",
            "40\t30;31;",
            "----",
            "id\top_id\tcascade_op_id",
            "0\t30\t40",
            "1\t31\t40",
            "----",
            "id\tstripe_op_id",
            "0\t0",
            "1\t1",
        ]
    ).encode()


def _blob(data: bytes, *, is_text: bool = False) -> dict[str, Any]:
    return {
        "available": True,
        "is_text": is_text,
        "vulkan_result": 0,
        "size": len(data),
        "encoding": "base64",
        "reason": "",
        "data": base64.b64encode(data).decode("ascii"),
    }


def _payload(schema_version: int, *, available: bool = True) -> bytes:
    first, second = _operation_ids()[:2]
    statistics = statistics_bytes(
        1,
        "Mali-G2",
        2,
        [
            mode1(0, 0, core=0, nx_active=100, ce_active=60),
            mode1(0, 1, core=1, nx_active=80, ce_active=75),
            mode1(1, 0, core=0, nx_active=40, ce_active=10),
        ],
    )
    wrapper: dict[str, Any] = {
        "schema": "executorch.vgf.neural_statistics",
        "schema_version": schema_version,
        "backend": "VgfBackend",
        "api": "VK_ARM_data_graph",
        "event_name": "VGF_NEURAL_STATISTICS",
        "api_available": available,
        "data_available": available,
        "available": available,
        "reason": "" if available else "VK_ARM_data_graph not supported by the driver",
        "segments": [
            {
                "segment_id": 0,
                "is_data_graph_pipeline": True,
                "statistics_bind_point_available": True,
                "statistics_memory_host_visible": True,
                "statistics_memory_host_coherent": True,
                "statistics_bind_point_reason": "",
                "debug_database": _blob(_database(first, second)),
                "statistics_info": _blob(b"0 1", is_text=True),
                "statistics_memory": _blob(statistics),
            }
        ],
    }
    if schema_version == 2:
        wrapper["statistics_mode"] = {"executorch_index": 1, "vulkan_value": 2, "vulkan_name": "x"}
        wrapper["target"] = {
            "available": True,
            "device_name": "Mali-G2-Pro-NX MC1",
            "vendor_id": 0x13B5,
            "device_id": 1,
            "driver_version": "1",
        }
        wrapper["counter_layout"] = {
            "available": True,
            "schema_id": "arm.mali-g2.neural-statistics.mode1",
            "schema_version": 1,
            "endianness": "little",
            "word_type": "uint32",
            "words_per_task": 64,
            "leading_block_count": 0,
            "reason": "",
        }
    return json.dumps(wrapper).encode()


def _dump(payload: bytes, runs: int = 3) -> bytes:
    blocks = []
    for run in range(runs):
        base = run * 1_000_000
        blocks.append(
            (
                "Execute",
                [
                    Event("OPERATOR_CALL", base + 0, base + 1000, instruction_id=0),
                    Event(
                        None,
                        base + 2000,
                        base + 2000,
                        instruction_id=1,
                        delegate_id_str="VGF_NEURAL_STATISTICS",
                        metadata=payload,
                    ),
                    Event("DELEGATE_CALL", base + 1000, base + 50000 + 100 * run, instruction_id=1),
                    Event("OPERATOR_CALL", base + 50000, base + 51000, instruction_id=2),
                    Event("Method::execute", base, base + 52000, chain_index=-1, instruction_id=0),
                ],
            )
        )
    return write_etdump(blocks)


def _analyze(payload: bytes, *, companion: bool = True) -> dict[str, Any]:
    return analyze_etdump(
        InputFile(str(RECORD), RECORD.read_bytes()),
        InputFile("run.etdump", _dump(payload)),
        timestamp="2026-01-01T00:00:00Z",
        companion_model=InputFile(str(PTE), PTE.read_bytes()) if companion else None,
    )


def _values(result: dict[str, Any], entity_id: str) -> dict[str, Any]:
    (found,) = [b for b in result["breakdowns"] if b["entity_id"] == entity_id]
    return {m["name"]: m["value"] for m in found["metrics"]}


def test_schema2_payload_becomes_nx_entities_with_cycles() -> None:
    document = _analyze(_payload(2))
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
    first = _operation_ids()[0]
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
    document = _analyze(_payload(1))
    settings = document["backends"][0]["configuration"]["vgf_neural_statistics"]
    assert settings["schema_version"] == 1
    assert settings["mode"] == 1 and settings["profiling_device"] == "Mali-G2"
    assert len(settings["fallback_assumptions"]) == 2
    assert "assumed mode 1" in settings["fallback_assumptions"][0]
    metrics = {m["name"]: m for m in document["results"][0]["metrics"]}
    assert metrics["total_cycles"]["value"] == 140


def test_without_companion_operators_keep_only_their_tosa_types() -> None:
    """Placeholder labels still give SPIR-V ids, but no debug names or structural operators."""
    first = _operation_ids()[0]
    plain = _analyze(_payload(2), companion=False)["results"][0]
    named = _analyze(_payload(2))["results"][0]
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
    document = _analyze(_payload(2, available=False))
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
    broken = json.loads(_payload(2))
    broken["segments"][0]["statistics_memory"]["size"] = 12
    with pytest.raises(InputError, match=r"statistics_memory\.size: declares 12 bytes"):
        _analyze(json.dumps(broken).encode())
