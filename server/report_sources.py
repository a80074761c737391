"""The HTML report's I/O edge: the source texts a processed document names, and the page.

``read_sources`` reads, for every file path the document's code lines record, the workspace file
that path resolves to (``PathResolver``: path maps, source roots, unique suffix; never a file
outside the workspace, never a library frame). ``render_document_html`` is what the CLI
(``perfline report --html``, ``perfline compare --html``) and the daemon (``perfline/reportHtml``,
the VS Code webview) call: the same page for the same document and workspace, the compare view
when a comparison is given (the document is its new run). The daemon passes ``locations=True``
so a click on a line can name the local file; a report written for sharing leaves local paths
out. Cost: one read per distinct recorded file (at most ``MAX_SOURCE_BYTES`` each) plus the
renderer's linear pass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perfline.core.report_html import SourceText, render_report_html

if TYPE_CHECKING:
    from perfline.core.compare.comparison import Comparison

MAX_SOURCE_BYTES = 16 * 1024 * 1024


def recorded_files(document: Mapping[str, Any]) -> list[str]:
    """Every file path a code line of the document records, in first-seen order."""
    seen: dict[str, None] = {}
    for result in _items(document.get("results")):
        for entity in _items(result.get("entities")):
            if entity.get("kind") != "code_line":
                continue
            attributes = entity.get("attributes")
            file = attributes.get("file") if isinstance(attributes, Mapping) else None
            if isinstance(file, str) and file:
                seen.setdefault(file, None)
    return list(seen)


def _items(value: object) -> Iterable[Mapping[str, Any]]:
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def _display(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            pass
    return path.name


def read_sources(
    document: Mapping[str, Any],
    resolve: Callable[[str], Path | None],
    *,
    root: Path | None = None,
    locations: bool = False,
) -> dict[str, SourceText]:
    """The ``SourceText`` of each recorded file (missing ones say why)."""
    sources: dict[str, SourceText] = {}
    for recorded in recorded_files(document):
        path = resolve(recorded)
        if path is None:
            sources[recorded] = SourceText(recorded, None, missing="not found in the workspace")
            continue
        display = _display(path, root)
        location = str(path) if locations else None
        try:
            size = path.stat().st_size
            if size > MAX_SOURCE_BYTES:
                sources[recorded] = SourceText(
                    display, None, location, f"larger than {MAX_SOURCE_BYTES} bytes: not shown"
                )
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as error:
            sources[recorded] = SourceText(
                display, None, location, f"cannot read: {error.strerror or error}"
            )
            continue
        sources[recorded] = SourceText(display, text, location)
    return sources


def render_document_html(
    document: Mapping[str, Any],
    resolve: Callable[[str], Path | None],
    *,
    root: Path | None = None,
    metric: str | None = None,
    comparison: Comparison | None = None,
    nonce: str | None = None,
    locations: bool = False,
    title: str | None = None,
) -> str:
    """The report page of a processed document, with its sources read through ``resolve``
    (``comparison``: the document against a baseline, the compare view)."""
    sources = read_sources(document, resolve, root=root, locations=locations)
    return render_report_html(
        document, sources, metric=metric, comparison=comparison, nonce=nonce, title=title
    )
