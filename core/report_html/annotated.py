"""The annotated source section: every file with figures, its lines and their operators.

Code lines are grouped by the file their ``file`` attribute records; recorded paths whose
``SourceText`` has the same display name (two recorded copies of one local file) share one view.
Each line carries its own figure of the dominant metric (the label the editor shows), its share
of the model total, and the operators below it (through its code stacks), largest first, at most
``MAX_OPERATORS_LISTED`` of them with their count. A call line (``core.call_lines``: its figure
includes the lines it calls) also names them, as ``24-27``. Files come hottest first; a file whose
text is missing still lists its lines, with the reason. Linear in code lines plus what lies below
them down to the operators.

A line is ``[line, entity ref, value, label, share, [operator refs], operator count, calls]``
(``label``: a position in the view's list of labels, ``-1`` without a figure; ``calls``: the
called lines' text, or null). The label is the editor's hint text (``figure_text.label``); in
the compare view with the line's significant change, as the editor shows it against the same
baseline (``9.63 ms avg ▲12% · 81%``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from perfline.core.call_lines import calls_text, line_calls
from perfline.core.report_html.entity_table import EntityTable
from perfline.core.report_html.labels import label
from perfline.core.report_html.page_texts import Texts, rounded
from perfline.core.report_html.result_index import ResultIndex
from perfline.core.report_html.source_text import SourceText

MAX_OPERATORS_LISTED = 200


def recorded_files(index: ResultIndex) -> list[str]:
    """The file paths the result's code lines record, in first-seen order."""
    seen: dict[str, None] = {}
    for entity_id in index.graph.ids:
        if index.kind(entity_id) == "code_line":
            file = index.attributes(entity_id).get("file")
            if isinstance(file, str):
                seen.setdefault(file, None)
    return list(seen)


def annotated_files(
    index: ResultIndex,
    sources: Mapping[str, SourceText],
    entities: EntityTable,
    labels: Texts,
    changes: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """One entry per shown file: display name, text lines (or why not), figured lines
    (``changes``: code line id -> its significant change against the baseline, ``▲12%``)."""
    views: dict[str, dict[str, Any]] = {}
    heat: dict[str, float] = {}
    metric, total = index.metric, index.total
    structure = line_calls(list(index.entities.values()), index.graph)
    for entity_id in index.graph.ids:
        found = structure.get(entity_id)
        if found is None:  # not a code line, or no usable (file, line)
            continue
        file, line = found.file, found.line
        source = sources.get(file)
        display = source.display if source is not None else file
        view = views.get(display)
        if view is None:
            view = _file_view(display, source)
            views[display] = view
        if file not in view["recorded"]:
            view["recorded"].append(file)
        value = index.values.get(entity_id)
        operators = sorted(found.operators, key=lambda o: -index.values.get(o, float("-inf")))
        text = None
        if value is not None and metric is not None:
            change = changes.get(entity_id, "") if changes else ""
            text = label(value, metric, total, change, index.metrics.get(entity_id, ()))
        share = value / total if value is not None and total else None
        view["lines"].append(
            [
                line,
                entities.ref(entity_id),
                rounded(value),
                labels.ref(text),
                rounded(share),
                [entities.ref(o) for o in operators[:MAX_OPERATORS_LISTED]],
                len(operators),
                calls_text(found.calls, file) if found.calls else None,
            ]
        )
        if value is not None:
            heat[display] = max(heat.get(display, 0.0), value)
    for view in views.values():
        view["lines"].sort(key=lambda item: item[0])
    return sorted(views.values(), key=lambda v: -heat.get(v["display"], float("-inf")))


def _file_view(display: str, source: SourceText | None) -> dict[str, Any]:
    text = source.text if source is not None else None
    missing = None
    if text is None:
        missing = source.missing if source is not None and source.missing else "source not found"
    return {
        "display": display,
        "recorded": [],
        "location": source.location if source is not None else None,
        "missing": missing,
        "text": text.splitlines() if text is not None else None,
        "lines": [],
    }
