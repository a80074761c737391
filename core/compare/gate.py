"""The CI gate: which lines regress beyond a limit (``perfline check``).

First the model-wide change (``model_wide``): the median of the judged lines' ratios
new / base, with its order-statistic interval. Each line is then judged against what that
factor predicts for it (``factor x base``), so a busy machine that slows every line alike
fails no line:

* **sampled figures** (per-run values in both runs): the two-sided Mann–Whitney U test of
  the new runs against the base runs scaled by the factor; the p-values of one family (the
  judged lines of one metric in one result pair) are adjusted by the comparison's correction
  (Holm by default), and the change is significant when the adjusted p-value is below the
  level;
* **exact figures** (estimates): significant when the new figure differs from the prediction
  by more than the comparison's ``estimate_threshold`` (beyond float rounding);

and a line **regresses** when its change is significant, slower than predicted, its excess
over the prediction (``ratio / factor - 1``, the ratio of its per-run medians) is larger than
``max_regression`` (0.05 = 5%), and its ratio lies more than ``model_wide.SPREAD_LIMIT``
times the lines' scatter above the factor (a line is not singled out for a slowdown the
other lines show in as much measure). With fewer than ``model_wide.MIN_LINES`` lines there
is no factor (1): lines are judged against the baseline as they are.

The model-wide change itself is a regression when its interval lies above 1 and the factor
exceeds the limit; ``model_wide="fail"`` makes such a change fail the gate, ``"warn"`` (the
default) only reports it. ``Verdict`` lists every judged line (the JUnit test cases) and
model-wide estimate, and counts the lines whose runs are too few for any change to be
significant and those with a figure in one run only (not judged). A gate that judged no
line is not a pass: ``Verdict.judged_nothing`` says why, and the CLI exits 2; nor is one whose
every judged line has too few runs for any change to be significant (``Verdict.blind``:
three steps against three can never give p < 0.05; ``runs_needed`` says how many would).

A call line's change that the lines it calls account for (``explained``, see
``inclusive``) is not judged: the gate judges those lines, so a regression is one regressing
line, where it happens. ``Verdict.inclusive`` counts them. A call line whose change they do
not account for is judged like any line.

Cost: linear in the comparison's lines, plus one rank test per sampled line.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Final, Literal, NamedTuple

from perfline.core.compare.comparison import Comparison, ResultComparison
from perfline.core.compare.deltas import (
    SAMPLES,
    EntityDelta,
    MetricDelta,
    beyond,
    differs,
    higher_is_better,
)
from perfline.core.compare.model_wide import (
    LineRatio,
    ModelWide,
    line_ratio,
    line_runs,
    model_wide_estimate,
    model_wide_text,
)
from perfline.core.compare.selection import line_metrics, ranked_lines
from perfline.core.compare.significance import adjust, mann_whitney_p, smallest_p

ModelWidePolicy = Literal["fail", "warn"]
MODEL_WIDE_POLICIES: Final = ("fail", "warn")


class JudgedLine(NamedTuple):
    """One code line and one judged metric."""

    result: ResultComparison
    entity: EntityDelta
    delta: MetricDelta
    regressed: bool
    factor: float = 1.0
    """The model-wide factor the line was judged against (1: none)."""
    p_adjusted: float | None = None
    """The adjusted p-value of the line against ``factor x base`` (sampled figures)."""
    measured: LineRatio | None = None
    """The line's ratio new / base (``model_wide.line_ratio``: of its per-run medians)."""

    @property
    def ratio(self) -> float | None:
        """The line's ratio new / base, if it has one."""
        return None if self.measured is None else self.measured.ratio

    @property
    def expected(self) -> float | None:
        """What the model-wide factor predicts for the line's figure: factor x base."""
        return None if self.delta.base is None else self.factor * self.delta.base

    @property
    def excess(self) -> float | None:
        """ratio / factor - 1: the line's own change beyond the model-wide one."""
        if self.ratio is None:
            expected = self.expected
            if expected is None or self.delta.new is None or expected == 0:
                return None
            return self.delta.new / expected - 1
        return self.ratio / self.factor - 1


class ModelWideJudged(NamedTuple):
    """One result pair's model-wide estimate for one metric, and whether it regressed."""

    result: ResultComparison
    estimate: ModelWide
    regressed: bool


class Verdict(NamedTuple):
    """The gate's answer."""

    lines: tuple[JudgedLine, ...]
    max_regression: float
    underpowered: int
    """Sampled lines whose run counts cannot give a p-value that survives the correction."""
    one_sided: int = 0
    """Lines with a figure of a judged metric in one run only (not judged)."""
    inclusive: int = 0
    """Call lines whose change the lines they call account for (not judged: those are)."""
    model_wide: tuple[ModelWideJudged, ...] = ()
    policy: ModelWidePolicy = "warn"

    @property
    def regressions(self) -> tuple[JudgedLine, ...]:
        """The lines that fail the gate, largest change first."""
        return tuple(line for line in self.lines if line.regressed)

    @property
    def model_wide_regressions(self) -> tuple[ModelWideJudged, ...]:
        """Model-wide changes beyond the limit (they fail the gate with policy ``fail``)."""
        return tuple(item for item in self.model_wide if item.regressed)

    @property
    def passed(self) -> bool:
        """Whether no line regresses beyond the limit (nor, with ``fail``, the model)."""
        if self.policy == "fail" and self.model_wide_regressions:
            return False
        return not self.regressions

    @property
    def judged_nothing(self) -> bool:
        """No line was judged: the gate has not passed anything."""
        return not self.lines

    @property
    def blind(self) -> bool:
        """Every judged line has too few runs for any change to be significant (and the
        model-wide change does not fail the gate): it could not have found a regression."""
        blind = bool(self.lines) and self.underpowered >= len(self.lines)
        return blind and not (self.policy == "fail" and self.model_wide_regressions)


def runs_needed(lines: int, level: float, correction: str) -> int:
    """The fewest runs per side (as many in each) with which a change of one of ``lines``
    sampled lines can be significant at ``level`` (the correction's first step: the smallest
    p-value must be below ``level / lines``)."""
    bar = level / max(lines, 1) if correction != "none" else level
    runs = 2
    while smallest_p(runs, runs) >= bar:
        runs += 1
    return runs


def judge(
    comparison: Comparison,
    max_regression: float,
    metrics: Sequence[str] = (),
    model_wide: ModelWidePolicy = "warn",
) -> Verdict:
    """Judge every code line of every result pair (see the module docstring)."""
    judged: list[JudgedLine] = []
    estimates: list[ModelWideJudged] = []
    underpowered = one_sided = inclusive = 0
    settings = comparison.settings
    for result in comparison.results:
        for metric in line_metrics(result, metrics):
            every = ranked_lines(result, metric)
            rows = [(entity, delta) for entity, delta in every if not delta.explained]
            inclusive += len(every) - len(rows)
            found = model_wide_estimate(result, metric, rows)
            factor = found.factor if found.factor is not None else 1.0
            upward = bool(rows) and higher_is_better(metric, rows[0][1].unit)
            regressed = _regressed(found, max_regression, upward)
            estimates.append(ModelWideJudged(result, found, regressed))
            family = sum(1 for _, delta in rows if delta.method == SAMPLES)
            # The smallest p-value of a family passes the correction when p * m < level
            # (Holm's first step; Benjamini-Hochberg's bound for its smallest p-value).
            bar = (
                settings.level / family
                if family and settings.correction != "none"
                else (settings.level)
            )
            pending: list[tuple[EntityDelta, MetricDelta, float | None]] = []
            for entity, delta in rows:
                if delta.base is None or delta.new is None:
                    one_sided += 1
                    continue
                if delta.method == SAMPLES and smallest_p(delta.base_runs, delta.new_runs) >= bar:
                    underpowered += 1
                pending.append((entity, delta, _p_value(result, entity, delta, factor)))
            sampled = [p for _, _, p in pending if p is not None]
            adjusted = iter(adjust(sampled, settings.correction))
            for entity, delta, p_value in pending:
                p_adjusted = next(adjusted) if p_value is not None else None
                judged.append(
                    _judged(
                        JudgedLine(
                            result,
                            entity,
                            delta,
                            False,
                            factor,
                            p_adjusted,
                            line_ratio(result, entity, delta),
                        ),
                        found,
                        max_regression,
                        comparison,
                    )
                )
    return Verdict(
        tuple(judged),
        max_regression,
        underpowered,
        one_sided,
        inclusive,
        tuple(estimates),
        model_wide,
    )


def _p_value(
    result: ResultComparison, entity: EntityDelta, delta: MetricDelta, factor: float
) -> float | None:
    """The rank test of the new runs against the base runs scaled by ``factor``."""
    if delta.method != SAMPLES or entity.base_id is None or entity.new_id is None:
        return None
    base_runs, new_runs = line_runs(result, entity, delta)
    if not base_runs or not new_runs:
        return delta.p_value
    if len(base_runs) != delta.base_runs or len(new_runs) != delta.new_runs:
        return delta.p_value  # the deltas were judged on other runs
    return mann_whitney_p([value * factor for value in base_runs], new_runs)


def _judged(
    line: JudgedLine, found: ModelWide, max_regression: float, comparison: Comparison
) -> JudgedLine:
    delta = line.delta
    p_adjusted = line.p_adjusted
    expected = line.expected
    new = delta.new
    if expected is None or new is None:
        return line
    if p_adjusted is not None:
        significant = p_adjusted < comparison.settings.level and differs(expected, new)
    elif delta.method == SAMPLES:
        significant = delta.significant
    else:
        significant = beyond(expected, new, comparison.settings.estimate_threshold)
    upward = higher_is_better(delta.name, delta.unit)
    worse = new < expected if upward else new > expected
    excess = line.excess
    if excess is not None and (excess < 0 if not upward else excess > 0):
        worse = False  # the line's runs say it did better than predicted
    regressed = significant and worse and (excess is None or abs(excess) > max_regression)
    if regressed and line.measured is not None and not upward:
        regressed = found.beyond_spread(line.measured)
    return line._replace(regressed=regressed)


def _regressed(found: ModelWide, max_regression: float, higher_is_better: bool) -> bool:
    """The whole model worse beyond the limit, its interval clear of 1."""
    change = found.change
    if change is None or found.low is None or found.high is None:
        return False
    if higher_is_better:
        return found.high < 1 and -change > max_regression
    return found.low > 1 and change > max_regression


def describe(line: JudgedLine) -> str:
    """A one-line message: what changed on the line, by how much, how it was judged."""
    delta = line.delta
    entity = line.entity
    unit = f" {delta.unit}" if delta.unit else ""
    relative = delta.relative
    change = f"{relative:+.1%}" if relative is not None else "from zero"
    where = f"{entity.file}:{entity.new_line}"
    text = f"{where}: {delta.name} {delta.base:.4g}{unit} -> {delta.new:.4g}{unit} ({change}"
    base_runs, new_runs = line_runs(line.result, entity, delta)
    if line.measured is not None and base_runs and new_runs:
        # the ratio judged is of the runs' medians: say them, as the figures may be means
        text += (
            f"; run medians {statistics.median(base_runs):.4g}{unit} -> "
            f"{statistics.median(new_runs):.4g}{unit}, {line.measured.ratio - 1:+.1%}"
        )
    excess = line.excess
    if line.factor != 1.0 and excess is not None:
        text += f"; {excess:+.1%} against the model-wide {line.factor - 1:+.1%}"
    text += ")"
    if delta.method == SAMPLES:
        against = " against the model-wide factor" if line.factor != 1.0 else ""
        p_adjusted = line.p_adjusted if line.p_adjusted is not None else delta.p_adjusted
        text += (
            f"; Mann-Whitney U over {delta.base_runs} and {delta.new_runs} runs{against}, "
            f"adjusted p = {p_adjusted:.3g}"
        )
    else:
        text += "; compared exactly (no per-run values)"
    return text


def describe_model_wide(item: ModelWideJudged, max_regression: float) -> str:
    """The model-wide line of a result pair (``model_wide.model_wide_text``)."""
    return model_wide_text(item.estimate, max_regression, regressed=item.regressed)
