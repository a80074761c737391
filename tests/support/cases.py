"""Where the copied test data lives (``tests/data``), the conformance cases, and the
canonical JSON form the cases are compared in. Path arithmetic and one ``json.dumps``."""

from __future__ import annotations

import json
from typing import Any

from tests.support.locations import DATA

CASES = DATA / "cases"


def canonical(document: Any) -> str:
    """Sorted keys, compact separators: the comparison form of the conformance cases."""
    return json.dumps(document, sort_keys=True, separators=(",", ":"))


def normalized(items: Any) -> str:
    """Canonical JSON with empty containers dropped (typed re-serialization omits them)."""

    def clean(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if v not in ([], {}, None)}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return canonical(clean(items))
