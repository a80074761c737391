"""How many of one unit make another, for figures stated in different units of the same kind.

Time units convert (``ns``, ``us`` / ``µs``, ``ms``, ``s``: the factor is the ratio of their
lengths in seconds); any other unit only to itself (factor 1), and units that do not convert
give ``None``. The compare core and the daemon's side-by-side columns state a baseline's or
another job's figure in the unit shown with it. A leaf module; pure, constant time.
"""

from __future__ import annotations

from typing import Final

#: Seconds per time unit.
SECONDS: Final = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}


def unit_scale(from_unit: str, to_unit: str) -> float | None:
    """The factor that turns a figure in ``from_unit`` into ``to_unit`` (``None``: none)."""
    if from_unit == to_unit:
        return 1.0
    if from_unit in SECONDS and to_unit in SECONDS:
        return SECONDS[from_unit] / SECONDS[to_unit]
    return None
