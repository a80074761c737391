"""Bad ETRecord/ETDump input: one clear error each, naming the file and the place."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from perfline.core.backends.executorch.document import analyze_etdump
from perfline.core.backends.executorch.etdump import read_etdump
from perfline.core.backends.executorch.etrecord import read_etrecord
from perfline.core.backends.source_model.inputs import InputFile
from perfline.core.errors import InputError
from perfline.server.ingest.executorch import load_etdump_document
from tests.support.etdump_writer import Event, write_etdump
from tests.support.measured_data import DATA, pair

STAMP = "2026-01-01T00:00:00Z"


def _analyze(record: bytes, dump: bytes, method: str | None = None) -> None:
    analyze_etdump(
        InputFile("m.etrecord", record), InputFile("r.etdump", dump), timestamp=STAMP, method=method
    )


def _real(backend: str) -> tuple[bytes, bytes]:
    record, dump = pair(backend)
    return record.read_bytes(), dump.read_bytes()


def _rezip(record: bytes, drop: tuple[str, ...] = (), add: dict[str, bytes] | None = None) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(record))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            if name not in drop:
                target.writestr(name, source.read(name))
        for name, data in (add or {}).items():
            target.writestr(name, data)
    return out.getvalue()


@pytest.mark.parametrize("cut", [3, 11, 200, 20000, 45023])
def test_truncated_etdump(cut: int) -> None:
    _, dump = _real("portable")
    with pytest.raises(InputError) as caught:
        read_etdump(dump[:cut], "r.etdump")
    message = str(caught.value)
    assert message.startswith("r.etdump: byte ")
    assert "truncated" in message or "identifier" in message


def test_corrupted_offset_names_the_byte_and_schema_path() -> None:
    data = bytearray(write_etdump([("Execute", [Event("OPERATOR_CALL", 1, 2, instruction_id=0)])]))
    data[4:8] = (len(data) + 1000).to_bytes(4, "little")  # root offset past the end
    with pytest.raises(InputError) as caught:
        read_etdump(bytes(data), "r.etdump")
    assert "r.etdump: byte" in str(caught.value)
    assert "(ETDump)" in str(caught.value)


def test_end_before_start_is_rejected() -> None:
    dump = write_etdump([("Execute", [Event("OPERATOR_CALL", 5, 2, instruction_id=0)])])
    with pytest.raises(InputError, match=r"run_data\[0\]\.events\[0\]\.profile_event.*before"):
        read_etdump(dump, "r.etdump")


def test_etdump_without_the_etrecords_method() -> None:
    record, _ = _real("portable")
    dump = write_etdump(
        [
            (
                "Execute",
                [
                    Event("OPERATOR_CALL", 0, 10, instruction_id=99),
                    Event("Method::execute", 0, 20, chain_index=-1, instruction_id=0),
                ],
            )
        ]
    )
    with pytest.raises(InputError) as caught:
        _analyze(record, dump)
    message = str(caught.value)
    assert message.startswith("r.etdump: run_data[0].events[0]")
    assert "instruction 99" in message and "'forward'" in message


def test_real_etdump_of_another_program() -> None:
    """The portable dump (instructions 0..29) against the VGF program (instructions 0..2)."""
    _, dump = _real("portable")
    record = (DATA / "vgf" / "dscnn_vgf.etrecord").read_bytes()
    with pytest.raises(
        InputError,
        match=r"r\.etdump: run_data\[1\]\.events\[\d+\]: OPERATOR_CALL at instruction \d+: not an "
        r"instruction of method 'forward'",
    ):
        _analyze(record, dump)


def test_etdump_with_only_load_events() -> None:
    record, _ = _real("portable")
    dump = write_etdump(
        [("Default", [Event("Method::init", 0, 5, chain_index=-1, instruction_id=0)])]
    )
    with pytest.raises(
        InputError, match=r"r\.etdump: run_data: the ETDump records no method execution"
    ):
        _analyze(record, dump)


def test_zip_without_the_expected_members() -> None:
    record, dump = _real("portable")
    broken = _rezip(record, drop=("debug_handle_map", "edge_dialect_exported_program/forward"))
    with pytest.raises(InputError) as caught:
        _analyze(broken, dump)
    message = str(caught.value)
    assert message.startswith("m.etrecord: zip members: missing ETRecord member(s)")
    assert "'debug_handle_map'" in message and "edge_dialect_exported_program/<method>" in message


def test_not_a_zip() -> None:
    _, dump = _real("portable")
    with pytest.raises(InputError, match=r"m\.etrecord: not a zip archive"):
        _analyze(b"not a zip at all", dump)


def test_invalid_json_member_names_member_line_and_column() -> None:
    record, dump = _real("portable")
    broken = _rezip(record, drop=("delegate_map",), add={"delegate_map": b'{"forward": '})
    with pytest.raises(InputError, match=r"m\.etrecord: member 'delegate_map' line 1 column \d+"):
        _analyze(broken, dump)


def test_bad_debug_handle_names_the_node() -> None:
    record, dump = _real("portable")
    member = "edge_dialect_exported_program/forward"
    program = json.loads(zipfile.ZipFile(io.BytesIO(record)).read(member))
    program["graph_module"]["graph"]["nodes"][2]["metadata"]["debug_handle"] = "three"
    broken = _rezip(record, drop=(member,), add={member: json.dumps(program).encode()})
    with pytest.raises(InputError, match=r"nodes\[2\]\.metadata\.debug_handle: expected integers"):
        _analyze(broken, dump)


def _two_methods(record: bytes) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(record))
    handle_map = json.loads(source.read("debug_handle_map"))
    handle_map["encode"] = handle_map["forward"]
    delegate_map = json.loads(source.read("delegate_map"))
    delegate_map["encode"] = {}
    return _rezip(
        record,
        drop=("debug_handle_map", "delegate_map"),
        add={
            "edge_dialect_exported_program/encode": source.read(
                "edge_dialect_exported_program/forward"
            ),
            "debug_handle_map": json.dumps(handle_map).encode(),
            "delegate_map": json.dumps(delegate_map).encode(),
        },
    )


def test_method_selection() -> None:
    record, dump = _real("portable")
    assert read_etrecord(record, "m.etrecord").methods == ("forward",)
    several = _two_methods(record)
    assert read_etrecord(several, "m.etrecord").methods == ("encode", "forward")
    with pytest.raises(
        InputError, match="several methods; choose one with --method: encode, forward"
    ):
        _analyze(several, dump)
    with pytest.raises(
        InputError, match="method 'decode' is not in the ETRecord; its methods: encode, forward"
    ):
        _analyze(several, dump, method="decode")
    document = analyze_etdump(
        InputFile("m.etrecord", several),
        InputFile("r.etdump", dump),
        timestamp=STAMP,
        method="encode",
    )
    assert document["backends"][0]["configuration"]["method"] == "encode"
    assert document["context"]["runtime_configuration"]["method"] == "encode"


def test_missing_file(tmp_path: Path) -> None:
    record, _ = pair("portable")
    with pytest.raises(InputError, match="no such ETDump file"):
        load_etdump_document(record, tmp_path / "absent.etdump")
    with pytest.raises(InputError, match="is not a regular file"):
        load_etdump_document(tmp_path, record)


def test_event_missing_from_some_executions_is_counted_over_its_own_samples() -> None:
    record, _ = _real("portable")
    runs = []
    for run in range(3):
        events = [Event("OPERATOR_CALL", 0, 1000 * (run + 1), instruction_id=0)]
        if run != 1:
            events.append(Event("OPERATOR_CALL", 0, 500, instruction_id=1))
        runs.append(("Execute", events))
    document = analyze_etdump(
        InputFile("m.etrecord", record), InputFile("r.etdump", write_etdump(runs)), timestamp=STAMP
    )
    result = document["results"][0]
    assert any("only some of the 3 executions" in warning for warning in result["warnings"])
    (batch_norm,) = [
        b for b in result["breakdowns"] if b["entity_id"] == "source_operator/batch_norm"
    ]
    metrics = {m["name"]: m for m in batch_norm["metrics"] if m["name"] != "duration"}
    assert metrics["execution_count"]["value"] == 2
    assert metrics["duration_avg"]["samples"] == 2
    assert "aggregation" not in metrics["duration_avg"]  # not the same executions as conv2d's
    executions = [
        m["qualifiers"]["execution"] for m in batch_norm["metrics"] if m["name"] == "duration"
    ]
    assert executions == [0, 2]
    (conv,) = [b for b in result["breakdowns"] if b["entity_id"] == "source_operator/conv2d"]
    average = next(m for m in conv["metrics"] if m["name"] == "duration_avg")
    assert average["value"] == pytest.approx((0.001 + 0.002 + 0.003) / 3)
    assert average["aggregation"] == "sum"
    metrics_by_name = {m["name"]: m for m in result["metrics"]}
    assert metrics_by_name["inference_time"]["availability"] == "unavailable"


def test_delegate_internal_events_mapped_by_the_etrecords_delegate_map() -> None:
    """With a per-delegate map, internal events resolve to source operators (exact or shared)."""
    record, dump = _real("xnnpack")
    delegate_map = {
        "forward": {
            "0": {
                "name": "XnnpackBackend",
                "delegate_map": {
                    "Convolution (NHWC, F32) IGEMM #1": [1, 2, 3],
                    "Convolution (NHWC, F32) DWConv #1": [4],
                    "Mean (ND) Reduce2 #1": [28, 99],
                },
            }
        }
    }
    mapped = _rezip(
        record, drop=("delegate_map",), add={"delegate_map": json.dumps(delegate_map).encode()}
    )
    result = analyze_etdump(
        InputFile("m.etrecord", mapped), InputFile("r.etdump", dump), timestamp=STAMP
    )["results"][0]
    entities = {e["id"]: e for e in result["entities"]}
    base = "backend_operator/forward/delegate_0/"
    igemm = entities[base + "Convolution (NHWC, F32) IGEMM #1"]
    assert igemm["attributes"]["confidence"] == "shared"
    assert igemm["child_ids"] == [
        "source_operator/conv2d",
        "source_operator/batch_norm",
        "source_operator/relu",
    ]
    assert igemm["attributes"]["delegate_call"] == "backend_operator/forward/delegate_0"
    assert (
        entities[base + "Convolution (NHWC, F32) DWConv #1"]["attributes"]["confidence"] == "exact"
    )
    mean = entities[base + "Mean (ND) Reduce2 #1"]["attributes"]
    assert mean["confidence"] == "partial"
    assert mean["unresolved_debug_handles"] == [99]
    assert entities[base + "Static Reshape (NC) #1"]["attributes"]["confidence"] == "unmapped"
