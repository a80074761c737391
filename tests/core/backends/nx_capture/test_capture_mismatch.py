"""Captures whose dispatches name no operation of the VGF: exit 2 with counts, or a warning.

The captures are written with the project's DS-CNN VGF SPIR-V (so pipelines match their graph
segment byte for byte) and a debug database whose chains carry TFLite labels of another model
(``model/re_lu/Relu``, as Arm's DS-CNN-L estimator databases do), for all or part of the chains.
"""

from __future__ import annotations

import json
from pathlib import Path

from perfline.core.formats.vgf import read_segments
from tests.support.capture_writer import (
    DispatchSpec,
    PipelineSpec,
    Task,
    statistics_bytes,
    write_capture,
)
from tests.support.cli_process import analyze
from tests.support.measured_data import DATA

#: Stripe 0 -> chain 30 -> TOSA 10, stripe 1 -> chain 31 -> TOSA 11 (labels filled in).
VGF = DATA / "vgf" / "dscnn_int_dbg.vgf"
DATABASE = "\n".join(
    [
        "id\ttosa_op\tapi_labels",
        "10\tReshape\t{first};",
        "11\tConv2D\t{second};",
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
        "40\t30;",
        "41\t31;",
        "----",
        "id\top_id\tcascade_op_id",
        "0\t30\t40",
        "1\t31\t41",
        "----",
        "id\tstripe_op_id",
        "0\t0",
        "1\t1",
    ]
)
#: Mode-0 counters of the two stripes (statistics block = stripe): their total cycles.
STRIPE_CYCLES = (70, 25)


def _capture(root: Path, first: str, second: str) -> Path:
    spirv = read_segments(VGF.read_bytes(), str(VGF))[0].spirv_bytes
    stats = statistics_bytes(
        0,
        "Mali-G1",
        2,
        [Task(0, 0, {3: STRIPE_CYCLES[0]}), Task(1, 0, {3: STRIPE_CYCLES[1]})],
    )
    database = DATABASE.format(first=first, second=second).encode()
    return write_capture(
        root,
        [
            PipelineSpec(
                spirv=spirv, info=b"0 1", debug_database=database, dispatches=[DispatchSpec(stats)]
            )
        ],
        mode=0,
        device_name="Mali-G1",
    )


def test_capture_of_another_model_exits_2(tmp_path: Path) -> None:
    root = _capture(tmp_path / "capture", "model/re_lu/Relu", "model/re_lu_1/Relu")
    completed = analyze(tmp_path, str(VGF), "--profiling-data", str(root))
    assert completed.returncode == 2, completed.stderr
    debug = root.resolve() / "pipeline_000000" / "debug_database.bin"
    assert completed.stderr.strip().splitlines() == [
        f"error: {debug}: 0 of 2 captured chains matched an operation of {VGF} (e.g. "
        "chain/segment_0/30: its labels ('model/re_lu/Relu') name no operation of it; "
        "chain/segment_0/31: its labels ('model/re_lu_1/Relu') name no operation of it); the "
        "databases are of another model (or of another conversion of it)"
    ]
    assert not (tmp_path / "mlia-output").exists()


def test_capture_alone_is_judged_against_its_shader_module(tmp_path: Path) -> None:
    root = _capture(tmp_path / "capture", "model/re_lu/Relu", "model/re_lu_1/Relu")
    completed = analyze(tmp_path, "--profiling-data", str(root))
    assert completed.returncode == 2, completed.stderr
    module = root.resolve() / "pipeline_000000" / "shader_module_7.spv"
    (line,) = completed.stderr.strip().splitlines()
    assert (
        f"0 of 2 captured chains matched an operation of the capture's shader module {module} "
        "(e.g. " in line
    )


def test_capture_matching_in_part_warns_with_counts_and_cycles(tmp_path: Path) -> None:
    # Stripe 0's operation is the VGF's first RESHAPE (result id 141); stripe 1's is foreign.
    root = _capture(tmp_path / "capture", "TOSARESHAPE_spirv_id_141", "model/re_lu/Relu")
    completed = analyze(tmp_path, str(VGF), "--profiling-data", str(root), "--json")
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)["results"][0]
    left, total = STRIPE_CYCLES[1], sum(STRIPE_CYCLES)
    assert (
        f"1 of 2 captured chains matched an operation of {VGF}; 1 of them ({left} of {total} "
        f"cycles (total_cycles), {left / total * 100:.3g}%) is left unattributed: "
        f"chain/segment_0/31 ({left} cycles): its labels ('model/re_lu/Relu') name no operation "
        "of it." in result["warnings"]
    )
    entities = {entity["id"]: entity for entity in result["entities"]}
    assert entities["source_operator/segment_0/spirv-141"]["parent_ids"] == ["chain/segment_0/30"]
