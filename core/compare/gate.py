"""The CI gate: which lines regress beyond a limit (``perfline check``).

A line *regresses* when, for one of the judged metrics (``selection``), its
change is significant (``deltas``: adjusted p-value below the level for
sampled figures, beyond the estimate threshold for exact ones), worse in the
metric's direction, and larger than ``max_regression`` (0.05 = 5%) of the
base value. ``Verdict`` also lists every judged line (the JUnit test cases),
and counts the lines whose runs are too few for any change to be significant
and those with a figure in one run only (not judged).

A call line's change that the lines it calls account for (``explained``, see
``inclusive``) is not judged: the gate judges those lines, so a regression is
one regressing line, where it happens. ``Verdict.inclusive`` counts them. A
call line whose change they do not account for is judged like any line.

Cost: linear in the comparison's lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from perfline.core.compare.comparison import Comparison, ResultComparison
from perfline.core.compare.deltas import REGRESSION, SAMPLES, EntityDelta, MetricDelta
from perfline.core.compare.selection import line_metrics, ranked_lines
from perfline.core.compare.significance import smallest_p


class JudgedLine(NamedTuple):
    """One code line and one judged metric."""

    result: ResultComparison
    entity: EntityDelta
    delta: MetricDelta
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

    @property
    def regressions(self) -> tuple[JudgedLine, ...]:
        """The lines that fail the gate, largest change first."""
        return tuple(line for line in self.lines if line.regressed)

    @property
    def passed(self) -> bool:
        """Whether no line regresses beyond the limit."""
        return not self.regressions


def judge(comparison: Comparison, max_regression: float, metrics: Sequence[str] = ()) -> Verdict:
    """Judge every code line of every result pair (see the module docstring)."""
    judged: list[JudgedLine] = []
    underpowered = one_sided = inclusive = 0
    settings = comparison.settings
    for result in comparison.results:
        for metric in line_metrics(result, metrics):
            rows = ranked_lines(result, metric)
            inclusive += sum(1 for _, delta in rows if delta.explained)
            rows = [(entity, delta) for entity, delta in rows if not delta.explained]
            family = sum(1 for _, delta in rows if delta.method == SAMPLES)
            # The smallest p-value of a family passes the correction when p * m < level
            # (Holm's first step; Benjamini-Hochberg's bound for its smallest p-value).
            bar = (
                settings.level / family
                if family and settings.correction != "none"
                else (settings.level)
            )
            for entity, delta in rows:
                if delta.base is None or delta.new is None:
                    one_sided += 1
                    continue
                if delta.method == SAMPLES and smallest_p(delta.base_runs, delta.new_runs) >= bar:
                    underpowered += 1
                relative = delta.relative
                regressed = (
                    delta.significant
                    and delta.verdict == REGRESSION
                    and (relative is None or abs(relative) > max_regression)
                )
                judged.append(JudgedLine(result, entity, delta, regressed))
    return Verdict(tuple(judged), max_regression, underpowered, one_sided, inclusive)


def describe(line: JudgedLine) -> str:
    """A one-line message: what changed on the line, by how much, how it was judged."""
    delta = line.delta
    entity = line.entity
    unit = f" {delta.unit}" if delta.unit else ""
    relative = delta.relative
    change = f"{relative:+.1%}" if relative is not None else "from zero"
    where = f"{entity.file}:{entity.new_line}"
    text = f"{where}: {delta.name} {delta.base:.4g}{unit} -> {delta.new:.4g}{unit} ({change})"
    if delta.method == SAMPLES:
        text += (
            f"; Mann-Whitney U over {delta.base_runs} and {delta.new_runs} runs, adjusted "
            f"p = {delta.p_adjusted:.3g}"
        )
    else:
        text += "; compared exactly (no per-run values)"
    return text
