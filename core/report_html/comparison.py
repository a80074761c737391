"""The compare view of the HTML report: baseline, new and delta of every figure the page shows.

``result_deltas(compared, metric, settings, baseline)`` reads one result pair of the compare
core's answer (``core.compare.compare_documents``) as the page shows it: per entity of the
current result, its figure of the page's metric (the view's dominant metric) in both runs and
how significant the difference is; the entities only one run has; the result-level metrics.
The verdicts are the comparison's, never recomputed here; each becomes one of four
significances:

* ``regressed`` / ``improved``: the comparison called the change significant (verdict
  ``regression`` / ``improvement``): a rank test of the runs' per-run values after the
  family's correction, or an estimate beyond the threshold;
* ``unchanged``: equal figures, a change within the runs' noise (verdict ``noise``) when the
  test could have detected one, or an estimate within the threshold;
* ``inconclusive``: the comparison could not tell: too few runs for any change of the family to
  reach the level after its correction (Holm: the family's size times the smallest p-value the
  test can give for those run counts is not below the level; Benjamini-Hochberg or none: that
  p-value itself is not), different units, or the figure in one run only.

A call line's significant change that the lines it calls account for (``explained``,
``core.compare.inclusive``) is shown ``unchanged`` with an ``inclusive`` note: it is counted
on those lines (an explained change within the noise is judged like any figure, in the
family of explained changes the compare core tests it in).

Only ``regressed`` and ``improved`` are coloured as changes. ``comparison_view(deltas,
entities)`` is the page data of one view (entities by their number in the view's entity table,
so only what the page shows is written; strings shared through a list); ``comparison_payload``
the page-wide part (the two runs, how figures are judged, warnings). Pure; linear in the result
pair's entity deltas.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from perfline.core.compare.comparison import Comparison, ResultComparison
from perfline.core.compare.deltas import (
    ADDED,
    INCLUSIVE_FAMILY,
    INCOMPARABLE,
    REGRESSION,
    REMOVED,
    SAMPLES,
    UNCHANGED,
    CompareSettings,
    EntityDelta,
    MetricDelta,
)
from perfline.core.compare.significance import smallest_p
from perfline.core.report_html.entity_table import EntityTable, rounded
from perfline.core.report_html.labels import Metric

Significance = Literal["improved", "regressed", "unchanged", "inconclusive"]
SIGNIFICANCES: Final[tuple[Significance, ...]] = (
    "improved",
    "regressed",
    "unchanged",
    "inconclusive",
)
#: Added and removed entities listed on the page (their counts are always complete).
MAX_CHANGES_LISTED: Final = 200
#: The note of a call line's change that the lines it calls account for; the page script
#: tells it by its first word (``inclusive``) and says where the change is counted.
INCLUSIVE_NOTE: Final = "inclusive: the lines this line calls account for the change"


@dataclass(frozen=True)
class PageDelta:
    """One entity's figure in the baseline and now, and what the difference means."""

    entity_id: str
    """The current run's id (the baseline's for the result-level metrics: ``""``)."""
    metric: str
    unit: str
    """The compare core's unit: the baseline's (times of the new run are converted to it)."""
    baseline: float | None
    current: float | None
    significance: Significance
    note: str | None = None
    """How it was judged (``Mann-Whitney U over 30 and 30 runs, holm``), or why it could not be."""
    p_adjusted: float | None = None

    @property
    def delta(self) -> float | None:
        if self.baseline is None or self.current is None:
            return None
        return self.current - self.baseline


@dataclass(frozen=True)
class EntityChange:
    """An entity with figures in one run only."""

    status: Literal["added", "removed"]
    kind: str
    name: str
    entity_id: str
    """Its id in the run that has it."""
    file: str | None
    line: int | None
    value: float | None
    """Its figure of the page's metric in that run, if it has one."""
    unit: str


@dataclass(frozen=True)
class ResultDeltas:
    """One result of the current document against its baseline, as the page shows it."""

    baseline: str
    result: int = 0
    """The result's position in the current document."""
    base_result: int = 0
    metric: str = ""
    unit: str = ""
    deltas: tuple[PageDelta, ...] = ()
    added: tuple[EntityChange, ...] = ()
    removed: tuple[EntityChange, ...] = ()
    model: tuple[PageDelta, ...] = ()
    """The result-level metrics (inference time...), every one both runs have or either has."""
    counts: Mapping[str, Mapping[str, int]] | None = None
    """kind -> common / added / removed entity counts (figures or not), from the comparison."""


def _pick(entity: EntityDelta, name: str) -> MetricDelta | None:
    """The delta of metric ``name`` without identifying qualifiers, else its first one."""
    first = None
    for delta in entity.metrics:
        if delta.name == name:
            if not delta.qualifiers:
                return delta
            first = first or delta
    return first


def _family(kind: str, delta: MetricDelta) -> tuple[str, str, str]:
    """The family the compare core tests ``delta`` in: (kind, metric, qualifiers), a call
    line's explained changes in a family of their own (``DeltaBuilder.explain``)."""
    return (kind + INCLUSIVE_FAMILY if delta.explained else kind, delta.name, delta.qualifiers)


def _families(entities: Sequence[EntityDelta]) -> dict[tuple[str, str, str], int]:
    """(kind, metric, qualifiers) -> how many figures were tested on samples (the family the
    compare core corrects over)."""
    sizes: dict[tuple[str, str, str], int] = {}
    for entity in entities:
        for delta in entity.metrics:
            if delta.method == SAMPLES:
                key = _family(entity.kind, delta)
                sizes[key] = sizes.get(key, 0) + 1
    return sizes


def _underpowered(delta: MetricDelta, family: int, settings: CompareSettings) -> bool:
    """Whether no change of the family could have reached the level (see the module text)."""
    floor = smallest_p(delta.base_runs, delta.new_runs)
    if settings.correction == "holm":
        floor *= max(family, 1)
    return floor >= settings.level


def judge(
    delta: MetricDelta, family: int, settings: CompareSettings
) -> tuple[Significance, str | None]:
    """The significance of one metric delta, and how it was judged."""
    if delta.method == INCOMPARABLE:
        return "inconclusive", "the runs state this figure in different units"
    if delta.verdict == ADDED or delta.base is None:
        return "inconclusive", "only in the new run"
    if delta.verdict == REMOVED or delta.new is None:
        return "inconclusive", "only in the baseline"
    if delta.explained and delta.significant:
        return "unchanged", INCLUSIVE_NOTE
    if delta.method == SAMPLES:
        correction = (
            "no correction"
            if settings.correction == "none"
            else (
                "a single test (no correction)"
                if family <= 1
                else f"{settings.correction} correction over {family} figures"
            )
        )
        how = f"Mann-Whitney U over {delta.base_runs} and {delta.new_runs} runs, {correction}"
        if delta.significant:
            return ("regressed" if delta.verdict == REGRESSION else "improved"), how
        if delta.verdict != UNCHANGED and _underpowered(delta, family, settings):
            return "inconclusive", f"too few runs to tell ({how})"
        return "unchanged", how
    how = "compared exactly (no per-run values)"
    if settings.estimate_threshold > 0:
        how += f", threshold {settings.estimate_threshold:.1%}"
    if delta.significant:
        return ("regressed" if delta.verdict == REGRESSION else "improved"), how
    return "unchanged", how


def _figure(
    entity_id: str, delta: MetricDelta, family: int, settings: CompareSettings
) -> PageDelta:
    significance, note = judge(delta, family, settings)
    return PageDelta(
        entity_id,
        delta.name,
        delta.unit,
        delta.base,
        delta.new,
        significance,
        note,
        delta.p_adjusted,
    )


def _change(entity: EntityDelta, picked: MetricDelta | None, metric: Metric) -> EntityChange:
    added = entity.status == "added"
    value = None
    if picked is not None:
        value = picked.new if added else picked.base
    return EntityChange(
        "added" if added else "removed",
        entity.kind,
        entity.name,
        (entity.new_id if added else entity.base_id) or "",
        entity.file,
        entity.new_line if added else entity.base_line,
        value,
        picked.unit if picked is not None else metric.unit,
    )


def _by_size(changes: list[EntityChange]) -> tuple[EntityChange, ...]:
    changes.sort(key=lambda c: (c.kind != "code_line", -(abs(c.value) if c.value else 0.0)))
    return tuple(changes)


def result_deltas(
    compared: ResultComparison, metric: Metric, settings: CompareSettings, baseline: str
) -> ResultDeltas:
    """What the page shows of one result pair for ``metric`` (see the module docstring)."""
    families = _families(compared.entities)
    deltas: list[PageDelta] = []
    added: list[EntityChange] = []
    removed: list[EntityChange] = []
    for entity in compared.entities:
        picked = _pick(entity, metric.name)
        if entity.status != "common":
            changes = added if entity.status == "added" else removed
            changes.append(_change(entity, picked, metric))
        if picked is None or entity.new_id is None:
            continue
        family = families.get(_family(entity.kind, picked), 0)
        deltas.append(_figure(entity.new_id, picked, family, settings))
    model_families = _families([compared.model])
    model = tuple(
        _figure("", delta, model_families.get(("model", delta.name, delta.qualifiers), 0), settings)
        for delta in compared.model.metrics
    )
    return ResultDeltas(
        baseline,
        compared.new_index,
        compared.base_index,
        metric.name,
        metric.unit,
        tuple(deltas),
        _by_size(added),
        _by_size(removed),
        model,
        compared.counts,
    )


def deltas_for_result(
    comparison: Comparison, position: int, metric: Metric | None
) -> ResultDeltas | None:
    """The deltas of the current document's result ``position``, if a pair holds it."""
    if metric is None:
        return None
    for compared in comparison.results:
        if compared.new_index == position:
            return result_deltas(compared, metric, comparison.settings, comparison.base_source)
    return None


class _Strings:
    def __init__(self) -> None:
        self.items: dict[str, int] = {}

    def ref(self, text: str | None) -> int:
        if text is None:
            return -1
        return self.items.setdefault(text, len(self.items))


def _change_rows(changes: Sequence[EntityChange], strings: _Strings) -> list[list[Any]]:
    return [
        [strings.ref(c.kind), c.name, c.file, c.line, rounded(c.value), strings.ref(c.unit)]
        for c in changes[:MAX_CHANGES_LISTED]
    ]


def comparison_view(deltas: ResultDeltas | None, entities: EntityTable) -> dict[str, Any] | None:
    """One view's compare data: ``deltas`` rows ``[entity, base, new, delta, significance, p,
    note(, unit)]`` for the entities the page shows (numbers into the view's entity table, the
    significance list and the string list; the unit only where it is not the view's: the
    compare core states figures in the baseline's unit), the lines' tally by significance, the
    model-level
    rows ``[name, unit, base, new, delta, significance, p, note]``, and the added and removed
    entities ``[kind, name, file, line, value, unit]`` (the largest ``MAX_CHANGES_LISTED``;
    the counts are complete)."""
    if deltas is None:
        return None
    strings = _Strings()
    rows: list[list[Any]] = []
    tally = dict.fromkeys(SIGNIFICANCES, 0)
    for figure in deltas.deltas:
        ref = entities.find(figure.entity_id)
        if ref is None:
            continue
        row = [ref, *_figure_cells(figure, strings)]
        if figure.unit != deltas.unit:  # the baseline states it in another time unit
            row.append(strings.ref(figure.unit))
        rows.append(row)
        if entities.kind_of(ref) == "code_line" and figure.baseline is not None:
            tally[figure.significance] += 1
    model = [[f.metric, f.unit, *_figure_cells(f, strings)] for f in deltas.model]
    return {
        "base_result": deltas.base_result,
        "metric": {"name": deltas.metric, "unit": deltas.unit},
        "deltas": rows,
        "lines": tally,
        "model": model,
        "added": _change_rows(deltas.added, strings),
        "removed": _change_rows(deltas.removed, strings),
        "added_count": len(deltas.added),
        "removed_count": len(deltas.removed),
        "counts": {kind: dict(c) for kind, c in (deltas.counts or {}).items()},
        "strings": list(strings.items),
    }


def _figure_cells(figure: PageDelta, strings: _Strings) -> list[Any]:
    """A figure's cells of a compare row: ``[base, new, delta, significance, p, note]``."""
    return [
        rounded(figure.baseline),
        rounded(figure.current),
        rounded(figure.delta),
        SIGNIFICANCES.index(figure.significance),
        _p(figure.p_adjusted),
        strings.ref(figure.note),
    ]


def _p(value: float | None) -> float | None:
    return None if value is None else float(f"{value:.3g}")


def comparison_payload(comparison: Comparison | None) -> dict[str, Any] | None:
    """The page-wide compare data: the two runs, how figures are judged, the warnings."""
    if comparison is None:
        return None
    settings = comparison.settings
    return {
        "baseline": comparison.base_source,
        "current": comparison.new_source,
        "level": settings.level,
        "correction": settings.correction,
        "estimate_threshold": settings.estimate_threshold,
        "significances": list(SIGNIFICANCES),
        "warnings": list(comparison.warnings),
    }
