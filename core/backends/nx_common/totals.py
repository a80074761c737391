"""Model-level totals of NX segments and how segments combine.

Segments are combined in VGF order: every field is summed (unknown if any
segment's value is unknown), except ``dram_footprint`` (the maximum of the
known values) and ``infs_per_sec`` (1000 / combined inference time, unknown
when that is unknown or zero). Compute-only segments contribute nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace

from perfline.core.backends.nx_common.aggregate import StripeTotals
from perfline.core.backends.nx_common.records import Number


@dataclass(frozen=True)
class ModelTotals:
    """Model-level figures; ``None`` means the source did not provide a value."""

    inference_time: Number | None = None
    infs_per_sec: Number | None = None
    total_cycles: Number | None = None
    compute_cycles: Number | None = None
    cache_cycles: Number | None = None
    dram_cycles: Number | None = None
    compiled_size: Number | None = None
    cache_read_bytes: Number | None = None
    cache_write_bytes: Number | None = None
    dram_read_bytes: Number | None = None
    dram_write_bytes: Number | None = None
    dram_footprint: Number | None = None


def totals_from_stripes(stripes: StripeTotals) -> ModelTotals:
    """Measured-mode totals: compute = sum of op cycles, total = sum of total cycles."""
    return ModelTotals(compute_cycles=stripes.op_cycles, total_cycles=stripes.total_cycles)


def combine_totals(parts: Sequence[ModelTotals]) -> ModelTotals:
    """The totals of several segments (see the module docstring); ``()`` gives all unknown."""
    if not parts:
        return ModelTotals()
    combined = parts[0]
    for part in parts[1:]:
        values: dict[str, Number | None] = {}
        for item in fields(ModelTotals):
            left = getattr(combined, item.name)
            right = getattr(part, item.name)
            if item.name == "dram_footprint":
                known = [v for v in (left, right) if v is not None]
                values[item.name] = max(known) if known else None
            else:
                values[item.name] = None if left is None or right is None else left + right
        combined = ModelTotals(**values)
    if len(parts) > 1:
        time = combined.inference_time
        combined = replace(combined, infs_per_sec=1000 / time if time else None)
    return combined
