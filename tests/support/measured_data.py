"""Paths of the measured-profiling test data (``tests/data/measured``)."""

from __future__ import annotations

from pathlib import Path

from tests.support import locations

DATA = locations.DATA / "measured"
#: The model source the traces name (one copy, shared with the format tests).
MODEL_SOURCE = DATA.parent / "formats" / "dscnn" / "dscnn.py"


def pair(backend: str) -> tuple[Path, Path]:
    """The (ETRecord, ETDump) of ``portable`` or ``xnnpack``."""
    folder = DATA / backend
    return folder / f"dscnn_{backend}.etrecord", folder / f"dscnn_{backend}.etdump"


def inspector(backend: str) -> Path:
    """The ExecuTorch Inspector's reading of the pair."""
    return DATA / backend / f"dscnn_{backend}.inspector.json"
