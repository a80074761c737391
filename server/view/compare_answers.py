"""The JSON of ``perfline/compare``: one job's comparison with its baseline, per line.

Per job: its state (``no-baseline``, ``no-result``, ``computing``, ``ready``, ``error``),
the baseline (origin, path, the ``baseline`` line of ``perfline.toml``, content digest,
when it was set, the source files whose lines were mapped), the problem that prevents a
comparison, the settings it was judged under, the warnings (partial overlap...), the
model-level deltas and one entry per code line of the job's current result that either
run has a figure on: the workspace file, the line as analysed and as the asking editor
has it now, the baseline's line, the status (``common``, ``added``, ``removed``) and the
deltas of every metric, in the form of ``perfline compare --json``
(``core.compare.json_form.metric_json``). Lines only in the baseline carry their
recorded path and baseline line. Pure; linear in the job's lines.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from perfline.core.compare.deltas import UNCHANGED, CompareSettings, EntityDelta
from perfline.core.compare.json_form import metric_json
from perfline.server.line_entries import JobIndex
from perfline.server.view.compare_surface import (
    BaselineProblemView,
    BaselineView,
    JobComparisonView,
)

#: (file, 1-based analysis line) -> the line in the asking editor now.
CurrentLine = Callable[[Path, int], int | None]


def baseline_json(baseline: BaselineView | None) -> dict[str, Any] | None:
    if baseline is None:
        return None
    return {
        "origin": baseline.origin,
        "path": baseline.path,
        "line": baseline.line,
        "digest": baseline.digest,
        "setAt": baseline.set_at,
        "mappedFiles": list(baseline.mapped_files),
    }


def problem_json(problem: BaselineProblemView | None) -> dict[str, Any] | None:
    if problem is None:
        return None
    return {"message": problem.message, "file": problem.file, "line": problem.line}


def lines_json(
    found: JobComparisonView,
    index: JobIndex,
    only_file: Path | None,
    current: CurrentLine | None,
    changes_only: bool,
) -> list[dict[str, Any]]:
    """The job's compared lines (see the module docstring), by file and line."""
    rows: list[dict[str, Any]] = []
    recorded_to_file: dict[str, str] = {}
    for file, by_line in sorted(index.lines.items()):
        for number, entries in sorted(by_line.items()):
            for entry in entries:
                recorded_to_file.setdefault(entry.facts.recorded_file, file)
                if only_file is not None and file != str(only_file):
                    continue
                result = found.result(entry.facts.result_index)
                delta = result.entity(entry.facts.entity_id) if result is not None else None
                if delta is None or (changes_only and not _changed(delta)):
                    continue
                path = Path(file)
                now = current(path, number) if current is not None else number
                rows.append(_line(file, number, now, delta, entry.facts.entity_id))
    for result in found.comparison.results:
        for delta in result.lines():
            if delta.status != "removed" or (changes_only and not _changed(delta)):
                continue
            file = recorded_to_file.get(delta.file or "", delta.file or "")
            if only_file is not None and file != str(only_file):
                continue
            rows.append(_line(file, None, None, delta, None))
    return rows


def model_json(found: JobComparisonView) -> list[dict[str, Any]]:
    """The result-level deltas (inference time...) of every result pair."""
    return [metric_json(m) for r in found.comparison.results for m in r.model.metrics]


def _line(
    file: str, line: int | None, now: int | None, delta: EntityDelta, entity_id: str | None
) -> dict[str, Any]:
    return {
        "file": Path(file).as_posix(),
        "line": line,
        "currentLine": now,
        "baseLine": delta.base_line,
        "status": delta.status,
        "entityId": entity_id,
        "metrics": [metric_json(m) for m in delta.metrics],
    }


def _changed(delta: EntityDelta) -> bool:
    return any(m.verdict != UNCHANGED for m in delta.metrics)


def settings_json(found: JobComparisonView | None, fallback: CompareSettings) -> Mapping[str, Any]:
    settings = found.settings if found is not None else fallback
    return {
        "level": settings.level,
        "correction": settings.correction,
        "estimateThreshold": settings.estimate_threshold,
    }
