"""A line entry's change against its job's baseline, and how a hint writes it.

``DeltaLookup`` finds, for a line entry (one job's code line), the comparison of the
job's current result with its baseline (``compare_surface.ComparisonSource``, ready
comparisons only: nothing here waits) and the entry's ``EntityDelta`` in it, by the new
run's entity id (so the line's place in the edited buffer does not matter). ``change``
is what a hint shows of one metric's delta: ``▲12%`` (``core.figure_text.format_change``)
when the change is *significant* (sampled figures: the corrected rank test of the
runs; estimates: beyond the estimate threshold), and nothing otherwise: a change
within the runs' own spread is never shown. Pure over the answers of the engine and
the comparisons; one look-up per job per lookup, then dictionary look-ups.
"""

from __future__ import annotations

from typing import NamedTuple

from perfline.core import figure_text
from perfline.core.compare.comparison import ResultComparison
from perfline.core.compare.deltas import CompareSettings, EntityDelta, MetricDelta
from perfline.server.line_entries import LineEntry
from perfline.server.view.compare_surface import ComparisonSource, JobComparisonView
from perfline.server.view.engine_surface import EngineSurface


class LineDelta(NamedTuple):
    """An entry's delta: its job's comparison, the result pair and the entity's delta."""

    job: JobComparisonView
    result: ResultComparison
    entity: EntityDelta


class DeltaLookup:
    """Entries -> their deltas, for one engine state and one client's settings."""

    def __init__(
        self, source: ComparisonSource | None, engine: EngineSurface, settings: CompareSettings
    ) -> None:
        self._source = source
        self._engine = engine
        self._settings = settings
        self._jobs: dict[str, JobComparisonView | None] = {}

    def job(self, name: str) -> JobComparisonView | None:
        """The ready comparison of job ``name``'s current result (``None``: none yet)."""
        if self._source is None:
            return None
        if name not in self._jobs:
            good = self._engine.result(name)
            found = None
            if good is not None:
                found = self._source.comparison(name, good.generation, self._settings)
            self._jobs[name] = found
        return self._jobs[name]

    def of(self, entry: LineEntry) -> LineDelta | None:
        """The entry's delta, when its job has a ready comparison that pairs its result."""
        job = self.job(entry.facts.job)
        if job is None:
            return None
        result = job.result(entry.facts.result_index)
        if result is None:
            return None
        entity = result.entity(entry.facts.entity_id)
        return None if entity is None else LineDelta(job, result, entity)


def metric_delta(entity: EntityDelta, name: str) -> MetricDelta | None:
    """The delta of metric ``name`` (its unqualified figure first)."""
    found = entity.metric(name)
    if found is not None:
        return found
    for delta in entity.metrics:
        if delta.name == name:
            return delta
    return None


def change(delta: MetricDelta | None) -> str:
    """``▲12%`` for a significant change of the line's own, ``""`` otherwise (noise,
    unchanged, one-sided, or a call line's change that the lines it calls account for)."""
    if delta is None or not delta.counted:
        return ""
    relative = delta.relative
    if relative is None or relative == 0:
        return ""
    return figure_text.format_change(relative)


def entry_change(lookup: DeltaLookup | None, entry: LineEntry, metric: str | None) -> str:
    """What an entry's hint shows of its change in ``metric`` (``""``: nothing)."""
    if lookup is None or metric is None:
        return ""
    found = lookup.of(entry)
    if found is None:
        return ""
    return change(metric_delta(found.entity, metric))
