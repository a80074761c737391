"""Shared test helpers: where the copied data lives, canonical JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
CASES = DATA / "cases"


def canonical(document: Any) -> str:
    """Sorted keys, compact separators: the comparison form of the conformance cases."""
    return json.dumps(document, sort_keys=True, separators=(",", ":"))
