"""The model-wide change between two runs, told apart from the changes of single lines.

A busy machine, another clock or a global setting slows every line of a model alike; judged
line by line against the baseline, such a change fails a 5% gate on most lines. So the gate
first estimates what happened to the whole model, and then judges each line against it:

* **the model-wide factor**: per judged line (a code line with the metric in both runs and a
  base above zero, not a call line whose callees account for its change) that contains no
  other judged line (``factor_rows``: a call line whose figure includes a judged line's is
  left out of the estimate, though judged on its own; a profile's nested ``def`` lines would
  otherwise carry one slowed leaf's change into each of its ancestors' ratios) the ratio
  ``r = new / base``; the factor is the **median of the ratios**, so lines that changed on
  their own (fewer than half) do not move it. Its interval is the distribution-free
  order-statistic interval of a median: from the k-th smallest to the k-th largest ratio,
  with k the largest rank for which ``P(Binomial(n, 1/2) < k) <= (1 - CONFIDENCE) / 2``; its
  coverage (at least ``CONFIDENCE``) is exact whatever the ratios' distribution. It needs
  ``MIN_LINES`` lines (with fewer, every line is its own model-wide change: no estimate, the
  lines are judged against the baseline as they are);
* the model **changed as a whole** when the interval excludes 1 (``ModelWide.changed``);
* **the lines' scatter** around it (``spread``): the median absolute deviation of the log
  ratios as a standard deviation, less (in variance) what the lines' own run-to-run
  sampling explains. Two sessions of one model under different load do not slow every line
  exactly alike (memory-bound and compute-bound lines feel a neighbour differently); that
  scatter, with the line's own sampling error, is the yardstick of a line's own change;
* **a line** is then judged against ``factor x base`` (``gate``): the per-line rank test on
  the per-run values, the base's runs scaled by the factor; its excess over that prediction
  against the limit; and its log ratio more than ``SPREAD_LIMIT`` standard deviations
  (scatter and sampling error together) above the factor's.

A line's ratio is that of the medians of its per-run values when both runs have them (one
preempted run does not make a line slower; the standard error of its logarithm from the
medians' order-statistic intervals), else that of its figures (no sampling error).

``model_wide_changes(comparison, metrics)`` gives the estimate of every result pair and
judged metric (what ``compare`` and ``check`` print). ``text`` writes one:
``model-wide +25.0% [+21.4%, +29.9%] over 14 lines (all lines alike): not judged per line``.

Pure; cost O(lines log lines) per result and metric.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Final, NamedTuple

from perfline.core.compare.comparison import Comparison, ResultComparison
from perfline.core.compare.deltas import EntityDelta, MetricDelta
from perfline.core.compare.selection import line_metrics, ranked_lines

#: Fewest judged lines a model-wide factor is estimated from.
MIN_LINES: Final = 6
#: Least coverage of the factor's interval.
CONFIDENCE: Final = 0.95
#: A line slower than the factor predicts by less than this many spreads is like the others.
SPREAD_LIMIT: Final = 3.0
#: The median absolute deviation of normal values times this is their standard deviation.
MAD_TO_SD: Final = 1.4826
#: The two-sided 95% quantile of the normal distribution.
NORMAL_95: Final = 1.959964


class ModelWide(NamedTuple):
    """The model-wide factor of one metric of one result pair (``None``: too few lines)."""

    metric: str
    lines: int
    factor: float | None
    low: float | None
    high: float | None
    coverage: float | None
    spread: float | None = None
    """How far the lines' ratios scatter around the factor beyond what their runs explain:
    the median absolute deviation of their logarithms as a standard deviation (x 1.4826),
    less (in variance) the lines' median sampling variance."""

    def beyond_spread(self, line: LineRatio) -> bool:
        """Whether a line's ratio lies more than ``SPREAD_LIMIT`` standard deviations above
        the factor, the scatter of the lines and the line's own sampling error together
        (always, when there is no factor)."""
        if self.factor is None:
            return True
        deviation = math.sqrt((self.spread or 0.0) ** 2 + line.error**2)
        return math.log(line.ratio / self.factor) > SPREAD_LIMIT * deviation

    @property
    def change(self) -> float | None:
        """factor - 1 (0.25 = every line 25% more, as the median line)."""
        return None if self.factor is None else self.factor - 1

    @property
    def changed(self) -> bool:
        """Whether the interval excludes 1: the whole model changed."""
        if self.low is None or self.high is None:
            return False
        return self.low > 1 or self.high < 1


def judged_rows(result: ResultComparison, metric: str) -> list[tuple[EntityDelta, MetricDelta]]:
    """The lines the gate judges for ``metric``: every line with it, call lines whose
    callees account for their change left out (they are judged on those lines)."""
    rows = ranked_lines(result, metric)
    return [(entity, delta) for entity, delta in rows if not delta.explained]


def factor_rows(
    rows: Sequence[tuple[EntityDelta, MetricDelta]],
) -> list[tuple[EntityDelta, MetricDelta]]:
    """The rows the model-wide factor is estimated from: those whose line calls none of the
    rows' lines (the lines that do not contain each other)."""
    at = {(entity.file, entity.new_line or entity.base_line) for entity, _ in rows}
    return [
        (entity, delta)
        for entity, delta in rows
        if not any((file, line) in at for file, line in entity.calls)
    ]


def model_wide_estimate(
    result: ResultComparison, metric: str, rows: Sequence[tuple[EntityDelta, MetricDelta]]
) -> ModelWide:
    """The model-wide estimate of ``metric`` from the judged ``rows`` (``factor_rows``)."""
    return estimate(metric, line_ratios(result, factor_rows(rows)))


class LineRatio(NamedTuple):
    """A line's ratio new / base and the standard error of its logarithm from the runs."""

    ratio: float
    error: float


def line_ratio(
    result: ResultComparison, entity: EntityDelta, delta: MetricDelta
) -> LineRatio | None:
    """A line's ratio new / base: of the medians of its per-run values when both runs have
    them (one slow run, a preemption, does not make a line look slower), with the standard
    error of its logarithm from the runs' own scatter (each median's from its order-statistic
    interval); else of its figures (error 0). ``None`` without a positive base."""
    base_runs, new_runs = line_runs(result, entity, delta)
    if base_runs and new_runs and min(base_runs) > 0 and min(new_runs) > 0:
        ratio = statistics.median(new_runs) / statistics.median(base_runs)
        variance = _median_variance(base_runs) + _median_variance(new_runs)
        return LineRatio(ratio, math.sqrt(variance))
    if delta.base is None or delta.new is None or delta.base <= 0 or delta.new <= 0:
        return None
    return LineRatio(delta.new / delta.base, 0.0)


def line_runs(
    result: ResultComparison, entity: EntityDelta, delta: MetricDelta
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The line's per-run values of the metric in both runs, the new run's in the base's unit
    (the deltas convert figures to the base's unit; the runs are kept as recorded): empty
    when either run has none."""
    base_runs = result.base_runs.get(entity.base_id or "", {}).get(delta.name)
    new_runs = result.new_runs.get(entity.new_id or "", {}).get(delta.name)
    if not base_runs or not new_runs:
        return (), ()
    return tuple(base_runs), tuple(
        value * _unit_factor(delta, base_runs, new_runs) for value in new_runs
    )


def _unit_factor(
    delta: MetricDelta, base_runs: Sequence[float], new_runs: Sequence[float]
) -> float:
    """The power of 1,000 (a time unit's step) the figures were scaled by, seen from the
    figures and their runs' means; 1 when they agree."""
    base_mean = statistics.fmean(base_runs)
    new_mean = statistics.fmean(new_runs)
    if not (delta.base and delta.new and base_mean > 0 and new_mean > 0):
        return 1.0
    seen = (delta.new / new_mean) / (delta.base / base_mean)
    steps = math.log(seen, 1000)
    nearest = round(steps)
    return 1000.0**nearest if nearest and abs(steps - nearest) < 0.1 else 1.0


def _median_variance(values: Sequence[float]) -> float:
    """The variance of the logarithm of the median of ``values``, from its distribution-free
    95% interval (the order statistics ``interval_rank`` gives; as wide as 2 x 1.96 standard
    errors), so it holds for the lumpy, many-moded timings of real runs."""
    ordered = sorted(math.log(value) for value in values)
    rank, _ = interval_rank(len(ordered), CONFIDENCE)
    width = ordered[len(ordered) - rank] - ordered[rank - 1]
    return (width / (2 * NORMAL_95)) ** 2


def line_ratios(
    result: ResultComparison, rows: Sequence[tuple[EntityDelta, MetricDelta]]
) -> list[LineRatio]:
    """The ratio of every row that has one (``line_ratio``)."""
    ratios = (line_ratio(result, entity, delta) for entity, delta in rows)
    return [ratio for ratio in ratios if ratio is not None]


def estimate(metric: str, lines: Sequence[LineRatio]) -> ModelWide:
    """The median ratio, its order-statistic interval and the lines' scatter (see the module
    docstring)."""
    count = len(lines)
    if count < MIN_LINES:
        return ModelWide(metric, count, None, None, None, None)
    ordered = sorted(line.ratio for line in lines)
    middle = count // 2
    median = ordered[middle] if count % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    rank, coverage = interval_rank(count, CONFIDENCE)
    logs = [math.log(ratio) for ratio in ordered]
    centre = math.log(median)
    scatter = MAD_TO_SD * statistics.median(abs(value - centre) for value in logs)
    sampling = statistics.median(line.error**2 for line in lines)
    spread = math.sqrt(max(0.0, scatter**2 - sampling))
    return ModelWide(
        metric, count, median, ordered[rank - 1], ordered[count - rank], coverage, spread
    )


def interval_rank(count: int, confidence: float) -> tuple[int, float]:
    """(k, coverage): the k-th smallest and k-th largest of ``count`` values cover their
    median with probability ``coverage >= confidence`` (k >= 1; k = 1 when nothing better)."""
    tail = (1 - confidence) / 2
    cumulative = 0.0
    rank = 1
    for below in range(count + 1):
        cumulative += math.comb(count, below) / 2**count
        if cumulative > tail:
            break
        rank = below + 1
    excluded = sum(math.comb(count, below) for below in range(rank)) / 2**count
    return rank, 1 - 2 * excluded


def model_wide_changes(
    comparison: Comparison, metrics: Sequence[str] = ()
) -> list[tuple[ResultComparison, ModelWide]]:
    """The model-wide estimate of every result pair and judged metric."""
    estimates: list[tuple[ResultComparison, ModelWide]] = []
    for result in comparison.results:
        for metric in line_metrics(result, metrics):
            rows = judged_rows(result, metric)
            estimates.append((result, model_wide_estimate(result, metric, rows)))
    return estimates


def model_wide_text(
    model_wide: ModelWide,
    limit: float | None = None,
    *,
    regressed: bool | None = None,
    gate: bool = True,
) -> str:
    """One line for a report. ``limit``: the gate's largest allowed regression, if any;
    ``regressed``: whether the gate judged the change a regression beyond it (else: a rise
    beyond the limit; a fall is never "beyond the limit" of a regression); ``gate``: the
    lines are judged against the factor (``check``), else against the baseline
    (``compare``'s table, which says so)."""
    if model_wide.factor is None or model_wide.change is None:
        return (
            f"model-wide: not estimated ({model_wide.lines} line(s) with {model_wide.metric} in "
            f"both runs; {MIN_LINES} needed): every line judged against the baseline"
        )
    low = model_wide.low if model_wide.low is not None else model_wide.factor
    high = model_wide.high if model_wide.high is not None else model_wide.factor
    scatter = math.exp(model_wide.spread or 0.0) - 1  # beyond the runs' own
    head = (
        f"model-wide {model_wide.change:+.1%} [{low - 1:+.1%}, {high - 1:+.1%}] over "
        f"{model_wide.lines} lines ({model_wide.metric}, median line ratio, "
        f"{model_wide.coverage or 0:.0%} interval; lines scatter {scatter:.1%} around it)"
    )
    if not gate:
        if not model_wide.changed:
            return f"{head}: no model-wide change"
        return (
            f"{head} (all lines alike): the verdicts below are against the baseline; "
            "perfline check judges each line against the model-wide change"
        )
    blind = ""
    floor = math.exp(SPREAD_LIMIT * (model_wide.spread or 0.0)) - 1
    if limit is not None and floor > limit:
        blind = f"; a line's own change below about +{floor:.0%} is not told apart from it"
    if not model_wide.changed:
        return f"{head}: no model-wide change; lines judged against it{blind}"
    if regressed is None:
        regressed = limit is not None and model_wide.change > limit
    beyond = ", beyond the limit" if regressed else ""
    return f"{head} (all lines alike{beyond}): not judged per line; lines judged against it{blind}"
