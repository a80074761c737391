"""Where the copied test data lives (``tests/data``), the conformance cases, and the
canonical JSON form the cases are compared in. Path arithmetic and one ``json.dumps``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1] / "data"
CASES = DATA / "cases"


def canonical(document: Any) -> str:
    """Sorted keys, compact separators: the comparison form of the conformance cases."""
    return json.dumps(document, sort_keys=True, separators=(",", ":"))
