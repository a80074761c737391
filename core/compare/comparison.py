"""Comparing two standardized documents of the same model: the entry point.

``compare_documents(base, new)`` post-processes a document that is not yet
processed (as ``perfline report`` would, default settings), pairs the results
(``align.pair_results``), aligns each pair's entities (``align``), reads and
derives the per-run values (``run_samples``) and judges every metric
(``deltas``); a call line's changes that the lines it calls account for are
marked (``inclusive``), so they are counted once, on those lines. The answer,
``Comparison``, holds one ``ResultComparison`` per result pair, each answering
per entity and per (file, line) of the new run.

Documents must be valid standardized documents (``postprocess`` output, or
input it accepts); the CLI validates them before calling this.

Cost: linear in the two results' entities and figures, plus the per-run
projection of sampled results and one rank test per sampled figure. The cyclic
garbage collector is paused meanwhile (``collection``): the comparison creates
a million small records at 20,000 chains and no cycles.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from perfline.core.call_lines import line_calls
from perfline.core.collection import collection_paused
from perfline.core.compare.align import (
    CODE_LINE,
    Key,
    Placement,
    entity_keys,
    operator_overlap,
    pair_files,
    pair_results,
    source_files,
)
from perfline.core.compare.deltas import CompareSettings, DeltaBuilder, EntityDelta
from perfline.core.compare.inclusive import explained_changes
from perfline.core.compare.line_map import LineMapping
from perfline.core.compare.relatedness import check_related, relatedness
from perfline.core.compare.run_samples import (
    EntitySamples,
    MetricSamples,
    derive_run_samples,
    read_result_run_samples,
    read_run_samples,
)
from perfline.core.errors import InputError
from perfline.core.pipeline import is_postprocessed, postprocess


class ResultComparison:
    """One pair of results: the model-level delta and every entity's."""

    __slots__ = (
        "_by_id",
        "_lines",
        "base_index",
        "base_runs",
        "counts",
        "entities",
        "kind",
        "mode",
        "model",
        "new_index",
        "new_runs",
        "overlap",
        "producer",
        "sampled",
        "warnings",
    )

    def __init__(
        self,
        *,
        base_index: int,
        new_index: int,
        result: Mapping[str, Any],
        model: EntityDelta,
        entities: list[EntityDelta],
        counts: dict[str, dict[str, int]],
        overlap: tuple[int, int, int],
        sampled: bool,
        warnings: list[str],
        base_runs: EntitySamples | None = None,
        new_runs: EntitySamples | None = None,
    ) -> None:
        self.base_index = base_index
        self.new_index = new_index
        self.kind = str(result.get("kind"))
        self.producer = str(result.get("producer"))
        self.mode = result.get("mode")
        self.model = model
        self.entities = entities
        #: kind -> {"common": n, "added": n, "removed": n}, over every entity.
        self.counts = counts
        #: (common, base, new) operator entities.
        self.overlap = overlap
        #: whether either run carried per-run values.
        self.sampled = sampled
        self.warnings = warnings
        #: Per-run values of every entity that has them (sampled and derived), by entity id
        #: of each run: what the sampled deltas were judged from (a caller may add up the
        #: runs of several lines, run by run, to judge their sum).
        self.base_runs: EntitySamples = base_runs or {}
        self.new_runs: EntitySamples = new_runs or {}
        self._lines: dict[tuple[str, int], EntityDelta] | None = None
        self._by_id: dict[str, EntityDelta] | None = None

    def lines(self) -> list[EntityDelta]:
        """The code lines (common, added and removed) that have figures in either run."""
        return [entity for entity in self.entities if entity.kind == CODE_LINE]

    def line(self, file: str, line: int) -> EntityDelta | None:
        """The delta of the new run's code line at recorded ``file`` and ``line``."""
        if self._lines is None:
            self._lines = {
                (entity.file, entity.new_line): entity
                for entity in self.entities
                if entity.kind == CODE_LINE and entity.file is not None and entity.new_line
            }
        return self._lines.get((file, line))

    def entity(self, new_id: str) -> EntityDelta | None:
        """The delta of the new run's entity ``new_id``."""
        if self._by_id is None:
            self._by_id = {e.new_id: e for e in self.entities if e.new_id is not None}
        return self._by_id.get(new_id)


class Comparison:
    """Everything ``compare_documents`` found."""

    __slots__ = ("base_source", "new_source", "results", "settings", "warnings")

    def __init__(
        self,
        *,
        base_source: str,
        new_source: str,
        settings: CompareSettings,
        results: list[ResultComparison],
        warnings: list[str],
    ) -> None:
        self.base_source = base_source
        self.new_source = new_source
        self.settings = settings
        self.results = results
        self.warnings = warnings

    def line(self, file: str, line: int) -> list[EntityDelta]:
        """The new run's code line at (``file``, ``line``) in every result pair that has it."""
        found = (result.line(file, line) for result in self.results)
        return [entity for entity in found if entity is not None]


def compare_documents(
    base: Mapping[str, Any],
    new: Mapping[str, Any],
    settings: CompareSettings | None = None,
    *,
    line_maps: Mapping[str, LineMapping] | None = None,
    base_source: str = "base",
    new_source: str = "new",
) -> Comparison:
    """Compare ``new`` with the baseline ``base`` (see the module docstring).

    ``line_maps`` maps a base recorded file path to the mapping of its lines
    onto the new version of the file (``line_map.map_lines``); files without
    one are taken as unchanged. Raises ``InputError`` for documents of
    different producers, modes or models.
    """
    with collection_paused():
        return _compare(
            base, new, settings or CompareSettings(), line_maps, base_source, new_source
        )


def _compare(
    base: Mapping[str, Any],
    new: Mapping[str, Any],
    settings: CompareSettings,
    line_maps: Mapping[str, LineMapping] | None,
    base_source: str,
    new_source: str,
) -> Comparison:
    base = _processed(base, base_source)
    new = _processed(new, new_source)
    base_results: Sequence[Mapping[str, Any]] = base["results"]
    new_results: Sequence[Mapping[str, Any]] = new["results"]
    pairs = pair_results(base_results, new_results, base_source, new_source)
    warnings = _unpaired(pairs, len(base_results), len(new_results))
    base_entity_samples = read_run_samples(base, base_source)
    new_entity_samples = read_run_samples(new, new_source)
    base_result_samples = read_result_run_samples(base, base_source)
    new_result_samples = read_result_run_samples(new, new_source)
    compared: list[ResultComparison] = []
    for base_index, new_index in pairs:
        compared.append(
            compare_results(
                base_results[base_index],
                new_results[new_index],
                settings,
                indices=(base_index, new_index),
                samples=(base_entity_samples[base_index], new_entity_samples[new_index]),
                result_samples=(base_result_samples[base_index], new_result_samples[new_index]),
                line_maps=line_maps or {},
                sources=(base_source, new_source),
            )
        )
        warnings.extend(compared[-1].warnings)
    return Comparison(
        base_source=base_source,
        new_source=new_source,
        settings=settings,
        results=compared,
        warnings=warnings,
    )


def _processed(document: Mapping[str, Any], source: str) -> Mapping[str, Any]:
    if not isinstance(document, Mapping) or not isinstance(document.get("results"), list):
        raise InputError(
            source,
            "not a standardized-output document (expected an object with schema_version "
            "and results)",
        )
    if is_postprocessed(document):
        return document
    return postprocess(document, source=source)


def _unpaired(pairs: list[tuple[int, int]], base_count: int, new_count: int) -> list[str]:
    warnings: list[str] = []
    if len(pairs) < base_count or len(pairs) < new_count:
        warnings.append(
            f"{len(pairs)} result pair(s) compared; {base_count - len(pairs)} baseline and "
            f"{new_count - len(pairs)} new result(s) have no counterpart (other kind, "
            "producer or mode)"
        )
    return warnings


def compare_results(
    base: Mapping[str, Any],
    new: Mapping[str, Any],
    settings: CompareSettings,
    *,
    indices: tuple[int, int] = (0, 0),
    samples: tuple[EntitySamples, EntitySamples] = ({}, {}),
    result_samples: tuple[MetricSamples, MetricSamples] = ({}, {}),
    line_maps: Mapping[str, LineMapping] | None = None,
    sources: tuple[str, str] = ("base", "new"),
) -> ResultComparison:
    """Compare one pair of processed results (``compare_documents`` does the pairing)."""
    files = pair_files(source_files(base), source_files(new))
    placement = Placement(files, line_maps or {})
    base_keys = entity_keys(base, placement)
    new_keys = entity_keys(new, None)
    overlap = operator_overlap(base_keys, new_keys)
    related = relatedness(base_keys, new_keys, files, source_files(base), source_files(new))
    warnings = check_related(related, indices, sources)
    warnings.extend(_overlap_warnings(overlap, indices))
    base_derived = derive_run_samples(base, samples[0]) if samples[0] else {}
    new_derived = derive_run_samples(new, samples[1]) if samples[1] else {}
    builder = DeltaBuilder(settings)
    builder.add(
        "model",
        "model",
        (None, base.get("metrics", ())),
        (None, new.get("metrics", ())),
        result_samples[0],
        result_samples[1],
    )
    base_figures = _figures_by_entity(base)
    new_figures = _figures_by_entity(new)
    base_calls = line_calls(base.get("entities", ()))
    new_calls = line_calls(new.get("entities", ()))
    counts: dict[str, dict[str, int]] = {}
    for key, status, base_entity, new_entity in _joined(base_keys, new_keys):
        kind = str((new_entity or base_entity or {}).get("kind"))
        tally = counts.setdefault(kind, {"common": 0, "added": 0, "removed": 0})
        tally[status] += 1
        base_id = base_entity["id"] if base_entity is not None else None
        new_id = new_entity["id"] if new_entity is not None else None
        base_metrics = base_figures.get(base_id) if base_id is not None else None
        new_metrics = new_figures.get(new_id) if new_id is not None else None
        if base_metrics is None and new_metrics is None:
            continue
        shown = new_entity or base_entity
        assert shown is not None
        file, base_line, new_line = _line_place(key, base_entity, new_entity)
        called = (new_calls if new_id is not None else base_calls).get(str(shown["id"]))
        builder.add(
            kind,
            str(shown.get("name", shown["id"])),
            (base_id, base_metrics),
            (new_id, new_metrics),
            base_derived.get(base_id) if base_id is not None else None,
            new_derived.get(new_id) if new_id is not None else None,
            file=file,
            base_line=base_line,
            new_line=new_line,
            calls=called.calls if called is not None else (),
        )
    builder.explain(explained_changes(builder.entities, base_calls, new_calls))
    entities = builder.finish()
    model = entities[0]
    return ResultComparison(
        base_index=indices[0],
        new_index=indices[1],
        result=new,
        model=model,
        entities=entities[1:],
        counts=counts,
        overlap=overlap,
        sampled=bool(samples[0] or samples[1] or result_samples[0] or result_samples[1]),
        warnings=warnings,
        base_runs=base_derived,
        new_runs=new_derived,
    )


def _joined(
    base_keys: Mapping[Key, Mapping[str, Any]], new_keys: Mapping[Key, Mapping[str, Any]]
) -> list[tuple[Key, str, Mapping[str, Any] | None, Mapping[str, Any] | None]]:
    joined: list[tuple[Key, str, Mapping[str, Any] | None, Mapping[str, Any] | None]] = []
    for key, entity in base_keys.items():
        other = new_keys.get(key)
        joined.append((key, "common" if other is not None else "removed", entity, other))
    for key, entity in new_keys.items():
        if key not in base_keys:
            joined.append((key, "added", None, entity))
    return joined


def _figures_by_entity(result: Mapping[str, Any]) -> dict[str, list[Mapping[str, Any]]]:
    """entity id -> its metrics over all its breakdowns, in order."""
    figures: dict[str, list[Mapping[str, Any]]] = {}
    for breakdown in result.get("breakdowns", ()):
        entity_id = breakdown["entity_id"]
        known = figures.get(entity_id)
        if known is None:
            figures[entity_id] = breakdown["metrics"]
        else:
            figures[entity_id] = [*known, *breakdown["metrics"]]
    return figures


def _line_place(
    key: Key, base: Mapping[str, Any] | None, new: Mapping[str, Any] | None
) -> tuple[str | None, int | None, int | None]:
    entity = new or base
    if entity is None or entity.get("kind") != CODE_LINE:
        return None, None, None
    new_attributes = (new or {}).get("attributes") or {}
    base_attributes = (base or {}).get("attributes") or {}
    file = new_attributes.get("file", base_attributes.get("file"))
    return file, base_attributes.get("line"), new_attributes.get("line")


def _overlap_warnings(overlap: tuple[int, int, int], indices: tuple[int, int]) -> list[str]:
    common, base_total, new_total = overlap
    if common == base_total == new_total:
        return []
    return [
        f"results {indices[0]}/{indices[1]}: partial overlap: {common} operator(s) in both runs; "
        f"{base_total - common} of the baseline's {base_total} only in the baseline, "
        f"{new_total - common} of the new run's {new_total} only in the new run"
    ]
