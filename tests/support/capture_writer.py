"""Writes structured neural-statistics captures from declared counter values (tests only).

``statistics_bytes`` lays declared counters into tasks and blocks the way the
Vulkan layer does; ``write_capture`` writes a whole schema-2 capture tree
(``capture.json``, ``pipeline_N/pipeline.json`` with its artifacts,
``session_N/session.json``, ``dispatch_N/dispatch.json`` + statistics file).
"""

from __future__ import annotations

import json
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WORDS_PER_TASK = {(0, "Mali-G1"): 16, (0, "Mali-G2"): 16, (1, "Mali-G1"): 32, (1, "Mali-G2"): 64}
TASKS_PER_BLOCK = {
    (0, "Mali-G1"): 512,
    (0, "Mali-G2"): 1024,
    (1, "Mali-G1"): 256,
    (1, "Mali-G2"): 256,
}
MODE1_WORD = {
    "nx_active": 1,
    "dl_active": 2,
    "ir_active": 3,
    "ce_active": 5,
    "ve_active": 6,
    "rd_ll_stall": 10,
    "ow_idx_stall": 29,
    "me_src0_stall": 31,
    "me_src1_stall": 32,
}


@dataclass(frozen=True)
class Task:
    """One task: its block, its position in the block, the core (mode 1) and counter words."""

    block: int
    slot: int
    words: Mapping[int, int]
    core: int = 0


def statistics_bytes(mode: int, generation: str, blocks: int, tasks: Sequence[Task]) -> bytes:
    words_per_task = WORDS_PER_TASK[(mode, generation)]
    per_block = TASKS_PER_BLOCK[(mode, generation)]
    data = [0] * (blocks * per_block * words_per_task)
    for task in tasks:
        base = (task.block * per_block + task.slot) * words_per_task
        if mode == 1:
            data[base] = task.core
        for word, value in task.words.items():
            data[base + word] = value
    return struct.pack(f"<{len(data)}I", *data)


def mode1(block: int, slot: int, core: int, **counters: int) -> Task:
    return Task(block, slot, {MODE1_WORD[name]: value for name, value in counters.items()}, core)


DEBUG_DATABASE = "\n".join(
    [
        "id\ttosa_op\tapi_labels",
        "10\tConv2D\tTOSACONV2D_spirv_id_141;",
        "11\tClamp\tTOSACLAMP_spirv_id_147;",
        "----",
        "id\tapi_label",
        "100\tTOSACONV2D_spirv_id_141",
        "----",
        "id\ttosa_op_ids",
        "20\t10;11;",
        "----",
        "id\tfused_op_ids",
        "30\t20;",
        "----",
        "id\tcascade_op_ids",
        "40\t30;",
        "----",
        "id\top_id\tcascade_op_id",
        "0\t30\t40",
        "1\t30\t40",
        "----",
        "id\tstripe_op_id",
        "0\t0",
        "1\t1",
    ]
)


@dataclass
class DispatchSpec:
    statistics: bytes
    executed_index: int = 0


@dataclass
class PipelineSpec:
    spirv: bytes
    info: bytes
    info_text: bool = True
    debug_database: bytes = DEBUG_DATABASE.encode()
    dispatches: list[DispatchSpec] = field(default_factory=list)
    module_id: int = 7
    friendly_name: str = "graph_partition_0"


def _write_json(path: Path, document: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2))


def _artifact(folder: Path, name: str, kind: str, data: bytes) -> dict[str, Any]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)
    return {"path": name, "type": kind, "size": len(data)}


def write_capture(
    root: Path,
    pipelines: Sequence[PipelineSpec],
    *,
    mode: int = 1,
    device_name: str = "Mali-G2-Pro-NX MC1",
    vendor_id: int = 0x13B5,
    warnings: Sequence[str] = (),
) -> Path:
    """Write the capture; returns the root."""
    references = []
    dispatch_id = 0
    for pipeline_id, spec in enumerate(pipelines):
        folder = root / f"pipeline_{pipeline_id:06d}"
        info_name = "neural_statistics_info.txt" if spec.info_text else "neural_statistics_info.bin"
        artifacts = [
            _artifact(folder, "debug_database.bin", "debug_database", spec.debug_database),
            _artifact(folder, info_name, "statistics_info", spec.info),
            _artifact(folder, f"shader_module_{spec.module_id}.spv", "shader_module", spec.spirv),
        ]
        session_folder = folder / f"session_{pipeline_id:06d}"
        dispatch_refs = []
        for dispatch in spec.dispatches:
            dispatch_folder = session_folder / f"dispatch_{dispatch_id:06d}"
            statistics = _artifact(
                dispatch_folder,
                f"statistics_mode{mode}.bin",
                "dispatch_statistics",
                dispatch.statistics,
            )
            _write_json(
                dispatch_folder / "dispatch.json",
                {
                    "schema_version": 2,
                    "id": dispatch_id,
                    "session_id": pipeline_id,
                    "executed_index": dispatch.executed_index,
                    "diagnostic_command_buffer_handle": "0x1",
                    "artifacts": [statistics],
                },
            )
            dispatch_refs.append(
                {"id": dispatch_id, "path": f"dispatch_{dispatch_id:06d}/dispatch.json"}
            )
            dispatch_id += 1
        _write_json(
            session_folder / "session.json",
            {
                "schema_version": 2,
                "id": pipeline_id,
                "pipeline_id": pipeline_id,
                "device_id": 0,
                "friendly_name": "session",
                "diagnostic_handle": "0x2",
                "flags": 0,
                "dispatches": dispatch_refs,
            },
        )
        _write_json(
            folder / "pipeline.json",
            {
                "schema_version": 2,
                "id": pipeline_id,
                "friendly_name": spec.friendly_name,
                "diagnostic_handle": "0x3",
                "flags": 0,
                "pipeline_layout_handle": "0x4",
                "resource_bindings": [{"descriptor_set": 0, "binding": 0, "array_element": 0}],
                "vendor_options": [],
                "identifier_only": False,
                "foreign_processing_engine": False,
                "device_id": 0,
                "statistics_enabled": True,
                "shader": {
                    "module_id": spec.module_id,
                    "spirv_available": True,
                    "friendly_name": "main",
                    "entry_point": "main",
                    "specialization_entries": [],
                    "specialization_data_size": 0,
                },
                "artifacts": artifacts,
                "sessions": [
                    {"id": pipeline_id, "path": f"session_{pipeline_id:06d}/session.json"}
                ],
            },
        )
        references.append({"id": pipeline_id, "path": f"pipeline_{pipeline_id:06d}/pipeline.json"})
    _write_json(
        root / "capture.json",
        {
            "schema_version": 2,
            "status": "complete",
            "error": None,
            "capture": {
                "layer_name": "VK_LAYER_LGL_neural_statistics",
                "layer_version": "1.0.0",
                "commit_identity": "abc",
                "layer_implementation_version": 1,
                "statistics_mode": mode,
                "dispatch_filter": None,
            },
            "devices": [
                {
                    "id": 0,
                    "name": device_name,
                    "vendor_id": vendor_id,
                    "device_id": 1,
                    "driver_version": "1",
                    "api_version": "1.3",
                }
            ],
            "warnings": list(warnings),
            "pipelines": references,
        },
    )
    return root
