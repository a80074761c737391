"""A roofline target: peak MAC and memory rates the user names (no built-in numbers).

``time_ms`` of an operator = max(MACs / macs_per_second, bytes / bytes_per_second), in ms, with
the bound (``compute`` or ``memory``) that decided it; a rate not given is not a bound.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RooflineTarget:
    """A target's peak rates (either may be absent, not both) and its name."""

    macs_per_second: float | None = None
    bytes_per_second: float | None = None
    name: str = "roofline target"

    def time_ms(self, macs: int, total_bytes: float) -> tuple[float, str]:
        """The roofline time of one operator and the bound that decided it."""
        compute = macs / self.macs_per_second if self.macs_per_second else 0.0
        memory = total_bytes / self.bytes_per_second if self.bytes_per_second else 0.0
        if self.macs_per_second and compute >= memory:
            return compute * 1000.0, "compute"
        return memory * 1000.0, "memory"
