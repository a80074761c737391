"""The model-wide factor's arithmetic (``core/compare/model_wide``), checked against sums
written out here."""

from __future__ import annotations

import math

import pytest

from perfline.core.compare.model_wide import (
    MIN_LINES,
    LineRatio,
    ModelWide,
    estimate,
    interval_rank,
    model_wide_text,
)


def _coverage(count: int, rank: int) -> float:
    """P(k-th smallest <= median <= k-th largest) = 1 - 2 P(Binomial(n, 1/2) <= k - 1)."""
    below = sum(math.comb(count, j) for j in range(rank)) / 2**count
    return 1 - 2 * below


@pytest.mark.parametrize("count", range(6, 40))
def test_the_interval_rank_is_the_largest_with_95_percent_coverage(count: int) -> None:
    rank, coverage = interval_rank(count, 0.95)
    assert coverage == pytest.approx(_coverage(count, rank))
    assert coverage >= 0.95
    assert _coverage(count, rank + 1) < 0.95  # one rank further in would not cover


def test_interval_ranks_of_common_line_counts() -> None:
    assert interval_rank(6, 0.95)[0] == 1  # min and max: 96.9%
    assert interval_rank(14, 0.95)[0] == 3  # 98.7%
    assert interval_rank(30, 0.95)[0] == 10


def test_estimate_takes_the_median_and_order_statistics() -> None:
    ratios = [1.25, 1.2, 1.3, 1.27, 1.22, 2.5, 1.24, 1.26]
    found = estimate("duration_avg", [LineRatio(r, 0.0) for r in ratios])
    ordered = sorted(ratios)
    assert found.factor == pytest.approx((ordered[3] + ordered[4]) / 2)
    rank, coverage = interval_rank(len(ratios), 0.95)
    assert (found.low, found.high, found.coverage) == (ordered[rank - 1], ordered[-rank], coverage)
    logs = [math.log(r) for r in ratios]
    centre = math.log(found.factor)
    mad = sorted(abs(value - centre) for value in logs)
    assert found.spread == pytest.approx(1.4826 * (mad[3] + mad[4]) / 2)
    assert found.changed and found.change == pytest.approx(found.factor - 1)
    # The line at 2.5x is far beyond the scatter of the others; one at 1.3x is not.
    assert found.beyond_spread(LineRatio(2.5, 0.0))
    assert not found.beyond_spread(LineRatio(1.3, 0.0))
    # Sampling error of the line itself widens what is within the scatter.
    assert not found.beyond_spread(LineRatio(2.5, 0.5))


def test_the_lines_sampling_error_is_taken_out_of_their_scatter() -> None:
    ratios = [0.9, 1.1, 1.0, 0.95, 1.05, 1.02]
    plain = estimate("m", [LineRatio(r, 0.0) for r in ratios])
    noisy = estimate("m", [LineRatio(r, 0.04) for r in ratios])
    assert plain.spread is not None and noisy.spread is not None
    assert noisy.spread == pytest.approx(math.sqrt(plain.spread**2 - 0.04**2))
    explained = estimate("m", [LineRatio(r, 1.0) for r in ratios])
    assert explained.spread == 0.0


def test_too_few_lines_give_no_estimate() -> None:
    found = estimate("cycles", [LineRatio(2.0, 0.0)] * (MIN_LINES - 1))
    assert found.factor is None and not found.changed
    assert found.beyond_spread(LineRatio(1.01, 0.0))  # nothing to be like: judged as it is
    assert model_wide_text(found) == (
        f"model-wide: not estimated ({MIN_LINES - 1} line(s) with cycles in both runs; "
        f"{MIN_LINES} needed): every line judged against the baseline"
    )


def test_the_text_names_the_change_its_interval_and_the_scatter() -> None:
    found = ModelWide("duration_avg", 14, 1.25, 1.2, 1.3, 0.987, 0.0)
    assert model_wide_text(found, 0.05) == (
        "model-wide +25.0% [+20.0%, +30.0%] over 14 lines (duration_avg, median line ratio, 99% "
        "interval; lines scatter 0.0% around it) (all lines alike, beyond the limit): not "
        "judged per line; lines judged against it"
    )
    unchanged = ModelWide("duration_avg", 14, 1.01, 0.98, 1.05, 0.987, 0.2)
    assert model_wide_text(unchanged, 0.05) == (
        "model-wide +1.0% [-2.0%, +5.0%] over 14 lines (duration_avg, median line ratio, 99% "
        "interval; lines scatter 22.1% around it): no model-wide change; lines judged against "
        "it; a line's own change below about +82% is not told apart from it"
    )


def test_a_model_wide_improvement_is_never_beyond_the_limit() -> None:
    """The limit is the largest *regression* allowed: a model 29% faster is named, not said
    to be beyond it (qa: ``model-wide -28.7% ... (all lines alike, beyond the limit)``)."""
    faster = ModelWide("cpu_time", 6, 0.713, 0.611, 0.833, 0.969, 0.0)
    assert model_wide_text(faster, 0.05) == (
        "model-wide -28.7% [-38.9%, -16.7%] over 6 lines (cpu_time, median line ratio, 97% "
        "interval; lines scatter 0.0% around it) (all lines alike): not judged per line; "
        "lines judged against it"
    )
    # a rate that fell is a regression: the gate says so, and the text follows it
    slower_rate = ModelWide("inferences_per_second", 6, 0.713, 0.611, 0.833, 0.969, 0.0)
    judged = model_wide_text(slower_rate, 0.05, regressed=True)
    assert "(all lines alike, beyond the limit)" in judged


def test_compare_says_its_verdicts_are_against_the_baseline() -> None:
    """``compare``'s table judges each line against the baseline: its model-wide line says
    so instead of "lines judged against it", which only ``check`` does."""
    found = ModelWide("duration_avg", 14, 1.25, 1.2, 1.3, 0.987, 0.0)
    assert model_wide_text(found, gate=False) == (
        "model-wide +25.0% [+20.0%, +30.0%] over 14 lines (duration_avg, median line ratio, 99% "
        "interval; lines scatter 0.0% around it) (all lines alike): the verdicts below are "
        "against the baseline; perfline check judges each line against the model-wide change"
    )
    unchanged = ModelWide("duration_avg", 14, 1.01, 0.98, 1.05, 0.987, 0.2)
    assert model_wide_text(unchanged, gate=False).endswith("around it): no model-wide change")


@pytest.mark.parametrize(
    ("lines", "correction", "runs"),
    [(1, "holm", 4), (6, "holm", 5), (15, "bh", 6), (15, "none", 4)],
)
def test_runs_needed_are_the_fewest_that_can_be_significant(
    lines: int, correction: str, runs: int
) -> None:
    """2 / C(2n, n) is the smallest two-sided p-value of n runs against n: 2/70 = 0.029 at
    4, 2/252 = 0.0079 at 5, 2/924 = 0.0022 at 6; the correction's first step asks for less
    than 0.05 / lines."""
    from perfline.core.compare.gate import runs_needed

    assert runs_needed(lines, 0.05, correction) == runs
    bar = 0.05 / lines if correction != "none" else 0.05
    assert 2 / math.comb(2 * runs, runs) < bar <= 2 / math.comb(2 * runs - 2, runs - 1)
