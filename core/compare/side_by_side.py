"""The same source line in every run: figures of several runs side by side, per (file, line).

For the "same line, every runtime" view (ExecuTorch portable, XNNPACK, ONNX Runtime, NX
estimate...): unlike ``compare_documents`` the runs may come from different producers
and modes, and nothing is judged; each run's figures are shown as they are. Files are
paired with the first run's (``align.pair_files``: same recorded path, else the longest
unique path suffix), so runs recorded in different folders meet on one line.

``side_by_side({"portable": doc, "xnnpack": doc2})`` -> ``{(file, line): {label:
LineInRun}}`` with ``file`` in the first run's terms; a run without a figure on a line
is absent from that line's mapping. Documents must be post-processed.

Cost: linear in the runs' entities and figures, plus the per-run derivation of each
sampled run (``run_samples``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from perfline.core.call_lines import line_calls
from perfline.core.compare.align import CODE_LINE, pair_files, source_files
from perfline.core.compare.deltas import metric_table
from perfline.core.compare.run_samples import derive_run_samples, read_run_samples


class LineInRun(NamedTuple):
    """One run's figures on one line."""

    result: int
    """Index of the result in its document."""
    producer: str
    metrics: tuple[Mapping[str, Any], ...]
    """The line's figures (per-run figures left out), as the document has them."""
    runs: Mapping[str, tuple[float, ...]]
    """Per-run values of those figures, where the run has them."""
    calls: tuple[tuple[str, int], ...] = ()
    """A call line's called lines in this run, (recorded file, line): its figures
    include theirs (``core.call_lines``; runtimes may differ, e.g. where the exporter
    folded one line's operators into another's)."""


def side_by_side(
    documents: Mapping[str, Mapping[str, Any]],
) -> dict[tuple[str, int], dict[str, LineInRun]]:
    """Per (file, line): each labelled run's figures (see the module docstring)."""
    table: dict[tuple[str, int], dict[str, LineInRun]] = {}
    reference: list[str] | None = None
    for label, document in documents.items():
        samples = read_run_samples(document, label)
        for index, result in enumerate(document.get("results", ())):
            files = source_files(result)
            if reference is None:
                reference = files
            paired = pair_files(files, reference)
            derived = derive_run_samples(result, samples[index]) if samples[index] else {}
            figures = _line_figures(result)
            calls = line_calls(result.get("entities", ()))
            for entity in result.get("entities", ()):
                if entity.get("kind") != CODE_LINE or entity["id"] not in figures:
                    continue
                attributes = entity.get("attributes") or {}
                recorded, line = attributes.get("file"), attributes.get("line")
                if not isinstance(recorded, str) or not isinstance(line, int):
                    continue
                file = paired.get(recorded, recorded)
                metrics = figures[entity["id"]]
                runs = derived.get(entity["id"], {})
                found = calls.get(entity["id"])
                table.setdefault((file, line), {}).setdefault(
                    label,
                    LineInRun(
                        index,
                        str(result.get("producer")),
                        metrics,
                        runs,
                        found.calls if found is not None else (),
                    ),
                )
    return table


def _line_figures(result: Mapping[str, Any]) -> dict[str, tuple[Mapping[str, Any], ...]]:
    lines = {e["id"] for e in result.get("entities", ()) if e.get("kind") == CODE_LINE}
    collected: dict[str, list[Mapping[str, Any]]] = {}
    for breakdown in result.get("breakdowns", ()):
        if breakdown["entity_id"] in lines:
            collected.setdefault(breakdown["entity_id"], []).extend(breakdown["metrics"])
    return {
        entity_id: tuple(metric_table(metrics).values()) for entity_id, metrics in collected.items()
    }
