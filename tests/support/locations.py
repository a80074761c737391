"""Where the tests find the checkout: the repository root, ``tests/`` and the fixtures of
``tests/data/``, named once so that a test module can move between folders without
counting parents. Costs nothing: three paths computed at import."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
DATA = TESTS / "data"
