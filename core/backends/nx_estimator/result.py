"""The estimator-mode performance result.

Combines per segment: the stripes and debug links (shared NX construction:
entities, chain and cascade breakdowns, declared kinds) and the network
performance summary (model-level metrics). When a segment's summary is
missing, the figures only the summary gives are unavailable with a reason
naming the missing file, and a warning says so; the breakdowns are still
built from the databases. ``accelerator_operator_percentage`` comes from the
debug database's placement records. The result omits ``mode`` (estimates).
Databases of another model than the VGF are rejected, and partly matching ones
warned about (``nx_common.database_match``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from perfline.core.backends.nx_common.database_match import check_matches, view_matches
from perfline.core.backends.nx_common.metrics import NATIVE_METRICS, model_metrics
from perfline.core.backends.nx_common.records import SegmentInput
from perfline.core.backends.nx_common.segment_warnings import compute_segments_warning
from perfline.core.backends.nx_common.totals import ModelTotals, combine_totals
from perfline.core.backends.nx_common.view import SegmentsView, build_segments_view
from perfline.core.backends.nx_estimator import PRODUCER
from perfline.core.backends.nx_estimator.advice import Convolution, depthwise_advice
from perfline.core.backends.nx_estimator.placement import accelerator_percentage, placement_records
from perfline.core.backends.result_builder import ResultBuilder
from perfline.core.document_shapes import ResultJson

#: Metrics that need the summary (the derived ones need its time and cycles).
SUMMARY_METRICS: tuple[str, ...] = (
    *(name for name, _ in NATIVE_METRICS),
    "inferences_per_second",
    "target_utilization",
)


@dataclass(frozen=True)
class EstimatedSegment:
    """One estimated graph segment: its databases' content and its summary, if supplied.

    ``summary_name`` is the summary's file name (used in reasons when it is missing).
    """

    segment: SegmentInput
    summary: ModelTotals | None
    summary_name: str


@dataclass(frozen=True)
class PerformanceOutcome:
    """The result and the shared view it was built from (for the statistics file)."""

    result: ResultJson
    view: SegmentsView


def build_performance_result(
    segments: Sequence[EstimatedSegment],
    *,
    skipped_compute_segments: Sequence[str] = (),
    convolutions: Sequence[Convolution] = (),
) -> PerformanceOutcome:
    """The performance result of the estimated segments (VGF order)."""
    inputs = [estimated.segment for estimated in segments]
    view = build_segments_view(inputs)
    mismatch = check_matches(view_matches(inputs, view.chains), "estimator chains")
    warnings: list[str] = []
    compute_warning = compute_segments_warning(skipped_compute_segments)
    if compute_warning:
        warnings.append(compute_warning)
    if mismatch:
        warnings.append(mismatch)
    missing = [estimated.summary_name for estimated in segments if estimated.summary is None]
    reasons: dict[str, str] = {}
    if missing:
        names = ", ".join(f"'{name}'" for name in missing)
        reason = f"Not available: the network performance summary {names} was not supplied."
        reasons = dict.fromkeys(SUMMARY_METRICS, reason)
        warnings.append(
            f"The network performance summary {names} is missing: model-level figures are "
            "unavailable; chain and cascade breakdowns come from the performance and debug "
            "databases."
        )
        totals = ModelTotals()
    else:
        totals = combine_totals([s.summary for s in segments if s.summary is not None])
    percentage = accelerator_percentage(placement_records(inputs))
    result = ResultBuilder("performance", PRODUCER)
    result.warn(*warnings)
    result.add_metrics(
        model_metrics(totals, accelerator_operator_percentage=percentage, reasons=reasons)
    )
    result.add_breakdowns(view.breakdowns)
    result.add_entities(view.entities)
    result.declare_kinds(view.entity_kinds)
    result.add_advice(depthwise_advice(convolutions))
    return PerformanceOutcome(result.finish(), view)
