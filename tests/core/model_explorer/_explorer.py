"""The Model Explorer tests' setup: a cached venv with the real packages, and their graphs.

The venv lives outside git, in ``$PERFLINE_MODEL_EXPLORER_HOME`` (default
``~/.cache/perfline-model-explorer``), as ``venv-<digest of requirements.txt>``; it is created
on first use (about a minute: torch 2.13.0 comes from the machine's disk, the rest from PyPI)
and marked ready only when every pinned package installed. ``PERFLINE_SKIP_MODEL_EXPLORER=1``
skips these tests (saying so); a failed setup fails them with pip's message.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
REQUIREMENTS = HERE / "requirements.txt"
READY = ".perfline-ready"


def _home() -> Path:
    default = Path.home() / ".cache" / "perfline-model-explorer"
    return Path(os.environ.get("PERFLINE_MODEL_EXPLORER_HOME", default))


def _create(venv: Path, digest: str) -> None:
    steps = [
        [sys.executable, "-m", "venv", "--clear", str(venv)],
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            "--no-input",
            "-r",
            str(REQUIREMENTS),
        ],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, timeout=1500, check=False)
        if done.returncode != 0:
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-15:])
            pytest.fail(f"Model Explorer venv setup failed ({' '.join(step[:4])} ...):\n{tail}")
    (venv / READY).write_text(digest + "\n")


def explorer_python() -> Path:
    """The Python of the Model Explorer venv, created if missing (skips or fails the test)."""
    if os.environ.get("PERFLINE_SKIP_MODEL_EXPLORER") == "1":
        pytest.skip("PERFLINE_SKIP_MODEL_EXPLORER=1: the Model Explorer overlay check is skipped")
    digest = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()[:12]
    home = _home()
    home.mkdir(parents=True, exist_ok=True)
    venv = home / f"venv-{digest}"
    with (home / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = venv / READY
        if not (marker.is_file() and marker.read_text().strip() == digest):
            _create(venv, digest)
    return venv / "bin" / "python"


def run_in_explorer(python: Path, script: str, *args: str, timeout: float = 600) -> str:
    """Run one of this folder's scripts in the Model Explorer venv; its standard output."""
    done = subprocess.run(
        [str(python), str(HERE / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=HERE,
        env={**os.environ, "PYTHONNOUSERSITE": "1"},
    )
    if done.returncode != 0:
        pytest.fail(f"{script} failed in the Model Explorer venv:\n{done.stderr[-3000:]}")
    return done.stdout


def explorer_graphs(python: Path, models: list[Path]) -> dict[str, Any]:
    """Model path -> the adapter's graphs, as ``explorer_nodes.py`` prints them."""
    found: dict[str, Any] = json.loads(
        run_in_explorer(python, "explorer_nodes.py", *(str(m) for m in models))
    )
    return found
