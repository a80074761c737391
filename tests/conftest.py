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


def pytest_configure(config: Any) -> None:
    """The daemons the tests start (``perfline serve`` logs to a file under
    ``$XDG_STATE_HOME`` by default) log under a temporary folder, never the user's."""
    import os
    import tempfile

    os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="perfline-test-state-")


def pytest_unconfigure(config: Any) -> None:
    import os
    import shutil

    state = os.environ.get("XDG_STATE_HOME", "")
    if "perfline-test-state-" in state:
        shutil.rmtree(state, ignore_errors=True)


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
