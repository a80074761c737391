"""Per-metric deltas of two aligned results, and which of them are real changes.

For every entity of both runs (lines, stacks, modules, operators, chains...)
and for the result-level metrics, each metric both runs have gets base, new,
delta (new - base) and ratio (new / base). A metric is identified by its name
and qualifiers (the mapping ``confidence`` and the per-run ``execution`` /
``perfline.run`` qualifiers aside: per-run figures are samples, not figures
to compare). Time units are converted to the base's (ns, us, ms, s).

Whether a change is real:

* **samples** (both runs have per-run values of the metric, see
  ``run_samples``): the two-sided Mann–Whitney U test of the runs; the
  p-values of one family (one entity kind and one metric across the result,
  e.g. every code line's ``duration_avg``; the result-level metrics form
  their own family) are adjusted by Holm (default) or Benjamini–Hochberg, and
  the change is significant when the adjusted p-value is below the level
  (default 0.05). A change within the runs' own spread is never called.
* **exact** (estimates, or a measured figure without per-run values on both
  sides): significant when it exceeds ``estimate_threshold`` of the base
  value (default 0: any change beyond float rounding, 1e-9 relative).

The verdict is ``regression`` or ``improvement`` (by the metric's direction:
higher is better only for rates and utilization, units ending in ``/s`` or
``%`` with ``utilization`` in the name), ``noise`` (a measured change that is
not significant), ``unchanged``, or ``added`` / ``removed`` (the metric, or
its entity, in one run only).

A call line's figures include the lines it calls (``EntityDelta.calls``); where those
lines account for its change (``inclusive``), the metric is marked ``explained`` and
tested in a family of its own.

Cost: linear in the metrics of both results, plus one test per sampled metric.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from perfline.core.compare.significance import Correction, adjust, mann_whitney_p
from perfline.core.unit_scale import unit_scale

SAMPLES: Final = "samples"
EXACT: Final = "exact"
ONE_SIDED: Final = "one-sided"
INCOMPARABLE: Final = "incomparable"

REGRESSION: Final = "regression"
IMPROVEMENT: Final = "improvement"
NOISE: Final = "noise"
UNCHANGED: Final = "unchanged"
ADDED: Final = "added"
REMOVED: Final = "removed"

#: Suffix of the family kind of call lines' explained changes (``DeltaBuilder.explain``).
INCLUSIVE_FAMILY: Final = "/inclusive"

#: Qualifiers that do not identify a figure (the mapping confidence) or mark a per-run figure.
_IGNORED_QUALIFIERS: Final = frozenset({"confidence"})
_PER_RUN_QUALIFIERS: Final = frozenset({"execution", "perfline.run"})
_FLOAT_TOLERANCE: Final = 1e-9


@dataclass(frozen=True)
class CompareSettings:
    """How changes are judged."""

    level: float = 0.05
    """Significance level of the adjusted p-values of sampled metrics."""
    correction: Correction = "holm"
    """Multiple-test control across a family: ``holm``, ``bh`` or ``none``."""
    estimate_threshold: float = 0.0
    """Relative change an exactly compared figure must exceed (0.05 = 5%)."""


class MetricDelta(NamedTuple):
    """One metric of one entity in both runs."""

    name: str
    qualifiers: str
    """Identifying qualifiers as sorted-key JSON (``""`` when there are none)."""
    unit: str
    base: float | None
    new: float | None
    method: str
    """``samples``, ``exact``, ``one-sided`` or ``incomparable`` (units differ)."""
    verdict: str
    significant: bool
    p_value: float | None = None
    p_adjusted: float | None = None
    base_runs: int = 0
    new_runs: int = 0
    explained: bool = False
    """A call line's change that the lines it calls account for (``inclusive``): reported,
    but the gate, its reports and the ranking count it on those lines instead."""

    @property
    def counted(self) -> bool:
        """A significant change that is this entity's own (not a call line's change its
        callees account for): what hints, warnings, colours and the gate show as a change."""
        return self.significant and not self.explained

    @property
    def delta(self) -> float | None:
        """new - base, when both exist."""
        if self.base is None or self.new is None:
            return None
        return self.new - self.base

    @property
    def ratio(self) -> float | None:
        """new / base, when both exist and base is not zero."""
        if self.base is None or self.new is None or self.base == 0:
            return None
        return self.new / self.base

    @property
    def relative(self) -> float | None:
        """ratio - 1 (0.12 = 12% more)."""
        ratio = self.ratio
        return None if ratio is None else ratio - 1


class EntityDelta(NamedTuple):
    """One entity (or the result itself, kind ``model``) in both runs."""

    kind: str
    name: str
    base_id: str | None
    new_id: str | None
    status: str
    """``common``, ``added`` (new run only) or ``removed`` (base run only)."""
    metrics: tuple[MetricDelta, ...]
    file: str | None = None
    """Recorded file of a code line, in the new run's terms (the base's when removed)."""
    base_line: int | None = None
    new_line: int | None = None
    calls: tuple[tuple[str, int], ...] = ()
    """A call line's called lines, (recorded file, line) in the new run's terms (the
    baseline's for a removed line): its figures include theirs (``core.call_lines``)."""

    def metric(self, name: str, qualifiers: str = "") -> MetricDelta | None:
        """The delta of one metric, if either run has it."""
        for delta in self.metrics:
            if delta.name == name and delta.qualifiers == qualifiers:
                return delta
        return None


class PendingTest(NamedTuple):
    """A sampled metric waiting for its family's adjustment."""

    family: tuple[str, str, str]
    entity: int
    metric: int
    p_value: float


def qualifier_key(metric: Mapping[str, Any]) -> str | None:
    """The identifying qualifiers of a figure as text; ``None`` for a per-run figure."""
    qualifiers = metric.get("qualifiers")
    if not qualifiers:
        return ""
    if not _PER_RUN_QUALIFIERS.isdisjoint(qualifiers):
        return None
    kept = {k: v for k, v in qualifiers.items() if k not in _IGNORED_QUALIFIERS}
    return json.dumps(kept, sort_keys=True, separators=(",", ":")) if kept else ""


def metric_table(metrics: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], Mapping[str, Any]]:
    """(name, qualifier key) -> the first available figure with that identity."""
    table: dict[tuple[str, str], Mapping[str, Any]] = {}
    for metric in metrics:
        value = metric.get("value")
        if value is None or isinstance(value, bool):
            continue
        key = qualifier_key(metric)
        if key is None:
            continue
        identity = (metric["name"], key)
        if identity not in table:
            table[identity] = metric
    return table


def higher_is_better(name: str, unit: str) -> bool:
    """Rates and utilization improve upwards; times, cycles, bytes and counts downwards."""
    lowered = name.lower()
    return (unit.endswith("/s") or "per_second" in lowered or "throughput" in lowered) or (
        "utilization" in lowered or "utilisation" in lowered
    )


class DeltaBuilder:
    """Collects entity deltas of one result pair; ``finish`` applies the families' adjustment."""

    def __init__(self, settings: CompareSettings) -> None:
        self.settings = settings
        self.entities: list[EntityDelta] = []
        self._tests: list[PendingTest] = []

    def add(
        self,
        kind: str,
        name: str,
        base: tuple[str | None, Sequence[Mapping[str, Any]] | None],
        new: tuple[str | None, Sequence[Mapping[str, Any]] | None],
        base_samples: Mapping[str, tuple[float, ...]] | None,
        new_samples: Mapping[str, tuple[float, ...]] | None,
        *,
        file: str | None = None,
        base_line: int | None = None,
        new_line: int | None = None,
        calls: tuple[tuple[str, int], ...] = (),
    ) -> None:
        """Compare one entity's figures (``None`` metrics: the entity is in one run only)."""
        base_id, base_metrics = base
        new_id, new_metrics = new
        status = (
            "common"
            if base_id is not None and new_id is not None
            else ("added" if base_id is None else "removed")
        )
        if kind == "model":
            status = "common"
        base_table = metric_table(base_metrics) if base_metrics else {}
        new_table = metric_table(new_metrics) if new_metrics else {}
        position = len(self.entities)
        deltas: list[MetricDelta] = []
        sampled = bool(base_samples) and bool(new_samples)
        for identity in _identities(base_table, new_table):
            if not sampled:
                same = _equal_figures(identity, base_table, new_table)
                if same is not None:
                    deltas.append(same)
                    continue
            delta, p_value = self._metric(
                identity,
                base_table.get(identity),
                new_table.get(identity),
                _samples_for(identity, base_table, base_samples),
                _samples_for(identity, new_table, new_samples),
            )
            if p_value is not None:
                self._tests.append(
                    PendingTest((kind, identity[0], identity[1]), position, len(deltas), p_value)
                )
            deltas.append(delta)
        self.entities.append(
            EntityDelta(
                kind,
                name,
                base_id,
                new_id,
                status,
                tuple(deltas),
                file,
                base_line,
                new_line,
                calls,
            )
        )

    def explain(self, explained: Mapping[int, frozenset[tuple[str, str]]]) -> None:
        """Mark the metrics (by entity position and identity) whose change the lines the
        call line calls account for (``inclusive``); their tests move to a family of their
        own (``kind`` + ``/inclusive``), so they neither join nor weaken the correction of
        the lines judged on their own figures. Before ``finish``."""
        if not explained:
            return
        marked: set[tuple[int, int]] = set()
        for position, identities in explained.items():
            entity = self.entities[position]
            metrics = list(entity.metrics)
            for index, delta in enumerate(metrics):
                if (delta.name, delta.qualifiers) in identities:
                    metrics[index] = delta._replace(explained=True)
                    marked.add((position, index))
            self.entities[position] = entity._replace(metrics=tuple(metrics))
        self._tests = [
            test._replace(
                family=(test.family[0] + INCLUSIVE_FAMILY, test.family[1], test.family[2])
            )
            if (test.entity, test.metric) in marked
            else test
            for test in self._tests
        ]

    def _metric(
        self,
        identity: tuple[str, str],
        base: Mapping[str, Any] | None,
        new: Mapping[str, Any] | None,
        base_samples: tuple[float, ...] | None,
        new_samples: tuple[float, ...] | None,
    ) -> tuple[MetricDelta, float | None]:
        name, qualifiers = identity
        if base is None or new is None:
            only = base if new is None else new
            assert only is not None
            verdict = REMOVED if new is None else ADDED
            value = float(only["value"])
            return (
                MetricDelta(
                    name,
                    qualifiers,
                    str(only["unit"]),
                    value if new is None else None,
                    value if base is None else None,
                    ONE_SIDED,
                    verdict,
                    False,
                ),
                None,
            )
        unit = str(base["unit"])
        scale = unit_scale(str(new["unit"]), unit)
        base_value = float(base["value"])
        if scale is None:
            return (
                MetricDelta(
                    name, qualifiers, unit, base_value, None, INCOMPARABLE, UNCHANGED, False
                ),
                None,
            )
        new_value = float(new["value"]) * scale
        if base_samples is not None and new_samples is not None:
            scaled = new_samples if scale == 1.0 else tuple(v * scale for v in new_samples)
            p_value = mann_whitney_p(base_samples, scaled)
            verdict = NOISE if differs(base_value, new_value) else UNCHANGED
            return (
                MetricDelta(
                    name,
                    qualifiers,
                    unit,
                    base_value,
                    new_value,
                    SAMPLES,
                    verdict,
                    False,
                    p_value,
                    None,
                    len(base_samples),
                    len(new_samples),
                ),
                p_value,
            )
        significant = beyond(base_value, new_value, self.settings.estimate_threshold)
        verdict = _direction(name, unit, base_value, new_value) if significant else UNCHANGED
        return (
            MetricDelta(name, qualifiers, unit, base_value, new_value, EXACT, verdict, significant),
            None,
        )

    def finish(self) -> list[EntityDelta]:
        """The entity deltas with every family's p-values adjusted and judged."""
        families: dict[tuple[str, str, str], list[PendingTest]] = {}
        for test in self._tests:
            families.setdefault(test.family, []).append(test)
        updates: dict[int, dict[int, MetricDelta]] = {}
        for tests in families.values():
            adjusted = adjust([t.p_value for t in tests], self.settings.correction)
            for test, p_adjusted in zip(tests, adjusted, strict=True):
                delta = self.entities[test.entity].metrics[test.metric]
                significant = p_adjusted < self.settings.level and differs(
                    delta.base or 0.0, delta.new or 0.0
                )
                verdict = delta.verdict
                if significant:
                    verdict = _direction(
                        delta.name, delta.unit, delta.base or 0.0, delta.new or 0.0
                    )
                updates.setdefault(test.entity, {})[test.metric] = delta._replace(
                    p_adjusted=p_adjusted, significant=significant, verdict=verdict
                )
        for position, changed in updates.items():
            entity = self.entities[position]
            metrics = tuple(changed.get(i, m) for i, m in enumerate(entity.metrics))
            self.entities[position] = entity._replace(metrics=metrics)
        self._tests.clear()
        return self.entities


def _equal_figures(
    identity: tuple[str, str],
    base: Mapping[tuple[str, str], Mapping[str, Any]],
    new: Mapping[tuple[str, str], Mapping[str, Any]],
) -> MetricDelta | None:
    """The delta of a figure equal in both runs (the common case of estimates), else None."""
    left = base.get(identity)
    right = new.get(identity)
    if left is None or right is None:
        return None
    value = left["value"]
    if value != right["value"] or left["unit"] != right["unit"]:
        return None
    number = float(value)
    return MetricDelta(
        identity[0], identity[1], str(left["unit"]), number, number, EXACT, UNCHANGED, False
    )


def _identities(
    base: Mapping[tuple[str, str], Any], new: Mapping[tuple[str, str], Any]
) -> Iterator[tuple[str, str]]:
    yield from base
    for identity in new:
        if identity not in base:
            yield identity


def _samples_for(
    identity: tuple[str, str],
    table: Mapping[tuple[str, str], Any],
    samples: Mapping[str, tuple[float, ...]] | None,
) -> tuple[float, ...] | None:
    """The per-run list of a figure: samples are keyed by name, so only an unambiguous name."""
    if not samples:
        return None
    values = samples.get(identity[0])
    if values is None:
        return None
    if identity[1] and sum(1 for name, _ in table if name == identity[0]) > 1:
        return None
    return values


def differs(base: float, new: float) -> bool:
    """Whether two figures differ beyond float rounding (1e-9 relative)."""
    if base == new:
        return False
    return not math.isclose(base, new, rel_tol=_FLOAT_TOLERANCE, abs_tol=0.0)


def beyond(base: float, new: float, threshold: float) -> bool:
    """Whether ``new`` differs from ``base`` by more than ``threshold`` of it (any change
    from zero)."""
    if base == new or not differs(base, new):
        return False
    if base == 0:
        return True
    return abs(new - base) > threshold * abs(base)


def _direction(name: str, unit: str, base: float, new: float) -> str:
    worse = new < base if higher_is_better(name, unit) else new > base
    return REGRESSION if worse else IMPROVEMENT
