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


def pytest_sessionstart(session: Any) -> None:
    """With ``PERFLINE_EXPECT_BUILD`` set (the compiled run of ``scripts/test.sh``), make
    sure the tests import that build of the core, not the source tree beside them."""
    import os

    expected = os.environ.get("PERFLINE_EXPECT_BUILD")
    if not expected:
        return
    from perfline.build_info import core_build

    found = core_build()
    if not found.startswith(expected):
        raise RuntimeError(f"expected the {expected} core, but the tests import {found}")
