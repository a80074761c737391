"""The CI gate's judgement of code lines that only the new run has (a statement added to the
model, or one that now runs where it did not).

Such a line has no baseline to be a ratio of: its change is beyond any ``--max-regression``.
What decides is what it adds to the model: its share of the new run's total of the metric
(``model_share``: of run medians, where there are runs). A new line **fails the gate** when
that share exceeds the floor every line's change must clear (``min_share``, ``--min-share``,
0.5% by default) and the policy is ``fail`` (the default); ``warn`` (``--new-lines warn``)
reports it only, for a refactoring that moved code where no line map says so (its old line
then shows as removed). A new call line is left to the gate, which judges the lines it calls
(its figure includes theirs); a metric where higher is better (a rate) is not judged on a new
line.

Cost: one share per new line (the model's total once per metric, ``model_share``).
"""

from __future__ import annotations

from typing import Final, Literal, NamedTuple

from perfline.core.compare.comparison import ResultComparison
from perfline.core.compare.deltas import EntityDelta, MetricDelta, higher_is_better
from perfline.core.compare.model_share import total, typical

NewLinesPolicy = Literal["fail", "warn"]
NEW_LINES_POLICIES: Final = ("fail", "warn")


class NewLine(NamedTuple):
    """A code line with a figure of the judged metric in the new run only."""

    result: ResultComparison
    entity: EntityDelta
    delta: MetricDelta
    value: float
    """Its typical figure: the median of its runs, else its figure (``model_share.typical``)."""
    total: float | None
    """The new run's model total of the metric (``None``: it has none)."""
    beyond: bool
    """Its share of the model exceeds the floor (it fails the gate with policy ``fail``)."""

    @property
    def share(self) -> float | None:
        """Its typical figure as a share of the new run's model total."""
        return None if self.total is None else self.value / self.total


def is_new(delta: MetricDelta) -> bool:
    """Whether a line's figure ``delta`` is in the new run only (and is its own)."""
    return delta.base is None and delta.new is not None and not delta.explained


def judge_new_line(
    result: ResultComparison, entity: EntityDelta, delta: MetricDelta, min_share: float
) -> NewLine:
    """The new line and whether it adds more than ``min_share`` of the model."""
    found = total(result, delta.name, delta.unit, "new")
    line = NewLine(result, entity, delta, typical(result, entity, delta, "new"), found, False)
    share = line.share
    beyond = (
        share is not None and share > min_share and not higher_is_better(delta.name, delta.unit)
    )
    return line._replace(beyond=beyond)


def describe_new_line(line: NewLine) -> str:
    """One line: ``FILE:LINE: new: METRIC +X UNIT (Y% of the model's Z UNIT)``."""
    delta = line.delta
    entity = line.entity
    unit = f" {delta.unit}" if delta.unit else ""
    text = f"{entity.file}:{entity.new_line}: new: {delta.name} +{line.value:.4g}{unit}"
    share = line.share
    if share is not None and line.total is not None:
        text += f" ({share:.1%} of the model's {line.total:.4g}{unit})"
    else:
        text += " (the new run has no model total of this metric)"
    return text
