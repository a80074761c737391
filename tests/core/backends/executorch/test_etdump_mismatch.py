"""ETDumps of another program than the ETRecord: exit 2 with counts, or a warning.

Mismatched pairs from the real DS-CNN artifacts: the portable ETRecord (30 operator
instructions, no delegate) with the XNNPACK ETDump (one DELEGATE_CALL at instruction 0 and 14
delegate-internal events), the VGF ETRecord (instruction 1 is the VgfBackend call) with the
XNNPACK ETDump, and the XNNPACK ETRecord (one instruction) with the portable ETDump. Partial
matches are written from the real events (``etdump_writer``): the portable executions with the
XNNPACK delegate events added, and with one kernel name changed. And VGF neural statistics
whose chains name no operation of the companion VGF.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from perfline.core.backends.executorch.document import analyze_etdump
from perfline.core.backends.executorch.etdump import ProfileEvent, read_etdump
from perfline.core.backends.source_model.inputs import InputFile
from perfline.core.errors import InputError
from tests.core.backends.executorch.vgf_etdumps import PTE, RECORD, dump, payload
from tests.support.cli_process import analyze
from tests.support.etdump_writer import Event, write_etdump
from tests.support.measured_data import DATA, pair

PORTABLE_RECORD, PORTABLE_DUMP = pair("portable")
XNNPACK_RECORD, XNNPACK_DUMP = pair("xnnpack")
VGF_RECORD = DATA / "vgf" / "dscnn_vgf.etrecord"


def test_portable_etrecord_with_the_xnnpack_etdump_exits_2(tmp_path: Path) -> None:
    completed = analyze(tmp_path, str(PORTABLE_RECORD), str(XNNPACK_DUMP))
    assert completed.returncode == 2, completed.stderr
    # 15 events: DELEGATE_CALL + 14 XNNPACK-internal ones, all at instruction 0, which the
    # portable program runs as its first convolution.
    assert completed.stderr.strip().splitlines() == [
        f"error: {XNNPACK_DUMP}: 0 of 15 ETDump events matched an instruction of method "
        f"'forward' in {PORTABLE_RECORD} (e.g. DELEGATE_CALL at instruction 0: a delegate call, "
        "but the ETRecord's instruction 0 is an operator (convolution); Transpose (ND, X32) #1 "
        "at instruction 0: a delegate-internal event, but the ETRecord's instruction 0 is an "
        "operator (convolution); Convolution (NHWC, F32) IGEMM #1 at instruction 0: a "
        "delegate-internal event, but the ETRecord's instruction 0 is an operator "
        "(convolution); ... (12 more)); the ETDump holds executions of another program"
    ]
    assert not (tmp_path / "mlia-output").exists()


def test_vgf_etrecord_with_the_xnnpack_etdump_exits_2(tmp_path: Path) -> None:
    completed = analyze(tmp_path, str(VGF_RECORD), str(XNNPACK_DUMP))
    assert completed.returncode == 2, completed.stderr
    (line,) = completed.stderr.strip().splitlines()
    assert line.startswith(
        f"error: {XNNPACK_DUMP}: 0 of 15 ETDump events matched an instruction of method "
        f"'forward' in {VGF_RECORD} (e.g. DELEGATE_CALL at instruction 0: a delegate call, but "
        "the ETRecord's instruction 0 is an operator (dequantize_per_tensor/quantize_per_tensor); "
    )
    assert line.endswith("... (12 more)); the ETDump holds executions of another program")


def test_xnnpack_etrecord_with_the_portable_etdump_exits_2(tmp_path: Path) -> None:
    completed = analyze(tmp_path, str(XNNPACK_RECORD), str(PORTABLE_DUMP))
    assert completed.returncode == 2, completed.stderr
    # The portable dump's operators run at instructions 0..29; the XNNPACK program has only 0.
    assert completed.stderr.strip().splitlines() == [
        f"error: {PORTABLE_DUMP}: run_data[1].events[3]: OPERATOR_CALL at instruction 1: not an "
        f"instruction of method 'forward' in {XNNPACK_RECORD} (its instructions: 0..0); the "
        "ETDump holds executions of another program (29 of 30 ETDump events like it)"
    ]


def _as_written(event: ProfileEvent, name: str | None = None) -> Event:
    return Event(
        event.name if name is None else name,
        event.start_time,
        event.end_time,
        instruction_id=event.instruction_id,
        chain_index=event.chain_index,
        delegate_id_int=event.delegate_debug_id_int,
        delegate_id_str=event.delegate_debug_id_str,
    )


def _rewritten(
    tmp_path: Path, runs: Sequence[tuple[str, Sequence[Event]]], name: str = "mixed.etdump"
) -> Path:
    target = tmp_path / name
    target.write_bytes(write_etdump(runs))
    return target


def _portable_runs(rename: Callable[[ProfileEvent], str | None]) -> list[tuple[str, list[Event]]]:
    dump = read_etdump(PORTABLE_DUMP.read_bytes(), str(PORTABLE_DUMP))
    return [
        (run.name or "", [_as_written(event, rename(event)) for event in run.profile_events])
        for run in dump.runs
    ]


def test_portable_executions_with_foreign_delegate_events_warn(tmp_path: Path) -> None:
    portable = _portable_runs(lambda event: None)
    xnnpack = read_etdump(XNNPACK_DUMP.read_bytes(), str(XNNPACK_DUMP))
    executions = 0
    delegate_ns = 0
    for position, run in enumerate(xnnpack.runs):
        if position == 0:
            continue  # the load run
        events = [e for e in run.profile_events if e.name != "Method::execute"]
        portable[position][1].extend(_as_written(event) for event in events)
        executions += 1
        delegate_ns += sum(e.end_time - e.start_time for e in events if e.name == "DELEGATE_CALL")
    mixed = _rewritten(tmp_path, portable)
    completed = analyze(tmp_path, str(PORTABLE_RECORD), str(mixed), "--json")
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)["results"][0]
    (warning,) = [w for w in result["warnings"] if "ETDump events matched" in w]
    per_execution = delegate_ns / executions / 1e6
    assert warning.startswith(
        f"30 of 45 ETDump events matched an instruction of method 'forward' in {PORTABLE_RECORD}; "
        f"15 of them ({per_execution:.4g} of "
    )
    assert "ms per execution on average, " in warning
    # The delegate call carries the time; its internal events are inside it (no time added).
    assert (
        f"are left unattributed: DELEGATE_CALL at instruction 0 ({per_execution:.4g} ms): a "
        "delegate call, but the ETRecord's instruction 0 is an operator (convolution); "
        "Transpose (ND, X32) #1 at instruction 0 (0 ms): a delegate-internal event, but the "
        "ETRecord's instruction 0 is an operator (convolution); "
    ) in warning
    assert warning.endswith("; ... (10 more omitted).")
    unmatched = [
        e
        for e in result["entities"]
        if "/unmatched_0/" in e["id"] and e["kind"] == "backend_operator"
    ]
    assert len(unmatched) == 15
    assert all(
        "child_ids" not in e and e["attributes"]["confidence"] == "unmapped" for e in unmatched
    )
    # The portable operators keep their attribution: instruction 0 is still conv2d's.
    entities = {e["id"]: e for e in result["entities"]}
    assert entities["source_operator/conv2d"]["attributes"]["instruction_id"] == 0


def test_a_kernel_the_etrecord_does_not_run_there_is_left_unattributed(tmp_path: Path) -> None:
    # Instruction 0 is the first convolution; its kernel is renamed to the average pool's.
    runs = _portable_runs(
        lambda e: (
            "native_call_mean.out"
            if e.name == "native_call_convolution.out" and e.instruction_id == 0
            else None
        )
    )
    renamed = _rewritten(tmp_path, runs, "renamed.etdump")
    completed = analyze(tmp_path, str(PORTABLE_RECORD), str(renamed), "--json")
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)["results"][0]
    (warning,) = [w for w in result["warnings"] if "ETDump events matched" in w]
    assert warning.startswith(
        f"29 of 30 ETDump events matched an instruction of method 'forward' in {PORTABLE_RECORD}; "
        "1 of them ("
    )
    assert "ms per execution on average, " in warning
    assert warning.endswith(
        "ms): kernel native_call_mean.out ran, but the ETRecord's instruction 0 is convolution."
    )
    assert ") is left unattributed: OPERATOR_CALL at instruction 0 (" in warning
    entities = {e["id"]: e for e in result["entities"]}
    assert "instruction_id" not in entities["source_operator/conv2d"].get("attributes", {})


def test_vgf_statistics_of_another_model_are_rejected() -> None:
    """A VGF_NEURAL_STATISTICS payload whose chains name no operation of the companion VGF."""
    wrapper = json.loads(payload(2))
    database = (
        b"id\ttosa_op\tapi_labels\n10\tConv2D\tmodel/re_lu/Relu;\n11\tRescale\tmodel/re_lu_1/Relu;"
        b"\n----\nid\tapi_label\n----\nid\ttosa_op_ids\n20\t10;\n21\t11;\n----\nid\tfused_op_ids\n"
        b"30\t20;\n31\t21;\n----\nid\tcascade_op_ids\n40\t30;31;\n----\nid\top_id\tcascade_op_id\n"
        b"0\t30\t40\n1\t31\t40\n----\nid\tstripe_op_id\n0\t0\n1\t1"
    )
    blob = wrapper["segments"][0]["debug_database"]
    blob["data"], blob["size"] = base64.b64encode(database).decode("ascii"), len(database)
    with pytest.raises(InputError) as caught:
        analyze_etdump(
            InputFile(str(RECORD), RECORD.read_bytes()),
            InputFile("run.etdump", dump(json.dumps(wrapper).encode())),
            timestamp="2026-01-01T00:00:00Z",
            companion_model=InputFile(str(PTE), PTE.read_bytes()),
        )
    start = PTE.read_bytes().find(b"VGF1")
    assert str(caught.value) == (
        "run.etdump (run_data[0].events[1].delegate_debug_metadata $.segments[0].debug_database): "
        f"0 of 2 ETDump VGF chains matched an operation of {PTE} (VGF at byte {start}) (e.g. "
        "chain/segment_0/30: its labels ('model/re_lu/Relu') name no operation of it; "
        "chain/segment_0/31: its labels ('model/re_lu_1/Relu') name no operation of it); the "
        "databases are of another model (or of another conversion of it)"
    )
