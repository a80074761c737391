"""A workspace of the DS-CNN with an ONNX Runtime profile and its ONNX model, for the tests of
the onnxruntime and static job types (through the engine and through the LSP). Copies three
files under the folder it is given."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support.cases import DATA

DSCNN = DATA / "formats" / "dscnn"
ORT = DATA / "onnxruntime"
TOML = """[[path_map]]
from = "/home/dev/kws/"
to = "."

[static]
discover = true
"""


def ort_static_workspace(tmp_path: Path, toml: str = TOML) -> Path:
    """A ``kws`` folder holding ``dscnn.py``, its ONNX model and an ONNX Runtime profile, with
    ``toml`` as its ``perfline.toml`` (by default: static cost discovered too)."""
    root = tmp_path / "kws"
    root.mkdir()
    for source in (DSCNN / "dscnn.py", DSCNN / "dscnn.onnx", ORT / "dscnn_noopt.json"):
        shutil.copy(source, root / source.name)
    (root / "perfline.toml").write_text(toml)
    return root
