"""Session hooks of the test suite: daemons log under a temporary state folder; the
compiled run checks which build of the core it imports. Shared helpers live in
``tests/support/``."""

from __future__ import annotations

from typing import Any


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
