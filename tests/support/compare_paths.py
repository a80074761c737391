"""Paths of the compare test data (``tests/data/compare`` and the shared model copies)."""

from __future__ import annotations

from pathlib import Path

from tests.support.locations import DATA

COMPARE = DATA / "compare"
ONNX_MODEL = DATA / "formats" / "dscnn" / "dscnn.onnx"
ONNX_NODES = DATA / "formats" / "dscnn" / "dscnn.onnx.nodes.json"
MODEL_SOURCE = DATA / "formats" / "dscnn" / "dscnn.py"
ORT_NOOPT = COMPARE / "ort" / "dscnn_noopt.json"
ORT_OPT = COMPARE / "ort" / "dscnn_opt.json"
INTERLEAVED_A = COMPARE / "interleaved" / "dscnn_interleaved_a.json"
INTERLEAVED_B = COMPARE / "interleaved" / "dscnn_interleaved_b.json"
SARIF_SCHEMA = COMPARE / "sarif" / "sarif-schema-2.1.0.json"
MEASURED = DATA / "measured"


def et_pair(backend: str) -> tuple[Path, Path]:
    """The (ETRecord, ETDump) of ``portable`` or ``xnnpack``."""
    folder = MEASURED / backend
    return folder / f"dscnn_{backend}.etrecord", folder / f"dscnn_{backend}.etdump"


def inspector(backend: str) -> Path:
    """The ExecuTorch Inspector's own reading of the pair (the independent reference)."""
    return MEASURED / backend / f"dscnn_{backend}.inspector.json"
