"""The HTML report's I/O edge: the source texts a processed document names, and the page.

``read_sources`` reads, for every file path the document's code lines record, the workspace file
that path resolves to (``PathResolver``: path maps, source roots, unique suffix; never a file
outside the workspace, never a library frame). ``render_document_html`` is what the CLI
(``perfline report --html``, ``perfline compare --html``) and the daemon (``perfline/reportHtml``,
the VS Code webview) call: the same page for the same document and workspace, the compare view
when a comparison is given (the document is its new run). The daemon passes ``locations=True``
so a click on a line can name the local file; a report written for sharing leaves local paths
out. Every source is read through ``file_access`` under ``files`` (the workspace and the
roots the user allowed): a regular file inside it, at most ``MAX_SOURCE_BYTES``, on a timed
worker; a FIFO, a device, a link out of the workspace or a read that does not end is an
error for that file (the page says why), and the rest of the page renders. Cost: one read
per distinct recorded file plus the renderer's linear pass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perfline.core.errors import InputError
from perfline.core.report_html import SourceText, render_report_html
from perfline.server.file_access import SOURCE_LIMITS, Limits, Root, read_text

if TYPE_CHECKING:
    from perfline.core.compare.comparison import Comparison

MAX_SOURCE_BYTES = SOURCE_LIMITS.size_for("source")


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
    files: Root,
    root: Path | None = None,
    locations: bool = False,
    limits: Limits = SOURCE_LIMITS,
) -> dict[str, SourceText]:
    """The ``SourceText`` of each recorded file read under ``files`` (missing ones say
    why)."""
    sources: dict[str, SourceText] = {}
    for recorded in recorded_files(document):
        path = resolve(recorded)
        if path is None:
            sources[recorded] = SourceText(recorded, None, missing="not found in the workspace")
            continue
        display = _display(path, root)
        location = str(path) if locations else None
        try:
            text = read_text(path, root=files, kind="source", limits=limits, source=display)
        except InputError as error:
            reason = "; ".join(problem.message for problem in error.problems)
            sources[recorded] = SourceText(display, None, location, f"not shown: {reason}")
            continue
        sources[recorded] = SourceText(display, text, location)
    return sources


def render_document_html(
    document: Mapping[str, Any],
    resolve: Callable[[str], Path | None],
    *,
    files: Root,
    root: Path | None = None,
    metric: str | None = None,
    comparison: Comparison | None = None,
    nonce: str | None = None,
    locations: bool = False,
    title: str | None = None,
) -> str:
    """The report page of a processed document, with its sources read through ``resolve``
    (``comparison``: the document against a baseline, the compare view)."""
    sources = read_sources(document, resolve, files=files, root=root, locations=locations)
    return render_report_html(
        document, sources, metric=metric, comparison=comparison, nonce=nonce, title=title
    )
