"""Shared helpers of the batch tests: the fixtures' run specs, the variant script, the CLI."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from perfline.clients.cli.run_spec import load_run
from perfline.core.pipeline import PipelineSettings
from tests.support.locations import DATA

MEASURED = DATA / "measured"
PORTABLE = (
    f"{MEASURED / 'portable' / 'dscnn_portable.etrecord'},"
    f"{MEASURED / 'portable' / 'dscnn_portable.etdump'}"
)
XNNPACK = (
    f"{MEASURED / 'xnnpack' / 'dscnn_xnnpack.etrecord'},"
    f"{MEASURED / 'xnnpack' / 'dscnn_xnnpack.etdump'}"
)
#: The same model's second real recording (``tests/data/docs``).
RERUN = (
    f"{MEASURED / 'portable' / 'dscnn_portable.etrecord'},"
    f"{DATA / 'docs' / 'dscnn_portable_rerun.etdump'}"
)
ORT = f"{DATA / 'formats' / 'dscnn' / 'dscnn.onnx'},{DATA / 'onnxruntime' / 'dscnn_opt.json'}"
MAKE_RUNS = DATA / "batch" / "make_runs.py"
#: The Python scripts of this environment (``dask``, ``perfline``).
BIN = Path(sys.executable).parent


def make_runs() -> ModuleType:
    """``tests/data/batch/make_runs.py`` as a module."""
    spec = importlib.util.spec_from_file_location("make_runs", MAKE_RUNS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_runs", module)
    spec.loader.exec_module(module)
    return module


def processed(spec: str) -> dict[str, Any]:
    """One run's processed document, by the route code ``perfline compare`` uses."""
    return load_run(spec, "run", PipelineSettings())[0]


def perfline(*arguments: str, cwd: Path | None = None, timeout: float = 300) -> Any:
    """``perfline ARGUMENTS`` in a fresh process (stdout, stderr captured as text)."""
    environment = {**os.environ, "PYTHONWARNINGS": "ignore", "COLUMNS": "120"}
    return subprocess.run(
        [str(BIN / "perfline"), *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment,
        check=False,
    )
