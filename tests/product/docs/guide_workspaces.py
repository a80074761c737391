"""The workspaces of ``docs/guide.md``, laid out from copies of the real artifacts in
``tests/data`` (the layouts the guide's trees show), and the guide's marked blocks: what the
guide's tests run. Laying out a workspace copies a few megabytes; the ``mlia`` one runs
``perfline analyze`` once."""

from __future__ import annotations

import gzip
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.support.locations import DATA
from tests.support.markdown_blocks import DOCS, Block, blocks

GUIDE = DOCS / "guide.md"
BIN = Path(sys.executable).parent

DSCNN = DATA / "formats" / "dscnn"
PORTABLE = DATA / "measured" / "portable"
ORT = DATA / "onnxruntime"
NX = DATA / "nx_estimator"
TORCH = DATA / "torch_profiler"


def _analyzed_portable(tmp: Path) -> bytes:
    """What ``perfline analyze`` writes for the real portable ExecuTorch pair (a standardized
    document, post-processed: what ``mlia`` itself persists has the same form)."""
    out = tmp / "generated"
    completed = subprocess.run(
        [
            str(BIN / "perfline"),
            "analyze",
            str(PORTABLE / "dscnn_portable.etrecord"),
            str(PORTABLE / "dscnn_portable.etdump"),
            "--output-dir",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    return (out / "mlia-output" / "mlia-output.json").read_bytes()


Source = Path | Callable[[Path], bytes]

#: Workspace name -> {path in the workspace: where its bytes come from}.
WORKSPACES: dict[str, dict[str, Source]] = {
    "executorch": {
        "dscnn.py": DSCNN / "dscnn.py",
        "profiles/dscnn_portable.etrecord": PORTABLE / "dscnn_portable.etrecord",
        "profiles/dscnn_portable.etdump": PORTABLE / "dscnn_portable.etdump",
    },
    "onnxruntime": {
        "dscnn.py": DSCNN / "dscnn.py",
        "profiles/dscnn.onnx": DSCNN / "dscnn.onnx",
        "profiles/dscnn_noopt_2026-11-29_12-00-00_000.json": ORT / "dscnn_noopt.json",
        "profiles/dscnn_opt_2026-11-29_12-00-05_000.json": ORT / "dscnn_opt.json",
        "profiles/dscnn_opt.optimized.onnx": ORT / "dscnn_opt.optimized.onnx",
    },
    "static": {
        "dscnn.py": DSCNN / "dscnn.py",
        "models/dscnn.pt2": DSCNN / "dscnn.pt2",
        "models/dscnn.onnx": DSCNN / "dscnn.onnx",
    },
    "nx-estimator": {
        f"estimates/ds_cnn_large_fully_quantized_int8_{kind}_database.dat": (
            NX / f"ds_cnn_large_fully_quantized_int8_{kind}_database.dat"
        )
        for kind in ("performance", "debug")
    },
    "mlia": {
        "dscnn.py": DSCNN / "dscnn.py",
        "results/mlia-output.json": _analyzed_portable,
    },
    "torch-trace": {
        "models/cnn.py": TORCH / "models" / "cnn.py",
        "traces/cnn.pt.trace.json.gz": lambda _: gzip.compress(
            (TORCH / "traces" / "cnn.pt.trace.json").read_bytes()
        ),
    },
}


def guide_blocks() -> list[Block]:
    """The fenced blocks of ``docs/guide.md``."""
    return blocks(GUIDE)


def marked(kind: str) -> dict[str, Block]:
    """The guide's blocks marked ``<!-- perfline-doc: KIND NAME -->``, by NAME."""
    found: dict[str, Block] = {}
    for block in guide_blocks():
        if block.marker[:1] == (kind,):
            assert len(block.marker) == 2, f"guide.md:{block.line}: marker {block.marker}"
            assert block.marker[1] not in found, f"guide.md:{block.line}: second {block.marker}"
            found[block.marker[1]] = block
    return found


def lay_out(name: str, root: Path, tmp: Path) -> None:
    """Workspace ``name`` of ``WORKSPACES`` under ``root`` (``tmp`` for what is made on the way)."""
    for relative, source in WORKSPACES[name].items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes() if isinstance(source, Path) else source(tmp))
