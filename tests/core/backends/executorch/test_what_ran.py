"""The target and backend of an ExecuTorch document say what ran, from the data alone.

Expectations come from how the fixtures were made (``tests/data/measured/README.md``): the
portable program delegates nothing (its 30 operators run as CPU kernels), the XNNPACK program
is one ``XnnpackBackend`` call, both were executed 10 times; the VGF program's single delegate
is ``VgfBackend`` (its ETDump is written by ``test_etdump_vgf``: 3 executions, Mali-G2
statistics).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from perfline.core.backends.executorch.document import analyze_etdump
from perfline.core.backends.source_model.inputs import InputFile
from tests.core.backends.executorch.vgf_etdumps import PTE, RECORD, dump, payload
from tests.support.measured_data import pair

STAMP = "2026-01-01T00:00:00Z"


def _document(record: Path, dump: Path) -> dict[str, Any]:
    return analyze_etdump(
        InputFile(str(record), record.read_bytes()),
        InputFile(str(dump), dump.read_bytes()),
        timestamp=STAMP,
    )


def test_portable_cpu_kernels_are_not_neural_technology() -> None:
    document = _document(*pair("portable"))
    assert document["target"] == {
        "profile_name": "executorch",
        "target_type": "executorch",
        "components": [{"type": "cpu", "family": "executorch"}],
        "configuration": {},
        "description": "ExecuTorch CPU kernels (no delegate), measured, 10 runs",
    }
    (backend,) = document["backends"]
    assert (backend["id"], backend["name"], backend["version"]) == (
        "neural-technology-profiling-data",  # the producer the collapse defaults key on
        "ExecuTorch CPU kernels (no delegate)",
        "unknown",  # no file records the ExecuTorch release
    )


def test_xnnpack_delegate_is_named_whatever_the_files_are_called(tmp_path: Path) -> None:
    record, dump = pair("xnnpack")
    renamed = (tmp_path / "dscnn_portable.etrecord", tmp_path / "dscnn_portable.etdump")
    shutil.copy(record, renamed[0])
    shutil.copy(dump, renamed[1])
    document = _document(*renamed)
    target = document["target"]
    assert target["description"] == "ExecuTorch XNNPACK delegate, measured, 10 runs"
    assert target["profile_name"] == "executorch"
    assert target["components"] == [{"type": "cpu", "family": "executorch", "model": "xnnpack"}]
    assert document["backends"][0]["name"] == "ExecuTorch XNNPACK delegate"


def test_vgf_delegate_with_neural_statistics_is_a_neural_technology_target() -> None:
    document = analyze_etdump(
        InputFile(str(RECORD), RECORD.read_bytes()),
        InputFile("run.etdump", dump(payload(2))),
        timestamp=STAMP,
        companion_model=InputFile(str(PTE), PTE.read_bytes()),
    )
    target = document["target"]
    assert target["profile_name"] == target["target_type"] == "neural-technology"
    # Instructions 0 and 2 (quantize, dequantize) run as CPU kernels around the delegate.
    assert target["description"] == (
        "ExecuTorch VGF delegate and CPU kernels, measured, 3 runs, NX neural statistics from "
        "Mali-G2"
    )
    assert target["components"] == [
        {"type": "cpu", "family": "executorch"},
        {"type": "gpu", "family": "mali", "model": "nx", "variant": "Mali-G2"},
    ]
    assert document["backends"][0]["name"] == "ExecuTorch VGF delegate and CPU kernels"


def test_report_text_names_what_ran(tmp_path: Path) -> None:
    record, dump = pair("portable")
    completed = subprocess.run(
        [sys.executable, "-m", "perfline", "analyze", str(record), str(dump)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"},
    )
    assert completed.returncode == 0, completed.stderr
    text = completed.stdout
    assert "ExecuTorch CPU kernels (no delegate), measured, 10 runs" in text
    assert "Profile        executorch" in text
    assert "neural-technology " not in text.replace("neural-technology-profiling-data", "")
