"""Fixtures of the client and CLI tests.

``runtime``: a private runtime folder of the test's own (``XDG_RUNTIME_DIR``, mode 0700), so
no daemon of the user's or of another test is found: commands that look for one run
in-process unless the test starts a daemon there.
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's runtime folder, set as ``XDG_RUNTIME_DIR``."""
    folder = tmp_path / "runtime"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    return folder
