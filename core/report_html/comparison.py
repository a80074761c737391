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
the page-wide part (the two runs, how figures are judged, warnings). Every number of it is
text made by ``core.figure_text``: a figure's change (``change_text``: ``▲ +1.2 ms (+12%)``:
▲ / ▼ the direction of a significant change, as the CLI and the editor mark it, ``~`` one
within the noise, ``=`` none, ``?`` one that cannot be told), its adjusted p-value, and the
baseline and new figures through one scale per unit (``page_texts.Scale``); ``line_changes``
is what the editor's hint adds to a line's label (``▲12%``, significant changes only). Pure;
linear in the result pair's entity deltas.
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
from perfline.core.figure_text import (
    DOWN,
    UP,
    format_change,
    format_difference,
    format_p_value,
    format_relative,
    format_value,
)
from perfline.core.report_html.entity_table import EntityTable
from perfline.core.report_html.labels import Metric
from perfline.core.report_html.page_texts import Scale, Texts, rounded

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


#: The mark of a change that is not a significant one (``change_mark``).
_MARKS: Final[dict[Significance, str]] = {
    "regressed": UP,
    "improved": DOWN,
    "unchanged": "~",
    "inconclusive": "?",
}


def change_mark(significance: Significance, delta: float) -> str:
    """▲ / ▼ for a significant change (the direction of the value: a rate that fell is a
    regression marked ▼), ``=`` for none, ``~`` within the noise, ``?`` cannot tell."""
    if significance in ("regressed", "improved") and delta:
        return UP if delta > 0 else DOWN
    if significance == "unchanged" and delta == 0:
        return "="
    return _MARKS[significance]


def change_text(figure: PageDelta) -> str | None:
    """``▲ +1.2 ms (+12%)``: the mark, the difference and the relative change (``from zero``
    from a zero baseline); ``None`` when a run lacks the figure."""
    base, delta = figure.baseline, figure.delta
    if base is None or delta is None:
        return None
    if base == 0:
        relative = "0%" if delta == 0 else "from zero"
    else:
        relative = format_relative(delta / abs(base))
    mark = change_mark(figure.significance, delta)
    return f"{mark} {format_difference(delta, figure.unit)} ({relative})"


def line_changes(deltas: ResultDeltas | None) -> dict[str, str]:
    """Entity id -> the change the editor's hint adds to its label (``▲12%``): significant
    changes only (``regressed`` / ``improved``), as ``server.view.line_deltas.change``."""
    found: dict[str, str] = {}
    for figure in deltas.deltas if deltas is not None else ():
        base, current = figure.baseline, figure.current
        if figure.significance not in ("regressed", "improved") or not base or current is None:
            continue
        relative = current / base - 1
        if relative:
            found[figure.entity_id] = format_change(relative)
    return found


def _change_rows(changes: Sequence[EntityChange], strings: Texts) -> list[list[Any]]:
    return [
        [
            strings.ref(c.kind),
            c.name,
            c.file,
            c.line,
            format_value(c.value, c.unit) if c.value is not None else None,
        ]
        for c in changes[:MAX_CHANGES_LISTED]
    ]


def comparison_view(deltas: ResultDeltas | None, entities: EntityTable) -> dict[str, Any] | None:
    """One view's compare data: ``deltas`` rows ``[entity, base, new, delta, significance,
    note, p, change(, unit)]`` for the entities the page shows (numbers into the view's entity
    table, the significance list and the string list: ``note``, ``p`` (the adjusted p-value's
    text) and ``change`` (``change_text``; ``-1`` when a run lacks the figure); the unit only
    where it is not the view's: the compare core states figures in the baseline's unit), the
    scale of the base and new figures' texts per unit (``scales``), the lines' tally by
    significance, the model-level rows ``[name, unit, base, new, change, significance, note,
    p]`` (texts), and the added and removed entities ``[kind, name, file, line, figure]``
    (the largest ``MAX_CHANGES_LISTED``; the counts are complete)."""
    if deltas is None:
        return None
    strings = Texts()
    scales: dict[str, Scale] = {}
    rows: list[list[Any]] = []
    tally = dict.fromkeys(SIGNIFICANCES, 0)
    for figure in deltas.deltas:
        ref = entities.find(figure.entity_id)
        if ref is None:
            continue
        scale = scales.get(figure.unit)
        if scale is None:
            scale = scales[figure.unit] = _value_scale(figure.unit)
        row = [
            ref,
            scale.add(figure.baseline),
            scale.add(figure.current),
            rounded(figure.delta),
            SIGNIFICANCES.index(figure.significance),
            strings.ref(figure.note),
            strings.ref(_p_text(figure.p_adjusted)),
            strings.ref(change_text(figure)),
        ]
        if figure.unit != deltas.unit:  # the baseline states it in another time unit
            row.append(strings.ref(figure.unit))
        rows.append(row)
        if entities.kind_of(ref) == "code_line" and figure.baseline is not None:
            tally[figure.significance] += 1
    return {
        "base_result": deltas.base_result,
        "metric": {"name": deltas.metric, "unit": deltas.unit},
        "deltas": rows,
        "scales": {unit: scale.payload() for unit, scale in scales.items()},
        "lines": tally,
        "model": [_model_row(f) for f in deltas.model],
        "added": _change_rows(deltas.added, strings),
        "removed": _change_rows(deltas.removed, strings),
        "added_count": len(deltas.added),
        "removed_count": len(deltas.removed),
        "counts": {kind: dict(c) for kind, c in (deltas.counts or {}).items()},
        "strings": strings.payload(),
    }


def _value_scale(unit: str) -> Scale:
    return Scale(lambda v: format_value(v, unit))


def _model_row(figure: PageDelta) -> list[Any]:
    """A result-level metric: ``[name, unit, base, new, change, significance, note, p]``."""
    unit = figure.unit
    return [
        figure.metric,
        unit,
        format_value(figure.baseline, unit) if figure.baseline is not None else None,
        format_value(figure.current, unit) if figure.current is not None else None,
        change_text(figure),
        SIGNIFICANCES.index(figure.significance),
        figure.note,
        _p_text(figure.p_adjusted),
    ]


def _p_text(value: float | None) -> str | None:
    return None if value is None else format_p_value(value)


def comparison_payload(comparison: Comparison | None) -> dict[str, Any] | None:
    """The page-wide compare data: the two runs, how figures are judged (``level`` and
    ``threshold`` as text, as ``perfline compare`` writes them), the warnings."""
    if comparison is None:
        return None
    settings = comparison.settings
    return {
        "baseline": comparison.base_source,
        "current": comparison.new_source,
        "level": f"{settings.level:g}",
        "correction": settings.correction,
        "threshold": f"{settings.estimate_threshold:.1%}",
        "significances": list(SIGNIFICANCES),
        "warnings": list(comparison.warnings),
    }
