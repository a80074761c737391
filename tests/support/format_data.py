"""Shared helpers for the model-format reader tests: paths of the copied real fixtures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support import locations

DATA = locations.DATA / "formats"
DSCNN = DATA / "dscnn"
THIRD_PARTY = DATA / "onnx-third-party"
SYNTHETIC = DATA / "synthetic"


def read_bytes(path: Path) -> bytes:
    """The bytes of a fixture file."""
    return path.read_bytes()


def read_json(path: Path) -> Any:
    """A fixture JSON document."""
    return json.loads(path.read_text(encoding="utf-8"))


def model_line(number: int) -> str:
    """Line ``number`` (1-based) of the DS-CNN model source the artifacts point at."""
    return (DSCNN / "dscnn.py").read_text(encoding="utf-8").splitlines()[number - 1]
