"""The measured performance result of structured captures (and VGF ETDump payloads).

Stripe rows (decoded counters) and debug links per segment go through the
shared NX construction (chains, cascades, source operators, breakdowns on
chains and cascades summed over their stripes). Model level, per segment:
``compute_cycles`` = sum of op cycles and ``total_cycles`` = sum of total
cycles, segments added in VGF order; no clock is applied, so time and
throughput are unavailable. The result is ``mode: "measured"``. A debug
database whose chains name no operation of the VGF (or the capture's shader
module) is rejected, one naming only some warned about (``nx_common.database_match``).
"""

from __future__ import annotations

from collections.abc import Sequence

from perfline.core.backends.nx_common.database_match import check_matches, view_matches
from perfline.core.backends.nx_common.metrics import model_metrics
from perfline.core.backends.nx_common.records import SegmentInput
from perfline.core.backends.nx_common.segment_warnings import compute_segments_warning
from perfline.core.backends.nx_common.totals import combine_totals, totals_from_stripes
from perfline.core.backends.nx_common.view import SegmentsView, build_segments_view
from perfline.core.backends.result_builder import ResultBuilder
from perfline.core.document_shapes import ResultJson

PRODUCER = "neural-technology-profiling-data"
COUNTERS_NOT_TIME = (
    "Not available: neural statistics are accumulated activity counters with no clock or "
    "timestamps."
)
NOT_IN_CAPTURE = "Not available: the capture does not contain this figure."


def measured_nx_result(
    segments: Sequence[SegmentInput],
    *,
    warnings: Sequence[str] = (),
    skipped_compute_segments: Sequence[str] = (),
) -> tuple[ResultJson, SegmentsView]:
    """The ``mode: measured`` performance result of decoded segments."""
    view = build_segments_view(segments)
    mismatch = check_matches(view_matches(segments, view.chains), "captured chains")
    totals = combine_totals([totals_from_stripes(t) for t in view.segment_totals])
    reasons = {
        "inference_time": COUNTERS_NOT_TIME,
        "infs_per_sec": COUNTERS_NOT_TIME,
        "inferences_per_second": COUNTERS_NOT_TIME,
        "cache_cycles": NOT_IN_CAPTURE,
        "dram_cycles": NOT_IN_CAPTURE,
        "compiled_size": NOT_IN_CAPTURE,
        "cache_read_bytes": NOT_IN_CAPTURE,
        "cache_write_bytes": NOT_IN_CAPTURE,
        "dram_read_bytes": NOT_IN_CAPTURE,
        "dram_write_bytes": NOT_IN_CAPTURE,
        "dram_footprint": NOT_IN_CAPTURE,
    }
    all_warnings = list(warnings)
    compute_warning = compute_segments_warning(skipped_compute_segments)
    if compute_warning:
        all_warnings.append(compute_warning)
    if mismatch:
        all_warnings.append(mismatch)
    result = ResultBuilder("performance", PRODUCER, mode="measured")
    result.warn(*all_warnings)
    result.add_metrics(model_metrics(totals, reasons=reasons))
    result.add_breakdowns(view.breakdowns)
    result.add_entities(view.entities)
    result.declare_kinds(view.entity_kinds)
    return result.finish(), view
