"""The warning for VGF compute segments that NX analysis skips."""

from __future__ import annotations

from collections.abc import Sequence

_SHOWN = 5


def compute_segments_warning(segment_names: Sequence[str]) -> str | None:
    """The warning naming the skipped compute segments (first five, then a count), or ``None``."""
    if not segment_names:
        return None
    shown = ", ".join(segment_names[:_SHOWN])
    hidden = len(segment_names) - _SHOWN
    if hidden > 0:
        shown += f", ... ({hidden} more omitted)"
    return (
        f"VGF compute segment(s) {shown} will not be estimated by the NX Performance Estimator "
        "and will not contribute to performance totals."
    )
