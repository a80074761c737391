"""Per-run values of measured metrics (``extensions.perfline.run_samples``).

The convention (``docs/results.md``): ``extensions.perfline.run_samples`` is a
list parallel to ``results``; item *i* maps an entity id of result *i* to an
object mapping a metric name to the list of that metric's per-run values (in
the metric's unit, in run order, warm-up runs left out). The statistics of one
observation (``duration_avg``, ``duration_p50``, ...) share one list. perfline
adds ``extensions.perfline.result_run_samples``: a list parallel to
``results`` whose item *i* maps a result-level metric name (``inference_time``
...) to its per-run values. Documents without them compare as estimates.

Runs of one result are the same recorded executions, so the per-run values of
an entity whose figure the projection derived (a code line, a module) are the
run-by-run sums of its contributors' values. ``derive_run_samples`` computes
them with the projection itself, on the processed result's graph (after
collapse and code lines): run *k*'s value of every sampled metric becomes a
metric qualified ``perfline.run = k`` (aggregation and other qualifiers as the
processed figure's), and one projection derives every run's figure of every
entity at once. A derived list is kept only where it reproduces the processed
figure: the mean of the runs for a summed (``aggregation: "sum"``) average, or
an identical list for a figure copied from one contributor; any other figure
keeps no samples and compares as an estimate. Entities that collapse removed,
and lists shorter than the result's run count (an event seen in only some
runs, which cannot be added run by run), are left out.

Cost: reading is linear in the lists; deriving is one projection of the result
with (sampled metrics x runs) figures per sampled entity.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final

from perfline.core.errors import InputError, Problem
from perfline.core.projection import project_breakdowns

EXTENSION: Final = "perfline"
RUN_SAMPLES: Final = "run_samples"
RESULT_RUN_SAMPLES: Final = "result_run_samples"
#: The qualifier that carries the run number in the per-run projection.
RUN_QUALIFIER: Final = "perfline.run"

#: entity id -> metric name -> per-run values.
EntitySamples = dict[str, dict[str, tuple[float, ...]]]
#: result-level metric name -> per-run values.
MetricSamples = dict[str, tuple[float, ...]]


def with_run_samples(
    document: Mapping[str, Any],
    entity_samples: Sequence[Mapping[str, Mapping[str, Sequence[float]]]],
    result_samples: Sequence[Mapping[str, Sequence[float]]] | None = None,
) -> dict[str, Any]:
    """``document`` with the per-run values recorded (other extension keys kept)."""
    output = dict(document)
    extensions = dict(output.get("extensions") or {})
    own = dict(extensions.get(EXTENSION) or {})
    own[RUN_SAMPLES] = [_plain(samples) for samples in entity_samples]
    if result_samples is not None:
        own[RESULT_RUN_SAMPLES] = [
            {name: [float(v) for v in values] for name, values in item.items()}
            for item in result_samples
        ]
    extensions[EXTENSION] = own
    output["extensions"] = extensions
    return output


def _plain(samples: Mapping[str, Mapping[str, Sequence[float]]]) -> dict[str, Any]:
    return {
        entity: {name: [float(v) for v in values] for name, values in metrics.items()}
        for entity, metrics in samples.items()
    }


def read_run_samples(document: Mapping[str, Any], source: str | None) -> list[EntitySamples]:
    """The entity samples of each result (empty mappings when the document has none).

    Raises ``InputError`` naming the JSON path of a malformed entry.
    """
    where, items = _items(document, RUN_SAMPLES, source)
    output: list[EntitySamples] = []
    for index, item in enumerate(items):
        samples: EntitySamples = {}
        for entity, metrics in item.items():
            place = f"{where}[{index}][{entity!r}]"
            if not isinstance(metrics, dict):
                raise InputError(source, Problem(place, "expected an object of metric lists"))
            samples[entity] = _metric_lists(metrics, source, place)
        output.append(samples)
    return output


def read_result_run_samples(document: Mapping[str, Any], source: str | None) -> list[MetricSamples]:
    """The result-level metric samples of each result (empty when the document has none)."""
    where, items = _items(document, RESULT_RUN_SAMPLES, source)
    return [_metric_lists(item, source, f"{where}[{index}]") for index, item in enumerate(items)]


def _items(
    document: Mapping[str, Any], key: str, source: str | None
) -> tuple[str, list[dict[str, Any]]]:
    """(JSON path, one object per result) of an extension key (empty objects when absent)."""
    results = document.get("results")
    count = len(results) if isinstance(results, list) else 0
    where = f"extensions.{EXTENSION}.{key}"
    raw = _own(document).get(key)
    if raw is None:
        return where, [{} for _ in range(count)]
    return where, _list_of_objects(raw, count, source, where)


def _metric_lists(
    metrics: Mapping[str, Any], source: str | None, place: str
) -> dict[str, tuple[float, ...]]:
    return {name: _values(values, source, f"{place}.{name}") for name, values in metrics.items()}


def _own(document: Mapping[str, Any]) -> Mapping[str, Any]:
    extensions = document.get("extensions")
    if not isinstance(extensions, dict):
        return {}
    own = extensions.get(EXTENSION)
    return own if isinstance(own, dict) else {}


def _list_of_objects(raw: Any, count: int, source: str | None, where: str) -> list[dict[str, Any]]:
    if not isinstance(raw, list) or len(raw) != count:
        raise InputError(
            source,
            Problem(where, f"expected a list with one object per result ({count})"),
        )
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise InputError(source, Problem(f"{where}[{index}]", "expected an object"))
    return raw


def _values(raw: Any, source: str | None, where: str) -> tuple[float, ...]:
    if not isinstance(raw, list) or not raw:
        raise InputError(source, Problem(where, "expected a non-empty list of numbers"))
    values: list[float] = []
    for value in raw:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise InputError(source, Problem(where, f"expected finite numbers, found {value!r}"))
        values.append(float(value))
    return tuple(values)


def derive_run_samples(result: Mapping[str, Any], samples: EntitySamples) -> EntitySamples:
    """Per-run values of every entity of the processed ``result`` that has them.

    Sampled entities keep their lists; entities whose figures the projection
    derived get the run-by-run figures of their contributors (see the module
    docstring for when a derived list is kept).
    """
    figures = _figures(result)
    present = {entity_id: metrics for entity_id, metrics in samples.items() if entity_id in figures}
    lengths = Counter(len(values) for metrics in present.values() for values in metrics.values())
    if not lengths:
        return {}
    runs = lengths.most_common(1)[0][0]
    own: EntitySamples = {}
    for entity_id, metrics in present.items():
        kept = {
            name: values
            for name, values in metrics.items()
            if len(values) == runs and name in figures[entity_id]
        }
        if kept:
            own[entity_id] = kept
    derived = _projected(result, own, figures, runs)
    return {**derived, **own}


def _figures(result: Mapping[str, Any]) -> dict[str, dict[str, Mapping[str, Any]]]:
    """entity id -> metric name -> its first figure without a per-run qualifier."""
    figures: dict[str, dict[str, Mapping[str, Any]]] = {}
    for breakdown in result.get("breakdowns", ()):
        metrics = figures.setdefault(breakdown["entity_id"], {})
        for metric in breakdown["metrics"]:
            if metric.get("value") is None or metric["name"] in metrics:
                continue
            qualifiers = metric.get("qualifiers") or {}
            if "execution" in qualifiers or RUN_QUALIFIER in qualifiers:
                continue
            metrics[metric["name"]] = metric
    return figures


def _projected(
    result: Mapping[str, Any],
    own: EntitySamples,
    figures: Mapping[str, Mapping[str, Mapping[str, Any]]],
    runs: int,
) -> EntitySamples:
    breakdowns: list[dict[str, Any]] = []
    copies: dict[str, set[tuple[float, ...]]] = {}
    for entity_id, metrics in own.items():
        per_run: list[dict[str, Any]] = []
        for name, values in metrics.items():
            copies.setdefault(name, set()).add(values)
            figure = figures[entity_id][name]
            qualifiers = dict(figure.get("qualifiers") or {})
            for run, value in enumerate(values):
                metric: dict[str, Any] = {"name": name, "unit": figure["unit"], "value": value}
                if figure.get("aggregation") is not None:
                    metric["aggregation"] = figure["aggregation"]
                metric["qualifiers"] = {**qualifiers, RUN_QUALIFIER: run}
                per_run.append(metric)
        breakdowns.append({"entity_id": entity_id, "metrics": per_run})
    projected = project_breakdowns({**result, "breakdowns": breakdowns})
    derived: EntitySamples = {}
    for breakdown in projected.get("breakdowns", ()):
        entity_id = breakdown["entity_id"]
        if entity_id in own or entity_id not in figures:
            continue
        lists = _run_lists(breakdown["metrics"], runs)
        kept = {
            name: values
            for name, values in lists.items()
            if name in figures[entity_id]
            and _reproduces(figures[entity_id][name], values, copies.get(name, set()))
        }
        if kept:
            derived[entity_id] = kept
    return derived


def _run_lists(metrics: Sequence[Mapping[str, Any]], runs: int) -> dict[str, tuple[float, ...]]:
    by_name: dict[str, dict[int, float]] = {}
    for metric in metrics:
        qualifiers = metric.get("qualifiers") or {}
        run = qualifiers.get(RUN_QUALIFIER)
        value = metric.get("value")
        if isinstance(run, int) and isinstance(value, int | float):
            by_name.setdefault(metric["name"], {}).setdefault(run, float(value))
    return {
        name: tuple(values[run] for run in range(runs))
        for name, values in by_name.items()
        if len(values) == runs and all(run in values for run in range(runs))
    }


def _reproduces(
    figure: Mapping[str, Any], values: tuple[float, ...], copies: set[tuple[float, ...]]
) -> bool:
    """Whether ``values`` are the per-run values behind ``figure`` (module docstring)."""
    value = figure.get("value")
    if not isinstance(value, int | float):
        return False
    if figure.get("aggregation") == "sum":
        mean = math.fsum(values) / len(values)
        return math.isclose(mean, value, rel_tol=1e-9, abs_tol=1e-12)
    return values in copies
