"""The editor's line index, the text report, the HTML report and compare name the same call
lines, and the same lines they call, on the DS-CNN measurement and on an NX-shaped result."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

import pytest

from perfline.core.compare import compare_documents
from perfline.core.pipeline import postprocess
from perfline.core.report_html.payload import build_payload
from perfline.core.report_rows import code_line_rows, dominant_metric
from perfline.server.ingest.executorch import load_etdump_document
from perfline.server.line_index import build_line_index
from tests.support.documents import nx_document
from tests.support.locations import DATA

MEASURED = DATA / "measured" / "portable"

Lines = dict[tuple[str, int], int]
"""(file name, line) of each call line -> how many lines it calls."""


def _documents() -> list[dict[str, Any]]:
    measured = load_etdump_document(
        MEASURED / "dscnn_portable.etrecord", MEASURED / "dscnn_portable.etdump"
    )
    return [postprocess(measured), postprocess(nx_document(60))]


def _view(document: dict[str, Any]) -> Lines:
    index = build_line_index("job", document, lambda recorded: None)
    return {
        (PurePath(file).name, entry.facts.line): len(entry.facts.calls)
        for file, lines in index.lines.items()
        for entries in lines.values()
        for entry in entries
        if entry.facts.calls
    }


def _text(document: dict[str, Any]) -> Lines:
    result = document["results"][0]
    rows = code_line_rows(result, dominant_metric(result))
    found: Lines = {}
    for row in rows:
        if row.calls:
            name, line = row.where.rsplit(":", 1)
            found[(name, int(line))] = len(row.calls)
    return found


def _html(document: dict[str, Any]) -> Lines:
    (view,) = build_payload(document, {})["views"]
    found: Lines = {}
    for file in view["files"]:
        for line in file["lines"]:
            if line[7] is not None:
                found[(PurePath(file["display"]).name, line[0])] = _count(line[7])
    return found


def _count(text: str) -> int:
    """How many lines ``24-27, blocks.py:3, 5-6`` names."""
    count = 0
    for part in text.split(", "):
        span = part.rsplit(":", 1)[-1]
        first, _, last = span.partition("-")
        count += int(last or first) - int(first) + 1
    return count


def _compare(document: dict[str, Any]) -> Lines:
    (result,) = compare_documents(document, document).results
    return {
        (PurePath(line.file or "").name, line.new_line or 0): len(line.calls)
        for line in result.lines()
        if line.calls
    }


@pytest.mark.parametrize("which", ["measured DS-CNN", "NX-shaped"])
def test_every_consumer_names_the_same_call_lines(which: str) -> None:
    document = _documents()[["measured DS-CNN", "NX-shaped"].index(which)]
    view = _view(document)
    assert view, "the document has call lines"
    assert _text(document) == view
    assert _html(document) == view
    # compare reports lines with figures: every figured call line, the same callees.
    compared = _compare(document)
    assert compared and all(view[k] == n for k, n in compared.items())
    if which == "measured DS-CNN":
        assert view == {("dscnn.py", 41): 4} == compared
