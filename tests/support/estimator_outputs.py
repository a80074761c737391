"""The NX estimator's three output files for the real DS-CNN VGF (``dscnn_int_dbg.vgf``),
written in the documented format: one chain per convolution (with its rescale) or other
operation, two stripes per chain, labels = the VGF's own debug names (one as a
``TOSA<OP>_spirv_id_<N>`` placeholder), one operation also on the Execution Engine, the
final reshape left out as the estimator may do; and a stand-in estimator executable that
copies them. Writes only under the folder it is given."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path
from typing import Any

from perfline.core.formats.vgf import SegmentGraph, read_segments
from tests.support.nx_estimator_data import (
    DSCNN_VGF,
    PERFORMANCE_HEADER,
    container,
    performance_row,
)

NAME = "dscnn_int_dbg"
TYPES = {"DEPTHWISE_CONV2D": "DepthwiseConv2D", "CONV2D": "Conv2D", "RESCALE": "Rescale"}
SKIPPED = 185  # the last RESHAPE: not scheduled by the (stand-in) estimator
PLACEHOLDER = 141  # first RESHAPE: labelled TOSARESHAPE_spirv_id_141
ON_EE = 177  # AVG_POOL2D: also reported as a shader operation


def dscnn_segment() -> SegmentGraph:
    (segment,) = read_segments(DSCNN_VGF.read_bytes(), str(DSCNN_VGF))
    return segment


def chains_of(segment: SegmentGraph) -> list[list[int]]:
    chains: list[list[int]] = []
    for operation in segment.operations():
        if operation.result_id == SKIPPED:
            continue
        if operation.op_name == "RESCALE" and chains and len(chains[-1]) == 1:
            chains[-1].append(operation.result_id)
        else:
            chains.append([operation.result_id])
    return chains


def write_outputs(folder: Path) -> dict[str, Any]:
    """Write the three estimator files; return what the test expects from them."""
    segment = dscnn_segment()
    names = segment.debug_names
    op_names = {op.result_id: op.op_name for op in segment.operations()}
    chains = chains_of(segment)
    tosa_rows, fused_rows, chain_rows, cascade_rows, stripe_rows, perf_rows = [], [], [], [], [], []
    shader_rows: list[str] = []
    expected_op_cycles: dict[str, int] = {}
    stripe = 0
    for k, members in enumerate(chains):
        fused_ids = []
        for rid in members:
            label = f"TOSA{op_names[rid]}_spirv_id_{rid}" if rid == PLACEHOLDER else names[rid]
            op_type = TYPES.get(op_names[rid], op_names[rid].title())
            tosa_rows.append(f"{1000 + rid}, {op_type}, {label};")
            fused_rows.append(f"{2000 + rid}, {1000 + rid};")
            fused_ids.append(f"{2000 + rid}")
            if rid == ON_EE:
                shader_rows.append(f"{5000 + rid}, {label};")
        chain_rows.append(f"{3000 + k}, {';'.join(fused_ids)};")
        cascade_rows.append(f"{4000 + k}, {3000 + k};")
        total = 0
        for _ in range(2):
            op_cycles = 10 * (k + 1) + stripe
            perf_rows.append(performance_row(stripe, op_cycles, op_cycles + 7, (64, 8, 3)))
            stripe_rows.append(f"{stripe}, {3000 + k}, {4000 + k}")
            total += op_cycles
            stripe += 1
        expected_op_cycles[f"chain/segment_0/{3000 + k}"] = total
    (folder / f"{NAME}_performance_database.dat").write_text(
        container("performance_database", [("performance", [PERFORMANCE_HEADER, *perf_rows])])
    )
    (folder / f"{NAME}_debug_database.dat").write_text(
        container(
            "debug_database",
            [
                ("tosa_op_id", ['"id", "tosa_op", "api_labels"', *tosa_rows]),
                ("shader_op_id", ['"id", "api_labels"', *shader_rows]),
                ("fused_op_id", ['"id", "tosa_op_ids"', *fused_rows]),
                ("chain_op_id", ['"id", "fused_op_ids"', *chain_rows]),
                ("cascade_op_id", ['"id", "op_ids"', *cascade_rows]),
                ("stripe_op_id", ['"id", "op_id", "cascade_op_id"', *stripe_rows]),
            ],
        )
    )
    summary = {
        "compiled_size": {"unit": "bytes", "value": 40000},
        "network_performance": {
            "compute_cycles": {"unit": "cc", "value": 15000},
            "dram_footprint": {"unit": "bytes", "value": 9000},
            "inference_time": {"unit": "ms", "value": 0.02},
            "infs_per_sec": {"unit": "inf/s", "value": 49999.5},
            "total_cycles": {"unit": "cc", "value": 20000},
            "cache1": {"cycles": {"unit": "cc", "value": 5}},
        },
    }
    (folder / f"{NAME}_network_performance_summary.json").write_text(json.dumps(summary))
    return {"op_cycles": expected_op_cycles, "chains": chains}


def executable_script(path: Path, body: str) -> Path:
    """``body`` as an executable Python script run by this interpreter."""
    path.write_text(f"#!{sys.executable}\nimport sys, os, shutil, json\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def stand_in_estimator(tmp_path: Path, *, fail: bool = False, skip_summary: bool = False) -> Path:
    """An executable named like the estimator that copies the outputs ``write_outputs``
    wrote (or fails with 30 lines of diagnostics, or leaves out the summary)."""
    prepared = tmp_path / "prepared"
    prepared.mkdir()
    write_outputs(prepared)
    body = f"""
args = sys.argv[1:]
name = args[args.index("-o") + 1]
json.dump({{"args": args, "cwd": os.getcwd()}}, open(name + ".call.json", "w"))
if {fail!r}:
    for n in range(30):
        print(f"diagnostic line {{n}}")
    sys.exit(3)
for kind in ("performance_database.dat", "debug_database.dat", "network_performance_summary.json"):
    if {skip_summary!r} and kind.endswith(".json"):
        continue
    shutil.copy(os.path.join({str(prepared)!r}, "dscnn_int_dbg_" + kind), name + "_" + kind)
"""
    return executable_script(tmp_path / "graph-compiler-performance-estimator", body)
