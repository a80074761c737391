"""ETDumps of the project's DS-CNN VGF program carrying a VGF neural-statistics event (schema
version 1 or 2, available or not), written with the capture writer's counters: the ETDump
tests of the VGF delegate. Each dump is a few kilobytes."""

from __future__ import annotations

import base64
import json
from typing import Any

from perfline.core.formats.vgf import read_segments
from tests.support.capture_writer import mode1, statistics_bytes
from tests.support.etdump_writer import Event, write_etdump
from tests.support.measured_data import DATA

RECORD = DATA / "vgf" / "dscnn_vgf.etrecord"
PTE = DATA / "vgf" / "dscnn_vgf.pte"


def operation_ids() -> tuple[int, ...]:
    """The operation ids of the program's VGF segment."""
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


def payload(schema_version: int, *, available: bool = True) -> bytes:
    """The VGF_NEURAL_STATISTICS event's JSON, naming the program's first two operations."""
    first, second = operation_ids()[:2]
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


def dump(event: bytes, runs: int = 3) -> bytes:
    """An ETDump of ``runs`` executions, each with ``event`` as the delegate's event."""
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
                        metadata=event,
                    ),
                    Event("DELEGATE_CALL", base + 1000, base + 50000 + 100 * run, instruction_id=1),
                    Event("OPERATOR_CALL", base + 50000, base + 51000, instruction_id=2),
                    Event("Method::execute", base, base + 52000, chain_index=-1, instruction_id=0),
                ],
            )
        )
    return write_etdump(blocks)
