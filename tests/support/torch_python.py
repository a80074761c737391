"""The user's PyTorch environment of the tests: ``PERFLINE_TORCH_PYTHON`` (made by
``scripts/torch-venv.sh``), a mark that skips a test without it, and the folder that holds its
torch package (for a test that puts torch on this Python's path). Costs one child process per
``torch_path`` call."""

from __future__ import annotations

import os
import subprocess

import pytest

TORCH_PYTHON = os.environ.get("PERFLINE_TORCH_PYTHON")
needs_torch = pytest.mark.skipif(not TORCH_PYTHON, reason="PERFLINE_TORCH_PYTHON is not set")


def torch_path() -> str:
    """The folder that holds the torch package of ``PERFLINE_TORCH_PYTHON``."""
    assert TORCH_PYTHON is not None
    found = subprocess.run(
        [
            TORCH_PYTHON,
            "-c",
            "import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return found.stdout.strip()
